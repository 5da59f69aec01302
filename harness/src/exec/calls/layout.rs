//! What a call needs to know of the catalog besides its arguments: the bytes a read
//! through a handle needs (R-CVAR-8: count × datatype size), the read decoded, the
//! element sizes of the event type behind a registration (the recorder's `event_read`
//! calls inside a callback, §15.3.8.6) and the event a registration is for.
//!
//! Two engines answer it: the case executor from its inventory and the handles it
//! recorded ([`Recorded`]), and the differential oracle's target engine from the handles
//! its sequence made and its mirror's catalog (`differential::target`); a caller that
//! makes no handle passes [`NoHandles`].

use super::data::{decode, element_sizes, read_bytes};
use super::HandleMeta;
use crate::judge::inventory::Inventory;
use crate::judge::value::Val;
use mpit_spec::cases::SubjectKind;
use mpit_target::ffi::BufOut;
use std::collections::BTreeMap;

/// The catalog layout behind the handles a call passes.
pub trait Layout {
    /// Bytes a read through `handle` needs; `None` for a handle the caller knows nothing
    /// of (the call then passes a generous buffer: a library that writes anyway writes
    /// into memory the harness owns).
    fn read_bytes(&self, handle: u64) -> Option<usize>;
    /// A read through `handle` decoded by its datatype (the bytes as they came when the
    /// datatype is unknown); `None` when the caller compares the raw bytes alone (the
    /// OUT `value` is then left out, `bytes` stays).
    fn decode(&self, handle: u64, b: &BufOut) -> Option<Val>;
    /// Byte sizes of the elements of the event type behind `registration` (empty when
    /// unknown: the recorder then reads no element).
    fn element_sizes(&self, registration: u64) -> Vec<usize>;
    /// The event index `registration` was allocated for, if known (the data check of
    /// the `deliveries` operation; `None` leaves it unjudged).
    fn event_of(&self, registration: u64) -> Option<i32>;
}

/// The layout of a caller that makes no handle (the cross-rank worker's counts): a read
/// would get the generous buffer, its bytes left undecoded.
pub struct NoHandles;

impl Layout for NoHandles {
    fn read_bytes(&self, _: u64) -> Option<usize> {
        None
    }

    fn decode(&self, _: u64, _: &BufOut) -> Option<Val> {
        None
    }

    fn element_sizes(&self, _: u64) -> Vec<usize> {
        Vec::new()
    }

    fn event_of(&self, _: u64) -> Option<i32> {
        None
    }
}

/// The case executor's layout: its inventory and the handles it recorded, by value.
pub struct Recorded<'a> {
    pub inv: &'a Inventory,
    pub handles: &'a BTreeMap<u64, HandleMeta>,
}

impl Layout for Recorded<'_> {
    fn read_bytes(&self, handle: u64) -> Option<usize> {
        self.handles.get(&handle).map(|m| read_bytes(self.inv, m))
    }

    fn decode(&self, handle: u64, b: &BufOut) -> Option<Val> {
        Some(match self.handles.get(&handle) {
            Some(m) => decode(self.inv, m, b),
            None => Val::Bytes(b.clone()),
        })
    }

    fn element_sizes(&self, registration: u64) -> Vec<usize> {
        self.handles
            .get(&registration)
            .map(|m| element_sizes(self.inv, m.index))
            .unwrap_or_default()
    }

    fn event_of(&self, registration: u64) -> Option<i32> {
        self.handles
            .get(&registration)
            .filter(|m| m.kind == SubjectKind::Event)
            .map(|m| m.index)
    }
}
