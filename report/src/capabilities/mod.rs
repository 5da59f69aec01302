//! Capability states: whether a library has the MPI-4.0 additions to MPI_T
//! at all, has them but nothing in them, or has them and they live. A conformance
//! status cannot say this: a library without events gets `skip` on the events cases
//! whether it does not export `MPI_T_event_get_num`, exports it with no events, or has
//! events that fire. The states are kept apart from pass/fail on purpose: having no
//! events breaks no MUST (MPI-4.1 §15.3.8 allows zero event types and zero sources).
//!
//! Where the states come from: a probe in a worker process of its own (`runner/capability_probe.rs`,
//! driven by `runner::capabilities`) makes the calls and sends back what it saw,
//! phase by phase ([`Step`]); [`derive`] turns that into [`Capabilities`], the
//! `capabilities` object of report.json (reports/README.md "Capabilities"). Nothing is
//! known per library in advance: every state comes from the symbol table of the
//! loaded library and from calls made in the run, kept as evidence.

use crate::verdict::Evidence;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The 20 MPI_T functions MPI-4.0 added to the chapter (MPI-4.1 §15.3.8, §15.3.9):
/// sources×3, event types×3, registration×8, instance×4, category_get_num_events,
/// category_get_events. `MPI_T_cvar/pvar/category_get_index` are MPI-3.1's.
pub const MPI4_FUNCTIONS: [&str; 20] = [
    "MPI_T_source_get_num",
    "MPI_T_source_get_info",
    "MPI_T_source_get_timestamp",
    "MPI_T_event_get_num",
    "MPI_T_event_get_info",
    "MPI_T_event_get_index",
    "MPI_T_event_handle_alloc",
    "MPI_T_event_handle_set_info",
    "MPI_T_event_handle_get_info",
    "MPI_T_event_register_callback",
    "MPI_T_event_callback_set_info",
    "MPI_T_event_callback_get_info",
    "MPI_T_event_handle_free",
    "MPI_T_event_set_dropped_handler",
    "MPI_T_event_read",
    "MPI_T_event_copy",
    "MPI_T_event_get_timestamp",
    "MPI_T_event_get_source",
    "MPI_T_category_get_num_events",
    "MPI_T_category_get_events",
];

/// The MPI-4.0 functions a tool uses for events (§15.3.8.2-6 and the two category
/// queries of §15.3.9): every one of [`MPI4_FUNCTIONS`] but the sources'.
pub fn event_functions() -> impl Iterator<Item = &'static str> {
    MPI4_FUNCTIONS
        .iter()
        .copied()
        .filter(|f| !f.starts_with("MPI_T_source_"))
}

/// The source functions (§15.3.8.1).
pub fn source_functions() -> impl Iterator<Item = &'static str> {
    MPI4_FUNCTIONS
        .iter()
        .copied()
        .filter(|f| f.starts_with("MPI_T_source_"))
}

/// A capability's state. Each capability uses some of them (reports/README.md):
/// events `absent | empty | present | firing | unknown`, sources `absent | empty |
/// present | ticking | unknown`, MPI-4.0 functions `absent | partial | present`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// The function that counts them (`MPI_T_event_get_num`, `MPI_T_source_get_num`) is
    /// not exported; for the MPI-4.0 functions: none of the 20 is exported.
    Absent,
    /// Some but not all of the 20 MPI-4.0 functions are exported.
    Partial,
    /// Exported, and the count is 0.
    Empty,
    /// At least one, and none was seen alive (events: no callback delivered during the
    /// probe; sources: no timestamp advanced); MPI-4.0 functions: all 20 exported.
    Present,
    /// Events: at least one callback was delivered during the probe.
    Firing,
    /// Sources: `MPI_T_source_get_timestamp` of some source advanced between two calls.
    Ticking,
    /// Could not be told: the count call returned an error, or the probe's worker died,
    /// hung or was not run before it got there (the evidence says which).
    Unknown,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Absent => "absent",
            State::Partial => "partial",
            State::Empty => "empty",
            State::Present => "present",
            State::Firing => "firing",
            State::Ticking => "ticking",
            State::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One capability of one library, as report.json has it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capability {
    pub state: State,
    /// The capability's functions the library exports, and those it does not.
    pub exported: Vec<String>,
    pub missing: Vec<String>,
    /// Events, sources: what `*_get_num` returned (absent when not called or failed);
    /// MPI-4.0 functions: how many of the 20 are exported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i64>,
    /// One line: why this state.
    pub message: String,
    /// The calls the probe made for it and what came back (`results[].evidence`'s form).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
}

/// `capabilities` in report.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capabilities {
    pub events: Capability,
    pub sources: Capability,
    pub mpi4_functions: Capability,
}

impl Capabilities {
    /// (name, capability) in the order reports show them.
    pub fn rows(&self) -> [(&'static str, &Capability); 3] {
        [
            ("events", &self.events),
            ("sources", &self.sources),
            ("mpi4_functions", &self.mpi4_functions),
        ]
    }
}

/// What `MPI_T_event_get_num` / `MPI_T_source_get_num` returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Num {
    /// The return code by spec name.
    pub rc: String,
    pub ok: bool,
    pub value: i64,
}

/// What the probe saw of events or of sources.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Seen {
    /// `None`: the count function is not exported, so it was not called.
    pub num: Option<Num>,
    /// The first sign of life, described (events: the callback delivered, for which
    /// event and what raised it; sources: the timestamps that advanced); `None`: none.
    pub alive: Option<String>,
    pub calls: Vec<Evidence>,
}

/// One phase of the probe, sent as soon as it is over, so that a probe that dies
/// later keeps what it already saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Step {
    /// Each of [`MPI4_FUNCTIONS`] and whether the library exports it (dlsym).
    Exports(BTreeMap<String, bool>),
    Sources(Seen),
    Events(Seen),
}

/// How the probe's worker ended early: a crash, a hang, or no worker at all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Died {
    pub message: String,
    pub evidence: Vec<Evidence>,
}

/// Everything the probe brought back.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    pub exports: Option<BTreeMap<String, bool>>,
    pub sources: Option<Seen>,
    pub events: Option<Seen>,
    pub died: Option<Died>,
}

impl Observed {
    pub fn add(&mut self, step: Step) {
        match step {
            Step::Exports(e) => self.exports = Some(e),
            Step::Sources(s) => self.sources = Some(s),
            Step::Events(s) => self.events = Some(s),
        }
    }
}

/// The states, from what the probe saw (reports/README.md "Capabilities").
pub fn derive(o: &Observed) -> Capabilities {
    Capabilities {
        events: counted(
            o,
            "events",
            "MPI_T_event_get_num",
            &event_functions().collect::<Vec<_>>(),
            o.events.as_ref(),
            State::Firing,
        ),
        sources: counted(
            o,
            "sources",
            "MPI_T_source_get_num",
            &source_functions().collect::<Vec<_>>(),
            o.sources.as_ref(),
            State::Ticking,
        ),
        mpi4_functions: functions(o),
    }
}

/// Which of `names` the library exports, and which it does not (`None`: not known).
fn split(o: &Observed, names: &[&str]) -> Option<(Vec<String>, Vec<String>)> {
    let e = o.exports.as_ref()?;
    let (yes, no): (Vec<&str>, Vec<&str>) = names
        .iter()
        .partition(|n| e.get(**n).copied().unwrap_or(false));
    let own = |v: Vec<&str>| v.into_iter().map(str::to_string).collect();
    Some((own(yes), own(no)))
}

/// Why a phase the probe did not finish is unknown.
fn not_seen(o: &Observed) -> (String, Vec<Evidence>) {
    match &o.died {
        Some(d) => (
            format!("the probe did not get this far: {}", d.message),
            d.evidence.clone(),
        ),
        None => ("not probed".to_string(), Vec::new()),
    }
}

/// Events or sources: absent, empty, present, alive (`live`: firing / ticking), or
/// unknown.
fn counted(
    o: &Observed,
    what: &str,
    num_fn: &str,
    names: &[&str],
    seen: Option<&Seen>,
    live: State,
) -> Capability {
    let (exported, missing) = split(o, names).unwrap_or_default();
    let cap = |state, count, message: String, evidence| Capability {
        state,
        exported: exported.clone(),
        missing: missing.clone(),
        count,
        message,
        evidence,
    };
    // Without the count function a tool cannot learn that any exist (§15.3.8.1-2).
    if missing.iter().any(|m| m == num_fn) {
        let message = match exported.is_empty() {
            true => format!("{num_fn} is not exported (nor any other {what} function)"),
            false => format!(
                "{num_fn} is not exported ({} of the {} {what} functions are)",
                exported.len(),
                names.len()
            ),
        };
        return cap(State::Absent, None, message, Vec::new());
    }
    let Some(seen) = seen else {
        let (message, evidence) = not_seen(o);
        return cap(State::Unknown, None, message, evidence);
    };
    let evidence = seen.calls.clone();
    let Some(num) = &seen.num else {
        // The probe's own dlsym said no, though the export list (same dlsym) said yes:
        // cannot happen; kept apart rather than guessed.
        let m = format!("{num_fn} was not called");
        return cap(State::Unknown, None, m, evidence);
    };
    if !num.ok {
        let m = format!("{num_fn} returned {}", num.rc);
        return cap(State::Unknown, None, m, evidence);
    }
    let n = Some(num.value);
    match (num.value, &seen.alive) {
        (0, _) => cap(
            State::Empty,
            n,
            format!("{num_fn} returned MPI_SUCCESS and 0"),
            evidence,
        ),
        (v, _) if v < 0 => cap(
            State::Unknown,
            n,
            format!("{num_fn} returned MPI_SUCCESS and a negative count, {v}"),
            evidence,
        ),
        (v, Some(how)) => cap(live, n, format!("{v} {what}; {how}"), evidence),
        (v, None) => {
            let none = match live {
                State::Firing => "no callback was delivered during the probe",
                _ => "no timestamp advanced between two reads",
            };
            cap(State::Present, n, format!("{v} {what}; {none}"), evidence)
        }
    }
}

/// The MPI-4.0 functions: absent (none exported), partial, present (all 20).
fn functions(o: &Observed) -> Capability {
    let Some((exported, missing)) = split(o, &MPI4_FUNCTIONS) else {
        let (message, evidence) = not_seen(o);
        return Capability {
            state: State::Unknown,
            exported: Vec::new(),
            missing: Vec::new(),
            count: None,
            message,
            evidence,
        };
    };
    let total = MPI4_FUNCTIONS.len();
    let (state, message) = match (exported.len(), missing.len()) {
        (0, _) => (
            State::Absent,
            format!("none of the {total} MPI-4.0 MPI_T functions is exported"),
        ),
        (_, 0) => (
            State::Present,
            format!("all {total} MPI-4.0 MPI_T functions are exported"),
        ),
        (n, _) => (
            State::Partial,
            format!(
                "{n} of the {total} MPI-4.0 MPI_T functions are exported; missing: {}",
                missing.join(", ")
            ),
        ),
    };
    Capability {
        state,
        count: Some(exported.len() as i64),
        exported,
        missing,
        message,
        evidence: Vec::new(),
    }
}

#[cfg(test)]
mod tests;
