//! Property-test and fuzz-oracle throughput against the reference cdylib:
//! sequences per second of the differential property tests, in this process (the
//! `InProcess` engine, as the `ops_differential` fuzz target runs them) and through a
//! worker (`Remote`, what `mpit-conform fuzz-props` does); and executions per second of
//! each fuzz oracle of `mpit_conform::fuzzing`, called as the cargo-fuzz targets call them, on
//! the seed corpus and deterministic generated inputs, without libFuzzer (no coverage
//! instrumentation, no mutation engine).
//!
//! As for the floor, the library runs only in child processes (`__bench-probe` with a
//! [`Task::Props`] or [`Task::Fuzz`]): one per engine and one per oracle, since the
//! in-process oracles hold an MPI_T init of the library for the life of the process.

use super::probe::{Answer, FuzzFigures, Measured, Probe, PropsFigures, PropsRun, Task};
use super::{loadavg, BenchError, LibSpec, Spread};
use mpit_conform::differential::props::{self, Search};
use mpit_conform::differential::target::InProcess;
use mpit_conform::differential::{Mirror, Mode};
use mpit_conform::fuzzing::{self, ops_differential};
use mpit_conform::runner::remote::Remote;
use mpit_reference::ENV_CATALOG;
use mpit_vocab::catalog::Catalog;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The fuzz oracles, by the name of their cargo-fuzz target.
pub const ORACLES: [&str; 5] = [
    "strings",
    "catalog_yaml",
    "spec_yaml",
    "reference_ffi",
    "ops_differential",
];

/// Generated inputs per oracle besides the seeds (cycled through for the whole window).
pub const GENERATED: usize = 2048;

/// Everything this module measures.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Throughput {
    pub lib: PathBuf,
    pub props: Vec<PropsFigures>,
    pub fuzz: Vec<FuzzFigures>,
    /// Why a figure is missing.
    pub notes: Vec<String>,
}

impl Throughput {
    pub fn props(&self, engine: &str) -> Option<&PropsFigures> {
        self.props
            .iter()
            .find(|p| p.engine == engine && !p.runs.is_empty())
    }
    pub fn fuzz(&self, oracle: &str) -> Option<&FuzzFigures> {
        self.fuzz
            .iter()
            .find(|f| f.oracle == oracle && !f.windows.is_empty())
    }
}

/// How much to measure.
#[derive(Debug, Clone)]
pub struct Budget {
    pub props_runs: usize,
    pub props_cases: u32,
    pub props_cases_in_process: u32,
    pub props_max_len: usize,
    pub fuzz_windows: usize,
    pub fuzz_ms: u64,
    pub corpus: PathBuf,
}

/// Supervisor side: one child per engine and per oracle.
pub fn measure(lib: &LibSpec, b: &Budget, timeout: Duration) -> Result<Throughput, BenchError> {
    let mut t = Throughput {
        lib: lib.path.clone(),
        ..Throughput::default()
    };
    let mut ask = |task: Task, what: &str| match super::floor::probe(lib, task, timeout) {
        Ok((_, Answer::Throughput(m))) => Some(m),
        Ok((_, Answer::Failed(e))) => {
            t.notes.push(format!("{what}: {e}"));
            None
        }
        Ok((_, other)) => {
            t.notes.push(format!("{what}: unexpected answer {other:?}"));
            None
        }
        Err(e) => {
            t.notes.push(format!("{what}: {e}"));
            None
        }
    };
    let mut props = Vec::new();
    let mut fuzz = Vec::new();
    if b.props_runs > 0 {
        for remote in [false, true] {
            let task = Task::Props {
                remote,
                runs: b.props_runs,
                cases: if remote {
                    b.props_cases
                } else {
                    b.props_cases_in_process
                },
                max_len: b.props_max_len,
            };
            if let Some(Measured::Props(p)) = ask(task, "property tests") {
                props.push(p);
            }
        }
    }
    if b.fuzz_windows > 0 {
        for oracle in ORACLES {
            let task = Task::Fuzz {
                oracle: oracle.to_string(),
                corpus: b.corpus.join(oracle),
                windows: b.fuzz_windows,
                window_ms: b.fuzz_ms,
            };
            if let Some(Measured::Fuzz(f)) = ask(task, oracle) {
                fuzz.push(f);
            }
        }
    }
    t.props = props;
    t.fuzz = fuzz;
    Ok(t)
}

/// Child side: the measurement `p.task` asks for.
pub fn answer(p: &Probe) -> Result<Answer, String> {
    match &p.task {
        Task::Props {
            remote,
            runs,
            cases,
            max_len,
        } => props_figures(&p.lib, &p.abi, *remote, *runs, *cases, *max_len)
            .map(|f| Answer::Throughput(Measured::Props(f))),
        Task::Fuzz {
            oracle,
            corpus,
            windows,
            window_ms,
        } => fuzz_figures(&p.lib, oracle, corpus, *windows, *window_ms)
            .map(|f| Answer::Throughput(Measured::Fuzz(f))),
        _ => Err("not a throughput task".into()),
    }
}

/// `runs` property-test searches (valid calls, MPI_T held initialized: fuzz-props's
/// main mode), seeds 1..=runs.
fn props_figures(
    lib: &Path,
    abi: &str,
    remote: bool,
    runs: usize,
    cases: u32,
    max_len: usize,
) -> Result<PropsFigures, String> {
    let load = loadavg();
    let mode = Mode {
        robustness: false,
        lifecycle: false,
    };
    let search = |seed: u64| Search {
        cases,
        seed,
        max_len,
        mode,
        strict: false,
        known: Default::default(),
        time_limit: None,
    };
    let mut out = PropsFigures {
        engine: if remote { "worker" } else { "in-process" }.into(),
        cases,
        max_len,
        load,
        ..PropsFigures::default()
    };
    let record = |f: props::Findings, workers: u64| {
        let ms = f.elapsed.as_secs_f64() * 1000.0;
        PropsRun {
            sequences: f.sequences,
            ops: f.ops,
            calls: f.calls,
            elapsed_ms: ms,
            per_s: f.sequences as f64 * 1000.0 / ms.max(1e-9),
            workers,
            divergences: f.warnings.len() as u64 + u64::from(f.failure.is_some()),
        }
    };
    if remote {
        // As `fuzz-props` mirrors the reference: its own catalog, every value exact,
        // the simulate hook on (sequences that leave traces get a fresh worker).
        let c = match std::env::var_os(ENV_CATALOG) {
            Some(f) => Catalog::load(Path::new(&f)).map_err(|e| e.to_string())?,
            None => Catalog::default_catalog(),
        };
        let m = Arc::new(Mirror::of_catalog(c, "the reference's catalog".into()));
        for seed in 1..=runs as u64 {
            let mut r = Remote::new(
                lib.to_path_buf(),
                abi.to_string(),
                false,
                Duration::from_secs(10),
                m.clone(),
                Default::default(),
            );
            let f = props::search(m.clone(), &search(seed), &mut r).map_err(|e| e.to_string())?;
            out.runs.push(record(f, r.started));
        }
    } else {
        // As the ops_differential fuzz target sets up: the library opened here, one
        // MPI_T init held, values compared only where the calls determine them.
        let s = ops_differential::open(lib)?;
        for seed in 1..=runs as u64 {
            let mut e = InProcess {
                target: &s.target,
                mirror: &s.mirror,
            };
            let f = props::search(s.mirror.clone(), &search(seed), &mut e)
                .map_err(|e| e.to_string())?;
            out.runs.push(record(f, 0));
        }
    }
    out.per_s = Spread::of(out.runs.iter().map(|r| r.per_s).collect());
    Ok(out)
}

/// The seed files of `dir`, sorted by name (none if it does not exist).
fn seeds(dir: &Path) -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.is_file());
    files.sort();
    files.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// The oracle function the cargo-fuzz target of that name calls.
fn oracle_fn(name: &str) -> Option<fn(&[u8])> {
    use mpit_conform::fuzzing::*;
    Some(match name {
        "strings" => strings::run,
        "catalog_yaml" => catalog_yaml::run,
        "spec_yaml" => spec_yaml::run,
        "reference_ffi" => reference_ffi::run,
        "ops_differential" => ops_differential::run,
        _ => return None,
    })
}

/// Every seed once (the oracle's one-time setup happens there), then `windows` windows
/// of `window_ms` each cycling through seeds and generated inputs.
fn fuzz_figures(
    lib: &Path,
    oracle: &str,
    corpus: &Path,
    windows: usize,
    window_ms: u64,
) -> Result<FuzzFigures, String> {
    let run = oracle_fn(oracle).ok_or_else(|| format!("no oracle {oracle}"))?;
    // The library the in-process oracles load (their targets read these variables).
    std::env::set_var(fuzzing::ENV_REFERENCE_LIB, lib);
    std::env::set_var("MPIT_FUZZ_LIB", lib);
    let load = loadavg();
    let seeds = seeds(corpus);
    let gen = fuzzing::generated(&seeds, GENERATED, 0x5eed_b000 ^ oracle.len() as u64);
    let inputs: Vec<&[u8]> = seeds.iter().chain(gen.iter()).map(Vec::as_slice).collect();
    let mut out = FuzzFigures {
        oracle: oracle.to_string(),
        seeds: seeds.len(),
        generated: gen.len(),
        mean_bytes: inputs.iter().map(|b| b.len()).sum::<usize>() as f64
            / inputs.len().max(1) as f64,
        load,
        ..FuzzFigures::default()
    };
    for b in &seeds {
        run(b);
    }
    let window = Duration::from_millis(window_ms.max(1));
    let mut k = 0usize;
    for _ in 0..windows.max(1) {
        let t = Instant::now();
        let mut n = 0u64;
        while t.elapsed() < window {
            run(inputs[k % inputs.len()]);
            k += 1;
            n += 1;
        }
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        out.windows.push((n, ms));
    }
    out.exec_per_s = Spread::of(
        out.windows
            .iter()
            .map(|(n, ms)| *n as f64 * 1000.0 / ms.max(1e-9))
            .collect(),
    );
    Ok(out)
}
