//! What both engines observe of a generated call ([`Sees`]), read off the function
//! table's OUT names and columns, with the generator's file's override where it gives
//! one ([`SeesAs`]). Both the plan (each entry's template) and the calls built in a
//! state read it here.

use crate::differential::op::{Call, Kind, Sees, A};
use crate::differential::HandleKind;
use mpit_spec::cases::funcs::Func;
use serde::Deserialize;

/// What both engines compare where the OUT names do not say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeesAs {
    Code,
    Callbacks,
}

/// What both engines observe of a call's OUT arguments, by their names in the table:
/// the thread level provided, a count, an index, a category's members, the update
/// number, an info object, an integer beside a name, every OUT of a get_info or the
/// name alone, a handle made or freed, a value read; else the code alone.
pub fn sees(over: Option<SeesAs>, c: &Call) -> Sees {
    let f = c.func;
    let outs = f.outs();
    let passes_str = c.args.iter().any(|(_, a)| matches!(a, A::Str(_)));
    match over {
        Some(SeesAs::Code) => return Sees::Code,
        Some(SeesAs::Callbacks) => return Sees::Raise(c.index()),
        None => {}
    }
    if c.null_outs {
        return if passes_str {
            Sees::NameOnly
        } else {
            Sees::Code
        };
    }
    if outs.contains(&"provided") {
        return Sees::Provided;
    }
    if f.is_variant() && outs == ["name"] {
        return Sees::NameOnly;
    }
    if let (Some(k), false) = (f.strings_kind(), f.is_variant()) {
        return Sees::Info(k);
    }
    // A handle freed: NULL after the call where the caller's variable is passed by
    // address (R-CVAR-7, R-SESS-1, R-PH-1); a registration is passed by value
    // (MPI-4.1 §15.3.8).
    if let Some((kind, _)) = c.frees() {
        let by_address = f
            .c_args()
            .is_some_and(|t| t.contains(&format!("{{&{}}}", c.handle_out())));
        return if by_address {
            Sees::Free { kind }
        } else {
            Sees::Code
        };
    }
    if let Some(kind) = outs.first().and_then(|o| HandleKind::of(f, o)) {
        return Sees::Alloc {
            kind,
            index: c.index(),
        };
    }
    if outs.contains(&"value") {
        if let Some(A::Handle(k, r)) = c.arg("handle") {
            return Sees::Read(*k, *r);
        }
    }
    let about = f.kind().unwrap_or(Kind::Cvar);
    match outs {
        ["num"] if f.params().is_empty() => Sees::Count(about),
        ["index"] => Sees::Index(about),
        ["indices", ..] => Sees::Members(members_of(f)),
        ["update_number"] => Sees::Update,
        ["info"] => Sees::InfoObject,
        [n, "name"] => Sees::Named(n),
        [n] if f.param(n).is_none() => Sees::Int(n),
        _ => Sees::Code,
    }
}

/// The kind of a category's members a `category_get_{cvars,...}` returns: the plural
/// of a kind's word ending the function's name.
fn members_of(f: Func) -> Kind {
    let last = f.yaml().rsplit('_').next().unwrap_or("");
    let plural = |w: &str| match w.strip_suffix('y') {
        Some(stem) => format!("{stem}ies"),
        None => format!("{w}s"),
    };
    Kind::ALL
        .into_iter()
        .find(|k| plural(k.word()) == last)
        .unwrap_or(Kind::Cvar)
}
