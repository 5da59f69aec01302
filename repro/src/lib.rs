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
//! is written in C; `program` is the frame around the case (header comment, lookup of
//! the subject, main()), and `helpers` the C beside this file of which a program carries
//! only what its case reaches.

mod call;
mod checks;
pub mod ctext;
pub mod emit;
pub mod findings;
mod helpers;
pub mod issue;
mod loops;
mod program;
pub mod table;

pub use emit::{Subject, Unsupported};
pub use mpit_report::bug::reproducible;
use mpit_report::json::atomic_write;
use mpit_report::Report;
use mpit_spec::cases::clauses::Clauses;
use mpit_spec::cases::funcs::Func;
use mpit_spec::cases::{Case, SubjectKind, Suite};
use mpit_spec::specs;
use mpit_spec::verdict::{CaseResult, Status};
pub use program::c_program;
use std::path::{Path, PathBuf};

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
    /// The releases the result's case is unexpected in, per family, from the release
    /// history (`repro --history`), for the bug report's header.
    pub releases: Vec<String>,
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
            releases: Vec::new(),
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
    use mpit_spec::verdict::{Area, CaseMeta, Level, Oracle};

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
    /// helpers.c reads it); a fail's does not. `any_error` is an MPI_T code in C too:
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
            releases: Vec::new(),
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
        assert!(!program(Status::Fail).contains("#define REPRO_STRICT 1"));
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
