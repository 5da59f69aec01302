//! The supervisor's end of a worker's channel: first the worker's stdin and stdout
//! pipes, then, each time the library takes the worker's descriptors (closes them, or
//! dup2s over them) and the worker comes back, a connection on the worker's rendezvous:
//! an abstract Unix socket (no file to leave behind) named in its hello and bound here
//! for that worker alone (`target::ffi::stdio` is the worker's end).
//!
//! The worker's lines arrive as [`Event`]s from a reader thread per channel. A new
//! channel is taken once every line the worker wrote on the earlier ones has been read
//! (its page says how many), so that no line overtakes another; a line cut short by the
//! end of its channel is dropped (the worker writes it again, whole, on the next one).

use super::protocol::FromWorker;
use mpit_process::send_line;
use mpit_target::ffi::page::Record;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What a channel's reader thread reports: a line of channel `n`, or its end.
enum Event {
    Line(Result<FromWorker, String>),
    End(u32),
}

/// What came from the worker within a wait.
pub enum Heard {
    Message(Result<FromWorker, String>),
    /// The channel in use ended (the worker exits, or comes back on the rendezvous).
    Ended,
    Nothing,
}

/// The supervisor's end of one worker's channel.
pub struct Channel {
    /// Supervisor → worker: the stdin pipe, or the connection in use.
    out: Box<dyn Write + Send>,
    rx: Receiver<Event>,
    tx: Sender<Event>,
    rendezvous: Option<UnixListener>,
    /// A connection accepted and the lines the worker had sent before it: taken as the
    /// channel once they are all read.
    pending: Option<(UnixStream, u64)>,
    /// Lines received, over every channel.
    received: u64,
    /// The channel in use: 0 the pipes, n the nth connection.
    current: u32,
    /// Whether the channel in use reached its end.
    pub ended: bool,
}

/// A rendezvous for one worker: the listener, and its name for the worker's hello.
/// `None` when no socket can be bound (the worker then has no way back).
pub fn rendezvous() -> Option<(UnixListener, String)> {
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let name = format!(
        "mpit-conform/{}/{}/{nanos:08x}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    );
    let addr = SocketAddr::from_abstract_name(name.as_bytes()).ok()?;
    let l = UnixListener::bind_addr(&addr).ok()?;
    l.set_nonblocking(true).ok()?;
    Some((l, name))
}

/// Reads `from`'s protocol lines on a thread of its own, as channel `n`.
fn read_lines(from: impl Read + Send + 'static, n: u32, tx: Sender<Event>) {
    std::thread::spawn(move || {
        let mut r = BufReader::new(from);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match r.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            // Cut short by the end of its channel: written again on the next one.
            let Some(line) = buf.strip_suffix(b"\n") else {
                break;
            };
            let Some(m) = std::str::from_utf8(line).ok().and_then(FromWorker::parse) else {
                continue;
            };
            if tx.send(Event::Line(m)).is_err() {
                return;
            }
        }
        let _ = tx.send(Event::End(n));
    });
}

impl Channel {
    pub fn new(
        stdin: impl Write + Send + 'static,
        stdout: impl Read + Send + 'static,
        rendezvous: Option<UnixListener>,
    ) -> Channel {
        let (tx, rx) = mpsc::channel();
        read_lines(stdout, 0, tx.clone());
        Channel {
            out: Box::new(stdin),
            rx,
            tx,
            rendezvous,
            pending: None,
            received: 0,
            current: 0,
            ended: false,
        }
    }

    /// Writes one line to the worker (an error once it cannot be reached).
    pub fn send(&mut self, line: &str) -> std::io::Result<()> {
        send_line(&mut self.out, line)
    }

    /// What the worker says within `wait`, taking the connection it came back on when
    /// there is one (`page` reads its page: how many lines came before).
    pub fn hear(&mut self, wait: Duration, page: impl Fn() -> Record) -> Heard {
        self.accept(&page);
        match self.rx.recv_timeout(wait) {
            Ok(Event::Line(m)) => {
                self.received += 1;
                self.take_pending();
                Heard::Message(m)
            }
            Ok(Event::End(n)) if n == self.current => {
                self.ended = true;
                self.take_pending();
                match self.ended {
                    true => Heard::Ended,
                    false => Heard::Nothing,
                }
            }
            Ok(Event::End(_)) | Err(RecvTimeoutError::Timeout) => Heard::Nothing,
            // Not while this end holds a sender.
            Err(RecvTimeoutError::Disconnected) => Heard::Ended,
        }
    }

    /// A connection on the rendezvous, if the worker made one since it last came back
    /// (its page counts them: any other connection is dropped). A worker that came back
    /// and then ended left its last lines there.
    pub fn accept(&mut self, page: &impl Fn() -> Record) {
        let Some(l) = &self.rendezvous else { return };
        // The worker counts a reconnection on its page before it connects: read first,
        // since an accept(2) that finds nothing still allocates and frees a socket and
        // its file (most of the supervisor's kernel time per line in fuzz-props).
        let rec = page();
        if rec.reconnects <= self.current {
            return;
        }
        let Ok((s, _)) = l.accept() else { return };
        if s.set_nonblocking(false).is_err() {
            return;
        }
        let sent = rec.taken.map_or(0, |t| t.sent);
        self.pending = Some((s, sent));
        self.take_pending();
    }

    /// The pending connection becomes the channel once every earlier line is read (or
    /// the channel in use ended, so that no more will come).
    fn take_pending(&mut self) {
        match &self.pending {
            Some((_, sent)) if self.received >= *sent || self.ended => {}
            _ => return,
        }
        let Some((s, _)) = self.pending.take() else {
            return;
        };
        let Ok(reader) = s.try_clone() else { return };
        self.current += 1;
        self.ended = false;
        read_lines(reader, self.current, self.tx.clone());
        self.out = Box::new(s);
    }

    /// How many times the worker came back (the library took its channel).
    pub fn restored(&self) -> u32 {
        self.current
    }
}
