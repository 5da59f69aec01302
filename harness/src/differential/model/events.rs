//! The events on the model (MPI-4.1 §15.3.8): the calls on sources, registrations and
//! instances, and what the reference does when it raises an event (the target engine
//! observes the same in its `events`).

use super::{rc, ModelEngine};
use crate::differential::obs::{Obs, Out, Ran};
use crate::differential::op::Call;
use crate::differential::HandleKind;
use mpit_reference::model::{BoundObject, Delivery, Instance, Registration};
use mpit_spec::cases::funcs::Func;
use mpit_vocab::spec::CbSafety;

impl ModelEngine {
    /// The event sources' timestamps and the event types' registrations, callbacks
    /// and instances (MPI-4.1 §15.3.8), with the events the reference raises.
    pub(super) fn event_call(&mut self, c: &Call) -> Obs {
        use Func::*;
        let m = &mut self.model;
        let index = c.index();
        match c.func {
            // The value is a clock reading: only whether it came back is compared.
            SourceGetTimestamp => Obs::rc(rc(&m.source_get_timestamp(index))),
            EventHandleAlloc => {
                let r = m.event_handle_alloc(index, BoundObject::None, None);
                let o = Obs::rc(rc(&r));
                match r {
                    Ok(reg) => {
                        self.made(HandleKind::Registration, reg.0, index, 0);
                        o.with("registration", Out::Handle { null: reg.0 == 0 })
                    }
                    Err(_) => o,
                }
            }
            // Taken by value (MPI-4.1 §15.3.8): nothing comes back but the code.
            EventHandleFree => {
                let r = self.registration(c);
                Obs::rc(rc(&self.model.event_handle_free(r, 0, None)))
            }
            EventGetInfoObject => {
                let r = m.event_get_info(index, true);
                let o = Obs::rc(rc(&r));
                match r {
                    Ok((_, info)) => {
                        if let Some(h) = info {
                            let _ = m.info_free(h);
                        }
                        o.with(
                            "info",
                            Out::Handle {
                                null: info.is_none(),
                            },
                        )
                    }
                    Err(_) => o,
                }
            }
            EventRegisterCallback => {
                let r = self.registration(c);
                let tag = c.int("tag") as usize;
                // The callback is a token the model never calls (1: "a function").
                let cb = c.flag("callback").then_some(1);
                Obs::rc(rc(&self.model.event_register_callback(
                    r,
                    c.safety(),
                    None,
                    tag,
                    cb,
                )))
            }
            EventSetDroppedHandler => {
                let r = self.registration(c);
                let h = c.flag("handler").then_some(1);
                Obs::rc(rc(&self.model.event_set_dropped_handler(r, h)))
            }
            RaiseEvent => self.raise_event(index, c.safety()),
            EventRead => {
                let i = Instance(self.handle(HandleKind::Instance, c.handle("instance")));
                Obs::rc(rc(&self.model.event_read(i, 0)))
            }
            f => unreachable!("{} is no generated call", f.c_name()),
        }
    }

    /// What the C ABI does on `MPIT_Reference_raise_event`, with the harness's recorder
    /// as every callback: inside each event callback the instance is read (timestamp,
    /// source, every element, a copy), then the instance ends.
    fn raise_event(&mut self, index: i32, required: CbSafety) -> Obs {
        let m = &mut self.model;
        let r = m.raise_event(index, required);
        let mut ran = Vec::new();
        let mut instances = Vec::new();
        for d in r.as_ref().map(Vec::as_slice).unwrap_or_default() {
            match d {
                Delivery::Event {
                    instance,
                    safety,
                    user_data,
                    ..
                } => {
                    let n = m
                        .event_get_info(index, false)
                        .map_or(0, |(e, _)| e.datatypes.len());
                    let elements: Vec<_> =
                        (0..n as i32).map(|k| m.event_read(*instance, k)).collect();
                    let source = m.event_get_source(*instance);
                    let failed = [
                        m.event_get_timestamp(*instance).is_err(),
                        source.is_err(),
                        m.event_copy(*instance).is_err(),
                    ]
                    .into_iter()
                    .chain(elements.iter().map(Result::is_err))
                    .filter(|e| *e)
                    .count();
                    ran.push(Ran::Event {
                        tag: *user_data,
                        safety: *safety as i64,
                        source: source.ok().map(i64::from),
                        elements: elements.into_iter().map(Result::ok).collect(),
                        failed: failed as i64,
                    });
                    m.end_delivery(*instance);
                    instances.push(instance.0);
                }
                Delivery::Dropped {
                    count,
                    source_index,
                    user_data,
                    ..
                } => ran.push(Ran::Dropped {
                    tag: *user_data,
                    count: *count,
                    source: (*source_index).into(),
                }),
                Delivery::Free { .. } => {}
            }
        }
        for v in instances {
            self.made(HandleKind::Instance, v, index, 0);
        }
        Obs::deliveries(rc(&r), &ran)
    }

    fn registration(&self, c: &Call) -> Registration {
        Registration(self.handle(HandleKind::Registration, c.handle("registration")))
    }
}
