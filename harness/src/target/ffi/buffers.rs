//! Typed data buffers (cvar/pvar values, event data) and the `obj_handle` argument of
//! the `*_handle_alloc` calls, as the harness passes them.

use super::{FILL, GUARD};
use std::ffi::c_void;

/// Unexamined bytes after the guard of a data buffer (see [`BufSlot`]).
const SLACK: usize = 48;

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
/// call wrote into the guard bytes past them.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct BufOut {
    pub bytes: Vec<u8>,
    pub overrun: bool,
}

/// Storage for one data buffer during a call: `bytes` bytes, then [`GUARD`] guard bytes,
/// all filled with [`FILL`] beforehand (so bytes the call did not write are visible too),
/// 8-byte aligned so the library may store any datatype of the MPI-4.1 table (R-TYPE-1)
/// at any element offset. A further [`SLACK`] bytes are allocated but not examined: a
/// write runs through the guard first, so the guard sees any overrun, and the slack keeps
/// a longer one (a whole element too many) inside memory the harness owns.
pub(super) struct BufSlot {
    words: Vec<u64>,
    bytes: usize,
}

impl BufSlot {
    /// A buffer of `bytes` bytes for the library to fill. The caller sizes it as the
    /// call requires (count × datatype size, R-CVAR-8, R-PREAD-1); there is no cap: a
    /// smaller buffer than the call writes would be the harness's memory error.
    pub(super) fn new(bytes: usize) -> Self {
        let n = (bytes + GUARD + SLACK).div_ceil(8);
        BufSlot {
            words: vec![u64::from_ne_bytes([FILL; 8]); n],
            bytes,
        }
    }

    /// A buffer holding `data` (for the `*_write` calls), guarded the same way.
    pub(super) fn with_data(data: &[u8]) -> Self {
        let mut s = BufSlot::new(data.len());
        for (k, b) in data.iter().enumerate() {
            let w = &mut s.words[k / 8];
            let mut wb = w.to_ne_bytes();
            wb[k % 8] = *b;
            *w = u64::from_ne_bytes(wb);
        }
        s
    }

    pub(super) fn ptr(&mut self) -> *mut c_void {
        self.words.as_mut_ptr().cast()
    }

    fn all_bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_ne_bytes()).collect()
    }

    pub(super) fn out(self) -> BufOut {
        let all = self.all_bytes();
        let overrun = all[self.bytes..self.bytes + GUARD]
            .iter()
            .any(|b| *b != FILL);
        BufOut {
            bytes: all[..self.bytes].to_vec(),
            overrun,
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
        s.words[0] = 0;
        let o = s.out();
        assert_eq!(o.bytes, vec![0, 0, 0]);
        assert!(o.overrun, "byte 3 lies in the guard");
        assert_eq!(BufSlot::new(0).out(), BufOut::default());
    }
}
