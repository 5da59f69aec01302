//! The predicates of an expectation on OUT values (`out:` in a case: `eq`, `lt`,
//! `between`, `in`, `each`, `ascending`, `length`, slices with `skip`/`take`, ...), a
//! list judged element by element; and `same_as`, two calls' OUT values compared
//! (R-CVAR-2).

use super::value::Val;
use mpit_spec::cases::expr::{Expr, Pred, Term};
use std::collections::{BTreeMap, BTreeSet};

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
    resolve: &dyn Fn(&Expr) -> Result<Val, String>,
) -> Result<(), String> {
    if p.skip.is_some() || p.take.is_some() {
        // A slice of the list: the remaining checks look at it alone.
        let count = |e: &Option<Expr>| -> Result<Option<usize>, String> {
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
    let cmp = |e: &Expr, op: &str, ok: fn(f64, f64) -> bool| -> Result<(), String> {
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
    set: &[Expr],
    resolve: &dyn Fn(&Expr) -> Result<Val, String>,
) -> Result<Vec<(String, Val)>, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_and_take_slice_a_list() {
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
    fn in_lists_name_their_members_and_leave_out_undefined_constants() {
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
    fn comparisons_against_a_saved_list_are_element_wise() {
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
}
