//! A child that ended between two messages: the next write to it must be an error for
//! the caller to report, not a SIGPIPE ending this process. `mpit-conform` restores
//! SIGPIPE's default action (so `mpit-conform catalog | head` ends quietly); a test
//! binary ignores SIGPIPE, so this test restores the default too, in a binary of its own.
//! Before `send_line`, only the suite pool's threads blocked SIGPIPE, and a `fuzz-props`
//! run whose worker a library thread crashed between sequences (the reference's
//! `thread-crash` fault) could end by SIGPIPE, exit 141, with no report.

use mpit_process::{default_sigpipe, send_line, Cmd, Ended};
use std::time::Duration;

#[test]
fn a_line_to_a_child_that_ended_is_an_error_not_sigpipe() {
    default_sigpipe();
    let mut r = Cmd::new("sh").args(["-c", "exit 0"]).start().unwrap();
    let mut stdin = r.take_stdin().unwrap();
    let e = r.wait_for(Duration::from_secs(10)).unwrap().unwrap();
    assert_eq!(e.ended, Ended::Exited(0));
    // Reaped: nothing reads the pipe any more, so a write raises SIGPIPE.
    let sent = send_line(&mut stdin, "hello");
    let err = sent.expect_err("a write to an ended child succeeded");
    assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
    // Still here: the write was an error, not SIGPIPE's default action.
}
