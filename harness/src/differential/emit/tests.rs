//! The cases written for divergences at every step of generated sequences (in every
//! mode, with each kind of divergence the comparator reports): each step names its
//! function, arguments, saved and expected OUT values as the function table lists
//! them, and the case loads.

use super::steps::{Subject, Writer};
use super::{case_yaml, written_case};
use crate::differential::compare::Divergence;
use crate::differential::gen::{self, make, Sampler};
use crate::differential::obs::{Obs, Out};
use crate::differential::op::tests::every_call;
use crate::differential::op::{Call, Kind, Mode, Ref, Sees, Str};
use crate::differential::props::{completed, Found};
use crate::differential::HandleKind;
use crate::differential::Mirror;
use mpit_spec::cases::funcs::Func;
use mpit_spec::cases::parse_file;
use mpit_spec::cases::written::Value;
use mpit_spec::verdict::Level;
use mpit_vocab::catalog::Catalog;
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::Members;
use mpit_vocab::spec::TErr;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

fn mirror() -> Arc<Mirror> {
    let mut m = Mirror::of_catalog(Catalog::default_catalog(), "the default catalog".into());
    // As for the reference cdylib with its catalog declared: every op is generated
    // (`Simulate`, `RaiseEvent` need the hooks, `MpiInit` a declared catalog).
    m.hooks = true;
    m.declared = true;
    Arc::new(m)
}

/// A divergence at `step` of `run`, of the `n`-th kind the comparator reports for
/// that call (a relation with an earlier read or update number, the other reading of
/// a flag, calls passed over, another entry's index, the string convention).
fn divergence(run: &[Call], step: usize, n: usize) -> Divergence {
    let op = &run[step];
    let read_before = |h: Ref| {
        run[..step]
            .iter()
            .any(|o| o.sees == Sees::Read(HandleKind::Pvar, h))
    };
    let (rule, relation) = match op.sees {
        Sees::Read(HandleKind::Pvar, handle) => match n % 4 {
            0 => ("R-PRESET-1", None),
            1 => ("R-PCLASS", Some("nonneg")),
            2 => ("R-PCLASS", Some("fraction")),
            _ if read_before(handle) => ("R-PCLASS", Some(["ge", "le", "eq"][n % 3])),
            _ => ("R-PSTART-1", None),
        },
        Sees::Update => ("R-CAT", [None, Some("ge"), Some("gt")][n % 3]),
        Sees::Info(_) | Sees::NameOnly => (["R-STR-2", "R-PVAR-2", "R-CVAR-2"][n % 3], None),
        _ => ("R-RC-1", None),
    };
    Divergence {
        step,
        call: op.to_string(),
        function: op.function().to_string(),
        rule: rule.into(),
        level: [Level::Must, Level::Should, Level::Robustness][n % 3],
        what: format!("divergence {n}: \"quoted\" #not a comment"),
        expected: "MPI_SUCCESS".into(),
        actual: "MPI_T_ERR_INVALID".into(),
        other_entry: n % 4 == 1 && op.is_get_info(),
        two_readings: false,
        convention: n % 5 == 2 && op.is_get_info(),
        passed_over: match step {
            0 => Vec::new(),
            s => vec![(n % s, "R-RC-1".into(), ReturnCode::T(TErr::Invalid))],
        },
        relation: relation.map(str::to_string),
        reading: (n % 2 == 1 && op.is_get_info()).then(|| "pvar_flags.nonzero_is_true".to_string()),
    }
}

fn founds(m: &Arc<Mirror>, per_mode: usize) -> Vec<Found> {
    founds_seeded(m, per_mode, 0)
}

/// As [`founds`], from another seed of the byte generator (`seed` 0 is `founds`).
fn founds_seeded(m: &Arc<Mirror>, per_mode: usize, seed: u64) -> Vec<Found> {
    let mut sampler = Sampler::new(seed);
    let mut out = Vec::new();
    for (robustness, lifecycle) in [(false, false), (true, false), (false, true), (true, true)] {
        let mode = Mode {
            robustness,
            lifecycle,
        };
        for _ in 0..per_mode {
            let (start, ops) = sampler.sequence(m, mode, 24);
            let run = completed(&start, &ops);
            for step in 0..run.len() {
                out.push(Found {
                    ops: ops.clone(),
                    divergence: divergence(&run, step, out.len()),
                    run: run.clone(),
                    mode,
                });
            }
        }
    }
    out
}

/// The cases written for `all` that do not load: the loader's message (without its
/// location and the names in it, so one kind of failure is one key), with how many
/// and the first such case's text.
fn not_loading(m: &Arc<Mirror>, all: &[Found]) -> BTreeMap<String, (usize, String)> {
    let mut bad: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for found in all {
        let text = case_yaml(found, m, "libtest.so", 1);
        if let Err(e) = parse_file(&text, "t.yaml") {
            let msg = e.to_string();
            let msg = msg.rsplit(": ").next().unwrap_or(&msg);
            // `$c3` as `$c_`: the kind of name, not which.
            let key: String = msg
                .split('`')
                .enumerate()
                .map(
                    |(i, p)| match p.trim_end_matches(|c: char| c.is_ascii_digit()) {
                        name if i % 2 == 1 && name != p => format!("`{name}_`"),
                        _ if i % 2 == 1 => format!("`{p}`"),
                        _ => p.to_string(),
                    },
                )
                .collect();
            bad.entry(key).or_insert((0, text)).0 += 1;
        }
    }
    bad
}

/// Fails naming each kind of case that does not load, with one such case's text.
fn assert_all_load(bad: &BTreeMap<String, (usize, String)>, written: usize) {
    for (k, (n, t)) in bad {
        eprintln!("=== {n} cases: {k}\n{t}");
    }
    let listed: Vec<_> = bad.iter().map(|(k, (n, _))| format!("{n} x {k}")).collect();
    assert!(
        bad.is_empty(),
        "of {written} written cases, these do not load: {listed:?}"
    );
}

#[test]
fn every_step_names_what_the_function_table_lists_and_the_case_loads() {
    let m = mirror();
    let mut called = BTreeSet::new();
    // 64 per mode: event_read is drawn in robustness mode only, rarely (40 missed it
    // once MPI_Finalize and MPI_Session_init joined the lifecycle draws).
    let all = founds(&m, 64);
    for found in &all {
        let (case, _) = written_case(found, &m);
        for s in &case.steps {
            assert!(s.vocabulary().is_empty(), "{:?}: {s:?}", s.vocabulary());
            called.extend(s.call);
        }
        let op = &found.run[found.divergence.step];
        assert!(case.steps.iter().any(|s| s.call == Some(op.func)));
    }
    // Every case loads: robustness sequences' handles no step saved (R-GEN-3) and
    // values past `i64` included.
    assert_all_load(&not_loading(&m, &all), all.len());
    // Every function an op calls was written (and `deliveries`, `*_get_index` lookups).
    let generated: BTreeSet<Func> = all
        .iter()
        .flat_map(|f| f.run.iter().map(|c| c.func))
        .collect();
    let missing: Vec<_> = generated.difference(&called).collect();
    assert!(missing.is_empty(), "{missing:?}");
    // Every function of specs/generator.yaml is generated, and nothing else.
    let ops: BTreeSet<Func> = gen::listed().collect();
    let never: Vec<_> = ops.difference(&generated).collect();
    assert!(never.is_empty(), "never generated: {never:?}");
    let unlisted: Vec<_> = generated.difference(&ops).collect();
    assert!(
        unlisted.is_empty(),
        "not in specs/generator.yaml: {unlisted:?}"
    );
    assert!(called.contains(&Func::Deliveries), "{called:?}");
}

/// A writer at a step where MPI_T is initialized, before MPI_Init, nothing saved.
fn writer(m: &Mirror, subject: Subject) -> Writer<'_> {
    Writer {
        m,
        subject,
        made: [0; 4],
        raises: Vec::new(),
        updates: 0,
        init: true,
        mpi: false,
        looked_up: Vec::new(),
        lookups: Vec::new(),
        saved: Default::default(),
    }
}

/// Each op with a successful observation that has every OUT the steps save: the
/// written step names only what the function table lists for the op's function.
#[test]
fn every_op_is_written_as_its_table_entry() {
    let m = mirror();
    let ok = Obs::rc(ReturnCode::Success)
        .with("count", Out::Int(1))
        .with("enumtype", Out::Enum(Some(0)));
    for op in every_call() {
        let mut w = writer(&m, Subject::None);
        let s = w.call(&op, &ok);
        assert_eq!(s.call, Some(op.func), "{op:?}");
        for s in w.lookups.iter().chain([&s]) {
            assert!(s.vocabulary().is_empty(), "{op:?}: {:?}", s.vocabulary());
        }
    }
}

/// The sweep: for seeds 1..=N of the byte generator (`MPIT_SWEEP_SEEDS`, default 2),
/// the cases written for divergences at every step of 160 generated sequences per
/// seed all load. `-- --nocapture` prints the counts.
#[test]
fn written_cases_load_for_other_seeds() {
    let m = mirror();
    let seeds: u64 = std::env::var("MPIT_SWEEP_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let mut bad: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut written = 0;
    for seed in 1..=seeds {
        let all = founds_seeded(&m, 40, seed);
        written += all.len();
        for (k, (n, t)) in not_loading(&m, &all) {
            bad.entry(k).or_insert((0, t)).0 += n;
        }
    }
    let failing: usize = bad.values().map(|(n, _)| n).sum();
    eprintln!(
        "seeds 1..={seeds}: {written} cases written, {} load, {failing} do not",
        written - failing
    );
    assert_all_load(&bad, written);
}

/// A category subject's `$num_cvars` is its member count (specs/README.md,
/// "Variables"), not the catalog's: an index past the end is then written as the
/// number past the target's end, and under any other subject as `$num_cvars + k`.
#[test]
fn an_index_past_the_end_under_a_category_subject_is_a_number() {
    let m = mirror();
    let n = m.count(Kind::Cvar);
    let op = make::cvar_handle_alloc(n + 2);
    let ok = Obs::rc(ReturnCode::Success);
    let index_of = |subject| {
        let mut w = writer(&m, subject);
        let s = w.call(&op, &ok);
        s.args
            .0
            .into_iter()
            .find(|(k, _)| k == "index")
            .map(|(_, v)| v)
    };
    assert_eq!(
        index_of(Subject::Entry(Kind::Cvar, 0)),
        Some(Value::Text("$num_cvars + 2".into()))
    );
    assert_eq!(
        index_of(Subject::Entry(Kind::Category, 0)),
        Some(Value::Int(i64::from(m.target_index(Kind::Cvar, n + 2))))
    );
}

/// A case cites the rules of the checks it adds after the diverging call: a declared
/// category's pvar members looked up by name and class (R-PVAR-4, beside the members'
/// R-CAT-1), and for an index that named another entry, its lookup and the unique
/// names (R-STR-6). Without them the result cites a rule its failing check is not
/// about (pvar-get-index-ignores-class failed at pvar_get_index, citing R-CAT-1 only).
#[test]
fn a_case_cites_the_rules_of_the_checks_it_adds() {
    let m = mirror();
    let rules = |op: Call, rule: &str, other_entry: bool| {
        let mut d = divergence(std::slice::from_ref(&op), 0, 0);
        d.rule = rule.into();
        d.other_entry = other_entry;
        let found = Found {
            divergence: d,
            run: vec![op.clone()],
            ops: vec![op],
            mode: Mode {
                robustness: false,
                lifecycle: false,
            },
        };
        written_case(&found, &m).0.rules
    };
    let members = make::category_members(1, Members::Pvars, 3);
    assert_eq!(rules(members, "R-CAT-1", false), ["R-CAT-1", "R-PVAR-4"]);
    let info = make::get_info(Kind::Cvar, 1, Str::sized(2), Str::sized(64));
    assert_eq!(
        rules(info.clone(), "R-STR-2", true),
        ["R-STR-2", "R-CVAR-5", "R-STR-6"]
    );
    assert_eq!(rules(info, "R-STR-2", false), ["R-STR-2"]);
}
