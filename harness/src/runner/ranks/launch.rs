//! Starts the cross-rank job under the library's launcher and collects what the ranks
//! wrote. The launcher runs in its own process group with the family's worker
//! environment (`specs/env/workers.yaml`); past the deadline, or on Ctrl-C, the whole
//! group is killed, as the pool does with a worker. Its stdout and stderr go to files
//! in the run's private directory (launchers mangle stdout; their tails are shown when
//! a rank is missing).

use super::{RankDump, RankHello};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How the launcher ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// Exited with this code.
    Exit(i32),
    /// Killed by this signal (its name).
    Signal(String),
    /// Killed by the supervisor past the deadline.
    Timeout(Duration),
    /// Killed by the supervisor on Ctrl-C.
    Interrupted,
}

impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ended::Exit(c) => write!(f, "the launcher exited with {c}"),
            Ended::Signal(s) => write!(f, "the launcher was killed by {s}"),
            Ended::Timeout(d) => write!(f, "the launcher was killed after {}s", d.as_secs()),
            Ended::Interrupted => f.write_str("interrupted"),
        }
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
}

/// Lines of the launcher's output kept for the report, and how many of them are its
/// first lines.
const TAIL: usize = 12;
const HEAD: usize = 3;

/// Runs `launcher… <own exe> __rank-worker <json>` and waits for it (at most
/// `timeout`; `stop` ends the wait early).
pub fn launch(
    launcher: &[String],
    hello: &super::super::protocol::Hello,
    values: Option<&super::values::Ask>,
    timeout: Duration,
    stop: &AtomicBool,
) -> Result<Collected, LaunchError> {
    let dir = tempfile::Builder::new()
        .prefix("mpit-ranks-")
        .tempdir()
        .map_err(LaunchError::Dir)?;
    let exe = std::env::current_exe().map_err(LaunchError::Exe)?;
    let json = serde_json::to_string(&RankHello {
        hello: hello.clone(),
        dir: dir.path().to_path_buf(),
        values: values.cloned(),
    })?;
    let env = crate::target::worker_env(&hello.lib);
    let (out, err) = (dir.path().join(".stdout"), dir.path().join(".stderr"));
    let file = |p: &Path| std::fs::File::create(p).map_err(LaunchError::Dir);
    let Some((prog, args)) = launcher.split_first() else {
        return Err(LaunchError::Spawn {
            prog: String::new(),
            source: std::io::Error::other("empty launcher"),
        });
    };
    let started = Instant::now();
    let mut child = Command::new(prog)
        .args(args)
        .arg(&exe)
        .arg("__rank-worker")
        .arg(&json)
        .envs(env.vars())
        .stdin(Stdio::null())
        .stdout(file(&out)?)
        .stderr(file(&err)?)
        // Own process group: a timeout kills the launcher and whatever it started.
        .process_group(0)
        .spawn()
        .map_err(|source| LaunchError::Spawn {
            prog: prog.clone(),
            source,
        })?;
    let pgid = i32::try_from(child.id()).unwrap_or(0);
    let deadline = started + timeout;
    let ended = loop {
        match child.try_wait() {
            Ok(Some(s)) => {
                break match s.signal() {
                    Some(sig) => Ended::Signal(super::super::pool::signal_name(sig)),
                    None => Ended::Exit(s.code().unwrap_or(-1)),
                }
            }
            Ok(None) if stop.load(Ordering::SeqCst) => break Ended::Interrupted,
            Ok(None) if Instant::now() >= deadline => break Ended::Timeout(timeout),
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break Ended::Exit(-1),
        }
    };
    // Whatever the launcher left running in its group (always, also after a clean exit:
    // a daemon that outlives it must not outlive the run).
    crate::target::ffi::kill_process_group(pgid);
    let _ = child.wait();
    let mut c = Collected {
        ended: Some(ended),
        wall: started.elapsed(),
        stderr_tail: tail(&err),
        stdout_tail: tail(&out),
        ..Collected::default()
    };
    read_dumps(dir.path(), &mut c);
    // `env` (the worker's private directory) and `dir` are removed here.
    drop(env);
    Ok(c)
}

/// The lines worth showing of a launcher's output: all of a short one; of a long one the
/// first lines (Open MPI's help texts say what is wrong there) and the last ones.
fn tail(p: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(p).unwrap_or_default();
    let lines: Vec<String> = text
        .lines()
        .map(str::trim_end)
        // Blank lines and the rulers around help texts say nothing.
        .filter(|l| crate::runner::says_something(l))
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
