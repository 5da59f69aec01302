//! Oracle `spec_yaml`: the case-file parser (`cases::parse_file`, which the supervisor
//! runs on every `specs/cases/*.yaml` and on `--specs` directories a user writes) on
//! arbitrary text.
//!
//! * It never panics: any text is a list of validated cases or an error.
//! * An error is located: `origin:line:col: message`, with the line inside the text
//!   (1 ..= lines + 1: libyaml puts the end of the stream on a line of its own, after
//!   the last, and an "unexpected end" error there) and a column from 1, so the
//!   editor jump a user makes lands in the file. Lines are counted as YAML counts them
//!   (YAML 1.2 §5.4: CR LF, CR and LF each end a line; libyaml also takes NEL, LS and
//!   PS), which is what the parser's positions use: a file with bare CRs has more lines
//!   than `str::lines` sees (found by this oracle; editors agree with YAML).
//! * Every case it accepts carries the origin and a line (`origin:N`), which reports
//!   and `--case` listings quote.

use mpit_spec::cases::parse_file;

/// The origin the oracle names the text by.
pub const ORIGIN: &str = "fuzz.yaml";

/// Runs one input (bytes that are not UTF-8 are replaced: the parser takes text).
pub fn run(data: &[u8]) {
    check(&String::from_utf8_lossy(data));
}

/// Checks one text.
pub fn check(text: &str) {
    match parse_file(text, ORIGIN) {
        Err(e) => {
            let lines = yaml_lines(text);
            assert!(
                e.to_string().starts_with(&format!("{ORIGIN}:")) && e.origin == ORIGIN,
                "a case-file error names its origin: {e}"
            );
            assert!(
                (1..=lines + 1).contains(&e.line) && e.col >= 1,
                "a case-file error points into the text ({lines} lines): {e}"
            );
        }
        Ok(cases) => {
            for c in cases {
                assert!(
                    c.origin.starts_with(&format!("{ORIGIN}:")),
                    "case `{}` names its origin: {}",
                    c.id,
                    c.origin
                );
            }
        }
    }
}

/// Lines as YAML counts them (breaks: CR LF, CR, LF, NEL, LS, PS), a last line
/// without a break included.
fn yaml_lines(text: &str) -> usize {
    let mut n = 0;
    let mut open = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                chars.next_if_eq(&'\n');
                n += 1;
                open = false;
            }
            '\n' | '\u{85}' | '\u{2028}' | '\u{2029}' => {
                n += 1;
                open = false;
            }
            _ => open = true,
        }
    }
    n + usize::from(open)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_as_yaml_counts_them() {
        assert_eq!(yaml_lines("a\nb\r\nc\rd\u{2028}"), 4);
        assert_eq!(yaml_lines("a\nb\r\nc\rd\u{2028}e"), 5);
        assert_eq!(yaml_lines("no break"), 1);
        assert_eq!(yaml_lines(""), 0);
        // The input the oracle found: an error on line 75 of a text `str::lines` sees
        // as 14 lines, 73 of its breaks being bare CRs.
        let text = format!("area: pvars\ncases{}:\n  - id: x\n  : y\n", "\r".repeat(73));
        let e = parse_file(&text, ORIGIN).expect_err("not a case file");
        assert!(e.line > text.lines().count() + 1, "{e}");
        check(&text);
        // The second: a text without a final break, the error at the end of the
        // stream, on the line after the last.
        let text = "area: categories\ncases:\n  - id: categories.x\n    ti# y";
        let e = parse_file(text, ORIGIN).expect_err("not a case file");
        assert_eq!(e.line, 5, "{e}");
        check(text);
    }
}
