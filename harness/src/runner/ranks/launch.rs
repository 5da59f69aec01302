//! Starts the cross-rank job under the library's launcher and collects what the ranks
//! wrote. The launcher runs through `mpit_process` (its own process group, reaped with
//! wait4) with the family's worker environment (`specs/env/workers.yaml`); past the
//! deadline, or on Ctrl-C, the whole group is killed, as the pool does with a worker,
//! and after the launcher's exit whatever it left in its group is killed too. Its
//! stdout and stderr are captured (bounded; launchers mangle stdout; their first and
//! last lines are shown when a rank is missing). The ranks write into the launch's
//! private directory.

use super::{Ask, RankDump, RankHello};
use crate::runner::says_something;
pub use mpit_process::Ended;
use mpit_process::Error as ProcessError;
use mpit_process::{Captured, Cmd};
use mpit_target::worker_env;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// How the launcher ended, as the report says it.
pub fn said(e: &Ended) -> String {
    match e {
        Ended::Interrupted => "interrupted".into(),
        e => format!("the launcher {e}"),
    }
}

/// What came back from one launch.
#[derive(Debug, Default)]
pub struct Collected {
    pub ended: Option<Ended>,
    /// The dumps that parsed, by file name.
    pub dumps: Vec<(String, RankDump)>,
    /// How many rank processes started (each leaves `started-<pid>` first).
    pub started: usize,
    /// Files that did not parse (name, why).
    pub unreadable: Vec<(String, String)>,
    /// The last lines of the launcher's stderr (its ranks' stderr included).
    pub stderr_tail: Vec<String>,
    /// The last lines of its stdout (where Hydra reports a rank's bad termination).
    pub stdout_tail: Vec<String>,
    /// Per rank, the last call it announced (`at-<rank>`, the values job).
    pub progress: std::collections::BTreeMap<i32, String>,
    pub wall: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("cannot create the cross-rank directory: {0}")]
    Dir(std::io::Error),
    #[error("cannot find own executable: {0}")]
    Exe(std::io::Error),
    #[error("cannot start the launcher `{prog}`: {source}")]
    Spawn {
        prog: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot encode the rank worker's arguments: {0}")]
    Encode(#[from] serde_json::Error),
    #[error("the launcher: {0}")]
    Supervise(ProcessError),
}

/// Bytes kept of each of the launcher's output streams (its first and last ones).
const OUTPUT_CAP: usize = 4 << 20;

/// Lines of the launcher's output kept for the report, and how many of them are its
/// first lines.
const TAIL: usize = 12;
const HEAD: usize = 3;

/// Runs `launcher… <own exe> __rank-worker <json>` and waits for it (at most
/// `timeout`; `stop` ends the wait early).
pub fn launch(
    launcher: &[String],
    hello: &super::super::protocol::Hello,
    values: Option<&Ask>,
    timeout: Duration,
    stop: &AtomicBool,
) -> Result<Collected, LaunchError> {
    let Some((prog, args)) = launcher.split_first() else {
        return Err(LaunchError::Spawn {
            prog: String::new(),
            source: std::io::Error::other("empty launcher"),
        });
    };
    let mut cmd = Cmd::new(prog);
    let dir = cmd.private_dir("mpit-ranks-").map_err(|e| match e {
        ProcessError::Dir(e) => LaunchError::Dir(e),
        e => LaunchError::Supervise(e),
    })?;
    let exe = std::env::current_exe().map_err(LaunchError::Exe)?;
    let json = serde_json::to_string(&RankHello {
        hello: hello.clone(),
        dir: dir.clone(),
        values: values.cloned(),
    })?;
    let env = worker_env(&hello.lib);
    // Own process group: a timeout or Ctrl-C kills the launcher and whatever it
    // started, and so does its exit (a daemon that outlives it must not outlive the run).
    let ran = cmd
        .args(args)
        .arg(&exe)
        .arg("__rank-worker")
        .arg(&json)
        .envs(env.vars())
        .timeout(timeout)
        .capture_limit(OUTPUT_CAP)
        .run_until(stop)
        .map_err(|e| match e {
            ProcessError::Spawn { source, .. } => LaunchError::Spawn {
                prog: prog.clone(),
                source,
            },
            e => LaunchError::Supervise(e),
        })?;
    let mut c = Collected {
        ended: Some(ran.exit.ended),
        wall: ran.exit.wall,
        stderr_tail: tail(&ran.stderr),
        stdout_tail: tail(&ran.stdout),
        ..Collected::default()
    };
    read_dumps(&dir, &mut c);
    // `env` (the worker's private directory) and `ran`'s (the ranks') are removed here.
    drop(env);
    drop(ran);
    Ok(c)
}

/// The lines worth showing of a launcher's output: all of a short one; of a long one the
/// first lines (Open MPI's help texts say what is wrong there) and the last ones.
fn tail(out: &Captured) -> Vec<String> {
    let text = out.text();
    let lines: Vec<String> = text
        .lines()
        .map(str::trim_end)
        // Blank lines and the rulers around help texts say nothing.
        .filter(|l| says_something(l))
        .map(str::to_string)
        .collect();
    if lines.len() <= TAIL {
        return lines;
    }
    let mut out = lines[..HEAD].to_vec();
    out.push("…".into());
    out.extend_from_slice(&lines[lines.len() - (TAIL - HEAD - 1)..]);
    out
}

fn read_dumps(dir: &Path, c: &mut Collected) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let all: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    c.started = all.iter().filter(|n| n.starts_with("started-")).count();
    for n in all.iter().filter(|n| n.starts_with("at-")) {
        if let (Ok(r), Ok(text)) = (n[3..].parse::<i32>(), std::fs::read_to_string(dir.join(n))) {
            c.progress.insert(r, text);
        }
    }
    let mut names: Vec<String> = all.into_iter().filter(|n| n.ends_with(".json")).collect();
    names.sort();
    for n in names {
        let parsed = std::fs::read(dir.join(&n))
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice::<RankDump>(&b).map_err(|e| e.to_string()));
        match parsed {
            Ok(d) => c.dumps.push((n, d)),
            Err(e) => c.unreadable.push((n, e)),
        }
    }
}
