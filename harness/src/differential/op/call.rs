//! One call of a generated sequence ([`Call`]): the function table's entry it calls,
//! its arguments by parameter name in the sequence's terms, and what both engines
//! observe of its OUT arguments. The generator makes it (`gen/build.rs`), the shrinker
//! drops calls from a sequence of them, a worker receives them (`runner::protocol`),
//! and both engines carry it out (`Engine::call`): the target engine (`target/`)
//! resolves each argument in the library's terms and reads the OUTs by [`Sees`], the
//! model engine (`model.rs`) reads the arguments by name. The YAML writer
//! (`emit/steps.rs`) writes the arguments, and the comparator and the writer's
//! expectations ask the call what it is. One vocabulary from generation to report.

use super::{Act, Data, Kind, Ref, Str};
use crate::cases::funcs::{Func, Group, Param};
use crate::cases::Neutral;
use crate::differential::HandleKind;
use crate::judge::policy::{self, Policy};
use arrayvec::ArrayVec;
use mpit_reference::spec::{CbSafety, PvarClass, ThreadLevel};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::OnceLock;

/// An argument of a [`Call`] in the sequence's own terms; each reader resolves it in
/// its own: the target engine in the library's numbering, handles and ABI numbers, the
/// YAML writer as the case language's `$variables`, spellings and sizes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum A {
    /// An entry's index in the mirror's numbering.
    Index(Kind, i32),
    /// A handle, session, registration or event instance the sequence names.
    Handle(HandleKind, Ref),
    /// The n-th distinct enumtype a get_info call returned.
    Enumtype(u16),
    /// A (buf, len) pair.
    Str(Str),
    /// A name passed in.
    Text(Box<str>),
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

/// An OUT argument's name, as the table spells it (an alias, so that serde's derive
/// does not take it for a string borrowed from its input: [`out_name`] reads it).
type OutName = &'static str;

/// What of a call's OUT arguments both engines observe (the rest the standard leaves
/// open here, or the comparator cannot judge: a timestamp's ticks).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
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
    Int(#[serde(deserialize_with = "out_name")] OutName),
    /// `update_number`, saved by a written case for a later comparison.
    Update,
    /// An integer OUT and the name pair (an enumeration or its item).
    Named(#[serde(deserialize_with = "out_name")] OutName),
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
/// inline, since a sequence holds dozens of calls and the shrinker copies it often.
pub type Args = ArrayVec<(&'static str, A), 5>;

/// One call of the function table: the entry it calls, its arguments by parameter
/// name (`Func::params`), and what both engines observe of its OUTs. The target engine
/// passes these arguments (and [`Call::implied`]), the YAML writer writes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    pub func: Func,
    #[serde(serialize_with = "args_out", deserialize_with = "args_in")]
    pub args: Args,
    /// Every OUT argument of the function not passed above is NULL (R-CVAR-3); a
    /// written case passes each NULL in turn, then all (`for_all: null_outs`).
    pub null_outs: bool,
    pub sees: Sees,
}

impl Call {
    /// A call of `func` with these arguments, observed by `sees`.
    pub fn new(func: Func, args: impl IntoIterator<Item = (&'static str, A)>, sees: Sees) -> Call {
        Call {
            func,
            args: args.into_iter().collect(),
            null_outs: false,
            sees,
        }
    }

    /// Arguments the target engine passes and a written case leaves out: the value
    /// the executor passes for a parameter left out (`Func::neutral`). An `info` not
    /// passed is `MPI_INFO_NULL`; a `capacity` not passed is arrays of the neutral
    /// length, or none with `null_outs`, whose NULL arguments make it moot (no array is
    /// asked for through a NULL `num_elements`).
    pub fn implied(&self) -> Args {
        let passed = |n: &str| self.args.iter().any(|(p, _)| *p == n);
        let mut implied = Args::new();
        for (n, p) in self.func.params() {
            // The name is matched before the neutral value is asked for: every call the
            // target engine makes comes through here, and only these two are implied.
            let a = match (*n, p) {
                ("info", Param::Handle) => match self.func.neutral(n) {
                    Neutral::Constant("MPI_INFO_NULL") => A::InfoNull,
                    _ => continue,
                },
                ("capacity", Param::Int) => match self.func.neutral(n) {
                    Neutral::Int(len) => A::Int(if self.null_outs { 0 } else { len }),
                    _ => continue,
                },
                _ => continue,
            };
            if !passed(n) {
                implied.push((n, a));
            }
        }
        implied
    }

    /// The handle the call frees: the table names its first OUT as a handle argument
    /// (an INOUT set to the NULL handle, R-CVAR-7, R-SESS-1, R-PH-1; or
    /// `event_handle_free`'s registration, passed by value and freed, R-EVT-FREE).
    pub fn frees(&self) -> Option<(HandleKind, Ref)> {
        let out = self.func.outs().first()?;
        self.args.iter().find_map(|(n, a)| match a {
            A::Handle(k, r) if n == out => Some((*k, *r)),
            _ => None,
        })
    }

    /// The MPI function the call makes, as evidence and the return-code table name it
    /// (the table's C name).
    pub fn function(&self) -> &'static str {
        self.func.c_name()
    }

    /// Whether the call is a `*_get_info` of an entry (all OUTs, or the name alone).
    pub fn is_get_info(&self) -> bool {
        matches!(self.sees, Sees::Info(_) | Sees::NameOnly)
    }

    /// Whether the call needs the reference's hooks (only the reference cdylib has
    /// them): a harness operation the generator makes.
    pub fn needs_hooks(&self) -> bool {
        self.func.group() == Group::Harness
    }

    /// Whether the call acts on the process, not only on MPI_T's objects: the
    /// reference's hooks (simulated activity, events raised, which count per process)
    /// and MPI_Init (once per process). A sequence with one needs a process of its own.
    pub fn process_wide(&self) -> bool {
        matches!(self.func.group(), Group::Harness | Group::Mpi)
    }

    /// Whether the call changes the process for the next sequence in ways the closing
    /// calls do not undo: a value written (cvars keep it; `exact_values`: any write,
    /// else one that is not the readback), or the reference's simulated activity
    /// (counters and start values move), an event raised or MPI initialized. The next
    /// sequence then gets a fresh worker, as the model starts afresh for every sequence.
    pub fn leaves_traces(&self, exact_values: bool) -> bool {
        if self.process_wide() {
            return true;
        }
        self.data()
            .is_some_and(|(_, _, d)| exact_values || d != Data::Readback)
    }
}

/// What a pvar call does beyond its arguments, read off the last word of its name
/// (MPI-4.1 §15.3.7 names them so): which start, stop or reset a handle (R-PSTART-1,
/// R-PRESET-1), which take `MPI_T_PVAR_ALL_HANDLES`, which reset what they read
/// (R-PRR-1). Worked out once per function: every call of a sequence asks, several
/// times.
#[derive(Debug, Clone, Copy, Default)]
struct PvarFacts {
    act: Option<Act>,
    takes_all_handles: bool,
    resets: bool,
}

fn pvar_facts(f: Func) -> PvarFacts {
    static FACTS: OnceLock<Vec<PvarFacts>> = OnceLock::new();
    let all = FACTS.get_or_init(|| {
        Func::ALL
            .iter()
            .map(|f| {
                let last = f.yaml().rsplit('_').next().unwrap_or("");
                let act = match (f.kind(), last) {
                    (Some(Kind::Pvar), "start") => Some(Act::Start),
                    (Some(Kind::Pvar), "stop") => Some(Act::Stop),
                    (Some(Kind::Pvar), "reset") => Some(Act::Reset),
                    _ => None,
                };
                PvarFacts {
                    act,
                    takes_all_handles: act.is_some() && !policy::has(*f, Policy::RefusesAllHandles),
                    resets: f.kind() == Some(Kind::Pvar)
                        && f.outs().contains(&"value")
                        && last.ends_with("reset"),
                }
            })
            .collect()
    });
    all.get(f as usize).copied().unwrap_or_default()
}

impl Call {
    pub fn act(&self) -> Option<Act> {
        pvar_facts(self.func).act
    }

    /// Whether the call takes `MPI_T_PVAR_ALL_HANDLES` (R-PSTART-2: start, stop and
    /// reset); read, write and readreset "cannot" (R-PREAD-1, `judge::policy`), and no
    /// other call has it as a handle.
    pub fn takes_all_handles(&self) -> bool {
        pvar_facts(self.func).takes_all_handles
    }

    /// Whether the call resets the variable it reads (`MPI_T_pvar_readreset`).
    pub fn resets(&self) -> bool {
        pvar_facts(self.func).resets
    }
}

/// The argument names as the table spells them, for the calls a worker receives.
fn param_name(s: &str) -> Option<&'static str> {
    Func::ALL
        .iter()
        .flat_map(|f| f.params())
        .map(|(n, _)| *n)
        .find(|n| *n == s)
}

fn args_out<S: Serializer>(args: &Args, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(args.iter())
}

fn args_in<'de, D: Deserializer<'de>>(d: D) -> Result<Args, D::Error> {
    use serde::de::Error;
    let v: Vec<(String, A)> = Vec::deserialize(d)?;
    if v.len() > 5 {
        return Err(D::Error::custom("more than five arguments"));
    }
    v.into_iter()
        .map(|(n, a)| match param_name(&n) {
            Some(n) => Ok((n, a)),
            None => Err(D::Error::custom(format!("no parameter `{n}` in the table"))),
        })
        .collect()
}

fn out_name<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    use serde::de::Error;
    let s = String::deserialize(d)?;
    Func::ALL
        .iter()
        .flat_map(|f| f.outs())
        .copied()
        .find(|o| *o == s)
        .ok_or_else(|| D::Error::custom(format!("no OUT `{s}` in the table")))
}

/// The arguments by parameter name, as an engine carrying out the call reads them (a
/// parameter the call does not pass reads as NULL, 0 or empty).
impl Call {
    /// The argument passed as parameter `name`, if any.
    pub fn arg(&self, name: &str) -> Option<&A> {
        self.args.iter().find(|(n, _)| *n == name).map(|(_, a)| a)
    }

    /// The handle OUT of an allocation or a free: the function's first OUT (the
    /// table's `allocates:` column says the same of the allocations).
    pub fn handle_out(&self) -> &'static str {
        self.func.outs().first().copied().unwrap_or("handle")
    }

    /// The entry the `index` argument names: its kind and index in the mirror's
    /// numbering.
    pub fn entry(&self) -> Option<(Kind, i32)> {
        match self.arg("index")? {
            A::Index(k, i) => Some((*k, *i)),
            _ => None,
        }
    }

    /// The `index` argument (-1 when none).
    pub fn index(&self) -> i32 {
        self.entry().map_or(-1, |(_, i)| i)
    }

    /// A handle argument (NULL when none).
    pub fn handle(&self, name: &str) -> Ref {
        match self.arg(name) {
            Some(A::Handle(_, r)) => *r,
            _ => Ref::Null,
        }
    }

    /// A (buf, len) pair (both NULL when none).
    pub fn str(&self, name: &str) -> Str {
        match self.arg(name) {
            Some(A::Str(s)) => *s,
            _ => Str::NONE,
        }
    }

    pub fn text(&self, name: &str) -> &str {
        match self.arg(name) {
            Some(A::Text(t)) => t,
            _ => "",
        }
    }

    pub fn int(&self, name: &str) -> i64 {
        match self.arg(name) {
            Some(A::Int(i)) => *i,
            Some(A::Enumtype(e)) => (*e).into(),
            _ => 0,
        }
    }

    pub fn flag(&self, name: &str) -> bool {
        matches!(self.arg(name), Some(A::Flag(true)))
    }

    pub fn level(&self) -> ThreadLevel {
        match self.arg("required") {
            Some(A::Level(l)) => *l,
            _ => ThreadLevel::Single,
        }
    }

    pub fn class(&self) -> Option<PvarClass> {
        match self.arg("var_class") {
            Some(A::Class(c)) => Some(*c),
            _ => None,
        }
    }

    pub fn safety(&self) -> CbSafety {
        match self.arg("cb_safety") {
            Some(A::Safety(s)) => *s,
            _ => CbSafety::None,
        }
    }

    /// What a write writes, through which handle.
    pub fn data(&self) -> Option<(HandleKind, Ref, Data)> {
        match self.arg("data")? {
            A::Data(k, r, d) => Some((*k, *r, *d)),
            _ => None,
        }
    }
}

/// A (buf, len) pair as evidence shows it: `(buf[13], len 13)`, `NULL` for either.
impl std::fmt::Display for Str {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.cap {
            Some(c) => write!(f, "(buf[{c}], ")?,
            None => write!(f, "(NULL, ")?,
        }
        match self.len {
            Some(l) => write!(f, "len {l})"),
            None => write!(f, "NULL)"),
        }
    }
}

/// The call as evidence names it (a crash names the call in flight):
/// `MPI_T_cvar_read(handle: Made(0))`.
impl std::fmt::Display for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}(", self.func.c_name())?;
        for (k, (n, a)) in self.args.iter().enumerate() {
            let sep = if k == 0 { "" } else { ", " };
            match a {
                A::Index(_, i) => write!(f, "{sep}{n}: {i}")?,
                A::Handle(_, r) => write!(f, "{sep}{n}: {r:?}")?,
                A::Str(s) => write!(f, "{sep}{n}: {s}")?,
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
