//! The orders reports are read in: results by area, case and subject (digit runs as
//! numbers), and statuses by how urgently a reader needs them.

use crate::verdict::{CaseResult, Status};
use std::cmp::Ordering;

/// The order of results in a report: area (in [`crate::verdict::Area::ALL`] order), then case id, then
/// subject, the strings in natural order.
pub fn result_order(a: &CaseResult, b: &CaseResult) -> Ordering {
    a.area
        .cmp(&b.area)
        .then_with(|| natural_cmp(&a.case, &b.case))
        .then_with(|| natural_cmp(&a.subject, &b.subject))
}

/// Compares strings with digit runs as numbers, so `cvar 9` sorts before `cvar 10`.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    fn chunks(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let mut digit = None;
        for (i, c) in s.char_indices() {
            let d = c.is_ascii_digit();
            if digit.is_some_and(|p| p != d) {
                out.push((digit == Some(true), &s[start..i]));
                start = i;
            }
            digit = Some(d);
        }
        if start < s.len() {
            out.push((digit == Some(true), &s[start..]));
        }
        out
    }
    let (ca, cb) = (chunks(a), chunks(b));
    for (x, y) in ca.iter().zip(cb.iter()) {
        let ord = match (x, y) {
            ((true, x), (true, y)) => {
                let (tx, ty) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
                tx.len().cmp(&ty.len()).then_with(|| tx.cmp(ty))
            }
            ((_, x), (_, y)) => x.cmp(y),
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    ca.len().cmp(&cb.len()).then_with(|| a.cmp(b))
}

/// Ordering of statuses by how much a reader needs to see them: top findings first.
pub fn rank(s: Status) -> u8 {
    match s {
        Status::Fail => 0,
        Status::Crash => 1,
        Status::Timeout => 2,
        Status::Error => 3,
        Status::Warn => 4,
        Status::Unsupported => 5,
        Status::Skip => 6,
        Status::Pass => 7,
    }
}

/// The worst of several statuses (by [`rank`]); `None` for none.
pub fn worst(statuses: impl IntoIterator<Item = Status>) -> Option<Status> {
    statuses.into_iter().min_by_key(|s| rank(*s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order() {
        let mut v = vec![
            "cvar 10 B",
            "cvar 9 A",
            "cvar 100",
            "",
            "pvar 1",
            "cvar 09 Z",
        ];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            v,
            vec![
                "",
                "cvar 9 A",
                "cvar 09 Z",
                "cvar 10 B",
                "cvar 100",
                "pvar 1"
            ]
        );
    }

    #[test]
    fn worst_is_by_rank() {
        assert_eq!(
            worst([Status::Pass, Status::Warn, Status::Crash]),
            Some(Status::Crash)
        );
        assert_eq!(worst([]), None);
    }
}
