//! What one `reference_ffi` input is made of: a sequence of MPI_T calls whose
//! arguments are drawn from the values that find bugs (the handles the run holds,
//! handles it freed, predefined handles, 0, 1, small numbers, numbers near real
//! handles, any number), decoded from the fuzzer's bytes with `arbitrary`.

use arbitrary::Arbitrary;

// Which kind a `get_num` / `get_info` / `get_index` call is about: its `Arbitrary`
// decodes the bytes as this module's own enum did (the corpus keeps its meaning).
use crate::kind::Kind;

/// A handle argument (pointer-sized MPI_T handle or MPI object handle).
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum H {
    /// 0: every MPI_T `*_NULL` handle of the standard ABI.
    Zero,
    /// 1: `MPI_T_PVAR_ALL_HANDLES` in the standard ABI.
    One,
    Small(u8),
    /// A live handle of the kind the call takes (k-th, wrapping).
    Typed(u8),
    /// A live handle of any kind (k-th, wrapping), moved by `delta`: a handle of the
    /// wrong kind, or a number near a real one.
    Live(u8, i8),
    /// A handle this run freed or an event instance after its callback returned
    /// (k-th from the most recent, wrapping).
    Freed(u8),
    /// A predefined handle value of the profile (`MPI_COMM_WORLD`, datatypes, ...).
    Predefined(u8),
    Any(u64),
}

/// An index argument.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Idx {
    /// `k mod (n + 2)`: mostly valid, sometimes just past the end.
    In(u8),
    Any(i32),
}

/// A constant of an enum-like table (thread level, cb safety, pvar class).
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Konst {
    /// The k-th constant the profile defines (wrapping).
    Known(u8),
    Any(i32),
}

/// One (buf, len) pair of the string convention. The buffer is never smaller than
/// `*len` says: a caller lying about its buffer is undefined behaviour (R-GEN-3), not
/// something the reference can check.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum S {
    /// A buffer of n bytes, `*len = n`.
    Sized(u8),
    /// A buffer of `cap` bytes, `*len = n mod (cap + 1)`.
    Roomy { cap: u8, n: u8 },
    /// NULL buffer with this `*len` (R-STR-3).
    NullBuf(i8),
    /// A buffer, `*len` zero or negative (R-STR-3).
    NonPositive(i8),
    /// NULL length pointer, with or without a buffer (R-STR-4).
    NullLen(bool),
}

/// A name argument of `*_get_index`.
#[derive(Debug, Clone, Arbitrary)]
pub enum Name {
    /// The name of the k-th entry of the catalog (wrapping).
    Real(u8),
    /// A real name with one byte changed or cut.
    Mangled(u8, u8),
    Any(String),
}

/// `obj_handle` of the `*_handle_alloc` calls: NULL or a local variable holding a value.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Obj {
    Null,
    Holding(H),
}

/// One call.
#[derive(Debug, Clone, Arbitrary)]
pub enum Op {
    InitThread(Konst),
    /// Made only while this input holds an init of its own (the fixture's stays).
    Finalize,
    GetNum(Kind),
    CategoryChanged,
    GetInfo {
        kind: Kind,
        index: Idx,
        name: S,
        desc: S,
        capacity: u8,
    },
    GetIndex(Kind, Name),
    PvarGetIndex(Name, Konst),
    CategoryMembers {
        which: u8,
        cat: Idx,
        len: u8,
    },
    CategoryGetNumEvents(Idx),
    EnumGetInfo(H, S),
    EnumGetItem(H, Idx, S),
    CvarHandleAlloc(Idx, Obj),
    CvarHandleFree(H),
    CvarRead(H, u8),
    CvarWrite(H, Vec<u8>),
    SessionCreate,
    SessionFree(H),
    PvarHandleAlloc(H, Idx, Obj),
    PvarHandleFree(H, H),
    PvarStart(H, H),
    PvarStop(H, H),
    PvarReset(H, H),
    PvarRead(H, H, u8),
    PvarReadreset(H, H, u8),
    PvarWrite(H, H, Vec<u8>),
    SourceGetTimestamp(Idx),
    SourceGetInfoObject(Idx),
    EventGetInfoObject(Idx),
    EventHandleAlloc(Idx, Obj, H),
    EventHandleSetInfo(H, H),
    EventHandleGetInfo(H),
    EventCallbackSetInfo(H, Konst, H),
    EventCallbackGetInfo(H, Konst),
    EventRegisterCallback {
        reg: H,
        safety: Konst,
        info: H,
        record: bool,
    },
    EventSetDroppedHandler(H, bool),
    EventHandleFree(H, bool),
    EventRead(H, Idx, u8),
    EventCopy(H, u8),
    EventGetTimestamp(H),
    EventGetSource(H),
    InfoCreate,
    InfoSet(H, String, String),
    InfoGetNkeys(H),
    InfoGetNthkey(H, i8),
    InfoGetString(H, String),
    InfoFree(H),
    Simulate(i8),
    RaiseEvent(Idx, Konst),
}

#[cfg(test)]
mod tests {
    use super::Kind;
    use arbitrary::{Arbitrary, Unstructured};

    /// The enum this module had before `Kind` moved to mpit-spec, with its derived
    /// `Arbitrary`: what every committed corpus file was decoded with.
    #[derive(Debug, Clone, Copy, Arbitrary)]
    enum Old {
        Cvar,
        Pvar,
        Category,
        Source,
        Event,
    }

    fn same(old: Old) -> Kind {
        match old {
            Old::Cvar => Kind::Cvar,
            Old::Pvar => Kind::Pvar,
            Old::Category => Kind::Category,
            Old::Source => Kind::Source,
            Old::Event => Kind::Event,
        }
    }

    /// Decodes `bytes` both ways, by `arbitrary` and by `arbitrary_take_rest`: the same
    /// kind (or the same error) and the same bytes left over.
    fn decodes_alike(bytes: &[u8]) {
        let mut a = Unstructured::new(bytes);
        let mut b = Unstructured::new(bytes);
        let old = Old::arbitrary(&mut a).map(same).map_err(|e| e.to_string());
        let new = Kind::arbitrary(&mut b).map_err(|e| e.to_string());
        assert_eq!(old, new, "{bytes:02x?}");
        assert_eq!(a.len(), b.len(), "{bytes:02x?}: bytes left");
        let old = Old::arbitrary_take_rest(Unstructured::new(bytes)).map(same);
        let new = Kind::arbitrary_take_rest(Unstructured::new(bytes));
        assert_eq!(
            old.map_err(|e| e.to_string()),
            new.map_err(|e| e.to_string()),
            "take_rest {bytes:02x?}"
        );
    }

    #[test]
    fn kind_decodes_as_the_old_derived_enum() {
        let mut words: Vec<u32> = vec![0, 1, u32::MAX - 1, u32::MAX];
        // Around each boundary between two variants: the first u32 whose
        // `(x * 5) >> 32` reaches k.
        for k in 1..5u64 {
            let first = (k << 32).div_ceil(5);
            for d in -3i64..=3 {
                words.push((first as i64 + d) as u32);
            }
        }
        // And a sweep across the whole range.
        words.extend((0..=u32::MAX).step_by(65_521));
        let mut seen = [false; 5];
        for w in words {
            let mut bytes = w.to_le_bytes().to_vec();
            decodes_alike(&bytes);
            // With bytes after it (the next field's).
            bytes.extend([0xab, 0xcd, 0xef]);
            decodes_alike(&bytes);
            let k = Kind::arbitrary(&mut Unstructured::new(&bytes)).expect("4 bytes");
            seen[Kind::ALL.iter().position(|x| *x == k).expect("a kind")] = true;
        }
        assert_eq!(seen, [true; 5], "every kind decoded");
        assert_eq!(Old::size_hint(0), Kind::size_hint(0));
    }

    /// Fewer than 4 bytes: the u32 is padded with zeros, in both.
    #[test]
    fn kind_decodes_short_input_as_the_old_derived_enum() {
        decodes_alike(&[]);
        for a in 0..=255u8 {
            decodes_alike(&[a]);
            for b in 0..=255u8 {
                decodes_alike(&[a, b]);
                decodes_alike(&[a, b, a ^ b]);
                decodes_alike(&[0xff, a, b]);
            }
        }
    }
}
