//! The callbacks the harness hands a library (MPI-4.1 §15.3.8.4-5) and the global
//! recorder they write to.
//!
//! * The event callback reads the instance while it is valid (only during the
//!   invocation, §15.3.8.4): `MPI_T_event_get_timestamp`, `MPI_T_event_get_source`,
//!   `MPI_T_event_read` per element and `MPI_T_event_copy`, and records a [`Delivery`].
//! * The dropped-event handler and the free callback record what they were given.
//! * `user_data` is the [`Recording::tag`]: the standard passes the registration's
//!   callback `user_data` back to all three (the dropped handler's since the 4.0
//!   errata), so a wrong tag in a record is itself a finding.
//!
//! No callback may unwind into the library: each body runs under `catch_unwind`. A
//! callback may run on a library thread, or re-entrantly while the harness holds the
//! recorder's lock, so callbacks only `try_lock` (bounded): a record that cannot be
//! taken is counted in [`lost_records`] instead of deadlocking. The recorder allocates,
//! so it is not async-signal-safe; registering it at `MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE`
//! is a claim the harness makes to probe the library's level selection, and a library
//! that really calls it from a signal handler may hang the worker (reported as a
//! timeout by the supervisor).

use super::event::instance;
use super::raw::{DroppedCb, EventCb, FreeCb, Raw};
use super::{BufOut, Called, Lib, RawHandle, RawObj};
use std::collections::BTreeMap;
use std::ffi::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

/// What the recorder should do when its callback fires for a registration.
#[derive(Debug, Clone)]
pub struct Recording {
    pub tag: usize,
    pub element_sizes: Vec<usize>,
}

impl Recording {
    /// The buffer the callback gives `MPI_T_event_copy`: the extent (last displacement +
    /// its size, §15.3.8.6) of the elements laid out with natural (C struct) alignment.
    /// That is the extent of every event whose displacements follow C layout, as all
    /// known implementations' do, and never less than the packed extent; an event with
    /// wider gaps shows up as `overrun` in the copy.
    pub fn copy_bytes(&self) -> usize {
        let mut end = 0usize;
        for s in &self.element_sizes {
            let align = (*s).clamp(1, 8).next_power_of_two();
            end = end.div_ceil(align) * align + s;
        }
        end
    }
}

/// One callback invocation as the recorder saw it (it calls event_get_timestamp,
/// event_get_source, event_read per element and event_copy inside the callback, where the
/// instance is valid).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Delivery {
    pub tag: usize,
    pub safety: i32,
    /// The instance handle the callback was given: valid only during that invocation
    /// (§15.3.8.4), kept so a case can probe it afterwards (a robustness check).
    pub instance: RawHandle,
    /// The registration the callback was given.
    pub registration: RawHandle,
    pub timestamp: Option<(i32, i64)>,
    pub source: Option<(i32, i32)>,
    pub elements: Vec<(i32, BufOut)>,
    pub copy: Option<(i32, BufOut)>,
}

/// A registered recording: its element sizes and the entry points to read with.
struct Ctx {
    raw: Raw,
    element_sizes: Vec<usize>,
}

struct State {
    recordings: BTreeMap<usize, Ctx>,
    /// The table of the latest registration, for a callback whose `user_data` is no tag
    /// the harness gave (timestamp and source are still read; data is not, its size
    /// being unknown).
    last: Option<Raw>,
    /// The tag of each registration's latest recorder (the free callback's user_data).
    reg_tags: BTreeMap<RawHandle, usize>,
    deliveries: Vec<Delivery>,
    dropped: Vec<(usize, u64, i32)>,
    /// For each dropped-handler call: how many event deliveries were recorded before it
    /// (since the last drain), so the order of both kinds of call can be judged.
    dropped_at: Vec<usize>,
    freed: Vec<usize>,
}

static STATE: Mutex<State> = Mutex::new(State {
    recordings: BTreeMap::new(),
    last: None,
    reg_tags: BTreeMap::new(),
    deliveries: Vec::new(),
    dropped: Vec::new(),
    dropped_at: Vec::new(),
    freed: Vec::new(),
});

/// Records a callback could not store (lock not obtained in time).
static LOST: AtomicU64 = AtomicU64::new(0);

/// Whether `deliveries` may hold a record (set with the push, cleared with the drain,
/// both under the lock): an in-process fuzzer drains after every call, nearly always
/// finding nothing, and taking the lock for that was ~3% of its time.
static DELIVERED: AtomicBool = AtomicBool::new(false);

/// How often a callback tries the lock before giving up on one record.
const TRIES: u32 = 100_000;

/// The harness side: waits for the lock (a poisoned lock still holds consistent data:
/// every update is a single push or insert).
fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The callback side: bounded `try_lock`, never blocking (see the module docs).
fn with_state<R>(f: impl FnOnce(&mut State) -> R) -> Option<R> {
    for _ in 0..TRIES {
        match STATE.try_lock() {
            Ok(mut g) => return Some(f(&mut g)),
            Err(TryLockError::Poisoned(p)) => return Some(f(&mut p.into_inner())),
            Err(TryLockError::WouldBlock) => std::thread::yield_now(),
        }
    }
    LOST.fetch_add(1, Ordering::Relaxed);
    None
}

/// Drains the deliveries recorded so far, in the order the callbacks ran.
pub fn take_deliveries() -> Vec<Delivery> {
    if !DELIVERED.load(Ordering::Acquire) {
        return Vec::new();
    }
    let mut s = state();
    DELIVERED.store(false, Ordering::Release);
    std::mem::take(&mut s.deliveries)
}

/// Drains the dropped-handler invocations: (tag, count, source index). `count` is the
/// handler's `MPI_Count` reinterpreted as unsigned, so a negative count shows as a huge
/// number rather than being hidden.
pub fn take_dropped() -> Vec<(usize, u64, i32)> {
    std::mem::take(&mut state().dropped)
}

/// Drains the positions of the dropped-handler calls (one per [`take_dropped`] entry):
/// the number of event deliveries recorded before each, counted from the last drain of
/// the deliveries. Drain it together with [`take_deliveries`] and [`take_dropped`].
pub fn take_dropped_positions() -> Vec<usize> {
    std::mem::take(&mut state().dropped_at)
}

/// Drains the free callbacks seen (their tags).
pub fn take_freed() -> Vec<usize> {
    std::mem::take(&mut state().freed)
}

/// Records callbacks had to drop because the recorder's lock was not free in time.
pub fn lost_records() -> u64 {
    LOST.load(Ordering::Relaxed)
}

fn record_event(inst: RawHandle, reg: RawHandle, safety: c_int, tag: usize) {
    let found = with_state(|s| match s.recordings.get(&tag) {
        Some(c) => Some((c.raw, Some(c.element_sizes.clone()))),
        None => s.last.map(|r| (r, None)),
    })
    .flatten();
    let mut d = Delivery {
        tag,
        safety,
        instance: inst,
        registration: reg,
        timestamp: None,
        source: None,
        elements: Vec::new(),
        copy: None,
    };
    if let Some((raw, sizes)) = found {
        d.timestamp = instance::timestamp(&raw, inst);
        d.source = instance::source(&raw, inst);
        if let Some(sizes) = sizes {
            d.elements = sizes
                .iter()
                .enumerate()
                .filter_map(|(k, n)| instance::read(&raw, inst, k as i32, *n))
                .collect();
            let bytes = Recording {
                tag,
                element_sizes: sizes,
            }
            .copy_bytes();
            d.copy = instance::copy(&raw, inst, bytes);
        }
    }
    with_state(|s| {
        s.deliveries.push(d);
        DELIVERED.store(true, Ordering::Release);
    });
}

/// `MPI_T_event_cb_function`.
extern "C" fn on_event(inst: RawHandle, reg: RawHandle, safety: c_int, user_data: *mut c_void) {
    let tag = user_data as usize;
    let _ = catch_unwind(AssertUnwindSafe(|| record_event(inst, reg, safety, tag)));
}

/// `MPI_T_event_dropped_cb_function` (MPI-4.1: `MPI_Count count` first).
extern "C" fn on_dropped(
    count: i64,
    _reg: RawHandle,
    source_index: c_int,
    _safety: c_int,
    user_data: *mut c_void,
) {
    let tag = user_data as usize;
    let _ = catch_unwind(AssertUnwindSafe(|| {
        with_state(|s| {
            s.dropped.push((tag, count as u64, source_index));
            s.dropped_at.push(s.deliveries.len());
        })
    }));
}

/// `MPI_T_event_free_cb_function`.
extern "C" fn on_freed(_reg: RawHandle, _safety: c_int, user_data: *mut c_void) {
    let tag = user_data as usize;
    let _ = catch_unwind(AssertUnwindSafe(|| with_state(|s| s.freed.push(tag))));
}

impl Lib {
    /// Registers the recorder callback (or a NULL callback when `recorder` is None) with user_data = tag.
    ///
    /// `MPI_T_event_register_callback(registration, cb_safety, info, user_data, cb)`
    /// (§15.3.8.4): one callback per safety level, re-registering overwrites, NULL
    /// removes. The recording is stored before the call, because events may be raised
    /// as soon as the callback is registered.
    pub fn event_register_callback(
        &self,
        reg: RawHandle,
        safety: i32,
        info: RawObj,
        recorder: Option<Recording>,
    ) -> Called<()> {
        let f = self.raw.event_register_callback?;
        let (cb, tag) = match recorder {
            Some(r) => {
                let mut s = state();
                s.last = Some(self.raw);
                s.recordings.insert(
                    r.tag,
                    Ctx {
                        raw: self.raw,
                        element_sizes: r.element_sizes,
                    },
                );
                (Some(on_event as EventCb), Some(r.tag))
            }
            None => (None, None),
        };
        let user_data = tag.map_or(std::ptr::null_mut(), |t| t as *mut c_void);
        // SAFETY: `on_event` has the MPI_T_event_cb_function prototype and never unwinds;
        // user_data is an opaque integer the library only passes back.
        let rc = unsafe { f(reg, safety, info, user_data, cb) };
        if let (0, Some(t)) = (rc, tag) {
            state().reg_tags.insert(reg, t);
        }
        Some((rc, ()))
    }

    /// `MPI_T_event_set_dropped_handler(registration, handler)`: the recorder's handler,
    /// or NULL (disables dropped-event reporting, §15.3.8.5).
    pub fn event_set_dropped_handler(&self, reg: RawHandle, install: bool) -> Called<()> {
        let f = self.raw.event_set_dropped_handler?;
        let h = install.then_some(on_dropped as DroppedCb);
        // SAFETY: `on_dropped` has the MPI_T_event_dropped_cb_function prototype and
        // never unwinds.
        Some((unsafe { f(reg, h) }, ()))
    }

    /// `MPI_T_event_handle_free(registration, user_data, free_cb)` with the recorder's
    /// free callback (or NULL). user_data is the tag of the registration's latest
    /// recorder, or the registration value itself when none was registered. The C
    /// binding takes the registration by value, so the caller's variable cannot be
    /// nulled: the value returned is `reg`, unchanged (kept for symmetry with the other
    /// `*_free` wrappers).
    pub fn event_handle_free(&self, reg: RawHandle, free_callback: bool) -> Called<RawHandle> {
        let f = self.raw.event_handle_free?;
        let tag = state().reg_tags.get(&reg).copied().unwrap_or(reg);
        let cb = free_callback.then_some(on_freed as FreeCb);
        // SAFETY: `on_freed` has the MPI_T_event_free_cb_function prototype and never
        // unwinds; user_data is an opaque integer.
        let rc = unsafe { f(reg, tag as *mut c_void, cb) };
        if rc == 0 {
            state().reg_tags.remove(&reg);
        }
        Some((rc, reg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_buffer_is_the_c_layout_extent() {
        let r = |s: &[usize]| Recording {
            tag: 0,
            element_sizes: s.to_vec(),
        };
        // MPI_INT, MPI_INT, MPI_COUNT: 0, 4, 8.
        assert_eq!(r(&[4, 4, 8]).copy_bytes(), 16);
        // MPI_INT, MPI_DOUBLE: 0, 8 (the reference's ref_event_state).
        assert_eq!(r(&[4, 8]).copy_bytes(), 16);
        assert_eq!(r(&[4, 1]).copy_bytes(), 5);
        assert_eq!(r(&[]).copy_bytes(), 0);
    }

    #[test]
    fn callbacks_record_without_a_library() {
        on_dropped(3, 7, 1, 0, 41 as *mut c_void);
        on_freed(7, 0, 42 as *mut c_void);
        assert!(take_dropped().contains(&(41, 3, 1)));
        assert!(!take_dropped_positions().is_empty());
        assert!(take_freed().contains(&42));
        assert!(take_dropped().iter().all(|d| d.0 != 41), "drained");
    }
}
