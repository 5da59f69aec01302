//! The upstream corpus (reports/UPSTREAM.md): every MPI_T bug MPICH and Open MPI
//! shipped that the reference re-creates (`faults --corpus`) is caught by the YAML
//! suite, in the default mode unless the standard's text carries only a reading, a
//! SHOULD or robustness there (listed below with the sentence), by one of the cases
//! reports/UPSTREAM.md names for it; and the ones that are a call sequence are found by
//! `fuzz-props` within its default budget (`--strict` only where the divergence is a
//! reading's). Writes `target/tmp/corpus-score.txt` (CI prints it).

mod common;

use common::*;
use serde_json::Value;
use std::collections::BTreeSet;

/// Corpus bugs the suite catches only at `warn` in the default mode (`fail` under
/// `--strict`), with the text that puts them there.
const AT_WARN: &[(&str, &str)] = &[
    (
        "upstream-mpich-4918",
        "an item index out of range is a bad index only the return-code table names: \
         robustness (\"if a user passes invalid parameter values to any routine the \
         behavior of the implementation is undefined\", MPI-4.1 §15.3.10)",
    ),
    (
        "upstream-ompi-14017",
        "as upstream-mpich-4918: a category index out of range is robustness",
    ),
    (
        "upstream-ompi-675236d09b",
        "a nested MPI_T_init_thread that leaves provided unwritten is the other reading of \
         R-INIT-1 (init.nested_call_has_no_effect: \"has no effect beyond increasing the \
         reference count\"), and MPI_Query_thread following MPI_T's level the other \
         reading of R-MPI-1",
    ),
];

fn results(r: &Value) -> &Vec<Value> {
    r["results"].as_array().expect("results[]")
}

/// The names `faults --corpus` lists.
fn corpus() -> Vec<String> {
    let o = run(&["faults", "--corpus"], &[]);
    stdout(&o)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// The cases reports/UPSTREAM.md names for each bug (its table's `cases` column, the
/// names in backticks; "(+N more)" are left unnamed there).
fn named_cases() -> std::collections::BTreeMap<String, Vec<String>> {
    let path = common::repo().join("reports/UPSTREAM.md");
    let text = std::fs::read_to_string(&path).expect("reports/UPSTREAM.md");
    let cells = |l: &str| -> Vec<String> {
        l.trim()
            .trim_matches('|')
            .split(" | ")
            .map(|c| c.trim().to_string())
            .collect()
    };
    let ticked = |c: &str| -> Vec<String> {
        c.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    let mut lines = text.lines();
    let header = lines
        .find(|l| l.starts_with("| bug |") && l.contains("| cases |"))
        .expect("UPSTREAM.md: the table with a `cases` column");
    let col = cells(header)
        .iter()
        .position(|c| c == "cases")
        .expect("a cases column");
    let mut named = std::collections::BTreeMap::new();
    for l in lines.skip(1).take_while(|l| l.starts_with('|')) {
        let row = cells(l);
        let (Some(bug), Some(cases)) = (row.first(), row.get(col)) else {
            continue;
        };
        if let Some(b) = ticked(bug).first() {
            named.insert(b.clone(), ticked(cases));
        }
    }
    named
}

/// Each corpus fault alone, the whole suite under --strict: the cases that catch it,
/// and whether the default mode does (a must-level fail without a reading, a crash or a
/// timeout, as suite.rs counts the mutation score). At least one of the cases
/// reports/UPSTREAM.md names for the bug must be among those that catch it: a fault
/// caught only by accident elsewhere is noticed.
#[test]
fn every_upstream_bug_is_caught() {
    let lib = reference_lib();
    let faults = corpus();
    assert!(faults.len() >= 30, "corpus faults listed: {}", faults.len());
    for (f, _) in AT_WARN {
        assert!(faults.iter().any(|g| g == f), "{f} is not a corpus fault");
    }
    let named = named_cases();
    for f in &faults {
        let cases = named.get(f).map(Vec::as_slice).unwrap_or_default();
        assert!(
            !cases.is_empty(),
            "{f}: reports/UPSTREAM.md names no case that catches it"
        );
    }
    let out = scratch("corpus");
    let (mut strict, mut default) = (0, 0);
    let mut problems = Vec::new();
    let mut table = Vec::new();
    for fault in &faults {
        let dir = out.join(fault);
        let args = ["--strict", "--timeout", "3"];
        let (_, r) = suite(&lib, &args, &[("MPIT_REFERENCE_FAULTS", fault)], &dir);
        let catching: BTreeSet<&str> = results(&r)
            .iter()
            .filter(|x| matches!(x["status"].as_str(), Some("fail" | "crash" | "timeout")))
            .filter_map(|x| x["case"].as_str())
            .collect();
        let by_default = results(&r).iter().any(|x| match x["status"].as_str() {
            Some("crash" | "timeout") => true,
            Some("fail") => x["level"] == "must" && x["reading"].is_null(),
            _ => false,
        });
        let at_warn = AT_WARN.iter().any(|(f, _)| f == fault);
        strict += usize::from(!catching.is_empty());
        default += usize::from(by_default);
        let named_here = &named[fault];
        if catching.is_empty() {
            problems.push(format!("{fault}: missed"));
        } else if !named_here.iter().any(|c| catching.contains(c.as_str())) {
            problems.push(format!(
                "{fault}: none of the cases reports/UPSTREAM.md names ({}) catches it; \
                 caught by {catching:?}",
                named_here.join(", ")
            ));
        } else if !by_default && !at_warn {
            problems.push(format!(
                "{fault}: only under --strict, and not listed in AT_WARN"
            ));
        } else if by_default && at_warn {
            problems.push(format!(
                "{fault}: caught by default now; drop it from AT_WARN"
            ));
        }
        let shown: Vec<&str> = catching.iter().copied().take(4).collect();
        table.push(format!(
            "{fault:<28} {:<8} {}{}",
            if by_default {
                "default"
            } else if catching.is_empty() {
                "MISSED"
            } else {
                "strict"
            },
            shown.join(", "),
            if catching.len() > 4 {
                format!(" (+{})", catching.len() - 4)
            } else {
                String::new()
            }
        ));
    }
    let n = faults.len();
    let line = format!(
        "corpus: {default}/{n} caught (default), {strict}/{n} under --strict, {} missed",
        n - strict
    );
    eprintln!("{line}");
    for l in &table {
        eprintln!("  {l}");
    }
    let _ = std::fs::write(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("corpus-score.txt"),
        format!("{line}\n{}\n", table.join("\n")),
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let _ = std::fs::remove_dir_all(&out);
}

/// The corpus bugs that are call sequences (reports/UPSTREAM.md, "fuzz-props"), with
/// the sequences `fuzz-props` may take: its default (256 valid sequences and 64 of
/// lifecycle, seed 1), so that no search may quietly grow; `--strict` only where the
/// divergence is a reading's. Every corpus bug that is a call sequence is here: the
/// generator makes MPI_Init, MPI_Finalize and MPI_Session_init in lifecycle sequences.
const SEQUENCES: &[(&str, Budget)] = &[
    ("upstream-mpich-7954", Budget::Default),
    ("upstream-mpich-6337", Budget::Default),
    ("upstream-mpich-1898", Budget::Default),
    ("upstream-mpich-7247", Budget::Default),
    ("upstream-mpich-5125", Budget::Default),
    ("upstream-ompi-14016", Budget::Default),
    ("upstream-ompi-d34a4300b8", Budget::Default),
    ("upstream-ompi-d843f7ae74", Budget::Default),
    // The other reading of R-INIT-1: a SHOULD-level divergence, shrunk under --strict
    // (the standard's text carries only a reading, as AT_WARN says).
    ("upstream-ompi-675236d09b", Budget::Strict),
    // Two pvar handles, activity while one counts, a reset of the other, a read of the
    // first (`counted` in specs/generator.yaml).
    ("upstream-mpich-1930", Budget::Default),
    // A lifecycle sequence with MPI_Init, then get_info or handle_alloc of the one pvar
    // of 17 that MPI_Init adds (`added`).
    ("upstream-ompi-11492", Budget::Default),
    ("upstream-ompi-7084", Budget::Default),
    ("upstream-ompi-4433", Budget::Default),
    // The same crash as 4433 (the fault implies it), searched on its own.
    ("upstream-ompi-4162", Budget::Default),
    // MPI_Init, MPI_Finalize, then the last MPI_T_finalize (R-GEN-4).
    ("upstream-ompi-11485", Budget::Default),
    ("upstream-ompi-cc6bb0e773", Budget::Default),
    // Two MPI_Session_init calls while MPI_T is initialized (R-MPI-2).
    ("upstream-ompi-d83e24ac29", Budget::Default),
];

/// What a search may take.
#[derive(Clone, Copy)]
enum Budget {
    Default,
    Strict,
}

#[test]
fn sequence_bugs_are_found_by_fuzz_props() {
    let lib = reference_lib();
    let libs = lib.to_str().expect("utf-8 path");
    let listed = corpus();
    for (f, _) in SEQUENCES {
        assert!(listed.iter().any(|l| l == f), "{f} is not a corpus fault");
    }
    let dir = scratch("corpus-fuzz");
    let mut missed = Vec::new();
    let mut by_default = 0;
    for (f, budget) in SEQUENCES {
        let out = dir.join(f);
        let mut args = vec![
            "fuzz-props",
            "--lib",
            libs,
            "--timeout",
            "3",
            "--fail-fast",
            "--out",
            out.to_str().expect("utf-8 path"),
        ];
        match budget {
            Budget::Default => by_default += 1,
            Budget::Strict => args.push("--strict"),
        }
        let o = run(&args, &[("MPIT_REFERENCE_FAULTS", f)]);
        let text = stdout(&o);
        let found = o.status.code() == Some(1) && text.contains("DIVERGENCE");
        eprintln!("{f:<28} {}", if found { "found" } else { "NOT FOUND" });
        if !found {
            missed.push(format!("{f}:\n{text}"));
        }
    }
    eprintln!(
        "fuzz-props: {}/{} corpus sequences found, {by_default} of them with the defaults",
        SEQUENCES.len() - missed.len(),
        SEQUENCES.len()
    );
    assert!(missed.is_empty(), "{}", missed.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}
