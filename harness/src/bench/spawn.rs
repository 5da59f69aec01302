//! Starting one measured process: wall time from spawn to reaping, CPU and peak RSS from
//! wait4(2), its output collected on threads (so a chatty library cannot block on a
//! full pipe), and a watchdog that kills its process group past the deadline.

use super::BenchError;
use crate::target::ffi::rusage::{self, Ended, Usage};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// One measured process.
#[derive(Debug, Clone)]
pub struct Measured {
    pub wall: Duration,
    pub ended: Ended,
    /// The process and its waited-for descendants.
    pub usage: Usage,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
}

fn collect(mut r: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = r.read_to_end(&mut b);
        let _ = tx.send(String::from_utf8_lossy(&b).into_owned());
    });
    rx
}

/// Runs `cmd` to its end in a process group of its own and measures it.
pub fn measure(mut cmd: Command, timeout: Duration) -> Result<Measured, BenchError> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| BenchError::Spawn(format!("{cmd:?}: {e}")))?;
    let pid = child.id();
    let out = child.stdout.take().map(collect);
    let err = child.stderr.take().map(collect);
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        let late = matches!(
            done_rx.recv_timeout(timeout),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
        if late {
            crate::target::ffi::kill_process_group(pid as i32);
        }
        late
    });
    // Reaped here, not through `child` (std would not report rusage).
    let waited = rusage::wait4(pid);
    let wall = start.elapsed();
    let _ = done_tx.send(());
    let timed_out = watchdog.join().unwrap_or(false);
    let (ended, usage) = waited.map_err(|e| BenchError::Spawn(format!("wait4({pid}): {e}")))?;
    // Output ends when every holder of the pipes is gone; something the library left
    // running in the group would hold them, so it is killed after a grace period.
    let grace = Duration::from_secs(2);
    let text = |rx: Option<mpsc::Receiver<String>>| {
        rx.map(|rx| match rx.recv_timeout(grace) {
            Ok(s) => s,
            Err(_) => {
                crate::target::ffi::kill_process_group(pid as i32);
                rx.recv_timeout(grace).unwrap_or_default()
            }
        })
        .unwrap_or_default()
    };
    let stdout = text(out);
    let stderr = text(err);
    drop(child);
    Ok(Measured {
        wall,
        ended,
        usage,
        stdout,
        stderr,
        timed_out,
    })
}

impl Measured {
    /// The last line of stderr, for one-line error messages.
    pub fn last_words(&self) -> String {
        self.stderr
            .lines()
            .rev()
            .find(|l| crate::runner::says_something(l))
            .unwrap_or("")
            .trim()
            .to_string()
    }
}
