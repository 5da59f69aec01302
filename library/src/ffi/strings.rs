//! The string convention's (buf, len) pairs (MPI-4.1 §15.3.3, R-STR-1..6) as the harness
//! passes them: a buffer of the asked size between a canary and guard bytes that end at
//! a PROT_NONE page ([`Guarded`]), so a write outside it is seen byte-exactly.

use super::guarded::Guarded;
use std::ffi::{c_char, c_int};

/// One (buf, len) argument pair of the string convention, as the harness passes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StrArg {
    /// Buffer capacity in bytes; `None` passes a NULL buffer.
    pub cap: Option<usize>,
    /// Value of `*len` on input; `None` passes a NULL length pointer.
    pub len: Option<i32>,
}

impl StrArg {
    /// A buffer of `n` bytes with `*len = n`.
    pub fn sized(n: usize) -> Self {
        StrArg {
            cap: Some(n),
            len: Some(n as i32),
        }
    }
    /// NULL buffer, `*len = 0`: asks only for the length (R-STR-3).
    pub const LEN_ONLY: StrArg = StrArg {
        cap: None,
        len: Some(0),
    };
    /// NULL buffer and NULL length pointer: the whole pair left out (R-CVAR-3).
    pub const NULL: StrArg = StrArg {
        cap: None,
        len: None,
    };
}

/// The OUT arguments of a `*_get_info` call passed as NULL, by the names the case
/// language gives them (`verbosity`, `bind`, `num_elements`, ...). R-CVAR-3: "A NULL OUT
/// parameter to *_get_info is ignored"; the string pairs are the caller's `StrArg`s.
#[derive(Debug, Clone, Copy, Default)]
pub struct Nulls<'a>(pub &'a [&'a str]);

impl Nulls<'_> {
    pub const NONE: Nulls<'static> = Nulls(&[]);

    pub fn has(&self, name: &str) -> bool {
        self.0.contains(&name)
    }

    /// `slot`, or NULL when `name` is passed as NULL.
    pub(super) fn ptr<T>(&self, name: &str, slot: &mut T) -> *mut T {
        if self.has(name) {
            std::ptr::null_mut()
        } else {
            slot
        }
    }
}

/// What came back in one (buf, len) pair.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct StrOut {
    /// The buffer after the call (`cap` bytes), if one was passed.
    pub buf: Option<Vec<u8>>,
    /// `*len` after the call, if a length pointer was passed.
    pub len: Option<i32>,
    /// Whether the call wrote outside the buffer (into the canary before it or the
    /// guard after it).
    pub overrun: bool,
    /// Where: offsets relative to the buffer's start (negative = before it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stray: Vec<i32>,
    /// The bytes written there, in the order of `stray` (a NUL at offset 0 of a 0-byte
    /// buffer is what one of two conflicting sentences asks of an empty description:
    /// specs/readings.yaml desc.empty_description_zero_buffer).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stray_bytes: Vec<u8>,
}

impl StrOut {
    /// The string up to the first NUL (lossy UTF-8), if a buffer was passed.
    pub fn text(&self) -> Option<String> {
        self.buf.as_ref().map(|b| {
            let end = b.iter().position(|c| *c == 0).unwrap_or(b.len());
            String::from_utf8_lossy(&b[..end]).into_owned()
        })
    }
}

/// Storage for one string pair during a call: a guarded buffer of `cap` bytes (none
/// for a NULL buffer) and the `*len` cell.
pub(super) struct StrSlot {
    arg: StrArg,
    buf: Option<Guarded>,
    len: c_int,
}

impl StrSlot {
    pub(super) fn new(arg: StrArg) -> Self {
        StrSlot {
            arg,
            // Strings need no alignment: the guard then ends exactly at the fence.
            buf: arg.cap.map(|n| Guarded::new(n, 1)),
            len: arg.len.unwrap_or(0),
        }
    }
    pub(super) fn buf_ptr(&mut self) -> *mut c_char {
        match &mut self.buf {
            Some(g) => g.ptr().cast(),
            None => std::ptr::null_mut(),
        }
    }
    pub(super) fn len_ptr(&mut self) -> *mut c_int {
        match self.arg.len {
            Some(_) => &mut self.len,
            None => std::ptr::null_mut(),
        }
    }
    pub(super) fn out(self) -> StrOut {
        let stray = self.buf.as_ref().map(Guarded::stray).unwrap_or_default();
        StrOut {
            buf: self.buf.as_ref().map(Guarded::bytes),
            len: self.arg.len.map(|_| self.len),
            overrun: !stray.is_empty(),
            stray,
            stray_bytes: self
                .buf
                .as_ref()
                .map(Guarded::stray_bytes)
                .unwrap_or_default(),
        }
    }
}
