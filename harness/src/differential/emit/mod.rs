//! A failing sequence written out as a YAML case of `specs/` (the format of
//! specs/README.md), so `mpit-conform run --case-file it.yaml --lib PATH` replays it
//! deterministically: the same calls in the same order, the model's return codes as
//! the expectations, and the diverging call's outputs as far as the case language says
//! them. Indices are the target's; the entry of the diverging call is the case's subject
//! (`for_each` + `where: {name}`), so the strings are judged against it and a library
//! without that entry skips the case.
//!
//! The case is built as data (`cases::written`: the case format's fields, each call
//! an entry of the function table) and serialized with serde; only the comment block
//! above it (seed, library, the evidence, the replay command, and the steps that judge
//! nothing) is text. This module builds the case: its header (the rule, the clause,
//! what the case requires, its subject) and its steps in order. The rest is one
//! question a module:
//!
//! - `steps`: each call as a step's `call` (`Call::func`), `args` and `save` (handles saved
//!   and passed by name, one no step saved as the value the target engine passed,
//!   entries other than the subject looked up by name);
//! - `expect`: what a step expects: the codes the comparator accepts there, and the
//!   diverging call's outputs as `out:` predicates.

mod expect;
mod steps;
#[cfg(test)]
mod tests;

use super::compare::clauses;
use super::gen::Gen;
use super::obs::Out;
use super::op::{Call, Kind, Ref, Sees, A};
use super::props::{run_model, Found};
use super::{HandleKind, Mirror};
use expect::{out_expect, rc_expect, rc_name, FlagTrue};
use mpit_spec::cases::funcs::Func;
use mpit_spec::cases::written::{Pairs, WrittenCase, WrittenExpect, WrittenFile, WrittenPred};
use mpit_spec::cases::written::{WrittenRc, WrittenReading, WrittenStep};
use mpit_spec::cases::{Builtin, InitMode, Require, SubjectKind};
use mpit_spec::specs::{self, Source};
use mpit_spec::verdict::{Area, Level};
use steps::{Subject, Writer};

/// The catalog entry an op names by index, if any: its call's `index` argument (a
/// raised event's, the reference's hook, and an info object's are not a subject).
fn entry(op: &Call) -> Option<(Kind, i32)> {
    match op.sees {
        Sees::Raise(_) | Sees::InfoObject => None,
        _ => op.entry(),
    }
}

/// The catalog entry the call at `step` is about: the one it names by index, or the
/// one its handle was allocated for (so a read's subject is the variable read).
fn entry_at(start: &Gen, run: &[Call], step: usize) -> Option<(Kind, i32)> {
    let op = run.get(step)?;
    if let Some(e) = entry(op) {
        return Some(e);
    }
    let mut g = start.clone();
    for o in &run[..step] {
        g.apply(o);
    }
    // Its variable handle or registration (a pvar call's session comes first).
    let (kind, table, r) = op.args.iter().find_map(|(_, a)| match *a {
        A::Handle(HandleKind::Pvar, r) => Some((Kind::Pvar, &g.pvar_handles, r)),
        A::Handle(HandleKind::Cvar, r) => Some((Kind::Cvar, &g.cvar_handles, r)),
        A::Handle(HandleKind::Registration, r) => Some((Kind::Event, &g.registrations, r)),
        _ => None,
    })?;
    match r {
        Ref::Made(n) => table.get(usize::from(n)).map(|l| (kind, l.index)),
        _ => None,
    }
}

/// The YAML text of a case replaying `found` on the library it was found on.
pub fn case_yaml(
    found: &Found,
    mirror: &std::sync::Arc<Mirror>,
    library: &str,
    seed: u64,
) -> String {
    let (case, notes) = written_case(found, mirror);
    let d = &found.divergence;
    // What serde cannot write: the finding's evidence and provenance, for the reader.
    let mut comments = vec![
        format!("Found by `mpit-conform fuzz-props` (seed {seed}) on {library}."),
        format!("{}: {}", d.rule, d.what),
        format!("expected (reference model): {}", d.expected),
        format!("actual (library):           {}", d.actual),
        format!("Replay: mpit-conform run --case-file THIS.yaml --lib {library}"),
    ];
    comments.extend(notes);
    let file = WrittenFile {
        area: Area::Differential,
        cases: vec![case],
    };
    let mut y: String = comments
        .iter()
        .flat_map(|c| c.lines())
        .map(|l| format!("# {l}\n"))
        .collect();
    match yaml_serde::to_string(&file) {
        Ok(text) => y.push_str(&text),
        // Nothing in a written case fails to serialize (no map has non-string keys).
        Err(e) => y.push_str(&format!("# not written: {e}\n")),
    }
    y
}

/// The case's head: its id, title, rules, level, init mode, what it requires, and its
/// subject (`for_each:`, `where:`); no steps yet.
fn case_head(found: &Found, mirror: &Mirror, subject: Subject, item: Option<&str>) -> WrittenCase {
    let d = &found.divergence;
    let func = d.function.trim_start_matches("MPI_T_").to_lowercase();
    let hash = specs::short_hash(&format!("{:?}{}", found.run, d.what));
    // Events raised and simulated activity count per process (the values depend on
    // them), and MPI_Init happens once: a process of its own.
    let fresh = found.run.iter().any(Call::process_wide);
    let mut requires = Vec::new();
    if found.run.iter().any(Call::needs_hooks) {
        requires.push(Require::ReferenceHooks);
    }
    if fresh {
        requires.push(Require::FreshProcess);
    }
    let mut filter = Pairs::default();
    if let Some(name) = item {
        filter.push("name", name.into());
    }
    if let Some((k, i)) = subject.entry() {
        filter.push(
            "name",
            mirror.name(k, i as usize).unwrap_or_default().into(),
        );
        // R-PVAR-4: a pvar is named by its name and class together.
        if let (Kind::Pvar, Some(p)) = (k, mirror.catalog.pvars.get(i as usize)) {
            let class = format!("MPI_T_PVAR_CLASS_{}", p.class.spelling());
            filter.push("var_class", class.into());
        }
    }
    WrittenCase {
        id: format!("differential.{func}.{hash}"),
        title: title(&d.what, &d.rule),
        clause: clause_of(&d.rule),
        rules: vec![d.rule.clone()],
        level: d.level,
        init: if found.mode.lifecycle {
            InitMode::Manual
        } else {
            InitMode::Auto
        },
        requires,
        for_each: match subject {
            Subject::Item => Some(SubjectKind::Item),
            s => s.entry().map(|(k, _)| case_kind(k)),
        },
        filter,
        steps: Vec::new(),
    }
}

/// The case replaying `found`, and notes on steps that judge nothing (for the
/// header: serde writes no comments).
fn written_case(found: &Found, mirror: &std::sync::Arc<Mirror>) -> (WrittenCase, Vec<String>) {
    let d = &found.divergence;
    let start = Gen::new(mirror.clone(), found.mode);
    let model = run_model(&start, &found.run);
    // A string divergence of an enum item: the item is the subject (R-STR-1..4 judged
    // against its name, as strings.yaml's item cases do), the entries the sequence
    // names are looked up by name.
    let item = match (d.convention, found.run.get(d.step)) {
        (true, Some(c)) if c.func.strings_of() == Some(SubjectKind::Item) => {
            let (enumtype, item) = (c.int("enumtype") as u16, c.int("item") as i32);
            item_name(&start, &found.run[..d.step], enumtype, item)
        }
        _ => None,
    };
    let subject = match entry_at(&start, &found.run, d.step)
        .or_else(|| found.run.iter().find_map(entry))
        .filter(|(k, i)| *i >= 0 && *i < mirror.count(*k))
    {
        _ if item.is_some() => Subject::Item,
        // The index names another entry: the mirror's entry may be gone from the
        // library, so the case has no subject and asks get_index instead (below).
        _ if d.other_entry => Subject::None,
        None => Subject::None,
        Some((k, i)) if d.rule == "R-CVAR-1" => Subject::Pinned(k, i),
        Some((k, i)) => Subject::Entry(k, i),
    };
    let mut w = Writer {
        m: mirror,
        subject,
        made: [0; 4],
        raises: Vec::new(),
        updates: 0,
        init: false,
        mpi: false,
        looked_up: Vec::new(),
        lookups: Vec::new(),
        saved: Default::default(),
    };
    let mut case = case_head(found, mirror, subject, item.as_deref());
    let mut notes = Vec::new();
    // The rules of the checks added after the diverging call (below): the case cites
    // each, since its replay may fail at any of them.
    let mut also = Vec::new();
    let steps = &mut case.steps;
    let mut g = start.clone();
    // The enum handles, saved from the get_info that first returned each.
    let mut enums_seen = 0usize;
    for (n, op) in found.run.iter().enumerate().take(d.step + 1) {
        let m = &model.obs[n];
        let level = g.level(op);
        w.init = g.initialized();
        w.mpi = g.mpi;
        let mut s = w.call(op, m);
        for l in &w.lookups {
            w.saved.extend(l.save.keys().map(String::from));
        }
        steps.append(&mut w.lookups);
        if let Some(Out::Enum(Some(e))) = m.out("enumtype") {
            if *e as usize == enums_seen {
                s.save.push(format!("e{e}"), "enumtype");
                enums_seen += 1;
            }
        }
        if n >= d.step {
            s.save = Pairs::default();
        }
        w.saved.extend(s.save.keys().map(String::from));
        s.erroneous = level != Level::Must;
        let raise = matches!(op.sees, Sees::Raise(_));
        let at = format!("step {} ({})", steps.len() + 1, op.func.yaml());
        match (
            d.passed_over.iter().find(|p| p.0 == n),
            rc_expect(&g, op, m),
        ) {
            // A known deviation (`--known`) the search went past: its own case judges
            // it. This one does not judge the call (it never accepts a code the policy
            // calls a deviation) and goes on to its own.
            (Some((_, rule, t)), _) if *t != m.rc => notes.push(format!(
                "{at}: not judged here: the known deviation {rule} ({} at this call), \
                 passed over; its own case judges it",
                rc_name(t)
            )),
            (_, Some(rc)) => s.expect.rc = Some(rc),
            (_, None) => notes.push(format!(
                "{at}: any return code conforms here (the text is silent)"
            )),
        }
        if n == d.step && !raise {
            out_expect(&mut s.expect, op, m, &w, d, &g, FlagTrue::One);
            // The library follows the other reading of a flag (R-PVAR-2): the same
            // expectation with every true flag as "nonzero".
            if let Some(r) = &d.reading {
                let mut other = WrittenExpect {
                    rc: rc_expect(&g, op, m),
                    ..WrittenExpect::default()
                };
                out_expect(&mut other, op, m, &w, d, &g, FlagTrue::Nonzero);
                s.expect.or_reading = Some(Box::new(WrittenReading {
                    reading: r.clone(),
                    expect: other,
                }));
            }
        }
        if level != Level::Must {
            s.expect.level = Some(level);
        }
        debug_assert!(s.vocabulary().is_empty(), "{:?}", s.vocabulary());
        steps.push(s);
        if raise {
            // The callbacks the event ran: drained by the harness's `deliveries` step.
            let mut s = WrittenStep::call(Func::Deliveries);
            if n < d.step {
                let list = format!("i{}", w.raises.len() - 1);
                w.saved.insert(list.clone());
                s.save.push(list, "instances");
            } else {
                out_expect(&mut s.expect, op, m, &w, d, &g, FlagTrue::One);
            }
            steps.push(s);
        }
        g.apply(op);
    }
    let other = found.run.get(d.step).filter(|c| c.is_get_info());
    if let (true, Some((kind, index))) = (d.other_entry, other.and_then(Call::entry)) {
        // R-CVAR-1/R-STR-6: the entry the mirror has at that index is found there by
        // its name (sources have no get_index).
        let at = mirror.target_index(kind, index);
        if let Some(mut s) = w.get_index(kind, index) {
            s.expect.rc = Some(WrittenRc::One("MPI_SUCCESS".into()));
            s.expect
                .out
                .push("index", WrittenPred::Is(i64::from(at).into()));
            also.extend(kind.get_index().and_then(Func::rule));
            steps.push(s);
        }
        // An index whose name is another entry's: the names repeat (R-STR-6).
        also.push(Builtin::NamesUnique.rule());
        steps.push(WrittenStep::check(Builtin::NamesUnique));
    }
    // A category's members on a catalog the library is declared to serve: the case
    // judges only the list's form (its members are the catalog's, which a replay
    // without the declaration does not know), so each member the declaration lists is
    // also looked up by name and must be found at its declared index (R-CAT-1's
    // indices name those entries; R-PVAR-4: a pvar by name and class). A library
    // that lists one entry twice because it numbers two entries alike is seen again.
    if let (true, Some(Sees::Members(k))) = (
        mirror.declared && d.rule == "R-CAT-1",
        found.run.get(d.step).map(|c| c.sees),
    ) {
        if let Some(Out::Ints(members)) = model.obs.get(d.step).and_then(|o| o.out("indices")) {
            for i in members.iter().filter_map(|i| i32::try_from(*i).ok()) {
                let Some(mut s) = w.get_index(k, i) else {
                    continue;
                };
                s.expect.rc = Some(WrittenRc::One("MPI_SUCCESS".into()));
                s.expect.out.push(
                    "index",
                    WrittenPred::Is(i64::from(mirror.target_index(k, i)).into()),
                );
                also.extend(k.get_index().and_then(Func::rule));
                steps.push(s);
            }
        }
    }
    for r in also {
        if !case.rules.iter().any(|x| x == r) {
            case.rules.push(r.to_string());
        }
    }
    (case, notes)
}

/// The name of item `item` of the `enumtype`-th distinct enum the calls before `run`'s
/// end returned (the numbering `A::Enumtype` uses), in the mirror's catalog.
fn item_name(start: &Gen, run: &[Call], enumtype: u16, item: i32) -> Option<String> {
    let mut g = start.clone();
    for op in run {
        g.apply(op);
    }
    let e = g.enums.get(usize::from(enumtype))?;
    let e = g.mirror().catalog.enums.iter().find(|x| &x.name == e)?;
    Some(e.items.get(usize::try_from(item).ok()?)?.name.clone())
}

/// The case language's name of an entry kind (`for_each:`).
fn case_kind(k: Kind) -> SubjectKind {
    match k {
        Kind::Cvar => SubjectKind::Cvar,
        Kind::Pvar => SubjectKind::Pvar,
        Kind::Category => SubjectKind::Category,
        Kind::Event => SubjectKind::Event,
        Kind::Source => SubjectKind::Source,
    }
}

/// The clause of a rule (specs/clauses.yaml, the data the coverage command reads too).
fn clause_of(rule: &str) -> String {
    clauses(&Source::Bundled)
        .remove(rule)
        .unwrap_or_else(|| "MPI-4.1 §15.3".into())
}

/// A case's title: what differs, then its rule, unless the sentence names the rule
/// already (the string convention's sentences are the spec suite's, which end with
/// it: `judge::StrBroke`).
fn title(what: &str, rule: &str) -> String {
    if what.ends_with(&format!("({rule})")) {
        what.to_string()
    } else {
        format!("{what} ({rule})")
    }
}
