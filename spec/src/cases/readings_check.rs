//! `specs/readings.yaml` against the suite: every entry is whole for its kind, used,
//! and named back by the cases it names (here, not in `readings`, which sits below the
//! case language).

use super::{Step, Suite};
use crate::readings::{bundled, ReadingKind, USED_BY_CODE};
use crate::specs::Source;

/// Every entry is whole for its kind and used; every id the code applies exists;
/// every case an entry names exists and names it back where it is a reading.
#[test]
fn every_entry_has_its_sentence_and_is_used() {
    let all = bundled().expect("specs/readings.yaml parses");
    let suite = Suite::load(&Source::Bundled).expect("suite");
    for r in &all {
        match r.kind {
            ReadingKind::Conflict => {
                assert_eq!(r.sentences.len(), 2, "{}", r.id);
                // The choice decides under --strict; the other sentence warns.
                assert!(r.choice.is_some() && r.other.is_some(), "{}", r.id);
            }
            ReadingKind::Reading => {
                assert!(
                    r.sentence.is_some() && r.literal.is_some() && r.other.is_some(),
                    "{}",
                    r.id
                );
            }
            _ => assert!(r.sentence.is_some() && r.meaning.is_some(), "{}", r.id),
        }
        assert!(!r.used_by.is_empty(), "{} is used by nothing", r.id);
        for u in &r.used_by {
            if u == "comparator" {
                assert!(USED_BY_CODE.contains(&r.id.as_str()), "{}", r.id);
                continue;
            }
            let c = suite
                .get(u)
                .unwrap_or_else(|| panic!("{}: no case {u}", r.id));
            if r.kind == ReadingKind::Reading {
                let names = |s: &Step| {
                    s.expect
                        .as_ref()
                        .and_then(|x| x.or_reading.as_ref())
                        .is_some_and(|o| o.reading == r.id)
                };
                assert!(c.steps.iter().any(names), "{u} does not name {}", r.id);
            }
        }
    }
    for id in USED_BY_CODE {
        assert!(
            all.iter().any(|r| r.id == *id),
            "{id} not in specs/readings.yaml"
        );
    }
    // Every `or_reading:` of the suite is listed under its entry.
    for c in &suite.cases {
        for s in &c.steps {
            if let Some(o) = s.expect.as_ref().and_then(|x| x.or_reading.as_ref()) {
                let r = all.iter().find(|r| r.id == o.reading).expect("validated");
                assert!(
                    r.used_by.contains(&c.id),
                    "{} not in {}'s used_by",
                    c.id,
                    r.id
                );
            }
        }
    }
}
