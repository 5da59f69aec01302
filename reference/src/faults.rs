//! Fault injection: each fault switches on exactly one spec violation in the reference,
//! so the harness can prove it catches it (mutation score). Selected with
//! `MPIT_REFERENCE_FAULTS=name[,name]` (`list` prints them) or `Faults::parse`.

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
        Faults([f].into_iter().collect())
    }

    /// Parses `name[,name]` (blank entries ignored).
    /// Process faults ([`ProcessFault`]) may stand in the same list: they are not
    /// spec violations of the model, so they are passed over here.
    pub fn parse(spec: &str) -> Result<Self, UnknownFault> {
        let mut set = BTreeSet::new();
        for name in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if ProcessFault::from_name(name).is_some()
                || hostile::HostileFault::from_name(name).is_some()
            {
                continue;
            }
            set.insert(Fault::from_name(name).ok_or_else(|| UnknownFault(name.to_string()))?);
        }
        Ok(Faults(set))
    }

    /// Switches `f` on from now on (a fault that starts misbehaving later in a run).
    pub(crate) fn switch_on(&mut self, f: Fault) {
        self.0.insert(f);
    }

    pub fn has(&self, f: Fault) -> bool {
        self.0.contains(&f)
    }

    pub fn iter(&self) -> impl Iterator<Item = Fault> + '_ {
        self.0.iter().copied()
    }

    /// One line per fault: `name  area  rule  description`. Not the conforming probes.
    pub fn listing() -> String {
        Self::lines(Fault::ALL.iter().filter(|f| !f.conforming()))
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
