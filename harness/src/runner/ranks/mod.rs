//! Cross-rank consistency (R-GEN-6, R-GEN-7): the workers run as one MPI job under the
//! library's own launcher (`--launcher "mpiexec -n 4"`), each rank dumps its decoded
//! catalog to a file, and the supervisor compares same-named entries across ranks
//! (MPI-4.1 §15.3, R-GEN-6; R-CVAR-4, R-PVAR-3, and for categories and events
//! §15.3.9 and §15.3.8). Indices and the set of names may differ between processes
//! (R-GEN-7), so entries are matched by name and names seen on some ranks only are
//! information.
//!
//! `launch` starts the job and collects the files, `rank` is one rank, `mpi_t_works`
//! says whether MPI_T worked on every rank, `catalogs` compares the dumps.

pub mod catalogs;
pub mod launch;
pub mod mpi_t_works;
pub mod rank;
pub mod values;

use super::protocol::Hello;
use mpit_spec::cases::builtin::{CASES, VALUES, WORKS};
use mpit_spec::cases::funcs::Func;
use mpit_spec::verdict::{Area, CaseResult, Status};
use mpit_target::catalog::CatalogDump;
use mpit_vocab::catalog::Catalog;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// How long the whole job may take (6 × `--timeout`, a minute by default): every rank
/// starts MPI, reads its whole catalog and writes it, on cores it shares with the others.
pub fn deadline(worker_timeout: Duration) -> Duration {
    worker_timeout * 6
}

/// Runs the cross-rank check: one MPI job under `launcher` (argv, from
/// [`parse_launcher`]), then `ranks.mpi_t_works` and the five comparisons; then, when
/// `ranks.pvars.values` is among `ids`, a second job for it (`values`; `avoid`: pvars
/// whose allocation killed a worker in this run, by name). Nothing when
/// interrupted (Ctrl-C).
pub fn run(
    launcher: &[String],
    hello: &Hello,
    worker_timeout: Duration,
    stop: &AtomicBool,
    ids: &[&str],
    avoid: &[String],
) -> Vec<CaseResult> {
    let mut out = catalogs(launcher, hello, worker_timeout, stop);
    if !ids.contains(&VALUES.id) || stop.load(std::sync::atomic::Ordering::SeqCst) {
        return out;
    }
    // A job that did not run MPI_T on every rank says so once (ranks.mpi_t_works).
    if let Some(w) = out
        .iter()
        .find(|r| r.case == WORKS.id && r.status != Status::Pass)
    {
        let (subject, status) = (w.subject.clone(), w.status);
        out.push(VALUES.result(
            subject,
            Status::Skip,
            format!(
                "not run: the catalog job gave ranks.mpi_t_works `{}`",
                status.as_str()
            ),
        ));
        return out;
    }
    {
        let ask = Ask {
            avoid: avoid.to_vec(),
        };
        let requested = requested_ranks(launcher);
        out.push(
            match launch::launch(launcher, hello, Some(&ask), deadline(worker_timeout), stop) {
                Ok(c) if c.ended == Some(launch::Ended::Interrupted) => return out,
                Ok(c) => values::judge(&c, requested, &ask),
                Err(e) => VALUES.result(
                    requested.map_or_else(|| "? ranks".into(), |n| format!("{n} ranks")),
                    Status::Error,
                    e.to_string(),
                ),
            },
        );
    }
    out
}

/// The catalog job and its six results.
fn catalogs(
    launcher: &[String],
    hello: &Hello,
    worker_timeout: Duration,
    stop: &AtomicBool,
) -> Vec<CaseResult> {
    let line = launcher.join(" ");
    let requested = requested_ranks(launcher);
    let collected = match launch::launch(launcher, hello, None, deadline(worker_timeout), stop) {
        Ok(c) => c,
        Err(e) => {
            let subject = requested.map_or_else(|| "? ranks".into(), |n| format!("{n} ranks"));
            let mut out = vec![WORKS.result(subject.clone(), Status::Error, e.to_string())];
            out.extend(catalogs::skipped(&subject, "the job did not start"));
            return out;
        }
    };
    if collected.ended == Some(launch::Ended::Interrupted) {
        return Vec::new();
    }
    let j = mpi_t_works::judge(&collected, requested, &line);
    let subject = j.result.subject.clone();
    let mut out = vec![j.result];
    match j.no_compare {
        Some(why) => out.extend(catalogs::skipped(&subject, &why)),
        None => {
            let cats: Vec<(i32, &Catalog)> =
                j.catalogs.iter().map(|(r, d)| (*r, &d.catalog)).collect();
            out.extend(catalogs::judge(&cats));
        }
    }
    out
}

/// The command line of one rank: `mpit-conform __rank-worker <json>`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RankHello {
    /// The library and how to decode it (the other fields are not used by a rank).
    pub hello: Hello,
    /// Where the rank writes `rank-<r>.json` (a private directory of the supervisor).
    pub dir: PathBuf,
    /// The values job (`values`) instead of the catalog job.
    #[serde(default)]
    pub values: Option<Ask>,
}

/// What the supervisor asks of the values job.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ask {
    /// Names of pvars not to allocate (their allocation killed a worker in this run;
    /// by name, as indices may differ between a worker and a rank after MPI_Init).
    pub avoid: Vec<String>,
}

/// One call a rank made outside the catalog read, with what came back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankCall {
    /// The function, a row of the table (`MPI_T_init_thread` is `Func::InitThread`).
    pub call: Func,
    /// The return code by spec name (`None`: the function is not exported).
    pub rc: Option<String>,
    /// Whether it returned MPI_SUCCESS.
    pub ok: bool,
    /// OUT values (name → value).
    #[serde(default)]
    pub out: serde_json::Value,
}

/// What one rank writes: `rank-<r>.json`, or `unknown-<pid>.json` when it failed before
/// it knew its rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankDump {
    /// `MPI_Comm_rank(MPI_COMM_WORLD)`, when it got that far.
    pub rank: Option<i32>,
    /// `MPI_Comm_size(MPI_COMM_WORLD)`.
    pub size: Option<i32>,
    pub pid: u32,
    /// What the launcher told the process about its rank (PMI_RANK, OMPI_COMM_WORLD_RANK,
    /// PMIX_RANK), for a process that failed before MPI_Comm_rank.
    #[serde(default)]
    pub launcher_rank: Option<String>,
    /// The calls around the catalog read, in order.
    pub calls: Vec<RankCall>,
    /// The decoded catalog, read after MPI_Init and MPI_T_init_thread.
    pub dump: Option<Box<CatalogDump>>,
    /// Why the rank stopped early, if it did.
    #[serde(default)]
    pub error: Option<String>,
    /// What the values job measured (`values`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<values::Measured>,
}

/// The cross-rank results `--case` globs and `--area` names select, as `plan::select`
/// selects cases (all when both are empty; a glob that does not parse selects nothing,
/// `plan::select` reports it).
pub fn selected(cases: &[String], areas: &[String]) -> Vec<&'static str> {
    let globs: Vec<glob::Pattern> = cases
        .iter()
        .filter_map(|c| glob::Pattern::new(c).ok())
        .collect();
    CASES
        .iter()
        .filter(|c| cases.is_empty() || globs.iter().any(|g| g.matches(c.id)))
        .filter(|_| areas.is_empty() || areas.iter().any(|a| a == Area::Consistency.as_str()))
        .map(|c| c.id)
        .collect()
}

/// A launcher command line split shell-style (`"mpiexec -n 4"` → argv), checked: not
/// empty, and its program exists (a path, or a name on PATH).
pub fn parse_launcher(s: &str) -> Result<Vec<String>, String> {
    let argv = shlex::split(s).ok_or_else(|| {
        format!("--launcher {s:?}: cannot split it into words (unbalanced quotes?)")
    })?;
    let Some(prog) = argv.first() else {
        return Err("--launcher is empty".into());
    };
    if find_program(prog).is_none() {
        return Err(format!(
            "--launcher: `{prog}` not found (no such file, and not a program on PATH)"
        ));
    }
    Ok(argv)
}

/// The file `prog` runs: itself when it names a path, else the first match on PATH.
fn find_program(prog: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if prog.contains('/') {
        let p = PathBuf::from(prog);
        return runnable(&p).then_some(p);
    }
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join(prog))
            .find(|p| runnable(p))
    })
}

/// How many processes the launcher line asks for (`-n N`, `-np N`, `--np N`, `-n=N`),
/// when it says so in a form we know.
pub fn requested_ranks(argv: &[String]) -> Option<usize> {
    const FLAGS: [&str; 5] = ["-n", "-np", "--n", "--np", "-c"];
    argv.iter().enumerate().find_map(|(i, a)| {
        if FLAGS.contains(&a.as_str()) {
            return argv.get(i + 1)?.parse().ok();
        }
        let (flag, value) = a.split_once('=')?;
        FLAGS.contains(&flag).then(|| value.parse().ok())?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn launcher_lines_are_split_and_checked() {
        assert_eq!(
            parse_launcher("sh -c 'echo a b'").ok(),
            Some(vec!["sh".into(), "-c".into(), "echo a b".into()])
        );
        let e = parse_launcher("mpiexec 'unbalanced").unwrap_err();
        assert!(e.contains("cannot split"), "{e}");
        let e = parse_launcher("   ").unwrap_err();
        assert!(e.contains("empty"), "{e}");
        let e = parse_launcher("/nonexistent/mpiexec -n 2").unwrap_err();
        assert!(e.contains("not found"), "{e}");
        let e = parse_launcher("no-such-launcher-xyz -n 2").unwrap_err();
        assert!(e.contains("not found"), "{e}");
    }

    #[test]
    fn the_requested_number_of_ranks_is_read_from_the_line() {
        assert_eq!(requested_ranks(&words("mpiexec -n 4")), Some(4));
        assert_eq!(
            requested_ranks(&words("mpiexec --allow-run-as-root -np 2")),
            Some(2)
        );
        assert_eq!(requested_ranks(&words("prterun --np=3")), Some(3));
        assert_eq!(requested_ranks(&words("srun")), None);
    }

    #[test]
    fn filters_select_cross_rank_results_like_cases() {
        let s = |c: &[&str], a: &[&str]| {
            let c: Vec<String> = c.iter().map(|x| x.to_string()).collect();
            let a: Vec<String> = a.iter().map(|x| x.to_string()).collect();
            selected(&c, &a)
        };
        assert_eq!(s(&[], &[]).len(), CASES.len());
        assert_eq!(s(&["ranks.*"], &[]).len(), CASES.len());
        assert_eq!(s(&[], &["consistency"]).len(), CASES.len());
        assert_eq!(s(&["ranks.cvars.*"], &[]), ["ranks.cvars.identical"]);
        assert!(s(&["lifecycle.*"], &[]).is_empty());
        assert!(s(&[], &["cvars"]).is_empty());
    }
}
