//! The differential oracle (docs/ARCHITECTURE.md, "Oracles"): the reference model,
//! loaded with the target's own catalog, runs the same sequence of MPI_T calls as the
//! target, and the comparator reports every outcome the standard determines that
//! differs, with the clause it breaks.
//!
//! - [`op`]: one generated call ([`Call`]): an entry of the function table, its
//!   arguments by parameter name in the sequence's terms, what both engines observe;
//! - [`gen`]: which calls make sense next ([`Gen`], the shape of the model's state:
//!   live sessions and handles, init depth), for proptest and for cargo-fuzz, and the
//!   calls it makes (`gen::make`);
//! - [`engine`]: the `Engine` trait both engines implement, one call in, one [`Obs`]
//!   out, and the `Runner` of a whole sequence on a library (in this process or in a
//!   worker);
//! - [`model`] and [`target`]: the two engines;
//! - [`compare`]: the comparator, which knows which outputs the standard fixes;
//! - `runner::remote`: the runner of the target engine in a worker process (vendor code
//!   never runs in the supervisor); [`props`]: the proptest state machine and
//!   `fuzz-props`;
//!   [`emit`]: a failing sequence written out as a YAML case of `specs/`.

pub mod compare;
pub mod emit;
pub mod engine;
pub mod gen;
pub mod model;
pub mod obs;
pub mod op;
pub mod props;
mod relations;
pub mod target;

pub use compare::{compare, Divergence};
pub use gen::Gen;
pub use mpit_target::catalog::Origins;
pub use obs::{Obs, Out, Trace};
pub use op::{Call, Kind, Mode, Ref};

use mpit_reference::faults::Faults;
use mpit_reference::model::Model;
use mpit_spec::cases::funcs::Func;
use mpit_spec::cases::roles::HandleKind as TableHandle;
use mpit_target::catalog::CatalogDump;
use mpit_target::Predefined;
use mpit_vocab::catalog::Appears;
use mpit_vocab::catalog::Catalog;
use mpit_vocab::spec::{Bind, Datatype};
use mpit_vocab::value::Value;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, OnceLock};

/// The target's indices of one kind (the target order: see [`Origins`]).
fn origins_of(o: &Origins, k: Kind) -> &[i32] {
    match k {
        Kind::Cvar => &o.cvars,
        Kind::Pvar => &o.pvars,
        Kind::Category => &o.categories,
        Kind::Event => &o.events,
        Kind::Source => &o.sources,
    }
}

/// A target's catalog as the reference serves it, and how its numbering maps onto the
/// target's.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Mirror {
    /// Shared with every reference model made from this mirror (one per sequence).
    pub catalog: Arc<Catalog>,
    pub origins: Origins,
    /// `*_get_num` as the target reported it when mirrored.
    pub target_counts: BTreeMap<Kind, i32>,
    /// Values are determined by the calls alone (the target is the reference cdylib,
    /// whose counters move only on `MPIT_Reference_simulate`): compare every value.
    /// Otherwise only values the standard fixes (a stopped counter after reset is 0, a
    /// written value reads back).
    pub exact_values: bool,
    /// The reference hooks are exported (`simulate` may be generated).
    pub hooks: bool,
    /// The catalog is the one the library is declared to serve (a file), not one read
    /// back from it: what no get_info says (which sources have ad-hoc timestamps) is
    /// known too.
    pub declared: bool,
    /// MPI_T functions the target does not export (never generated).
    pub unsupported: Vec<String>,
    /// Entries (model indices) no handle is allocated for (`fuzz-props --avoid`): a
    /// crash is never passed over as known, so a library that crashes in
    /// `*_handle_alloc` of some entries is explored past them this way. Private: only
    /// [`Mirror::avoid_handles`] changes it, and resets the cache made from it.
    #[serde(default)]
    no_handles: BTreeSet<(Kind, i32)>,
    /// Where the catalog came from (for evidence and for emitted cases).
    pub source: String,
    /// A conformant reference model of `catalog` as it starts, made on first use: each
    /// sequence's model is a clone of it (see [`Mirror::fresh_model`]). With the
    /// catalog it serves: `catalog` is a public field, and a mirror given another
    /// catalog after first use must not hand out a model of the old one.
    #[serde(skip)]
    fresh: OnceLock<(Arc<Catalog>, Model)>,
    /// The entries the generator may allocate handles for, made on first use (reset
    /// by [`Mirror::avoid_handles`]), with the catalog they were read from (as
    /// `fresh`).
    #[serde(skip)]
    unbound: OnceLock<(Arc<Catalog>, Arc<gen::Unbound>)>,
}

impl Mirror {
    /// A mirror of a catalog the target serves at the same indices (the reference).
    pub fn of_catalog(catalog: Catalog, source: String) -> Mirror {
        // Entries that appear only after MPI_Init (a suffix, validated) are not numbered:
        // sequences do not call MPI_Init, so they do not exist for them.
        let mut origins = Origins::identity(&catalog);
        let early = |a: &[Appears]| a.iter().take_while(|x| **x == Appears::Always).count();
        let c = &catalog;
        origins.cvars.truncate(early(
            &c.cvars.iter().map(|v| v.appears).collect::<Vec<_>>(),
        ));
        origins.pvars.truncate(early(
            &c.pvars.iter().map(|v| v.appears).collect::<Vec<_>>(),
        ));
        origins.categories.truncate(early(
            &c.categories.iter().map(|v| v.appears).collect::<Vec<_>>(),
        ));
        origins.events.truncate(early(
            &c.events.iter().map(|v| v.appears).collect::<Vec<_>>(),
        ));
        origins.sources.truncate(early(
            &c.sources.iter().map(|v| v.appears).collect::<Vec<_>>(),
        ));
        let target_counts = Kind::ALL
            .iter()
            .map(|k| (*k, origins_of(&origins, *k).len() as i32))
            .collect();
        Mirror {
            catalog: Arc::new(catalog),
            origins,
            target_counts,
            exact_values: true,
            hooks: true,
            declared: true,
            unsupported: Vec::new(),
            no_handles: BTreeSet::new(),
            source,
            fresh: OnceLock::new(),
            unbound: OnceLock::new(),
        }
    }

    /// A conformant reference model serving this catalog, MPI_T not initialized (a
    /// clone of one made once: the same as `Model::new(catalog, Faults::none())`).
    pub fn fresh_model(&self) -> Model {
        let (c, model) = self
            .fresh
            .get_or_init(|| (self.catalog.clone(), self.new_model()));
        match Arc::ptr_eq(c, &self.catalog) {
            true => model.clone(),
            false => self.new_model(),
        }
    }

    fn new_model(&self) -> Model {
        Model::new(self.catalog.clone(), Faults::none())
    }

    /// The entries the generator allocates handles for ([`gen::Unbound::of`]), made
    /// once per mirror (and per catalog, as [`Mirror::fresh_model`]).
    pub fn unbound(&self) -> Arc<gen::Unbound> {
        let (c, u) = self
            .unbound
            .get_or_init(|| (self.catalog.clone(), Arc::new(gen::Unbound::of(self))));
        match Arc::ptr_eq(c, &self.catalog) {
            true => u.clone(),
            false => Arc::new(gen::Unbound::of(self)),
        }
    }

    /// Whether no handle is allocated for entry `i` of kind `k` (`--avoid`).
    pub fn avoids(&self, k: Kind, i: i32) -> bool {
        self.no_handles.contains(&(k, i))
    }

    /// `KIND:GLOB` (kind cvar, pvar or event): no handle is allocated for the entries
    /// whose name matches. Returns how many entries that is.
    pub fn avoid_handles(&mut self, spec: &str) -> Result<usize, String> {
        let (kind, pattern) = spec
            .split_once(':')
            .ok_or_else(|| format!("--avoid {spec}: expected KIND:GLOB (e.g. pvar:mtl_psm2_*)"))?;
        let g = glob::Pattern::new(pattern).map_err(|e| format!("--avoid {spec}: {e}"))?;
        let c = &self.catalog;
        let (k, names): (Kind, Vec<&str>) = match kind {
            "cvar" => (
                Kind::Cvar,
                c.cvars.iter().map(|v| v.name.as_str()).collect(),
            ),
            "pvar" => (
                Kind::Pvar,
                c.pvars.iter().map(|v| v.name.as_str()).collect(),
            ),
            "event" => (
                Kind::Event,
                c.events.iter().map(|v| v.name.as_str()).collect(),
            ),
            _ => {
                return Err(format!(
                    "--avoid {spec}: the kind is cvar, pvar or event (the kinds with handles)"
                ))
            }
        };
        let hits: Vec<i32> = (0..self.count(k))
            .filter(|i| names.get(*i as usize).is_some_and(|n| g.matches(n)))
            .collect();
        if hits.is_empty() {
            return Err(format!("--avoid {spec}: no {kind} of the mirror matches"));
        }
        self.no_handles.extend(hits.iter().map(|i| (k, *i)));
        self.unbound = OnceLock::new();
        Ok(hits.len())
    }

    /// Entries of a kind the model serves.
    pub fn count(&self, k: Kind) -> i32 {
        origins_of(&self.origins, k).len() as i32
    }

    /// Entries of a declared catalog that appear only at `MPI_Init` (numbered after
    /// the others, R-CVAR-1); none for a catalog read from a library.
    pub fn late(&self, k: Kind) -> i32 {
        if !self.declared {
            return 0;
        }
        let c = &self.catalog;
        let all = match k {
            Kind::Cvar => c.cvars.len(),
            Kind::Pvar => c.pvars.len(),
            Kind::Category => c.categories.len(),
            Kind::Event => c.events.len(),
            Kind::Source => c.sources.len(),
        };
        all as i32 - self.count(k)
    }

    /// Entries of the target the model does not serve (undecodable ones).
    pub fn holes(&self, k: Kind) -> i32 {
        self.target_counts.get(&k).copied().unwrap_or(0) - self.count(k)
    }

    /// The target's index for the model's index `i`: mapped inside the catalog; past
    /// the end, the same distance past the target's end; negative ones unchanged.
    pub fn target_index(&self, k: Kind, i: i32) -> i32 {
        let o = origins_of(&self.origins, k);
        match usize::try_from(i) {
            Ok(u) if u < o.len() => o[u],
            Ok(_) => i + self.holes(k),
            Err(_) => i,
        }
    }

    /// The model's index for a target index (an entry the model does not serve maps to
    /// a number no model index has: `-1000 - i`).
    pub fn model_index(&self, k: Kind, t: i32) -> i32 {
        match origins_of(&self.origins, k).binary_search(&t) {
            Ok(p) => p as i32,
            Err(_) if t >= self.target_counts.get(&k).copied().unwrap_or(0) => t - self.holes(k),
            Err(_) => -1000 - t,
        }
    }

    /// The name of entry `i` of a kind.
    pub fn name(&self, k: Kind, i: usize) -> Option<&str> {
        let c = &self.catalog;
        Some(match k {
            Kind::Cvar => &c.cvars.get(i)?.name,
            Kind::Pvar => &c.pvars.get(i)?.name,
            Kind::Category => &c.categories.get(i)?.name,
            Kind::Event => &c.events.get(i)?.name,
            Kind::Source => &c.sources.get(i)?.name,
        })
    }

    /// The bind of entry `i` (cvars, pvars, events).
    pub fn bind(&self, k: Kind, i: usize) -> Option<Bind> {
        let c = &self.catalog;
        match k {
            Kind::Cvar => c.cvars.get(i).map(|v| v.bind),
            Kind::Pvar => c.pvars.get(i).map(|v| v.bind),
            Kind::Event => c.events.get(i).map(|v| v.bind),
            _ => None,
        }
    }

    /// Whether the target exports `MPI_T_<f>`.
    pub fn supports(&self, function: &str) -> bool {
        !self.unsupported.iter().any(|u| u == function)
    }
}

/// The handles one engine holds, by the order the sequence made them (see [`Ref`]):
/// raw values, freed ones kept (their stale value is what a later `Made(n)` passes).
#[derive(Debug, Clone, Default)]
pub struct Slots {
    pub cvar_handles: Vec<Made>,
    pub sessions: Vec<Made>,
    pub pvar_handles: Vec<Made>,
    pub registrations: Vec<Made>,
    /// Event instances, in the order callbacks were given them.
    pub instances: Vec<Made>,
    /// Distinct enumtype values in the order first returned.
    pub enums: Vec<u64>,
}

/// One object a sequence made.
#[derive(Debug, Clone, Default)]
pub struct Made {
    pub value: u64,
    /// Catalog index (model numbering) of the variable, for handles.
    pub index: i32,
    /// Elements (`count` of the handle_alloc).
    pub count: i32,
    /// What the last read through this handle returned (for `Data::Readback`).
    pub last_read: Vec<u8>,
}

/// Which table a handle argument refers to: the kinds of the function table's handles
/// (`cases::roles::HandleKind`) a sequence makes and frees, so not info objects and
/// enumtypes ([`HandleKind::made`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HandleKind {
    Cvar,
    Session,
    Pvar,
    Registration,
    Instance,
}

impl HandleKind {
    /// Every kind, in declaration order (`k as usize` is a kind's position).
    pub const ALL: [HandleKind; 5] = [
        HandleKind::Cvar,
        HandleKind::Session,
        HandleKind::Pvar,
        HandleKind::Registration,
        HandleKind::Instance,
    ];

    /// The kind of the handle a parameter or OUT named `name` of `f` holds, as the
    /// table classifies it (`Func::handle_kind`), when it is one the sequence makes:
    /// `None` for the others (`enumtype`, `info`, MPI objects).
    pub fn of(f: Func, name: &str) -> Option<HandleKind> {
        HandleKind::made(f.handle_kind(name)?)
    }

    /// The table's handle kind, when it is one the sequence makes and frees.
    pub fn made(k: TableHandle) -> Option<HandleKind> {
        Some(match k {
            TableHandle::Cvar => HandleKind::Cvar,
            TableHandle::Session => HandleKind::Session,
            TableHandle::Pvar => HandleKind::Pvar,
            TableHandle::Registration => HandleKind::Registration,
            TableHandle::Instance => HandleKind::Instance,
            TableHandle::Info | TableHandle::Enumtype => return None,
        })
    }

    /// The kind's NULL handle as the target sees it (MPI-4.1 §15.3.6 to §15.3.8).
    pub fn null(self, p: &Predefined) -> u64 {
        match self {
            HandleKind::Cvar => p.cvar_handle_null,
            HandleKind::Session => p.pvar_session_null,
            HandleKind::Pvar => p.pvar_handle_null,
            HandleKind::Registration => p.registration_null,
            HandleKind::Instance => p.instance_null,
        }
    }
}

impl Slots {
    pub fn table(&self, k: HandleKind) -> &Vec<Made> {
        match k {
            HandleKind::Cvar => &self.cvar_handles,
            HandleKind::Session => &self.sessions,
            HandleKind::Pvar => &self.pvar_handles,
            HandleKind::Registration => &self.registrations,
            HandleKind::Instance => &self.instances,
        }
    }

    pub fn table_mut(&mut self, k: HandleKind) -> &mut Vec<Made> {
        match k {
            HandleKind::Cvar => &mut self.cvar_handles,
            HandleKind::Session => &mut self.sessions,
            HandleKind::Pvar => &mut self.pvar_handles,
            HandleKind::Registration => &mut self.registrations,
            HandleKind::Instance => &mut self.instances,
        }
    }

    /// The value a handle argument passes. `null` and `all` are the engine's
    /// MPI_T_*_NULL and MPI_T_PVAR_ALL_HANDLES values. A `Made(n)` the sequence has not
    /// made (possible only in a sequence edited by hand) passes a value no call returned.
    pub fn resolve(&self, k: HandleKind, r: Ref, null: u64, all: u64) -> u64 {
        let garbage = |n: u16| 0x5eed_0000 + u64::from(n) * 16;
        match r {
            Ref::Made(n) => self
                .table(k)
                .get(n as usize)
                .map_or(garbage(n), |m| m.value),
            Ref::Null => null,
            Ref::All => all,
            Ref::Foreign(n) => {
                let other = match k {
                    HandleKind::Cvar => HandleKind::Pvar,
                    _ => HandleKind::Cvar,
                };
                self.table(other)
                    .get(n as usize)
                    .map_or(garbage(n), |m| m.value)
            }
        }
    }

    /// The datatype and element count of the variable behind a handle the sequence
    /// made (R-CVAR-8: reads and writes are count × datatype size bytes).
    pub fn layout(&self, k: HandleKind, r: Ref, c: &Catalog) -> Option<(Datatype, usize)> {
        let m = match r {
            Ref::Made(n) => self.table(k).get(n as usize)?,
            _ => return None,
        };
        let dt = match k {
            HandleKind::Cvar => c.cvars.get(m.index as usize)?.datatype,
            _ => c.pvars.get(m.index as usize)?.datatype,
        };
        Some((dt, m.count.clamp(0, 1 << 16) as usize))
    }

    /// The bytes a `*_write` through `r` passes: `data` in the variable's layout (8
    /// zero bytes for a handle the sequence did not make).
    pub fn write_bytes(&self, k: HandleKind, r: Ref, data: op::Data, c: &Catalog) -> Vec<u8> {
        let last = match r {
            Ref::Made(n) => self
                .table(k)
                .get(n as usize)
                .map(|m| m.last_read.clone())
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        match self.layout(k, r, c) {
            Some((dt, count)) => encode(data, dt, count, &last),
            None => vec![0; 8],
        }
    }

    /// The [`Made`] a `Made(n)` names, if the sequence made it.
    pub fn made(&mut self, k: HandleKind, r: Ref) -> Option<&mut Made> {
        match r {
            Ref::Made(n) => self.table_mut(k).get_mut(n as usize),
            _ => None,
        }
    }

    /// The enumtype output: `None` for MPI_T_ENUM_NULL, else the position of the value
    /// among the distinct ones returned so far (R-CVAR-2: the same enum every call).
    pub fn enum_out(&mut self, raw: u64, null: u64) -> Out {
        if raw == null {
            return Out::Enum(None);
        }
        let p = match self.enums.iter().position(|e| *e == raw) {
            Some(p) => p,
            None => {
                self.enums.push(raw);
                self.enums.len() - 1
            }
        };
        Out::Enum(Some(p as u16))
    }
}

impl Mirror {
    /// The mirror of a catalog read from the target (`mpit-conform catalog`).
    pub fn from_dump(d: CatalogDump) -> Mirror {
        let c = &d.counts;
        let target_counts = [
            (Kind::Cvar, c.cvars),
            (Kind::Pvar, c.pvars),
            (Kind::Category, c.categories),
            (Kind::Event, c.events),
            (Kind::Source, c.sources),
        ]
        .into_iter()
        .map(|(k, n)| (k, n.unwrap_or(0)))
        .collect();
        // The reference's values change only on its simulate hook: every value is
        // determined by the calls.
        let reference = d.library_version.starts_with("mpit-reference ");
        Mirror {
            source: format!(
                "read from the library ({})",
                d.library_version.lines().next().unwrap_or("")
            ),
            catalog: Arc::new(d.catalog),
            origins: d.origins,
            target_counts,
            exact_values: reference,
            hooks: reference,
            declared: false,
            unsupported: d.unsupported,
            no_handles: BTreeSet::new(),
            fresh: OnceLock::new(),
            unbound: OnceLock::new(),
        }
    }
}

/// Bytes for a write: `count` elements of `dt`.
fn encode(data: op::Data, dt: Datatype, count: usize, last: &[u8]) -> Vec<u8> {
    match data {
        op::Data::Readback if last.len() == count * dt.size() => last.to_vec(),
        op::Data::Readback => vec![0; count * dt.size()],
        op::Data::Int(n) => match dt {
            Datatype::Double => Value::Doubles(vec![n as f64; count]).to_bytes(dt, count),
            Datatype::Char => Value::Chars(n.to_string()).to_bytes(dt, count),
            _ => Value::Ints(vec![n as i128; count]).to_bytes(dt, count),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpit_vocab::spec::ThreadLevel;

    /// The caches made on first use follow the catalog: a mirror given another catalog
    /// afterwards (`catalog` is a public field) makes models and allocatable entries of
    /// the new one.
    #[test]
    fn caches_follow_a_catalog_replaced_after_first_use() {
        let mut m = Mirror::of_catalog(Catalog::default_catalog(), "default".into());
        let mut model = m.fresh_model();
        let _ = model.init_thread(ThreadLevel::Single);
        let before = model.cvar_get_num().expect("initialized");
        let unbound = m.unbound();
        let mut c = (*m.catalog).clone();
        c.cvars.truncate(1);
        m.catalog = Arc::new(c);
        let mut model = m.fresh_model();
        let _ = model.init_thread(ThreadLevel::Single);
        assert!(before > 1);
        assert_eq!(model.cvar_get_num(), Ok(1));
        assert!(unbound.cvars.len() > 1, "{unbound:?}");
        assert!(m.unbound().cvars.len() <= 1, "{:?}", m.unbound());
        // Unchanged, the cache is what is handed out.
        let m = Mirror::of_catalog(Catalog::default_catalog(), "default".into());
        assert!(Arc::ptr_eq(&m.unbound(), &m.unbound()));
    }
}
