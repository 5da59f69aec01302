//! The functions a case may call, with their parameters and OUT values: the vocabulary
//! of `call:` in specs/cases/*.yaml. MPI_T functions are named without the `MPI_T_`
//! prefix (`cvar_write` is MPI-4.1 §15.3.6's `MPI_T_cvar_write`); MPI functions with an
//! `mpi_` prefix where the bare name would be ambiguous; harness operations say what
//! they do.

use super::SubjectKind;
// Not `for_all:`'s subject kind above: the kinds with a `*_get_num` and an index space.
use crate::kind::Kind;
use serde::{Deserialize, Serialize};

/// What a parameter takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// An `int` (index, level, length).
    Int,
    /// An opaque handle value (MPI_T handles, MPI_Info, MPI_Comm).
    Handle,
    /// A (buf, len) pair of the string convention (MPI-4.1 §15.3.3).
    Str,
    /// A NUL-terminated input string (`*_get_index` names, info keys).
    Text,
    /// `obj_handle`: NULL or the address of a local variable holding an MPI handle.
    Obj,
    /// Bytes to write (`cvar_write`, `pvar_write`): a saved value or a number.
    Data,
    /// 0 or 1 (e.g. whether to pass a callback at all).
    Flag,
}

macro_rules! funcs {
    ($($variant:ident = $yaml:literal, $c:literal, [$($p:literal : $t:ident),*], [$($o:literal),*];)+) => {
        /// A callable function.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub enum Func { $( #[serde(rename = $yaml)] $variant, )+ }

        impl Func {
            pub const ALL: &'static [Func] = &[$(Func::$variant),+];
            /// The spelling in case files.
            pub fn yaml(self) -> &'static str { match self { $(Func::$variant => $yaml),+ } }
            /// The C name (evidence, run-wide return-code table); harness operations have
            /// none of their own and are shown by their case-file name.
            pub fn c_name(self) -> &'static str { match self { $(Func::$variant => $c),+ } }
            /// Parameters in prototype order.
            pub fn params(self) -> &'static [(&'static str, Param)] {
                match self { $(Func::$variant => &[$(($p, Param::$t)),*]),+ }
            }
            /// Names of the OUT values a case may `expect` or `save`.
            pub fn outs(self) -> &'static [&'static str] {
                match self { $(Func::$variant => &[$($o),*]),+ }
            }
            pub fn from_yaml(s: &str) -> Option<Func> {
                match s { $($yaml => Some(Func::$variant),)+ _ => None }
            }
        }
    };
}

funcs! {
    InitThread = "init_thread", "MPI_T_init_thread", ["required": Int], ["provided"];
    Finalize = "finalize", "MPI_T_finalize", [], [];
    EnumGetInfo = "enum_get_info", "MPI_T_enum_get_info", ["enumtype": Handle, "name": Str], ["num", "name"];
    EnumGetItem = "enum_get_item", "MPI_T_enum_get_item", ["enumtype": Handle, "item": Int, "name": Str], ["value", "name"];
    CvarGetNum = "cvar_get_num", "MPI_T_cvar_get_num", [], ["num"];
    CvarGetInfo = "cvar_get_info", "MPI_T_cvar_get_info", ["index": Int, "name": Str, "desc": Str],
        ["name", "verbosity", "datatype", "enumtype", "desc", "bind", "scope"];
    // MPI_T_cvar_get_info asking only for the name (every other OUT NULL, R-CVAR-3).
    CvarGetInfoNameOnly = "cvar_get_info_name_only", "MPI_T_cvar_get_info", ["index": Int, "name": Str], ["name"];
    CvarGetIndex = "cvar_get_index", "MPI_T_cvar_get_index", ["name": Text], ["index"];
    CvarHandleAlloc = "cvar_handle_alloc", "MPI_T_cvar_handle_alloc", ["index": Int, "obj": Obj], ["handle", "count"];
    CvarHandleFree = "cvar_handle_free", "MPI_T_cvar_handle_free", ["handle": Handle], ["handle"];
    CvarRead = "cvar_read", "MPI_T_cvar_read", ["handle": Handle], ["value", "bytes", "overrun", "strlen"];
    CvarWrite = "cvar_write", "MPI_T_cvar_write", ["handle": Handle, "data": Data], [];
    PvarGetNum = "pvar_get_num", "MPI_T_pvar_get_num", [], ["num"];
    PvarGetInfo = "pvar_get_info", "MPI_T_pvar_get_info", ["index": Int, "name": Str, "desc": Str],
        ["name", "verbosity", "var_class", "datatype", "enumtype", "desc", "bind", "readonly", "continuous", "atomic"];
    // MPI_T_pvar_get_info asking only for the name (every other OUT NULL, R-CVAR-3).
    PvarGetInfoNameOnly = "pvar_get_info_name_only", "MPI_T_pvar_get_info", ["index": Int, "name": Str], ["name"];
    PvarGetIndex = "pvar_get_index", "MPI_T_pvar_get_index", ["name": Text, "var_class": Int], ["index"];
    PvarSessionCreate = "pvar_session_create", "MPI_T_pvar_session_create", [], ["session"];
    PvarSessionFree = "pvar_session_free", "MPI_T_pvar_session_free", ["session": Handle], ["session"];
    PvarHandleAlloc = "pvar_handle_alloc", "MPI_T_pvar_handle_alloc", ["session": Handle, "index": Int, "obj": Obj], ["handle", "count"];
    PvarHandleFree = "pvar_handle_free", "MPI_T_pvar_handle_free", ["session": Handle, "handle": Handle], ["handle"];
    PvarStart = "pvar_start", "MPI_T_pvar_start", ["session": Handle, "handle": Handle], [];
    PvarStop = "pvar_stop", "MPI_T_pvar_stop", ["session": Handle, "handle": Handle], [];
    PvarRead = "pvar_read", "MPI_T_pvar_read", ["session": Handle, "handle": Handle], ["value", "bytes", "overrun", "strlen"];
    // MPI_T_pvar_read made from inside a signal handler (R-PVAR-ASYNC).
    PvarReadInSignal = "pvar_read_in_signal_handler", "MPI_T_pvar_read", ["session": Handle, "handle": Handle], ["value", "bytes", "overrun", "strlen"];
    PvarWrite = "pvar_write", "MPI_T_pvar_write", ["session": Handle, "handle": Handle, "data": Data], [];
    PvarReset = "pvar_reset", "MPI_T_pvar_reset", ["session": Handle, "handle": Handle], [];
    PvarReadreset = "pvar_readreset", "MPI_T_pvar_readreset", ["session": Handle, "handle": Handle], ["value", "bytes", "overrun", "strlen"];
    CategoryGetNum = "category_get_num", "MPI_T_category_get_num", [], ["num"];
    CategoryGetInfo = "category_get_info", "MPI_T_category_get_info", ["index": Int, "name": Str, "desc": Str],
        ["name", "desc", "num_cvars", "num_pvars", "num_categories"];
    // MPI_T_category_get_info asking only for the name (every other OUT NULL, R-CVAR-3).
    CategoryGetInfoNameOnly = "category_get_info_name_only", "MPI_T_category_get_info", ["index": Int, "name": Str], ["name"];
    CategoryGetNumEvents = "category_get_num_events", "MPI_T_category_get_num_events", ["index": Int], ["num"];
    CategoryGetIndex = "category_get_index", "MPI_T_category_get_index", ["name": Text], ["index"];
    CategoryGetCvars = "category_get_cvars", "MPI_T_category_get_cvars", ["index": Int, "len": Int], ["indices", "overrun"];
    CategoryGetPvars = "category_get_pvars", "MPI_T_category_get_pvars", ["index": Int, "len": Int], ["indices", "overrun"];
    CategoryGetEvents = "category_get_events", "MPI_T_category_get_events", ["index": Int, "len": Int], ["indices", "overrun"];
    CategoryGetCategories = "category_get_categories", "MPI_T_category_get_categories", ["index": Int, "len": Int], ["indices", "overrun"];
    CategoryChanged = "category_changed", "MPI_T_category_changed", [], ["update_number"];
    SourceGetNum = "source_get_num", "MPI_T_source_get_num", [], ["num"];
    SourceGetInfo = "source_get_info", "MPI_T_source_get_info", ["index": Int, "name": Str, "desc": Str],
        ["name", "desc", "ordering", "ticks_per_second", "max_ticks"];
    // MPI_T_source_get_info asking only for the info object (every other OUT NULL).
    SourceGetInfoObject = "source_get_info_object", "MPI_T_source_get_info", ["index": Int], ["info"];
    SourceGetTimestamp = "source_get_timestamp", "MPI_T_source_get_timestamp", ["index": Int], ["timestamp"];
    EventGetNum = "event_get_num", "MPI_T_event_get_num", [], ["num"];
    EventGetInfo = "event_get_info", "MPI_T_event_get_info", ["index": Int, "name": Str, "desc": Str, "capacity": Int],
        ["name", "verbosity", "datatypes", "displacements", "num_elements", "enumtype", "desc", "bind", "overrun"];
    // MPI_T_event_get_info asking only for the info object (every other OUT NULL).
    EventGetInfoObject = "event_get_info_object", "MPI_T_event_get_info", ["index": Int], ["info"];
    EventGetIndex = "event_get_index", "MPI_T_event_get_index", ["name": Text], ["index"];
    EventHandleAlloc = "event_handle_alloc", "MPI_T_event_handle_alloc", ["index": Int, "obj": Obj, "info": Handle], ["registration"];
    EventHandleSetInfo = "event_handle_set_info", "MPI_T_event_handle_set_info", ["registration": Handle, "info": Handle], [];
    EventHandleGetInfo = "event_handle_get_info", "MPI_T_event_handle_get_info", ["registration": Handle], ["info"];
    EventRegisterCallback = "event_register_callback", "MPI_T_event_register_callback",
        ["registration": Handle, "cb_safety": Int, "info": Handle, "callback": Flag, "tag": Int], [];
    EventCallbackSetInfo = "event_callback_set_info", "MPI_T_event_callback_set_info", ["registration": Handle, "cb_safety": Int, "info": Handle], [];
    EventCallbackGetInfo = "event_callback_get_info", "MPI_T_event_callback_get_info", ["registration": Handle, "cb_safety": Int], ["info"];
    EventHandleFree = "event_handle_free", "MPI_T_event_handle_free", ["registration": Handle, "free_callback": Flag], ["registration"];
    EventSetDroppedHandler = "event_set_dropped_handler", "MPI_T_event_set_dropped_handler", ["registration": Handle, "handler": Flag], [];
    EventRead = "event_read", "MPI_T_event_read", ["instance": Handle, "element": Int, "bytes": Int], ["bytes", "overrun"];
    EventCopy = "event_copy", "MPI_T_event_copy", ["instance": Handle, "bytes": Int], ["bytes", "overrun"];
    EventGetTimestamp = "event_get_timestamp", "MPI_T_event_get_timestamp", ["instance": Handle], ["timestamp"];
    EventGetSource = "event_get_source", "MPI_T_event_get_source", ["instance": Handle], ["source"];
    // MPI functions the chapter's cases need (through the ABI profile).
    GetVersion = "get_version", "MPI_Get_version", [], ["version", "subversion"];
    MpiInit = "mpi_init", "MPI_Init", [], [];
    MpiFinalize = "mpi_finalize", "MPI_Finalize", [], [];
    Initialized = "initialized", "MPI_Initialized", [], ["flag"];
    Finalized = "finalized", "MPI_Finalized", [], ["flag"];
    CommRank = "comm_rank", "MPI_Comm_rank", ["comm": Handle], ["rank"];
    CommSize = "comm_size", "MPI_Comm_size", ["comm": Handle], ["size"];
    InfoCreate = "info_create", "MPI_Info_create", [], ["info"];
    InfoSet = "info_set", "MPI_Info_set", ["info": Handle, "key": Text, "value": Text], [];
    InfoGetNkeys = "info_get_nkeys", "MPI_Info_get_nkeys", ["info": Handle], ["nkeys"];
    InfoFree = "info_free", "MPI_Info_free", ["info": Handle], ["info"];
    // The lifecycle matrix (specs/cases/lifecycle.yaml): MPI's own thread level and
    // sessions beside MPI_T (MPI_INIT_THREAD, MPI_QUERY_THREAD, the Sessions Model); `session_init` passes
    // MPI_INFO_NULL and MPI_ERRORS_RETURN.
    MpiInitThread = "mpi_init_thread", "MPI_Init_thread", ["required": Int], ["provided"];
    QueryThread = "query_thread", "MPI_Query_thread", [], ["provided"];
    SessionInit = "session_init", "MPI_Session_init", [], ["mpi_session"];
    SessionFinalize = "session_finalize", "MPI_Session_finalize", ["mpi_session": Handle], ["mpi_session"];
    CommDup = "comm_dup", "MPI_Comm_dup", ["comm": Handle], ["newcomm"];
    CommFree = "comm_free", "MPI_Comm_free", ["comm": Handle], ["comm"];
    // `double MPI_Wtime(void)`: returns no code (the step's rc is MPI_SUCCESS when the
    // library exports it).
    Wtime = "wtime", "MPI_Wtime", [], ["time"];
    // Harness operations: several calls in one step, or the reference's test hooks.
    CatalogSnapshot = "catalog_snapshot", "catalog_snapshot", [], ["catalog", "counts"];
    PmpiTwins = "pmpi_twins", "pmpi_twins", [], ["exported", "missing"];
    Deliveries = "deliveries", "deliveries", [], ["count", "tags", "safeties", "sources", "timestamps", "instances", "call_rcs", "data_ok",
        "dropped", "dropped_tags", "dropped_sources", "dropped_at", "freed"];
    // MPI work after MPI_Init (target::activity): messages to self, collectives,
    // communicator dups, pvar sessions; the reference's simulate hook on the reference.
    Activity = "activity", "activity", ["messages": Int, "unexpected": Int, "hold": Int, "drain": Int, "collectives": Int, "comms": Int, "sessions": Int],
        ["calls", "seconds", "failed_call"];
    // Cycles of MPI_T_init_thread / MPI_T_cvar_get_num / MPI_T_finalize on this thread,
    // or on `threads` threads at once, within a time budget (target::lifecycle).
    InitCycles = "init_cycles", "init_cycles", ["required": Int, "cycles": Int], ["completed", "budget_hit", "provided", "failed_call"];
    InitThreads = "init_threads", "init_threads", ["required": Int, "threads": Int, "cycles": Int], ["completed", "budget_hit", "provided", "failed_call"];
    Simulate = "simulate", "MPIT_Reference_simulate", ["steps": Int], [];
    RaiseEvent = "raise_event", "MPIT_Reference_raise_event", ["index": Int, "cb_safety": Int], [];
}

impl Func {
    /// Whether the function takes an MPI_T handle or session (an enumeration, cvar or
    /// pvar handle, session, event registration or instance), as opposed to the MPI
    /// object handles `info`, `comm` and `mpi_session` (MPI_INFO_NULL is valid) or none.
    pub fn takes_mpi_t_handle(self) -> bool {
        const MPI_OBJECTS: [&str; 3] = ["info", "comm", "mpi_session"];
        self.params()
            .iter()
            .any(|(n, p)| *p == Param::Handle && !MPI_OBJECTS.contains(n))
    }

    /// The OUT arguments of a query that a caller may pass as NULL, each on its own
    /// (`for_all: null_outs`): every OUT value of the `*_get_info` functions and the
    /// enumeration queries (R-CVAR-3: "A NULL OUT parameter to *_get_info is ignored";
    /// §15.3.8 says the same of event_get_info's INOUT and OUT arguments). A string is
    /// its (buffer, length) pair; `overrun` is the harness's, not an argument.
    pub fn nullable_outs(self) -> &'static [&'static str] {
        match self {
            Func::CvarGetInfo
            | Func::PvarGetInfo
            | Func::CategoryGetInfo
            | Func::EventGetInfo
            | Func::SourceGetInfo
            | Func::EnumGetInfo
            | Func::EnumGetItem => {
                let o = self.outs();
                match o.last() {
                    Some(&"overrun") => &o[..o.len() - 1],
                    _ => o,
                }
            }
            _ => &[],
        }
    }

    /// The MPI_T functions (the chapter's 51): subjects of `for_each: function`.
    pub fn mpi_t() -> impl Iterator<Item = Func> {
        Func::ALL
            .iter()
            .copied()
            .filter(|f| f.c_name().starts_with("MPI_T_") && !f.is_variant())
    }

    /// A second spelling of an MPI_T function that passes other arguments (e.g.
    /// `source_get_info_object`: only the info OUT pointer); not a subject of its own.
    pub fn is_variant(self) -> bool {
        matches!(
            self,
            Func::SourceGetInfoObject
                | Func::EventGetInfoObject
                | Func::PvarReadInSignal
                | Func::CvarGetInfoNameOnly
                | Func::PvarGetInfoNameOnly
                | Func::CategoryGetInfoNameOnly
        )
    }

    /// The kind of catalog entry whose name and description the function's (buf, len)
    /// pairs return, if any: the strings a string check compares with.
    pub fn strings_of(self) -> Option<SubjectKind> {
        Some(match self {
            Func::CvarGetInfo | Func::CvarGetInfoNameOnly => SubjectKind::Cvar,
            Func::PvarGetInfo | Func::PvarGetInfoNameOnly => SubjectKind::Pvar,
            Func::CategoryGetInfo | Func::CategoryGetInfoNameOnly => SubjectKind::Category,
            Func::EventGetInfo => SubjectKind::Event,
            Func::SourceGetInfo => SubjectKind::Source,
            Func::EnumGetInfo => SubjectKind::Enum,
            Func::EnumGetItem => SubjectKind::Item,
            _ => return None,
        })
    }

    pub fn param(self, name: &str) -> Option<Param> {
        self.params()
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, p)| *p)
    }
}

/// The function table's entries of a kind: the calls named by the kind's word
/// (`MPI_T_cvar_get_num` ...), so no caller spells them out or builds them from strings.
impl Kind {
    /// `MPI_T_{kind}_get_num`.
    pub fn get_num(self) -> Func {
        match self {
            Kind::Cvar => Func::CvarGetNum,
            Kind::Pvar => Func::PvarGetNum,
            Kind::Category => Func::CategoryGetNum,
            Kind::Event => Func::EventGetNum,
            Kind::Source => Func::SourceGetNum,
        }
    }

    /// `MPI_T_{kind}_get_info`, with every OUT argument.
    pub fn get_info(self) -> Func {
        match self {
            Kind::Cvar => Func::CvarGetInfo,
            Kind::Pvar => Func::PvarGetInfo,
            Kind::Category => Func::CategoryGetInfo,
            Kind::Event => Func::EventGetInfo,
            Kind::Source => Func::SourceGetInfo,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kinds_functions_are_named_by_its_word() {
        for k in Kind::ALL {
            assert_eq!(k.get_num().yaml(), format!("{}_get_num", k.word()));
            assert_eq!(k.get_info().yaml(), format!("{}_get_info", k.word()));
        }
    }

    #[test]
    fn fifty_one_mpi_t_functions() {
        assert_eq!(Func::mpi_t().count(), 51);
        for f in Func::ALL {
            assert_eq!(Func::from_yaml(f.yaml()), Some(*f));
        }
    }
}
