//! What a handle does (MPI-4.1 §15.3.7.4): start and stop (R-PSTART-1/2), read,
//! write (R-PWRITE-1), reset (R-PRESET-1) and readreset (R-PRR-1), one handle or
//! MPI_T_PVAR_ALL_HANDLES.

use super::simulation::fit;
use crate::faults::Fault;
use crate::model::{Model, PvarTarget, Session};
use mpit_vocab::spec::{PvarClass, TErr, TResult};
use mpit_vocab::value::Value;

/// What a PERCENTAGE reads under fault `percentage-out-of-range`.
const BAD_PERCENTAGE: f64 = 1.5;

impl Model {
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
