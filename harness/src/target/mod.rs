//! Target: one loaded library, its ABI profile, and the decoding of what it returns into
//! the spec's names (DESIGN.md, "Target" and "AbiProfile").

pub mod catalog;
pub mod ffi;

use mpit_reference::profile::{AbiProfile, Family, HandleValue, HandleWidth, ReturnCode};
use mpit_reference::spec::Datatype;
use mpit_reference::yaml::YamlError;
use std::path::{Path, PathBuf};

/// How the ABI family is chosen (`--abi`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AbiChoice {
    /// Detected from exported symbols and version functions.
    Auto,
    Family(Family),
    /// A profile YAML file (e.g. written by abi-probe).
    File(PathBuf),
}

impl std::str::FromStr for AbiChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "auto" => AbiChoice::Auto,
            "mpich" => AbiChoice::Family(Family::Mpich),
            "openmpi" => AbiChoice::Family(Family::Openmpi),
            "standard" => AbiChoice::Family(Family::Standard),
            f if f.ends_with(".yaml") || f.ends_with(".yml") => AbiChoice::File(f.into()),
            other => return Err(unknown_abi(other)),
        })
    }
}

fn unknown_abi(name: &str) -> String {
    format!("unknown ABI `{name}`: expected auto, mpich, openmpi, standard or a .yaml profile")
}

/// The family a library was found to speak, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Detection {
    pub family: Family,
    pub evidence: String,
}

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error(transparent)]
    Open(#[from] ffi::OpenError),
    #[error("{0}: not an MPI library: it exports no MPI_T_init_thread")]
    NotMpi(String),
    #[error("{0}: cannot tell its ABI family (no MPI_Abi_get_version 1.0, no ompi_mpi_comm_world, no MPI_T_PVAR_ALL_HANDLES or MPIR_Dup_fn); pass --abi")]
    Undetected(String),
    #[error("--abi {chosen} contradicts the library: {detected}; pass --force to proceed anyway")]
    Contradiction { chosen: Family, detected: String },
    #[error("no ABI profile for the {0} family is bundled yet; pass --abi FILE.yaml")]
    NoProfile(Family),
    #[error(transparent)]
    Profile(#[from] YamlError),
}

/// A loaded library with its profile.
pub struct Target {
    pub lib: ffi::Lib,
    pub profile: AbiProfile,
    pub detection: Option<Detection>,
    /// Datatype handle values as this process sees them (Open MPI's are addresses).
    datatypes: Vec<(Datatype, u64)>,
}

/// The bundled profile of a family.
pub fn bundled_profile(family: Family) -> Result<AbiProfile, TargetError> {
    match family {
        Family::Standard => Ok(AbiProfile::standard()),
        other => Err(TargetError::NoProfile(other)),
    }
}

/// Tells the family from what the library exports, before any call that could fail
/// (abi-facts.md: check MPI_Abi_get_version's value first; native MPICH 5 and Intel export
/// it too but return -1.-1, and Intel's standard-ABI library also has Intel symbols).
pub fn detect(lib: &ffi::Lib) -> Option<Detection> {
    let version = lib
        .get_library_version()
        .map(|(_, v)| v)
        .unwrap_or_default();
    let first_line = version.lines().next().unwrap_or("").to_string();
    if let Some((0, (1, minor))) = lib.abi_get_version() {
        return Some(Detection {
            family: Family::Standard,
            evidence: format!("MPI_Abi_get_version returned 1.{minor}; \"{first_line}\""),
        });
    }
    if lib.exports("ompi_mpi_comm_world") {
        return Some(Detection {
            family: Family::Openmpi,
            evidence: format!("ompi_mpi_comm_world exported; \"{first_line}\""),
        });
    }
    for sym in ["MPI_T_PVAR_ALL_HANDLES", "MPIR_Dup_fn"] {
        if lib.exports(sym) {
            return Some(Detection {
                family: Family::Mpich,
                evidence: format!("{sym} exported; \"{first_line}\""),
            });
        }
    }
    None
}

impl Target {
    /// Opens a library and settles its profile. `force` proceeds past a contradiction
    /// between `--abi` and what the library exports.
    pub fn open(path: &Path, abi: &AbiChoice, force: bool) -> Result<Target, TargetError> {
        let lib = ffi::Lib::open(path)?;
        if !lib.exports("MPI_T_init_thread") {
            return Err(TargetError::NotMpi(path.display().to_string()));
        }
        let detection = detect(&lib);
        let profile = match abi {
            AbiChoice::Auto => match &detection {
                Some(d) => bundled_profile(d.family)?,
                None => return Err(TargetError::Undetected(path.display().to_string())),
            },
            AbiChoice::Family(f) => bundled_profile(*f)?,
            AbiChoice::File(p) => AbiProfile::load(p)?,
        };
        if let Some(d) = &detection {
            if d.family != profile.family && !force {
                return Err(TargetError::Contradiction {
                    chosen: profile.family,
                    detected: format!("detected {} family: {}", d.family, d.evidence),
                });
            }
        }
        let datatypes = Datatype::ALL
            .iter()
            .filter_map(|dt| {
                let v = match profile.datatype.get(*dt) {
                    HandleValue::Num(n) => Some(*n as u64),
                    HandleValue::Symbol {
                        symbol,
                        deref: false,
                    } => lib.symbol_address(symbol),
                    HandleValue::Symbol {
                        symbol,
                        deref: true,
                    } => lib.symbol_value(symbol),
                };
                v.map(|v| (*dt, v))
            })
            .collect();
        Ok(Target {
            lib,
            profile,
            detection,
            datatypes,
        })
    }

    /// A return code by its spec name.
    pub fn rc(&self, rc: i32) -> ReturnCode {
        self.profile.decode(rc as i64)
    }

    /// A datatype OUT value (widened to 64 bits) by its spec name.
    pub fn datatype(&self, raw: u64) -> Option<Datatype> {
        let raw = match self.profile.mpi_handle_width {
            HandleWidth::Int => raw & 0xffff_ffff,
            HandleWidth::Pointer => raw,
        };
        self.datatypes
            .iter()
            .find(|(_, v)| *v == raw)
            .map(|(d, _)| *d)
    }
}
