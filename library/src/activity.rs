//! Activity the harness can cause: MPI work after `MPI_Init`, through the library's own
//! entry points and the profile's handle values, so that performance variables have
//! something to count while the value cases read them (the `activity` step of
//! specs/cases). What it does, in order:
//!
//! * `unexpected` messages of one `int` sent to self before their receives are posted
//!   (they wait in the unexpected-message queue), then received;
//! * `hold` more such messages, on `MPI_COMM_WORLD` (where tools bind their variables),
//!   left unreceived when the step returns, so that the
//!   variables measuring queues have something in them when the case reads; a later
//!   activity with `drain: 1` receives them;
//! * `messages` exchanges to self whose receive is posted first (`MPI_Irecv`,
//!   `MPI_Isend`, `MPI_Wait`), alternating `MPI_COMM_SELF` and `MPI_COMM_WORLD`;
//! * `ring` exchanges around the ranks of `MPI_COMM_WORLD` (receive from the rank
//!   before, send to the rank after; to self in a singleton): the cross-rank run's MPI
//!   work between processes;
//! * `collectives` rounds of `MPI_Barrier` and `MPI_Bcast` on `MPI_COMM_WORLD`;
//! * `comms` pairs of `MPI_Comm_dup` and `MPI_Comm_free`;
//! * `sessions` pairs of `MPI_T_pvar_session_create` and `_free` (MPI_T activity, which
//!   is what moves the variables of a library without communication);
//! * on the reference, which has no point-to-point, its `MPIT_Reference_simulate` hook
//!   with one step per message and collective.

use super::ffi::{in_flight, RawObj};
use super::Target;
use mpit_vocab::spec::Datatype;
use std::time::Instant;

/// How much of each kind of work to do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Plan {
    pub messages: u32,
    pub ring: u32,
    pub unexpected: u32,
    pub collectives: u32,
    pub comms: u32,
    pub sessions: u32,
    pub hold: u32,
    pub drain: bool,
}

/// What the activity did: the MPI calls that returned success, the first that did not
/// (its C name and raw return code), and the wall time it took.
#[derive(Debug, Clone, PartialEq)]
pub struct Done {
    pub calls: u32,
    pub failed: Option<(&'static str, i32)>,
    pub seconds: f64,
}

/// The first tag the activity uses (far from 0, which tools' own traffic would use).
const TAG: i32 = 7100;
/// The first tag of held messages (after every tag `unexpected` can use).
const HELD_TAG: i32 = 200_000;

/// Names the call in flight, so a library that dies inside the activity is reported
/// in the call it died in (the step's own name covers the whole activity).
fn fly(call: &str) {
    in_flight::set(Some(&format!("{call} (inside the activity step)")));
}

impl Target {
    /// Runs `plan`. `None` when the library can do none of it (no point-to-point and no
    /// simulation hook): the step is then unsupported, never a silent pass.
    pub fn activity(&self, plan: &Plan) -> Option<Done> {
        let lib = &self.lib;
        let start = Instant::now();
        let mut done = Done {
            calls: 0,
            failed: None,
            seconds: 0.0,
        };
        let handle = |n: &str| self.handles.get(n).copied();
        let p2p = (
            handle("MPI_COMM_SELF"),
            handle("MPI_COMM_WORLD"),
            self.datatype_handle(Datatype::Int),
        );
        let simulate = lib.exports("MPIT_Reference_simulate");
        let mut did_any = false;
        // One call's outcome: counted, or the first failure kept. `None`: not exported.
        let note = |name: &'static str, r: Option<i32>, d: &mut Done| -> bool {
            match r {
                Some(0) => {
                    d.calls += 1;
                    true
                }
                Some(rc) => {
                    d.failed.get_or_insert((name, rc));
                    false
                }
                None => false,
            }
        };
        if let (Some(me_comm), Some(world), Some(int)) = p2p {
            if lib.exports("MPI_Send") {
                did_any = true;
                let comms: [RawObj; 2] = [me_comm, world];
                let world_rank = lib.comm_rank(world).map_or(0, |(_, r)| r.max(0));
                let rank = |c: usize| if c == 0 { 0 } else { world_rank };
                // Sends first, receives after: the messages wait in the unexpected queue.
                let mut sends = Vec::new();
                for k in 0..plan.unexpected as i32 {
                    fly("MPI_Isend");
                    match lib.isend_int(k, int, 0, TAG + k, me_comm) {
                        Some((0, p)) => {
                            done.calls += 1;
                            sends.push(p);
                        }
                        r => {
                            note("MPI_Isend", r.map(|x| x.0), &mut done);
                        }
                    }
                }
                for k in 0..sends.len() as i32 {
                    fly("MPI_Recv");
                    let r = lib.recv_int(int, 0, TAG + k, me_comm).map(|x| x.0);
                    note("MPI_Recv", r, &mut done);
                }
                for p in sends {
                    fly("MPI_Wait");
                    let r = lib.wait_send(p).map(|x| x.0);
                    note("MPI_Wait", r, &mut done);
                }
                let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
                if plan.drain {
                    for (tag, p) in held.drain(..) {
                        fly("MPI_Recv");
                        let r = lib.recv_int(int, world_rank, tag, world).map(|x| x.0);
                        note("MPI_Recv", r, &mut done);
                        fly("MPI_Wait");
                        let r = lib.wait_send(p).map(|x| x.0);
                        note("MPI_Wait", r, &mut done);
                    }
                }
                for k in 0..plan.hold as i32 {
                    let tag = HELD_TAG + held.len() as i32;
                    fly("MPI_Isend");
                    match lib.isend_int(k, int, world_rank, tag, world) {
                        Some((0, p)) => {
                            done.calls += 1;
                            held.push((tag, p));
                        }
                        r => {
                            note("MPI_Isend", r.map(|x| x.0), &mut done);
                        }
                    }
                }
                drop(held);
                for k in 0..plan.messages as usize {
                    let c = k % 2;
                    fly("MPI_Irecv/MPI_Isend/MPI_Wait");
                    let r = lib
                        .exchange_nonblocking(k as i32, int, (rank(c), rank(c)), TAG - 1, comms[c])
                        .map(|x| x.0);
                    note("MPI_Isend/MPI_Irecv/MPI_Wait", r, &mut done);
                }
                let size = lib.comm_size(world).map_or(1, |(_, n)| n.max(1));
                let ring = ((world_rank + size - 1) % size, (world_rank + 1) % size);
                for k in 0..plan.ring as i32 {
                    fly("MPI_Irecv/MPI_Isend/MPI_Wait (ring)");
                    let r = lib
                        .exchange_nonblocking(k, int, ring, TAG - 2, world)
                        .map(|x| x.0);
                    note("MPI_Isend/MPI_Irecv/MPI_Wait", r, &mut done);
                }
                for k in 0..plan.collectives as i32 {
                    fly("MPI_Barrier");
                    let r = lib.barrier(world).map(|x| x.0);
                    note("MPI_Barrier", r, &mut done);
                    fly("MPI_Bcast");
                    let r = lib.bcast_int(k, int, 0, world).map(|x| x.0);
                    note("MPI_Bcast", r, &mut done);
                }
                for _ in 0..plan.comms {
                    fly("MPI_Comm_dup/MPI_Comm_free");
                    let r = lib.comm_dup_free(world).map(|x| x.0);
                    note("MPI_Comm_dup/MPI_Comm_free", r, &mut done);
                }
            }
        }
        for _ in 0..plan.sessions {
            fly("MPI_T_pvar_session_create");
            let Some((rc, s)) = lib.pvar_session_create() else {
                break;
            };
            did_any = true;
            if note("MPI_T_pvar_session_create", Some(rc), &mut done) {
                fly("MPI_T_pvar_session_free");
                let r = lib.pvar_session_free(s).map(|x| x.0);
                note("MPI_T_pvar_session_free", r, &mut done);
            }
        }
        if simulate {
            did_any = true;
            let steps = (plan.messages + plan.ring + plan.unexpected + plan.collectives).max(1);
            fly("MPIT_Reference_simulate");
            let r = lib
                .reference_simulate(steps.min(i32::MAX as u32) as i32)
                .map(|x| x.0);
            note("MPIT_Reference_simulate", r, &mut done);
        }
        done.seconds = start.elapsed().as_secs_f64();
        did_any.then_some(done)
    }
}
