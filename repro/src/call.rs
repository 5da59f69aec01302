//! One MPI call written as C, as the executor makes it: each argument declared (given,
//! a saved value, the subject's, or the function's NULL), string buffers sized as the
//! case says, OUT values in variables filled with FILL, then the call, its return code
//! and what it wrote printed, and the step's checks and saves.

use super::ctext::{c_string, capacity, expr_text, fill, print_value, size_label};
use super::emit::{Buffer, Emitter, Loop, Subject, R};
use super::table::{out_type, param_type, value_read_through_handle};
use mpit_spec::cases::expr::{Expr, Size, Term};
use mpit_spec::cases::funcs::{Func, Param};
use mpit_spec::cases::Neutral;
use mpit_spec::cases::{MpiVersion, Step, StringField, SubjectKind};
use std::collections::BTreeMap;

/// A call's arguments as the program writes them.
#[derive(Default)]
struct CallArgs {
    /// The C of each `{p}` and `{&o}` of the function's template.
    subst: BTreeMap<String, String>,
    /// `p=...` for each parameter, as the program prints the call.
    shown: Vec<String>,
    /// The string parameters: (param, the C of the whole string it is judged against).
    strings: Vec<(String, String)>,
}

impl Emitter<'_> {
    pub(super) fn call(&mut self, func: Func, step: &Step) -> R<()> {
        let template = func
            .c_args()
            .ok_or_else(|| format!("{} is not an MPI call", func.yaml()))?;
        // The reference's test hooks are declared by mpit_reference.h alone.
        if func.c_name().starts_with("MPIT_Reference_") {
            self.needs_reference = true;
        }
        // MPI-4.0's functions: an older mpi.h does not declare them.
        if func.since().is_some_and(|v| v >= MpiVersion(4, 0)) {
            self.needs_events = true;
        }
        self.open("");
        let mut w = CallArgs::default();
        for (name, p) in func.params() {
            self.arg(func, step, name, *p, &mut w)?;
        }
        let outs = self.out_vars(func, step, template, &mut w.subst)?;
        let CallArgs {
            subst,
            shown,
            strings,
        } = w;
        // A cvar or pvar handle: the program notes its variable's datatype and count, so
        // that reads through it are sized and shown as the executor does (R-CVAR-8).
        let variable = match func.allocates() {
            Some(k @ (SubjectKind::Cvar | SubjectKind::Pvar)) => Some(k.as_str()),
            _ => None,
        };
        if let Some(kind) = variable {
            let idx = subst.get("index").cloned().unwrap_or_default();
            self.line(format!(
                "MPI_Datatype hdt; int typed = {kind}_datatype({idx}, &hdt);"
            ));
        }
        let args = fill(template, &subst)?;
        let call = format!("{}({args})", func.c_fn());
        let text = format!("{}({})", func.c_name(), shown.join(", "));
        self.line(format!("rc = {call};"));
        self.line(format!("show_call({}, rc);", c_string(&text)));
        // MPI_T's initialization count (R-INIT-1, R-FIN-1), as the program and as the
        // emitter know it.
        self.depth += func.depth();
        if func.depth() > 0 {
            self.line("if (rc == MPI_SUCCESS) t_depth++;");
            self.after_init();
        }
        if func.depth() < 0 {
            self.line("if (rc == MPI_SUCCESS) t_depth--;");
        }
        // What came back: the OUT values on one line, then each string.
        if !outs.is_empty() {
            let (fmt, args): (Vec<String>, Vec<String>) = outs
                .iter()
                .map(|(o, ty)| {
                    let (f, a) = print_value(&format!("o_{o}"), ty);
                    (format!("{o} = {f}"), a)
                })
                .unzip();
            self.line(format!(
                "printf(\"      {}\\n\", {});",
                fmt.join(", "),
                args.join(", ")
            ));
        }
        if !strings.is_empty() {
            let shown: Vec<String> = strings
                .iter()
                .map(|(p, _)| format!("show_string(\"{p}\", &a_{p});"))
                .collect();
            self.line(shown.join(" "));
        }
        // A value read: its size and first bytes (what they mean and whether the library
        // kept to the buffer are the checks' business: `value`, `overrun`).
        if subst.contains_key("&value") && value_read_through_handle(func) {
            self.line("if (rc == MPI_SUCCESS) { printf(\"      value: %zu bytes:\", o_value.g.len); for (size_t i = 0; i < o_value.g.len && i < 16; i++) printf(\" %02x\", o_value.g.buf[i]); printf(\"\\n\"); }");
        }
        if variable.is_some() {
            self.line(
                "if (rc == MPI_SUCCESS) note_handle((uintptr_t)o_handle, o_count, hdt, typed);",
            );
        }
        if let Some(x) = &step.expect {
            self.expect(x, func, &strings)?;
        }
        for (var, out) in &step.save {
            self.save(func, var, out)?;
        }
        self.close();
        Ok(())
    }

    /// One parameter declared and passed: given, a saved value, the subject's, or the
    /// function's NULL.
    fn arg(&mut self, func: Func, step: &Step, name: &str, p: Param, w: &mut CallArgs) -> R<()> {
        let given = step.args.get(name);
        let a = format!("a_{name}");
        match p {
            Param::Int | Param::Handle => self.int_arg(func, name, given, w)?,
            Param::Str => {
                let (init, label, want) = self.str_arg(func, name, given)?;
                self.line(format!("sarg_t {a} = {init};"));
                w.shown.push(format!("{name}=<{label}>"));
                w.subst
                    .insert(name.to_string(), format!("SBUF({a}), SLEN({a})"));
                w.strings.push((name.to_string(), want));
            }
            Param::Text => {
                let c = match given {
                    Some(Expr::Text(t)) => c_string(t),
                    Some(Expr::Null) => "\"\"".into(),
                    Some(Expr::Sum(t)) if t.len() == 1 && t[0].1 == Term::Var("name".into()) => {
                        self.subject_name()?
                    }
                    None => self.subject_name()?,
                    Some(e) => self.expr(e, "const char *")?,
                };
                self.line(format!("const char *{a} = {c};"));
                w.shown.push(format!("{name}={c}"));
                w.subst.insert(name.to_string(), a.clone());
            }
            Param::Obj => match given {
                None | Some(Expr::Null) => {
                    w.subst.insert(name.to_string(), "NULL".into());
                    w.shown.push(format!("{name}=NULL"));
                }
                Some(e) => {
                    let c = self.expr(e, "MPI_Comm")?;
                    self.line(format!("MPI_Comm {a} = {c};"));
                    w.subst.insert(name.to_string(), format!("&{a}"));
                    w.shown.push(format!("{name}=&{c}"));
                }
            },
            Param::Data => {
                self.tight = true;
                let h = w.subst.get("handle").cloned().unwrap_or_else(|| "0".into());
                let c = match given {
                    None => "vbuf(0)".to_string(),
                    Some(Expr::Sum(t))
                        if t.len() == 1
                            && matches!(&t[0].1, Term::Var(v) if self.vars.get(v).is_some_and(|c| c.ty == "vbuf_t")) =>
                    {
                        let v = self.expr(given.expect("matched"), "vbuf_t")?;
                        format!("vbuf_copy(&{v})")
                    }
                    Some(e) => {
                        let n = self.expr(e, "long long")?;
                        format!("vbuf_number((uintptr_t){h}, {n})")
                    }
                };
                self.line(format!("vbuf_t {a} = {c};"));
                w.shown.push(format!("{name}=<value>"));
                w.subst.insert(name.to_string(), format!("{a}.g.buf"));
            }
            Param::Flag => {
                let on = match given {
                    Some(e) => self.expr(e, "int")? != "0",
                    None => true,
                };
                let cb = match name {
                    "callback" => "repro_event_cb",
                    "free_callback" => "repro_free_cb",
                    _ => "repro_dropped_cb",
                };
                let c = if on { cb } else { "NULL" };
                w.subst.insert(name.to_string(), c.into());
                w.shown.push(format!("{name}={c}"));
            }
        }
        Ok(())
    }

    /// An integer or handle parameter: given, a saved value, or what the executor passed.
    fn int_arg(&mut self, func: Func, name: &str, given: Option<&Expr>, w: &mut CallArgs) -> R<()> {
        let a = format!("a_{name}");
        let ty = param_type(func, name);
        let c = match given {
            Some(e) => self.expr(e, ty)?,
            None => match self.var(name) {
                Ok(v) if name != "name" => v,
                // What the executor passed (`Func::neutral`).
                _ => match func.neutral(name) {
                    Neutral::Constant(n) => n.to_string(),
                    Neutral::Int(n) => n.to_string(),
                },
            },
        };
        let c = if name == "len" {
            // As the executor passes it (the category_get_* queries' array
            // length): a count below 0 is 0.
            format!("({c} < 0 ? 0 : {c})")
        } else if ty == "int"
            || c.starts_with("MPI_")
            || c.starts_with("((")
            || self.typed_as(&c, ty)
        {
            c
        } else {
            // A number or a saved value of another C type.
            format!("({ty})(intptr_t)({c})")
        };
        w.shown
            .push(format!("{name}={}", given.map_or(c.clone(), expr_text)));
        // In the call itself, but `len`, which the checks of `indices` read.
        if name == "len" {
            self.line(format!("{ty} {a} = {c};"));
            w.subst.insert(name.to_string(), a.clone());
        } else {
            w.subst.insert(name.to_string(), c);
        }
        Ok(())
    }

    /// The OUT values: written into variables filled with FILL, so "never written"
    /// shows. Those the program prints after the call: (OUT, its C type).
    fn out_vars(
        &mut self,
        func: Func,
        step: &Step,
        template: &str,
        subst: &mut BTreeMap<String, String>,
    ) -> R<Vec<(String, &'static str)>> {
        let mut outs: Vec<(String, &'static str)> = Vec::new();
        for o in func.outs() {
            let key = format!("&{o}");
            if !template.contains(&format!("{{{key}}}")) {
                continue;
            }
            let ident = format!("o_{o}");
            match (*o, out_type(func, o)) {
                ("value", None) => {
                    self.tight = true;
                    let h = subst.get("handle").cloned().unwrap_or_else(|| "0".into());
                    self.line(format!("vbuf_t {ident} = vbuf_for((uintptr_t){h});"));
                    subst.insert(key, format!("{ident}.g.buf"));
                }
                ("indices", _) => {
                    let n = subst.get("len").cloned().unwrap_or_else(|| "0".into());
                    self.line(format!(
                        "int {ident}[({n} > 0 ? {n} : 0) + 4]; for (int i = 0; i < ({n} > 0 ? {n} : 0) + 4; i++) {ident}[i] = -7; /* no valid index */"
                    ));
                    subst.insert(key, ident.clone());
                }
                ("datatypes", _) => {
                    let cap = capacity(step);
                    // Filled as the harness fills them: a library that reads them
                    // before writing sees the same bytes.
                    self.line(format!(
                        "MPI_Datatype {ident}[{cap} + 4]; memset({ident}, FILL, sizeof {ident});"
                    ));
                    subst.insert(key, ident.clone());
                }
                ("displacements", _) => {
                    let cap = capacity(step);
                    self.line(format!(
                        "MPI_Aint {ident}[{cap} + 4]; for (int i = 0; i < {cap} + 4; i++) {ident}[i] = -1;"
                    ));
                    subst.insert(key, ident.clone());
                }
                ("num_elements", _) => {
                    self.line(format!("int {ident} = {};", capacity(step)));
                    subst.insert(key, format!("&{ident}"));
                }
                (_, Some(ty)) => {
                    match subst.get(*o) {
                        // INOUT: the handle or session passed is the variable written.
                        Some(a) if func.param(o).is_some() => {
                            self.line(format!("{ty} {ident} = {a};"));
                        }
                        _ => self.line(format!(
                            "{ty} {ident}; memset(&{ident}, FILL, sizeof {ident});"
                        )),
                    }
                    subst.insert(key, format!("&{ident}"));
                    outs.push((o.to_string(), ty));
                }
                (_, None) => return Err(format!("OUT `{o}` of {}", func.yaml())),
            }
        }
        Ok(outs)
    }

    fn subject_name(&mut self) -> R<String> {
        match self.subject {
            Subject::Entry { name, .. } => Ok(c_string(name)),
            _ => Err("`$name` without a catalog subject".into()),
        }
    }

    /// The buffer of a string parameter: (the C that makes it, what the call shows of
    /// it, the C expression of the whole string it is judged against).
    fn str_arg(
        &mut self,
        func: Func,
        param: &str,
        e: Option<&Expr>,
    ) -> R<(String, String, String)> {
        let want = self.string_for(func, param)?;
        let l = match &want {
            Some(_) => format!("subj.{}", if param == "desc" { "desc_len" } else { "len" }),
            None => "4096".into(),
        };
        let want = want.unwrap_or_else(|| "\"\"".into());
        let size = match e {
            None => Size::Full,
            Some(Expr::Shape(s)) => *s,
            Some(Expr::Sum(t)) if t.len() == 1 && t[0].1 == Term::Var("buffer".into()) => {
                let field = self.case.buffers.as_ref().map(|b| b.string);
                let mine = if param == "desc" {
                    StringField::Desc
                } else {
                    StringField::Name
                };
                match self.buffer {
                    _ if field != Some(mine) => Size::Full,
                    Some(Buffer::Size(s)) => s,
                    Some(Buffer::Loop) => {
                        self.tight = true;
                        return Ok((format!("sized(buffers[b], {l})"), "buffer".into(), want));
                    }
                    None => Size::Full,
                }
            }
            Some(other) => {
                self.tight = true;
                let n = self.expr(other, "int")?;
                return Ok((format!("sarg({n}, {n}, 0, 0)"), format!("{n} bytes"), want));
            }
        };
        self.tight |= !matches!(size, Size::Full);
        let (cap, len, null_buf, null_len) = match size {
            Size::Fixed(n) => (n.to_string(), n.to_string(), 0, 0),
            Size::Len(k) => {
                let c = format!("({l} + {k} > 0 ? {l} + {k} : 0)");
                (c.clone(), c, 0, 0)
            }
            Size::NullBuf => ("0".into(), l, 1, 0),
            Size::NullLen => (l.clone(), l, 0, 1),
            Size::Full => {
                let c = format!("({l} + 64)");
                (c.clone(), c, 0, 0)
            }
        };
        let label = size_label(null_buf, null_len, &cap);
        Ok((
            format!("sarg({cap}, {len}, {null_buf}, {null_len})"),
            label,
            want,
        ))
    }

    /// The subject's string a (buf, len) parameter is judged against (the executor's
    /// `string_for`).
    fn string_for(&mut self, func: Func, param: &str) -> R<Option<String>> {
        let Subject::Entry { kind, .. } = self.subject else {
            return Ok(None);
        };
        let matches = func.strings_of() == Some(*kind);
        if !matches || matches!(self.lp, Some(Loop::Entry)) {
            return Ok(None);
        }
        self.subject_var("len")?;
        Ok(Some(if param == "desc" {
            "subj.desc".into()
        } else {
            "subj.name".into()
        }))
    }
}
