//! MPI-4.1 §15.3.8: event sources, event types, registrations and callbacks, and the
//! callback-only instance accessors. Callbacks are passed to the model as `usize`
//! tokens and run by [`deliver`] with the lock released.

use super::{
    abi, bound_object, c_name, copy_out, export, lock, need, out_desc, out_str, put,
    put_mpi_handle, put_mpi_handle_at, put_unchecked_if, t_call, t_call_deliver,
};
use crate::faults::Fault;
use crate::model::{Delivery, Instance, Registration};
use mpit_vocab::spec::{CbSafety, TErr, TResult};
use std::ffi::{c_char, c_int, c_void};

/// `MPI_T_event_cb_function`.
pub(crate) type EventCb = unsafe extern "C" fn(usize, usize, c_int, *mut c_void);
/// `MPI_T_event_free_cb_function`.
pub(crate) type FreeCb = unsafe extern "C" fn(usize, c_int, *mut c_void);
/// `MPI_T_event_dropped_cb_function` (`MPI_Count` is int64_t in the standard ABI).
pub(crate) type DroppedCb = unsafe extern "C" fn(i64, usize, c_int, c_int, *mut c_void);

fn safety_in(n: c_int) -> TResult<CbSafety> {
    abi().c.cb_safety.lookup(n.into()).ok_or(TErr::Invalid)
}

fn safety_out(s: CbSafety) -> c_int {
    abi().c.cb_safety.num(s) as c_int
}

fn reg(r: usize) -> Registration {
    Registration(r as u64)
}

/// Runs the callbacks the model asked for, in order, without holding the lock; after
/// each event callback its instance stops being valid (`end_delivery`).
pub(crate) fn deliver(ds: Vec<Delivery>) {
    for d in ds {
        match d {
            Delivery::Event {
                cb,
                instance,
                registration,
                safety,
                user_data,
            } => {
                if cb != 0 {
                    // SAFETY: the model only hands back tokens made from an `EventCb`
                    // by MPI_T_event_register_callback (non-zero: a real fn pointer).
                    let f = unsafe { std::mem::transmute::<usize, EventCb>(cb) };
                    // SAFETY: calling the user's callback with the ABI's arguments.
                    unsafe {
                        f(
                            instance.0 as usize,
                            registration.0 as usize,
                            safety_out(safety),
                            user_data as *mut c_void,
                        )
                    };
                }
                if let Some(m) = lock().as_mut() {
                    m.end_delivery(instance);
                }
            }
            Delivery::Dropped {
                cb,
                count,
                registration,
                source_index,
                safety,
                user_data,
            } => {
                if cb != 0 {
                    // SAFETY: a token made from a `DroppedCb` by set_dropped_handler.
                    let f = unsafe { std::mem::transmute::<usize, DroppedCb>(cb) };
                    // SAFETY: calling the user's handler with the ABI's arguments.
                    unsafe {
                        f(
                            count,
                            registration.0 as usize,
                            source_index,
                            safety_out(safety),
                            user_data as *mut c_void,
                        )
                    };
                }
            }
            Delivery::Free {
                cb,
                registration,
                safety,
                user_data,
            } => {
                if cb != 0 {
                    // SAFETY: a token made from a `FreeCb` by MPI_T_event_handle_free.
                    let f = unsafe { std::mem::transmute::<usize, FreeCb>(cb) };
                    // SAFETY: calling the user's free callback with the ABI's arguments.
                    unsafe {
                        f(
                            registration.0 as usize,
                            safety_out(safety),
                            user_data as *mut c_void,
                        )
                    };
                }
            }
        }
    }
}

export! {
    fn MPI_T_source_get_num(num_sources: *mut c_int) -> c_int {
        t_call(|m| {
            need(num_sources)?;
            let n = m.source_get_num()?;
            // SAFETY: checked non-NULL.
            unsafe { put(num_sources, n) };
            Ok(())
        })
    }
}

export! {
    /// NULL OUT arguments are ignored; a non-NULL `info` gets a new info object.
    fn MPI_T_source_get_info(
        source_index: c_int,
        name: *mut c_char,
        name_len: *mut c_int,
        desc: *mut c_char,
        desc_len: *mut c_int,
        ordering: *mut c_int,
        ticks_per_second: *mut i64,
        max_ticks: *mut i64,
        info: *mut usize,
    ) -> c_int {
        t_call(|m| {
            let (si, ih) = m.source_get_info(source_index, !info.is_null())?;
            let f = m.faults();
            // SAFETY: each pointer is NULL (ignored) or valid for its OUT type.
            unsafe {
                out_str(&si.name, name, name_len, f);
                out_desc(&si.desc, desc, desc_len, f);
                put(ordering, abi().c.source_order.num(si.ordering) as c_int);
                put(ticks_per_second, si.ticks_per_second);
                put_unchecked_if(max_ticks, si.max_ticks, f.has(Fault::NullOutDerefSource));
                put_mpi_handle(info, abi().info_out(ih));
            }
            Ok(())
        })
    }
}

export! {
    fn MPI_T_source_get_timestamp(source_index: c_int, timestamp: *mut i64) -> c_int {
        t_call(|m| {
            need(timestamp)?;
            let t = m.source_get_timestamp(source_index)?;
            // SAFETY: checked non-NULL.
            unsafe { put(timestamp, t) };
            Ok(())
        })
    }
}

export! {
    fn MPI_T_event_get_num(num_events: *mut c_int) -> c_int {
        t_call(|m| {
            need(num_events)?;
            let n = m.event_get_num()?;
            // SAFETY: checked non-NULL.
            unsafe { put(num_events, n) };
            Ok(())
        })
    }
}

export! {
    /// `num_elements` is INOUT: the arrays are filled up to its input value and it
    /// returns the number of elements; NULL ignores it and both arrays.
    fn MPI_T_event_get_info(
        event_index: c_int,
        name: *mut c_char,
        name_len: *mut c_int,
        verbosity: *mut c_int,
        array_of_datatypes: *mut usize,
        array_of_displacements: *mut isize,
        num_elements: *mut c_int,
        enumtype: *mut usize,
        info: *mut usize,
        desc: *mut c_char,
        desc_len: *mut c_int,
        bind: *mut c_int,
    ) -> c_int {
        t_call(|m| {
            let (ei, ih) = m.event_get_info(event_index, !info.is_null())?;
            let f = m.faults();
            let p = &abi().c;
            // SAFETY: each pointer is NULL (ignored) or valid for its OUT type; the
            // arrays hold `*num_elements` entries.
            unsafe {
                out_str(&ei.name, name, name_len, f);
                put(verbosity, p.verbosity.num(ei.verbosity) as c_int);
                if !num_elements.is_null() {
                    let cap = usize::try_from(num_elements.read()).unwrap_or(0);
                    // A NULL array is ignored as a whole (never offset from NULL).
                    if !array_of_datatypes.is_null() {
                        for (k, d) in ei.datatypes.iter().take(cap).enumerate() {
                            put_mpi_handle_at(array_of_datatypes, k, abi().datatype(*d));
                        }
                    }
                    if !array_of_displacements.is_null() {
                        for (k, d) in ei.displacements.iter().take(cap).enumerate() {
                            array_of_displacements.add(k).write(*d as isize);
                        }
                    }
                    put(num_elements, ei.datatypes.len() as c_int);
                }
                put(enumtype, ei.enumtype.0 as usize);
                put_mpi_handle(info, abi().info_out(ih));
                out_desc(&ei.desc, desc, desc_len, f);
                put_unchecked_if(
                    bind,
                    p.bind.num(ei.bind) as c_int,
                    f.has(Fault::NullOutDerefEvent),
                );
            }
            Ok(())
        })
    }
}

export! {
    fn MPI_T_event_get_index(name: *const c_char, event_index: *mut c_int) -> c_int {
        t_call(|m| {
            need(event_index)?;
            // SAFETY: a NUL-terminated string or NULL (checked) per the signature.
            let name = unsafe { c_name(name) }?;
            let i = m.event_get_index(name)?;
            // SAFETY: checked non-NULL.
            unsafe { put(event_index, i) };
            Ok(())
        })
    }
}

export! {
    fn MPI_T_event_handle_alloc(
        event_index: c_int,
        obj_handle: *mut c_void,
        info: usize,
        event_registration: *mut usize,
    ) -> c_int {
        t_call(|m| {
            need(event_registration)?;
            // SAFETY: NULL or the address of one handle per R-BIND-3.
            let obj = unsafe { bound_object(obj_handle) };
            let r = m.event_handle_alloc(event_index, obj, abi().info_arg(info))?;
            // SAFETY: checked non-NULL.
            unsafe { put(event_registration, r.0 as usize) };
            Ok(())
        })
    }
}

export! {
    fn MPI_T_event_handle_set_info(event_registration: usize, info: usize) -> c_int {
        t_call(|m| m.event_handle_set_info(reg(event_registration), abi().info_arg(info)))
    }
}

export! {
    fn MPI_T_event_handle_get_info(event_registration: usize, info_used: *mut usize) -> c_int {
        t_call(|m| {
            need(info_used)?;
            let h = m.event_handle_get_info(reg(event_registration))?;
            // SAFETY: checked non-NULL.
            unsafe { put_mpi_handle(info_used, h.0 as usize) };
            Ok(())
        })
    }
}

export! {
    /// One callback per safety level; NULL removes that level's callback.
    fn MPI_T_event_register_callback(
        event_registration: usize,
        cb_safety: c_int,
        info: usize,
        user_data: *mut c_void,
        event_cb_function: Option<EventCb>,
    ) -> c_int {
        t_call(|m| {
            let s = safety_in(cb_safety)?;
            let cb = event_cb_function.map(|f| f as usize);
            m.event_register_callback(reg(event_registration), s, abi().info_arg(info), user_data as usize, cb)
        })
    }
}

export! {
    fn MPI_T_event_callback_set_info(event_registration: usize, cb_safety: c_int, info: usize) -> c_int {
        t_call(|m| {
            let s = safety_in(cb_safety)?;
            m.event_callback_set_info(reg(event_registration), s, abi().info_arg(info))
        })
    }
}

export! {
    fn MPI_T_event_callback_get_info(event_registration: usize, cb_safety: c_int, info_used: *mut usize) -> c_int {
        t_call(|m| {
            need(info_used)?;
            let s = safety_in(cb_safety)?;
            let h = m.event_callback_get_info(reg(event_registration), s)?;
            // SAFETY: checked non-NULL.
            unsafe { put_mpi_handle(info_used, h.0 as usize) };
            Ok(())
        })
    }
}

export! {
    /// MPI_T_ERR_INVALID_HANDLE for a registration that is not allocated; the free
    /// callback (may be NULL) runs once no more events can be raised for it.
    fn MPI_T_event_handle_free(
        event_registration: usize,
        user_data: *mut c_void,
        free_cb_function: Option<FreeCb>,
    ) -> c_int {
        t_call_deliver(|m| {
            // mpich#5125: the free callback was invoked without a NULL check.
            if free_cb_function.is_none() && m.faults().has(Fault::UpstreamMpich5125) {
                crate::ffi::crash();
            }
            let cb = free_cb_function.map(|f| f as usize);
            m.event_handle_free(reg(event_registration), user_data as usize, cb)
        })
    }
}

export! {
    /// NULL disables dropped-event reporting for the registration.
    fn MPI_T_event_set_dropped_handler(event_registration: usize, dropped_cb_function: Option<DroppedCb>) -> c_int {
        t_call(|m| m.event_set_dropped_handler(reg(event_registration), dropped_cb_function.map(|f| f as usize)))
    }
}

export! {
    /// Copies one element; the buffer must fit it.
    fn MPI_T_event_read(event_instance: usize, element_index: c_int, buffer: *mut c_void) -> c_int {
        t_call(|m| {
            need(buffer)?;
            let bytes = m.event_read(Instance(event_instance as u64), element_index)?;
            // SAFETY: non-NULL; the caller provides room for the element.
            unsafe { copy_out(&bytes, buffer) };
            Ok(())
        })
    }
}

export! {
    /// Copies the whole event data (its extent).
    fn MPI_T_event_copy(event_instance: usize, buffer: *mut c_void) -> c_int {
        t_call(|m| {
            need(buffer)?;
            let bytes = m.event_copy(Instance(event_instance as u64))?;
            // SAFETY: non-NULL; the caller provides the extent of the event data.
            unsafe { copy_out(&bytes, buffer) };
            Ok(())
        })
    }
}

export! {
    fn MPI_T_event_get_timestamp(event_instance: usize, event_timestamp: *mut i64) -> c_int {
        t_call(|m| {
            need(event_timestamp)?;
            let t = m.event_get_timestamp(Instance(event_instance as u64))?;
            // SAFETY: checked non-NULL.
            unsafe { put(event_timestamp, t) };
            Ok(())
        })
    }
}

export! {
    fn MPI_T_event_get_source(event_instance: usize, source_index: *mut c_int) -> c_int {
        t_call(|m| {
            need(source_index)?;
            let s = m.event_get_source(Instance(event_instance as u64))?;
            // SAFETY: checked non-NULL.
            unsafe { put(source_index, s) };
            Ok(())
        })
    }
}
