//! What one call returned, in a form both engines produce: return codes by spec name,
//! constants by spelling, handles by whether they are NULL, strings as the buffer and
//! `*len` the caller sees.

use crate::judge::value::hex;
use mpit_vocab::profile::ReturnCode;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The OUT arguments of `pvar_get_info` that are flags (R-PVAR-2), which both engines
/// report as [`Out::Flag`] (the target: when 0 or 1, else as the number it returned).
pub const PVAR_FLAGS: [&str; 3] = ["readonly", "continuous", "atomic"];

/// One OUT value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Out {
    Int(i64),
    /// A constant by its spelling (`USER_BASIC`, `MPI_INT`, `COUNTER`, ...);
    /// `unknown(N)` when the target's number is none of the profile's. Borrowed
    /// spellings: no allocation per constant returned.
    Name(Cow<'static, str>),
    Flag(bool),
    Str(StrObs),
    Ints(Vec<i64>),
    /// A handle variable after the call: whether it holds the kind's NULL handle.
    Handle {
        null: bool,
    },
    /// An enumtype: `None` is MPI_T_ENUM_NULL, else the n-th distinct one the sequence saw.
    Enum(Option<u16>),
    /// A read buffer as the call left it (count × datatype size bytes).
    Bytes(Vec<u8>),
}

/// One (buf, len) pair after the call.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StrObs {
    /// The model: the bytes the convention writes (from the buffer's start). The
    /// target: the whole buffer (filled with `ffi::FILL` before the call).
    pub buf: Option<Vec<u8>>,
    pub len: Option<i32>,
    /// Offsets written outside the buffer (target only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stray: Vec<i32>,
    /// The bytes written there, in the order of `stray` (target only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stray_bytes: Vec<u8>,
    /// The model only: its string was read from the library with bytes that are not
    /// UTF-8 (kept as U+FFFD), so the bytes and length it predicts are not the library's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inexact: bool,
}

/// An OUT parameter's name: an engine's literal, borrowed (no allocation per call
/// made); owned only when read back from JSON. Reads as a `str`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct OutName(Cow<'static, str>);

impl OutName {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for OutName {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for OutName {
    fn eq(&self, o: &str) -> bool {
        same_name(&self.0, o)
    }
}

/// Two OUT names are the same: compared by address first (one comparison when both
/// engines name the OUT with the same literal; the comparator matches names on every
/// call both answer), else by text.
pub fn same_name(a: &str, b: &str) -> bool {
    std::ptr::eq(a, b) || a == b
}

impl std::fmt::Display for OutName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One call's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Obs {
    pub rc: ReturnCode,
    /// OUT values by parameter name (as the standard names them), in call order. The
    /// names are the engines' literals (borrowed: one observation per call made).
    pub outs: Vec<(OutName, Out)>,
    /// The target does not export the function (never a divergence).
    #[serde(default)]
    pub unsupported: bool,
}

impl Obs {
    pub fn rc(rc: ReturnCode) -> Obs {
        Obs {
            rc,
            outs: Vec::new(),
            unsupported: false,
        }
    }
    pub fn unsupported() -> Obs {
        Obs {
            rc: ReturnCode::Success,
            outs: Vec::new(),
            unsupported: true,
        }
    }
    pub fn with(mut self, name: &'static str, o: Out) -> Obs {
        self.outs.push((OutName(Cow::Borrowed(name)), o));
        self
    }
    pub fn out(&self, name: &str) -> Option<&Out> {
        self.outs
            .iter()
            .find(|(n, _)| same_name(n, name))
            .map(|(_, o)| o)
    }
    pub fn ok(&self) -> bool {
        self.rc == ReturnCode::Success && !self.unsupported
    }
}

/// One callback a raised event made the library run, as both engines report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ran {
    /// The event callback: its `user_data` tag, the `cb_safety` it was given (position
    /// in `CbSafety::ALL`, -1 unknown), and what the calls on the instance inside it
    /// returned: the source index, each element's bytes (`None`: not SUCCESS), and how
    /// many of the calls did not return SUCCESS.
    Event {
        tag: usize,
        safety: i64,
        source: Option<i64>,
        elements: Vec<Option<Vec<u8>>>,
        failed: i64,
    },
    /// The dropped-event handler: tag, count, source index.
    Dropped { tag: usize, count: i64, source: i64 },
}

impl Obs {
    /// A raised event's outcome in the form of the case language's `deliveries` step
    /// (specs/README.md): event callbacks and dropped-handler calls, and where each
    /// dropped call came among the events (R-EVT-DROP: before the next event).
    pub fn deliveries(rc: ReturnCode, ran: &[Ran]) -> Obs {
        let (mut tags, mut safeties, mut sources, mut data) = (vec![], vec![], vec![], vec![]);
        let (mut dropped, mut dropped_tags, mut dropped_sources, mut dropped_at) =
            (vec![], vec![], vec![], vec![]);
        let mut failed = 0;
        for r in ran {
            match r {
                Ran::Event {
                    tag,
                    safety,
                    source,
                    elements,
                    failed: f,
                } => {
                    tags.push(*tag as i64);
                    safeties.push(*safety);
                    sources.push(source.unwrap_or(-1));
                    data.extend(elements.iter().flatten().flatten());
                    failed += f;
                }
                Ran::Dropped { tag, count, source } => {
                    dropped.push(*count);
                    dropped_tags.push(*tag as i64);
                    dropped_sources.push(*source);
                    dropped_at.push(tags.len() as i64);
                }
            }
        }
        Obs::rc(rc)
            .with("count", Out::Int(tags.len() as i64))
            .with("tags", Out::Ints(tags))
            .with("safeties", Out::Ints(safeties))
            .with("sources", Out::Ints(sources))
            .with("failed_calls", Out::Int(failed))
            .with("data", Out::Bytes(data))
            .with("dropped", Out::Ints(dropped))
            .with("dropped_tags", Out::Ints(dropped_tags))
            .with("dropped_sources", Out::Ints(dropped_sources))
            .with("dropped_at", Out::Ints(dropped_at))
    }
}

/// A whole sequence on one engine: an outcome per call made, and how the process ended
/// if it ended inside a call (`(op index, "killed by SIGSEGV ...")`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub obs: Vec<Obs>,
    pub died: Option<(usize, Died)>,
}

/// How a worker ended inside a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Died {
    Crash(String),
    Timeout,
}

impl std::fmt::Display for Died {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Died::Crash(s) => f.write_str(s),
            Died::Timeout => f.write_str("timed out (no answer within the deadline)"),
        }
    }
}

impl std::fmt::Display for Out {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Out::Int(i) => write!(f, "{i}"),
            Out::Name(n) => f.write_str(n),
            Out::Flag(b) => write!(f, "{b}"),
            Out::Str(s) => write!(
                f,
                "buf {} len {}",
                s.buf.as_ref().map_or("NULL".into(), |b| format!(
                    "{:?}",
                    String::from_utf8_lossy(b)
                )),
                s.len.map_or("NULL".into(), |l| l.to_string())
            ),
            Out::Ints(v) => write!(f, "{v:?}"),
            Out::Handle { null: true } => f.write_str("NULL handle"),
            Out::Handle { null: false } => f.write_str("a non-NULL handle"),
            Out::Enum(None) => f.write_str("MPI_T_ENUM_NULL"),
            Out::Enum(Some(n)) => write!(f, "enum #{n}"),
            Out::Bytes(b) => write!(f, "{}", hex(b, 32)),
        }
    }
}
