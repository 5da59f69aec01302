//! What the generator makes, read once from `specs/generator.yaml`: the functions of
//! the table it calls, their weights, and the few argument values not drawn by what
//! the parameter is. Each parameter's [`Role`] is read off the table (its name and
//! type, the kind the function is about), so a function listed there is generated with
//! no code here; a parameter this module has no role for is an error naming it.

use super::sees::{self, SeesAs};
use crate::differential::op::{Call, Data, Kind, Ref, Sees, Str, A};
use crate::differential::HandleKind;
use mpit_spec::cases::funcs::{Func, Group};
use mpit_spec::cases::roles::{HandleKind as TableHandle, Role as TableRole};
use mpit_spec::specs;
use mpit_vocab::spec::{CbSafety, PvarClass, ThreadLevel};
use mpit_vocab::yaml;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

const ORIGIN: &str = "specs/generator.yaml";

/// A state in which a call gets more tickets (the file's `more: when:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cond {
    Stopped,
    Started,
    Probe,
    OneSession,
    OneHandle,
    TwoHandles,
    PvarHandle,
    Reinit,
    Finalized,
    AroundInit,
    Lifecycle,
    Hooks,
    Added,
    MpiSession,
    Counted,
    Valid,
}

impl Cond {
    /// Every condition, in declaration order (`c as usize` is its position).
    pub const ALL: [Cond; 16] = [
        Cond::Stopped,
        Cond::Started,
        Cond::Probe,
        Cond::OneSession,
        Cond::OneHandle,
        Cond::TwoHandles,
        Cond::PvarHandle,
        Cond::Reinit,
        Cond::Finalized,
        Cond::AroundInit,
        Cond::Lifecycle,
        Cond::Hooks,
        Cond::Added,
        Cond::MpiSession,
        Cond::Counted,
        Cond::Valid,
    ];
}

/// Who answers a function and what its call does to the init count, which decide
/// whether the precondition allows it (`valid`): worked out once per function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// The reference's test hooks.
    Harness,
    /// MPI_Init (lifecycle sequences, once, where the catalog says what it adds).
    Mpi,
    /// MPI_Finalize (lifecycle sequences, once, after MPI_Init: MPI_T stays usable,
    /// R-GEN-4).
    MpiEnd,
    /// MPI_Session_init (lifecycle sequences, a few, before MPI_Finalize: MPI_T is
    /// used independently of MPI, R-MPI-2).
    MpiSession,
    /// A call that raises the init count (`depth: 1`, R-INIT-1: nested at most so
    /// deep).
    DepthUp,
    /// A call that lowers it (`depth: -1`, R-FIN-1: only after an init, unless
    /// lifecycle probes it).
    DepthDown,
    /// Any other MPI_T function.
    Any,
}

impl Gate {
    /// Every gate, in declaration order (`g as usize` is its position).
    pub const ALL: [Gate; 7] = [
        Gate::Harness,
        Gate::Mpi,
        Gate::MpiEnd,
        Gate::MpiSession,
        Gate::DepthUp,
        Gate::DepthDown,
        Gate::Any,
    ];

    pub fn of(f: Func) -> Gate {
        match (f.group(), f.depth()) {
            (Group::Harness, _) => Gate::Harness,
            (Group::Mpi, _) => match f {
                Func::MpiFinalize => Gate::MpiEnd,
                Func::SessionInit => Gate::MpiSession,
                _ => Gate::Mpi,
            },
            (Group::MpiT, 1) => Gate::DepthUp,
            (Group::MpiT, -1) => Gate::DepthDown,
            (Group::MpiT, _) => Gate::Any,
        }
    }
}

/// Values for a parameter drawn from a list rather than by its role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hint {
    OneOf(Vec<i64>),
    Range([i64; 2]),
}

/// `{one_of: [..]}` or `{range: [lo, hi]}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct HintYaml {
    one_of: Option<Vec<i64>>,
    range: Option<[i64; 2]>,
}

impl HintYaml {
    fn hint(self, name: &str) -> Result<Hint, String> {
        match (self.one_of, self.range) {
            (Some(v), None) if !v.is_empty() => Ok(Hint::OneOf(v)),
            (None, Some([lo, hi])) if lo <= hi => Ok(Hint::Range([lo, hi])),
            _ => Err(format!(
                "`{name}`: give one of `one_of: [n, ...]` or `range: [lo, hi]`"
            )),
        }
    }
}

impl Hint {
    /// The value a random number `n` draws.
    pub fn draw(&self, n: u16) -> i64 {
        match self {
            Hint::OneOf(v) => v.get(usize::from(n) % v.len().max(1)).copied().unwrap_or(0),
            Hint::Range([lo, hi]) => lo + i64::from(n) % (hi - lo + 1).max(1),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct More {
    pub when: Vec<Cond>,
    pub weight: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexFrom {
    Registrations,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NullOutsYaml {
    one_in: u8,
    #[serde(default)]
    keep: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryYaml {
    call: String,
    weight: u32,
    #[serde(default)]
    more: Vec<More>,
    #[serde(default)]
    args: BTreeMap<String, HintYaml>,
    null_outs: Option<NullOutsYaml>,
    all_handles: Option<u16>,
    index: Option<IndexFrom>,
    sees: Option<SeesAs>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileYaml {
    calls: Vec<EntryYaml>,
}

/// What a parameter takes, and so how the generator draws it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// An index of the kind the function is about (`Func::kind`).
    Index(Kind),
    /// An item of the call's enumtype.
    Item,
    /// A handle, session, registration or event instance the sequence made.
    Handle(HandleKind),
    /// An enumtype a get_info call returned.
    Enumtype,
    /// A (buf, len) pair sized around the string the call returns (R-STR-1..4).
    Str,
    /// A name of the kind's catalog (`*_get_index`), or one no entry has.
    Name(Kind),
    /// A thread level (R-INIT-1).
    Level,
    /// A callback safety level (R-EVT-CB).
    Safety,
    /// The class a pvar is asked for with its name (R-PVAR-4).
    Class,
    /// What a write writes through the call's handle of this kind.
    Data(HandleKind),
    Flag,
    /// A callback's `user_data`: which registration's callback at which level ran.
    Tag,
    /// A value of the file's list for this parameter.
    Hinted(Hint),
}

impl Role {
    /// When an argument of this role is drawn: handles and indices first (0), then a
    /// pvar handle's session (1), then what depends on them (2): a string's size, a
    /// class, a tag, an item, the data a write writes.
    pub fn stage(&self, call_has_handle: bool) -> u8 {
        match self {
            Role::Handle(HandleKind::Session) if call_has_handle => 1,
            Role::Str | Role::Class | Role::Tag | Role::Item | Role::Data(_) => 2,
            _ => 0,
        }
    }
}

/// One function the generator calls, with what it draws each argument from.
#[derive(Debug, Clone)]
pub struct Entry {
    pub func: Func,
    pub gate: Gate,
    /// Whether the call allocates a handle (`Func::allocates`): its index is an entry
    /// with no object to bind.
    pub allocates: bool,
    pub weight: u32,
    pub more: Vec<More>,
    /// Every parameter the generator passes: its position in the prototype (which
    /// picks the random number it is drawn from), name and role, in prototype order.
    /// The others are left to the executor's defaults (`Call::implied`: no object to
    /// bind, MPI_INFO_NULL, arrays of 64 elements).
    pub params: Vec<(usize, &'static str, Role)>,
    /// The positions in `params` in the order a call's arguments are drawn
    /// ([`Role::stage`]: handles and indices before what depends on them).
    pub draw_order: Vec<usize>,
    /// Whether `draw_order` is prototype order (no reordering after the draw).
    pub drawn_in_order: bool,
    /// One call in `.0` passes every OUT argument NULL but the pairs `.1`.
    pub null_outs: Option<(u8, Vec<&'static str>)>,
    /// One call in this many passes MPI_T_PVAR_ALL_HANDLES (0: never; only a call
    /// that takes it, `Call::takes_all_handles`, may say so).
    pub all_handles: u16,
    pub index_from: Option<IndexFrom>,
    pub sees: Option<SeesAs>,
    /// The kind of handle the call frees (its first OUT is that handle parameter).
    pub frees: Option<HandleKind>,
    /// Whether it takes a pvar or cvar `handle`, and a `data` to write.
    pub has_handle: bool,
    pub has_data: bool,
    /// What both engines observe of a call of it (`sees::sees` of a call with every
    /// argument), whose index and handle `build` fills in per call.
    pub sees_template: Sees,
}

/// The role of parameter `name` (a `p`) of `f`, with the file's hint if it gives one;
/// `None`: the generator does not pass it.
fn role(f: Func, name: &str, hint: Option<Hint>) -> Result<Option<Role>, String> {
    if let Some(h) = hint {
        return Ok(Some(Role::Hinted(h)));
    }
    let kind = |k: Option<Kind>| k.ok_or_else(|| format!("`{name}` of a function of no kind"));
    let Some(role) = f.role(name) else {
        return Err(format!("no parameter `{name}`"));
    };
    Ok(Some(match role {
        TableRole::Obj | TableRole::Capacity | TableRole::Handle(Some(TableHandle::Info)) => {
            return Ok(None)
        }
        TableRole::Index(k) => Role::Index(kind(k)?),
        TableRole::Item => Role::Item,
        TableRole::ThreadLevel => Role::Level,
        TableRole::CbSafety => Role::Safety,
        TableRole::PvarClass => Role::Class,
        TableRole::Tag => Role::Tag,
        TableRole::Handle(Some(TableHandle::Enumtype)) => Role::Enumtype,
        TableRole::Handle(k) => Role::Handle(
            k.and_then(HandleKind::made)
                .ok_or_else(|| format!("no handle kind for `{name}`"))?,
        ),
        TableRole::Str => Role::Str,
        TableRole::Name(k) => Role::Name(k),
        TableRole::Data => Role::Data(
            HandleKind::of(f, "handle").ok_or_else(|| "a write with no handle".to_string())?,
        ),
        TableRole::Flag => Role::Flag,
        _ => return Err(format!("no role for parameter `{name}`: give it `args:`")),
    }))
}

fn entry(e: EntryYaml) -> Result<Entry, String> {
    let func = Func::from_yaml(&e.call).ok_or_else(|| format!("no function `{}`", e.call))?;
    let at = |m: String| format!("{}: {m}", e.call);
    let param = |n: &str| {
        func.position(n)
            .map(|i| func.params()[i].0)
            .ok_or_else(|| at(format!("no parameter `{n}`")))
    };
    let mut hints = BTreeMap::new();
    for (n, h) in e.args {
        hints.insert(param(&n)?, h.hint(&n).map_err(at)?);
    }
    let params = func
        .params()
        .iter()
        .enumerate()
        .filter_map(|(i, (n, _))| {
            role(func, n, hints.remove(n))
                .map_err(at)
                .transpose()
                .map(|r| r.map(|r| (i, *n, r)))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let null_outs = match e.null_outs {
        Some(n) => Some((
            n.one_in.max(1),
            n.keep.iter().map(|k| param(k)).collect::<Result<_, _>>()?,
        )),
        None => None,
    };
    let bare = Call::new(func, [], Sees::Code);
    let all_handles = e.all_handles.unwrap_or(0);
    if all_handles > 0 && !bare.takes_all_handles() {
        return Err(at(
            "`all_handles`: the call does not take MPI_T_PVAR_ALL_HANDLES (R-PSTART-2)".into(),
        ));
    }
    let has_handle = params.iter().any(|(_, n, _)| *n == "handle");
    let mut draw_order: Vec<usize> = (0..params.len()).collect();
    draw_order.sort_by_key(|j| params[*j].2.stage(has_handle));
    let drawn_in_order = draw_order.iter().enumerate().all(|(k, j)| k == *j);
    let mut entry = Entry {
        func,
        gate: Gate::of(func),
        allocates: func.allocates().is_some(),
        weight: e.weight,
        more: e.more,
        null_outs,
        all_handles,
        index_from: e.index,
        sees: e.sees,
        frees: None,
        has_handle,
        has_data: params.iter().any(|(_, n, _)| *n == "data"),
        params,
        draw_order,
        drawn_in_order,
        sees_template: Sees::Code,
    };
    let proto = prototype(&entry);
    entry.frees = proto.frees().map(|(k, _)| k);
    entry.sees_template = sees::sees(e.sees, &proto);
    Ok(entry)
}

/// A call of `e` with an argument of each role (the first object, index 0), for what
/// its OUTs show and what it frees.
fn prototype(e: &Entry) -> Call {
    let one = Ref::Made(0);
    let args = e.params.iter().map(|(_, n, r)| {
        let a = match r {
            Role::Index(k) => A::Index(*k, 0),
            Role::Handle(k) => A::Handle(*k, one),
            Role::Enumtype => A::Enumtype(0),
            Role::Str => A::Str(Str::sized(1)),
            Role::Name(_) => A::Text("x".into()),
            Role::Level => A::Level(ThreadLevel::Single),
            Role::Safety => A::Safety(CbSafety::None),
            Role::Class => A::Class(PvarClass::Counter),
            Role::Data(k) => A::Data(*k, one, Data::Readback),
            Role::Flag => A::Flag(true),
            Role::Item | Role::Tag | Role::Hinted(_) => A::Int(0),
        };
        (*n, a)
    });
    Call::new(e.func, args, Sees::Code)
}

/// The file parsed and checked against the table.
pub fn load(text: &str) -> Result<Vec<Entry>, String> {
    let f: FileYaml = yaml::parse(text, ORIGIN).map_err(|e| e.to_string())?;
    f.calls
        .into_iter()
        .map(|e| entry(e).map_err(|m| format!("{ORIGIN}: {m}")))
        .collect()
}

/// The bundled file's entries, read once (the tests check it loads).
pub fn entries() -> &'static [Entry] {
    static E: OnceLock<Vec<Entry>> = OnceLock::new();
    E.get_or_init(|| {
        load(specs::text("generator.yaml").unwrap_or_default())
            .unwrap_or_else(|e| panic!("{e} (the bundle is checked by the tests)"))
    })
}

/// The entry of a function the generator calls.
pub fn entry_of(f: Func) -> Option<&'static Entry> {
    entries().iter().find(|e| e.func == f)
}

/// The functions the generator calls, in the file's order.
pub fn listed() -> impl Iterator<Item = Func> {
    entries().iter().map(|e| e.func)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_file_loads() {
        let e = load(specs::text("generator.yaml").expect("bundled")).expect("loads");
        assert!(e.len() > 40, "{}", e.len());
    }

    /// `Cond::ALL` holds every condition, in declaration order: a pick indexes its
    /// conditions by `c as usize`. The variants are read from serde's refusal of an
    /// unknown name, which lists them all, so a new one missing from `ALL` fails here.
    #[test]
    fn conditions_are_listed_in_order() {
        for (i, c) in Cond::ALL.iter().enumerate() {
            assert_eq!(*c as usize, i, "{c:?}");
        }
        let err = yaml_serde::from_str::<Cond>("no_such_condition").expect_err("refused");
        let listed = err.to_string();
        let names: Vec<&str> = listed
            .split("expected one of ")
            .nth(1)
            .expect("serde lists the variants")
            .split(", ")
            .map(|n| n.trim_matches(|c: char| c == '`' || !c.is_ascii() || c.is_whitespace()))
            .map(|n| n.split('`').next().unwrap_or(n))
            .collect();
        assert_eq!(names.len(), Cond::ALL.len(), "{listed}");
        for n in names {
            let c: Cond = yaml_serde::from_str(n).expect(n);
            assert!(Cond::ALL.contains(&c), "{c:?} missing from Cond::ALL");
        }
    }

    /// `Gate::ALL` is in declaration order (a pick indexes its gates by `g as usize`)
    /// and holds the gate of every function.
    #[test]
    fn gates_are_listed_in_order() {
        for (i, g) in Gate::ALL.iter().enumerate() {
            assert_eq!(*g as usize, i, "{g:?}");
        }
        for f in Func::ALL {
            assert!(Gate::ALL.contains(&Gate::of(*f)), "{f:?}");
        }
    }

    #[test]
    fn a_parameter_the_table_lacks_is_named() {
        let text = "calls:\n  - call: cvar_read\n    weight: 1\n    args: {nope: {one_of: [1]}}\n";
        let err = load(text).expect_err("refused");
        assert!(err.contains("cvar_read: no parameter `nope`"), "{err}");
        let err = load("calls:\n  - call: no_such\n    weight: 1\n").expect_err("refused");
        assert!(err.contains("no function `no_such`"), "{err}");
        // R-PREAD-1: a read refuses MPI_T_PVAR_ALL_HANDLES; `all_handles` is for the
        // calls that take it.
        let text = "calls:\n  - call: pvar_read\n    weight: 1\n    all_handles: 2\n";
        let err = load(text).expect_err("refused");
        assert!(err.contains("pvar_read: `all_handles`"), "{err}");
        let text = "calls:\n  - call: pvar_reset\n    weight: 1\n    all_handles: 2\n";
        assert_eq!(load(text).expect("a reset takes it")[0].all_handles, 2);
    }
}
