//! The MPI functions the cases need beside MPI_T (version, initialization, thread
//! level, communicators, info objects, sessions, MPI_Wtime), with MPI handles passed
//! as the target's ABI profile spells them.

use super::{int, outs, Args, Outs};
use crate::exec::resolve_constant;
use crate::judge::value::Val;
use mpit_spec::cases::funcs::Func;
use mpit_target::Target;

pub(super) fn call(t: &Target, f: Func, a: &Args) -> Outs {
    let lib = &t.lib;
    Some(match f {
        Func::GetVersion => lib
            .get_version()
            .map(|(rc, (v, s))| outs(rc, [("version", int(v)), ("subversion", int(s))]))?,
        Func::MpiInit => lib.mpi_init().map(|(rc, ())| outs(rc, []))?,
        Func::MpiFinalize => lib.mpi_finalize().map(|(rc, ())| outs(rc, []))?,
        Func::Initialized => lib
            .initialized()
            .map(|(rc, b)| outs(rc, [("flag", int(b as i32))]))?,
        Func::Finalized => lib
            .finalized()
            .map(|(rc, b)| outs(rc, [("flag", int(b as i32))]))?,
        Func::CommRank => lib
            .comm_rank(a.handle("comm") as u64)
            .map(|(rc, r)| outs(rc, [("rank", int(r))]))?,
        Func::CommSize => lib
            .comm_size(a.handle("comm") as u64)
            .map(|(rc, r)| outs(rc, [("size", int(r))]))?,
        Func::InfoCreate => lib
            .info_create()
            .map(|(rc, i)| outs(rc, [("info", int(i))]))?,
        Func::InfoSet => lib
            .info_set(a.handle("info") as u64, a.text("key"), a.text("value"))
            .map(|(rc, ())| outs(rc, []))?,
        Func::InfoGetNkeys => lib
            .info_get_nkeys(a.handle("info") as u64)
            .map(|(rc, n)| outs(rc, [("nkeys", int(n))]))?,
        Func::InfoFree => lib
            .info_free(a.handle("info") as u64)
            .map(|(rc, i)| outs(rc, [("info", int(i))]))?,
        Func::MpiInitThread => lib
            .mpi_init_thread(a.int("required"))
            .map(|(rc, p)| outs(rc, [("provided", int(p))]))?,
        Func::QueryThread => lib
            .query_thread()
            .map(|(rc, p)| outs(rc, [("provided", int(p))]))?,
        Func::SessionInit => {
            // The constants as a case names them (exec::resolve_constant); a profile
            // without them cannot make the call.
            let h = |n: &str| resolve_constant(t, n).ok().map(|v| v as u64);
            let (Some(info), Some(errh)) = (h("MPI_INFO_NULL"), h("MPI_ERRORS_RETURN")) else {
                return None;
            };
            lib.session_init(info, errh)
                .map(|(rc, s)| outs(rc, [("mpi_session", int(s))]))?
        }
        Func::SessionFinalize => lib
            .session_finalize(a.handle("mpi_session") as u64)
            .map(|(rc, s)| outs(rc, [("mpi_session", int(s))]))?,
        Func::CommDup => lib
            .comm_dup(a.handle("comm") as u64)
            .map(|(rc, c)| outs(rc, [("newcomm", int(c))]))?,
        Func::CommFree => lib
            .comm_free(a.handle("comm") as u64)
            .map(|(rc, c)| outs(rc, [("comm", int(c))]))?,
        Func::Wtime => outs(0, [("time", Val::Float(lib.wtime()?))]),
        // `calls::call` sends only this group here (`Func::group`); a row added to the
        // table without its call here stops at the first case that makes it.
        _ => unreachable!("{f:?} is not an MPI function with a call here"),
    })
}
