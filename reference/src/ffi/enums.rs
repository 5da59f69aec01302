//! MPI-4.1 §15.3.5: enumerations.

use super::{export, out_str, put_unchecked_if, t_call};
use crate::faults::Fault;
use crate::model::EnumHandle;
use std::ffi::{c_char, c_int};

export! {
    /// R-ENUM-2. NULL OUT arguments are ignored.
    fn MPI_T_enum_get_info(enumtype: usize, num: *mut c_int, name: *mut c_char, name_len: *mut c_int) -> c_int {
        t_call(|m| {
            let info = m.enum_get_info(EnumHandle(enumtype as u64))?;
            // SAFETY: each pointer is NULL (ignored) or valid for its OUT type.
            unsafe {
                // mpich#1727: `int num` by value, the caller's variable never written.
                if !m.faults().has(Fault::UpstreamMpich1727) {
                    put_unchecked_if(num, info.num, m.faults().has(Fault::NullOutDerefEnum));
                }
                out_str(&info.name, name, name_len, m.faults());
            }
            Ok(())
        })
    }
}

export! {
    /// R-ENUM-3: a bad item index is MPI_T_ERR_INVALID_INDEX. NULL OUT arguments are
    /// ignored.
    fn MPI_T_enum_get_item(
        enumtype: usize,
        indx: c_int,
        value: *mut c_int,
        name: *mut c_char,
        name_len: *mut c_int,
    ) -> c_int {
        t_call(|m| {
            let item = m.enum_get_item(EnumHandle(enumtype as u64), indx)?;
            // SAFETY: each pointer is NULL (ignored) or valid for its OUT type.
            unsafe {
                put_unchecked_if(value, item.value, m.faults().has(Fault::NullOutDerefItem));
                out_str(&item.name, name, name_len, m.faults());
            }
            Ok(())
        })
    }
}
