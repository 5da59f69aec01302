//! `cargo xtask abi-probe`: an ABI profile (`specs/abi/*.yaml`) made from a vendor's MPI
//! header, so no number of a vendor ABI is typed in by hand.
//!
//! 1. The header is run through the C preprocessor with a generated file that expands
//!    every name a profile needs, which tells for each name whether it is a macro (and
//!    its expansion), an identifier the header declares (an enumerator, or an `extern`
//!    object), or absent. `#ifdef` alone cannot see enumerators, and every family
//!    declares verbosity, bind, scope and class constants as enumerators.
//! 2. `c-tests/abi_probe.c` is compiled against the header with the compile-time
//!    constants among them passed as `-D` lists, linked without libmpi, and run; it
//!    prints their values.
//! 3. Handles that are the addresses of the library's objects (Open MPI's `&ompi_mpi_int`)
//!    or values stored in them (MPICH's `MPI_T_PVAR_ALL_HANDLES`) become `{symbol: ...}`
//!    entries, resolved at run time by the target layer.
//!
//! The result is checked by parsing it with `AbiProfile` before it is written.
//!
//! `names` lists what a profile needs, `preprocess` reads the header through the
//! preprocessor, `compile` builds and runs the probe program and writes the profile,
//! `vendor` tells which MPI a header comes from.

mod compile;
mod names;
mod preprocess;
mod vendor;

#[cfg(test)]
mod tests;

use crate::abi_tags;
use mpit_target::{bundled_for, Release};
use mpit_vocab::profile::{AbiProfile, Family};
use mpit_vocab::yaml::YamlError;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Where the compiler and the header come from.
#[derive(Debug, Clone)]
pub enum Compiler {
    /// The C compiler the `cc` crate finds (`$CC`, else `cc`), with `-I DIR`.
    Include(PathBuf),
    /// An MPI compiler wrapper (`mpicc`), which knows its own include path. It compiles
    /// only; the probe is linked by the plain C compiler, so never against libmpi.
    Wrapper(String),
}

/// One `abi-probe` run.
#[derive(Debug, Clone)]
pub struct Probe {
    pub compiler: Compiler,
    /// The header to include: `mpi.h` or `mpi_abi.h`.
    pub header: String,
    /// The command line to print in the generated file's first lines.
    pub command: String,
}

/// Why a profile could not be made. Each is one line.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("abi-probe: the header name `{0}` is not a file name like mpi.h or mpi_abi.h")]
    HeaderName(String),
    #[error("abi-probe: {0}: no such directory")]
    NoIncludeDir(String),
    #[error("abi-probe: no C compiler found: {0}")]
    NoCompiler(String),
    #[error("abi-probe: cannot run `{cmd}`: {reason}")]
    Spawn { cmd: String, reason: String },
    #[error("abi-probe: {step} failed: {first_error}")]
    Step { step: String, first_error: String },
    #[error("abi-probe: {header}: defines no {name}, which every profile needs")]
    Missing { header: String, name: String },
    #[error("abi-probe: {header}: {name} is a variable, not a constant: its value is only known at run time")]
    NotConstant { header: String, name: String },
    #[error("abi-probe: {0}")]
    Unexpected(String),
    #[error("abi-probe: cannot use the temporary directory {path}: {reason}")]
    TempDir { path: String, reason: String },
    #[error("abi-probe: the generated profile does not parse (a bug of the probe): {0}")]
    SelfCheck(YamlError),
}

/// A generated profile, its text, and what the probe learned on the way.
#[derive(Debug)]
pub struct Generated {
    pub yaml: String,
    pub profile: AbiProfile,
    pub header_path: String,
    pub release: Release,
    /// Constants the header does not define (written as `null` or left out).
    pub undefined: Vec<String>,
    /// `(type, struct tag)` of the header's MPI_T handle typedefs.
    pub t_handle_tags: Vec<(String, String)>,
}

/// A path relative to the current directory when it lies under it (so committed files
/// do not name the machine they were generated on).
fn display_path(p: &str) -> String {
    let path = Path::new(p);
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .map_or_else(|| p.to_string(), |r| r.display().to_string())
}

/// One line for stderr: what was probed, and how it compares with the bundled profile
/// the harness would choose for this release.
pub fn summary(g: &Generated) -> String {
    let mut s = format!(
        "abi-probe: {}: {} ({} family); {} constants undefined",
        display_path(&g.header_path),
        g.profile.description,
        g.profile.family,
        g.undefined.len()
    );
    if !g.undefined.is_empty() {
        let _ = write!(s, " ({})", g.undefined.join(", "));
    }
    match bundled_for(g.profile.family, &g.release) {
        Some(b) => match b.profile() {
            Ok(p) => {
                let d = g.profile.differences(&p);
                if d.is_empty() {
                    let _ = write!(s, "; same values as the bundled profile {}", b.name);
                } else {
                    let _ = write!(
                        s,
                        "; differs from the bundled profile {} in {} values (first: {})",
                        b.name,
                        d.len(),
                        d[0]
                    );
                }
            }
            Err(e) => {
                let _ = write!(s, "; the bundled profile {} does not parse: {e}", b.name);
            }
        },
        None => s.push_str("; no bundled profile is chosen for this release"),
    }
    if let Some(v) = abi_tags::verdict(g.profile.family == Family::Standard, &g.t_handle_tags) {
        let _ = write!(s, "; {v}");
    }
    s
}
