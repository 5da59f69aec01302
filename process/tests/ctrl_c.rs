//! Ctrl-C reaches a child through the one handler (its own process, since the handler
//! and its flag are process-wide).

use mpit_process::{ctrl_c, on_ctrl_c, Cmd, Ended};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[test]
fn ctrl_c_kills_the_child_and_sets_every_registered_flag() {
    let mine = Arc::new(AtomicBool::new(false));
    on_ctrl_c(mine.clone()).unwrap();
    let flag = ctrl_c();
    assert!(!flag.load(Ordering::SeqCst));
    // The child sends SIGINT to this test process (its parent), then would sleep on:
    // the handler sets the flags and the supervisor kills the child's group.
    let mut c = Cmd::new("sh");
    c.args(["-c", "kill -INT $PPID; sleep 30 & sleep 30"])
        .stop_on(flag.clone())
        .timeout(Duration::from_secs(60));
    let o = c.run().unwrap();
    assert_eq!(o.exit.ended, Ended::Interrupted);
    assert!(o.exit.wall < Duration::from_secs(20), "{:?}", o.exit.wall);
    assert!(flag.load(Ordering::SeqCst));
    assert!(mine.load(Ordering::SeqCst));
    // The same flag from a second call.
    assert!(Arc::ptr_eq(&flag, &ctrl_c()));
}
