//! What the one read of a catalog brings back, undecoded: every call's return code and
//! OUT values, per entity kind. Both views are derived from it: the decoded catalog with
//! its observations (`decode`) and the harness's inventory of subjects
//! (`judge::inventory`). Where the two views read a call differently (the exact buffer
//! against the one with slack, a member count whose call failed), each call is kept
//! here and each view takes its own.

use crate::ffi::{
    Called, RawCategoryInfo, RawCvarInfo, RawEventInfo, RawHandle, RawPvarInfo, RawSourceInfo,
    StrArg, StrOut,
};
use crate::Target;
use mpit_vocab::profile::ReturnCode;

/// Whether a code is MPI_SUCCESS as the target's ABI spells it.
pub fn ok(t: &Target, rc: i32) -> bool {
    t.rc(rc) == ReturnCode::Success
}

/// The views a read serves. Each asks for calls of its own and no other: a call one view
/// does not need is not made for it (a library may crash in it: Open MPI 4.1's
/// `MPI_T_cvar_read` of some variables before MPI_Init, which the decoded view reads and
/// the inventory, read again inside cases, must not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Views {
    /// The decoded catalog and its observations (`decode`): exact buffers, the name one
    /// byte short, `*_get_index`, cvar values, `MPI_T_category_changed`.
    pub decoded: bool,
    /// The inventory of subjects: buffers with slack.
    pub inventory: bool,
}

impl Views {
    pub const DECODED: Views = Views {
        decoded: true,
        inventory: false,
    };
    pub const INVENTORY: Views = Views {
        decoded: false,
        inventory: true,
    };
}

/// Elements asked of `MPI_T_event_get_info` (the arrays' capacity).
pub const EVENT_ELEMENTS: usize = 64;

/// One entity kind of the catalog, as its `*_get_info` call sees it: the table the reader
/// runs over (cvar, pvar, category, event, source).
pub trait Info: Sized {
    /// The kind in spots and messages (`MPI_T_{KIND}_get_info(5)`).
    const KIND: &'static str;
    fn get_info(t: &Target, i: i32, name: StrArg, desc: StrArg) -> Called<Self>;
    fn name(&self) -> &StrOut;
    fn desc(&self) -> &StrOut;
    /// The enumeration the entry names (before any null check: the views differ there).
    fn enumtype(&self) -> Option<RawHandle> {
        None
    }
}

/// The table: each kind's type, name, call, and whether it names an enumeration.
macro_rules! info_kind {
    ($ty:ty, $kind:literal, $e:ident, |$t:ident, $i:ident, $n:ident, $d:ident| $call:expr) => {
        impl Info for $ty {
            const KIND: &'static str = $kind;
            fn get_info($t: &Target, $i: i32, $n: StrArg, $d: StrArg) -> Called<Self> {
                $call
            }
            fn name(&self) -> &StrOut {
                &self.name
            }
            fn desc(&self) -> &StrOut {
                &self.desc
            }
            info_kind!(@enum $e);
        }
    };
    (@enum enumtype) => {
        fn enumtype(&self) -> Option<RawHandle> {
            Some(self.enumtype)
        }
    };
    (@enum none) => {};
}

info_kind!(RawCvarInfo, "cvar", enumtype, |t, i, n, d| t
    .lib
    .cvar_get_info(i, n, d));
info_kind!(RawPvarInfo, "pvar", enumtype, |t, i, n, d| t
    .lib
    .pvar_get_info(i, n, d));
info_kind!(RawCategoryInfo, "category", none, |t, i, n, d| t
    .lib
    .category_get_info(i, n, d));
info_kind!(RawEventInfo, "event", enumtype, |t, i, n, d| t
    .lib
    .event_get_info(i, n, d, EVENT_ELEMENTS));
info_kind!(RawSourceInfo, "source", none, |t, i, n, d| t
    .lib
    .source_get_info(i, n, d));

/// One `*_get_info` through the string convention (MPI-4.1 §15.3.3), every call kept.
#[derive(Debug, Clone)]
pub struct InfoRead<T> {
    pub index: i32,
    /// NULL buffers with `*len = 0`: the lengths (R-STR-3). `None`: not exported.
    pub lens: Called<T>,
    /// Buffers of exactly the lengths `lens` gave (the decoded view's read), after `lens`
    /// returned MPI_SUCCESS.
    pub exact: Called<T>,
    /// The name into a buffer one byte short (R-STR-2), after `exact` returned
    /// MPI_SUCCESS and when the name is at least 2 long.
    pub short: Called<T>,
    /// Buffers 8 bytes longer than `lens` said (the inventory's read: a library whose
    /// length is short by one still gets its whole string read), after `lens` returned 0.
    /// Each of `exact`, `short`, `slack` is read only for the view that takes it.
    pub slack: Called<T>,
}

impl<T> InfoRead<T> {
    /// The exact read when it and the length read returned MPI_SUCCESS.
    pub fn exact_ok(&self, t: &Target) -> Option<&T> {
        match (&self.lens, &self.exact) {
            (Some((rc, _)), Some((rc2, o))) if ok(t, *rc) && ok(t, *rc2) => Some(o),
            _ => None,
        }
    }

    /// The read with slack when it and the length read returned 0.
    pub fn slack_ok(&self) -> Option<&T> {
        match (&self.lens, &self.slack) {
            (Some((0, _)), Some((0, o))) => Some(o),
            _ => None,
        }
    }
}

/// The capacity a returned length asks for (1 when none came back; at most 1 MiB).
pub fn cap(len: Option<i32>) -> usize {
    len.unwrap_or(1).clamp(1, 1 << 20) as usize
}

/// The slack the inventory's string reads add to each returned length.
pub const SLACK: usize = 8;

/// Counts from the `*_get_num` calls: `None` when not exported or passed over.
#[derive(Debug, Clone, Default)]
pub struct RawCounts {
    pub cvars: Called<i32>,
    pub pvars: Called<i32>,
    pub categories: Called<i32>,
    pub events: Called<i32>,
    pub sources: Called<i32>,
}

/// The second pass over a control variable (spot `MPI_T_cvar_get_index(i)`).
#[derive(Debug, Clone)]
pub struct CvarSecond {
    pub get_index: Called<i32>,
    /// `MPI_T_cvar_read` through a handle of its own, for a variable the profile decodes
    /// whole and that is bound to no object.
    pub value: Called<(i32, Vec<u8>)>,
}

#[derive(Debug, Clone)]
pub struct RawCvar {
    pub info: InfoRead<RawCvarInfo>,
    /// `None`: the exact read failed, or the spot was passed over.
    pub second: Option<CvarSecond>,
}

#[derive(Debug, Clone)]
pub struct RawPvar {
    pub info: InfoRead<RawPvarInfo>,
    /// The spot `MPI_T_pvar_get_index(i)` was entered (after a good exact read).
    pub second: bool,
    /// `MPI_T_pvar_get_index`, when the profile decodes the class.
    pub get_index: Called<i32>,
}

#[derive(Debug, Clone)]
pub struct RawEvent {
    pub info: InfoRead<RawEventInfo>,
    /// `MPI_T_event_get_index` (after a good exact read).
    pub get_index: Called<i32>,
}

/// The member calls of one category (for the decoded view under a spot of their own,
/// `MPI_T_category_get_cvars(i)`; for the inventory alone under the category's).
#[derive(Debug, Clone)]
pub struct RawMembers {
    pub num_events: Called<i32>,
    /// Cvars, pvars, categories, events: the call's code, the indices and whether it
    /// wrote past the count it was told (R-CAT-1).
    pub cvars: Called<(Vec<i32>, bool)>,
    pub pvars: Called<(Vec<i32>, bool)>,
    pub categories: Called<(Vec<i32>, bool)>,
    pub events: Called<(Vec<i32>, bool)>,
}

#[derive(Debug, Clone)]
pub struct RawCategory {
    pub info: InfoRead<RawCategoryInfo>,
    /// `MPI_T_category_get_index` (after a good exact read).
    pub get_index: Called<i32>,
    /// `None`: no read of the category succeeded, or the spot was passed over.
    pub members: Option<RawMembers>,
}

/// `MPI_T_enum_get_info` or `MPI_T_enum_get_item`: `num` or `value`, then the name.
pub type EnumCall = Called<(i32, StrOut)>;

/// The calls on one enumeration or item, read like a `*_get_info` (lengths, then exact
/// buffers, then buffers with slack).
#[derive(Debug, Clone)]
pub struct EnumRead {
    pub lens: EnumCall,
    pub exact: EnumCall,
    pub slack: EnumCall,
}

#[derive(Debug, Clone)]
pub struct RawEnum {
    pub handle: RawHandle,
    /// `None`: the spot `MPI_T_enum_get_info(enum #k)` was passed over.
    pub info: Option<EnumRead>,
    /// Items by index; `None`: the item's spot was passed over.
    pub items: Vec<Option<EnumRead>>,
}

/// Everything one read of a catalog brought back.
#[derive(Debug, Clone, Default)]
pub struct RawCatalog {
    pub counts: RawCounts,
    pub cvars: Vec<RawCvar>,
    pub pvars: Vec<RawPvar>,
    pub categories: Vec<RawCategory>,
    pub events: Vec<RawEvent>,
    pub sources: Vec<InfoRead<RawSourceInfo>>,
    /// In the order the entries name them (cvars, pvars, events); a handle's number is
    /// its position here (handles differ from one process to the next).
    pub enums: Vec<RawEnum>,
    pub category_changed: Called<i32>,
    pub library_version: Called<String>,
    pub mpi_version: Called<(i32, i32)>,
    /// The spots the reader was told to pass over (`target::reading`).
    pub passed: Vec<String>,
}

/// The count a view iterates over: the catalog's ignores the code (`n` as written).
pub fn count_written(c: &Called<i32>) -> i32 {
    c.map_or(0, |(_, n)| n)
}
