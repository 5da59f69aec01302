//! A failing sequence written out as a YAML case of `specs/` (the format of
//! specs/README.md), so `mpit-conform run --case-file it.yaml --lib PATH` replays it
//! deterministically: the same calls in the same order, the model's return codes as
//! the expectations, and the diverging call's outputs as far as the case language says
//! them. Indices are the target's; the entry of the diverging call is the case's subject
//! (`for_each` + `where: {name}`), so the strings are judged against it and a library
//! without that entry skips the case.
//!
//! This module writes the case: its header (the rule, the clause, what the case
//! requires, its subject) and its steps in order. The rest is one question a module:
//!
//! - `steps`: each op as a step's `call`, `args` and `save` (handles saved and passed
//!   by name, entries other than the subject looked up by name);
//! - `expect`: what a step expects: the codes the comparator accepts there, and the
//!   diverging call's outputs as `out:` predicates.

mod expect;
mod steps;

use super::compare::clauses;
use super::gen::Gen;
use super::obs::Out;
use super::op::{Kind, Op, Ref};
use super::props::{run_model, Found};
use super::Mirror;
use crate::specs::Source;
use crate::verdict::Level;
use expect::{out_expect, rc_expect, rc_name, FlagTrue};
use std::fmt::Write;
use steps::Writer;

/// YAML double-quoted scalar.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn level_word(l: Level) -> &'static str {
    match l {
        Level::Must => "must",
        Level::Should => "should",
        Level::Robustness => "robustness",
    }
}

/// The catalog entry an op names, if any.
fn entry(op: &Op) -> Option<(Kind, i32)> {
    match op {
        Op::GetInfo { kind, index, .. } => Some((*kind, *index)),
        Op::CvarHandleAlloc { index } => Some((Kind::Cvar, *index)),
        Op::PvarHandleAlloc { index, .. } => Some((Kind::Pvar, *index)),
        Op::EventHandleAlloc { index } => Some((Kind::Event, *index)),
        Op::CategoryMembers { index, .. } | Op::CategoryGetNumEvents { index } => {
            Some((Kind::Category, *index))
        }
        Op::SourceGetTimestamp { index } => Some((Kind::Source, *index)),
        _ => None,
    }
}

/// The catalog entry the call at `step` is about: the one it names by index, or the
/// one its handle was allocated for (so a read's subject is the variable read).
fn entry_at(start: &Gen, run: &[Op], step: usize) -> Option<(Kind, i32)> {
    let op = run.get(step)?;
    if let Some(e) = entry(op) {
        return Some(e);
    }
    let mut g = start.clone();
    for o in &run[..step] {
        g.apply(o);
    }
    let (kind, table, r) = match op {
        Op::PvarRead { handle, .. }
        | Op::PvarWrite { handle, .. }
        | Op::Pvar { handle, .. }
        | Op::PvarHandleFree { handle, .. } => (Kind::Pvar, &g.pvar_handles, *handle),
        Op::CvarRead { handle } | Op::CvarWrite { handle, .. } | Op::CvarHandleFree { handle } => {
            (Kind::Cvar, &g.cvar_handles, *handle)
        }
        Op::EventHandleFree { registration }
        | Op::EventRegisterCallback { registration, .. }
        | Op::EventSetDroppedHandler { registration, .. } => {
            (Kind::Event, &g.registrations, *registration)
        }
        _ => return None,
    };
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
    let d = &found.divergence;
    let start = Gen::new(mirror.clone(), found.mode);
    let model = run_model(&start, &found.run);
    let subject = entry_at(&start, &found.run, d.step)
        .or_else(|| found.run.iter().find_map(entry))
        .filter(|(k, i)| *i >= 0 && *i < mirror.count(*k))
        // The index names another entry: the mirror's entry may be gone from the
        // library, so the case has no subject and asks get_index instead (below).
        .filter(|_| !d.other_entry);
    let mut w = Writer {
        m: mirror,
        subject,
        out: String::new(),
        made: [0; 4],
        raises: Vec::new(),
        updates: 0,
        for_all: None,
        literal: d.other_entry,
        init: false,
        looked_up: Vec::new(),
        lookups: String::new(),
    };
    let func = d.function.trim_start_matches("MPI_T_").to_lowercase();
    let hash = {
        use sha2::Digest;
        let h = sha2::Sha256::digest(format!("{:?}{}", found.run, d.what).as_bytes());
        h.iter()
            .take(4)
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let mut y = String::new();
    let _ = writeln!(
        y,
        "# Found by `mpit-conform fuzz-props` (seed {seed}) on {library}."
    );
    let _ = writeln!(y, "# {}: {}", d.rule, d.what);
    let _ = writeln!(y, "# expected (reference model): {}", d.expected);
    let _ = writeln!(y, "# actual (library):           {}", d.actual);
    let _ = writeln!(
        y,
        "# Replay: mpit-conform run --case-file THIS.yaml --lib {library}"
    );
    let _ = writeln!(y, "area: differential");
    let _ = writeln!(y, "cases:");
    let _ = writeln!(y, "  - id: differential.{func}.{hash}");
    let _ = writeln!(y, "    title: {}", quoted(&title(&d.what, &d.rule)));
    let _ = writeln!(y, "    clause: {}", quoted(&clause_of(&d.rule)));
    let _ = writeln!(y, "    rules: [{}]", d.rule);
    let _ = writeln!(y, "    level: {}", level_word(d.level));
    if found.mode.lifecycle {
        let _ = writeln!(y, "    init: manual");
    }
    // Events raised and simulated activity count per process (the values depend on
    // them), and MPI_Init happens once: a process of its own.
    let fresh = found
        .run
        .iter()
        .any(|o| matches!(o, Op::RaiseEvent { .. } | Op::MpiInit | Op::Simulate { .. }));
    match (found.run.iter().any(Op::needs_hooks), fresh) {
        (true, true) => {
            let _ = writeln!(y, "    requires: [reference_hooks, fresh_process]");
        }
        (true, false) => {
            let _ = writeln!(y, "    requires: [reference_hooks]");
        }
        (false, true) => {
            let _ = writeln!(y, "    requires: [fresh_process]");
        }
        (false, false) => {}
    }
    if let Some((k, i)) = subject {
        let _ = writeln!(y, "    for_each: {}", k.word());
        let name = mirror.name(k, i as usize).unwrap_or_default();
        // R-PVAR-4: a pvar is named by its name and class together.
        let class = match k {
            Kind::Pvar => mirror
                .catalog
                .pvars
                .get(i as usize)
                .map(|p| format!(", var_class: MPI_T_PVAR_CLASS_{}", p.class.spelling()))
                .unwrap_or_default(),
            _ => String::new(),
        };
        let _ = writeln!(y, "    where: {{name: {}{class}}}", quoted(name));
    }
    let _ = writeln!(y, "    steps:");
    let mut g = start.clone();
    // The enum handles, saved from the get_info that first returned each.
    let mut enums_seen = 0usize;
    for (n, op) in found.run.iter().enumerate().take(d.step + 1) {
        let m = &model.obs[n];
        let level = g.level(op);
        w.init = g.initialized();
        let (call, args, mut save) = w.call(op, m);
        y.push_str(&std::mem::take(&mut w.lookups));
        if let Some(Out::Enum(Some(e))) = m.out("enumtype") {
            if *e as usize == enums_seen {
                save.push((format!("e{e}"), "enumtype".into()));
                enums_seen += 1;
            }
        }
        let raise = matches!(op, Op::RaiseEvent { .. });
        let _ = writeln!(y, "      - call: {call}");
        if let Some(f) = w.for_all.take() {
            let _ = writeln!(y, "        for_all: {f}");
        }
        if !args.is_empty() {
            let a: Vec<String> = args.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            let _ = writeln!(y, "        args: {{{}}}", a.join(", "));
        }
        if !save.is_empty() && n < d.step {
            let s: Vec<String> = save.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            let _ = writeln!(y, "        save: {{{}}}", s.join(", "));
        }
        if level != Level::Must {
            let _ = writeln!(y, "        erroneous: true");
        }
        let _ = writeln!(y, "        expect:");
        match (
            d.passed_over.iter().find(|p| p.0 == n),
            rc_expect(&g, op, m),
        ) {
            // A known deviation (`--known`) the search went past: its own case judges
            // it. This one does not judge the call (it never accepts a code the policy
            // calls a deviation) and goes on to its own.
            (Some((_, rule, t)), _) if *t != m.rc => {
                let _ = writeln!(
                    y,
                    "          # not judged here: the known deviation {rule} ({} at this \
                     call), passed over; its own case judges it",
                    rc_name(t)
                );
            }
            (_, Some(rc)) => {
                let _ = writeln!(y, "          rc: {rc}");
            }
            (_, None) => {
                let _ = writeln!(
                    y,
                    "          # any return code conforms here (the text is silent)"
                );
            }
        }
        if n == d.step && !raise {
            for l in out_expect(op, m, &w, d, &g, FlagTrue::One) {
                let _ = writeln!(y, "          {l}");
            }
            // The library follows the other reading of a flag (R-PVAR-2): the same
            // expectation with every true flag as "nonzero".
            if let Some(r) = &d.reading {
                let _ = writeln!(y, "          or_reading:");
                let _ = writeln!(y, "            reading: {r}");
                let _ = writeln!(y, "            expect:");
                if let Some(rc) = rc_expect(&g, op, m) {
                    let _ = writeln!(y, "              rc: {rc}");
                }
                for l in out_expect(op, m, &w, d, &g, FlagTrue::Nonzero) {
                    let _ = writeln!(y, "              {l}");
                }
            }
        }
        if level != Level::Must {
            let _ = writeln!(y, "          level: {}", level_word(level));
        }
        if raise {
            // The callbacks the event ran: drained by the harness's `deliveries` step.
            let _ = writeln!(y, "      - call: deliveries");
            if n < d.step {
                let _ = writeln!(y, "        save: {{i{}: instances}}", w.raises.len() - 1);
            } else {
                let _ = writeln!(y, "        expect:");
                for l in out_expect(op, m, &w, d, &g, FlagTrue::One) {
                    let _ = writeln!(y, "          {l}");
                }
            }
        }
        g.apply(op);
    }
    if let (true, Some(Op::GetInfo { kind, index, .. })) = (d.other_entry, found.run.get(d.step)) {
        // R-CVAR-1/R-STR-6: the entry the mirror has at that index is found there by
        // its name (sources have no get_index).
        let at = mirror.target_index(*kind, *index);
        if let Some(call) = w.get_index(*kind, *index) {
            let _ = writeln!(y, "      - call: {call}");
            let _ = writeln!(y, "        expect:");
            let _ = writeln!(y, "          rc: MPI_SUCCESS");
            let _ = writeln!(y, "          out: {{index: {at}}}");
        }
        // An index whose name is another entry's: the names repeat (R-STR-6).
        let _ = writeln!(y, "      - check: names_unique");
    }
    w.out.push_str(&y);
    w.out
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
