//! R-PCLASS over random start/stop/reset/simulate/read sequences (proptest).

use super::every_pvar_bound;
use crate::model::{Model, PvarTarget};
use mpit_vocab::spec::PvarClass;
use mpit_vocab::value::Value;
use proptest::prelude::*;

use PvarTarget::{All, One};

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
        let (mut m, s, hs) = every_pvar_bound();
        let n = hs.len() as i32;
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
