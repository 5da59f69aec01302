//! `mpit-conform [run] --lib ...`, `list` and `coverage`: the suite from the command
//! line to the reports on disk and the exit code.

use super::RunArgs;
use anyhow::{bail, Context, Result};
use mpit_conform::coverage;
use mpit_conform::runner::usage::{open_fds, RunUsage};
use mpit_conform::runner::{self, Config, Progress};
use mpit_conform::workflows::model_check;
use mpit_process::{on_ctrl_c, out, outln};
use mpit_report::diff::diff;
use mpit_report::exit_code;
use mpit_report::json;
use mpit_report::matrix::Matrix;
use mpit_report::{
    capability_cell, today, write_all, write_history, write_matrix, write_matrix_as,
};
use mpit_report::{Report, Waivers};
use mpit_spec::cases::clauses::Clauses;
use mpit_spec::cases::Suite;
use mpit_spec::specs::Source;
use mpit_spec::verdict::Status;
use mpit_target::lib_exists;
use mpit_target::AbiChoice;
// Two `write_all`s: the reports' (report.json and its renderings) and the reproducers'.
use mpit_repro::write_all as write_reproducers;
use mpit_vocab::profile::AbiProfile;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// `--specs DIR` / `--case-file FILE`, or the bundle in the binary.
pub(super) fn specs_dir(specs: Option<PathBuf>) -> Source {
    Source::from_option(specs)
}

pub fn run(a: &RunArgs) -> Result<u8> {
    if a.libs.is_empty() {
        bail!("--lib PATH is required (the MPI library to judge)");
    }
    for lib in &a.libs {
        if !lib_exists(lib) {
            bail!("{}: no such file", lib.display());
        }
    }
    // Bad input is found before any worker starts: cases, profile file, waivers, baseline,
    // launcher.
    let launcher = a
        .launcher
        .as_deref()
        .map(runner::ranks::parse_launcher)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    if launcher.is_some() && a.model_check {
        // The reference has no launcher: the cross-rank results would have no match.
        bail!("--model-check goes without --launcher (run the cross-rank check on its own)");
    }
    if launcher.is_some() && a.libs.len() > 1 {
        bail!("--launcher goes with one --lib (each library needs its own launcher)");
    }
    if let Some(f) = &a.case_file {
        if !f.is_file() {
            bail!("--case-file {}: no such file", f.display());
        }
    }
    let specs = specs_dir(a.case_file.clone().or_else(|| a.specs.clone()));
    Suite::load(&specs)?;
    let abi: AbiChoice = a.abi.parse().map_err(anyhow::Error::msg)?;
    if let AbiChoice::File(p) = &abi {
        AbiProfile::load(p)?;
    }
    let waivers = a.waivers.as_deref().map(Waivers::load).transpose()?;
    let baseline = a
        .baseline
        .as_deref()
        .map(json::read)
        .transpose()
        .context("--baseline")?;
    let stop = Arc::new(AtomicBool::new(false));
    // Ctrl-C: stop the workers, write what there is, marked interrupted.
    let _ = on_ctrl_c(stop.clone());
    let fds_start = open_fds();
    let progress = if a.quiet {
        Progress::Quiet
    } else if std::io::stderr().is_terminal() {
        Progress::Bar
    } else {
        Progress::Lines
    };
    let reference = a.model_check.then(model_check::reference);
    let several = a.libs.len() > 1;
    let mut reports: Vec<Report> = Vec::new();
    let mut code = exit_code::OK;
    for lib in &a.libs {
        let cfg = Config {
            lib: lib.clone(),
            abi: a.abi.clone(),
            force: a.force,
            strict: a.strict,
            jobs: a.jobs,
            timeout: Duration::from_secs(a.timeout.max(1)),
            specs: specs.clone(),
            cases: a.cases.clone(),
            areas: a.areas.clone(),
            progress,
            launcher: launcher.clone(),
            max_time: Some(a.max_time),
            env: Vec::new(),
            zygote: a.workers.forks(),
        };
        let mut rep = runner::run(&cfg, stop.clone())?;
        let out = if several {
            a.out.join(lib_dir_name(lib))
        } else {
            a.out.clone()
        };
        if let Some(r) = reference.as_deref().filter(|_| !rep.interrupted) {
            model_check::check(&cfg, r, &mut rep, &out, stop.clone());
        }
        rep.tool.specs = Some(specs.provenance());
        rep.options.baseline = a.baseline.as_ref().map(|p| p.display().to_string());
        rep.options.waivers = a.waivers.as_ref().map(|p| p.display().to_string());
        if let Some(w) = &waivers {
            let outcome = w.apply(&mut rep, &today());
            for n in outcome.notes() {
                eprintln!("mpit-conform: {n}");
            }
        }
        let junit = a.junit.as_ref().map(|j| {
            if several {
                out.join("junit.xml")
            } else {
                j.clone()
            }
        });
        if a.repro {
            // Written before the reports, which link each file.
            let suite = Suite::load(&specs)?;
            let clauses = Clauses::load(&specs)?;
            let (n, unsupported) =
                write_reproducers(&mut rep, &out.join("repro"), &suite, &clauses, 3)
                    .with_context(|| format!("cannot write {}", out.join("repro").display()))?;
            eprintln!(
                "mpit-conform: {n} reproducers in {}{}",
                out.join("repro").display(),
                if unsupported.is_empty() {
                    String::new()
                } else {
                    format!("; no C translation for {}", unsupported.join(", "))
                }
            );
        }
        let w = write_all(&rep, &out, junit.as_deref())?;
        print_summary(&rep, &w.json);
        code = code.max(exit_code(&rep, baseline.as_ref()));
        if let Some(b) = &baseline {
            let d = diff(b, &rep);
            out!("{}", d.render(b, &rep));
        }
        let interrupted = rep.interrupted;
        reports.push(rep);
        if interrupted {
            break;
        }
    }
    if several {
        let [md, html] = write_matrix(&reports, &a.out)?;
        outln!("matrix: {} {}", md.display(), html.display());
    }
    if let Some(f) = &a.bench_stats {
        // Last, so the peak RSS covers writing the reports too.
        let u = RunUsage::now(fds_start);
        std::fs::write(f, serde_json::to_string(&u)?)
            .with_context(|| format!("--bench-stats {}", f.display()))?;
    }
    Ok(code)
}

/// A directory name for one library's reports: its file name, made unique by the
/// parent directory (two `libmpi.so.12` from different installs).
fn lib_dir_name(lib: &Path) -> String {
    let file = lib
        .file_name()
        .map_or_else(|| "lib".into(), |f| f.to_string_lossy().into_owned());
    let parent = lib
        .parent()
        .and_then(|p| {
            p.components().rev().find(|c| {
                !matches!(
                    c.as_os_str().to_str(),
                    Some("lib" | "lib64" | "x86_64-linux-gnu")
                )
            })
        })
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    match parent {
        Some(p) => format!("{p}-{file}"),
        None => file,
    }
}

fn print_summary(r: &Report, json: &Path) {
    let t = &r.target;
    outln!("mpit-conform {} — {}", env!("CARGO_PKG_VERSION"), t.path);
    if let Some(d) = &t.detection {
        outln!("detected {d}");
    }
    outln!(
        "ABI profile {}; MPI {}; {}",
        t.abi_profile,
        t.mpi_version.as_deref().unwrap_or("?"),
        t.library_version.lines().next().unwrap_or("")
    );
    if !t.unresolved.is_empty() {
        outln!(
            "ABI profile names objects the library does not export: {}",
            t.unresolved.join(", ")
        );
    }
    let counts: Vec<String> = t.counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
    outln!("catalog: {}", counts.join(", "));
    if let Some(n) = r.workers_started {
        outln!("workers: {} at once, {n} started", r.options.jobs);
    }
    if let Some(c) = &r.capabilities {
        let [e, s, f] = c.rows().map(|(k, c)| capability_cell(c, k));
        outln!("capabilities: events {e}, sources {s}, MPI-4.0 functions {f}");
    }
    outln!("{}", r.results_line());
    if let Some(m) = &r.model_check {
        outln!(
            "model check (the reference serving this catalog), the fails, warns and crashes: \
             {}{}",
            m.tally.line(),
            match m.tally.model_only.len() {
                0 => String::new(),
                n => format!("; {n} results the reference has and the library not"),
            }
        );
    }
    outln!("report: {}", json.display());
}

pub fn list(cases: &[String], areas: &[String], specs: Option<PathBuf>) -> Result<u8> {
    let suite = Suite::load(&specs_dir(specs))?;
    let sel = runner::plan::select(&suite, cases, areas).map_err(anyhow::Error::msg)?;
    for c in &sel {
        let each = c
            .for_each
            .map_or(String::new(), |k| format!(" for each {}", k.as_str()));
        outln!(
            "{:<48} {:<10} {:<28}{each}",
            c.id,
            c.level.as_str(),
            c.clause_text()
        );
    }
    outln!("{} cases", sel.len());
    Ok(exit_code::OK)
}

/// `reports`: the published reports' directory (`reference/report.json.gz` and one
/// `<target>/report.json.gz` per real library); absent, only citations are counted.
pub fn coverage(specs: Option<PathBuf>, with_launcher: bool, reports: &Path) -> Result<u8> {
    let src = specs_dir(specs);
    let suite = Suite::load(&src)?;
    let clauses = Clauses::load(&src)?;
    let mut c = coverage::measure(&clauses, &suite, with_launcher)?;
    let reference = reports.join("reference/report.json.gz");
    if reference.is_file() {
        let read = |p: &Path| json::read(p).with_context(|| format!("reading {}", p.display()));
        let mut real = Vec::new();
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(reports)
            .with_context(|| format!("reading {}", reports.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|d| d.file_name().is_some_and(|n| n != "reference"))
            .filter(|d| d.join("report.json.gz").is_file())
            .collect();
        dirs.sort();
        for d in dirs {
            let name = d.file_name().map(|n| n.to_string_lossy().into_owned());
            real.push((name.unwrap_or_default(), read(&d.join("report.json.gz"))?));
        }
        c.judge(&read(&reference)?, &real);
    } else {
        eprintln!(
            "coverage: no {} (the published reports): only citations are counted, not \
             verdicts; --reports DIR names them",
            reference.display()
        );
    }
    out!("{}", c.render());
    Ok(exit_code::OK)
}

/// `mpit-conform matrix [LABEL=]REPORT...`: reports written earlier, side by side.
pub fn matrix(args: &[String], out: &Path) -> Result<[std::path::PathBuf; 2]> {
    let (reports, labels) = labeled_reports(args)?;
    let m = Matrix::labeled(&reports, labels);
    Ok(write_matrix_as(&reports, &m, out)?)
}

/// `mpit-conform matrix --history`: the columns are releases, `family/version=REPORT`.
pub fn history(
    args: &[String],
    published: &[String],
    findings: Option<&Path>,
    out: &Path,
) -> Result<Vec<std::path::PathBuf>> {
    let (reports, labels) = labeled_reports(args)?;
    if let Some(l) = labels.iter().find(|l| !l.contains('/')) {
        anyhow::bail!("--history: the label {l:?} is not family/version");
    }
    let mut map = std::collections::BTreeMap::new();
    for p in published {
        let Some((t, l)) = p.split_once('=') else {
            anyhow::bail!("--published {p:?}: want TARGET=family/version");
        };
        map.insert(t.to_string(), l.to_string());
    }
    Ok(write_history(&reports, labels, map, findings, out)?)
}

/// The reports of `[LABEL=]REPORT` arguments, and their column labels (a report without
/// one gets the matrix's label from its library's path).
fn labeled_reports(args: &[String]) -> Result<(Vec<Report>, Vec<String>)> {
    let mut reports = Vec::new();
    let mut labels = Vec::new();
    for a in args {
        // A label is given only before the first '=' of an argument whose file does not
        // exist as written (a path may contain '=').
        let (label, path) = match a.split_once('=') {
            Some((l, p)) if !Path::new(a).exists() && !l.is_empty() => (Some(l), Path::new(p)),
            _ => (None, Path::new(a.as_str())),
        };
        reports.push(json::read(path)?);
        labels.push(label.map(str::to_string));
    }
    let auto = Matrix::new(&reports).labels;
    let labels = labels
        .into_iter()
        .zip(auto)
        .map(|(l, a)| l.unwrap_or(a))
        .collect();
    Ok((reports, labels))
}

/// `diff --allow CASE:STATUS,STATUS` arguments (`absent`: no such result, `None`).
pub fn allowed(args: &[String]) -> Result<Vec<(String, Vec<Option<Status>>)>> {
    args.iter()
        .map(|a| {
            let Some((case, list)) = a.rsplit_once(':') else {
                anyhow::bail!("--allow {a:?}: want CASE:STATUS,STATUS");
            };
            let statuses = list
                .split(',')
                .map(|s| match s {
                    "absent" => Ok(None),
                    s => serde_json::from_value(serde_json::json!(s))
                        .map(Some)
                        .map_err(|_| anyhow::anyhow!("--allow {a:?}: {s:?} is no status")),
                })
                .collect::<Result<Vec<_>>>()?;
            Ok((case.to_string(), statuses))
        })
        .collect()
}
