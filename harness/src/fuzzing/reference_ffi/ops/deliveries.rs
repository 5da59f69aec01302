//! What the recorder saw inside event callbacks (MPI-4.1 §15.3.8): every call it made
//! there returns a proper code and stays in its buffer, and each instance it was handed
//! is stale from then on.

use super::super::{check_buf, check_t_rc};
use super::Run;
use mpit_target::ffi;
use mpit_vocab::profile::ReturnCode;

impl Run<'_> {
    /// What the recorder saw in callbacks since the last look.
    pub(in super::super) fn check_deliveries(&mut self) {
        let f = self.f;
        let rc_ok = |call: &str, rc: i32| {
            let d = f.rc(rc);
            check_t_rc(call, rc, &d);
            *d == ReturnCode::Success
        };
        for d in ffi::take_deliveries() {
            let where_ = "(inside the event callback)";
            if let Some((rc, _)) = d.timestamp {
                rc_ok(&format!("MPI_T_event_get_timestamp {where_}"), rc);
            }
            if let Some((rc, _)) = d.source {
                rc_ok(&format!("MPI_T_event_get_source {where_}"), rc);
            }
            for (k, (rc, out)) in d.elements.iter().enumerate() {
                let call = format!("MPI_T_event_read(element {k}) {where_}");
                let ok = rc_ok(&call, *rc);
                check_buf(&call, "MPI-4.1 §15.3.8.6", out, None, ok);
            }
            if let Some((rc, out)) = &d.copy {
                let call = format!("MPI_T_event_copy {where_}");
                let ok = rc_ok(&call, *rc);
                check_buf(&call, "MPI-4.1 §15.3.8.6", out, None, ok);
            }
            if !self.h.instances.contains(&(d.instance as u64)) {
                self.h.instances.push(d.instance as u64);
            }
        }
    }
}
