//! Events, info objects and the reference's hooks, and what the recorder saw inside
//! event callbacks (MPI-4.1 §15.3.8).

use super::{Pool, Run, NO_TAG};
use crate::fuzzing::reference_ffi::check_buf;
use crate::fuzzing::reference_ffi::input::Op;
use crate::kind::Kind;
use crate::target::ffi::{self, RawHandle, Recording};

impl Run<'_> {
    /// Events, info objects and the reference's hooks.
    pub(super) fn exec_events(&mut self, op: &Op) {
        let f = self.f;
        let lib = &f.target.lib;
        let events = self.count(Kind::Event);
        match op {
            Op::SourceGetTimestamp(i) => {
                let i = self.idx(*i, self.count(Kind::Source));
                if let Some((rc, _)) = lib.source_get_timestamp(i) {
                    self.t("MPI_T_source_get_timestamp", rc);
                }
            }
            Op::SourceGetInfoObject(i) => {
                let i = self.idx(*i, self.count(Kind::Source));
                if let Some((rc, info)) = lib.source_get_info_object(i) {
                    let ok = self.t("MPI_T_source_get_info", rc);
                    self.info_seen(ok, info);
                }
            }
            Op::EventGetInfoObject(i) => {
                if let Some((rc, info)) = lib.event_get_info_object(self.idx(*i, events)) {
                    let ok = self.t("MPI_T_event_get_info", rc);
                    self.info_seen(ok, info);
                }
            }
            Op::EventHandleAlloc(i, o, info) => {
                let i = self.idx(*i, events);
                let info = self.h(*info, Pool::Info);
                if let Some((rc, r)) = lib.event_handle_alloc(i, self.obj(*o), info) {
                    if self.t("MPI_T_event_handle_alloc", rc) {
                        self.regs.push((r as u64, i as usize));
                    }
                }
            }
            Op::EventHandleSetInfo(r, info) => {
                let (r, info) = (self.rh(*r, Pool::Reg), self.h(*info, Pool::Info));
                if let Some((rc, ())) = lib.event_handle_set_info(r, info) {
                    self.t("MPI_T_event_handle_set_info", rc);
                }
            }
            Op::EventHandleGetInfo(r) => {
                if let Some((rc, info)) = lib.event_handle_get_info(self.rh(*r, Pool::Reg)) {
                    let ok = self.t("MPI_T_event_handle_get_info", rc);
                    self.info_seen(ok, info);
                }
            }
            Op::EventCallbackSetInfo(r, k, info) => {
                let r = self.rh(*r, Pool::Reg);
                let (k, info) = (self.konst(*k, &f.cb_safety), self.h(*info, Pool::Info));
                if let Some((rc, ())) = lib.event_callback_set_info(r, k, info) {
                    self.t("MPI_T_event_callback_set_info", rc);
                }
            }
            Op::EventCallbackGetInfo(r, k) => {
                let (r, k) = (self.rh(*r, Pool::Reg), self.konst(*k, &f.cb_safety));
                if let Some((rc, info)) = lib.event_callback_get_info(r, k) {
                    let ok = self.t("MPI_T_event_callback_get_info", rc);
                    self.info_seen(ok, info);
                }
            }
            Op::EventRegisterCallback {
                reg,
                safety,
                info,
                record,
            } => {
                let r = self.h(*reg, Pool::Reg);
                let (k, info) = (self.konst(*safety, &f.cb_safety), self.h(*info, Pool::Info));
                // The recorder reads each element with its size: the event's own sizes
                // for a registration the run holds, none for any other value.
                let rec = record.then(|| match self.regs.iter().find(|x| x.0 == r) {
                    Some((_, i)) => Recording {
                        tag: *i,
                        element_sizes: f.event_elems.get(*i).cloned().unwrap_or_default(),
                    },
                    None => Recording {
                        tag: NO_TAG,
                        element_sizes: vec![],
                    },
                });
                if let Some((rc, ())) = lib.event_register_callback(r as RawHandle, k, info, rec) {
                    self.t("MPI_T_event_register_callback", rc);
                }
            }
            Op::EventSetDroppedHandler(r, install) => {
                if let Some((rc, ())) =
                    lib.event_set_dropped_handler(self.rh(*r, Pool::Reg), *install)
                {
                    self.t("MPI_T_event_set_dropped_handler", rc);
                }
            }
            Op::EventHandleFree(r, cb) => {
                let r = self.h(*r, Pool::Reg);
                if let Some((rc, _)) = lib.event_handle_free(r as RawHandle, *cb) {
                    if self.t("MPI_T_event_handle_free", rc) {
                        self.forget(r);
                    }
                }
            }
            Op::EventRead(i, e, extra) => {
                let inst = self.h(*i, Pool::Instance);
                let e = self.idx(*e, 4);
                let bytes = Self::buf_size(None, *extra);
                if let Some((rc, out)) = lib.event_read(inst as RawHandle, e, bytes) {
                    let ok = self.t("MPI_T_event_read", rc);
                    self.stale_instance("MPI_T_event_read", inst, ok);
                    check_buf("MPI_T_event_read", "MPI-4.1 §15.3.8.6", &out, None, ok);
                }
            }
            Op::EventCopy(i, extra) => {
                let inst = self.h(*i, Pool::Instance);
                let bytes = Self::buf_size(None, *extra);
                if let Some((rc, out)) = lib.event_copy(inst as RawHandle, bytes) {
                    let ok = self.t("MPI_T_event_copy", rc);
                    self.stale_instance("MPI_T_event_copy", inst, ok);
                    check_buf("MPI_T_event_copy", "MPI-4.1 §15.3.8.6", &out, None, ok);
                }
            }
            Op::EventGetTimestamp(i) => {
                let inst = self.h(*i, Pool::Instance);
                if let Some((rc, _)) = lib.event_get_timestamp(inst as RawHandle) {
                    let ok = self.t("MPI_T_event_get_timestamp", rc);
                    self.stale_instance("MPI_T_event_get_timestamp", inst, ok);
                }
            }
            Op::EventGetSource(i) => {
                let inst = self.h(*i, Pool::Instance);
                if let Some((rc, _)) = lib.event_get_source(inst as RawHandle) {
                    let ok = self.t("MPI_T_event_get_source", rc);
                    self.stale_instance("MPI_T_event_get_source", inst, ok);
                }
            }
            Op::InfoCreate => {
                if let Some((rc, info)) = lib.info_create() {
                    let ok = self.m("MPI_Info_create", rc);
                    self.info_seen(ok, info);
                }
            }
            Op::InfoSet(i, k, v) => {
                if let Some((rc, ())) = lib.info_set(self.h(*i, Pool::Info), k, v) {
                    self.m("MPI_Info_set", rc);
                }
            }
            Op::InfoGetNkeys(i) => {
                if let Some((rc, _)) = lib.info_get_nkeys(self.h(*i, Pool::Info)) {
                    self.m("MPI_Info_get_nkeys", rc);
                }
            }
            Op::InfoGetNthkey(i, n) => {
                if let Some((rc, _)) = lib.info_get_nthkey(self.h(*i, Pool::Info), *n as i32) {
                    self.m("MPI_Info_get_nthkey", rc);
                }
            }
            Op::InfoGetString(i, k) => {
                if let Some((rc, _)) = lib.info_get_string(self.h(*i, Pool::Info), k) {
                    self.m("MPI_Info_get_string", rc);
                }
            }
            Op::InfoFree(i) => {
                let i = self.h(*i, Pool::Info);
                if let Some((rc, after)) = lib.info_free(i) {
                    if self.m("MPI_Info_free", rc) {
                        assert_eq!(after, f.nulls.info, "MPI_Info_free leaves MPI_INFO_NULL");
                        self.forget(i);
                    }
                }
            }
            Op::Simulate(n) => {
                if let Some((rc, ())) = lib.reference_simulate(*n as i32 % 16) {
                    self.t("MPIT_Reference_simulate", rc);
                }
            }
            Op::RaiseEvent(i, k) => {
                let (i, k) = (self.idx(*i, events), self.konst(*k, &f.cb_safety));
                if let Some((rc, ())) = lib.reference_raise_event(i, k) {
                    self.t("MPIT_Reference_raise_event", rc);
                }
            }
            // The rest are made by `exec` and `exec_handles`.
            _ => {}
        }
    }

    /// MPI-4.1 §15.3.8.6: an event instance is valid only during its callback.
    fn stale_instance(&self, call: &str, inst: u64, ok: bool) {
        assert!(
            !(ok && self.instances.contains(&inst)),
            "MPI-4.1 §15.3.8.6: {call} accepted the event instance {inst:#x} after its callback returned"
        );
    }

    /// What the recorder saw in callbacks since the last look: every call it made
    /// there returns a proper code and stays in its buffer.
    pub(in super::super) fn check_deliveries(&mut self) {
        for d in ffi::take_deliveries() {
            let where_ = "(inside the event callback)";
            if let Some((rc, _)) = d.timestamp {
                self.t(&format!("MPI_T_event_get_timestamp {where_}"), rc);
            }
            if let Some((rc, _)) = d.source {
                self.t(&format!("MPI_T_event_get_source {where_}"), rc);
            }
            for (k, (rc, out)) in d.elements.iter().enumerate() {
                let call = format!("MPI_T_event_read(element {k}) {where_}");
                let ok = self.t(&call, *rc);
                check_buf(&call, "MPI-4.1 §15.3.8.6", out, None, ok);
            }
            if let Some((rc, out)) = &d.copy {
                let call = format!("MPI_T_event_copy {where_}");
                let ok = self.t(&call, *rc);
                check_buf(&call, "MPI-4.1 §15.3.8.6", out, None, ok);
            }
            if !self.instances.contains(&(d.instance as u64)) {
                self.instances.push(d.instance as u64);
            }
        }
    }
}
