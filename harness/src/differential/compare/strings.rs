//! The string convention (MPI-4.1 §15.3.3, R-STR-1..4): what a call may write into a
//! string buffer of `n` bytes and what it returns in `*len`, judged for every string
//! OUT argument of a call that succeeded in both engines. The bytes are compared with
//! what the convention writes (the model's), so a name of other characters shows here
//! too; the caller tells that apart (another entry, not the convention).
//!
//! What broke, its rule and its sentence are the spec suite's (`judge::StrBroke`): one
//! finding has one wording, whichever oracle made it. Only the inputs differ: the
//! suite knows the whole string, the comparator what the convention writes of it.

use super::{Ctx, Divergence};
use crate::differential::obs::{Obs, StrObs};
use crate::judge::StrBroke;
use mpit_spec::verdict::Level;

/// What broke in the target's pair `ts`, judged against the model's `ms` (the
/// convention's bytes and `*len`), or `None`.
fn broke(ms: &StrObs, ts: &StrObs) -> Option<StrBroke> {
    // n == 0 for an empty description (the convention writes nothing and says 1): the
    // NUL the description sentence asks for at offset 0 is the other side of a conflict
    // (specs/readings.yaml desc.empty_description_zero_buffer), unless `*len` breaks
    // both sentences.
    if let (Some(w), Some(1), Some(b)) = (&ms.buf, ms.len, &ts.buf) {
        if w.is_empty() && StrBroke::nul_at_zero(b, &ts.stray, &ts.stray_bytes) {
            return Some(match ts.len {
                Some(1) => StrBroke::NulAtZero,
                got => StrBroke::len(true, got.map(i64::from), Some(1), false),
            });
        }
    }
    // R-STR-1: nothing outside the buffer.
    if !ts.stray.is_empty() {
        return Some(StrBroke::Outside {
            cap: ts.buf.as_ref().map_or(0, Vec::len),
            stray: ts.stray.clone(),
        });
    }
    // The model does not know the string's bytes (they are not UTF-8): what the
    // convention writes of them is judged by the suite, which reads them whole.
    if ms.inexact {
        return None;
    }
    if let (Some(w), Some(b)) = (&ms.buf, &ts.buf) {
        // R-STR-1/2: the first k characters, then NUL (what the convention writes).
        if b.len() < w.len() || b[..w.len()] != w[..] {
            let k = w.iter().position(|x| *x == 0).unwrap_or(w.len());
            return Some(StrBroke::Content {
                n: b.len() as i64,
                got: b[..w.len().min(b.len())].to_vec(),
                k,
                want: w[..k].to_vec(),
            });
        }
        // R-STR-4 (a NULL length) and R-STR-3 (n == 0): nothing may be written.
        if w.is_empty() {
            if let Some(x) = StrBroke::written_untouched(b, ms.len.is_none(), ms.len == Some(1)) {
                return Some(x);
            }
        }
    }
    if ms.len == ts.len {
        return None;
    }
    let (got, want) = (ts.len.map(i64::from), ms.len.map(i64::from));
    // The other reading of R-STR-2 (specs/readings.yaml
    // str2.length_of_the_truncated_string): on truncation *len = n, the bytes written.
    let truncated =
        matches!((&ms.buf, ms.len), (Some(w), Some(l)) if !w.is_empty() && (w.len() as i32) < l);
    let n = ts.buf.as_ref().map(|b| b.len() as i64);
    if let (true, Some(g), Some(n), Some(l)) = (truncated, got, n, want) {
        if g == n {
            return Some(StrBroke::LenIsN { n, l });
        }
    }
    // R-STR-3 when only the length was asked (a NULL buffer, or n == 0 with a string
    // to measure), else R-STR-2.
    let only_length = match (&ms.buf, ms.len) {
        (None, _) => true,
        (Some(w), Some(l)) => w.is_empty() && l > 0,
        _ => false,
    };
    Some(StrBroke::len(only_length, got, want, false))
}

pub(super) fn compare_str(
    cx: &Ctx<'_>,
    field: &str,
    ms: &StrObs,
    ts: &StrObs,
    m: &Obs,
    t: &Obs,
) -> Option<Divergence> {
    let b = broke(ms, ts)?;
    // The other side of an entry of specs/readings.yaml (the other reading of R-STR-2,
    // the other sentence of the empty description's conflict): careful implementers
    // hold it, the literal one decides under --strict. A SHOULD naming the entry.
    let level = match b.reading() {
        Some(_) => Level::Should,
        None => Level::Must,
    };
    Some(cx.div(b.rule(), level, format!("{field}: {b}"), m, t))
}
