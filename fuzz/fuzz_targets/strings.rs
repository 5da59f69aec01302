//! The string convention (MPI-4.1 §15.3.3, R-STR-1..4) for arbitrary strings and sizes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use mpit_reference::{
    faults::Faults,
    strings::{convention, StringArg},
};

fuzz_target!(|input: (String, i32, bool, bool)| {
    let (s, n, buf_null, len_null) = input;
    let s: String = s.chars().filter(|c| *c != '\0').collect();
    let o = convention(
        &s,
        StringArg {
            buf_null,
            len: (!len_null).then_some(n),
        },
        &Faults::none(),
    );
    assert!(
        o.write.len() <= n.max(0) as usize,
        "at most n bytes written"
    );
    if !len_null {
        assert_eq!(o.len, Some(s.len() as i32 + 1), "length is strlen+1");
    }
});
