//! How a step becomes C control flow: the dispatch to a built-in check or a catalog
//! snapshot, then `for_all` (over catalog entries, a saved list or a range) and `repeat`
//! as C loops around the call, with the lists a `for_all` collects its saves into. Kept
//! apart from `call`, which writes the one call each iteration makes.

use super::ctext::filter_cond;
use super::emit::{CVar, Emitter, Loop, Subject, R};
use super::table::out_type;
use mpit_spec::cases::funcs::Func;
use mpit_spec::cases::{Callee, ForAll, Step, SubjectKind};

impl Emitter<'_> {
    pub(super) fn step(&mut self, step: &Step) -> R<()> {
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
                    SubjectKind::Pvar => "pvar_entry",
                    SubjectKind::Cvar => "cvar_entry",
                    SubjectKind::Category => "category_entry",
                    other => return Err(format!("for_all over {}", other.as_str())),
                };
                let n = self.global(&format!(
                    "num_{}",
                    if *k == SubjectKind::Category {
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
}
