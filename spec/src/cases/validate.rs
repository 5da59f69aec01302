//! The rules a case must follow to load (specs/README.md): ids and rule ids well formed,
//! every `$variable` defined where it is used, every function, parameter and OUT value
//! known, `erroneous` only on a call whose expectation is not a MUST. An error names
//! the word to locate it by (`load` turns it into file:line:col).

use super::case::Case;
use super::expr::{self, Expr, Pred, Term};
use super::funcs::{Func, Param};
use super::select::{SubjectKind, GLOBAL_VARS};
use super::step::{Callee, Expect, ForAll, Step};
use crate::readings::{self, ReadingKind};
use crate::verdict::{Area, Level};
use std::collections::BTreeSet;

type Invalid = (String, String);
/// Checks that every variable of an expression is defined at this point.
type VarCheck<'a> = &'a dyn Fn(&Expr, &BTreeSet<String>) -> Result<(), Invalid>;

pub(super) fn validate(c: &Case, area: Area) -> Result<(), Invalid> {
    let bad = |needle: &str, msg: String| Err((needle.to_string(), msg));
    if !c.id.starts_with(&format!("{area}.")) {
        return bad(
            "id:",
            format!("case id `{}` must start with `{area}.`", c.id),
        );
    }
    if c.rules.is_empty() {
        return bad("rules:", "a case cites at least one rule id".into());
    }
    if let Some(r) = c.rules.iter().find(|r| !r.starts_with("R-")) {
        return bad(
            r,
            format!("rule id `{r}` is not of the form R-<AREA>-<N> (specs/clauses.yaml)"),
        );
    }
    if c.steps.is_empty() {
        return bad("steps:", "a case has at least one step".into());
    }
    if !c.filter.0.is_empty() && c.for_each.is_none() {
        return bad("where:", "`where` needs `for_each`".into());
    }
    if c.first.is_some() && c.for_each.is_none() {
        return bad("first:", "`first` needs `for_each`".into());
    }
    if c.first == Some(0) {
        return bad("first:", "`first: 0` selects no subject".into());
    }
    if c.buffers.is_some()
        && !matches!(c.for_each, Some(k) if k != SubjectKind::Function && k != SubjectKind::ThreadLevel)
    {
        return bad(
            "buffers:",
            "`buffers` needs a `for_each` over catalog entries".into(),
        );
    }
    let mut defined: BTreeSet<String> = GLOBAL_VARS.iter().map(|s| s.to_string()).collect();
    if let Some(k) = c.for_each {
        defined.extend(k.vars().iter().map(|s| s.to_string()));
    }
    if c.buffers.is_some() {
        defined.insert("buffer".into());
    }
    for step in &c.steps {
        validate_step(c, step, &mut defined)?;
    }
    Ok(())
}

/// The variables a step sees: those defined before it, and what its `for_all:` binds.
fn step_vars(step: &Step, defined: &BTreeSet<String>) -> Result<BTreeSet<String>, Invalid> {
    let bad = |needle: &str, msg: String| Err((needle.to_string(), msg));
    let mut local = defined.clone();
    match &step.for_all {
        Some(ForAll::Kind(k)) => local.extend(k.vars().iter().map(|s| s.to_string())),
        Some(ForAll::List(v)) => {
            if !defined.contains(v) {
                return bad(
                    &format!("${v}"),
                    format!("`${v}` is not defined before this step"),
                );
            }
            local.insert("item".into());
        }
        Some(ForAll::Range(e)) => {
            if let Expr::Sum(terms) = e {
                for (_, t) in terms {
                    if let Term::Var(v) = t {
                        if !defined.contains(v) {
                            return bad(
                                &format!("${v}"),
                                format!("`${v}` is not defined before this step"),
                            );
                        }
                    }
                }
            }
            local.insert("item".into());
        }
        Some(ForAll::NullOuts) => {
            let nullable = step
                .callee()
                .map(|c| match c {
                    Callee::Func(f) => !f.nullable_outs().is_empty(),
                    Callee::Subject => false,
                })
                .unwrap_or(false);
            if !nullable {
                return bad(
                    "null_outs",
                    "`for_all: null_outs` needs a `*_get_info` or enumeration query".into(),
                );
            }
            local.insert("null".into());
        }
        None => {}
    }
    Ok(local)
}

fn validate_step(c: &Case, step: &Step, defined: &mut BTreeSet<String>) -> Result<(), Invalid> {
    let bad = |needle: &str, msg: String| Err((needle.to_string(), msg));
    let local = step_vars(step, defined)?;
    let check_var = |e: &Expr, local: &BTreeSet<String>| -> Result<(), Invalid> {
        if let Expr::Sum(terms) = e {
            for (_, t) in terms {
                if let Term::Var(v) = t {
                    if !local.contains(v) {
                        return Err((
                            format!("${v}"),
                            format!("`${v}` is not defined at this step"),
                        ));
                    }
                }
            }
        }
        Ok(())
    };
    match (step.callee(), step.check, &step.call) {
        (None, None, Some(name)) => {
            return bad(
                name,
                format!("unknown function `{name}` (see specs/README.md for the list)"),
            )
        }
        (None, None, None) => return bad("steps:", "a step has `call:` or `check:`".into()),
        (Some(_), Some(_), _) => {
            return bad("check:", "a step has `call:` or `check:`, not both".into())
        }
        (Some(Callee::Subject), _, _) if c.for_each != Some(SubjectKind::Function) => {
            return bad(
                "$function",
                "`call: $function` needs `for_each: function`".into(),
            )
        }
        _ => {}
    }
    let func = match step.callee() {
        Some(Callee::Func(f)) => Some(f),
        _ => None,
    };
    validate_args(step, func, &local, &check_var)?;
    if let Some(x) = &step.expect {
        validate_expect(x, func, &local, &check_var)?;
    }
    if let Some(x) = &step.skip_unless {
        validate_expect(x, func, &local, &check_var)?;
    }
    let level = step
        .expect
        .as_ref()
        .and_then(|x| x.level)
        .unwrap_or(c.level);
    if step.erroneous && (level == Level::Must || step.call.is_none()) {
        return bad(
            "erroneous:",
            "`erroneous` marks a call whose expectation is `should` or `robustness` \
             (a crash on an argument the standard leaves undefined is no MUST failure)"
                .into(),
        );
    }
    for (var, out) in &step.save {
        if let Some(f) = func {
            if out != "all" && !f.outs().contains(&out.as_str()) {
                return bad(
                    &format!("{var}: {out}"),
                    format!(
                        "`{}` has no OUT value `{out}` (it has: {})",
                        f.yaml(),
                        f.outs().join(", ")
                    ),
                );
            }
        }
        defined.insert(var.clone());
    }
    Ok(())
}

/// A step's arguments: each a parameter of its function, of a fitting form, naming
/// variables defined at the step.
fn validate_args(
    step: &Step,
    func: Option<Func>,
    local: &BTreeSet<String>,
    check_var: VarCheck,
) -> Result<(), Invalid> {
    let bad = |needle: &str, msg: String| Err((needle.to_string(), msg));
    for (name, e) in &step.args {
        check_var(e, local)?;
        let Some(f) = func else {
            // Built-ins and `$function` take named variables only.
            if let Expr::Text(t) = e {
                return bad(
                    t,
                    format!("`{t}` is not a number, a `$variable` or an MPI_ constant"),
                );
            }
            continue;
        };
        let Some(p) = f.param(name) else {
            return bad(
                &format!("{name}:"),
                format!(
                    "`{}` has no parameter `{name}` (it takes: {})",
                    f.yaml(),
                    f.params()
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        };
        match (p, e) {
            (Param::Text, _) => {}
            (_, Expr::Text(t)) => {
                let why = expr::parse_expr(t).err().unwrap_or_default();
                return bad(t, why);
            }
            (Param::Str, Expr::Sum(_) | Expr::Shape(_)) => {}
            (_, Expr::Shape(_)) => {
                return bad(
                    &format!("{name}:"),
                    format!("`{name}` is not a string buffer"),
                )
            }
            _ => {}
        }
    }
    Ok(())
}

fn validate_expect(
    x: &Expect,
    func: Option<Func>,
    local: &BTreeSet<String>,
    check_var: VarCheck,
) -> Result<(), Invalid> {
    if let Some(f) = func {
        for k in x.out.keys() {
            if !f.outs().contains(&k.as_str()) {
                return Err((
                    format!("{k}:"),
                    format!(
                        "`{}` has no OUT value `{k}` (it has: {})",
                        f.yaml(),
                        f.outs().join(", ")
                    ),
                ));
            }
        }
        if (x.name.is_some() && !f.outs().contains(&"name"))
            || (x.desc.is_some() && !f.outs().contains(&"desc"))
        {
            return Err((
                "expect:".into(),
                format!("`{}` returns no such string", f.yaml()),
            ));
        }
    }
    for p in x.out.values() {
        for e in pred_exprs(&p.0) {
            check_var(e, local)?;
        }
    }
    if let Some(e) = &x.same_as {
        check_var(e, local)?;
    }
    if let Some(r) = &x.or_reading {
        // A reading exists only where its sentence is quoted: specs/readings.yaml.
        match readings::get(&r.reading) {
            Some(e) if e.kind == ReadingKind::Reading => {}
            _ => {
                return Err((
                    "reading:".into(),
                    format!(
                        "`{}` is not a reading of specs/readings.yaml (a reading needs its \
                         quoted sentence there)",
                        r.reading
                    ),
                ))
            }
        }
        validate_expect(&r.expect, func, local, check_var)?;
    }
    Ok(())
}

/// Every expression inside a predicate.
pub fn pred_exprs(p: &Pred) -> Vec<&Expr> {
    let single = [
        &p.eq, &p.ne, &p.lt, &p.le, &p.gt, &p.ge, &p.length, &p.skip, &p.take,
    ];
    let mut v: Vec<&Expr> = single.into_iter().flatten().collect();
    if let Some((a, b)) = &p.between {
        v.push(a);
        v.push(b);
    }
    v.extend(p.one_of.iter().flatten());
    v.extend(p.not_in.iter().flatten());
    if let Some(e) = &p.each {
        v.extend(pred_exprs(e));
    }
    v
}
