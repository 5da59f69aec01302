//! The MPI_T string convention (MPI-4.1 §15.3.3, R-STR-1..4), implemented once.
//!
//! Every string-returning function (cvar/pvar/category/enum/item/event/source names and
//! descriptions) computes a [`StringOut`] here; the C ABI layer only carries it out.

use crate::faults::{Fault, Faults};

/// What the caller passed for one (buf, len) pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StringArg {
    /// Whether `buf` is NULL.
    pub buf_null: bool,
    /// `*len` on input; `None` when `len` itself is NULL.
    pub len: Option<i32>,
}

/// What to do with one (buf, len) pair.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StringOut {
    /// Bytes to write at the start of `buf` (empty: leave the buffer untouched).
    pub write: Vec<u8>,
    /// Value to store in `*len` (`None`: leave it, e.g. when `len` is NULL).
    pub len: Option<i32>,
    /// Fault `null-len-deref`: the caller must dereference the NULL length pointer.
    pub deref_null_len: bool,
}

/// Applies the convention to `s` (which the caller already made the "notional internal
/// character array" of R-STR-5: the same bytes on every call).
pub fn convention(s: &str, arg: StringArg, faults: &Faults) -> StringOut {
    let bytes = s.as_bytes();
    // MPI-4.1 §15.3.3: the returned length is strlen+1, also when truncated (R-STR-2).
    let full = i32::try_from(bytes.len() + 1).unwrap_or(i32::MAX);
    let Some(n) = arg.len else {
        // R-STR-4: a NULL length pointer means the buffer is ignored and nothing returned.
        return StringOut {
            deref_null_len: faults.has(Fault::NullLenDeref),
            ..StringOut::default()
        };
    };
    if arg.buf_null || n <= 0 {
        // R-STR-3: nothing is written; the length is strlen+1.
        let len = if faults.has(Fault::NullBufLenNoPlusOne) {
            full - 1
        } else {
            full
        };
        return StringOut {
            write: Vec::new(),
            len: Some(len),
            deref_null_len: false,
        };
    }
    let n = n as usize;
    if bytes.len() < n {
        // Fits with its NUL.
        let mut write = bytes.to_vec();
        write.push(0);
        return StringOut {
            write,
            len: Some(full),
            deref_null_len: false,
        };
    }
    // R-STR-1/2: truncated to n-1 characters plus NUL; length still strlen+1.
    let mut write = bytes[..n - 1].to_vec();
    if faults.has(Fault::OverrunOneByte) {
        write.push(bytes[n - 1]);
    }
    if !faults.has(Fault::MissingNul) {
        write.push(0);
    }
    let len = if faults.has(Fault::TruncLenOffByOne) {
        full - 1
    } else {
        full
    };
    StringOut {
        write,
        len: Some(len),
        deref_null_len: false,
    }
}

/// The description convention (R-STR-6): no description is the empty string, length 1.
pub fn description<'a>(desc: &'a Option<String>, faults: &Faults) -> DescStr<'a> {
    match desc.as_deref() {
        Some(d) if !d.is_empty() => DescStr {
            text: d,
            empty_len_zero: false,
        },
        _ => DescStr {
            text: "",
            empty_len_zero: faults.has(Fault::EmptyDescLenZero),
        },
    }
}

/// A description ready for [`DescStr::out`].
#[derive(Debug, Clone, Copy)]
pub struct DescStr<'a> {
    text: &'a str,
    empty_len_zero: bool,
}

impl DescStr<'_> {
    pub fn out(&self, arg: StringArg, faults: &Faults) -> StringOut {
        let mut out = convention(self.text, arg, faults);
        if self.empty_len_zero && out.len.is_some() {
            out.len = Some(0);
        }
        out
    }
}

/// Applies a [`StringOut`] to a Rust buffer of `cap` bytes the way the C ABI would,
/// for tests and the in-process oracle: returns the buffer and the length.
pub fn simulate(
    s: &str,
    buf: Option<usize>,
    len: Option<i32>,
    faults: &Faults,
) -> (Option<Vec<u8>>, StringOut) {
    let out = convention(
        s,
        StringArg {
            buf_null: buf.is_none(),
            len,
        },
        faults,
    );
    let buf = buf.map(|cap| {
        let mut b = vec![0xA5u8; cap + 8];
        b[..out.write.len()].copy_from_slice(&out.write);
        b
    });
    (buf, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arg(buf_null: bool, len: Option<i32>) -> StringArg {
        StringArg { buf_null, len }
    }

    #[test]
    fn r_str_exact_fit_and_truncation() {
        let f = Faults::none();
        // n = strlen+1: exact fit.
        assert_eq!(convention("abc", arg(false, Some(4)), &f).write, b"abc\0");
        // n = strlen: truncated by one, length still strlen+1 (R-STR-2).
        let o = convention("abc", arg(false, Some(3)), &f);
        assert_eq!((o.write.as_slice(), o.len), (&b"ab\0"[..], Some(4)));
        // n = 1: empty output.
        assert_eq!(convention("abc", arg(false, Some(1)), &f).write, b"\0");
    }

    #[test]
    fn r_str_3_null_buffer_or_zero_length_writes_nothing() {
        let f = Faults::none();
        for a in [
            arg(true, Some(10)),
            arg(false, Some(0)),
            arg(false, Some(-3)),
        ] {
            let o = convention("hello", a, &f);
            assert!(o.write.is_empty());
            assert_eq!(o.len, Some(6));
        }
    }

    #[test]
    fn r_str_4_null_length_returns_nothing() {
        let o = convention("hello", arg(false, None), &Faults::none());
        assert_eq!(o, StringOut::default());
    }

    #[test]
    fn r_str_6_missing_description_is_empty_with_length_one() {
        let f = Faults::none();
        let o = description(&None, &f).out(arg(false, Some(8)), &f);
        assert_eq!((o.write.as_slice(), o.len), (&b"\0"[..], Some(1)));
        let o = description(&Some(String::new()), &f).out(arg(true, Some(8)), &f);
        assert_eq!(o.len, Some(1));
    }

    #[test]
    fn each_string_fault_changes_the_result() {
        let cases = [
            (Fault::TruncLenOffByOne, arg(false, Some(2))),
            (Fault::MissingNul, arg(false, Some(2))),
            (Fault::OverrunOneByte, arg(false, Some(2))),
            (Fault::NullBufLenNoPlusOne, arg(true, Some(2))),
            (Fault::NullLenDeref, arg(false, None)),
        ];
        for (fault, a) in cases {
            let good = convention("hello", a, &Faults::none());
            let bad = convention("hello", a, &Faults::one(fault));
            assert_ne!(good, bad, "{fault}");
        }
        let f = Faults::one(Fault::EmptyDescLenZero);
        assert_eq!(
            description(&None, &f).out(arg(true, Some(0)), &f).len,
            Some(0)
        );
    }

    proptest! {
        /// R-STR-1..4 for any string, any buffer size, NULL buffer and NULL length.
        #[test]
        fn convention_holds_for_any_string_and_size(
            s in "[^\u{0}]{0,300}",
            n in -2i32..400,
            buf_null in any::<bool>(),
            len_null in prop::bool::weighted(0.1),
        ) {
            let len = if len_null { None } else { Some(n) };
            let o = convention(&s, arg(buf_null, len), &Faults::none());
            let strlen = s.len();
            match len {
                None => prop_assert_eq!(o, StringOut::default()),
                Some(n) if buf_null || n <= 0 => {
                    prop_assert!(o.write.is_empty());
                    prop_assert_eq!(o.len, Some(strlen as i32 + 1));
                }
                Some(n) => {
                    let n = n as usize;
                    prop_assert!(o.write.len() <= n, "at most n bytes");
                    prop_assert_eq!(*o.write.last().unwrap(), 0u8, "NUL-terminated");
                    let kept = &o.write[..o.write.len() - 1];
                    prop_assert_eq!(kept, &s.as_bytes()[..strlen.min(n - 1)]);
                    prop_assert_eq!(o.len, Some(strlen as i32 + 1));
                }
            }
        }
    }
}
