//! The hostile-library family of process faults: what real MPI libraries do to the
//! process they are loaded into (their own signal handlers, blocked signals, closed or
//! replaced descriptors, daemons that leave the process group, exit handlers, the
//! working directory, the umask, resource limits). Not spec violations and not in the
//! mutation score: they test that the harness still writes a report that blames every
//! death on the right call (`harness/tests/hostile_library.rs`). Selected with
//! `MPIT_REFERENCE_FAULTS` like the others; listed by `mpit-conform faults --hostile`.
//! The behaviour is in `reference/src/ffi/hostile.rs`.

use std::collections::BTreeSet;

macro_rules! hostile_faults {
    ($($variant:ident = $name:literal, $what:literal;)+) => {
        /// One hostile thing the reference does to its process.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum HostileFault { $($variant),+ }

        impl HostileFault {
            pub const ALL: &'static [HostileFault] = &[$(HostileFault::$variant),+];
            /// The name used in `MPIT_REFERENCE_FAULTS`.
            pub fn name(self) -> &'static str { match self { $(HostileFault::$variant => $name),+ } }
            /// What the reference does.
            pub fn description(self) -> &'static str { match self { $(HostileFault::$variant => $what),+ } }
            pub fn from_name(s: &str) -> Option<HostileFault> { match s { $($name => Some(HostileFault::$variant),)+ _ => None } }
        }
    };
}

hostile_faults! {
    HandlersExit = "handlers-exit", "the first MPI_T_init_thread installs SIGSEGV, SIGBUS and SIGABRT handlers that print a line and _exit(14); then MPI_T_cvar_get_info of cvar 1 faults (SIGSEGV), MPI_T_pvar_session_free faults (SIGBUS) and MPI_T_cvar_handle_free calls abort()";
    HandlersReraise = "handlers-reraise", "as handlers-exit, but the handlers print a line, restore the default action and raise the signal again";
    SignalsBlocked = "signals-blocked", "the first MPI_T_init_thread disables the alternate signal stack and blocks every signal it may (SIGSEGV, SIGBUS, SIGABRT, SIGUSR1, SIGTERM, ...); MPI_T_cvar_get_info of cvar 1 then faults (the kernel delivers a fault's SIGSEGV anyway) and of cvar 2 never returns";
    CloseFds = "close-fds", "the first MPI_T_init_thread closes descriptors 3 to 1023, as daemonizing code does";
    CloseAllFds = "close-all-fds", "the first MPI_T_init_thread closes every descriptor from 3 up (close_range)";
    CloseFdsForGood = "close-fds-for-good", "the first MPI_T_init_thread closes every descriptor from 3 up and lowers the soft limit on open files to 3: the process can open nothing again";
    Dup2OverFds = "dup2-over-fds", "the first MPI_T_init_thread points every open descriptor from 3 up at /dev/null (dup2)";
    ForkDaemon = "fork-daemon", "the first MPI_T_init_thread forks a helper that stays in the process group and sleeps, holding every descriptor (stdout, stderr) open";
    SetsidDaemon = "setsid-daemon", "the first MPI_T_init_thread forks a daemon that leaves the process group and session (setsid), forks again and sleeps, holding every descriptor open";
    LeaveGroup = "leave-group", "the first MPI_T_init_thread moves the process into the process group of a helper it forks (setpgid); MPI_T_cvar_get_info of cvar 2 then never returns";
    HangAtExit = "hang-at-exit", "the first MPI_T_init_thread registers an atexit handler that never returns";
    Chdir = "chdir", "the first MPI_T_init_thread changes the working directory to /";
    Umask = "umask", "the first MPI_T_init_thread sets the umask to 0777";
    Rlimits = "rlimits", "the first MPI_T_init_thread lowers the soft limits on open files (to 64) and on the stack (to 1 MiB)";
    ThreadAtLoad = "thread-at-load", "loading the library (its constructor, in the cdylib) starts a thread that sleeps for good, as libraries with a progress or monitoring thread do: a process with it must not fork (zygotes fall back to exec'd workers)";
    ThreadAtInit = "thread-at-init", "the first MPI_T_init_thread starts a thread that sleeps for good: a process with MPI_T initialized must not fork (the initialized zygote falls back to exec'd workers)";
    ForkedMpiInit = "forked-mpi-init", "MPI_Init aborts in a process other than the one that first queried the library's version, as a library that records its process when it starts and refuses a fork does: MPI_Init jobs fall back from zygotes' children to exec'd workers";
}

impl HostileFault {
    /// One line per fault: `name  description`.
    pub fn listing() -> String {
        super::lines_of(
            HostileFault::ALL,
            HostileFault::name,
            HostileFault::description,
        )
    }

    /// The hostile faults named in `MPIT_REFERENCE_FAULTS`.
    pub fn from_env() -> BTreeSet<HostileFault> {
        super::named_in_env(HostileFault::from_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faults::{Fault, ProcessFault};

    #[test]
    fn names_round_trip_and_are_no_other_faults() {
        for f in HostileFault::ALL {
            assert_eq!(HostileFault::from_name(f.name()), Some(*f));
            assert!(Fault::from_name(f.name()).is_none(), "{f:?}");
            assert!(ProcessFault::from_name(f.name()).is_none(), "{f:?}");
        }
        let names: BTreeSet<_> = HostileFault::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(names.len(), HostileFault::ALL.len());
    }
}
