//! The string convention (MPI-4.1 §15.3.3, R-STR-1..4, R-STR-6) against its restatement:
//! the oracle is `mpit_conform::fuzzing::strings`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mpit_conform::fuzzing::strings::run(data));
