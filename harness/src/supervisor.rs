//! The supervisor side: starts a worker in its own process group, enforces a deadline,
//! and turns a death by signal into `Crash` and silence into `Timeout` (the supervisor
//! never loads vendor code).

use crate::worker::{Reply, Request};
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a worker ended.
#[derive(Debug)]
pub enum Outcome {
    Replied(Reply),
    /// Killed by a signal (name, e.g. SIGSEGV).
    Crash(String),
    Timeout(Duration),
    /// The worker could not be started or answered nonsense.
    Broken(String),
}

/// Runs one request in a fresh worker process.
pub fn run(req: &Request, timeout: Duration) -> Outcome {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return Outcome::Broken(format!("cannot find own executable: {e}")),
    };
    let json = match serde_json::to_string(req) {
        Ok(j) => j,
        Err(e) => return Outcome::Broken(e.to_string()),
    };
    // The family's environment (specs/env/workers.yaml); its private directory is
    // removed when `env` drops, after the worker and its process group have ended.
    let env = crate::target::worker_env(&req.lib);
    let mut child = match Command::new(exe)
        .envs(env.vars())
        .arg("__worker")
        .arg(json)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        // Own process group, so a timeout kills whatever the library started too.
        .process_group(0)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return Outcome::Broken(format!("cannot start worker: {e}")),
    };
    let mut stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(o) = stdout.as_mut() {
            let _ = o.read_to_string(&mut s);
        }
        s
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if start.elapsed() > timeout => {
                kill_group(child.id());
                let _ = child.wait();
                return Outcome::Timeout(timeout);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Outcome::Broken(format!("waiting for worker: {e}")),
        }
    };
    // A library may leave helpers behind in the group (e.g. Open MPI's orted).
    kill_group(child.id());
    let out = reader.join().unwrap_or_default();
    if let Some(sig) = status.signal() {
        return Outcome::Crash(signal_name(sig));
    }
    match serde_json::from_str::<Reply>(out.trim()) {
        Ok(r) => Outcome::Replied(r),
        Err(_) => Outcome::Broken(format!("worker exited with {status} without a reply")),
    }
}

fn kill_group(pid: u32) {
    if let Ok(pgid) = i32::try_from(pid) {
        crate::target::ffi::kill_process_group(pgid);
    }
}

fn signal_name(sig: i32) -> String {
    match sig {
        4 => "SIGILL".into(),
        6 => "SIGABRT".into(),
        7 => "SIGBUS".into(),
        8 => "SIGFPE".into(),
        9 => "SIGKILL".into(),
        11 => "SIGSEGV".into(),
        13 => "SIGPIPE".into(),
        15 => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
}
