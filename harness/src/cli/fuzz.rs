//! `mpit-conform fuzz-props` (property tests of the differential oracle against any
//! library) and `mpit-conform replay` (a cargo-fuzz artifact of `ops_differential`
//! replayed in a worker, optionally written out as a YAML case).

use super::{replayed, TargetArgs};
use crate::differential::compare::Known;
use crate::differential::props::{self, Found, Search};
use crate::differential::{gen, Gen, Mirror, Mode};
use crate::exit_code;
use crate::runner::pool::{self, Worker};
use crate::runner::protocol::Hello;
use crate::runner::readers;
use crate::runner::remote::Remote;
use crate::target::LINKED_REFERENCE;
use anyhow::{anyhow, bail, Context, Result};
use mpit_process::on_ctrl_c;
use mpit_reference::catalog::Catalog;
use mpit_reference::faults::Faults;
use mpit_reference::{ENV_CATALOG, ENV_FAULTS};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct FuzzPropsArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Sequences to generate (split across the modes: most with MPI_T held
    /// initialized, a quarter from an uninitialized fresh process, and with
    /// --robustness half as many with invalid arguments).
    #[arg(long, default_value_t = 256)]
    pub cases: u32,
    /// The random seed (printed; the same seed on the same library repeats the run).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
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
    /// How fresh workers are made: `fork` (default: from a zygote that loaded the
    /// library once) or `exec` (see `run --workers`).
    #[arg(long, value_enum, default_value = "fork")]
    pub workers: super::WorkersPath,
    /// Same as `--workers exec`.
    #[arg(long)]
    pub no_zygote: bool,
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

/// The mirror: the given catalog file, the reference's own (its catalog is known, so
/// a reference with a fault in its catalog code is judged against the true one), or
/// the library's catalog read in a worker.
fn mirror(setup: &pool::Setup, catalog: Option<&Path>) -> Result<Mirror> {
    let hello = Hello {
        single_job: true,
        ..setup.hello.clone()
    };
    let (w, facts) = Worker::spawn(&hello, setup.timeout, setup.stop.clone())
        .map_err(|e| anyhow!("{}: {e}", setup.hello.lib.display()))?;
    let _ = w.quit();
    if facts.library_version.starts_with("mpit-reference ") && catalog.is_none() {
        let (c, source) = match std::env::var_os(ENV_CATALOG) {
            Some(f) => {
                let f = PathBuf::from(f);
                (
                    Catalog::load(&f)?,
                    format!("{} (the reference's)", f.display()),
                )
            }
            None => (
                Catalog::default_catalog(),
                "the reference's default catalog".into(),
            ),
        };
        // The catalog-level conforming variations (`empty-descriptions`, `long-names`)
        // change what the library serves: the mirror serves the same.
        let faults = std::env::var(ENV_FAULTS).unwrap_or_default();
        let faults = Faults::parse(&faults).unwrap_or_default();
        let mut m = Mirror::of_catalog(c.varied(&faults), source);
        m.unsupported = facts.unsupported;
        return Ok(m);
    }
    let dump = readers::catalog(setup, false).map_err(|e| {
        anyhow!(
            "{}: {e} while its catalog was read",
            setup.hello.lib.display()
        )
    })?;
    // The entries a reader died at are left out of the mirror: no sequence uses them.
    for l in &dump.lost {
        eprintln!("fuzz-props: not read, left out: {} ({})", l.call, l.message);
    }
    let mut m = Mirror::from_dump(dump);
    let given = match catalog {
        Some(f) => Some((
            Catalog::load(f)?,
            format!("{} (given with --catalog)", f.display()),
        )),
        None => None,
    };
    if let Some((c, source)) = given {
        let (exact, hooks, unsupported) = (m.exact_values, m.hooks, m.unsupported.clone());
        m = Mirror::of_catalog(c, source);
        m.exact_values = exact;
        m.hooks = hooks;
        m.unsupported = unsupported;
    }
    Ok(m)
}

fn remote(setup: &pool::Setup, m: &Arc<Mirror>) -> Remote {
    Remote::new(
        setup.hello.lib.clone(),
        setup.hello.abi.clone(),
        setup.hello.force,
        setup.timeout,
        m.clone(),
        setup.stop.clone(),
    )
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
    let known = Known::parse(&a.known).map_err(|e| anyhow!(e))?;
    let mut m = mirror(&setup, a.catalog.as_deref())?;
    let mut avoided = 0;
    for spec in &a.avoid {
        avoided += m.avoid_handles(spec).map_err(|e| anyhow!(e))?;
    }
    let m = Arc::new(m);
    outln!(
        "fuzz-props: {} (seed {}); catalog {}: {} cvars, {} pvars, {} categories, {} events, {} sources",
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
            "  no handle is allocated for {avoided} entries ({})",
            a.avoid.join(", ")
        );
    }
    let mut modes = vec![
        (
            Mode {
                robustness: false,
                lifecycle: false,
            },
            a.cases,
        ),
        (
            Mode {
                robustness: false,
                lifecycle: true,
            },
            (a.cases / 4).max(4),
        ),
    ];
    if a.robustness {
        modes.push((
            Mode {
                robustness: true,
                lifecycle: false,
            },
            (a.cases / 2).max(4),
        ));
    }
    let forks = a.workers == super::WorkersPath::Fork && !a.no_zygote;
    let mut r = remote(&setup, &m).with_zygotes(forks);
    let mut failures = 0;
    let mut warnings = 0;
    let (mut written, mut reproduced) = (0, 0);
    for (mode, cases) in modes {
        let cfg = Search {
            cases,
            seed: a.seed,
            max_len: a.max_len,
            mode,
            strict: a.strict,
            known: known.clone(),
            time_limit: a.time_limit.map(Duration::from_secs),
        };
        let before = r.started;
        let forked_before = r.forked().0;
        let f = props::search(m.clone(), &cfg, &mut r).map_err(|e| anyhow!("{e}"))?;
        let secs = f.elapsed.as_secs_f64().max(1e-9);
        outln!(
            "{}: {} sequences, {} calls in {:.2} s ({:.0} sequences/s), {} workers started, \
             {} forked ({})",
            mode_name(mode),
            f.sequences,
            f.calls,
            secs,
            f.sequences as f64 / secs,
            r.started - before,
            r.forked().0 - forked_before,
            r.forked().1
        );
        if !a.known.is_empty() {
            outln!(
                "  {} divergence(s) passed over as known ({})",
                cfg.known.hits.get(),
                a.known.join(", ")
            );
        }
        for w in &f.warnings {
            warnings += 1;
            outln!(
                "  warn ({:?}, {}) {}: {}",
                w.level,
                w.rule,
                w.function,
                w.what
            );
        }
        if let Some(found) = &f.failure {
            failures += 1;
            print_found(found);
            let (path, replayed) = replayed::write_and_replay(found, &m, a.seed, &a.out, &setup)?;
            outln!(
                "    case written: {}\n    replay: mpit-conform run --case-file {} --lib {}\n    {}",
                path.display(),
                path.display(),
                lib.display(),
                replayed::line(&replayed)
            );
            written += 1;
            reproduced += usize::from(replayed.reproduces());
        }
        if setup.stop.load(Ordering::SeqCst) {
            bail!("interrupted");
        }
        if a.fail_fast && failures > 0 {
            outln!("fuzz-props: --fail-fast: the modes after this one were not run");
            break;
        }
    }
    outln!(
        "fuzz-props: {failures} failing mode(s), {warnings} warning(s); {written} case(s) \
         written, {reproduced} reproducing the divergence on replay"
    );
    Ok(if failures > 0 {
        exit_code::FINDINGS
    } else {
        exit_code::OK
    })
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
    let m = Arc::new(mirror(&setup, None)?);
    let Some((mode, ops, _)) = gen::decode(&m, &bytes) else {
        bail!(
            "{}: not an ops_differential artifact: its {} bytes decode to no MPI_T call",
            a.artifact.display(),
            bytes.len()
        );
    };
    let start = Gen::new(m.clone(), mode);
    let mut r = remote(&setup, &m);
    outln!(
        "replay: {} calls ({}) on {}",
        ops.len(),
        mode_name(mode),
        lib.display()
    );
    match props::check(&start, &ops, &mut r, &Known::default()).map_err(|e| anyhow!("{e}"))? {
        None => {
            outln!("no divergence: the library agrees with the reference on this sequence");
            Ok(exit_code::OK)
        }
        Some(d) => {
            let found = Found {
                run: props::completed(&start, &ops),
                ops,
                divergence: d,
                mode,
            };
            print_found(&found);
            if a.emit_case {
                let (path, replayed) = replayed::write_and_replay(&found, &m, 0, &a.out, &setup)?;
                outln!(
                    "    case written: {}\n    {}",
                    path.display(),
                    replayed::line(&replayed)
                );
            }
            Ok(exit_code::FINDINGS)
        }
    }
}
