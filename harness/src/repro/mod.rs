//! Standalone C reproducers: from a `fail` or `crash` of a report, a C program that
//! includes only `<mpi.h>`, builds with the vendor's own `mpicc`, makes the case's calls
//! on the same subject (found by name) and says whether the deviation is still there.
//! Exit status: 1 reproduced (or the process dies, as the finding says), 0 not
//! reproduced, 77 not applicable (the subject is not in this library's catalog, or the
//! library's `mpi.h` predates the rule).
//!
//! `emit` writes a case as C (the compiler of the case language, beside `exec`, its
//! interpreter), with `loops` (a step's `for_all` and `repeat`), `call` (one MPI call)
//! and `checks` (what a step expects); `table` is how each function of the call table
//! is written in C; the helpers every program carries are C files beside this one.

mod call;
mod checks;
pub mod ctext;
pub mod emit;
mod loops;
pub mod table;

use crate::cases::clauses::Clauses;
use crate::cases::funcs::Func;
use crate::cases::{Case, SubjectKind, Suite};
use crate::kind::Kind;
use crate::report::json::atomic_write;
use crate::report::Report;
use crate::specs;
use crate::verdict::{CaseResult, Oracle, Status};
pub use emit::{Subject, Unsupported};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const PRELUDE: &str = include_str!("prelude.c");
const SNAPSHOT: &str = include_str!("snapshot.c");
const NAMES: &str = include_str!("names.c");
const EVENTS: &str = include_str!("events.c");
const ACTIVITY: &str = include_str!("activity.c");

/// Why `repro` cannot write a program for what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum ReproError {
    /// The request names nothing reproducible (exit 2).
    #[error("{0}")]
    BadInput(String),
    /// The case uses something the C writer does not translate (exit 1).
    #[error(transparent)]
    Unsupported(#[from] Unsupported),
}

/// The library a result was found on, as the report names it.
#[derive(Debug, Clone, Default)]
pub struct Origin {
    pub path: String,
    pub library: String,
    pub family: String,
    pub sha256: String,
}

impl Origin {
    pub fn of(report: &Report) -> Origin {
        let t = &report.target;
        Origin {
            path: t.path.clone(),
            library: t
                .library_version
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .to_string(),
            family: t.abi_family.clone(),
            sha256: t.sha256.clone(),
        }
    }
}

/// The subject of a result as its report writes it (`cvar 26 dss_buffer_initial_size`,
/// `MPI_THREAD_MULTIPLE`, `MPI_T_event_get_info`, or empty).
pub fn parse_subject(case: &Case, text: &str) -> Result<Subject, String> {
    let Some(kind) = case.for_each else {
        return Ok(Subject::None);
    };
    match kind {
        SubjectKind::ThreadLevel => Ok(Subject::ThreadLevel(text.trim().to_string())),
        SubjectKind::Function => Func::mpi_t()
            .find(|f| f.c_name() == text.trim())
            .map(Subject::Function)
            .ok_or_else(|| format!("`{text}` is not an MPI_T function")),
        SubjectKind::Item => {
            // `item 3 of <enum> <item name>`
            let mut it = text.splitn(5, ' ');
            match (it.next(), it.next(), it.next(), it.next(), it.next()) {
                (Some("item"), Some(i), Some("of"), Some(e), Some(name))
                    if i.parse::<i64>().is_ok() =>
                {
                    Ok(Subject::Entry {
                        kind: SubjectKind::Item,
                        name: name.to_string(),
                        parent: Some(e.to_string()),
                    })
                }
                _ => Err(format!(
                    "subject `{text}` is not `item <index> of <enum> <name>`"
                )),
            }
        }
        k => {
            let mut it = text.splitn(3, ' ');
            match (it.next(), it.next(), it.next()) {
                (Some(w), Some(i), Some(name)) if w == k.as_str() && i.parse::<i64>().is_ok() => {
                    Ok(Subject::Entry {
                        kind: k,
                        name: name.trim().to_string(),
                        parent: None,
                    })
                }
                _ => Err(format!(
                    "subject `{text}` is not `{} <index> <name>`",
                    k.as_str()
                )),
            }
        }
    }
}

/// The C program reproducing `result` (of `case`, found on `origin`).
pub fn c_program(
    case: &Case,
    result: &CaseResult,
    origin: &Origin,
    clauses: &Clauses,
) -> Result<String, ReproError> {
    let subject = parse_subject(case, &result.subject).map_err(ReproError::BadInput)?;
    let program = emit::Emitter::program(case, &subject)?;
    let mut c = String::new();
    header(&mut c, case, result, origin, clauses);
    if result.status == Status::Warn {
        // A finding below a MUST is what the program looks for: counted, as `--strict`
        // fails it (the header says so).
        c.push_str("#define REPRO_STRICT 1\n");
    }
    c.push_str("#include <mpi.h>\n");
    c.push_str(&PRELUDE.replacen(
        "/* @SPEC_TABLES@ (written by mpit-conform from its spec tables: return codes, datatypes) */\n",
        &ctext::spec_tables(),
        1,
    ));
    if program.needs_events {
        c.push_str("\n#if MPI_VERSION >= 4\n");
        c.push_str(EVENTS);
        c.push_str("#endif\n");
    }
    if program.needs_snapshot {
        c.push('\n');
        c.push_str(SNAPSHOT);
    }
    if program.needs_names {
        c.push('\n');
        c.push_str(NAMES);
    }
    if program.needs_activity {
        c.push('\n');
        c.push_str(ACTIVITY);
    }
    c.push_str("\n/* ---- The case ------------------------------------------------------------------ */\n");
    if let Subject::Entry { kind, name, parent } = &subject {
        c.push_str("static entry_t subj;\n\n");
        c.push_str(&lookup(
            *kind,
            name,
            parent.as_deref(),
            reported_index(&result.subject),
        ));
    }
    if !program.decls.is_empty() {
        c.push_str(&program.decls);
        c.push('\n');
    }
    let _ = write!(
        c,
        "\nint main(void)\n{{\n    int rc = MPI_SUCCESS;\n    (void)rc;\n    printf(\"mpit-conform reproducer: {} on {}\\n\");\n",
        ctext::escape(&case.id),
        ctext::escape(if result.subject.is_empty() {
            "(no subject)"
        } else {
            &result.subject
        })
    );
    // A rule (or a function) of a later MPI than the library's mpi.h: not applicable.
    let since = match (case.since.map(|v| (v.0, v.1)), program.needs_events) {
        (Some(v), true) => Some(v.max((4, 0))),
        (Some(v), false) => Some(v),
        (None, true) => Some((4, 0)),
        (None, false) => None,
    };
    if let Some((a, b)) = since {
        let _ = writeln!(
            c,
            "#if MPI_VERSION < {a} || (MPI_VERSION == {a} && MPI_SUBVERSION < {b})\n    not_applicable(\"the rule is from MPI {a}.{b}; this mpi.h is older\");\n#else"
        );
    }
    if program.needs_reference {
        c.push_str("#ifndef MPIT_REFERENCE_H\n    not_applicable(\"the case drives the reference's test hooks (mpit_reference.h)\");\n#else\n");
    }
    c.push_str(&program.body);
    if program.needs_reference {
        c.push_str("#endif\n");
    }
    if since.is_some() {
        c.push_str("#endif\n");
    }
    let expected = format!(
        "mpit-conform saw on {}: {}",
        origin.library,
        first_line(&result.message)
    );
    let _ = write!(
        c,
        "    goto done;\ndone:\n    printf(\"clause: {}\\n\");\n    printf(\"{}\\n\");\n    if (deviations) printf(\"verdict: REPRODUCED (%d deviation%s)\\n\", deviations, deviations == 1 ? \"\" : \"s\");\n    else printf(\"verdict: not reproduced: every call returned as the standard says\\n\");\n    fflush(stdout);\n    return deviations ? 1 : 0;\n}}\n",
        ctext::escape(&result.clause),
        ctext::escape(&expected)
    );
    Ok(c)
}

fn first_line(s: &str) -> String {
    let l = s.lines().next().unwrap_or("");
    match l.find("; library output:") {
        Some(i) => l[..i].to_string(),
        None => l.to_string(),
    }
}

fn header(c: &mut String, case: &Case, r: &CaseResult, o: &Origin, clauses: &Clauses) {
    let mut lines = vec![
        format!(
            "Reproducer of a `{}` result of mpit-conform, case {} ({}),",
            r.status.as_str(),
            case.id,
            r.level.as_str()
        ),
        format!(
            "subject: {}.",
            if r.subject.is_empty() {
                "none"
            } else {
                &r.subject
            }
        ),
        String::new(),
        format!("Found on: {} ({})", o.library, o.path),
        format!("  ABI family {}, sha256 {}", o.family, o.sha256),
        format!("Case: {}", case.title),
        format!("Clause: {}", r.clause),
    ];
    for rule in &case.rules {
        if let Some(q) = clauses.rules.iter().find(|x| &x.rule == rule) {
            lines.push(format!("  {rule} ({}): \"{}\"", q.clause, q.quote));
        }
    }
    lines.push(format!("mpit-conform saw: {}", first_line(&r.message)));
    if matches!(r.status, Status::Crash | Status::Timeout) {
        lines.push(
            "The crash is the evidence: this program makes the same calls, and when the".into(),
        );
        lines.push("deviation reproduces it dies (or hangs) in the same call.".into());
    }
    if r.status == Status::Warn {
        lines.extend([
            "A warning: a SHOULD, a robustness probe or the other reading of a sentence,".into(),
            "which mpit-conform --strict fails. The program defines REPRO_STRICT (its first".into(),
            "line after this comment), so it counts that deviation and exits 1 when it".into(),
            "reproduces; without the line it prints `warn (not a MUST)` and exits 0.".into(),
        ]);
    }
    lines.extend([
        String::new(),
        "Build and run with the library's own compiler wrapper:".into(),
        "  mpicc repro.c -o repro && ./repro".into(),
        "For the MPI-5 standard ABI (libmpi_abi.so), the same source:".into(),
        "  mpicc -DMPI_ABI repro.c -o repro -lmpi_abi && ./repro   (or MPICH's mpicc_abi)".into(),
        "Exit status: 1 the deviation reproduces; 0 it does not; 77 not applicable (the".into(),
        "subject is not in this library's catalog). Variables are looked up by name.".into(),
        "-DREPRO_STRICT also counts SHOULD and robustness deviations (mpit-conform --strict)."
            .into(),
    ]);
    c.push_str("/*\n");
    for l in lines {
        // `*/` inside a quote would end the comment.
        let l = l.replace("*/", "* /");
        if l.is_empty() {
            c.push_str(" *\n");
        } else {
            let _ = writeln!(c, " * {l}");
        }
    }
    c.push_str(" */\n");
}

/// `lookup_subject`: the subject's index from its name, then its strings and datatype
/// from a full-size `*_get_info`, as mpit-conform's inventory has them.
fn lookup(kind: SubjectKind, name: &str, parent: Option<&str>, reported: i64) -> String {
    let n = ctext::c_string(name);
    // Kinds without a `*_get_index`: searched (an item within its enumeration).
    let search = match kind {
        SubjectKind::Enum => Some(format!("enum_named({n}, e)")),
        SubjectKind::Item => Some(format!(
            "item_named({}, {n}, e)",
            ctext::c_string(parent.unwrap_or(""))
        )),
        SubjectKind::Source => Some(format!("source_named({n}, e)")),
        _ => None,
    };
    if let Some(call) = search {
        return format!(
            "static void lookup_subject(entry_t *e)\n{{\n    int found = {call};\n    show_call(\"looking up the {k} {} by name\", found ? MPI_SUCCESS : -1);\n    if (!found) not_applicable(\"{k} {} is not in this library's catalog\");\n    printf(\"      {k} {} found, strlen(name)+1 = %d\\n\", e->len);\n}}\n\n",
            ctext::escape(name),
            ctext::escape(name),
            ctext::escape(name),
            k = kind.as_str()
        );
    }
    // The kinds found by `*_get_index`; the prelude reads an entry with `<kind>_entry`.
    let by_index = match kind {
        SubjectKind::Cvar => Some(Kind::Cvar),
        SubjectKind::Category => Some(Kind::Category),
        SubjectKind::Event => Some(Kind::Event),
        SubjectKind::Pvar => Some(Kind::Pvar),
        _ => None,
    };
    let Some((entity, get_index)) = by_index.and_then(|e| Some((e, e.get_index()?))) else {
        return format!(
            "static void lookup_subject(entry_t *e) {{ (void)e; not_applicable(\"a {} subject\"); }}\n",
            kind.as_str()
        );
    };
    let (get_index, entry) = (get_index.c_name(), format!("{}_entry", entity.word()));
    let k = kind.as_str();
    let shown = ctext::escape(&n);
    let classes = ctext::pvar_classes();
    let find = if kind == SubjectKind::Pvar {
        // A pvar's name is unique within its class only (R-STR-6): every class is tried;
        // where two classes have the name, the index the report names breaks the tie.
        format!(
            "static const int classes[] = {{{classes}}};\n    rc = MPI_T_ERR_INVALID_NAME;\n    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++) {{\n        int i = -1;\n        if (MPI_T_pvar_get_index({n}, classes[c], &i) != MPI_SUCCESS) continue;\n        if (rc != MPI_SUCCESS || i == {reported}) idx = i;\n        rc = MPI_SUCCESS;\n    }}\n    show_call(\"MPI_T_pvar_get_index({shown}, each class)\", rc);"
        )
    } else {
        format!("rc = {get_index}({n}, &idx);\n    show_call(\"{get_index}({shown})\", rc);")
    };
    format!(
        "static void lookup_subject(entry_t *e)\n{{\n    int idx = -1, rc;\n    {find}\n    if (rc != MPI_SUCCESS) not_applicable(\"{k} {name_e} is not in this library's catalog\");\n    /* The index get_index gave must hold that name; else the name is searched for\n     * (a wrong get_index is a finding of its own, R-CVAR-5). */\n    if (!{entry}(idx, e) || strcmp(e->name, {n}) != 0) {{\n        int n = 0, found = 0;\n        {num}(&n);\n        for (int i = 0; i < n && !found; i++) found = {entry}(i, e) && strcmp(e->name, {n}) == 0;\n        printf(\"      {get_index} gave %d, which is not {name_e}; found by name at %d\\n\", idx, found ? e->index : -1);\n        if (!found) not_applicable(\"the {k} of that name cannot be read\");\n    }}\n    printf(\"      {name_e} = index %d, strlen(name)+1 = %d, strlen(desc)+1 = %d\\n\", e->index, e->len, e->desc_len);\n}}\n\n",
        name_e = ctext::escape(name),
        num = entity.get_num().c_name(),
    )
}

/// The index a subject text names (`cvar 26 name` → 26), -1 when none: only a tie-break.
fn reported_index(subject: &str) -> i64 {
    subject
        .split_whitespace()
        .nth(1)
        .and_then(|i| i.parse().ok())
        .unwrap_or(-1)
}

/// The result `repro --report` names: the one of `case` on `subject`, else the first
/// `fail`/`crash` of `case`.
pub fn pick<'r>(
    report: &'r Report,
    case: &str,
    subject: Option<&str>,
) -> Result<&'r CaseResult, ReproError> {
    let of_case: Vec<&CaseResult> = report.results.iter().filter(|r| r.case == case).collect();
    if of_case.is_empty() {
        return Err(ReproError::BadInput(format!(
            "case `{case}` has no result in this report"
        )));
    }
    let r = match subject {
        Some(s) => of_case
            .iter()
            .find(|r| r.subject == s)
            .copied()
            .ok_or_else(|| {
                ReproError::BadInput(format!("case `{case}` has no result on subject `{s}`"))
            })?,
        // A fail, crash or timeout before a warning.
        None => of_case
            .iter()
            .find(|r| reproducible(r) && r.status != Status::Warn)
            .or_else(|| of_case.iter().find(|r| reproducible(r)))
            .copied()
            .unwrap_or(of_case[0]),
    };
    if !reproducible(r) {
        return Err(ReproError::BadInput(format!(
            "case `{case}`{} is `{}`, not a fail, warning or crash: nothing to reproduce",
            if r.subject.is_empty() {
                String::new()
            } else {
                format!(" on `{}`", r.subject)
            },
            r.status.as_str()
        )));
    }
    Ok(r)
}

/// A result a reproducer is written for.
pub fn reproducible(r: &CaseResult) -> bool {
    matches!(
        r.status,
        Status::Fail | Status::Warn | Status::Crash | Status::Timeout
    ) && !r.case.starts_with("ranks.")
        && r.oracle == Oracle::Spec
}

/// A file name for a result: `<case>--<subject>.c`, the subject made filename-safe.
pub fn file_name(r: &CaseResult) -> String {
    let mut subject: String = r
        .subject
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    // A file name has at most 255 bytes (NAME_MAX), and a library's entry names have
    // no bound (the reference's longest cvar name is 300 characters): a long subject
    // keeps its first characters and a hash of the whole, so two stay apart.
    if subject.len() > SUBJECT_MAX {
        let hex = specs::short_hash(&r.subject);
        subject.truncate(SUBJECT_MAX - hex.len() - 1);
        subject = format!("{subject}-{hex}");
    }
    if subject.is_empty() {
        format!("{}.c", r.case)
    } else {
        format!("{}--{subject}.c", r.case)
    }
}

/// The longest subject part of a reproducer's file name, in bytes (ASCII): with a case
/// id of up to about 100 bytes the name stays under NAME_MAX (255).
const SUBJECT_MAX: usize = 120;

/// `run --repro`: a reproducer for each fail/crash/timeout of the report (at most
/// `per_case` subjects of a case), written into `dir`; sets each result's `repro`.
/// Returns (written, cases that have no C translation).
pub fn write_all(
    report: &mut Report,
    dir: &Path,
    suite: &Suite,
    clauses: &Clauses,
    per_case: usize,
) -> std::io::Result<(usize, Vec<String>)> {
    let origin = Origin::of(report);
    let mut written = 0;
    let mut unsupported = Vec::new();
    let mut per: std::collections::BTreeMap<String, usize> = Default::default();
    std::fs::create_dir_all(dir)?;
    for r in report.results.iter_mut() {
        if !reproducible(r) {
            continue;
        }
        let n = per.entry(r.case.clone()).or_default();
        if *n >= per_case {
            continue;
        }
        let Some(case) = suite.get(&r.case) else {
            continue;
        };
        match c_program(case, r, &origin, clauses) {
            Ok(text) => {
                let name = file_name(r);
                let path: PathBuf = dir.join(&name);
                atomic_write(&path, text.as_bytes()).map_err(std::io::Error::other)?;
                r.repro = Some(format!(
                    "{}/{name}",
                    dir.file_name().and_then(|d| d.to_str()).unwrap_or("repro")
                ));
                r.repro_source = Some(text);
                *n += 1;
                written += 1;
            }
            // The case (and why) is named once, in the run's line about reproducers.
            Err(e) => {
                let why = match e {
                    ReproError::Unsupported(u) => format!("{} ({})", r.case, u.why),
                    ReproError::BadInput(m) => format!("{} ({m})", r.case),
                };
                if !unsupported
                    .iter()
                    .any(|u: &String| u.starts_with(&format!("{} (", r.case)))
                {
                    unsupported.push(why);
                }
            }
        }
    }
    Ok((written, unsupported))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::{Area, CaseMeta, Level, Oracle};

    fn result(subject: &str) -> CaseResult {
        let meta = CaseMeta {
            case: "differential.cvar_get_info.c822a104",
            area: Area::Differential,
            level: Level::Must,
            clause: "MPI-4.1 §15.3.3",
            oracle: Oracle::Differential,
        };
        CaseResult::new(meta, subject.into(), Status::Fail, String::new())
    }

    /// A warning's program counts what `--strict` fails (it defines REPRO_STRICT before
    /// the prelude reads it); a fail's does not. `any_error` is an MPI_T code in C too:
    /// MPICH's MPI_ERR_INTERN from `pvar_write` with ALL_HANDLES passed as "an error
    /// code" before (all_handles.write.rejected).
    #[test]
    fn a_warnings_program_counts_what_strict_fails() {
        let src = specs::Source::Bundled;
        let suite = Suite::load(&src).unwrap();
        let clauses = Clauses::load(&src).unwrap();
        let case = suite.get("all_handles.write.rejected").unwrap();
        let origin = Origin {
            path: "libmpi.so".into(),
            library: "an MPI".into(),
            family: "mpich".into(),
            sha256: String::new(),
        };
        let meta = CaseMeta {
            case: "all_handles.write.rejected",
            area: Area::AllHandles,
            level: Level::Robustness,
            clause: "MPI-4.1 §15.3.7",
            oracle: Oracle::Spec,
        };
        let program = |status| {
            let r = CaseResult::new(meta, String::new(), status, String::new());
            c_program(case, &r, &origin, &clauses).unwrap()
        };
        let warn = program(Status::Warn);
        let (define, include) = (
            warn.find("#define REPRO_STRICT 1\n"),
            warn.find("#include <mpi.h>"),
        );
        assert!(matches!((define, include), (Some(d), Some(i)) if d < i));
        assert!(warn.contains("is_t_err(rc)"), "any_error is an MPI_T code");
        assert!(!program(Status::Fail).contains("#define REPRO_STRICT"));
    }

    /// A subject of any length gives a file name under NAME_MAX (the reference's
    /// 300-character cvar name made fuzz-props' replay fail with ENAMETOOLONG), and two
    /// long subjects with the same start stay apart; a short one is kept whole.
    #[test]
    fn file_names_stay_under_name_max() {
        let long = format!("cvar 15 ref_{}", "abcdefghij".repeat(30));
        let a = file_name(&result(&long));
        let b = file_name(&result(&format!("{long}x")));
        assert!(a.len() <= 255 && b.len() <= 255, "{a} {b}");
        assert_ne!(a, b);
        assert!(a.starts_with("differential.cvar_get_info.c822a104--cvar-15-ref_abcdefghij"));
        assert_eq!(
            file_name(&result("cvar 1 x")),
            "differential.cvar_get_info.c822a104--cvar-1-x.c"
        );
    }
}
