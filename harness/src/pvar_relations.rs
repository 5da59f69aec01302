//! The relations the standard fixes between two reads of one performance-variable
//! handle, whatever the library counts (MPI-4.1 §15.3.7), as one pure function: the
//! differential oracle holds a library to them after each generated call
//! (`differential::relations`, which tracks what came in between), and the cross-rank
//! run after MPI work between ranks (`runner::ranks::values`).
//!
//! * a non-continuous handle not started since the last read reads the same value
//!   (R-PSTART-1: "not updated until started");
//! * COUNTER, AGGREGATE, TIMER and HIGHWATERMARK never decrease and LOWWATERMARK never
//!   increases without a reset or write in between (R-PCLASS; overflow of the first
//!   three is not judged);
//! * LEVEL and SIZE are never negative, PERCENTAGE stays within [0, 1] (R-PCLASS).

use mpit_vocab::spec::PvarClass;

/// A relation a value broke: the rule, the relation in the case language's words (`eq`,
/// `ge`, `le`, or `nonneg` and `fraction` for the ranges) and what was seen.
#[derive(Debug, Clone, PartialEq)]
pub struct Broken {
    pub rule: &'static str,
    pub relation: &'static str,
    pub what: String,
}

/// What came between the two reads of one handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Between {
    /// The handle counts (continuous, or started at any time since the earlier read).
    pub active: bool,
}

/// The relation the read `now` breaks, if any; `before` is the handle's earlier read
/// with no reset or write after it (`None`: only the ranges are judged).
pub fn check(
    class: PvarClass,
    between: Between,
    before: Option<&[f64]>,
    now: &[f64],
) -> Option<Broken> {
    match class {
        PvarClass::Level | PvarClass::Size if now.iter().any(|x| *x < 0.0) => {
            return Some(Broken {
                rule: "R-PCLASS",
                relation: "nonneg",
                what: format!("a {} variable reads {now:?}, below 0", class.spelling()),
            })
        }
        PvarClass::Percentage if now.iter().any(|x| !(0.0..=1.0).contains(x)) => {
            return Some(Broken {
                rule: "R-PCLASS",
                relation: "fraction",
                what: format!("a PERCENTAGE variable reads {now:?}, outside [0, 1]"),
            })
        }
        _ => {}
    }
    let before = before.filter(|b| b.len() == now.len())?;
    let all = |f: fn(f64, f64) -> bool| before.iter().zip(now).all(|(b, x)| f(*b, *x));
    if !between.active {
        return (!all(|b, x| b == x)).then(|| Broken {
            rule: "R-PSTART-1",
            relation: "eq",
            what: format!("a stopped handle read {before:?}, then {now:?}"),
        });
    }
    let (ok, relation, word) = match class {
        PvarClass::Counter | PvarClass::Aggregate | PvarClass::Timer | PvarClass::HighWatermark => {
            (all(|b, x| x >= b), "ge", "decreased")
        }
        PvarClass::LowWatermark => (all(|b, x| x <= b), "le", "increased"),
        _ => return None,
    };
    (!ok).then(|| Broken {
        rule: "R-PCLASS",
        relation,
        what: format!(
            "a {} {word} from {before:?} to {now:?} with no reset or write in between",
            class.spelling()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACTIVE: Between = Between { active: true };
    const STOPPED: Between = Between { active: false };

    #[test]
    fn each_relation_can_be_broken_and_held() {
        let c = |class, b: Between, before: &[f64], now: &[f64]| {
            check(class, b, Some(before), now).map(|x| x.relation)
        };
        assert_eq!(c(PvarClass::Counter, ACTIVE, &[3.0], &[2.0]), Some("ge"));
        assert_eq!(c(PvarClass::Counter, ACTIVE, &[3.0], &[3.0]), None);
        assert_eq!(c(PvarClass::HighWatermark, ACTIVE, &[3.0], &[4.0]), None);
        assert_eq!(
            c(PvarClass::LowWatermark, ACTIVE, &[3.0], &[4.0]),
            Some("le")
        );
        assert_eq!(c(PvarClass::Counter, STOPPED, &[3.0], &[4.0]), Some("eq"));
        assert_eq!(c(PvarClass::Level, ACTIVE, &[3.0], &[-1.0]), Some("nonneg"));
        assert_eq!(c(PvarClass::Level, ACTIVE, &[3.0], &[1.0]), None);
        assert_eq!(
            c(PvarClass::Percentage, ACTIVE, &[0.5], &[1.5]),
            Some("fraction")
        );
        // Lists of other lengths (a vendor's count): only the ranges.
        assert_eq!(c(PvarClass::Counter, ACTIVE, &[3.0, 1.0], &[2.0]), None);
        assert_eq!(check(PvarClass::Counter, ACTIVE, None, &[0.0]), None);
    }
}
