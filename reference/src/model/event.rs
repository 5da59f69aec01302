//! MPI-4.1 §15.3.8: event sources, event types, registrations, callbacks, dropped-event
//! handlers and callback-only instance access.
//!
//! Callbacks are C function pointers and `user_data` is a C pointer: the model keeps both
//! as opaque `usize` tokens and never calls them. Raising an event returns the
//! [`Delivery`]s the C ABI must run, in order, *outside* the model's lock (a callback may
//! call MPI_T functions, e.g. `MPI_T_event_read`), then `end_delivery` for each instance.
//!
//! Time is a deterministic virtual clock (one tick per timestamp taken and per event
//! raised), so runs are reproducible and ORDERED sources give strictly increasing
//! timestamps. Event data are derived from a per-event-type sequence number.

use super::{BoundObject, EnumHandle, InfoHandle, Instance, Model, Registration, Registry};
use crate::faults::Fault;
use mpit_vocab::catalog::Event;
use mpit_vocab::spec::{Bind, CbSafety, Datatype, SourceOrder, TErr, TResult, Verbosity};
use mpit_vocab::value::Value;
use std::collections::BTreeMap;

/// What `MPI_T_source_get_info` returns besides the info object.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceInfo {
    pub name: String,
    pub desc: Option<String>,
    pub ordering: SourceOrder,
    pub ticks_per_second: i64,
    pub max_ticks: i64,
}

/// What `MPI_T_event_get_info` returns besides the info object.
#[derive(Debug, Clone, PartialEq)]
pub struct EventInfo {
    pub name: String,
    pub verbosity: Verbosity,
    pub datatypes: Vec<Datatype>,
    /// Byte offsets, ascending from 0.
    pub displacements: Vec<i64>,
    pub enumtype: EnumHandle,
    pub desc: Option<String>,
    pub bind: Bind,
}

/// A callback the C ABI must invoke, outside the model's lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// `event_cb_function(instance, registration, safety, user_data)`.
    Event {
        cb: usize,
        instance: Instance,
        registration: Registration,
        safety: CbSafety,
        user_data: usize,
    },
    /// `dropped_cb_function(count, registration, source_index, safety, user_data)`.
    Dropped {
        cb: usize,
        count: i64,
        registration: Registration,
        source_index: i32,
        safety: CbSafety,
        user_data: usize,
    },
    /// `free_cb_function(registration, safety, user_data)`.
    Free {
        cb: usize,
        registration: Registration,
        safety: CbSafety,
        user_data: usize,
    },
}

/// Hints as an info object holds them.
type Hints = BTreeMap<String, String>;

/// One callback slot of a registration (one per safety level).
#[derive(Debug, Clone)]
struct CbSlot {
    cb: usize,
    user_data: usize,
    hints: Hints,
}

#[derive(Debug, Clone)]
struct RegState {
    /// Catalog slot of the event type.
    event: usize,
    /// Hints in force for the registration (alloc, then merged by set_info).
    hints: Hints,
    /// Indexed by `CbSafety as usize` (NONE .. ASYNC_SIGNAL_SAFE).
    callbacks: [Option<CbSlot>; 4],
    dropped_cb: Option<usize>,
    /// Drops recorded per source index since the handler was set or last invoked.
    dropped: BTreeMap<usize, i64>,
}

#[derive(Debug, Clone)]
struct InstState {
    event: usize,
    source: usize,
    seq: u64,
    timestamp: i64,
    safety: CbSafety,
    /// Between `raise_event` and `end_delivery` (ended ones are only kept under fault
    /// `event-read-outside-callback`).
    active: bool,
}

#[derive(Debug, Default, Clone)]
pub(super) struct EventState {
    regs: Registry<Registration, RegState>,
    instances: Registry<Instance, InstState>,
    /// Virtual clock in ticks; survives finalize so ORDERED sources keep increasing.
    clock: u64,
    /// Per event type: how many instances were raised (the data's sequence number).
    seq: BTreeMap<usize, u64>,
}

impl EventState {
    /// Invalidate every registration (full MPI_T finalize).
    pub(super) fn clear_registrations(&mut self) {
        self.regs.clear();
        self.instances.clear();
    }

    /// One tick of the virtual clock.
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }
}

/// The timestamp of clock value `t` on a source that overflows after `max_ticks`.
fn ticks_on(t: u64, max_ticks: i64) -> i64 {
    match u64::try_from(max_ticks) {
        // m <= i64::MAX, so m + 1 cannot overflow.
        Ok(m) => (t % (m + 1)) as i64,
        Err(_) => t as i64,
    }
}

/// The data of element `k` of the `seq`-th instance of `e`: MPI_INT elements of an event
/// with an enumtype cycle through the enum's item values, other integers are
/// `seq × (k+1)`, doubles `seq + (k+1)/4`, chars a letter.
fn element_value(m: &Model, e: &Event, seq: u64, k: usize) -> Value {
    let dt = e.elements[k].datatype;
    let seq_k = seq.wrapping_add(k as u64);
    match dt {
        Datatype::Double => Value::Doubles(vec![seq as f64 + (k as f64 + 1.0) / 4.0]),
        Datatype::Char => Value::Chars(char::from(b'a' + (seq_k % 26) as u8).to_string()),
        Datatype::Int => {
            let items = e
                .enumtype
                .as_ref()
                .and_then(|n| m.cat.enums.iter().find(|en| &en.name == n))
                .map(|en| &en.items);
            match items {
                Some(items) if !items.is_empty() => {
                    let it = &items[(seq_k % items.len() as u64) as usize];
                    Value::Ints(vec![it.value as i128])
                }
                _ => Value::Ints(vec![seq as i128 * (k as i128 + 1)]),
            }
        }
        _ => Value::Ints(vec![seq as i128 * (k as i128 + 1)]),
    }
}

impl Model {
    fn source_visible(&self) -> usize {
        self.visible_count(&self.cat.sources, |s| s.appears)
    }

    fn event_visible(&self) -> usize {
        self.visible_count(&self.cat.events, |e| e.appears)
    }

    /// Source index of an event type (validated: every event names a known source).
    fn event_source(&self, e: usize) -> usize {
        let name = &self.cat.events[e].source;
        self.cat
            .sources
            .iter()
            .position(|s| &s.name == name)
            .unwrap_or(0)
    }

    /// The current time of source `s`, advancing the virtual clock.
    fn stamp(&mut self, s: usize) -> i64 {
        let t = self.event.tick();
        ticks_on(t, self.cat.sources[s].max_ticks)
    }

    fn reg(&self, r: Registration) -> TResult<&RegState> {
        self.require_init()?;
        self.event.regs.get(&r).ok_or(TErr::InvalidHandle)
    }

    fn reg_mut(&mut self, r: Registration) -> TResult<&mut RegState> {
        self.require_init()?;
        self.event.regs.get_mut(&r).ok_or(TErr::InvalidHandle)
    }

    /// An instance the caller may read: one being delivered now (R-EVT-INST: valid only
    /// during that invocation), or any not cleared under fault `event-read-outside-callback`.
    fn instance(&self, inst: Instance) -> TResult<&InstState> {
        self.require_init()?;
        match self.event.instances.get(&inst) {
            Some(st) if st.active || self.fault(Fault::EventReadOutsideCallback) => Ok(st),
            _ => Err(TErr::InvalidHandle),
        }
    }

    /// `MPI_T_source_get_num`.
    pub fn source_get_num(&self) -> TResult<i32> {
        self.require_init()?;
        Ok(self.source_visible() as i32)
    }

    /// `MPI_T_source_get_info`; with `want_info`, a new info object (MPI_INFO_NULL never).
    pub fn source_get_info(
        &mut self,
        i: i32,
        want_info: bool,
    ) -> TResult<(SourceInfo, Option<InfoHandle>)> {
        self.require_init()?;
        let i = self.index(i, self.source_visible())?;
        let s = &self.cat.sources[i];
        let out = SourceInfo {
            name: s.name.clone(),
            desc: s.desc.clone(),
            ordering: s.ordering,
            ticks_per_second: s.ticks_per_second,
            max_ticks: s.max_ticks,
        };
        // R-SRC-INFO: a new info object each call, empty if there are no hints.
        let info = want_info.then(|| self.info_new_from(self.cat.sources[i].info.clone()));
        Ok((out, info))
    }

    /// `MPI_T_source_get_timestamp`.
    pub fn source_get_timestamp(&mut self, i: i32) -> TResult<i64> {
        self.require_init()?;
        let i = self.index(i, self.source_visible())?;
        if !self.cat.sources[i].timestamps && !self.fault(Fault::SourceTimestampUnsupportedSucceeds)
        {
            // R-SRC-TS: no ad-hoc timestamps → NOT_SUPPORTED.
            return Err(TErr::NotSupported);
        }
        Ok(self.stamp(i))
    }

    /// `MPI_T_event_get_num`.
    pub fn event_get_num(&self) -> TResult<i32> {
        self.require_init()?;
        Ok(self.event_visible() as i32)
    }

    /// `MPI_T_event_get_info`; with `want_info`, a new info object (`None` under fault
    /// `event-info-null`, which the C ABI writes as MPI_INFO_NULL).
    pub fn event_get_info(
        &mut self,
        i: i32,
        want_info: bool,
    ) -> TResult<(EventInfo, Option<InfoHandle>)> {
        self.require_init()?;
        // R-EVT-IDX: bad index → INVALID_INDEX (explicit).
        let i = self.index(i, self.event_visible())?;
        let e = &self.cat.events[i];
        let out = EventInfo {
            name: e.name.clone(),
            verbosity: e.verbosity,
            datatypes: e.elements.iter().map(|el| el.datatype).collect(),
            displacements: e.displacements(),
            enumtype: self.enum_handle(&e.enumtype),
            desc: e.desc.clone(),
            bind: e.bind,
        };
        let info = if want_info && !self.fault(Fault::EventInfoNull) {
            Some(self.info_new_from(self.cat.events[i].info.clone()))
        } else {
            None
        };
        Ok((out, info))
    }

    /// `MPI_T_event_get_index`.
    pub fn event_get_index(&self, name: &str) -> TResult<i32> {
        self.require_init()?;
        let n = self.event_visible();
        let i = self.cat.events[..n]
            .iter()
            .position(|e| e.name == name)
            .ok_or(TErr::InvalidName)?;
        Ok(i as i32)
    }

    /// `MPI_T_event_handle_alloc`.
    pub fn event_handle_alloc(
        &mut self,
        i: i32,
        obj: BoundObject,
        info: Option<InfoHandle>,
    ) -> TResult<Registration> {
        self.require_init()?;
        let i = self.index(i, self.event_visible())?;
        self.check_binding(self.cat.events[i].bind, obj)?;
        let hints = self.info_entries(info)?;
        let r = Registration(self.new_id());
        self.event.regs.insert(
            r,
            RegState {
                event: i,
                hints,
                callbacks: Default::default(),
                dropped_cb: None,
                dropped: BTreeMap::new(),
            },
        );
        Ok(r)
    }

    /// `MPI_T_event_handle_set_info`.
    pub fn event_handle_set_info(
        &mut self,
        r: Registration,
        info: Option<InfoHandle>,
    ) -> TResult<()> {
        self.reg(r)?;
        let hints = self.info_entries(info)?;
        // MPI-4.1 §15.3.8: no effect on hints not in `info`.
        self.reg_mut(r)?.hints.extend(hints);
        Ok(())
    }

    /// `MPI_T_event_handle_get_info`: a new info object.
    pub fn event_handle_get_info(&mut self, r: Registration) -> TResult<InfoHandle> {
        let hints = self.reg(r)?.hints.clone();
        Ok(self.info_new_from(hints))
    }

    /// `MPI_T_event_register_callback`; `cb: None` removes the callback of that level.
    pub fn event_register_callback(
        &mut self,
        r: Registration,
        safety: CbSafety,
        info: Option<InfoHandle>,
        user_data: usize,
        cb: Option<usize>,
    ) -> TResult<()> {
        self.reg(r)?;
        let hints = self.info_entries(info)?;
        // R-EVT-CB: one slot per level; re-registering overwrites; NULL removes.
        self.reg_mut(r)?.callbacks[safety as usize] = cb.map(|cb| CbSlot {
            cb,
            user_data,
            hints,
        });
        Ok(())
    }

    /// `MPI_T_event_callback_set_info`.
    pub fn event_callback_set_info(
        &mut self,
        r: Registration,
        safety: CbSafety,
        info: Option<InfoHandle>,
    ) -> TResult<()> {
        self.reg(r)?;
        let hints = self.info_entries(info)?;
        // With no callback at that level there are no hints to update: no effect.
        if let Some(slot) = &mut self.reg_mut(r)?.callbacks[safety as usize] {
            slot.hints.extend(hints);
        }
        Ok(())
    }

    /// `MPI_T_event_callback_get_info`: a new info object.
    pub fn event_callback_get_info(
        &mut self,
        r: Registration,
        safety: CbSafety,
    ) -> TResult<InfoHandle> {
        // A level with no callback has no hints: a new, empty info object.
        let hints = self.reg(r)?.callbacks[safety as usize]
            .as_ref()
            .map(|s| s.hints.clone())
            .unwrap_or_default();
        Ok(self.info_new_from(hints))
    }

    /// `MPI_T_event_handle_free`: the free callback to run (if any).
    pub fn event_handle_free(
        &mut self,
        r: Registration,
        user_data: usize,
        free_cb: Option<usize>,
    ) -> TResult<Vec<Delivery>> {
        self.require_init()?;
        // R-EVT-FREE: INVALID_HANDLE if not a valid allocated registration (explicit).
        self.event.regs.remove(&r).ok_or(TErr::InvalidHandle)?;
        // Called from inside a callback, the free callback inherits that context's level.
        let safety = self
            .event
            .instances
            .values()
            .filter(|i| i.active)
            .map(|i| i.safety)
            .max()
            .unwrap_or(CbSafety::None);
        Ok(free_cb
            .map(|cb| Delivery::Free {
                cb,
                registration: r,
                safety,
                user_data,
            })
            .into_iter()
            .collect())
    }

    /// `MPI_T_event_set_dropped_handler`; `None` disables.
    pub fn event_set_dropped_handler(&mut self, r: Registration, cb: Option<usize>) -> TResult<()> {
        let reg = self.reg_mut(r)?;
        reg.dropped_cb = cb;
        // R-EVT-DROP: the count runs from when the handler was set; NULL stops recording.
        reg.dropped.clear();
        Ok(())
    }

    /// `MPI_T_event_read`: element `element` of a live instance.
    pub fn event_read(&self, inst: Instance, element: i32) -> TResult<Vec<u8>> {
        let st = self.instance(inst)?;
        let e = &self.cat.events[st.event];
        let k = self.index(element, e.elements.len())?;
        Ok(element_value(self, e, st.seq, k).to_bytes(e.elements[k].datatype, 1))
    }

    /// `MPI_T_event_copy`: the whole event data (extent bytes).
    pub fn event_copy(&self, inst: Instance) -> TResult<Vec<u8>> {
        let st = self.instance(inst)?;
        let e = &self.cat.events[st.event];
        let mut out = vec![0u8; e.extent()];
        for (k, d) in e.displacements().into_iter().enumerate() {
            let bytes = element_value(self, e, st.seq, k).to_bytes(e.elements[k].datatype, 1);
            let d = d as usize;
            out[d..d + bytes.len()].copy_from_slice(&bytes);
        }
        Ok(out)
    }

    /// `MPI_T_event_get_timestamp`.
    pub fn event_get_timestamp(&self, inst: Instance) -> TResult<i64> {
        Ok(self.instance(inst)?.timestamp)
    }

    /// `MPI_T_event_get_source`.
    pub fn event_get_source(&self, inst: Instance) -> TResult<i32> {
        Ok(self.instance(inst)?.source as i32)
    }

    /// Reference-only hook (`MPIT_Reference_raise_event`): the implementation observes one
    /// event of type `i` in a context that requires `required` safety; returns the
    /// callbacks to run in order.
    pub fn raise_event(&mut self, i: i32, required: CbSafety) -> TResult<Vec<Delivery>> {
        self.require_init()?;
        let i = self.index(i, self.event_visible())?;
        let source = self.event_source(i);
        let timestamp = self.stamp(source);
        let seq = {
            let n = self.event.seq.entry(i).or_insert(0);
            *n += 1;
            *n
        };
        let regs: Vec<Registration> = self
            .event
            .regs
            .iter()
            .filter(|(_, st)| st.event == i)
            .map(|(r, _)| *r)
            .collect();
        let mut out = Vec::new();
        for r in regs {
            let Some(reg) = self.event.regs.get_mut(&r) else {
                continue;
            };
            if reg.callbacks.iter().all(Option::is_none) {
                // Not yet active: events are raised once a callback is registered.
                continue;
            }
            // R-EVT-CB: the registered callback with the lowest level valid here.
            let pick = CbSafety::ALL
                .iter()
                .filter(|l| **l >= required)
                .find_map(|l| reg.callbacks[*l as usize].clone().map(|s| (*l, s)));
            let Some((level, slot)) = pick else {
                // Dropped; recorded only while a handler is set (R-EVT-DROP).
                if reg.dropped_cb.is_some() {
                    let c = reg.dropped.entry(source).or_insert(0);
                    *c = c.saturating_add(1);
                }
                continue;
            };
            // The `cb_safety` passed to both the event and the dropped callback: the level the
            // selected callback was registered for (always valid here, being >= required).
            let safety = level;
            let dropped = match (reg.dropped_cb, reg.dropped.remove(&source)) {
                (Some(cb), Some(count)) if count > 0 => Some(Delivery::Dropped {
                    cb,
                    count,
                    registration: r,
                    source_index: source as i32,
                    safety,
                    // 4.0 errata: the user_data of the callback being invoked.
                    user_data: slot.user_data,
                }),
                _ => None,
            };
            let instance = Instance(self.new_id());
            self.event.instances.insert(
                instance,
                InstState {
                    event: i,
                    source,
                    seq,
                    timestamp,
                    safety,
                    active: true,
                },
            );
            let ev = Delivery::Event {
                cb: slot.cb,
                instance,
                registration: r,
                safety,
                user_data: slot.user_data,
            };
            // R-EVT-DROP (must): the dropped handler runs before the next event of the source.
            if self.fault(Fault::DroppedAfterEvent) {
                out.push(ev);
                out.extend(dropped);
            } else {
                out.extend(dropped);
                out.push(ev);
            }
        }
        Ok(out)
    }

    /// After the C ABI ran an `Event` delivery: its instance is no longer valid.
    pub fn end_delivery(&mut self, inst: Instance) {
        if self.fault(Fault::EventReadOutsideCallback) {
            if let Some(st) = self.event.instances.get_mut(&inst) {
                st.active = false;
            }
        } else {
            self.event.instances.remove(&inst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Delivery;
    use crate::faults::{Fault, Faults};
    use crate::model::{BoundObject, Instance, Model, Registration};
    use mpit_vocab::catalog::Catalog;
    use mpit_vocab::spec::{Bind, CbSafety, Datatype, SourceOrder, TErr, ThreadLevel};
    use proptest::prelude::*;

    const SEND: &str = "ref_event_send";
    const STATE: &str = "ref_event_state";
    const PROGRESS: i32 = 0;
    const NETWORK: i32 = 1;
    const DROPPED_CB: usize = 0xD0;

    fn model(f: Faults) -> Model {
        let mut m = Model::new(Catalog::default_catalog(), f);
        m.init_thread(ThreadLevel::Single).unwrap();
        m
    }

    fn idx(m: &Model, name: &str) -> i32 {
        m.event_get_index(name).unwrap()
    }

    /// A registration of `name` with one callback (`cb`, user_data `cb + 1`) at `level`.
    fn reg(m: &mut Model, name: &str, level: CbSafety, cb: usize) -> Registration {
        let r = m
            .event_handle_alloc(idx(m, name), BoundObject::None, None)
            .unwrap();
        m.event_register_callback(r, level, None, cb + 1, Some(cb))
            .unwrap();
        r
    }

    /// Raises one event and ends every delivery, as the C ABI does.
    fn raise(m: &mut Model, name: &str, required: CbSafety) -> Vec<Delivery> {
        let d = m.raise_event(idx(m, name), required).unwrap();
        for x in &d {
            if let Delivery::Event { instance, .. } = x {
                m.end_delivery(*instance);
            }
        }
        d
    }

    fn event_cb(d: &Delivery) -> Option<usize> {
        match d {
            Delivery::Event { cb, .. } => Some(*cb),
            _ => None,
        }
    }

    fn instance_of(d: &[Delivery]) -> Instance {
        d.iter()
            .find_map(|x| match x {
                Delivery::Event { instance, .. } => Some(*instance),
                _ => None,
            })
            .expect("an event delivery")
    }

    /// R-SRC-INFO, R-EVT-INFO: every info OUT argument is a NEW info object (never
    /// MPI_INFO_NULL), holding the catalog's or the user's hints.
    #[test]
    fn info_objects_are_new_on_every_call() {
        let mut m = model(Faults::none());
        let live = m.info_live();
        let (_, a) = m.source_get_info(PROGRESS, true).unwrap();
        let (_, b) = m.source_get_info(PROGRESS, true).unwrap();
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_ne!(a, b);
        assert_eq!(m.info_live(), live + 2);
        assert_eq!(
            m.info_get(a, "ref_hint").unwrap().as_deref(),
            Some("progress")
        );
        let (_, empty) = m.source_get_info(NETWORK, true).unwrap();
        assert_eq!(
            m.info_nkeys(empty.expect("empty, not MPI_INFO_NULL")),
            Ok(0)
        );
        assert_eq!(m.source_get_info(PROGRESS, false).unwrap().1, None);
        assert_eq!(m.info_live(), live + 3);

        let send = idx(&m, SEND);
        let (_, e1) = m.event_get_info(send, true).unwrap();
        let (_, e2) = m.event_get_info(send, true).unwrap();
        assert_ne!(e1, e2);
        assert_eq!(
            m.info_get(e1.unwrap(), "ref_event_hint")
                .unwrap()
                .as_deref(),
            Some("send")
        );
        let (_, e3) = m.event_get_info(idx(&m, STATE), true).unwrap();
        assert_eq!(m.info_nkeys(e3.unwrap()), Ok(0));
        assert_eq!(m.event_get_info(send, false).unwrap().1, None);
        assert_eq!(m.info_live(), live + 6);

        let r = reg(&mut m, SEND, CbSafety::None, 0x10);
        let h1 = m.event_handle_get_info(r).unwrap();
        let h2 = m.event_handle_get_info(r).unwrap();
        let c1 = m.event_callback_get_info(r, CbSafety::None).unwrap();
        let c2 = m.event_callback_get_info(r, CbSafety::None).unwrap();
        assert!(h1 != h2 && c1 != c2 && h1 != c1);
        assert_eq!(m.info_live(), live + 10);
    }

    /// R-EVT-INFO, R-EVT-CB: set_info only adds or changes the hints it names; get_info
    /// reports the hints in force; callback hints are per level and re-registering
    /// replaces them.
    #[test]
    fn handle_and_callback_hints() {
        let mut m = model(Faults::none());
        let i = m.info_create();
        m.info_set(i, "a", "1").unwrap();
        m.info_set(i, "b", "2").unwrap();
        let r = m
            .event_handle_alloc(idx(&m, SEND), BoundObject::None, Some(i))
            .unwrap();
        let j = m.info_create();
        m.info_set(j, "b", "3").unwrap();
        m.event_handle_set_info(r, Some(j)).unwrap();
        m.event_handle_set_info(r, None).unwrap();
        let got = m.event_handle_get_info(r).unwrap();
        assert_eq!(m.info_get(got, "a").unwrap().as_deref(), Some("1"));
        assert_eq!(m.info_get(got, "b").unwrap().as_deref(), Some("3"));

        m.event_register_callback(r, CbSafety::ThreadSafe, Some(i), 0, Some(0x20))
            .unwrap();
        m.event_callback_set_info(r, CbSafety::ThreadSafe, Some(j))
            .unwrap();
        let c = m.event_callback_get_info(r, CbSafety::ThreadSafe).unwrap();
        assert_eq!(m.info_get(c, "a").unwrap().as_deref(), Some("1"));
        assert_eq!(m.info_get(c, "b").unwrap().as_deref(), Some("3"));
        // Re-registering overwrites the info too.
        m.event_register_callback(r, CbSafety::ThreadSafe, None, 0, Some(0x21))
            .unwrap();
        let c = m.event_callback_get_info(r, CbSafety::ThreadSafe).unwrap();
        assert_eq!(m.info_nkeys(c), Ok(0));
        // A level without a callback: set_info has no effect, get_info a new empty object.
        m.event_callback_set_info(r, CbSafety::None, Some(i))
            .unwrap();
        let c = m.event_callback_get_info(r, CbSafety::None).unwrap();
        assert_eq!(m.info_nkeys(c), Ok(0));
        // An info handle that is not a live info object is refused.
        m.info_free(j).unwrap();
        assert_eq!(m.event_handle_set_info(r, Some(j)), Err(TErr::Invalid));
        assert_eq!(
            m.event_callback_set_info(r, CbSafety::None, Some(j)),
            Err(TErr::Invalid)
        );
        assert_eq!(
            m.event_register_callback(r, CbSafety::None, Some(j), 0, Some(1)),
            Err(TErr::Invalid)
        );
        assert_eq!(
            m.event_handle_alloc(0, BoundObject::None, Some(j)),
            Err(TErr::Invalid)
        );
    }

    /// R-EVT-1, R-EVT-ELEM, R-EVT-IDX: get_info is immutable; displacements ascend from
    /// 0, one per datatype; a bad index is INVALID_INDEX.
    #[test]
    fn displacements_ascend_from_zero_and_info_is_immutable() {
        let mut m = model(Faults::none());
        m.mpi_init().unwrap();
        let n = m.event_get_num().unwrap();
        assert_eq!(n as usize, m.catalog().events.len());
        for i in 0..n {
            let (a, _) = m.event_get_info(i, false).unwrap();
            assert_eq!(m.event_get_info(i, false).unwrap().0, a);
            assert_eq!(a.displacements.len(), a.datatypes.len());
            assert_eq!(a.displacements.first(), Some(&0), "{}", a.name);
            assert!(
                a.displacements.windows(2).all(|w| w[0] < w[1]),
                "{}",
                a.name
            );
        }
        let (st, _) = m.event_get_info(idx(&m, STATE), false).unwrap();
        assert_eq!(st.datatypes, [Datatype::Int, Datatype::Double]);
        assert_eq!(st.displacements, [0, 8]);
        assert_ne!(st.enumtype.0, 0);
        assert_eq!(
            m.event_get_info(idx(&m, SEND), false).unwrap().0.enumtype.0,
            0
        );
        assert_eq!(m.event_get_info(n, false).unwrap_err(), TErr::InvalidIndex);
        assert_eq!(m.event_get_info(-1, false).unwrap_err(), TErr::InvalidIndex);
        assert_eq!(m.source_get_info(2, false).unwrap_err(), TErr::InvalidIndex);
    }

    /// R-EVT-IDX, R-EVT-1: get_index(name of i) == i; unknown → INVALID_NAME; events
    /// that appear at MPI_Init are appended.
    #[test]
    fn index_round_trip() {
        let mut m = model(Faults::none());
        let before = m.event_get_num().unwrap();
        assert_eq!(
            m.event_get_index("ref_event_after_init"),
            Err(TErr::InvalidName)
        );
        m.mpi_init().unwrap();
        assert_eq!(m.event_get_num().unwrap(), before + 1);
        for i in 0..m.event_get_num().unwrap() {
            let name = m.event_get_info(i, false).unwrap().0.name;
            assert_eq!(m.event_get_index(&name), Ok(i));
        }
        assert_eq!(m.event_get_index("no_such_event"), Err(TErr::InvalidName));
        assert_eq!(m.source_get_num(), Ok(2));
        let (s, _) = m.source_get_info(PROGRESS, false).unwrap();
        assert_eq!(
            (s.name.as_str(), s.ordering),
            ("ref_source_progress", SourceOrder::Ordered)
        );
    }

    /// R-SRC-TS, R-EVT-TS: bad index → INVALID_INDEX; no ad-hoc timestamps → NOT_SUPPORTED;
    /// ORDERED sources give increasing timestamps (ad hoc and on events alike).
    #[test]
    fn source_timestamp_codes_and_order() {
        let mut m = model(Faults::none());
        assert_eq!(m.source_get_timestamp(2), Err(TErr::InvalidIndex));
        assert_eq!(m.source_get_timestamp(-1), Err(TErr::InvalidIndex));
        assert_eq!(m.source_get_timestamp(NETWORK), Err(TErr::NotSupported));
        let r = reg(&mut m, SEND, CbSafety::None, 0x10);
        let mut last = m.source_get_timestamp(PROGRESS).unwrap();
        for _ in 0..5 {
            let d = m.raise_event(idx(&m, SEND), CbSafety::None).unwrap();
            let inst = instance_of(&d);
            let ts = m.event_get_timestamp(inst).unwrap();
            assert_eq!(m.event_get_source(inst), Ok(PROGRESS));
            m.end_delivery(inst);
            assert!(ts > last);
            let now = m.source_get_timestamp(PROGRESS).unwrap();
            assert!(now > ts);
            last = now;
        }
        m.event_handle_free(r, 0, None).unwrap();
    }

    /// R-EVT-CB: the callback with the lowest level >= the required one is invoked;
    /// re-registering overwrites (function and user_data); a NULL function removes.
    #[test]
    fn callback_selection_overwrite_and_removal() {
        let mut m = model(Faults::none());
        let r = reg(&mut m, SEND, CbSafety::MpiRestricted, 0x10);
        m.event_register_callback(r, CbSafety::AsyncSignalSafe, None, 0x41, Some(0x40))
            .unwrap();
        let pick = |m: &mut Model, req| event_cb(&raise(m, SEND, req)[0]);
        assert_eq!(pick(&mut m, CbSafety::None), Some(0x10));
        assert_eq!(pick(&mut m, CbSafety::MpiRestricted), Some(0x10));
        assert_eq!(pick(&mut m, CbSafety::ThreadSafe), Some(0x40));
        assert_eq!(pick(&mut m, CbSafety::AsyncSignalSafe), Some(0x40));
        let d = raise(&mut m, SEND, CbSafety::None);
        assert!(
            matches!(d[..], [Delivery::Event { registration, safety: CbSafety::MpiRestricted, user_data: 0x11, .. }] if registration == r)
        );

        m.event_register_callback(r, CbSafety::MpiRestricted, None, 0x99, Some(0x30))
            .unwrap();
        let d = raise(&mut m, SEND, CbSafety::None);
        assert!(matches!(
            d[..],
            [Delivery::Event {
                cb: 0x30,
                user_data: 0x99,
                ..
            }]
        ));

        m.event_register_callback(r, CbSafety::MpiRestricted, None, 0, None)
            .unwrap();
        assert_eq!(pick(&mut m, CbSafety::None), Some(0x40));
        m.event_register_callback(r, CbSafety::AsyncSignalSafe, None, 0, None)
            .unwrap();
        assert!(raise(&mut m, SEND, CbSafety::None).is_empty());
        // Only registrations of the raised event type see it.
        let other = reg(&mut m, STATE, CbSafety::None, 0x50);
        assert!(raise(&mut m, SEND, CbSafety::None).is_empty());
        assert_eq!(
            event_cb(&raise(&mut m, STATE, CbSafety::None)[0]),
            Some(0x50)
        );
        m.event_handle_free(other, 0, None).unwrap();
    }

    /// R-EVT-DROP (must): drops since the last notification are reported before the next
    /// event of that source, with the user_data of the callback being invoked (4.0 errata).
    #[test]
    fn dropped_handler_runs_before_next_event() {
        let mut m = model(Faults::none());
        let r = reg(&mut m, SEND, CbSafety::MpiRestricted, 0x10);
        m.event_set_dropped_handler(r, Some(DROPPED_CB)).unwrap();
        let e1 = raise(&mut m, SEND, CbSafety::None);
        assert_eq!(e1.len(), 1, "E1 delivered, nothing dropped yet");
        assert!(
            raise(&mut m, SEND, CbSafety::ThreadSafe).is_empty(),
            "E2 dropped"
        );
        assert!(
            raise(&mut m, SEND, CbSafety::AsyncSignalSafe).is_empty(),
            "E3 dropped"
        );
        let e4 = raise(&mut m, SEND, CbSafety::MpiRestricted);
        assert_eq!(e4.len(), 2);
        assert_eq!(
            e4[0],
            Delivery::Dropped {
                cb: DROPPED_CB,
                count: 2,
                registration: r,
                source_index: PROGRESS,
                safety: CbSafety::MpiRestricted,
                user_data: 0x11,
            }
        );
        assert_eq!(event_cb(&e4[1]), Some(0x10));
        assert_eq!(
            raise(&mut m, SEND, CbSafety::None).len(),
            1,
            "count reset after reporting"
        );
    }

    /// R-EVT-DROP: a NULL handler disables recording; a (new) handler counts from when it
    /// was set; a registration with no callbacks at all neither delivers nor drops.
    #[test]
    fn dropped_recording_follows_the_handler() {
        let mut m = model(Faults::none());
        let r = reg(&mut m, SEND, CbSafety::None, 0x10);
        assert!(raise(&mut m, SEND, CbSafety::ThreadSafe).is_empty());
        m.event_set_dropped_handler(r, Some(DROPPED_CB)).unwrap();
        assert_eq!(
            raise(&mut m, SEND, CbSafety::None).len(),
            1,
            "drops before the handler are not counted"
        );
        raise(&mut m, SEND, CbSafety::ThreadSafe);
        m.event_set_dropped_handler(r, None).unwrap();
        raise(&mut m, SEND, CbSafety::ThreadSafe);
        m.event_set_dropped_handler(r, Some(DROPPED_CB + 1))
            .unwrap();
        raise(&mut m, SEND, CbSafety::ThreadSafe);
        let d = raise(&mut m, SEND, CbSafety::None);
        assert!(
            matches!(
                d[0],
                Delivery::Dropped {
                    cb: 0xD1,
                    count: 1,
                    ..
                }
            ),
            "{d:?}"
        );
        m.event_register_callback(r, CbSafety::None, None, 0, None)
            .unwrap();
        raise(&mut m, SEND, CbSafety::ThreadSafe);
        m.event_register_callback(r, CbSafety::None, None, 0, Some(0x10))
            .unwrap();
        assert_eq!(raise(&mut m, SEND, CbSafety::None).len(), 1);
    }

    /// R-EVT-INST, R-EVT-ELEM: an instance is valid only during its callback; element data
    /// are laid out at the get_info displacements, padding zeroed.
    #[test]
    fn instance_valid_only_during_delivery() {
        let mut m = model(Faults::none());
        let r = reg(&mut m, STATE, CbSafety::None, 0x10);
        let d = m.raise_event(idx(&m, STATE), CbSafety::None).unwrap();
        let inst = instance_of(&d);
        let e0 = m.event_read(inst, 0).unwrap();
        let e1 = m.event_read(inst, 1).unwrap();
        assert_eq!((e0.len(), e1.len()), (4, 8));
        let copy = m.event_copy(inst).unwrap();
        assert_eq!(
            copy.len(),
            m.catalog().events[idx(&m, STATE) as usize].extent()
        );
        assert_eq!(&copy[0..4], &e0[..]);
        assert_eq!(&copy[4..8], &[0; 4], "padding");
        assert_eq!(&copy[8..16], &e1[..]);
        assert_eq!(m.event_get_source(inst), Ok(NETWORK));
        // The MPI_INT element of an enum-typed event is one of the enum's values.
        let en = &m
            .catalog()
            .enums
            .iter()
            .find(|e| e.name == "ref_enum_state")
            .unwrap()
            .items;
        assert!(en.iter().any(|it| it.value.to_ne_bytes() == e0[..]));
        assert_eq!(m.event_read(inst, 2), Err(TErr::InvalidIndex));
        assert_eq!(m.event_read(inst, -1), Err(TErr::InvalidIndex));
        m.end_delivery(inst);
        assert_eq!(m.event_read(inst, 0), Err(TErr::InvalidHandle));
        assert_eq!(m.event_copy(inst), Err(TErr::InvalidHandle));
        assert_eq!(m.event_get_timestamp(inst), Err(TErr::InvalidHandle));
        assert_eq!(m.event_get_source(inst), Err(TErr::InvalidHandle));
        m.end_delivery(inst);
        m.end_delivery(Instance(12345));
        assert_eq!(m.event_read(Instance(0), 0), Err(TErr::InvalidHandle));
        m.event_handle_free(r, 0, None).unwrap();
    }

    /// Event data and timestamps are reproducible, and differ between instances.
    #[test]
    fn event_data_is_deterministic() {
        let run = || {
            let mut m = model(Faults::none());
            reg(&mut m, SEND, CbSafety::None, 0x10);
            (0..3)
                .map(|_| {
                    let d = m.raise_event(idx(&m, SEND), CbSafety::None).unwrap();
                    let inst = instance_of(&d);
                    let out = (
                        m.event_copy(inst).unwrap(),
                        m.event_get_timestamp(inst).unwrap(),
                    );
                    m.end_delivery(inst);
                    out
                })
                .collect::<Vec<_>>()
        };
        let a = run();
        assert_eq!(a, run());
        assert_ne!(a[0].0, a[1].0);
        assert_eq!(&a[0].0[0..4], &1i32.to_ne_bytes());
        assert_eq!(&a[1].0[8..16], &6i64.to_ne_bytes());
    }

    /// R-EVT-FREE: free → INVALID_HANDLE the second time; the free callback is delivered
    /// once; no events afterwards; a NULL free callback is allowed.
    #[test]
    fn handle_free_once() {
        let mut m = model(Faults::none());
        let r = reg(&mut m, SEND, CbSafety::None, 0x10);
        m.event_set_dropped_handler(r, Some(DROPPED_CB)).unwrap();
        let d = m.event_handle_free(r, 0x77, Some(0xF0)).unwrap();
        assert_eq!(
            d,
            [Delivery::Free {
                cb: 0xF0,
                registration: r,
                safety: CbSafety::None,
                user_data: 0x77
            }]
        );
        assert_eq!(
            m.event_handle_free(r, 0x77, Some(0xF0)),
            Err(TErr::InvalidHandle)
        );
        assert!(raise(&mut m, SEND, CbSafety::None).is_empty());
        assert_eq!(
            m.event_register_callback(r, CbSafety::None, None, 0, Some(1)),
            Err(TErr::InvalidHandle)
        );
        assert_eq!(
            m.event_set_dropped_handler(r, None),
            Err(TErr::InvalidHandle)
        );
        assert_eq!(m.event_handle_get_info(r), Err(TErr::InvalidHandle));
        assert_eq!(
            m.event_callback_get_info(r, CbSafety::None),
            Err(TErr::InvalidHandle)
        );
        assert_eq!(
            m.event_handle_free(Registration(0), 0, None),
            Err(TErr::InvalidHandle)
        );
        let r2 = reg(&mut m, SEND, CbSafety::None, 0x10);
        assert_eq!(m.event_handle_free(r2, 0, None), Ok(vec![]));
    }

    /// R-EVT-FREE, R-EVT-INST: a registration freed from inside its callback: the
    /// instance being delivered stays readable, the free callback gets that context's
    /// level.
    #[test]
    fn handle_free_from_inside_a_callback() {
        let mut m = model(Faults::none());
        let r = reg(&mut m, SEND, CbSafety::ThreadSafe, 0x10);
        let d = m.raise_event(idx(&m, SEND), CbSafety::ThreadSafe).unwrap();
        let inst = instance_of(&d);
        let f = m.event_handle_free(r, 1, Some(0xF0)).unwrap();
        assert!(matches!(
            f[..],
            [Delivery::Free {
                safety: CbSafety::ThreadSafe,
                ..
            }]
        ));
        assert!(m.event_read(inst, 0).is_ok());
        m.end_delivery(inst);
        assert!(raise(&mut m, SEND, CbSafety::None).is_empty());
    }

    /// R-BIND-2 through check_binding; bad event index → INVALID_INDEX.
    #[test]
    fn handle_alloc_checks_index_and_binding() {
        let mut cat = Catalog::default_catalog();
        cat.events[0].bind = Bind::MpiComm;
        let mut m = Model::new(cat, Faults::none());
        m.init_thread(ThreadLevel::Single).unwrap();
        let n = m.event_get_num().unwrap();
        assert_eq!(
            m.event_handle_alloc(n, BoundObject::None, None),
            Err(TErr::InvalidIndex)
        );
        assert_eq!(
            m.event_handle_alloc(-1, BoundObject::None, None),
            Err(TErr::InvalidIndex)
        );
        assert_eq!(
            m.event_handle_alloc(0, BoundObject::CommWorld, None),
            Err(TErr::InvalidHandle)
        );
        m.mpi_init().unwrap();
        assert_eq!(
            m.event_handle_alloc(0, BoundObject::Null, None),
            Err(TErr::InvalidHandle)
        );
        assert!(m
            .event_handle_alloc(0, BoundObject::CommWorld, None)
            .is_ok());
        assert!(
            m.event_handle_alloc(1, BoundObject::Null, None).is_ok(),
            "NO_OBJECT ignores obj"
        );
    }

    /// R-INIT-1: every event call returns NOT_INITIALIZED before MPI_T_init_thread, and a
    /// full finalize invalidates registrations and instances.
    #[test]
    fn not_initialized_and_finalize_clears() {
        let mut m = Model::new(Catalog::default_catalog(), Faults::none());
        let ni: Result<(), TErr> = Err(TErr::NotInitialized);
        let (r, inst) = (Registration(0x1_0000), Instance(0x1_0000));
        assert_eq!(m.source_get_num().map(|_| ()), ni);
        assert_eq!(m.source_get_info(0, true).map(|_| ()), ni);
        assert_eq!(m.source_get_timestamp(0).map(|_| ()), ni);
        assert_eq!(m.event_get_num().map(|_| ()), ni);
        assert_eq!(m.event_get_info(0, true).map(|_| ()), ni);
        assert_eq!(m.event_get_index(SEND).map(|_| ()), ni);
        assert_eq!(
            m.event_handle_alloc(0, BoundObject::None, None).map(|_| ()),
            ni
        );
        assert_eq!(m.event_handle_set_info(r, None), ni);
        assert_eq!(m.event_handle_get_info(r).map(|_| ()), ni);
        assert_eq!(
            m.event_register_callback(r, CbSafety::None, None, 0, Some(1)),
            ni
        );
        assert_eq!(m.event_callback_set_info(r, CbSafety::None, None), ni);
        assert_eq!(m.event_callback_get_info(r, CbSafety::None).map(|_| ()), ni);
        assert_eq!(m.event_handle_free(r, 0, None).map(|_| ()), ni);
        assert_eq!(m.event_set_dropped_handler(r, None), ni);
        assert_eq!(m.event_read(inst, 0).map(|_| ()), ni);
        assert_eq!(m.event_copy(inst).map(|_| ()), ni);
        assert_eq!(m.event_get_timestamp(inst).map(|_| ()), ni);
        assert_eq!(m.event_get_source(inst).map(|_| ()), ni);
        assert_eq!(m.raise_event(0, CbSafety::None).map(|_| ()), ni);
        assert_eq!(m.info_live(), 0, "no info object created by failing calls");

        m.init_thread(ThreadLevel::Single).unwrap();
        let r = reg(&mut m, SEND, CbSafety::None, 0x10);
        let d = m.raise_event(idx(&m, SEND), CbSafety::None).unwrap();
        let inst = instance_of(&d);
        m.finalize().unwrap();
        m.init_thread(ThreadLevel::Single).unwrap();
        assert_eq!(m.event_read(inst, 0), Err(TErr::InvalidHandle));
        assert_eq!(m.event_handle_free(r, 0, None), Err(TErr::InvalidHandle));
        assert!(raise(&mut m, SEND, CbSafety::None).is_empty());
    }

    #[test]
    fn fault_event_info_null() {
        let mut m = model(Faults::one(Fault::EventInfoNull));
        let live = m.info_live();
        assert_eq!(m.event_get_info(0, true).unwrap().1, None);
        assert_eq!(m.info_live(), live);
        assert!(
            m.source_get_info(0, true).unwrap().1.is_some(),
            "only event_get_info is broken"
        );
    }

    #[test]
    fn fault_source_timestamp_unsupported_succeeds() {
        let mut m = model(Faults::one(Fault::SourceTimestampUnsupportedSucceeds));
        assert!(m.source_get_timestamp(NETWORK).is_ok());
        assert_eq!(m.source_get_timestamp(2), Err(TErr::InvalidIndex));
    }

    #[test]
    fn fault_dropped_after_event() {
        let mut m = model(Faults::one(Fault::DroppedAfterEvent));
        let r = reg(&mut m, SEND, CbSafety::None, 0x10);
        m.event_set_dropped_handler(r, Some(DROPPED_CB)).unwrap();
        raise(&mut m, SEND, CbSafety::ThreadSafe);
        let d = raise(&mut m, SEND, CbSafety::None);
        assert!(
            matches!(
                d[..],
                [Delivery::Event { .. }, Delivery::Dropped { count: 1, .. }]
            ),
            "{d:?}"
        );
    }

    #[test]
    fn fault_event_read_outside_callback() {
        let mut m = model(Faults::one(Fault::EventReadOutsideCallback));
        reg(&mut m, SEND, CbSafety::None, 0x10);
        let inst = instance_of(&raise(&mut m, SEND, CbSafety::None));
        assert!(m.event_read(inst, 0).is_ok());
        assert!(m.event_copy(inst).is_ok());
        assert!(m.event_get_timestamp(inst).is_ok());
    }

    proptest! {
        /// R-EVT-CB, R-EVT-DROP: with one callback at level `l` and a dropped handler, every
        /// raised instance is either delivered (iff required <= l) or counted as dropped,
        /// and the counts reported before deliveries add up.
        #[test]
        fn every_instance_is_delivered_or_counted(
            l in 0usize..4,
            reqs in proptest::collection::vec(0usize..4, 0..40),
        ) {
            let level = CbSafety::ALL[l];
            let mut m = model(Faults::none());
            let r = reg(&mut m, SEND, level, 0x10);
            m.event_set_dropped_handler(r, Some(DROPPED_CB)).unwrap();
            let (mut delivered, mut reported) = (0i64, 0i64);
            for q in reqs.iter().copied().chain([0]) {
                let d = raise(&mut m, SEND, CbSafety::ALL[q]);
                prop_assert_eq!(d.iter().filter(|x| event_cb(x).is_some()).count(), usize::from(q <= l));
                for x in &d {
                    match x {
                        Delivery::Event { safety, .. } => { delivered += 1; prop_assert_eq!(*safety, level); }
                        Delivery::Dropped { count, .. } => reported += count,
                        Delivery::Free { .. } => prop_assert!(false),
                    }
                }
            }
            prop_assert_eq!(delivered + reported, reqs.len() as i64 + 1);
        }
    }
}
