//! The one place mpit-conform starts child processes: suite workers, the cross-rank
//! launcher, the bench's measured runs, the abi-probe's compiler and probe program.
//!
//! A [`Cmd`] is a program with its arguments, environment changes (set and remove),
//! working directory and optionally a private temporary directory. Whatever it runs:
//!
//! - it gets a **process group of its own**, so that a kill reaches whatever it started
//!   (a library's daemons, a launcher's ranks, a compiler's passes), and once its
//!   leader has ended, the rest of the group is killed too (nothing outlives a child);
//!   the leader is also killed by its pid, should it have moved to another group;
//! - in a program that adopts its orphans ([`adopt_orphans`]: mpit-conform's supervisor),
//!   what **left the group** (a daemon that called setsid) comes back to this process
//!   when its parent dies, carrying the child's [`TAG`], and is killed once the child is
//!   reaped (`orphans.rs`);
//! - it may be **passed a descriptor** ([`Cmd::pass_fd`]), which it alone inherits;
//! - past its **deadline** ([`Cmd::timeout`]) or when its **stop flag** is set
//!   ([`Cmd::stop_on`], [`ctrl_c`]) the whole group gets SIGKILL, and the result says
//!   [`Ended::TimedOut`] or [`Ended::Interrupted`] rather than "killed by SIGKILL";
//! - it is **reaped with wait4(2)**, so the result carries its resource usage
//!   ([`Usage`]: user and system CPU, peak RSS) next to how it ended ([`Ended`], the
//!   one type for every caller). std reaps with waitpid and offers no rusage, and
//!   `Child::kill` signals the leader only, hence this crate.
//!
//! A third way, for workers only: [`fork`] (`zygote.rs`), a single-threaded worker's
//! pristine copy of itself, which it reaps with wait4 and reports on.
//!
//! Two modes: [`Cmd::run`] runs to completion with stdin closed and both output
//! streams captured on threads of their own (so a chatty child never blocks on a full
//! pipe) up to a byte cap per stream ([`Captured`]: what fits is kept, the rest is
//! counted); [`Cmd::start`] starts a long-lived child with piped stdin and stdout for a
//! protocol the caller speaks, its stderr kept as a bounded [`Tail`] of last lines
//! ([`Running`]).
//!
//! The group is only ever signalled while its leader is unreaped (it is observed with
//! waitid(2) `WNOWAIT` first), so the group id cannot have been reused by then. All
//! `unsafe` of the crate is in `sys.rs`.

#![deny(unsafe_code, clippy::undocumented_unsafe_blocks)]

mod capture;
mod cmd;
mod ended;
mod interrupt;
mod orphans;
mod run;
mod running;
#[allow(unsafe_code)]
mod sys;
mod tail;
#[cfg(test)]
mod tests;
mod zygote;

pub use capture::Captured;
pub use cmd::{Cmd, DEFAULT_CAPTURE_LIMIT};
pub use ended::{signal_name, Ended, Exit, Usage};
pub use interrupt::{ctrl_c, on_ctrl_c};
pub use orphans::{adopt_orphans, sweep_orphans, TAG};
pub use run::Outcome;
pub use running::Running;
pub use tail::{Tail, KEEP_LINES, LINE_CAP};
pub use zygote::{exit_child, fork, threads, Forked, ForkedChild};

/// Exit codes with a meaning to whoever reads them.
pub mod exit_code {
    /// A Rust program's exit code after a panic on its main thread.
    pub const RUST_PANIC: i32 = 101;
}

/// Restores SIGPIPE's default action, so `mpit-conform catalog | head` ends quietly like
/// any Unix filter instead of failing on a closed pipe (Rust ignores SIGPIPE by
/// default). Writes to a child go through [`send_line`], which this does not endanger.
pub fn default_sigpipe() {
    sys::default_sigpipe()
}

/// At most two glibc malloc arenas in this process: for a supervisor, never for a
/// worker (the library under test keeps the allocator it would have). A supervisor has
/// a reader thread per worker channel, each of which got an arena of its own, and the
/// results those threads parse outlive them in fragmented arenas: Open MPI 4.1.4's full
/// suite peaked at 92-105 MB of VmHWM from run to run, 84 MB with two arenas. Nothing
/// where the C library is not glibc.
pub fn limit_malloc_arenas() {
    sys::limit_malloc_arenas(2)
}

/// `print!` to stdout, but a reader that went away (`mpit-conform catalog | head`) is no
/// error: what it no longer reads is lost, and the command goes on to its report files
/// and its exit code (`println!` would panic on the broken pipe). The binaries'
/// (`mpit-conform`, `xtask`) one way to print, beside [`default_sigpipe`].
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($t)*);
    }};
}

/// [`out!`] with a newline, as `println!`.
#[macro_export]
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

/// Writes `line` and a newline to a child's stdin (or another channel to it, such as a
/// socket) and flushes it. A child that has ended (a library thread crashed it, it
/// exited after its last answer) makes this an error (EPIPE) for the caller to report as
/// the child's end, never a SIGPIPE that ends this process without a report under
/// [`default_sigpipe`]: SIGPIPE is blocked in the calling thread first (the signal stays
/// pending on that thread and is dropped with it).
pub fn send_line(to: &mut impl std::io::Write, line: &str) -> std::io::Result<()> {
    sys::block_sigpipe_in_thread();
    writeln!(to, "{line}").and_then(|()| to.flush())
}

/// This process's own resource usage (all its threads), getrusage(2) `RUSAGE_SELF`.
pub fn usage_self() -> Usage {
    sys::usage_self()
}

/// The resource usage of this process's children that ended and were reaped (and of
/// theirs), getrusage(2) `RUSAGE_CHILDREN`: CPU summed, peak RSS the largest.
pub fn usage_children() -> Usage {
    sys::usage_children()
}

/// Why a child could not be started or supervised.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot create a private directory: {0}")]
    Dir(#[source] std::io::Error),
    #[error("cannot wait for process {pid}: {source}")]
    Wait {
        pid: u32,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot install the Ctrl-C handler: {0}")]
    CtrlC(String),
    #[error("cannot fork: the process runs {0} threads (fork copies only the caller's)")]
    Threads(usize),
    #[error("cannot fork: {0}")]
    Fork(#[source] std::io::Error),
}
