//! The catalog loader on arbitrary text: a catalog that survives `to_yaml`, or an error
//! naming its origin; never a panic. The oracle is `mpit_conform::fuzzing::catalog_yaml`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mpit_conform::fuzzing::catalog_yaml::run(data));
