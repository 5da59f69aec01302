//! A program that adopts its orphans (`mpit_process::adopt_orphans`): a descendant that
//! left its child's process group and session is killed once that child is reaped, and
//! left alone while the child runs. One test per file: adoption is process-wide.

use mpit_process::{adopt_orphans, Cmd};
use std::time::{Duration, Instant};

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.contains(") Z ") && !s.contains(") X "))
        .unwrap_or(false)
}

fn pid_in(f: &std::path::Path) -> u32 {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(p) = std::fs::read_to_string(f)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            return p;
        }
        assert!(Instant::now() < until, "no pid in {}", f.display());
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_daemon_outside_the_group_goes_with_its_child() {
    adopt_orphans().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // A child whose subshell starts a daemon of a session of its own and exits: the
    // daemon is an orphan, re-parented here, while the child still runs.
    let f = dir.path().join("daemon.pid");
    let script = format!(
        "(setsid sh -c 'echo $$ > {f}.tmp; mv {f}.tmp {f}; exec sleep 30' &); cat",
        f = f.display()
    );
    let mut running = Cmd::new("sh").arg("-c").arg(&script).start().unwrap();
    let daemon = pid_in(&f);
    // Another child's end sweeps the orphans: this one's running child keeps its daemon.
    let o = Cmd::new("true").run().unwrap();
    assert!(o.exit.ended.success());
    assert!(alive(daemon), "the daemon of a running child was killed");
    // Its child reaped, the daemon is killed (and reaped: not even a zombie is left).
    running.kill().unwrap();
    assert!(
        !std::path::Path::new(&format!("/proc/{daemon}")).exists(),
        "the daemon {daemon} outlived its child"
    );
    // A run to completion: the same, with the daemon started by the leader itself.
    let f = dir.path().join("daemon2.pid");
    let script = format!(
        "setsid sh -c 'echo $$ > {f}.tmp; mv {f}.tmp {f}; exec sleep 30' & \
         while [ ! -e {f} ]; do sleep 0.01; done",
        f = f.display()
    );
    let o = Cmd::new("sh").arg("-c").arg(&script).run().unwrap();
    assert!(o.exit.ended.success());
    let daemon = pid_in(&f);
    assert!(
        !std::path::Path::new(&format!("/proc/{daemon}")).exists(),
        "the daemon {daemon} outlived its run"
    );
}
