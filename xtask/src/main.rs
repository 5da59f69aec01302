//! The maintainers' tools, kept out of the shipped `mpit-conform`: `cargo xtask bench`
//! (how fast the harness judges a library against the floor the library sets; writes
//! `reports/bench/`) and `cargo xtask abi-probe` (an ABI profile, `specs/abi/*.yaml`,
//! from a vendor's MPI header). `cargo xtask` is the alias of `.cargo/config.toml`
//! (`cargo run --release -p mpit-xtask --`).
//!
//! The bench's measured processes are children of this binary: `__bench-probe` (the
//! floor, `bench/child.rs`) and, for the throughput of the remote engine, the harness's
//! own `__suite-worker` (`mpit_conform::runner::worker`, the code `mpit-conform` serves
//! it with); a suite run is the `mpit-conform` binary beside this one.

#![forbid(unsafe_code)]

mod abi_probe;
mod abi_tags;
mod bench;
mod bench_cli;

use abi_probe::{Compiler, Probe};
use anyhow::{bail, Context, Result};
use bench::child;
use clap::{Parser, Subcommand};
use mpit_conform::runner::worker;
use mpit_process::{adopt_orphans, default_sigpipe, out};
use mpit_report::exit_code;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "xtask",
    about = "mpit-conform's maintainer tools (cargo xtask)"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Measure how fast the harness judges libraries against the floor each library
    /// sets; writes BENCH.md and bench.json (builds mpit-conform and the reference first).
    Bench(Box<bench_cli::BenchArgs>),
    /// Make an ABI profile (YAML for --abi) from a vendor's MPI header: compiles and runs
    /// a small C program against the header; never links or loads libmpi.
    AbiProbe {
        /// The directory holding the vendor's header (compiled with the C compiler the
        /// `cc` crate finds: $CC, else cc).
        #[arg(
            long,
            value_name = "DIR",
            required_unless_present = "cc",
            conflicts_with = "cc"
        )]
        include: Option<PathBuf>,
        /// An MPI compiler wrapper that knows its header (e.g. mpicc), used to compile only.
        #[arg(long, value_name = "MPICC")]
        cc: Option<String>,
        /// The header: mpi.h, or mpi_abi.h for the MPI-5 standard ABI.
        #[arg(long, default_value = "mpi.h")]
        header: String,
        /// Write the profile here instead of stdout.
        #[arg(long, value_name = "FILE.yaml")]
        out: Option<PathBuf>,
    },
    /// The bench's child: one floor or throughput task on one library.
    #[command(name = "__bench-probe", hide = true)]
    BenchProbe { probe: String },
    /// A suite worker for the bench's remote engine (as `mpit-conform __suite-worker`).
    #[command(name = "__suite-worker", hide = true)]
    SuiteWorker { hello: String },
}

fn main() -> ExitCode {
    default_sigpipe();
    match run() {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("xtask: error: {e:#}");
            ExitCode::from(exit_code::CANNOT_RUN)
        }
    }
}

fn run() -> Result<u8> {
    let cli = Cli::parse();
    // A supervisor adopts what leaves its children's process groups (as mpit-conform's
    // commands do); a worker supervises nothing. A bench probe may start workers of
    // its own: it adopts too.
    if !matches!(cli.cmd, Cmd::SuiteWorker { .. }) {
        let _ = adopt_orphans();
    }
    match cli.cmd {
        Cmd::Bench(args) => bench_cli::bench(&args, &std::env::args().collect::<Vec<_>>()),
        Cmd::AbiProbe {
            include,
            cc,
            header,
            out,
        } => abi_probe(include, cc, header, out),
        Cmd::BenchProbe { probe } => {
            let p = serde_json::from_str(&probe).context("malformed bench probe")?;
            Ok(child::serve(&p) as u8)
        }
        Cmd::SuiteWorker { hello } => {
            let h = serde_json::from_str(&hello).context("malformed worker hello")?;
            Ok(worker::serve(&h) as u8)
        }
    }
}

fn abi_probe(
    include: Option<PathBuf>,
    cc: Option<String>,
    header: String,
    out: Option<PathBuf>,
) -> Result<u8> {
    let (compiler, from) = match (include, cc) {
        (Some(dir), _) => {
            let from = format!("--include {}", dir.display());
            (Compiler::Include(dir), from)
        }
        (None, Some(w)) => {
            let from = format!("--cc {w}");
            (Compiler::Wrapper(w), from)
        }
        (None, None) => bail!("abi-probe: pass --include DIR or --cc MPICC"),
    };
    let mut command = format!("cargo xtask abi-probe {from} --header {header}");
    if let Some(o) = &out {
        command.push_str(&format!(" --out {}", o.display()));
    }
    let probe = Probe {
        compiler,
        header,
        command,
    };
    let g = probe.generate()?;
    match &out {
        Some(path) => std::fs::write(path, &g.yaml)
            .with_context(|| format!("abi-probe: cannot write {}", path.display()))?,
        None => out!("{}", g.yaml),
    }
    eprintln!("{}", abi_probe::summary(&g));
    Ok(exit_code::OK)
}
