//! A case of the case language, instantiated for one subject, written as a C program
//! that makes the same calls as the executor (`exec`) with the same arguments, and judges
//! them the same way. The executor is the interpreter of a case; this is its compiler.
//!
//! What the executor takes from the inventory (a subject's index and strings, the size
//! of a variable's value) the program finds out itself, by name (`*_get_index`) and with
//! a full-size `*_get_info`, so that it runs on any build of the library.

use super::ctext::{c_string, capacity, expr_text, fill, filter_cond, print_out, size_label};
use super::table::{c_args, null_of, out_type, param_type};
use crate::cases::expr::{Expr, Size, Term};
use crate::cases::funcs::{Func, Param};
use crate::cases::StringField;
use crate::cases::{Callee, Case, ForAll, InitMode, Kind, Require, Step};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What a result ran on, as its report names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    None,
    /// A catalog entry, found again by name (an item: within the enumeration `parent`).
    Entry {
        kind: Kind,
        name: String,
        parent: Option<String>,
    },
    /// `MPI_THREAD_SINGLE`, ...
    ThreadLevel(String),
    /// An MPI_T function (`for_each: function`).
    Function(Func),
}

/// Why a case cannot be written as C.
#[derive(Debug, thiserror::Error)]
#[error("no C reproducer for case {case}: {why}")]
pub struct Unsupported {
    pub case: String,
    pub why: String,
}

pub(super) type R<T> = Result<T, String>;

/// A C variable a case variable lives in.
#[derive(Debug, Clone)]
pub(super) struct CVar {
    pub(super) ident: String,
    /// C type of the value (of one element, for a list).
    pub(super) ty: &'static str,
    pub(super) list: bool,
}

/// The current `for_all` iteration.
#[derive(Debug, Clone)]
pub(super) enum Loop {
    Entry,
    Item(CVar),
}

pub struct Emitter<'a> {
    pub(super) case: &'a Case,
    pub(super) subject: &'a Subject,
    pub(super) body: String,
    pub(super) indent: usize,
    pub(super) decls: Vec<String>,
    pub(super) vars: BTreeMap<String, CVar>,
    /// MPI_T initializations minus finalizations so far, as the steps are written.
    pub(super) depth: i32,
    pub(super) looked_up: bool,
    pub(super) buffer: Option<Size>,
    pub(super) lp: Option<Loop>,
    /// Makes the names of generated temporaries unique.
    pub(super) tmp: usize,
    pub needs_snapshot: bool,
    pub needs_events: bool,
    pub needs_activity: bool,
    /// Calls the reference's test hooks (`MPIT_Reference_simulate`, ...).
    pub needs_reference: bool,
}

/// The body of `main` and the declarations before it.
pub struct Program {
    pub decls: String,
    pub body: String,
    pub needs_snapshot: bool,
    pub needs_events: bool,
    pub needs_activity: bool,
    pub needs_reference: bool,
}

impl<'a> Emitter<'a> {
    pub fn program(case: &'a Case, subject: &'a Subject) -> Result<Program, Unsupported> {
        let mut e = Emitter {
            case,
            subject,
            body: String::new(),
            indent: 1,
            decls: Vec::new(),
            vars: BTreeMap::new(),
            depth: 0,
            looked_up: false,
            buffer: None,
            lp: None,
            tmp: 0,
            needs_snapshot: false,
            needs_events: false,
            needs_activity: false,
            needs_reference: case.requires(Require::ReferenceHooks),
        };
        e.main().map_err(|why| Unsupported {
            case: case.id.clone(),
            why,
        })?;
        Ok(Program {
            decls: e.decls.join("\n"),
            body: e.body,
            needs_snapshot: e.needs_snapshot,
            needs_events: e.needs_events,
            needs_activity: e.needs_activity,
            needs_reference: e.needs_reference,
        })
    }

    pub(super) fn line(&mut self, s: impl AsRef<str>) {
        for l in s.as_ref().lines() {
            let _ = writeln!(self.body, "{}{l}", "    ".repeat(self.indent));
        }
    }

    pub(super) fn open(&mut self, s: impl AsRef<str>) {
        match s.as_ref() {
            "" => self.line("{"),
            s => self.line(format!("{s} {{")),
        }
        self.indent += 1;
    }

    pub(super) fn close(&mut self) {
        self.indent -= 1;
        self.line("}");
    }

    fn main(&mut self) -> R<()> {
        let case = self.case;
        if case.requires(Require::MpiInit) {
            // The executor runs these cases in a process that called MPI_Init first.
            self.line("rc = MPI_Init(NULL, NULL);");
            self.line("show_call(\"MPI_Init(NULL, NULL)\", rc);");
        }
        let sizes: Vec<Option<Size>> = match &case.buffers {
            Some(b) => b.sizes.iter().map(|s| Some(*s)).collect(),
            None => vec![None],
        };
        for size in sizes {
            self.buffer = size;
            self.depth = 0;
            self.looked_up = false;
            if let Some(s) = size {
                let text = s.text();
                self.line(format!("printf(\"-- buffer {text}\\n\");"));
            }
            self.open("");
            if case.init == InitMode::Auto {
                self.line("int provided = -1;");
                self.line("rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);");
                self.line("show_call(\"MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)\", rc);");
                self.line("if (rc != MPI_SUCCESS) { deviation(1, \"MPI_T_init_thread failed (R-INIT-1)\"); goto done; }");
                self.line("t_depth++;");
                self.depth = 1;
                self.after_init();
            }
            for step in &case.steps {
                self.step(step)?;
            }
            // Leave MPI_T finalized, as the executor does.
            self.line("while (t_depth > 0 && MPI_T_finalize() == MPI_SUCCESS) t_depth--;");
            self.close();
        }
        Ok(())
    }

    /// The subject is looked up as soon as MPI_T is first initialized, as the executor
    /// has it from the inventory read before the case.
    fn after_init(&mut self) {
        if matches!(self.subject, Subject::Entry { .. }) && !self.looked_up {
            self.line("if (t_depth > 0) lookup_subject(&subj);");
            self.looked_up = true;
        }
    }

    /// The subject's entry, looked up once MPI_T is initialized.
    fn subject_var(&mut self, field: &str) -> R<String> {
        let Subject::Entry { kind, .. } = self.subject else {
            return Err(format!("`${field}` without a catalog subject"));
        };
        if !self.looked_up {
            if self.depth <= 0 {
                return Err("the subject is used while MPI_T is not initialized".into());
            }
            self.line("lookup_subject(&subj);");
            self.looked_up = true;
        }
        Ok(match (field, kind) {
            ("index", _) => "subj.index".into(),
            ("len", _) => "subj.len".into(),
            ("desc_len", _) => "subj.desc_len".into(),
            ("var_class", Kind::Pvar) => "subj.var_class".into(),
            ("enumtype", Kind::Enum | Kind::Item) => "subj.enumtype".into(),
            ("num_items", Kind::Enum | Kind::Item) => "subj.num_items".into(),
            ("item", Kind::Item) => "subj.item".into(),
            ("value", Kind::Item) => "subj.value".into(),
            _ => return Err(format!("`${field}` of a {} subject", kind.as_str())),
        })
    }

    fn global(&mut self, name: &str) -> R<String> {
        let func = match name {
            "num_cvars" => "MPI_T_cvar_get_num",
            "num_pvars" => "MPI_T_pvar_get_num",
            "num_categories" => "MPI_T_category_get_num",
            "num_events" => "MPI_T_event_get_num",
            "num_sources" => "MPI_T_source_get_num",
            _ => return Err(format!("`${name}` has no C equivalent")),
        };
        if self.depth <= 0 {
            return Err(format!("`${name}` is used while MPI_T is not initialized"));
        }
        let ident = format!("g_{name}");
        if !self.decls.iter().any(|d| d.contains(&format!(" {ident} "))) {
            self.decls.push(format!("static int {ident} = 0;"));
        }
        self.line(format!(
            "rc = {func}(&{ident}); show_call(\"{func}(&{name})\", rc); printf(\"      {name} = %d\\n\", {ident});"
        ));
        Ok(ident)
    }

    pub(super) fn var(&mut self, v: &str) -> R<String> {
        match (&self.lp, v) {
            (Some(Loop::Entry), "index") => return Ok("it_e.index".into()),
            (Some(Loop::Item(c)), "item") => return Ok(c.ident.clone()),
            _ => {}
        }
        if let Some(c) = self.vars.get(v) {
            return Ok(c.ident.clone());
        }
        match (self.subject, v) {
            (Subject::ThreadLevel(t), "required") => return Ok(t.clone()),
            (
                Subject::Entry { .. },
                "index" | "len" | "desc_len" | "var_class" | "enumtype" | "num_items" | "item"
                | "value",
            ) => return self.subject_var(v),
            _ => {}
        }
        if v.starts_with("num_") {
            return self.global(v);
        }
        Err(format!("`${v}` has no C equivalent here"))
    }

    /// Whether `c` is a variable the program declared with C type `ty` (no cast needed).
    fn typed_as(&self, c: &str, ty: &str) -> bool {
        let item = matches!(&self.lp, Some(Loop::Item(v)) if v.ident == c && v.ty == ty);
        item || self
            .vars
            .values()
            .any(|v| v.ident == c && v.ty == ty && !v.list)
    }

    pub(super) fn expr(&mut self, e: &Expr, ty: &str) -> R<String> {
        match e {
            Expr::Sum(terms) => {
                let mut s = String::new();
                for (i, (k, t)) in terms.iter().enumerate() {
                    let c = match t {
                        Term::Int(n) => n.to_string(),
                        Term::Const(c) => c.clone(),
                        // A saved list is no number; a saved read, in a sum, is its first
                        // element (as the executor counts a one-element read).
                        Term::Var(v) => match self.vars.get(v) {
                            Some(c) if c.list => {
                                return Err(format!("`${v}` (a saved list) in an expression"))
                            }
                            Some(c) if c.ty == "vbuf_t" && terms.len() > 1 => {
                                format!("vbuf_num(&{}, 0)", c.ident)
                            }
                            _ => self.var(v)?,
                        },
                    };
                    let c = match k.abs() {
                        1 => c,
                        n => format!("{n}*{c}"),
                    };
                    match (i, *k > 0) {
                        (0, true) => s.push_str(&c),
                        (0, false) => s.push_str(&format!("-{c}")),
                        (_, true) => s.push_str(&format!(" + {c}")),
                        _ => s.push_str(&format!(" - {c}")),
                    }
                }
                Ok(if terms.len() > 1 { format!("({s})") } else { s })
            }
            Expr::Null if ty == "int" => Ok("0".into()),
            Expr::Null => Ok(format!("(({ty})0)")),
            Expr::Text(t) => Ok(c_string(t)),
            Expr::Shape(_) => Err("a buffer shape where a value is wanted".into()),
        }
    }

    fn step(&mut self, step: &Step) -> R<()> {
        if let Some(b) = step.check {
            return self.builtin(b, step);
        }
        let func = match step.callee() {
            Some(Callee::Func(f)) => f,
            Some(Callee::Subject) => match self.subject {
                Subject::Function(f) => *f,
                _ => return Err("`$function` without a function subject".into()),
            },
            None => return Err("a step without a call".into()),
        };
        if func == Func::CatalogSnapshot {
            return self.snapshot(step);
        }
        match &step.for_all {
            None => self.repeated(func, step),
            Some(ForAll::Kind(k)) => {
                let lookup = match k {
                    Kind::Pvar => "pvar_entry",
                    Kind::Cvar => "cvar_entry",
                    Kind::Category => "category_entry",
                    other => return Err(format!("for_all over {}", other.as_str())),
                };
                let n = self.global(&format!(
                    "num_{}",
                    if *k == Kind::Category {
                        "categories".to_string()
                    } else {
                        format!("{}s", k.as_str())
                    }
                ))?;
                let mut cond = Vec::new();
                for (key, want) in &step.filter.0 {
                    cond.push(filter_cond(key, want)?);
                }
                self.begin_lists(func, step)?;
                self.open(format!("for (int it = 0; it < {n}; it++)"));
                self.line(format!("entry_t it_e; if (!{lookup}(it, &it_e)) continue;"));
                if !cond.is_empty() {
                    self.line(format!("if (!({})) continue;", cond.join(" && ")));
                }
                let saved = self.lp.replace(Loop::Entry);
                let r = self.repeated(func, step);
                self.lp = saved;
                self.close();
                r
            }
            Some(ForAll::List(v)) => {
                let list = self
                    .vars
                    .get(v)
                    .cloned()
                    .ok_or_else(|| format!("`${v}` is not set"))?;
                if !list.list {
                    return Err(format!("for_all over `${v}`, which is not a list"));
                }
                self.begin_lists(func, step)?;
                self.open(format!("for (int it = 0; it < {}_n; it++)", list.ident));
                let item = CVar {
                    ident: "it_item".into(),
                    ty: list.ty,
                    list: false,
                };
                self.line(format!("{} it_item = {}[it];", list.ty, list.ident));
                let saved = self.lp.replace(Loop::Item(item));
                let r = self.repeated(func, step);
                self.lp = saved;
                self.close();
                r
            }
            Some(ForAll::NullOuts) => Err("for_all over NULL OUT arguments".into()),
            Some(ForAll::Range(e)) => {
                let n = self.expr(e, "int")?;
                self.begin_lists(func, step)?;
                self.open(format!("for (int it = 0; it < {n}; it++)"));
                self.line("int it_item = it;");
                let saved = self.lp.replace(Loop::Item(CVar {
                    ident: "it_item".into(),
                    ty: "int",
                    list: false,
                }));
                let r = self.repeated(func, step);
                self.lp = saved;
                self.close();
                r
            }
        }
    }

    /// Lists a `for_all` step collects its saves into.
    fn begin_lists(&mut self, func: Func, step: &Step) -> R<()> {
        for (var, out) in &step.save {
            let ty = out_type(func, out).ok_or_else(|| format!("a list of `{out}`"))?;
            let ident = format!("v_{var}");
            self.decls.push(format!(
                "static {ty} {ident}[4096];\nstatic int {ident}_n = 0;"
            ));
            self.line(format!("{ident}_n = 0;"));
            self.vars.insert(
                var.clone(),
                CVar {
                    ident,
                    ty,
                    list: true,
                },
            );
        }
        Ok(())
    }

    fn repeated(&mut self, func: Func, step: &Step) -> R<()> {
        match step.repeat {
            Some(n) if n > 1 => {
                self.open(format!("for (int rep = 0; rep < {n}; rep++)"));
                let r = self.call(func, step);
                self.close();
                r
            }
            _ => self.call(func, step),
        }
    }

    fn call(&mut self, func: Func, step: &Step) -> R<()> {
        let template = c_args(func).ok_or_else(|| format!("{} is not an MPI call", func.yaml()))?;
        if matches!(func, Func::Simulate | Func::RaiseEvent) {
            self.needs_reference = true;
        }
        if matches!(func, Func::Activity | Func::Wtime) {
            self.needs_activity = true;
        }
        // MPI-4.0's functions: an older mpi.h does not declare them.
        let c = func.c_name();
        if c.starts_with("MPI_T_event")
            || c.starts_with("MPI_T_source")
            || matches!(func, Func::CategoryGetNumEvents | Func::CategoryGetEvents)
        {
            self.needs_events = true;
        }
        self.open("");
        let mut subst: BTreeMap<String, String> = BTreeMap::new();
        let mut shown: Vec<String> = Vec::new();
        let mut strings: Vec<(String, String)> = Vec::new(); // (param, C ident)
        for (name, p) in func.params() {
            let given = step.args.get(*name);
            let a = format!("a_{name}");
            match p {
                Param::Int | Param::Handle => {
                    let ty = param_type(func, name);
                    let c = match given {
                        Some(e) => self.expr(e, ty)?,
                        None => match self.var(name) {
                            Ok(v) if *name != "name" => v,
                            _ => match (null_of(func, name), *name) {
                                (Some(n), _) => n.to_string(),
                                (None, "len" | "capacity" | "bytes") => "64".into(),
                                _ => "0".into(),
                            },
                        },
                    };
                    let c = if *name == "len"
                        && matches!(
                            func,
                            Func::CategoryGetCvars
                                | Func::CategoryGetPvars
                                | Func::CategoryGetEvents
                                | Func::CategoryGetCategories
                        ) {
                        // As the executor passes it: a count below 0 is 0.
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
                    self.line(format!("{ty} {a} = {c};"));
                    shown.push(format!("{name}={}", given.map_or(c, expr_text)));
                    subst.insert(name.to_string(), a.clone());
                }
                Param::Str => {
                    let (cap, len, null_buf, null_len, want) = self.str_arg(func, name, given)?;
                    self.line(format!(
                        "sarg_t {a} = sarg({cap}, {len}, {null_buf}, {null_len});"
                    ));
                    shown.push(format!("{name}=<{}>", size_label(null_buf, null_len, &cap)));
                    subst.insert(name.to_string(), format!("SBUF({a}), SLEN({a})"));
                    strings.push((name.to_string(), want));
                }
                Param::Text => {
                    let c = match given {
                        Some(Expr::Text(t)) => c_string(t),
                        Some(Expr::Null) => "\"\"".into(),
                        Some(Expr::Sum(t))
                            if t.len() == 1 && t[0].1 == Term::Var("name".into()) =>
                        {
                            self.subject_name()?
                        }
                        None => self.subject_name()?,
                        Some(e) => self.expr(e, "const char *")?,
                    };
                    self.line(format!("const char *{a} = {c};"));
                    shown.push(format!("{name}={c}"));
                    subst.insert(name.to_string(), a.clone());
                }
                Param::Obj => match given {
                    None | Some(Expr::Null) => {
                        subst.insert(name.to_string(), "NULL".into());
                        shown.push(format!("{name}=NULL"));
                    }
                    Some(e) => {
                        let c = self.expr(e, "MPI_Comm")?;
                        self.line(format!("MPI_Comm {a} = {c};"));
                        subst.insert(name.to_string(), format!("&{a}"));
                        shown.push(format!("{name}=&{c}"));
                    }
                },
                Param::Data => {
                    let h = subst.get("handle").cloned().unwrap_or_else(|| "0".into());
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
                    shown.push(format!("{name}=<value>"));
                    subst.insert(name.to_string(), format!("{a}.g.buf"));
                }
                Param::Flag => {
                    let on = match given {
                        Some(e) => self.expr(e, "int")? != "0",
                        None => true,
                    };
                    let cb = match *name {
                        "callback" => "repro_event_cb",
                        "free_callback" => "repro_free_cb",
                        _ => "repro_dropped_cb",
                    };
                    let c = if on { cb } else { "NULL" };
                    subst.insert(name.to_string(), c.into());
                    shown.push(format!("{name}={c}"));
                }
            }
        }
        // OUT values: written into variables filled with FILL, so "never written" shows.
        let mut outs: Vec<(String, &'static str)> = Vec::new();
        for o in func.outs() {
            let key = format!("&{o}");
            if !template.contains(&format!("{{{key}}}")) {
                continue;
            }
            let ident = format!("o_{o}");
            match (*o, out_type(func, o)) {
                ("value", _) => {
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
        if matches!(func, Func::PvarHandleAlloc | Func::CvarHandleAlloc) {
            let kind = if func == Func::PvarHandleAlloc {
                "pvar"
            } else {
                "cvar"
            };
            let idx = subst.get("index").cloned().unwrap_or_default();
            self.line(format!(
                "MPI_Datatype hdt; int typed = {kind}_datatype({idx}, &hdt);"
            ));
        }
        let args = fill(template, &subst)?;
        let call = match func {
            Func::PvarReadInSignal => format!("read_in_signal_handler({args})"),
            Func::MpiInit => "MPI_Init(NULL, NULL)".to_string(),
            Func::Wtime => format!("wtime({args})"),
            _ => format!("{}({args})", func.c_name()),
        };
        let text = format!("{}({})", func.c_name(), shown.join(", "));
        self.line(format!("rc = {call};"));
        self.line(format!("show_call({}, rc);", c_string(&text)));
        match func {
            Func::InitThread | Func::MpiInit => self.depth += i32::from(func == Func::InitThread),
            Func::Finalize => self.depth -= 1,
            _ => {}
        }
        if func == Func::InitThread {
            self.line("if (rc == MPI_SUCCESS) t_depth++;");
            self.after_init();
        }
        if func == Func::Finalize {
            self.line("if (rc == MPI_SUCCESS) t_depth--;");
        }
        for (o, ty) in &outs {
            self.line(print_out(o, ty));
        }
        for (p, _) in &strings {
            self.line(format!("show_string(\"{p}\", &a_{p});"));
        }
        if subst.contains_key("&value") {
            self.line("if (rc == MPI_SUCCESS) printf(\"      value: %zu bytes, first element %g, %d bytes written outside\\n\", o_value.g.len, vbuf_num(&o_value, 0), vbuf_overrun(&o_value));");
        }
        if matches!(func, Func::PvarHandleAlloc | Func::CvarHandleAlloc) {
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

    fn subject_name(&mut self) -> R<String> {
        match self.subject {
            Subject::Entry { name, .. } => Ok(c_string(name)),
            _ => Err("`$name` without a catalog subject".into()),
        }
    }

    /// The buffer of a string parameter: (capacity, *len, NULL buffer, NULL length,
    /// the C expression of the whole string it is judged against).
    fn str_arg(
        &mut self,
        func: Func,
        param: &str,
        e: Option<&Expr>,
    ) -> R<(String, String, u8, u8, String)> {
        let want = self.string_for(func, param)?;
        let l = match &want {
            Some(_) => format!("subj.{}", if param == "desc" { "desc_len" } else { "len" }),
            None => "4096".into(),
        };
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
                if field == Some(mine) {
                    self.buffer.unwrap_or(Size::Full)
                } else {
                    Size::Full
                }
            }
            Some(other) => {
                let n = self.expr(other, "int")?;
                return Ok((n.clone(), n, 0, 0, want.unwrap_or_else(|| "\"\"".into())));
            }
        };
        let want = want.unwrap_or_else(|| "\"\"".into());
        Ok(match size {
            Size::Fixed(n) => (n.to_string(), n.to_string(), 0, 0, want),
            Size::Len(k) => {
                let c = format!("({l} + {k} > 0 ? {l} + {k} : 0)");
                (c.clone(), c, 0, 0, want)
            }
            Size::NullBuf => ("0".into(), l, 1, 0, want),
            Size::NullLen => (l.clone(), l, 0, 1, want),
            Size::Full => {
                let c = format!("({l} + 64)");
                (c.clone(), c, 0, 0, want)
            }
        })
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
