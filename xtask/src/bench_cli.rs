//! `cargo xtask bench`: the command line of `crate::bench` (inputs checked here, before
//! any process starts). It first builds what it measures, `mpit-conform` and the
//! reference cdylib, by the profile this executable was built with, so the one command
//! regenerates `reports/bench/`.

use crate::bench::soak::SoakOptions;
use crate::bench::{self, LibSpec, Options, Settings};
use anyhow::{bail, Result};
use mpit_process::{ctrl_c, outln, Cmd};
use mpit_report::exit_code;
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {
    /// Where BENCH.md and bench.json go.
    #[arg(long, default_value = "reports/bench")]
    out: PathBuf,
    /// The real libraries, `name path abi` per line (scripts/install-targets.sh's list;
    /// default: .targets/targets.txt of the working directory, skipped when absent).
    #[arg(long, value_name = "FILE")]
    targets: Option<PathBuf>,
    /// The reference cdylib (default: libmpit_reference.so beside this executable).
    #[arg(long, value_name = "PATH")]
    reference: Option<PathBuf>,
    /// Only the libraries with these names (repeatable; `reference` is the reference).
    #[arg(long, value_name = "NAME")]
    only: Vec<String>,
    /// Fresh processes per floor figure.
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u64).range(1..=1000))]
    floor_runs: u64,
    /// Milliseconds per per-call loop.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    per_call_ms: u64,
    /// Suite runs per -j on the reference.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=100))]
    suite_runs: u64,
    /// Suite runs with the largest -j on each real library.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=100))]
    real_suite_runs: u64,
    /// Suite runs with each other -j on each real library.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=100))]
    real_suite_runs_other: u64,
    /// The -j values (comma-separated; 0: no -j, the run chooses as a user's does). The
    /// targets are judged on 0 when it is measured, else on the largest.
    #[arg(long, value_delimiter = ',', default_value = "1,2,0", value_parser = clap::value_parser!(u64).range(0..=256))]
    jobs: Vec<u64>,
    /// Catalog replication factors for the scaling table (comma-separated; empty: none).
    #[arg(long, value_delimiter = ',', default_value = "1,10,100", value_parser = clap::value_parser!(u64).range(1..=1000))]
    scale: Vec<u64>,
    /// Suite runs per scaling factor.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=100))]
    scale_runs: u64,
    /// Only cases matching this glob in every suite run (a quick check, not a figure).
    #[arg(long = "case", value_name = "GLOB")]
    cases: Vec<String>,
    /// Property-test searches per engine (in-process, worker) on the reference; 0: none.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=100))]
    props_runs: u64,
    /// Sequences per property-test search through a worker (fuzz-props's default).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    props_cases: u32,
    /// Sequences per property-test search in-process.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    props_cases_in_process: u32,
    /// Longest property-test sequence (as `fuzz-props --max-len`).
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u64).range(1..=1000))]
    props_max_len: u64,
    /// Timed windows per fuzz oracle on the reference; 0: none.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=100))]
    fuzz_windows: u64,
    /// Milliseconds per fuzz-oracle window.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    fuzz_window_ms: u64,
    /// The fuzz seed corpus, one directory per target (default: fuzz/corpus of the
    /// working directory, the checkout).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Seconds one suite run may take before it is killed.
    #[arg(long, default_value_t = 900)]
    run_timeout: u64,
    /// Instead of the bench, the soak (leaks over a long life: SOAK.md and soak.json):
    /// the suite on the reference --soak-runs times in this one process, then
    /// fuzz-props in its lifecycle mode for --soak-fuzz-secs; exit 1 if a count grew.
    #[arg(long)]
    soak: bool,
    /// Suite runs of the soak (reports/bench/SOAK.md was measured with 200).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    soak_runs: u64,
    /// Seconds of fuzz-props lifecycle sequences of the soak (reports/bench/SOAK.md: 600).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    soak_fuzz_secs: u64,
    /// Instead of the bench, forked workers (zygotes) against exec'd ones, alternated in
    /// one run: WORKERS.md and workers.json. Uses --only, --targets,
    /// --floor-runs, --real-suite-runs (suite runs per path), --props-runs and
    /// --props-cases (fuzz-props runs per path, and their --cases).
    #[arg(long)]
    workers_compare: bool,
}

/// Relative to the working directory (the bench is run from the checkout): the binary
/// carries no path of the machine it was built on.
fn default_targets() -> PathBuf {
    PathBuf::from(".targets/targets.txt")
}

pub fn bench(a: &BenchArgs, argv: &[String]) -> Result<u8> {
    build_measured()?;
    let reference = match &a.reference {
        Some(p) => p.clone(),
        None => std::env::current_exe()?
            .parent()
            .map(|d| d.join("libmpit_reference.so"))
            .unwrap_or_default(),
    };
    let reference = relative(reference);
    if a.soak {
        return soak(a, reference, argv);
    }
    let mut notes = Vec::new();
    let mut libs = vec![LibSpec {
        name: "reference".into(),
        path: reference,
        abi: "auto".into(),
        env: Vec::new(),
    }];
    match &a.targets {
        Some(t) => libs.extend(bench::read_targets(t)?),
        None => {
            let t = default_targets();
            if t.exists() {
                libs.extend(bench::read_targets(&t)?);
            } else {
                notes.push(format!(
                    "no {}: the reference only (scripts/install-targets.sh installs the real libraries)",
                    t.display()
                ));
            }
        }
    }
    for l in &mut libs {
        l.path = relative(std::mem::take(&mut l.path));
    }
    if !a.only.is_empty() {
        for n in &a.only {
            if !libs.iter().any(|l| &l.name == n) {
                bail!("--only {n}: no such library (names: {})", names(&libs));
            }
        }
        libs.retain(|l| a.only.contains(&l.name));
    }
    for l in &libs {
        if !l.path.exists() {
            bail!("{}: {}: no such file", l.name, l.path.display());
        }
    }
    if a.workers_compare {
        let o = bench::workers::Options {
            libs,
            out: a.out.clone(),
            suite_runs: a.real_suite_runs as usize,
            props_runs: a.props_runs.max(1) as usize,
            props_cases: a.props_cases,
            floor_runs: a.floor_runs as usize,
            timeout: Duration::from_secs(a.run_timeout.max(1)),
        };
        bench::workers::compare(&o)?;
        outln!("bench: {}", o.out.join("WORKERS.md").display());
        return Ok(exit_code::OK);
    }
    let load = bench::loadavg();
    if load.first().is_some_and(|l| *l >= 1.0) {
        eprintln!(
            "bench: warning: load average {:.2}: the machine is busy, the figures will say so",
            load[0]
        );
    }
    let o = Options {
        settings: Settings {
            command: command_line(argv),
            floor_runs: a.floor_runs as usize,
            per_call_ms: a.per_call_ms,
            suite_runs_reference: a.suite_runs as usize,
            suite_runs_real: a.real_suite_runs as usize,
            suite_runs_real_other: a.real_suite_runs_other as usize,
            jobs: a.jobs.iter().map(|j| *j as usize).collect(),
            scale: a.scale.iter().map(|j| *j as usize).collect(),
            scale_runs: a.scale_runs as usize,
            cases: a.cases.clone(),
            notes,
            props_runs: a.props_runs as usize,
            props_cases: a.props_cases,
            props_cases_in_process: a.props_cases_in_process,
            props_max_len: a.props_max_len as usize,
            fuzz_windows: a.fuzz_windows as usize,
            fuzz_window_ms: a.fuzz_window_ms,
        },
        libs,
        out: a.out.clone(),
        corpus: a
            .corpus
            .clone()
            .unwrap_or_else(|| PathBuf::from("fuzz/corpus")),
        floor_timeout: Duration::from_secs(120),
        run_timeout: Duration::from_secs(a.run_timeout.max(1)),
    };
    let b = bench::run(&o)?;
    for v in &b.verdicts {
        let m = match v.met {
            Some(true) => "met",
            Some(false) => "NOT MET",
            None => "not measured",
        };
        outln!("{m:>12}  {} [{}]: {}", v.target, v.scope, v.detail);
    }
    outln!(
        "bench: {} {}",
        o.out.join("BENCH.md").display(),
        o.out.join("bench.json").display()
    );
    Ok(exit_code::OK)
}

/// `bench --soak`: the soak on the reference, its figures written beside the bench's.
fn soak(a: &BenchArgs, reference: PathBuf, argv: &[String]) -> Result<u8> {
    if !reference.exists() {
        bail!("{}: no such file", reference.display());
    }
    let o = SoakOptions {
        lib: reference,
        runs: a.soak_runs as usize,
        fuzz: Duration::from_secs(a.soak_fuzz_secs),
        command: command_line(argv),
    };
    let s = bench::soak::soak(&o, &ctrl_c())?;
    bench::soak::write(&s, &a.out)?;
    for p in &s.phases {
        outln!(
            "{}: {} units, {} workers, {:.0} s; descriptors {} → {}, processes {} → {}, \
             zombies {} → {}, temp entries {} → {}",
            p.name,
            p.units,
            p.workers,
            p.wall_s,
            p.before.fds,
            p.after.fds,
            p.before.processes,
            p.after.processes,
            p.before.zombies,
            p.after.zombies,
            p.before.temp,
            p.after.temp
        );
    }
    outln!("bench: {}", a.out.join("SOAK.md").display());
    Ok(match s.leak_free() {
        true => exit_code::OK,
        false => exit_code::FINDINGS,
    })
}

fn names(libs: &[LibSpec]) -> String {
    libs.iter()
        .map(|l| l.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The command as BENCH.md shows it: this invocation through the cargo alias
/// (`.cargo/config.toml`), which builds everything it measures.
fn command_line(argv: &[String]) -> String {
    let args: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
    format!("cargo xtask {}", args.join(" "))
}

/// `path` relative to the working directory when it lies under it: the libraries as
/// bench.json, BENCH.md and SOAK.md name them (and as the runs open them, from the same
/// directory), without the machine's checkout path.
fn relative(path: PathBuf) -> PathBuf {
    let under = std::env::current_dir()
        .ok()
        .and_then(|d| path.strip_prefix(&d).ok().map(PathBuf::from));
    under.unwrap_or(path)
}

/// Builds `mpit-conform` and the reference cdylib beside this executable (same target
/// directory, same profile): a stale binary must not be measured. `$CARGO` is the cargo
/// that ran this (`cargo xtask`, `cargo test`), else `cargo` from `PATH`.
fn build_measured() -> Result<()> {
    let me = std::env::current_exe()?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Cmd::new(cargo);
    // This package too, as the tests build this binary (harness/tests/common). The
    // reference's features do not resolve as in `cargo build -p mpit-reference` alone
    // (`harness/tests/common::reference_lib`): each of the two builds replaces the
    // other's `libmpit_reference.so`, so harness/tests/bench.rs runs one test at a time.
    cmd.args([
        "build",
        "--quiet",
        "-p",
        "mpit-conform",
        "-p",
        "mpit-reference",
    ])
    .args(["-p", "mpit-xtask"]);
    if me.parent().is_some_and(|d| d.ends_with("release")) {
        cmd.arg("--release");
    }
    cmd.current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."));
    let o = cmd
        .timeout(Duration::from_secs(3600))
        .run()
        .map_err(|e| anyhow::anyhow!("bench: cannot run cargo build: {e}"))?;
    if !o.exit.ended.success() {
        bail!(
            "bench: building mpit-conform and the reference failed: {}",
            o.stderr.text().lines().last().unwrap_or("")
        );
    }
    Ok(())
}
