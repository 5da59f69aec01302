//! The reader's bookkeeping while a catalog is read: the target and the guard, the
//! string convention (NULL buffers, then exact ones, then one byte short), the calls
//! that failed, the values the profile could not decode, and the enumerations met so
//! far. Shared by `entries` and `categories`, which do the reading.

use super::{FailedCall, NameObs};
use crate::ffi::{RawHandle, StrArg, StrOut};
use crate::reading::Guard;
use crate::Target;
use mpit_reference::profile::ReturnCode;
use std::collections::BTreeMap;

pub(super) struct Reader<'a> {
    pub(super) t: &'a Target,
    pub(super) g: Guard<'a>,
    pub(super) names: Vec<NameObs>,
    pub(super) failed: Vec<FailedCall>,
    pub(super) undecoded: Vec<String>,
    pub(super) enums: BTreeMap<RawHandle, String>,
}

pub(super) fn text(o: &StrOut) -> String {
    o.text().unwrap_or_default()
}

impl Reader<'_> {
    pub(super) fn ok(&mut self, call: String, rc: i32) -> bool {
        let r = self.t.rc(rc);
        if r == ReturnCode::Success {
            true
        } else {
            self.failed.push(FailedCall { call, returned: r });
            false
        }
    }

    pub(super) fn undecoded<T>(&mut self, what: String) -> Option<T> {
        self.undecoded.push(what);
        None
    }

    /// Calls `f` twice: NULL buffers to learn the lengths, then exact-size buffers.
    /// Also reads the first string into a buffer one byte too small (R-STR-2).
    pub(super) fn strings<T>(
        &mut self,
        call: String,
        f: impl Fn(StrArg, StrArg) -> Option<(i32, T)>,
        lens: impl Fn(&T) -> (Option<i32>, Option<i32>),
        first_str: impl Fn(&T) -> StrOut,
    ) -> Option<(T, i32, Option<StrOut>)> {
        let (rc, first) = f(StrArg::LEN_ONLY, StrArg::LEN_ONLY)?;
        if !self.ok(call.clone(), rc) {
            return None;
        }
        let (n, d) = lens(&first);
        let size = |l: Option<i32>| l.unwrap_or(1).clamp(1, 1 << 20) as usize;
        let (rc, full) = f(StrArg::sized(size(n)), StrArg::sized(size(d)))?;
        if !self.ok(call.clone(), rc) {
            return None;
        }
        let truncated = match n {
            Some(n) if n >= 2 => {
                let (rc, t) = f(StrArg::sized(n as usize - 1), StrArg::LEN_ONLY)?;
                self.ok(call, rc).then(|| first_str(&t))
            }
            _ => None,
        };
        Some((full, n.unwrap_or(-1), truncated))
    }

    pub(super) fn enum_name(&mut self, h: RawHandle) -> Option<String> {
        if h == 0 {
            return None;
        }
        self.enums.get(&h).cloned()
    }

    pub(super) fn scan_enum(&mut self, h: RawHandle) {
        if h == 0 || self.enums.contains_key(&h) {
            return;
        }
        let Some((rc, (_, first))) = self.t.lib.enum_get_info(h, StrArg::LEN_ONLY) else {
            return;
        };
        if !self.ok(format!("MPI_T_enum_get_info({h:#x})"), rc) {
            return;
        }
        let cap = first.len.unwrap_or(1).clamp(1, 1 << 20) as usize;
        let Some((rc, (_, name))) = self.t.lib.enum_get_info(h, StrArg::sized(cap)) else {
            return;
        };
        if !self.ok(format!("MPI_T_enum_get_info({h:#x})"), rc) {
            return;
        }
        let name = text(&name);
        self.names.push(NameObs {
            kind: "enum".into(),
            index: self.enums.len() as i32,
            name: name.clone(),
            len_null_buf: first.len,
            len_exact: Some(cap as i32),
            get_index: None,
            truncated: None,
        });
        self.enums.insert(h, name);
    }
}
