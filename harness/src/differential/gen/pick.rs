//! Which call a [`Pick`] makes in a state: a few random numbers choose among the calls
//! that make sense there (weighted towards where the semantics are: pvar handles,
//! sessions, started counters, the string sizes of the convention), then their
//! arguments. Small numbers make simple calls, so shrinking the numbers simplifies the
//! call. In robustness mode an argument may be one the standard leaves undefined
//! (MPI-4.1 §15.3.10: a stale, NULL or foreign handle, an index out of range).

use super::{live_ones, make, Gen, Life};
use crate::differential::op::{Act, Call, Data, Kind, Ref, Str};
use mpit_reference::model::Members;
use mpit_reference::spec::{CbSafety, PvarClass, ThreadLevel};

/// Random numbers one call is made from. Small values make simple calls, so shrinking
/// the numbers towards zero simplifies the call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, arbitrary::Arbitrary)]
pub struct Pick {
    pub what: u8,
    pub a: u16,
    pub b: u16,
    pub c: u8,
}

const BOGUS_NAME: &str = "mpit_conform_no_such_name";

impl Gen {
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
    pub fn pick(&self, p: Pick) -> Call {
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
            0 => make::init_thread(ThreadLevel::ALL[b as usize % 4]),
            1 => make::get_num(kind),
            2 | 3 => {
                let index = self.index(self.count(kind), b, c);
                let (n, d) = self.strings_of(kind, index);
                // Now and then the name alone, every other OUT argument NULL (R-CVAR-3;
                // §15.3.8 for events; by analogy for sources).
                let name_only = c % 16 == 15;
                let desc = match name_only {
                    true => Str::NONE,
                    false => Self::str_arg(d, u16::from(c)),
                };
                make::get_info(kind, index, Self::str_arg(n, b >> 4), desc)
            }
            4 => {
                let kind = [Kind::Cvar, Kind::Category, Kind::Event][a as usize % 3];
                let n = self.count(kind);
                let name = if n == 0 || b % 7 == 6 {
                    BOGUS_NAME
                } else {
                    m.name(kind, b as usize % n as usize).unwrap_or(BOGUS_NAME)
                };
                make::get_index(kind, name)
            }
            5 => {
                let pv = &m.catalog.pvars;
                if pv.is_empty() || b % 7 == 6 {
                    make::pvar_get_index(BOGUS_NAME, PvarClass::Counter)
                } else {
                    let v = &pv[b as usize % pv.len()];
                    // Sometimes the right name with another class (R-PVAR-4: name and
                    // class identify a pvar together).
                    let class = if c % 4 == 3 {
                        PvarClass::ALL[usize::from(c) % PvarClass::ALL.len()]
                    } else {
                        v.class
                    };
                    make::pvar_get_index(&v.name, class)
                }
            }
            6 => make::category_members(
                self.index(self.count(Kind::Category), b, c),
                [
                    Members::Cvars,
                    Members::Pvars,
                    Members::Categories,
                    Members::Events,
                ][a as usize % 4],
                [0, 1, 2, 3, 8, 64][usize::from(c) % 6],
            ),
            7 => make::category_get_num_events(self.index(self.count(Kind::Category), b, c)),
            8 => make::category_changed(),
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
                    make::enum_get_info(e as u16, name)
                } else {
                    make::enum_get_item(e as u16, item, name)
                }
            }
            11 => make::cvar_handle_alloc(self.unbound_index(
                &self.unbound.cvars,
                self.count(Kind::Cvar),
                b,
                c,
            )),
            12 => make::cvar_handle_free(self.handle_ref(&live_c, self.cvar_handles.len(), b, c)),
            13 => make::cvar_read(self.handle_ref(&live_c, self.cvar_handles.len(), b, c)),
            14 => {
                let handle = self.handle_ref(&live_c, self.cvar_handles.len(), b, c);
                if self.writable(&self.cvar_handles, handle, a) {
                    make::cvar_write(handle, self.data(a))
                } else {
                    make::cvar_read(handle)
                }
            }
            15 => make::session_create(),
            16 => make::session_free(self.handle_ref(&live_s, self.sessions.len(), b, c)),
            17 => make::pvar_handle_alloc(
                self.handle_ref(&live_s, self.sessions.len(), b, c),
                self.unbound_index(&self.unbound.pvars, self.count(Kind::Pvar), a, c),
            ),
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
                    18 => make::pvar_handle_free(session, h),
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
                        make::pvar_act(act, session, h)
                    }
                    20 => {
                        let handle = match self.mode.robustness && c % 7 == 6 {
                            true => Ref::All,
                            false => h,
                        };
                        make::pvar_read(session, handle, a % 4 == 3)
                    }
                    _ if self.writable(&self.pvar_handles, h, a) => {
                        make::pvar_write(session, h, self.data(a))
                    }
                    _ => make::pvar_read(session, h, false),
                }
            }
            21 => make::pvar_act(
                [Act::Start, Act::Stop, Act::Reset][a as usize % 3],
                self.handle_ref(&live_s, self.sessions.len(), b, c),
                Ref::All,
            ),
            23 => make::source_get_timestamp(self.index(self.count(Kind::Source), b, c)),
            24 => make::event_handle_alloc(self.unbound_index(
                &self.unbound.events,
                self.count(Kind::Event),
                b,
                c,
            )),
            25 => make::event_handle_free(self.handle_ref(&live_r, self.registrations.len(), b, c)),
            // Enough steps for a level to rise and fall (watermarks, R-PCLASS).
            26 => make::simulate((a % 16) as u8 + 1),
            28 => make::mpi_init(),
            29 => make::event_info_object(self.index(self.count(Kind::Event), b, c)),
            30 => make::event_register_callback(
                self.handle_ref(&live_r, self.registrations.len(), b, c),
                CbSafety::ALL[a as usize % 4],
                c % 5 != 3,
            ),
            31 => make::event_set_dropped_handler(
                self.handle_ref(&live_r, self.registrations.len(), b, c),
                a % 4 != 3,
            ),
            // An event some registration of the sequence is for (else nothing runs).
            32 => make::raise_event(
                self.registrations[b as usize % self.registrations.len()].index,
                CbSafety::ALL[a as usize % 4],
            ),
            33 => make::event_read_after(b % self.instances.max(1)),
            _ => make::finalize(),
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

    fn data(&self, a: u16) -> Data {
        // Only the reference is written arbitrary numbers: a vendor's configuration is
        // written back what was read from it.
        if self.mirror.exact_values && a % 3 == 2 {
            Data::Int(i32::from(a % 100))
        } else {
            Data::Readback
        }
    }
}
