//! What a child leaves behind when it leaves its process group: a library's daemon
//! that called setsid(2), a helper of a worker that moved itself into another group.
//! Killing a child's group does not reach them; once their parent is gone they would
//! be re-parented to init and outlive the run.
//!
//! A program whose every child is started by this crate calls [`adopt_orphans`] once
//! (mpit-conform's supervisor does, its workers do not): the process becomes a child
//! subreaper (prctl(2) `PR_SET_CHILD_SUBREAPER`), so every orphaned descendant is
//! re-parented to it instead. Each child gets [`TAG`] in its environment, the chain of
//! the supervisors above it and its own `pid.serial` (descendants inherit it). After
//! each reaping, the orphans are swept: a zombie is reaped, and a live one whose tag
//! names a child of this process that was already reaped is killed (with its process
//! group if it leads one) and reaped; a descendant of a child still running is left
//! alone (it may be the library's helper that child needs), and one without the tag (an
//! exec with an emptied environment) only once no child of this process is running.
//!
//! The registry's lock is held across each spawn and each sweep, so a sweep never
//! mistakes a child being started for an orphan, and a descriptor made inheritable for
//! one child ([`crate::Cmd::pass_fd`]) reaches no other.

use crate::sys;
use std::collections::{BTreeMap, BTreeSet};
use std::os::fd::{AsFd, OwnedFd};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

/// The environment variable that tags every child and its descendants:
/// `[outer tags/]pid.serial`, `pid` the supervisor's.
pub const TAG: &str = "MPIT_PROCESS_TAG";

/// Rounds of a sweep: killing an orphan re-parents its own children here, which the
/// next round finds.
const ROUNDS: usize = 16;

#[derive(Default)]
struct Registry {
    next: u64,
    /// Children started and not reaped yet: serial → pid.
    live: BTreeMap<u64, i32>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    next: 0,
    live: BTreeMap::new(),
});
static ADOPTING: AtomicBool = AtomicBool::new(false);

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Makes this process the reaper of its children's orphaned descendants (see the
/// module's doc). Call once, early, in a program that starts every child through this
/// crate: from then on, each reaping sweeps the orphans.
pub fn adopt_orphans() -> std::io::Result<()> {
    sys::become_subreaper()?;
    ADOPTING.store(true, Ordering::SeqCst);
    Ok(())
}

/// Sweeps the orphans now (each reaping does): for a program about to count its
/// processes.
pub fn sweep_orphans() {
    sweep(&registry());
}

/// A child started by this crate, not reaped yet.
#[derive(Debug)]
pub(crate) struct Registered {
    serial: u64,
}

impl Registered {
    /// The child was reaped: what it left is swept.
    pub(crate) fn reaped(&self) {
        let mut r = registry();
        r.live.remove(&self.serial);
        sweep(&r);
    }
}

/// This process's tag for its child `serial`, after the tags of the supervisors above.
fn tag(serial: u64) -> String {
    static OUTER: OnceLock<Option<String>> = OnceLock::new();
    let me = std::process::id();
    match OUTER.get_or_init(|| std::env::var(TAG).ok()) {
        Some(outer) => format!("{outer}/{me}.{serial}"),
        None => format!("{me}.{serial}"),
    }
}

/// Spawns `c` tagged and registered, with `passed` inherited by it alone.
pub(crate) fn spawn(c: &mut Command, passed: &[OwnedFd]) -> std::io::Result<(Child, Registered)> {
    let mut r = registry();
    let serial = r.next;
    r.next += 1;
    c.env(TAG, tag(serial));
    let mut made = Ok(());
    for fd in passed {
        made = made.and_then(|()| sys::set_inheritable(fd.as_fd(), true));
    }
    let spawned = made.and_then(|()| c.spawn());
    for fd in passed {
        let _ = sys::set_inheritable(fd.as_fd(), false);
    }
    let child = spawned?;
    r.live
        .insert(serial, i32::try_from(child.id()).unwrap_or(0));
    Ok((child, Registered { serial }))
}

/// The sweep (see the module's doc), under the registry's lock.
fn sweep(r: &Registry) {
    if !ADOPTING.load(Ordering::SeqCst) {
        return;
    }
    let me = std::process::id();
    let live: BTreeSet<i32> = r.live.values().copied().collect();
    for _ in 0..ROUNDS {
        let mut killed = false;
        for pid in children(me).into_iter().filter(|p| !live.contains(p)) {
            if sys::reap_if_ended(pid) || !killable(pid, me, r) {
                continue;
            }
            match sys::group_of(pid) {
                Some(g) if g == pid => sys::kill_group(pid),
                _ => {
                    let _ = sys::signal(pid, sys::SIGKILL);
                }
            }
            let _ = sys::wait4(pid);
            killed = true;
        }
        if !killed {
            break;
        }
    }
}

/// Whether the orphan `pid` descends from a child of this process that was reaped (or
/// carries no tag of this process while no child of it runs).
fn killable(pid: i32, me: u32, r: &Registry) -> bool {
    let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
    let want = format!("{TAG}=");
    let prefix = format!("{me}.");
    let serial = env
        .split(|b| *b == 0)
        .find_map(|v| v.strip_prefix(want.as_bytes()))
        .and_then(|t| std::str::from_utf8(t).ok())
        .and_then(|t| {
            t.split('/')
                .find_map(|c| c.strip_prefix(prefix.as_str())?.parse::<u64>().ok())
        });
    match serial {
        Some(s) => !r.live.contains_key(&s),
        None => r.live.is_empty(),
    }
}

/// The children of this process's main thread, where the kernel re-parents orphans (the
/// first live thread of a subreaper); every process whose parent is this one when the
/// kernel has no `children` file.
fn children(me: u32) -> Vec<i32> {
    let parse = |s: &str| -> Vec<i32> {
        s.split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect()
    };
    if let Ok(s) = std::fs::read_to_string(format!("/proc/{me}/task/{me}/children")) {
        return parse(&s);
    }
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // "pid (comm) state ppid ...": comm may hold spaces, so split after ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
        if ppid == Some(me) {
            out.push(pid);
        }
    }
    out
}
