//! The reference engine: a call of the function table (`op::Call`) carried out
//! on [`mpit_reference::model::Model`] loaded with the mirrored catalog, its arguments
//! read by parameter name, outputs in [`Obs`] form. Strings go through the
//! reference's one implementation of the convention (`mpit_reference::strings`).
//!
//! This module holds the engine and the calls of each family but the events, which
//! have a module of their own (`events`: the calls on sources, registrations and
//! instances, and the events the reference raises, MPI-4.1 §15.3.8).

mod events;

use super::engine::Engine;
use super::obs::{Obs, Out, StrObs};
use super::op::{Call, Data, Kind, Str};
use super::{HandleKind, Made, Mirror, Slots};
use mpit_reference::faults::Faults;
use mpit_reference::model::EnumHandle;
use mpit_reference::model::{BoundObject, CvarHandle, Model, PvarHandle, PvarTarget, Session};
use mpit_reference::strings::{self, StringArg};
use mpit_spec::cases::funcs::Func;
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::Members;
use mpit_vocab::spec::ThreadLevel;
use mpit_vocab::spec::{PvarClass, TErr, TResult};

/// The reference model and the handles this sequence made in it.
pub struct ModelEngine {
    pub model: Model,
    slots: Slots,
    faults: Faults,
}

const ALL: u64 = u64::MAX;

fn rc<T>(r: &TResult<T>) -> ReturnCode {
    match r {
        Ok(_) => ReturnCode::Success,
        Err(e) => ReturnCode::T(*e),
    }
}

fn string_out(text: &str, a: Str, desc: bool, faults: &Faults) -> Out {
    let arg = StringArg {
        buf_null: a.cap().is_none(),
        len: a.len_in(),
    };
    let o = if desc {
        let d = Some(text.to_string());
        strings::description(&d, faults).out(arg, faults)
    } else {
        strings::convention(text, arg, faults)
    };
    Out::Str(StrObs {
        buf: a.cap().map(|_| o.write),
        len: o.len,
        stray: Vec::new(),
        stray_bytes: Vec::new(),
        // The mirror holds a catalog read as UTF-8: a byte that is not became U+FFFD
        // (three bytes), so neither the bytes nor the length are the library's.
        inexact: text.contains(char::REPLACEMENT_CHARACTER),
    })
}

impl ModelEngine {
    /// A model serving the mirror's catalog. `initialized`: MPI_T already initialized
    /// once (the worker's base init, which sequences nest inside).
    pub fn new(m: &Mirror, initialized: bool) -> ModelEngine {
        let faults = Faults::none();
        let mut model = m.fresh_model();
        if initialized {
            let _ = model.init_thread(ThreadLevel::Single);
        }
        ModelEngine {
            model,
            slots: Slots::default(),
            faults,
        }
    }

    fn handle(&self, k: HandleKind, r: super::Ref) -> u64 {
        self.slots.resolve(k, r, 0, ALL)
    }

    fn pvar_target(&self, r: super::Ref) -> PvarTarget {
        match r {
            super::Ref::All => PvarTarget::All,
            r => PvarTarget::One(PvarHandle(self.handle(HandleKind::Pvar, r))),
        }
    }

    fn made(&mut self, k: HandleKind, value: u64, index: i32, count: i32) {
        self.slots.table_mut(k).push(Made {
            value,
            index,
            count,
            last_read: Vec::new(),
        });
    }
}

impl Engine for ModelEngine {
    /// The call on the model, its arguments read by parameter name (`Call`), its OUTs
    /// in the names the target engine gives them. Sent to the call of its family, as the
    /// target engine's are (`exec::calls`).
    fn call(&mut self, c: &Call) -> Obs {
        use Func::*;
        match c.func {
            InitThread | Finalize | MpiInit | MpiFinalize | SessionInit => self.lifecycle_call(c),
            CvarGetNum
            | PvarGetNum
            | CategoryGetNum
            | EventGetNum
            | SourceGetNum
            | CvarGetInfo
            | CvarGetInfoNameOnly
            | PvarGetInfo
            | PvarGetInfoNameOnly
            | CategoryGetInfo
            | CategoryGetInfoNameOnly
            | EventGetInfo
            | SourceGetInfo
            | CvarGetIndex
            | CategoryGetIndex
            | EventGetIndex
            | PvarGetIndex
            | CategoryGetCvars
            | CategoryGetPvars
            | CategoryGetEvents
            | CategoryGetCategories
            | CategoryGetNumEvents
            | CategoryChanged
            | EnumGetInfo
            | EnumGetItem => self.catalog_call(c),
            CvarHandleAlloc | CvarHandleFree | CvarRead | CvarWrite => self.cvar_call(c),
            PvarSessionCreate | PvarSessionFree | PvarHandleAlloc | PvarHandleFree | PvarStart
            | PvarStop | PvarReset | PvarRead | PvarReadreset | PvarWrite | Simulate => {
                self.pvar_call(c)
            }
            SourceGetTimestamp
            | EventHandleAlloc
            | EventHandleFree
            | EventGetInfoObject
            | EventRegisterCallback
            | EventSetDroppedHandler
            | RaiseEvent
            | EventRead => self.event_call(c),
            // The generator makes no call of any other entry (specs/generator.yaml).
            f => unreachable!("{} is no generated call", f.c_name()),
        }
    }
}

impl ModelEngine {
    /// MPI_T's initialization and finalization (MPI-4.1 §15.3.4), and MPI's around it.
    fn lifecycle_call(&mut self, c: &Call) -> Obs {
        use Func::*;
        let m = &mut self.model;
        match c.func {
            InitThread => {
                let r = m.init_thread(c.level());
                let o = Obs::rc(rc(&r));
                match r {
                    Ok(p) => o.with("provided", Out::Name(p.spelling().into())),
                    Err(_) => o,
                }
            }
            Finalize => Obs::rc(rc(&m.finalize())),
            // MPI's own error codes are MPI's, not MPI_T's: only success matters.
            // MPI_Finalize leaves MPI_T usable (R-GEN-4); a session leaves it as it was
            // (R-MPI-2).
            MpiInit | MpiFinalize | SessionInit => {
                let ok = match c.func {
                    MpiInit => m.mpi_init().is_ok(),
                    MpiFinalize => m.mpi_finalize().is_ok(),
                    _ => m.session_init().is_ok(),
                };
                Obs::rc(match ok {
                    true => ReturnCode::Success,
                    false => ReturnCode::MpiErr("MPI_ERR_OTHER".into()),
                })
            }
            f => unreachable!("{} is no generated call", f.c_name()),
        }
    }

    /// The catalog's queries: counts, `*_get_info`, `*_get_index`, category members,
    /// enumerations (MPI-4.1 §15.3.5 to §15.3.9).
    fn catalog_call(&mut self, c: &Call) -> Obs {
        use Func::*;
        let f = self.faults.clone();
        let m = &mut self.model;
        let (index, name) = (c.index(), c.str("name"));
        match c.func {
            CvarGetNum | PvarGetNum | CategoryGetNum | EventGetNum | SourceGetNum => {
                let r = match c.func {
                    CvarGetNum => m.cvar_get_num(),
                    PvarGetNum => m.pvar_get_num(),
                    CategoryGetNum => m.category_get_num(),
                    EventGetNum => m.event_get_num(),
                    _ => m.source_get_num(),
                };
                let o = Obs::rc(rc(&r));
                match r {
                    Ok(n) => o.with("num", Out::Int(n.into())),
                    Err(_) => o,
                }
            }
            CvarGetInfo
            | CvarGetInfoNameOnly
            | PvarGetInfo
            | PvarGetInfoNameOnly
            | CategoryGetInfo
            | CategoryGetInfoNameOnly
            | EventGetInfo
            | SourceGetInfo => {
                let kind = c.entry().map_or(Kind::Cvar, |(k, _)| k);
                self.get_info(kind, index, name, c.str("desc"), &f)
            }
            CvarGetIndex => index_obs(m.cvar_get_index(c.text("name"))),
            CategoryGetIndex => index_obs(m.category_get_index(c.text("name"))),
            EventGetIndex => index_obs(m.event_get_index(c.text("name"))),
            PvarGetIndex => {
                let class = c.class().unwrap_or(PvarClass::State);
                index_obs(m.pvar_get_index(c.text("name"), class))
            }
            CategoryGetCvars | CategoryGetPvars | CategoryGetEvents | CategoryGetCategories => {
                let which = match c.func {
                    CategoryGetCvars => Members::Cvars,
                    CategoryGetPvars => Members::Pvars,
                    CategoryGetEvents => Members::Events,
                    _ => Members::Categories,
                };
                let r = m.category_get_members(index, which, c.int("len") as i32);
                let o = Obs::rc(rc(&r));
                match r {
                    Ok(v) => o.with("indices", Out::Ints(v.into_iter().map(i64::from).collect())),
                    Err(_) => o,
                }
            }
            CategoryGetNumEvents => {
                let r = m.category_get_num_events(index);
                let o = Obs::rc(rc(&r));
                match r {
                    Ok(n) => o.with("num", Out::Int(n.into())),
                    Err(_) => o,
                }
            }
            CategoryChanged => {
                let r = m.category_changed();
                let o = Obs::rc(rc(&r));
                match r {
                    Ok(n) => o.with("update_number", Out::Int(n.into())),
                    Err(_) => o,
                }
            }
            // A NULL name pair comes with a NULL `num` / `value` (every OUT argument
            // NULL): nothing comes back to record but the code (R-STR-4; the case
            // language's `for_all: null_outs`).
            EnumGetInfo => {
                let r = self.model.enum_get_info(self.enum_handle(c));
                let o = Obs::rc(rc(&r));
                match r {
                    Ok(e) if !c.null_outs => o
                        .with("num", Out::Int(e.num.into()))
                        .with("name", string_out(&e.name, name, false, &f)),
                    _ => o,
                }
            }
            EnumGetItem => {
                let h = self.enum_handle(c);
                let r = self.model.enum_get_item(h, c.int("item") as i32);
                let o = Obs::rc(rc(&r));
                match r {
                    Ok(e) if !c.null_outs => o
                        .with("value", Out::Int(e.value.into()))
                        .with("name", string_out(&e.name, name, false, &f)),
                    _ => o,
                }
            }
            f => unreachable!("{} is no generated call", f.c_name()),
        }
    }

    /// The control variables' handles, reads and writes (MPI-4.1 §15.3.6).
    fn cvar_call(&mut self, c: &Call) -> Obs {
        use Func::*;
        let m = &mut self.model;
        let index = c.index();
        match c.func {
            CvarHandleAlloc => {
                let r = m.cvar_handle_alloc(index, BoundObject::None);
                self.alloc_obs(HandleKind::Cvar, index, r.map(|(h, n)| (h.0, n)))
            }
            CvarHandleFree => {
                let h = CvarHandle(self.handle(HandleKind::Cvar, c.handle("handle")));
                freed_obs("handle", self.model.cvar_handle_free(h).map(|h| h.0))
            }
            CvarRead => {
                let r = c.handle("handle");
                let h = CvarHandle(self.handle(HandleKind::Cvar, r));
                let v = self.model.cvar_read(h);
                self.read_obs(HandleKind::Cvar, r, v)
            }
            CvarWrite => {
                let h = CvarHandle(self.handle(HandleKind::Cvar, c.handle("handle")));
                let bytes = self.write_bytes(c);
                Obs::rc(rc(&self.model.cvar_write(h, &bytes)))
            }
            f => unreachable!("{} is no generated call", f.c_name()),
        }
    }

    /// The performance variables' sessions, handles, reads and writes (MPI-4.1
    /// §15.3.7), and the MPI activity they count (`MPIT_Reference_simulate`).
    fn pvar_call(&mut self, c: &Call) -> Obs {
        use Func::*;
        let m = &mut self.model;
        let index = c.index();
        match c.func {
            PvarSessionCreate => {
                let r = m.pvar_session_create();
                let o = Obs::rc(rc(&r));
                match r {
                    Ok(s) => {
                        self.made(HandleKind::Session, s.0, -1, 0);
                        o.with("session", Out::Handle { null: s.0 == 0 })
                    }
                    Err(_) => o,
                }
            }
            PvarSessionFree => {
                let r = self.model.pvar_session_free(self.session(c));
                freed_obs("session", r.map(|s| s.0))
            }
            PvarHandleAlloc => {
                let s = self.session(c);
                let r = self.model.pvar_handle_alloc(s, index, BoundObject::None);
                self.alloc_obs(HandleKind::Pvar, index, r.map(|(h, n)| (h.0, n)))
            }
            PvarHandleFree => {
                let s = self.session(c);
                let h = PvarHandle(self.handle(HandleKind::Pvar, c.handle("handle")));
                freed_obs("handle", self.model.pvar_handle_free(s, h).map(|h| h.0))
            }
            PvarStart | PvarStop | PvarReset => {
                let (s, t) = (self.session(c), self.pvar_target(c.handle("handle")));
                let m = &mut self.model;
                Obs::rc(rc(&match c.func {
                    PvarStart => m.pvar_start(s, t),
                    PvarStop => m.pvar_stop(s, t),
                    _ => m.pvar_reset(s, t),
                }))
            }
            PvarRead | PvarReadreset => {
                let handle = c.handle("handle");
                let (s, t) = (self.session(c), self.pvar_target(handle));
                let r = if c.func == PvarReadreset {
                    self.model.pvar_readreset(s, t)
                } else {
                    self.model.pvar_read(s, t)
                };
                self.read_obs(HandleKind::Pvar, handle, r)
            }
            PvarWrite => {
                let (s, t) = (self.session(c), self.pvar_target(c.handle("handle")));
                let bytes = self.write_bytes(c);
                Obs::rc(rc(&self.model.pvar_write(s, t, &bytes)))
            }
            Simulate => {
                m.simulate(c.int("steps") as u32);
                Obs::rc(ReturnCode::Success)
            }
            f => unreachable!("{} is no generated call", f.c_name()),
        }
    }

    fn enum_handle(&self, c: &Call) -> EnumHandle {
        let n = c.int("enumtype") as usize;
        EnumHandle(self.slots.enums.get(n).copied().unwrap_or(0))
    }

    fn session(&self, c: &Call) -> Session {
        Session(self.handle(HandleKind::Session, c.handle("session")))
    }

    /// A handle allocation's answer: the handle (kept for the calls that name it) and
    /// its count.
    fn alloc_obs(&mut self, k: HandleKind, index: i32, r: TResult<(u64, i32)>) -> Obs {
        let o = Obs::rc(rc(&r));
        match r {
            Ok((h, count)) => {
                self.made(k, h, index, count);
                o.with("handle", Out::Handle { null: h == 0 })
                    .with("count", Out::Int(count.into()))
            }
            Err(_) => o,
        }
    }

    fn read_obs(&mut self, k: HandleKind, r: super::Ref, res: TResult<Vec<u8>>) -> Obs {
        let o = Obs::rc(rc(&res));
        match res {
            Ok(b) => {
                if let Some(m) = self.slots.made(k, r) {
                    m.last_read = b.clone();
                }
                o.with("value", Out::Bytes(b))
            }
            Err(_) => o,
        }
    }

    /// What a write passes (`Slots::write_bytes`, as the target engine).
    fn write_bytes(&self, c: &Call) -> Vec<u8> {
        let (k, r, data) = c
            .data()
            .unwrap_or((HandleKind::Cvar, super::Ref::Null, Data::Int(0)));
        self.slots.write_bytes(k, r, data, self.model.catalog())
    }

    fn get_info(&mut self, kind: Kind, i: i32, name: Str, desc: Str, f: &Faults) -> Obs {
        // The name alone, every other OUT argument NULL (R-CVAR-3): no enumeration comes
        // back, so none is learned (the library's engine learns none either).
        if desc == Str::NONE {
            let full = {
                let saved = self.slots.clone();
                let o = self.get_info(kind, i, name, Str::sized(0), f);
                self.slots = saved;
                o
            };
            return match full.out("name") {
                Some(n) if full.ok() => Obs::rc(full.rc.clone()).with("name", n.clone()),
                _ => Obs::rc(full.rc.clone()),
            };
        }
        let m = &mut self.model;
        let s = |t: &str| string_out(t, name, false, f);
        let d = |t: &Option<String>| string_out(t.as_deref().unwrap_or(""), desc, true, f);
        match kind {
            Kind::Cvar => match m.cvar_get_info(i) {
                Err(e) => Obs::rc(ReturnCode::T(e)),
                Ok(v) => {
                    let en = self.slots.enum_out(v.enumtype.0, 0);
                    Obs::rc(ReturnCode::Success)
                        .with("name", s(&v.name))
                        .with("verbosity", Out::Name(v.verbosity.spelling().into()))
                        .with("datatype", Out::Name(v.datatype.spelling().into()))
                        .with("enumtype", en)
                        .with("desc", d(&v.desc))
                        .with("bind", Out::Name(v.bind.spelling().into()))
                        .with("scope", Out::Name(v.scope.spelling().into()))
                }
            },
            Kind::Pvar => match m.pvar_get_info(i) {
                Err(e) => Obs::rc(ReturnCode::T(e)),
                Ok(v) => {
                    let en = self.slots.enum_out(v.enumtype.0, 0);
                    Obs::rc(ReturnCode::Success)
                        .with("name", s(&v.name))
                        .with("verbosity", Out::Name(v.verbosity.spelling().into()))
                        .with("var_class", Out::Name(v.var_class.spelling().into()))
                        .with("datatype", Out::Name(v.datatype.spelling().into()))
                        .with("enumtype", en)
                        .with("desc", d(&v.desc))
                        .with("bind", Out::Name(v.bind.spelling().into()))
                        .with("readonly", Out::Flag(v.readonly))
                        .with("continuous", Out::Flag(v.continuous))
                        .with("atomic", Out::Flag(v.atomic))
                }
            },
            Kind::Category => match m.category_get_info(i) {
                Err(e) => Obs::rc(ReturnCode::T(e)),
                Ok(v) => Obs::rc(ReturnCode::Success)
                    .with("name", s(&v.name))
                    .with("desc", d(&v.desc))
                    .with("num_cvars", Out::Int(v.num_cvars.into()))
                    .with("num_pvars", Out::Int(v.num_pvars.into()))
                    .with("num_categories", Out::Int(v.num_categories.into())),
            },
            Kind::Event => match m.event_get_info(i, false) {
                Err(e) => Obs::rc(ReturnCode::T(e)),
                Ok((v, _)) => {
                    let en = self.slots.enum_out(v.enumtype.0, 0);
                    Obs::rc(ReturnCode::Success)
                        .with("name", s(&v.name))
                        .with("verbosity", Out::Name(v.verbosity.spelling().into()))
                        .with("num_elements", Out::Int(v.datatypes.len() as i64))
                        .with(
                            "datatypes",
                            Out::Name(
                                v.datatypes
                                    .iter()
                                    .map(|d| d.spelling())
                                    .collect::<Vec<_>>()
                                    .join(",")
                                    .into(),
                            ),
                        )
                        .with("displacements", Out::Ints(v.displacements.clone()))
                        .with("enumtype", en)
                        .with("desc", d(&v.desc))
                        .with("bind", Out::Name(v.bind.spelling().into()))
                }
            },
            Kind::Source => match m.source_get_info(i, false) {
                Err(e) => Obs::rc(ReturnCode::T(e)),
                Ok((v, _)) => Obs::rc(ReturnCode::Success)
                    .with("name", s(&v.name))
                    .with("desc", d(&v.desc))
                    .with("ordering", Out::Name(v.ordering.spelling().into()))
                    .with("ticks_per_second", Out::Int(v.ticks_per_second))
                    .with("max_ticks", Out::Int(v.max_ticks)),
            },
        }
    }
}

/// A free's answer: the handle it set (`out`, the `_NULL` constant on success).
fn freed_obs(out: &'static str, r: TResult<u64>) -> Obs {
    let o = Obs::rc(rc(&r));
    match r {
        Ok(h) => o.with(out, Out::Handle { null: h == 0 }),
        Err(_) => o,
    }
}

fn index_obs(r: TResult<i32>) -> Obs {
    let o = Obs::rc(rc(&r));
    match r {
        Ok(i) => o.with("index", Out::Int(i.into())),
        Err(_) => o,
    }
}

/// The model's answer for `TErr` (for tests that build observations by hand).
pub fn t(e: TErr) -> ReturnCode {
    ReturnCode::T(e)
}
