//! The MPI constants a case names (`MPI_T_ERR_INVALID_INDEX`, `MPI_COMM_WORLD`,
//! `MPI_INT`) as the target spells them: from its ABI profile, or the handle values read
//! from the library. Also used outside a case (the capability probe, the cross-rank
//! run, `MPI_Session_init`'s arguments).

use super::Exec;
use mpit_spec::cases::expr::{constant_kind, ConstKind};
use mpit_target::Target;
use mpit_vocab::profile::HandleWidth;

impl Exec<'_, '_> {
    pub(super) fn constant(&self, name: &str) -> Result<i64, String> {
        resolve_constant(self.ctx.t, name)
    }
}

/// A constant of a case (`MPI_T_ERR_INVALID_INDEX`, `MPI_COMM_WORLD`) as this target
/// spells it.
pub fn resolve_constant(t: &Target, name: &str) -> Result<i64, String> {
    let p = &t.profile;
    let missing = || format!("{name} is not defined by the {} ABI profile", p.family);
    match constant_kind(name).ok_or_else(|| format!("unknown constant {name}"))? {
        ConstKind::Success => Ok(p.success),
        ConstKind::LastCode => Ok(p.err_lastcode),
        ConstKind::TErr(e) => p.code(e).ok_or_else(missing),
        ConstKind::ThreadLevel(x) => p.thread_level.num(x).ok_or_else(missing),
        ConstKind::Verbosity(x) => p.verbosity.num(x).ok_or_else(missing),
        ConstKind::Bind(x) => p.bind.num(x).ok_or_else(missing),
        ConstKind::Scope(x) => p.scope.num(x).ok_or_else(missing),
        ConstKind::PvarClass(x) => p.pvar_class.num(x).ok_or_else(missing),
        ConstKind::CbSafety(x) => p.cb_safety.num(x).ok_or_else(missing),
        ConstKind::SourceOrder(x) => p.source_order.num(x).ok_or_else(missing),
        ConstKind::Datatype(d) => t.datatype_handle(d).map(|v| v as i64).ok_or_else(missing),
        ConstKind::Handle => {
            let v = t
                .handles
                .get(name)
                .map(|v| *v as i64)
                .or_else(|| p.handle_num(name))
                .ok_or_else(missing)?;
            // MPICH's MPI handles are ints: pass them as the int they are.
            Ok(match p.mpi_handle_width {
                HandleWidth::Int if name.starts_with("MPI_") && !name.starts_with("MPI_T_") => {
                    v & 0xffff_ffff
                }
                _ => v,
            })
        }
    }
}
