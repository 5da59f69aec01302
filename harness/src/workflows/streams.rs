//! fuzz-props' searches side by side (`-j`): each mode is searched by several streams,
//! each a proptest search of the mode's whole budget with its own seed on its own
//! worker runner (one [`Remote`] per stream, its zygotes kept across the modes), merged
//! into the mode's findings.
//!
//! Why: a lifecycle sequence (a process forked per sequence) waits on wakeups from one
//! process to the next more than it computes (reports/bench/WORKERS.md: 0.8 of 2 cores
//! busy), and proptest's loop runs one sequence at a time, so one search leaves a core
//! idle. Stream 0 searches with the run's own seed and budget: it is the single search
//! of `-j 1` (and of earlier releases), sequence for sequence, so more streams only add
//! sequences. Splitting one budget instead was tried: with two streams the default
//! budget missed a corpus bug (upstream-mpich-7954) that the single search finds.

use crate::differential::engine::EngineError;
use crate::differential::props::{self, Findings, Search};
use crate::differential::Mirror;
use crate::runner::remote::Remote;
use std::sync::Arc;

/// Stream `k`'s seed: stream 0 the run's own, the others spaced by splitmix64's
/// increment (any stream repeats alone with `--seed` it and `-j 1`).
pub fn seed(seed: u64, k: usize) -> u64 {
    seed.wrapping_add((k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// A mode searched by all the streams.
#[derive(Debug)]
pub struct Merged {
    pub findings: Findings,
    /// Worker processes the streams started for it, and of them forked, with the paths
    /// the streams took (`fork`, `exec`, or `fork+exec: <why>`; distinct ones joined).
    pub workers: u64,
    pub forked: (u64, String),
    /// Divergences passed over as known.
    pub known_hits: u64,
    /// The stream whose failure is reported (the first one that failed), and its seed.
    pub found_by: Option<(usize, u64)>,
}

/// Searches `cfg` as `remotes.len()` streams side by side, one thread each.
pub fn search(
    m: &Arc<Mirror>,
    cfg: &Search,
    remotes: &mut [Remote],
) -> Result<Merged, EngineError> {
    let before: Vec<(u64, u64)> = remotes.iter().map(|r| (r.started, r.forked().0)).collect();
    let runs: Vec<(Result<Findings, EngineError>, u64)> = std::thread::scope(|s| {
        let threads: Vec<_> = remotes
            .iter_mut()
            .enumerate()
            .map(|(k, r)| {
                let cfg = Search {
                    seed: seed(cfg.seed, k),
                    ..cfg.clone()
                };
                let m = m.clone();
                s.spawn(move || (props::search(m, &cfg, r), cfg.known.hits.get()))
            })
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut merged = Merged {
        findings: Findings::default(),
        workers: 0,
        forked: (0, String::new()),
        known_hits: 0,
        found_by: None,
    };
    let mut paths: Vec<String> = Vec::new();
    for (k, ((run, hits), r)) in runs.into_iter().zip(remotes.iter()).enumerate() {
        let f = run?;
        let (forked, path) = r.forked();
        merged.workers += r.started - before[k].0;
        merged.forked.0 += forked - before[k].1;
        if !paths.contains(&path) {
            paths.push(path);
        }
        merged.known_hits += hits;
        if f.failure.is_some() && merged.found_by.is_none() {
            merged.found_by = Some((k, seed(cfg.seed, k)));
        }
        absorb(&mut merged.findings, f);
    }
    merged.forked.1 = paths.join("; ");
    Ok(merged)
}

/// Adds a stream's findings to the mode's: counts summed, the longest stream's time
/// (they ran at once), warnings kept as one search keeps them, the first stream's failure.
fn absorb(into: &mut Findings, f: Findings) {
    into.sequences += f.sequences;
    into.ops += f.ops;
    into.calls += f.calls;
    into.elapsed = into.elapsed.max(f.elapsed);
    for w in f.warnings {
        into.warn(w);
    }
    if into.failure.is_none() {
        into.failure = f.failure;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_zero_keeps_the_seed_and_the_others_differ() {
        assert_eq!(seed(7, 0), 7);
        let seeds: std::collections::BTreeSet<u64> = (0..8).map(|k| seed(7, k)).collect();
        assert_eq!(seeds.len(), 8);
    }
}
