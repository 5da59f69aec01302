//! The supervisor against real children (`sh`, `sleep`, `cat`).

use crate::{usage_children, usage_self, Cmd, Ended, Error};
use std::io::{BufRead, BufReader, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn sh(script: &str) -> Cmd {
    let mut c = Cmd::new("sh");
    c.arg("-c").arg(script);
    c
}

/// Live (not zombie) processes of the group `pgid`, from /proc.
fn live_members(pgid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // "pid (comm) state ppid pgrp ...": comm may hold spaces, so split after ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.len() > 3 && f[2] == pgid.to_string() && f[0] != "Z" && f[0] != "X" {
            out.push(pid);
        }
    }
    out
}

/// Polls until the group has no live member (SIGKILL takes effect asynchronously).
fn group_gone(pgid: u32) -> bool {
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until {
        if live_members(pgid).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

#[test]
fn a_run_past_its_deadline_is_killed_with_its_grandchildren() {
    let dir = tempfile::tempdir().unwrap();
    let bg = dir.path().join("bg.pid");
    let mut c = sh(&format!("sleep 30 & echo $! > {}; sleep 30", bg.display()));
    c.timeout(Duration::from_millis(500));
    let o = c.run().unwrap();
    assert_eq!(o.exit.ended, Ended::TimedOut(Duration::from_millis(500)));
    assert!(o.exit.wall < Duration::from_secs(10), "{:?}", o.exit.wall);
    let grandchild: u32 = std::fs::read_to_string(&bg)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_ne!(grandchild, o.exit.pid);
    assert!(group_gone(o.exit.pid), "{:?}", live_members(o.exit.pid));
    let alive = std::fs::read_to_string(format!("/proc/{grandchild}/stat"))
        .map(|s| !s.contains(") Z ") && !s.contains(") X "))
        .unwrap_or(false);
    assert!(!alive, "the background sleep survived");
}

#[test]
fn a_started_child_past_its_deadline_is_killed_with_its_group() {
    let mut c = sh("sleep 30 & sleep 30");
    c.timeout(Duration::from_millis(800));
    let mut r = c.start().unwrap();
    let pgid = r.pid();
    // Both sleeps are there before the deadline: the check below can fail.
    let until = Instant::now() + Duration::from_secs(5);
    while live_members(pgid).len() < 2 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(live_members(pgid).len() >= 2, "{:?}", live_members(pgid));
    let e = r.wait().unwrap();
    assert_eq!(e.ended, Ended::TimedOut(Duration::from_millis(800)));
    assert!(group_gone(pgid), "{:?}", live_members(pgid));
}

#[test]
fn a_leader_that_exits_takes_its_group_along() {
    let dir = tempfile::tempdir().unwrap();
    let bg = dir.path().join("bg.pid");
    // The background sleep keeps no pipe open (its output goes to /dev/null), so only
    // the kill after the leader's exit ends it.
    let o = sh(&format!(
        "sleep 30 >/dev/null 2>&1 & echo $! > {}; exit 3",
        bg.display()
    ))
    .run()
    .unwrap();
    assert_eq!(o.exit.ended, Ended::Exited(3));
    assert!(group_gone(o.exit.pid), "{:?}", live_members(o.exit.pid));
}

#[test]
fn output_is_capped_and_the_drop_counted_without_blocking_the_child() {
    let mut c = sh("head -c 5000000 /dev/zero | tr '\\0' x; echo END; echo oops >&2");
    c.capture_limit(1000).timeout(Duration::from_secs(60));
    let o = c.run().unwrap();
    assert_eq!(o.exit.ended, Ended::Exited(0));
    assert_eq!(o.stdout.len(), 1000);
    assert_eq!(o.stdout.dropped(), 5_000_004 - 1000);
    let text = o.stdout.text();
    assert!(text.starts_with("xxxxx"), "{}", &text[..20]);
    assert!(text.ends_with("xxxEND\n"), "{}", &text[text.len() - 20..]);
    assert!(text.contains("[… 4999004 bytes dropped …]"));
    assert_eq!(o.stderr.text(), "oops\n");
    assert_eq!(o.stderr.dropped(), 0);
}

#[test]
fn exit_codes_and_signals_are_told_apart() {
    let o = sh("exit 7").run().unwrap();
    assert_eq!(o.exit.ended, Ended::Exited(7));
    assert_eq!(o.exit.ended.code(), Some(7));
    assert!(!o.exit.ended.success());
    assert_eq!(o.exit.ended.to_string(), "exited with 7");
    let o = sh("kill -SEGV $$").run().unwrap();
    assert_eq!(o.exit.ended, Ended::Signaled(11));
    assert_eq!(o.exit.ended.to_string(), "was killed by SIGSEGV");
    // A SIGKILL that is not the supervisor's is a signal, not a timeout.
    let mut c = sh("kill -KILL $$");
    c.timeout(Duration::from_secs(60));
    assert_eq!(c.run().unwrap().exit.ended, Ended::Signaled(9));
    assert!(sh("true").run().unwrap().exit.ended.success());
}

#[test]
fn rusage_counts_a_cpu_burning_child() {
    let o = sh("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")
        .run()
        .unwrap();
    assert_eq!(o.exit.ended, Ended::Exited(0));
    assert!(
        o.exit.usage.cpu() >= Duration::from_millis(20),
        "{:?}",
        o.exit.usage
    );
    assert!(o.exit.usage.user_us > 0, "{:?}", o.exit.usage);
    assert!(o.exit.usage.maxrss_kb > 0, "{:?}", o.exit.usage);
    assert!(o.exit.wall >= o.exit.usage.cpu() / 2, "{:?}", o.exit);
    assert!(usage_self().cpu() > Duration::ZERO);
    assert!(usage_children().maxrss_kb > 0);
}

#[test]
fn the_stop_flag_kills_the_group_and_says_interrupted() {
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        s.store(true, Ordering::SeqCst);
    });
    let mut c = sh("sleep 30 & sleep 30");
    c.stop_on(stop.clone()).timeout(Duration::from_secs(60));
    let o = c.run().unwrap();
    setter.join().unwrap();
    assert_eq!(o.exit.ended, Ended::Interrupted);
    assert!(o.exit.wall < Duration::from_secs(10));
    assert!(group_gone(o.exit.pid));
    // A borrowed flag, already set: the child does not get far.
    let flag = AtomicBool::new(true);
    let o = Cmd::new("sleep").arg("30").run_until(&flag).unwrap();
    assert_eq!(o.exit.ended, Ended::Interrupted);
    // A long-lived child.
    let mut r = Cmd::new("sleep").arg("30").stop_on(stop).start().unwrap();
    assert_eq!(r.wait().unwrap().ended, Ended::Interrupted);
}

#[test]
fn environment_directory_and_private_dir() {
    let mut c = sh("echo \"$MPIT_A|${MPIT_B-unset}|$(pwd)\"; touch \"$MPIT_D/x\"");
    let d = c.private_dir("mpit-process-test-").unwrap();
    c.env("MPIT_A", "1")
        .env("MPIT_B", "2")
        .env_remove("MPIT_B")
        .env("MPIT_D", &d)
        .current_dir("/");
    let o = c.run().unwrap();
    assert_eq!(o.stdout.text(), "1|unset|/\n");
    assert_eq!(o.dir(), Some(d.as_path()));
    assert!(d.join("x").exists());
    drop(o);
    assert!(
        !d.exists(),
        "the private directory is removed with the outcome"
    );
}

#[test]
fn a_std_command_keeps_its_program_arguments_and_environment() {
    let mut std = std::process::Command::new("sh");
    std.args(["-c", "echo $MPIT_C"]).env("MPIT_C", "from std");
    let mut c = Cmd::from(std);
    assert!(format!("{c:?}").contains("\"sh\" \"-c\""), "{c:?}");
    assert_eq!(c.run().unwrap().stdout.text(), "from std\n");
}

#[test]
fn a_long_lived_child_talks_over_pipes_and_keeps_its_stderr_tail() {
    let mut r = sh("echo oops >&2; cat").start().unwrap();
    let mut stdin = r.take_stdin().unwrap();
    let mut stdout = BufReader::new(r.take_stdout().unwrap());
    writeln!(stdin, "hello").unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "hello\n");
    assert_eq!(r.try_wait().unwrap(), None);
    drop(stdin);
    let e = r.wait_for(Duration::from_secs(10)).unwrap().unwrap();
    assert_eq!(e.ended, Ended::Exited(0));
    r.tail().settle(Duration::from_secs(5));
    assert_eq!(r.tail().lines(), vec!["oops".to_string()]);
    // Reaped: no signal goes to a pid that may be reused.
    assert!(r.signal(15).is_err());
    assert_eq!(r.kill().unwrap(), e);
}

#[test]
fn a_long_lived_child_can_be_signalled_and_killed() {
    let mut r = Cmd::new("sleep").arg("30").start().unwrap();
    r.signal(15).unwrap();
    assert_eq!(r.wait().unwrap().ended, Ended::Signaled(15));
    let mut r = sh("sleep 30 & sleep 30").start().unwrap();
    let pgid = r.pid();
    assert_eq!(r.wait_for(Duration::from_millis(50)).unwrap(), None);
    assert_eq!(r.kill().unwrap().ended, Ended::Signaled(9));
    assert!(group_gone(pgid), "{:?}", live_members(pgid));
    // Dropped alive: killed with its group.
    let r = sh("sleep 30 & sleep 30").start().unwrap();
    let pgid = r.pid();
    drop(r);
    assert!(group_gone(pgid), "{:?}", live_members(pgid));
}

#[test]
fn a_program_that_cannot_start_is_an_error() {
    match Cmd::new("/nonexistent/mpit-process-test").run() {
        Err(Error::Spawn { program, .. }) => assert!(program.contains("nonexistent")),
        other => panic!("{other:?}"),
    }
    assert!(Cmd::new("/nonexistent/x").start().is_err());
}

#[test]
fn a_child_that_leaves_its_group_is_still_killed_past_its_deadline() {
    // The leader moves itself into the test's own process group (as a library may do
    // with setpgid(2)): killing its group no longer reaches it, killing it by pid does.
    let mut c = Cmd::new("perl");
    c.args(["-e", "setpgrp(0, getpgrp(getppid())) or die; sleep 30"])
        .timeout(Duration::from_millis(300));
    let o = c.run().unwrap();
    assert_eq!(o.exit.ended, Ended::TimedOut(Duration::from_millis(300)));
    assert!(o.exit.wall < Duration::from_secs(10), "{:?}", o.exit.wall);
    let mut r = Cmd::new("perl")
        .args(["-e", "setpgrp(0, getpgrp(getppid())) or die; sleep 30"])
        .start()
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let t0 = Instant::now();
    assert_eq!(r.kill().unwrap().ended, Ended::Signaled(9));
    assert!(t0.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_passed_descriptor_is_the_childs_under_its_number() {
    let (mine, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    let mut c = Cmd::new("sh");
    let n = c.pass_fd(theirs.into());
    c.arg("-c").arg(format!("echo passed >&{n}"));
    let o = c.run().unwrap();
    assert!(o.exit.ended.success(), "{:?}", o.stderr.text());
    let mut got = String::new();
    BufReader::new(&mine).read_line(&mut got).unwrap();
    assert_eq!(got, "passed\n");
    // This process's copy was closed with the spawn: the next child has no such number.
    let o = sh(&format!(
        "test -e /proc/self/fd/{n} && echo open || echo closed"
    ))
    .run();
    assert_eq!(o.unwrap().stdout.text(), "closed\n");
}
