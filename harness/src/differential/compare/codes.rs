//! Return codes: the codes the comparator accepts beside the model's for a call in a
//! given state. MPI-4.1 §15.3.10 fixes the form of every code (MPI_SUCCESS or an
//! `MPI_T_ERR_*`, R-RC-1..3); the clause of each routine fixes which code an error
//! gets. Where two errors meet, or the text names no code, the policy of
//! specs/return-codes.yaml (`either:` and `levels:`, which the spec suite reads too)
//! says which codes stand, and specs/readings.yaml where the text is read two ways.

use super::{rule_of, Ctx, Divergence};
use crate::differential::gen::Gen;
use crate::differential::obs::Obs;
use crate::differential::op::{Call, Kind, Sees, A};
use crate::differential::HandleKind;
use crate::judge::inventory::two_errors_outside;
use crate::judge::return_codes::{
    Table, CODE_OUTSIDE_THE_TABLE_IN_AN_ERRONEOUS_CALL, FOREIGN_HANDLE_REFUSED_ANYWAY,
    HANDLE_OUTSIDE_THE_INTERFACE, READRESET_READONLY_NON_ATOMIC,
};
use mpit_spec::cases::funcs::{Func, Group};
use mpit_spec::readings::{
    tolerates, CVAR_WRITE_A_WRITABLE_VARIABLE_MAY_REFUSE, FIN1_CORRESPONDING_RETURN_CODE,
};
use mpit_spec::verdict::Level;
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::TErr;

/// Whether `rc` is one of the codes of the policy's `either:` entry `which` for the
/// function `op` calls (specs/return-codes.yaml; the spec suite reads the same entry).
fn either(which: &str, op: &Call, rc: &ReturnCode) -> bool {
    match rc {
        ReturnCode::T(e) => Table::shared_either_has(which, op.function(), e.spelling()),
        _ => false,
    }
}

/// Whether `op` outside the interface passes a handle or session
/// (`judge::inventory::two_errors_outside`): two errors at once.
fn handle_outside(op: &Call) -> bool {
    let name = op.function();
    Func::mpi_t()
        .find(|f| f.c_name() == name)
        .is_some_and(two_errors_outside)
}

pub(super) fn compare_rc(cx: &Ctx<'_>, g: &Gen, m: &Obs, t: &Obs) -> Option<Divergence> {
    use ReturnCode::{Success, T};
    if m.rc == t.rc {
        return None;
    }
    let op = cx.op;
    // MPI_Finalize and MPI_Session_init answer MPI's codes: one failed where MPI_T's
    // state must not make it (R-GEN-4, R-MPI-2: the function's `rule:`).
    if op.func.group() == Group::Mpi && op.func.rule().is_some() {
        let what = format!("{} returned {}", op.function(), t.rc);
        return Some(cx.div(rule_of(op), cx.level, what, m, t));
    }
    // R-RC-1..3: every code is MPI_SUCCESS or an MPI_T_ERR_* of the ABI. A call whose
    // arguments the standard leaves unchecked (its level is not must) may answer
    // anything: specs/return-codes.yaml `levels:
    // code_outside_the_table_in_an_erroneous_call`, as the run-wide check judges it.
    if matches!(t.rc, ReturnCode::MpiErr(_) | ReturnCode::Unknown(_)) {
        let level = match cx.level {
            Level::Must => Level::Must,
            _ => Table::shared_level(CODE_OUTSIDE_THE_TABLE_IN_AN_ERRONEOUS_CALL),
        };
        return Some(cx.div(
            "R-RC-3",
            level,
            format!(
                "{} returned {}, which is not an MPI_T error code",
                op.function(),
                t.rc
            ),
            m,
            t,
        ));
    }
    // Two errors at once: every code of the policy's `either:` entry conforms, whichever
    // the model picked (the spec suite's cases expect the same entries).
    let both = |which: &str| either(which, op, &m.rc) && either(which, op, &t.rc);
    // MPI_T_finalize (the call that takes one initialization off, R-FIN-1).
    let ends_init = op.func.depth() < 0;
    match () {
        // Outside the interface, a call that passes a handle or session.
        _ if !g.initialized() && handle_outside(op) && both(HANDLE_OUTSIDE_THE_INTERFACE) => {
            return None
        }
        // R-PH-1 with a handle of another session, on a variable the call cannot act
        // on at all (a continuous one started, a read-only one reset).
        _ if g.foreign_session(op)
            && g.refusal(op).is_some_and(|e| {
                [&m.rc, &t.rc]
                    .iter()
                    .all(|c| **c == T(TErr::InvalidHandle) || **c == T(e))
            })
            && both(FOREIGN_HANDLE_REFUSED_ANYWAY) =>
        {
            return None
        }
        // R-PRR-1 and R-PRESET-1 on a read-only, non-atomic variable.
        _ if g.readonly_non_atomic(op) && both(READRESET_READONLY_NON_ATOMIC) => return None,
        // A second start of a started handle (or stop of a stopped one): the text is
        // silent, any return code conforms (specs/readings.yaml
        // pvar.start_of_a_started_handle).
        _ if g.repeat_start_stop(op) && matches!(t.rc, Success | T(_)) => return None,
        // R-CVAR-9: a variable whose scope allows writing may succeed or refuse with
        // either code, as the implementation alone knows (specs/readings.yaml
        // cvar_write.a_writable_variable_may_refuse). A CONSTANT or READONLY one, where
        // the model answers SET_NEVER, "cannot be set for the remainder of the
        // application's execution": SET_NEVER only, SET_NOT_NOW is a divergence.
        _ if matches!(op.data(), Some((HandleKind::Cvar, ..)))
            && m.rc != T(TErr::CvarSetNever)
            && [&m.rc, &t.rc]
                .iter()
                .all(|c| tolerates(CVAR_WRITE_A_WRITABLE_VARIABLE_MAY_REFUSE, &c.to_string())) =>
        {
            return None
        }
        // R-FIN-1, MPI-4.1 §15.3.4 (specs/readings.yaml fin1.corresponding_return_code):
        // an extra finalize returns "a corresponding return code"; strict
        // reading NOT_INITIALIZED, any MPI_T error otherwise.
        _ if ends_init && m.rc == T(TErr::NotInitialized) && t.rc == Success => {
            return Some(cx.div(
                "R-FIN-1",
                Level::Must,
                "one MPI_T_finalize more than MPI_T_init_thread returned MPI_SUCCESS".into(),
                m,
                t,
            ));
        }
        _ if ends_init && m.rc == T(TErr::NotInitialized) && matches!(t.rc, T(_)) => {
            return Some(cx.div(
                "R-FIN-1",
                Level::Should,
                format!(
                    "one MPI_T_finalize too many: a different MPI_T error than NOT_INITIALIZED \
                     (the other reading, {})",
                    FIN1_CORRESPONDING_RETURN_CODE
                ),
                m,
                t,
            ));
        }
        // R-SRC-TS: whether a source has ad-hoc timestamps is not in any get_info: unless
        // the catalog was given, SUCCESS and NOT_SUPPORTED are both conformant
        // (specs/readings.yaml source_timestamp.support_is_not_declared).
        _ if op.func.rule() == Some("R-SRC-TS")
            && !g.mirror().declared
            && [&m.rc, &t.rc]
                .iter()
                .all(|c| **c == Success || **c == T(TErr::NotSupported)) =>
        {
            return None
        }
        _ => {}
    }
    let rule = match () {
        _ if !g.initialized() => "R-INIT-1",
        // Asked for the name alone, every other OUT argument NULL: "ignored".
        _ if op.sees == Sees::NameOnly && m.rc == Success => "R-CVAR-3",
        // R-EVT-IDX (MPI-4.1 §15.3.8): an invalid event index is explicitly INVALID_INDEX.
        // (The reference's raise_event hook aside: its rule is the callback's.)
        _ if matches!(op.entry(), Some((Kind::Event, _)))
            && !matches!(op.sees, Sees::Raise(_))
            && m.rc == T(TErr::InvalidIndex) =>
        {
            "R-EVT-IDX"
        }
        // R-PH-1: a handle not associated with the session is INVALID_HANDLE, whatever
        // the routine (F-7 answers a start, stop or reset instead).
        _ if op
            .args
            .iter()
            .any(|(_, a)| matches!(a, A::Handle(HandleKind::Pvar, _)))
            && m.rc == T(TErr::InvalidHandle) =>
        {
            "R-PH-1"
        }
        _ => rule_of(op),
    };
    Some(cx.div(
        rule,
        cx.level,
        format!(
            "{} returned {} where {} was expected",
            op.function(),
            t.rc,
            m.rc
        ),
        m,
        t,
    ))
}
