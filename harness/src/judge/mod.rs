//! Judging: an observation against what a case expects. Pure functions over values the
//! executor hands in; nothing here calls the library.

pub mod inventory;
pub mod return_codes;
pub mod value;

use crate::cases::expr::{Pred, RcSet};
use crate::cases::{Builtin, Kind, StrCheck};
use crate::judge::inventory::Inventory;
use crate::judge::value::Val;
use crate::target::ffi::{StrArg, StrOut};
use mpit_reference::profile::{AbiProfile, ReturnCode};
use mpit_reference::spec::{TErr, Verbosity};
use std::collections::{BTreeMap, BTreeSet};

/// The byte the harness fills string buffers with before a call (not NUL, so a missing
/// terminator shows), mirrored from `target::ffi`.
pub use crate::target::ffi::FILL;

/// Whether `code` is in the expected set.
pub fn rc_matches(want: &RcSet, code: &ReturnCode) -> bool {
    match want {
        RcSet::AnyError => matches!(code, ReturnCode::T(_)),
        RcSet::AnyOf(names) => {
            let got = code.to_string();
            names.contains(&got)
        }
    }
}

pub fn rc_text(want: &RcSet) -> String {
    match want {
        RcSet::AnyError => "any MPI_T_ERR_*".into(),
        RcSet::AnyOf(n) if n.len() == 1 => n[0].clone(),
        RcSet::AnyOf(n) => format!("one of {}", n.join(", ")),
    }
}

/// MPI-4.1 §15.3.3 for one (buf, len) pair: `arg` as passed, `out` as returned, `want`
/// the string the library holds (from the inventory). `Err` says what broke.
pub fn string(
    check: StrCheck,
    arg: StrArg,
    out: &StrOut,
    want: impl AsRef<[u8]>,
) -> Result<(), String> {
    // Bytes, not text: a library's string need not be UTF-8 (Intel MPI's descriptions
    // hold Latin-1 bytes), and lengths are in bytes.
    let wb = want.as_ref();
    let want = String::from_utf8_lossy(wb);
    let l = wb.len() as i64 + 1;
    if out.overrun {
        return Err(format!(
            "wrote outside the {}-byte buffer, at byte offsets {:?} (R-STR-1)",
            arg.cap.unwrap_or(0),
            out.stray
        ));
    }
    if check == StrCheck::NonEmpty {
        let t = out.text().unwrap_or_default();
        return if t.is_empty() {
            Err("empty name (R-STR-6: length >= 1)".into())
        } else {
            Ok(())
        };
    }
    let Some(len_out) = out.len else {
        // R-STR-4: NULL length pointer → the buffer is ignored, nothing returned.
        return match &out.buf {
            Some(b) if b.iter().any(|c| *c != FILL) => Err(format!(
                "len was NULL but the buffer was written: {}",
                crate::judge::value::hex(b, 32)
            )),
            _ => Ok(()),
        };
    };
    let n = match (&out.buf, arg.len) {
        (Some(_), Some(n)) if n > 0 => n as i64,
        _ => {
            // R-STR-3: NULL buffer or n == 0 → only the length, strlen+1.
            if let Some(b) = &out.buf {
                if b.iter().any(|c| *c != FILL) {
                    // An empty string here is a description (names are never empty,
                    // R-STR-6): the conflict with "desc[0] must be set to the null
                    // character" is decided for R-STR-3 (specs/readings.yaml).
                    return Err(match l {
                        1 => format!(
                            "n was 0 but the buffer was written (R-STR-3; {})",
                            crate::readings::cite(
                                crate::readings::DESC_EMPTY_DESCRIPTION_ZERO_BUFFER
                            )
                        ),
                        _ => "n was 0 but the buffer was written".into(),
                    });
                }
            }
            return if len_out as i64 == l {
                Ok(())
            } else {
                Err(format!("*len = {len_out}, want strlen+1 = {l} (R-STR-3)"))
            };
        }
    };
    let buf = out.buf.as_deref().unwrap_or(&[]);
    let k = (n - 1).min(l - 1) as usize;
    if buf.len() < k + 1 || buf[..k] != wb[..k] || buf[k] != 0 {
        let got = String::from_utf8_lossy(&buf[..buf.len().min(k + 1)]).into_owned();
        return Err(format!(
            "buffer of {n} holds {got:?}, want the first {k} characters of {want:?} then NUL (R-STR-1/2)"
        ));
    }
    if check == StrCheck::Exact && k as i64 != l - 1 {
        return Err(format!("string cut at {k} of {} characters", l - 1));
    }
    let want_len = match check {
        StrCheck::TruncatedN if l > n => n,
        _ => l,
    };
    if len_out as i64 != want_len {
        return Err(format!(
            "*len = {len_out}, want {} = {want_len} (R-STR-2)",
            if want_len == l { "strlen+1" } else { "n" }
        ));
    }
    Ok(())
}

fn as_list(v: &Val) -> Vec<&Val> {
    match v {
        Val::List(l) => l.iter().collect(),
        other => vec![other],
    }
}

fn num_eq(a: &Val, b: &Val) -> bool {
    match (a.num(), b.num()) {
        (Some(x), Some(y)) => match (a.int(), b.int()) {
            (Some(i), Some(j)) => i == j,
            _ => x == y,
        },
        _ => a == b,
    }
}

/// A predicate on a value; `resolve` turns an expression of the predicate into a value.
pub fn pred(
    p: &Pred,
    v: &Val,
    resolve: &dyn Fn(&crate::cases::expr::Expr) -> Result<Val, String>,
) -> Result<(), String> {
    if p.skip.is_some() || p.take.is_some() {
        // A slice of the list: the remaining checks look at it alone.
        let count = |e: &Option<crate::cases::expr::Expr>| -> Result<Option<usize>, String> {
            e.as_ref()
                .map(|e| {
                    let n = resolve(e)?;
                    n.int()
                        .map(|i| i.max(0) as usize)
                        .ok_or_else(|| format!("{n} is not a count"))
                })
                .transpose()
        };
        let (skip, take) = (count(&p.skip)?.unwrap_or(0), count(&p.take)?);
        let items = as_list(v);
        let end = take.map_or(items.len(), |t| (skip + t).min(items.len()));
        let slice = Val::List(
            items
                .get(skip.min(end)..end)
                .unwrap_or_default()
                .iter()
                .map(|x| (*x).clone())
                .collect(),
        );
        let rest = Pred {
            skip: None,
            take: None,
            ..p.clone()
        };
        return pred(&rest, &slice, resolve).map_err(|e| format!("elements {skip}..{end}: {e}"));
    }
    let cmp =
        |e: &crate::cases::expr::Expr, op: &str, ok: fn(f64, f64) -> bool| -> Result<(), String> {
            let want = resolve(e)?;
            if let Val::List(ws) = &want {
                // Against a saved list (e.g. an earlier read of the same pvar): element
                // by element, the lists of equal length.
                let xs = as_list(v);
                if xs.len() != ws.len() {
                    return Err(format!("{v} and {want} differ in length"));
                }
                for (x, w) in xs.into_iter().zip(ws) {
                    let (Some(g), Some(n)) = (x.num(), w.num()) else {
                        return Err(format!("{x} or {w} is not a number"));
                    };
                    if !ok(g, n) {
                        return Err(format!("{v} is not {op} {want} element by element"));
                    }
                }
                return Ok(());
            }
            let w = want
                .num()
                .ok_or_else(|| format!("{want} is not a number"))?;
            for x in as_list(v) {
                let g = x.num().ok_or_else(|| format!("{x} is not a number"))?;
                if !ok(g, w) {
                    return Err(format!("{x} is not {op} {want}"));
                }
            }
            Ok(())
        };
    if let Some(e) = &p.eq {
        let want = resolve(e)?;
        let ok = match (&want, v) {
            (Val::List(_), _) | (_, Val::Str(_) | Val::Bytes(_) | Val::Outs(_)) => {
                *v == want || num_eq(v, &want)
            }
            _ => as_list(v).iter().all(|x| num_eq(x, &want)),
        };
        if !ok {
            return Err(format!("{v}, want {want}"));
        }
    }
    if let Some(e) = &p.ne {
        let want = resolve(e)?;
        if as_list(v).iter().any(|x| num_eq(x, &want)) {
            return Err(format!("{v}, want anything but {want}"));
        }
    }
    if let Some(e) = &p.lt {
        cmp(e, "<", |a, b| a < b)?;
    }
    if let Some(e) = &p.le {
        cmp(e, "<=", |a, b| a <= b)?;
    }
    if let Some(e) = &p.gt {
        cmp(e, ">", |a, b| a > b)?;
    }
    if let Some(e) = &p.ge {
        cmp(e, ">=", |a, b| a >= b)?;
    }
    if let Some((lo, hi)) = &p.between {
        cmp(lo, ">=", |a, b| a >= b)?;
        cmp(hi, "<=", |a, b| a <= b)?;
    }
    if let Some(set) = &p.one_of {
        let vals = resolve_set(set, resolve)?;
        for x in as_list(v) {
            if !vals.iter().any(|(_, w)| num_eq(x, w)) {
                let names: Vec<&str> = vals.iter().map(|(n, _)| n.as_str()).collect();
                return Err(format!("{x} is not one of [{}]", names.join(", ")));
            }
        }
    }
    if let Some(set) = &p.not_in {
        let vals = resolve_set(set, resolve)?;
        for x in as_list(v) {
            if let Some((n, _)) = vals.iter().find(|(_, w)| num_eq(x, w)) {
                return Err(format!("{x} is {n}, one of the excluded values"));
            }
        }
    }
    if let Some(each) = &p.each {
        for (i, x) in as_list(v).into_iter().enumerate() {
            pred(each, x, resolve).map_err(|e| format!("element {i}: {e}"))?;
        }
    }
    let items = as_list(v);
    if p.ascending == Some(true) {
        for w in items.windows(2) {
            if w[0].num() >= w[1].num() {
                return Err(format!("{v} is not strictly ascending"));
            }
        }
    }
    if p.distinct == Some(true) {
        let mut seen = BTreeSet::new();
        for x in &items {
            if !seen.insert(x.to_string()) {
                return Err(format!("{x} appears twice in {v}"));
            }
        }
    }
    if let Some(e) = &p.length {
        let want = resolve(e)?;
        if !num_eq(&Val::Int(items.len() as i128), &want) {
            return Err(format!("{} elements, want {want}", items.len()));
        }
    }
    Ok(())
}

/// The values of an `in` / `not_in` list, each with its name as written (a constant's
/// name, else the value). A constant the target's ABI profile does not define (e.g.
/// MPI_T_BIND_MPI_SESSION in an MPI-3.1 library's header) cannot be the value and is
/// left out; a list none of whose members is defined is an error.
fn resolve_set(
    set: &[crate::cases::expr::Expr],
    resolve: &dyn Fn(&crate::cases::expr::Expr) -> Result<Val, String>,
) -> Result<Vec<(String, Val)>, String> {
    use crate::cases::expr::{Expr, Term};
    let mut out = Vec::new();
    for e in set {
        match resolve(e) {
            // A saved list (e.g. the values of an enumeration's items, collected by a
            // `for_all`): each of its elements is a member.
            Ok(Val::List(l)) => {
                out.extend(l.into_iter().map(|v| (v.to_string(), v)));
            }
            Ok(v) => {
                let name = match e {
                    Expr::Sum(t) if t.len() == 1 && t[0].0 == 1 => match &t[0].1 {
                        Term::Const(c) => c.clone(),
                        _ => v.to_string(),
                    },
                    _ => v.to_string(),
                };
                out.push((name, v));
            }
            Err(m) if m.contains("is not defined by the") => {}
            Err(m) => return Err(m),
        }
    }
    if out.is_empty() {
        return Err("no member of the list is defined by this target's ABI profile".into());
    }
    Ok(out)
}

/// Two calls' OUT values are the same (R-CVAR-2: get_info immutable); strings compare
/// by text and length.
pub fn same_outs(
    before: &BTreeMap<String, Val>,
    now: &BTreeMap<String, Val>,
) -> Result<(), String> {
    for (k, b) in before {
        let Some(n) = now.get(k) else { continue };
        let same = match (b, n) {
            (Val::Str(x), Val::Str(y)) => x.text() == y.text() && x.len == y.len,
            _ => b == n,
        };
        if !same {
            return Err(format!("{k} was {b}, now {n}"));
        }
    }
    Ok(())
}

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
    for a in after.of(Kind::Category) {
        let Some(b) = before.find(Kind::Category, a.index) else {
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
            Kind::Pvar => format!(
                "pvar/{}",
                e.attrs.get("var_class").cloned().unwrap_or_default()
            ),
            Kind::Item => format!("item/{}", e.attrs.get("enum").cloned().unwrap_or_default()),
            Kind::Function | Kind::ThreadLevel => continue,
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
        .of(Kind::Category)
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
            .filter(|e| e.kind == Kind::Category)
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
    let shrunk: Vec<String> = before
        .globals
        .iter()
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
        if matches!(b.kind, Kind::Function | Kind::ThreadLevel) {
            continue;
        }
        // Items are numbered within their enum: match them by (enum, index).
        let found = match b.kind {
            Kind::Item => after
                .of(Kind::Item)
                .find(|a| a.index == b.index && a.attrs.get("enum") == b.attrs.get("enum")),
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
                        Kind::Category => "num_categories".to_string(),
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

    fn out(buf: &[u8], len: Option<i32>) -> StrOut {
        StrOut {
            buf: Some(buf.to_vec()),
            len,
            overrun: false,
            stray: vec![],
        }
    }

    #[test]
    fn skip_and_take_slice_a_list() {
        use crate::cases::expr::{Expr, Term};
        let n = |i: i64| Some(Expr::Sum(vec![(1, Term::Int(i))]));
        let resolve = |e: &Expr| -> Result<Val, String> {
            match e {
                Expr::Sum(t) => match &t[0].1 {
                    Term::Int(i) => Ok(Val::Int(*i as i128)),
                    _ => Err("?".into()),
                },
                _ => Err("?".into()),
            }
        };
        let v = Val::List([4, 2, -7, -7].into_iter().map(Val::Int).collect());
        let sentinels = Pred {
            skip: n(2),
            each: Some(Box::new(Pred {
                eq: n(-7),
                ..Pred::default()
            })),
            ..Pred::default()
        };
        assert_eq!(pred(&sentinels, &v, &resolve), Ok(()));
        let members = Pred {
            take: n(2),
            ge: n(0),
            length: n(2),
            ..Pred::default()
        };
        assert_eq!(pred(&members, &v, &resolve), Ok(()));
        let too_many = Pred {
            take: n(3),
            ge: n(0),
            ..Pred::default()
        };
        let e = pred(&too_many, &v, &resolve).unwrap_err();
        assert!(e.starts_with("elements 0..3:"), "{e}");
        let past_end = Pred {
            skip: n(9),
            length: n(0),
            ..Pred::default()
        };
        assert_eq!(pred(&past_end, &v, &resolve), Ok(()));
    }

    #[test]
    fn error_codes_of_a_profile() {
        let std = AbiProfile::standard();
        let with = |e: TErr, v: Option<i64>| {
            let mut p = std.clone();
            p.t_err = mpit_reference::profile::ConstMap::from_fn(|k| {
                if k == e {
                    v
                } else {
                    *std.t_err.get(k)
                }
            });
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
            kind: Kind::Item,
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
    fn in_lists_name_their_members_and_leave_out_undefined_constants() {
        use crate::cases::expr::{Expr, Term};
        let c = |n: &str| Expr::Sum(vec![(1, Term::Const(n.into()))]);
        let resolve = |e: &Expr| -> Result<Val, String> {
            match e {
                Expr::Sum(t) => match &t[0].1 {
                    Term::Const(n) if n == "MPI_T_BIND_MPI_COMM" => Ok(Val::Int(2)),
                    Term::Const(n) => Err(format!("{n} is not defined by the mpich ABI profile")),
                    _ => Err("?".into()),
                },
                _ => Err("?".into()),
            }
        };
        let p = Pred {
            one_of: Some(vec![c("MPI_T_BIND_MPI_COMM"), c("MPI_T_BIND_MPI_SESSION")]),
            ..Pred::default()
        };
        assert_eq!(pred(&p, &Val::Int(2), &resolve), Ok(()));
        let e = pred(&p, &Val::Int(12), &resolve).unwrap_err();
        assert_eq!(e, "12 is not one of [MPI_T_BIND_MPI_COMM]");
        let none = Pred {
            one_of: Some(vec![c("MPI_T_BIND_MPI_SESSION")]),
            ..Pred::default()
        };
        assert!(pred(&none, &Val::Int(2), &resolve)
            .unwrap_err()
            .contains("no member"));
        let excluded = Pred {
            not_in: Some(vec![c("MPI_T_BIND_MPI_COMM")]),
            ..Pred::default()
        };
        let e = pred(&excluded, &Val::Int(2), &resolve).unwrap_err();
        assert!(e.contains("is MPI_T_BIND_MPI_COMM"), "{e}");
    }

    #[test]
    fn catalog_extends_says_how_an_entry_vanished() {
        let cvar = |i: i32| Entry {
            kind: Kind::Cvar,
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

    #[test]
    fn comparisons_against_a_saved_list_are_element_wise() {
        use crate::cases::expr::{Expr, Term};
        let saved = Val::List(vec![Val::Int(3), Val::Float(0.5)]);
        let resolve = |_: &Expr| -> Result<Val, String> { Ok(saved.clone()) };
        let ge = Pred {
            ge: Some(Expr::Sum(vec![(1, Term::Var("prev".into()))])),
            ..Pred::default()
        };
        let up = Val::List(vec![Val::Int(4), Val::Float(0.5)]);
        assert_eq!(pred(&ge, &up, &resolve), Ok(()));
        let down = Val::List(vec![Val::Int(4), Val::Float(0.25)]);
        assert!(pred(&ge, &down, &resolve)
            .unwrap_err()
            .contains("element by element"));
        let short = Val::List(vec![Val::Int(4)]);
        assert!(pred(&ge, &short, &resolve).unwrap_err().contains("length"));
    }

    #[test]
    fn strings_are_judged_as_bytes() {
        // "r\xe9seau" (Latin-1): 6 bytes, 7 with the NUL, whatever its lossy text says.
        let want: &[u8] = b"r\xe9seau";
        let arg = StrArg::sized(4);
        assert_eq!(
            string(StrCheck::Truncated, arg, &out(b"r\xe9s\0", Some(7)), want),
            Ok(())
        );
        assert!(string(StrCheck::Truncated, arg, &out(b"r\xe9s\0", Some(9)), want).is_err());
    }

    #[test]
    fn string_convention() {
        let arg = StrArg::sized(4);
        assert_eq!(
            string(StrCheck::Truncated, arg, &out(b"abc\0", Some(7)), "abcdef"),
            Ok(())
        );
        let e = string(StrCheck::Truncated, arg, &out(b"abc\0", Some(4)), "abcdef").unwrap_err();
        assert!(e.contains("want strlen+1 = 7"), "{e}");
        assert_eq!(
            string(StrCheck::TruncatedN, arg, &out(b"abc\0", Some(4)), "abcdef"),
            Ok(())
        );
        assert!(string(StrCheck::Truncated, arg, &out(b"abcd", Some(7)), "abcdef").is_err());
        let mut o = out(b"abc\0", Some(7));
        o.overrun = true;
        assert!(string(StrCheck::Truncated, arg, &o, "abcdef").is_err());
        let untouched = StrOut {
            buf: Some(vec![FILL; 4]),
            len: None,
            overrun: false,
            stray: vec![],
        };
        assert_eq!(
            string(
                StrCheck::Truncated,
                StrArg {
                    cap: Some(4),
                    len: None
                },
                &untouched,
                "ab"
            ),
            Ok(())
        );
        let null_buf = StrOut {
            buf: None,
            len: Some(3),
            overrun: false,
            stray: vec![],
        };
        assert_eq!(
            string(
                StrCheck::Truncated,
                StrArg {
                    cap: None,
                    len: Some(9)
                },
                &null_buf,
                "ab"
            ),
            Ok(())
        );
        assert_eq!(
            string(
                StrCheck::Exact,
                StrArg::sized(9),
                &out(b"ab\0\xa5\xa5\xa5\xa5\xa5\xa5", Some(3)),
                "ab"
            ),
            Ok(())
        );
    }
}
