//! A variable's buffer by its datatype (from the inventory's text attribute): the bytes
//! a read needs (R-CVAR-8: count × size), a read decoded into numbers or text, a number
//! encoded for a write, and the element sizes of an event type.

use super::HandleMeta;
use crate::judge::inventory::Inventory;
use crate::judge::value::Val;
use mpit_spec::cases::SubjectKind;
use mpit_target::ffi::{BufOut, StrOut};
use mpit_vocab::spec::Datatype;
use mpit_vocab::value::Value;

/// The datatype (from the inventory's text attribute) of a cvar/pvar.
fn datatype_of(inv: &Inventory, m: &HandleMeta) -> Option<Datatype> {
    let e = inv.find(m.kind, m.index)?;
    Datatype::from_spelling(e.attrs.get("datatype")?)
}

/// Bytes a read of this handle needs: count × size (R-CVAR-8), 8 per element when the
/// datatype is not one of the table (so a library's write still lands in the buffer).
pub fn read_bytes(inv: &Inventory, m: &HandleMeta) -> usize {
    let size = datatype_of(inv, m).map_or(8, |d| d.size());
    (m.count.clamp(0, 1 << 20) as usize) * size
}

/// A read buffer decoded by the variable's datatype: a list of numbers, or the text for
/// MPI_CHAR.
pub fn decode(inv: &Inventory, m: &HandleMeta, b: &BufOut) -> Val {
    let Some(dt) = datatype_of(inv, m) else {
        return Val::Bytes(b.clone());
    };
    match Value::from_bytes(dt, m.count.max(0) as usize, &b.bytes) {
        Value::Ints(v) => Val::List(v.into_iter().map(Val::Int).collect()),
        Value::Doubles(v) => Val::List(v.into_iter().map(Val::Float).collect()),
        Value::Chars(s) => Val::Str(StrOut {
            buf: Some(s.into_bytes()),
            ..StrOut::default()
        }),
    }
}

/// Encodes a number as `count` elements of the variable's datatype (`cvar_write` with
/// a literal value).
pub fn encode(inv: &Inventory, m: &HandleMeta, n: i64) -> Vec<u8> {
    let count = m.count.max(1) as usize;
    match datatype_of(inv, m) {
        Some(Datatype::Double) => {
            Value::Doubles(vec![n as f64; count]).to_bytes(Datatype::Double, count)
        }
        Some(Datatype::Char) => Value::Chars(n.to_string()).to_bytes(Datatype::Char, count),
        Some(dt) => Value::Ints(vec![n as i128; count]).to_bytes(dt, count),
        None => n.to_ne_bytes().repeat(count),
    }
}

/// Byte sizes of an event type's elements (for the recorder's `event_read` calls).
pub(super) fn element_sizes(inv: &Inventory, event: i32) -> Vec<usize> {
    inv.find(SubjectKind::Event, event)
        .and_then(|e| e.attrs.get("datatype"))
        .map(|s| {
            s.split(',')
                .filter(|x| !x.is_empty())
                .map(|x| Datatype::from_spelling(x).map_or(8, |d| d.size()))
                .collect()
        })
        .unwrap_or_default()
}
