//! One call of a generated sequence ([`Call`]): the function table's entry it calls,
//! its arguments by parameter name in the sequence's terms, and what both engines
//! observe of its OUT arguments. The generator makes it (`gen/build.rs`), the shrinker
//! drops calls from a sequence of them, a worker receives them (`runner::protocol`),
//! and both engines carry it out (`Engine::call`): the target engine (`target/`)
//! resolves each argument in the library's terms and reads the OUTs by [`Sees`], the
//! model engine (`model/`) reads the arguments by name. The YAML writer
//! (`emit/steps.rs`) writes the arguments, and the comparator and the writer's
//! expectations ask the call what it is. One vocabulary from generation to report.

use super::{Act, Data, Kind, Ref, Str, Text};
use crate::differential::HandleKind;
use crate::judge::policy::{self, Policy};
use arrayvec::ArrayVec;
use mpit_spec::cases::funcs::{Func, Group, Param};
use mpit_spec::cases::Neutral;
use mpit_vocab::spec::{CbSafety, PvarClass, ThreadLevel};
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
    Text(Text),
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

/// A call's arguments: each one's parameter, as its position in the function's
/// prototype (`Func::params`; [`Call::named_args`] gives the names), and its value. At
/// most five (`event_register_callback`), inline, since a sequence holds dozens of calls
/// and the shrinker copies it often: a position rather than the name (a 16-byte `&str`)
/// keeps a call small (see `Str`).
pub type Args = ArrayVec<(u8, A), 5>;

/// One call of the function table: the entry it calls, its arguments by parameter
/// ([`Args`]: positions in `Func::params`), and what both engines observe of its OUTs.
/// The target engine passes these arguments (and [`Call::implied`]), the YAML writer
/// writes them; both by name ([`Call::named_args`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "CallWire")]
pub struct Call {
    pub func: Func,
    pub args: Args,
    /// Every OUT argument of the function not passed above is NULL (R-CVAR-3); a
    /// written case passes each NULL in turn, then all (`for_all: null_outs`).
    pub null_outs: bool,
    pub sees: Sees,
}

impl Call {
    /// A call of `func` with these arguments by parameter name, observed by `sees`.
    pub fn new(func: Func, args: impl IntoIterator<Item = (&'static str, A)>, sees: Sees) -> Call {
        let mut c = Call {
            func,
            args: Args::new(),
            null_outs: false,
            sees,
        };
        for (name, a) in args {
            c.push_arg(name, a);
        }
        c
    }

    /// Passes `a` as parameter `name`, which the table gives the function: the
    /// generator's entries and calls name only those (`op::tests` makes each), so
    /// another name is a bug in the harness, not an input.
    pub fn push_arg(&mut self, name: &str, a: A) {
        let Some(p) = position(self.func, name) else {
            panic!("{} has no parameter `{name}`", self.func.c_name());
        };
        self.args.push((p, a));
    }

    /// The name of the parameter at position `p` of the prototype.
    pub fn param_name(&self, p: u8) -> &'static str {
        self.func
            .params()
            .get(usize::from(p))
            .map_or("", |(n, _)| *n)
    }

    /// The arguments with their parameters' names, in the order passed.
    pub fn named_args(&self) -> impl Iterator<Item = (&'static str, &A)> + '_ {
        self.args.iter().map(|(p, a)| (self.param_name(*p), a))
    }

    /// Arguments the target engine passes and a written case leaves out: the value
    /// the executor passes for a parameter left out (`Func::neutral`). An `info` not
    /// passed is `MPI_INFO_NULL`; a `capacity` not passed is arrays of the neutral
    /// length, or none with `null_outs`, whose NULL arguments make it moot (no array is
    /// asked for through a NULL `num_elements`).
    pub fn implied(&self) -> Args {
        let mut implied = Args::new();
        for &(i, arg) in implied_of(self.func) {
            if self.args.iter().any(|(p, _)| *p == i) {
                continue;
            }
            implied.push((
                i,
                match arg {
                    Implied::InfoNull => A::InfoNull,
                    Implied::Capacity(len) => A::Int(if self.null_outs { 0 } else { len }),
                },
            ));
        }
        implied
    }

    /// The handle the call frees: the table names its first OUT as a handle argument
    /// (an INOUT set to the NULL handle, R-CVAR-7, R-SESS-1, R-PH-1; or
    /// `event_handle_free`'s registration, passed by value and freed, R-EVT-FREE).
    pub fn frees(&self) -> Option<(HandleKind, Ref)> {
        let out = self.func.outs().first()?;
        self.named_args().find_map(|(n, a)| match a {
            A::Handle(k, r) if n == *out => Some((*k, *r)),
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

/// A parameter a written case leaves out that the target engine passes ([`Call::implied`]).
#[derive(Debug, Clone, Copy)]
enum Implied {
    /// `info`: `MPI_INFO_NULL`.
    InfoNull,
    /// `capacity`: arrays of this many elements (none with `null_outs`).
    Capacity(i64),
}

/// Each function's implied parameters with their positions, read off the table and
/// `Func::neutral` once: every call the target engine makes asks.
fn implied_of(f: Func) -> &'static [(u8, Implied)] {
    static IMPLIED: OnceLock<Vec<Vec<(u8, Implied)>>> = OnceLock::new();
    let all = IMPLIED.get_or_init(|| {
        Func::ALL
            .iter()
            .map(|f| {
                let implied = |(n, p): &(&str, Param)| match (*n, p) {
                    ("info", Param::Handle) => match f.neutral(n) {
                        Neutral::Constant("MPI_INFO_NULL") => Some(Implied::InfoNull),
                        _ => None,
                    },
                    ("capacity", Param::Int) => match f.neutral(n) {
                        Neutral::Int(len) => Some(Implied::Capacity(len)),
                        _ => None,
                    },
                    _ => None,
                };
                (0..)
                    .zip(f.params())
                    .filter_map(|(i, p)| implied(p).map(|a| (i, a)))
                    .collect()
            })
            .collect()
    });
    all.get(f as usize).map_or(&[], Vec::as_slice)
}

/// The position of parameter `name` in `f`'s prototype, as [`Args`] keeps it.
fn position(f: Func, name: &str) -> Option<u8> {
    u8::try_from(f.position(name)?).ok()
}

/// A call as a worker receives it and a report keeps it: the arguments by parameter
/// name, `[["index", {...}], ...]`.
impl Serialize for Call {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        struct Named<'a>(&'a Call);
        impl Serialize for Named<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.named_args())
            }
        }
        let mut st = s.serialize_struct("Call", 4)?;
        st.serialize_field("func", &self.func)?;
        st.serialize_field("args", &Named(self))?;
        st.serialize_field("null_outs", &self.null_outs)?;
        st.serialize_field("sees", &self.sees)?;
        st.end()
    }
}

/// What [`Call`]'s `Serialize` writes, read back; each name must be a parameter of the
/// function.
#[derive(Deserialize)]
struct CallWire {
    func: Func,
    args: Vec<(String, A)>,
    null_outs: bool,
    sees: Sees,
}

impl TryFrom<CallWire> for Call {
    type Error = String;
    fn try_from(w: CallWire) -> Result<Call, String> {
        if w.args.len() > 5 {
            return Err("more than five arguments".into());
        }
        let mut args = Args::new();
        for (n, a) in w.args {
            let p = position(w.func, &n)
                .ok_or_else(|| format!("{} has no parameter `{n}`", w.func.c_name()))?;
            args.push((p, a));
        }
        Ok(Call {
            func: w.func,
            args,
            null_outs: w.null_outs,
            sees: w.sees,
        })
    }
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
        self.named_args().find(|(n, _)| *n == name).map(|(_, a)| a)
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
        match self.cap() {
            Some(c) => write!(f, "(buf[{c}], ")?,
            None => write!(f, "(NULL, ")?,
        }
        match self.len_in() {
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
        for (k, (n, a)) in self.named_args().enumerate() {
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
