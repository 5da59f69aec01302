//! Which calls make sense next: [`Gen`] is the shape of the reference model's state
//! (which handles and sessions are live, how deep MPI_T is initialized, which enums
//! were returned), the way wasmtime's API generators track live objects. It turns a
//! few random numbers ([`Pick`], from proptest or from cargo-fuzz's bytes) into a call
//! the standard allows in that state — or, in robustness mode, one with an argument
//! it leaves undefined — and says at which level the standard fixes its outcome.

use super::op::{Act, Data, Kind, Mode, Op, Ref, Str};
use super::Mirror;
use crate::judge::return_codes::{
    Table, BAD_INDEX_EXPLICIT, BAD_INDEX_TABLE_ONLY, NULL_OUT_UNSTATED, UNDEFINED_ARGUMENT,
};
use crate::verdict::Level;
use mpit_reference::model::Members;
use mpit_reference::spec::{Bind, CbSafety, PvarClass, TErr, ThreadLevel};
use std::sync::Arc;

/// Random numbers one call is made from. Small values make simple calls, so shrinking
/// the numbers towards zero simplifies the call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, arbitrary::Arbitrary)]
pub struct Pick {
    pub what: u8,
    pub a: u16,
    pub b: u16,
    pub c: u8,
}

/// One object a sequence made, as the generator predicts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Life {
    pub index: i32,
    /// For pvar handles: the session (its creation number).
    pub session: u16,
    pub live: bool,
    /// Read through at least once (a `Data::Readback` write needs a value to write back).
    pub read: bool,
    /// For registrations: the safety levels with a callback (bit `CbSafety as u8`).
    pub cbs: u8,
    /// For pvar handles: started (by itself or through ALL_HANDLES) and not stopped.
    pub started: bool,
}

impl Life {
    fn new(index: i32, session: u16) -> Life {
        Life {
            index,
            session,
            live: true,
            read: false,
            cbs: 0,
            started: false,
        }
    }
}

/// Entries a handle can be allocated for without an MPI object (bind NO_OBJECT:
/// `obj_handle` is ignored, R-BIND-3), by kind.
#[derive(Debug, Default)]
pub struct Unbound {
    pub cvars: Vec<i32>,
    pub pvars: Vec<i32>,
    pub events: Vec<i32>,
}

/// The generator's state.
#[derive(Clone)]
pub struct Gen {
    pub mirror: Arc<Mirror>,
    unbound: Arc<Unbound>,
    pub mode: Mode,
    /// `MPI_T_init_thread` calls of the sequence not yet finalized (outside lifecycle
    /// mode the worker's own init is underneath: the sequence never finalizes it).
    pub depth: u32,
    pub cvar_handles: Vec<Life>,
    pub sessions: Vec<Life>,
    pub pvar_handles: Vec<Life>,
    pub registrations: Vec<Life>,
    /// Enum names in the order get_info first returned them (`Op::EnumGetInfo` numbers).
    pub enums: Vec<String>,
    /// `MPI_Init` was called (the entries that appear at it are numbered).
    pub mpi: bool,
    /// Event instances delivered so far (`Op::EventReadAfter` numbers).
    pub instances: u16,
    /// MPI_T was fully finalized and initialized again (lifecycle): nothing requires
    /// the catalog to be the same as before (R-FIN-3, quality only).
    pub reinit: bool,
    finalized: bool,
}

impl std::fmt::Debug for Gen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Gen {{ depth: {}, cvar handles: {}, sessions: {}, pvar handles: {}, registrations: {}, enums: {} }}",
            self.depth,
            self.cvar_handles.len(),
            self.sessions.len(),
            self.pvar_handles.len(),
            self.registrations.len(),
            self.enums.len()
        )
    }
}

const BOGUS_NAME: &str = "mpit_conform_no_such_name";

fn live_ones(v: &[Life]) -> Vec<u16> {
    (0..v.len() as u16)
        .filter(|n| v[*n as usize].live)
        .collect()
}

impl Gen {
    pub fn new(mirror: Arc<Mirror>, mode: Mode) -> Gen {
        let c = &mirror.catalog;
        // Handles are allocated for entries without an object to bind (and not
        // avoided with `--avoid`).
        let unbound = |k: Kind, binds: Vec<Bind>| {
            binds
                .into_iter()
                .enumerate()
                .filter(|(_, b)| *b == Bind::NoObject)
                .map(|(i, _)| i as i32)
                .filter(|i| !mirror.no_handles.contains(&(k, *i)))
                .collect()
        };
        let unbound = Arc::new(Unbound {
            cvars: unbound(Kind::Cvar, c.cvars.iter().map(|v| v.bind).collect()),
            pvars: unbound(Kind::Pvar, c.pvars.iter().map(|v| v.bind).collect()),
            events: unbound(Kind::Event, c.events.iter().map(|v| v.bind).collect()),
        });
        Gen {
            mirror,
            unbound,
            mode,
            depth: 0,
            cvar_handles: Vec::new(),
            sessions: Vec::new(),
            pvar_handles: Vec::new(),
            registrations: Vec::new(),
            enums: Vec::new(),
            mpi: false,
            instances: 0,
            reinit: false,
            finalized: false,
        }
    }

    /// Entries of a kind numbered at this point: the mirror's, and after `MPI_Init`
    /// those a declared catalog adds then.
    pub fn count(&self, k: Kind) -> i32 {
        let m = &self.mirror;
        m.count(k) + if self.mpi { m.late(k) } else { 0 }
    }

    /// Whether MPI_T is initialized at this point of the sequence.
    pub fn initialized(&self) -> bool {
        !self.mode.lifecycle || self.depth > 0
    }

    fn supports(&self, f: &str) -> bool {
        self.mirror.supports(f)
    }

    /// A string argument for a string of `strlen` bytes: every size the convention
    /// distinguishes (R-STR-1..4).
    fn str_arg(strlen: usize, k: u16) -> Str {
        let len = strlen as u32 + 1;
        match k % 10 {
            0 | 1 => Str::sized(len),
            2 => Str::sized(len.saturating_sub(1)),
            3 => Str::sized(len + 1),
            4 => Str::sized(1),
            5 => Str::sized(0),
            // As the case language's `null_buf` / `null_len` pass them (so an emitted
            // case replays the same call): the length is strlen+1.
            6 => Str {
                cap: None,
                len: Some(len as i32),
            },
            7 => Str {
                cap: Some(len),
                len: None,
            },
            8 => Str::sized(2),
            _ => Str::sized(64),
        }
    }

    /// An index of a kind: valid, or (robustness, when `c` says so) past the end or
    /// negative.
    fn index(&self, n: i32, a: u16, c: u8) -> i32 {
        if self.mode.robustness && c % 6 == 5 {
            return if a % 2 == 0 {
                n + i32::from(a % 3)
            } else {
                -1 - i32::from(a % 2)
            };
        }
        if n == 0 {
            0
        } else {
            i32::from(a) % n
        }
    }

    /// A handle argument: a live object, or (robustness) a freed, NULL or foreign one.
    fn handle_ref(&self, live: &[u16], all: usize, a: u16, c: u8) -> Ref {
        if self.mode.robustness && c % 5 == 4 {
            let dead: Vec<u16> = (0..all as u16).filter(|n| !live.contains(n)).collect();
            // Stale handles first: the one misuse a tool makes by accident.
            return match a % 4 {
                0 | 1 if !dead.is_empty() => Ref::Made(dead[a as usize % dead.len()]),
                2 => Ref::Foreign(0),
                _ => Ref::Null,
            };
        }
        match live.len() {
            0 => Ref::Null,
            n => Ref::Made(live[a as usize % n]),
        }
    }

    fn strings_of(&self, k: Kind, i: i32) -> (usize, usize) {
        let c = &self.mirror.catalog;
        let u = usize::try_from(i).unwrap_or(usize::MAX);
        let d = |d: &Option<String>| d.as_deref().map_or(0, str::len);
        match k {
            Kind::Cvar => c.cvars.get(u).map(|v| (v.name.len(), d(&v.desc))),
            Kind::Pvar => c.pvars.get(u).map(|v| (v.name.len(), d(&v.desc))),
            Kind::Category => c.categories.get(u).map(|v| (v.name.len(), d(&v.desc))),
            Kind::Event => c.events.get(u).map(|v| (v.name.len(), d(&v.desc))),
            Kind::Source => c.sources.get(u).map(|v| (v.name.len(), d(&v.desc))),
        }
        .unwrap_or((8, 8))
    }

    /// The datatype of the variable a read (`cvar_read`, `pvar_read[reset]`) of a
    /// handle the sequence made reads.
    pub fn read_datatype(&self, op: &Op) -> Option<mpit_reference::spec::Datatype> {
        let c = &self.mirror.catalog;
        let slot = |t: &[Life], n: u16| t.get(usize::from(n)).map(|l| l.index as usize);
        match op {
            Op::CvarRead {
                handle: Ref::Made(n),
            } => Some(c.cvars.get(slot(&self.cvar_handles, *n)?)?.datatype),
            Op::PvarRead {
                handle: Ref::Made(n),
                ..
            } => Some(c.pvars.get(slot(&self.pvar_handles, *n)?)?.datatype),
            _ => None,
        }
    }

    /// The pvar handles (creation numbers) a start, stop or reset of `handle` in
    /// `session` acts on: that one, or with ALL_HANDLES every live one of the session.
    pub fn pvar_targets(&self, handle: Ref, session: Ref) -> Vec<usize> {
        match (handle, session) {
            (Ref::Made(n), _) => vec![usize::from(n)],
            (Ref::All, Ref::Made(s)) => (0..self.pvar_handles.len())
                .filter(|h| self.pvar_handles[*h].session == s && self.pvar_handles[*h].live)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Whether a live handle measures a writable COUNTER, AGGREGATE or TIMER and none a
    /// watermark: then the generator probes session isolation.
    fn isolation_probe(&self) -> bool {
        let class = |l: &Life| {
            self.mirror
                .catalog
                .pvars
                .get(usize::try_from(l.index).ok()?)
                .map(|p| (p.class, p.readonly))
        };
        let live: Vec<_> = self
            .pvar_handles
            .iter()
            .filter(|l| l.live)
            .filter_map(class)
            .collect();
        live.iter().any(|(c, ro)| c.starts_at_zero() && !ro)
            && !live
                .iter()
                .any(|(c, _)| matches!(c, PvarClass::HighWatermark | PvarClass::LowWatermark))
    }

    /// The call a pick makes in this state.
    pub fn pick(&self, p: Pick) -> Op {
        let m = &self.mirror;
        let Pick { what, a, b, c } = p;
        let kind = Kind::ALL[a as usize % 5];
        let live_c = live_ones(&self.cvar_handles);
        let live_s = live_ones(&self.sessions);
        let live_p = live_ones(&self.pvar_handles);
        let live_r = live_ones(&self.registrations);
        let mut choices: Vec<u8> = vec![0, 1, 2, 3, 3, 3, 4, 5, 6, 7, 8];
        let add = |v: &mut Vec<u8>, cond: bool, ids: &[u8]| {
            if cond {
                v.extend_from_slice(ids)
            }
        };
        add(&mut choices, !self.enums.is_empty(), &[9, 10]);
        add(&mut choices, !self.unbound.cvars.is_empty(), &[11]);
        // In robustness mode a freed object is still named (a stale handle, R-GEN-3).
        let r = self.mode.robustness;
        add(
            &mut choices,
            !live_c.is_empty() || (r && !self.cvar_handles.is_empty()),
            &[12, 13, 13, 14],
        );
        add(&mut choices, true, &[15]);
        add(&mut choices, !live_s.is_empty(), &[16, 17, 17, 17, 21]);
        // Handles are where the pvar semantics are: start/stop/reset, reads, ALL_HANDLES.
        add(
            &mut choices,
            !live_p.is_empty(),
            &[18, 19, 19, 19, 19, 20, 20, 20, 21, 21, 22],
        );
        add(&mut choices, !live_p.is_empty() && m.hooks, &[26, 26]);
        // Sessions isolate (R-SESS-1): with a counter measured (and no watermark, whose
        // sequences these would dilute), a second session and handle, resets in one,
        // activity and reads of the other.
        let probe = self.isolation_probe();
        add(&mut choices, probe && live_s.len() == 1, &[15, 15]);
        add(&mut choices, probe && live_p.len() == 1, &[17, 17, 17]);
        add(
            &mut choices,
            probe && live_p.len() >= 2,
            &[19, 19, 19, 20, 20, 20, 26, 26],
        );
        // Started handles: activity, then reads (where the classes' rules show).
        let started = self.pvar_handles.iter().any(|l| l.live && l.started);
        add(&mut choices, started && m.hooks, &[26, 26, 20, 20, 20]);
        add(&mut choices, self.count(Kind::Source) > 0, &[23]);
        add(&mut choices, !self.unbound.events.is_empty(), &[24, 24]);
        add(&mut choices, !live_r.is_empty(), &[25]);
        add(&mut choices, m.hooks, &[26]);
        // Around MPI_Init (lifecycle mode, the catalog declared): category_changed before
        // and after, where R-CAT says a grown category must come with a new number.
        add(
            &mut choices,
            self.mode.lifecycle && m.declared && self.depth > 0,
            &[8, 8],
        );
        let init = self.mode.lifecycle || self.depth > 0;
        add(&mut choices, init, &[27]);
        // After a full finalize and a new init the catalog may have changed (R-FIN-3),
        // the string convention may not: read strings again, at every buffer size.
        add(&mut choices, self.reinit && self.depth > 0, &[2, 2, 3, 3]);
        add(
            &mut choices,
            self.mode.lifecycle && m.declared && !self.mpi,
            &[28],
        );
        add(&mut choices, self.count(Kind::Event) > 0 || r, &[29]);
        add(&mut choices, !live_r.is_empty(), &[30, 30, 30, 30, 31, 31]);
        add(
            &mut choices,
            m.hooks && !self.registrations.is_empty(),
            &[32, 32, 32, 32],
        );
        add(&mut choices, r && self.instances > 0, &[33]);
        let choice = choices[what as usize % choices.len()];
        match choice {
            0 => Op::InitThread {
                required: ThreadLevel::ALL[b as usize % 4],
            },
            1 => Op::GetNum(kind),
            2 | 3 => {
                let index = self.index(self.count(kind), b, c);
                let (n, d) = self.strings_of(kind, index);
                // Now and then the name alone, every other OUT argument NULL (R-CVAR-3;
                // §15.3.8 for events; by analogy for sources).
                let name_only = c % 16 == 15;
                Op::GetInfo {
                    kind,
                    index,
                    name: Self::str_arg(n, b >> 4),
                    desc: if name_only {
                        Str::NONE
                    } else {
                        Self::str_arg(d, u16::from(c))
                    },
                }
            }
            4 => {
                let kind = [Kind::Cvar, Kind::Category, Kind::Event][a as usize % 3];
                let n = self.count(kind);
                let name = if n == 0 || b % 7 == 6 {
                    BOGUS_NAME.to_string()
                } else {
                    m.name(kind, b as usize % n as usize)
                        .unwrap_or(BOGUS_NAME)
                        .to_string()
                };
                Op::GetIndex { kind, name }
            }
            5 => {
                let pv = &m.catalog.pvars;
                if pv.is_empty() || b % 7 == 6 {
                    Op::PvarGetIndex {
                        name: BOGUS_NAME.into(),
                        class: PvarClass::Counter,
                    }
                } else {
                    let v = &pv[b as usize % pv.len()];
                    // Sometimes the right name with another class (R-PVAR-4: name and
                    // class identify a pvar together).
                    let class = if c % 4 == 3 {
                        PvarClass::ALL[usize::from(c) % PvarClass::ALL.len()]
                    } else {
                        v.class
                    };
                    Op::PvarGetIndex {
                        name: v.name.clone(),
                        class,
                    }
                }
            }
            6 => Op::CategoryMembers {
                index: self.index(self.count(Kind::Category), b, c),
                which: [
                    Members::Cvars,
                    Members::Pvars,
                    Members::Categories,
                    Members::Events,
                ][a as usize % 4],
                len: [0, 1, 2, 3, 8, 64][usize::from(c) % 6],
            },
            7 => Op::CategoryGetNumEvents {
                index: self.index(self.count(Kind::Category), b, c),
            },
            8 => Op::CategoryChanged,
            9 | 10 => {
                let e = b as usize % self.enums.len();
                let en = m.catalog.enums.iter().find(|x| x.name == self.enums[e]);
                let name = if choice == 9 {
                    Self::str_arg(en.map_or(8, |x| x.name.len()), a)
                } else {
                    Self::str_arg(8, a)
                };
                let items = en.map_or(0, |x| x.items.len() as i32);
                let item = self.index(items, a >> 3, c);
                let name = match (choice, en.and_then(|x| x.items.get(item.max(0) as usize))) {
                    // Now and then every OUT argument NULL (the string pair and `num` or
                    // `value`): a NULL there must not crash (R-CVAR-3 by analogy).
                    _ if c % 16 == 15 => Str::NONE,
                    (10, Some(it)) => Self::str_arg(it.name.len(), a),
                    _ => name,
                };
                if choice == 9 {
                    Op::EnumGetInfo {
                        enumtype: e as u16,
                        name,
                    }
                } else {
                    Op::EnumGetItem {
                        enumtype: e as u16,
                        item,
                        name,
                    }
                }
            }
            11 => Op::CvarHandleAlloc {
                index: self.unbound_index(&self.unbound.cvars, self.count(Kind::Cvar), b, c),
            },
            12 => Op::CvarHandleFree {
                handle: self.handle_ref(&live_c, self.cvar_handles.len(), b, c),
            },
            13 => Op::CvarRead {
                handle: self.handle_ref(&live_c, self.cvar_handles.len(), b, c),
            },
            14 => {
                let handle = self.handle_ref(&live_c, self.cvar_handles.len(), b, c);
                if self.writable(&self.cvar_handles, handle, a) {
                    Op::CvarWrite {
                        handle,
                        data: self.data(a),
                    }
                } else {
                    Op::CvarRead { handle }
                }
            }
            15 => Op::SessionCreate,
            16 => Op::SessionFree {
                session: self.handle_ref(&live_s, self.sessions.len(), b, c),
            },
            17 => Op::PvarHandleAlloc {
                session: self.handle_ref(&live_s, self.sessions.len(), b, c),
                index: self.unbound_index(&self.unbound.pvars, self.count(Kind::Pvar), a, c),
            },
            18..=20 | 22 => {
                let h = self.handle_ref(&live_p, self.pvar_handles.len(), b, c);
                // The handle's own session; sometimes another live one (R-PH-1: a
                // handle used with a session it was not made in is INVALID_HANDLE).
                let own = match h {
                    Ref::Made(n) => Ref::Made(self.pvar_handles[n as usize].session),
                    _ => Ref::Made(live_s.first().copied().unwrap_or(0)),
                };
                let session = if a % 11 == 10 && live_s.len() > 1 {
                    Ref::Made(live_s[a as usize % live_s.len()])
                } else {
                    own
                };
                match choice {
                    18 => Op::PvarHandleFree { session, handle: h },
                    // A handle not started yet is mostly started: the classes'
                    // semantics (watermarks, counters) show only on started handles.
                    19 => {
                        let stopped =
                            matches!(h, Ref::Made(n) if !self.pvar_handles[n as usize].started);
                        let act = if probe && live_p.len() >= 2 && a % 3 == 1 {
                            Act::Reset
                        } else if stopped && a % 4 != 3 {
                            Act::Start
                        } else {
                            [Act::Start, Act::Stop, Act::Reset][a as usize % 3]
                        };
                        Op::Pvar {
                            act,
                            session,
                            handle: h,
                        }
                    }
                    20 => Op::PvarRead {
                        session,
                        handle: if self.mode.robustness && c % 7 == 6 {
                            Ref::All
                        } else {
                            h
                        },
                        reset: a % 4 == 3,
                    },
                    _ if self.writable(&self.pvar_handles, h, a) => Op::PvarWrite {
                        session,
                        handle: h,
                        data: self.data(a),
                    },
                    _ => Op::PvarRead {
                        session,
                        handle: h,
                        reset: false,
                    },
                }
            }
            21 => Op::Pvar {
                act: [Act::Start, Act::Stop, Act::Reset][a as usize % 3],
                session: self.handle_ref(&live_s, self.sessions.len(), b, c),
                handle: Ref::All,
            },
            23 => Op::SourceGetTimestamp {
                index: self.index(self.count(Kind::Source), b, c),
            },
            24 => Op::EventHandleAlloc {
                index: self.unbound_index(&self.unbound.events, self.count(Kind::Event), b, c),
            },
            25 => Op::EventHandleFree {
                registration: self.handle_ref(&live_r, self.registrations.len(), b, c),
            },
            // Enough steps for a level to rise and fall (watermarks, R-PCLASS).
            26 => Op::Simulate {
                steps: (a % 16) as u8 + 1,
            },
            28 => Op::MpiInit,
            29 => Op::EventInfoObject {
                index: self.index(self.count(Kind::Event), b, c),
            },
            30 => Op::EventRegisterCallback {
                registration: self.handle_ref(&live_r, self.registrations.len(), b, c),
                safety: CbSafety::ALL[a as usize % 4],
                set: c % 5 != 3,
            },
            31 => Op::EventSetDroppedHandler {
                registration: self.handle_ref(&live_r, self.registrations.len(), b, c),
                set: a % 4 != 3,
            },
            // An event some registration of the sequence is for (else nothing runs).
            32 => Op::RaiseEvent {
                index: self.registrations[b as usize % self.registrations.len()].index,
                required: CbSafety::ALL[a as usize % 4],
            },
            33 => Op::EventReadAfter {
                instance: b % self.instances.max(1),
            },
            _ => Op::Finalize,
        }
    }

    fn unbound_index(&self, list: &[i32], n: i32, b: u16, c: u8) -> i32 {
        if self.mode.robustness && c % 6 == 5 {
            return self.index(n, b, c);
        }
        // Entries that appear at MPI_Init are numbered only after it.
        let visible = list.iter().take_while(|i| **i < n).count();
        match visible {
            0 => 0,
            k => list[b as usize % k],
        }
    }

    /// Whether a write through `h` may be generated: a write-back needs an earlier read
    /// of the same handle (else it would write zeros into a vendor's configuration).
    fn writable(&self, table: &[Life], h: Ref, a: u16) -> bool {
        match (self.data(a), h) {
            (Data::Int(_), _) => true,
            (Data::Readback, Ref::Made(n)) => table.get(n as usize).is_some_and(|l| l.read),
            (Data::Readback, _) => false,
        }
    }

    fn writable_data(&self, table: &[Life], h: Ref, d: Data) -> bool {
        d != Data::Readback
            || matches!(h, Ref::Made(n) if table.get(n as usize).is_some_and(|l| l.read))
    }

    fn data(&self, a: u16) -> Data {
        // Only the reference is written arbitrary numbers: a vendor's configuration is
        // written back what was read from it.
        if self.mirror.exact_values && a % 3 == 2 {
            Data::Int(i32::from(a % 100))
        } else {
            Data::Readback
        }
    }

    fn in_range(&self, k: Kind, i: i32) -> bool {
        i >= 0 && i < self.count(k)
    }

    fn valid_ref(&self, table: &[Life], r: Ref) -> bool {
        match r {
            Ref::Made(n) => {
                (n as usize) < table.len() && (self.mode.robustness || table[n as usize].live)
            }
            Ref::Null | Ref::Foreign(_) => self.mode.robustness,
            Ref::All => false,
        }
    }

    /// Whether this op may come next (proptest-state-machine's precondition, also
    /// checked while shrinking): it names only objects the sequence made, and only
    /// valid arguments unless robustness is asked for.
    pub fn valid(&self, op: &Op) -> bool {
        // (The function's name is made only when there is a list to look it up in.)
        let listed = !self.mirror.unsupported.is_empty();
        if listed && !op.needs_hooks() && !self.supports(&op.function()) {
            return false;
        }
        let r = self.mode.robustness;
        match op {
            Op::Simulate { .. } => self.mirror.hooks,
            Op::RaiseEvent { index, .. } => self.mirror.hooks && self.in_range(Kind::Event, *index),
            Op::MpiInit => self.mode.lifecycle && self.mirror.declared && !self.mpi,
            Op::EventInfoObject { index } => r || self.in_range(Kind::Event, *index),
            Op::EventRegisterCallback { registration, .. }
            | Op::EventSetDroppedHandler { registration, .. } => {
                self.valid_ref(&self.registrations, *registration)
            }
            Op::EventReadAfter { instance } => r && *instance < self.instances,
            Op::Finalize => self.mode.lifecycle || self.depth > 0,
            Op::InitThread { .. } => self.depth < 8,
            Op::GetInfo { kind, index, .. } => r || self.in_range(*kind, *index),
            Op::CategoryMembers { index, .. } | Op::CategoryGetNumEvents { index } => {
                r || self.in_range(Kind::Category, *index)
            }
            Op::SourceGetTimestamp { index } => r || self.in_range(Kind::Source, *index),
            Op::EnumGetInfo { enumtype, .. } => (*enumtype as usize) < self.enums.len(),
            Op::EnumGetItem { enumtype, item, .. } => {
                let Some(e) = self.enums.get(*enumtype as usize) else {
                    return false;
                };
                let n = self
                    .mirror
                    .catalog
                    .enums
                    .iter()
                    .find(|x| &x.name == e)
                    .map_or(0, |x| x.items.len() as i32);
                r || (*item >= 0 && *item < n)
            }
            Op::CvarHandleAlloc { index } => {
                (self.unbound.cvars.contains(index) && self.in_range(Kind::Cvar, *index))
                    || (r && !self.in_range(Kind::Cvar, *index))
            }
            Op::EventHandleAlloc { index } => {
                (self.unbound.events.contains(index) && self.in_range(Kind::Event, *index))
                    || (r && !self.in_range(Kind::Event, *index))
            }
            Op::CvarWrite { handle, data } => {
                self.valid_ref(&self.cvar_handles, *handle)
                    && self.writable_data(&self.cvar_handles, *handle, *data)
            }
            Op::PvarWrite { handle, data, .. }
                if !self.writable_data(&self.pvar_handles, *handle, *data) =>
            {
                false
            }
            Op::CvarHandleFree { handle } | Op::CvarRead { handle } => {
                self.valid_ref(&self.cvar_handles, *handle)
            }
            Op::SessionFree { session } => self.valid_ref(&self.sessions, *session),
            Op::PvarHandleAlloc { session, index } => {
                self.valid_ref(&self.sessions, *session)
                    && ((self.unbound.pvars.contains(index) && self.in_range(Kind::Pvar, *index))
                        || (r && !self.in_range(Kind::Pvar, *index)))
            }
            Op::Pvar {
                session, handle, ..
            } if *handle == Ref::All => self.valid_ref(&self.sessions, *session),
            Op::PvarRead {
                session, handle, ..
            } if *handle == Ref::All => r && self.valid_ref(&self.sessions, *session),
            Op::PvarHandleFree { session, handle }
            | Op::Pvar {
                session, handle, ..
            }
            | Op::PvarRead {
                session, handle, ..
            }
            | Op::PvarWrite {
                session, handle, ..
            } => {
                self.valid_ref(&self.sessions, *session)
                    && self.valid_ref(&self.pvar_handles, *handle)
            }
            Op::EventHandleFree { registration } => {
                self.valid_ref(&self.registrations, *registration)
            }
            Op::GetNum(_)
            | Op::GetIndex { .. }
            | Op::PvarGetIndex { .. }
            | Op::CategoryChanged
            | Op::SessionCreate => true,
        }
    }

    fn live(table: &[Life], r: Ref) -> bool {
        matches!(r, Ref::Made(n) if table.get(n as usize).is_some_and(|l| l.live))
    }

    /// A live pvar handle used with a live session it was not allocated in (R-PH-1).
    pub fn foreign_session(&self, op: &Op) -> bool {
        let (Op::Pvar {
            session: Ref::Made(s),
            handle: Ref::Made(h),
            ..
        }
        | Op::PvarRead {
            session: Ref::Made(s),
            handle: Ref::Made(h),
            ..
        }
        | Op::PvarWrite {
            session: Ref::Made(s),
            handle: Ref::Made(h),
            ..
        }
        | Op::PvarHandleFree {
            session: Ref::Made(s),
            handle: Ref::Made(h),
        }) = op
        else {
            return false;
        };
        Self::live(&self.sessions, Ref::Made(*s))
            && self
                .pvar_handles
                .get(usize::from(*h))
                .is_some_and(|l| l.live && l.session != *s)
    }

    /// The error a pvar call gets from its variable alone, whatever the session:
    /// start/stop of a continuous one (R-PSTART-1), write or reset of a read-only one
    /// (R-PWRITE-1, R-PRESET-1), readreset of a non-atomic one (R-PRR-1).
    pub fn refusal(&self, op: &Op) -> Option<TErr> {
        let (act, h) = match op {
            Op::Pvar {
                act,
                handle: Ref::Made(h),
                ..
            } => (Some(*act), *h),
            Op::PvarWrite {
                handle: Ref::Made(h),
                ..
            } => (Some(Act::Reset), *h),
            Op::PvarRead {
                reset: true,
                handle: Ref::Made(h),
                ..
            } => (None, *h),
            _ => return None,
        };
        let l = self.pvar_handles.get(usize::from(h))?;
        let p = self
            .mirror
            .catalog
            .pvars
            .get(usize::try_from(l.index).ok()?)?;
        match act {
            Some(Act::Start | Act::Stop) if p.continuous => Some(TErr::PvarNoStartstop),
            Some(Act::Reset) if p.readonly => Some(TErr::PvarNoWrite),
            None if !p.atomic => Some(TErr::PvarNoAtomic),
            _ => None,
        }
    }

    /// Whether `op` starts a started (or stops a stopped) handle of a non-continuous
    /// variable with its own session. §15.3.7 says what MPI_T_PVAR_ALL_HANDLES does
    /// with such a handle ("ignored"); for the handle itself it says nothing, so any
    /// answer conforms (specs/readings.yaml `restart_of_a_started_handle`).
    pub fn repeat_start_stop(&self, op: &Op) -> bool {
        let Op::Pvar {
            act: act @ (Act::Start | Act::Stop),
            session,
            handle: Ref::Made(n),
        } = op
        else {
            return false;
        };
        Self::live(&self.sessions, *session)
            && self.pvar_handles.get(usize::from(*n)).is_some_and(|l| {
                l.live
                    && *session == Ref::Made(l.session)
                    && l.started == (*act == Act::Start)
                    && !self.continuous(l.index)
            })
    }

    /// Whether the mirror's pvar `index` is continuous (its handles count from their
    /// allocation: R-PSTART-1).
    pub fn continuous(&self, index: i32) -> bool {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.mirror.catalog.pvars.get(i))
            .is_some_and(|p| p.continuous)
    }

    /// Whether `op` is a readreset of a handle on a read-only variable that cannot be
    /// read and reset atomically (two refusals at once).
    pub fn readonly_non_atomic(&self, op: &Op) -> bool {
        let Op::PvarRead {
            reset: true,
            handle: Ref::Made(h),
            ..
        } = op
        else {
            return false;
        };
        self.pvar_handles
            .get(usize::from(*h))
            .and_then(|l| {
                self.mirror
                    .catalog
                    .pvars
                    .get(usize::try_from(l.index).ok()?)
            })
            .is_some_and(|p| p.readonly && !p.atomic)
    }

    /// The level at which the standard fixes this op's outcome here (the
    /// conditions' levels are specs/return-codes.yaml `levels:`, which the spec suite's
    /// cases follow too).
    pub fn level(&self, op: &Op) -> Level {
        if !self.initialized() {
            // R-INIT-1: NOT_INITIALIZED from every routine but init, before init.
            return match op {
                Op::Finalize => Level::Should,
                _ => Level::Must,
            };
        }
        let bad_ref = |t: &[Life], r: Ref| !Self::live(t, r);
        let table_only = Table::shared_level(BAD_INDEX_TABLE_ONLY);
        let explicit = Table::shared_level(BAD_INDEX_EXPLICIT);
        let undefined = Table::shared_level(UNDEFINED_ARGUMENT);
        match op {
            // Every OUT argument NULL where no sentence says NULL is ignored
            // (specs/return-codes.yaml `null_out_unstated`).
            Op::EnumGetInfo { name, .. } | Op::EnumGetItem { name, .. } if *name == Str::NONE => {
                Table::shared_level(NULL_OUT_UNSTATED)
            }
            Op::GetInfo {
                kind: Kind::Source,
                desc,
                ..
            } if *desc == Str::NONE => Table::shared_level(NULL_OUT_UNSTATED),
            // specs/return-codes.yaml `levels:`: a bad index is table-only (SHOULD) for
            // cvar, pvar, category and enum; explicit (MUST) for events and source
            // timestamps.
            Op::GetInfo { kind, index, .. } if !self.in_range(*kind, *index) => match kind {
                Kind::Event => explicit,
                _ => table_only,
            },
            Op::CategoryMembers { index, .. } | Op::CategoryGetNumEvents { index }
                if !self.in_range(Kind::Category, *index) =>
            {
                table_only
            }
            Op::SourceGetTimestamp { index } if !self.in_range(Kind::Source, *index) => explicit,
            Op::EnumGetItem { .. } if !self.valid(op) || self.mode.robustness => match op {
                Op::EnumGetItem { item, enumtype, .. } => {
                    let n = self
                        .enums
                        .get(*enumtype as usize)
                        .and_then(|e| self.mirror.catalog.enums.iter().find(|x| &x.name == e))
                        .map_or(0, |x| x.items.len() as i32);
                    if *item < 0 || *item >= n {
                        table_only
                    } else {
                        Level::Must
                    }
                }
                _ => Level::Must,
            },
            Op::CvarHandleAlloc { index } if !self.in_range(Kind::Cvar, *index) => table_only,
            Op::PvarHandleAlloc { index, session } => {
                if bad_ref(&self.sessions, *session) {
                    undefined
                } else if !self.in_range(Kind::Pvar, *index) {
                    table_only
                } else {
                    Level::Must
                }
            }
            // Its text names no code for a bad index (unlike event_get_info's).
            Op::EventHandleAlloc { index } if !self.in_range(Kind::Event, *index) => table_only,
            Op::CvarHandleFree { handle }
            | Op::CvarRead { handle }
            | Op::CvarWrite { handle, .. }
                if bad_ref(&self.cvar_handles, *handle) =>
            {
                undefined
            }
            Op::SessionFree { session } if bad_ref(&self.sessions, *session) => undefined,
            Op::Pvar {
                session, handle, ..
            } if *handle == Ref::All => {
                if bad_ref(&self.sessions, *session) {
                    undefined
                } else {
                    Level::Must
                }
            }
            // "cannot be used" with read/write/readreset, no code given: undefined.
            Op::PvarRead {
                handle: Ref::All, ..
            }
            | Op::PvarWrite {
                handle: Ref::All, ..
            } => undefined,
            Op::PvarHandleFree { session, handle }
            | Op::Pvar {
                session, handle, ..
            }
            | Op::PvarRead {
                session, handle, ..
            }
            | Op::PvarWrite {
                session, handle, ..
            } => {
                if bad_ref(&self.sessions, *session) || bad_ref(&self.pvar_handles, *handle) {
                    undefined
                } else {
                    // A live handle with another live session: explicit INVALID_HANDLE.
                    Level::Must
                }
            }
            Op::EventRegisterCallback { registration, .. }
            | Op::EventSetDroppedHandler { registration, .. }
                if bad_ref(&self.registrations, *registration) =>
            {
                undefined
            }
            // R-EVT-INST: an instance is valid only during its callback.
            Op::EventReadAfter { .. } => undefined,
            // R-EVT-FREE: INVALID_HANDLE for a freed or NULL registration is explicit;
            // a foreign value is undefined.
            Op::EventHandleFree {
                registration: Ref::Foreign(_),
            } => undefined,
            _ => Level::Must,
        }
    }

    /// The state after `op`, as the standard predicts it for a conformant library.
    pub fn apply(&mut self, op: &Op) {
        let init = self.initialized();
        match op {
            Op::InitThread { .. } => {
                self.reinit |= self.depth == 0 && self.finalized;
                self.depth += 1
            }
            Op::Finalize if self.depth > 0 => {
                self.depth -= 1;
                if self.mode.lifecycle && self.depth == 0 {
                    self.finalized = true;
                    // R-FIN-3: nothing survives the last finalize.
                    for l in self
                        .cvar_handles
                        .iter_mut()
                        .chain(&mut self.sessions)
                        .chain(&mut self.pvar_handles)
                        .chain(&mut self.registrations)
                    {
                        l.live = false;
                    }
                }
            }
            Op::MpiInit => self.mpi = true,
            _ if !init => {}
            Op::EventRegisterCallback {
                registration: Ref::Made(n),
                safety,
                set,
            } if Self::live(&self.registrations, Ref::Made(*n)) => {
                let l = &mut self.registrations[*n as usize];
                let bit = 1u8 << (*safety as u8);
                l.cbs = if *set { l.cbs | bit } else { l.cbs & !bit };
            }
            // R-EVT-CB (MPI-4.1 §15.3.8): each live registration of the event with a
            // callback at a level valid here gets one instance; the others drop it.
            Op::RaiseEvent { index, required } => {
                let valid = !0u8 << (*required as u8);
                let n = self
                    .registrations
                    .iter()
                    .filter(|l| l.live && l.index == *index && l.cbs & valid != 0)
                    .count();
                self.instances = self.instances.saturating_add(n as u16);
            }
            Op::GetInfo { kind, index, .. } if self.in_range(*kind, *index) => {
                let c = &self.mirror.catalog;
                let u = *index as usize;
                let e = match kind {
                    Kind::Cvar => c.cvars[u].enumtype.clone(),
                    Kind::Pvar => c.pvars[u].enumtype.clone(),
                    Kind::Event => c.events[u].enumtype.clone(),
                    _ => None,
                };
                if let Some(e) = e {
                    if !self.enums.contains(&e) {
                        self.enums.push(e);
                    }
                }
            }
            Op::CvarHandleAlloc { index } if self.in_range(Kind::Cvar, *index) => {
                self.cvar_handles.push(Life::new(*index, 0))
            }
            Op::CvarRead {
                handle: Ref::Made(n),
            } => {
                if let Some(l) = self.cvar_handles.get_mut(*n as usize) {
                    l.read = true;
                }
            }
            Op::PvarRead {
                handle: Ref::Made(n),
                ..
            } => {
                if let Some(l) = self.pvar_handles.get_mut(*n as usize) {
                    l.read = true;
                }
            }
            Op::CvarHandleFree {
                handle: Ref::Made(n),
            } => {
                if let Some(l) = self.cvar_handles.get_mut(*n as usize) {
                    l.live = false;
                }
            }
            Op::Pvar {
                act,
                session: Ref::Made(s),
                handle,
            } if matches!(act, Act::Start | Act::Stop) => {
                let on = *act == Act::Start;
                for (n, l) in self.pvar_handles.iter_mut().enumerate() {
                    let named = match handle {
                        Ref::Made(h) => usize::from(*h) == n,
                        Ref::All => l.session == *s,
                        _ => false,
                    };
                    if named && l.live {
                        l.started = on;
                    }
                }
            }
            Op::SessionCreate => self.sessions.push(Life::new(-1, 0)),
            Op::SessionFree {
                session: Ref::Made(n),
            } if Self::live(&self.sessions, Ref::Made(*n)) => {
                self.sessions[*n as usize].live = false;
                for h in self.pvar_handles.iter_mut().filter(|h| h.session == *n) {
                    h.live = false;
                }
            }
            Op::PvarHandleAlloc {
                session: Ref::Made(s),
                index,
            } if self.in_range(Kind::Pvar, *index) && Self::live(&self.sessions, Ref::Made(*s)) => {
                self.pvar_handles.push(Life::new(*index, *s))
            }
            Op::PvarHandleFree {
                session: Ref::Made(s),
                handle: Ref::Made(h),
            } => {
                if let Some(l) = self.pvar_handles.get_mut(*h as usize) {
                    if l.session == *s {
                        l.live = false;
                    }
                }
            }
            Op::EventHandleAlloc { index } if self.in_range(Kind::Event, *index) => {
                self.registrations.push(Life::new(*index, 0))
            }
            Op::EventHandleFree {
                registration: Ref::Made(n),
            } => {
                if let Some(l) = self.registrations.get_mut(*n as usize) {
                    l.live = false;
                }
            }
            _ => {}
        }
    }

    /// A whole sequence from cargo-fuzz's bytes: picks until the bytes run out or `max`
    /// calls, each kept only if valid here (so the input's bytes map to calls the way
    /// proptest's would).
    pub fn ops_from(&mut self, u: &mut arbitrary::Unstructured<'_>, max: usize) -> Vec<Op> {
        let mut ops = Vec::new();
        while ops.len() < max {
            let Ok(p) = u.arbitrary::<Pick>() else {
                break;
            };
            let op = self.pick(p);
            if self.valid(&op) {
                self.apply(&op);
                ops.push(op);
            }
            if u.is_empty() {
                break;
            }
        }
        ops
    }

    /// The ops that the sequence ends with to leave the process as it found it: every
    /// live handle, session and registration freed, every init of the sequence
    /// finalized (so a worker can run the next sequence).
    pub fn cleanup(&self) -> Vec<Op> {
        let mut ops = Vec::new();
        if !self.initialized() {
            return ops;
        }
        for n in live_ones(&self.registrations) {
            ops.push(Op::EventHandleFree {
                registration: Ref::Made(n),
            });
        }
        for n in live_ones(&self.cvar_handles) {
            ops.push(Op::CvarHandleFree {
                handle: Ref::Made(n),
            });
        }
        for n in live_ones(&self.sessions) {
            ops.push(Op::SessionFree {
                session: Ref::Made(n),
            });
        }
        for _ in 0..self.depth {
            ops.push(Op::Finalize);
        }
        ops
    }
}

/// Decodes a cargo-fuzz input into a sequence (the `ops_differential` target and
/// `mpit-conform replay` read inputs the same way): the first byte chooses robustness,
/// the rest are picks. `None` when the bytes make no call. Lifecycle sequences are
/// not generated here: the fuzzer runs every input in one process.
///
/// Robustness sequences only for a library whose catalog is declared (the reference):
/// an invalid argument may crash a vendor's library (undefined behaviour, R-GEN-3), and
/// in-process that crash would end the fuzzer without being a finding.
pub fn decode(m: &Arc<Mirror>, data: &[u8]) -> Option<(Mode, Vec<Op>)> {
    let (first, rest) = data.split_first()?;
    let mode = Mode {
        robustness: first & 1 == 1 && m.declared,
        lifecycle: false,
    };
    let mut u = arbitrary::Unstructured::new(rest);
    let ops = Gen::new(m.clone(), mode).ops_from(&mut u, 64);
    (!ops.is_empty()).then_some((mode, ops))
}
