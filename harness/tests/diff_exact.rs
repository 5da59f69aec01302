//! `mpit-conform diff --exact` (the release history's check, `scripts/release-history.sh
//! --check`): every moved verdict counts, but the moves `--allow CASE:STATUSES` names, with
//! `absent` for a result only one report has.

mod common;
mod report_fixture;

use common::bin;
use mpit_report::{diff, json};
use report_fixture::old_and_new;

#[test]
fn exact_counts_every_move_but_the_allowed_ones() {
    let d = tempfile::tempdir().expect("tempdir");
    let (old, new) = old_and_new();
    let (po, pn) = (d.path().join("old.json"), d.path().join("new.json"));
    json::write(&old, &po).expect("write");
    json::write(&new, &pn).expect("write");
    let dd = diff::diff(&old, &new);
    let word = |s: Option<mpit_spec::verdict::Status>| {
        s.map_or("absent".to_string(), |s| {
            serde_json::to_value(s)
                .expect("status")
                .as_str()
                .expect("a word")
                .to_string()
        })
    };
    // Each moved result, allowed between its two statuses.
    let moves: Vec<(String, String)> = [
        &dd.new_fails,
        &dd.new_crashes,
        &dd.new_errors,
        &dd.fixed,
        &dd.changed,
        &dd.added,
        &dd.removed,
    ]
    .into_iter()
    .flatten()
    .map(|c| (c.case.clone(), format!("{},{}", word(c.old), word(c.new))))
    .collect();
    assert!(!dd.added.is_empty() && !dd.removed.is_empty(), "{moves:?}");
    let exact = |allow: &[(String, String)]| {
        let mut c = bin();
        c.args(["diff", "--exact"]);
        for (case, st) in allow {
            c.args(["--allow", &format!("{case}:{st}")]);
        }
        let out = c.arg(&po).arg(&pn).output().expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    assert_eq!(exact(&[]).0, Some(1));
    let (code, text) = exact(&moves);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("changes between statuses --allow names"),
        "{text}"
    );
    // Without `absent`, a result only one report has still counts.
    let present: Vec<_> = moves
        .iter()
        .map(|(c, st)| (c.clone(), st.replace("absent,", "").replace(",absent", "")))
        .collect();
    let (code, text) = exact(&present);
    assert_eq!(code, Some(1));
    assert!(
        text.contains("only in new (1)") && text.contains("only in old (1)"),
        "{text}"
    );
    // A case left out still counts; a word that is no status is bad input.
    let left_out: Vec<_> = moves
        .iter()
        .filter(|(c, _)| *c != moves[0].0)
        .cloned()
        .collect();
    assert_eq!(exact(&left_out).0, Some(1));
    assert_eq!(
        exact(&[(moves[0].0.clone(), "pass,gone".into())]).0,
        Some(2)
    );
}
