//! One MPI_T call of a generated sequence, with its arguments in a form both engines
//! (the reference model and a loaded library) can carry out: indices in the mirrored
//! catalog's numbering, handles by the number of the call that made them, string
//! buffers by size.

use crate::cases::funcs::Func;
use mpit_reference::model::Members;
use mpit_reference::spec::{CbSafety, PvarClass, ThreadLevel};
use serde::{Deserialize, Serialize};

/// The entity kinds with a `*_get_num` and an index space, here for the oracle's many
/// users (`op::Kind`).
pub use crate::kind::Kind;

/// A handle argument. Objects are named by the order the sequence made them in (per
/// handle kind), so the same sequence names the same objects in both engines, whatever
/// numbers each hands out. A freed object keeps its number: naming it passes the stale
/// handle value (robustness, R-GEN-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ref {
    /// The n-th object of this kind the sequence made.
    Made(u16),
    /// The kind's NULL handle.
    Null,
    /// `MPI_T_PVAR_ALL_HANDLES` (MPI-4.1 §15.3.7).
    All,
    /// The n-th cvar handle where a pvar handle or session goes, or the n-th pvar handle
    /// where a cvar handle goes (robustness).
    Foreign(u16),
}

/// A (buf, len) pair of the string convention (MPI-4.1 §15.3.3): a buffer of `cap`
/// bytes (`None`: NULL) and `*len` on input (`None`: NULL length pointer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Str {
    pub cap: Option<u32>,
    pub len: Option<i32>,
}

impl Str {
    /// Both pointers NULL. As a `desc` of cvar, pvar and category `get_info` it asks
    /// for the name alone: every OUT argument but the name is NULL (R-CVAR-3: "ignored"),
    /// the case language's `*_get_info_name_only`.
    pub const NONE: Str = Str {
        cap: None,
        len: None,
    };

    pub fn sized(n: u32) -> Str {
        Str {
            cap: Some(n),
            len: Some(n as i32),
        }
    }
}

/// What a `*_write` call writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Data {
    /// The bytes the last read of the same handle returned in this engine (zeros when
    /// none): a write that does not change the library's configuration.
    Readback,
    /// This number in every element of the variable's datatype.
    Int(i32),
}

/// `start`, `stop` or `reset` of pvar handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Act {
    Start,
    Stop,
    Reset,
}

/// One MPI-4.1 MPI_T call and its arguments. Indices are in the mirrored catalog's
/// numbering (`Mirror::target_index` translates); an index past the end is a count of
/// entries past the last (`i >= num`), kept as such so each engine resolves it
/// against its own count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op {
    InitThread {
        required: ThreadLevel,
    },
    Finalize,
    GetNum(Kind),
    /// `MPI_T_{cvar,pvar,category,event,source}_get_info`.
    GetInfo {
        kind: Kind,
        index: i32,
        name: Str,
        desc: Str,
    },
    /// `MPI_T_{cvar,category,event}_get_index`.
    GetIndex {
        kind: Kind,
        name: String,
    },
    PvarGetIndex {
        name: String,
        class: PvarClass,
    },
    CategoryMembers {
        index: i32,
        which: Members,
        len: u16,
    },
    CategoryGetNumEvents {
        index: i32,
    },
    CategoryChanged,
    /// `MPI_T_enum_get_info` on the n-th distinct enumtype a get_info call returned.
    EnumGetInfo {
        enumtype: u16,
        name: Str,
    },
    EnumGetItem {
        enumtype: u16,
        item: i32,
        name: Str,
    },
    CvarHandleAlloc {
        index: i32,
    },
    CvarHandleFree {
        handle: Ref,
    },
    CvarRead {
        handle: Ref,
    },
    CvarWrite {
        handle: Ref,
        data: Data,
    },
    SessionCreate,
    SessionFree {
        session: Ref,
    },
    PvarHandleAlloc {
        session: Ref,
        index: i32,
    },
    PvarHandleFree {
        session: Ref,
        handle: Ref,
    },
    Pvar {
        act: Act,
        session: Ref,
        handle: Ref,
    },
    PvarRead {
        session: Ref,
        handle: Ref,
        reset: bool,
    },
    PvarWrite {
        session: Ref,
        handle: Ref,
        data: Data,
    },
    SourceGetTimestamp {
        index: i32,
    },
    EventHandleAlloc {
        index: i32,
    },
    EventHandleFree {
        registration: Ref,
    },
    /// The reference's hook `MPIT_Reference_simulate`: MPI activity, so counters count.
    Simulate {
        steps: u8,
    },
    /// `MPI_Init` (lifecycle sequences on a declared catalog): the entries marked
    /// `appears: mpi_init` are appended; no earlier index moves (R-CVAR-1).
    MpiInit,
    /// `MPI_T_event_get_info` asking only for the info object: a new object, never
    /// MPI_INFO_NULL (R-EVT-INFO). It is freed again right away.
    EventInfoObject {
        index: i32,
    },
    /// `MPI_T_event_register_callback` at `safety` with the harness's recording callback
    /// (`set`) or NULL (removes that level's callback, R-EVT-CB). The callback's
    /// `user_data` names the registration and the level (see [`callback_tag`]).
    EventRegisterCallback {
        registration: Ref,
        safety: CbSafety,
        set: bool,
    },
    /// `MPI_T_event_set_dropped_handler` with the recording handler or NULL (R-EVT-DROP).
    EventSetDroppedHandler {
        registration: Ref,
        set: bool,
    },
    /// The reference's hook `MPIT_Reference_raise_event`: the library observes one event
    /// in a context requiring `required`; the callbacks it runs are the outputs.
    RaiseEvent {
        index: i32,
        required: CbSafety,
    },
    /// `MPI_T_event_read(element 0)` of the n-th event instance delivered, after its
    /// callback returned: erroneous (R-EVT-INST), robustness only.
    EventReadAfter {
        instance: u16,
    },
}

/// The `user_data` the recording callback of registration `n` at `safety` is given: the
/// delivery's tag says which registration's callback of which level ran (R-EVT-CB).
pub fn callback_tag(registration: Ref, safety: CbSafety) -> usize {
    // A registration the sequence did not make (robustness) gets a number of its own.
    let n = match registration {
        Ref::Made(n) => n,
        _ => u16::MAX - 1,
    };
    (usize::from(n) + 1) * 4 + safety as usize
}

impl Op {
    /// The variant's name (the tests' lists of what was generated and made). No
    /// wildcard arm: a new variant does not compile until it is named here, and the
    /// op tests' `every_op` then has to make it.
    pub fn variant(&self) -> &'static str {
        match self {
            Op::InitThread { .. } => "InitThread",
            Op::Finalize => "Finalize",
            Op::GetNum(_) => "GetNum",
            Op::GetInfo { .. } => "GetInfo",
            Op::GetIndex { .. } => "GetIndex",
            Op::PvarGetIndex { .. } => "PvarGetIndex",
            Op::CategoryMembers { .. } => "CategoryMembers",
            Op::CategoryGetNumEvents { .. } => "CategoryGetNumEvents",
            Op::CategoryChanged => "CategoryChanged",
            Op::EnumGetInfo { .. } => "EnumGetInfo",
            Op::EnumGetItem { .. } => "EnumGetItem",
            Op::CvarHandleAlloc { .. } => "CvarHandleAlloc",
            Op::CvarHandleFree { .. } => "CvarHandleFree",
            Op::CvarRead { .. } => "CvarRead",
            Op::CvarWrite { .. } => "CvarWrite",
            Op::SessionCreate => "SessionCreate",
            Op::SessionFree { .. } => "SessionFree",
            Op::PvarHandleAlloc { .. } => "PvarHandleAlloc",
            Op::PvarHandleFree { .. } => "PvarHandleFree",
            Op::Pvar { .. } => "Pvar",
            Op::PvarRead { .. } => "PvarRead",
            Op::PvarWrite { .. } => "PvarWrite",
            Op::SourceGetTimestamp { .. } => "SourceGetTimestamp",
            Op::EventHandleAlloc { .. } => "EventHandleAlloc",
            Op::EventHandleFree { .. } => "EventHandleFree",
            Op::Simulate { .. } => "Simulate",
            Op::MpiInit => "MpiInit",
            Op::EventInfoObject { .. } => "EventInfoObject",
            Op::EventRegisterCallback { .. } => "EventRegisterCallback",
            Op::EventSetDroppedHandler { .. } => "EventSetDroppedHandler",
            Op::RaiseEvent { .. } => "RaiseEvent",
            Op::EventReadAfter { .. } => "EventReadAfter",
        }
    }

    /// The entry of the case language's function table (`cases::funcs`) this op calls:
    /// the `call:` of the step a written case makes of it, and through
    /// [`Func::c_name`] the function evidence and the return-code table name.
    pub fn func(&self) -> Func {
        match self {
            Op::InitThread { .. } => Func::InitThread,
            Op::Finalize => Func::Finalize,
            Op::GetNum(k) => k.get_num(),
            // Both string pairs NULL asks for the name alone (R-CVAR-3), the table's
            // `*_get_info_name_only`; events and sources have no such entry: their
            // case passes each OUT argument NULL in turn (`for_all: null_outs`).
            Op::GetInfo { kind, desc, .. } => match (kind, *desc == Str::NONE) {
                (Kind::Cvar, true) => Func::CvarGetInfoNameOnly,
                (Kind::Cvar, false) => Func::CvarGetInfo,
                (Kind::Pvar, true) => Func::PvarGetInfoNameOnly,
                (Kind::Pvar, false) => Func::PvarGetInfo,
                (Kind::Category, true) => Func::CategoryGetInfoNameOnly,
                (Kind::Category, false) => Func::CategoryGetInfo,
                (Kind::Event, _) => Func::EventGetInfo,
                (Kind::Source, _) => Func::SourceGetInfo,
            },
            Op::GetIndex { kind, .. } => match kind {
                Kind::Cvar => Func::CvarGetIndex,
                Kind::Category => Func::CategoryGetIndex,
                Kind::Pvar => Func::PvarGetIndex,
                // Sources have no get_index (MPI-4.1 §15.3.8); the engines call
                // event_get_index for any other kind, and the generator never makes
                // this op (gen/pick.rs: cvar, category, event).
                Kind::Event | Kind::Source => Func::EventGetIndex,
            },
            Op::PvarGetIndex { .. } => Func::PvarGetIndex,
            Op::CategoryMembers { which, .. } => match which {
                Members::Cvars => Func::CategoryGetCvars,
                Members::Pvars => Func::CategoryGetPvars,
                Members::Categories => Func::CategoryGetCategories,
                Members::Events => Func::CategoryGetEvents,
            },
            Op::CategoryGetNumEvents { .. } => Func::CategoryGetNumEvents,
            Op::CategoryChanged => Func::CategoryChanged,
            Op::EnumGetInfo { .. } => Func::EnumGetInfo,
            Op::EnumGetItem { .. } => Func::EnumGetItem,
            Op::CvarHandleAlloc { .. } => Func::CvarHandleAlloc,
            Op::CvarHandleFree { .. } => Func::CvarHandleFree,
            Op::CvarRead { .. } => Func::CvarRead,
            Op::CvarWrite { .. } => Func::CvarWrite,
            Op::SessionCreate => Func::PvarSessionCreate,
            Op::SessionFree { .. } => Func::PvarSessionFree,
            Op::PvarHandleAlloc { .. } => Func::PvarHandleAlloc,
            Op::PvarHandleFree { .. } => Func::PvarHandleFree,
            Op::Pvar { act, .. } => match act {
                Act::Start => Func::PvarStart,
                Act::Stop => Func::PvarStop,
                Act::Reset => Func::PvarReset,
            },
            Op::PvarRead { reset: false, .. } => Func::PvarRead,
            Op::PvarRead { reset: true, .. } => Func::PvarReadreset,
            Op::PvarWrite { .. } => Func::PvarWrite,
            Op::SourceGetTimestamp { .. } => Func::SourceGetTimestamp,
            Op::EventHandleAlloc { .. } => Func::EventHandleAlloc,
            Op::EventHandleFree { .. } => Func::EventHandleFree,
            Op::Simulate { .. } => Func::Simulate,
            Op::RaiseEvent { .. } => Func::RaiseEvent,
            Op::MpiInit => Func::MpiInit,
            Op::EventInfoObject { .. } => Func::EventGetInfoObject,
            Op::EventRegisterCallback { .. } => Func::EventRegisterCallback,
            Op::EventSetDroppedHandler { .. } => Func::EventSetDroppedHandler,
            Op::EventReadAfter { .. } => Func::EventRead,
        }
    }

    /// The MPI function this op calls (for evidence and the return-code table): the C
    /// name of [`Op::func`]'s table entry.
    pub fn function(&self) -> String {
        self.func().c_name().to_string()
    }

    /// Whether the op changes the process for the next sequence in ways the closing
    /// calls do not undo: a value written (cvars keep it; `exact_values`: any write,
    /// else one that is not the readback), or the reference's simulated activity
    /// (counters and start values move), an event raised or MPI initialized. The next
    /// sequence then gets a fresh worker, as the model starts afresh for every sequence.
    pub fn leaves_traces(&self, exact_values: bool) -> bool {
        match self {
            // Event data count the events raised per process; MPI_Init happens once.
            Op::Simulate { .. } | Op::RaiseEvent { .. } | Op::MpiInit => true,
            Op::CvarWrite { data, .. } | Op::PvarWrite { data, .. } => {
                exact_values || *data != Data::Readback
            }
            _ => false,
        }
    }

    /// Whether the op resets the variable it reads (`MPI_T_pvar_readreset`).
    pub fn resets(&self) -> bool {
        matches!(self, Op::PvarRead { reset: true, .. })
    }

    /// Whether the reference hooks must be present (only the reference cdylib has them).
    pub fn needs_hooks(&self) -> bool {
        matches!(self, Op::Simulate { .. } | Op::RaiseEvent { .. })
    }
}

/// Which sequences a run generates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mode {
    /// Also invalid arguments the standard leaves undefined (stale, NULL and foreign
    /// handles, indices out of range, ALL_HANDLES to read/write): judged at robustness
    /// level (R-GEN-3; specs/return-codes.yaml `levels: undefined_argument`).
    pub robustness: bool,
    /// The sequence starts with MPI_T not initialized, in a process of its own, and may
    /// call anything before init and after the last finalize (R-INIT-1, R-FIN-1).
    pub lifecycle: bool,
}

mod call;

pub use call::{Call, Sees, A};

#[cfg(test)]
pub(crate) mod tests;
