//! MPI-4.1 §15.3.9: categories.

use super::{c_name, export, need, out_desc, out_str, put, put_unchecked_if, t_call};
use crate::faults::Fault;
use mpit_vocab::spec::Members;
use mpit_vocab::spec::{TErr, TResult};
use std::ffi::{c_char, c_int};

export! {
    fn MPI_T_category_get_num(num_cat: *mut c_int) -> c_int {
        t_call(|m| {
            need(num_cat)?;
            let n = m.category_get_num()?;
            // SAFETY: checked non-NULL.
            unsafe { put(num_cat, n) };
            Ok(())
        })
    }
}

export! {
    /// R-CVAR-3 (applies to categories): every NULL OUT/INOUT argument is ignored.
    fn MPI_T_category_get_info(
        cat_index: c_int,
        name: *mut c_char,
        name_len: *mut c_int,
        desc: *mut c_char,
        desc_len: *mut c_int,
        num_cvars: *mut c_int,
        num_pvars: *mut c_int,
        num_categories: *mut c_int,
    ) -> c_int {
        t_call(|m| {
            let info = m.category_get_info(cat_index)?;
            let f = m.faults();
            // SAFETY: each pointer is NULL (ignored) or valid for its OUT type; the
            // string buffers hold the caller's `*len` bytes.
            unsafe {
                out_str(&info.name, name, name_len, f);
                out_desc(&info.desc, desc, desc_len, f);
                put(num_cvars, info.num_cvars);
                put(num_pvars, info.num_pvars);
                put_unchecked_if(
                    num_categories,
                    info.num_categories,
                    f.has(Fault::NullOutDerefCategory),
                );
            }
            Ok(())
        })
    }
}

export! {
    fn MPI_T_category_get_num_events(cat_index: c_int, num_events: *mut c_int) -> c_int {
        t_call(|m| {
            need(num_events)?;
            let n = match m.category_get_num_events(cat_index) {
                // ompi#14017: no validation of cat_index, MPI_SUCCESS, nothing written.
                Err(TErr::InvalidIndex) if m.faults().has(Fault::UpstreamOmpi14017) => {
                    return Ok(())
                }
                r => r?,
            };
            // SAFETY: checked non-NULL.
            unsafe { put(num_events, n) };
            Ok(())
        })
    }
}

export! {
    fn MPI_T_category_get_index(name: *const c_char, cat_index: *mut c_int) -> c_int {
        t_call(|m| {
            need(cat_index)?;
            // SAFETY: a NUL-terminated string or NULL (checked) per the signature.
            let name = unsafe { c_name(name) }?;
            let i = m.category_get_index(name)?;
            // SAFETY: checked non-NULL.
            unsafe { put(cat_index, i) };
            Ok(())
        })
    }
}

/// Writes exactly the entries the model returns (R-CAT-1: entries past them stay
/// untouched; under fault `get-cvars-writes-past-len` that is one more than `len`).
///
/// # Safety
/// `indices` is NULL or valid for `len` ints.
unsafe fn members(
    m: &crate::model::Model,
    cat: c_int,
    which: Members,
    len: c_int,
    indices: *mut c_int,
) -> TResult<()> {
    if len > 0 {
        need(indices)?;
    }
    let v = match m.category_get_members(cat, which, len) {
        // ompi#14017: no validation of cat_index, MPI_SUCCESS, nothing written.
        Err(TErr::InvalidIndex)
            if which == Members::Events && m.faults().has(Fault::UpstreamOmpi14017) =>
        {
            return Ok(())
        }
        r => r?,
    };
    if indices.is_null() {
        // len <= 0: there is nothing the caller allowed us to write.
        return if v.is_empty() {
            Ok(())
        } else {
            Err(TErr::Invalid)
        };
    }
    for (k, x) in v.iter().enumerate() {
        // SAFETY: non-NULL; valid for `len` ints, and the model returns at most `len`
        // entries except under the injected fault, whose overrun is the bug it models.
        unsafe { indices.add(k).write(*x) };
    }
    Ok(())
}

export! {
    fn MPI_T_category_get_cvars(cat_index: c_int, len: c_int, indices: *mut c_int) -> c_int {
        // SAFETY: `indices` holds `len` ints per the signature.
        t_call(|m| unsafe { members(m, cat_index, Members::Cvars, len, indices) })
    }
}

export! {
    fn MPI_T_category_get_pvars(cat_index: c_int, len: c_int, indices: *mut c_int) -> c_int {
        // SAFETY: `indices` holds `len` ints per the signature.
        t_call(|m| unsafe { members(m, cat_index, Members::Pvars, len, indices) })
    }
}

export! {
    fn MPI_T_category_get_events(cat_index: c_int, len: c_int, indices: *mut c_int) -> c_int {
        // SAFETY: `indices` holds `len` ints per the signature.
        t_call(|m| unsafe { members(m, cat_index, Members::Events, len, indices) })
    }
}

export! {
    fn MPI_T_category_get_categories(cat_index: c_int, len: c_int, indices: *mut c_int) -> c_int {
        // SAFETY: `indices` holds `len` ints per the signature.
        t_call(|m| unsafe { members(m, cat_index, Members::Categories, len, indices) })
    }
}

export! {
    /// R-CAT-1: monotonically increasing update number.
    fn MPI_T_category_changed(update_number: *mut c_int) -> c_int {
        t_call(|m| {
            need(update_number)?;
            let n = m.category_changed()?;
            // SAFETY: checked non-NULL.
            unsafe { put(update_number, n) };
            Ok(())
        })
    }
}
