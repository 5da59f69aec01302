//! The builder: what to run and under which bounds.

use crate::orphans::{self, Registered};
use crate::Error;
use std::ffi::{OsStr, OsString};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// Bytes kept of each output stream of a [`Cmd::run`] unless [`Cmd::capture_limit`]
/// says otherwise.
pub const DEFAULT_CAPTURE_LIMIT: usize = 16 << 20;

/// A child to run: program, arguments, environment, bounds. Setters take and return
/// `&mut Cmd` like `std::process::Command`'s; [`Cmd::run`] and [`Cmd::start`] start it.
pub struct Cmd {
    pub(crate) program: OsString,
    pub(crate) args: Vec<OsString>,
    /// Set (`Some`) or removed (`None`), in order.
    pub(crate) env: Vec<(OsString, Option<OsString>)>,
    pub(crate) cwd: Option<PathBuf>,
    /// Removed with the run's [`crate::Outcome`] or the [`crate::Running`] child.
    pub(crate) dir: Option<tempfile::TempDir>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) stop: Option<Arc<AtomicBool>>,
    pub(crate) cap: usize,
    /// Descriptors the next child inherits under their numbers ([`Cmd::pass_fd`]).
    passed: Vec<OwnedFd>,
}

impl Cmd {
    pub fn new(program: impl AsRef<OsStr>) -> Cmd {
        Cmd {
            program: program.as_ref().to_os_string(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
            dir: None,
            timeout: None,
            stop: None,
            cap: DEFAULT_CAPTURE_LIMIT,
            passed: Vec::new(),
        }
    }

    pub fn arg(&mut self, a: impl AsRef<OsStr>) -> &mut Cmd {
        self.args.push(a.as_ref().to_os_string());
        self
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut Cmd
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        for a in args {
            self.arg(a);
        }
        self
    }

    /// Sets one variable of the child's environment (the rest is inherited).
    pub fn env(&mut self, k: impl AsRef<OsStr>, v: impl AsRef<OsStr>) -> &mut Cmd {
        self.env
            .push((k.as_ref().to_os_string(), Some(v.as_ref().to_os_string())));
        self
    }

    pub fn envs<I, K, V>(&mut self, vars: I) -> &mut Cmd
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        for (k, v) in vars {
            self.env(k, v);
        }
        self
    }

    /// Removes a variable from the child's environment.
    pub fn env_remove(&mut self, k: impl AsRef<OsStr>) -> &mut Cmd {
        self.env.push((k.as_ref().to_os_string(), None));
        self
    }

    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Cmd {
        self.cwd = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Creates a private temporary directory (`<tmp>/<prefix>XXXXXX`) now, so its path
    /// can go into the arguments; it is removed when the run's [`crate::Outcome`] (or
    /// the [`crate::Running`] child) is dropped, after the child's group is gone.
    pub fn private_dir(&mut self, prefix: &str) -> Result<PathBuf, Error> {
        let d = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .map_err(Error::Dir)?;
        let p = d.path().to_path_buf();
        self.dir = Some(d);
        Ok(p)
    }

    /// Past `d` from its start, the child's whole group is killed
    /// ([`crate::Ended::TimedOut`]).
    pub fn timeout(&mut self, d: Duration) -> &mut Cmd {
        self.timeout = Some(d);
        self
    }

    /// Once `flag` is set (Ctrl-C: [`crate::ctrl_c`]), the child's whole group is
    /// killed ([`crate::Ended::Interrupted`]); looked at every 50 ms.
    pub fn stop_on(&mut self, flag: Arc<AtomicBool>) -> &mut Cmd {
        self.stop = Some(flag);
        self
    }

    /// Bytes kept of each of stdout and stderr by [`Cmd::run`] (half of them from the
    /// start of the stream, half from its end).
    pub fn capture_limit(&mut self, bytes: usize) -> &mut Cmd {
        self.cap = bytes.max(2);
        self
    }

    /// Passes `fd` to the child: it inherits the descriptor under the number returned
    /// (for its arguments), and no other child does (the spawns of this crate take turns
    /// while one is inheritable). This process's copy is closed once the child is
    /// started; keep a duplicate (`try_clone`) to go on using what it refers to.
    pub fn pass_fd(&mut self, fd: OwnedFd) -> i32 {
        let n = fd.as_raw_fd();
        self.passed.push(fd);
        n
    }

    /// The program as given.
    pub fn program(&self) -> &OsStr {
        &self.program
    }

    /// Spawns the child: its own process group, the given stdio, tagged and registered
    /// for the sweep of orphans (`orphans`), with the passed descriptors. They are
    /// closed here whatever the outcome.
    pub(crate) fn spawn(
        &mut self,
        stdin: Stdio,
        stdout: Stdio,
        stderr: Stdio,
    ) -> Result<(Child, Registered), Error> {
        let mut c = self.describe();
        c.stdin(stdin)
            .stdout(stdout)
            .stderr(stderr)
            // Own process group: a kill reaches whatever the child started.
            .process_group(0);
        let passed = std::mem::take(&mut self.passed);
        orphans::spawn(&mut c, &passed).map_err(|e| self.spawn_error(e))
    }

    /// Program, arguments, environment and directory as a std command (not spawned).
    fn describe(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.args);
        for (k, v) in &self.env {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
        if let Some(d) = &self.cwd {
            c.current_dir(d);
        }
        c
    }

    pub(crate) fn spawn_error(&self, source: std::io::Error) -> Error {
        Error::Spawn {
            program: self.program.to_string_lossy().into_owned(),
            source,
        }
    }
}

/// A command another crate built (cc's compiler invocation): its program, arguments,
/// environment changes and directory.
impl From<Command> for Cmd {
    fn from(c: Command) -> Cmd {
        let mut cmd = Cmd::new(c.get_program());
        cmd.args(c.get_args());
        for (k, v) in c.get_envs() {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        if let Some(d) = c.get_current_dir() {
            cmd.current_dir(d);
        }
        cmd
    }
}

/// As `std::process::Command` shows itself: environment changes, program, arguments.
impl std::fmt::Debug for Cmd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.describe().fmt(f)
    }
}
