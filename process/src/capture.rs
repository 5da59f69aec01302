//! A run-to-completion child's output, kept up to a byte cap. A thread per stream
//! drains the pipe to its end whatever the child writes, so the child never blocks on a
//! full pipe; of a stream longer than the cap, its first and its last bytes are kept
//! (half the cap each: where a program says what it is, and how it ended) and the bytes
//! between them are counted.

use std::collections::VecDeque;
use std::io::Read;
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What was kept of one output stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    head: Vec<u8>,
    tail: Vec<u8>,
    dropped: u64,
}

impl Captured {
    /// Bytes the cap made it drop (between the head and the tail).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The bytes kept, head and tail joined.
    pub fn bytes(&self) -> Vec<u8> {
        let mut v = self.head.clone();
        v.extend_from_slice(&self.tail);
        v
    }

    /// How many bytes were kept.
    pub fn len(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The output as text (invalid UTF-8 replaced); when bytes were dropped, a line
    /// saying how many stands between the head and the tail.
    pub fn text(&self) -> String {
        if self.dropped == 0 {
            return String::from_utf8_lossy(&self.bytes()).into_owned();
        }
        format!(
            "{}\n[… {} bytes dropped …]\n{}",
            String::from_utf8_lossy(&self.head),
            self.dropped,
            String::from_utf8_lossy(&self.tail)
        )
    }
}

/// The bytes being kept.
#[derive(Debug)]
struct Keeper {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: u64,
}

impl Keeper {
    fn new(cap: usize) -> Keeper {
        Keeper {
            head_cap: cap - cap / 2,
            tail_cap: cap / 2,
            head: Vec::new(),
            tail: VecDeque::new(),
            dropped: 0,
        }
    }

    fn push(&mut self, chunk: &[u8]) {
        let room = self.head_cap - self.head.len();
        let (first, rest) = chunk.split_at(chunk.len().min(room));
        self.head.extend_from_slice(first);
        if rest.len() >= self.tail_cap {
            self.dropped += (self.tail.len() + rest.len() - self.tail_cap) as u64;
            self.tail.clear();
            self.tail.extend(&rest[rest.len() - self.tail_cap..]);
            return;
        }
        self.tail.extend(rest);
        let over = self.tail.len().saturating_sub(self.tail_cap);
        self.tail.drain(..over);
        self.dropped += over as u64;
    }

    fn take(&mut self) -> Captured {
        Captured {
            head: std::mem::take(&mut self.head),
            tail: std::mem::take(&mut self.tail).into(),
            dropped: self.dropped,
        }
    }
}

/// One stream being drained by its thread.
/// Reads `from` until end of file (or an error other than EINTR), handing each chunk
/// to `keep`: the loop every output-draining thread runs.
pub(crate) fn pump(from: &mut impl Read, mut keep: impl FnMut(&[u8])) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => keep(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
}

pub(crate) struct Draining {
    kept: Arc<Mutex<Keeper>>,
    done: Receiver<()>,
}

impl Draining {
    /// Drains `from` on a new thread until end of file, keeping at most `cap` bytes.
    pub(crate) fn start(mut from: impl Read + Send + 'static, cap: usize) -> Draining {
        let kept = Arc::new(Mutex::new(Keeper::new(cap)));
        let (tx, done) = mpsc::channel();
        let k = kept.clone();
        std::thread::spawn(move || {
            pump(&mut from, |b| {
                if let Ok(mut k) = k.lock() {
                    k.push(b);
                }
            });
            let _ = tx.send(());
        });
        Draining { kept, done }
    }

    /// What was kept, once the stream ended or `grace` passed (a process outside the
    /// child's group may hold the pipe open: its output so far is taken then).
    pub(crate) fn finish(self, grace: Duration) -> Captured {
        let _ = self.done.recv_timeout(grace);
        self.kept.lock().map(|mut k| k.take()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_head_and_tail_and_counts_the_middle() {
        let mut k = Keeper::new(10);
        for chunk in [&b"0123"[..], b"456789abc", b"defghij", b"k"] {
            k.push(chunk);
        }
        let c = k.take();
        assert_eq!(c.head, b"01234");
        assert_eq!(c.tail, b"ghijk");
        assert_eq!(c.dropped, 21 - 10);
        assert_eq!(c.text(), "01234\n[… 11 bytes dropped …]\nghijk");
        let mut k = Keeper::new(10);
        k.push(b"short");
        k.push(b"er");
        let c = k.take();
        assert_eq!((c.text().as_str(), c.dropped()), ("shorter", 0));
    }

    #[test]
    fn a_drained_reader_is_kept_whole_under_the_cap() {
        let d = Draining::start(std::io::Cursor::new(b"hello\nworld".to_vec()), 1 << 20);
        let c = d.finish(Duration::from_secs(5));
        assert_eq!(c.text(), "hello\nworld");
        assert_eq!(c.len(), 11);
    }
}
