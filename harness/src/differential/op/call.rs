//! An op as a call of the function table ([`Call`]): the entry it calls, its
//! arguments by parameter name in the sequence's terms, and what both engines observe
//! of its OUT arguments. Both engines carry out this call (`Engine::call`): the target
//! engine (`target/`) resolves each argument in the library's terms and reads the OUTs
//! by [`Sees`], the model engine (`model.rs`) reads the arguments by name. The YAML
//! writer (`emit/steps.rs`) writes the arguments, and the comparator and the writer's
//! expectations ask the call what it is. One translation of each op, not one per
//! reader.

use super::{callback_tag, Data, Kind, Op, Ref, Str};
use crate::cases::funcs::Func;
use crate::differential::HandleKind;
use arrayvec::ArrayVec;
use mpit_reference::model::Members;
use mpit_reference::spec::{CbSafety, PvarClass, ThreadLevel};

/// An argument of a [`Call`] in the sequence's own terms; each reader resolves it in
/// its own: the target engine in the library's numbering, handles and ABI numbers, the
/// YAML writer as the case language's `$variables`, spellings and sizes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum A<'a> {
    /// An entry's index in the mirror's numbering.
    Index(Kind, i32),
    /// A handle, session, registration or event instance the sequence names.
    Handle(HandleKind, Ref),
    /// The n-th distinct enumtype a get_info call returned.
    Enumtype(u16),
    /// A (buf, len) pair.
    Str(Str),
    /// A name passed in.
    Text(&'a str),
    Level(ThreadLevel),
    Class(PvarClass),
    Safety(CbSafety),
    /// What a write through this handle writes.
    Data(HandleKind, Ref, Data),
    Int(i64),
    Flag(bool),
    /// `MPI_INFO_NULL`.
    InfoNull,
}

/// What of a call's OUT arguments both engines observe (the rest the standard leaves
/// open here, or the comparator cannot judge: a timestamp's ticks).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sees {
    /// The return code alone.
    Code,
    /// The thread level provided.
    Provided,
    /// `num`, the kind's count in the mirror's numbering.
    Count(Kind),
    /// `index`, an entry of this kind.
    Index(Kind),
    /// `indices`, entries of this kind (a category's members).
    Members(Kind),
    /// One integer OUT.
    Int(&'static str),
    /// `update_number`, saved by a written case for a later comparison.
    Update,
    /// An integer OUT and the name pair (an enumeration or its item).
    Named(&'static str),
    /// Every OUT argument of the kind's get_info.
    Info(Kind),
    /// The name pair alone.
    NameOnly,
    /// A handle made (into the kind's table) for entry `index`: the call's first OUT
    /// ([`Call::handle_out`]).
    Alloc { kind: HandleKind, index: i32 },
    /// A handle freed, NULL or not after the call: its first OUT.
    Free { kind: HandleKind },
    /// A variable's value read through this handle.
    Read(HandleKind, Ref),
    /// A new info object, freed again.
    InfoObject,
    /// The callbacks a raised event made the library run.
    Raise(i32),
}

/// A call's arguments by parameter name: at most five (`event_register_callback`),
/// on the stack, since every call compared is lowered several times (its engines, the
/// comparator's level and value tracking).
pub type Args<'a> = ArrayVec<(&'static str, A<'a>), 5>;

/// One op in the function table's vocabulary: the entry it calls, its arguments by
/// parameter name (`Func::params`), and what both engines observe of its OUTs. The one
/// translation of an op into a call: the target engine passes these arguments, the
/// YAML writer writes them.
#[derive(Debug, Clone, PartialEq)]
pub struct Call<'a> {
    pub func: Func,
    pub args: Args<'a>,
    /// Passed by the target engine, left out of a written case: the executor's
    /// default for the parameter is the same value (`exec/args.rs`), or with
    /// `null_outs` the NULL arguments make it moot (no array is asked for through a
    /// NULL `num_elements`).
    pub implied: Args<'a>,
    /// Every OUT argument of the function not passed above is NULL (R-CVAR-3); a
    /// written case passes each NULL in turn, then all (`for_all: null_outs`).
    pub null_outs: bool,
    pub sees: Sees,
}

impl Op {
    /// This op as a call of the function table ([`Call`]).
    pub fn call<'a>(&'a self) -> Call<'a> {
        let c = |args: &[(&'static str, A<'a>)], sees| Call {
            func: self.func(),
            args: args.iter().copied().collect(),
            implied: Args::new(),
            null_outs: false,
            sees,
        };
        let session = |r: Ref| ("session", A::Handle(HandleKind::Session, r));
        let pvar = |r: Ref| ("handle", A::Handle(HandleKind::Pvar, r));
        let cvar = |r: Ref| ("handle", A::Handle(HandleKind::Cvar, r));
        let reg = |r: Ref| ("registration", A::Handle(HandleKind::Registration, r));
        match self {
            Op::InitThread { required } => c(&[("required", A::Level(*required))], Sees::Provided),
            Op::Finalize | Op::MpiInit => c(&[], Sees::Code),
            Op::GetNum(k) => c(&[], Sees::Count(*k)),
            Op::GetInfo {
                kind,
                index,
                name,
                desc,
            } => {
                let args = [("index", A::Index(*kind, *index)), ("name", A::Str(*name))];
                let event = *kind == Kind::Event;
                // The name alone: `*_get_info_name_only` (Op::func), or for events and
                // sources every other OUT argument NULL, no array asked.
                if *desc == Str::NONE {
                    let mut call = c(&args, Sees::NameOnly);
                    call.null_outs = matches!(kind, Kind::Event | Kind::Source);
                    if event {
                        call.implied.push(("capacity", A::Int(0)));
                    }
                    return call;
                }
                let mut call = c(&args, Sees::Info(*kind));
                call.args.push(("desc", A::Str(*desc)));
                // Arrays of 64 elements (the executor's default `capacity`).
                if event {
                    call.implied.push(("capacity", A::Int(64)));
                }
                call
            }
            Op::GetIndex { kind, name } => c(&[("name", A::Text(name))], Sees::Index(*kind)),
            Op::PvarGetIndex { name, class } => c(
                &[("name", A::Text(name)), ("var_class", A::Class(*class))],
                Sees::Index(Kind::Pvar),
            ),
            Op::CategoryMembers { index, which, len } => {
                let k = match which {
                    Members::Cvars => Kind::Cvar,
                    Members::Pvars => Kind::Pvar,
                    Members::Events => Kind::Event,
                    Members::Categories => Kind::Category,
                };
                c(
                    &[
                        ("index", A::Index(Kind::Category, *index)),
                        ("len", A::Int((*len).into())),
                    ],
                    Sees::Members(k),
                )
            }
            Op::CategoryGetNumEvents { index } => c(
                &[("index", A::Index(Kind::Category, *index))],
                Sees::Int("num"),
            ),
            Op::CategoryChanged => c(&[], Sees::Update),
            Op::EnumGetInfo { enumtype, name } => {
                let args = [
                    ("enumtype", A::Enumtype(*enumtype)),
                    ("name", A::Str(*name)),
                ];
                every_out_null_with(c(&args, Sees::Named("num")), *name)
            }
            Op::EnumGetItem {
                enumtype,
                item,
                name,
            } => {
                let args = [
                    ("enumtype", A::Enumtype(*enumtype)),
                    ("item", A::Int((*item).into())),
                    ("name", A::Str(*name)),
                ];
                every_out_null_with(c(&args, Sees::Named("value")), *name)
            }
            Op::CvarHandleAlloc { index } => c(
                &[("index", A::Index(Kind::Cvar, *index))],
                Sees::Alloc {
                    kind: HandleKind::Cvar,
                    index: *index,
                },
            ),
            Op::CvarHandleFree { handle } => c(
                &[cvar(*handle)],
                Sees::Free {
                    kind: HandleKind::Cvar,
                },
            ),
            Op::CvarRead { handle } => c(&[cvar(*handle)], Sees::Read(HandleKind::Cvar, *handle)),
            Op::CvarWrite { handle, data } => c(
                &[
                    cvar(*handle),
                    ("data", A::Data(HandleKind::Cvar, *handle, *data)),
                ],
                Sees::Code,
            ),
            Op::SessionCreate => c(
                &[],
                Sees::Alloc {
                    kind: HandleKind::Session,
                    index: -1,
                },
            ),
            Op::SessionFree { session: s } => c(
                &[session(*s)],
                Sees::Free {
                    kind: HandleKind::Session,
                },
            ),
            Op::PvarHandleAlloc { session: s, index } => c(
                &[session(*s), ("index", A::Index(Kind::Pvar, *index))],
                Sees::Alloc {
                    kind: HandleKind::Pvar,
                    index: *index,
                },
            ),
            Op::PvarHandleFree { session: s, handle } => c(
                &[session(*s), pvar(*handle)],
                Sees::Free {
                    kind: HandleKind::Pvar,
                },
            ),
            Op::Pvar {
                session: s, handle, ..
            } => c(&[session(*s), pvar(*handle)], Sees::Code),
            Op::PvarRead {
                session: s, handle, ..
            } => c(
                &[session(*s), pvar(*handle)],
                Sees::Read(HandleKind::Pvar, *handle),
            ),
            Op::PvarWrite {
                session: s,
                handle,
                data,
            } => c(
                &[
                    session(*s),
                    pvar(*handle),
                    ("data", A::Data(HandleKind::Pvar, *handle, *data)),
                ],
                Sees::Code,
            ),
            // The timestamp's ticks are the library's clock: nothing to compare.
            Op::SourceGetTimestamp { index } => {
                c(&[("index", A::Index(Kind::Source, *index))], Sees::Code)
            }
            Op::EventHandleAlloc { index } => {
                let mut call = c(
                    &[("index", A::Index(Kind::Event, *index))],
                    Sees::Alloc {
                        kind: HandleKind::Registration,
                        index: *index,
                    },
                );
                call.implied.push(("info", A::InfoNull));
                call
            }
            // No free callback (`free_callback` NULL).
            Op::EventHandleFree { registration } => c(
                &[reg(*registration), ("free_callback", A::Flag(false))],
                Sees::Code,
            ),
            Op::Simulate { steps } => c(&[("steps", A::Int((*steps).into()))], Sees::Code),
            Op::EventInfoObject { index } => c(
                &[("index", A::Index(Kind::Event, *index))],
                Sees::InfoObject,
            ),
            // The recording callback (`callback`), reading the event type's elements.
            Op::EventRegisterCallback {
                registration,
                safety,
                set,
            } => c(
                &[
                    reg(*registration),
                    ("cb_safety", A::Safety(*safety)),
                    ("info", A::InfoNull),
                    ("callback", A::Flag(*set)),
                    ("tag", A::Int(callback_tag(*registration, *safety) as i64)),
                ],
                Sees::Code,
            ),
            Op::EventSetDroppedHandler { registration, set } => c(
                &[reg(*registration), ("handler", A::Flag(*set))],
                Sees::Code,
            ),
            Op::RaiseEvent { index, required } => c(
                &[
                    ("index", A::Index(Kind::Event, *index)),
                    ("cb_safety", A::Safety(*required)),
                ],
                Sees::Raise(*index),
            ),
            Op::EventReadAfter { instance } => c(
                &[
                    (
                        "instance",
                        A::Handle(HandleKind::Instance, Ref::Made(*instance)),
                    ),
                    ("element", A::Int(0)),
                    ("bytes", A::Int(16)),
                ],
                Sees::Code,
            ),
        }
    }
}

/// An enumeration query whose name pair is NULL passes every other OUT argument NULL
/// too (R-CVAR-3 by analogy): only the code comes back.
fn every_out_null_with(mut call: Call<'_>, name: Str) -> Call<'_> {
    if name == Str::NONE {
        call.null_outs = true;
        call.sees = Sees::Code;
    }
    call
}

/// The arguments by parameter name, as an engine carrying out the call reads them (a
/// parameter the call does not pass reads as NULL, 0 or empty).
impl<'a> Call<'a> {
    fn get(&self, name: &str) -> Option<A<'a>> {
        self.args.iter().find(|(n, _)| *n == name).map(|(_, a)| *a)
    }

    /// The handle OUT of an allocation or a free: the function's first OUT (the
    /// table's `allocates:` column says the same of the allocations).
    pub fn handle_out(&self) -> &'static str {
        self.func.outs().first().copied().unwrap_or("handle")
    }

    /// The entry the `index` argument names: its kind and index in the mirror's
    /// numbering.
    pub fn entry(&self) -> Option<(Kind, i32)> {
        match self.get("index")? {
            A::Index(k, i) => Some((k, i)),
            _ => None,
        }
    }

    /// The `index` argument (-1 when none).
    pub fn index(&self) -> i32 {
        self.entry().map_or(-1, |(_, i)| i)
    }

    /// A handle argument (NULL when none).
    pub fn handle(&self, name: &str) -> Ref {
        match self.get(name) {
            Some(A::Handle(_, r)) => r,
            _ => Ref::Null,
        }
    }

    /// A (buf, len) pair (both NULL when none).
    pub fn str(&self, name: &str) -> Str {
        match self.get(name) {
            Some(A::Str(s)) => s,
            _ => Str::NONE,
        }
    }

    pub fn text(&self, name: &str) -> &'a str {
        match self.get(name) {
            Some(A::Text(t)) => t,
            _ => "",
        }
    }

    pub fn int(&self, name: &str) -> i64 {
        match self.get(name) {
            Some(A::Int(i)) => i,
            Some(A::Enumtype(e)) => e.into(),
            _ => 0,
        }
    }

    pub fn flag(&self, name: &str) -> bool {
        matches!(self.get(name), Some(A::Flag(true)))
    }

    pub fn level(&self) -> ThreadLevel {
        match self.get("required") {
            Some(A::Level(l)) => l,
            _ => ThreadLevel::Single,
        }
    }

    pub fn class(&self) -> Option<PvarClass> {
        match self.get("var_class") {
            Some(A::Class(c)) => Some(c),
            _ => None,
        }
    }

    pub fn safety(&self) -> CbSafety {
        match self.get("cb_safety") {
            Some(A::Safety(s)) => s,
            _ => CbSafety::None,
        }
    }

    /// What a write writes, through which handle.
    pub fn data(&self) -> Option<(HandleKind, Ref, Data)> {
        match self.get("data")? {
            A::Data(k, r, d) => Some((k, r, d)),
            _ => None,
        }
    }
}

/// The call as evidence names it (a crash names the call in flight):
/// `MPI_T_cvar_read(handle: Made(0))`.
impl std::fmt::Display for Call<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}(", self.func.c_name())?;
        for (k, (n, a)) in self.args.iter().enumerate() {
            let sep = if k == 0 { "" } else { ", " };
            match a {
                A::Index(_, i) => write!(f, "{sep}{n}: {i}")?,
                A::Handle(_, r) => write!(f, "{sep}{n}: {r:?}")?,
                A::Str(s) => write!(f, "{sep}{n}: {s:?}")?,
                A::Text(t) => write!(f, "{sep}{n}: {t:?}")?,
                A::Data(_, _, d) => write!(f, "{sep}{n}: {d:?}")?,
                A::Enumtype(e) => write!(f, "{sep}{n}: enumtype {e}")?,
                A::Int(i) => write!(f, "{sep}{n}: {i}")?,
                A::Flag(b) => write!(f, "{sep}{n}: {b}")?,
                A::Level(l) => write!(f, "{sep}{n}: {}", l.spelling())?,
                A::Class(c) => write!(f, "{sep}{n}: {}", c.spelling())?,
                A::Safety(s) => write!(f, "{sep}{n}: {}", s.spelling())?,
                A::InfoNull => write!(f, "{sep}{n}: MPI_INFO_NULL")?,
            }
        }
        // A name-only variant (`cvar_get_info_name_only`) or `for_all: null_outs`.
        if self.null_outs || self.func.is_variant() {
            write!(f, ", every other OUT argument NULL")?;
        }
        write!(f, ")")
    }
}
