//! One MPI_T call of a generated sequence, with its arguments in a form both engines
//! (the reference model and a loaded library) can carry out: indices in the mirrored
//! catalog's numbering, handles by the number of the call that made them, string
//! buffers by size.

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
    /// The MPI function this op calls (for evidence, the return-code table and cases).
    pub fn function(&self) -> String {
        let f = match self {
            Op::InitThread { .. } => "init_thread".into(),
            Op::Finalize => "finalize".into(),
            Op::GetNum(k) => k.get_num().yaml().into(),
            Op::GetInfo { kind, .. } => kind.get_info().yaml().into(),
            Op::GetIndex { kind, .. } => format!("{}_get_index", kind.word()),
            Op::PvarGetIndex { .. } => "pvar_get_index".into(),
            Op::CategoryMembers { which, .. } => format!("category_get_{}", members_word(*which)),
            Op::CategoryGetNumEvents { .. } => "category_get_num_events".into(),
            Op::CategoryChanged => "category_changed".into(),
            Op::EnumGetInfo { .. } => "enum_get_info".into(),
            Op::EnumGetItem { .. } => "enum_get_item".into(),
            Op::CvarHandleAlloc { .. } => "cvar_handle_alloc".into(),
            Op::CvarHandleFree { .. } => "cvar_handle_free".into(),
            Op::CvarRead { .. } => "cvar_read".into(),
            Op::CvarWrite { .. } => "cvar_write".into(),
            Op::SessionCreate => "pvar_session_create".into(),
            Op::SessionFree { .. } => "pvar_session_free".into(),
            Op::PvarHandleAlloc { .. } => "pvar_handle_alloc".into(),
            Op::PvarHandleFree { .. } => "pvar_handle_free".into(),
            Op::Pvar { act, .. } => match act {
                Act::Start => "pvar_start".into(),
                Act::Stop => "pvar_stop".into(),
                Act::Reset => "pvar_reset".into(),
            },
            Op::PvarRead { reset: false, .. } => "pvar_read".into(),
            Op::PvarRead { reset: true, .. } => "pvar_readreset".into(),
            Op::PvarWrite { .. } => "pvar_write".into(),
            Op::SourceGetTimestamp { .. } => "source_get_timestamp".into(),
            Op::EventHandleAlloc { .. } => "event_handle_alloc".into(),
            Op::EventHandleFree { .. } => "event_handle_free".into(),
            Op::Simulate { .. } => return "MPIT_Reference_simulate".into(),
            Op::RaiseEvent { .. } => return "MPIT_Reference_raise_event".into(),
            Op::MpiInit => return "MPI_Init".into(),
            Op::EventInfoObject { .. } => "event_get_info".into(),
            Op::EventRegisterCallback { .. } => "event_register_callback".into(),
            Op::EventSetDroppedHandler { .. } => "event_set_dropped_handler".into(),
            Op::EventReadAfter { .. } => "event_read".into(),
        };
        format!("MPI_T_{f}")
    }

    /// Whether the reference hooks must be present (only the reference cdylib has them).
    pub fn needs_hooks(&self) -> bool {
        matches!(self, Op::Simulate { .. } | Op::RaiseEvent { .. })
    }
}

pub fn members_word(m: Members) -> &'static str {
    match m {
        Members::Cvars => "cvars",
        Members::Pvars => "pvars",
        Members::Categories => "categories",
        Members::Events => "events",
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
