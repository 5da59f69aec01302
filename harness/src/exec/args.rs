//! A step's arguments resolved for a call: the step's own, else a variable of the same
//! name (the subject's or a saved one), else the parameter's neutral default. String
//! buffers are sized from the subject's string (the `buffers:` sizes of MPI-4.1
//! §15.3.3's corner cases); `for_all: null_outs` passes its OUT arguments as NULL.

use super::calls::{self, Arg};
use super::Exec;
use crate::judge::value::Val;
use mpit_spec::cases::expr::{Expr, Size, Term};
use mpit_spec::cases::funcs::{Func, Param};
use mpit_spec::cases::Neutral;
use mpit_spec::cases::{ForAll, Step, StringField};
use mpit_target::ffi::StrArg;
use std::collections::BTreeMap;

impl Exec<'_, '_> {
    /// The string a (buf, len) parameter is compared with, and its length + 1.
    pub(super) fn string_for(&self, func: Func, param: &str) -> Option<Vec<u8>> {
        let e = self.entry()?;
        let matches = func.strings_of() == Some(e.kind);
        matches.then(|| e.bytes(if param == "desc" { "desc" } else { "name" }))
    }

    fn str_arg(&self, func: Func, param: &str, e: Option<&Expr>) -> Result<StrArg, String> {
        let want = self.string_for(func, param);
        let l = want.as_ref().map_or(4096, |s| s.len() as i64 + 1);
        let size = match e {
            None => Size::Full,
            Some(Expr::Shape(s)) => *s,
            Some(Expr::Sum(t)) if t.len() == 1 && t[0].1 == Term::Var("buffer".into()) => {
                let field = self.case.buffers.as_ref().map(|b| b.string);
                // The varied buffer applies to the string `buffers.string` names.
                if field
                    == Some(if param == "desc" {
                        StringField::Desc
                    } else {
                        StringField::Name
                    })
                {
                    self.buffer.unwrap_or(Size::Full)
                } else {
                    Size::Full
                }
            }
            Some(other) => Size::Fixed(self.int(other)?.clamp(0, 1 << 20) as u32),
        };
        Ok(match size {
            Size::Fixed(n) => StrArg::sized(n as usize),
            Size::Len(k) => StrArg::sized((l + k).max(0) as usize),
            Size::NullBuf => StrArg {
                cap: None,
                len: Some(l as i32),
            },
            Size::NullLen => StrArg {
                cap: Some(l as usize),
                len: None,
            },
            Size::Full => StrArg::sized((l + 64) as usize),
        })
    }

    /// Resolves every parameter: the step's argument, else a variable of the same name
    /// (subject or saved), else the parameter's neutral default.
    pub(super) fn args(
        &self,
        func: Func,
        step: &Step,
    ) -> Result<BTreeMap<&'static str, Arg>, String> {
        let mut out = BTreeMap::new();
        let nulls = self.nulls(func, step);
        for (name, p) in func.params() {
            if *p == Param::Str && nulls.contains(name) {
                out.insert(*name, Arg::Str(StrArg::NULL));
                continue;
            }
            let given = step.args.get(*name);
            let from_var = || self.vars.get(*name).and_then(Val::int).map(|i| i as i64);
            let arg = match p {
                Param::Str => Arg::Str(self.str_arg(func, name, given)?),
                Param::Text => match given {
                    Some(Expr::Text(t)) => Arg::Text(t.clone()),
                    Some(Expr::Sum(t)) if t.len() == 1 && matches!(t[0].1, Term::Var(_)) => {
                        match &t[0].1 {
                            Term::Var(v) if v == "name" => {
                                Arg::Text(self.entry().map(|e| e.name.clone()).unwrap_or_default())
                            }
                            Term::Var(v) => match self.vars.get(v) {
                                Some(Val::Str(s)) => Arg::Text(s.text().unwrap_or_default()),
                                Some(other) => Arg::Text(other.to_string()),
                                None => return Err(format!("`${v}` is not set")),
                            },
                            _ => unreachable!("matched a variable above"),
                        }
                    }
                    Some(Expr::Sum(_)) | Some(Expr::Shape(_)) => {
                        return Err(format!("`{name}` takes text"))
                    }
                    Some(Expr::Null) => Arg::Text(String::new()),
                    None => Arg::Text(self.entry().map(|e| e.name.clone()).unwrap_or_default()),
                },
                Param::Obj => match given {
                    None | Some(Expr::Null) => Arg::Obj(None),
                    Some(e) => Arg::Obj(Some(self.int(e)? as u64)),
                },
                Param::Data => {
                    let h = step
                        .args
                        .get("handle")
                        .map(|e| self.int(e))
                        .transpose()?
                        .or_else(|| self.vars.get("handle").and_then(Val::int).map(|i| i as i64));
                    let meta = h.and_then(|h| self.handles.get(&(h as u64)).copied());
                    match given.map(|e| self.value(e)).transpose()? {
                        Some(Val::Bytes(b)) => Arg::Data(b.bytes),
                        Some(v) => {
                            let n = v.int().ok_or_else(|| format!("cannot write {v}"))? as i64;
                            Arg::Data(meta.map_or_else(
                                || n.to_ne_bytes().to_vec(),
                                |m| calls::encode(self.ctx.inv, &m, n),
                            ))
                        }
                        None => Arg::Data(Vec::new()),
                    }
                }
                Param::Flag => Arg::Flag(match given {
                    Some(e) => self.int(e)? != 0,
                    None => true,
                }),
                Param::Int | Param::Handle => Arg::Int(match given {
                    Some(e) => self.int(e)?,
                    None => match from_var() {
                        Some(v) => v,
                        None => self.default_int(func, name)?,
                    },
                }),
            };
            out.insert(*name, arg);
        }
        if !nulls.is_empty() {
            out.insert("null", Arg::Nulls(nulls));
        }
        Ok(out)
    }

    /// The OUT arguments this iteration of `for_all: null_outs` passes as NULL: the
    /// `$null`-th of the function's nullable OUTs, or all of them one past the last.
    fn nulls(&self, func: Func, step: &Step) -> Vec<&'static str> {
        if step.for_all != Some(ForAll::NullOuts) {
            return Vec::new();
        }
        let all = func.nullable_outs();
        let i = self.vars.get("null").and_then(Val::int).unwrap_or(0) as usize;
        match all.get(i) {
            Some(one) => vec![*one],
            None => all.to_vec(),
        }
    }

    fn default_int(&self, func: Func, name: &str) -> Result<i64, String> {
        match func.neutral(name) {
            Neutral::Constant(c) => self.constant(c),
            Neutral::Int(n) => Ok(n),
        }
    }
}
