//! Arbitrary MPI_T call sequences (`differential::gen` decodes the bytes) on the
//! reference model and on the library `MPIT_FUZZ_LIB` names (default: the reference
//! cdylib), in this process: a MUST divergence or a crash is a finding. The oracle is
//! `mpit_conform::fuzzing::ops_differential`; `mpit-conform replay` replays an artifact
//! in a worker and `--emit-case` writes it out as a YAML case.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mpit_conform::fuzzing::ops_differential::run(data));
