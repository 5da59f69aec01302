//! The functions a case may call, with their parameters and OUT values: the vocabulary
//! of `call:` in specs/cases/*.yaml. MPI_T functions are named without the `MPI_T_`
//! prefix (`cvar_write` is MPI-4.1 §15.3.6's `MPI_T_cvar_write`); MPI functions with an
//! `mpi_` prefix where the bare name would be ambiguous; harness operations say what
//! they do.

use super::{MpiVersion, SubjectKind};
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

/// Who answers a call: the chapter's MPI_T functions (MPI-4.1 §15.3), the MPI functions
/// the cases need beside them, or the harness itself (several calls in one step, the
/// reference's test hooks). Derived from the C name ([`Func::group`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    MpiT,
    Mpi,
    Harness,
}

/// The function table: one row per function, each row what the harness reads of the
/// function besides the call itself (`harness/src/exec/calls/`), so that adding a
/// function is adding a row and its call (docs/ARCHITECTURE.md, "Adding one MPI_T
/// function"; `harness/tests/one_table.rs` counts the files that name one).
///
/// A row: `Variant = "case-language name", "C name", [parameters], [OUT names]`, then
/// these columns, each optional, in this order:
///
/// - `c: "..."`: the C argument list a reproducer writes (`repro/src/`), in the
///   prototype's order. `{p}` is the parameter `p` (a string parameter expands to its
///   buffer and length pointer), `{&o}` the address of the OUT `o`; anything else is C as
///   written. No `c:`: a reproducer cannot make the call (harness operations, event
///   instances that only exist inside a callback). A test checks that each template
///   names exactly its function's parameters and OUTs.
/// - `c_fn: "..."`: the C function a reproducer calls, where it is not the C name (a
///   helper the reproducer carries: helpers.c's `read_in_signal_handler`, activity.c's
///   `wtime`).
/// - `since: (major, minor)`: the MPI version whose chapter added an MPI_T function, where
///   it is later than MPI-3.1 (an older mpi.h does not declare it). MPI functions carry
///   none: their cases say `since:`.
/// - `strings: Kind`: the subject kind whose name and description the function's (buf,
///   len) pairs return ([`Func::strings_of`]).
/// - `allocates: Kind`: the kind of entry the handle in its first OUT is for (the
///   executor keeps it to size reads and decode them, R-CVAR-8).
/// - `depth: 1 | -1`: what a successful call does to MPI_T's initialization count
///   (R-INIT-1, R-FIN-1).
/// - `rule: "R-..."`: the rule of specs/clauses.yaml a wrong outcome of the call breaks
///   when nothing about the state says more ([`Func::rule`]; set for the calls the
///   differential oracle makes, whose comparator cites it).
macro_rules! funcs {
    (@some) => { None };
    (@some $x:expr) => { Some($x) };
    (@kind) => { None };
    (@kind $k:ident) => { Some(SubjectKind::$k) };
    (@depth) => { 0 };
    (@depth $d:literal) => { $d };
    ($($variant:ident = $yaml:literal, $c:literal, [$($p:literal : $t:ident),*], [$($o:literal),*]
        $(, c: $c_args:literal)?
        $(, c_fn: $c_fn:literal)?
        $(, since: $since:tt)?
        $(, strings: $strings:ident)?
        $(, allocates: $allocates:ident)?
        $(, depth: $depth:literal)?
        $(, rule: $rule:literal)?
    ;)+) => {
        /// A callable function.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub enum Func { $( #[serde(rename = $yaml)] $variant, )+ }

        // Each column is an array indexed by the variant (`self as usize`), not a
        // `match`: every generated call asks several of them, and a `match` of some
        // seventy arms compiled to an indirect jump that mispredicted (cachegrind:
        // ~157k mispredicts in `outs` alone per 4,096-sequence search).
        impl Func {
            pub const ALL: &'static [Func] = &[$(Func::$variant),+];
            /// Each function's group, by declaration order ([`Func::group`]).
            const GROUPS: &'static [Group] = &[$(Group::of_c_name($c)),+];
            const YAML: &'static [&'static str] = &[$($yaml),+];
            const C_NAME: &'static [&'static str] = &[$($c),+];
            const PARAMS: &'static [&'static [(&'static str, Param)]] =
                &[$(&[$(($p, Param::$t)),*]),+];
            const OUTS: &'static [&'static [&'static str]] = &[$(&[$($o),*]),+];
            const C_ARGS: &'static [Option<&'static str>] = &[$(funcs!(@some $($c_args)?)),+];
            const C_FN: &'static [&'static str] = &[$(
                match funcs!(@some $($c_fn)?) { Some(f) => f, None => $c }
            ),+];
            const SINCE: &'static [Option<MpiVersion>] = &[$(funcs!(@some $(MpiVersion $since)?)),+];
            const STRINGS_OF: &'static [Option<SubjectKind>] = &[$(funcs!(@kind $($strings)?)),+];
            const ALLOCATES: &'static [Option<SubjectKind>] = &[$(funcs!(@kind $($allocates)?)),+];
            const DEPTH: &'static [i32] = &[$(funcs!(@depth $($depth)?)),+];
            const RULE: &'static [Option<&'static str>] = &[$(funcs!(@some $($rule)?)),+];
            /// The spelling in case files.
            pub fn yaml(self) -> &'static str { Self::YAML[self as usize] }
            /// The C name (evidence, run-wide return-code table); harness operations have
            /// none of their own and are shown by their case-file name.
            pub fn c_name(self) -> &'static str { Self::C_NAME[self as usize] }
            /// Parameters in prototype order.
            pub fn params(self) -> &'static [(&'static str, Param)] {
                Self::PARAMS[self as usize]
            }
            /// Names of the OUT values a case may `expect` or `save`.
            pub fn outs(self) -> &'static [&'static str] {
                Self::OUTS[self as usize]
            }
            pub fn from_yaml(s: &str) -> Option<Func> {
                match s { $($yaml => Some(Func::$variant),)+ _ => None }
            }
            /// The C argument list of the call, or `None` when a reproducer cannot make
            /// it (the `c:` column).
            pub fn c_args(self) -> Option<&'static str> {
                Self::C_ARGS[self as usize]
            }
            /// The C function a reproducer calls: the C name unless the `c_fn:` column
            /// says otherwise.
            pub fn c_fn(self) -> &'static str {
                Self::C_FN[self as usize]
            }
            /// The MPI version that added the function, when later than MPI-3.1 (MPI_T
            /// functions only: the `since:` column).
            pub fn since(self) -> Option<MpiVersion> {
                Self::SINCE[self as usize]
            }
            /// The kind of catalog entry whose name and description the function's (buf,
            /// len) pairs return, if any: the strings a string check compares with.
            pub fn strings_of(self) -> Option<SubjectKind> {
                Self::STRINGS_OF[self as usize]
            }
            /// The kind of entry the handle the call makes (its first OUT) is for, if it
            /// makes one the executor tracks.
            pub fn allocates(self) -> Option<SubjectKind> {
                Self::ALLOCATES[self as usize]
            }
            /// What a successful call adds to MPI_T's initialization count: 1 for
            /// MPI_T_init_thread, -1 for MPI_T_finalize (R-INIT-1, R-FIN-1), else 0.
            pub fn depth(self) -> i32 {
                Self::DEPTH[self as usize]
            }
            /// The rule (specs/clauses.yaml) a divergence in the call's outcome cites
            /// unless its state says more (the differential comparator's `rule_of`; a
            /// case cites its own `rules:`), for the calls fuzz-props makes.
            pub fn rule(self) -> Option<&'static str> {
                Self::RULE[self as usize]
            }
        }
    };
}

funcs! {
    InitThread = "init_thread", "MPI_T_init_thread", ["required": Int], ["provided"],
        c: "{required}, {&provided}", depth: 1, rule: "R-INIT-1";
    Finalize = "finalize", "MPI_T_finalize", [], [], c: "", depth: -1, rule: "R-FIN-1";
    EnumGetInfo = "enum_get_info", "MPI_T_enum_get_info", ["enumtype": Handle, "name": Str], ["num", "name"],
        c: "{enumtype}, {&num}, {name}", strings: Enum, rule: "R-ENUM-2";
    EnumGetItem = "enum_get_item", "MPI_T_enum_get_item", ["enumtype": Handle, "item": Int, "name": Str], ["value", "name"],
        c: "{enumtype}, {item}, {&value}, {name}", strings: Item, rule: "R-ENUM-3";
    CvarGetNum = "cvar_get_num", "MPI_T_cvar_get_num", [], ["num"], c: "{&num}", rule: "R-CVAR-2";
    CvarGetInfo = "cvar_get_info", "MPI_T_cvar_get_info", ["index": Int, "name": Str, "desc": Str],
        ["name", "verbosity", "datatype", "enumtype", "desc", "bind", "scope"],
        c: "{index}, {name}, {&verbosity}, {&datatype}, {&enumtype}, {desc}, {&bind}, {&scope}",
        strings: Cvar, rule: "R-CVAR-2";
    // MPI_T_cvar_get_info asking only for the name (every other OUT NULL, R-CVAR-3).
    CvarGetInfoNameOnly = "cvar_get_info_name_only", "MPI_T_cvar_get_info", ["index": Int, "name": Str], ["name"],
        c: "{index}, {name}, NULL, NULL, NULL, NULL, NULL, NULL, NULL", strings: Cvar, rule: "R-CVAR-2";
    CvarGetIndex = "cvar_get_index", "MPI_T_cvar_get_index", ["name": Text], ["index"], c: "{name}, {&index}", rule: "R-CVAR-5";
    CvarHandleAlloc = "cvar_handle_alloc", "MPI_T_cvar_handle_alloc", ["index": Int, "obj": Obj], ["handle", "count"],
        c: "{index}, {obj}, {&handle}, {&count}", allocates: Cvar, rule: "R-CVAR-6";
    CvarHandleFree = "cvar_handle_free", "MPI_T_cvar_handle_free", ["handle": Handle], ["handle"], c: "{&handle}", rule: "R-CVAR-7";
    CvarRead = "cvar_read", "MPI_T_cvar_read", ["handle": Handle], ["value", "bytes", "overrun", "strlen"],
        c: "{handle}, {&value}", rule: "R-CVAR-8";
    CvarWrite = "cvar_write", "MPI_T_cvar_write", ["handle": Handle, "data": Data], [], c: "{handle}, {data}", rule: "R-CVAR-9";
    PvarGetNum = "pvar_get_num", "MPI_T_pvar_get_num", [], ["num"], c: "{&num}", rule: "R-PVAR-1";
    PvarGetInfo = "pvar_get_info", "MPI_T_pvar_get_info", ["index": Int, "name": Str, "desc": Str],
        ["name", "verbosity", "var_class", "datatype", "enumtype", "desc", "bind", "readonly", "continuous", "atomic"],
        c: "{index}, {name}, {&verbosity}, {&var_class}, {&datatype}, {&enumtype}, {desc}, {&bind}, {&readonly}, {&continuous}, {&atomic}",
        strings: Pvar, rule: "R-PVAR-1";
    // MPI_T_pvar_get_info asking only for the name (every other OUT NULL, R-CVAR-3).
    PvarGetInfoNameOnly = "pvar_get_info_name_only", "MPI_T_pvar_get_info", ["index": Int, "name": Str], ["name"],
        c: "{index}, {name}, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL", strings: Pvar, rule: "R-PVAR-1";
    PvarGetIndex = "pvar_get_index", "MPI_T_pvar_get_index", ["name": Text, "var_class": Int], ["index"],
        c: "{name}, {var_class}, {&index}", rule: "R-PVAR-4";
    PvarSessionCreate = "pvar_session_create", "MPI_T_pvar_session_create", [], ["session"], c: "{&session}", rule: "R-SESS-1";
    PvarSessionFree = "pvar_session_free", "MPI_T_pvar_session_free", ["session": Handle], ["session"], c: "{&session}", rule: "R-SESS-1";
    PvarHandleAlloc = "pvar_handle_alloc", "MPI_T_pvar_handle_alloc", ["session": Handle, "index": Int, "obj": Obj], ["handle", "count"],
        c: "{session}, {index}, {obj}, {&handle}, {&count}", allocates: Pvar, rule: "R-PH-1";
    PvarHandleFree = "pvar_handle_free", "MPI_T_pvar_handle_free", ["session": Handle, "handle": Handle], ["handle"],
        c: "{session}, {&handle}", rule: "R-PH-1";
    PvarStart = "pvar_start", "MPI_T_pvar_start", ["session": Handle, "handle": Handle], [], c: "{session}, {handle}", rule: "R-PSTART-1";
    PvarStop = "pvar_stop", "MPI_T_pvar_stop", ["session": Handle, "handle": Handle], [], c: "{session}, {handle}", rule: "R-PSTART-1";
    PvarRead = "pvar_read", "MPI_T_pvar_read", ["session": Handle, "handle": Handle], ["value", "bytes", "overrun", "strlen"],
        c: "{session}, {handle}, {&value}", rule: "R-PREAD-1";
    // MPI_T_pvar_read made from inside a signal handler (R-PVAR-ASYNC): helpers.c's
    // helper raises the signal and makes the call in its handler.
    PvarReadInSignal = "pvar_read_in_signal_handler", "MPI_T_pvar_read", ["session": Handle, "handle": Handle], ["value", "bytes", "overrun", "strlen"],
        c: "{session}, {handle}, {&value}", c_fn: "read_in_signal_handler";
    PvarWrite = "pvar_write", "MPI_T_pvar_write", ["session": Handle, "handle": Handle, "data": Data], [],
        c: "{session}, {handle}, {data}", rule: "R-PWRITE-1";
    PvarReset = "pvar_reset", "MPI_T_pvar_reset", ["session": Handle, "handle": Handle], [], c: "{session}, {handle}", rule: "R-PRESET-1";
    PvarReadreset = "pvar_readreset", "MPI_T_pvar_readreset", ["session": Handle, "handle": Handle], ["value", "bytes", "overrun", "strlen"],
        c: "{session}, {handle}, {&value}", rule: "R-PRR-1";
    CategoryGetNum = "category_get_num", "MPI_T_category_get_num", [], ["num"], c: "{&num}", rule: "R-CAT-1";
    CategoryGetInfo = "category_get_info", "MPI_T_category_get_info", ["index": Int, "name": Str, "desc": Str],
        ["name", "desc", "num_cvars", "num_pvars", "num_categories"],
        c: "{index}, {name}, {desc}, {&num_cvars}, {&num_pvars}, {&num_categories}", strings: Category, rule: "R-CAT-1";
    // MPI_T_category_get_info asking only for the name (every other OUT NULL, R-CVAR-3).
    CategoryGetInfoNameOnly = "category_get_info_name_only", "MPI_T_category_get_info", ["index": Int, "name": Str], ["name"],
        c: "{index}, {name}, NULL, NULL, NULL, NULL, NULL", strings: Category, rule: "R-CAT-1";
    CategoryGetNumEvents = "category_get_num_events", "MPI_T_category_get_num_events", ["index": Int], ["num"],
        c: "{index}, {&num}", since: (4, 0), rule: "R-CAT-1";
    CategoryGetIndex = "category_get_index", "MPI_T_category_get_index", ["name": Text], ["index"], c: "{name}, {&index}", rule: "R-CAT-1";
    CategoryGetCvars = "category_get_cvars", "MPI_T_category_get_cvars", ["index": Int, "len": Int], ["indices", "overrun"],
        c: "{index}, {len}, {&indices}", rule: "R-CAT-1";
    CategoryGetPvars = "category_get_pvars", "MPI_T_category_get_pvars", ["index": Int, "len": Int], ["indices", "overrun"],
        c: "{index}, {len}, {&indices}", rule: "R-CAT-1";
    CategoryGetEvents = "category_get_events", "MPI_T_category_get_events", ["index": Int, "len": Int], ["indices", "overrun"],
        c: "{index}, {len}, {&indices}", since: (4, 0), rule: "R-CAT-1";
    CategoryGetCategories = "category_get_categories", "MPI_T_category_get_categories", ["index": Int, "len": Int], ["indices", "overrun"],
        c: "{index}, {len}, {&indices}", rule: "R-CAT-1";
    CategoryChanged = "category_changed", "MPI_T_category_changed", [], ["update_number"], c: "{&update_number}", rule: "R-CAT";
    SourceGetNum = "source_get_num", "MPI_T_source_get_num", [], ["num"], c: "{&num}", since: (4, 0), rule: "R-SRC-1";
    SourceGetInfo = "source_get_info", "MPI_T_source_get_info", ["index": Int, "name": Str, "desc": Str],
        ["name", "desc", "ordering", "ticks_per_second", "max_ticks"],
        c: "{index}, {name}, {desc}, {&ordering}, {&ticks_per_second}, {&max_ticks}, NULL",
        since: (4, 0), strings: Source, rule: "R-SRC-1";
    // MPI_T_source_get_info asking only for the info object (every other OUT NULL).
    SourceGetInfoObject = "source_get_info_object", "MPI_T_source_get_info", ["index": Int], ["info"],
        c: "{index}, NULL, NULL, NULL, NULL, NULL, NULL, NULL, {&info}", since: (4, 0);
    SourceGetTimestamp = "source_get_timestamp", "MPI_T_source_get_timestamp", ["index": Int], ["timestamp"],
        c: "{index}, {&timestamp}", since: (4, 0), rule: "R-SRC-TS";
    EventGetNum = "event_get_num", "MPI_T_event_get_num", [], ["num"], c: "{&num}", since: (4, 0), rule: "R-EVT-1";
    // `capacity` sizes the datatype and displacement arrays and is the value of the
    // INOUT num_elements: the reproducer lays them out, so the template does not name it.
    EventGetInfo = "event_get_info", "MPI_T_event_get_info", ["index": Int, "name": Str, "desc": Str, "capacity": Int],
        ["name", "verbosity", "datatypes", "displacements", "num_elements", "enumtype", "desc", "bind", "overrun"],
        c: "{index}, {name}, {&verbosity}, {&datatypes}, {&displacements}, {&num_elements}, {&enumtype}, NULL, {desc}, {&bind}",
        since: (4, 0), strings: Event, rule: "R-EVT-1";
    // MPI_T_event_get_info asking only for the info object (every other OUT NULL).
    EventGetInfoObject = "event_get_info_object", "MPI_T_event_get_info", ["index": Int], ["info"],
        c: "{index}, NULL, NULL, NULL, NULL, NULL, NULL, NULL, {&info}, NULL, NULL, NULL", since: (4, 0), rule: "R-EVT-INFO";
    EventGetIndex = "event_get_index", "MPI_T_event_get_index", ["name": Text], ["index"],
        c: "{name}, {&index}", since: (4, 0), rule: "R-EVT-IDX";
    EventHandleAlloc = "event_handle_alloc", "MPI_T_event_handle_alloc", ["index": Int, "obj": Obj, "info": Handle], ["registration"],
        c: "{index}, {obj}, {info}, {&registration}", since: (4, 0), allocates: Event, rule: "R-EVT-1";
    EventHandleSetInfo = "event_handle_set_info", "MPI_T_event_handle_set_info", ["registration": Handle, "info": Handle], [],
        c: "{registration}, {info}", since: (4, 0);
    EventHandleGetInfo = "event_handle_get_info", "MPI_T_event_handle_get_info", ["registration": Handle], ["info"],
        c: "{registration}, {&info}", since: (4, 0);
    EventRegisterCallback = "event_register_callback", "MPI_T_event_register_callback",
        ["registration": Handle, "cb_safety": Int, "info": Handle, "callback": Flag, "tag": Int], [],
        c: "{registration}, {cb_safety}, {info}, (void *)(intptr_t){tag}, {callback}", since: (4, 0), rule: "R-EVT-CB";
    EventCallbackSetInfo = "event_callback_set_info", "MPI_T_event_callback_set_info", ["registration": Handle, "cb_safety": Int, "info": Handle], [],
        c: "{registration}, {cb_safety}, {info}", since: (4, 0);
    EventCallbackGetInfo = "event_callback_get_info", "MPI_T_event_callback_get_info", ["registration": Handle, "cb_safety": Int], ["info"],
        c: "{registration}, {cb_safety}, {&info}", since: (4, 0);
    // The registration by value (MPI-4.1 §15.3.8): the caller's variable is not nulled.
    EventHandleFree = "event_handle_free", "MPI_T_event_handle_free", ["registration": Handle, "free_callback": Flag], ["registration"],
        c: "{registration}, NULL, {free_callback}", since: (4, 0), rule: "R-EVT-FREE";
    EventSetDroppedHandler = "event_set_dropped_handler", "MPI_T_event_set_dropped_handler", ["registration": Handle, "handler": Flag], [],
        c: "{registration}, {handler}", since: (4, 0), rule: "R-EVT-DROP";
    // Event instances exist only inside a callback: no reproducer makes these calls.
    EventRead = "event_read", "MPI_T_event_read", ["instance": Handle, "element": Int, "bytes": Int], ["bytes", "overrun"],
        since: (4, 0);
    EventCopy = "event_copy", "MPI_T_event_copy", ["instance": Handle, "bytes": Int], ["bytes", "overrun"], since: (4, 0);
    EventGetTimestamp = "event_get_timestamp", "MPI_T_event_get_timestamp", ["instance": Handle], ["timestamp"], since: (4, 0);
    EventGetSource = "event_get_source", "MPI_T_event_get_source", ["instance": Handle], ["source"], since: (4, 0);
    // MPI functions the chapter's cases need (through the ABI profile).
    GetVersion = "get_version", "MPI_Get_version", [], ["version", "subversion"], c: "{&version}, {&subversion}";
    MpiInit = "mpi_init", "MPI_Init", [], [], c: "NULL, NULL";
    MpiFinalize = "mpi_finalize", "MPI_Finalize", [], [], c: "", rule: "R-GEN-4";
    Initialized = "initialized", "MPI_Initialized", [], ["flag"], c: "{&flag}";
    Finalized = "finalized", "MPI_Finalized", [], ["flag"], c: "{&flag}";
    CommRank = "comm_rank", "MPI_Comm_rank", ["comm": Handle], ["rank"], c: "{comm}, {&rank}";
    CommSize = "comm_size", "MPI_Comm_size", ["comm": Handle], ["size"], c: "{comm}, {&size}";
    InfoCreate = "info_create", "MPI_Info_create", [], ["info"], c: "{&info}";
    InfoSet = "info_set", "MPI_Info_set", ["info": Handle, "key": Text, "value": Text], [], c: "{info}, {key}, {value}";
    InfoGetNkeys = "info_get_nkeys", "MPI_Info_get_nkeys", ["info": Handle], ["nkeys"], c: "{info}, {&nkeys}";
    InfoFree = "info_free", "MPI_Info_free", ["info": Handle], ["info"], c: "{&info}";
    // The lifecycle matrix (specs/cases/lifecycle.yaml): MPI's own thread level and
    // sessions beside MPI_T (MPI_INIT_THREAD, MPI_QUERY_THREAD, the Sessions Model); `session_init` passes
    // MPI_INFO_NULL and MPI_ERRORS_RETURN.
    MpiInitThread = "mpi_init_thread", "MPI_Init_thread", ["required": Int], ["provided"],
        c: "NULL, NULL, {required}, {&provided}";
    QueryThread = "query_thread", "MPI_Query_thread", [], ["provided"], c: "{&provided}";
    SessionInit = "session_init", "MPI_Session_init", [], ["mpi_session"],
        c: "MPI_INFO_NULL, MPI_ERRORS_RETURN, {&mpi_session}", rule: "R-MPI-2";
    SessionFinalize = "session_finalize", "MPI_Session_finalize", ["mpi_session": Handle], ["mpi_session"],
        c: "{&mpi_session}";
    CommDup = "comm_dup", "MPI_Comm_dup", ["comm": Handle], ["newcomm"], c: "{comm}, {&newcomm}";
    CommFree = "comm_free", "MPI_Comm_free", ["comm": Handle], ["comm"], c: "{&comm}";
    // `double MPI_Wtime(void)`: returns no code (the step's rc is MPI_SUCCESS when the
    // library exports it); a reproducer calls activity.c's `wtime(&time)`.
    Wtime = "wtime", "MPI_Wtime", [], ["time"], c: "{&time}", c_fn: "wtime";
    // Harness operations: several calls in one step, or the reference's test hooks.
    // Not MPI calls: no reproducer makes the first five.
    CatalogSnapshot = "catalog_snapshot", "catalog_snapshot", [], ["catalog", "counts"];
    PmpiTwins = "pmpi_twins", "pmpi_twins", [], ["exported", "missing"];
    Deliveries = "deliveries", "deliveries", [], ["count", "tags", "safeties", "sources", "timestamps", "instances", "call_rcs", "data_ok",
        "dropped", "dropped_tags", "dropped_sources", "dropped_at", "freed"];
    // MPI work after MPI_Init (target::activity): messages to self, collectives,
    // communicator dups, pvar sessions; the reference's simulate hook on the reference.
    // A reproducer calls activity.c's `activity`.
    Activity = "activity", "activity", ["messages": Int, "unexpected": Int, "hold": Int, "drain": Int, "collectives": Int, "comms": Int, "sessions": Int],
        ["calls", "seconds", "failed_call"],
        c: "{messages}, {unexpected}, {hold}, {drain}, {collectives}, {comms}, {sessions}";
    // Cycles of MPI_T_init_thread / MPI_T_cvar_get_num / MPI_T_finalize on this thread,
    // or on `threads` threads at once, within a time budget (target::lifecycle).
    InitCycles = "init_cycles", "init_cycles", ["required": Int, "cycles": Int], ["completed", "budget_hit", "provided", "failed_call"];
    InitThreads = "init_threads", "init_threads", ["required": Int, "threads": Int, "cycles": Int], ["completed", "budget_hit", "provided", "failed_call"];
    // The reference's test hooks (mpit_reference.h): a program using them builds
    // against the reference only.
    Simulate = "simulate", "MPIT_Reference_simulate", ["steps": Int], [], c: "{steps}";
    RaiseEvent = "raise_event", "MPIT_Reference_raise_event", ["index": Int, "cb_safety": Int], [],
        c: "{index}, {cb_safety}", rule: "R-EVT-CB";
}

impl Group {
    /// Who answers a function, by its C name: `MPI_T_` the chapter's functions, `MPI_`
    /// the MPI functions, anything else (`activity`, `MPIT_Reference_simulate`) the
    /// harness. A `const fn`, so the table's column is worked out at compile time (the
    /// generator asks it of every function in every state).
    const fn of_c_name(c: &str) -> Group {
        const fn starts(c: &[u8], p: &[u8]) -> bool {
            if c.len() < p.len() {
                return false;
            }
            let mut i = 0;
            while i < p.len() {
                if c[i] != p[i] {
                    return false;
                }
                i += 1;
            }
            true
        }
        if starts(c.as_bytes(), b"MPI_T_") {
            Group::MpiT
        } else if starts(c.as_bytes(), b"MPI_") {
            Group::Mpi
        } else {
            Group::Harness
        }
    }
}

impl Func {
    /// The harness operations that loop until a time budget (`init_cycles`,
    /// `init_threads`: mpit_library::lifecycle::BUDGET, 4 s) on a library too slow to
    /// finish their cycles: the suite's longest steps.
    pub fn runs_to_a_budget(self) -> bool {
        matches!(self, Func::InitCycles | Func::InitThreads)
    }

    /// Who answers the call ([`Group::of_c_name`]).
    pub fn group(self) -> Group {
        Self::GROUPS[self as usize]
    }

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
    /// (`for_all: null_outs`): every OUT value of the queries that describe a catalog
    /// entry, the `*_get_info` functions and the enumeration queries, i.e. those whose
    /// strings are an entry's (R-CVAR-3: "A NULL OUT parameter to *_get_info is
    /// ignored"; §15.3.8 says the same of event_get_info's INOUT and OUT arguments). A
    /// variant spelling already passes every OUT it leaves out as NULL: none of its own.
    /// A string is its (buffer, length) pair; `overrun` is the harness's, not an
    /// argument.
    pub fn nullable_outs(self) -> &'static [&'static str] {
        if self.strings_of().is_none() || self.is_variant() {
            return &[];
        }
        let o = self.outs();
        match o.last() {
            Some(&"overrun") => &o[..o.len() - 1],
            _ => o,
        }
    }

    /// The MPI_T functions (the chapter's 51): subjects of `for_each: function`.
    pub fn mpi_t() -> impl Iterator<Item = Func> {
        Func::ALL
            .iter()
            .copied()
            .filter(|f| f.group() == Group::MpiT && !f.is_variant())
    }

    /// A second spelling of an MPI_T function that passes other arguments (e.g.
    /// `source_get_info_object`: only the info OUT pointer); not a subject of its own.
    /// The chapter's functions are named in case files by their C name without
    /// `MPI_T_`; a variant's name is not its C name's.
    pub fn is_variant(self) -> bool {
        self.c_name()
            .strip_prefix("MPI_T_")
            .is_some_and(|c| c != self.yaml())
    }

    /// The kind the function is about: the first word of its case-language name that
    /// is a kind's word (`cvar_handle_alloc`: cvar; `category_get_num_events`: category;
    /// `raise_event`: event); none for the enumeration and info functions. An `index`
    /// parameter is an index of this kind, a `handle` a handle of its variables.
    pub fn kind(self) -> Option<Kind> {
        self.yaml()
            .split('_')
            .find_map(|w| Kind::ALL.into_iter().find(|k| k.word() == w))
    }

    /// The kind of catalog entry whose name and description the function's (buf, len)
    /// pairs return, when it is one with an index space ([`Func::strings_of`]; not the
    /// enumerations and their items).
    pub fn strings_kind(self) -> Option<Kind> {
        let s = self.strings_of()?;
        Kind::ALL.into_iter().find(|k| k.word() == s.as_str())
    }

    pub fn param(self, name: &str) -> Option<Param> {
        self.position(name).map(|i| self.params()[i].1)
    }

    /// Where parameter `name` is in the prototype ([`Func::params`]).
    pub fn position(self, name: &str) -> Option<usize> {
        self.params().iter().position(|(n, _)| *n == name)
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

    /// `MPI_T_{kind}_get_index`; sources have none (a source is known by its index).
    pub fn get_index(self) -> Option<Func> {
        match self {
            Kind::Cvar => Some(Func::CvarGetIndex),
            Kind::Pvar => Some(Func::PvarGetIndex),
            Kind::Category => Some(Func::CategoryGetIndex),
            Kind::Event => Some(Func::EventGetIndex),
            Kind::Source => None,
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
            if let Some(f) = k.get_index() {
                assert_eq!(f.yaml(), format!("{}_get_index", k.word()));
            }
        }
    }

    /// Every template names each parameter of its function once and only OUTs the
    /// function has: the C reproducer makes the call the executor makes. `capacity`
    /// (event_get_info) is the one parameter a template leaves out: the reproducer sizes
    /// the arrays by it and passes it as the INOUT num_elements.
    #[test]
    fn templates_follow_the_call_table() {
        for f in Func::ALL {
            let Some(t) = f.c_args() else { continue };
            let mut named = Vec::new();
            let mut rest = t;
            while let Some(i) = rest.find('{') {
                let j = rest[i..].find('}').expect("closed") + i;
                named.push(&rest[i + 1..j]);
                rest = &rest[j + 1..];
            }
            for (p, _) in f.params() {
                if *p == "capacity" {
                    continue;
                }
                let amp = format!("&{p}");
                assert_eq!(
                    named.iter().filter(|n| **n == *p || **n == amp).count(),
                    1,
                    "{}: parameter {p} in {t:?}",
                    f.yaml()
                );
            }
            for n in &named {
                if let Some(o) = n.strip_prefix('&') {
                    assert!(
                        f.outs().contains(&o) || f.param(o).is_some(),
                        "{}: {o} is neither an OUT nor a parameter",
                        f.yaml()
                    );
                } else {
                    assert!(f.param(n).is_some(), "{}: {n} is not a parameter", f.yaml());
                }
            }
        }
    }

    /// The columns agree with the rest of the row: a variant spelling was added with the
    /// function it spells; the handle a call makes is its first OUT; only MPI_T_init_thread
    /// and MPI_T_finalize change the initialization count.
    #[test]
    fn the_columns_agree_with_the_rows() {
        for f in Func::ALL {
            if f.is_variant() {
                let base = Func::mpi_t().find(|b| b.c_name() == f.c_name());
                assert_eq!(base.map(Func::since), Some(f.since()), "{}", f.yaml());
            }
            if f.allocates().is_some() {
                assert!(
                    matches!(f.outs().first(), Some(&("handle" | "registration"))),
                    "{}",
                    f.yaml()
                );
            }
            if f.since().is_some() {
                assert_eq!(f.group(), Group::MpiT, "{}", f.yaml());
            }
        }
        let depth: Vec<(&str, i32)> = Func::ALL
            .iter()
            .filter(|f| f.depth() != 0)
            .map(|f| (f.c_name(), f.depth()))
            .collect();
        assert_eq!(depth, [("MPI_T_init_thread", 1), ("MPI_T_finalize", -1)]);
    }

    #[test]
    fn fifty_one_mpi_t_functions() {
        assert_eq!(Func::mpi_t().count(), 51);
        for f in Func::ALL {
            assert_eq!(Func::from_yaml(f.yaml()), Some(*f));
        }
    }
}
