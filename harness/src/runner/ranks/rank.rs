//! One rank of the cross-rank run (`mpit-conform __rank-worker <json>`, started by the
//! library's launcher): MPI_Init, rank and size, MPI_T_init_thread, the counts, the
//! decoded catalog, MPI_T_finalize, MPI_Finalize, and the whole as
//! `<dir>/rank-<r>.json`. Launchers mangle stdout, so nothing goes there; a rank that
//! stops early says why on stderr (the supervisor shows the launcher's stderr tail) and
//! in its file.

use super::{RankCall, RankDump, RankHello};
use crate::exec::calls::{self, Args};
use crate::exec::resolve_constant;
use crate::judge::value::Val;
use mpit_spec::cases::funcs::Func;
use mpit_spec::kind::Kind;
use mpit_target::{catalog, AbiChoice, Target};
use mpit_vocab::profile::ReturnCode;
use mpit_vocab::spec::ThreadLevel;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Environment variables in which launchers pass the rank (only for naming a process
/// that failed before MPI_Comm_rank).
const RANK_VARS: [&str; 3] = ["PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"];

/// Runs one rank; returns the exit code.
pub fn serve(h: &RankHello) -> i32 {
    // Tells the supervisor a rank process started (a launcher that refuses to run is not
    // a crash of the library).
    let _ = std::fs::File::create(h.dir.join(format!("started-{}", std::process::id())));
    let mut d = RankDump {
        rank: None,
        size: None,
        pid: std::process::id(),
        launcher_rank: RANK_VARS.iter().find_map(|v| std::env::var(v).ok()),
        calls: Vec::new(),
        dump: None,
        error: None,
        values: None,
    };
    let outcome = run(h, &mut d);
    if let Err(e) = &outcome {
        eprintln!(
            "mpit-conform rank {}: {e}",
            d.rank
                .map(|r| r.to_string())
                .or_else(|| d.launcher_rank.clone())
                .unwrap_or_else(|| "?".into())
        );
        d.error = Some(e.clone());
    }
    match write(&h.dir, &d) {
        Ok(_) if outcome.is_ok() => 0,
        Ok(_) => 1,
        Err(e) => {
            eprintln!("mpit-conform rank: cannot write its dump: {e}");
            2
        }
    }
}

/// Records one call; `Err` when it is not exported.
fn record(
    t: &Target,
    d: &mut RankDump,
    call: Func,
    got: Option<(i32, serde_json::Value)>,
) -> Result<bool, String> {
    let Some((rc, out)) = got else {
        d.calls.push(RankCall {
            call,
            rc: None,
            ok: false,
            out: serde_json::Value::Null,
        });
        return Err(format!("{} is not exported", call.c_name()));
    };
    let rc = t.rc(rc);
    let ok = rc == ReturnCode::Success;
    d.calls.push(RankCall {
        call,
        rc: Some(rc.to_string()),
        ok,
        out,
    });
    Ok(ok)
}

fn run(h: &RankHello, d: &mut RankDump) -> Result<(), String> {
    let abi: AbiChoice = h.hello.abi.parse()?;
    let t = Target::open(&h.hello.lib, &abi, h.hello.force).map_err(|e| e.to_string())?;
    let init = t.lib.mpi_init().map(|(rc, ())| (rc, json!({})));
    if !record(&t, d, Func::MpiInit, init)? {
        return Err("MPI_Init failed".into());
    }
    let world = resolve_constant(&t, "MPI_COMM_WORLD")? as u64;
    let rank = t.lib.comm_rank(world);
    let size = t.lib.comm_size(world);
    let ok_rank = record(
        &t,
        d,
        Func::CommRank,
        rank.map(|(rc, r)| (rc, json!({"rank": r}))),
    )?;
    let ok_size = record(
        &t,
        d,
        Func::CommSize,
        size.map(|(rc, n)| (rc, json!({"size": n}))),
    )?;
    if !(ok_rank && ok_size) {
        return Err("MPI_Comm_rank / MPI_Comm_size on MPI_COMM_WORLD failed".into());
    }
    d.rank = rank.map(|(_, r)| r);
    d.size = size.map(|(_, n)| n);
    // MPI_T after MPI_Init (R-GEN-4), at the lowest thread level every library provides.
    let single = t.profile.thread_level.num(ThreadLevel::Single).unwrap_or(0) as i32;
    let it = t
        .lib
        .init_thread(single)
        .map(|(rc, p)| (rc, json!({"provided": p})));
    if !record(&t, d, Func::InitThread, it)? {
        // MPI_Finalize anyway, so the launcher sees a clean end of this process.
        t.lib.mpi_finalize();
        return Err("MPI_T_init_thread failed".into());
    }
    // Each kind's `*_get_num`, through the case executor's engine.
    for k in Kind::ALL {
        let f = k.get_num();
        let got = calls::invoke(&t, &calls::NoHandles, f, &Args::List(&[])).map(|(rc, o)| {
            let n = o.get("num").and_then(Val::int).unwrap_or_default() as i64;
            (rc, json!({ "num": n }))
        });
        // The event and source calls are MPI-4.0: a library without them is still judged
        // on the rest (the suite reports them `unsupported`).
        let _ = record(&t, d, f, got);
    }
    match &h.values {
        // The values job: the pvars around MPI work between the ranks (values.rs).
        // Each call that could kill the process is written to `at-<rank>` first.
        Some(ask) => {
            let at_file = h.dir.join(format!("at-{}", d.rank.unwrap_or(-1)));
            let at = |call: &str| {
                let _ = std::fs::write(&at_file, call);
            };
            match super::values::measure(&t, ask, &at) {
                Ok(m) => d.values = Some(m),
                Err(e) => d.error = Some(e),
            }
        }
        None => d.dump = Some(Box::new(catalog::read(&t, true))),
    }
    let fin = t.lib.finalize().map(|(rc, ())| (rc, json!({})));
    let fin_ok = record(&t, d, Func::Finalize, fin)?;
    let mf = t.lib.mpi_finalize().map(|(rc, ())| (rc, json!({})));
    record(&t, d, Func::MpiFinalize, mf)?;
    if fin_ok {
        Ok(())
    } else {
        Err("MPI_T_finalize failed".into())
    }
}

/// Writes the dump as `rank-<r>.json`; a second process claiming the same rank (every
/// process a singleton: a launcher that does not start this library's processes as one
/// job) writes `rank-<r>.dup-<pid>.json` instead, so the supervisor can tell.
fn write(dir: &Path, d: &RankDump) -> std::io::Result<PathBuf> {
    let text = serde_json::to_vec(d).map_err(std::io::Error::other)?;
    let name = match d.rank {
        Some(r) => format!("rank-{r}.json"),
        None => format!("unknown-{}.json", d.pid),
    };
    let tmp = dir.join(format!(".{}.tmp", d.pid));
    std::fs::File::create(&tmp)?.write_all(&text)?;
    let path = dir.join(&name);
    // hard_link fails when the name is taken: no rank overwrites another's dump.
    let path = match std::fs::hard_link(&tmp, &path) {
        Ok(()) => path,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let dup = dir.join(format!(
                "{}.dup-{}.json",
                name.trim_end_matches(".json"),
                d.pid
            ));
            std::fs::rename(&tmp, &dup)?;
            return Ok(dup);
        }
        Err(e) => return Err(e),
    };
    std::fs::remove_file(&tmp)?;
    Ok(path)
}
