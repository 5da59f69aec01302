//! A worker that dies in a sequence keeps the observations of the calls before it: they
//! are in its log of observations (`target::ffi::log`), which the supervisor reads after
//! the death, whether the worker was a zygote's child or exec'd. Through the CLI on the
//! reference cdylib with its `crash-in-call` fault (a read of a string cvar crashes):
//! the shrunk sequence allocates the handle and dies in the read, its second call.

mod common;
#[path = "common/fuzz_runs.rs"]
mod fuzz_runs;

use common::{reference_lib, scratch};
use fuzz_runs::fuzz_props;

#[test]
fn a_death_ends_the_trace_at_its_call_after_the_calls_that_returned() {
    let lib = reference_lib();
    for workers in ["fork", "exec"] {
        let dir = scratch(&format!("deaths-{workers}"));
        let (code, out) = fuzz_props(
            lib.to_str().unwrap(),
            Some("crash-in-call"),
            &["--cases", "1024", "--fail-fast", "--workers", workers],
            dir.to_str().unwrap(),
        );
        assert_eq!(code, 1, "{workers}: {out}");
        let divergence = out
            .lines()
            .find(|l| l.contains("DIVERGENCE"))
            .unwrap_or_default();
        assert!(
            divergence.contains("at call 2 of ")
                && divergence.contains(": the worker died in MPI_T_cvar_read"),
            "{workers}: {out}"
        );
        let minimal: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.contains("minimal sequence:"))
            .skip(1)
            .take(2)
            .map(str::trim)
            .collect();
        assert!(
            minimal.len() == 2
                && minimal[0].starts_with("1. MPI_T_cvar_handle_alloc")
                && minimal[1].starts_with("2. MPI_T_cvar_read"),
            "{workers}: {out}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
