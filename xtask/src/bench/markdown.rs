//! `BENCH.md`, rendered from a [`Bench`] alone (so `bench.json` and the page agree).

use super::scale::Scaling;
use super::throughput::Throughput;
use super::{thousands, Bench, LibFigures, Spread, MAX_MARGINAL_GROWTH};
use std::fmt::Write;

fn s(ms: f64) -> String {
    format!("{:.2}", ms / 1000.0)
}

fn spread_ms(x: &Spread) -> String {
    format!("{:.1} ({:.1}–{:.1})", x.median, x.min, x.max)
}

fn spread_s(x: &Spread) -> String {
    format!("{} ({}–{})", s(x.median), s(x.min), s(x.max))
}

fn mb(kb: u64) -> String {
    format!("{:.1}", kb as f64 / 1024.0)
}

fn met(m: Option<bool>) -> &'static str {
    match m {
        Some(true) => "**met**",
        Some(false) => "**not met**",
        None => "not measured",
    }
}

/// A per-`-j` cell: the values for each -j joined by " / ".
fn per_jobs(l: &LibFigures, jobs: &[usize], f: impl Fn(&super::SuiteFigures) -> String) -> String {
    jobs.iter()
        .map(|j| {
            l.suites
                .iter()
                .find(|x| x.jobs == *j)
                .map_or("–".to_string(), &f)
        })
        .collect::<Vec<_>>()
        .join(" / ")
}

/// The page, one section after another.
pub fn render(b: &Bench) -> String {
    let mut o = String::new();
    preamble(&mut o, b);
    machine(&mut o, b);
    targets(&mut o, b);
    per_library(&mut o, b);
    noise(&mut o, b);
    floor_phases(&mut o, b);
    per_call(&mut o, b);
    if let Some(t) = &b.throughput {
        throughput(&mut o, t);
    }
    if let Some(sc) = &b.scaling {
        scaling(&mut o, sc);
    }
    if !b.not_measured.is_empty() {
        let _ = writeln!(o, "\n## Not measured yet\n");
        for n in &b.not_measured {
            let _ = writeln!(o, "- {n}");
        }
    }
    o
}

/// The title, the command that regenerates the page, when and by what it was made.
fn preamble(o: &mut String, b: &Bench) {
    let set = &b.settings;
    let _ = writeln!(o, "# cargo xtask benchmarks\n");
    let _ = writeln!(
        o,
        "How fast mpit-conform judges a library, against the floor the library itself sets.\n\
         Regenerated, with `bench.json` beside it, by one command from the repository root:\n"
    );
    let _ = writeln!(o, "```sh\n{}\n```\n", set.command);
    let _ = writeln!(
        o,
        "Generated {} by mpit-conform {} in {:.0} s. Hand-written analysis (profiles, causes): \
         [ANALYSIS.md](ANALYSIS.md).\n",
        b.date, b.tool_version, b.duration_s
    );
    if !set.cases.is_empty() {
        let _ = writeln!(
            o,
            "**Partial suite** (`--case {}`): the targets are judged on full runs only.\n",
            set.cases.join(" --case ")
        );
    }
}

/// The machine, its load around the run, and how many repetitions each figure has.
fn machine(o: &mut String, b: &Bench) {
    let set = &b.settings;
    let m = &b.machine;
    let _ = writeln!(o, "## Machine\n");
    let _ = writeln!(o, "- CPU: {}, {} cores", m.cpu_model, m.cores);
    let _ = writeln!(o, "- Kernel: {}", m.kernel);
    let load = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.2}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = writeln!(
        o,
        "- Load average (1/5/15 min) before: {}; after: {}",
        load(&m.load_before),
        load(&m.load_after)
    );
    if m.load_before.first().is_some_and(|l| *l >= 0.5) {
        let _ = writeln!(
            o,
            "- The machine was not idle when the bench started (1-min load ≥ 0.5): other \
             work shared the cores, so walls are upper bounds."
        );
    }
    for n in &set.notes {
        let _ = writeln!(o, "- {n}");
    }
    let _ = writeln!(
        o,
        "- Repetitions: floor {} fresh processes per figure (after one discarded warm-up); \
         suite {}× per -j on the reference, {}× with -j{} and {}× with each other -j on each \
         real library; scaling {}× per factor. Figures are medians, with (min–max).\n",
        set.floor_runs,
        set.suite_runs_reference,
        set.suite_runs_real,
        super::jobs_word(super::judged_jobs(&set.jobs)),
        set.suite_runs_real_other,
        set.scale_runs
    );
}

/// The issue's targets and whether each was met.
fn targets(o: &mut String, b: &Bench) {
    let _ = writeln!(o, "## Targets\n");
    let _ = writeln!(
        o,
        "| target | scope | verdict | figure |\n|---|---|---|---|"
    );
    for v in &b.verdicts {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} |",
            v.target,
            v.scope,
            met(v.met),
            v.detail
        );
    }
}

/// The main table: each library's floor, suite walls per -j, and the overhead over the floor.
fn per_library(o: &mut String, b: &Bench) {
    let set = &b.settings;
    let jobs_label = set
        .jobs
        .iter()
        .map(|j| format!("-j{}", super::jobs_word(*j)))
        .collect::<Vec<_>>()
        .join(" / ");
    let _ = writeln!(o, "\n## Per library\n");
    let _ = writeln!(
        o,
        "Walls in seconds, medians; `{jobs_label}` cells give one value per -j. Floor (a): a \
         fresh process opens the library, MPI_T_init_thread, reads every entry's info, \
         MPI_T_finalize. (b): the same inside MPI_Init/MPI_Finalize. Floor-bound: (a) × plain \
         workers + (b) × MPI_Init workers the run started or forked, over min(workers at once, cores) (-j auto: the run's own choice, in report.json's `options.jobs`). Overhead: \
         (suite wall − floor-bound) / results.\n"
    );
    let _ = writeln!(
        o,
        "| library | catalog cvars/pvars/cat/events | floor (a) ms | floor (b) ms | suite wall s {jobs_label} | CPU s {jobs_label} | results | workers {jobs_label} | results/worker | floor-bound s | ratio | overhead µs/result | supervisor RSS MB | worker RSS MB |"
    );
    let _ = writeln!(
        o,
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for l in &b.libraries {
        let f = l.floor.as_ref();
        let cat = f.and_then(|f| f.phases.as_ref()).map_or("–".into(), |p| {
            format!(
                "{}/{}/{}/{}",
                p.entries[0], p.entries[1], p.entries[2], p.entries[4]
            )
        });
        let fa = f
            .and_then(|f| f.enumerate_ms)
            .map_or("–".into(), |x| format!("{:.1}", x.median));
        let fb = f
            .and_then(|f| f.mpi_init_ms)
            .map_or("–".into(), |x| format!("{:.1}", x.median));
        let med = |x: &super::SuiteFigures| x.median_run().cloned();
        let _ = writeln!(
            o,
            "| {} | {cat} | {fa} | {fb} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            l.lib.name,
            per_jobs(l, &set.jobs, |x| s(x.wall_ms.median)),
            per_jobs(l, &set.jobs, |x| s(x.cpu_ms.median)),
            per_jobs(l, &set.jobs, |x| med(x)
                .map_or("–".into(), |r| r.results.to_string())),
            per_jobs(l, &set.jobs, |x| med(x)
                .map_or("–".into(), |r| r.workers_started.to_string())),
            per_jobs(l, &set.jobs, |x| med(x).map_or("–".into(), |r| format!(
                "{:.0}",
                r.results as f64 / r.workers_started.max(1) as f64
            ))),
            per_jobs(l, &set.jobs, |x| x.floor_bound_ms.map_or("–".into(), s)),
            per_jobs(l, &set.jobs, |x| x
                .ratio
                .map_or("–".into(), |r| format!("{r:.2}×"))),
            per_jobs(l, &set.jobs, |x| x
                .overhead_us_per_result
                .map_or("–".into(), |v| format!("{v:.0}"))),
            per_jobs(l, &set.jobs, |x| mb(x
                .runs
                .iter()
                .map(|r| r.supervisor_rss_kb)
                .max()
                .unwrap_or(0))),
            per_jobs(l, &set.jobs, |x| mb(x
                .runs
                .iter()
                .map(|r| r.worker_rss_kb)
                .max()
                .unwrap_or(0))),
        );
    }
    let _ = writeln!(
        o,
        "\nCPU: user+sys of the run and every worker it reaped (wait4). Supervisor RSS: the \
         run's own peak, written by the run as it ends (hidden `--bench-stats FILE`): its \
         VmHWM rather than getrusage(RUSAGE_SELF), since Linux carries the spawning process's peak into \
         ru_maxrss across exec); worker RSS: the run's RUSAGE_CHILDREN peak, the largest \
         worker — an upper bound, as each worker's ru_maxrss starts from the supervisor's \
         peak at its spawn. Both are the largest over the repetitions. Workers: processes the run started \
         (`workers_started` in report.json), inventory readers and crash replacements \
         included.\n"
    );
}

/// The spreads (min–max) behind the main table's medians, statuses and notes.
fn noise(o: &mut String, b: &Bench) {
    let set = &b.settings;
    let _ = writeln!(o, "### Noise and detail\n");
    let _ = writeln!(
        o,
        "| library | floor (a) ms | floor (a) CPU ms | floor (b) ms | {} | statuses (median run, -j{}) | notes |\n|---|---:|---:|---:|{}---|---|",
        set.jobs
            .iter()
            .map(|j| format!("suite -j{} s", super::jobs_word(*j)))
            .collect::<Vec<_>>()
            .join(" | "),
        super::jobs_word(super::judged_jobs(&set.jobs)),
        "---:|".repeat(set.jobs.len())
    );
    for l in &b.libraries {
        let f = l.floor.as_ref();
        let walls: Vec<String> = set
            .jobs
            .iter()
            .map(|j| {
                l.suites
                    .iter()
                    .find(|x| x.jobs == *j)
                    .map_or("–".into(), |x| spread_s(&x.wall_ms))
            })
            .collect();
        let statuses = l
            .suites
            .iter()
            .find(|x| x.jobs == super::judged_jobs(&set.jobs))
            .and_then(|x| x.median_run())
            .map_or("–".into(), |r| {
                r.by_status
                    .iter()
                    .map(|(k, v)| format!("{v} {k}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            });
        let mut notes: Vec<String> = f.map(|f| f.notes.clone()).unwrap_or_default();
        notes.extend(l.errors.iter().cloned());
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {statuses} | {} |",
            l.lib.name,
            f.and_then(|f| f.enumerate_ms)
                .map_or("–".into(), |x| spread_ms(&x)),
            f.and_then(|f| f.enumerate_cpu_ms)
                .map_or("–".into(), |x| spread_ms(&x)),
            f.and_then(|f| f.mpi_init_ms)
                .map_or("–".into(), |x| spread_ms(&x)),
            walls.join(" | "),
            notes.join("; ").replace('|', "\\|")
        );
    }
}

/// Where a floor process spends its time, phase by phase.
fn floor_phases(o: &mut String, b: &Bench) {
    let _ = writeln!(
        o,
        "\n### Floor phases (median run, ms, measured inside the process)\n"
    );
    let _ = writeln!(
        o,
        "| library | open (dlopen, ABI detection) | MPI_T init | enumerate (get_info calls) | MPI_T finalize | with MPI_Init: MPI_Init | MPI_Finalize | floor process peak RSS MB |\n|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    let msu = |us: u64| format!("{:.1}", us as f64 / 1000.0);
    for l in &b.libraries {
        let Some(f) = &l.floor else { continue };
        let Some(p) = &f.phases else { continue };
        let (mi, mf) = f
            .phases_mpi_init
            .as_ref()
            .map_or(("–".into(), "–".into()), |q| {
                (msu(q.mpi_init_us), msu(q.mpi_finalize_us))
            });
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} ({}) | {} | {mi} | {mf} | {} |",
            l.lib.name,
            msu(p.open_us),
            msu(p.init_thread_us),
            msu(p.enumerate_us),
            p.calls,
            msu(p.finalize_us),
            mb(f.maxrss_kb)
        );
    }
}

/// Nanoseconds per call of single calls in a loop, and the guarded buffer's cost.
fn per_call(o: &mut String, b: &Bench) {
    let set = &b.settings;
    let _ = writeln!(o, "\n## Per-call costs (c)\n");
    let _ = writeln!(
        o,
        "One process per library loops on a single call for about {} ms per loop, through the \
         harness's target layer. \"NULL buffers\" asks only for lengths: the library's own cost. \
         A guarded buffer is mapped with a PROT_NONE page after it and checked after the call, \
         as in every suite check; the difference is the harness's cost per string buffer.\n",
        set.per_call_ms
    );
    let _ = writeln!(
        o,
        "| library | call | ns/call | iterations |\n|---|---|---:|---:|"
    );
    let mut notes = Vec::new();
    for l in &b.libraries {
        let Some(p) = l.floor.as_ref().and_then(|f| f.per_call.as_ref()) else {
            continue;
        };
        for lp in &p.loops {
            let _ = writeln!(
                o,
                "| {} | {} | {:.0} | {} |",
                l.lib.name, lp.call, lp.ns_per_call, lp.iterations
            );
        }
        for n in &p.notes {
            notes.push(format!("- {}: {n}", l.lib.name));
        }
    }
    if !notes.is_empty() {
        let _ = writeln!(o, "\n{}", notes.join("\n"));
    }
}

/// The reference with replicated catalogs: wall against results, and the linear fit.
fn scaling(o: &mut String, sc: &Scaling) {
    let _ = writeln!(
        o,
        "\n## Scaling (reference, replicated catalogs, -j{})\n",
        sc.jobs
    );
    let _ = writeln!(
        o,
        "The reference's catalog with every entry copied k times under unique names \
         (generated by the bench, `bench::scale::replicate`), loaded with \
         MPIT_REFERENCE_CATALOG.\n"
    );
    let _ = writeln!(
        o,
        "| factor | entries | results ((case, subject) pairs) | wall s | µs per result | marginal µs per added result | workers | floor (a) ms | floor-bound s | overhead µs/result | supervisor RSS MB |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let marginal = sc.marginal_us_per_result();
    for (i, p) in sc.points.iter().enumerate() {
        let r = p.suite.median_run();
        let results = r.map_or(0, |r| r.results);
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {:.0} | {} | {} | {} | {} | {} | {} |",
            p.factor,
            p.entries,
            results,
            spread_s(&p.suite.wall_ms),
            p.suite.wall_ms.median * 1000.0 / results.max(1) as f64,
            i.checked_sub(1)
                .and_then(|k| marginal.get(k))
                .map_or("–".into(), |m| format!("{m:.0}")),
            r.map_or("–".into(), |r| r.workers_started.to_string()),
            p.floor_ms
                .map_or("–".into(), |f| format!("{:.1}", f.median)),
            p.suite.floor_bound_ms.map_or("–".into(), s),
            p.suite
                .overhead_us_per_result
                .map_or("–".into(), |v| format!("{v:.0}")),
            mb(p.suite
                .runs
                .iter()
                .map(|r| r.supervisor_rss_kb)
                .max()
                .unwrap_or(0)),
        );
    }
    if let Some(f) = &sc.fit {
        let _ = writeln!(
            o,
            "\nLeast-squares fit: wall = {:.0} ms + {:.1} µs × results (R² = {:.4}); the \
             largest point is {:.2}× the line. Linear is judged on the marginal cost per \
             added result: the last step's over the first's must stay ≤ {MAX_MARGINAL_GROWTH}.",
            f.intercept_ms, f.slope_us_per_result, f.r2, f.largest_point_vs_line
        );
    }
}

fn load1(v: &[f64]) -> String {
    v.first().map_or("–".into(), |l| format!("{l:.2}"))
}

fn rate(x: &Spread) -> String {
    format!(
        "{} ({}–{})",
        thousands(x.median),
        thousands(x.min),
        thousands(x.max)
    )
}

/// Property-test sequences/s and fuzz-oracle exec/s on the reference.
fn throughput(o: &mut String, t: &Throughput) {
    let _ = writeln!(
        o,
        "\n## Property tests and fuzz oracles (reference cdylib)\n"
    );
    let _ = writeln!(
        o,
        "The library is `{}`, loaded in a child process per line below.\n",
        t.lib.display()
    );
    if !t.props.is_empty() {
        let _ = writeln!(
            o,
            "### Property tests (`differential::props::search`)\n\n\
             Sequences per second of the proptest state machine: generation, the reference \
             model, the library and the comparator, as `mpit-conform fuzz-props` runs them \
             in its main mode (valid calls, MPI_T held initialized), shrinking included if a \
             sequence diverged. *in-process*: the `InProcess` engine, the library loaded in \
             the measuring process with one MPI_T init held, as the `ops_differential` fuzz \
             target sets it up (values compared where the calls fix them). *worker*: the \
             `Remote` engine, each sequence sent to a worker process, the mirror as \
             `fuzz-props` makes it for the reference (every value exact, the simulate hook \
             on: a sequence that leaves traces gets a fresh worker). Each run is one search \
             with its own seed (1, 2, ...); the figure is the median run.\n"
        );
        let _ = writeln!(
            o,
            "| engine | sequences/s, median (min–max) | runs | sequences per run | longest sequence | mean calls generated / made per sequence | workers per run | divergences | 1-min load at start |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        for p in &t.props {
            let seqs: u64 = p.runs.iter().map(|r| r.sequences).sum::<u64>().max(1);
            let ops: u64 = p.runs.iter().map(|r| r.ops).sum();
            let calls: u64 = p.runs.iter().map(|r| r.calls).sum();
            let workers: Vec<u64> = p.runs.iter().map(|r| r.workers).collect();
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {:.1} / {:.1} | {} | {} | {} |",
                p.engine,
                rate(&p.per_s),
                p.runs.len(),
                p.cases,
                p.max_len,
                ops as f64 / seqs as f64,
                calls as f64 / seqs as f64,
                if p.engine == "worker" {
                    format!(
                        "{:.0}",
                        Spread::of(workers.iter().map(|w| *w as f64).collect()).median
                    )
                } else {
                    "–".into()
                },
                p.runs.iter().map(|r| r.divergences).sum::<u64>(),
                load1(&p.load)
            );
        }
    }
    if !t.fuzz.is_empty() {
        let _ = writeln!(
            o,
            "\n### Fuzz oracles, in-process, without libFuzzer\n\n\
             Executions per second of the function each cargo-fuzz target calls \
             (`harness/src/fuzzing/<target>`), built by stable Rust in release mode and \
             called in a plain loop: **the oracle alone, without libFuzzer's coverage \
             instrumentation** (no sanitizer-coverage counters or comparison tracing, no \
             AddressSanitizer, no mutation engine or corpus bookkeeping), so these are upper \
             bounds of what `cargo fuzz run` reaches. Inputs: the checked-in seeds of \
             `fuzz/corpus/<target>/` (each run once, untimed, first: the oracle's one-time \
             setup happens there), then seeds and {} deterministic generated inputs (half \
             random bytes, half seeds with a few bytes changed) cycled for each timed window. \
             libFuzzer's own exec/s are in ANALYSIS.md and fuzz/README.md.\n",
            super::throughput::GENERATED
        );
        let _ = writeln!(
            o,
            "| oracle | exec/s, median (min–max) | windows × ms | seeds | generated inputs | mean input bytes | 1-min load at start |\n|---|---:|---:|---:|---:|---:|---:|"
        );
        for f in &t.fuzz {
            let ms = f.windows.first().map_or(0.0, |w| w.1);
            let _ = writeln!(
                o,
                "| `{}` | {} | {} × {:.0} | {} | {} | {:.0} | {} |",
                f.oracle,
                rate(&f.exec_per_s),
                f.windows.len(),
                ms,
                f.seeds,
                f.generated,
                f.mean_bytes,
                load1(&f.load)
            );
        }
    }
    for n in &t.notes {
        let _ = writeln!(o, "\n- {n}");
    }
}
