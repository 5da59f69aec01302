//! Arbitrary MPI_T call sequences (garbage, stale and near-miss handles, any index and
//! buffer size) against the reference cdylib in-process: no crash, every return code
//! MPI_SUCCESS or an MPI_T error (R-RC-1/R-RC-2). The oracle is
//! `mpit_conform::fuzzing::reference_ffi`; the library is `MPIT_REFERENCE_LIB`, else the
//! workspace's `target/{release,debug}/libmpit_reference.so`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mpit_conform::fuzzing::reference_ffi::run(data));
