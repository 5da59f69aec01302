//! The command line (clap), and the wiring from a command to workers and output.

use crate::abi_probe::{self, Compiler, Probe};
use crate::checks::{self, Status};
use crate::supervisor::{self, Outcome};
use crate::target::catalog::{count_line, CatalogDump};
use crate::worker::{self, Reply, Request};
use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use mpit_reference::faults::Faults;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(
    name = "mpit-conform",
    version,
    about = "Conformance harness for MPI_T (the MPI tool information interface)"
)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(clap::Args, Debug, Clone)]
struct TargetArgs {
    /// The MPI library to judge (a shared object, loaded unmodified in a worker process).
    #[arg(long)]
    lib: Option<PathBuf>,
    /// ABI family: auto, mpich, openmpi, standard, or a profile FILE.yaml.
    #[arg(long, default_value = "auto")]
    abi: String,
    /// Proceed although --abi contradicts what the library exports.
    #[arg(long)]
    force: bool,
    /// Seconds a worker may take before it is killed and reported as a timeout.
    #[arg(long, default_value_t = 60)]
    timeout: u64,
}

#[derive(clap::Args, Debug, Clone)]
struct RunArgs {
    #[command(flatten)]
    target: TargetArgs,
    /// Read the catalog after a singleton MPI_Init.
    #[arg(long)]
    after_init: bool,
    /// Where the standard admits two readings, only the literal one passes (warn → fail).
    #[arg(long)]
    strict: bool,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Print everything a library exposes through MPI_T.
    Catalog {
        #[command(flatten)]
        target: TargetArgs,
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
        /// Call MPI_Init (singleton) before reading.
        #[arg(long)]
        after_init: bool,
    },
    /// List the reference's injectable faults.
    Faults,
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
    #[command(name = "__worker", hide = true)]
    Worker { request: String },
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum Format {
    Table,
    Json,
    Yaml,
}

pub fn main() -> Result<u8> {
    let cli = Cli::parse();
    match cli.cmd {
        Some(Cmd::Worker { request }) => {
            let req: Request =
                serde_json::from_str(&request).context("malformed worker request")?;
            Ok(worker::serve(&req) as u8)
        }
        Some(Cmd::Faults) => {
            print!("{}", Faults::listing());
            Ok(0)
        }
        Some(Cmd::AbiProbe {
            include,
            cc,
            header,
            out,
        }) => abi_probe(include, cc, header, out),
        Some(Cmd::Catalog {
            target,
            format,
            after_init,
        }) => {
            let dump = read_catalog(&target, after_init)?;
            match format {
                Format::Json => println!("{}", serde_json::to_string_pretty(&dump)?),
                Format::Yaml => print!("{}", dump.catalog.to_yaml()),
                Format::Table => print_table(&dump),
            }
            Ok(0)
        }
        None => run_checks(&cli.run),
    }
}

fn request(t: &TargetArgs, after_init: bool) -> Result<Request> {
    let Some(lib) = &t.lib else {
        bail!("--lib PATH is required (the MPI library to judge)")
    };
    if !lib.exists() {
        bail!("{}: no such file", lib.display());
    }
    let abi = t
        .abi
        .parse::<crate::target::AbiChoice>()
        .map_err(anyhow::Error::msg)?;
    // A profile file is checked here, before any worker loads vendor code.
    if let crate::target::AbiChoice::File(p) = &abi {
        mpit_reference::profile::AbiProfile::load(p)?;
    }
    Ok(Request {
        lib: lib.clone(),
        abi: t.abi.clone(),
        force: t.force,
        after_init,
    })
}

fn read_catalog(t: &TargetArgs, after_init: bool) -> Result<CatalogDump> {
    let req = request(t, after_init)?;
    match supervisor::run(&req, Duration::from_secs(t.timeout)) {
        Outcome::Replied(Reply::Catalog(d)) => Ok(*d),
        Outcome::Replied(Reply::CannotRun(e)) => bail!("{e}"),
        Outcome::Crash(sig) => bail!(
            "{}: the library crashed ({sig}) while its catalog was read",
            req.lib.display()
        ),
        Outcome::Timeout(d) => bail!(
            "{}: no answer within {}s while its catalog was read",
            req.lib.display(),
            d.as_secs()
        ),
        Outcome::Broken(e) => bail!("{e}"),
    }
}

fn print_table(d: &CatalogDump) {
    if let Some(det) = &d.detection {
        println!("detected {} family: {}", det.family, det.evidence);
    }
    println!("ABI profile {}", d.profile);
    if !d.unresolved.is_empty() {
        println!(
            "ABI profile names objects the library does not export: {}",
            d.unresolved.join(", ")
        );
    }
    if let Some((a, b)) = d.mpi_version {
        println!(
            "MPI {a}.{b}; {}",
            d.library_version.lines().next().unwrap_or("")
        );
    }
    println!(
        "{}{}",
        count_line(d),
        if d.after_init {
            " (after MPI_Init)"
        } else {
            ""
        }
    );
    for v in &d.catalog.cvars {
        println!(
            "cvar  {:<40} {:<22} {:<8} {:<14} {}",
            v.name,
            v.datatype,
            v.scope,
            v.verbosity,
            v.value
                .as_ref()
                .map(|x| format!("{x:?}"))
                .unwrap_or_default()
        );
    }
    for p in &d.catalog.pvars {
        println!(
            "pvar  {:<40} {:<22} {:<14} {:<14}{}{}",
            p.name,
            p.datatype,
            p.class,
            p.verbosity,
            if p.continuous { " continuous" } else { "" },
            if p.readonly { " readonly" } else { "" }
        );
    }
    for c in &d.catalog.categories {
        println!(
            "category {:<36} cvars {} pvars {} events {} subcategories {}",
            c.name,
            c.cvars.len(),
            c.pvars.len(),
            c.events.len(),
            c.categories.join(",")
        );
    }
    for e in &d.catalog.enums {
        let items: Vec<String> = e
            .items
            .iter()
            .map(|i| format!("{}={}", i.name, i.value))
            .collect();
        println!("enum  {:<40} {}", e.name, items.join(" "));
    }
    for e in &d.catalog.events {
        println!(
            "event {:<40} {} elements, {}",
            e.name,
            e.elements.len(),
            e.verbosity
        );
    }
    for s in &d.catalog.sources {
        println!(
            "source {:<39} {} {} ticks/s",
            s.name, s.ordering, s.ticks_per_second
        );
    }
    if !d.unsupported.is_empty() {
        println!("unsupported (not exported): {}", d.unsupported.join(" "));
    }
    for u in &d.undecoded {
        println!("undecoded: {u}");
    }
}

fn run_checks(args: &RunArgs) -> Result<u8> {
    let dump = read_catalog(&args.target, args.after_init)?;
    let lib = args
        .target
        .lib
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    println!("mpit-conform {} — {lib}", env!("CARGO_PKG_VERSION"));
    if let Some(det) = &dump.detection {
        println!("detected {} family: {}", det.family, det.evidence);
    }
    println!("ABI profile {}", dump.profile);
    if !dump.unresolved.is_empty() {
        println!(
            "ABI profile names objects the library does not export: {}",
            dump.unresolved.join(", ")
        );
    }
    println!("{}", count_line(&dump));
    let verdicts = checks::judge(&dump, args.strict);
    let (mut pass, mut fail, mut warn, mut skip) = (0, 0, 0, 0);
    for v in &verdicts {
        let tag = match v.status {
            Status::Pass => {
                pass += 1;
                "PASS"
            }
            Status::Fail => {
                fail += 1;
                "FAIL"
            }
            Status::Warn => {
                warn += 1;
                "WARN"
            }
            Status::Skip => {
                skip += 1;
                "SKIP"
            }
        };
        println!(
            "{tag} {:<34} {:>5} subjects  {}",
            v.check, v.subjects, v.clause
        );
        for e in v.evidence.iter().take(10) {
            println!("     {e}");
        }
        if v.evidence.len() > 10 {
            println!("     ... and {} more", v.evidence.len() - 10);
        }
    }
    println!("checks: {pass} passed, {fail} failed, {warn} warned, {skip} skipped");
    Ok(if fail > 0 { 1 } else { 0 })
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
    let mut command = format!("mpit-conform abi-probe {from} --header {header}");
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
        None => print!("{}", g.yaml),
    }
    eprintln!("{}", abi_probe::summary(&g));
    Ok(0)
}
