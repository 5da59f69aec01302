//! The claims of `reports/FINDINGS.md`: each `<!-- finding F-N [level=should] targets=a,b
//! cases=x,y -->` line says which published targets show finding F-N, in which cases.
//! `harness/tests/findings.rs` holds them to the published reports; the release history
//! ([`super::history`]) follows each finding's cases through the releases and writes the
//! finding's `**History:**` line.

use crate::verdict::Level;

/// One `<!-- finding ... -->` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// `F-N`.
    pub id: String,
    /// Published target names (`reports/published/<target>/`).
    pub targets: Vec<String>,
    /// Case ids.
    pub cases: Vec<String>,
    /// `must` unless the line says otherwise.
    pub level: Level,
}

/// Every claim line of `text`, in order; a malformed line (an unknown key, a level that is
/// none) is no claim.
pub fn claims(text: &str) -> Vec<Claim> {
    text.lines().filter_map(claim).collect()
}

fn claim(line: &str) -> Option<Claim> {
    let body = line
        .trim()
        .strip_prefix("<!-- finding ")?
        .strip_suffix("-->")?;
    let mut it = body.split_whitespace();
    let mut c = Claim {
        id: it.next()?.to_string(),
        targets: Vec::new(),
        cases: Vec::new(),
        level: Level::Must,
    };
    for kv in it {
        let (k, v) = kv.split_once('=')?;
        let list = v.split(',').map(str::to_string).collect();
        match k {
            "targets" => c.targets = list,
            "cases" => c.cases = list,
            "level" => {
                c.level = match v {
                    "must" => Level::Must,
                    "should" => Level::Should,
                    "robustness" => Level::Robustness,
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    Some(c)
}

/// The line prefix of a finding's history in FINDINGS.md.
pub const HISTORY_PREFIX: &str = "- **History:**";

/// `text` with each finding's `**History:**` line set to `lines[id]`: replaced where the
/// finding's section (its `### F-N.` heading to the next heading) has one, else put
/// before the section's first `<!-- ` line (or at its end). Findings not in `lines` keep
/// whatever they have.
pub fn with_history(text: &str, lines: &std::collections::BTreeMap<String, String>) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    let mut pending: Option<String> = None; // the history line not yet written
    let flush = |out: &mut Vec<String>, pending: &mut Option<String>| {
        if let Some(p) = pending.take() {
            // Before the blank lines that end the section.
            let mut at = out.len();
            while at > 0 && out[at - 1].trim().is_empty() {
                at -= 1;
            }
            out.insert(at, p);
        }
    };
    for line in text.lines() {
        if line.starts_with("#") {
            flush(&mut out, &mut pending);
            current = line
                .strip_prefix("### ")
                .and_then(|h| h.split('.').next())
                .filter(|id| id.starts_with("F-"))
                .map(str::to_string);
            pending = current
                .as_ref()
                .and_then(|id| lines.get(id))
                .map(|l| format!("{HISTORY_PREFIX} {l}"));
            out.push(line.to_string());
            continue;
        }
        if line.starts_with(HISTORY_PREFIX) {
            match current.as_ref().filter(|id| lines.contains_key(*id)) {
                // The new line in the old one's place (once).
                Some(_) => out.extend(pending.take()),
                None => out.push(line.to_string()),
            }
            continue;
        }
        if line.starts_with("<!-- ") && pending.is_some() {
            flush(&mut out, &mut pending);
        }
        out.push(line.to_string());
    }
    flush(&mut out, &mut pending);
    let mut s = out.join("\n");
    if text.ends_with('\n') {
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_lines() {
        let c = claims(
            "x\n<!-- finding F-10 level=should targets=a,b cases=c.d -->\n\
             <!-- finding F-2 targets=a cases=x,y -->\n<!-- finding F-3 bogus=1 -->\n",
        );
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].level, Level::Should);
        assert_eq!(c[0].targets, ["a", "b"]);
        assert_eq!(c[1].cases, ["x", "y"]);
    }

    #[test]
    fn history_lines_are_replaced_or_inserted() {
        let text = "## A\n\n### F-1. One\n- **Severity:** must.\n<!-- finding F-1 -->\n\n\
                    ### F-2. Two\n- **History:** old\n- x\n";
        let mut lines = std::collections::BTreeMap::new();
        lines.insert("F-1".to_string(), "new one".to_string());
        lines.insert("F-2".to_string(), "new two".to_string());
        let got = with_history(text, &lines);
        assert_eq!(
            got,
            "## A\n\n### F-1. One\n- **Severity:** must.\n- **History:** new one\n\
             <!-- finding F-1 -->\n\n### F-2. Two\n- **History:** new two\n- x\n"
        );
        assert_eq!(with_history(&got, &lines), got, "idempotent");
    }
}
