//! The string convention (MPI-4.1 §15.3.3, R-STR-1..4): what a call may write into a
//! string buffer of `n` bytes and what it returns in `*len`, judged for every string
//! OUT argument of a call that succeeded in both engines. The bytes are compared with
//! what the convention writes (the model's), so a name of other characters shows here
//! too; the caller tells that apart (another entry, not the convention).

use super::{Ctx, Divergence};
use crate::differential::obs::{Obs, StrObs};
use crate::readings::{
    cite, DESC_EMPTY_DESCRIPTION_ZERO_BUFFER, STR2_LENGTH_OF_THE_TRUNCATED_STRING,
};
use crate::target::ffi::FILL;
use crate::verdict::Level;

pub(super) fn compare_str(
    cx: &Ctx<'_>,
    field: &str,
    ms: &StrObs,
    ts: &StrObs,
    m: &Obs,
    t: &Obs,
) -> Option<Divergence> {
    let what =
        |rule: &str, s: String| Some(cx.div(rule, Level::Must, format!("{field}: {s}"), m, t));
    if !ts.stray.is_empty() {
        return what(
            "R-STR-1",
            format!("wrote outside the buffer at byte offsets {:?}", ts.stray),
        );
    }
    if let (Some(w), Some(b)) = (&ms.buf, &ts.buf) {
        if b.len() < w.len() || b[..w.len()] != w[..] {
            let got = &b[..w.len().min(b.len())];
            return what(
                "R-STR-1",
                format!(
                    "buffer of {} bytes holds {:?}, the convention writes {:?}",
                    b.len(),
                    String::from_utf8_lossy(got),
                    String::from_utf8_lossy(w)
                ),
            );
        }
        if w.is_empty() && b.iter().any(|x| *x != FILL) {
            // Nothing may be written: n == 0 (R-STR-3) or a NULL length (R-STR-4).
            let rule = if ms.len.is_none() {
                "R-STR-4"
            } else {
                "R-STR-3"
            };
            // An empty description at n == 0: the conflict of R-STR-3 with the
            // description sentence is decided for R-STR-3 (specs/readings.yaml
            // desc.empty_description_zero_buffer).
            let conflict = match (rule, ms.len) {
                ("R-STR-3", Some(1)) if field == "desc" => {
                    format!(" ({})", cite(DESC_EMPTY_DESCRIPTION_ZERO_BUFFER))
                }
                _ => String::new(),
            };
            return what(
                rule,
                format!("wrote into a buffer the convention leaves untouched{conflict}"),
            );
        }
    }
    if ms.len != ts.len {
        // The other reading of R-STR-2 (specs/readings.yaml
        // str2.length_of_the_truncated_string): on truncation *len = n, the bytes
        // written. Careful implementers hold it; the literal reading decides under
        // --strict (specs/readings.yaml).
        let truncated = matches!((&ms.buf, ms.len), (Some(w), Some(l)) if !w.is_empty() && (w.len() as i32) < l);
        let n = ts.buf.as_ref().map(|b| b.len() as i32);
        if truncated && ts.len.is_some() && ts.len == n {
            return Some(cx.div(
                "R-STR-2",
                Level::Should,
                format!(
                    "{field}: *len is {} = n on truncation (the other reading of R-STR-2; the literal one says strlen+1 = {}; {})",
                    n.unwrap_or(0),
                    ms.len.unwrap_or(0),
                    STR2_LENGTH_OF_THE_TRUNCATED_STRING
                ),
                m,
                t,
            ));
        }
        let rule = match (&ms.buf, ms.len) {
            (None, _) => "R-STR-3",
            (Some(w), Some(l)) if w.is_empty() && l > 0 => "R-STR-3",
            _ => "R-STR-2",
        };
        return what(
            rule,
            format!(
                "*len is {} where strlen+1 = {} was expected",
                ts.len.map_or("NULL".into(), |l| l.to_string()),
                ms.len.map_or("untouched".into(), |l| l.to_string())
            ),
        );
    }
    None
}
