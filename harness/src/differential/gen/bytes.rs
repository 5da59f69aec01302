//! A whole sequence from cargo-fuzz's bytes (the `ops_differential` target and
//! `mpit-conform replay` read inputs the same way): picks decoded with
//! `arbitrary::Unstructured`, each kept only if valid, so every byte string is a
//! sequence.

use super::{Gen, Pick};
use crate::differential::op::{Call, Mode};
use crate::differential::Mirror;
use std::sync::Arc;

impl Gen {
    /// A whole sequence from cargo-fuzz's bytes: picks until the bytes run out or `max`
    /// calls, each kept only if valid here (so the input's bytes map to calls the way
    /// proptest's would).
    pub fn ops_from(&mut self, u: &mut arbitrary::Unstructured<'_>, max: usize) -> Vec<Call> {
        let mut ops = Vec::new();
        while ops.len() < max {
            let Ok(p) = u.arbitrary::<Pick>() else {
                break;
            };
            let op = self.pick(p);
            if self.valid(&op) {
                self.apply(&op);
                ops.push(op);
            }
            if u.is_empty() {
                break;
            }
        }
        ops
    }
}

/// Decodes a cargo-fuzz input into a sequence (the `ops_differential` target and
/// `mpit-conform replay` read inputs the same way): the first byte chooses robustness,
/// the rest are picks; with the generator's state after the sequence (what
/// `props::completed` would replay the sequence to find). `None` when the bytes make
/// no call. Lifecycle sequences are
/// not generated here: the fuzzer runs every input in one process.
///
/// Robustness sequences only for a library whose catalog is declared (the reference):
/// an invalid argument may crash a vendor's library (undefined behaviour, R-GEN-3), and
/// in-process that crash would end the fuzzer without being a finding.
pub fn decode(m: &Arc<Mirror>, data: &[u8]) -> Option<(Mode, Vec<Call>, Gen)> {
    let (first, rest) = data.split_first()?;
    let mode = Mode {
        robustness: first & 1 == 1 && m.declared,
        lifecycle: false,
    };
    let mut u = arbitrary::Unstructured::new(rest);
    let mut end = Gen::new(m.clone(), mode);
    let ops = end.ops_from(&mut u, 64);
    (!ops.is_empty()).then_some((mode, ops, end))
}

/// Sequences from a fixed stream of pseudo-random bytes (xorshift64*, 512 bytes a
/// sequence): the same seed makes the same sequences in every run, without proptest's
/// search. For the sweeps of the tests (every written case loads, both engines name the
/// same OUTs), which draw many sequences across the modes from one stream.
pub struct Sampler {
    state: u64,
}

impl Sampler {
    pub fn new(seed: u64) -> Sampler {
        Sampler {
            state: 0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0xD1B5_4A32_D192_ED03),
        }
    }

    fn next(&mut self) -> u64 {
        let r = &mut self.state;
        *r ^= *r >> 12;
        *r ^= *r << 25;
        *r ^= *r >> 27;
        r.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// The next sequence of at most `max_len` calls in `mode`, with the generator state
    /// it starts from.
    pub fn sequence(&mut self, m: &Arc<Mirror>, mode: Mode, max_len: usize) -> (Gen, Vec<Call>) {
        let bytes: Vec<u8> = (0..512).map(|_| self.next() as u8).collect();
        let start = Gen::new(m.clone(), mode);
        let ops = start
            .clone()
            .ops_from(&mut arbitrary::Unstructured::new(&bytes), max_len);
        (start, ops)
    }
}
