//! `*_get_info` on the target (MPI-4.1 §15.3.6 cvars, §15.3.7 pvars, §15.3.9
//! categories, §15.3.8 events and sources): every OUT argument decoded with the
//! target's ABI profile into the names the model uses (an unknown constant as
//! `unknown(N)`), enum handles numbered in the order first returned, and pvar flags as
//! the library returned them. (The name alone, every other OUT argument NULL, is
//! `Sees::NameOnly`: the name pair, nothing to decode.)

use super::lower::{i32_of, int, list_of, str_of, Vals};
use super::{name, TargetEngine};
use crate::differential::obs::{Obs, Out};
use crate::differential::op::Kind;
use crate::differential::Slots;
use crate::exec::calls::Outs;

/// A pvar flag as the library returned it: 0 and 1 as flags, any other number as
/// itself, so the comparator sees a 2 (specs/readings.yaml pvar_flags.nonzero_is_true).
fn flag(v: i32) -> Out {
    match v {
        0 | 1 => Out::Flag(v == 1),
        n => Out::Int(n.into()),
    }
}

impl TargetEngine<'_> {
    /// Every OUT argument of the kind's get_info, in the names the model uses.
    pub(super) fn info(&mut self, kind: Kind, c: Outs) -> Obs {
        let (t, p) = (self.t, &self.t.profile);
        let enull = self.consts.enum_null;
        let dt = |raw: u64| {
            Out::Name(t.datatype(raw).map_or_else(
                || format!("unknown({})", t.describe_datatype(raw)).into(),
                |d| d.spelling().into(),
            ))
        };
        let Some((rc, mut v)) = c else {
            return Obs::unsupported();
        };
        let o = self.rc_obs(rc);
        if !o.ok() {
            return o;
        }
        // Moved out first: the strings are the call's largest values.
        let (name_out, desc_out) = (str_of(&mut v, "name"), str_of(&mut v, "desc"));
        // An event type's elements: at most `num_elements` of each array count.
        let elements = usize::try_from(i32_of(&v, "num_elements")).unwrap_or(0);
        let datatypes: Vec<i128> = list_of(&mut v, "datatypes").take(elements).collect();
        let displacements: Vec<i64> = list_of(&mut v, "displacements")
            .take(datatypes.len())
            .map(|x| x as i64)
            .collect();
        let named = |k: &str| int(&v, k) as i64;
        let enumtype =
            |slots: &mut Slots, v: &Vals| slots.enum_out(int(v, "enumtype") as u64, enull);
        match kind {
            Kind::Cvar => {
                let en = enumtype(&mut self.slots, &v);
                o.with("name", name_out)
                    .with("verbosity", name(&p.verbosity, named("verbosity")))
                    .with("datatype", dt(int(&v, "datatype") as u64))
                    .with("enumtype", en)
                    .with("desc", desc_out)
                    .with("bind", name(&p.bind, named("bind")))
                    .with("scope", name(&p.scope, named("scope")))
            }
            Kind::Pvar => {
                let en = enumtype(&mut self.slots, &v);
                o.with("name", name_out)
                    .with("verbosity", name(&p.verbosity, named("verbosity")))
                    .with("var_class", name(&p.pvar_class, named("var_class")))
                    .with("datatype", dt(int(&v, "datatype") as u64))
                    .with("enumtype", en)
                    .with("desc", desc_out)
                    .with("bind", name(&p.bind, named("bind")))
                    .with("readonly", flag(i32_of(&v, "readonly")))
                    .with("continuous", flag(i32_of(&v, "continuous")))
                    .with("atomic", flag(i32_of(&v, "atomic")))
            }
            Kind::Category => o
                .with("name", name_out)
                .with("desc", desc_out)
                .with("num_cvars", Out::Int(named("num_cvars")))
                .with("num_pvars", Out::Int(named("num_pvars")))
                .with("num_categories", Out::Int(named("num_categories"))),
            Kind::Event => {
                let num_elements = i32_of(&v, "num_elements");
                let types: Vec<_> = datatypes
                    .iter()
                    .map(|raw| match dt(*raw as u64) {
                        Out::Name(s) => s,
                        _ => "".into(),
                    })
                    .collect();
                let en = enumtype(&mut self.slots, &v);
                o.with("name", name_out)
                    .with("verbosity", name(&p.verbosity, named("verbosity")))
                    .with("num_elements", Out::Int(num_elements.into()))
                    .with("datatypes", Out::Name(types.join(",").into()))
                    .with("displacements", Out::Ints(displacements))
                    .with("enumtype", en)
                    .with("desc", desc_out)
                    .with("bind", name(&p.bind, named("bind")))
            }
            Kind::Source => o
                .with("name", name_out)
                .with("desc", desc_out)
                .with("ordering", name(&p.source_order, named("ordering")))
                .with("ticks_per_second", Out::Int(named("ticks_per_second")))
                .with("max_ticks", Out::Int(named("max_ticks"))),
        }
    }
}
