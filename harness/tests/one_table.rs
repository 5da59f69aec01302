//! Adding an MPI_T function to the case language touches at most four harness files:
//! the function table (`spec/src/cases/funcs.rs`), the engine that calls it
//! (`harness/src/exec/calls/mpi_t.rs`), its raw FFI signature
//! (`library/src/ffi/raw.rs`) and its safe wrapper (`library/src/ffi/<entity>.rs`).
//! Everything else reads the table's columns (docs/ARCHITECTURE.md, "Adding one MPI_T
//! function").
//!
//! For every MPI_T function of the table (`Func::mpi_t()` and its variant spellings),
//! this counts the `.rs` files under `harness/src`, `spec/src`, `library/src`,
//! `report/src`, `repro/src` and `xtask/src` that name it in code by its case-language name (`cvar_write`), its C
//! name (`MPI_T_cvar_write`) or its Rust variant (`CvarWrite`). What counts as naming:
//!
//! - an identifier equal to one of the three names (so `lib.cvar_write(..)`,
//!   `Func::CvarWrite`, `Op::CvarWrite`, a `use Func::*` arm `CvarWrite =>`, a field
//!   `category_changed`; not `cvar_get_info_nulls`, another identifier);
//! - a string literal whose whole content is one of them (`"MPI_T_cvar_write"`: a symbol
//!   looked up, a name matched): per-function knowledge as much as an identifier;
//! - not a comment or doc comment (`//`, `/* */`), and not a name inside a longer string
//!   literal: that is a message, a format or C text (`"MPI_T_cvar_write returned {}"`),
//!   prose for a reader or a program, not a key the code matches on;
//! - not test code (`#[cfg(test)]` items, and the files of the test modules they
//!   declare): a unit test picks functions as examples, and adding a function does not
//!   touch it. Those files are counted in a column of their own.
//!
//! The differential oracle (`harness/src/differential/`) generates sequences of
//! calls of the table (`op::Call`). Its generator (`gen/`) names no function: which
//! functions it calls, and how often, is data (`specs/generator.yaml`), and each
//! argument is drawn by what the table says the parameter is. The model engine that
//! carries the calls out on the reference model (`model/`) is the reference model's
//! own per-function dispatch, which adding a function touches anyway; it is counted
//! in a column of its own ([`MODEL_ENGINE`]). The calls themselves, the generator, the
//! target engine, the comparator and the YAML writer read the call and are under the
//! bound. The fuzz oracles (`harness/src/fuzzing/`) are under the bound:
//! `reference_ffi` decodes its input into the table. Files that use some functions for
//! a purpose of their own are allowed to name those, each with its reason
//! ([`ALLOWED`]).
//!
//! `cargo test --release -p mpit-conform --test one_table -- --nocapture` prints the
//! table of counts.

use mpit_report::capabilities::MPI4_FUNCTIONS;
use mpit_spec::cases::funcs::Func;
use mpit_spec::cases::MpiVersion;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "common/rust_code.rs"]
mod rust_code;
#[path = "common/rust_files.rs"]
mod rust_files;
use rust_code::{names, split_tests, tokens};
use rust_files::rust_files;

/// At most this many files name one MPI_T function.
const BOUND: usize = 4;

/// The trees scanned, relative to the repository.
const ROOTS: [&str; 6] = [
    "harness/src",
    "spec/src",
    "library/src",
    "report/src",
    "repro/src",
    "xtask/src",
];

/// The reference model's engine in the differential oracle, counted apart (module
/// doc): it dispatches each call to the reference model, as the reference model's own
/// C ABI does. The generator (`gen/`) and the rest of the oracle read the call and
/// are under the bound.
const MODEL_ENGINE: [&str; 1] = ["harness/src/differential/model/"];

/// Files that name some functions for a purpose of their own (they use those
/// functions; they do not make them callable): the file, the functions it may name
/// (case-language names, space-separated) and why. Not counted against the bound, for
/// those functions only: a new per-function `match` in such a file still fails.
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "xtask/src/bench/child.rs",
        "init_thread finalize cvar_get_num cvar_get_info pvar_get_num pvar_get_info \
         category_get_num category_get_info event_get_num event_get_info \
         source_get_num source_get_info enum_get_info enum_get_item \
         pvar_session_create pvar_session_free pvar_handle_alloc pvar_handle_free \
         pvar_start pvar_read",
        "the benchmark's floor: what a minimal tool does (init, every entry's info, \
         finalize) and single calls timed in a loop, through the wrappers directly so \
         that the measured loop holds nothing of the harness",
    ),
    (
        "spec/src/cases/case.rs",
        "init_thread",
        "a case's cost (`Case::cost`) counts the MPI_T initializations its steps make: \
         the slow part of the slowest libraries, which the pool starts first",
    ),
    (
        "harness/src/fuzzing/ops_differential.rs",
        "init_thread",
        "the fuzz target holds one MPI_T init of the library it loads in-process, as a \
         worker does, so the generated sequences nest inside it (R-INIT-1)",
    ),
    (
        "harness/src/judge/policy.rs",
        "pvar_read pvar_readreset pvar_write pvar_read_in_signal_handler event_get_info \
         event_get_info_object event_read event_copy source_get_info source_get_timestamp \
         enum_get_info enum_get_item event_handle_free",
        "the generated-call oracles' facts about single functions, each with its rule: \
         the calls that refuse MPI_T_PVAR_ALL_HANDLES (R-PREAD-1), the bounds rule a \
         call's buffer cites where it is not the table's, the call reference_ffi never \
         makes (a signal raised in the fuzzer's own process), and for the differential \
         comparator's levels the functions whose text names the code of a bad index \
         (R-EVT-IDX, R-SRC-TS) or of a freed handle (R-EVT-FREE), and the queries whose \
         NULL OUT arguments no sentence covers (specs/return-codes.yaml `levels:`)",
    ),
    (
        "harness/src/exec/mod.rs",
        "init_thread finalize",
        "the executor brackets each case with MPI_T_init_thread and MPI_T_finalize \
         unless the case makes them itself (R-INIT-1, R-FIN-1)",
    ),
    (
        "harness/src/runner/capability_probe.rs",
        "source_get_num source_get_info source_get_timestamp event_get_num \
         event_get_info event_handle_alloc event_register_callback event_handle_free",
        "the capability probe makes the calls a tool makes to find events and sources \
         (MPI-4.1 §15.3.8.1-4), each kept as evidence under its own name",
    ),
    (
        "harness/src/runner/ranks/values.rs",
        "pvar_session_create pvar_session_free pvar_handle_alloc pvar_start pvar_read \
         pvar_read_in_signal_handler",
        "the cross-rank pvar values job: a session, a handle per pvar, a start and reads \
         around MPI work between the ranks, each call first written to the rank's \
         in-flight file (R-PSTART-1); `MPI_T_pvar_read` is also the C name of the \
         signal-handler variant",
    ),
    (
        "harness/src/runner/ranks/rank.rs",
        "init_thread finalize",
        "the rank worker's own MPI_T_init_thread after MPI_Init and MPI_T_finalize \
         before MPI_Finalize (R-GEN-4, R-INIT-1, R-FIN-1)",
    ),
    (
        "harness/src/runner/readers.rs",
        "enum_get_item category_changed",
        "reads back the spots of the catalog reader (library/src/catalog/read.rs) to \
         tell which entry a lost reader was reading",
    ),
    (
        "harness/src/runner/startup.rs",
        "init_thread",
        "tells the start's MPI_T_init_thread from a case's call when the first worker \
         dies there",
    ),
    (
        "harness/src/runner/worker.rs",
        "init_thread cvar_get_num",
        "the worker's start, MPI_T_init_thread at the lowest thread level, and its \
         check that MPI_T still answers (MPI_T_cvar_get_num) before reuse",
    ),
    (
        "library/src/activity.rs",
        "pvar_session_create pvar_session_free",
        "the `activity` step's MPI work includes pvar sessions; mpit-target sits below \
         the engine that reads the function table",
    ),
    (
        "library/src/catalog/decode.rs",
        "category_changed",
        "the catalog reader's record of MPI_T_category_changed",
    ),
    (
        "library/src/catalog/mod.rs",
        "category_changed",
        "the catalog reader's record of MPI_T_category_changed",
    ),
    (
        "library/src/catalog/raw.rs",
        "cvar_get_info pvar_get_info category_get_info event_get_info source_get_info \
         category_changed",
        "the catalog reader's raw records: the `*_get_info` call it makes per entry and \
         a field per global query",
    ),
    (
        "library/src/catalog/read.rs",
        "cvar_get_num pvar_get_num category_get_num event_get_num source_get_num \
         cvar_get_index pvar_get_index category_get_index event_get_index \
         category_get_num_events enum_get_info enum_get_item category_changed",
        "the one catalog reader (docs/ARCHITECTURE.md): the queries it makes entry by \
         entry, in mpit-target, below the engine that reads the function table",
    ),
    (
        "library/src/lib.rs",
        "init_thread",
        "a library that exports no MPI_T_init_thread is not an MPI library",
    ),
    (
        "library/src/lifecycle.rs",
        "init_thread cvar_get_num finalize",
        "the `init_cycles` and `init_threads` operations: cycles of MPI_T_init_thread, \
         MPI_T_cvar_get_num and MPI_T_finalize (R-FIN-3), in mpit-target",
    ),
    (
        "report/src/capabilities/mod.rs",
        "source_get_num source_get_info source_get_info_object source_get_timestamp \
         event_get_num event_get_info event_get_info_object event_get_index \
         event_handle_alloc event_handle_set_info event_handle_get_info \
         event_register_callback event_callback_set_info event_callback_get_info \
         event_handle_free event_set_dropped_handler event_read event_copy \
         event_get_timestamp event_get_source category_get_num_events \
         category_get_events",
        "the 20 MPI-4.0 functions whose exports report.json lists, in the order of \
         §15.3.8-9 (the `_object` variants share two C names); the report crate's \
         `capabilities` (layer 1) sits below the function table (`cases`, layer 2). \
         `mpi4_functions_are_the_tables` checks the list against the `since:` column",
    ),
    (
        "report/src/commands.rs",
        "finalize",
        "`finalize` of the SHA-256 hasher of a library file, another function of that \
         name",
    ),
    (
        "spec/src/specs.rs",
        "finalize",
        "`finalize` of the SHA-256 hasher of the spec bundle, another function of that \
         name",
    ),
    (
        "spec/src/cases/builtin.rs",
        "init_thread cvar_get_info cvar_get_info_name_only pvar_get_info \
         pvar_get_info_name_only category_get_info category_get_info_name_only \
         event_get_info event_get_info_object enum_get_item pvar_read \
         pvar_read_in_signal_handler",
        "the cross-rank cases, written in Rust: each names the call whose answers it \
         compares, as a YAML case names its calls (the variants share those C names)",
    ),
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The three spellings of a function.
fn spellings(f: Func) -> [String; 3] {
    [
        f.yaml().to_string(),
        f.c_name().to_string(),
        format!("{f:?}"),
    ]
}

/// The MPI_T functions of the table: the chapter's, and the variant spellings of them.
fn mpi_t_funcs() -> Vec<Func> {
    let mut v: Vec<Func> = Func::mpi_t().collect();
    v.extend(
        Func::ALL
            .iter()
            .copied()
            .filter(|f| f.is_variant() && f.c_name().starts_with("MPI_T_")),
    );
    v
}

/// Where the files naming one function are.
#[derive(Debug, Default)]
struct Named {
    /// In code, outside the model engine and the allow-list: the files the bound is on.
    counted: Vec<String>,
    /// In code of an [`ALLOWED`] entry that lists the function.
    allowed: Vec<String>,
    /// In the reference model's engine ([`MODEL_ENGINE`]).
    model: Vec<String>,
    /// In test code only (`#[cfg(test)]` items and the test modules they declare).
    tests: Vec<String>,
}

/// Each scanned file (relative to the repository, `/`-separated) with the names its
/// code gives and the names only its test code gives.
fn scan() -> Vec<(String, BTreeSet<String>, BTreeSet<String>)> {
    let root = repo();
    let mut files = Vec::new();
    for r in ROOTS {
        let mut here = Vec::new();
        rust_files(&root.join(r), &mut here);
        assert!(here.len() > 5, "{r} was read");
        files.extend(here);
    }
    files.sort();
    let mut test_files = BTreeSet::new();
    let mut split = Vec::new();
    for f in &files {
        let all = tokens(&std::fs::read_to_string(f).expect("read"));
        let (code, tests) = split_tests(all.clone(), f);
        test_files.extend(tests);
        split.push((f, all, code));
    }
    assert!(
        test_files.len() >= 5,
        "the test modules were found: {test_files:?}"
    );
    split
        .into_iter()
        .map(|(f, all, code)| {
            let rel = f
                .strip_prefix(&root)
                .expect("under the repository")
                .to_string_lossy()
                .replace('\\', "/");
            let all = names(&all);
            let code = match test_files.contains(f) {
                true => BTreeSet::new(),
                false => names(&code),
            };
            let tests = all.difference(&code).cloned().collect();
            (rel, code, tests)
        })
        .collect()
}

/// The files naming each MPI_T function of the table.
fn count() -> BTreeMap<Func, Named> {
    let files = scan();
    let mut out = BTreeMap::new();
    for f in mpi_t_funcs() {
        let s = spellings(f);
        let e: &mut Named = out.entry(f).or_default();
        for (rel, code, tests) in &files {
            if !s.iter().any(|x| code.contains(x)) {
                if s.iter().any(|x| tests.contains(x)) {
                    e.tests.push(rel.clone());
                }
            } else if MODEL_ENGINE.iter().any(|g| rel.starts_with(g)) {
                e.model.push(rel.clone());
            } else if ALLOWED
                .iter()
                .any(|(a, fs, _)| a == rel && fs.split_whitespace().any(|x| x == f.yaml()))
            {
                e.allowed.push(rel.clone());
            } else {
                e.counted.push(rel.clone());
            }
        }
    }
    out
}

/// The table of counts, one line per function. `all` is every file naming it in code
/// (counted, allowed, model engine); `with tests` adds those naming it in tests only.
fn table(named: &BTreeMap<Func, Named>) -> String {
    let row = |a: &str, b: &str, c: &str, d: &str, e: &str, f: &str| {
        format!("{a:<28} {b:>7} {c:>7} {d:>10} {e:>4} {f:>10}\n")
    };
    let mut t = row(
        "function",
        "counted",
        "allowed",
        "model",
        "all",
        "with tests",
    );
    for (f, n) in named {
        let all = n.counted.len() + n.allowed.len() + n.model.len();
        t += &row(
            f.yaml(),
            &n.counted.len().to_string(),
            &n.allowed.len().to_string(),
            &n.model.len().to_string(),
            &all.to_string(),
            &(all + n.tests.len()).to_string(),
        );
    }
    t
}

#[test]
fn an_mpi_t_function_is_named_in_at_most_four_files() {
    let named = count();
    assert_eq!(named.len(), 57, "the 51 functions and 6 variant spellings");
    println!("{}", table(&named));
    let over: Vec<String> = named
        .iter()
        .filter(|(_, n)| n.counted.len() > BOUND)
        .map(|(f, n)| {
            format!(
                "{} ({}):\n    {}",
                f.yaml(),
                n.counted.len(),
                n.counted.join("\n    ")
            )
        })
        .collect();
    assert!(
        over.is_empty(),
        "named in more than {BOUND} files (the model engine and the allow-list aside):\n{}\n\n{}",
        over.join("\n"),
        table(&named)
    );
}

/// Every entry of the allow-list is needed: its file names, in code, each function it
/// lists. An entry that no longer applies is removed, not kept as a loophole.
#[test]
fn every_allowed_entry_is_needed() {
    let named = count();
    for (file, funcs, why) in ALLOWED {
        assert!(!why.is_empty(), "{file}: a reason");
        for y in funcs.split_whitespace() {
            let f = Func::from_yaml(y).unwrap_or_else(|| panic!("{file}: {y} is no function"));
            assert!(
                named[&f].allowed.iter().any(|x| x == file),
                "{file} is allowed to name {y} but does not"
            );
        }
    }
}

/// The MPI-4.0 functions of report.json's capabilities are the table's: those whose
/// `since:` column says MPI-4.0 (report/src/capabilities/mod.rs cannot read the table).
#[test]
fn mpi4_functions_are_the_tables() {
    let table: BTreeSet<&str> = Func::mpi_t()
        .filter(|f| f.since().is_some_and(|v| v >= MpiVersion(4, 0)))
        .map(Func::c_name)
        .collect();
    let report: BTreeSet<&str> = MPI4_FUNCTIONS.into_iter().collect();
    assert_eq!(table, report);
    assert_eq!(report.len(), MPI4_FUNCTIONS.len(), "no function twice");
}

fn names_in(src: &str) -> BTreeSet<String> {
    let (code, _) = split_tests(tokens(src), Path::new("x/a.rs"));
    names(&code)
}

#[test]
fn the_lexer_sees_code_not_comments_messages_or_tests() {
    let src = r##"
        // cvar_write in a comment
        /* MPI_T_pvar_start /* nested */ still a comment */
        /// CvarRead in a doc comment
        fn f<'a>(x: &'a str) -> char {
            let _ = "pvar_stop failed";
            let _ = r#"event_copy"#;
            lib.cvar_write(x);
            let _ = "MPI_T_pvar_read";
            let _ = Func::PvarReset;
            '"'
        }
        let _ = "category_changed";
        #[cfg(test)]
        mod tests {
            fn g() { lib.event_read(); }
        }
        #[cfg(test)]
        #[path = "t.rs"]
        mod more;
        let _ = source_get_num;
    "##;
    let n = names_in(src);
    for yes in [
        "cvar_write",
        "MPI_T_pvar_read",
        "PvarReset",
        "event_copy",
        "category_changed",
        "source_get_num",
    ] {
        assert!(n.contains(yes), "{yes}: {n:?}");
    }
    for no in [
        "MPI_T_pvar_start",
        "CvarRead",
        "pvar_stop",
        "nested",
        "event_read",
    ] {
        assert!(!n.contains(no), "{no}: {n:?}");
    }
    let (_, files) = split_tests(tokens(src), Path::new("x/a.rs"));
    assert_eq!(files, [Path::new("x/t.rs")]);
}
