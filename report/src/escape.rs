//! Escaping for the text renderings. Every string in a report can come from the library
//! under test (names, descriptions, version strings), so none of it is trusted markup.

use crate::verdict::Evidence;
use std::fmt::Write;

/// Text for HTML element content and quoted attribute values.
pub fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Text for HTML element content only (not attributes): `"` and `'` may stay, which keeps
/// evidence readable in the raw Markdown.
pub fn html_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Text for a Markdown table cell or paragraph (GitHub-flavoured): inline markup
/// characters are backslash-escaped, HTML is neutralised with entities (GitHub renders
/// raw HTML in step summaries), and line breaks become spaces so a cell stays one row.
pub fn markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// The first line of `s`, shortened to `max` characters with an ellipsis.
pub fn first_line(s: &str, max: usize) -> String {
    let line = s.lines().next().unwrap_or("").trim();
    shorten(line, max)
}

/// `s` cut to `max` characters (not bytes: names can be non-ASCII) with an ellipsis.
pub fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Evidence as plain text, one block per call: what JUnit failure bodies and the
/// Markdown `<details>` show (the HTML page lays the same fields out as a table).
pub fn evidence_text(evidence: &[Evidence]) -> String {
    let mut out = String::new();
    for (i, e) in evidence.iter().enumerate() {
        let _ = writeln!(out, "#{} {}", i + 1, e.call);
        if !e.args.is_null() {
            let _ = writeln!(out, "   args:     {}", e.args.compact());
        }
        if let Some(rc) = &e.rc {
            let _ = writeln!(out, "   rc:       {rc}");
        }
        if !e.out.is_null() {
            let _ = writeln!(out, "   out:      {}", e.out.compact());
        }
        if let Some(x) = &e.expected {
            let _ = writeln!(out, "   expected: {x}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_escapes_markup_and_quotes() {
        assert_eq!(
            html(r#"<script>alert("x&'y")</script>"#),
            "&lt;script&gt;alert(&quot;x&amp;&#39;y&quot;)&lt;/script&gt;"
        );
    }

    #[test]
    fn markdown_cell_stays_one_cell() {
        assert_eq!(markdown("a|b\nc *d* <i>"), r"a\|b c \*d\* &lt;i&gt;");
    }

    #[test]
    fn shorten_counts_chars() {
        assert_eq!(shorten("ééééé", 3), "éé…");
        assert_eq!(shorten("abc", 3), "abc");
    }
}
