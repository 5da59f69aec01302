//! R-PCLASS and R-PSTART-1: what a handle of each class reads as the simulated world
//! moves, started, stopped, continuous and reset; and the simulation is deterministic.

use super::{alloc, every_pvar_bound, idx, model, num};
use crate::faults::Faults;
use crate::model::{BoundObject, Model, PvarHandle, PvarTarget};
use mpit_vocab::spec::{Datatype, PvarClass, TErr};
use mpit_vocab::value::Value;

use PvarTarget::{All, One};

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

/// Runs are reproducible: no clocks, no randomness.
#[test]
fn simulation_is_deterministic() {
    let run = || {
        let (mut m, s, hs) = every_pvar_bound();
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
