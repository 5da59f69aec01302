//! MPI-4.1 §15.3.7: performance variables, sessions, handles, MPI_T_PVAR_ALL_HANDLES.
//!
//! Every pvar has a live "world" value (the resource it measures) that moves only when
//! `Model::simulate` steps it: deterministic, no clocks and no randomness, so two runs
//! of the same calls read the same values. Each handle holds its own value (R-SESS-1:
//! nothing done through one session or handle influences another):
//!
//! * COUNTER / AGGREGATE / TIMER accumulate while the handle is active (started, or
//!   continuous); they start at 0 (at allocation and on reset).
//! * HIGHWATERMARK / LOWWATERMARK take the max / min of the world level while active;
//!   they start at the current level (at allocation and on reset).
//! * LEVEL / SIZE / PERCENTAGE / STATE / GENERIC follow the world value while active and
//!   keep the last value seen while stopped; they start at the current world value.
//!
//! Starting and stopping never sets a starting value: only allocation ("the first time
//! the variable is used") and reset do, so counters never decrease and watermarks never
//! move the wrong way except through a reset.

use super::{BoundObject, EnumHandle, Model, PvarHandle, PvarTarget, Registry, Session};
use crate::faults::{Fault, Faults};
use mpit_vocab::catalog::{Appears, Catalog, Pvar};
use mpit_vocab::spec::{Bind, Datatype, PvarClass, TErr, TResult, Verbosity};
use mpit_vocab::value::Value;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Per step, an active MPI_DOUBLE TIMER grows by this many seconds (MPI_Wtime units),
/// and the reference's MPI_Wtime advances by as much: a simulated step takes that long.
pub const TIMER_STEP_SECS: f64 = 0.001;
/// Per step, an active integer TIMER grows by this many ticks (1 tick = 1 ns: 1 ms).
const TIMER_STEP_TICKS: i128 = 1_000_000;
/// Per step, an active AGGREGATE grows by `AGGREGATE_BYTES << (step % 4)` bytes.
const AGGREGATE_BYTES: i128 = 64;
/// LEVEL-like world values follow a triangle wave of this amplitude (period 4 × amplitude).
const WAVE_AMPLITUDE: i64 = 3;
/// One wave unit of a PERCENTAGE (so 0.5 moves within 0.125..=0.875).
const PERCENT_UNIT: f64 = 0.125;
/// GENERIC numbers move through this many values.
const GENERIC_PERIOD: u64 = 16;
/// What a PERCENTAGE reads under fault `percentage-out-of-range`.
const BAD_PERCENTAGE: f64 = 1.5;

/// What `MPI_T_pvar_get_info` returns (strings go through `crate::strings`).
#[derive(Debug, Clone, PartialEq)]
pub struct PvarInfo {
    pub name: String,
    pub verbosity: Verbosity,
    pub var_class: PvarClass,
    pub datatype: Datatype,
    pub enumtype: EnumHandle,
    pub desc: Option<String>,
    pub bind: Bind,
    pub readonly: bool,
    pub continuous: bool,
    pub atomic: bool,
}

#[derive(Debug, Clone)]
struct HandleState {
    session: Session,
    /// Catalog slot (= visible index: pvar indices never move, R-PVAR-1).
    slot: usize,
    count: usize,
    continuous: bool,
    /// Started by the user; meaningless for continuous handles (always active).
    started: bool,
    /// The handle's own value, exactly `count` elements.
    value: Value,
}

impl HandleState {
    /// R-PSTART-1: continuous handles are active from allocation on; the others between
    /// start and stop.
    fn active(&self) -> bool {
        self.continuous || self.started
    }
}

#[derive(Debug, Default, Clone)]
pub(super) struct PvarState {
    /// Steps simulated so far.
    tick: u64,
    /// The catalog's `value` of each pvar (the world at step 0 is derived from it).
    /// Never changed: shared by clones.
    base: Arc<Vec<Value>>,
    /// The live value of each pvar's resource at step `tick`. Shared until a step
    /// moves it (`Arc::make_mut`): the harness clones a model per generated sequence.
    world: Arc<Vec<Value>>,
    sessions: BTreeSet<Session>,
    /// Ordered by id, i.e. by allocation order.
    handles: Registry<PvarHandle, HandleState>,
}

impl PvarState {
    pub(super) fn new(cat: &Catalog) -> Self {
        let base: Vec<Value> = cat
            .pvars
            .iter()
            .map(|p| Value::from_cat(p.datatype, p.count as usize, p.value.as_ref()))
            .collect();
        let world = cat
            .pvars
            .iter()
            .zip(&base)
            .map(|(p, b)| world_at(cat, p, b, 0))
            .collect();
        PvarState {
            tick: 0,
            base: Arc::new(base),
            world: Arc::new(world),
            sessions: BTreeSet::new(),
            handles: Registry::new(),
        }
    }

    /// Invalidate every session and handle (full MPI_T finalize).
    pub(super) fn clear_sessions(&mut self) {
        self.sessions.clear();
        self.handles.clear();
    }

    /// One unit of simulated MPI activity: the world moves, then every active handle
    /// accumulates (COUNTER, AGGREGATE, TIMER) or observes the new world value.
    pub(super) fn step(&mut self, cat: &Catalog, faults: &Faults) {
        self.tick += 1;
        let t = self.tick;
        let world = Arc::make_mut(&mut self.world);
        for ((w, p), b) in world.iter_mut().zip(&cat.pvars).zip(self.base.iter()) {
            *w = world_at(cat, p, b, t);
        }
        // Fault `stopped-handle-counts`: stopped handles are updated as well.
        let all = faults.has(Fault::StoppedHandleCounts);
        for h in self.handles.values_mut().filter(|h| all || h.active()) {
            let class = cat.pvars[h.slot].class;
            accumulate(class, &mut h.value, t, faults);
            observe(class, &mut h.value, &self.world[h.slot], faults);
        }
    }

    fn handles_of(&self, s: Session) -> Vec<PvarHandle> {
        self.handles
            .iter()
            .filter(|(_, st)| st.session == s)
            .map(|(h, _)| *h)
            .collect()
    }

    /// Starts a non-continuous handle; an already started one is left as it is.
    fn start(&mut self, h: PvarHandle, cat: &Catalog, faults: &Faults) {
        if let Some(st) = self.handles.get_mut(&h) {
            if !st.continuous && !st.started {
                st.started = true;
                // Active from now on: LEVEL-like values show the current world value.
                observe(
                    cat.pvars[st.slot].class,
                    &mut st.value,
                    &self.world[st.slot],
                    faults,
                );
            }
        }
    }

    fn stop(&mut self, h: PvarHandle) {
        if let Some(st) = self.handles.get_mut(&h) {
            st.started = false;
        }
    }

    /// R-PRESET-1: back to the class's starting value (R-PCLASS).
    fn reset(&mut self, h: PvarHandle, cat: &Catalog, faults: &Faults) {
        if let Some(st) = self.handles.get_mut(&h) {
            let p = &cat.pvars[st.slot];
            if p.class.starts_at_zero() && faults.has(Fault::CounterNotZeroedByReset) {
                return;
            }
            st.value = starting_value(p, &self.world[st.slot], st.count);
        }
        // Fault `reset-leaks-across-sessions`: every other handle is reset too, in this
        // session and in every other (R-SESS-1 says sessions isolate).
        if faults.has(Fault::ResetLeaksAcrossSessions) {
            for st in self.handles.values_mut() {
                let p = &cat.pvars[st.slot];
                if !p.readonly {
                    st.value = fit(starting_value(p, &self.world[st.slot], 0), st.count);
                }
            }
        }
    }
}

/// R-PCLASS starting values: 0 for COUNTER/AGGREGATE/TIMER, else the current world value
/// (the current level for watermarks, the current state, ...).
fn starting_value(p: &Pvar, world: &Value, count: usize) -> Value {
    if p.class.starts_at_zero() {
        Value::zero(p.datatype, count)
    } else {
        world.clone()
    }
}

/// What an unzeroed buffer held (fault `upstream-mpich-5970`).
fn unzeroed(v: Value) -> Value {
    match v {
        Value::Ints(xs) => Value::Ints(xs.iter().map(|_| 0x5a5a_5a5a).collect()),
        Value::Doubles(xs) => Value::Doubles(xs.iter().map(|_| 1.5e9).collect()),
        c @ Value::Chars(_) => c,
    }
}

/// A triangle wave in `-WAVE_AMPLITUDE..=WAVE_AMPLITUDE`, 0 at step 0, rising first.
fn wave(t: u64, elem: usize) -> i64 {
    let a = WAVE_AMPLITUDE;
    let p = ((t + elem as u64) % (4 * a as u64)) as i64;
    if p <= a {
        p
    } else if p <= 3 * a {
        2 * a - p
    } else {
        p - 4 * a
    }
}

/// The world value of pvar `p` at step `t` (a pure function: runs are reproducible).
fn world_at(cat: &Catalog, p: &Pvar, base: &Value, t: u64) -> Value {
    use PvarClass::*;
    let mut v = base.clone();
    match (p.class, &mut v) {
        // Non-negative levels going up and down around the catalog value.
        (Level | Size | HighWatermark | LowWatermark, Value::Ints(xs)) => {
            for (e, x) in xs.iter_mut().enumerate() {
                *x = (*x + i128::from(wave(t, e))).max(0);
            }
        }
        (Level | Size | HighWatermark | LowWatermark, Value::Doubles(xs)) => {
            for (e, x) in xs.iter_mut().enumerate() {
                *x = (*x + wave(t, e) as f64).max(0.0);
            }
        }
        (Percentage, Value::Doubles(xs)) => {
            for (e, x) in xs.iter_mut().enumerate() {
                *x = (*x + PERCENT_UNIT * wave(t, e) as f64).clamp(0.0, 1.0);
            }
        }
        // Cycles through the enum's items, starting from the catalog value.
        (State, Value::Ints(xs)) => {
            let items = p
                .enumtype
                .as_ref()
                .and_then(|n| cat.enums.iter().find(|en| &en.name == n))
                .map(|en| &en.items[..])
                .unwrap_or(&[]);
            if !items.is_empty() {
                let n = items.len() as u64;
                for (e, x) in xs.iter_mut().enumerate() {
                    let start = items.iter().position(|it| i128::from(it.value) == *x);
                    let pos = match start {
                        Some(s) => s as u64 + t + e as u64,
                        // A catalog value outside the enum: kept at step 0 only.
                        None if t == 0 => continue,
                        None => t - 1 + e as u64,
                    };
                    *x = i128::from(items[(pos % n) as usize].value);
                }
            }
        }
        (Generic, Value::Ints(xs)) => {
            for x in xs.iter_mut() {
                *x += i128::from(t % GENERIC_PERIOD);
            }
        }
        (Generic, Value::Doubles(xs)) => {
            for x in xs.iter_mut() {
                *x += (t % GENERIC_PERIOD) as f64 * 0.5;
            }
        }
        (Generic, Value::Chars(s)) if t % 4 != 0 => {
            *s = format!("{s}#{}", t % 4);
        }
        _ => {}
    }
    v
}

fn add(v: &mut Value, i: i128, f: f64) {
    match v {
        Value::Ints(xs) => xs.iter_mut().for_each(|x| *x += i),
        Value::Doubles(xs) => xs.iter_mut().for_each(|x| *x += f),
        Value::Chars(_) => {}
    }
}

/// What an active handle of the accumulating classes gains in step `t`.
fn accumulate(class: PvarClass, v: &mut Value, t: u64, faults: &Faults) {
    match class {
        // +1 per event (one event per element per step).
        PvarClass::Counter => add(v, 1, 1.0),
        PvarClass::Aggregate => {
            let bytes = AGGREGATE_BYTES << (t % 4);
            add(v, bytes, bytes as f64)
        }
        // Fault `timer-not-in-seconds`: a double timer counts milliseconds.
        PvarClass::Timer if faults.has(Fault::TimerNotInSeconds) => {
            add(v, TIMER_STEP_TICKS, TIMER_STEP_SECS * 1000.0)
        }
        PvarClass::Timer => add(v, TIMER_STEP_TICKS, TIMER_STEP_SECS),
        _ => {}
    }
}

/// Element-wise max (`high`) or min of a watermark and the current level.
fn merge(v: &mut Value, world: &Value, high: bool) {
    match (v, world) {
        (Value::Ints(a), Value::Ints(b)) => {
            for (x, y) in a.iter_mut().zip(b) {
                *x = if high { (*x).max(*y) } else { (*x).min(*y) };
            }
        }
        (Value::Doubles(a), Value::Doubles(b)) => {
            for (x, y) in a.iter_mut().zip(b) {
                *x = if high { x.max(*y) } else { x.min(*y) };
            }
        }
        (v, w) => *v = w.clone(),
    }
}

/// An active handle of the non-accumulating classes sees the world value `world`.
fn observe(class: PvarClass, v: &mut Value, world: &Value, faults: &Faults) {
    match class {
        PvarClass::Counter | PvarClass::Aggregate | PvarClass::Timer => {}
        // Fault `watermark-wrong-direction`: the high watermark follows the level down.
        PvarClass::HighWatermark if !faults.has(Fault::WatermarkWrongDirection) => {
            merge(v, world, true)
        }
        PvarClass::LowWatermark => merge(v, world, false),
        // Fault `state-outside-enum`: the state is read 100 above its item's value.
        PvarClass::State if faults.has(Fault::StateOutsideEnum) => {
            *v = world.clone();
            if let Value::Ints(xs) = v {
                xs.iter_mut().for_each(|x| *x += 100);
            }
        }
        _ => *v = world.clone(),
    }
}

/// Exactly `count` elements (a short write buffer leaves zeros).
fn fit(mut v: Value, count: usize) -> Value {
    match &mut v {
        Value::Ints(xs) => xs.resize(count, 0),
        Value::Doubles(xs) => xs.resize(count, 0.0),
        Value::Chars(_) => {}
    }
    v
}

impl Model {
    fn pvar_visible(&self) -> usize {
        if self.catalog_skipped() {
            return 0;
        }
        self.visible_count(&self.cat.pvars, |p| p.appears)
    }

    /// Faults `upstream-ompi-11492` and `-7084`: after MPI_Init the variables that
    /// appeared with it belong to components MPI_Init did not select; they stay counted
    /// but their information is gone.
    fn pvar_dead(&self, i: usize) -> TResult<()> {
        let late = self.cat.pvars[i].appears != Appears::Always;
        if late && self.fault(Fault::UpstreamOmpi7084) {
            return Err(TErr::Memory);
        }
        if late && self.fault(Fault::UpstreamOmpi11492) {
            return Err(TErr::Invalid);
        }
        Ok(())
    }

    /// Whether pvar `i` is one MPI_Init adds (for the corpus's faults of unloaded
    /// components).
    pub fn pvar_appears_with_mpi(&self, i: i32) -> bool {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.cat.pvars.get(i))
            .is_some_and(|p| p.appears != Appears::Always)
    }

    /// Whether the target is one handle of a HIGH/LOWWATERMARK variable.
    pub fn pvar_handle_is_watermark(&self, s: Session, t: PvarTarget) -> bool {
        matches!(self.pvar_read_target(s, t), Ok(Some(st)) if matches!(
            self.cat.pvars[st.slot].class,
            PvarClass::HighWatermark | PvarClass::LowWatermark
        ))
    }

    /// `MPI_T_pvar_get_num`.
    pub fn pvar_get_num(&self) -> TResult<i32> {
        self.require_init()?;
        Ok(self.pvar_visible() as i32)
    }

    /// `MPI_T_pvar_get_info`. R-PVAR-1: the same answer on every call.
    pub fn pvar_get_info(&self, i: i32) -> TResult<PvarInfo> {
        self.require_init()?;
        let i = self.index(i, self.pvar_visible())?;
        self.pvar_dead(i)?;
        let p = &self.cat.pvars[i];
        let datatype = if p.class == PvarClass::Counter && self.fault(Fault::ClassDatatypeMismatch)
        {
            Datatype::Double
        } else {
            p.datatype
        };
        Ok(PvarInfo {
            name: p.name.clone(),
            verbosity: p.verbosity,
            var_class: p.class,
            datatype,
            enumtype: self.enum_handle(&p.enumtype),
            desc: p.desc.clone(),
            bind: p.bind,
            readonly: p.readonly,
            continuous: p.continuous,
            atomic: p.atomic,
        })
    }

    /// `MPI_T_pvar_get_index` (R-PVAR-4: by name and class).
    pub fn pvar_get_index(&self, name: &str, class: PvarClass) -> TResult<i32> {
        self.require_init()?;
        let any_class = self.fault(Fault::PvarGetIndexIgnoresClass);
        self.cat.pvars[..self.pvar_visible()]
            .iter()
            .position(|p| p.name == name && (any_class || p.class == class))
            // Fault `upstream-ompi-2421`: the index was never set at registration.
            .map(|i| {
                if self.fault(Fault::UpstreamOmpi2421) {
                    0
                } else {
                    i as i32
                }
            })
            .ok_or(TErr::InvalidName)
    }

    /// R-SESS-1: a session that was never created or has been freed is INVALID_SESSION.
    fn pvar_session(&self, s: Session) -> TResult<()> {
        self.require_init()?;
        if self.pvar.sessions.contains(&s) {
            Ok(())
        } else {
            Err(TErr::InvalidSession)
        }
    }

    /// A handle in session `s`. R-PH-1: a handle not associated with `s` is
    /// INVALID_HANDLE (fault `foreign-session-handle-accepted`: taken anyway).
    fn pvar_handle(&self, s: Session, h: PvarHandle) -> TResult<&HandleState> {
        self.pvar_session(s)?;
        match self.pvar.handles.get(&h) {
            Some(st) if st.session == s || self.fault(Fault::ForeignSessionHandleAccepted) => {
                Ok(st)
            }
            _ => Err(TErr::InvalidHandle),
        }
    }

    /// One handle where MPI_T_PVAR_ALL_HANDLES may not be passed (R-PREAD-1: write,
    /// readreset). The spec names no code for that misuse; INVALID_HANDLE is the natural one.
    fn pvar_single(&self, s: Session, t: PvarTarget) -> TResult<PvarHandle> {
        match t {
            PvarTarget::All => {
                self.pvar_session(s)?;
                Err(TErr::InvalidHandle)
            }
            PvarTarget::One(h) => self.pvar_handle(s, h).map(|_| h),
        }
    }

    /// What `pvar_read` reads: one handle, or under fault `read-accepts-all-handles`
    /// the session's first handle for ALL_HANDLES (`None`: the session has none).
    fn pvar_read_target(&self, s: Session, t: PvarTarget) -> TResult<Option<&HandleState>> {
        match t {
            PvarTarget::All if self.fault(Fault::ReadAcceptsAllHandles) => {
                self.pvar_session(s)?;
                Ok(self.pvar.handles.values().find(|st| st.session == s))
            }
            _ => {
                let h = self.pvar_single(s, t)?;
                Ok(self.pvar.handles.get(&h))
            }
        }
    }

    /// `MPI_T_pvar_session_create`.
    pub fn pvar_session_create(&mut self) -> TResult<Session> {
        self.require_init()?;
        if self.fault(Fault::HangInCall) {
            super::hang();
        }
        let s = Session(self.new_id());
        self.pvar.sessions.insert(s);
        Ok(s)
    }

    /// `MPI_T_pvar_session_free`: returns the value the session variable must hold after.
    pub fn pvar_session_free(&mut self, s: Session) -> TResult<Session> {
        self.pvar_session(s)?;
        self.pvar.sessions.remove(&s);
        self.pvar.handles.retain(|_, st| st.session != s);
        // R-SESS-1: the session variable becomes MPI_T_PVAR_SESSION_NULL.
        Ok(if self.fault(Fault::SessionNotNulled) {
            s
        } else {
            Session(0)
        })
    }

    /// `MPI_T_pvar_handle_alloc`: handle and count.
    pub fn pvar_handle_alloc(
        &mut self,
        s: Session,
        i: i32,
        obj: BoundObject,
    ) -> TResult<(PvarHandle, i32)> {
        self.pvar_session(s)?;
        let slot = self.index(i, self.pvar_visible())?;
        let p = &self.cat.pvars[slot];
        self.check_binding(p.bind, obj)?;
        let count = p.count as usize;
        let st = HandleState {
            session: s,
            slot,
            count,
            continuous: p.continuous,
            // R-PSTART-1: non-continuous handles start stopped.
            started: false,
            value: starting_value(p, &self.pvar.world[slot], count),
        };
        let st = if p.class.starts_at_zero() && self.fault(Fault::UpstreamMpich5970) {
            // mpich#5970: the sum buffer was malloc'ed, not zeroed.
            HandleState {
                value: unzeroed(st.value),
                ..st
            }
        } else {
            st
        };
        let h = PvarHandle(self.new_id());
        self.pvar.handles.insert(h, st);
        Ok((h, count as i32))
    }

    /// `MPI_T_pvar_handle_free`: returns the value the handle variable must hold after.
    pub fn pvar_handle_free(&mut self, s: Session, h: PvarHandle) -> TResult<PvarHandle> {
        self.pvar_handle(s, h)?;
        self.pvar.handles.remove(&h);
        // R-PH-1: the handle variable becomes MPI_T_PVAR_HANDLE_NULL.
        Ok(PvarHandle(0))
    }

    /// Datatype and element count behind a handle (the C ABI copies count × size bytes).
    pub fn pvar_handle_layout(&self, s: Session, t: PvarTarget) -> TResult<(Datatype, usize)> {
        Ok(match self.pvar_read_target(s, t)? {
            Some(st) => (self.cat.pvars[st.slot].datatype, st.count),
            None => (Datatype::Int, 0),
        })
    }

    /// `MPI_T_pvar_start`.
    pub fn pvar_start(&mut self, s: Session, t: PvarTarget) -> TResult<()> {
        match t {
            PvarTarget::One(h) => {
                if self.pvar_handle(s, h)?.continuous {
                    // R-PSTART-1: a continuous variable cannot be started.
                    return if self.fault(Fault::StartContinuousAccepted) {
                        Ok(())
                    } else {
                        Err(TErr::PvarNoStartstop)
                    };
                }
                self.pvar.start(h, &self.cat, &self.faults);
                Ok(())
            }
            PvarTarget::All => {
                // R-PSTART-2: continuous and already started handles are ignored; SUCCESS
                // even if nothing was left to start.
                self.pvar_session(s)?;
                let mut continuous = false;
                for h in self.pvar.handles_of(s) {
                    continuous |= self.pvar.handles[&h].continuous;
                    self.pvar.start(h, &self.cat, &self.faults);
                }
                if continuous && self.fault(Fault::AllHandlesStartFailsContinuous) {
                    return Err(TErr::PvarNoStartstop);
                }
                Ok(())
            }
        }
    }

    /// `MPI_T_pvar_stop`.
    pub fn pvar_stop(&mut self, s: Session, t: PvarTarget) -> TResult<()> {
        match t {
            PvarTarget::One(h) => {
                if self.pvar_handle(s, h)?.continuous {
                    // R-PSTART-1: a continuous variable cannot be stopped.
                    return Err(TErr::PvarNoStartstop);
                }
                self.pvar.stop(h);
                Ok(())
            }
            PvarTarget::All => {
                // R-PSTART-2: continuous and already stopped handles are ignored.
                self.pvar_session(s)?;
                for h in self.pvar.handles_of(s) {
                    self.pvar.stop(h);
                }
                Ok(())
            }
        }
    }

    /// `MPI_T_pvar_read` as a value.
    pub fn pvar_read_value(&self, s: Session, t: PvarTarget) -> TResult<Value> {
        let Some(st) = self.pvar_read_target(s, t)? else {
            return Ok(Value::Ints(Vec::new()));
        };
        let p = &self.cat.pvars[st.slot];
        if p.class == PvarClass::Percentage && self.fault(Fault::PercentageOutOfRange) {
            return Ok(Value::Doubles(vec![BAD_PERCENTAGE; st.count]));
        }
        Ok(st.value.clone())
    }

    /// `MPI_T_pvar_read`: the bytes for the user's buffer.
    pub fn pvar_read(&self, s: Session, t: PvarTarget) -> TResult<Vec<u8>> {
        let (dt, count) = self.pvar_handle_layout(s, t)?;
        Ok(self.pvar_read_value(s, t)?.to_bytes(dt, count))
    }

    /// `MPI_T_pvar_write` from the user's count × size bytes.
    pub fn pvar_write(&mut self, s: Session, t: PvarTarget, bytes: &[u8]) -> TResult<()> {
        let h = self.pvar_single(s, t)?;
        let st = &self.pvar.handles[&h];
        let p = &self.cat.pvars[st.slot];
        // R-PWRITE-1: a variable that cannot be changed is NO_WRITE.
        if p.readonly && !self.fault(Fault::WriteReadonlyPvarAccepted) {
            return Err(TErr::PvarNoWrite);
        }
        let v = fit(Value::from_bytes(p.datatype, st.count, bytes), st.count);
        if let Some(st) = self.pvar.handles.get_mut(&h) {
            st.value = v;
        }
        Ok(())
    }

    /// `MPI_T_pvar_reset`.
    pub fn pvar_reset(&mut self, s: Session, t: PvarTarget) -> TResult<()> {
        match t {
            PvarTarget::One(h) => {
                let slot = self.pvar_handle(s, h)?.slot;
                if self.cat.pvars[slot].readonly {
                    return Err(TErr::PvarNoWrite);
                }
                self.pvar.reset(h, &self.cat, &self.faults);
                Ok(())
            }
            PvarTarget::All => {
                // R-PRESET-1: read-only handles are ignored; SUCCESS "even if there are no
                // valid handles or all are read-only".
                self.pvar_session(s)?;
                let mut readonly = false;
                for h in self.pvar.handles_of(s) {
                    if self.cat.pvars[self.pvar.handles[&h].slot].readonly {
                        readonly = true;
                    } else {
                        self.pvar.reset(h, &self.cat, &self.faults);
                    }
                }
                if readonly && self.fault(Fault::ResetAllFailsReadonly) {
                    return Err(TErr::PvarNoWrite);
                }
                Ok(())
            }
        }
    }

    /// `MPI_T_pvar_readreset`: the bytes read before the reset.
    pub fn pvar_readreset(&mut self, s: Session, t: PvarTarget) -> TResult<Vec<u8>> {
        if self.fault(Fault::UpstreamOmpi14016) {
            // ompi#14016: "/* XXX -- TODO -- Implement me */".
            return Err(TErr::InvalidHandle);
        }
        let h = self.pvar_single(s, t)?;
        let p = &self.cat.pvars[self.pvar.handles[&h].slot];
        // Read-only and not atomic: two errors, the standard orders neither
        // (specs/return-codes.yaml `either: readreset_readonly_non_atomic`).
        if p.readonly && !p.atomic && self.fault(Fault::ReadresetReadonlyNoWrite) {
            return Err(TErr::PvarNoWrite);
        }
        // R-PRR-1: only variables that can be read and reset atomically.
        if !p.atomic && !self.fault(Fault::ReadresetNonAtomicAccepted) {
            return Err(TErr::PvarNoAtomic);
        }
        if p.readonly {
            return Err(TErr::PvarNoWrite);
        }
        let bytes = self.pvar_read(s, PvarTarget::One(h))?;
        self.pvar.reset(h, &self.cat, &self.faults);
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use crate::faults::{Fault, Faults};
    use crate::model::{BoundObject, Model, PvarHandle, PvarTarget, Session};
    use mpit_vocab::catalog::Catalog;
    use mpit_vocab::spec::{Datatype, PvarClass, TErr, ThreadLevel};
    use mpit_vocab::value::Value;
    use proptest::prelude::*;

    use PvarTarget::{All, One};

    fn model(f: Faults) -> Model {
        let mut m = Model::new(Catalog::default_catalog(), f);
        m.init_thread(ThreadLevel::Single).unwrap();
        m
    }

    fn idx(m: &Model, name: &str, class: PvarClass) -> i32 {
        m.pvar_get_index(name, class).unwrap()
    }

    fn alloc(m: &mut Model, s: Session, name: &str, class: PvarClass) -> PvarHandle {
        let i = idx(m, name, class);
        m.pvar_handle_alloc(s, i, BoundObject::None).unwrap().0
    }

    /// Element `e` of a handle's value as f64.
    fn num(m: &Model, s: Session, h: PvarHandle, e: usize) -> f64 {
        m.pvar_read_value(s, One(h)).unwrap().elem_f64(e).unwrap()
    }

    /// R-PCLASS / R-ENUM-1: every class uses an allowed datatype; only MPI_INT has an enum.
    #[test]
    fn r_pclass_every_datatype_allowed() {
        let mut m = model(Faults::none());
        m.mpi_init().unwrap();
        let n = m.pvar_get_num().unwrap();
        assert!(n > 0);
        let mut classes = std::collections::BTreeSet::new();
        for i in 0..n {
            let info = m.pvar_get_info(i).unwrap();
            assert!(
                info.var_class.allowed_datatypes().contains(&info.datatype),
                "{} {} {}",
                info.name,
                info.var_class,
                info.datatype
            );
            if info.datatype != Datatype::Int {
                assert_eq!(info.enumtype.0, 0, "{}", info.name);
            }
            classes.insert(info.var_class);
        }
        assert_eq!(
            classes.len(),
            PvarClass::ALL.len(),
            "the default catalog covers every class"
        );
    }

    /// R-PVAR-1: get_info identical on every call and across MPI_Init; the index space
    /// only grows; bad indices are INVALID_INDEX.
    #[test]
    fn r_pvar_1_get_info_stable() {
        let mut m = model(Faults::none());
        let n = m.pvar_get_num().unwrap();
        let before: Vec<_> = (0..n).map(|i| m.pvar_get_info(i).unwrap()).collect();
        for (i, a) in before.iter().enumerate() {
            assert_eq!(&m.pvar_get_info(i as i32).unwrap(), a);
        }
        assert_eq!(m.pvar_get_info(n), Err(TErr::InvalidIndex));
        assert_eq!(m.pvar_get_info(-1), Err(TErr::InvalidIndex));
        m.simulate(7);
        m.mpi_init().unwrap();
        assert_eq!(m.pvar_get_num().unwrap(), n + 1);
        for (i, a) in before.iter().enumerate() {
            assert_eq!(&m.pvar_get_info(i as i32).unwrap(), a);
        }
        assert_eq!(m.pvar_get_info(n).unwrap().name, "ref_pvar_after_init");
    }

    /// R-PVAR-4 / R-PVAR-2: (name, class) identifies a pvar; the two `ref_pvar_counter`
    /// pvars have different indices; a wrong class is INVALID_NAME.
    #[test]
    fn r_pvar_4_index_round_trip_by_name_and_class() {
        let mut m = model(Faults::none());
        assert_eq!(
            m.pvar_get_index("ref_pvar_after_init", PvarClass::Counter),
            Err(TErr::InvalidName)
        );
        m.mpi_init().unwrap();
        for i in 0..m.pvar_get_num().unwrap() {
            let info = m.pvar_get_info(i).unwrap();
            assert_eq!(
                m.pvar_get_index(&info.name, info.var_class),
                Ok(i),
                "{}",
                info.name
            );
        }
        let c = idx(&m, "ref_pvar_counter", PvarClass::Counter);
        let a = idx(&m, "ref_pvar_counter", PvarClass::Aggregate);
        assert_ne!(c, a);
        assert_eq!(m.pvar_get_info(c).unwrap().var_class, PvarClass::Counter);
        assert_eq!(m.pvar_get_info(a).unwrap().var_class, PvarClass::Aggregate);
        assert_eq!(
            m.pvar_get_index("ref_pvar_counter", PvarClass::Timer),
            Err(TErr::InvalidName)
        );
        assert_eq!(
            m.pvar_get_index("ref_pvar_level", PvarClass::Counter),
            Err(TErr::InvalidName)
        );
        assert_eq!(
            m.pvar_get_index("no_such_pvar", PvarClass::Counter),
            Err(TErr::InvalidName)
        );
    }

    /// R-INIT-1: every pvar routine is NOT_INITIALIZED before MPI_T_init_thread, and
    /// Sessions and handles do not survive full finalization in the reference (the text
    /// says nothing of them across it; a call with one is an invalid argument, R-GEN-3).
    #[test]
    fn r_init_1_not_initialized_and_finalize_drops_sessions() {
        let mut m = Model::new(Catalog::default_catalog(), Faults::none());
        let (s, h) = (Session(0x1_0000), PvarHandle(0x1_0010));
        assert_eq!(m.pvar_get_num(), Err(TErr::NotInitialized));
        assert_eq!(m.pvar_get_info(0), Err(TErr::NotInitialized));
        assert_eq!(
            m.pvar_get_index("ref_pvar_level", PvarClass::Level),
            Err(TErr::NotInitialized)
        );
        assert_eq!(m.pvar_session_create(), Err(TErr::NotInitialized));
        assert_eq!(m.pvar_session_free(s), Err(TErr::NotInitialized));
        assert_eq!(
            m.pvar_handle_alloc(s, 0, BoundObject::None),
            Err(TErr::NotInitialized)
        );
        assert_eq!(m.pvar_start(s, All), Err(TErr::NotInitialized));
        assert_eq!(m.pvar_read(s, One(h)), Err(TErr::NotInitialized));
        m.init_thread(ThreadLevel::Single).unwrap();
        let s = m.pvar_session_create().unwrap();
        let h = alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
        m.finalize().unwrap();
        m.init_thread(ThreadLevel::Single).unwrap();
        assert_eq!(m.pvar_read(s, One(h)), Err(TErr::InvalidSession));
        assert_eq!(m.pvar_session_free(s), Err(TErr::InvalidSession));
    }

    /// R-SESS-1: start, stop, write and reset in one session do not influence another.
    #[test]
    fn r_sess_1_sessions_are_isolated() {
        let mut m = model(Faults::none());
        let s1 = m.pvar_session_create().unwrap();
        let s2 = m.pvar_session_create().unwrap();
        assert_ne!(s1, s2);
        let h1 = alloc(&mut m, s1, "ref_pvar_counter", PvarClass::Counter);
        let h2 = alloc(&mut m, s2, "ref_pvar_counter", PvarClass::Counter);
        m.pvar_start(s1, All).unwrap();
        m.simulate(4);
        assert_eq!(num(&m, s1, h1, 0), 4.0);
        assert_eq!(num(&m, s2, h2, 0), 0.0);
        m.pvar_start(s2, One(h2)).unwrap();
        m.simulate(1);
        m.pvar_reset(s1, All).unwrap();
        m.pvar_stop(s1, All).unwrap();
        assert_eq!(num(&m, s1, h1, 0), 0.0);
        assert_eq!(num(&m, s2, h2, 0), 1.0);
        m.simulate(2);
        assert_eq!(num(&m, s1, h1, 0), 0.0);
        assert_eq!(num(&m, s2, h2, 0), 3.0);
        m.pvar_write(s2, One(h2), &100u64.to_ne_bytes()).unwrap();
        assert_eq!(num(&m, s1, h1, 0), 0.0);
        assert_eq!(num(&m, s2, h2, 0), 100.0);
    }

    /// R-PH-1 (MUST): a handle not associated with the session is INVALID_HANDLE, in every
    /// routine taking both.
    #[test]
    fn r_ph_1_foreign_session_handle_is_invalid_handle() {
        let mut m = model(Faults::none());
        let s1 = m.pvar_session_create().unwrap();
        let s2 = m.pvar_session_create().unwrap();
        let h = alloc(&mut m, s1, "ref_pvar_counter", PvarClass::Counter);
        let bytes = 1u64.to_ne_bytes();
        assert_eq!(m.pvar_start(s2, One(h)), Err(TErr::InvalidHandle));
        assert_eq!(m.pvar_stop(s2, One(h)), Err(TErr::InvalidHandle));
        assert_eq!(m.pvar_read(s2, One(h)), Err(TErr::InvalidHandle));
        assert_eq!(m.pvar_read_value(s2, One(h)), Err(TErr::InvalidHandle));
        assert_eq!(m.pvar_handle_layout(s2, One(h)), Err(TErr::InvalidHandle));
        assert_eq!(m.pvar_write(s2, One(h), &bytes), Err(TErr::InvalidHandle));
        assert_eq!(m.pvar_reset(s2, One(h)), Err(TErr::InvalidHandle));
        assert_eq!(m.pvar_readreset(s2, One(h)), Err(TErr::InvalidHandle));
        assert_eq!(m.pvar_handle_free(s2, h), Err(TErr::InvalidHandle));
        // Still fine in its own session; freed handles and HANDLE_NULL are invalid.
        assert_eq!(
            m.pvar_handle_layout(s1, One(h)),
            Ok((Datatype::UnsignedLongLong, 1))
        );
        assert_eq!(m.pvar_handle_free(s1, h), Ok(PvarHandle(0)));
        assert_eq!(m.pvar_read(s1, One(h)), Err(TErr::InvalidHandle));
        assert_eq!(m.pvar_handle_free(s1, h), Err(TErr::InvalidHandle));
        assert_eq!(
            m.pvar_read(s1, One(PvarHandle(0))),
            Err(TErr::InvalidHandle)
        );
    }

    /// R-SESS-1: free nulls the session and its handles; a freed session is INVALID_SESSION.
    #[test]
    fn r_sess_1_freed_session_is_invalid_session() {
        let mut m = model(Faults::none());
        let s = m.pvar_session_create().unwrap();
        let h = alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
        assert_eq!(m.pvar_session_free(s), Ok(Session(0)));
        assert_eq!(m.pvar_session_free(s), Err(TErr::InvalidSession));
        assert_eq!(m.pvar_session_free(Session(0)), Err(TErr::InvalidSession));
        assert_eq!(
            m.pvar_handle_alloc(s, 0, BoundObject::None),
            Err(TErr::InvalidSession)
        );
        assert_eq!(m.pvar_start(s, All), Err(TErr::InvalidSession));
        assert_eq!(m.pvar_stop(s, One(h)), Err(TErr::InvalidSession));
        assert_eq!(m.pvar_reset(s, All), Err(TErr::InvalidSession));
        assert_eq!(m.pvar_read(s, One(h)), Err(TErr::InvalidSession));
        assert_eq!(m.pvar_read(s, All), Err(TErr::InvalidSession));
        assert_eq!(m.pvar_handle_free(s, h), Err(TErr::InvalidSession));
        // Its handles went with it: not usable from another session either.
        let s2 = m.pvar_session_create().unwrap();
        assert_eq!(m.pvar_read(s2, One(h)), Err(TErr::InvalidHandle));
    }

    /// R-PH-1 / R-CVAR-6: bad index, binding checked like cvars (R-BIND-2).
    #[test]
    fn r_ph_1_alloc_checks_index_and_binding() {
        let mut m = model(Faults::none());
        let s = m.pvar_session_create().unwrap();
        let n = m.pvar_get_num().unwrap();
        assert_eq!(
            m.pvar_handle_alloc(s, n, BoundObject::None),
            Err(TErr::InvalidIndex)
        );
        assert_eq!(
            m.pvar_handle_alloc(s, -1, BoundObject::None),
            Err(TErr::InvalidIndex)
        );
        let i = idx(&m, "ref_pvar_comm_counter", PvarClass::Counter);
        assert_eq!(
            m.pvar_handle_alloc(s, i, BoundObject::CommWorld),
            Err(TErr::InvalidHandle)
        );
        m.mpi_init().unwrap();
        assert_eq!(
            m.pvar_handle_alloc(s, i, BoundObject::Null),
            Err(TErr::InvalidHandle)
        );
        let (h, count) = m.pvar_handle_alloc(s, i, BoundObject::CommWorld).unwrap();
        assert_eq!(count, 1);
        assert_eq!(m.pvar_read(s, One(h)).unwrap(), 0u64.to_ne_bytes());
        let i = idx(&m, "ref_pvar_counter_array", PvarClass::Counter);
        let (h, count) = m.pvar_handle_alloc(s, i, BoundObject::None).unwrap();
        assert_eq!(count, 3);
        assert_eq!(m.pvar_read(s, One(h)).unwrap().len(), 3 * 8);
    }

    /// R-PSTART-1: a continuous handle is active from allocation on, readable at once,
    /// and cannot be started or stopped.
    #[test]
    fn r_pstart_1_continuous_readable_and_not_startable() {
        let mut m = model(Faults::none());
        let s = m.pvar_session_create().unwrap();
        let h = alloc(&mut m, s, "ref_pvar_counter_continuous", PvarClass::Counter);
        assert_eq!(m.pvar_read(s, One(h)).unwrap(), 0u32.to_ne_bytes());
        m.simulate(3);
        assert_eq!(m.pvar_read(s, One(h)).unwrap(), 3u32.to_ne_bytes());
        assert_eq!(m.pvar_start(s, One(h)), Err(TErr::PvarNoStartstop));
        assert_eq!(m.pvar_stop(s, One(h)), Err(TErr::PvarNoStartstop));
        m.simulate(1);
        assert_eq!(num(&m, s, h, 0), 4.0);
        // A continuous LEVEL-like pvar follows the world without a start.
        let size = alloc(&mut m, s, "ref_pvar_size", PvarClass::Size);
        assert_eq!(
            num(&m, s, size, 0),
            m.pvar.world[m.pvar.handles[&size].slot]
                .elem_f64(0)
                .unwrap()
        );
        let v0 = num(&m, s, size, 0);
        m.simulate(1);
        assert_ne!(num(&m, s, size, 0), v0);
    }

    /// R-PSTART-1: a non-continuous handle starts stopped and is not updated until started;
    /// stopped again it keeps its value.
    #[test]
    fn r_pstart_1_non_continuous_moves_only_when_started() {
        let mut m = model(Faults::none());
        let s = m.pvar_session_create().unwrap();
        let names = [
            ("ref_pvar_counter", PvarClass::Counter),
            ("ref_pvar_level", PvarClass::Level),
            ("ref_pvar_timer", PvarClass::Timer),
            ("ref_pvar_aggregate", PvarClass::Aggregate),
            ("ref_pvar_percentage", PvarClass::Percentage),
            ("ref_pvar_generic", PvarClass::Generic),
        ];
        let hs: Vec<_> = names.iter().map(|(n, c)| alloc(&mut m, s, n, *c)).collect();
        let first: Vec<_> = hs
            .iter()
            .map(|h| m.pvar_read(s, One(*h)).unwrap())
            .collect();
        m.simulate(5);
        for ((h, f), (n, _)) in hs.iter().zip(&first).zip(&names) {
            assert_eq!(
                &m.pvar_read(s, One(*h)).unwrap(),
                f,
                "{n} moved while stopped"
            );
        }
        m.pvar_start(s, All).unwrap();
        let mut moved = vec![false; hs.len()];
        for _ in 0..4 {
            m.simulate(1);
            for ((h, f), mv) in hs.iter().zip(&first).zip(moved.iter_mut()) {
                *mv |= &m.pvar_read(s, One(*h)).unwrap() != f;
            }
        }
        for (mv, (n, _)) in moved.iter().zip(&names) {
            assert!(mv, "{n} did not move while started");
        }
        m.pvar_stop(s, All).unwrap();
        let stopped: Vec<_> = hs
            .iter()
            .map(|h| m.pvar_read(s, One(*h)).unwrap())
            .collect();
        m.simulate(3);
        for ((h, f), (n, _)) in hs.iter().zip(&stopped).zip(&names) {
            assert_eq!(&m.pvar_read(s, One(*h)).unwrap(), f, "{n} moved after stop");
        }
    }

    /// R-PCLASS / R-PRESET-1: COUNTER, AGGREGATE and TIMER are 0 at allocation and after
    /// reset, and grow after simulate while started (+1 per element per step for counters).
    #[test]
    fn r_preset_1_counters_zero_after_reset_and_grow() {
        let mut m = model(Faults::none());
        let s = m.pvar_session_create().unwrap();
        let c = alloc(&mut m, s, "ref_pvar_counter_array", PvarClass::Counter);
        let a = alloc(&mut m, s, "ref_pvar_counter", PvarClass::Aggregate);
        let t = alloc(&mut m, s, "ref_pvar_timer", PvarClass::Timer);
        for h in [c, a, t] {
            assert_eq!(num(&m, s, h, 0), 0.0);
        }
        m.pvar_start(s, All).unwrap();
        m.simulate(5);
        assert_eq!(
            m.pvar_read_value(s, One(c)).unwrap(),
            Value::Ints(vec![5, 5, 5])
        );
        assert!(num(&m, s, a, 0) > 0.0);
        assert!(
            (num(&m, s, t, 0) - 0.005).abs() < 1e-12,
            "1 ms per step in MPI_Wtime seconds"
        );
        for h in [c, a, t] {
            m.pvar_reset(s, One(h)).unwrap();
            assert_eq!(num(&m, s, h, 0), 0.0);
        }
        m.simulate(3);
        assert_eq!(
            m.pvar_read_value(s, One(c)).unwrap(),
            Value::Ints(vec![3, 3, 3])
        );
        assert!(num(&m, s, a, 0) > 0.0 && num(&m, s, t, 0) > 0.0);
        // Integer timer: ticks of 1 ns (readonly, so no reset; grows when started).
        let tt = alloc(&mut m, s, "ref_pvar_timer_ticks", PvarClass::Timer);
        m.pvar_start(s, One(tt)).unwrap();
        m.simulate(2);
        assert_eq!(m.pvar_read(s, One(tt)).unwrap(), 2_000_000u64.to_ne_bytes());
        assert_eq!(m.pvar_reset(s, One(tt)), Err(TErr::PvarNoWrite));
    }

    /// R-PCLASS: watermarks start at the current level (allocation and reset), HWM never
    /// decreases and LWM never increases between resets; levels stay non-negative.
    #[test]
    fn r_pclass_watermarks_monotonic_with_resets() {
        let mut m = model(Faults::none());
        let s = m.pvar_session_create().unwrap();
        let hwm = alloc(&mut m, s, "ref_pvar_hwm", PvarClass::HighWatermark);
        let lwm = alloc(&mut m, s, "ref_pvar_lwm", PvarClass::LowWatermark);
        let world =
            |m: &Model, h: PvarHandle| m.pvar.world[m.pvar.handles[&h].slot].elem_f64(0).unwrap();
        assert_eq!(
            num(&m, s, hwm, 0),
            3.0,
            "the catalog value is the level at step 0"
        );
        assert_eq!(num(&m, s, lwm, 0), 100.0);
        m.pvar_start(s, All).unwrap();
        let (mut ph, mut pl) = (num(&m, s, hwm, 0), num(&m, s, lwm, 0));
        let (mut rose, mut fell) = (false, false);
        for step in 1..=200 {
            m.simulate(1);
            let (h, l) = (num(&m, s, hwm, 0), num(&m, s, lwm, 0));
            assert!(
                h >= ph && l <= pl,
                "step {step}: hwm {ph}->{h}, lwm {pl}->{l}"
            );
            assert!(h >= world(&m, hwm) && l <= world(&m, lwm));
            assert!(l >= 0.0);
            rose |= h > ph;
            fell |= l < pl;
            (ph, pl) = (h, l);
            if step % 17 == 0 {
                m.pvar_reset(s, All).unwrap();
                (ph, pl) = (num(&m, s, hwm, 0), num(&m, s, lwm, 0));
                assert_eq!(ph, world(&m, hwm), "reset: starting value = current level");
                assert_eq!(pl, world(&m, lwm));
            }
        }
        assert!(rose && fell, "the watermarks must actually move");
    }

    /// R-PCLASS: PERCENTAGE always within 0.0..=1.0 (and it does move).
    #[test]
    fn r_pclass_percentage_in_range() {
        let mut m = model(Faults::none());
        let s = m.pvar_session_create().unwrap();
        let h = alloc(&mut m, s, "ref_pvar_percentage", PvarClass::Percentage);
        m.pvar_start(s, One(h)).unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..50 {
            let p = num(&m, s, h, 0);
            assert!((0.0..=1.0).contains(&p), "{p}");
            seen.insert(p.to_bits());
            m.simulate(1);
        }
        assert!(seen.len() > 1);
    }

    /// R-PCLASS: STATE is MPI_INT and cycles through its enum's item values.
    #[test]
    fn r_pclass_state_takes_enum_item_values() {
        let mut m = model(Faults::none());
        let s = m.pvar_session_create().unwrap();
        let h = alloc(&mut m, s, "ref_pvar_state", PvarClass::State);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..6 {
            seen.insert(num(&m, s, h, 0) as i64);
            m.simulate(1);
        }
        assert_eq!(seen, [10, 11].into_iter().collect());
    }

    /// R-TYPE-2: an MPI_CHAR pvar reads a NUL-terminated string within `count`.
    #[test]
    fn r_type_2_char_pvar_is_a_string() {
        let mut m = model(Faults::none());
        let s = m.pvar_session_create().unwrap();
        let i = idx(&m, "ref_pvar_generic_string", PvarClass::Generic);
        let (h, count) = m.pvar_handle_alloc(s, i, BoundObject::None).unwrap();
        assert_eq!(
            m.pvar_handle_layout(s, One(h)),
            Ok((Datatype::Char, count as usize))
        );
        for _ in 0..4 {
            let b = m.pvar_read(s, One(h)).unwrap();
            assert_eq!(b.len(), count as usize);
            let nul = b.iter().position(|c| *c == 0).expect("NUL within count");
            assert!(b[..nul].starts_with(b"shm"));
            m.simulate(1);
        }
    }

    /// R-PSTART-2: ALL_HANDLES start/stop succeed with an empty session, only continuous
    /// handles, and already started or stopped handles.
    #[test]
    fn r_pstart_2_all_handles_start_stop() {
        let mut m = model(Faults::none());
        let empty = m.pvar_session_create().unwrap();
        assert_eq!(m.pvar_start(empty, All), Ok(()));
        assert_eq!(m.pvar_stop(empty, All), Ok(()));
        let cont = m.pvar_session_create().unwrap();
        let cc = alloc(
            &mut m,
            cont,
            "ref_pvar_counter_continuous",
            PvarClass::Counter,
        );
        alloc(&mut m, cont, "ref_pvar_size", PvarClass::Size);
        assert_eq!(m.pvar_start(cont, All), Ok(()));
        assert_eq!(m.pvar_stop(cont, All), Ok(()));
        m.simulate(2);
        assert_eq!(
            num(&m, cont, cc, 0),
            2.0,
            "stop ALL_HANDLES ignores continuous handles"
        );
        let mixed = m.pvar_session_create().unwrap();
        let c = alloc(&mut m, mixed, "ref_pvar_counter", PvarClass::Counter);
        let k = alloc(
            &mut m,
            mixed,
            "ref_pvar_counter_continuous",
            PvarClass::Counter,
        );
        let t = alloc(&mut m, mixed, "ref_pvar_timer", PvarClass::Timer);
        m.pvar_start(mixed, One(c)).unwrap();
        m.simulate(1);
        assert_eq!(
            m.pvar_start(mixed, All),
            Ok(()),
            "already started and continuous are ignored"
        );
        m.simulate(1);
        assert_eq!(num(&m, mixed, c, 0), 2.0);
        assert_eq!(num(&m, mixed, k, 0), 2.0);
        assert!(num(&m, mixed, t, 0) > 0.0);
        m.pvar_stop(mixed, One(t)).unwrap();
        assert_eq!(
            m.pvar_stop(mixed, All),
            Ok(()),
            "already stopped and continuous are ignored"
        );
        assert_eq!(m.pvar_stop(mixed, All), Ok(()));
        m.simulate(1);
        assert_eq!(num(&m, mixed, c, 0), 2.0);
        assert_eq!(num(&m, mixed, k, 0), 3.0);
    }

    /// R-PRESET-1: ALL_HANDLES reset ignores read-only handles and succeeds "even if there
    /// are no valid handles or all are read-only".
    #[test]
    fn r_preset_1_all_handles_reset() {
        let mut m = model(Faults::none());
        let empty = m.pvar_session_create().unwrap();
        assert_eq!(m.pvar_reset(empty, All), Ok(()));
        let ro = m.pvar_session_create().unwrap();
        let tt = alloc(&mut m, ro, "ref_pvar_timer_ticks", PvarClass::Timer);
        alloc(&mut m, ro, "ref_pvar_level", PvarClass::Level);
        m.pvar_start(ro, All).unwrap();
        m.simulate(2);
        assert_eq!(m.pvar_reset(ro, All), Ok(()));
        assert_eq!(
            num(&m, ro, tt, 0),
            2_000_000.0,
            "read-only handles are left alone"
        );
        let mixed = m.pvar_session_create().unwrap();
        let c = alloc(&mut m, mixed, "ref_pvar_counter", PvarClass::Counter);
        let k = alloc(
            &mut m,
            mixed,
            "ref_pvar_counter_continuous",
            PvarClass::Counter,
        );
        let tt = alloc(&mut m, mixed, "ref_pvar_timer_ticks", PvarClass::Timer);
        m.pvar_start(mixed, All).unwrap();
        m.simulate(3);
        assert_eq!(m.pvar_reset(mixed, All), Ok(()));
        assert_eq!(num(&m, mixed, c, 0), 0.0);
        assert_eq!(num(&m, mixed, k, 0), 0.0);
        assert_eq!(num(&m, mixed, tt, 0), 3_000_000.0);
        assert_eq!(m.pvar_reset(mixed, One(tt)), Err(TErr::PvarNoWrite));
    }

    /// R-PREAD-1: ALL_HANDLES may not be passed to read, write or readreset (no code named:
    /// INVALID_HANDLE).
    #[test]
    fn r_pread_1_all_handles_rejected_for_read_write_readreset() {
        let mut m = model(Faults::none());
        let s = m.pvar_session_create().unwrap();
        alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
        assert_eq!(m.pvar_read(s, All), Err(TErr::InvalidHandle));
        assert_eq!(m.pvar_read_value(s, All), Err(TErr::InvalidHandle));
        assert_eq!(m.pvar_handle_layout(s, All), Err(TErr::InvalidHandle));
        assert_eq!(
            m.pvar_write(s, All, &0u64.to_ne_bytes()),
            Err(TErr::InvalidHandle)
        );
        assert_eq!(m.pvar_readreset(s, All), Err(TErr::InvalidHandle));
    }

    /// R-PWRITE-1: read-only → NO_WRITE; a writable handle takes the value written.
    #[test]
    fn r_pwrite_1_write() {
        let mut m = model(Faults::none());
        let s = m.pvar_session_create().unwrap();
        let l = alloc(&mut m, s, "ref_pvar_level", PvarClass::Level);
        let before = m.pvar_read(s, One(l)).unwrap();
        assert_eq!(
            m.pvar_write(s, One(l), &9u32.to_ne_bytes()),
            Err(TErr::PvarNoWrite)
        );
        assert_eq!(m.pvar_read(s, One(l)).unwrap(), before);
        let c = alloc(&mut m, s, "ref_pvar_counter_array", PvarClass::Counter);
        let bytes: Vec<u8> = [41u64, 42, 43]
            .iter()
            .flat_map(|x| x.to_ne_bytes())
            .collect();
        m.pvar_write(s, One(c), &bytes).unwrap();
        assert_eq!(m.pvar_read(s, One(c)).unwrap(), bytes);
        m.pvar_start(s, One(c)).unwrap();
        m.simulate(1);
        assert_eq!(
            m.pvar_read_value(s, One(c)).unwrap(),
            Value::Ints(vec![42, 43, 44])
        );
    }

    /// R-PRR-1: readreset on a non-atomic pvar is NO_ATOMIC; on an atomic one it returns
    /// the value before and leaves the starting value.
    #[test]
    fn r_prr_1_readreset() {
        let mut m = model(Faults::none());
        let s = m.pvar_session_create().unwrap();
        let t = alloc(&mut m, s, "ref_pvar_timer", PvarClass::Timer);
        assert_eq!(m.pvar_readreset(s, One(t)), Err(TErr::PvarNoAtomic));
        let c = alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
        m.pvar_start(s, All).unwrap();
        m.simulate(4);
        assert_eq!(m.pvar_readreset(s, One(c)).unwrap(), 4u64.to_ne_bytes());
        assert_eq!(m.pvar_read(s, One(c)).unwrap(), 0u64.to_ne_bytes());
        let a = alloc(&mut m, s, "ref_pvar_aggregate", PvarClass::Aggregate);
        m.pvar_start(s, One(a)).unwrap();
        m.simulate(1);
        let got = m.pvar_readreset(s, One(a)).unwrap();
        assert!(f64::from_ne_bytes(got.try_into().unwrap()) > 0.0);
        assert_eq!(num(&m, s, a, 0), 0.0);
    }

    /// Runs are reproducible: no clocks, no randomness.
    #[test]
    fn simulation_is_deterministic() {
        let run = || {
            let mut m = model(Faults::none());
            m.mpi_init().unwrap();
            let s = m.pvar_session_create().unwrap();
            let n = m.pvar_get_num().unwrap();
            let hs: Vec<_> = (0..n)
                .map(|i| m.pvar_handle_alloc(s, i, BoundObject::CommWorld).unwrap().0)
                .collect();
            m.pvar_start(s, All).unwrap();
            let mut out = Vec::new();
            for _ in 0..30 {
                m.simulate(1);
                out.extend(hs.iter().flat_map(|h| m.pvar_read(s, One(*h)).unwrap()));
            }
            out
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn fault_pvar_get_index_ignores_class() {
        let m = model(Faults::one(Fault::PvarGetIndexIgnoresClass));
        let c = m
            .pvar_get_index("ref_pvar_counter", PvarClass::Counter)
            .unwrap();
        assert_eq!(
            m.pvar_get_index("ref_pvar_counter", PvarClass::Aggregate),
            Ok(c)
        );
        assert_eq!(m.pvar_get_index("ref_pvar_level", PvarClass::Timer), Ok(1));
    }

    #[test]
    fn fault_session_not_nulled() {
        let mut m = model(Faults::one(Fault::SessionNotNulled));
        let s = m.pvar_session_create().unwrap();
        assert_eq!(m.pvar_session_free(s), Ok(s));
    }

    #[test]
    fn fault_foreign_session_handle_accepted() {
        let mut m = model(Faults::one(Fault::ForeignSessionHandleAccepted));
        let s1 = m.pvar_session_create().unwrap();
        let s2 = m.pvar_session_create().unwrap();
        let h = alloc(&mut m, s1, "ref_pvar_counter", PvarClass::Counter);
        assert_eq!(m.pvar_start(s2, One(h)), Ok(()));
        assert!(m.pvar_read(s2, One(h)).is_ok());
        assert_eq!(m.pvar_handle_free(s2, h), Ok(PvarHandle(0)));
    }

    #[test]
    fn fault_start_continuous_accepted() {
        let mut m = model(Faults::one(Fault::StartContinuousAccepted));
        let s = m.pvar_session_create().unwrap();
        let h = alloc(&mut m, s, "ref_pvar_counter_continuous", PvarClass::Counter);
        assert_eq!(m.pvar_start(s, One(h)), Ok(()));
    }

    #[test]
    fn fault_all_handles_start_fails_continuous() {
        let mut m = model(Faults::one(Fault::AllHandlesStartFailsContinuous));
        let s = m.pvar_session_create().unwrap();
        assert_eq!(m.pvar_start(s, All), Ok(()));
        alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
        assert_eq!(m.pvar_start(s, All), Ok(()));
        alloc(&mut m, s, "ref_pvar_counter_continuous", PvarClass::Counter);
        assert_eq!(m.pvar_start(s, All), Err(TErr::PvarNoStartstop));
    }

    #[test]
    fn fault_read_accepts_all_handles() {
        let mut m = model(Faults::one(Fault::ReadAcceptsAllHandles));
        let s = m.pvar_session_create().unwrap();
        assert_eq!(m.pvar_read(s, All), Ok(Vec::new()));
        let h = alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
        m.pvar_start(s, One(h)).unwrap();
        m.simulate(2);
        assert_eq!(
            m.pvar_handle_layout(s, All),
            Ok((Datatype::UnsignedLongLong, 1))
        );
        assert_eq!(
            m.pvar_read(s, All).unwrap(),
            m.pvar_read(s, One(h)).unwrap()
        );
        // Only read: write and readreset still refuse ALL_HANDLES.
        assert_eq!(m.pvar_readreset(s, All), Err(TErr::InvalidHandle));
    }

    #[test]
    fn fault_write_readonly_pvar_accepted() {
        let mut m = model(Faults::one(Fault::WriteReadonlyPvarAccepted));
        let s = m.pvar_session_create().unwrap();
        let h = alloc(&mut m, s, "ref_pvar_level", PvarClass::Level);
        assert_eq!(m.pvar_write(s, One(h), &9u32.to_ne_bytes()), Ok(()));
        assert_eq!(m.pvar_read(s, One(h)).unwrap(), 9u32.to_ne_bytes());
    }

    #[test]
    fn fault_reset_all_fails_readonly() {
        let mut m = model(Faults::one(Fault::ResetAllFailsReadonly));
        let s = m.pvar_session_create().unwrap();
        alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
        assert_eq!(m.pvar_reset(s, All), Ok(()));
        alloc(&mut m, s, "ref_pvar_level", PvarClass::Level);
        assert_eq!(m.pvar_reset(s, All), Err(TErr::PvarNoWrite));
    }

    #[test]
    fn fault_counter_not_zeroed_by_reset() {
        let mut m = model(Faults::one(Fault::CounterNotZeroedByReset));
        let s = m.pvar_session_create().unwrap();
        let c = alloc(&mut m, s, "ref_pvar_counter", PvarClass::Counter);
        let t = alloc(&mut m, s, "ref_pvar_timer", PvarClass::Timer);
        m.pvar_start(s, All).unwrap();
        m.simulate(3);
        m.pvar_reset(s, One(c)).unwrap();
        m.pvar_reset(s, All).unwrap();
        assert_eq!(num(&m, s, c, 0), 3.0);
        assert!(num(&m, s, t, 0) > 0.0);
        assert_eq!(m.pvar_readreset(s, One(c)).unwrap(), 3u64.to_ne_bytes());
        assert_eq!(num(&m, s, c, 0), 3.0);
    }

    #[test]
    fn fault_readreset_non_atomic_accepted() {
        let mut m = model(Faults::one(Fault::ReadresetNonAtomicAccepted));
        let s = m.pvar_session_create().unwrap();
        let t = alloc(&mut m, s, "ref_pvar_timer", PvarClass::Timer);
        assert!(m.pvar_readreset(s, One(t)).is_ok());
    }

    #[test]
    fn fault_class_datatype_mismatch() {
        let m = model(Faults::one(Fault::ClassDatatypeMismatch));
        let i = idx(&m, "ref_pvar_counter", PvarClass::Counter);
        let info = m.pvar_get_info(i).unwrap();
        assert_eq!(info.datatype, Datatype::Double);
        assert!(!info.var_class.allowed_datatypes().contains(&info.datatype));
    }

    #[test]
    fn fault_percentage_out_of_range() {
        let mut m = model(Faults::one(Fault::PercentageOutOfRange));
        let s = m.pvar_session_create().unwrap();
        let h = alloc(&mut m, s, "ref_pvar_percentage", PvarClass::Percentage);
        assert_eq!(num(&m, s, h, 0), 1.5);
        assert_eq!(m.pvar_read(s, One(h)).unwrap(), 1.5f64.to_ne_bytes());
    }

    #[test]
    fn fault_watermark_wrong_direction() {
        let mut m = model(Faults::one(Fault::WatermarkWrongDirection));
        let s = m.pvar_session_create().unwrap();
        let h = alloc(&mut m, s, "ref_pvar_hwm", PvarClass::HighWatermark);
        m.pvar_start(s, One(h)).unwrap();
        let mut prev = num(&m, s, h, 0);
        let mut decreased = false;
        for _ in 0..12 {
            m.simulate(1);
            let v = num(&m, s, h, 0);
            decreased |= v < prev;
            prev = v;
        }
        assert!(decreased);
    }

    #[test]
    fn fault_hang_in_call() {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut m = model(Faults::one(Fault::HangInCall));
            let r = m.pvar_session_create();
            let _ = tx.send(r);
        });
        let got = rx.recv_timeout(std::time::Duration::from_millis(200));
        assert_eq!(got, Err(std::sync::mpsc::RecvTimeoutError::Timeout));
    }

    #[derive(Debug, Clone)]
    enum Op {
        Start(usize),
        Stop(usize),
        Reset(usize),
        StartAll,
        StopAll,
        ResetAll,
        Simulate(u32),
        ReadReset(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0..16usize).prop_map(Op::Start),
            (0..16usize).prop_map(Op::Stop),
            (0..16usize).prop_map(Op::Reset),
            Just(Op::StartAll),
            Just(Op::StopAll),
            Just(Op::ResetAll),
            (1..20u32).prop_map(Op::Simulate),
            (0..16usize).prop_map(Op::ReadReset),
        ]
    }

    proptest! {
        /// R-PCLASS over random start/stop/reset/simulate/read sequences: counters never
        /// decrease except by reset, HWM non-decreasing and LWM non-increasing between
        /// resets, PERCENTAGE in [0,1], LEVEL-like values non-negative; stopped
        /// non-continuous handles do not move.
        #[test]
        fn class_invariants_hold(ops in proptest::collection::vec(op(), 1..60)) {
            let mut m = model(Faults::none());
            m.mpi_init().unwrap();
            let s = m.pvar_session_create().unwrap();
            let n = m.pvar_get_num().unwrap();
            let hs: Vec<_> = (0..n)
                .map(|i| m.pvar_handle_alloc(s, i, BoundObject::CommWorld).unwrap().0)
                .collect();
            let infos: Vec<_> = (0..n).map(|i| m.pvar_get_info(i).unwrap()).collect();
            let read = |m: &Model| -> Vec<Value> {
                hs.iter().map(|h| m.pvar_read_value(s, One(*h)).unwrap()).collect()
            };
            let mut prev = read(&m);
            for op in ops {
                let mut reset = vec![false; hs.len()];
                let pick = |k: usize| k % hs.len();
                match op {
                    Op::Start(k) => { let _ = m.pvar_start(s, One(hs[pick(k)])); }
                    Op::Stop(k) => { let _ = m.pvar_stop(s, One(hs[pick(k)])); }
                    Op::Reset(k) => reset[pick(k)] = m.pvar_reset(s, One(hs[pick(k)])).is_ok(),
                    Op::ReadReset(k) => reset[pick(k)] = m.pvar_readreset(s, One(hs[pick(k)])).is_ok(),
                    Op::StartAll => prop_assert_eq!(m.pvar_start(s, All), Ok(())),
                    Op::StopAll => prop_assert_eq!(m.pvar_stop(s, All), Ok(())),
                    Op::ResetAll => {
                        prop_assert_eq!(m.pvar_reset(s, All), Ok(()));
                        for (r, info) in reset.iter_mut().zip(&infos) {
                            *r = !info.readonly;
                        }
                    }
                    Op::Simulate(k) => m.simulate(k),
                }
                let now = read(&m);
                for (j, info) in infos.iter().enumerate() {
                    let active = info.continuous || m.pvar.handles[&hs[j]].started;
                    for e in 0..m.pvar.handles[&hs[j]].count {
                        let (Some(a), Some(b)) = (prev[j].elem_f64(e), now[j].elem_f64(e)) else { continue };
                        match info.var_class {
                            PvarClass::Counter | PvarClass::Aggregate | PvarClass::Timer if !reset[j] => {
                                prop_assert!(b >= a, "{} decreased {a} -> {b}", info.name);
                                if !active { prop_assert_eq!(a, b, "{} moved while stopped", &info.name); }
                            }
                            PvarClass::HighWatermark if !reset[j] => prop_assert!(b >= a, "{}", info.name),
                            PvarClass::LowWatermark if !reset[j] => prop_assert!(b <= a, "{}", info.name),
                            PvarClass::Percentage => prop_assert!((0.0..=1.0).contains(&b)),
                            _ => {}
                        }
                        if info.var_class.starts_at_zero() && reset[j] {
                            prop_assert_eq!(b, 0.0);
                        }
                        if info.var_class != PvarClass::Generic {
                            prop_assert!(b >= 0.0, "{} negative", info.name);
                        }
                    }
                }
                prev = now;
            }
        }
    }
}
