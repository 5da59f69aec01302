//! Spec cases: the typed form of specs/cases/*.yaml (format documented in
//! specs/README.md). Parsing and validation live here; running a case is `exec`'s job
//! and judging an observation is `judge`'s.

pub mod builtin;
pub mod clauses;
pub mod expr;
pub mod funcs;
#[cfg(test)]
mod readings_check;

use crate::specs::Source;
use crate::verdict::{Area, Level};
use expr::{Expr, PredSpec, RcSet, Size, Term};
use funcs::{Func, Param};
use mpit_reference::yaml::{self, YamlError};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

/// One file of cases: all of one area.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    pub area: Area,
    pub cases: Vec<Case>,
}

/// What a case runs on: one result per subject.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, serde::Serialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Cvar,
    Pvar,
    Category,
    Enum,
    Item,
    Event,
    Source,
    /// Every MPI_T function (e.g. "returns NOT_INITIALIZED before init").
    Function,
    /// Each of the four thread levels.
    ThreadLevel,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Cvar => "cvar",
            Kind::Pvar => "pvar",
            Kind::Category => "category",
            Kind::Enum => "enum",
            Kind::Item => "item",
            Kind::Event => "event",
            Kind::Source => "source",
            Kind::Function => "function",
            Kind::ThreadLevel => "thread_level",
        }
    }

    /// The variables a subject of this kind defines for the steps.
    pub fn vars(self) -> &'static [&'static str] {
        match self {
            Kind::Cvar | Kind::Category | Kind::Source => &["index", "name", "len", "desc_len"],
            Kind::Pvar => &["index", "name", "len", "desc_len", "var_class", "enumtype"],
            Kind::Event => &["index", "name", "len", "desc_len", "num_elements"],
            Kind::Enum => &["enumtype", "name", "len", "num_items"],
            Kind::Item => &["enumtype", "item", "name", "len", "value", "num_items"],
            Kind::Function => &["function"],
            Kind::ThreadLevel => &["required"],
        }
    }
}

/// Variables every case can use: the catalog sizes (e.g. `index: $num_cvars` is one
/// past the last valid index).
pub const GLOBAL_VARS: &[&str] = &[
    "num_cvars",
    "num_pvars",
    "num_categories",
    "num_events",
    "num_sources",
    "num_enums",
];

/// Filter on subject attributes (`where:`), e.g. `scope: [MPI_T_SCOPE_CONSTANT]`,
/// `continuous: false`, `datatype: {not: [MPI_INT]}`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Filter(pub BTreeMap<String, FilterValues>);

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum FilterValues {
    One(Scalar),
    Any(Vec<Scalar>),
    Not { not: Vec<Scalar> },
}

/// A scalar in a filter, kept as the text attributes are compared with.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Str(String),
}

impl Scalar {
    pub fn text(&self) -> String {
        match self {
            Scalar::Bool(b) => b.to_string(),
            Scalar::Int(i) => i.to_string(),
            Scalar::Str(s) => s.clone(),
        }
    }
}

impl FilterValues {
    pub fn accepts(&self, v: &str) -> bool {
        match self {
            FilterValues::One(s) => s.text() == v,
            FilterValues::Any(l) => l.iter().any(|s| s.text() == v),
            FilterValues::Not { not } => !not.iter().any(|s| s.text() == v),
        }
    }
}

/// The attributes a filter may name, per the inventory (`judge::inventory`).
pub const FILTER_KEYS: &[&str] = &[
    "scope",
    "bind",
    "datatype",
    "var_class",
    "verbosity",
    "readonly",
    "continuous",
    "atomic",
    "has_enum",
    "has_desc",
    "writable",
    "function",
    "handle_args",
    "name",
];

impl<'de> Deserialize<'de> for Filter {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Filter, D::Error> {
        let m = BTreeMap::<String, FilterValues>::deserialize(d)?;
        for k in m.keys() {
            if !FILTER_KEYS.contains(&k.as_str()) {
                return Err(serde::de::Error::custom(format!(
                    "unknown filter key `{k}` (want one of {})",
                    FILTER_KEYS.join(", ")
                )));
            }
        }
        Ok(Filter(m))
    }
}

impl Filter {
    pub fn accepts(&self, attrs: &BTreeMap<String, String>) -> bool {
        self.0.iter().all(|(k, want)| {
            let v = attrs.get(k).map(String::as_str).unwrap_or("");
            want.accepts(v)
        })
    }
}

/// Requirements a target (or the run) must meet, else the case is `skip`ped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Require {
    /// Run after MPI_Init (singleton), in a fresh worker process.
    MpiInit,
    /// A fresh worker process even without MPI_Init.
    FreshProcess,
    /// The reference's test hooks (`MPIT_Reference_simulate`, `_raise_event`).
    ReferenceHooks,
}

/// Whether the executor brackets the steps with MPI_T_init_thread / MPI_T_finalize.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InitMode {
    #[default]
    Auto,
    /// The steps manage initialization themselves (lifecycle cases).
    Manual,
}

/// Vary one string argument over buffer sizes (MPI-4.1 §15.3.3 corner cases); the steps
/// pass it as `$buffer`, and `len` in the sizes is strlen+1 of that string.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Buffers {
    /// `name` or `desc` of the subject.
    pub string: StringField,
    pub sizes: Vec<Size>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StringField {
    Name,
    Desc,
}

/// How a string OUT value is judged against the subject's string (from the inventory).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StrCheck {
    /// R-STR-1..4 for whatever buffer was passed; `*len` = strlen+1 (literal reading).
    Truncated,
    /// As `truncated`, but `*len` = the number of bytes written including the NUL when
    /// the string was cut (the other reading of R-STR-2).
    TruncatedN,
    /// The whole string, identical to the inventory's.
    Exact,
    /// Non-empty (R-STR-6: names have length >= 1).
    NonEmpty,
}

/// What a step expects of its call.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default)]
    pub rc: Option<RcSet>,
    #[serde(default)]
    pub out: BTreeMap<String, PredSpec>,
    #[serde(default)]
    pub name: Option<StrCheck>,
    #[serde(default)]
    pub desc: Option<StrCheck>,
    /// Every OUT value equal to those saved (with `save: {x: all}`) from an earlier call.
    #[serde(default)]
    pub same_as: Option<Expr>,
    /// The other reading of an ambiguous sentence (specs/readings.yaml): when the
    /// expectation above fails but this one holds, the result is `warn` (`fail` under
    /// `--strict`) naming the reading.
    #[serde(default)]
    pub or_reading: Option<Box<Reading>>,
    /// The expectation's own level when it differs from the case's (e.g. a robustness
    /// check inside a must case).
    #[serde(default)]
    pub level: Option<Level>,
    /// Not a check: whether the `value` OUT differs from this earlier value is recorded,
    /// so a pass whose value never moved under activity is reported as vacuous
    /// (`exercised: false` in the result) instead of as evidence of the relation.
    #[serde(default)]
    pub moved_from: Option<Expr>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reading {
    pub reading: String,
    pub expect: Expect,
}

/// What a step iterates over (`for_all:`): every catalog entry of a kind (with the
/// step's `where:`), the elements of a saved list (`$name`), or the integers
/// `0..n-1` (`range($num_cvars)`: every index below a count, whether or not the
/// inventory could read it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForAll {
    Kind(Kind),
    List(String),
    Range(Expr),
    /// Each OUT argument of the step's function passed as NULL on its own, then all of
    /// them at once (`Func::nullable_outs`); the iteration's `$null` names it.
    NullOuts,
}

impl<'de> Deserialize<'de> for ForAll {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ForAll, D::Error> {
        let s = String::deserialize(d)?;
        if let Some(inner) = s
            .trim()
            .strip_prefix("range(")
            .and_then(|r| r.strip_suffix(')'))
        {
            return match expr::parse_expr(inner) {
                Ok(e @ Expr::Sum(_)) => Ok(ForAll::Range(e)),
                Ok(_) => Err(serde::de::Error::custom(format!(
                    "`range(...)` takes a number or `$variable` expression, not `{inner}`"
                ))),
                Err(e) => Err(serde::de::Error::custom(e)),
            };
        }
        if let Some(v) = s.strip_prefix('$') {
            return Ok(ForAll::List(v.to_string()));
        }
        if s == "null_outs" {
            return Ok(ForAll::NullOuts);
        }
        let k: Kind = Kind::deserialize(serde::de::value::StrDeserializer::<D::Error>::new(&s))?;
        Ok(ForAll::Kind(k))
    }
}

/// A built-in judgement over more than one call's worth of data (documented in
/// specs/README.md); used where a step list would not say it better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Builtin {
    /// R-STR-6: names unique per kind (pvars by name+class, items within an enum).
    NamesUnique,
    /// R-CAT-1: no category contains itself, directly or transitively.
    CategoriesAcyclic,
    /// R-RC-2: the profile's MPI_T_ERR_* distinct, in (0, MPI_ERR_LASTCODE], disjoint
    /// from the MPI error classes.
    ErrorCodes,
    /// R-VERB-1: the nine verbosity constants ascend in the standard's order.
    VerbosityOrder,
    /// R-CVAR-1 / R-CAT-1: a later snapshot (`after`) keeps every entry of an earlier
    /// one (`before`) at the same index with the same info; members only appended.
    CatalogExtends,
    /// R-CAT-1: `catalog_extends` of the categories alone (their info and members), so a
    /// category case reports what happened to the categories, not to a variable.
    CategoriesExtend,
    /// R-CAT (§15.3.9: "If two calls to this routine return the same update number, it
    /// is guaranteed that the category information has not changed between the two
    /// calls"): with args `{before, after}` (snapshots) and `{number_before,
    /// number_after}` (the update numbers read next to them), equal numbers require
    /// equal categories: their count, info and members.
    CategoryChangedTracks,
}

/// One step: a call with arguments and expectations, or a built-in check.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[serde(default)]
    pub call: Option<String>,
    #[serde(default)]
    pub check: Option<Builtin>,
    #[serde(default)]
    pub args: BTreeMap<String, Expr>,
    #[serde(default)]
    pub expect: Option<Expect>,
    /// `variable: out_name` (or `all`); inside `for_all` the variable collects a list.
    #[serde(default)]
    pub save: BTreeMap<String, String>,
    /// Run the call this many times (each must meet `expect`).
    #[serde(default)]
    pub repeat: Option<u32>,
    #[serde(default)]
    pub for_all: Option<ForAll>,
    #[serde(default, rename = "where")]
    pub filter: Filter,
    /// The call passes an argument the standard lets an implementation leave unchecked
    /// (R-GEN-3: a bad index, a NULL or freed handle): a crash or hang inside it is
    /// reported at the step's level (`warn`, `fail` under --strict), not as `crash`.
    #[serde(default)]
    pub erroneous: bool,
    /// What the call must return for the case to apply at all (e.g. `provided:
    /// MPI_THREAD_MULTIPLE` before a case that calls from several threads): when it does
    /// not, the case is `skip` with the reason, and its later steps are not run.
    #[serde(default)]
    pub skip_unless: Option<Expect>,
}

/// The resolved callee of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Callee {
    Func(Func),
    /// `$function`: the subject of `for_each: function`.
    Subject,
}

impl Step {
    pub fn callee(&self) -> Option<Callee> {
        match self.call.as_deref()? {
            "$function" => Some(Callee::Subject),
            s => Func::from_yaml(s).map(Callee::Func),
        }
    }

    /// What the step does that makes the values read after it differ from the values
    /// read before (`mpit-conform coverage`'s "judged on values"): MPI work
    /// (`activity`), the reference's simulated work (`simulate`), `MPI_Init`, or every
    /// OUT argument NULL in turn (`for_all: null_outs`, the others' values compared).
    pub fn exercises(&self) -> Option<&'static str> {
        if self.for_all == Some(ForAll::NullOuts) {
            return Some("null_outs");
        }
        match self.callee()? {
            Callee::Func(Func::Activity) => Some("activity"),
            Callee::Func(Func::Simulate) => Some("simulate"),
            Callee::Func(Func::MpiInit | Func::MpiInitThread) => Some("mpi_init"),
            _ => None,
        }
    }
}

/// An MPI version `major.minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct MpiVersion(pub i32, pub i32);

impl<'de> Deserialize<'de> for MpiVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<MpiVersion, D::Error> {
        let s = Scalar::deserialize(d)?.text();
        let mut it = s.split('.');
        let parse = |p: Option<&str>| p.and_then(|x| x.parse::<i32>().ok());
        match (parse(it.next()), parse(it.next().or(Some("0"))), it.next()) {
            (Some(a), Some(b), None) => Ok(MpiVersion(a, b)),
            _ => Err(serde::de::Error::custom(format!(
                "bad MPI version `{s}` (want e.g. \"4.0\")"
            ))),
        }
    }
}

/// One case as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub id: String,
    #[serde(default)]
    pub title: String,
    /// e.g. `MPI-4.1 §15.3.3`.
    pub clause: String,
    /// Rule ids of specs/clauses.yaml, e.g. `R-STR-2`.
    pub rules: Vec<String>,
    pub level: Level,
    #[serde(default)]
    pub since: Option<MpiVersion>,
    #[serde(default)]
    pub until: Option<MpiVersion>,
    #[serde(default)]
    pub requires: Vec<Require>,
    #[serde(default)]
    pub init: InitMode,
    #[serde(default)]
    pub for_each: Option<Kind>,
    #[serde(default, rename = "where")]
    pub filter: Filter,
    /// Only the first N subjects (in index order) that `where` accepts: for a check one
    /// subject shows as well as all (e.g. a use-after-free probe, undefined behaviour).
    #[serde(default)]
    pub first: Option<usize>,
    #[serde(default)]
    pub buffers: Option<Buffers>,
    pub steps: Vec<Step>,
    /// Set by the loader.
    #[serde(skip)]
    pub area: Option<Area>,
    /// `file:line` of the case, for messages.
    #[serde(skip)]
    pub origin: String,
}

impl Case {
    pub fn area(&self) -> Area {
        self.area.unwrap_or(Area::Strings)
    }
    /// `MPI-4.1 §15.3.3 R-STR-1 R-STR-2`: the clause as reports show it.
    pub fn clause_text(&self) -> String {
        let mut s = self.clause.clone();
        for r in &self.rules {
            s.push(' ');
            s.push_str(r);
        }
        s
    }
    /// What names this case in its results; `clause` is [`Case::clause_text`].
    pub fn meta<'a>(&'a self, clause: &'a str) -> crate::verdict::CaseMeta<'a> {
        crate::verdict::CaseMeta {
            case: &self.id,
            area: self.area(),
            level: self.level,
            clause,
            oracle: crate::verdict::Oracle::Spec,
        }
    }
    pub fn requires(&self, r: Require) -> bool {
        self.requires.contains(&r)
    }
    /// Cases that must run in a process of their own.
    pub fn needs_fresh_process(&self) -> bool {
        self.requires(Require::MpiInit) || self.requires(Require::FreshProcess)
    }
}

/// The whole case library.
#[derive(Debug, Clone, Default)]
pub struct Suite {
    pub cases: Vec<Case>,
    /// Where each file came from (`specs/cases/strings.yaml` in the bundle, or a path).
    pub files: Vec<String>,
}

impl Suite {
    /// Loads every case file of `src` (in name order), validating each case.
    pub fn load(src: &Source) -> Result<Suite, YamlError> {
        Suite::load_where(src, |_| true)
    }

    /// Loads only the files whose top-level `area:` line names `area`. A worker needs
    /// the cases of the jobs it is given, all of one area per job; parsing the whole
    /// suite in each of a run's (often a hundred and more) workers was most of their
    /// start-up. The supervisor has loaded and validated the whole suite before.
    pub fn load_area(src: &Source, area: &str) -> Result<Suite, YamlError> {
        let line = format!("area: {area}");
        Suite::load_where(src, |text| text.lines().any(|l| l.trim_end() == line))
    }

    /// `src` may also be one case file (`run --case-file`, e.g. a case `fuzz-props`
    /// wrote).
    fn load_where(src: &Source, wanted: impl Fn(&str) -> bool) -> Result<Suite, YamlError> {
        let mut suite = Suite::default();
        let mut ids = BTreeSet::new();
        for (origin, text) in src.case_files()? {
            if !wanted(&text) {
                continue;
            }
            for case in parse_file(&text, &origin)? {
                if !ids.insert(case.id.clone()) {
                    return Err(near_case(
                        &text,
                        &origin,
                        &case.id,
                        "id:",
                        format!("duplicate case id `{}`", case.id),
                    ));
                }
                suite.cases.push(case);
            }
            suite.files.push(origin);
        }
        Ok(suite)
    }

    pub fn get(&self, id: &str) -> Option<&Case> {
        self.cases.iter().find(|c| c.id == id)
    }
}

/// Parses and validates one file's text.
pub fn parse_file(text: &str, origin: &str) -> Result<Vec<Case>, YamlError> {
    let file: CaseFile = yaml::parse(text, origin)?;
    // The `id:` line of every case, in one pass over the text (searching the text once
    // per case made loading quadratic in the file's size).
    let mut id_lines: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, l) in text.lines().enumerate() {
        if let Some((_, id)) = l.split_once("id: ") {
            id_lines.entry(id.trim()).or_insert(i + 1);
        }
    }
    let mut out = Vec::new();
    for mut c in file.cases {
        c.area = Some(file.area);
        let line = match id_lines.get(c.id.as_str()) {
            Some(l) => *l,
            None => yaml::locate(text, &format!("id: {}", c.id)).map_or(0, |(l, _)| l),
        };
        c.origin = format!("{origin}:{line}");
        validate(&c, file.area)
            .map_err(|(needle, msg)| near_case(text, origin, &c.id, &needle, msg))?;
        out.push(c);
    }
    Ok(out)
}

/// An error located at the first `needle` at or after the case's `id:` line.
fn near_case(text: &str, origin: &str, id: &str, needle: &str, message: String) -> YamlError {
    let start = yaml::locate(text, &format!("id: {id}")).map_or(1, |(l, _)| l);
    let pos = text
        .lines()
        .enumerate()
        .skip(start - 1)
        .find_map(|(i, l)| l.find(needle).map(|c| (i + 1, c + 1)))
        .unwrap_or((start, 1));
    YamlError {
        origin: origin.to_string(),
        line: pos.0,
        col: pos.1,
        message,
    }
}

type Invalid = (String, String);
/// Checks that every variable of an expression is defined at this point.
type VarCheck<'a> = &'a dyn Fn(&Expr, &BTreeSet<String>) -> Result<(), Invalid>;

fn validate(c: &Case, area: Area) -> Result<(), Invalid> {
    let bad = |needle: &str, msg: String| Err((needle.to_string(), msg));
    if !c.id.starts_with(&format!("{area}.")) {
        return bad(
            "id:",
            format!("case id `{}` must start with `{area}.`", c.id),
        );
    }
    if c.rules.is_empty() {
        return bad("rules:", "a case cites at least one rule id".into());
    }
    if let Some(r) = c.rules.iter().find(|r| !r.starts_with("R-")) {
        return bad(r, format!("rule id `{r}` is not of the form R-AREA-N"));
    }
    if c.steps.is_empty() {
        return bad("steps:", "a case has at least one step".into());
    }
    if !c.filter.0.is_empty() && c.for_each.is_none() {
        return bad("where:", "`where` needs `for_each`".into());
    }
    if c.first.is_some() && c.for_each.is_none() {
        return bad("first:", "`first` needs `for_each`".into());
    }
    if c.first == Some(0) {
        return bad("first:", "`first: 0` selects no subject".into());
    }
    if c.buffers.is_some()
        && !matches!(c.for_each, Some(k) if k != Kind::Function && k != Kind::ThreadLevel)
    {
        return bad(
            "buffers:",
            "`buffers` needs a `for_each` over catalog entries".into(),
        );
    }
    let mut defined: BTreeSet<String> = GLOBAL_VARS.iter().map(|s| s.to_string()).collect();
    if let Some(k) = c.for_each {
        defined.extend(k.vars().iter().map(|s| s.to_string()));
    }
    if c.buffers.is_some() {
        defined.insert("buffer".into());
    }
    for step in &c.steps {
        validate_step(c, step, &mut defined)?;
    }
    Ok(())
}

fn validate_step(c: &Case, step: &Step, defined: &mut BTreeSet<String>) -> Result<(), Invalid> {
    let bad = |needle: &str, msg: String| Err((needle.to_string(), msg));
    let mut local = defined.clone();
    match &step.for_all {
        Some(ForAll::Kind(k)) => local.extend(k.vars().iter().map(|s| s.to_string())),
        Some(ForAll::List(v)) => {
            if !defined.contains(v) {
                return bad(
                    &format!("${v}"),
                    format!("`${v}` is not defined before this step"),
                );
            }
            local.insert("item".into());
        }
        Some(ForAll::Range(e)) => {
            if let Expr::Sum(terms) = e {
                for (_, t) in terms {
                    if let Term::Var(v) = t {
                        if !defined.contains(v) {
                            return bad(
                                &format!("${v}"),
                                format!("`${v}` is not defined before this step"),
                            );
                        }
                    }
                }
            }
            local.insert("item".into());
        }
        Some(ForAll::NullOuts) => {
            let nullable = step
                .callee()
                .map(|c| match c {
                    Callee::Func(f) => !f.nullable_outs().is_empty(),
                    Callee::Subject => false,
                })
                .unwrap_or(false);
            if !nullable {
                return bad(
                    "null_outs",
                    "`for_all: null_outs` needs a `*_get_info` or enumeration query".into(),
                );
            }
            local.insert("null".into());
        }
        None => {}
    }
    let check_var = |e: &Expr, local: &BTreeSet<String>| -> Result<(), Invalid> {
        if let Expr::Sum(terms) = e {
            for (_, t) in terms {
                if let Term::Var(v) = t {
                    if !local.contains(v) {
                        return Err((
                            format!("${v}"),
                            format!("`${v}` is not defined at this step"),
                        ));
                    }
                }
            }
        }
        Ok(())
    };
    match (step.callee(), step.check, &step.call) {
        (None, None, Some(name)) => {
            return bad(
                name,
                format!("unknown function `{name}` (see specs/README.md for the list)"),
            )
        }
        (None, None, None) => return bad("steps:", "a step has `call:` or `check:`".into()),
        (Some(_), Some(_), _) => {
            return bad("check:", "a step has `call:` or `check:`, not both".into())
        }
        (Some(Callee::Subject), _, _) if c.for_each != Some(Kind::Function) => {
            return bad(
                "$function",
                "`call: $function` needs `for_each: function`".into(),
            )
        }
        _ => {}
    }
    let func = match step.callee() {
        Some(Callee::Func(f)) => Some(f),
        _ => None,
    };
    for (name, e) in &step.args {
        check_var(e, &local)?;
        let Some(f) = func else {
            // Built-ins and `$function` take named variables only.
            if let Expr::Text(t) = e {
                return bad(
                    t,
                    format!("`{t}` is not a number, a `$variable` or an MPI_ constant"),
                );
            }
            continue;
        };
        let Some(p) = f.param(name) else {
            return bad(
                &format!("{name}:"),
                format!(
                    "`{}` has no parameter `{name}` (it takes: {})",
                    f.yaml(),
                    f.params()
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        };
        match (p, e) {
            (Param::Text, _) => {}
            (_, Expr::Text(t)) => {
                let why = expr::parse_expr(t).err().unwrap_or_default();
                return bad(t, why);
            }
            (Param::Str, Expr::Sum(_) | Expr::Shape(_)) => {}
            (_, Expr::Shape(_)) => {
                return bad(
                    &format!("{name}:"),
                    format!("`{name}` is not a string buffer"),
                )
            }
            _ => {}
        }
    }
    if let Some(x) = &step.expect {
        validate_expect(x, func, &local, &check_var)?;
    }
    if let Some(x) = &step.skip_unless {
        validate_expect(x, func, &local, &check_var)?;
    }
    let level = step
        .expect
        .as_ref()
        .and_then(|x| x.level)
        .unwrap_or(c.level);
    if step.erroneous && (level == Level::Must || step.call.is_none()) {
        return bad(
            "erroneous:",
            "`erroneous` marks a call whose expectation is `should` or `robustness` \
             (a crash on an argument the standard leaves undefined is no MUST failure)"
                .into(),
        );
    }
    for (var, out) in &step.save {
        if let Some(f) = func {
            if out != "all" && !f.outs().contains(&out.as_str()) {
                return bad(
                    &format!("{var}: {out}"),
                    format!(
                        "`{}` has no OUT value `{out}` (it has: {})",
                        f.yaml(),
                        f.outs().join(", ")
                    ),
                );
            }
        }
        defined.insert(var.clone());
    }
    Ok(())
}

fn validate_expect(
    x: &Expect,
    func: Option<Func>,
    local: &BTreeSet<String>,
    check_var: VarCheck,
) -> Result<(), Invalid> {
    if let Some(f) = func {
        for k in x.out.keys() {
            if !f.outs().contains(&k.as_str()) {
                return Err((
                    format!("{k}:"),
                    format!(
                        "`{}` has no OUT value `{k}` (it has: {})",
                        f.yaml(),
                        f.outs().join(", ")
                    ),
                ));
            }
        }
        if (x.name.is_some() && !f.outs().contains(&"name"))
            || (x.desc.is_some() && !f.outs().contains(&"desc"))
        {
            return Err((
                "expect:".into(),
                format!("`{}` returns no such string", f.yaml()),
            ));
        }
    }
    for p in x.out.values() {
        for e in pred_exprs(&p.0) {
            check_var(e, local)?;
        }
    }
    if let Some(e) = &x.same_as {
        check_var(e, local)?;
    }
    if let Some(r) = &x.or_reading {
        // A reading exists only where its sentence is quoted: specs/readings.yaml.
        match crate::readings::get(&r.reading) {
            Some(e) if e.kind == crate::readings::ReadingKind::Reading => {}
            _ => {
                return Err((
                    "reading:".into(),
                    format!(
                        "`{}` is not a reading of specs/readings.yaml (a reading needs its \
                         quoted sentence there)",
                        r.reading
                    ),
                ))
            }
        }
        validate_expect(&r.expect, func, local, check_var)?;
    }
    Ok(())
}

/// Every expression inside a predicate.
pub fn pred_exprs(p: &expr::Pred) -> Vec<&Expr> {
    let single = [
        &p.eq, &p.ne, &p.lt, &p.le, &p.gt, &p.ge, &p.length, &p.skip, &p.take,
    ];
    let mut v: Vec<&Expr> = single.into_iter().flatten().collect();
    if let Some((a, b)) = &p.between {
        v.push(a);
        v.push(b);
    }
    v.extend(p.one_of.iter().flatten());
    v.extend(p.not_in.iter().flatten());
    if let Some(e) = &p.each {
        v.extend(pred_exprs(e));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"
area: strings
cases:
  - id: strings.cvar.name.truncate
    clause: MPI-4.1 §15.3.3
    rules: [R-STR-1, R-STR-2]
    level: must
    for_each: cvar
    buffers: {string: name, sizes: [0, 1, len-1, len, len+1, null_buf, null_len]}
    steps:
      - call: cvar_get_info
        args: {index: $index, name: $buffer}
        expect: {rc: MPI_SUCCESS, name: truncated}
"#;

    fn err(text: &str) -> String {
        parse_file(text, "t.yaml").unwrap_err().to_string()
    }

    #[test]
    fn parses_a_case() {
        let c = parse_file(OK, "t.yaml").unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].area(), Area::Strings);
        assert_eq!(c[0].buffers.as_ref().unwrap().sizes.len(), 7);
        assert_eq!(c[0].origin, "t.yaml:4");
    }

    #[test]
    fn for_all_range() {
        let text = OK.replace(
            "args: {index: $index, name: $buffer}",
            "for_all: range($num_cvars + 1)\n        args: {index: $item}",
        );
        let c = parse_file(&text, "t.yaml").unwrap();
        assert!(matches!(c[0].steps[0].for_all, Some(ForAll::Range(_))));
        let e = err(&text.replace("range($num_cvars + 1)", "range($nope)"));
        assert!(e.contains("`$nope` is not defined"), "{e}");
        let e = err(&text.replace("range($num_cvars + 1)", "range(null_buf)"));
        assert!(e.contains("takes a number"), "{e}");
    }

    #[test]
    fn errors_are_located() {
        let e = err(&OK.replace("rc: MPI_SUCCESS", "rc: MPI_T_ERR_NOPE"));
        assert!(e.starts_with("t.yaml:13:"), "{e}");
        assert!(e.contains("unknown return code `MPI_T_ERR_NOPE`"), "{e}");
        let e = err(&OK.replace("level: must", "levle: must"));
        assert!(e.starts_with("t.yaml:7:5:"), "{e}");
        assert!(e.contains("unknown field `levle`"), "{e}");
        let e = err(&OK.replace("index: $index", "index: $indx"));
        assert!(e.starts_with("t.yaml:12:"), "{e}");
        assert!(e.contains("`$indx` is not defined"), "{e}");
        let e = err(&OK.replace("index: $index", "index: MPI_T_FOO"));
        assert!(e.contains("unknown constant `MPI_T_FOO`"), "{e}");
        let e = err(&OK.replace("call: cvar_get_info", "call: cvar_get_inf"));
        assert!(e.contains("unknown function `cvar_get_inf`"), "{e}");
        let e = err(&OK.replace("args: {index", "args: {indx: 1, index"));
        assert!(e.contains("has no parameter `indx`"), "{e}");
        let e = err(&OK.replace("level: must", "level: 3"));
        assert!(e.starts_with("t.yaml:7:"), "{e}");
        let e = err(&OK.replace("len+1,", "lenn,"));
        assert!(e.contains("bad buffer size"), "{e}");
        let e = err(&OK.replace("level: must", "level: must\n    first: 0"));
        assert!(e.contains("`first: 0` selects no subject"), "{e}");
        let one = parse_file(
            &OK.replace("level: must", "level: must\n    first: 1"),
            "t.yaml",
        );
        assert_eq!(one.unwrap()[0].first, Some(1));
        let e = err(&OK.replace(
            "      - call: cvar_get_info",
            "      - erroneous: true\n        call: cvar_get_info",
        ));
        assert!(e.contains("`erroneous` marks a call"), "{e}");
        let e = err(&OK.replace("id: strings.", "id: cvars."));
        assert!(e.contains("must start with `strings.`"), "{e}");
    }
}
