use super::*;

fn exports(pred: impl Fn(&str) -> bool) -> Option<BTreeMap<String, bool>> {
    Some(
        MPI4_FUNCTIONS
            .iter()
            .map(|f| (f.to_string(), pred(f)))
            .collect(),
    )
}

fn seen(rc: &str, value: i64, alive: Option<&str>) -> Option<Seen> {
    Some(Seen {
        num: Some(Num {
            rc: rc.into(),
            ok: rc == "MPI_SUCCESS",
            value,
        }),
        alive: alive.map(str::to_string),
        calls: vec![Evidence {
            call: "MPI_T_event_get_num".into(),
            args: Default::default(),
            rc: Some(rc.into()),
            out: serde_json::json!({ "num": value }).into(),
            expected: None,
        }],
    })
}

fn all(events: Option<Seen>, sources: Option<Seen>) -> Observed {
    Observed {
        exports: exports(|_| true),
        sources,
        events,
        died: None,
    }
}

#[test]
fn nothing_exported_is_absent_and_names_what_is_missing() {
    let o = Observed {
        exports: exports(|_| false),
        ..Observed::default()
    };
    let c = derive(&o);
    assert_eq!(c.events.state, State::Absent);
    assert_eq!(c.sources.state, State::Absent);
    assert_eq!(c.mpi4_functions.state, State::Absent);
    assert_eq!(c.mpi4_functions.count, Some(0));
    assert_eq!(c.events.missing.len(), 17);
    assert_eq!(c.sources.missing.len(), 3);
    assert!(c
        .events
        .missing
        .contains(&"MPI_T_event_get_num".to_string()));
    assert!(c
        .events
        .message
        .contains("MPI_T_event_get_num is not exported"));
}

#[test]
fn exported_with_zero_is_empty() {
    let c = derive(&all(
        seen("MPI_SUCCESS", 0, None),
        seen("MPI_SUCCESS", 0, None),
    ));
    assert_eq!(c.events.state, State::Empty);
    assert_eq!(c.events.count, Some(0));
    assert_eq!(c.sources.state, State::Empty);
    assert_eq!(c.mpi4_functions.state, State::Present);
    assert_eq!(c.mpi4_functions.count, Some(20));
    assert!(
        !c.events.evidence.is_empty(),
        "the get_num call is evidence"
    );
}

#[test]
fn some_without_a_sign_of_life_are_present() {
    let c = derive(&all(
        seen("MPI_SUCCESS", 3, None),
        seen("MPI_SUCCESS", 2, None),
    ));
    assert_eq!(c.events.state, State::Present);
    assert_eq!(c.events.count, Some(3));
    assert!(c.events.message.contains("no callback"));
    assert_eq!(c.sources.state, State::Present);
    assert!(c.sources.message.contains("no timestamp advanced"));
}

#[test]
fn a_delivery_is_firing_and_an_advancing_timestamp_ticking() {
    let c = derive(&all(
        seen("MPI_SUCCESS", 2, Some("ev delivered")),
        seen("MPI_SUCCESS", 1, Some("src advanced")),
    ));
    assert_eq!(c.events.state, State::Firing);
    assert!(c.events.message.contains("ev delivered"));
    assert_eq!(c.sources.state, State::Ticking);
}

#[test]
fn a_failing_count_is_unknown_not_empty() {
    let c = derive(&all(seen("MPI_T_ERR_NOT_INITIALIZED", 0, None), None));
    assert_eq!(c.events.state, State::Unknown);
    assert_eq!(c.events.count, None);
    assert!(c.events.message.contains("MPI_T_ERR_NOT_INITIALIZED"));
    // Sources never reported: not probed.
    assert_eq!(c.sources.state, State::Unknown);
}

#[test]
fn a_probe_that_died_keeps_what_it_saw_and_says_why_the_rest_is_unknown() {
    let o = Observed {
        exports: exports(|_| true),
        sources: seen("MPI_SUCCESS", 0, None),
        events: None,
        died: Some(Died {
            message: "worker killed by SIGSEGV in MPI_T_event_get_info(0)".into(),
            evidence: vec![Evidence {
                call: "MPI_T_event_get_info(0)".into(),
                args: Default::default(),
                rc: None,
                out: Default::default(),
                expected: None,
            }],
        }),
    };
    let c = derive(&o);
    assert_eq!(c.sources.state, State::Empty);
    assert_eq!(c.events.state, State::Unknown);
    assert!(c.events.message.contains("SIGSEGV"));
    assert_eq!(c.events.evidence[0].call, "MPI_T_event_get_info(0)");
    // Absent needs no call: known from the export table even when the probe died.
    let o = Observed {
        exports: exports(|f| !f.starts_with("MPI_T_event")),
        ..o
    };
    assert_eq!(derive(&o).events.state, State::Absent);
}

#[test]
fn some_functions_are_partial() {
    let o = Observed {
        exports: exports(|f| f.starts_with("MPI_T_source")),
        sources: seen("MPI_SUCCESS", 1, None),
        ..Observed::default()
    };
    let c = derive(&o);
    assert_eq!(c.mpi4_functions.state, State::Partial);
    assert_eq!(c.mpi4_functions.count, Some(3));
    assert_eq!(c.mpi4_functions.missing.len(), 17);
    assert_eq!(c.sources.state, State::Present);
    assert_eq!(c.events.state, State::Absent);
}

#[test]
fn every_state_serializes_as_its_name() {
    for s in [
        State::Absent,
        State::Partial,
        State::Empty,
        State::Present,
        State::Firing,
        State::Ticking,
        State::Unknown,
    ] {
        assert_eq!(serde_json::to_value(s).ok(), Some(s.as_str().into()));
    }
}

#[test]
fn the_mpi4_list_is_twenty_distinct_functions_of_the_standard() {
    let set: std::collections::BTreeSet<_> = MPI4_FUNCTIONS.iter().collect();
    assert_eq!(set.len(), 20);
    assert_eq!(event_functions().count() + source_functions().count(), 20);
    assert!(!MPI4_FUNCTIONS.contains(&"MPI_T_cvar_get_index"));
}
