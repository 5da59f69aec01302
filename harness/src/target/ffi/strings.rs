//! The string convention's (buf, len) pairs (MPI-4.1 §15.3.3, R-STR-1..6) as the harness
//! passes them: a buffer of the asked size followed by guard bytes, so a write past
//! `*len` bytes is seen byte-exactly.

use super::{FILL, GUARD};
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
}

/// What came back in one (buf, len) pair.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct StrOut {
    /// The buffer after the call (`cap` bytes), if one was passed.
    pub buf: Option<Vec<u8>>,
    /// `*len` after the call, if a length pointer was passed.
    pub len: Option<i32>,
    /// Whether the call wrote into the guard bytes just past the buffer.
    pub overrun: bool,
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

/// Storage for one string pair during a call: `cap` bytes and a guard.
pub(super) struct StrSlot {
    arg: StrArg,
    buf: Vec<u8>,
    len: c_int,
}

impl StrSlot {
    pub(super) fn new(arg: StrArg) -> Self {
        // A fill byte that is not NUL, so a missing terminator is visible.
        StrSlot {
            arg,
            buf: vec![FILL; arg.cap.unwrap_or(0) + GUARD],
            len: arg.len.unwrap_or(0),
        }
    }
    pub(super) fn buf_ptr(&mut self) -> *mut c_char {
        match self.arg.cap {
            Some(_) => self.buf.as_mut_ptr().cast(),
            None => std::ptr::null_mut(),
        }
    }
    pub(super) fn len_ptr(&mut self) -> *mut c_int {
        match self.arg.len {
            Some(_) => &mut self.len,
            None => std::ptr::null_mut(),
        }
    }
    pub(super) fn out(mut self) -> StrOut {
        let cap = self.arg.cap.unwrap_or(0);
        let overrun = self.buf[cap..].iter().any(|b| *b != FILL);
        self.buf.truncate(cap);
        StrOut {
            buf: self.arg.cap.map(|_| self.buf),
            len: self.arg.len.map(|_| self.len),
            overrun,
        }
    }
}
