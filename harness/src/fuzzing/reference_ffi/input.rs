//! What one `reference_ffi` input is made of: a sequence of MPI_T calls whose
//! arguments are drawn from the values that find bugs (the handles the run holds,
//! handles it freed, predefined handles, 0, 1, small numbers, numbers near real
//! handles, any number), decoded from the fuzzer's bytes with `arbitrary`.

use arbitrary::Arbitrary;

/// A handle argument (pointer-sized MPI_T handle or MPI object handle).
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum H {
    /// 0: every MPI_T `*_NULL` handle of the standard ABI.
    Zero,
    /// 1: `MPI_T_PVAR_ALL_HANDLES` in the standard ABI.
    One,
    Small(u8),
    /// A live handle of the kind the call takes (k-th, wrapping).
    Typed(u8),
    /// A live handle of any kind (k-th, wrapping), moved by `delta`: a handle of the
    /// wrong kind, or a number near a real one.
    Live(u8, i8),
    /// A handle this run freed or an event instance after its callback returned
    /// (k-th from the most recent, wrapping).
    Freed(u8),
    /// A predefined handle value of the profile (`MPI_COMM_WORLD`, datatypes, ...).
    Predefined(u8),
    Any(u64),
}

/// An index argument.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Idx {
    /// `k mod (n + 2)`: mostly valid, sometimes just past the end.
    In(u8),
    Any(i32),
}

/// A constant of an enum-like table (thread level, cb safety, pvar class).
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Konst {
    /// The k-th constant the profile defines (wrapping).
    Known(u8),
    Any(i32),
}

/// One (buf, len) pair of the string convention. The buffer is never smaller than
/// `*len` says: a caller lying about its buffer is undefined behaviour (R-GEN-3), not
/// something the reference can check.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum S {
    /// A buffer of n bytes, `*len = n`.
    Sized(u8),
    /// A buffer of `cap` bytes, `*len = n mod (cap + 1)`.
    Roomy { cap: u8, n: u8 },
    /// NULL buffer with this `*len` (R-STR-3).
    NullBuf(i8),
    /// A buffer, `*len` zero or negative (R-STR-3).
    NonPositive(i8),
    /// NULL length pointer, with or without a buffer (R-STR-4).
    NullLen(bool),
}

/// A name argument of `*_get_index`.
#[derive(Debug, Clone, Arbitrary)]
pub enum Name {
    /// The name of the k-th entry of the catalog (wrapping).
    Real(u8),
    /// A real name with one byte changed or cut.
    Mangled(u8, u8),
    Any(String),
}

/// `obj_handle` of the `*_handle_alloc` calls: NULL or a local variable holding a value.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Obj {
    Null,
    Holding(H),
}

/// Which variable kind a `get_num` / `get_info` / `get_index` call is about.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Kind {
    Cvar,
    Pvar,
    Category,
    Source,
    Event,
}

/// One call.
#[derive(Debug, Clone, Arbitrary)]
pub enum Op {
    InitThread(Konst),
    /// Made only while this input holds an init of its own (the fixture's stays).
    Finalize,
    GetNum(Kind),
    CategoryChanged,
    GetInfo {
        kind: Kind,
        index: Idx,
        name: S,
        desc: S,
        capacity: u8,
    },
    GetIndex(Kind, Name),
    PvarGetIndex(Name, Konst),
    CategoryMembers {
        which: u8,
        cat: Idx,
        len: u8,
    },
    CategoryGetNumEvents(Idx),
    EnumGetInfo(H, S),
    EnumGetItem(H, Idx, S),
    CvarHandleAlloc(Idx, Obj),
    CvarHandleFree(H),
    CvarRead(H, u8),
    CvarWrite(H, Vec<u8>),
    SessionCreate,
    SessionFree(H),
    PvarHandleAlloc(H, Idx, Obj),
    PvarHandleFree(H, H),
    PvarStart(H, H),
    PvarStop(H, H),
    PvarReset(H, H),
    PvarRead(H, H, u8),
    PvarReadreset(H, H, u8),
    PvarWrite(H, H, Vec<u8>),
    SourceGetTimestamp(Idx),
    SourceGetInfoObject(Idx),
    EventGetInfoObject(Idx),
    EventHandleAlloc(Idx, Obj, H),
    EventHandleSetInfo(H, H),
    EventHandleGetInfo(H),
    EventCallbackSetInfo(H, Konst, H),
    EventCallbackGetInfo(H, Konst),
    EventRegisterCallback {
        reg: H,
        safety: Konst,
        info: H,
        record: bool,
    },
    EventSetDroppedHandler(H, bool),
    EventHandleFree(H, bool),
    EventRead(H, Idx, u8),
    EventCopy(H, u8),
    EventGetTimestamp(H),
    EventGetSource(H),
    InfoCreate,
    InfoSet(H, String, String),
    InfoGetNkeys(H),
    InfoGetNthkey(H, i8),
    InfoGetString(H, String),
    InfoFree(H),
    Simulate(i8),
    RaiseEvent(Idx, Konst),
}
