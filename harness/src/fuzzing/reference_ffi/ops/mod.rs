//! One input's run: the handles it holds, how each [`Op`] is made through the safe
//! wrappers, and what is checked after it (see the module docs of `reference_ffi`).

mod events;
mod handles;

use super::input::{Idx, Konst, Name, Obj, Op, H, S};
use super::{check_mpi_rc, check_str, check_t_rc, Fixture};
use crate::kind::Kind;
use crate::target::ffi::{self, Members, ObjArg, RawHandle, StrArg};
use mpit_reference::profile::ReturnCode;

/// A data buffer for a handle the run does not hold: room for any variable of the
/// default catalog, so a reference that wrongly accepts the handle is caught by the
/// checks (a write past `need`) rather than by the guard page.
const UNKNOWN_BUF: usize = 64;
/// The largest data buffer made (a count the library returns is not trusted further).
const MAX_BUF: usize = 1 << 20;
/// The recorder tag of a registration the run does not hold (no element is read).
const NO_TAG: usize = 1 << 20;

/// Which pool [`H::Typed`] picks from.
#[derive(Debug, Clone, Copy)]
enum Pool {
    Cvar,
    Session,
    Pvar,
    Reg,
    Info,
    Enum,
    Instance,
}

/// What one input holds.
pub(super) struct Run<'a> {
    f: &'a Fixture,
    /// `MPI_T_init_thread` calls of this input that succeeded and are not finalized.
    inits: u32,
    /// Live cvar handles with count × datatype size.
    cvars: Vec<(u64, usize)>,
    sessions: Vec<u64>,
    /// Live pvar handles: (session, handle, count × datatype size).
    pvars: Vec<(u64, u64, usize)>,
    /// Event registrations with their event index.
    regs: Vec<(u64, usize)>,
    infos: Vec<u64>,
    enums: Vec<u64>,
    /// Event instances seen in callbacks (stale once the callback returned).
    instances: Vec<u64>,
    /// Handles freed by this input.
    freed: Vec<u64>,
    freed_cvars: Vec<u64>,
}

fn pick(v: &[u64], k: u8) -> u64 {
    if v.is_empty() {
        0
    } else {
        v[k as usize % v.len()]
    }
}

/// The string argument an [`S`] stands for.
fn str_arg(s: S) -> StrArg {
    match s {
        S::Sized(n) => StrArg::sized(n as usize),
        S::Roomy { cap, n } => StrArg {
            cap: Some(cap as usize),
            len: Some((n % cap.saturating_add(1).max(1)) as i32),
        },
        S::NullBuf(n) => StrArg {
            cap: None,
            len: Some(n as i32),
        },
        S::NonPositive(n) => StrArg {
            cap: Some(8),
            len: Some(-(n as i32).abs()),
        },
        S::NullLen(buf) => StrArg {
            cap: buf.then_some(8),
            len: None,
        },
    }
}

impl<'a> Run<'a> {
    pub(super) fn new(f: &'a Fixture) -> Self {
        Run {
            f,
            inits: 0,
            cvars: vec![],
            sessions: vec![],
            pvars: vec![],
            regs: vec![],
            infos: vec![],
            enums: vec![],
            instances: vec![],
            freed: vec![],
            freed_cvars: vec![],
        }
    }

    /// Decodes and checks an MPI_T return code; true on MPI_SUCCESS.
    fn t(&self, call: &str, rc: i32) -> bool {
        let d = self.f.target.rc(rc);
        check_t_rc(call, rc, &d);
        d == ReturnCode::Success
    }

    /// The same for an MPI call (MPI_Info_*).
    fn m(&self, call: &str, rc: i32) -> bool {
        let d = self.f.target.rc(rc);
        check_mpi_rc(call, rc, &d);
        d == ReturnCode::Success
    }

    fn pool(&self, p: Pool) -> Vec<u64> {
        match p {
            Pool::Cvar => self.cvars.iter().map(|c| c.0).collect(),
            Pool::Session => self.sessions.clone(),
            Pool::Pvar => self.pvars.iter().map(|p| p.1).collect(),
            Pool::Reg => self.regs.iter().map(|r| r.0).collect(),
            Pool::Info => self.infos.clone(),
            Pool::Enum => self.enums.clone(),
            Pool::Instance => self.instances.clone(),
        }
    }

    fn h(&self, h: H, p: Pool) -> u64 {
        match h {
            H::Zero => 0,
            H::One => 1,
            H::Small(k) => k as u64,
            H::Typed(k) => pick(&self.pool(p), k),
            H::Live(k, delta) => {
                let all: Vec<u64> = [
                    Pool::Cvar,
                    Pool::Session,
                    Pool::Pvar,
                    Pool::Reg,
                    Pool::Info,
                    Pool::Enum,
                ]
                .iter()
                .flat_map(|p| self.pool(*p))
                .collect();
                pick(&all, k).wrapping_add_signed(delta as i64)
            }
            H::Freed(k) => {
                // Most recent first: `Freed(0)` right after a free is the handle just
                // freed (zero bytes are what mutations produce most).
                let stale: Vec<u64> = self
                    .freed
                    .iter()
                    .chain(&self.instances)
                    .rev()
                    .copied()
                    .collect();
                pick(&stale, k)
            }
            H::Predefined(k) => pick(&self.f.predefined, k),
            H::Any(v) => v,
        }
    }

    fn rh(&self, h: H, p: Pool) -> RawHandle {
        self.h(h, p) as RawHandle
    }

    fn obj(&self, o: Obj) -> ObjArg {
        match o {
            Obj::Null => ObjArg::Null,
            Obj::Holding(h) => ObjArg::Local {
                value: self.h(h, Pool::Info),
                width: self.f.target.lib.handle_width(),
            },
        }
    }

    fn count(&self, k: Kind) -> usize {
        self.f.names[k.index()].len()
    }

    fn idx(&self, i: Idx, n: usize) -> i32 {
        match i {
            Idx::In(k) => (k as usize % (n + 2)) as i32,
            Idx::Any(v) => v,
        }
    }

    fn konst(&self, k: Konst, table: &[i64]) -> i32 {
        match k {
            Konst::Known(i) => table[i as usize % table.len()] as i32,
            Konst::Any(v) => v,
        }
    }

    fn name(&self, kind: Kind, n: &Name) -> String {
        let names = &self.f.names[kind.index()];
        let real = |k: u8| names.get(k as usize % names.len().max(1)).cloned();
        match n {
            Name::Real(k) => real(*k).unwrap_or_default(),
            Name::Mangled(k, at) => {
                let mut chars: Vec<char> = real(*k).unwrap_or_default().chars().collect();
                let at = *at as usize % chars.len().max(1);
                if at < chars.len() {
                    if at % 2 == 0 {
                        chars.truncate(at);
                    } else {
                        chars[at] = 'X';
                    }
                }
                chars.into_iter().collect()
            }
            Name::Any(s) => s.clone(),
        }
    }

    fn enum_seen(&mut self, ok: bool, e: RawHandle) {
        let e = e as u64;
        if ok && e != 0 && !self.enums.contains(&e) {
            self.enums.push(e);
        }
    }

    fn info_seen(&mut self, ok: bool, info: u64) {
        if ok && info != self.f.nulls.info {
            self.infos.push(info);
        }
    }

    fn cvar_need(&self, h: u64) -> Option<usize> {
        self.cvars.iter().find(|c| c.0 == h).map(|c| c.1)
    }

    fn pvar_need(&self, h: u64) -> Option<usize> {
        self.pvars.iter().find(|p| p.1 == h).map(|p| p.2)
    }

    fn buf_size(need: Option<usize>, extra: u8) -> usize {
        need.map_or(UNKNOWN_BUF + extra as usize % UNKNOWN_BUF, |n| {
            n + extra as usize % 9
        })
    }

    /// Data for a `*_write`: exactly the variable's size when the run holds the handle.
    fn data(need: Option<usize>, data: &[u8]) -> Vec<u8> {
        let mut d = data.to_vec();
        if let Some(n) = need {
            d.resize(n, 0);
        }
        d
    }

    fn forget(&mut self, v: u64) {
        self.freed.push(v);
        self.cvars.retain(|c| c.0 != v);
        self.pvars.retain(|p| p.1 != v);
        self.regs.retain(|r| r.0 != v);
        self.infos.retain(|i| *i != v);
    }

    fn forget_session(&mut self, s: u64) {
        let gone: Vec<u64> = self
            .pvars
            .iter()
            .filter(|p| p.0 == s)
            .map(|p| p.1)
            .collect();
        self.freed.extend(gone);
        self.pvars.retain(|p| p.0 != s);
        self.sessions.retain(|x| *x != s);
        self.freed.push(s);
    }

    pub(super) fn exec(&mut self, op: &Op) {
        let f = self.f;
        let lib = &f.target.lib;
        match op {
            Op::InitThread(k) => {
                if let Some((rc, provided)) = lib.init_thread(self.konst(*k, &f.thread_levels)) {
                    if self.t("MPI_T_init_thread", rc) {
                        self.inits += 1;
                        assert!(
                            f.thread_levels.contains(&(provided as i64)),
                            "R-INIT-1: MPI_T_init_thread returned provided = {provided}, not a thread level"
                        );
                    }
                }
            }
            Op::Finalize if self.inits > 0 => self.finalize_own(),
            Op::Finalize => {}
            Op::GetNum(k) => {
                let r = match k {
                    Kind::Cvar => lib.cvar_get_num(),
                    Kind::Pvar => lib.pvar_get_num(),
                    Kind::Category => lib.category_get_num(),
                    Kind::Source => lib.source_get_num(),
                    Kind::Event => lib.event_get_num(),
                };
                if let Some((rc, _)) = r {
                    self.t(k.get_num().c_name(), rc);
                }
            }
            Op::CategoryChanged => {
                if let Some((rc, _)) = lib.category_changed() {
                    self.t("MPI_T_category_changed", rc);
                }
            }
            Op::GetInfo {
                kind,
                index,
                name,
                desc,
                capacity,
            } => self.get_info(*kind, *index, str_arg(*name), str_arg(*desc), *capacity),
            Op::GetIndex(k, n) => {
                let name = self.name(*k, n);
                let (call, r) = match k {
                    Kind::Cvar => ("MPI_T_cvar_get_index", lib.cvar_get_index(&name)),
                    // The class-less lookups; pvars have their own op.
                    Kind::Pvar | Kind::Category => {
                        ("MPI_T_category_get_index", lib.category_get_index(&name))
                    }
                    Kind::Source | Kind::Event => {
                        ("MPI_T_event_get_index", lib.event_get_index(&name))
                    }
                };
                if let Some((rc, _)) = r {
                    self.t(call, rc);
                }
            }
            Op::PvarGetIndex(n, class) => {
                let name = self.name(Kind::Pvar, n);
                if let Some((rc, _)) =
                    lib.pvar_get_index(&name, self.konst(*class, &f.pvar_classes))
                {
                    self.t("MPI_T_pvar_get_index", rc);
                }
            }
            Op::CategoryMembers { which, cat, len } => {
                let (which, call) = [
                    (Members::Cvars, "MPI_T_category_get_cvars"),
                    (Members::Pvars, "MPI_T_category_get_pvars"),
                    (Members::Events, "MPI_T_category_get_events"),
                    (Members::Categories, "MPI_T_category_get_categories"),
                ][*which as usize % 4];
                let cat = self.idx(*cat, self.count(Kind::Category));
                if let Some((rc, (_, overrun))) =
                    lib.category_members_guarded(which, cat, *len as usize, -7)
                {
                    self.t(call, rc);
                    assert!(!overrun, "R-CAT-1: {call} wrote past len = {len}");
                }
            }
            Op::CategoryGetNumEvents(i) => {
                let i = self.idx(*i, self.count(Kind::Category));
                if let Some((rc, _)) = lib.category_get_num_events(i) {
                    self.t("MPI_T_category_get_num_events", rc);
                }
            }
            Op::EnumGetInfo(e, s) => {
                let arg = str_arg(*s);
                if let Some((rc, (_, name))) = lib.enum_get_info(self.rh(*e, Pool::Enum), arg) {
                    let ok = self.t("MPI_T_enum_get_info", rc);
                    check_str("MPI_T_enum_get_info", arg, &name, ok);
                }
            }
            Op::EnumGetItem(e, i, s) => {
                let arg = str_arg(*s);
                let item = self.idx(*i, 8);
                if let Some((rc, (_, name))) = lib.enum_get_item(self.rh(*e, Pool::Enum), item, arg)
                {
                    let ok = self.t("MPI_T_enum_get_item", rc);
                    check_str("MPI_T_enum_get_item", arg, &name, ok);
                }
            }
            _ => self.exec_handles(op),
        }
    }

    fn get_info(&mut self, kind: Kind, index: Idx, name: StrArg, desc: StrArg, capacity: u8) {
        let lib = &self.f.target.lib;
        let i = self.idx(index, self.count(kind));
        let call = kind.get_info().c_name();
        let (ok, n, d) = match kind {
            Kind::Cvar => {
                let Some((rc, o)) = lib.cvar_get_info(i, name, desc) else {
                    return;
                };
                let ok = self.t(call, rc);
                self.enum_seen(ok, o.enumtype);
                (ok, o.name, o.desc)
            }
            Kind::Pvar => {
                let Some((rc, o)) = lib.pvar_get_info(i, name, desc) else {
                    return;
                };
                let ok = self.t(call, rc);
                self.enum_seen(ok, o.enumtype);
                (ok, o.name, o.desc)
            }
            Kind::Category => {
                let Some((rc, o)) = lib.category_get_info(i, name, desc) else {
                    return;
                };
                let ok = self.t(call, rc);
                (ok, o.name, o.desc)
            }
            Kind::Source => {
                let Some((rc, o)) = lib.source_get_info(i, name, desc) else {
                    return;
                };
                let ok = self.t(call, rc);
                (ok, o.name, o.desc)
            }
            Kind::Event => {
                let cap = capacity as usize % 8;
                let Some((rc, o)) = lib.event_get_info(i, name, desc, cap) else {
                    return;
                };
                let ok = self.t(call, rc);
                self.enum_seen(ok, o.enumtype);
                assert!(
                    !o.overrun,
                    "MPI-4.1 §15.3.8.2: {call} wrote past num_elements = {cap} array entries"
                );
                (ok, o.name, o.desc)
            }
        };
        check_str(call, name, &n, ok);
        check_str(call, desc, &d, ok);
        let first = usize::try_from(i)
            .ok()
            .and_then(|i| self.f.lens[kind.index()].get(i));
        if let (true, Some((name_len, desc_len))) = (ok, first) {
            for (what, arg, out, was) in
                [("name", name, &n, name_len), ("desc", desc, &d, desc_len)]
            {
                if arg.len.is_some() && was.is_some() {
                    assert_eq!(
                        out.len, *was,
                        "R-STR-2/R-STR-5: {call}({i}) returned {what} length {:?} with {arg:?}, {was:?} with a NULL buffer (strlen+1 whatever the buffer)",
                        out.len
                    );
                }
            }
        }
    }

    fn finalize_own(&mut self) {
        if let Some((rc, ())) = self.f.target.lib.finalize() {
            assert!(
                self.t("MPI_T_finalize", rc),
                "R-FIN-1: MPI_T_finalize failed with {} inits outstanding (this input's {} and the fixture's)",
                self.inits + 1,
                self.inits
            );
            self.inits -= 1;
            // The fixture's init is still held: MPI_T must still answer.
            if let Some((rc, _)) = self.f.target.lib.cvar_get_num() {
                assert!(
                    self.t("MPI_T_cvar_get_num", rc),
                    "R-INIT-1/R-FIN-1: after a finalize matching one of {} inits, MPI_T_cvar_get_num returned {}",
                    self.inits + 2,
                    self.f.target.rc(rc)
                );
            }
        }
    }

    /// Frees what the input still holds and finalizes its own inits, so the next input
    /// starts from the fixture's state. Freeing a handle the run holds must work.
    pub(super) fn finish(mut self) {
        let lib = &self.f.target.lib;
        for (r, _) in std::mem::take(&mut self.regs) {
            if let Some((rc, _)) = lib.event_handle_free(r as RawHandle, false) {
                self.t("MPI_T_event_handle_free", rc);
            }
        }
        for s in std::mem::take(&mut self.sessions) {
            if let Some((rc, _)) = lib.pvar_session_free(s as RawHandle) {
                assert!(
                    self.t("MPI_T_pvar_session_free", rc),
                    "R-SESS-1: freeing the live session {s:#x} failed"
                );
            }
        }
        for (h, _) in std::mem::take(&mut self.cvars) {
            if let Some((rc, _)) = lib.cvar_handle_free(h as RawHandle) {
                assert!(
                    self.t("MPI_T_cvar_handle_free", rc),
                    "R-CVAR-7: freeing the live cvar handle {h:#x} failed"
                );
            }
        }
        for i in std::mem::take(&mut self.infos) {
            if let Some((rc, _)) = lib.info_free(i) {
                self.m("MPI_Info_free", rc);
            }
        }
        while self.inits > 0 {
            self.finalize_own();
        }
        self.check_deliveries();
        // The recorder keeps these until drained; nothing about them is judged here.
        ffi::take_dropped();
        ffi::take_dropped_positions();
        ffi::take_freed();
    }
}
