//! Typed data buffers (cvar/pvar values, event data) and the `obj_handle` argument of
//! the `*_handle_alloc` calls, as the harness passes them.

use super::guarded::Guarded;
use std::ffi::c_void;

/// How obj_handle is passed to *_handle_alloc: NULL, or the address of a local variable
/// holding `value` in `width` bytes (4 for MPICH int handles, 8 for pointer handles).
///
/// MPI-4.1 §15.3.6 (R-BIND-3): `obj_handle` is the address of a local variable holding
/// the handle (passing the address of a predefined handle constant is not portable); it
/// is ignored for `MPI_T_BIND_NO_OBJECT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjArg {
    Null,
    Local { value: u64, width: usize },
}

/// The local variable `obj_handle` points to, for the duration of one call.
pub(super) struct ObjSlot {
    /// 8-byte aligned, 16 bytes: the handle in its first `width` bytes, zeros after, so
    /// a library reading a wider handle than the family's still reads defined memory.
    cell: [u64; 2],
    null: bool,
}

impl ObjSlot {
    pub(super) fn new(obj: ObjArg) -> Self {
        match obj {
            ObjArg::Null => ObjSlot {
                cell: [0; 2],
                null: true,
            },
            ObjArg::Local { value, width } => {
                // The value truncated to `width` bytes, in the machine's byte order: what
                // a C `int` (4) or pointer (8) variable holding it contains.
                let w = width.clamp(1, 8);
                let mut bytes = [0u8; 16];
                let le = value.to_le_bytes();
                let mut v = le[..w].to_vec();
                if cfg!(target_endian = "big") {
                    v.reverse();
                }
                bytes[..w].copy_from_slice(&v);
                let mut cell = [0u64; 2];
                for (k, c) in cell.iter_mut().enumerate() {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(&bytes[8 * k..8 * k + 8]);
                    *c = u64::from_ne_bytes(b);
                }
                ObjSlot { cell, null: false }
            }
        }
    }

    pub(super) fn ptr(&mut self) -> *mut c_void {
        if self.null {
            std::ptr::null_mut()
        } else {
            self.cell.as_mut_ptr().cast()
        }
    }
}

/// A typed buffer after a call: `bytes` as the library left them, `overrun` when the
/// call wrote outside them, `stray` where (offsets from the start, negative = before).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct BufOut {
    pub bytes: Vec<u8>,
    pub overrun: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stray: Vec<i32>,
}

/// Storage for one data buffer during a call: a [`Guarded`] buffer, 8-byte aligned so
/// the library may store any datatype of the MPI-4.1 table (R-TYPE-1) at any element
/// offset. The caller sizes it as the call requires (count × datatype size, R-CVAR-8,
/// R-PREAD-1); a call writing more faults on the protected page or is reported by the
/// guard, never corrupting the worker.
pub(super) struct BufSlot(Guarded);

impl BufSlot {
    pub(super) fn new(bytes: usize) -> Self {
        BufSlot(Guarded::new(bytes, 8))
    }

    /// A buffer holding `data` (for the `*_write` calls), guarded the same way.
    pub(super) fn with_data(data: &[u8]) -> Self {
        BufSlot(Guarded::with_data(data, 8))
    }

    pub(super) fn ptr(&mut self) -> *mut c_void {
        self.0.ptr().cast()
    }

    pub(super) fn out(self) -> BufOut {
        let stray = self.0.stray();
        BufOut {
            bytes: self.0.bytes(),
            overrun: !stray.is_empty(),
            stray,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_obj_holds_the_value_in_its_width() {
        let mut s = ObjSlot::new(ObjArg::Local {
            value: 0x1_4400_0000,
            width: 4,
        });
        assert!(!s.ptr().is_null());
        let b: Vec<u8> = s.cell.iter().flat_map(|w| w.to_ne_bytes()).collect();
        assert_eq!(&b[..4], &0x4400_0000u32.to_ne_bytes());
        assert!(b[4..].iter().all(|x| *x == 0));
        let s = ObjSlot::new(ObjArg::Local {
            value: 0x7f00_1234_5678,
            width: 8,
        });
        assert_eq!(s.cell[0], 0x7f00_1234_5678);
        assert!(ObjSlot::new(ObjArg::Null).ptr().is_null());
    }

    #[test]
    fn buffers_report_writes_past_their_size() {
        let s = BufSlot::with_data(&[1, 2, 3]);
        let o = s.out();
        assert_eq!(o.bytes, vec![1, 2, 3]);
        assert!(!o.overrun);
        let mut s = BufSlot::new(3);
        // SAFETY: (test) 8 bytes from the start lie in the buffer (3) and guard (16).
        unsafe { s.ptr().cast::<u64>().write(0) };
        let o = s.out();
        assert_eq!(o.bytes, vec![0, 0, 0]);
        assert!(o.overrun, "bytes 3..8 lie in the guard");
        assert_eq!(o.stray, vec![3, 4, 5, 6, 7]);
        assert_eq!(BufSlot::new(0).out(), BufOut::default());
    }
}
