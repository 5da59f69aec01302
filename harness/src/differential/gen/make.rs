//! Calls of the generator's functions by name, for the tests, each with what both
//! engines observe of it written out by hand: a test checks that the generator's
//! reading of the table (`sees::sees`) says the same. The generator itself names no
//! function (`plan`, `build`).

use crate::differential::op::{callback_tag, Act, Call, Data, Kind, Ref, Sees, Str, A};
use crate::differential::HandleKind;
use mpit_spec::cases::funcs::Func;
use mpit_vocab::spec::Members;
use mpit_vocab::spec::{CbSafety, PvarClass, ThreadLevel};

fn session(r: Ref) -> (&'static str, A) {
    ("session", A::Handle(HandleKind::Session, r))
}

fn pvar(r: Ref) -> (&'static str, A) {
    ("handle", A::Handle(HandleKind::Pvar, r))
}

fn cvar(r: Ref) -> (&'static str, A) {
    ("handle", A::Handle(HandleKind::Cvar, r))
}

fn registration(r: Ref) -> (&'static str, A) {
    ("registration", A::Handle(HandleKind::Registration, r))
}

fn index(k: Kind, i: i32) -> (&'static str, A) {
    ("index", A::Index(k, i))
}

pub fn init_thread(required: ThreadLevel) -> Call {
    Call::new(
        Func::InitThread,
        [("required", A::Level(required))],
        Sees::Provided,
    )
}

pub fn finalize() -> Call {
    Call::new(Func::Finalize, [], Sees::Code)
}

/// `MPI_Init` (lifecycle sequences on a declared catalog): the entries marked
/// `appears: mpi_init` are appended; no earlier index moves (R-CVAR-1).
pub fn mpi_init() -> Call {
    Call::new(Func::MpiInit, [], Sees::Code)
}

/// `MPI_Finalize` (lifecycle sequences, after `MPI_Init`): MPI_T stays usable
/// (R-GEN-4).
pub fn mpi_finalize() -> Call {
    Call::new(Func::MpiFinalize, [], Sees::Code)
}

/// `MPI_Session_init` (lifecycle sequences on a declared catalog): only its code is
/// compared (the session is MPI's handle).
pub fn session_init() -> Call {
    Call::new(Func::SessionInit, [], Sees::Code)
}

/// `MPI_T_{kind}_get_num`.
pub fn get_num(k: Kind) -> Call {
    Call::new(k.get_num(), [], Sees::Count(k))
}

/// `MPI_T_{cvar,pvar,category,event,source}_get_info`. Both pairs of `desc` NULL asks
/// for the name alone: the table's `*_get_info_name_only` (R-CVAR-3), or for events and
/// sources, which have no such entry, every other OUT argument NULL (§15.3.8; by
/// analogy for sources), no array asked for.
pub fn get_info(kind: Kind, i: i32, name: Str, desc: Str) -> Call {
    let name_only = desc == Str::NONE;
    let func = match (kind, name_only) {
        (Kind::Cvar, true) => Func::CvarGetInfoNameOnly,
        (Kind::Cvar, false) => Func::CvarGetInfo,
        (Kind::Pvar, true) => Func::PvarGetInfoNameOnly,
        (Kind::Pvar, false) => Func::PvarGetInfo,
        (Kind::Category, true) => Func::CategoryGetInfoNameOnly,
        (Kind::Category, false) => Func::CategoryGetInfo,
        (Kind::Event, _) => Func::EventGetInfo,
        (Kind::Source, _) => Func::SourceGetInfo,
    };
    let args = [index(kind, i), ("name", A::Str(name))];
    if name_only {
        let mut c = Call::new(func, args, Sees::NameOnly);
        c.null_outs = matches!(kind, Kind::Event | Kind::Source);
        return c;
    }
    let mut c = Call::new(func, args, Sees::Info(kind));
    c.push_arg("desc", A::Str(desc));
    c
}

/// `MPI_T_{cvar,category,event}_get_index` (sources have none, MPI-4.1 §15.3.8; a pvar's
/// is [`pvar_get_index`]).
pub fn get_index(kind: Kind, name: &str) -> Call {
    // The generator asks cvars, categories and events (pick.rs); a source, which has
    // no get_index, would call event_get_index, as the engines always did.
    let func = kind.get_index().unwrap_or(Func::EventGetIndex);
    Call::new(func, [("name", A::Text(name.into()))], Sees::Index(kind))
}

pub fn pvar_get_index(name: &str, class: PvarClass) -> Call {
    Call::new(
        Func::PvarGetIndex,
        [
            ("name", A::Text(name.into())),
            ("var_class", A::Class(class)),
        ],
        Sees::Index(Kind::Pvar),
    )
}

/// `MPI_T_category_get_{cvars,pvars,categories,events}` into an array of `len`.
pub fn category_members(i: i32, which: Members, len: u16) -> Call {
    let (func, k) = match which {
        Members::Cvars => (Func::CategoryGetCvars, Kind::Cvar),
        Members::Pvars => (Func::CategoryGetPvars, Kind::Pvar),
        Members::Categories => (Func::CategoryGetCategories, Kind::Category),
        Members::Events => (Func::CategoryGetEvents, Kind::Event),
    };
    Call::new(
        func,
        [index(Kind::Category, i), ("len", A::Int(len.into()))],
        Sees::Members(k),
    )
}

pub fn category_get_num_events(i: i32) -> Call {
    Call::new(
        Func::CategoryGetNumEvents,
        [index(Kind::Category, i)],
        Sees::Int("num"),
    )
}

pub fn category_changed() -> Call {
    Call::new(Func::CategoryChanged, [], Sees::Update)
}

/// An enumeration query whose name pair is NULL passes every other OUT argument NULL
/// too (R-CVAR-3 by analogy): only the code comes back.
fn every_out_null_with(mut c: Call, name: Str) -> Call {
    if name == Str::NONE {
        c.null_outs = true;
        c.sees = Sees::Code;
    }
    c
}

/// `MPI_T_enum_get_info` on the n-th distinct enumtype a get_info call returned.
pub fn enum_get_info(enumtype: u16, name: Str) -> Call {
    let args = [("enumtype", A::Enumtype(enumtype)), ("name", A::Str(name))];
    every_out_null_with(Call::new(Func::EnumGetInfo, args, Sees::Named("num")), name)
}

pub fn enum_get_item(enumtype: u16, item: i32, name: Str) -> Call {
    let args = [
        ("enumtype", A::Enumtype(enumtype)),
        ("item", A::Int(item.into())),
        ("name", A::Str(name)),
    ];
    every_out_null_with(
        Call::new(Func::EnumGetItem, args, Sees::Named("value")),
        name,
    )
}

pub fn cvar_handle_alloc(i: i32) -> Call {
    let sees = Sees::Alloc {
        kind: HandleKind::Cvar,
        index: i,
    };
    Call::new(Func::CvarHandleAlloc, [index(Kind::Cvar, i)], sees)
}

pub fn cvar_handle_free(handle: Ref) -> Call {
    let sees = Sees::Free {
        kind: HandleKind::Cvar,
    };
    Call::new(Func::CvarHandleFree, [cvar(handle)], sees)
}

pub fn cvar_read(handle: Ref) -> Call {
    let sees = Sees::Read(HandleKind::Cvar, handle);
    Call::new(Func::CvarRead, [cvar(handle)], sees)
}

pub fn cvar_write(handle: Ref, data: Data) -> Call {
    let write = ("data", A::Data(HandleKind::Cvar, handle, data));
    Call::new(Func::CvarWrite, [cvar(handle), write], Sees::Code)
}

pub fn session_create() -> Call {
    let sees = Sees::Alloc {
        kind: HandleKind::Session,
        index: -1,
    };
    Call::new(Func::PvarSessionCreate, [], sees)
}

pub fn session_free(s: Ref) -> Call {
    let sees = Sees::Free {
        kind: HandleKind::Session,
    };
    Call::new(Func::PvarSessionFree, [session(s)], sees)
}

pub fn pvar_handle_alloc(s: Ref, i: i32) -> Call {
    let sees = Sees::Alloc {
        kind: HandleKind::Pvar,
        index: i,
    };
    Call::new(
        Func::PvarHandleAlloc,
        [session(s), index(Kind::Pvar, i)],
        sees,
    )
}

pub fn pvar_handle_free(s: Ref, handle: Ref) -> Call {
    let sees = Sees::Free {
        kind: HandleKind::Pvar,
    };
    Call::new(Func::PvarHandleFree, [session(s), pvar(handle)], sees)
}

/// `MPI_T_pvar_{start,stop,reset}` of a handle or of `MPI_T_PVAR_ALL_HANDLES`.
pub fn pvar_act(act: Act, s: Ref, handle: Ref) -> Call {
    let func = match act {
        Act::Start => Func::PvarStart,
        Act::Stop => Func::PvarStop,
        Act::Reset => Func::PvarReset,
    };
    Call::new(func, [session(s), pvar(handle)], Sees::Code)
}

/// `MPI_T_pvar_read`, or with `reset` `MPI_T_pvar_readreset`.
pub fn pvar_read(s: Ref, handle: Ref, reset: bool) -> Call {
    let func = match reset {
        false => Func::PvarRead,
        true => Func::PvarReadreset,
    };
    let sees = Sees::Read(HandleKind::Pvar, handle);
    Call::new(func, [session(s), pvar(handle)], sees)
}

pub fn pvar_write(s: Ref, handle: Ref, data: Data) -> Call {
    let write = ("data", A::Data(HandleKind::Pvar, handle, data));
    Call::new(
        Func::PvarWrite,
        [session(s), pvar(handle), write],
        Sees::Code,
    )
}

/// The timestamp's ticks are the library's clock: nothing to compare but the code.
pub fn source_get_timestamp(i: i32) -> Call {
    Call::new(
        Func::SourceGetTimestamp,
        [index(Kind::Source, i)],
        Sees::Code,
    )
}

pub fn event_handle_alloc(i: i32) -> Call {
    let sees = Sees::Alloc {
        kind: HandleKind::Registration,
        index: i,
    };
    Call::new(Func::EventHandleAlloc, [index(Kind::Event, i)], sees)
}

/// No free callback (`free_callback` NULL).
pub fn event_handle_free(r: Ref) -> Call {
    Call::new(
        Func::EventHandleFree,
        [registration(r), ("free_callback", A::Flag(false))],
        Sees::Code,
    )
}

/// The reference's hook `MPIT_Reference_simulate`: MPI activity, so counters count.
pub fn simulate(steps: u8) -> Call {
    Call::new(
        Func::Simulate,
        [("steps", A::Int(steps.into()))],
        Sees::Code,
    )
}

/// `MPI_T_event_get_info` asking only for the info object: a new object, never
/// MPI_INFO_NULL (R-EVT-INFO). It is freed again right away.
pub fn event_info_object(i: i32) -> Call {
    Call::new(
        Func::EventGetInfoObject,
        [index(Kind::Event, i)],
        Sees::InfoObject,
    )
}

/// `MPI_T_event_register_callback` at `safety` with the harness's recording callback
/// (`set`) or NULL (removes that level's callback, R-EVT-CB). The callback's
/// `user_data` names the registration and the level ([`callback_tag`]).
pub fn event_register_callback(r: Ref, safety: CbSafety, set: bool) -> Call {
    Call::new(
        Func::EventRegisterCallback,
        [
            registration(r),
            ("cb_safety", A::Safety(safety)),
            ("info", A::InfoNull),
            ("callback", A::Flag(set)),
            ("tag", A::Int(callback_tag(r, safety) as i64)),
        ],
        Sees::Code,
    )
}

/// `MPI_T_event_set_dropped_handler` with the recording handler or NULL (R-EVT-DROP).
pub fn event_set_dropped_handler(r: Ref, set: bool) -> Call {
    Call::new(
        Func::EventSetDroppedHandler,
        [registration(r), ("handler", A::Flag(set))],
        Sees::Code,
    )
}

/// The reference's hook `MPIT_Reference_raise_event`: the library observes one event
/// in a context requiring `required`; the callbacks it runs are the outputs.
pub fn raise_event(i: i32, required: CbSafety) -> Call {
    Call::new(
        Func::RaiseEvent,
        [index(Kind::Event, i), ("cb_safety", A::Safety(required))],
        Sees::Raise(i),
    )
}

/// `MPI_T_event_read(element 0)` of the n-th event instance delivered, after its
/// callback returned: erroneous (R-EVT-INST), robustness only.
pub fn event_read_after(instance: u16) -> Call {
    let inst = A::Handle(HandleKind::Instance, Ref::Made(instance));
    Call::new(
        Func::EventRead,
        [
            ("instance", inst),
            ("element", A::Int(0)),
            ("bytes", A::Int(16)),
        ],
        Sees::Code,
    )
}

/// One call of each function the generator makes, with every value of the arguments
/// that choose the function (kind, members, action, reset, a NULL description): the
/// tests' list of what a sequence may call (a constructor added above belongs here).
pub fn one_of_each() -> Vec<Call> {
    let r = Ref::Made(0);
    let mut calls = vec![
        init_thread(ThreadLevel::Single),
        finalize(),
        pvar_get_index("x", PvarClass::Counter),
        category_get_num_events(0),
        category_changed(),
        enum_get_info(0, Str::sized(8)),
        enum_get_item(0, 0, Str::sized(8)),
        cvar_handle_alloc(0),
        cvar_handle_free(r),
        cvar_read(r),
        cvar_write(r, Data::Int(1)),
        session_create(),
        session_free(r),
        pvar_handle_alloc(r, 0),
        pvar_handle_free(r, r),
        pvar_write(r, r, Data::Readback),
        source_get_timestamp(0),
        event_handle_alloc(0),
        event_handle_free(r),
        simulate(1),
        mpi_init(),
        mpi_finalize(),
        session_init(),
        event_info_object(0),
        event_register_callback(r, CbSafety::None, true),
        event_set_dropped_handler(r, true),
        raise_event(0, CbSafety::None),
        event_read_after(0),
    ];
    for kind in Kind::ALL {
        calls.push(get_num(kind));
        for desc in [Str::NONE, Str::sized(8)] {
            calls.push(get_info(kind, 0, Str::sized(8), desc));
        }
        // Sources have no get_index (gen/pick.rs asks cvars, categories and events).
        if kind != Kind::Source {
            calls.push(get_index(kind, "x"));
        }
    }
    for which in [
        Members::Cvars,
        Members::Pvars,
        Members::Categories,
        Members::Events,
    ] {
        calls.push(category_members(0, which, 4));
    }
    for act in [Act::Start, Act::Stop, Act::Reset] {
        calls.push(pvar_act(act, r, r));
    }
    for reset in [false, true] {
        calls.push(pvar_read(r, r, reset));
    }
    calls
}
