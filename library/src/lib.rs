//! mpit-target: one loaded library, its ABI profile, and the decoding of what it
//! returns into the spec's names (docs/ARCHITECTURE.md; the ABI families and their
//! detection: docs/ABI.md). Every module but
//! `ffi`, which wraps each raw call in a safe function, forbids `unsafe`.

#[forbid(unsafe_code)]
pub mod activity;
#[forbid(unsafe_code)]
pub mod catalog;
#[forbid(unsafe_code)]
pub mod elf;
#[forbid(unsafe_code)]
pub mod env;
pub mod ffi;
#[forbid(unsafe_code)]
pub mod lifecycle;
#[forbid(unsafe_code)]
pub mod named;
#[forbid(unsafe_code)]
pub mod predefined;
#[forbid(unsafe_code)]
pub mod reading;

pub use env::{worker_env, WorkerEnv};
pub use named::{is_linked, lib_exists, library_file, LINKED_REFERENCE};
pub use predefined::Predefined;

use mpit_spec::specs;
use mpit_vocab::profile::{AbiProfile, Family, HandleValue, HandleWidth, ReturnCode};
use mpit_vocab::spec::Datatype;
use mpit_vocab::yaml::YamlError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How the ABI profile is chosen (`--abi`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AbiChoice {
    /// The family detected from exported symbols and version functions, and the bundled
    /// profile of that family matching `MPI_Get_library_version`.
    Auto,
    /// A family: its bundled profile matching the library's version (the newest of the
    /// family when none matches).
    Family(Family),
    /// One bundled profile by name (`mpich-4`, `openmpi-5`, ...).
    Bundled(&'static Bundled),
    /// A profile YAML file (e.g. written by `cargo xtask abi-probe`).
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
            other => match BUNDLED.iter().find(|b| b.name == other) {
                Some(b) => AbiChoice::Bundled(b),
                None => return Err(unknown_abi(other)),
            },
        })
    }
}

fn unknown_abi(name: &str) -> String {
    let names: Vec<&str> = BUNDLED.iter().map(|b| b.name).collect();
    format!(
        "unknown ABI `{name}`: expected auto, mpich, openmpi, standard, a bundled profile ({}) or a .yaml profile",
        names.join(", ")
    )
}

/// An ABI profile compiled into the binary (`specs/abi/<name>.yaml`).
#[derive(Debug, PartialEq, Eq)]
pub struct Bundled {
    pub name: &'static str,
    pub family: Family,
    /// The path in the repository, named in errors and in the evidence.
    pub file: &'static str,
    /// Its path in the spec bundle.
    rel: &'static str,
}

macro_rules! bundled {
    ($name:literal, $family:expr) => {
        Bundled {
            name: $name,
            family: $family,
            file: concat!("specs/abi/", $name, ".yaml"),
            rel: concat!("abi/", $name, ".yaml"),
        }
    };
}

/// Every bundled profile; within a family, oldest release first. The vendor profiles are
/// generated from the vendors' headers by `cargo xtask abi-probe` (each file's first
/// lines say which header and how to regenerate it).
pub static BUNDLED: &[Bundled] = &[
    bundled!("standard", Family::Standard),
    bundled!("mpich-4", Family::Mpich),
    bundled!("mpich-5", Family::Mpich),
    bundled!("openmpi-4", Family::Openmpi),
    bundled!("openmpi-5", Family::Openmpi),
];

impl Bundled {
    /// The parsed profile (the texts are compiled in and unit-tested, but a parse error
    /// is still reported, as `specs/abi/<name>.yaml:line:col`, never a panic).
    pub fn profile(&self) -> Result<AbiProfile, TargetError> {
        let text = specs::text(self.rel).unwrap_or_default();
        Ok(AbiProfile::from_yaml(text, self.file)?)
    }
}

/// What a library's `MPI_Get_library_version` (or a header's version macros) says about
/// its release: what the choice among a family's bundled profiles rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Release {
    /// `MPICH Version: 4.0.2` (MPICH's own builds, e.g. Debian's and the PyPI wheel).
    Mpich {
        major: u32,
        minor: u32,
    },
    /// `Intel(R) MPI Library 2021.19.0 for Linux* OS`.
    IntelMpi {
        year: u32,
    },
    /// `Open MPI v4.1.4, package: ...`.
    OpenMpi {
        major: u32,
    },
    Unknown,
}

/// The leading `major[.minor]` number pair of `s`.
fn version_numbers(s: &str) -> Option<(u32, u32)> {
    let mut parts = s.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
    Some((major, minor))
}

impl Release {
    pub fn from_library_version(text: &str) -> Release {
        let after = |marker: &str| {
            text.find(marker)
                .map(|i| text[i + marker.len()..].trim_start())
                .and_then(version_numbers)
        };
        if let Some((major, minor)) = after("MPICH Version:") {
            Release::Mpich { major, minor }
        } else if let Some((year, _)) = after("Intel(R) MPI Library") {
            Release::IntelMpi { year }
        } else if let Some((major, _)) = after("Open MPI v") {
            Release::OpenMpi { major }
        } else {
            Release::Unknown
        }
    }
}

impl std::fmt::Display for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Release::Mpich { major, minor } => write!(f, "MPICH {major}.{minor}"),
            Release::IntelMpi { year } => write!(f, "Intel MPI {year}"),
            Release::OpenMpi { major } => write!(f, "Open MPI {major}"),
            Release::Unknown => f.write_str("an unknown release"),
        }
    }
}

/// The bundled profile for a release of a family, or `None` when no bundled profile is
/// known to match it.
///
/// * MPICH 4.0 → mpich-4 (Debian's 4.0.2 header). MPICH 4.1 and later → mpich-5: the
///   MPI-4.0 constants 4.0.2 lacks (`MPI_T_ERR_NOT_ACCESSIBLE`, `MPI_T_BIND_MPI_SESSION`)
///   arrived after 4.0, and mpich-5 has every constant of mpich-4 with the same value
///   (tested), so the newer table decodes everything the older one does.
/// * Intel MPI 2021 → mpich-5: the 2021.19 `mpi.h` gives exactly MPICH 5.0.2's values
///   (tested by harness/tests/abi_probe.rs).
/// * Open MPI 4 → openmpi-4, 5 and later → openmpi-5.
pub fn bundled_for(family: Family, release: &Release) -> Option<&'static Bundled> {
    let name = match (family, release) {
        (Family::Standard, _) => "standard",
        (Family::Mpich, Release::Mpich { major: 4, minor: 0 }) => "mpich-4",
        (Family::Mpich, Release::Mpich { major, .. }) if *major >= 4 => "mpich-5",
        (Family::Mpich, Release::IntelMpi { year }) if *year >= 2021 => "mpich-5",
        (Family::Openmpi, Release::OpenMpi { major: 4 }) => "openmpi-4",
        (Family::Openmpi, Release::OpenMpi { major }) if *major >= 5 => "openmpi-5",
        _ => return None,
    };
    BUNDLED.iter().find(|b| b.name == name)
}

/// The newest bundled profile of a family (used when the family is given explicitly and
/// no bundled profile matches the release).
fn newest(family: Family) -> Option<&'static Bundled> {
    BUNDLED.iter().rev().find(|b| b.family == family)
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
    Contradiction { chosen: String, detected: String },
    #[error("no bundled {family} profile is known to match {release} (\"{version}\"); pass --abi {family} to use the newest ({newest}), or --abi FILE.yaml written by `cargo xtask abi-probe` from the library's mpi.h")]
    NoMatchingProfile {
        family: Family,
        release: Release,
        version: String,
        newest: &'static str,
    },
    #[error("no ABI profile for the {0} family is bundled; pass --abi FILE.yaml")]
    NoProfile(Family),
    #[error(transparent)]
    Profile(#[from] YamlError),
}

/// A loaded library with its profile.
pub struct Target {
    pub lib: ffi::Lib,
    pub profile: AbiProfile,
    /// Which profile was chosen and why (printed with the evidence).
    pub profile_origin: String,
    pub detection: Option<Detection>,
    /// Datatype handle values as this process sees them (Open MPI's are addresses).
    datatypes: Vec<(Datatype, u64)>,
    /// The profile's other predefined handles as this process sees them (e.g. MPICH's
    /// `MPI_T_PVAR_ALL_HANDLES`, the value stored in that exported variable).
    pub handles: BTreeMap<String, u64>,
    /// The MPI_T calls' NULL handles and `MPI_T_PVAR_ALL_HANDLES` among them, read once.
    pub predefined: Predefined,
    /// Profile entries naming an object the library does not export (`MPI_INT =
    /// {symbol: ompi_mpi_int}`): a profile that does not fit the library.
    pub unresolved: Vec<String>,
    /// Messages the activity sent to self and left unreceived (`hold`), received by a
    /// later activity's `drain` (target::activity).
    pub(crate) held: std::sync::Mutex<Vec<(i32, ffi::PendingSend)>>,
}

/// Tells the family from what the library exports, before any call that could fail
/// (docs/ABI.md, "Detection": check MPI_Abi_get_version's value first; native MPICH 5
/// and Intel export it too but return -1.-1, and Intel's standard-ABI library also has
/// Intel symbols).
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

/// `--abi X` against what was detected: an error unless they agree or `force` is set.
fn agree(
    chosen: impl std::fmt::Display,
    family: Family,
    detection: &Option<Detection>,
    force: bool,
) -> Result<(), TargetError> {
    match detection {
        Some(d) if d.family != family && !force => Err(TargetError::Contradiction {
            chosen: chosen.to_string(),
            detected: format!("detected {} family: {}", d.family, d.evidence),
        }),
        _ => Ok(()),
    }
}

impl Target {
    /// The MPI-4.1 MPI_T entry points the library does not export: reported as
    /// unsupported, never called (a missing symbol is not a crash).
    pub fn unsupported(&self) -> Vec<String> {
        self.lib
            .entry_points()
            .into_iter()
            .filter(|(_, ok)| !ok)
            .map(|(n, _)| n.to_string())
            .collect()
    }

    /// Opens a library and settles its profile. `force` proceeds past a contradiction
    /// between `--abi` and what the library exports.
    pub fn open(path: &Path, abi: &AbiChoice, force: bool) -> Result<Target, TargetError> {
        let mut lib = match is_linked(path) {
            true => ffi::Lib::linked(),
            false => ffi::Lib::open(path)?,
        };
        if !lib.exports("MPI_T_init_thread") {
            return Err(TargetError::NotMpi(path.display().to_string()));
        }
        let detection = detect(&lib);
        let version = lib
            .get_library_version()
            .map(|(_, v)| v)
            .unwrap_or_default();
        let release = Release::from_library_version(&version);
        let first_line = version.lines().next().unwrap_or("").to_string();
        let chosen = |b: &'static Bundled, why: String| -> Result<_, TargetError> {
            Ok((b.profile()?, format!("{} ({}), {why}", b.name, b.file)))
        };
        let (profile, profile_origin) = match abi {
            AbiChoice::Auto => {
                let Some(d) = &detection else {
                    return Err(TargetError::Undetected(path.display().to_string()));
                };
                match bundled_for(d.family, &release) {
                    Some(b) if d.family == Family::Standard => chosen(
                        b,
                        "chosen for the standard family (values fixed by MPI-5.0)".into(),
                    )?,
                    Some(b) => chosen(
                        b,
                        format!("chosen for the {} family and {release}", d.family),
                    )?,
                    None => {
                        return Err(TargetError::NoMatchingProfile {
                            family: d.family,
                            release,
                            version: first_line,
                            newest: newest(d.family).map_or("none", |b| b.name),
                        })
                    }
                }
            }
            AbiChoice::Family(f) => {
                agree(f, *f, &detection, force)?;
                match (bundled_for(*f, &release), newest(*f)) {
                    (Some(b), _) => chosen(b, format!("chosen by --abi {f} for {release}"))?,
                    (None, Some(b)) => chosen(
                        b,
                        format!("the newest {f} profile: none is known to match {release} (\"{first_line}\")"),
                    )?,
                    (None, None) => return Err(TargetError::NoProfile(*f)),
                }
            }
            AbiChoice::Bundled(b) => {
                agree(b.name, b.family, &detection, force)?;
                chosen(b, format!("chosen by --abi {}", b.name))?
            }
            AbiChoice::File(p) => {
                let profile = AbiProfile::load(p)?;
                agree(p.display(), profile.family, &detection, force)?;
                (profile, format!("{} (--abi)", p.display()))
            }
        };
        // The wrappers pass and decode MPI_Datatype / MPI_Comm / MPI_Info with it.
        lib.set_handle_width(match profile.mpi_handle_width {
            HandleWidth::Int => 4,
            HandleWidth::Pointer => 8,
        });
        let mut unresolved = Vec::new();
        // MPI_Datatype, MPI_Comm, ... are an int in the MPICH family; the MPI_T handles
        // are pointers everywhere.
        let mut resolve = |name: &str, v: &HandleValue| -> Option<u64> {
            let got = match v {
                HandleValue::Num(n) if name.starts_with("MPI_T_") => Some(*n as u64),
                HandleValue::Num(n) => Some(match profile.mpi_handle_width {
                    HandleWidth::Int => *n as u64 & 0xffff_ffff,
                    HandleWidth::Pointer => *n as u64,
                }),
                HandleValue::Symbol {
                    symbol,
                    deref: false,
                } => lib.symbol_address(symbol),
                HandleValue::Symbol {
                    symbol,
                    deref: true,
                } => lib.symbol_value(symbol),
            };
            if got.is_none() {
                unresolved.push(format!("{name} = {v}"));
            }
            got
        };
        let datatypes = Datatype::ALL
            .iter()
            .filter_map(|dt| resolve(dt.spelling(), profile.datatype.get(*dt)).map(|v| (*dt, v)))
            .collect();
        let handles = profile
            .handles
            .iter()
            .filter_map(|(name, v)| resolve(name, v).map(|x| (name.clone(), x)))
            .collect();
        let predefined = Predefined::of(&handles);
        Ok(Target {
            lib,
            profile,
            profile_origin,
            detection,
            datatypes,
            handles,
            predefined,
            unresolved,
            held: Default::default(),
        })
    }

    /// A return code by its spec name.
    pub fn rc(&self, rc: i32) -> ReturnCode {
        self.profile.decode(rc as i64)
    }

    /// A datatype handle no profile entry matches, for evidence: the number, and the
    /// library object it is the address of, if any (`0x7f.. = &ompi_mpi_c_bool`).
    pub fn describe_datatype(&self, raw: u64) -> String {
        match self.profile.mpi_handle_width {
            HandleWidth::Pointer => match self.lib.symbol_at(raw) {
                Some(s) => format!("{raw:#x} = &{s}"),
                None => format!("{raw:#x}"),
            },
            HandleWidth::Int => format!("{:#x}", raw & 0xffff_ffff),
        }
    }

    /// The handle value of a datatype of the 4.1 table in this process, if resolved.
    pub fn datatype_handle(&self, d: Datatype) -> Option<u64> {
        self.datatypes
            .iter()
            .find(|(x, _)| *x == d)
            .map(|(_, v)| *v)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_profile_parses_and_names_its_family() {
        for b in BUNDLED {
            let p = b.profile().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(p.family, b.family, "{}", b.name);
            assert!(b.name.starts_with(&b.family.to_string()), "{}", b.name);
        }
        assert_eq!(
            BUNDLED[0]
                .profile()
                .expect("standard")
                .differences(&AbiProfile::standard()),
            Vec::<String>::new()
        );
    }

    #[test]
    fn releases_from_library_version_strings() {
        // The first lines of the seven real targets (scripts/TARGETS.md).
        for (text, want) in [
            (
                "MPICH Version:      4.0.2\nMPICH Release date: ...",
                Release::Mpich { major: 4, minor: 0 },
            ),
            (
                "MPICH Version:\t5.0.2\n",
                Release::Mpich { major: 5, minor: 0 },
            ),
            (
                "Intel(R) MPI Library 2021.19.0 for Linux* OS",
                Release::IntelMpi { year: 2021 },
            ),
            (
                "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4",
                Release::OpenMpi { major: 4 },
            ),
            (
                "Open MPI v5.0.11, package: Open MPI user@localhost Distribution",
                Release::OpenMpi { major: 5 },
            ),
            ("mpit-reference 0.1.0", Release::Unknown),
            ("MVAPICH2 Version 2.3.7", Release::Unknown),
        ] {
            assert_eq!(Release::from_library_version(text), want, "{text}");
        }
    }

    #[test]
    fn bundled_profile_per_family_and_release() {
        let name = |f, r| bundled_for(f, &r).map(|b| b.name);
        assert_eq!(
            name(Family::Mpich, Release::Mpich { major: 4, minor: 0 }),
            Some("mpich-4")
        );
        assert_eq!(
            name(Family::Mpich, Release::Mpich { major: 4, minor: 2 }),
            Some("mpich-5")
        );
        assert_eq!(
            name(Family::Mpich, Release::Mpich { major: 5, minor: 0 }),
            Some("mpich-5")
        );
        assert_eq!(
            name(Family::Mpich, Release::IntelMpi { year: 2021 }),
            Some("mpich-5")
        );
        assert_eq!(
            name(Family::Mpich, Release::Mpich { major: 3, minor: 4 }),
            None
        );
        assert_eq!(name(Family::Mpich, Release::Unknown), None);
        assert_eq!(
            name(Family::Openmpi, Release::OpenMpi { major: 4 }),
            Some("openmpi-4")
        );
        assert_eq!(
            name(Family::Openmpi, Release::OpenMpi { major: 5 }),
            Some("openmpi-5")
        );
        assert_eq!(
            name(Family::Openmpi, Release::Mpich { major: 5, minor: 0 }),
            None
        );
        assert_eq!(name(Family::Standard, Release::Unknown), Some("standard"));
        assert_eq!(newest(Family::Mpich).map(|b| b.name), Some("mpich-5"));
        assert_eq!(newest(Family::Openmpi).map(|b| b.name), Some("openmpi-5"));
    }

    /// mpich-5 may stand in for MPICH 4.1+ only because it decodes every constant
    /// mpich-4 defines to the same name; likewise openmpi-5 for openmpi-4.
    #[test]
    fn newer_profiles_extend_older_ones() {
        for (old, new) in [("mpich-4", "mpich-5"), ("openmpi-4", "openmpi-5")] {
            let find = |n| {
                BUNDLED
                    .iter()
                    .find(|b| b.name == n)
                    .expect(n)
                    .profile()
                    .expect(n)
            };
            let (o, n) = (find(old), find(new));
            for d in o.differences(&n) {
                assert!(
                    d.contains(": null vs ") || d.contains(": absent vs "),
                    "{old} → {new}: {d}"
                );
            }
        }
    }
}
