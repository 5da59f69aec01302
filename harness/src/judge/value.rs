//! Values of the executor: what a call returned and what steps save.

use super::inventory::Inventory;
use mpit_target::ffi::{BufOut, StrOut};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::Value as Json;
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

    /// Evidence form ([`Serialize`] as a value).
    pub fn to_json(&self) -> Json {
        serde_json::to_value(self).unwrap_or(Json::Null)
    }
}

/// Evidence form: numbers as numbers, strings as their text and length, buffers as hex
/// (capped), snapshots as their counts. Written straight to the evidence's text
/// (`record.rs`), so maps list their keys in order, as a `serde_json::Value` does: the
/// text is the one [`Val::to_json`]'s value writes.
impl Serialize for Val {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Val::Int(i) => match i64::try_from(*i) {
                Ok(v) => s.serialize_i64(v),
                Err(_) => s.serialize_str(&i.to_string()),
            },
            // Not finite: null, as a `Value` holds it.
            Val::Float(f) => s.serialize_f64(*f),
            Val::Str(out) => str_out(out, s),
            Val::Bytes(b) => {
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("bytes", &hex(&b.bytes, 64))?;
                m.serialize_entry("overrun", &b.overrun)?;
                if b.overrun {
                    m.serialize_entry("stray_offsets", &b.stray)?;
                }
                m.end()
            }
            Val::List(l) => s.collect_seq(l),
            Val::Outs(m) => s.collect_map(m),
            Val::Snapshot(inv) => {
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("entries", &inv.entries.len())?;
                m.serialize_entry("globals", &inv.globals)?;
                m.end()
            }
        }
    }
}

/// A string OUT pair: `bytes`, `len`, `overrun`, `stray_offsets`, `text` (key order).
fn str_out<S: Serializer>(out: &StrOut, s: S) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(None)?;
    if let Some(b) = &out.buf {
        m.serialize_entry("bytes", &hex(b, 96))?;
    }
    if let Some(l) = out.len {
        m.serialize_entry("len", &l)?;
    }
    if out.overrun {
        m.serialize_entry("overrun", &true)?;
        m.serialize_entry("stray_offsets", &out.stray)?;
    }
    if out.buf.is_some() {
        m.serialize_entry("text", &out.text().unwrap_or_default())?;
    }
    m.end()
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
    use super::{hex, Val};
    use mpit_spec::verdict::Json;
    use mpit_target::ffi::{BufOut, StrOut};

    /// The evidence's text, written straight from a value, is the text of its
    /// `serde_json::Value` (keys in order), and what the evidence has always said.
    #[test]
    fn evidence_text_is_the_text_of_the_value() {
        let s = StrOut {
            buf: Some(b"ab\0\xff".to_vec()),
            len: Some(3),
            overrun: true,
            stray: vec![-1, 4],
            stray_bytes: vec![1, 2],
        };
        let cases = [
            (Val::Int(-3), "-3"),
            (
                Val::Int(i128::MAX),
                "\"170141183460469231731687303715884105727\"",
            ),
            (Val::Float(1.5), "1.5"),
            (Val::Float(f64::NAN), "null"),
            (
                Val::Str(s.clone()),
                r#"{"bytes":"6162<ff","len":3,"overrun":true,"stray_offsets":[-1,4],"text":"ab"}"#,
            ),
            (Val::Str(StrOut::default()), "{}"),
            (
                Val::Bytes(BufOut {
                    bytes: vec![0, 16],
                    overrun: false,
                    stray: vec![],
                }),
                r#"{"bytes":"0010","overrun":false}"#,
            ),
            (
                Val::Bytes(BufOut {
                    bytes: vec![],
                    overrun: true,
                    stray: vec![8],
                }),
                r#"{"bytes":"","overrun":true,"stray_offsets":[8]}"#,
            ),
            (
                Val::Outs(
                    [
                        ("z".to_string(), Val::Int(1)),
                        ("a".into(), Val::List(vec![Val::Str(s)])),
                    ]
                    .into(),
                ),
                r#"{"a":[{"bytes":"6162<ff","len":3,"overrun":true,"stray_offsets":[-1,4],"text":"ab"}],"z":1}"#,
            ),
        ];
        for (v, want) in cases {
            let want = want.replace('<', "00");
            let text = serde_json::to_string(&v).expect("text");
            assert_eq!(text, want, "{v:?}");
            assert_eq!(Json::of(&v), Json::from(v.to_json()), "{v:?}");
            assert_eq!(serde_json::to_string(&v.to_json()).expect("value"), want);
        }
    }

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
