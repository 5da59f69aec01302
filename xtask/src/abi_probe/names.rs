//! The names a profile needs: every integer constant and handle with the profile table
//! it goes in, and the version macros. The probe asks the header about exactly these,
//! so the list of names is kept apart from how the header is read.

use mpit_vocab::spec::{
    Bind, CbSafety, Datatype, PvarClass, Scope, SourceOrder, SpecEnum, TErr, ThreadLevel, Verbosity,
};

/// The MPI error classes (MPI-4.1 and MPI-5.0's `MPI_ERR_ABI`), in the order of the
/// standard ABI's `mpi_abi.h`. A profile lists those its header defines (R-RC-2: no
/// MPI_T_ERR_* may equal one).
pub const MPI_ERROR_CLASSES: &[&str] = &[
    "MPI_ERR_BUFFER",
    "MPI_ERR_COUNT",
    "MPI_ERR_TYPE",
    "MPI_ERR_TAG",
    "MPI_ERR_COMM",
    "MPI_ERR_RANK",
    "MPI_ERR_REQUEST",
    "MPI_ERR_ROOT",
    "MPI_ERR_GROUP",
    "MPI_ERR_OP",
    "MPI_ERR_TOPOLOGY",
    "MPI_ERR_DIMS",
    "MPI_ERR_ARG",
    "MPI_ERR_UNKNOWN",
    "MPI_ERR_TRUNCATE",
    "MPI_ERR_OTHER",
    "MPI_ERR_INTERN",
    "MPI_ERR_PENDING",
    "MPI_ERR_IN_STATUS",
    "MPI_ERR_ACCESS",
    "MPI_ERR_AMODE",
    "MPI_ERR_ASSERT",
    "MPI_ERR_BAD_FILE",
    "MPI_ERR_BASE",
    "MPI_ERR_CONVERSION",
    "MPI_ERR_DISP",
    "MPI_ERR_DUP_DATAREP",
    "MPI_ERR_FILE_EXISTS",
    "MPI_ERR_FILE_IN_USE",
    "MPI_ERR_FILE",
    "MPI_ERR_INFO_KEY",
    "MPI_ERR_INFO_NOKEY",
    "MPI_ERR_INFO_VALUE",
    "MPI_ERR_INFO",
    "MPI_ERR_IO",
    "MPI_ERR_KEYVAL",
    "MPI_ERR_LOCKTYPE",
    "MPI_ERR_NAME",
    "MPI_ERR_NO_MEM",
    "MPI_ERR_NOT_SAME",
    "MPI_ERR_NO_SPACE",
    "MPI_ERR_NO_SUCH_FILE",
    "MPI_ERR_PORT",
    "MPI_ERR_QUOTA",
    "MPI_ERR_READ_ONLY",
    "MPI_ERR_RMA_ATTACH",
    "MPI_ERR_RMA_CONFLICT",
    "MPI_ERR_RMA_RANGE",
    "MPI_ERR_RMA_SHARED",
    "MPI_ERR_RMA_SYNC",
    "MPI_ERR_SERVICE",
    "MPI_ERR_SIZE",
    "MPI_ERR_SPAWN",
    "MPI_ERR_UNSUPPORTED_DATAREP",
    "MPI_ERR_UNSUPPORTED_OPERATION",
    "MPI_ERR_WIN",
    "MPI_ERR_RMA_FLAVOR",
    "MPI_ERR_PROC_ABORTED",
    "MPI_ERR_VALUE_TOO_LARGE",
    "MPI_ERR_SESSION",
    "MPI_ERR_ERRHANDLER",
    "MPI_ERR_ABI",
];

/// The predefined handles a profile records (those MPI_T's bind and info arguments use).
pub const HANDLES: &[&str] = &[
    "MPI_DATATYPE_NULL",
    "MPI_COMM_NULL",
    "MPI_COMM_WORLD",
    "MPI_COMM_SELF",
    "MPI_INFO_NULL",
    "MPI_SESSION_NULL",
    "MPI_GROUP_NULL",
    "MPI_WIN_NULL",
    "MPI_FILE_NULL",
    "MPI_MESSAGE_NULL",
    "MPI_ERRHANDLER_NULL",
    // MPI_Session_init's error handler in the lifecycle cases.
    "MPI_ERRORS_RETURN",
    "MPI_REQUEST_NULL",
    "MPI_OP_NULL",
    "MPI_T_ENUM_NULL",
    "MPI_T_CVAR_HANDLE_NULL",
    "MPI_T_PVAR_HANDLE_NULL",
    "MPI_T_PVAR_SESSION_NULL",
    "MPI_T_PVAR_ALL_HANDLES",
];

/// Version macros, for the description and the choice of the matching bundled profile.
pub(super) const VERSION_MACROS: &[&str] = &[
    "MPI_VERSION",
    "MPI_SUBVERSION",
    "MPI_ABI_VERSION",
    "MPI_ABI_SUBVERSION",
    "MPICH_VERSION",
    "I_MPI_VERSION",
    "OMPI_MAJOR_VERSION",
    "OMPI_MINOR_VERSION",
    "OMPI_RELEASE_VERSION",
];

/// Every integer constant of a profile with its C name, in the order written.
pub(super) fn int_names() -> Vec<(String, String)> {
    fn table<K: SpecEnum>(out: &mut Vec<(String, String)>, table: &str, prefix: &str) {
        for k in K::ALL {
            out.push((table.to_string(), format!("{prefix}{}", k.spelling())));
        }
    }
    let mut v = vec![
        ("success".to_string(), "MPI_SUCCESS".to_string()),
        ("err_lastcode".to_string(), "MPI_ERR_LASTCODE".to_string()),
    ];
    table::<TErr>(&mut v, "t_err", "");
    for c in MPI_ERROR_CLASSES {
        v.push(("mpi_err".to_string(), c.to_string()));
    }
    table::<ThreadLevel>(&mut v, "thread_level", "");
    table::<Verbosity>(&mut v, "verbosity", "MPI_T_VERBOSITY_");
    table::<Bind>(&mut v, "bind", "MPI_T_BIND_");
    table::<Scope>(&mut v, "scope", "MPI_T_SCOPE_");
    table::<PvarClass>(&mut v, "pvar_class", "MPI_T_PVAR_CLASS_");
    table::<CbSafety>(&mut v, "cb_safety", "MPI_T_CB_REQUIRE_");
    table::<SourceOrder>(&mut v, "source_order", "MPI_T_SOURCE_");
    v
}

/// Every handle of a profile with its C name: the datatypes, then the other handles.
pub(super) fn handle_names() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Datatype::ALL
        .iter()
        .map(|d| ("datatype".to_string(), d.spelling().to_string()))
        .collect();
    v.extend(
        HANDLES
            .iter()
            .map(|h| ("handles".to_string(), h.to_string())),
    );
    v
}

/// The key a C name has in its profile table (`MPI_T_VERBOSITY_USER_BASIC` → `USER_BASIC`).
pub(super) fn key<'a>(table: &str, c_name: &'a str) -> &'a str {
    let prefix = match table {
        "verbosity" => "MPI_T_VERBOSITY_",
        "bind" => "MPI_T_BIND_",
        "scope" => "MPI_T_SCOPE_",
        "pvar_class" => "MPI_T_PVAR_CLASS_",
        "cb_safety" => "MPI_T_CB_REQUIRE_",
        "source_order" => "MPI_T_SOURCE_",
        _ => "",
    };
    c_name.strip_prefix(prefix).unwrap_or(c_name)
}
