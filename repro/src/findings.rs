//! The entries of a findings list (`reports/FINDINGS.md`) as a bug report reuses them:
//! each `### F-n. Title` with its bullets (`- **Observed:** ...`) and the
//! `<!-- finding F-n targets=... cases=... -->` lines that say which (library, case)
//! results it claims; and the list's table of targets (`| name | library | path |`), by
//! which a report's library path names its target.

/// One entry of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// `F-6`.
    pub id: String,
    /// The heading's text after `F-n. `.
    pub title: String,
    /// Each bullet: (`Observed`, its text; its further lines as written, indented, so
    /// that the text stays one bullet where it is written out again).
    pub bullets: Vec<(String, String)>,
    /// (target names, case ids) of each `<!-- finding -->` line.
    pub claims: Vec<(Vec<String>, Vec<String>)>,
}

impl Finding {
    /// Whether a result of `case` on the target named `target` is one this entry claims.
    pub fn claims(&self, target: &str, case: &str) -> bool {
        self.claims
            .iter()
            .any(|(t, c)| t.iter().any(|x| x == target) && c.iter().any(|x| x == case))
    }

    /// A bullet's text by its key (`Observed`), the first of several spellings.
    pub fn bullet(&self, keys: &[&str]) -> Option<&str> {
        self.bullets
            .iter()
            .find(|(k, _)| keys.contains(&k.as_str()))
            .map(|(_, v)| v.as_str())
    }
}

/// The findings list: its entries and its targets (name, library path).
#[derive(Debug, Clone, Default)]
pub struct Findings {
    pub entries: Vec<Finding>,
    pub targets: Vec<(String, String)>,
}

impl Findings {
    /// Parses the Markdown of a findings list; what is not an entry, a bullet, a claim or
    /// a row of the targets table is left out.
    pub fn parse(text: &str) -> Findings {
        let mut f = Findings::default();
        let mut open: Option<Finding> = None;
        for line in text.lines() {
            if let Some(row) = target_row(line) {
                f.targets.push(row);
            }
            if line.starts_with("## ") || line.starts_with("### ") {
                f.entries.extend(open.take());
                open = line
                    .strip_prefix("### ")
                    .and_then(|h| h.split_once(". "))
                    .filter(|(id, _)| id.starts_with("F-"))
                    .map(|(id, title)| Finding {
                        id: id.to_string(),
                        title: title.trim().to_string(),
                        bullets: Vec::new(),
                        claims: Vec::new(),
                    });
                continue;
            }
            let Some(e) = open.as_mut() else { continue };
            if let Some(claim) = line.trim().strip_prefix("<!-- finding ") {
                e.claims.push(claim_of(claim));
            } else if let Some(b) = line.strip_prefix("- **") {
                if let Some((key, rest)) = b.split_once(":**") {
                    e.bullets.push((key.to_string(), rest.trim().to_string()));
                }
            } else if line.starts_with("  ") || line.is_empty() {
                // A bullet's next line (or a blank line inside it).
                if let Some((_, text)) = e.bullets.last_mut() {
                    text.push('\n');
                    text.push_str(line.trim_end());
                }
            }
        }
        f.entries.extend(open);
        for e in &mut f.entries {
            for (_, text) in &mut e.bullets {
                *text = text.trim_end().to_string();
            }
        }
        f
    }

    /// The target a library path is (the targets table's path column).
    pub fn target_of_path(&self, path: &str) -> Option<&str> {
        let path = path.trim_start_matches("./");
        self.targets
            .iter()
            .find(|(_, p)| p == path)
            .map(|(n, _)| n.as_str())
    }

    /// The entry that claims `case` on `target`.
    pub fn claiming(&self, target: &str, case: &str) -> Option<&Finding> {
        self.entries.iter().find(|e| e.claims(target, case))
    }
}

/// `| debian-mpich | MPICH 4.0.2 (Debian 12) | `/usr/lib/.../libmpich.so.12` |`: the
/// target's name and path.
fn target_row(line: &str) -> Option<(String, String)> {
    let cells: Vec<&str> = line.strip_prefix('|')?.split('|').map(str::trim).collect();
    let [name, _, path, ..] = cells.as_slice() else {
        return None;
    };
    let path = path.strip_prefix('`')?.strip_suffix('`')?;
    let plain = |s: &str| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    (plain(name) && !name.is_empty()).then(|| (name.to_string(), path.to_string()))
}

/// `F-6 targets=a,b cases=x,y -->`: the targets and the cases.
fn claim_of(body: &str) -> (Vec<String>, Vec<String>) {
    let list = |key: &str| -> Vec<String> {
        body.split_whitespace()
            .find_map(|kv| kv.strip_prefix(key))
            .map(|v| v.split(',').map(str::to_string).collect())
            .unwrap_or_default()
    };
    (list("targets="), list("cases="))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = "\
| target | library | path |
|---|---|---|
| openmpi5 | Open MPI 5.0.11 | `.targets/openmpi5/lib/libmpi.so.40` |

## Open MPI

### F-6. `MPI_T_pvar_readreset` of a non-atomic pvar
- **Function:** `MPI_T_pvar_readreset`.
- **Observed:** `MPI_T_pvar_readreset` → `MPI_T_ERR_INVALID_HANDLE`,
  for every pvar.

  A second paragraph.
- **Replay:** `--case pvars.readreset.non_atomic`.
<!-- finding F-6 targets=debian-openmpi,openmpi5 cases=pvars.readreset.non_atomic -->

## Lower severity

- **R-STR-2, the other reading**: not an entry.
";

    #[test]
    fn entries_bullets_claims_and_targets() {
        let f = Findings::parse(LIST);
        assert_eq!(f.entries.len(), 1);
        let e = &f.entries[0];
        assert_eq!(
            (e.id.as_str(), e.title.as_str()),
            ("F-6", "`MPI_T_pvar_readreset` of a non-atomic pvar")
        );
        assert_eq!(
            e.bullet(&["Observed"]),
            Some("`MPI_T_pvar_readreset` → `MPI_T_ERR_INVALID_HANDLE`,\n  for every pvar.\n\n  A second paragraph.")
        );
        assert_eq!(e.bullets.len(), 3);
        assert_eq!(
            f.target_of_path("./.targets/openmpi5/lib/libmpi.so.40"),
            Some("openmpi5")
        );
        assert!(f
            .claiming("openmpi5", "pvars.readreset.non_atomic")
            .is_some());
        assert!(f.claiming("mpich5", "pvars.readreset.non_atomic").is_none());
        assert!(f.claiming("openmpi5", "pvars.other").is_none());
    }
}
