//! `--waivers FILE`: known deviations a vendor accepts for now, each with a reason.
//!
//! ```yaml
//! - case: "strings.cvar.name.*"      # glob over case ids (required)
//!   target: "*libmpich*"             # glob over target.path or target.library_version (required)
//!   subject: "cvar * MPIR_CVAR_CH4*" # glob over subjects (optional: any)
//!   reason: "MPICH#1234, fixed in 4.3"   # required, non-empty
//!   expires: 2026-06-30              # optional: from the day after, the waiver no longer applies
//! ```
//!
//! A waiver marks the unexpected results it matches (fail, crash, timeout, error) with its
//! reason; they stay in the report under their status but no longer count for the exit
//! code. What a waiver file says that did not happen is reported ([`WaiverOutcome`]).

use super::{is_unexpected, Report, Summary};
use glob::Pattern;
use mpit_vocab::yaml::{self, YamlError};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One entry as written in the file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    case: String,
    target: String,
    #[serde(default)]
    subject: Option<String>,
    reason: String,
    #[serde(default)]
    expires: Option<String>,
}

/// One waiver, validated.
#[derive(Debug, Clone)]
pub struct Waiver {
    pub case: Pattern,
    pub target: Pattern,
    pub subject: Option<Pattern>,
    pub reason: String,
    /// `YYYY-MM-DD`: the last day the waiver applies.
    pub expires: Option<String>,
    /// Where the entry starts in its file (`file:line`), for the outcome's messages.
    pub origin: String,
}

/// A waiver file.
#[derive(Debug, Clone, Default)]
pub struct Waivers {
    pub waivers: Vec<Waiver>,
}

/// A waiver named in a [`WaiverOutcome`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaiverRef {
    /// `file:line` of the entry.
    pub origin: String,
    pub case: String,
    pub target: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
}

/// What applying a waiver file did, beyond marking results.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaiverOutcome {
    /// Results marked waived.
    pub applied: usize,
    /// Waivers that matched no result at all (a typo, or a case that no longer exists).
    pub unmatched_waivers: Vec<WaiverRef>,
    /// Waivers that matched results, none of them unexpected: what they waive is fixed.
    pub unexpected_passes: Vec<WaiverRef>,
    /// Waivers past their date: not applied.
    pub expired: Vec<WaiverRef>,
}

impl WaiverOutcome {
    /// One line per thing to tell the user (the CLI prints them as warnings).
    pub fn notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        let name = |w: &WaiverRef| {
            let mut s = format!(
                "{}: waiver case `{}` target `{}`",
                w.origin, w.case, w.target
            );
            if let Some(sub) = &w.subject {
                s.push_str(&format!(" subject `{sub}`"));
            }
            s
        };
        for w in &self.expired {
            let day = w.expires.as_deref().unwrap_or("?");
            out.push(format!("{} expired on {day}: not applied", name(w)));
        }
        for w in &self.unmatched_waivers {
            out.push(format!("{} matches no result", name(w)));
        }
        for w in &self.unexpected_passes {
            out.push(format!(
                "{} matches only results that are not unexpected (unexpected pass): remove it?",
                name(w)
            ));
        }
        out
    }
}

fn pattern(text: &str, origin: &str, what: &str, glob: &str) -> Result<Pattern, YamlError> {
    Pattern::new(glob).map_err(|e| {
        YamlError::near(
            origin,
            text,
            glob,
            format!("`{what}`: bad glob `{glob}`: {}", e.msg),
        )
    })
}

/// Whether `s` is a real calendar day written `YYYY-MM-DD`.
fn is_date(s: &str) -> bool {
    s.len() == 10
        && s.as_bytes()[4] == b'-'
        && s.as_bytes()[7] == b'-'
        && humantime::parse_rfc3339(&format!("{s}T00:00:00Z")).is_ok()
}

/// Lines (1-based) where top-level sequence items start, so each waiver can be named by
/// `file:line`; serde gives no positions for values that parsed fine.
fn item_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("- ") || *l == "-")
        .map(|(i, _)| i + 1)
        .collect()
}

/// Line and column (1-based) of `needle` at or after line `from`.
fn locate_from(text: &str, from: usize, needle: &str) -> Option<(usize, usize)> {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find_map(|(i, l)| l.find(needle).map(|c| (i + 1, c + 1)))
}

impl Waivers {
    pub fn load(path: &Path) -> Result<Waivers, YamlError> {
        let (text, origin) = yaml::read(path)?;
        Self::parse(&text, &origin)
    }

    /// Parses and validates a waiver file's text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Waivers, YamlError> {
        // An empty file (or only comments) waives nothing.
        let entries: Vec<Entry> = if text.lines().all(|l| {
            let l = l.trim();
            l.is_empty() || l.starts_with('#')
        }) {
            Vec::new()
        } else {
            yaml::parse(text, origin)?
        };
        let lines = item_lines(text);
        let n = entries.len();
        let mut waivers = Vec::with_capacity(n);
        for (i, e) in entries.into_iter().enumerate() {
            let line = if lines.len() == n {
                lines[i]
            } else {
                yaml::locate(text, &e.case).map_or(1, |(l, _)| l)
            };
            if e.reason.trim().is_empty() {
                let (line, col) = locate_from(text, line, "reason:").unwrap_or((line, 1));
                return Err(YamlError {
                    origin: origin.to_string(),
                    line,
                    col,
                    message: "waiver without a reason: `reason` must say why".to_string(),
                });
            }
            if let Some(day) = &e.expires {
                if !is_date(day) {
                    return Err(YamlError::near(
                        origin,
                        text,
                        day,
                        format!("`expires`: `{day}` is not a date YYYY-MM-DD"),
                    ));
                }
            }
            waivers.push(Waiver {
                case: pattern(text, origin, "case", &e.case)?,
                target: pattern(text, origin, "target", &e.target)?,
                subject: match &e.subject {
                    Some(s) => Some(pattern(text, origin, "subject", s)?),
                    None => None,
                },
                reason: e.reason.trim().to_string(),
                expires: e.expires,
                origin: format!("{origin}:{line}"),
            });
        }
        Ok(Waivers { waivers })
    }

    /// Marks the unexpected results each waiver matches with its reason (the first
    /// matching waiver wins), recomputes the summary, and records the outcome in the
    /// report as well as returning it. `today` is `YYYY-MM-DD` (see [`super::today`]); a
    /// waiver applies through its `expires` day.
    pub fn apply(&self, report: &mut Report, today: &str) -> WaiverOutcome {
        let mut out = WaiverOutcome::default();
        let target_matches = |w: &Waiver| {
            w.target.matches(&report.target.path)
                || w.target.matches(&report.target.library_version)
        };
        let mut marks: Vec<(usize, String)> = Vec::new();
        for w in &self.waivers {
            let wref = w.to_ref();
            if w.expires.as_deref().is_some_and(|d| d < today) {
                out.expired.push(wref);
                continue;
            }
            if !target_matches(w) {
                out.unmatched_waivers.push(wref);
                continue;
            }
            let mut matched = 0usize;
            let mut unexpected = 0usize;
            for (i, r) in report.results.iter().enumerate() {
                let hit = w.case.matches(&r.case)
                    && w.subject.as_ref().is_none_or(|s| s.matches(&r.subject));
                if !hit {
                    continue;
                }
                matched += 1;
                if is_unexpected(r.status) {
                    unexpected += 1;
                    marks.push((i, w.reason.clone()));
                }
            }
            if matched == 0 {
                out.unmatched_waivers.push(wref);
            } else if unexpected == 0 {
                out.unexpected_passes.push(wref);
            }
        }
        for (i, reason) in marks {
            let r = &mut report.results[i];
            if r.waived.is_none() {
                r.waived = Some(reason);
                out.applied += 1;
            }
        }
        report.summary = Summary::of(&report.results);
        report.waivers = Some(out.clone());
        out
    }
}

impl Waiver {
    fn to_ref(&self) -> WaiverRef {
        WaiverRef {
            origin: self.origin.clone(),
            case: self.case.as_str().to_string(),
            target: self.target.as_str().to_string(),
            subject: self.subject.as_ref().map(|p| p.as_str().to_string()),
            reason: self.reason.clone(),
            expires: self.expires.clone(),
        }
    }
}
