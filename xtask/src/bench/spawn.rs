//! Starting one measured process through `mpit_process`: wall time from spawn to its
//! end, CPU and peak RSS from wait4(2), its output collected on threads (so a chatty
//! library cannot block on a full pipe), its process group killed past the deadline or
//! on Ctrl-C (which ends the bench: [`BenchError::Interrupted`]).

use super::BenchError;
use mpit_conform::runner::says_something;
use mpit_process::ctrl_c;
use mpit_process::{Cmd, Ended, Usage};
use std::path::PathBuf;
use std::time::Duration;

/// One measured process.
#[derive(Debug, Clone)]
pub struct Measured {
    pub wall: Duration,
    /// Never `Interrupted` (that is an error).
    pub ended: Ended,
    /// The process and its waited-for descendants.
    pub usage: Usage,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` to its end in a process group of its own and measures it.
pub fn measure(mut cmd: Cmd, timeout: Duration) -> Result<Measured, BenchError> {
    let shown = format!("{cmd:?}");
    let o = cmd
        .timeout(timeout)
        .stop_on(ctrl_c())
        .run()
        .map_err(|e| BenchError::Spawn(format!("{shown}: {e}")))?;
    if o.exit.ended == Ended::Interrupted {
        return Err(BenchError::Interrupted);
    }
    Ok(Measured {
        wall: o.exit.wall,
        ended: o.exit.ended,
        usage: o.exit.usage,
        stdout: o.stdout.text(),
        stderr: o.stderr.text(),
    })
}

/// Whether Ctrl-C was pressed (the bench stops between its steps too).
pub fn interrupted() -> bool {
    ctrl_c().load(std::sync::atomic::Ordering::SeqCst)
}

impl Measured {
    /// Killed past its deadline.
    pub fn timed_out(&self) -> bool {
        matches!(self.ended, Ended::TimedOut(_))
    }

    /// The last line of stderr, for one-line error messages.
    pub fn last_words(&self) -> String {
        self.stderr
            .lines()
            .rev()
            .find(|l| says_something(l))
            .unwrap_or("")
            .trim()
            .to_string()
    }
}

/// The `mpit-conform` binary the bench measures: the one beside this executable, built
/// from the same checkout by the same profile (`cargo xtask bench` builds it first:
/// `crate::bench_cli`).
pub fn conform_exe() -> Result<PathBuf, String> {
    let me = std::env::current_exe().map_err(|e| format!("cannot find own executable: {e}"))?;
    let exe = me.with_file_name("mpit-conform");
    match exe.exists() {
        true => Ok(exe),
        false => Err(format!(
            "{}: no such file (cargo build --release -p mpit-conform)",
            exe.display()
        )),
    }
}
