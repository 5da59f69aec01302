//! Fuzzing oracles, one module each (after wasmtime's `crates/fuzzing`): the cargo-fuzz
//! targets in `fuzz/fuzz_targets/` are a few lines that hand libFuzzer's bytes to one
//! of these `run` functions, and `harness/tests/fuzz_smoke.rs` feeds them the seed
//! corpus and deterministic pseudo-random inputs on stable Rust.
//!
//! The contract of every oracle: it decodes any byte string into an input (with
//! `arbitrary::Unstructured`, so every byte string is a valid input), runs it, and
//! panics only when the input shows a bug, with a message naming the rule broken
//! (specs/clauses.yaml ids, e.g. R-STR-1). A panic is what libFuzzer records as a
//! crash, so a setup problem (no library to load) is never a panic: it is one line on
//! stderr and exit status 2 ([`setup_failed`]).

pub mod catalog_yaml;
pub mod ops_differential;
pub mod reference_ffi;
pub mod spec_yaml;
pub mod strings;

use mpit_report::exit_code;
use std::path::{Path, PathBuf};

/// Environment variable naming the reference cdylib the `reference_ffi` oracle loads.
pub const ENV_REFERENCE_LIB: &str = "MPIT_REFERENCE_LIB";

/// Why a fuzz target cannot start. Each message is one line that says what to do.
#[derive(Debug, thiserror::Error)]
pub enum FuzzSetupError {
    #[error("{var}={path}: no such file")]
    NoSuchFile { var: String, path: String },
    #[error("{var} is not set and no reference cdylib is built (looked for {}); build it with `cargo build --release -p mpit-reference` or set {var}", tried.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" and "))]
    NotBuilt { var: String, tried: Vec<PathBuf> },
    #[error("{path}: cannot be opened as an MPI library: {reason}; rebuild it with `cargo build --release -p mpit-reference` or point {var} at another")]
    Open {
        var: String,
        path: String,
        reason: String,
    },
    #[error("{path}: {what}")]
    Init { path: String, what: String },
}

/// The library a fuzz target loads: the file `var` names if it is set (and not
/// empty), otherwise the reference cdylib of this workspace, release build first
/// (`target/release/libmpit_reference.so`, then `target/debug/...`).
///
/// `var` is the target's own variable (`MPIT_REFERENCE_LIB` for `reference_ffi`,
/// `MPIT_FUZZ_LIB` for the differential target), so each can be pointed elsewhere.
pub fn library_from_env(var: &str) -> Result<PathBuf, FuzzSetupError> {
    library_from(
        var,
        std::env::var_os(var).map(PathBuf::from),
        &workspace_target(),
    )
}

/// [`library_from_env`] with the variable's value and the target directory given
/// (testable without touching the process environment).
pub fn library_from(
    var: &str,
    value: Option<PathBuf>,
    target_dir: &Path,
) -> Result<PathBuf, FuzzSetupError> {
    if let Some(p) = value.filter(|p| !p.as_os_str().is_empty()) {
        return if p.is_file() {
            Ok(p)
        } else {
            Err(FuzzSetupError::NoSuchFile {
                var: var.to_string(),
                path: p.display().to_string(),
            })
        };
    }
    let tried: Vec<PathBuf> = ["release", "debug"]
        .iter()
        .map(|profile| target_dir.join(profile).join("libmpit_reference.so"))
        .collect();
    match tried.iter().find(|p| p.is_file()) {
        Some(p) => Ok(p.clone()),
        None => Err(FuzzSetupError::NotBuilt {
            var: var.to_string(),
            tried,
        }),
    }
}

/// `<workspace>/target` (the workspace is this crate's parent directory). A build with
/// another target directory sets the variable instead: `CARGO_TARGET_DIR` of the build
/// is not what a fuzz binary sees when it runs.
fn workspace_target() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target")
}

/// Ends the process for a setup error: one line on stderr and exit status 2. Never a
/// panic, which libFuzzer would record as a finding.
pub fn setup_failed(e: &FuzzSetupError) -> ! {
    eprintln!("fuzz setup: {e}");
    std::process::exit(i32::from(exit_code::CANNOT_RUN))
}

/// xorshift64* (Vigna): deterministic inputs, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `n` inputs for the oracles without libFuzzer (the stable smoke tests, the bench):
/// half random bytes (0..256 of them), half seeds with one to four bytes
/// replaced, inserted, deleted or cut (libFuzzer's first mutations, roughly).
pub fn generated(seeds: &[Vec<u8>], n: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut r = Rng(seed);
    (0..n)
        .map(|k| {
            if k % 2 == 0 || seeds.is_empty() {
                let len = r.below(256);
                (0..len).map(|_| r.next() as u8).collect()
            } else {
                let mut b = seeds[r.below(seeds.len())].clone();
                for _ in 0..1 + r.below(4) {
                    let at = r.below(b.len() + 1);
                    match r.below(4) {
                        0 if at < b.len() => b[at] = r.next() as u8,
                        1 => b.insert(at, r.next() as u8),
                        2 if at < b.len() => {
                            b.remove(at);
                        }
                        _ => b.truncate(at),
                    }
                }
                b
            }
        })
        .collect()
}
