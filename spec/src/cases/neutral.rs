//! What the harness passes for a parameter a call leaves out (a step without it and no
//! variable of its name): one table, read by the case executor, the C reproducer and
//! the differential oracle's target engine, so a reproducer passes what the harness
//! passed.

use super::funcs::Func;

/// The value of a left-out parameter ([`Func::neutral`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Neutral {
    /// A predefined constant by its standard name, as the target's ABI spells it: the
    /// NULL handle of the parameter's kind, MPI_THREAD_SINGLE, MPI_COMM_WORLD, ...
    Constant(&'static str),
    /// A number: an array's or a buffer's length (room for what the call returns), or 0.
    Int(i64),
}

impl Func {
    /// The value passed for `param` when a call leaves it out ([`Neutral`]).
    pub fn neutral(self, param: &str) -> Neutral {
        use Neutral::{Constant, Int};
        match param {
            "required" => Constant("MPI_THREAD_SINGLE"),
            "handle" if self.c_name().contains("_cvar_") => Constant("MPI_T_CVAR_HANDLE_NULL"),
            "handle" => Constant("MPI_T_PVAR_HANDLE_NULL"),
            "session" => Constant("MPI_T_PVAR_SESSION_NULL"),
            "enumtype" => Constant("MPI_T_ENUM_NULL"),
            "info" => Constant("MPI_INFO_NULL"),
            "comm" => Constant("MPI_COMM_WORLD"),
            "cb_safety" => Constant("MPI_T_CB_REQUIRE_NONE"),
            "len" | "capacity" | "bytes" => Int(64),
            // An event registration among the rest: MPI-4.1 names no NULL registration,
            // and no ABI profile or mpi.h defines one.
            _ => Int(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cases::expr::constant_kind;

    /// A parameter left out is passed as a constant the case language knows (the
    /// executor resolves it by that name in the target's ABI profile, the C reproducer
    /// writes it), and a handle's NULL is its own kind's.
    #[test]
    fn neutral_values_are_known_constants_of_the_parameters_kind() {
        let mut constants = 0;
        for f in Func::ALL {
            for (p, _) in f.params() {
                if let Neutral::Constant(c) = f.neutral(p) {
                    assert!(constant_kind(c).is_some(), "{}: {p}: {c}", f.yaml());
                    constants += 1;
                }
            }
        }
        assert!(constants > 20, "{constants}");
        let handle = |f: Func| f.neutral("handle");
        assert_eq!(
            handle(Func::CvarRead),
            Neutral::Constant("MPI_T_CVAR_HANDLE_NULL")
        );
        assert_eq!(
            handle(Func::PvarRead),
            Neutral::Constant("MPI_T_PVAR_HANDLE_NULL")
        );
        assert_eq!(Func::EventGetInfo.neutral("capacity"), Neutral::Int(64));
    }
}
