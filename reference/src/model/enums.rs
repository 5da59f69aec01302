//! MPI-4.1 §15.3.5: enumerations (R-ENUM-1..3).

use super::{EnumHandle, Model, ENUM_BASE};
use crate::faults::Fault;
use mpit_vocab::spec::{TErr, TResult};

/// What `MPI_T_enum_get_info` returns.
#[derive(Debug, Clone, PartialEq)]
pub struct EnumInfo {
    pub num: i32,
    pub name: String,
}

/// What `MPI_T_enum_get_item` returns.
#[derive(Debug, Clone, PartialEq)]
pub struct EnumItemInfo {
    pub value: i32,
    pub name: String,
}

impl Model {
    fn enum_slot(&self, h: EnumHandle) -> TResult<usize> {
        self.require_init()?;
        // Not an enum handle this implementation gave out (UB per R-GEN-3): "Invalid
        // use of the interface or bad parameter values", or under the conforming probe
        // `enum-invalid-index` the enumeration group's "The enumeration index is
        // invalid" (MPI-3.1 §14.3.9's table).
        let bad = match self.fault(Fault::EnumInvalidIndex) {
            true => TErr::InvalidIndex,
            false => TErr::Invalid,
        };
        let off = h.0.checked_sub(ENUM_BASE).ok_or(bad)?;
        let i = (off / 16) as usize;
        if off % 16 != 0 || i >= self.cat.enums.len() {
            return Err(bad);
        }
        Ok(i)
    }

    /// `MPI_T_enum_get_info`: R-ENUM-2, at least one item.
    pub fn enum_get_info(&self, h: EnumHandle) -> TResult<EnumInfo> {
        let e = &self.cat.enums[self.enum_slot(h)?];
        let num = if self.fault(Fault::EmptyEnum) {
            0
        } else {
            e.items.len() as i32
        };
        Ok(EnumInfo {
            num,
            name: e.name.clone(),
        })
    }

    /// `MPI_T_enum_get_item`: R-ENUM-3, a bad item index → INVALID_INDEX.
    pub fn enum_get_item(&self, h: EnumHandle, item: i32) -> TResult<EnumItemInfo> {
        let e = &self.cat.enums[self.enum_slot(h)?];
        let i = match self.index(item, e.items.len()) {
            Ok(i) => i,
            Err(_) if self.fault(Fault::EnumBadItemAccepted) => 0,
            // mpich#4918: the generated check's MPIT_ERRTEST_ENUM_ITEM.
            Err(_) if self.fault(Fault::UpstreamMpich4918) => return Err(TErr::InvalidItem),
            Err(err) => return Err(err),
        };
        let it = &e.items[i];
        Ok(EnumItemInfo {
            value: it.value,
            name: it.name.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::faults::{Fault, Faults};
    use crate::model::{EnumHandle, Model};
    use mpit_vocab::catalog::Catalog;
    use mpit_vocab::spec::{TErr, ThreadLevel};

    fn mode_enum(m: &mut Model) -> EnumHandle {
        let i = m.cvar_get_index("ref_cvar_mode").unwrap();
        m.cvar_get_info(i).unwrap().enumtype
    }

    fn model(f: Faults) -> Model {
        let mut m = Model::new(Catalog::default_catalog(), f);
        m.init_thread(ThreadLevel::Single).unwrap();
        m
    }

    /// R-ENUM-2/3: num > 0, items readable, bad item index → INVALID_INDEX.
    #[test]
    fn enum_info_and_items() {
        let mut m = model(Faults::none());
        let h = mode_enum(&mut m);
        let info = m.enum_get_info(h).unwrap();
        assert_eq!((info.num, info.name.as_str()), (3, "ref_enum_mode"));
        assert_eq!(m.enum_get_item(h, 2).unwrap().name, "rendezvous");
        assert_eq!(m.enum_get_item(h, 3).unwrap_err(), TErr::InvalidIndex);
        assert_eq!(m.enum_get_item(h, -1).unwrap_err(), TErr::InvalidIndex);
        assert_eq!(
            m.enum_get_info(EnumHandle(12345)).unwrap_err(),
            TErr::Invalid
        );
    }

    /// R-ENUM-1: non-MPI_INT variables carry MPI_T_ENUM_NULL.
    #[test]
    fn only_int_variables_carry_enums() {
        let mut m = model(Faults::none());
        for i in 0..m.cvar_get_num().unwrap() {
            let info = m.cvar_get_info(i).unwrap();
            if info.datatype != mpit_vocab::spec::Datatype::Int {
                assert_eq!(info.enumtype, EnumHandle(0), "{}", info.name);
            }
        }
    }

    #[test]
    fn fault_empty_enum() {
        let mut m = model(Faults::one(Fault::EmptyEnum));
        let h = mode_enum(&mut m);
        assert_eq!(m.enum_get_info(h).unwrap().num, 0);
    }

    #[test]
    fn fault_enum_bad_item_accepted() {
        let mut m = model(Faults::one(Fault::EnumBadItemAccepted));
        let h = mode_enum(&mut m);
        assert!(m.enum_get_item(h, 99).is_ok());
    }
}
