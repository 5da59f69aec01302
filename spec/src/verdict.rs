//! The vocabulary of a verdict, shared by the cases, the runner and the reports:
//! status, level, area and oracle (docs/ARCHITECTURE.md, "Verdicts"; the report
//! contract is reports/README.md).
//! Serialized in snake_case: these strings are part of `report.json`.

use serde::{Deserialize, Serialize};

/// What happened to one (case, subject).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pass,
    /// A MUST broken (or a SHOULD / robustness expectation under `--strict`).
    Fail,
    /// A SHOULD or robustness expectation not met, or the other reading of a sentence.
    Warn,
    /// Not applicable: older MPI version, nothing in the catalog to test, a requirement
    /// the target does not meet.
    Skip,
    /// A symbol the case needs is not exported.
    Unsupported,
    /// The worker died by a signal during the case.
    Crash,
    /// The worker was silent past the deadline.
    Timeout,
    /// The harness itself could not run the case.
    Error,
}

impl Status {
    pub const ALL: [Status; 8] = [
        Status::Pass,
        Status::Fail,
        Status::Warn,
        Status::Skip,
        Status::Unsupported,
        Status::Crash,
        Status::Timeout,
        Status::Error,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Warn => "warn",
            Status::Skip => "skip",
            Status::Unsupported => "unsupported",
            Status::Crash => "crash",
            Status::Timeout => "timeout",
            Status::Error => "error",
        }
    }

    /// Whether this status makes the run exit 1 unless waived.
    pub fn is_bad(self) -> bool {
        matches!(self, Status::Fail | Status::Crash | Status::Timeout)
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How strongly the standard asks for what a case checks (docs/ARCHITECTURE.md,
/// "Verdicts").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// A MUST: a broken expectation is `fail`.
    Must,
    /// A SHOULD: `warn`, `fail` under `--strict`.
    Should,
    /// Behaviour on invalid arguments, which §15.3.10 lets an implementation leave
    /// unchecked: `warn`, `fail` under `--strict`. A crash on valid input is still `fail`.
    Robustness,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "must",
            Level::Should => "should",
            Level::Robustness => "robustness",
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The area of the chapter a case belongs to (a closed list, stable in reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Area {
    Strings,
    Lifecycle,
    Indices,
    Errors,
    AllHandles,
    Cvars,
    Pvars,
    Categories,
    EnumsDatatypes,
    Events,
    Consistency,
    Differential,
}

impl Area {
    pub const ALL: [Area; 12] = [
        Area::Strings,
        Area::Lifecycle,
        Area::Indices,
        Area::Errors,
        Area::AllHandles,
        Area::Cvars,
        Area::Pvars,
        Area::Categories,
        Area::EnumsDatatypes,
        Area::Events,
        Area::Consistency,
        Area::Differential,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Area::Strings => "strings",
            Area::Lifecycle => "lifecycle",
            Area::Indices => "indices",
            Area::Errors => "errors",
            Area::AllHandles => "all_handles",
            Area::Cvars => "cvars",
            Area::Pvars => "pvars",
            Area::Categories => "categories",
            Area::EnumsDatatypes => "enums_datatypes",
            Area::Events => "events",
            Area::Consistency => "consistency",
            Area::Differential => "differential",
        }
    }
}

impl std::fmt::Display for Area {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Area {
    type Err = String;
    fn from_str(s: &str) -> Result<Area, String> {
        Area::ALL
            .into_iter()
            .find(|a| a.as_str() == s)
            .ok_or_else(|| format!("unknown area `{s}`"))
    }
}

/// Which oracle spoke (docs/ARCHITECTURE.md, "Oracles").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Oracle {
    /// An assertion written in the case.
    Spec,
    /// The reference model, loaded with the target's catalog.
    Differential,
    /// A check over every call of the run (e.g. return codes allowed per function).
    RunWide,
}

/// A JSON value held as its compact text. Evidence is most of a large run's results, and
/// a `serde_json::Value` object costs a B-tree node of several hundred bytes even for two
/// keys: as text, the supervisor holds a report of tens of thousands of results in a few
/// megabytes. It reads and writes exactly as the `Value` it stands for (so report.json is
/// unchanged, pretty-printed like any other value).
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Json(Option<Box<str>>);

impl Json {
    /// JSON `null` (the default: skipped in reports).
    pub fn is_null(&self) -> bool {
        self.0.is_none()
    }

    /// The value (parsed from the text).
    pub fn value(&self) -> serde_json::Value {
        self.0
            .as_deref()
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or(serde_json::Value::Null)
    }

    /// The compact text (`""` for null).
    pub fn compact(&self) -> &str {
        self.0.as_deref().unwrap_or("")
    }
}

impl From<serde_json::Value> for Json {
    fn from(v: serde_json::Value) -> Json {
        if v.is_null() {
            Json(None)
        } else {
            Json(serde_json::to_string(&v).ok().map(String::into_boxed_str))
        }
    }
}

impl std::fmt::Debug for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.as_deref().unwrap_or("null"))
    }
}

thread_local! {
    /// Inside [`Json::verbatim`] on this thread.
    static VERBATIM: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl Json {
    /// The compact text of `v`, whose maps must list their keys in order, as a
    /// `serde_json::Value` does (a map or struct in another order reads back as the same
    /// value, but compares unequal as text).
    pub fn of<T: Serialize + ?Sized>(v: &T) -> Json {
        match serde_json::to_string(v) {
            Ok(t) if t != "null" => Json(Some(t.into_boxed_str())),
            _ => Json(None),
        }
    }

    /// Runs `f` with every `Json` it writes put out as its compact text and every one
    /// it reads kept as the text it was given: for the compact lines a worker and its
    /// supervisor (one build) exchange, where parsing each value into a tree and writing
    /// it again was a tenth of a worker's CPU on a large catalog. The text is the same
    /// either way: what a `Json` holds is what `serde_json` writes for its value.
    /// Reports are written outside it (pretty-printed).
    pub fn verbatim<R>(f: impl FnOnce() -> R) -> R {
        /// Puts the flag back as it was, however `f` ends.
        struct Restore(bool);
        impl Drop for Restore {
            fn drop(&mut self) {
                VERBATIM.with(|v| v.set(self.0));
            }
        }
        let _restore = Restore(VERBATIM.with(|v| v.replace(true)));
        f()
    }
}

impl Serialize for Json {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.as_deref() {
            Some(text) if VERBATIM.with(|v| v.get()) => {
                serde_json::value::RawValue::from_string(text.to_string())
                    .map_err(serde::ser::Error::custom)?
                    .serialize(s)
            }
            _ => self.value().serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        if VERBATIM.with(|v| v.get()) {
            let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
            return Ok(match raw.get() {
                "null" => Json(None),
                text => Json(Some(text.into())),
            });
        }
        serde_json::Value::deserialize(d).map(Json::from)
    }
}

/// One call as evidence: what was passed, what came back, what was expected.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// The MPI function, e.g. `MPI_T_cvar_get_info`.
    pub call: String,
    /// Arguments as passed (name → value); buffers as `{cap, len}`.
    #[serde(default, skip_serializing_if = "Json::is_null")]
    pub args: Json,
    /// The return code by spec name, or `unknown(N)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rc: Option<String>,
    /// OUT values (name → value).
    #[serde(default, skip_serializing_if = "Json::is_null")]
    pub out: Json,
    /// What the case expected of this call, if it expected something that did not hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
}

/// The verdict on one (case, subject): the unit of every report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    /// Stable dotted id, e.g. `strings.cvar.name.truncate`.
    pub case: String,
    pub area: Area,
    /// What the case ran on, e.g. `cvar 12 MPIR_CVAR_ASYNC_PROGRESS`; empty for cases
    /// without a subject.
    pub subject: String,
    pub status: Status,
    pub level: Level,
    /// e.g. `MPI-4.1 §15.3.3 R-STR-2`.
    pub clause: String,
    pub oracle: Oracle,
    /// One line: why this status.
    pub message: String,
    /// The reading of an ambiguous sentence the library follows, when it is not the
    /// literal one (specs/readings.yaml).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<String>,
    /// Wall time of the case in the worker, milliseconds.
    #[serde(default)]
    pub duration_ms: f64,
    /// The reason of the waiver that matched this result (`--waivers`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waived: Option<String>,
    /// The calls made; kept in full for every result that is not `pass`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
    /// For a case that samples a value under activity (`moved_from` in specs/cases):
    /// whether the value moved (`true`), or stayed put so that the relations the case
    /// checks held vacuously (`false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exercised: Option<bool>,
    /// The standalone C reproducer of this result (`run --repro`), relative to the
    /// report's directory, e.g. `repro/pvars.readonly.no_write--pvar-0-x.c`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repro: Option<String>,
    /// The reproducer's text, while the run that wrote it renders report.html (which
    /// shows it); not part of report.json, where `repro` names the file.
    #[serde(skip)]
    pub repro_source: Option<String>,
    /// What the reference made of the same case and subject while serving this
    /// library's catalog (`run --model-check`), on a fail, warn, crash or timeout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelCheck>,
}

/// How a `skip` for a rule of another MPI version than the library reports begins
/// (`exec::run` writes it; `run --model-check` recognizes it by it).
pub const VERSION_GATE: &str = "the library reports MPI ";

/// The reference's result for a library's finding, the reference serving the catalog
/// the library serves (`run --model-check`): whether the finding is the library's
/// behaviour or its catalog's content, or why the reference could not say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelCheck {
    pub agreement: Agreement,
    /// The reference's status for the same case and subject; none when it had no such
    /// result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// The reference's message, or why it had no result.
    pub message: String,
}

impl ModelCheck {
    /// One line for the reports: `behaviour (the reference passes: 24 calls as expected)`.
    pub fn line(&self) -> String {
        let status = self.status.map_or("no result", |s| s.as_str());
        format!(
            "{} (the reference: {status}: {})",
            self.agreement.as_str(),
            self.message
        )
    }
}

/// How the reference's result bears on a library's finding ([`ModelCheck`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Agreement {
    /// The reference passes: a conforming implementation serving the same catalog
    /// passes the case, so the finding is the library's behaviour.
    Behaviour,
    /// The reference has the library's status: the catalog's own content breaks the
    /// rule (an enumeration on an `MPI_UNSIGNED` variable, R-ENUM-1).
    Catalog,
    /// The reference skips a rule of another MPI version than the library reports.
    Version,
    /// The reference cannot hold the subject's entry (a datatype no MPI_T datatype of
    /// MPI-4.1 §15.3.5 names), nor an enumeration only such entries use.
    NotServable,
    /// Anything else: the oracles disagree, and the message says how.
    Disagree,
}

impl Agreement {
    pub fn as_str(self) -> &'static str {
        match self {
            Agreement::Behaviour => "behaviour",
            Agreement::Catalog => "catalog",
            Agreement::Version => "version",
            Agreement::NotServable => "not_servable",
            Agreement::Disagree => "disagree",
        }
    }

    /// Every value, in declaration order.
    pub const ALL: [Agreement; 5] = [
        Agreement::Behaviour,
        Agreement::Catalog,
        Agreement::Version,
        Agreement::NotServable,
        Agreement::Disagree,
    ];
}

/// What names a case in each of its results. Whoever writes a result (the executor, the
/// pool for a crash, the planner for a skip, the run-wide checks) builds it from this with
/// [`CaseResult::new`], so the fields a result starts with are set in one place.
#[derive(Debug, Clone, Copy)]
pub struct CaseMeta<'a> {
    pub case: &'a str,
    pub area: Area,
    pub level: Level,
    pub clause: &'a str,
    pub oracle: Oracle,
}

impl CaseResult {
    /// A result without reading, evidence, waiver or duration (added by whoever has them).
    pub fn new(meta: CaseMeta, subject: String, status: Status, message: String) -> Self {
        CaseResult {
            case: meta.case.to_string(),
            area: meta.area,
            subject,
            status,
            level: meta.level,
            clause: meta.clause.to_string(),
            oracle: meta.oracle,
            message,
            reading: None,
            duration_ms: 0.0,
            waived: None,
            evidence: Vec::new(),
            exercised: None,
            repro: None,
            repro_source: None,
            model: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Evidence, Json};
    use serde_json::json;

    fn evidence() -> Evidence {
        Evidence {
            call: "MPI_T_cvar_read".into(),
            args: json!({"handle": 7, "buf": {"cap": 8, "len": 3}}).into(),
            rc: Some("MPI_SUCCESS".into()),
            out: json!({"text": "a\"b\\c\n\u{e9}", "x": 1.5, "big": "170141183460469231731687303715884105727", "l": [1, -2, null, true]}).into(),
            expected: None,
        }
    }

    /// A worker's line and a supervisor's reading of it are the same with or without
    /// `verbatim`: the stored text is what serde_json writes for the value.
    #[test]
    fn verbatim_lines_are_the_lines_of_the_values() {
        let e = evidence();
        let tree = serde_json::to_string(&e).expect("tree");
        let text = Json::verbatim(|| serde_json::to_string(&e)).expect("verbatim");
        assert_eq!(text, tree);
        let read: Evidence = Json::verbatim(|| serde_json::from_str(&tree)).expect("read");
        let parsed: Evidence = serde_json::from_str(&tree).expect("parsed");
        assert_eq!(read, parsed);
        assert_eq!(read, e);
        // Outside the scope a value is parsed again: a pretty text reads as the compact.
        let pretty = serde_json::to_string_pretty(&e).expect("pretty");
        assert_eq!(
            serde_json::from_str::<Evidence>(&pretty).expect("pretty"),
            e
        );
        assert!(!Json::verbatim(|| false), "the scope returns f's value");
        // A panic inside the scope leaves the thread outside it (a pretty text read
        // verbatim would keep its spaces and compare unequal).
        let _ = std::panic::catch_unwind(|| Json::verbatim(|| panic!("inside")));
        assert_eq!(serde_json::from_str::<Evidence>(&pretty).expect("after"), e);
    }
}
