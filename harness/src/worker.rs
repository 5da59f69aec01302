//! The worker side: the same binary re-executed (`mpit-conform __worker`), the only
//! process that loads vendor code. It answers one request with one JSON document on
//! stdout; a crash or hang is the supervisor's to observe.

use crate::target::{catalog, AbiChoice, Target};
use mpit_reference::profile::ReturnCode;
use mpit_reference::spec::ThreadLevel;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A request to a worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    pub lib: PathBuf,
    pub abi: String,
    pub force: bool,
    /// Call MPI_Init (singleton) before reading the catalog.
    pub after_init: bool,
}

/// A worker's answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Reply {
    Catalog(Box<catalog::CatalogDump>),
    /// The target could not be loaded or started (exit code 2 territory).
    CannotRun(String),
}

/// Serves one request; returns the process exit code.
pub fn serve(req: &Request) -> i32 {
    let reply = answer(req);
    match serde_json::to_string(&reply) {
        Ok(s) => {
            println!("{s}");
            0
        }
        Err(e) => {
            eprintln!("mpit-conform worker: cannot encode reply: {e}");
            2
        }
    }
}

fn answer(req: &Request) -> Reply {
    let abi: AbiChoice = match req.abi.parse() {
        Ok(a) => a,
        Err(e) => return Reply::CannotRun(e),
    };
    let t = match Target::open(&req.lib, &abi, req.force) {
        Ok(t) => t,
        Err(e) => return Reply::CannotRun(e.to_string()),
    };
    if req.after_init {
        match t.lib.mpi_init() {
            Some((rc, ())) if t.rc(rc) == ReturnCode::Success => {}
            Some((rc, ())) => return Reply::CannotRun(format!("MPI_Init returned {}", t.rc(rc))),
            None => return Reply::CannotRun("MPI_Init is not exported".into()),
        }
    }
    let Some(single) = t.profile.thread_level.num(ThreadLevel::Single) else {
        return Reply::CannotRun("the ABI profile defines no MPI_THREAD_SINGLE".into());
    };
    let single = single as i32;
    match t.lib.init_thread(single) {
        Some((rc, _)) if t.rc(rc) == ReturnCode::Success => {}
        Some((rc, _)) => {
            return Reply::CannotRun(format!("MPI_T_init_thread returned {}", t.rc(rc)))
        }
        None => return Reply::CannotRun("MPI_T_init_thread is not exported".into()),
    }
    let dump = catalog::read(&t, req.after_init);
    t.lib.finalize();
    if req.after_init {
        t.lib.mpi_finalize();
    }
    Reply::Catalog(Box::new(dump))
}
