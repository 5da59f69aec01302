//! The simulated resources behind the pvars (MPI-4.1 §15.3.7, R-PCLASS): the world
//! value of each pvar at a step, a pure function of the step so runs are reproducible;
//! what an active handle of each class gains or observes in a step; the starting values
//! of allocation and reset.

use crate::faults::{Fault, Faults};
use mpit_vocab::catalog::{Catalog, Pvar};
use mpit_vocab::spec::PvarClass;
use mpit_vocab::value::Value;

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

/// R-PCLASS starting values: 0 for COUNTER/AGGREGATE/TIMER, else the current world value
/// (the current level for watermarks, the current state, ...).
pub(super) fn starting_value(p: &Pvar, world: &Value, count: usize) -> Value {
    if p.class.starts_at_zero() {
        Value::zero(p.datatype, count)
    } else {
        world.clone()
    }
}

/// What an unzeroed buffer held (fault `upstream-mpich-5970`).
pub(super) fn unzeroed(v: Value) -> Value {
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
pub(super) fn world_at(cat: &Catalog, p: &Pvar, base: &Value, t: u64) -> Value {
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
pub(super) fn accumulate(class: PvarClass, v: &mut Value, t: u64, faults: &Faults) {
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
pub(super) fn observe(class: PvarClass, v: &mut Value, world: &Value, faults: &Faults) {
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
pub(super) fn fit(mut v: Value, count: usize) -> Value {
    match &mut v {
        Value::Ints(xs) => xs.resize(count, 0),
        Value::Doubles(xs) => xs.resize(count, 0.0),
        Value::Chars(_) => {}
    }
    v
}
