//! Cross-rank consistency (`--launcher`): two real libraries under their own launchers
//! with 2 ranks, a launcher that does not start one job, and bad launcher lines. The
//! comparator's verdicts (a differing attribute fails, other indices and names on some
//! ranks only pass) are unit tests in harness/src/runner/ranks/catalogs.rs.

mod common;

use common::*;
use serde_json::Value;
use std::path::Path;

/// The cross-rank results alone (no suite case runs).
const CASE: &str = "ranks.*";

fn ranks_results(r: &Value) -> Vec<&Value> {
    r["results"]
        .as_array()
        .expect("results[]")
        .iter()
        .filter(|x| x["case"].as_str().is_some_and(|c| c.starts_with("ranks.")))
        .collect()
}

fn find<'a>(rs: &[&'a Value], id: &str) -> &'a Value {
    rs.iter()
        .find(|x| x["case"] == id)
        .unwrap_or_else(|| panic!("no {id} in {rs:#?}"))
}

/// The library of target `name` and its launcher, or `None` (a loud skip; a failure
/// under MPIT_REQUIRE_TARGETS=1).
fn target(name: &str, launcher: &str) -> Option<String> {
    let required = required();
    let targets = real_targets()?;
    let (_, path, _) = targets.iter().find(|(n, _, _)| n == name)?;
    for needed in [path.as_str(), launcher] {
        if !Path::new(needed).exists() {
            assert!(
                !required,
                "{needed} is missing: run scripts/install-targets.sh"
            );
            eprintln!("SKIPPED (loudly): {needed} is missing");
            return None;
        }
    }
    Some(path.clone())
}

/// What `ranks.pvars.values` must say on a library: its status, words its message
/// holds, and the exit code of the run.
struct Values {
    status: &'static str,
    says: &'static [&'static str],
    exit: i32,
}

fn two_ranks(name: &str, launcher: &str, extra: &str, values: Values) {
    let Some(lib) = target(name, launcher) else {
        return;
    };
    let out = scratch(&format!("ranks-{name}"));
    let line = format!("{launcher} {extra} -n 2");
    let t = std::time::Instant::now();
    let (code, r) = suite(
        Path::new(&lib),
        &["--case", CASE, "--launcher", &line],
        &[],
        &out,
    );
    eprintln!("{name}: {line}: {:.1} s", t.elapsed().as_secs_f64());
    let rs = ranks_results(&r);
    let ids: Vec<&str> = rs.iter().filter_map(|x| x["case"].as_str()).collect();
    for id in [
        "ranks.mpi_t_works",
        "ranks.cvars.identical",
        "ranks.pvars.identical",
        "ranks.categories.identical",
        "ranks.events.identical",
        "ranks.enums.identical",
        "ranks.pvars.values",
    ] {
        assert!(ids.contains(&id), "{name}: no {id} in {ids:?}");
    }
    // The values job (a second job): pvars around MPI work between the ranks.
    let v = find(&rs, "ranks.pvars.values");
    assert_eq!(v["status"], values.status, "{name}: {v:#}");
    let m = v["message"].as_str().unwrap_or("");
    for w in values.says {
        assert!(m.contains(w), "{name}: `{w}` in {m}");
    }
    assert!(v["clause"].as_str().is_some_and(|c| c.contains("R-PCLASS")));
    let works = find(&rs, "ranks.mpi_t_works");
    assert_eq!(works["status"], "pass", "{name}: {works:#}");
    assert_eq!(works["subject"], "2 ranks");
    assert_eq!(works["area"], "consistency");
    assert_eq!(works["oracle"], "run_wide");
    let ranks: std::collections::BTreeSet<i64> = works["evidence"]
        .as_array()
        .expect("evidence")
        .iter()
        .filter(|e| e["call"] == "MPI_T_init_thread")
        .filter_map(|e| e["args"]["rank"].as_i64())
        .collect();
    assert_eq!(
        ranks,
        [0, 1].into(),
        "{name}: MPI_T_init_thread on both ranks"
    );
    for x in rs.iter().filter(|x| x["case"] != "ranks.pvars.values") {
        // Each comparison gave a verdict (the comparator's fail is unit-tested).
        let s = x["status"].as_str().unwrap_or("");
        assert!(
            ["pass", "fail", "skip"].contains(&s),
            "{name}: {} {s}: {}",
            x["case"],
            x["message"]
        );
        assert_eq!(x["level"], "must");
        assert!(x["clause"].as_str().is_some_and(|c| c.contains("R-GEN")));
    }
    let cvars = find(&rs, "ranks.cvars.identical");
    assert!(
        cvars["message"]
            .as_str()
            .is_some_and(|m| m.contains("cvars compared by name across 2 ranks")),
        "{name}: {cvars:#}"
    );
    assert!(find(&rs, "ranks.cvars.identical")["clause"]
        .as_str()
        .is_some_and(|c| c.contains("R-CVAR-4")));
    // Only the cross-rank results ran; the run exits 0 unless the values job found
    // something.
    let all = r["results"].as_array().map_or(0, Vec::len);
    assert_eq!(
        all, 7,
        "--case 'ranks.*' selects the seven cross-rank results alone"
    );
    assert_eq!(code, Some(values.exit), "{name}: {rs:#?}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn debian_mpich_two_ranks_under_hydra() {
    // MPICH 4.0.2 has no pvar: nothing to read around the work.
    let values = Values {
        status: "skip",
        says: &["no pvar"],
        exit: 0,
    };
    two_ranks("debian-mpich", "/usr/bin/mpiexec.mpich", "", values);
}

/// As root on two cores: orterun refuses root and more ranks than cores otherwise.
const ORTERUN: &str = "--allow-run-as-root --oversubscribe";

#[test]
fn debian_openmpi_two_ranks_under_orterun() {
    // F-10 under the launcher: allocating a PSM2 pvar's handle kills the rank; with no
    // suite case in the run, nothing said to pass over it. The crash names the call.
    let values = Values {
        status: "crash",
        says: &["MPI_T_pvar_handle_alloc(", "mtl_psm2_"],
        exit: 1,
    };
    two_ranks(
        "debian-openmpi",
        "/usr/bin/mpiexec.openmpi",
        ORTERUN,
        values,
    );
}

/// With a suite case in the run whose worker died allocating those PSM2 handles (F-10),
/// the values job passes over them by name and judges the rest: the queue lengths the
/// held messages fill move on the ranks.
#[test]
fn the_values_job_passes_over_what_killed_a_worker() {
    let launcher = "/usr/bin/mpiexec.openmpi";
    let Some(lib) = target("debian-openmpi", launcher) else {
        return;
    };
    let out = scratch("ranks-values-openmpi");
    let line = format!("{launcher} {ORTERUN} -n 2");
    let (_, r) = suite(
        Path::new(&lib),
        &[
            "--case",
            "ranks.pvars.values",
            "--case",
            "pvars.handle.alloc_free",
            "--launcher",
            &line,
        ],
        &[],
        &out,
    );
    let rs = ranks_results(&r);
    let v = find(&rs, "ranks.pvars.values");
    assert_eq!(v["status"], "pass", "{v:#}");
    let m = v["message"].as_str().unwrap_or("");
    assert!(
        m.contains("pvars read before and after MPI work between the 2 ranks"),
        "{m}"
    );
    assert!(
        m.contains("passed over") && m.contains("mtl_psm2_rx_user_bytes"),
        "{m}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// A rank that dies by a signal before its dump (rank 1 kills itself instead of starting
/// the rank worker, once rank 0 has had time to start): `crash`, naming the missing rank
/// and Hydra's report of it.
#[test]
fn a_rank_that_dies_is_a_crash_naming_it() {
    let launcher = "/usr/bin/mpiexec.mpich";
    let Some(lib) = target("debian-mpich", launcher) else {
        return;
    };
    let out = scratch("ranks-killed");
    let line = format!(
        r#"{launcher} -n 2 sh -c 'if [ "$PMI_RANK" = 1 ]; then sleep 1; kill -SEGV $$; fi; exec "$@"' sh"#
    );
    let (code, r) = suite(
        Path::new(&lib),
        &["--case", CASE, "--launcher", &line],
        &[],
        &out,
    );
    let rs = ranks_results(&r);
    let works = find(&rs, "ranks.mpi_t_works");
    assert_eq!(works["status"], "crash", "{works:#}");
    let m = works["message"].as_str().unwrap_or("");
    assert!(m.contains("no dump from rank") && m.contains('1'), "{m}");
    assert!(m.contains("BAD TERMINATION"), "{m}");
    assert_eq!(code, Some(1));
    let _ = std::fs::remove_dir_all(&out);
}

/// A "launcher" that starts two unconnected processes (each a singleton rank 0 of 1):
/// not one MPI job, an `error` naming the launcher as the suspect, the comparisons
/// skipped, exit 2.
#[test]
fn unconnected_processes_are_an_error() {
    let lib = reference_lib();
    let out = scratch("ranks-unconnected");
    let (code, r) = suite(
        &lib,
        &[
            "--case",
            CASE,
            "--launcher",
            r#"sh -c '"$@" & "$@"; wait' sh"#,
        ],
        &[],
        &out,
    );
    let rs = ranks_results(&r);
    let works = find(&rs, "ranks.mpi_t_works");
    assert_eq!(works["status"], "error", "{works:#}");
    let m = works["message"].as_str().unwrap_or("");
    assert!(m.contains("not one MPI job"), "{m}");
    assert!(m.contains("launcher belong to this library"), "{m}");
    assert_eq!(find(&rs, "ranks.cvars.identical")["status"], "skip");
    assert_eq!(code, Some(2));
    let _ = std::fs::remove_dir_all(&out);
}

/// A launcher that fails without starting a rank (bad options, root): `error`, with its
/// exit and its output.
#[test]
fn a_launcher_that_starts_no_rank_is_an_error_naming_it() {
    let lib = reference_lib();
    let out = scratch("ranks-nostart");
    let (code, r) = suite(
        &lib,
        &[
            "--case",
            CASE,
            "--launcher",
            "sh -c 'echo no ranks today >&2; exit 3' sh -n 2",
        ],
        &[],
        &out,
    );
    let rs = ranks_results(&r);
    let works = find(&rs, "ranks.mpi_t_works");
    assert_eq!(works["status"], "error", "{works:#}");
    let m = works["message"].as_str().unwrap_or("");
    assert!(m.contains("the launcher started no rank"), "{m}");
    assert!(m.contains("exited with 3"), "{m}");
    assert!(m.contains("no ranks today"), "{m}");
    assert_eq!(code, Some(2));
    let _ = std::fs::remove_dir_all(&out);
}

/// Bad launcher lines: one line on stderr, exit 2, no report.
#[test]
fn bad_launcher_lines_are_one_line_and_exit_2() {
    let lib = reference_lib();
    let lib = lib.to_str().expect("utf-8");
    let out = scratch("ranks-bad");
    let o = out.to_str().expect("utf-8");
    for (line, want) in [
        ("/nonexistent/mpiexec -n 2", "not found"),
        ("no-such-launcher-here -n 2", "not found"),
        ("mpiexec -n 'two", "cannot split"),
        ("", "empty"),
    ] {
        let r = run(&["--lib", lib, "--launcher", line, "--out", o], &[]);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{line}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{line}: {err}");
        assert!(err.contains(want), "{line}: {err}");
        assert!(!out.join("report.json").exists());
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// R-GEN-6, R-CVAR-4 and R-PVAR-3 are covered only by the cross-rank run: `coverage`
/// lists them as not covered and says why; `coverage --with-launcher` counts them.
#[test]
fn coverage_counts_the_cross_rank_rules_only_with_a_launcher() {
    let must = |args: &[&str]| -> (usize, String) {
        let o = run(args, &[]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let out = stdout(&o);
        let covered = out
            .lines()
            .find(|l| l.starts_with("MUST"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|f| f.split('/').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("a MUST line in {out}"));
        (covered, out)
    };
    let (without, text) = must(&["coverage"]);
    for rule in ["R-GEN-6", "R-CVAR-4", "R-PVAR-3"] {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{rule} ")))
            .unwrap_or_else(|| panic!("{rule} not listed as uncovered:\n{text}"));
        assert!(line.contains("--launcher"), "{line}");
    }
    let (with, text) = must(&["coverage", "--with-launcher"]);
    assert_eq!(with, without + 3, "{text}");
    let uncovered = text.split_once("not covered:").map_or("", |x| x.1);
    assert!(!uncovered.contains("R-CVAR-4"), "{text}");
}
