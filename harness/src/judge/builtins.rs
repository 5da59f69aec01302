//! The built-in checks (`check:` in a case; specs/README.md lists them with their
//! rules): judgements over more than one call's data. Names unique per kind (R-STR-6),
//! categories acyclic (R-CAT-1), the profile's error codes (R-RC-2), the verbosity
//! order (R-VERB-1), a later catalog extending an earlier one (R-CVAR-1, R-CAT-1), and
//! MPI_T_category_changed tracking the categories (§15.3.9).

use super::inventory::Inventory;
use super::value::Val;
use mpit_spec::cases::{Builtin, SubjectKind};
use mpit_vocab::profile::AbiProfile;
use mpit_vocab::spec::{TErr, Verbosity};
use std::collections::{BTreeMap, BTreeSet};

/// The built-in checks (specs/README.md lists them with their rules).
/// `mpi_version` is what the library reports (MPI_Get_version), for rules that depend
/// on it.
pub fn builtin(
    b: Builtin,
    profile: &AbiProfile,
    inv: &Inventory,
    args: &BTreeMap<String, Val>,
    mpi_version: Option<(i32, i32)>,
) -> Result<(), String> {
    match b {
        Builtin::NamesUnique => names_unique(inv),
        Builtin::CategoriesAcyclic => acyclic(inv),
        Builtin::ErrorCodes => error_codes(profile, mpi_version),
        Builtin::VerbosityOrder => {
            let v: Vec<Option<i64>> = Verbosity::ALL
                .iter()
                .map(|x| profile.verbosity.num(*x))
                .collect();
            for (w, names) in v.windows(2).zip(Verbosity::ALL.windows(2)) {
                if let (Some(a), Some(b)) = (w[0], w[1]) {
                    if a >= b {
                        return Err(format!(
                            "MPI_T_VERBOSITY_{} = {a} is not below MPI_T_VERBOSITY_{} = {b}",
                            names[0], names[1]
                        ));
                    }
                }
            }
            Ok(())
        }
        Builtin::CatalogExtends | Builtin::CategoriesExtend => {
            let (Some(Val::Snapshot(before)), Some(Val::Snapshot(after))) =
                (args.get("before"), args.get("after"))
            else {
                return Err("catalog_extends needs `before` and `after` snapshots".into());
            };
            match b {
                Builtin::CategoriesExtend => {
                    extends(&only_categories(before), &only_categories(after))
                }
                _ => extends(before, after),
            }
        }
        Builtin::CategoryChangedTracks => {
            let (Some(Val::Snapshot(before)), Some(Val::Snapshot(after))) =
                (args.get("before"), args.get("after"))
            else {
                return Err("category_changed_tracks needs `before` and `after` snapshots".into());
            };
            let number = |k: &str| args.get(k).and_then(Val::int);
            let (Some(n0), Some(n1)) = (number("number_before"), number("number_after")) else {
                return Err(
                    "category_changed_tracks needs `number_before` and `number_after`".into(),
                );
            };
            if n0 != n1 {
                return Ok(());
            }
            match categories_differ(before, after) {
                None => Ok(()),
                Some(what) => Err(format!(
                    "MPI_T_category_changed returned {n0} before and after, yet {what} \
                     (§15.3.9: equal update numbers guarantee that the category \
                     information has not changed)"
                )),
            }
        }
    }
}

/// How the categories of `after` differ from those of `before` (count, info, members),
/// or `None` when they are the same.
fn categories_differ(before: &Inventory, after: &Inventory) -> Option<String> {
    let count = |i: &Inventory| i.globals.get("num_categories").copied().unwrap_or(0);
    let mut what: Vec<String> = Vec::new();
    if count(before) != count(after) {
        what.push(format!(
            "num_categories went from {} to {}",
            count(before),
            count(after)
        ));
    }
    for a in after.of(SubjectKind::Category) {
        let Some(b) = before.find(SubjectKind::Category, a.index) else {
            what.push(format!("{} appeared", a.subject()));
            continue;
        };
        for (kind, now) in &a.members {
            let was = b.members.get(kind).map(Vec::len).unwrap_or(0);
            if now.len() != was || b.members.get(kind) != Some(now) {
                what.push(format!(
                    "{} has {} {kind} members, {was} before",
                    a.subject(),
                    now.len()
                ));
            }
        }
        if a.name != b.name || a.desc != b.desc || a.attrs != b.attrs {
            what.push(format!("{} changed its info", a.subject()));
        }
        if what.len() >= 4 {
            break;
        }
    }
    (!what.is_empty()).then(|| what.join("; "))
}

fn names_unique(inv: &Inventory) -> Result<(), String> {
    let mut seen: BTreeMap<(String, Vec<u8>), i32> = BTreeMap::new();
    for e in &inv.entries {
        let scope = match e.kind {
            SubjectKind::Pvar => format!(
                "pvar/{}",
                e.attrs.get("var_class").cloned().unwrap_or_default()
            ),
            SubjectKind::Item => {
                format!("item/{}", e.attrs.get("enum").cloned().unwrap_or_default())
            }
            SubjectKind::Function | SubjectKind::ThreadLevel => continue,
            k => k.as_str().to_string(),
        };
        if let Some(first) = seen.insert((scope.clone(), e.bytes("name")), e.index) {
            return Err(format!(
                "{scope} name {:?} at indices {first} and {}",
                e.name, e.index
            ));
        }
    }
    Ok(())
}

fn acyclic(inv: &Inventory) -> Result<(), String> {
    let children: BTreeMap<i32, Vec<i32>> = inv
        .of(SubjectKind::Category)
        .map(|e| {
            (
                e.index,
                e.members.get("categories").cloned().unwrap_or_default(),
            )
        })
        .collect();
    // Depth-first with colours: grey on the stack, black done.
    fn visit(
        c: i32,
        ch: &BTreeMap<i32, Vec<i32>>,
        grey: &mut Vec<i32>,
        black: &mut BTreeSet<i32>,
    ) -> Result<(), String> {
        if black.contains(&c) {
            return Ok(());
        }
        if let Some(p) = grey.iter().position(|x| *x == c) {
            let cycle: Vec<String> = grey[p..]
                .iter()
                .chain([&c])
                .map(|x| x.to_string())
                .collect();
            return Err(format!("category cycle {}", cycle.join(" -> ")));
        }
        grey.push(c);
        for k in ch.get(&c).into_iter().flatten() {
            visit(*k, ch, grey, black)?;
        }
        grey.pop();
        black.insert(c);
        Ok(())
    }
    let mut black = BTreeSet::new();
    for c in children.keys() {
        visit(*c, &children, &mut Vec::new(), &mut black)?;
    }
    Ok(())
}

/// R-RC-2 on the profile: every MPI_T_ERR_* defined (NOT_ACCESSIBLE and NOT_SUPPORTED
/// arrived with MPI-4.0: not required of a library that reports an older MPI; the
/// deprecated INVALID_ITEM is required), distinct, in (MPI_SUCCESS, MPI_ERR_LASTCODE],
/// and none equal to an MPI error class.
fn error_codes(p: &AbiProfile, mpi_version: Option<(i32, i32)>) -> Result<(), String> {
    let mut seen: BTreeMap<i64, TErr> = BTreeMap::new();
    for (e, v) in p.t_err.iter() {
        let Some(v) = *v else {
            let since_4_0 = matches!(e, TErr::NotAccessible | TErr::NotSupported);
            if since_4_0 && mpi_version.is_some_and(|v| v < (4, 0)) {
                continue;
            }
            return Err(format!("{e} is not defined by this ABI"));
        };
        if let Some(other) = seen.insert(v, e) {
            return Err(format!("{other} and {e} are both {v}"));
        }
        if v <= p.success || v > p.err_lastcode {
            return Err(format!(
                "{e} = {v} is outside ({}, MPI_ERR_LASTCODE = {}]",
                p.success, p.err_lastcode
            ));
        }
        if let Some((name, _)) = p.mpi_err.iter().find(|(_, x)| **x == v) {
            return Err(format!("{e} = {v} equals the error class {name}"));
        }
    }
    Ok(())
}

/// The categories of a snapshot, their count and the failures of their calls.
fn only_categories(inv: &Inventory) -> Inventory {
    Inventory {
        entries: inv
            .entries
            .iter()
            .filter(|e| e.kind == SubjectKind::Category)
            .cloned()
            .collect(),
        globals: inv
            .globals
            .iter()
            .filter(|(k, _)| *k == "num_categories")
            .map(|(k, v)| (k.clone(), *v))
            .collect(),
        failures: inv
            .failures
            .iter()
            .filter(|f| f.contains("_category_"))
            .cloned()
            .collect(),
        ..inv.clone()
    }
}

fn extends(before: &Inventory, after: &Inventory) -> Result<(), String> {
    // Both the first entry that broke and every count that shrank: a re-init that loses
    // 72 cvars reads "cvar 416 ... changed ...; num_cvars shrank from 1259 to 1187".
    // `num_enums` counts the distinct enumeration handles the variables return (no
    // MPI_T call gives it): the variables and the enumerations by name say what matters.
    let shrunk: Vec<String> = before
        .globals
        .iter()
        .filter(|(k, _)| k.as_str() != "num_enums")
        .filter_map(|(k, v)| {
            let now = after.globals.get(k).copied().unwrap_or(0);
            (now < *v).then(|| format!("{k} shrank from {v} to {now}"))
        })
        .collect();
    let broke = first_broken(before, after);
    let all: Vec<String> = broke.into_iter().chain(shrunk).collect();
    if all.is_empty() {
        Ok(())
    } else {
        Err(all.join("; "))
    }
}

/// The first entry of `before` that `after` lost, changed or reordered the members of.
fn first_broken(before: &Inventory, after: &Inventory) -> Option<String> {
    for b in &before.entries {
        if matches!(b.kind, SubjectKind::Function | SubjectKind::ThreadLevel) {
            continue;
        }
        // Items are numbered within their enum: match them by (enum, index).
        // Enumerations have no index of MPI's (the inventory numbers them in the order the
        // variables name them, and a library may hand out a new handle for one after a
        // re-initialization): match them by their unique name (§15.3.5).
        let found = match b.kind {
            SubjectKind::Item => after
                .of(SubjectKind::Item)
                .find(|a| a.index == b.index && a.attrs.get("enum") == b.attrs.get("enum")),
            SubjectKind::Enum => after.of(SubjectKind::Enum).find(|a| a.name == b.name),
            k => after.find(k, b.index),
        };
        let Some(a) = found else {
            // Say how: a count that shrank, or the call that now fails for the index.
            let call = format!("_{}_get_info({})", b.kind.as_str(), b.index);
            let why = after
                .failures
                .iter()
                .find(|f| f.contains(&call))
                .cloned()
                .unwrap_or_else(|| {
                    let key = match b.kind {
                        SubjectKind::Category => "num_categories".to_string(),
                        k => format!("num_{}s", k.as_str()),
                    };
                    let n = |i: &Inventory| i.globals.get(&key).copied().unwrap_or(0);
                    format!("{key} {} before, {} after", n(before), n(after))
                });
            return Some(format!("{} vanished ({why})", b.subject()));
        };
        if a.name != b.name || a.desc != b.desc || a.raw != b.raw || a.attrs != b.attrs {
            return Some(format!("{} changed: now {}", b.subject(), a.subject()));
        }
        for (k, old) in &b.members {
            let new = a.members.get(k).cloned().unwrap_or_default();
            if new.len() < old.len() || new[..old.len()] != old[..] {
                return Some(format!(
                    "{} {k} members {old:?} became {new:?} (R-CAT-1: only appended)",
                    b.subject()
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::inventory::Entry;
    use mpit_vocab::profile::ConstMap;

    #[test]
    fn error_codes_of_a_profile() {
        let std = AbiProfile::standard();
        let with = |e: TErr, v: Option<i64>| {
            let mut p = std.clone();
            p.t_err = ConstMap::from_fn(|k| if k == e { v } else { *std.t_err.get(k) });
            p
        };
        assert_eq!(error_codes(&std, Some((4, 1))), Ok(()));
        let p = with(TErr::NotSupported, None);
        assert_eq!(error_codes(&p, Some((3, 1))), Ok(()));
        assert!(error_codes(&p, Some((4, 0))).is_err());
        let p = with(TErr::InvalidItem, None);
        assert!(error_codes(&p, Some((3, 1)))
            .unwrap_err()
            .contains("INVALID_ITEM"));
        let p = with(TErr::InvalidItem, std.code(TErr::InvalidIndex));
        assert!(error_codes(&p, None).unwrap_err().contains("are both"));
        let p = with(TErr::Memory, Some(std.err_lastcode + 1));
        assert!(error_codes(&p, None).unwrap_err().contains("outside"));
        let p = with(TErr::Invalid, Some(std.mpi_err["MPI_ERR_ARG"]));
        assert!(error_codes(&p, None).unwrap_err().contains("error class"));
    }

    #[test]
    fn catalog_extends_matches_items_within_their_enum() {
        let item = |e: &str, i: i32, name: &str| Entry {
            kind: SubjectKind::Item,
            index: i,
            name: name.into(),
            desc: String::new(),
            attrs: [("enum".to_string(), e.to_string())].into_iter().collect(),
            vars: BTreeMap::new(),
            members: BTreeMap::new(),
            raw: BTreeMap::new(),
        };
        let inv = Inventory {
            entries: vec![item("mode", 0, "off"), item("state", 0, "idle")],
            ..Inventory::default()
        };
        assert_eq!(extends(&inv, &inv), Ok(()));
        let mut renamed = inv.clone();
        renamed.entries[1].name = "busy".into();
        assert!(extends(&inv, &renamed).unwrap_err().contains("idle"));
    }

    #[test]
    fn catalog_extends_says_how_an_entry_vanished() {
        let cvar = |i: i32| Entry {
            kind: SubjectKind::Cvar,
            index: i,
            name: format!("v{i}"),
            desc: String::new(),
            attrs: BTreeMap::new(),
            vars: BTreeMap::new(),
            members: BTreeMap::new(),
            raw: BTreeMap::new(),
        };
        let before = Inventory {
            entries: vec![cvar(0), cvar(1)],
            globals: [("num_cvars".to_string(), 2)].into_iter().collect(),
            ..Inventory::default()
        };
        let mut after = before.clone();
        after.entries.remove(1);
        after.globals.insert("num_cvars".into(), 3);
        after.failures = vec!["MPI_T_cvar_get_info(1) returned MPI_T_ERR_INVALID_INDEX".into()];
        let e = extends(&before, &after).unwrap_err();
        assert!(
            e.contains("cvar 1 v1 vanished (MPI_T_cvar_get_info(1) returned"),
            "{e}"
        );
        after.failures.clear();
        after.globals.insert("num_cvars".into(), 1);
        let e = extends(&before, &after).unwrap_err();
        assert!(e.contains("(num_cvars 2 before, 1 after)"), "{e}");
        assert!(e.ends_with("; num_cvars shrank from 2 to 1"), "{e}");
    }
}
