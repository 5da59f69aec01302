//! Values of the executor: what a call returned and what steps save.

use super::inventory::Inventory;
use mpit_target::ffi::{BufOut, StrOut};
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;

/// One OUT value, or a saved variable.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Int(i128),
    Float(f64),
    /// A string OUT pair as the library left it.
    Str(StrOut),
    /// A raw buffer (cvar/pvar/event reads) with its overrun flag.
    Bytes(BufOut),
    List(Vec<Val>),
    /// Every OUT value of a call (`save: {x: all}`).
    Outs(BTreeMap<String, Val>),
    /// A whole inventory (`catalog_snapshot`).
    Snapshot(Box<Inventory>),
}

impl Val {
    pub fn int(&self) -> Option<i128> {
        match self {
            Val::Int(i) => Some(*i),
            Val::Float(f) if f.fract() == 0.0 => Some(*f as i128),
            _ => None,
        }
    }

    pub fn num(&self) -> Option<f64> {
        match self {
            Val::Int(i) => Some(*i as f64),
            Val::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// Evidence form: numbers as numbers, strings as their text and length, buffers
    /// as hex (capped), snapshots as their counts.
    pub fn to_json(&self) -> Json {
        match self {
            Val::Int(i) => i64::try_from(*i).map_or_else(|_| json!(i.to_string()), |v| json!(v)),
            Val::Float(f) => json!(f),
            Val::Str(s) => {
                let mut m = serde_json::Map::new();
                if let Some(b) = &s.buf {
                    m.insert("text".into(), json!(s.text().unwrap_or_default()));
                    m.insert("bytes".into(), json!(hex(b, 96)));
                }
                if let Some(l) = s.len {
                    m.insert("len".into(), json!(l));
                }
                if s.overrun {
                    m.insert("overrun".into(), json!(true));
                    m.insert("stray_offsets".into(), json!(s.stray));
                }
                Json::Object(m)
            }
            Val::Bytes(b) if b.overrun => {
                json!({"bytes": hex(&b.bytes, 64), "overrun": true, "stray_offsets": b.stray})
            }
            Val::Bytes(b) => json!({"bytes": hex(&b.bytes, 64), "overrun": false}),
            Val::List(l) => Json::Array(l.iter().map(Val::to_json).collect()),
            Val::Outs(m) => Json::Object(m.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()),
            Val::Snapshot(inv) => json!({"entries": inv.entries.len(), "globals": inv.globals}),
        }
    }
}

/// Hex of at most `cap` bytes (`…` marks the cut).
pub fn hex(b: &[u8], cap: usize) -> String {
    // Two digits a byte from a table: a `format!` per byte was a sixth of the CPU of
    // a worker reading every string of a large catalog.
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(2 * cap.min(b.len()) + 3);
    for x in b.iter().take(cap) {
        s.push(char::from(DIGITS[usize::from(x >> 4)]));
        s.push(char::from(DIGITS[usize::from(x & 0xf)]));
    }
    if b.len() > cap {
        s.push('…');
    }
    s
}

/// Elements of a list a message shows.
const LIST_SHOWN: usize = 16;

impl std::fmt::Display for Val {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Val::Int(i) => write!(f, "{i}"),
            Val::Float(x) => write!(f, "{x}"),
            // A message names a value; the evidence keeps it whole (`to_json`). A
            // count of thousands of elements would bury the message.
            Val::List(l) if l.len() > LIST_SHOWN => {
                let head: Vec<String> = l[..LIST_SHOWN].iter().map(Val::to_string).collect();
                write!(f, "[{}, … ({} more)]", head.join(","), l.len() - LIST_SHOWN)
            }
            other => write!(f, "{}", other.to_json()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::hex;

    #[test]
    fn hex_is_two_lowercase_digits_a_byte_up_to_the_cap() {
        let all: Vec<u8> = (0..=255).collect();
        let want: String = all.iter().map(|x| format!("{x:02x}")).collect();
        assert_eq!(hex(&all, 256), want);
        assert_eq!(hex(&all[..3], 2), "0001…");
        assert_eq!(hex(&[0xab, 0x0f], 2), "ab0f");
        assert_eq!(hex(&[], 4), "");
    }
}
