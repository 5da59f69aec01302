//! The catalog loader never panics: any input is a catalog or a located error.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mpit_reference::catalog::Catalog;

fuzz_target!(|text: &str| {
    if let Err(e) = Catalog::from_yaml(text, "fuzz.yaml") {
        assert!(e.to_string().starts_with("fuzz.yaml:"));
    }
});
