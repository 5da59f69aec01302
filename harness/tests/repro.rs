//! `mpit-conform repro`: standalone C reproducers.
//!
//! - every finding of reports/FINDINGS.md has a reproducer in reports/repro/, and each is
//!   exactly what `repro` writes from the published report (`MPIT_BLESS=1` rewrites them);
//! - each compiles with the installed libraries' own compiler wrappers
//!   (scripts/repro-cc.sh) and exits 1 (or dies by a signal) on every library its finding
//!   names, 0 or 77 (not applicable) on the others, and 0 on the reference serving the
//!   same library's catalog;
//! - a faulty reference run with `--repro` writes reproducers that reproduce with the
//!   fault and not without it;
//! - bad input is one line and exit 2.
//!
//! Beside it in common/: `repro_findings.rs` (what reports/FINDINGS.md says of the
//! reproducers) and `c_runs.rs` (a reproducer compiled with a library's wrapper and run).

#[path = "common/c_runs.rs"]
mod c_runs;
mod common;
#[path = "common/repro_findings.rs"]
mod repro_findings;

use c_runs::{compile, execute, tail, End};
use common::{reference_lib, repo, run, scratch};
use mpit_repro::{c_program, pick, Origin};
use mpit_spec::cases::clauses::Clauses;
use mpit_spec::cases::Suite;
use mpit_spec::verdict::Status;
use repro_findings::{finding_targets, findings_text, markers, published};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

#[test]
fn every_finding_has_the_reproducer_repro_writes() {
    let text = findings_text();
    let ms = markers(&text);
    let targets = finding_targets(&text);
    for id in targets.keys() {
        assert!(
            ms.iter().any(|m| &m.finding == id),
            "{id} has no `<!-- repro {id} ... -->` in reports/FINDINGS.md"
        );
    }
    let bless = std::env::var("MPIT_BLESS").as_deref() == Ok("1");
    let dir = repo().join("reports/repro");
    let s = scratch("repro-files");
    let mut stale = Vec::new();
    for m in &ms {
        let out = s.join(&m.file);
        let o = run(
            &[
                "repro",
                "--report",
                published(&m.from).to_str().unwrap(),
                "--case",
                &m.case,
                "-o",
                out.to_str().unwrap(),
            ],
            &[],
        );
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}: {}",
            m.file,
            String::from_utf8_lossy(&o.stderr)
        );
        let written = std::fs::read_to_string(&out).unwrap();
        assert!(written.contains("#include <mpi.h>"), "{}", m.file);
        assert!(!written.contains("dlopen"), "{}: no dlopen", m.file);
        let committed = dir.join(&m.file);
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&committed, &written).unwrap();
        } else if std::fs::read_to_string(&committed).ok().as_deref() != Some(&written) {
            stale.push(m.file.clone());
        }
    }
    assert!(
        stale.is_empty(),
        "reports/repro/ differs from what `mpit-conform repro` writes for {stale:?}: \
         MPIT_BLESS=1 cargo test -p mpit-conform --test repro rewrites them"
    );
    // No file in reports/repro/ that no finding names.
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".c") {
            assert!(
                ms.iter().any(|m| m.file == name),
                "reports/repro/{name} is named by no finding"
            );
        }
    }
}

/// A reproducer carries only what its case reaches (reports/repro/README.md): no helper it does not
/// call (`-Wunused-function` under `-Werror`, and no `UNUSED` marker to silence it), no
/// header it does not need, and the case before the helpers. Compiled against the
/// reference's header (the standard ABI), where every MPI-4.0 branch is compiled too.
#[test]
fn reproducers_carry_only_what_they_reach() {
    let dir = repo().join("reports/repro");
    let include = repo().join("reference/include");
    let mut lengths = Vec::new();
    let mut problems = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().and_then(|x| x.to_str()) != Some("c") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        lengths.push((text.lines().count(), name.clone()));
        if text.contains("UNUSED") {
            problems.push(format!("{name}: an UNUSED marker"));
        }
        // Before the case: headers, types, declarations; a gate's own main() (a rule of
        // a later MPI than mpi.h's) stands before its `#else`.
        let case = text.find("---- The case").unwrap_or(0);
        let from = text[..case].rfind("#else\n").unwrap_or(0);
        if text[from..case].contains("\n{\n") || text.rfind("int main(void)") < Some(case) {
            problems.push(format!("{name}: a function body before the case"));
        }
        let o = Command::new("cc")
            .args([
                "-c",
                "-o",
                "/dev/null",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-DMPI_ABI",
                "-I",
            ])
            .arg(&include)
            .arg(&path)
            .output()
            .expect("run cc");
        if !o.status.success() {
            problems.push(format!("{name}: {}", String::from_utf8_lossy(&o.stderr)));
        }
    }
    lengths.sort();
    eprintln!("reproducer lines (sorted): {lengths:?}");
    assert!(lengths.len() >= 20, "{} files", lengths.len());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn reproducers_reproduce_on_the_libraries_they_name() {
    let Some(targets) = common::real_targets() else {
        return;
    };
    let text = findings_text();
    let ms = markers(&text);
    let named = finding_targets(&text);
    let unstable =
        std::fs::read_to_string(repo().join("reports/published/unstable.yaml")).unwrap_or_default();
    let lib = reference_lib();
    let lib_dir = lib.parent().unwrap().to_path_buf();
    let s = scratch("repro-run");
    // Each library's catalog, served by the reference for the negative control.
    let mut catalogs = BTreeMap::new();
    for (name, path, _) in &targets {
        let o = run(&["catalog", "--lib", path, "--format", "yaml"], &[]);
        assert_eq!(o.status.code(), Some(0), "catalog of {name}");
        let f = s.join(format!("{name}.yaml"));
        std::fs::write(&f, &o.stdout).unwrap();
        catalogs.insert(name.clone(), f);
    }
    let mut problems = Vec::new();
    let mut reproduced_on: BTreeMap<(String, String), bool> = BTreeMap::new();
    let mut table = Vec::new();
    for m in &ms {
        let src = repo().join("reports/repro").join(&m.file);
        let names = &named[&m.finding];
        let mut row = format!("{:<16}", m.file);
        for (t, _, _) in &targets {
            let exe = s.join(format!("{}.{t}", m.file));
            if let Err(e) = compile(t, &src, &exe, &lib_dir) {
                problems.push(format!("{} does not compile for {t}: {e}", m.file));
                continue;
            }
            let is_named = names.contains(t) || m.also.contains(t);
            // A finding listed as unstable may pass a run: up to five tries.
            let tries = if is_named && unstable.contains(&m.case) {
                5
            } else {
                1
            };
            let (mut end, mut out) = execute(&exe, &[]);
            for _ in 1..tries {
                if end.reproduced() {
                    break;
                }
                (end, out) = execute(&exe, &[]);
            }
            row.push_str(&format!(" {t}={end:?}"));
            if is_named {
                let e = reproduced_on
                    .entry((m.finding.clone(), t.clone()))
                    .or_default();
                *e |= end.reproduced();
                if !(end.reproduced() || end == End::NotApplicable) {
                    problems.push(format!(
                        "{} on {t} (named): {end:?}\n{}",
                        m.file,
                        tail(&out)
                    ));
                }
            } else if !matches!(end, End::NotReproduced | End::NotApplicable) {
                problems.push(format!(
                    "{} on {t} (not named): {end:?}\n{}",
                    m.file,
                    tail(&out)
                ));
            }
        }
        let exe = s.join(format!("{}.reference", m.file));
        if let Err(e) = compile("reference", &src, &exe, &lib_dir) {
            problems.push(format!(
                "{} does not compile for the reference: {e}",
                m.file
            ));
        } else {
            let cat = catalogs[&m.from].to_str().unwrap().to_string();
            let (end, out) = execute(&exe, &[("MPIT_REFERENCE_CATALOG", &cat)]);
            row.push_str(&format!(" reference={end:?}"));
            let want = if m.reference_not_applicable {
                End::NotApplicable
            } else {
                End::NotReproduced
            };
            if end != want {
                problems.push(format!(
                    "{} on the reference with {}'s catalog: {end:?}, want {want:?}\n{}",
                    m.file,
                    m.from,
                    tail(&out)
                ));
            }
        }
        table.push(row);
    }
    for (id, ts) in &named {
        for t in ts {
            if reproduced_on.get(&(id.clone(), t.clone())) != Some(&true) {
                problems.push(format!("no reproducer of {id} reproduces on {t}"));
            }
        }
    }
    eprintln!("{}", table.join("\n"));
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn a_faulty_reference_run_writes_reproducers_that_need_the_fault() {
    let lib = reference_lib();
    let lib_dir = lib.parent().unwrap().to_path_buf();
    let s = scratch("repro-fault");
    let out = s.join("out");
    let faults = "overrun-one-byte,foreign-session-handle-accepted,handle-not-nulled";
    let o = run(
        &[
            "--lib",
            lib.to_str().unwrap(),
            "--repro",
            "--quiet",
            "--area",
            "strings",
            "--area",
            "pvars",
            "--area",
            "cvars",
            "--out",
            out.to_str().unwrap(),
        ],
        &[("MPIT_REFERENCE_FAULTS", faults)],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let results = report["results"].as_array().unwrap();
    let fails: Vec<&serde_json::Value> = results.iter().filter(|r| r["status"] == "fail").collect();
    assert!(fails.len() >= 10, "{} fails", fails.len());
    let mut per_case: BTreeMap<&str, usize> = BTreeMap::new();
    for f in &fails {
        *per_case.entry(f["case"].as_str().unwrap()).or_default() += 1;
    }
    // Every fail has its reproducer (at most 3 subjects per case).
    let with: Vec<&&serde_json::Value> = fails.iter().filter(|r| r["repro"].is_string()).collect();
    let want: usize = per_case.values().map(|n| (*n).min(3)).sum();
    assert_eq!(with.len(), want, "reproducers per case: {per_case:?}");
    for c in ["foreign_handle", "desc.sizes", "free_nulls"] {
        assert!(
            with.iter().any(|r| r["case"].as_str().unwrap().contains(c)),
            "a reproducer of a {c} case"
        );
    }
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("C reproducer") && html.contains("class=\"copy\""));
    assert!(
        html.contains("#include &lt;mpi.h&gt;"),
        "the source is in the page"
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("[C reproducer](repro/"), "report.md links them");
    let mut checked = 0;
    for r in with {
        let rel = r["repro"].as_str().unwrap();
        let src = out.join(rel);
        let exe = s.join(format!("bin-{checked}"));
        compile("reference", &src, &exe, &lib_dir).unwrap();
        let (a, ta) = execute(&exe, &[("MPIT_REFERENCE_FAULTS", faults)]);
        let (b, tb) = execute(&exe, &[]);
        assert!(
            a.reproduced(),
            "{rel} with the faults: {a:?}\n{}",
            tail(&ta)
        );
        assert_eq!(b, End::NotReproduced, "{rel} without: {}", tail(&tb));
        checked += 1;
    }
    assert!(checked >= 10);
    // `repro --lib`: the case is run first (in workers), stdout is the program alone.
    let o = run(
        &[
            "repro",
            "--lib",
            lib.to_str().unwrap(),
            "--case",
            "pvars.session.foreign_handle.startstop",
        ],
        &[("MPIT_REFERENCE_FAULTS", faults)],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let c = String::from_utf8_lossy(&o.stdout);
    assert!(
        c.starts_with("/*\n * Reproducer of a `fail`"),
        "{}",
        &c[..c.len().min(300)]
    );
    assert!(c.contains("MPI_T_pvar_start"));
}

/// `fuzz-props` writes the C program of each divergence it replays, as `run --repro`
/// does: it compiles against the reference, reproduces with the fault and not without.
/// `null-out-deref-pvar` at seed 7 crashes in `pvar_get_info` with its other OUT
/// arguments NULL, in each mode (the generator before specs/generator.yaml crashed it,
/// at that seed, in an entry that appears at MPI_Init, whose program once called past
/// the end without the fault; no seed of 1-210 reaches that entry first now).
/// `index-shift-after-growth` at seed 2 moves a cvar's index at MPI_Init: its program
/// once found the subject by name after MPI_Init and saw no move.
#[test]
fn fuzz_props_writes_c_reproducers_that_need_the_fault() {
    let lib = reference_lib();
    let lib_dir = lib.parent().unwrap().to_path_buf();
    let s = scratch("repro-fuzz-props");
    let mut checked = 0;
    for (fault, seed) in [
        ("pvar-get-index-ignores-class", "2"),
        ("missing-nul", "1"),
        ("null-out-deref-pvar", "7"),
        ("index-shift-after-growth", "2"),
        // Its cases end in the built-in check of unique names (R-STR-6), which the C
        // translation says with names.c. Seed 3 since the generator makes MPI_Finalize
        // and MPI_Session_init (seed 2 no longer reaches it within 200, as in
        // differential.rs).
        ("duplicate-name", "3"),
    ] {
        let out = s.join(fault);
        let o = run(
            &[
                "fuzz-props",
                "--lib",
                lib.to_str().unwrap(),
                "--seed",
                seed,
                "--cases",
                "200",
                "--robustness",
                "--strict",
                "--out",
                out.to_str().unwrap(),
            ],
            &[("MPIT_REFERENCE_FAULTS", fault)],
        );
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        assert_eq!(o.status.code(), Some(1), "{fault}: {text}");
        // "C reproducer: none: no C translation for ..." names a case without one.
        let programs: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("C reproducer: "))
            .filter(|p| !p.starts_with("none: "))
            .collect();
        assert!(!programs.is_empty(), "{fault}: {text}");
        for src in programs {
            let exe = s.join(format!("bin-{checked}"));
            compile("reference", Path::new(src), &exe, &lib_dir).unwrap();
            let (a, ta) = execute(&exe, &[("MPIT_REFERENCE_FAULTS", fault)]);
            let (b, tb) = execute(&exe, &[]);
            assert!(a.reproduced(), "{src} with {fault}: {a:?}\n{}", tail(&ta));
            assert_eq!(b, End::NotReproduced, "{src} without: {}", tail(&tb));
            checked += 1;
        }
    }
    assert!(checked >= 9, "{checked} programs");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let (s, report) = common::passing_report("repro-bad");
    let r = report.to_str().unwrap();
    let one_line_2 = common::one_line_exit_2;
    one_line_2(
        &["repro", "--report", r, "--case", "pvars.readonly.no_write"],
        "has no result in this report",
    );
    one_line_2(
        &["repro", "--report", r, "--case", "no.such.case"],
        "no case `no.such.case`",
    );
    one_line_2(
        &["repro", "--report", r, "--case", "strings.cvar.name.sizes"],
        "not a fail, warning or crash",
    );
    one_line_2(
        &[
            "repro",
            "--report",
            r,
            "--case",
            "strings.cvar.name.sizes",
            "--subject",
            "cvar 99 nothing",
        ],
        "no result on subject",
    );
    let text = std::fs::read_to_string(&report).unwrap();
    let other = s.join("v99.json");
    std::fs::write(
        &other,
        text.replacen("\"format_version\": 1", "\"format_version\": 99", 1),
    )
    .unwrap();
    one_line_2(
        &[
            "repro",
            "--report",
            other.to_str().unwrap(),
            "--case",
            "strings.cvar.name.sizes",
        ],
        "format",
    );
}

/// Results whose reproducer may not reproduce, and why. MPICH 5.0.2's standard-ABI
/// build aborts in `MPI_T_event_get_info` of an invalid index in the harness's worker,
/// depending on its heap (FINDINGS F-16); in a small C program the same calls mostly
/// return `MPI_T_ERR_INVALID_INDEX` (before_init aborted in 3 of 6 runs). F-16's
/// reproducer is a case that aborts in both (after_finalize: 20 of 20 runs).
const HEAP_DEPENDENT: &[(&str, &str)] = &[
    ("mpich5-abi", "lifecycle.uninitialized.before_init"),
    ("mpich5-abi", "indices.event.bad_index"),
    ("mpich5-abi", "events.error_then_error"),
    ("mpich5-abi", "events.event.bad_index"),
    ("mpich5-abi", "events.event.negative_index"),
    ("mpich5-abi", "differential.event_get_info.fdc7396b"),
];

/// What a C reproducer does not write yet, as `repro` says it in one line, which this
/// test expects: the harness operations of the lifecycle matrix (cycles in a time
/// budget, cycling threads; their findings F-12, F-15 have reproducers from other
/// cases), and a step passing each OUT argument NULL in turn (Open MPI's NULL `value`
/// warning). Their results replay with `mpit-conform --case`.
const NOT_WRITTEN_IN_C: &[&str] = &[
    "init_cycles is not an MPI call",
    "init_threads is not an MPI call",
    "for_all over NULL OUT arguments",
    // cvars.constant.value_kept compares each value read after a re-initialization with
    // the whole answer saved before it (F-23's own reproducer is lifecycle.reinit.works).
    "`same_as` (a whole saved answer)",
];

/// The program `repro` writes (`pick`, then `c_program`) for every fail or crash of the
/// published reports (the first subject of each case on each library), and for every
/// case that only warns there, compiles with that library's wrapper and reproduces
/// there, but for the heap-dependent results above. A warning's program defines REPRO_STRICT, so it counts
/// the deviation `--strict` fails. The run-wide return-code check is no case of the
/// suite: it has no program.
#[test]
fn every_published_failure_reproduces() {
    let Some(targets) = common::real_targets() else {
        return;
    };
    let lib = reference_lib();
    let lib_dir = lib.parent().unwrap().to_path_buf();
    let s = scratch("repro-published");
    let mut problems = Vec::new();
    let mut not_in_c = Vec::new();
    let (mut total, mut reproduced, mut warnings) = (0, 0, 0);
    let src_set = mpit_spec::specs::Source::Bundled;
    let suite = Suite::load(&src_set).unwrap();
    let clauses = Clauses::load(&src_set).unwrap();
    for (t, _, _) in &targets {
        let report = mpit_report::json::read(&published(t)).unwrap();
        let mut cases: Vec<&str> = Vec::new();
        for r in &report.results {
            if mpit_repro::reproducible(r)
                && !cases.contains(&r.case.as_str())
                && r.case != mpit_conform::judge::return_codes::CASE
            {
                cases.push(&r.case);
            }
        }
        for case in cases {
            total += 1;
            let warns_only = report
                .results
                .iter()
                .filter(|r| r.case == case)
                .all(|r| !matches!(r.status, Status::Fail | Status::Crash | Status::Timeout));
            warnings += usize::from(warns_only);
            // What `repro --report ... --case ...` writes, made in this process: one
            // parse of the report per library rather than one per case (about 240).
            let src = s.join(format!("{t}--{case}.c"));
            let program = pick(&report, case, None).and_then(|r| {
                let case = suite.get(case).expect("a case of the suite");
                c_program(case, r, &Origin::of(&report), &clauses)
            });
            match program {
                Ok(text) => std::fs::write(&src, text).unwrap(),
                Err(e)
                    if NOT_WRITTEN_IN_C
                        .iter()
                        .any(|why| e.to_string().contains(why)) =>
                {
                    not_in_c.push(format!("{t} {case}"));
                    continue;
                }
                Err(e) => {
                    problems.push(format!("{t} {case}: {e}"));
                    continue;
                }
            }
            let exe = s.join(format!("{t}--{case}"));
            if let Err(e) = compile(t, &src, &exe, &lib_dir) {
                problems.push(format!("{t} {case} does not compile: {e}"));
                continue;
            }
            let (end, out) = execute(&exe, &[]);
            if end.reproduced() {
                reproduced += 1;
            } else if !HEAP_DEPENDENT.contains(&(t.as_str(), case)) {
                problems.push(format!("{t} {case}: {end:?}\n{}", tail(&out)));
            }
        }
    }
    eprintln!(
        "{reproduced} of {total} published (library, case) failures and warnings ({warnings} \
         of them warnings only) reproduced; {} use a harness operation or form with no C \
         version yet: {not_in_c:?}",
        not_in_c.len()
    );
    assert!(total >= 200 && warnings >= 100, "{total}, {warnings}");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
