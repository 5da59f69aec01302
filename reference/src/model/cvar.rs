//! MPI-4.1 §15.3.6: control variables.

use super::{BoundObject, CvarHandle, EnumHandle, InfoHandle, Model, MpiState, Registry};
use crate::faults::Fault;
use mpit_vocab::catalog::{Appears, Catalog};
use mpit_vocab::spec::{Bind, Datatype, Scope, TErr, TResult, Verbosity};
use mpit_vocab::value::Value;
use std::sync::Arc;

/// What `MPI_T_cvar_get_info` returns (strings go through `crate::strings`).
#[derive(Debug, Clone, PartialEq)]
pub struct CvarInfo {
    pub name: String,
    pub verbosity: Verbosity,
    pub datatype: Datatype,
    pub enumtype: EnumHandle,
    pub desc: Option<String>,
    pub bind: Bind,
    pub scope: Scope,
}

#[derive(Debug, Clone)]
pub(super) struct HandleState {
    slot: usize,
    count: usize,
}

#[derive(Debug, Clone)]
pub(super) struct CvarState {
    /// Shared until written (`Arc::make_mut`): the harness clones a model per generated
    /// sequence, and most sequences write no cvar.
    values: Arc<Vec<Value>>,
    pub(super) handles: Registry<CvarHandle, HandleState>,
    info_calls: Vec<u32>,
}

impl CvarState {
    pub(super) fn new(cat: &Catalog) -> Self {
        CvarState {
            values: Arc::new(
                cat.cvars
                    .iter()
                    .map(|v| Value::from_cat(v.datatype, v.count as usize, v.value.as_ref()))
                    .collect(),
            ),
            handles: Registry::new(),
            info_calls: vec![0; cat.cvars.len()],
        }
    }
}

impl Model {
    fn cvar_visible(&self) -> usize {
        // Fault `reinit-loses-cvars`: the storage went with the last MPI_T_finalize
        // made while MPI was initialized.
        if self.fault(Fault::ReinitLosesCvars) && self.world.finalized_under_mpi
            || self.catalog_skipped()
        {
            return 0;
        }
        self.visible_count(&self.cat.cvars, |v| v.appears)
    }

    /// Fault `reinit-zeroes-cvars`: at a full MPI_T_finalize every value is freed, and
    /// the next initialization finds zeroed storage.
    pub(super) fn cvar_values_freed(&mut self) {
        if !self.fault(Fault::ReinitZeroesCvars) {
            return;
        }
        let cvars = &self.cat.cvars;
        let zeroed = cvars
            .iter()
            .map(|v| Value::zero(v.datatype, v.count as usize))
            .collect();
        self.cvar.values = Arc::new(zeroed);
    }

    /// Catalog slot of visible index `i`. R-CVAR-1: indices never move, so this is the
    /// identity, except under fault `index-shift-after-growth`.
    fn cvar_slot(&self, i: usize) -> usize {
        // Fault `reinit-renumbers-cvars`: from the first re-initialization on.
        if self.fault(Fault::ReinitRenumbersCvars) && self.world.full_finalizes > 0 {
            return (i + 1) % self.cvar_visible().max(1);
        }
        if !self.fault(Fault::IndexShiftAfterGrowth) {
            return i;
        }
        let n = self.cvar_visible();
        let early = self
            .cat
            .cvars
            .iter()
            .take_while(|v| v.appears == Appears::Always)
            .count()
            .min(n);
        let late = n - early;
        if late == 0 {
            i
        } else if i < late {
            early + i
        } else {
            i - late
        }
    }

    /// `MPI_T_cvar_get_num`.
    pub fn cvar_get_num(&self) -> TResult<i32> {
        self.require_init()?;
        Ok(self.cvar_visible() as i32)
    }

    /// `MPI_T_cvar_get_info`. R-CVAR-2: the same answer on every call.
    pub fn cvar_get_info(&mut self, i: i32) -> TResult<CvarInfo> {
        self.require_init()?;
        let i = self.index(i, self.cvar_visible())?;
        let slot = self.cvar_slot(i);
        self.cvar.info_calls[slot] = self.cvar.info_calls[slot].saturating_add(1);
        let v = &self.cat.cvars[slot];
        let mut info = CvarInfo {
            name: v.name.clone(),
            verbosity: v.verbosity,
            datatype: v.datatype,
            enumtype: self.enum_handle(&v.enumtype),
            desc: v.desc.clone(),
            bind: v.bind,
            scope: v.scope,
        };
        if self.fault(Fault::GetInfoUnstable) && self.cvar.info_calls[slot] > 1 {
            let all = Verbosity::ALL;
            let pos = all.iter().position(|x| *x == info.verbosity).unwrap_or(0);
            info.verbosity = all[(pos + 1) % all.len()];
        }
        if self.fault(Fault::DuplicateName) && i == 1 {
            info.name = self.cat.cvars[self.cvar_slot(0)].name.clone();
        }
        Ok(info)
    }

    /// `MPI_T_cvar_get_index`: R-CVAR-5, INVALID_NAME if no visible cvar has the name.
    pub fn cvar_get_index(&self, name: &str) -> TResult<i32> {
        self.require_init()?;
        let n = self.cvar_visible();
        let i = (0..n)
            .find(|i| self.cat.cvars[self.cvar_slot(*i)].name == name)
            .ok_or(TErr::InvalidName)?;
        if self.fault(Fault::GetIndexWrong) && i + 1 == n && n > 1 {
            return Ok(0);
        }
        Ok(i as i32)
    }

    /// Checks a bind target. R-BIND-2: binding to a handle that is not a valid input to
    /// other MPI calls at this point is erroneous; the reference refuses it.
    pub(super) fn check_binding(&self, bind: Bind, obj: BoundObject) -> TResult<()> {
        let ok = match (bind, obj) {
            (Bind::NoObject, _) => true,
            (_, BoundObject::None | BoundObject::Null) => false,
            (Bind::MpiComm, BoundObject::CommWorld | BoundObject::CommSelf) => {
                self.mpi == MpiState::Initialized
            }
            // A duplicated communicator (R-BIND-3: the handle the variable holds, here
            // one MPI_Comm_dup returned), unless the fault refuses it.
            (Bind::MpiComm, BoundObject::Other(v)) => {
                self.mpi == MpiState::Initialized
                    && self.comm_exists(v)
                    && !self.fault(Fault::DupCommBindingRefused)
            }
            (Bind::MpiComm, _) => false,
            (Bind::MpiDatatype, BoundObject::Datatype(_)) => true,
            (Bind::MpiDatatype, _) => false,
            (Bind::MpiInfo, BoundObject::Info(h)) => self.info_exists(h),
            // The C ABI cannot tell an info handle from other handle values.
            (Bind::MpiInfo, BoundObject::Other(v)) => self.info_exists(InfoHandle(v)),
            (Bind::MpiInfo, _) => false,
            (_, BoundObject::Other(_)) => true,
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(TErr::InvalidHandle)
        }
    }

    /// `MPI_T_cvar_handle_alloc`: returns the handle and `count` (R-CVAR-6; for MPI_CHAR
    /// the count includes the NUL, R-TYPE-2).
    pub fn cvar_handle_alloc(&mut self, i: i32, obj: BoundObject) -> TResult<(CvarHandle, i32)> {
        self.require_init()?;
        let i = self.index(i, self.cvar_visible())?;
        let slot = self.cvar_slot(i);
        let v = &self.cat.cvars[slot];
        self.check_binding(v.bind, obj)?;
        let mut count = v.count as usize;
        if self.fault(Fault::CharCountExcludesNul) && v.datatype == Datatype::Char {
            if let Value::Chars(s) = &self.cvar.values[slot] {
                count = s.len();
            }
        }
        let h = CvarHandle(self.new_id());
        self.cvar.handles.insert(h, HandleState { slot, count });
        Ok((h, count as i32))
    }

    /// `MPI_T_cvar_handle_free`: returns the value the handle variable must hold
    /// afterwards (R-CVAR-7: MPI_T_CVAR_HANDLE_NULL).
    pub fn cvar_handle_free(&mut self, h: CvarHandle) -> TResult<CvarHandle> {
        self.require_init()?;
        if !self.cvar.handles.contains_key(&h) {
            return Err(TErr::InvalidHandle);
        }
        if !self.fault(Fault::StaleCvarHandleAccepted) {
            self.cvar.handles.remove(&h);
        }
        Ok(if self.fault(Fault::HandleNotNulled) {
            h
        } else {
            CvarHandle(0)
        })
    }

    fn cvar_handle(&self, h: CvarHandle) -> TResult<HandleState> {
        self.require_init()?;
        self.cvar
            .handles
            .get(&h)
            .cloned()
            .ok_or(TErr::InvalidHandle)
    }

    /// The datatype and element count of a handle: the C ABI reads or writes
    /// `count × size(datatype)` bytes (R-CVAR-8).
    pub fn cvar_handle_layout(&self, h: CvarHandle) -> TResult<(Datatype, usize)> {
        let st = self.cvar_handle(h)?;
        Ok((self.cat.cvars[st.slot].datatype, st.count))
    }

    /// Whether the handle's variable has an enumeration.
    pub fn cvar_handle_enumerated(&self, h: CvarHandle) -> bool {
        self.cvar_handle(h)
            .is_ok_and(|st| self.cat.cvars[st.slot].enumtype.is_some())
    }

    /// `MPI_T_cvar_read`: the bytes to store in the user's buffer.
    pub fn cvar_read(&self, h: CvarHandle) -> TResult<Vec<u8>> {
        let st = self.cvar_handle(h)?;
        let dt = self.cat.cvars[st.slot].datatype;
        Ok(self.cvar.values[st.slot].to_bytes(dt, st.count))
    }

    /// `MPI_T_cvar_write` from the user's `count × size` bytes. R-CVAR-9: a variable that
    /// cannot be set returns SET_NEVER (CONSTANT, READONLY) or SET_NOT_NOW.
    pub fn cvar_write(&mut self, h: CvarHandle, bytes: &[u8]) -> TResult<()> {
        let st = self.cvar_handle(h)?;
        let v = &self.cat.cvars[st.slot];
        match v.scope {
            Scope::Constant if self.fault(Fault::WriteConstantAccepted) => {}
            Scope::Constant | Scope::Readonly => return Err(TErr::CvarSetNever),
            _ => {}
        }
        if v.not_now_until_init && self.mpi != MpiState::Initialized {
            return Err(TErr::CvarSetNotNow);
        }
        Arc::make_mut(&mut self.cvar.values)[st.slot] =
            Value::from_bytes(v.datatype, st.count, bytes);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::faults::{Fault, Faults};
    use crate::model::{BoundObject, CvarHandle, Model};
    use mpit_vocab::catalog::Catalog;
    use mpit_vocab::spec::{Datatype, TErr, ThreadLevel};

    fn model(f: Faults) -> Model {
        let mut m = Model::new(Catalog::default_catalog(), f);
        m.init_thread(ThreadLevel::Single).unwrap();
        m
    }

    fn idx(m: &Model, name: &str) -> i32 {
        m.cvar_get_index(name).unwrap()
    }

    /// R-CVAR-2 / R-CVAR-5: info identical on every call; get_index round trip.
    #[test]
    fn info_is_stable_and_index_round_trips() {
        let mut m = model(Faults::none());
        for i in 0..m.cvar_get_num().unwrap() {
            let a = m.cvar_get_info(i).unwrap();
            assert_eq!(m.cvar_get_info(i).unwrap(), a);
            assert_eq!(m.cvar_get_index(&a.name), Ok(i));
        }
        assert_eq!(m.cvar_get_index("no_such_cvar"), Err(TErr::InvalidName));
        let n = m.cvar_get_num().unwrap();
        assert_eq!(m.cvar_get_info(n).unwrap_err(), TErr::InvalidIndex);
        assert_eq!(m.cvar_get_info(-1).unwrap_err(), TErr::InvalidIndex);
    }

    /// R-CVAR-7 / R-CVAR-9: free nulls; CONSTANT/READONLY refuse; LOCAL writes back.
    #[test]
    fn handles_read_write_and_scopes() {
        let mut m = model(Faults::none());
        let (h, count) = m
            .cvar_handle_alloc(idx(&m, "ref_cvar_int_local"), BoundObject::None)
            .unwrap();
        assert_eq!(count, 1);
        let old = m.cvar_read(h).unwrap();
        assert_eq!(old, 42i32.to_ne_bytes());
        m.cvar_write(h, &7i32.to_ne_bytes()).unwrap();
        assert_eq!(m.cvar_read(h).unwrap(), 7i32.to_ne_bytes());
        assert_eq!(m.cvar_handle_free(h), Ok(CvarHandle(0)));
        assert_eq!(m.cvar_read(h), Err(TErr::InvalidHandle));
        for name in ["ref_cvar_constant", "ref_cvar_readonly"] {
            let (h, _) = m
                .cvar_handle_alloc(idx(&m, name), BoundObject::None)
                .unwrap();
            let bytes = m.cvar_read(h).unwrap();
            assert_eq!(m.cvar_write(h, &bytes), Err(TErr::CvarSetNever), "{name}");
        }
        let (h, _) = m
            .cvar_handle_alloc(idx(&m, "ref_cvar_not_now"), BoundObject::None)
            .unwrap();
        assert_eq!(
            m.cvar_write(h, &1i32.to_ne_bytes()),
            Err(TErr::CvarSetNotNow)
        );
        m.mpi_init().unwrap();
        assert_eq!(m.cvar_write(h, &1i32.to_ne_bytes()), Ok(()));
    }

    /// R-TYPE-2: MPI_CHAR count includes the NUL.
    #[test]
    fn char_cvar_count_holds_the_nul() {
        let mut m = model(Faults::none());
        let (h, count) = m
            .cvar_handle_alloc(idx(&m, "ref_cvar_string"), BoundObject::None)
            .unwrap();
        let bytes = m.cvar_read(h).unwrap();
        assert_eq!(bytes.len(), count as usize);
        let strlen = bytes
            .iter()
            .position(|b| *b == 0)
            .expect("NUL within count");
        assert!(strlen < count as usize);
        assert_eq!(m.cvar_handle_layout(h).unwrap().0, Datatype::Char);
    }

    /// R-BIND-2: a communicator binding needs MPI initialized and a valid communicator.
    #[test]
    fn comm_binding_needs_mpi() {
        let mut m = model(Faults::none());
        let i = idx(&m, "ref_cvar_bind_comm");
        assert_eq!(
            m.cvar_handle_alloc(i, BoundObject::CommWorld).unwrap_err(),
            TErr::InvalidHandle
        );
        m.mpi_init().unwrap();
        assert!(m.cvar_handle_alloc(i, BoundObject::CommWorld).is_ok());
        assert_eq!(
            m.cvar_handle_alloc(i, BoundObject::Null).unwrap_err(),
            TErr::InvalidHandle
        );
    }

    #[test]
    fn fault_get_info_unstable() {
        let mut m = model(Faults::one(Fault::GetInfoUnstable));
        let a = m.cvar_get_info(0).unwrap();
        assert_ne!(m.cvar_get_info(0).unwrap(), a);
    }

    #[test]
    fn fault_get_index_wrong() {
        let mut m = model(Faults::one(Fault::GetIndexWrong));
        let last = m.cvar_get_num().unwrap() - 1;
        let name = m.cvar_get_info(last).unwrap().name;
        assert_ne!(m.cvar_get_index(&name), Ok(last));
    }

    #[test]
    fn fault_bad_index_wrong_code() {
        let mut m = model(Faults::one(Fault::BadIndexWrongCode));
        assert_eq!(m.cvar_get_info(100_000).unwrap_err(), TErr::InvalidName);
    }

    #[test]
    fn fault_duplicate_name() {
        let mut m = model(Faults::one(Fault::DuplicateName));
        assert_eq!(
            m.cvar_get_info(1).unwrap().name,
            m.cvar_get_info(0).unwrap().name
        );
    }

    #[test]
    fn fault_index_shift_after_growth() {
        let mut good = model(Faults::none());
        let mut bad = model(Faults::one(Fault::IndexShiftAfterGrowth));
        let before = bad.cvar_get_info(0).unwrap();
        assert_eq!(before, good.cvar_get_info(0).unwrap());
        good.mpi_init().unwrap();
        bad.mpi_init().unwrap();
        assert_eq!(good.cvar_get_info(0).unwrap(), before);
        assert_ne!(bad.cvar_get_info(0).unwrap().name, before.name);
    }

    #[test]
    fn fault_handle_not_nulled_and_stale_handle() {
        let mut m = model(Faults::one(Fault::HandleNotNulled));
        let (h, _) = m.cvar_handle_alloc(0, BoundObject::None).unwrap();
        assert_eq!(m.cvar_handle_free(h), Ok(h));
        let mut m = model(Faults::one(Fault::StaleCvarHandleAccepted));
        let (h, _) = m.cvar_handle_alloc(0, BoundObject::None).unwrap();
        m.cvar_handle_free(h).unwrap();
        assert!(m.cvar_read(h).is_ok());
    }

    #[test]
    fn fault_write_constant_accepted() {
        let mut m = model(Faults::one(Fault::WriteConstantAccepted));
        let (h, _) = m
            .cvar_handle_alloc(idx(&m, "ref_cvar_constant"), BoundObject::None)
            .unwrap();
        assert_eq!(m.cvar_write(h, &1u32.to_ne_bytes()), Ok(()));
    }

    #[test]
    fn fault_char_count_excludes_nul() {
        let mut m = model(Faults::one(Fault::CharCountExcludesNul));
        let (h, count) = m
            .cvar_handle_alloc(idx(&m, "ref_cvar_string"), BoundObject::None)
            .unwrap();
        let bytes = m.cvar_read(h).unwrap();
        // R-TYPE-2 broken: the count does not hold the value and its NUL, so the value
        // read back through a buffer of `count` bytes is cut short.
        assert!((count as usize) < "shm,tcp".len() + 1);
        let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
        assert_ne!(&bytes[..end], b"shm,tcp");
    }
}
