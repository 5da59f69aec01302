//! `Op::func` against the names `Op::function` gave before the function table named
//! them, over every variant; `every_op` is also the emitter's test input.

use super::*;

/// `Op::function` as it was before it came from the function table: the strings
/// evidence, the return-code table and the written cases' ids were made of.
fn old_function(op: &Op) -> String {
    fn members_word(m: Members) -> &'static str {
        match m {
            Members::Cvars => "cvars",
            Members::Pvars => "pvars",
            Members::Categories => "categories",
            Members::Events => "events",
        }
    }
    let f = match op {
        Op::InitThread { .. } => "init_thread".into(),
        Op::Finalize => "finalize".into(),
        Op::GetNum(k) => format!("{}_get_num", k.word()),
        Op::GetInfo { kind, .. } => format!("{}_get_info", kind.word()),
        Op::GetIndex { kind, .. } => format!("{}_get_index", kind.word()),
        Op::PvarGetIndex { .. } => "pvar_get_index".into(),
        Op::CategoryMembers { which, .. } => format!("category_get_{}", members_word(*which)),
        Op::CategoryGetNumEvents { .. } => "category_get_num_events".into(),
        Op::CategoryChanged => "category_changed".into(),
        Op::EnumGetInfo { .. } => "enum_get_info".into(),
        Op::EnumGetItem { .. } => "enum_get_item".into(),
        Op::CvarHandleAlloc { .. } => "cvar_handle_alloc".into(),
        Op::CvarHandleFree { .. } => "cvar_handle_free".into(),
        Op::CvarRead { .. } => "cvar_read".into(),
        Op::CvarWrite { .. } => "cvar_write".into(),
        Op::SessionCreate => "pvar_session_create".into(),
        Op::SessionFree { .. } => "pvar_session_free".into(),
        Op::PvarHandleAlloc { .. } => "pvar_handle_alloc".into(),
        Op::PvarHandleFree { .. } => "pvar_handle_free".into(),
        Op::Pvar { act, .. } => match act {
            Act::Start => "pvar_start".into(),
            Act::Stop => "pvar_stop".into(),
            Act::Reset => "pvar_reset".into(),
        },
        Op::PvarRead { reset: false, .. } => "pvar_read".into(),
        Op::PvarRead { reset: true, .. } => "pvar_readreset".into(),
        Op::PvarWrite { .. } => "pvar_write".into(),
        Op::SourceGetTimestamp { .. } => "source_get_timestamp".into(),
        Op::EventHandleAlloc { .. } => "event_handle_alloc".into(),
        Op::EventHandleFree { .. } => "event_handle_free".into(),
        Op::Simulate { .. } => return "MPIT_Reference_simulate".into(),
        Op::RaiseEvent { .. } => return "MPIT_Reference_raise_event".into(),
        Op::MpiInit => return "MPI_Init".into(),
        Op::EventInfoObject { .. } => "event_get_info".into(),
        Op::EventRegisterCallback { .. } => "event_register_callback".into(),
        Op::EventSetDroppedHandler { .. } => "event_set_dropped_handler".into(),
        Op::EventReadAfter { .. } => "event_read".into(),
    };
    format!("MPI_T_{f}")
}

/// Every variant, with every value of the fields that choose the function (kind,
/// members, action, reset, a NULL description).
pub(crate) fn every_op() -> Vec<Op> {
    let r = Ref::Made(0);
    let mut ops = vec![
        Op::InitThread {
            required: ThreadLevel::Single,
        },
        Op::Finalize,
        Op::PvarGetIndex {
            name: "x".into(),
            class: PvarClass::Counter,
        },
        Op::CategoryGetNumEvents { index: 0 },
        Op::CategoryChanged,
        Op::EnumGetInfo {
            enumtype: 0,
            name: Str::sized(8),
        },
        Op::EnumGetItem {
            enumtype: 0,
            item: 0,
            name: Str::sized(8),
        },
        Op::CvarHandleAlloc { index: 0 },
        Op::CvarHandleFree { handle: r },
        Op::CvarRead { handle: r },
        Op::CvarWrite {
            handle: r,
            data: Data::Int(1),
        },
        Op::SessionCreate,
        Op::SessionFree { session: r },
        Op::PvarHandleAlloc {
            session: r,
            index: 0,
        },
        Op::PvarHandleFree {
            session: r,
            handle: r,
        },
        Op::PvarWrite {
            session: r,
            handle: r,
            data: Data::Readback,
        },
        Op::SourceGetTimestamp { index: 0 },
        Op::EventHandleAlloc { index: 0 },
        Op::EventHandleFree { registration: r },
        Op::Simulate { steps: 1 },
        Op::MpiInit,
        Op::EventInfoObject { index: 0 },
        Op::EventRegisterCallback {
            registration: r,
            safety: CbSafety::None,
            set: true,
        },
        Op::EventSetDroppedHandler {
            registration: r,
            set: true,
        },
        Op::RaiseEvent {
            index: 0,
            required: CbSafety::None,
        },
        Op::EventReadAfter { instance: 0 },
    ];
    for kind in Kind::ALL {
        ops.push(Op::GetNum(kind));
        for desc in [Str::NONE, Str::sized(8)] {
            ops.push(Op::GetInfo {
                kind,
                index: 0,
                name: Str::sized(8),
                desc,
            });
        }
        ops.push(Op::GetIndex {
            kind,
            name: "x".into(),
        });
    }
    for which in [
        Members::Cvars,
        Members::Pvars,
        Members::Categories,
        Members::Events,
    ] {
        ops.push(Op::CategoryMembers {
            index: 0,
            which,
            len: 4,
        });
    }
    for act in [Act::Start, Act::Stop, Act::Reset] {
        ops.push(Op::Pvar {
            act,
            session: r,
            handle: r,
        });
    }
    for reset in [false, true] {
        ops.push(Op::PvarRead {
            session: r,
            handle: r,
            reset,
        });
    }
    ops
}

#[test]
fn every_variant_is_made() {
    let made: std::collections::BTreeSet<&str> = every_op().iter().map(Op::variant).collect();
    assert_eq!(made.len(), 32, "{made:?}");
}

/// The table's C names are the strings `function` gave before, op for op. The one
/// exception is an op the generator never makes (gen/pick.rs asks get_index of
/// cvars, categories and events): a source's get_index, for which it named
/// `MPI_T_source_get_index`, a function MPI-4.1 does not have; the engines call
/// `MPI_T_event_get_index` for it, and so it is named now.
#[test]
fn function_names_are_unchanged() {
    for op in every_op() {
        let want = match op {
            Op::GetIndex {
                kind: Kind::Source, ..
            } => "MPI_T_event_get_index".to_string(),
            _ => old_function(&op),
        };
        assert_eq!(op.function(), want, "{op:?}");
    }
}

/// Every op cites a rule of specs/clauses.yaml: its function's `rule:` column, or
/// the comparator's own for what the op says more (ALL_HANDLES, MPI_Init, the hooks,
/// an instance read late), never the fallback.
#[test]
fn every_op_cites_a_rule_of_the_clauses() {
    use crate::cases::clauses::Clauses;
    use crate::differential::compare::rule_of;
    use crate::specs::Source;
    let ids: Vec<String> = Clauses::load(&Source::Bundled)
        .expect("the bundled clauses")
        .rules
        .into_iter()
        .map(|r| r.rule)
        .collect();
    for op in every_op() {
        let special = matches!(
            op,
            Op::Pvar {
                handle: Ref::All,
                ..
            } | Op::Simulate { .. }
                | Op::MpiInit
                | Op::EventReadAfter { .. }
        );
        assert!(
            special || op.func().rule().is_some(),
            "{} has no `rule:` in the function table ({op:?})",
            op.func().yaml()
        );
        let r = rule_of(&op);
        assert!(
            ids.iter().any(|i| i == r),
            "{op:?} cites {r}, not in clauses.yaml"
        );
    }
}

/// An op's call passes only parameters of its function and reads only its OUTs: the
/// executor's engine looks arguments up by name and passes a default for one it does
/// not find, so a misspelt name would be a silent change of the call, and an OUT the
/// function does not return would be compared as absent on both sides.
#[test]
fn every_call_names_its_functions_parameters_and_outs() {
    use crate::cases::funcs::Param;
    for op in every_op() {
        let c = op.call();
        for (n, _) in c.args.iter().chain(&c.implied) {
            assert!(
                c.func.param(n).is_some(),
                "{op:?}: {n} is no parameter of {}",
                c.func.yaml()
            );
        }
        let outs: Vec<&str> = match c.sees {
            Sees::Code | Sees::Raise(_) => vec![],
            Sees::Provided => vec!["provided"],
            Sees::Count(_) => vec!["num"],
            Sees::Index(_) => vec!["index"],
            Sees::Members(_) => vec!["indices", "overrun"],
            Sees::Int(o) => vec![o],
            Sees::Update => vec!["update_number"],
            Sees::Named(o) => vec![o, "name"],
            Sees::Info(_) | Sees::NameOnly => vec!["name"],
            Sees::Alloc { .. } | Sees::Free { .. } => vec![c.handle_out()],
            Sees::Read(..) => vec!["bytes"],
            Sees::InfoObject => vec!["info"],
        };
        for o in outs {
            assert!(
                c.func.outs().contains(&o),
                "{op:?}: {o} is no OUT of {}",
                c.func.yaml()
            );
        }
        // A NULL pair of the name is written only as a `for_all: null_outs` round.
        if c.str("name") == Str::NONE && c.func.param("name") == Some(Param::Str) {
            assert!(c.null_outs, "{op:?}: a NULL name pair outside null_outs");
        }
    }
}
