//! The string convention of MPI-4.1 §15.3.3 (R-STR-1..6), judged here once for every
//! (buf, len) pair an MPI_T function returns: what was written into the buffer, where
//! the NUL is, what `*len` says, for every buffer size a case passes (NULL buffer,
//! NULL length, too short, exact, longer).

use super::value::hex;
use super::FILL;
use crate::cases::StrCheck;
use crate::readings::{self, DESC_EMPTY_DESCRIPTION_ZERO_BUFFER};
use crate::target::ffi::{StrArg, StrOut};

/// MPI-4.1 §15.3.3 for one (buf, len) pair: `arg` as passed, `out` as returned, `want`
/// the string the library holds (from the inventory). `Err` says what broke.
pub fn string(
    check: StrCheck,
    arg: StrArg,
    out: &StrOut,
    want: impl AsRef<[u8]>,
) -> Result<(), String> {
    // Bytes, not text: a library's string need not be UTF-8 (Intel MPI's descriptions
    // hold Latin-1 bytes), and lengths are in bytes.
    let wb = want.as_ref();
    let want = String::from_utf8_lossy(wb);
    let l = wb.len() as i64 + 1;
    if out.overrun {
        return Err(format!(
            "wrote outside the {}-byte buffer, at byte offsets {:?} (R-STR-1)",
            arg.cap.unwrap_or(0),
            out.stray
        ));
    }
    if check == StrCheck::NonEmpty {
        let t = out.text().unwrap_or_default();
        return if t.is_empty() {
            Err("empty name (R-STR-6: length >= 1)".into())
        } else {
            Ok(())
        };
    }
    let Some(len_out) = out.len else {
        // R-STR-4: NULL length pointer → the buffer is ignored, nothing returned.
        return match &out.buf {
            Some(b) if b.iter().any(|c| *c != FILL) => Err(format!(
                "len was NULL but the buffer was written: {}",
                hex(b, 32)
            )),
            _ => Ok(()),
        };
    };
    let n = match (&out.buf, arg.len) {
        (Some(_), Some(n)) if n > 0 => n as i64,
        _ => {
            // R-STR-3: NULL buffer or n == 0 → only the length, strlen+1.
            if let Some(b) = &out.buf {
                if b.iter().any(|c| *c != FILL) {
                    // An empty string here is a description (names are never empty,
                    // R-STR-6): the conflict with "desc[0] must be set to the null
                    // character" is decided for R-STR-3 (specs/readings.yaml).
                    return Err(match l {
                        1 => format!(
                            "n was 0 but the buffer was written (R-STR-3; {})",
                            readings::cite(DESC_EMPTY_DESCRIPTION_ZERO_BUFFER)
                        ),
                        _ => "n was 0 but the buffer was written".into(),
                    });
                }
            }
            return if len_out as i64 == l {
                Ok(())
            } else {
                Err(format!("*len = {len_out}, want strlen+1 = {l} (R-STR-3)"))
            };
        }
    };
    let buf = out.buf.as_deref().unwrap_or(&[]);
    let k = (n - 1).min(l - 1) as usize;
    if buf.len() < k + 1 || buf[..k] != wb[..k] || buf[k] != 0 {
        let got = String::from_utf8_lossy(&buf[..buf.len().min(k + 1)]).into_owned();
        return Err(format!(
            "buffer of {n} holds {got:?}, want the first {k} characters of {want:?} then NUL (R-STR-1/2)"
        ));
    }
    if check == StrCheck::Exact && k as i64 != l - 1 {
        return Err(format!("string cut at {k} of {} characters", l - 1));
    }
    let want_len = match check {
        StrCheck::TruncatedN if l > n => n,
        _ => l,
    };
    if len_out as i64 != want_len {
        return Err(format!(
            "*len = {len_out}, want {} = {want_len} (R-STR-2)",
            if want_len == l { "strlen+1" } else { "n" }
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(buf: &[u8], len: Option<i32>) -> StrOut {
        StrOut {
            buf: Some(buf.to_vec()),
            len,
            overrun: false,
            stray: vec![],
        }
    }

    #[test]
    fn strings_are_judged_as_bytes() {
        // "r\xe9seau" (Latin-1): 6 bytes, 7 with the NUL, whatever its lossy text says.
        let want: &[u8] = b"r\xe9seau";
        let arg = StrArg::sized(4);
        assert_eq!(
            string(StrCheck::Truncated, arg, &out(b"r\xe9s\0", Some(7)), want),
            Ok(())
        );
        assert!(string(StrCheck::Truncated, arg, &out(b"r\xe9s\0", Some(9)), want).is_err());
    }

    #[test]
    fn string_convention() {
        let arg = StrArg::sized(4);
        assert_eq!(
            string(StrCheck::Truncated, arg, &out(b"abc\0", Some(7)), "abcdef"),
            Ok(())
        );
        let e = string(StrCheck::Truncated, arg, &out(b"abc\0", Some(4)), "abcdef").unwrap_err();
        assert!(e.contains("want strlen+1 = 7"), "{e}");
        assert_eq!(
            string(StrCheck::TruncatedN, arg, &out(b"abc\0", Some(4)), "abcdef"),
            Ok(())
        );
        assert!(string(StrCheck::Truncated, arg, &out(b"abcd", Some(7)), "abcdef").is_err());
        let mut o = out(b"abc\0", Some(7));
        o.overrun = true;
        assert!(string(StrCheck::Truncated, arg, &o, "abcdef").is_err());
        let untouched = StrOut {
            buf: Some(vec![FILL; 4]),
            len: None,
            overrun: false,
            stray: vec![],
        };
        assert_eq!(
            string(
                StrCheck::Truncated,
                StrArg {
                    cap: Some(4),
                    len: None
                },
                &untouched,
                "ab"
            ),
            Ok(())
        );
        let null_buf = StrOut {
            buf: None,
            len: Some(3),
            overrun: false,
            stray: vec![],
        };
        assert_eq!(
            string(
                StrCheck::Truncated,
                StrArg {
                    cap: None,
                    len: Some(9)
                },
                &null_buf,
                "ab"
            ),
            Ok(())
        );
        assert_eq!(
            string(
                StrCheck::Exact,
                StrArg::sized(9),
                &out(b"ab\0\xa5\xa5\xa5\xa5\xa5\xa5", Some(3)),
                "ab"
            ),
            Ok(())
        );
    }
}
