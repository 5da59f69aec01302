//! The child side of the floor (`mpit-conform __bench-probe JSON`): the only bench
//! process that loads the library. It does what the floor is made of — open, MPI_T
//! init, read every entry's info, finalize — or times single calls in a loop, and
//! prints one marked JSON line with its own phase times.

use super::probe::{Answer, Loop, PerCall, Phases, Probe, Task, MARK};
use mpit_conform::runner::usage::vm_hwm_kb;
use mpit_target::ffi::{ObjArg, StrArg};
use mpit_target::{AbiChoice, Target};
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::{Bind, ThreadLevel};
use std::collections::BTreeSet;
use std::io::Write;
use std::time::{Duration, Instant};

fn us(d: Duration) -> u64 {
    d.as_micros() as u64
}

fn say(a: &Answer) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{MARK}{}",
        serde_json::to_string(a).unwrap_or_default()
    );
    let _ = out.flush();
}

/// Runs the probe; the exit code is 0 when the answer is not `Failed`.
pub fn serve(p: &Probe) -> i32 {
    let a = match answer(p) {
        Ok(a) => a,
        Err(e) => Answer::Failed(e),
    };
    say(&a);
    i32::from(matches!(a, Answer::Failed(_)))
}

fn answer(p: &Probe) -> Result<Answer, String> {
    let budget_ms = match p.task {
        Task::Props { .. } | Task::Fuzz { .. } => return super::throughput::answer(p),
        Task::Enumerate { .. } => None,
        Task::PerCall { budget_ms } => Some(budget_ms),
    };
    let abi: AbiChoice = p.abi.parse()?;
    let t0 = Instant::now();
    let t = Target::open(&p.lib, &abi, false).map_err(|e| e.to_string())?;
    let mut ph = Phases {
        open_us: us(t0.elapsed()),
        ..Phases::default()
    };
    let mpi_init = matches!(p.task, Task::Enumerate { mpi_init: true });
    if mpi_init {
        let t1 = Instant::now();
        match t.lib.mpi_init() {
            Some((rc, ())) if t.rc(rc) == ReturnCode::Success => {}
            other => return Err(format!("MPI_Init: {other:?}")),
        }
        ph.mpi_init_us = us(t1.elapsed());
    }
    let single = t.profile.thread_level.num(ThreadLevel::Single).unwrap_or(0) as i32;
    let t2 = Instant::now();
    match t.lib.init_thread(single) {
        Some((rc, _)) if t.rc(rc) == ReturnCode::Success => {}
        other => return Err(format!("MPI_T_init_thread: {other:?}")),
    }
    ph.init_thread_us = us(t2.elapsed());
    let answer = match budget_ms {
        None => {
            let t3 = Instant::now();
            enumerate(&t, &mut ph);
            ph.enumerate_us = us(t3.elapsed());
            None
        }
        Some(ms) => Some(per_call(&t, Duration::from_millis(ms))),
    };
    let t4 = Instant::now();
    t.lib.finalize();
    ph.finalize_us = us(t4.elapsed());
    if mpi_init {
        let t5 = Instant::now();
        t.lib.mpi_finalize();
        ph.mpi_finalize_us = us(t5.elapsed());
    }
    ph.hwm_kb = vm_hwm_kb().unwrap_or(0);
    Ok(answer.map_or(Answer::Enumerated(ph), Answer::PerCall))
}

/// A string argument sized to the length a NULL-buffer call returned.
fn sized(len: Option<i32>) -> StrArg {
    StrArg::sized(len.unwrap_or(1).clamp(1, 1 << 20) as usize)
}

fn num(r: Option<(i32, i32)>) -> i32 {
    r.map_or(0, |(rc, n)| if rc == 0 { n.max(0) } else { 0 })
}

/// What a tool does to learn a catalog: for each entry, one call with NULL buffers for
/// the string lengths and one with buffers of those lengths.
fn enumerate(t: &Target, ph: &mut Phases) {
    let lib = &t.lib;
    let mut enums: BTreeSet<usize> = BTreeSet::new();
    let n = num(lib.cvar_get_num());
    for i in 0..n {
        if let Some((_, o)) = lib.cvar_get_info(i, StrArg::LEN_ONLY, StrArg::LEN_ONLY) {
            lib.cvar_get_info(i, sized(o.name.len), sized(o.desc.len));
            enums.insert(o.enumtype);
            ph.calls += 2;
        }
    }
    ph.entries[0] = n as u64;
    let n = num(lib.pvar_get_num());
    for i in 0..n {
        if let Some((_, o)) = lib.pvar_get_info(i, StrArg::LEN_ONLY, StrArg::LEN_ONLY) {
            lib.pvar_get_info(i, sized(o.name.len), sized(o.desc.len));
            enums.insert(o.enumtype);
            ph.calls += 2;
        }
    }
    ph.entries[1] = n as u64;
    let n = num(lib.category_get_num());
    for i in 0..n {
        if let Some((_, o)) = lib.category_get_info(i, StrArg::LEN_ONLY, StrArg::LEN_ONLY) {
            lib.category_get_info(i, sized(o.name.len), sized(o.desc.len));
            ph.calls += 2;
        }
    }
    ph.entries[2] = n as u64;
    let n = num(lib.event_get_num());
    for i in 0..n {
        if let Some((_, o)) = lib.event_get_info(i, StrArg::LEN_ONLY, StrArg::LEN_ONLY, 0) {
            let cap = o.num_elements.clamp(0, 1 << 16) as usize;
            lib.event_get_info(i, sized(o.name.len), sized(o.desc.len), cap);
            enums.insert(o.enumtype);
            ph.calls += 2;
        }
    }
    ph.entries[4] = n as u64;
    let n = num(lib.source_get_num());
    for i in 0..n {
        if let Some((_, o)) = lib.source_get_info(i, StrArg::LEN_ONLY, StrArg::LEN_ONLY) {
            lib.source_get_info(i, sized(o.name.len), sized(o.desc.len));
            ph.calls += 2;
        }
    }
    ph.entries[5] = n as u64;
    // Enumerations are reached through the entries that use them (0: none).
    enums.remove(&0);
    for e in &enums {
        let Some((rc, (items, name))) = lib.enum_get_info(*e, StrArg::LEN_ONLY) else {
            continue;
        };
        ph.calls += 2;
        if rc != 0 {
            continue;
        }
        lib.enum_get_info(*e, sized(name.len));
        for k in 0..items.clamp(0, 1 << 16) {
            if let Some((_, (_, s))) = lib.enum_get_item(*e, k, StrArg::LEN_ONLY) {
                lib.enum_get_item(*e, k, sized(s.len));
                ph.calls += 2;
            }
        }
    }
    ph.entries[3] = enums.len() as u64;
}

/// Runs `f` in doubling batches until a batch takes `budget`; the last batch's rate.
fn timed(call: &str, budget: Duration, mut f: impl FnMut(u64)) -> Loop {
    let mut n = 64u64;
    loop {
        let t = Instant::now();
        for k in 0..n {
            f(k);
        }
        let d = t.elapsed();
        if d >= budget || n >= 1 << 26 {
            return Loop {
                call: call.to_string(),
                iterations: n,
                ns_per_call: d.as_nanos() as f64 / n as f64,
            };
        }
        n *= 2;
    }
}

/// (c): one `MPI_T_cvar_get_info` (NULL buffers: the library's own cost; with buffers:
/// as the harness calls it, each buffer guarded by a PROT_NONE page) and one
/// `MPI_T_pvar_read` on the first pvar not bound to an object, through the target layer.
fn per_call(t: &Target, budget: Duration) -> PerCall {
    let lib = &t.lib;
    let mut out = PerCall::default();
    let n = num(lib.cvar_get_num());
    if n == 0 {
        out.notes.push("no cvar: cvar_get_info not timed".into());
    } else {
        let name_len = lib
            .cvar_get_info(0, StrArg::LEN_ONLY, StrArg::LEN_ONLY)
            .and_then(|(_, o)| o.name.len);
        out.loops
            .push(timed("MPI_T_cvar_get_info (NULL buffers)", budget, |_| {
                lib.cvar_get_info(0, StrArg::LEN_ONLY, StrArg::LEN_ONLY);
            }));
        out.loops.push(timed(
            "MPI_T_cvar_get_info (name into a guarded buffer)",
            budget,
            |_| {
                lib.cvar_get_info(0, sized(name_len), StrArg::LEN_ONLY);
            },
        ));
    }
    match readable_pvar(t) {
        Err(note) => out.notes.push(note),
        Ok((s, h, bytes, name)) => {
            out.loops.push(timed(
                &format!("MPI_T_pvar_read ({name}, guarded buffer)"),
                budget,
                |_| {
                    lib.pvar_read(s, h, bytes);
                },
            ));
            lib.pvar_handle_free(s, h);
            lib.pvar_session_free(s);
        }
    }
    out
}

/// A session and started handle of the first pvar bound to no object, with the bytes
/// one read writes and its name.
fn readable_pvar(t: &Target) -> Result<(usize, usize, usize, String), String> {
    let lib = &t.lib;
    let n = num(lib.pvar_get_num());
    if n == 0 {
        return Err("0 pvars: pvar_read not timed".into());
    }
    let no_object = t.profile.bind.num(Bind::NoObject);
    let found = (0..n).find_map(|i| {
        let (rc, o) = lib.pvar_get_info(i, StrArg::LEN_ONLY, StrArg::LEN_ONLY)?;
        (rc == 0 && Some(o.bind as i64) == no_object).then_some((i, o))
    });
    let Some((i, o)) = found else {
        return Err(format!(
            "{n} pvars, none bound to no object: pvar_read not timed"
        ));
    };
    let name = lib
        .pvar_get_info(i, sized(o.name.len), StrArg::LEN_ONLY)
        .and_then(|(_, o)| o.name.text())
        .unwrap_or_default();
    let size = t
        .datatype(o.datatype)
        .map(|d| d.size())
        .ok_or_else(|| format!("pvar {name}: datatype not decoded"))?;
    let s = match lib.pvar_session_create() {
        Some((0, s)) => s,
        other => return Err(format!("MPI_T_pvar_session_create: {other:?}")),
    };
    let (h, count) = match lib.pvar_handle_alloc(s, i, ObjArg::Null) {
        Some((0, hc)) => hc,
        other => return Err(format!("MPI_T_pvar_handle_alloc({name}): {other:?}")),
    };
    if o.continuous == 0 {
        lib.pvar_start(s, h);
    }
    Ok((s, h, size * count.max(1) as usize, name))
}
