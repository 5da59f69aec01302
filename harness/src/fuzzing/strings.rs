//! Oracle `strings`: the reference's string convention (`mpit_reference::strings`, the
//! code every name and description of the cdylib goes through) against an independent
//! restatement of MPI-4.1 §15.3.3 (R-STR-1..4, R-STR-6), for arbitrary strings,
//! buffer sizes, NULL buffers and NULL length pointers.
//!
//! The restatement is written from the rules, not from the model's code, so a bug in
//! either shows as a disagreement:
//! * `len == NULL` → nothing is written and no length is returned (R-STR-4);
//! * `buf == NULL` or `n <= 0` → nothing is written, the length is strlen+1 (R-STR-3);
//! * otherwise exactly `min(strlen, n-1)` characters and a NUL are written, never more
//!   than `n` bytes, and the length is strlen+1, truncated or not (R-STR-1, R-STR-2);
//! * a missing or empty description is the empty string, length 1 (R-STR-6).

use arbitrary::{Arbitrary, Unstructured};
use mpit_reference::faults::Faults;
use mpit_reference::strings::{convention, description, StringArg, StringOut};

/// One input: the string and how the caller passes its (buf, len) pair.
#[derive(Debug, Clone, Arbitrary)]
pub struct StringCase {
    /// The internal character array; NULs are dropped (a C string cannot hold one).
    pub text: String,
    /// `*len` on input.
    pub n: i32,
    pub buf_null: bool,
    pub len_null: bool,
    /// Also check the description convention with this text as the description
    /// (`None`: the entry has none).
    pub as_description: Option<bool>,
}

/// Runs one input against the conformant model.
pub fn run(data: &[u8]) {
    run_with(data, &Faults::none());
}

/// Runs one input against the model with `faults` switched on (a test switches one on
/// to prove the oracle catches it).
pub fn run_with(data: &[u8], faults: &Faults) {
    let mut u = Unstructured::new(data);
    // Every byte string decodes (missing bytes read as zeros); a decoding error would
    // only mean an input too short to say anything.
    if let Ok(case) = StringCase::arbitrary(&mut u) {
        check(&case, faults);
    }
}

/// Checks one case; panics naming the rule when the model breaks it.
pub fn check(case: &StringCase, faults: &Faults) {
    let text: String = case.text.chars().filter(|c| *c != '\0').collect();
    let arg = StringArg {
        buf_null: case.buf_null,
        len: (!case.len_null).then_some(case.n),
    };
    let got = convention(&text, arg, faults);
    agree(&text, arg, &got, "convention");
    match case.as_description {
        None => {}
        // The entry has a description: the same text, the same rules.
        Some(true) => {
            let d = Some(text.clone());
            let got = description(&d, faults).out(arg, faults);
            agree(&text, arg, &got, "description");
        }
        // No description (R-STR-6): the empty string, length 1.
        Some(false) => {
            let got = description(&None, faults).out(arg, faults);
            agree("", arg, &got, "missing description (R-STR-6)");
        }
    }
}

/// What the rules say for `text` and `arg`, compared with `got`.
fn agree(text: &str, arg: StringArg, got: &StringOut, what: &str) {
    let strlen = text.len();
    let full = i32::try_from(strlen + 1).unwrap_or(i32::MAX);
    let ctx = || format!("{what} of {text:?} with {arg:?}: got {got:?}");
    assert!(
        !got.deref_null_len,
        "R-STR-4: a NULL length pointer is dereferenced ({})",
        ctx()
    );
    let Some(n) = arg.len else {
        assert!(
            got.write.is_empty() && got.len.is_none(),
            "R-STR-4: with a NULL length pointer nothing may be written or returned ({})",
            ctx()
        );
        return;
    };
    if arg.buf_null || n <= 0 {
        assert!(
            got.write.is_empty(),
            "R-STR-3: a NULL buffer or n <= 0 must not be written ({})",
            ctx()
        );
        assert_eq!(
            got.len,
            Some(full),
            "R-STR-3: the length is strlen+1 ({})",
            ctx()
        );
        return;
    }
    let n = n as usize;
    assert!(
        got.write.len() <= n,
        "R-STR-1: at most n bytes (n-1 characters and the NUL) are written ({})",
        ctx()
    );
    let kept = strlen.min(n - 1);
    assert!(
        got.write.len() == kept + 1 && got.write.last() == Some(&0),
        "R-STR-1: {kept} characters and a NUL are written ({})",
        ctx()
    );
    assert_eq!(
        &got.write[..kept],
        &text.as_bytes()[..kept],
        "R-STR-2: the written characters are the string's first ones ({})",
        ctx()
    );
    assert_eq!(
        got.len,
        Some(full),
        "R-STR-2: the length is strlen+1, truncated or not ({})",
        ctx()
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpit_reference::faults::Fault;

    fn case(text: &str, n: i32, buf_null: bool, len_null: bool) -> StringCase {
        StringCase {
            text: text.into(),
            n,
            buf_null,
            len_null,
            as_description: None,
        }
    }

    #[test]
    fn the_conformant_model_passes() {
        for n in -2..8 {
            for (b, l) in [(false, false), (true, false), (false, true), (true, true)] {
                for d in [None, Some(true), Some(false)] {
                    let c = StringCase {
                        as_description: d,
                        ..case("hello", n, b, l)
                    };
                    check(&c, &Faults::none());
                }
            }
        }
    }

    /// Every string fault of the reference makes the oracle panic, on an input that
    /// exercises it, with the rule the fault breaks in the message.
    #[test]
    fn the_oracle_catches_every_string_fault() {
        let cases = [
            (Fault::TruncLenOffByOne, case("hello", 3, false, false)),
            (Fault::MissingNul, case("hello", 3, false, false)),
            (Fault::OverrunOneByte, case("hello", 3, false, false)),
            (Fault::NullBufLenNoPlusOne, case("hello", 3, true, false)),
            (Fault::NullLenDeref, case("hello", 3, false, true)),
            (
                Fault::EmptyDescLenZero,
                StringCase {
                    as_description: Some(false),
                    ..case("x", 8, false, false)
                },
            ),
        ];
        for (fault, c) in cases {
            check(&c, &Faults::none());
            let err = std::panic::catch_unwind(|| check(&c, &Faults::one(fault)))
                .expect_err(fault.name());
            let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
            assert!(msg.contains(fault.rule()), "{fault}: {msg}");
        }
    }
}
