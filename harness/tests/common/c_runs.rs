//! A C reproducer compiled with a library's own compiler wrapper (scripts/repro-cc.sh)
//! and run, for harness/tests/repro.rs: how it ended, and the tail of what it printed.

use crate::common::repo;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;

/// How a reproducer ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    NotReproduced,
    Reproduced,
    /// Died by this signal (a crash finding's evidence).
    Signal(i32),
    NotApplicable,
    Other(i32),
}

impl End {
    pub fn reproduced(self) -> bool {
        matches!(self, End::Reproduced | End::Signal(_))
    }
}

pub fn compile(target: &str, src: &Path, out: &Path, reference_dir: &Path) -> Result<(), String> {
    let o = Command::new("bash")
        .arg(repo().join("scripts/repro-cc.sh"))
        .args([target, src.to_str().unwrap(), out.to_str().unwrap()])
        .env("MPIT_REFERENCE_DIR", reference_dir)
        .output()
        .expect("run scripts/repro-cc.sh");
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

pub fn execute(exe: &Path, env: &[(&str, &str)]) -> (End, String) {
    let mut c = Command::new("timeout");
    c.arg("120").arg(exe).current_dir(exe.parent().unwrap());
    c.env_remove("MPIT_REFERENCE_CATALOG")
        .env_remove("MPIT_REFERENCE_FAULTS");
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().expect("run the reproducer");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let end = match (o.status.code(), o.status.signal()) {
        (Some(0), _) => End::NotReproduced,
        (Some(1), _) => End::Reproduced,
        (Some(77), _) => End::NotApplicable,
        // `timeout` reports a child killed by a signal as 128 + signal.
        (Some(c), _) if c > 128 && c != 124 => End::Signal(c - 128),
        (Some(c), _) => End::Other(c),
        (None, Some(s)) => End::Signal(s),
        (None, None) => End::Other(-1),
    };
    (end, text)
}

pub fn tail(s: &str) -> String {
    let l: Vec<&str> = s.lines().collect();
    l[l.len().saturating_sub(12)..].join("\n")
}
