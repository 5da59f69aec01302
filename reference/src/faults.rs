//! Fault injection: each fault switches on exactly one spec violation in the reference,
//! so the harness can prove it catches it (mutation score). Selected with
//! `MPIT_REFERENCE_FAULTS=name[,name]` (`list` prints them) or `Faults::parse`.

use mpit_vocab::catalog::Variations;
use std::collections::BTreeSet;
use std::fmt;

pub mod hostile;

macro_rules! faults {
    ($($variant:ident = $name:literal, $area:literal, $rule:literal, $what:literal;)+) => {
        /// One injectable spec violation.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Fault { $($variant),+ }

        impl Fault {
            pub const ALL: &'static [Fault] = &[$(Fault::$variant),+];
            /// The name used in `MPIT_REFERENCE_FAULTS`.
            pub fn name(self) -> &'static str { match self { $(Fault::$variant => $name),+ } }
            /// The report area whose cases must catch it.
            pub fn area(self) -> &'static str { match self { $(Fault::$variant => $area),+ } }
            /// The rule it breaks (an id of specs/clauses.yaml).
            pub fn rule(self) -> &'static str { match self { $(Fault::$variant => $rule),+ } }
            /// What the reference does wrong.
            pub fn description(self) -> &'static str { match self { $(Fault::$variant => $what),+ } }
            pub fn from_name(s: &str) -> Option<Fault> { match s { $($name => Some(Fault::$variant),)+ _ => None } }
        }
    };
}

faults! {
    TruncLenOffByOne = "trunc-len-off-by-one", "strings", "R-STR-2", "a truncated string returns strlen instead of strlen+1 as its length";
    MissingNul = "missing-nul", "strings", "R-STR-1", "a truncated string is written without its NUL terminator";
    OverrunOneByte = "overrun-one-byte", "strings", "R-STR-1", "a truncated string writes n characters plus NUL: one byte past the buffer";
    OverrunAfterReinit = "overrun-after-reinit", "strings", "R-STR-1", "after a full finalize and a new init, a truncated string writes one byte past the buffer";
    NullBufLenNoPlusOne = "null-buf-len-no-plus-one", "strings", "R-STR-3", "a NULL buffer or n==0 returns strlen instead of strlen+1";
    NullLenDeref = "null-len-deref", "strings", "R-STR-4", "a NULL length pointer is dereferenced (crash)";
    EmptyDescLenZero = "empty-desc-len-zero", "strings", "R-STR-6", "a missing description returns length 0 instead of 1";
    RefcountIgnored = "refcount-ignored", "lifecycle", "R-INIT-1", "init does not count: the first finalize uninitializes";
    ExtraFinalizeAccepted = "extra-finalize-accepted", "lifecycle", "R-FIN-1", "a finalize beyond the init count returns MPI_SUCCESS";
    WorksUninitialized = "works-uninitialized", "lifecycle", "R-INIT-1", "queries succeed before MPI_T_init_thread";
    ProvidedIllegal = "provided-illegal", "lifecycle", "R-INIT-1", "provided returns a value that is not a thread level";
    QueryThreadFollowsMpiT = "query-thread-follows-mpi-t", "lifecycle", "R-MPI-1", "MPI_T_init_thread overwrites the thread level MPI_Query_thread reports with its own";
    MpiBrokenAfterTFinalize = "mpi-broken-after-t-finalize", "lifecycle", "R-MPI-2", "MPI work fails once MPI_T was fully finalized while MPI is initialized";
    SessionFinalizeEndsMpiT = "session-finalize-ends-mpi-t", "lifecycle", "R-FIN-2", "MPI_Session_finalize also finalizes MPI_T, whatever its reference count";
    InitFailsAfterManyCycles = "init-fails-after-1000-cycles", "lifecycle", "R-FIN-3", "MPI_T_init_thread returns MPI_T_ERR_MEMORY after 1000 full init/finalize cycles (a per-cycle leak)";
    InitUncountedOffFirstThread = "init-uncounted-off-first-thread", "lifecycle", "R-INIT-1", "MPI_T_init_thread from a thread other than the first caller's does not count, so its finalize ends another thread's initialization";
    AllHandlesStartFailsContinuous = "all-handles-start-fails-continuous", "all_handles", "R-PSTART-2", "start with ALL_HANDLES fails with NO_STARTSTOP when a continuous handle is in the session";
    ReadAcceptsAllHandles = "read-accepts-all-handles", "all_handles", "R-PREAD-1", "pvar_read accepts MPI_T_PVAR_ALL_HANDLES";
    ResetAllFailsReadonly = "reset-all-fails-readonly", "all_handles", "R-PRESET-1", "reset with ALL_HANDLES fails with NO_WRITE when a read-only handle is in the session";
    GetInfoUnstable = "get-info-unstable", "indices", "R-CVAR-2", "cvar_get_info returns a different verbosity from the second call on";
    GetIndexWrong = "get-index-wrong", "indices", "R-CVAR-5", "cvar_get_index returns the wrong index for the last cvar";
    PvarGetIndexIgnoresClass = "pvar-get-index-ignores-class", "indices", "R-PVAR-4", "pvar_get_index returns the first pvar of that name whatever the class";
    BadIndexWrongCode = "bad-index-wrong-code", "indices", "R-RC-1", "an out-of-range index returns MPI_T_ERR_INVALID_NAME instead of INVALID_INDEX";
    IndexShiftAfterGrowth = "index-shift-after-growth", "indices", "R-CVAR-1", "variables that appear at MPI_Init are inserted first, moving every other index";
    ReinitLosesCvars = "reinit-loses-cvars", "indices", "R-CVAR-1", "the last MPI_T_finalize while MPI is initialized frees the control variables: after the next MPI_T_init_thread, cvar_get_num returns 0 (the storage mpich#7954 freed, seen from the catalog)";
    ReinitRenumbersCvars = "reinit-renumbers-cvars", "indices", "R-CVAR-1", "after a full MPI_T_finalize and a new MPI_T_init_thread the cvars come back in another order: index i answers for the variable that was i+1 (every index renamed)";
    NullOutRejected = "null-out-rejected", "indices", "R-CVAR-3", "cvar_get_info with a NULL verbosity pointer returns MPI_T_ERR_INVALID instead of ignoring it";
    NullOutDerefCvar = "null-out-deref-cvar", "indices", "R-CVAR-3", "cvar_get_info writes bind without checking for NULL (crash)";
    NullOutDerefPvar = "null-out-deref-pvar", "indices", "R-CVAR-3", "pvar_get_info writes atomic without checking for NULL (crash)";
    NullOutDerefCategory = "null-out-deref-category", "indices", "R-CVAR-3", "category_get_info writes num_categories without checking for NULL (crash)";
    NullOutDerefEvent = "null-out-deref-event", "indices", "R-CVAR-3", "event_get_info writes bind without checking for NULL (crash)";
    NullOutDerefSource = "null-out-deref-source", "indices", "R-CVAR-3", "source_get_info writes max_ticks without checking for NULL (crash)";
    NullOutDerefEnum = "null-out-deref-enum", "indices", "R-CVAR-3", "enum_get_info writes num without checking for NULL (crash)";
    NullOutDerefItem = "null-out-deref-item", "indices", "R-CVAR-3", "enum_get_item writes value without checking for NULL (crash)";
    DuplicateName = "duplicate-name", "indices", "R-STR-6", "the second cvar reports the first cvar's name";
    ErrorCodeOutOfRange = "error-code-out-of-range", "errors", "R-RC-2", "MPI_T_ERR_INVALID_HANDLE is returned as a number above MPI_ERR_LASTCODE";
    MpiErrClassReturned = "mpi-err-class-returned", "errors", "R-RC-3", "a bad name returns MPI_ERR_ARG (an MPI error class) instead of MPI_T_ERR_INVALID_NAME";
    HandleNotNulled = "handle-not-nulled", "cvars", "R-CVAR-7", "cvar_handle_free leaves the handle unchanged";
    WriteConstantAccepted = "write-constant-accepted", "cvars", "R-CVAR-9", "a write to a CONSTANT cvar succeeds";
    CharCountExcludesNul = "char-count-excludes-nul", "cvars", "R-TYPE-2", "an MPI_CHAR cvar's count does not leave room for the NUL";
    ReinitZeroesCvars = "reinit-zeroes-cvars", "cvars", "R-SCOPE-2", "a full MPI_T_finalize frees the cvars' values: after a new MPI_T_init_thread every cvar reads as zero and a string cvar as the empty string, the CONSTANT one included";
    StaleCvarHandleAccepted = "stale-cvar-handle-accepted", "cvars", "R-CVAR-7", "a freed cvar handle still reads";
    ForeignSessionHandleAccepted = "foreign-session-handle-accepted", "pvars", "R-PH-1", "a pvar handle used with another session is accepted";
    CounterNotZeroedByReset = "counter-not-zeroed-by-reset", "pvars", "R-PRESET-1", "reset leaves COUNTER/AGGREGATE/TIMER values unchanged";
    ReadresetNonAtomicAccepted = "readreset-non-atomic-accepted", "pvars", "R-PRR-1", "readreset on a non-atomic pvar succeeds";
    ClassDatatypeMismatch = "class-datatype-mismatch", "pvars", "R-PCLASS", "COUNTER pvars report MPI_DOUBLE";
    StartContinuousAccepted = "start-continuous-accepted", "pvars", "R-PSTART-1", "pvar_start on a single continuous handle succeeds";
    WriteReadonlyPvarAccepted = "write-readonly-pvar-accepted", "pvars", "R-PWRITE-1", "pvar_write on a read-only pvar succeeds";
    DupCommBindingRefused = "dup-comm-binding-refused", "pvars", "R-BIND-3", "a pvar or cvar bound to a duplicated communicator gets MPI_T_ERR_INVALID_HANDLE (only the predefined handles are recognized)";
    SessionNotNulled = "session-not-nulled", "pvars", "R-SESS-1", "pvar_session_free leaves the session handle unchanged";
    FlagReturnedAsTwo = "flag-returned-as-2", "pvars", "R-PVAR-2", "pvar_get_info returns readonly as 2 (not 1) for a read-only variable";
    StoppedHandleCounts = "stopped-handle-counts", "pvars", "R-PSTART-1", "a stopped handle keeps being updated by activity";
    ResetLeaksAcrossSessions = "reset-leaks-across-sessions", "pvars", "R-SESS-1", "pvar_reset of one handle resets every other handle too, in every session";
    StateOutsideEnum = "state-outside-enum", "pvars", "R-PCLASS", "a STATE pvar reads a value that is none of its enumeration's items";
    TimerNotInSeconds = "timer-not-in-seconds", "pvars", "R-PCLASS", "an MPI_DOUBLE TIMER counts milliseconds, not MPI_Wtime seconds";
    PercentageOutOfRange = "percentage-out-of-range", "pvars", "R-PCLASS", "PERCENTAGE pvars read 1.5";
    WatermarkWrongDirection = "watermark-wrong-direction", "pvars", "R-PCLASS", "HIGHWATERMARK pvars follow the level down as well as up";
    CategoryCycle = "category-cycle", "categories", "R-CAT-1", "the first category lists itself among its subcategories";
    GetCvarsWritesPastLen = "get-cvars-writes-past-len", "categories", "R-CAT-1", "category_get_cvars writes one entry more than it should";
    CategoryChangedDecreasing = "category-changed-decreasing", "categories", "R-CAT-1", "category_changed returns a smaller number on each call";
    CategoryChangedNotBumped = "category-changed-not-bumped", "categories", "R-CAT", "category_changed returns the same number after MPI_Init added pvars to categories";
    CategoryCountMismatch = "category-count-mismatch", "categories", "R-CAT-1", "category_get_info reports one cvar more than category_get_cvars returns";
    EmptyEnum = "empty-enum", "enums_datatypes", "R-ENUM-2", "enum_get_info reports num = 0";
    EnumBadItemAccepted = "enum-bad-item-accepted", "enums_datatypes", "R-ENUM-3", "enum_get_item with an out-of-range item returns MPI_SUCCESS";
    VerbosityOutOfRange = "verbosity-out-of-range", "enums_datatypes", "R-VERB-1", "cvar_get_info reports a verbosity that is none of the nine constants";
    EventInfoNull = "event-info-null", "events", "R-EVT-INFO", "event_get_info returns MPI_INFO_NULL instead of a new info object";
    EventReadOutsideCallback = "event-read-outside-callback", "events", "R-EVT-INST", "an event instance stays readable after its callback returned";
    DroppedAfterEvent = "dropped-after-event", "events", "R-EVT-DROP", "the dropped handler is called after the next event of that source, not before";
    SourceTimestampUnsupportedSucceeds = "source-timestamp-unsupported-succeeds", "events", "R-SRC-TS", "source_get_timestamp succeeds on a source without ad-hoc timestamps";
    HangInCall = "hang-in-call", "pvars", "R-GEN-1", "pvar_session_create never returns (hang)";
    CrashInCall = "crash-in-call", "cvars", "R-GEN-1", "cvar_read of an MPI_CHAR cvar crashes (SIGSEGV)";
    // The upstream corpus (reports/UPSTREAM.md): each a bug MPICH or Open MPI shipped,
    // re-created from its report's symptom as seen from outside. Several do what an
    // imagined fault above already does (`Fault::implies`); the others are their own.
    UpstreamMpich7954 = "upstream-mpich-7954", "indices", "R-CVAR-1", "mpich#7954 (4.0-5.0.1): MPI_Init's own MPI_T initialization is not counted, so an MPI_T_finalize inside MPI tears the catalog down: MPI work then fails and the next MPI_T_init_thread finds no control variables";
    UpstreamMpich6337 = "upstream-mpich-6337", "lifecycle", "R-FIN-3", "mpich#6337 (3.x-4.1): after a full MPI_T_finalize the next MPI_T_init_thread succeeds but skips the catalog's set-up: every *_get_num returns 0";
    UpstreamMpich5970 = "upstream-mpich-5970", "pvars", "R-PCLASS", "mpich#5970 (4.0.x): a COUNTER, AGGREGATE or TIMER handle starts at the garbage of an unzeroed buffer, not 0";
    UpstreamMpich4918 = "upstream-mpich-4918", "enums_datatypes", "R-ENUM-3", "mpich#4918 (4.0-5.0.1): enum_get_item with an item out of range returns the deprecated MPI_T_ERR_INVALID_ITEM in a library reporting MPI 4.x";
    UpstreamMpich2051 = "upstream-mpich-2051", "errors", "R-GEN-2", "mpich#2051 (3.0-3.4): every MPI_T error goes through the MPI error handler, which with MPI_ERRORS_ARE_FATAL aborts the process";
    UpstreamMpich1978 = "upstream-mpich-1978", "errors", "R-RC-3", "mpich#1978 (3.0-3.4): a bad or NULL handle or session returns MPI_ERR_ARG, an MPI error class, instead of MPI_T_ERR_INVALID_HANDLE or _SESSION";
    UpstreamMpich1898 = "upstream-mpich-1898", "pvars", "R-PSTART-1", "mpich#1898 (3.0.x): pvar_start, pvar_stop, pvar_reset and pvar_readreset are stubs returning MPI_SUCCESS: continuous and non-atomic variables accepted, values never reset, stopped handles keep counting";
    UpstreamMpich1930 = "upstream-mpich-1930", "pvars", "R-SESS-1", "mpich#1930 (3.0.x): one value per variable, not per session: a reset in one session resets the handles of every other";
    UpstreamMpich2021 = "upstream-mpich-2021", "cvars", "R-TYPE-2", "mpich#2021 (3.1-3.1.1): cvar_read of an MPI_CHAR variable copies count bytes of the pointer that holds the string, not the string (no NUL)";
    UpstreamMpich7247 = "upstream-mpich-7247", "enums_datatypes", "R-TYPE-1", "mpich#7247 (4.3.0, standard ABI): before MPI is initialized cvar_get_info and pvar_get_info return the internal datatype object, not the constant of Table 19";
    UpstreamMpich6390 = "upstream-mpich-6390", "all_handles", "R-PSTART-2", "mpich#6390 (standard-ABI development builds): MPI_T_PVAR_ALL_HANDLES is taken for an ordinary handle: start, stop and reset of all handles return MPI_T_ERR_INVALID_HANDLE";
    UpstreamMpich5125 = "upstream-mpich-5125", "events", "R-EVT-FREE", "mpich#5125 (4.0a1): event_handle_free calls the free callback without checking for NULL (crash)";
    UpstreamMpichC49b247cb6 = "upstream-mpich-c49b247cb6", "strings", "R-STR-3", "mpich c49b247cb6 (MPICH2 1.5): string lengths come back without the +1 (size query and truncation) and a NULL length pointer is dereferenced";
    UpstreamMpich7cdc468dbe = "upstream-mpich-7cdc468dbe", "strings", "R-STR-4", "mpich 7cdc468dbe (MPICH2 1.5): a NULL name_len or desc_len of cvar_get_info or pvar_get_info is refused with MPI_ERR_ARG instead of ignoring the string";
    UpstreamMpich1727 = "upstream-mpich-1727", "enums_datatypes", "R-ENUM-2", "mpich#1727 (MPICH2 1.5): enum_get_info takes num by value: the caller's num is never written";
    UpstreamOmpi11485 = "upstream-ompi-11485", "lifecycle", "R-GEN-4", "ompi#11485 (4.1.x): the last MPI_T_finalize after MPI_Finalize crashes closing components MPI_Finalize already closed";
    UpstreamOmpiCc6bb0e773 = "upstream-ompi-cc6bb0e773", "lifecycle", "R-GEN-4", "ompi cc6bb0e773 (main, 2026): the last MPI_T_finalize after MPI_Finalize frees the shared event base a second time (crash)";
    UpstreamOmpi675236d09b = "upstream-ompi-675236d09b", "lifecycle", "R-INIT-1", "ompi 675236d09b (4.1-5.0.x): a nested MPI_T_init_thread leaves provided unwritten, and MPI_T's level becomes MPI's (MPI_Query_thread)";
    UpstreamOmpiD83e24ac29 = "upstream-ompi-d83e24ac29", "lifecycle", "R-GEN-4", "ompi d83e24ac29 (5.0.x): while MPI_T is initialized the second MPI_Session_init fails with MPI_ERR_INTERN";
    UpstreamOmpi14016 = "upstream-ompi-14016", "pvars", "R-PRR-1", "ompi#14016 (4.1-5.0.x): pvar_readreset is a stub that returns MPI_T_ERR_INVALID_HANDLE for every handle and writes nothing";
    UpstreamOmpi14017 = "upstream-ompi-14017", "categories", "R-RC-1", "ompi#14017 (main, 2025-26): category_get_num_events and category_get_events accept any category index with MPI_SUCCESS and write nothing";
    UpstreamOmpi11492 = "upstream-ompi-11492", "indices", "R-PVAR-1", "ompi#11492 (4.1-5.x): after MPI_Init pvar_get_num counts the variables of unselected components, and pvar_get_info on them returns MPI_T_ERR_INVALID";
    UpstreamOmpi2421 = "upstream-ompi-2421", "indices", "R-PVAR-4", "ompi#2421 (1.10-2.0.1): pvar_get_index returns index 0 for every variable it finds";
    UpstreamOmpi658 = "upstream-ompi-658", "indices", "R-CVAR-5", "ompi#658 (1.8.3-1.8.6): an unknown name in *_get_index returns MPI_T_ERR_INVALID, not MPI_T_ERR_INVALID_NAME";
    UpstreamOmpi4433 = "upstream-ompi-4433", "pvars", "R-GEN-1", "ompi#4433 (2.x-3.x): after MPI_Init pvar_handle_alloc of a variable of an unloaded component calls into unloaded code (crash)";
    UpstreamOmpi4162 = "upstream-ompi-4162", "pvars", "R-GEN-1", "ompi#4162 (3.0.x): pvar_handle_alloc of a monitoring variable whose component was closed crashes";
    UpstreamOmpi7610 = "upstream-ompi-7610", "errors", "R-RC-3", "ompi#7610 (1.7-4.0.3): a NULL OUT pointer returns MPI_ERR_ARG and a failed variable lookup (a bad index) MPI_ERR_OTHER, MPI error classes";
    UpstreamOmpi7084 = "upstream-ompi-7084", "indices", "R-RC-2", "ompi#7084 (4.0.3): after MPI_Init pvar_get_info of a variable no longer valid returns the internal code -18";
    UpstreamOmpi2689 = "upstream-ompi-2689", "cvars", "R-CVAR-9", "ompi#2689 (2.0.x): cvar_write of a variable with an enumeration crashes (the verbosity enumerator's NULL string)";
    UpstreamOmpiB9dfe84b05 = "upstream-ompi-b9dfe84b05", "cvars", "R-CVAR-9", "ompi b9dfe84b05 (1.7.x): cvar_write of a boolean variable (MPI_INT with an enumeration) crashes";
    UpstreamOmpiA28012b29d = "upstream-ompi-a28012b29d", "enums_datatypes", "R-VERB-1", "ompi a28012b29d (1.7.0-1.8.1): cvar_get_info never writes verbosity";
    UpstreamOmpi38bcbc4696 = "upstream-ompi-38bcbc4696", "strings", "R-STR-3", "ompi 38bcbc4696 (1.7.0-1.7.2): a NULL string buffer with a non-zero length is written to (crash)";
    UpstreamOmpiD34a4300b8 = "upstream-ompi-d34a4300b8", "pvars", "R-GEN-1", "ompi d34a4300b8 (1.7.0-1.7.3): pvar_read of a HIGHWATERMARK or LOWWATERMARK handle crashes";
    UpstreamOmpiD843f7ae74 = "upstream-ompi-d843f7ae74", "categories", "R-CAT-1", "ompi d843f7ae74 (1.8.0-1.8.4): MPI_Init closes the unselected components' groups, which empties their categories: members disappear";
    UpstreamOmpiF8d0f599d6 = "upstream-ompi-f8d0f599d6", "lifecycle", "R-INIT-1", "ompi f8d0f599d6 (main, standard ABI, 2025-26): thread levels pass unconverted (provided is not an ABI level) and MPI_T_ERR_NOT_INITIALIZED comes back as the internal 55";
    ReadresetReadonlyNoWrite = "readreset-readonly-no-write", "conforming", "R-PRR-1", "readreset of a read-only, non-atomic pvar answers NO_WRITE rather than NO_ATOMIC (two errors: either code conforms)";
    EmptyDescriptions = "empty-descriptions", "conforming", "R-STR-6", "no variable, category, event or source has a description (\"\" of length 1: descriptions are optional), except cvars of GROUP/ALL scopes, whose description R-SCOPE-1 requires";
    EnumInvalidIndex = "enum-invalid-index", "conforming", "R-ENUM-2", "enum_get_info and enum_get_item answer MPI_T_ERR_INVALID_INDEX, the table's code for an invalid enumeration, for an enumtype the library never returned (the reference otherwise answers MPI_T_ERR_INVALID: both are codes of the table, and the argument is an invalid parameter value, R-GEN-3)";
    LongNames = "long-names", "conforming", "R-STR-6", "every cvar, pvar and category name is padded to 2000 characters (no length limit; unique as before), longer than any fixed buffer a tool may pass";
}

impl Fault {
    /// A conforming probe rather than a violation: the mutation score leaves it out, and
    /// a run with it must show no deviation.
    pub fn conforming(self) -> bool {
        self.area() == "conforming"
    }

    /// A bug of the upstream corpus (`upstream-mpich-…`, `upstream-ompi-…`,
    /// reports/UPSTREAM.md) rather than an imagined fault: held to being caught by
    /// `harness/tests/corpus.rs`, not counted in the mutation score.
    pub fn corpus(self) -> bool {
        self.name().starts_with("upstream-")
    }

    /// The imagined faults a corpus bug's library also did, seen from outside: switching
    /// the bug on switches these on too (each still does only its own thing).
    pub fn implies(self) -> &'static [Fault] {
        use Fault::*;
        match self {
            UpstreamMpich7954 => &[ReinitLosesCvars, MpiBrokenAfterTFinalize],
            UpstreamMpich1898 => &[
                StartContinuousAccepted,
                CounterNotZeroedByReset,
                ReadresetNonAtomicAccepted,
                StoppedHandleCounts,
            ],
            UpstreamMpich1930 => &[ResetLeaksAcrossSessions],
            UpstreamMpichC49b247cb6 => &[TruncLenOffByOne, NullBufLenNoPlusOne, NullLenDeref],
            UpstreamOmpi675236d09b => &[QueryThreadFollowsMpiT],
            UpstreamOmpiB9dfe84b05 => &[UpstreamOmpi2689],
            UpstreamOmpi4162 => &[UpstreamOmpi4433],
            UpstreamOmpiCc6bb0e773 => &[UpstreamOmpi11485],
            UpstreamOmpiF8d0f599d6 => &[ProvidedIllegal],
            _ => &[],
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown name in a fault list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown fault `{0}` in MPIT_REFERENCE_FAULTS (MPIT_REFERENCE_FAULTS=list shows the {n} known faults)", n = Fault::ALL.len())]
pub struct UnknownFault(pub String);

/// The set of faults switched on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Faults(BTreeSet<Fault>);

impl Faults {
    /// No faults: the conformant reference.
    pub fn none() -> Self {
        Faults::default()
    }

    /// One fault.
    pub fn one(f: Fault) -> Self {
        let mut set = Faults::default();
        set.switch_on(f);
        set
    }

    /// Parses `name[,name]` (blank entries ignored).
    /// Process faults ([`ProcessFault`]) may stand in the same list: they are not
    /// spec violations of the model, so they are passed over here.
    pub fn parse(spec: &str) -> Result<Self, UnknownFault> {
        let mut set = Faults::default();
        for name in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if ProcessFault::from_name(name).is_some()
                || hostile::HostileFault::from_name(name).is_some()
            {
                continue;
            }
            let f = Fault::from_name(name).ok_or_else(|| UnknownFault(name.to_string()))?;
            set.switch_on(f);
        }
        Ok(set)
    }

    /// Switches `f` on from now on (a fault that starts misbehaving later in a run).
    /// A corpus bug brings the faults it implies ([`Fault::implies`]).
    pub(crate) fn switch_on(&mut self, f: Fault) {
        self.0.insert(f);
        for &g in f.implies() {
            self.switch_on(g);
        }
    }

    pub fn has(&self, f: Fault) -> bool {
        self.0.contains(&f)
    }

    /// The variations of the catalog these faults ask for (`Catalog::varied`).
    pub fn variations(&self) -> Variations {
        Variations {
            empty_descriptions: self.has(Fault::EmptyDescriptions),
            long_names: self.has(Fault::LongNames),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = Fault> + '_ {
        self.0.iter().copied()
    }

    /// One line per fault: `name  area  rule  description`. Not the conforming probes.
    pub fn listing() -> String {
        Self::lines(Fault::ALL.iter().filter(|f| !f.conforming() && !f.corpus()))
    }

    /// The upstream corpus's bugs (`faults --corpus`).
    pub fn corpus_listing() -> String {
        Self::lines(Fault::ALL.iter().filter(|f| f.corpus()))
    }

    /// The conforming probes: behaviours the standard allows that the reference does
    /// not pick, which no oracle may flag (`faults --conforming`).
    pub fn conforming_listing() -> String {
        Self::lines(Fault::ALL.iter().filter(|f| f.conforming()))
    }

    fn lines<'a>(faults: impl Iterator<Item = &'a Fault>) -> String {
        faults
            .map(|f| {
                format!(
                    "{:<38} {:<16} {:<11} {}\n",
                    f.name(),
                    f.area(),
                    f.rule(),
                    f.description()
                )
            })
            .collect()
    }
}

macro_rules! process_faults {
    ($($variant:ident = $name:literal, $what:literal;)+) => {
        /// One way the reference misbehaves as a process (crash, hang, exit, noise)
        /// rather than as an MPI_T: these test that the harness never loses a report,
        /// whatever the library does. Not counted in the mutation score.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ProcessFault { $($variant),+ }

        impl ProcessFault {
            pub const ALL: &'static [ProcessFault] = &[$(ProcessFault::$variant),+];
            /// The name used in `MPIT_REFERENCE_FAULTS`.
            pub fn name(self) -> &'static str { match self { $(ProcessFault::$variant => $name),+ } }
            /// What the reference does.
            pub fn description(self) -> &'static str { match self { $(ProcessFault::$variant => $what),+ } }
            pub fn from_name(s: &str) -> Option<ProcessFault> { match s { $($name => Some(ProcessFault::$variant),)+ _ => None } }
        }
    };
}

/// The cvar index whose `MPI_T_cvar_get_info` crashes (`crash-in-get-info`).
pub const CRASHING_CVAR: i32 = 1;
/// The cvar index whose `MPI_T_cvar_get_info` never returns (`hang-in-get-info`).
pub const HANGING_CVAR: i32 = 2;

process_faults! {
    CrashInGetInfo = "crash-in-get-info", "MPI_T_cvar_get_info of cvar 1 dies by SIGSEGV";
    HangInGetInfo = "hang-in-get-info", "MPI_T_cvar_get_info of cvar 2 never returns";
    CrashInInit = "crash-in-init", "MPI_T_init_thread dies by SIGSEGV";
    HangInInit = "hang-in-init", "MPI_T_init_thread never returns";
    ExitInCall = "exit-in-call", "MPI_T_pvar_session_free calls exit(1)";
    AbortInCall = "abort-in-call", "MPI_T_cvar_handle_free calls abort()";
    ThreadCrash = "thread-crash", "the first MPI_T_init_thread starts a thread that dies by SIGSEGV 20 ms later";
    NoisyOutput = "noisy-output", "the first MPI_T_init_thread prints a partial line, protocol-looking lines and bytes that are not UTF-8 on stdout, and 5000 lines on stderr";
    CloseStdout = "close-stdout", "the first MPI_T_init_thread closes fd 1";
    CrashAtExit = "crash-at-exit", "the first MPI_T_init_thread registers an atexit handler that dies by SIGSEGV";
}

impl ProcessFault {
    /// One line per process fault: `name  description`.
    pub fn listing() -> String {
        lines_of(
            ProcessFault::ALL,
            ProcessFault::name,
            ProcessFault::description,
        )
    }

    /// The process faults named in `MPIT_REFERENCE_FAULTS` (other names are the
    /// model's, checked by [`Faults::parse`]).
    pub fn from_env() -> BTreeSet<ProcessFault> {
        named_in_env(ProcessFault::from_name)
    }
}

/// One line per fault of `all`: `name  description` (the process families' listings).
fn lines_of<F: Copy>(
    all: &[F],
    name: fn(F) -> &'static str,
    what: fn(F) -> &'static str,
) -> String {
    all.iter()
        .map(|f| format!("{:<38} {}\n", name(*f), what(*f)))
        .collect()
}

/// The faults of one family named in `MPIT_REFERENCE_FAULTS` (`from_name` knows them).
fn named_in_env<F: Ord>(from_name: fn(&str) -> Option<F>) -> BTreeSet<F> {
    std::env::var(crate::ENV_FAULTS)
        .unwrap_or_default()
        .split(',')
        .filter_map(|n| from_name(n.trim()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let names: BTreeSet<_> = Fault::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(names.len(), Fault::ALL.len());
        for f in Fault::ALL {
            assert_eq!(Fault::from_name(f.name()), Some(*f));
        }
        assert!(Fault::ALL.len() >= 25);
    }

    #[test]
    fn parse_rejects_unknown_names() {
        assert_eq!(
            Faults::parse("missing-nul, refcount-ignored")
                .unwrap()
                .iter()
                .count(),
            2
        );
        // A process fault is not the model's: it is passed over, not refused.
        assert_eq!(
            Faults::parse("missing-nul,hang-in-init").unwrap(),
            Faults::one(Fault::MissingNul)
        );
        let e = Faults::parse("missing-nul,no-such-fault").unwrap_err();
        assert_eq!(e.0, "no-such-fault");
        assert!(e.to_string().contains("unknown fault `no-such-fault`"));
    }
}
