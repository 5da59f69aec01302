//! What a run writes to `--bench-stats FILE` as it ends (`cli/run.rs`), read back by the
//! benchmark (`cargo xtask bench`, xtask/src/bench/suite.rs): the supervisor's and its
//! workers' resource usage and the descriptors it held.

use mpit_process::{usage_children, usage_self, Usage};
use serde::{Deserialize, Serialize};

/// What a run writes to `--bench-stats FILE` as it ends.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct RunUsage {
    /// The supervisor (getrusage RUSAGE_SELF).
    pub supervisor: Usage,
    /// The supervisor's own peak RSS (VmHWM), KiB. Linux keeps ru_maxrss across exec, so
    /// RUSAGE_SELF would also count the peak of whatever spawned the run; VmHWM is this
    /// process image's alone.
    #[serde(default)]
    pub supervisor_hwm_kb: u64,
    /// Its reaped workers (RUSAGE_CHILDREN: CPU summed, maxrss the largest).
    pub workers: Usage,
    /// The supervisor's open descriptors when the run started (its Ctrl-C handler
    /// installed) and when it ended: every worker's pipes, page and rendezvous closed.
    #[serde(default)]
    pub fds_start: u64,
    #[serde(default)]
    pub fds_end: u64,
}

impl RunUsage {
    /// Now, for a run that started with `fds_start` descriptors open.
    pub fn now(fds_start: u64) -> RunUsage {
        RunUsage {
            supervisor: usage_self(),
            supervisor_hwm_kb: vm_hwm_kb().unwrap_or(0),
            workers: usage_children(),
            fds_start,
            fds_end: open_fds(),
        }
    }
}

/// This process's open descriptors (`/proc/self/fd`, less the one reading it).
pub fn open_fds() -> u64 {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count().saturating_sub(1) as u64)
}

/// This process's peak resident set (`VmHWM` in /proc/self/status), KiB.
pub fn vm_hwm_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let l = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    l.split_whitespace().nth(1)?.parse().ok()
}
