//! The named constants of the MPI_T chapter as closed Rust enums.
//!
//! These are ABI-neutral: each ABI family gives them different numbers, and the mapping
//! lives in `profile.rs` (one place). YAML files spell them as the spec's suffixes
//! (`USER_BASIC`, `ALL_EQ`, `HIGHWATERMARK`, `MPI_INT`) so a reader who knows the
//! standard reads them as written there.

use serde::{Deserialize, Serialize};

/// Common face of the spec's named constants, so tables keyed by them (ABI profiles,
/// catalogs) can be written once.
pub trait SpecEnum: Copy + Ord + std::fmt::Debug + std::fmt::Display + 'static {
    /// Every value, in the order the standard lists them.
    const ALL: &'static [Self];
    /// The spelling used in YAML files and reports.
    fn spelling(self) -> &'static str;
    /// Parses that spelling.
    fn from_spelling(s: &str) -> Option<Self>;
}

macro_rules! spec_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident = $spelling:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vm])* #[serde(rename = $spelling)] $variant),+
        }
        impl $name {
            /// Every value, in the order the standard lists them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The spelling used in YAML files and reports (the spec's suffix).
            pub fn spelling(self) -> &'static str {
                match self { $($name::$variant => $spelling),+ }
            }
            /// Parses the spelling used in YAML files and reports.
            pub fn from_spelling(s: &str) -> Option<Self> {
                match s { $($spelling => Some($name::$variant),)+ _ => None }
            }
        }
        impl SpecEnum for $name {
            const ALL: &'static [Self] = $name::ALL;
            fn spelling(self) -> &'static str { $name::spelling(self) }
            fn from_spelling(s: &str) -> Option<Self> { $name::from_spelling(s) }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.spelling())
            }
        }
    };
}

spec_enum! {
    /// MPI-4.1 §15.3.4: the four thread support levels of `MPI_T_init_thread`.
    ThreadLevel {
        Single = "MPI_THREAD_SINGLE",
        Funneled = "MPI_THREAD_FUNNELED",
        Serialized = "MPI_THREAD_SERIALIZED",
        Multiple = "MPI_THREAD_MULTIPLE",
    }
}

spec_enum! {
    /// MPI-4.1 §15.3.1 (R-VERB-1): nine verbosity levels, ordered as listed.
    Verbosity {
        UserBasic = "USER_BASIC",
        UserDetail = "USER_DETAIL",
        UserAll = "USER_ALL",
        TunerBasic = "TUNER_BASIC",
        TunerDetail = "TUNER_DETAIL",
        TunerAll = "TUNER_ALL",
        MpidevBasic = "MPIDEV_BASIC",
        MpidevDetail = "MPIDEV_DETAIL",
        MpidevAll = "MPIDEV_ALL",
    }
}

spec_enum! {
    /// MPI-4.1 §15.3.2 (R-BIND-1): what a variable or event may be bound to.
    Bind {
        NoObject = "NO_OBJECT",
        MpiComm = "MPI_COMM",
        MpiDatatype = "MPI_DATATYPE",
        MpiErrhandler = "MPI_ERRHANDLER",
        MpiFile = "MPI_FILE",
        MpiGroup = "MPI_GROUP",
        MpiOp = "MPI_OP",
        MpiRequest = "MPI_REQUEST",
        MpiWin = "MPI_WIN",
        MpiMessage = "MPI_MESSAGE",
        MpiInfo = "MPI_INFO",
        /// Added in MPI-4.0.
        MpiSession = "MPI_SESSION",
    }
}

spec_enum! {
    /// MPI-4.1 §15.3.6 (R-SCOPE-1): cvar scopes.
    Scope {
        Constant = "CONSTANT",
        Readonly = "READONLY",
        Local = "LOCAL",
        Group = "GROUP",
        GroupEq = "GROUP_EQ",
        All = "ALL",
        AllEq = "ALL_EQ",
    }
}

spec_enum! {
    /// MPI-4.1 §15.3.7 (R-PCLASS): the ten performance variable classes.
    PvarClass {
        State = "STATE",
        Level = "LEVEL",
        Size = "SIZE",
        Percentage = "PERCENTAGE",
        HighWatermark = "HIGHWATERMARK",
        LowWatermark = "LOWWATERMARK",
        Counter = "COUNTER",
        Aggregate = "AGGREGATE",
        Timer = "TIMER",
        Generic = "GENERIC",
    }
}

spec_enum! {
    /// MPI-4.1 §15.3.5 (R-TYPE-1): the datatypes MPI_T may return (four fixed-width new in 4.1).
    Datatype {
        Int = "MPI_INT",
        Int32 = "MPI_INT32_T",
        Int64 = "MPI_INT64_T",
        Unsigned = "MPI_UNSIGNED",
        UnsignedLong = "MPI_UNSIGNED_LONG",
        UnsignedLongLong = "MPI_UNSIGNED_LONG_LONG",
        Uint32 = "MPI_UINT32_T",
        Uint64 = "MPI_UINT64_T",
        Count = "MPI_COUNT",
        Char = "MPI_CHAR",
        Double = "MPI_DOUBLE",
    }
}

spec_enum! {
    /// MPI-4.1 §15.3.8 (callback safety table): ordered from least to most restrictive.
    CbSafety {
        None = "NONE",
        MpiRestricted = "MPI_RESTRICTED",
        ThreadSafe = "THREAD_SAFE",
        AsyncSignalSafe = "ASYNC_SIGNAL_SAFE",
    }
}

spec_enum! {
    /// MPI-4.1 §15.3.8: whether a source raises its events in timestamp order.
    SourceOrder {
        Ordered = "ORDERED",
        Unordered = "UNORDERED",
    }
}

impl Datatype {
    /// Size in bytes of one element on LP64 (the platforms every family here targets):
    /// int 4, unsigned 4, unsigned long 8, unsigned long long 8, MPI_Count 8, char 1, double 8.
    pub fn size(self) -> usize {
        match self {
            Datatype::Int | Datatype::Int32 | Datatype::Unsigned | Datatype::Uint32 => 4,
            Datatype::Char => 1,
            _ => 8,
        }
    }

    /// Integer types that cannot hold negative values.
    pub fn is_unsigned(self) -> bool {
        matches!(
            self,
            Datatype::Unsigned
                | Datatype::UnsignedLong
                | Datatype::UnsignedLongLong
                | Datatype::Uint32
                | Datatype::Uint64
        )
    }
}

impl PvarClass {
    /// MPI-4.1 §15.3.7 (R-PCLASS): the datatypes each class may use. The 4.1 class
    /// tables were not extended to the fixed-width types, so those are not listed.
    pub fn allowed_datatypes(self) -> &'static [Datatype] {
        use Datatype::*;
        const LEVELS: &[Datatype] = &[Unsigned, UnsignedLong, UnsignedLongLong, Double];
        match self {
            PvarClass::State => &[Int],
            PvarClass::Percentage => &[Double],
            PvarClass::Counter => &[Unsigned, UnsignedLong, UnsignedLongLong],
            PvarClass::Level
            | PvarClass::Size
            | PvarClass::HighWatermark
            | PvarClass::LowWatermark
            | PvarClass::Aggregate
            | PvarClass::Timer => LEVELS,
            PvarClass::Generic => Datatype::ALL,
        }
    }

    /// Classes whose starting value (after handle allocation or reset) is 0.
    pub fn starts_at_zero(self) -> bool {
        matches!(
            self,
            PvarClass::Counter | PvarClass::Aggregate | PvarClass::Timer
        )
    }
}

spec_enum! {
    /// MPI-4.1 §15.3.10: every MPI_T return code other than MPI_SUCCESS, by its spec name.
    /// This is the one enum for return codes; each ABI gives it numbers in `profile.rs`.
    TErr {
        CannotInit = "MPI_T_ERR_CANNOT_INIT",
        NotAccessible = "MPI_T_ERR_NOT_ACCESSIBLE",
        NotInitialized = "MPI_T_ERR_NOT_INITIALIZED",
        NotSupported = "MPI_T_ERR_NOT_SUPPORTED",
        Memory = "MPI_T_ERR_MEMORY",
        Invalid = "MPI_T_ERR_INVALID",
        InvalidIndex = "MPI_T_ERR_INVALID_INDEX",
        /// Deprecated since MPI-4.0; the constant still exists (MPI-4.1 §15.3.10).
        InvalidItem = "MPI_T_ERR_INVALID_ITEM",
        InvalidSession = "MPI_T_ERR_INVALID_SESSION",
        InvalidHandle = "MPI_T_ERR_INVALID_HANDLE",
        InvalidName = "MPI_T_ERR_INVALID_NAME",
        OutOfHandles = "MPI_T_ERR_OUT_OF_HANDLES",
        OutOfSessions = "MPI_T_ERR_OUT_OF_SESSIONS",
        CvarSetNotNow = "MPI_T_ERR_CVAR_SET_NOT_NOW",
        CvarSetNever = "MPI_T_ERR_CVAR_SET_NEVER",
        PvarNoWrite = "MPI_T_ERR_PVAR_NO_WRITE",
        PvarNoStartstop = "MPI_T_ERR_PVAR_NO_STARTSTOP",
        PvarNoAtomic = "MPI_T_ERR_PVAR_NO_ATOMIC",
    }
}

impl std::error::Error for TErr {}

/// What an MPI_T call returns, in the model: success with a value, or a spec-named code.
pub type TResult<T> = Result<T, TErr>;

/// Which member list of a category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Members {
    Cvars,
    Pvars,
    Events,
    Categories,
}
