//! The string convention of MPI-4.1 §15.3.3 (R-STR-1..6), judged here once for every
//! (buf, len) pair an MPI_T function returns: what was written into the buffer, where
//! the NUL is, what `*len` says, for every buffer size a case passes (NULL buffer,
//! NULL length, too short, exact, longer).

use super::value::hex;
use super::FILL;
use mpit_spec::cases::StrCheck;
use mpit_spec::readings::{
    cite, DESC_EMPTY_DESCRIPTION_ZERO_BUFFER, STR2_LENGTH_OF_THE_TRUNCATED_STRING,
};
use mpit_target::ffi::{StrArg, StrOut};

/// Which rule of MPI-4.1 §15.3.3 one (buf, len) pair broke, and its sentence: the one
/// wording of a finding, whichever oracle made it (the spec suite through [`string`],
/// the differential comparator from the model's and the target's pairs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StrBroke {
    /// R-STR-1: bytes written outside the `cap`-byte buffer, at these offsets.
    Outside { cap: usize, stray: Vec<i32> },
    /// R-STR-6: a name of length 0.
    EmptyName,
    /// R-STR-4: a NULL length pointer, and the buffer (these bytes) was written anyway.
    WrittenWithNullLen { buf: Vec<u8> },
    /// R-STR-3: n == 0, and the buffer was written anyway; `empty`: the string is
    /// empty (a description).
    WrittenAtZero { empty: bool },
    /// n == 0 for an empty description, one NUL written at its offset 0 and `*len` = 1:
    /// the second sentence of the conflict specs/readings.yaml
    /// desc.empty_description_zero_buffer ("the first character for desc must be set to
    /// the null character"), which the text does not rank below the first: the other
    /// side, a `warn` (a failure under --strict), in both oracles.
    NulAtZero,
    /// R-STR-1 (at most n-1 characters, then NUL) and R-STR-2 (the truncated prefix):
    /// the buffer of `n` bytes holds `got`, not the first `k` characters of `want`
    /// then NUL.
    Content {
        n: i64,
        got: Vec<u8>,
        k: usize,
        want: Vec<u8>,
    },
    /// The whole string was asked (a case's `exact`), and it was cut at `k` of `total`.
    Cut { k: usize, total: i64 },
    /// `*len` is `got`, not `want` (`None`: NULL, untouched): R-STR-3 when only the
    /// length was asked (NULL buffer or n == 0), else R-STR-2; `of_n`: the number of
    /// bytes written was wanted (the other reading), not strlen+1.
    Len {
        rule: &'static str,
        got: Option<i64>,
        want: Option<i64>,
        of_n: bool,
    },
    /// R-STR-2 on truncation, `*len` = `n` (the bytes written) where the literal reading
    /// says strlen+1 = `l`: the other reading (specs/readings.yaml
    /// str2.length_of_the_truncated_string), a SHOULD.
    LenIsN { n: i64, l: i64 },
}

impl StrBroke {
    /// R-STR-4 and R-STR-3: a pair the convention leaves untouched (a NULL length
    /// pointer: `len_null`; else n == 0) whose buffer was written, or `None`. `empty`:
    /// the string is empty (only a description may be).
    pub fn written_untouched(buf: &[u8], len_null: bool, empty: bool) -> Option<StrBroke> {
        if buf.iter().all(|c| *c == FILL) {
            return None;
        }
        Some(if len_null {
            StrBroke::WrittenWithNullLen { buf: buf.to_vec() }
        } else {
            StrBroke::WrittenAtZero { empty }
        })
    }

    /// `*len` is `got` where `want` was expected: R-STR-3 when only the length was
    /// asked (`only_length`: a NULL buffer or n == 0), else R-STR-2.
    pub fn len(only_length: bool, got: Option<i64>, want: Option<i64>, of_n: bool) -> StrBroke {
        StrBroke::Len {
            rule: if only_length { "R-STR-3" } else { "R-STR-2" },
            got,
            want,
            of_n,
        }
    }

    /// The entry of specs/readings.yaml whose other side this is, if it is one: the
    /// finding is then a `warn` naming the entry, a failure under --strict.
    pub fn reading(&self) -> Option<&'static str> {
        match self {
            StrBroke::LenIsN { .. } => Some(STR2_LENGTH_OF_THE_TRUNCATED_STRING),
            StrBroke::NulAtZero => Some(DESC_EMPTY_DESCRIPTION_ZERO_BUFFER),
            _ => None,
        }
    }

    /// n == 0 and an empty string: exactly one NUL at offset 0, inside a buffer that
    /// has room for it (`buf`) or just past a 0-byte one (`stray`, `stray_bytes`).
    pub fn nul_at_zero(buf: &[u8], stray: &[i32], stray_bytes: &[u8]) -> bool {
        let inside = buf.first() == Some(&0) && buf[1..].iter().all(|c| *c == FILL);
        let past = buf.is_empty() && stray == [0] && stray_bytes == [0];
        (inside && stray.is_empty()) || past
    }

    /// The rule id (specs/clauses.yaml) the finding is reported under.
    pub fn rule(&self) -> &'static str {
        match self {
            StrBroke::Outside { .. } | StrBroke::Content { .. } | StrBroke::Cut { .. } => "R-STR-1",
            StrBroke::EmptyName => "R-STR-6",
            StrBroke::WrittenWithNullLen { .. } => "R-STR-4",
            StrBroke::WrittenAtZero { .. } | StrBroke::NulAtZero => "R-STR-3",
            StrBroke::Len { rule, .. } => rule,
            StrBroke::LenIsN { .. } => "R-STR-2",
        }
    }
}

impl std::fmt::Display for StrBroke {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let opt = |v: &Option<i64>, none: &str| v.map_or(none.to_string(), |x| x.to_string());
        match self {
            StrBroke::Outside { cap, stray } => write!(
                f,
                "wrote outside the {cap}-byte buffer, at byte offsets {stray:?} (R-STR-1)"
            ),
            StrBroke::EmptyName => f.write_str("empty name (R-STR-6: length >= 1)"),
            StrBroke::WrittenWithNullLen { buf } => write!(
                f,
                "len was NULL but the buffer was written: {}",
                hex(buf, 32)
            ),
            StrBroke::WrittenAtZero { empty: true } => write!(
                f,
                "n was 0 but the buffer was written with more than the null character \
                 (R-STR-3; neither sentence of {DESC_EMPTY_DESCRIPTION_ZERO_BUFFER} asks it)"
            ),
            StrBroke::WrittenAtZero { empty: false } => {
                f.write_str("n was 0 but the buffer was written")
            }
            // An empty string here is a description (names are never empty, R-STR-6).
            StrBroke::NulAtZero => write!(
                f,
                "n was 0 and the first character was set to the null character, *len = 1 \
                 (R-STR-3 says nothing is written; the library follows the other sentence: {})",
                cite(DESC_EMPTY_DESCRIPTION_ZERO_BUFFER)
            ),
            StrBroke::Content { n, got, k, want } => write!(
                f,
                "buffer of {n} holds {:?}, want the first {k} characters of {:?} then NUL (R-STR-1/2)",
                String::from_utf8_lossy(got),
                String::from_utf8_lossy(want)
            ),
            StrBroke::Cut { k, total } => write!(f, "string cut at {k} of {total} characters"),
            StrBroke::Len {
                rule,
                got,
                want,
                of_n,
            } => write!(
                f,
                "*len = {}, want {} = {} ({rule})",
                opt(got, "NULL"),
                if *of_n { "n" } else { "strlen+1" },
                opt(want, "untouched")
            ),
            StrBroke::LenIsN { n, l } => write!(
                f,
                "*len = {n} = n on truncation (the other reading of R-STR-2; the literal one \
                 says strlen+1 = {l}; {STR2_LENGTH_OF_THE_TRUNCATED_STRING})"
            ),
        }
    }
}

/// MPI-4.1 §15.3.3 for one (buf, len) pair: `arg` as passed, `out` as returned, `want`
/// the string the library holds (from the inventory). `Err` says what broke.
pub fn string(
    check: StrCheck,
    arg: StrArg,
    out: &StrOut,
    want: impl AsRef<[u8]>,
) -> Result<(), String> {
    broke(check, arg, out, want.as_ref()).map_err(|b| b.to_string())
}

/// [`string`], with what broke as a [`StrBroke`].
pub fn broke(check: StrCheck, arg: StrArg, out: &StrOut, wb: &[u8]) -> Result<(), StrBroke> {
    // Bytes, not text: a library's string need not be UTF-8 (Intel MPI's descriptions
    // hold Latin-1 bytes), and lengths are in bytes.
    let l = wb.len() as i64 + 1;
    // n == 0 for an empty description, and the NUL the description sentence asks for
    // written at offset 0: the other side of a conflict the text leaves open, unless
    // `*len` breaks both sentences (they agree on 1).
    if l == 1 && arg.len == Some(0) {
        let buf = out.buf.as_deref().unwrap_or(&[]);
        if StrBroke::nul_at_zero(buf, &out.stray, &out.stray_bytes) {
            return match out.len {
                Some(1) => Err(StrBroke::NulAtZero),
                got => Err(StrBroke::len(true, got.map(i64::from), Some(1), false)),
            };
        }
    }
    if out.overrun {
        return Err(StrBroke::Outside {
            cap: arg.cap.unwrap_or(0),
            stray: out.stray.clone(),
        });
    }
    if check == StrCheck::NonEmpty {
        let t = out.text().unwrap_or_default();
        return if t.is_empty() {
            Err(StrBroke::EmptyName)
        } else {
            Ok(())
        };
    }
    let Some(len_out) = out.len else {
        // R-STR-4: NULL length pointer → the buffer is ignored, nothing returned.
        return match out
            .buf
            .as_deref()
            .and_then(|b| StrBroke::written_untouched(b, true, false))
        {
            Some(b) => Err(b),
            None => Ok(()),
        };
    };
    let n = match (&out.buf, arg.len) {
        (Some(_), Some(n)) if n > 0 => n as i64,
        _ => {
            // R-STR-3: NULL buffer or n == 0 → only the length, strlen+1.
            let written = out.buf.as_deref();
            if let Some(b) = written.and_then(|b| StrBroke::written_untouched(b, false, l == 1)) {
                return Err(b);
            }
            return if len_out as i64 == l {
                Ok(())
            } else {
                Err(StrBroke::len(true, Some(len_out.into()), Some(l), false))
            };
        }
    };
    let buf = out.buf.as_deref().unwrap_or(&[]);
    let k = (n - 1).min(l - 1) as usize;
    if buf.len() < k + 1 || buf[..k] != wb[..k] || buf[k] != 0 {
        return Err(StrBroke::Content {
            n,
            got: buf[..buf.len().min(k + 1)].to_vec(),
            k,
            want: wb.to_vec(),
        });
    }
    if check == StrCheck::Exact && k as i64 != l - 1 {
        return Err(StrBroke::Cut { k, total: l - 1 });
    }
    let want_len = match check {
        StrCheck::TruncatedN if l > n => n,
        _ => l,
    };
    if len_out as i64 != want_len {
        return Err(StrBroke::len(
            false,
            Some(len_out.into()),
            Some(want_len),
            want_len != l,
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
            stray_bytes: vec![],
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

    /// The sentences are the spec suite's published messages: the comparator reuses
    /// them, so they stay word for word.
    #[test]
    fn sentences_keep_their_words() {
        let arg = StrArg::sized(4);
        let e = |o: &StrOut, check| string(check, arg, o, "abcdef").unwrap_err();
        assert_eq!(
            e(&out(b"abc\0", Some(4)), StrCheck::Truncated),
            "*len = 4, want strlen+1 = 7 (R-STR-2)"
        );
        assert_eq!(
            e(&out(b"abcd", Some(7)), StrCheck::Truncated),
            "buffer of 4 holds \"abcd\", want the first 3 characters of \"abcdef\" then NUL (R-STR-1/2)"
        );
        let mut o = out(b"abc\0", Some(7));
        (o.overrun, o.stray) = (true, vec![4]);
        assert_eq!(
            e(&o, StrCheck::Truncated),
            "wrote outside the 4-byte buffer, at byte offsets [4] (R-STR-1)"
        );
        let len_only = StrOut {
            buf: None,
            len: Some(6),
            overrun: false,
            stray: vec![],
            stray_bytes: vec![],
        };
        let b = broke(StrCheck::Truncated, StrArg::LEN_ONLY, &len_only, b"abcdef").unwrap_err();
        assert_eq!(
            (b.rule(), b.to_string()),
            (
                "R-STR-3",
                "*len = 6, want strlen+1 = 7 (R-STR-3)".to_string()
            )
        );
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
            stray_bytes: vec![],
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
            stray_bytes: vec![],
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
