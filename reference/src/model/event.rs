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
mod tests;
