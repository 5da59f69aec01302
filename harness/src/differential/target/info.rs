//! `*_get_info` on the target (MPI-4.1 §15.3.6 cvars, §15.3.7 pvars, §15.3.9
//! categories, §15.3.8 events and sources): every OUT argument decoded with the
//! target's ABI profile into the names the model uses (an unknown constant as
//! `unknown(N)`), enum handles numbered in the order first returned, and pvar flags as
//! the library returned them. With the description NULL, the name alone is asked, every
//! other OUT argument NULL (R-CVAR-3).

use super::{arg, name, str_out, TargetEngine};
use crate::cases::funcs::Func;
use crate::differential::obs::{Obs, Out};
use crate::differential::op::{Kind, Str};
use crate::target::ffi::{Nulls, StrArg};

/// A pvar flag as the library returned it: 0 and 1 as flags, any other number as
/// itself, so the comparator sees a 2 (specs/readings.yaml pvar_flags.nonzero_is_true).
fn flag(v: i32) -> Out {
    match v {
        0 | 1 => Out::Flag(v == 1),
        n => Out::Int(n.into()),
    }
}

impl TargetEngine<'_> {
    pub(super) fn get_info(&mut self, kind: Kind, i: i32, n: Str, d: Str) -> Obs {
        let (t, p) = (self.t, &self.t.profile);
        let lib = &t.lib;
        let enull = self.constant("MPI_T_ENUM_NULL");
        let dt = |raw: u64| {
            Out::Name(t.datatype(raw).map_or_else(
                || format!("unknown({})", t.describe_datatype(raw)),
                |d| d.spelling().to_string(),
            ))
        };
        // The name alone, every other OUT argument NULL (R-CVAR-3): only the name to see.
        if d == Str::NONE {
            // Every OUT argument but the name (the description pair is `d`, NULL).
            let others = |f: Func| -> Vec<&'static str> {
                f.nullable_outs()
                    .iter()
                    .copied()
                    .filter(|n| *n != "name")
                    .collect()
            };
            let got = match kind {
                Kind::Cvar => lib.cvar_get_info_name_only(i, arg(n)),
                Kind::Pvar => lib.pvar_get_info_name_only(i, arg(n)),
                Kind::Category => lib.category_get_info_name_only(i, arg(n)),
                Kind::Event => {
                    let nulls = others(Func::EventGetInfo);
                    lib.event_get_info_nulls(i, arg(n), StrArg::NULL, 0, Nulls(&nulls))
                        .map(|(rc, o)| (rc, o.name))
                }
                Kind::Source => {
                    let nulls = others(Func::SourceGetInfo);
                    lib.source_get_info_nulls(i, arg(n), StrArg::NULL, Nulls(&nulls))
                        .map(|(rc, o)| (rc, o.name))
                }
            };
            let Some((rc, name)) = got else {
                return Obs::unsupported();
            };
            let o = self.rc_obs(rc);
            return if o.ok() {
                o.with("name", str_out(&name))
            } else {
                o
            };
        }
        match kind {
            Kind::Cvar => {
                let Some((rc, v)) = lib.cvar_get_info(i, arg(n), arg(d)) else {
                    return Obs::unsupported();
                };
                let o = self.rc_obs(rc);
                if !o.ok() {
                    return o;
                }
                let en = self.slots.enum_out(v.enumtype as u64, enull);
                o.with("name", str_out(&v.name))
                    .with("verbosity", name(&p.verbosity, v.verbosity.into()))
                    .with("datatype", dt(v.datatype))
                    .with("enumtype", en)
                    .with("desc", str_out(&v.desc))
                    .with("bind", name(&p.bind, v.bind.into()))
                    .with("scope", name(&p.scope, v.scope.into()))
            }
            Kind::Pvar => {
                let Some((rc, v)) = lib.pvar_get_info(i, arg(n), arg(d)) else {
                    return Obs::unsupported();
                };
                let o = self.rc_obs(rc);
                if !o.ok() {
                    return o;
                }
                let en = self.slots.enum_out(v.enumtype as u64, enull);
                o.with("name", str_out(&v.name))
                    .with("verbosity", name(&p.verbosity, v.verbosity.into()))
                    .with("var_class", name(&p.pvar_class, v.var_class.into()))
                    .with("datatype", dt(v.datatype))
                    .with("enumtype", en)
                    .with("desc", str_out(&v.desc))
                    .with("bind", name(&p.bind, v.bind.into()))
                    .with("readonly", flag(v.readonly))
                    .with("continuous", flag(v.continuous))
                    .with("atomic", flag(v.atomic))
            }
            Kind::Category => {
                let Some((rc, v)) = lib.category_get_info(i, arg(n), arg(d)) else {
                    return Obs::unsupported();
                };
                let o = self.rc_obs(rc);
                if !o.ok() {
                    return o;
                }
                o.with("name", str_out(&v.name))
                    .with("desc", str_out(&v.desc))
                    .with("num_cvars", Out::Int(v.num_cvars.into()))
                    .with("num_pvars", Out::Int(v.num_pvars.into()))
                    .with("num_categories", Out::Int(v.num_categories.into()))
            }
            Kind::Event => {
                let Some((rc, v)) = lib.event_get_info(i, arg(n), arg(d), 64) else {
                    return Obs::unsupported();
                };
                let o = self.rc_obs(rc);
                if !o.ok() {
                    return o;
                }
                let k = (v.num_elements.max(0) as usize).min(v.datatypes.len());
                let types: Vec<String> = v.datatypes[..k]
                    .iter()
                    .map(|raw| match dt(*raw) {
                        Out::Name(s) => s,
                        _ => String::new(),
                    })
                    .collect();
                let en = self.slots.enum_out(v.enumtype as u64, enull);
                o.with("name", str_out(&v.name))
                    .with("verbosity", name(&p.verbosity, v.verbosity.into()))
                    .with("num_elements", Out::Int(v.num_elements.into()))
                    .with("datatypes", Out::Name(types.join(",")))
                    .with(
                        "displacements",
                        Out::Ints(v.displacements[..k].iter().map(|x| *x as i64).collect()),
                    )
                    .with("enumtype", en)
                    .with("desc", str_out(&v.desc))
                    .with("bind", name(&p.bind, v.bind.into()))
            }
            Kind::Source => {
                let Some((rc, v)) = lib.source_get_info(i, arg(n), arg(d)) else {
                    return Obs::unsupported();
                };
                let o = self.rc_obs(rc);
                if !o.ok() {
                    return o;
                }
                o.with("name", str_out(&v.name))
                    .with("desc", str_out(&v.desc))
                    .with("ordering", name(&p.source_order, v.ordering.into()))
                    .with("ticks_per_second", Out::Int(v.ticks_per_second))
                    .with("max_ticks", Out::Int(v.max_ticks))
            }
        }
    }
}
