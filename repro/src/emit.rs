//! A case of the case language, instantiated for one subject, written as a C program
//! that makes the same calls as the executor (`exec`) with the same arguments, and judges
//! them the same way. The executor is the interpreter of a case; this is its compiler.
//!
//! What the executor takes from the inventory (a subject's index and strings, the size
//! of a variable's value) the program finds out itself, by name (`*_get_index`) and with
//! a full-size `*_get_info`, so that it runs on any build of the library.

//!
//! This file holds the emitter's state, the program's frame and how values and
//! expressions are written; `loops` writes a step's `for_all` and `repeat`, `call` one
//! MPI call, `checks` what the step expects.

use super::ctext::c_string;
use mpit_spec::cases::expr::{Expr, Size, Term};
use mpit_spec::cases::funcs::Func;
use mpit_spec::cases::{Case, InitMode, Require, SubjectKind};
use mpit_spec::kind::Kind;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What a result ran on, as its report names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    None,
    /// A catalog entry, found again by name (an item: within the enumeration `parent`).
    Entry {
        kind: SubjectKind,
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

/// The size of the buffer a case's `buffers:` gives, as the program knows it.
#[derive(Debug, Clone, Copy)]
pub(super) enum Buffer {
    /// One size, written into the call.
    Size(Size),
    /// The row `b` of the table `buffers` the program loops over.
    Loop,
}

/// A size as a row of the program's `buffers` table (helpers.c, `size_row`): its text,
/// whether it counts from the string's length (strlen + 1), the bytes, a NULL buffer, a
/// NULL length.
fn size_row(s: Size) -> String {
    let (from_len, n, null_buf, null_len) = match s {
        Size::Fixed(n) => (0, i64::from(n), 0, 0),
        Size::Len(k) => (1, k, 0, 0),
        Size::NullBuf => (1, 0, 1, 0),
        Size::NullLen => (1, 0, 0, 1),
        Size::Full => (1, 64, 0, 0),
    };
    format!(
        "{{{}, {from_len}, {n}, {null_buf}, {null_len}}}",
        c_string(&s.text())
    )
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
    /// The size of the string `$buffer` names, in the sequence being written.
    pub(super) buffer: Option<Buffer>,
    pub(super) lp: Option<Loop>,
    /// Makes the names of generated temporaries unique.
    pub(super) tmp: usize,
    /// The program calls a function of MPI-4.0 (an older mpi.h does not declare it).
    pub needs_events: bool,
    /// A buffer sized to the byte (helpers::TIGHT): the program needs guard pages.
    pub tight: bool,
    /// Calls the reference's test hooks (`MPIT_Reference_simulate`, ...).
    pub needs_reference: bool,
}

/// The body of `main` and the declarations before it.
pub struct Program {
    pub decls: String,
    pub body: String,
    pub needs_events: bool,
    pub tight: bool,
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
            needs_events: false,
            tight: false,
            needs_reference: case.requires(Require::ReferenceHooks),
        };
        e.main().map_err(|why| Unsupported {
            case: case.id.clone(),
            why,
        })?;
        Ok(Program {
            decls: e.decls.join("\n"),
            body: e.body,
            needs_events: e.needs_events,
            tight: e.tight,
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
        let sizes: &[Size] = case.buffers.as_ref().map_or(&[], |b| &b.sizes);
        // The executor runs every buffer size in one worker, whose own MPI_T init the
        // case's init nests inside: MPI_T is never fully finalized between sizes. So the
        // program holds one too; a full finalize and re-init is another question
        // (R-FIN-3), and MPICH 4.0.2 no longer finds its variables by name after it.
        let held = case.init == InitMode::Auto && sizes.len() > 1;
        if held {
            self.init_single(
                "held",
                " (held across the buffer sizes, as mpit-conform's worker holds one)",
            );
        }
        match sizes {
            [] => self.sequence(None, true)?,
            [one] => {
                self.line(format!("printf(\"-- buffer {}\\n\");", one.text()));
                self.sequence(Some(Buffer::Size(*one)), true)?;
            }
            // One loop over a table of the sizes, rather than the steps once per size.
            many => {
                let rows: Vec<String> = many.iter().map(|s| size_row(*s)).collect();
                let lines: Vec<String> = rows.chunks(4).map(|r| r.join(", ")).collect();
                self.decls.push(format!(
                    "/* The buffer sizes the case tries, in turn. */\nstatic const size_row buffers[] = {{\n    {}\n}};",
                    lines.join(",\n    ")
                ));
                self.open(format!("for (int b = 0; b < {}; b++)", many.len()));
                self.line("printf(\"-- buffer %s\\n\", buffers[b].text);");
                self.sequence(Some(Buffer::Loop), false)?;
                self.close();
            }
        }
        if held {
            self.line("MPI_T_finalize();");
        }
        Ok(())
    }

    /// The case's steps once, between the executor's init and finalize, with `buffer`
    /// the size of the string `$buffer` names; in a block of its own where `block`.
    fn sequence(&mut self, buffer: Option<Buffer>, block: bool) -> R<()> {
        let case = self.case;
        self.buffer = buffer;
        self.depth = 0;
        self.looked_up = false;
        if block {
            self.open("");
        }
        if case.init == InitMode::Auto {
            self.init_single("provided", "");
            self.line("t_depth++;");
            self.depth = 1;
            self.after_init();
        }
        for step in &case.steps {
            self.step(step)?;
        }
        // Leave MPI_T finalized, as the executor does.
        self.line("while (t_depth > 0 && MPI_T_finalize() == MPI_SUCCESS) t_depth--;");
        if block {
            self.close();
        }
        Ok(())
    }

    /// `MPI_T_init_thread(MPI_THREAD_SINGLE, &var)`, as the executor brackets a case: a
    /// failure ends the program (R-INIT-1). `note` follows the call as printed.
    fn init_single(&mut self, var: &str, note: &str) {
        self.line(format!("int {var} = -1;"));
        self.line(format!(
            "rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &{var});"
        ));
        self.line(format!(
            "show_call(\"MPI_T_init_thread(MPI_THREAD_SINGLE, &provided){note}\", rc);"
        ));
        self.line("if (rc != MPI_SUCCESS) { deviation(1, \"MPI_T_init_thread\", \"failed (R-INIT-1)\"); goto done; }");
    }

    /// The subject is looked up as soon as MPI_T is first initialized, as the executor
    /// has it from the inventory read before the case.
    pub(super) fn after_init(&mut self) {
        if matches!(self.subject, Subject::Entry { .. }) && !self.looked_up {
            self.line("if (t_depth > 0) lookup_subject(&subj);");
            self.looked_up = true;
        }
    }

    /// The subject's entry, looked up once MPI_T is initialized.
    pub(super) fn subject_var(&mut self, field: &str) -> R<String> {
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
            ("var_class", SubjectKind::Pvar) => "subj.var_class".into(),
            ("enumtype", SubjectKind::Enum | SubjectKind::Item) => "subj.enumtype".into(),
            ("num_items", SubjectKind::Enum | SubjectKind::Item) => "subj.num_items".into(),
            ("item", SubjectKind::Item) => "subj.item".into(),
            ("value", SubjectKind::Item) => "subj.value".into(),
            _ => return Err(format!("`${field}` of a {} subject", kind.as_str())),
        })
    }

    pub(super) fn global(&mut self, name: &str) -> R<String> {
        // The count a kind's `*_get_num` returns (MPI_T has no call counting enumerations).
        let kind = match name {
            "num_cvars" => Kind::Cvar,
            "num_pvars" => Kind::Pvar,
            "num_categories" => Kind::Category,
            "num_events" => Kind::Event,
            "num_sources" => Kind::Source,
            _ => return Err(format!("`${name}` has no C equivalent")),
        };
        let func = kind.get_num().c_name();
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
            // A category's member counts shadow the catalog-wide counts of the same
            // names (specs/README.md, "Variables"); the program does not read them.
            (
                Subject::Entry {
                    kind: SubjectKind::Category,
                    ..
                },
                "num_cvars" | "num_pvars" | "num_categories" | "num_events",
            ) => return Err(format!("`${v}` of a category subject (its member count)")),
            _ => {}
        }
        if v.starts_with("num_") {
            return self.global(v);
        }
        Err(format!("`${v}` has no C equivalent here"))
    }

    /// Whether `c` is a variable the program declared with C type `ty` (no cast needed).
    pub(super) fn typed_as(&self, c: &str, ty: &str) -> bool {
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
}
