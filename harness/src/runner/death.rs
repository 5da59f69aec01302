//! A worker's end, explained ([`Death`]), and the evidence a call that never returned
//! leaves: the call in flight, the library's last output, what was expected of it.

use mpit_spec::verdict::{Evidence, Status};
use std::time::Duration;

/// A worker's end, explained.
#[derive(Debug, Clone)]
pub struct Death {
    /// `crash`, `timeout`, or `error` (the harness's own trouble, an interruption).
    pub status: Status,
    /// One line, with the library's last words.
    pub message: String,
    /// The call in flight, if any (the marker's, else the last one announced).
    pub call: Option<String>,
    /// Whether the signal came from another thread than the one calling the library.
    pub other_thread: bool,
    /// The call returned, but the library had taken the worker's channel for good.
    pub returned: bool,
    /// The library's last lines of output.
    pub output: Vec<String>,
}

impl Death {
    /// The death as evidence: the call in flight (or that there was none), the
    /// library's last output, what was expected.
    pub fn evidence(&self, timeout: Duration) -> Evidence {
        let call = call_in_flight(self.call.as_deref(), self.other_thread);
        evidence(call, self.status, &self.output, timeout)
    }
}

/// The call in flight when a worker died, as evidence names it: the call, said to be
/// the calling thread's when another thread of the library's died.
pub fn call_in_flight(call: Option<&str>, other_thread: bool) -> String {
    match (call, other_thread) {
        (Some(c), false) => c.to_string(),
        (Some(c), true) => format!("{c} (on the calling thread; another thread died)"),
        (None, _) => "(no MPI_T call in flight)".into(),
    }
}

/// The evidence of a call that never returned: the call, the library's last output, and
/// what was expected of it.
pub fn evidence(call: String, status: Status, output: &[String], timeout: Duration) -> Evidence {
    let expected = match status {
        Status::Timeout => format!("the call returns within {timeout:?}"),
        _ => "the process survives: a valid call returns (R-GEN-1)".into(),
    };
    Evidence {
        call,
        args: Default::default(),
        rc: None,
        out: serde_json::json!({ "last_output": output }).into(),
        expected: Some(expected),
    }
}
