//! Events on the reference (MPI-4.1 §15.3.8): `MPIT_Reference_raise_event` raises one,
//! and the callbacks the recorder saw run (events delivered, dropped-handler calls, in
//! the order they ran) become the observation, with what each callback could read of
//! its instance (timestamp, source, elements). The sizes of an event type's elements,
//! what the recorder reads inside the callback, are `lower::OpLayout`'s.

use super::TargetEngine;
use crate::differential::obs::{Obs, Ran};
use crate::differential::op::Kind;
use crate::differential::HandleKind;
use crate::exec::calls::Outs;
use mpit_target::ffi;
use mpit_vocab::profile::ReturnCode;

/// Drops what the recorder saw before a raise: anything a callback recorded before (a
/// library thread) is not the next event's.
pub(super) fn forget_deliveries() {
    let _ = (
        ffi::take_deliveries(),
        ffi::take_dropped(),
        ffi::take_dropped_positions(),
    );
}

impl TargetEngine<'_> {
    /// After the reference's `MPIT_Reference_raise_event` of entry `index`: the
    /// callbacks the recorder saw it run (events and dropped-handler calls, in the
    /// order they ran).
    pub(super) fn delivered(&mut self, c: Outs, index: i32) -> Obs {
        let Some((rc, _)) = c else {
            return Obs::unsupported();
        };
        let events = ffi::take_deliveries();
        let dropped = ffi::take_dropped();
        let at = ffi::take_dropped_positions();
        let success = |rc: i32| self.t.rc(rc) == ReturnCode::Success;
        let mut ran = Vec::new();
        let mut drops = dropped.iter().zip(&at).peekable();
        for (k, d) in events.iter().enumerate() {
            while let Some(((tag, count, source), _)) = drops.next_if(|(_, p)| **p <= k) {
                ran.push(self.dropped(*tag, *count, *source));
            }
            let calls = d
                .timestamp
                .iter()
                .map(|x| x.0)
                .chain(d.source.iter().map(|x| x.0))
                .chain(d.elements.iter().map(|x| x.0))
                .chain(d.copy.iter().map(|x| x.0));
            ran.push(Ran::Event {
                tag: d.tag,
                safety: self.safety_position(d.safety),
                source: d
                    .source
                    .filter(|s| success(s.0))
                    .map(|s| self.m.model_index(Kind::Source, s.1).into()),
                elements: d
                    .elements
                    .iter()
                    .map(|(rc, b)| success(*rc).then(|| b.bytes.clone()))
                    .collect(),
                failed: calls.filter(|rc| !success(*rc)).count() as i64,
            });
            self.made(HandleKind::Instance, d.instance, index, 0);
        }
        for ((tag, count, source), _) in drops {
            ran.push(self.dropped(*tag, *count, *source));
        }
        Obs::deliveries(self.t.rc(rc), &ran)
    }

    fn dropped(&self, tag: usize, count: u64, source: i32) -> Ran {
        Ran::Dropped {
            tag,
            count: count as i64,
            source: self.m.model_index(Kind::Source, source).into(),
        }
    }

    /// A `cb_safety` value's position in `CbSafety::ALL` (-1: none of the four).
    fn safety_position(&self, raw: i32) -> i64 {
        self.t
            .profile
            .cb_safety
            .lookup(raw.into())
            .map_or(-1, |s| s as i64)
    }
}
