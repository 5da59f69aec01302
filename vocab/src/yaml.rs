//! YAML loading with errors that point at `file:line:col`, shared by every YAML format
//! of the project (ABI profiles, catalogs, and the harness's cases).

use serde::de::DeserializeOwned;
use std::path::Path;

/// A YAML file that could not be read, parsed or validated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}:{line}:{col}: {message}")]
pub struct YamlError {
    pub origin: String,
    /// 1-based; 0 when no position is known (e.g. the file could not be read).
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl YamlError {
    /// An error about `needle`, located at its first occurrence in `text` (validation
    /// errors happen after parsing, when serde's positions are gone).
    pub fn near(origin: &str, text: &str, needle: &str, message: String) -> Self {
        let (line, col) = locate(text, needle).unwrap_or((1, 1));
        YamlError {
            origin: origin.to_string(),
            line,
            col,
            message,
        }
    }
}

/// 1-based line and column of the first occurrence of `needle`.
pub fn locate(text: &str, needle: &str) -> Option<(usize, usize)> {
    // One search over the whole text, then count lines: searching line by line built a
    // substring searcher per line, and the case loader calls this once per case, so
    // loading the suite was quadratic in its size (every worker loads it).
    if needle.is_empty() || needle.contains('\n') {
        return None;
    }
    let at = text.find(needle)?;
    let before = &text[..at];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.bytes().filter(|b| *b == b'\n').count() + 1;
    Some((line, at - line_start + 1))
}

/// Parses `text` as `T`; `origin` names the source in errors.
pub fn parse<T: DeserializeOwned>(text: &str, origin: &str) -> Result<T, YamlError> {
    yaml_serde::from_str(text).map_err(|e| {
        let (line, col) = e
            .location()
            .map(|l| (l.line(), l.column()))
            .unwrap_or((1, 1));
        // yaml_serde appends " at line L column C" to some messages; the prefix says it.
        let msg = e.to_string();
        let msg = match msg.find(" at line ") {
            Some(i) => msg[..i].to_string(),
            None => msg,
        };
        // yaml_serde places errors raised inside a mapping at the mapping's start; when the
        // message names the offending key, point at the key itself.
        let (line, col) = named_key(&msg)
            .and_then(|k| locate_from(text, line, k))
            .unwrap_or((line, col));
        YamlError {
            origin: origin.to_string(),
            line,
            col,
            message: msg,
        }
    })
}

/// The key an error message names as `unknown ... `KEY``.
fn named_key(msg: &str) -> Option<&str> {
    let rest = &msg[msg.find("unknown ")?..];
    let start = rest.find('`')? + 1;
    let len = rest[start..].find('`')?;
    Some(&rest[start..start + len])
}

/// Position of `key:` at or after `from_line` (1-based).
fn locate_from(text: &str, from_line: usize, key: &str) -> Option<(usize, usize)> {
    let pat = format!("{key}:");
    text.lines()
        .enumerate()
        .skip(from_line.saturating_sub(1))
        .find_map(|(i, l)| l.find(&pat).map(|c| (i + 1, c + 1)))
}

/// Reads a YAML file's text; returns it with the origin to name in errors.
pub fn read(path: &Path) -> Result<(String, String), YamlError> {
    let origin = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => Ok((text, origin)),
        Err(e) => Err(YamlError {
            origin,
            line: 0,
            col: 0,
            message: format!("cannot read: {e}"),
        }),
    }
}

/// Reads and parses a YAML file.
pub fn load<T: DeserializeOwned>(path: &Path) -> Result<T, YamlError> {
    let (text, origin) = read(path)?;
    parse(&text, &origin)
}

#[cfg(test)]
mod tests {
    use super::locate;

    #[test]
    fn locate_gives_line_and_byte_column_of_the_first_occurrence() {
        let text = "a: 1\n  id: x.y\nid: x.y\n";
        assert_eq!(locate(text, "id: x.y"), Some((2, 3)));
        assert_eq!(locate(text, "a: 1"), Some((1, 1)));
        assert_eq!(locate(text, "nope"), None);
        assert_eq!(locate(text, ""), None);
    }
}
