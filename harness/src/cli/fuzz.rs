//! `mpit-conform fuzz-props` (property tests of the differential oracle against any
//! library) and `mpit-conform replay` (a cargo-fuzz artifact of `ops_differential`
//! replayed in a worker, optionally written out as a YAML case): the flags, and what
//! `workflows::fuzz_props` and `workflows::replay` return, printed.

use super::TargetArgs;
use anyhow::{bail, Context, Result};
use mpit_conform::differential::props::Found;
use mpit_conform::differential::Mode;
use mpit_conform::workflows::fuzz_props;
use mpit_conform::workflows::replay::{self, Replay};
use mpit_conform::workflows::replayed::Replayed;
use mpit_process::{on_ctrl_c, outln};
use mpit_report::exit_code;
use mpit_target::LINKED_REFERENCE;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct FuzzPropsArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Sequences each search generates (split across the modes: most with MPI_T held
    /// initialized, a quarter from an uninitialized fresh process, and with
    /// --robustness half as many with invalid arguments).
    #[arg(long, default_value_t = 256)]
    pub cases: u32,
    /// The random seed (printed; the same seed on the same library repeats the run).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Searches side by side, each with its own seed and workers and all of --cases
    /// (default: the number of cores). The first uses --seed: it is the search `-j 1`
    /// makes, and the others add sequences; another's seed is printed with its failure.
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
    /// Longest sequence generated.
    #[arg(long, default_value_t = 24)]
    pub max_len: usize,
    /// Also generate invalid arguments (stale, NULL and foreign handles, indices out
    /// of range): judged at robustness level.
    #[arg(long)]
    pub robustness: bool,
    /// SHOULD and robustness divergences fail (and are shrunk) too.
    #[arg(long)]
    pub strict: bool,
    /// A known deviation to pass over and keep exploring (repeatable): a rule id, or
    /// RULE:FUNCTION (e.g. R-INIT-1:MPI_T_init_thread, Open MPI's F-9).
    #[arg(long, value_name = "RULE[:FUNCTION]")]
    pub known: Vec<String>,
    /// Never allocate a handle for the entries matching (repeatable; KIND is cvar, pvar
    /// or event), e.g. pvar:mtl_psm2_* (Open MPI 4.1.4's F-10). A crash is never passed
    /// over as known: this is how exploration gets past a call that crashes.
    #[arg(long, value_name = "KIND:GLOB")]
    pub avoid: Vec<String>,
    /// Stop after the first mode that fails (one shrunk case, not one per mode).
    #[arg(long)]
    pub fail_fast: bool,
    /// The catalog the library is meant to serve (default: read from the library).
    #[arg(long, value_name = "FILE.yaml")]
    pub catalog: Option<PathBuf>,
    /// Stop generating after this many seconds per mode (shrinking still finishes).
    #[arg(long, value_name = "SECS")]
    pub time_limit: Option<u64>,
    #[command(flatten)]
    pub workers: super::WorkersArgs,
    /// Where the YAML case of a failure is written.
    #[arg(long, value_name = "DIR", default_value = "reports/fuzz-props")]
    pub out: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// A file cargo-fuzz wrote (fuzz/artifacts/ops_differential/crash-...).
    pub artifact: PathBuf,
    /// The library to replay on (default: $MPIT_FUZZ_LIB, else the reference linked
    /// into this binary, `builtin:reference`).
    #[arg(long)]
    pub lib: Option<PathBuf>,
    #[arg(long, default_value = "auto")]
    pub abi: String,
    #[arg(long, default_value_t = 10)]
    pub timeout: u64,
    /// Write the divergence as a YAML case (into --out).
    #[arg(long)]
    pub emit_case: bool,
    #[arg(long, value_name = "DIR", default_value = "reports/fuzz-props")]
    pub out: PathBuf,
}

fn mode_name(m: Mode) -> &'static str {
    match (m.lifecycle, m.robustness) {
        (false, false) => "valid calls, MPI_T initialized",
        (true, false) => "lifecycle: fresh process, MPI_T not initialized",
        (false, true) => "robustness: invalid arguments too",
        (true, true) => "lifecycle and robustness",
    }
}

fn print_found(found: &Found) {
    let d = &found.divergence;
    outln!(
        "  DIVERGENCE ({:?}, {}) at call {} of {}: {}",
        d.level,
        d.rule,
        d.step + 1,
        found.run.len(),
        d.what
    );
    outln!("    expected (reference model): {}", d.expected);
    outln!("    actual (library):           {}", d.actual);
    outln!("    minimal sequence:");
    for (i, op) in found.run.iter().enumerate().take(d.step + 1) {
        outln!("      {:>2}. {op}", i + 1);
    }
}

pub fn fuzz_props(a: &FuzzPropsArgs) -> Result<u8> {
    let setup = super::request(&a.target)?;
    let _ = on_ctrl_c(setup.stop.clone());
    let lib = setup.hello.lib.clone();
    let o = fuzz_props::Options {
        cases: a.cases,
        seed: a.seed,
        max_len: a.max_len,
        robustness: a.robustness,
        strict: a.strict,
        known: a.known.clone(),
        avoid: a.avoid.clone(),
        fail_fast: a.fail_fast,
        catalog: a.catalog.clone(),
        time_limit: a.time_limit,
        out: a.out.clone(),
        forks: a.workers.forks(),
        jobs: jobs(a),
    };
    let out = fuzz_props::run(&setup, &o, &mut |s| print_start(s, a, &lib), &mut |run| {
        print_mode(run, a, &lib)
    })?;
    if out.stopped_early {
        outln!("fuzz-props: --fail-fast: the modes after this one were not run");
    }
    outln!(
        "fuzz-props: {} failing mode(s), {} warning(s); {} case(s) \
         written, {} reproducing the divergence on replay",
        out.failures,
        out.warnings,
        out.written,
        out.reproduced
    );
    Ok(if out.failures > 0 {
        exit_code::FINDINGS
    } else {
        exit_code::OK
    })
}

/// `-j`, else the cores this process may use.
fn jobs(a: &FuzzPropsArgs) -> usize {
    a.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    )
}

fn print_start(s: &fuzz_props::Start, a: &FuzzPropsArgs, lib: &Path) {
    for l in s.left_out {
        eprintln!("fuzz-props: not read, left out: {l}");
    }
    let m = s.mirror;
    let streams = match jobs(a) {
        1 => String::new(),
        n => format!(", {n} searches side by side"),
    };
    outln!(
        "fuzz-props: {} (seed {}{streams}); catalog {}: {} cvars, {} pvars, {} categories, {} events, {} sources",
        lib.display(),
        a.seed,
        m.source,
        m.catalog.cvars.len(),
        m.catalog.pvars.len(),
        m.catalog.categories.len(),
        m.catalog.events.len(),
        m.catalog.sources.len()
    );
    if !a.avoid.is_empty() {
        outln!(
            "  no handle is allocated for {} entries ({})",
            s.avoided,
            a.avoid.join(", ")
        );
    }
}

fn print_mode(run: &fuzz_props::ModeRun, a: &FuzzPropsArgs, lib: &Path) {
    let f = &run.findings;
    let secs = f.elapsed.as_secs_f64().max(1e-9);
    outln!(
        "{}: {} sequences, {} calls in {:.2} s ({:.0} sequences/s), {} workers started, \
         {} forked ({})",
        mode_name(run.mode),
        f.sequences,
        f.calls,
        secs,
        f.sequences as f64 / secs,
        run.workers,
        run.forked.0,
        run.forked.1
    );
    if !a.known.is_empty() {
        outln!(
            "  {} divergence(s) passed over as known ({})",
            run.known_hits,
            a.known.join(", ")
        );
    }
    for w in &f.warnings {
        outln!(
            "  warn ({:?}, {}) {}: {}",
            w.level,
            w.rule,
            w.function,
            w.what
        );
    }
    if let Some(found) = &f.failure {
        print_found(found);
        if let Some((k, seed)) = run.found_by {
            outln!(
                "    found by search {} (seed {seed}: `--seed {seed} -j 1` repeats it)",
                k + 1
            );
        }
    }
    if let Some((path, replayed)) = &run.case {
        outln!(
            "    case written: {}\n    replay: mpit-conform run --case-file {} --lib {}\n    {}",
            path.display(),
            path.display(),
            lib.display(),
            line(replayed)
        );
    }
}

pub fn replay(a: &ReplayArgs) -> Result<u8> {
    let meta = std::fs::metadata(&a.artifact)
        .with_context(|| format!("{}: cannot read", a.artifact.display()))?;
    if !meta.is_file() {
        bail!(
            "{}: not a file (a cargo-fuzz artifact is one file)",
            a.artifact.display()
        );
    }
    let bytes = std::fs::read(&a.artifact)?;
    let lib = a
        .lib
        .clone()
        .or_else(|| std::env::var_os("MPIT_FUZZ_LIB").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(LINKED_REFERENCE));
    let setup = super::request(&TargetArgs {
        lib: Some(lib.clone()),
        abi: a.abi.clone(),
        force: false,
        timeout: a.timeout,
    })?;
    let on_start = &mut |left_out: &[String], calls: usize, mode: Mode| {
        for l in left_out {
            eprintln!("fuzz-props: not read, left out: {l}");
        }
        outln!(
            "replay: {} calls ({}) on {}",
            calls,
            mode_name(mode),
            lib.display()
        );
    };
    match replay::run(&setup, &bytes, a.emit_case, &a.out, on_start)? {
        Replay::NotAnArtifact => bail!(
            "{}: not an ops_differential artifact: its {} bytes decode to no MPI_T call",
            a.artifact.display(),
            bytes.len()
        ),
        Replay::Agrees => {
            outln!("no divergence: the library agrees with the reference on this sequence");
            Ok(exit_code::OK)
        }
        Replay::Diverges(d) => {
            print_found(&d.found);
            if let Some((path, replayed)) = &d.case {
                outln!(
                    "    case written: {}\n    {}",
                    path.display(),
                    line(replayed)
                );
            }
            Ok(exit_code::FINDINGS)
        }
    }
}

/// The lines printed under `case written:`: the replay's outcome, then the C
/// reproducers written from it.
pub fn line(r: &Replayed) -> String {
    if r.reproduces() {
        let mut l = format!("replayed: {} ({}): {}", r.status, r.case, r.message);
        for p in &r.programs {
            l.push_str(&format!("\n    C reproducer: {p}"));
        }
        l
    } else {
        format!(
            "replayed: {} ({}): the case does NOT reproduce the divergence: {}",
            r.status, r.case, r.message
        )
    }
}
