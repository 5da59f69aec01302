//! The probe's text work on a fixed preprocessed header: names classified, handles and
//! constants told apart, the family and release read, every profile constant probed.

use super::names::{int_names, key, HANDLES};
use super::preprocess::{Preprocessed, Seen, Value};
use super::vendor::{family, release};
use super::ProbeError;
use mpit_target::Release;
use mpit_vocab::profile::{AbiProfile, Family};
use mpit_vocab::spec::{Bind, TErr};
use std::collections::BTreeSet;

const HEADER: &str = r#"# 1 "names.c"
# 1 "/opt/x/include/mpi.h" 1
typedef int MPI_Datatype;
struct MPIR_T_pvar_handle_s;
extern struct MPIR_T_pvar_handle_s * const MPI_T_PVAR_ALL_HANDLES __attribute__((visibility ("default")));
extern int MPI_Send(const void *buf, int count, MPI_Datatype datatype) __attribute__((visibility ("default")));
extern struct ompi_predefined_datatype_t ompi_mpi_int, ompi_mpi_char;
extern int * const MPI_UNWEIGHTED;
typedef enum { MPI_T_VERBOSITY_USER_BASIC = 221, MPI_T_VERBOSITY_USER_DETAIL } v_t;
const char *s = "MPI_T_SOURCE_ORDERED";
# 5 "names.c" 2
mpit_probe_begin
mpit_probe_macro_MPI_INT ((MPI_Datatype)0x4c000405)
mpit_probe_macro_MPI_CHAR ((MPI_Datatype) &(ompi_mpi_char))
mpit_probe_macro_MPICH_VERSION "4.0.2"
"#;

#[test]
fn preprocessed_names_are_classified() {
    let p = Preprocessed::parse(HEADER, "mpi.h").expect("parses");
    assert_eq!(p.header_path.as_deref(), Some("/opt/x/include/mpi.h"));
    assert_eq!(
        p.seen("MPI_INT"),
        Seen::Macro("((MPI_Datatype)0x4c000405)".into())
    );
    assert_eq!(
        p.seen("MPI_T_VERBOSITY_USER_DETAIL"),
        Seen::Declared { object: false }
    );
    assert_eq!(
        p.seen("MPI_T_PVAR_ALL_HANDLES"),
        Seen::Declared { object: true }
    );
    // Inside a string literal: not declared.
    assert_eq!(p.seen("MPI_T_SOURCE_ORDERED"), Seen::Absent);
    // A function is not an object, nor are its parameter types.
    assert!(!p.objects.contains("MPI_Send") && !p.objects.contains("MPI_Datatype"));
    assert!(p.objects.contains("ompi_mpi_int") && p.objects.contains("MPI_UNWEIGHTED"));
    assert_eq!(p.handle("MPI_INT"), Value::Constant);
    assert_eq!(
        p.handle("MPI_CHAR"),
        Value::Symbol {
            symbol: "ompi_mpi_char".into(),
            deref: false
        }
    );
    assert_eq!(
        p.handle("MPI_T_PVAR_ALL_HANDLES"),
        Value::Symbol {
            symbol: "MPI_T_PVAR_ALL_HANDLES".into(),
            deref: true
        }
    );
    assert!(matches!(
        p.int("MPI_T_PVAR_ALL_HANDLES", "mpi.h"),
        Err(ProbeError::NotConstant { .. })
    ));
    assert_eq!(p.version("MPICH_VERSION").as_deref(), Some("4.0.2"));
    assert_eq!(release(&p), Release::Mpich { major: 4, minor: 0 });
    assert_eq!(family("mpi.h", &p), Family::Mpich);
    assert_eq!(family("mpi_abi.h", &p), Family::Standard);
    let ompi = HEADER.replace("ompi_mpi_int,", "ompi_mpi_comm_world, ompi_mpi_int,");
    let p = Preprocessed::parse(&ompi, "mpi.h").expect("parses");
    assert_eq!(family("mpi.h", &p), Family::Openmpi);
}

#[test]
fn every_constant_of_a_profile_is_probed() {
    let ints = int_names();
    let n = |t: &str| ints.iter().filter(|(x, _)| x == t).count();
    assert_eq!(n("t_err"), TErr::ALL.len());
    assert_eq!(n("verbosity"), 9);
    assert_eq!(n("bind"), Bind::ALL.len());
    assert_eq!(n("mpi_err"), 62);
    assert_eq!(key("bind", "MPI_T_BIND_MPI_SESSION"), "MPI_SESSION");
    assert_eq!(key("t_err", "MPI_T_ERR_INVALID"), "MPI_T_ERR_INVALID");
    // The handles of the standard profile are exactly those probed.
    let std = AbiProfile::standard();
    let probed: BTreeSet<&str> = HANDLES.iter().copied().collect();
    assert_eq!(
        std.handles
            .keys()
            .map(String::as_str)
            .collect::<BTreeSet<_>>(),
        probed
    );
}
