//! The case-file parser on arbitrary text: validated cases or a `file:line:col` error;
//! never a panic. The oracle is `mpit_conform::fuzzing::spec_yaml`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mpit_conform::fuzzing::spec_yaml::run(data));
