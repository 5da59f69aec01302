//! What a step expects, written as C: return codes, the string convention, OUT values
//! and lists, saved values, catalog snapshots and the built-in checks. Each check sets
//! `why`; a MUST deviation ends the program's sequence, as it ends the executor's.

use super::ctext::{c_string, escape, pred_text, print_value};
use super::emit::{CVar, Emitter, R};
use super::table::{out_type, value_read_through_handle};
use mpit_spec::cases::expr::{Expr, Pred, RcSet, Term};
use mpit_spec::cases::funcs::Func;
use mpit_spec::cases::{Builtin, Expect, Step, StrCheck};
use mpit_spec::readings::cite;
use mpit_spec::verdict::Level;

impl Emitter<'_> {
    pub(super) fn expect(&mut self, x: &Expect, func: Func, strings: &[(String, String)]) -> R<()> {
        let must = u8::from(x.level.unwrap_or(self.case.level) == Level::Must);
        let call = func.c_name();
        // A return code alone: one line.
        let rc_only =
            x.name.is_none() && x.desc.is_none() && x.out.is_empty() && x.same_as.is_none();
        if let (Some(rc), true, None) = (&x.rc, rc_only, &x.or_reading) {
            let (cond, text) = rc_check(rc);
            self.line(format!(
                "if (!({cond}) && deviation({must}, \"{call}\", returned(rc, \"{text}\"))) goto done;"
            ));
            return Ok(());
        }
        self.line("const char *why = NULL;");
        self.checks(x, func, strings)?;
        if let Some(r) = &x.or_reading {
            // The other reading of a sentence: a deviation only under REPRO_STRICT.
            let quote = c_string(&cite(&r.reading));
            self.open("if (why)");
            self.line("char keep[1024]; snprintf(keep, sizeof keep, \"%s\", why); why = NULL;");
            self.checks(&r.expect, func, strings)?;
            self.line(format!(
                "if (!why) {{ printf(\"  the library follows another reading: %s\\n\", {quote}); if (deviation(0, \"{call}\", keep)) goto done; }}"
            ));
            self.line("else why = keep;");
            self.close();
        }
        self.line(format!(
            "if (why && deviation({must}, \"{call}\", why)) goto done;"
        ));
        Ok(())
    }

    /// Sets `why` to the first expectation of `x` that does not hold.
    pub(super) fn checks(&mut self, x: &Expect, func: Func, strings: &[(String, String)]) -> R<()> {
        if let Some(rc) = &x.rc {
            let (cond, text) = rc_check(rc);
            self.line(format!(
                "if (!why && !({cond})) why = returned(rc, \"{text}\");"
            ));
        }
        for (field, check) in [("name", x.name), ("desc", x.desc)] {
            let Some(check) = check else { continue };
            let Some((_, want)) = strings.iter().find(|(p, _)| p == field) else {
                continue;
            };
            let kind = match check {
                StrCheck::Truncated => 0,
                StrCheck::TruncatedN => 1,
                StrCheck::Exact => 2,
                StrCheck::NonEmpty => 3,
            };
            self.line(format!(
                "if (!why) {{ const char *s = string_broken(&a_{field}, {kind}, {want}); if (s) {{ snprintf(whybuf, sizeof whybuf, \"{field}: %s\", s); why = whybuf; }} }}"
            ));
        }
        for (field, p) in &x.out {
            if field == "indices" {
                let ok = self.list_pred(&p.0, "o_indices", "(a_len > 0 ? a_len : 0)")?;
                self.line(format!(
                    "if (!why && !{ok}) {{ snprintf(whybuf, sizeof whybuf, \"indices: the first %d entries are not {}\", a_len); why = whybuf; }}",
                    escape(&pred_text(&p.0))
                ));
                continue;
            }
            let (value, ty) = match field.as_str() {
                "value" if value_read_through_handle(func) => {
                    ("vbuf_num(&o_value, 0)".to_string(), "double")
                }
                // MPI_CHAR values: the string's length within the buffer.
                "strlen" => (
                    "(int)strnlen((const char *)o_value.g.buf, o_value.g.len)".to_string(),
                    "int",
                ),
                "overrun" if func.outs().contains(&"value") => {
                    ("vbuf_overrun(&o_value)".to_string(), "int")
                }
                "overrun" => ("indices_overrun(o_indices, a_len)".to_string(), "int"),
                f => (
                    format!("o_{f}"),
                    out_type(func, f).ok_or_else(|| format!("a check of `{f}`"))?,
                ),
            };
            let cond = self.pred(&p.0, &value, ty)?;
            let shown = print_value(&value, ty);
            self.line(format!(
                "if (!why && !({cond})) {{ snprintf(whybuf, sizeof whybuf, \"{field}: {} is not {}\", {}); why = whybuf; }}",
                shown.0,
                escape(&pred_text(&p.0)),
                shown.1
            ));
        }
        if x.same_as.is_some() {
            return Err("`same_as` (a whole saved answer)".into());
        }
        Ok(())
    }

    pub(super) fn pred(&mut self, p: &Pred, v: &str, ty: &str) -> R<String> {
        if p.each.is_some()
            || p.ascending.is_some()
            || p.distinct.is_some()
            || p.length.is_some()
            || p.skip.is_some()
            || p.take.is_some()
        {
            return Err("a check on a list".into());
        }
        let mut c = Vec::new();
        let cmp = |s: &mut Self, e: &Expr, op: &str| -> R<String> {
            // Against a saved value (an earlier read): the whole value, as mpit-conform
            // compares lists element by element.
            if let Expr::Sum(t) = e {
                if let [(1, Term::Var(name))] = t.as_slice() {
                    if let Some(c) = s.vars.get(name).filter(|c| c.ty == "vbuf_t") {
                        let eq = format!("vbuf_equal(&o_value, &{})", c.ident);
                        let code = match op {
                            "==" => return Ok(eq),
                            "!=" => return Ok(format!("!{eq}")),
                            "<" => 0,
                            "<=" => 1,
                            ">" => 2,
                            _ => 3,
                        };
                        return Ok(format!("vbuf_all(&o_value, &{}, {code})", c.ident));
                    }
                }
            }
            Ok(format!("{v} {op} {}", s.expr(e, ty)?))
        };
        for (e, op) in p.comparisons() {
            if let Some(e) = e {
                c.push(cmp(self, e, op)?);
            }
        }
        if let Some((a, b)) = &p.between {
            c.push(cmp(self, a, ">=")?);
            c.push(cmp(self, b, "<=")?);
        }
        if let Some(l) = &p.one_of {
            let mut any = Vec::new();
            for e in l {
                any.push(cmp(self, e, "==")?);
            }
            c.push(format!("({})", any.join(" || ")));
        }
        if let Some(l) = &p.not_in {
            for e in l {
                c.push(cmp(self, e, "!=")?);
            }
        }
        Ok(if c.is_empty() {
            "1".into()
        } else {
            c.join(" && ")
        })
    }

    /// A check on a list of ints (`indices`): C that computes it into a flag, whose name
    /// is returned.
    pub(super) fn list_pred(&mut self, p: &Pred, arr: &str, n: &str) -> R<String> {
        self.tmp += 1;
        let ok = format!("ok{}", self.tmp);
        let skip = match &p.skip {
            Some(e) => self.expr(e, "int")?,
            None => "0".into(),
        };
        let end = match &p.take {
            Some(e) => format!(
                "({skip} + {} < {n} ? {skip} + {} : {n})",
                self.expr(e, "int")?,
                self.expr(e, "int")?
            ),
            None => n.to_string(),
        };
        self.line(format!("int {ok} = 1;"));
        self.open("");
        self.line(format!(
            "int from = {skip} < {n} ? {skip} : {n}, to = {end};"
        ));
        if let Some(e) = &p.length {
            let l = self.expr(e, "int")?;
            self.line(format!("if (to - from != {l}) {ok} = 0;"));
        }
        if let Some(each) = &p.each {
            let cond = self.pred(each, "x", "double")?;
            self.line(format!(
                "for (int i = from; i < to; i++) {{ double x = {arr}[i]; if (!({cond})) {ok} = 0; }}"
            ));
        }
        if p.ascending == Some(true) {
            self.line(format!(
                "for (int i = from + 1; i < to; i++) if ({arr}[i] <= {arr}[i - 1]) {ok} = 0;"
            ));
        }
        if p.distinct == Some(true) {
            self.line(format!(
                "for (int i = from; i < to; i++) for (int j = i + 1; j < to; j++) if ({arr}[i] == {arr}[j]) {ok} = 0;"
            ));
        }
        if p.eq.is_some() || p.ne.is_some() || p.one_of.is_some() || p.between.is_some() {
            return Err("a comparison of a whole list".into());
        }
        self.close();
        Ok(ok)
    }

    pub(super) fn save(&mut self, func: Func, var: &str, out: &str) -> R<()> {
        if out == "indices" {
            // The entries the call was asked for (`len`), as a list `for_all` can walk.
            let ident = format!("v_{var}");
            if !self.vars.contains_key(var) {
                self.decls.push(format!(
                    "static int {ident}[4096];\nstatic int {ident}_n = 0;"
                ));
                self.vars.insert(
                    var.to_string(),
                    CVar {
                        ident: ident.clone(),
                        ty: "int",
                        list: true,
                    },
                );
            }
            self.line(format!(
                "{ident}_n = 0; for (int i = 0; i < a_len && i < 4096; i++) {ident}[{ident}_n++] = o_indices[i];"
            ));
            return Ok(());
        }
        // `bytes` is the value as raw bytes: the same buffer.
        let raw = (out == "value" && value_read_through_handle(func)) || out == "bytes";
        let src = if raw {
            "vbuf_copy(&o_value)".to_string()
        } else {
            format!("o_{out}")
        };
        let ty = if raw {
            "vbuf_t"
        } else {
            out_type(func, out).ok_or_else(|| format!("saving `{out}`"))?
        };
        if let Some(c) = self.vars.get(var).filter(|c| c.list) {
            let ident = c.ident.clone();
            self.line(format!(
                "if (rc == MPI_SUCCESS && {ident}_n < 4096) {ident}[{ident}_n++] = {src};"
            ));
            return Ok(());
        }
        let ident = format!("v_{var}");
        if !self.vars.contains_key(var) {
            self.decls.push(format!("static {ty} {ident};"));
            self.vars.insert(
                var.to_string(),
                CVar {
                    ident: ident.clone(),
                    ty,
                    list: false,
                },
            );
        }
        self.line(format!("{ident} = {src};"));
        Ok(())
    }

    pub(super) fn snapshot(&mut self, step: &Step) -> R<()> {
        // Unsaved, it is still made: reading the whole catalog is the step.
        let var = step.save.keys().next().cloned().unwrap_or_else(|| {
            self.tmp += 1;
            format!("unsaved{}", self.tmp)
        });
        let var = &var;
        let ident = format!("v_{var}");
        self.decls.push(format!("static snap_t {ident};"));
        self.vars.insert(
            var.clone(),
            CVar {
                ident: ident.clone(),
                ty: "snap_t",
                list: false,
            },
        );
        self.line(format!(
            "snapshot(&{ident}); show_call(\"catalog snapshot: every cvar, pvar and category by index\", MPI_SUCCESS);"
        ));
        self.line(format!(
            "printf(\"      %d cvars, %d pvars, %d categories\\n\", {ident}.n[0], {ident}.n[1], {ident}.n[2]);"
        ));
        Ok(())
    }

    pub(super) fn builtin(&mut self, b: Builtin, step: &Step) -> R<()> {
        let must = u8::from(self.case.level == Level::Must);
        // A built-in's argument: the C variable of the saved value it names.
        let get = |k: &str| -> R<String> {
            match step.args.get(k) {
                Some(Expr::Sum(t)) if t.len() == 1 => match &t[0].1 {
                    Term::Var(v) => Ok(format!("v_{v}")),
                    _ => Err(format!("`{k}` of {b:?}")),
                },
                _ => Err(format!("`{k}` of {b:?}")),
            }
        };
        match b {
            Builtin::ErrorCodes => {
                self.line(format!("check_error_codes({must});"));
                Ok(())
            }
            Builtin::CatalogExtends | Builtin::CategoriesExtend => {
                let (before, after) = (get("before")?, get("after")?);
                let only_categories = u8::from(b == Builtin::CategoriesExtend);
                self.line(format!(
                    "if (snap_extends(&{before}, &{after}, {only_categories}, {must})) goto done;"
                ));
                Ok(())
            }
            Builtin::NamesUnique => {
                self.line(format!("if (check_names_unique({must})) goto done;"));
                Ok(())
            }
            Builtin::CategoryChangedTracks => {
                let (before, after) = (get("before")?, get("after")?);
                let (n0, n1) = (get("number_before")?, get("number_after")?);
                self.line(format!(
                    "if (snap_categories_same(&{before}, &{after}, {n0}, {n1}, {must})) goto done;"
                ));
                Ok(())
            }
            other => Err(format!("the built-in check {other:?}")),
        }
    }
}

/// A return-code expectation as C: (the condition it holds in, what it wants in words).
fn rc_check(rc: &RcSet) -> (String, String) {
    match rc {
        // An MPI_T error code, as the executor's `any_error` (judge/rc_set.rs): an MPI
        // error class (MPI_ERR_INTERN) is not one.
        RcSet::AnyError => ("is_t_err(rc)".to_string(), "any MPI_T_ERR_*".to_string()),
        RcSet::AnyOf(names) => (
            names
                .iter()
                .map(|n| format!("rc == {n}"))
                .collect::<Vec<_>>()
                .join(" || "),
            if names.len() == 1 {
                names[0].clone()
            } else {
                format!("one of {}", names.join(", "))
            },
        ),
    }
}
