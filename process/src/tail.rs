//! A long-lived child's stderr as the supervisor keeps it (mpit-conform's workers send
//! the library's stdout there too: their stdout is the protocol's channel). A thread
//! drains it to the end, whatever comes — megabytes, bytes that are not UTF-8, a line
//! that never ends — keeping only the last lines, each cut to a bounded length, so a
//! child cannot stall on a full pipe nor the supervisor run out of memory.

use crate::capture::pump;
use std::collections::VecDeque;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Lines kept (the last ones).
pub const KEEP_LINES: usize = 20;
/// Bytes kept of one line; the rest of it is counted, not kept.
pub const LINE_CAP: usize = 400;

#[derive(Debug, Default)]
struct Kept {
    lines: VecDeque<String>,
    /// The line being read (no newline yet), at most `LINE_CAP` bytes of it.
    open: Vec<u8>,
}

impl Kept {
    fn push(&mut self, chunk: &[u8]) {
        let mut rest = chunk;
        while let Some(nl) = rest.iter().position(|b| *b == b'\n') {
            self.take(&rest[..nl]);
            self.close();
            rest = &rest[nl + 1..];
        }
        self.take(rest);
    }

    fn take(&mut self, part: &[u8]) {
        let room = LINE_CAP.saturating_sub(self.open.len());
        self.open.extend_from_slice(&part[..part.len().min(room)]);
    }

    fn close(&mut self) {
        let line = String::from_utf8_lossy(&self.open).into_owned();
        self.open.clear();
        if self.lines.len() >= KEEP_LINES {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }
}

/// The tail of one child's output, filled by a thread of its own.
#[derive(Clone)]
pub struct Tail {
    kept: Arc<Mutex<Kept>>,
    done: Arc<AtomicBool>,
}

impl Tail {
    /// Drains `from` on a new thread until end of file.
    pub fn drain(mut from: impl Read + Send + 'static) -> Tail {
        let tail = Tail {
            kept: Arc::default(),
            done: Arc::default(),
        };
        let t = tail.clone();
        std::thread::spawn(move || {
            pump(&mut from, |b| {
                if let Ok(mut k) = t.kept.lock() {
                    k.push(b);
                }
            });
            t.done.store(true, Ordering::SeqCst);
        });
        tail
    }

    /// Waits up to `wait` for the end of the output (the process is gone: its last
    /// lines, such as the in-flight marker, are still in the pipe).
    pub fn settle(&self, wait: Duration) {
        let deadline = Instant::now() + wait;
        while !self.done.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Forgets the lines kept so far (a zygote's next child starts its own tail).
    pub fn clear(&self) {
        if let Ok(mut k) = self.kept.lock() {
            k.lines.clear();
            k.open.clear();
        }
    }

    /// Waits up to `wait` for a line equal to `marker` (a zygote writes one after each
    /// child it reaps: the child's last output is before it in the pipe), then drops it
    /// and what follows. Whether it came.
    pub fn settle_on(&self, marker: &str, wait: Duration) -> bool {
        let deadline = Instant::now() + wait;
        loop {
            if let Ok(mut k) = self.kept.lock() {
                if let Some(at) = k.lines.iter().rposition(|l| l == marker) {
                    k.lines.truncate(at);
                    k.open.clear();
                    return true;
                }
            }
            if self.done.load(Ordering::SeqCst) || Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    /// The last lines, the unfinished one last.
    pub fn lines(&self) -> Vec<String> {
        let Ok(k) = self.kept.lock() else {
            return Vec::new();
        };
        let mut v: Vec<String> = k.lines.iter().cloned().collect();
        if !k.open.is_empty() {
            v.push(String::from_utf8_lossy(&k.open).into_owned());
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_lines_cut_to_length_whatever_the_bytes() {
        let mut input = Vec::new();
        for i in 0..1000 {
            input.extend_from_slice(format!("line {i}\n").as_bytes());
        }
        input.extend_from_slice(b"\xff\xfe bad\n");
        input.extend(std::iter::repeat_n(b'x', 1 << 20));
        input.extend_from_slice(b"\nlast words without newline");
        let t = Tail::drain(std::io::Cursor::new(input.clone()));
        t.settle(Duration::from_secs(5));
        let lines = t.lines();
        assert_eq!(lines.len(), KEEP_LINES + 1);
        assert_eq!(lines[KEEP_LINES - 3], "line 999");
        assert_eq!(lines[KEEP_LINES - 2], "\u{fffd}\u{fffd} bad");
        assert_eq!(lines[KEEP_LINES - 1].len(), LINE_CAP);
        assert_eq!(lines[KEEP_LINES], "last words without newline");
    }
}
