//! The code of a Rust source file as tokens, for a test that asks which names a file
//! gives in code (harness/tests/one_table.rs): comments dropped, string literals kept
//! whole, `#[cfg(test)]` items told apart. A small lexer, not a parser: enough for
//! names and brackets.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A token of Rust source that matters here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    /// The content of a string literal (escapes left as written).
    Str(String),
    Punct(char),
}

/// The tokens of Rust source, comments dropped. A small lexer, enough for names and
/// brackets: char literals and lifetimes are told apart so that a `'"'` opens no string,
/// and numbers are left out.
pub fn tokens(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let ident_start = |ch: char| ch.is_alphabetic() || ch == '_';
    let ident_char = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        let at = |k: usize| c.get(k).copied().unwrap_or('\0');
        match c[i] {
            '/' if at(i + 1) == '/' => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if at(i + 1) == '*' => {
                let mut depth = 0;
                while i < c.len() {
                    if c[i] == '/' && at(i + 1) == '*' {
                        depth += 1;
                        i += 2;
                    } else if c[i] == '*' && at(i + 1) == '/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            '"' => {
                let start = i + 1;
                i += 1;
                while i < c.len() && c[i] != '"' {
                    if c[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
                out.push(Tok::Str(c[start..i.min(c.len())].iter().collect()));
                i += 1;
            }
            '\'' => {
                // 'x', '\n', '\u{..}' are chars; 'a (no closing quote after one char) a
                // lifetime or label.
                if at(i + 1) == '\\' {
                    i += 2;
                    while i < c.len() && c[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                } else if at(i + 2) == '\'' {
                    i += 3;
                } else {
                    i += 1;
                }
            }
            ch if ch.is_ascii_digit() => {
                while i < c.len() && ident_char(c[i]) {
                    i += 1;
                }
            }
            ch if ident_start(ch) => {
                let start = i;
                while i < c.len() && ident_char(c[i]) {
                    i += 1;
                }
                let word: String = c[start..i].iter().collect();
                // Raw strings: r"..", r#".."#, br#".."#.
                if (word == "r" || word == "br") && (at(i) == '"' || at(i) == '#') {
                    let mut hashes = 0;
                    while at(i) == '#' {
                        hashes += 1;
                        i += 1;
                    }
                    if at(i) == '"' {
                        i += 1;
                        let start = i;
                        let close: Vec<char> = std::iter::once('"')
                            .chain(std::iter::repeat_n('#', hashes))
                            .collect();
                        while i < c.len() && !c[i..].starts_with(&close) {
                            i += 1;
                        }
                        out.push(Tok::Str(c[start..i.min(c.len())].iter().collect()));
                        i += close.len();
                    }
                    continue;
                }
                // b"..": the string arm takes it next.
                out.push(Tok::Ident(word));
            }
            ch if ch.is_whitespace() => i += 1,
            ch => {
                out.push(Tok::Punct(ch));
                i += 1;
            }
        }
    }
    out
}

fn punct(t: Option<&Tok>, ch: char) -> bool {
    t == Some(&Tok::Punct(ch))
}

/// Past the bracketed group opening at `i` (`[`, `(` or `{`): the index after its close.
fn past_group(t: &[Tok], mut i: usize) -> usize {
    let mut depth = 0i32;
    while i < t.len() {
        match t[i] {
            Tok::Punct('[' | '(' | '{') => depth += 1,
            Tok::Punct(']' | ')' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// Whether the tokens at `i` are `#[cfg(test)]`.
fn is_cfg_test(t: &[Tok], i: usize) -> bool {
    let want = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    t.get(i..i + want.len()) == Some(&want[..])
}

/// A file's code, its `#[cfg(test)]` items left out, and the files of the test modules
/// it declares (`#[cfg(test)] mod tests;`, `#[path = "x.rs"]` honoured), relative to
/// its own directory as `mod` resolves them.
pub fn split_tests(t: Vec<Tok>, file: &Path) -> (Vec<Tok>, Vec<PathBuf>) {
    let mut code = Vec::new();
    let mut test_files = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if !is_cfg_test(&t, i) {
            code.push(t[i].clone());
            i += 1;
            continue;
        }
        i += 7;
        // Further attributes of the item, `#[path = ".."]` among them.
        let mut path = None;
        while punct(t.get(i), '#') && punct(t.get(i + 1), '[') {
            if t.get(i + 2) == Some(&Tok::Ident("path".into())) {
                if let Some(Tok::Str(p)) = t.get(i + 4) {
                    path = Some(p.clone());
                }
            }
            i = past_group(&t, i + 1);
        }
        // The item: up to its `;` or through its braced body.
        let start = i;
        while i < t.len() && !punct(t.get(i), ';') && !punct(t.get(i), '{') {
            i += 1;
        }
        if punct(t.get(i), ';') {
            let words: Vec<&Tok> = t[start..i].iter().collect();
            if let [.., Tok::Ident(m), Tok::Ident(name)] = words[..] {
                if m == "mod" {
                    let dir = file.parent().expect("a directory");
                    let stem = file.file_stem().expect("a name").to_string_lossy();
                    let own = match stem.as_ref() {
                        "mod" | "lib" | "main" => dir.to_path_buf(),
                        s => dir.join(s),
                    };
                    test_files.push(match &path {
                        Some(p) => dir.join(p),
                        None if own.join(format!("{name}.rs")).exists() => {
                            own.join(format!("{name}.rs"))
                        }
                        None => own.join(name).join("mod.rs"),
                    });
                }
            }
            i += 1;
        } else {
            i = past_group(&t, i);
        }
    }
    (code, test_files)
}

/// The names tokens give: identifiers and whole string literals.
pub fn names(t: &[Tok]) -> BTreeSet<String> {
    t.iter()
        .filter_map(|t| match t {
            Tok::Ident(s) | Tok::Str(s) => Some(s.clone()),
            Tok::Punct(_) => None,
        })
        .collect()
}
