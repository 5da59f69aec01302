//! The decoded view's bookkeeping while it walks the one read in the order the catalog
//! was always read: the string convention's results (lengths, exact buffers, one byte
//! short), the calls that failed, the values the profile could not decode, and the
//! enumerations met so far. Shared by `decode` and `categories`.

use super::raw::{cap, ok, Info, InfoRead, RawCatalog, RawEnum};
use super::{FailedCall, NameObs};
use crate::ffi::{RawHandle, StrOut};
use crate::Target;
use std::collections::{BTreeMap, HashMap};

pub(super) struct Reader<'a> {
    pub(super) t: &'a Target,
    pub(super) names: Vec<NameObs>,
    pub(super) failed: Vec<FailedCall>,
    pub(super) undecoded: Vec<String>,
    pub(super) enums: BTreeMap<RawHandle, String>,
    /// The enumerations of the read, by handle.
    read: HashMap<RawHandle, &'a RawEnum>,
}

pub(super) fn text(o: &StrOut) -> String {
    o.text().unwrap_or_default()
}

impl<'a> Reader<'a> {
    pub(super) fn new(t: &'a Target, raw: &'a RawCatalog) -> Reader<'a> {
        Reader {
            t,
            names: Vec::new(),
            failed: Vec::new(),
            undecoded: Vec::new(),
            enums: BTreeMap::new(),
            read: raw.enums.iter().map(|e| (e.handle, e)).collect(),
        }
    }

    pub(super) fn ok(&mut self, call: String, rc: i32) -> bool {
        if ok(self.t, rc) {
            true
        } else {
            self.failed.push(FailedCall {
                call,
                returned: self.t.rc(rc),
            });
            false
        }
    }

    pub(super) fn undecoded<T>(&mut self, what: String) -> Option<T> {
        self.undecoded.push(what);
        None
    }

    /// An entry as the string convention read it: NULL buffers for the lengths, then
    /// exact-size buffers, and the name one byte short (R-STR-2). Each call that failed
    /// is recorded; the entry is `None` when a read of it failed.
    pub(super) fn strings<'r, T: Info>(
        &mut self,
        r: &'r InfoRead<T>,
    ) -> Option<(&'r T, i32, Option<StrOut>)> {
        let call = format!("MPI_T_{}_get_info({})", T::KIND, r.index);
        let (rc, first) = r.lens.as_ref()?;
        if !self.ok(call.clone(), *rc) {
            return None;
        }
        let n = first.name().len;
        let (rc, full) = r.exact.as_ref()?;
        if !self.ok(call.clone(), *rc) {
            return None;
        }
        let truncated = match n {
            Some(n) if n >= 2 => {
                let (rc, t) = r.short.as_ref()?;
                self.ok(call, *rc).then(|| t.name().clone())
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

    /// An enumeration met for the first time: its name (lengths, then an exact buffer).
    /// One passed over by the reader is not met.
    pub(super) fn scan_enum(&mut self, h: RawHandle) {
        if h == 0 || self.enums.contains_key(&h) {
            return;
        }
        let Some(info) = self.read.get(&h).and_then(|e| e.info.as_ref()) else {
            return;
        };
        let Some((rc, (_, first))) = &info.lens else {
            return;
        };
        if !self.ok(format!("MPI_T_enum_get_info({h:#x})"), *rc) {
            return;
        }
        let cap = cap(first.len);
        let Some((rc, (_, name))) = &info.exact else {
            return;
        };
        if !self.ok(format!("MPI_T_enum_get_info({h:#x})"), *rc) {
            return;
        }
        let name = text(name);
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

    /// The read of enumeration `h` (its items).
    pub(super) fn enum_read(&self, h: RawHandle) -> Option<&'a RawEnum> {
        self.read.get(&h).copied()
    }
}
