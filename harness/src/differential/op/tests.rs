//! One call of each function the generator makes (the tests' `gen/make.rs`) against
//! the function table: each passes only its function's parameters and reads only its
//! OUTs, says what the generator reads off the table, cites a rule of the clauses, and
//! survives the worker protocol. `every_call` is also the emitter's test input.

use super::*;
use crate::differential::gen::{self, make};
use crate::differential::HandleKind;
use mpit_spec::cases::funcs::{Func, Group};

pub(crate) fn every_call() -> Vec<Call> {
    make::one_of_each()
}

/// The tests' calls are one of each function the generator makes (specs/generator.yaml:
/// 53 entries of the table, MPI_Finalize and MPI_Session_init among them since the upstream corpus needed them).
#[test]
fn every_function_is_made() {
    let made: std::collections::BTreeSet<Func> = every_call().iter().map(|c| c.func).collect();
    let listed: std::collections::BTreeSet<Func> = gen::listed().collect();
    assert_eq!(made, listed);
    assert_eq!(made.len(), 53, "{made:?}");
}

/// What both engines observe of each call, as the generator reads it off the table's
/// OUT names and columns (`gen::sees`), is what `make` writes out by hand for it.
#[test]
fn the_table_says_what_each_call_sees() {
    for c in every_call() {
        let derived = gen::call(c.func, c.named_args().map(|(n, a)| (n, a.clone())));
        let got = match c.null_outs {
            true => {
                let mut d = derived.clone();
                d.null_outs = true;
                gen::sees(None, &d)
            }
            false => derived.sees,
        };
        assert_eq!(got, c.sees, "{c}");
    }
}

/// A call survives the worker protocol's JSON: its argument and OUT names are read
/// back as the table's own strings.
#[test]
fn a_call_round_trips_through_json() {
    for c in every_call() {
        let json = serde_json::to_string(&c).expect("serializes");
        let back: Call = serde_json::from_str(&json).expect("parses");
        assert_eq!(back, c, "{json}");
    }
    let bad = r#"{"func":"cvar_read","args":[["no_such_param",{"Int":1}]],"null_outs":false,"sees":"Code"}"#;
    let err = serde_json::from_str::<Call>(bad).expect_err("an unknown parameter");
    assert!(err.to_string().contains("no_such_param"), "{err}");
    // A parameter of another function is not one of this one's.
    let other =
        r#"{"func":"cvar_get_num","args":[["index",{"Int":1}]],"null_outs":false,"sees":"Code"}"#;
    let err = serde_json::from_str::<Call>(other).expect_err("not its parameter");
    assert!(err.to_string().contains("MPI_T_cvar_get_num"), "{err}");
}

/// The wire form names each argument's parameter and writes a string pair as two
/// options, as before arguments were kept by position and pairs packed: a worker of
/// another build and a stored case read the same calls.
#[test]
fn the_wire_form_names_parameters_and_writes_pairs_as_options() {
    let c = make::get_info(Kind::Cvar, 3, Str::new(None, Some(7)), Str::sized(64));
    let json = serde_json::to_value(&c).expect("serializes");
    let args = json["args"].as_array().expect("a list of pairs");
    assert_eq!(args[0][0], "index", "{json}");
    assert_eq!(args[1][0], "name", "{json}");
    assert_eq!(
        args[1][1],
        serde_json::json!({"Str": {"cap": null, "len": 7}}),
        "{json}"
    );
    let back: Call = serde_json::from_value(json).expect("parses");
    assert_eq!(back.str("name").cap(), None);
    assert_eq!(back.str("name").len_in(), Some(7));
    assert_eq!(back.str("desc"), Str::sized(64));
}

/// A generated sequence's calls are copied whole many times (proptest's trees, the
/// search's copy, the closing calls): an argument stays sixteen bytes and a call within
/// a cache line and a half plus, where a 240-byte call cost the property search some
/// 2 % (reports/bench/ANALYSIS.md, "The one function table").
#[test]
fn an_argument_is_sixteen_bytes_and_a_call_stays_small() {
    assert_eq!(std::mem::size_of::<A>(), 16);
    assert_eq!(std::mem::size_of::<Str>(), 12);
    let call = std::mem::size_of::<Call>();
    assert!(call <= 160, "a Call is {call} bytes");
}

/// Every call cites a rule of specs/clauses.yaml: its function's `rule:` column, or
/// the comparator's own for what the call says more (ALL_HANDLES, MPI_Init, the
/// hooks, an instance read late), never the fallback.
#[test]
fn every_call_cites_a_rule_of_the_clauses() {
    use crate::differential::compare::rule_of;
    use mpit_spec::cases::clauses::Clauses;
    use mpit_spec::specs::Source;
    let ids: Vec<String> = Clauses::load(&Source::Bundled)
        .expect("the bundled clauses")
        .rules
        .into_iter()
        .map(|r| r.rule)
        .collect();
    let mut all = every_call();
    all.push(make::pvar_act(Act::Start, Ref::Made(0), Ref::All));
    for op in all {
        let special = (op.act().is_some() && op.handle("handle") == Ref::All)
            || op.func.group() != Group::MpiT
            || matches!(op.arg("instance"), Some(A::Handle(HandleKind::Instance, _)));
        assert!(
            special || op.func.rule().is_some(),
            "{} has no `rule:` in the function table ({op:?})",
            op.func.yaml()
        );
        let r = rule_of(&op);
        assert!(
            ids.iter().any(|i| i == r),
            "{op:?} cites {r}, not in clauses.yaml"
        );
    }
}

/// A call passes only parameters of its function and reads only its OUTs: the
/// executor's engine looks arguments up by name and passes a default for one it does
/// not find, so a misspelt name would be a silent change of the call, and an OUT the
/// function does not return would be compared as absent on both sides.
#[test]
fn every_call_names_its_functions_parameters_and_outs() {
    use mpit_spec::cases::funcs::Param;
    for op in every_call() {
        let c = &op;
        for (p, _) in c.args.iter().chain(&c.implied()) {
            let n = c.param_name(*p);
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

/// The target engine passes what the executor passes for a left-out `info` and
/// `capacity` (`Func::neutral`): a change of that table that `Call::implied` does not
/// follow would leave the argument out silently.
#[test]
fn a_left_out_info_and_capacity_are_implied() {
    let mut seen = 0;
    for f in Func::ALL {
        let call = Call::new(*f, [], Sees::Code);
        let implied = call.implied();
        for (n, _) in f.params() {
            let want = match *n {
                "info" => A::InfoNull,
                "capacity" => A::Int(64),
                _ => continue,
            };
            let got = implied
                .iter()
                .find(|(p, _)| call.param_name(*p) == *n)
                .map(|(_, a)| a);
            assert_eq!(got, Some(&want), "{}: {n}", f.yaml());
            seen += 1;
        }
    }
    assert!(seen >= 6, "{seen}");
}
