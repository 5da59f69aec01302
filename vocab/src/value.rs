//! Values of MPI_T variables and event elements, and their byte layout (LP64, native
//! endianness), so the model can hand the C ABI exactly the bytes `count × datatype`.

use crate::catalog::CatValue;
use crate::spec::Datatype;

/// A variable's value: `count` elements of one datatype.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Integer datatypes (wide enough for every one of them).
    Ints(Vec<i128>),
    Doubles(Vec<f64>),
    /// MPI_CHAR: a string; R-TYPE-2: contents defined up to the first NUL.
    Chars(String),
}

impl Value {
    /// The zero value of a datatype with `count` elements.
    pub fn zero(dt: Datatype, count: usize) -> Value {
        match dt {
            Datatype::Double => Value::Doubles(vec![0.0; count]),
            Datatype::Char => Value::Chars(String::new()),
            _ => Value::Ints(vec![0; count]),
        }
    }

    /// A catalog value as `count` elements of `dt` (missing elements are 0).
    pub fn from_cat(dt: Datatype, count: usize, v: Option<&CatValue>) -> Value {
        let mut out = Value::zero(dt, count);
        let Some(v) = v else { return out };
        let scalars: Vec<&CatValue> = match v {
            CatValue::List(l) => l.iter().collect(),
            other => vec![other],
        };
        match &mut out {
            Value::Chars(s) => {
                if let Some(CatValue::Str(x)) = scalars.first() {
                    *s = x.clone();
                }
            }
            Value::Doubles(d) => {
                for (slot, v) in d.iter_mut().zip(scalars) {
                    *slot = match v {
                        CatValue::Int(i) => *i as f64,
                        CatValue::UInt(u) => *u as f64,
                        CatValue::Float(f) => *f,
                        _ => 0.0,
                    };
                }
            }
            Value::Ints(d) => {
                for (slot, v) in d.iter_mut().zip(scalars) {
                    *slot = match v {
                        CatValue::Int(i) => *i as i128,
                        CatValue::UInt(u) => *u as i128,
                        CatValue::Float(f) => *f as i128,
                        _ => 0,
                    };
                }
            }
        }
        out
    }

    /// The catalog form of this value (a scalar when `count` is 1).
    pub fn to_cat(&self) -> CatValue {
        let scalars: Vec<CatValue> = match self {
            Value::Chars(s) => return CatValue::Str(s.clone()),
            Value::Doubles(d) => d.iter().map(|x| CatValue::Float(*x)).collect(),
            Value::Ints(d) => d
                .iter()
                .map(|x| match i64::try_from(*x) {
                    Ok(i) => CatValue::Int(i),
                    Err(_) => CatValue::UInt(*x as u64),
                })
                .collect(),
        };
        if scalars.len() == 1 {
            scalars.into_iter().next().unwrap_or(CatValue::Int(0))
        } else {
            CatValue::List(scalars)
        }
    }

    /// Exactly `count × size(dt)` bytes, as the C ABI stores them.
    pub fn to_bytes(&self, dt: Datatype, count: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(count * dt.size());
        match self {
            Value::Chars(s) => {
                let mut b = s.as_bytes().to_vec();
                b.truncate(count.saturating_sub(1));
                b.resize(count, 0);
                out = b;
            }
            Value::Doubles(d) => {
                for i in 0..count {
                    out.extend_from_slice(&d.get(i).copied().unwrap_or(0.0).to_ne_bytes());
                }
            }
            Value::Ints(d) => {
                for i in 0..count {
                    let x = d.get(i).copied().unwrap_or(0);
                    match dt.size() {
                        4 => out.extend_from_slice(&(x as u32).to_ne_bytes()),
                        _ => out.extend_from_slice(&(x as u64).to_ne_bytes()),
                    }
                }
            }
        }
        out
    }

    /// Reads `count` elements of `dt` from `bytes` (which holds at least that many).
    pub fn from_bytes(dt: Datatype, count: usize, bytes: &[u8]) -> Value {
        let size = dt.size();
        match dt {
            Datatype::Char => {
                let b = &bytes[..count.min(bytes.len())];
                let end = b.iter().position(|c| *c == 0).unwrap_or(b.len());
                Value::Chars(String::from_utf8_lossy(&b[..end]).into_owned())
            }
            Datatype::Double => Value::Doubles(
                bytes
                    .chunks_exact(8)
                    .take(count)
                    .map(|c| f64::from_ne_bytes(c.try_into().unwrap_or([0; 8])))
                    .collect(),
            ),
            _ => Value::Ints(
                bytes
                    .chunks_exact(size)
                    .take(count)
                    .map(|c| {
                        let signed = !dt.is_unsigned();
                        match (size, signed) {
                            (4, true) => i32::from_ne_bytes(c.try_into().unwrap_or([0; 4])) as i128,
                            (4, false) => {
                                u32::from_ne_bytes(c.try_into().unwrap_or([0; 4])) as i128
                            }
                            (_, true) => i64::from_ne_bytes(c.try_into().unwrap_or([0; 8])) as i128,
                            (_, false) => {
                                u64::from_ne_bytes(c.try_into().unwrap_or([0; 8])) as i128
                            }
                        }
                    })
                    .collect(),
            ),
        }
    }

    /// Element `i` as f64 (for class invariants such as PERCENTAGE in [0,1]).
    pub fn elem_f64(&self, i: usize) -> Option<f64> {
        match self {
            Value::Ints(d) => d.get(i).map(|x| *x as f64),
            Value::Doubles(d) => d.get(i).copied(),
            Value::Chars(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_for_every_datatype() {
        for dt in Datatype::ALL {
            let v = match dt {
                Datatype::Char => Value::Chars("abc".into()),
                Datatype::Double => Value::Doubles(vec![1.5, -2.0]),
                d if d.is_unsigned() => Value::Ints(vec![7, 4_000_000_000]),
                _ => Value::Ints(vec![-7, 123]),
            };
            let count = if *dt == Datatype::Char { 8 } else { 2 };
            let b = v.to_bytes(*dt, count);
            assert_eq!(b.len(), count * dt.size(), "{dt}");
            assert_eq!(Value::from_bytes(*dt, count, &b), v, "{dt}");
        }
    }

    /// R-TYPE-2: an MPI_CHAR value keeps its NUL within `count`.
    #[test]
    fn char_value_is_nul_terminated_within_count() {
        let b = Value::Chars("abcdef".into()).to_bytes(Datatype::Char, 4);
        assert_eq!(b, b"abc\0");
    }
}
