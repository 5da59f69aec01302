//! What each parameter of the function table is for, and what each handle holds: the
//! one classification of the table's parameter and OUT names, read off a row (a
//! parameter's name and [`Param`], and the kind the function is about, [`Func::kind`]).
//! The differential generator (`harness/src/differential/gen/plan.rs`), the
//! `reference_ffi` fuzz oracle (`harness/src/fuzzing/reference_ffi/roles.rs`) and the
//! differential's handle tables (`differential::HandleKind::of`) read it here and draw
//! their values by it; none of them matches a parameter name of its own.

use super::funcs::{Func, Param};
use crate::kind::Kind;
use serde::{Deserialize, Serialize};

/// What a handle parameter or OUT holds (MPI-4.1 §15.3.6 to §15.3.8, and the MPI
/// objects the chapter hands out: info objects, enumerations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum HandleKind {
    /// A cvar handle (`handle` of a cvar function).
    Cvar,
    /// A pvar session.
    Session,
    /// A pvar handle (`handle` of a pvar function).
    Pvar,
    /// An event registration.
    Registration,
    /// An event instance (valid only inside its callback).
    Instance,
    /// An `MPI_Info`.
    Info,
    /// An `MPI_T_enum`.
    Enumtype,
}

/// What a parameter is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `index`: an index of the kind the function is about (`None`: a function of no
    /// kind).
    Index(Option<Kind>),
    /// `item`: an item of the call's enumtype.
    Item,
    /// `element`: an element of an event instance's data.
    Element,
    /// A handle (`None`: an MPI object of no kind here, `comm`).
    Handle(Option<HandleKind>),
    /// A (buf, len) pair of the string convention (MPI-4.1 §15.3.3).
    Str,
    /// `name` of a `*_get_index`: a name of the kind's catalog.
    Name(Kind),
    /// Another input string (an info key or value).
    Text,
    /// `required`: a thread level (R-INIT-1).
    ThreadLevel,
    /// `cb_safety`: a callback safety level (R-EVT-CB).
    CbSafety,
    /// `var_class`: a pvar class (R-PVAR-4).
    PvarClass,
    /// `len`: a category's member array length.
    Len,
    /// `capacity`: the length of event_get_info's datatypes and displacements arrays.
    Capacity,
    /// `bytes`: the size of an event instance's buffer.
    Bytes,
    /// `steps`: the reference's simulate steps.
    Steps,
    /// `tag`: a callback's `user_data`.
    Tag,
    /// `obj_handle`: NULL or the address of an MPI handle.
    Obj,
    /// Bytes to write through a handle.
    Data,
    /// 0 or 1.
    Flag,
    /// Another `int`.
    Int,
}

impl Func {
    /// The kind of the handle a parameter or OUT named `name` holds: a `handle` is a
    /// handle of the variables the function is about (cvar or pvar), a `session` a pvar
    /// session. `None` for a name that holds no handle of the chapter (`comm`, ints).
    pub fn handle_kind(self, name: &str) -> Option<HandleKind> {
        Some(match name {
            "handle" if self.kind() == Some(Kind::Cvar) => HandleKind::Cvar,
            "handle" => HandleKind::Pvar,
            "session" => HandleKind::Session,
            "registration" => HandleKind::Registration,
            "instance" => HandleKind::Instance,
            "info" => HandleKind::Info,
            "enumtype" => HandleKind::Enumtype,
            _ => return None,
        })
    }

    /// The role of the parameter `name` (`None`: no such parameter).
    pub fn role(self, name: &str) -> Option<Role> {
        let p = self.param(name)?;
        let kind = self.kind();
        Some(match p {
            Param::Handle => Role::Handle(self.handle_kind(name)),
            Param::Str => Role::Str,
            Param::Text => match (name, kind) {
                ("name", Some(k)) => Role::Name(k),
                _ => Role::Text,
            },
            Param::Obj => Role::Obj,
            Param::Data => Role::Data,
            Param::Flag => Role::Flag,
            Param::Int => match name {
                "index" => Role::Index(kind),
                "item" => Role::Item,
                "element" => Role::Element,
                "required" => Role::ThreadLevel,
                "cb_safety" => Role::CbSafety,
                "var_class" => Role::PvarClass,
                "len" => Role::Len,
                "capacity" => Role::Capacity,
                "bytes" => Role::Bytes,
                "steps" => Role::Steps,
                "tag" => Role::Tag,
                _ => Role::Int,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every handle parameter of an MPI_T function holds a handle of a known kind, and
    /// every parameter has a role.
    #[test]
    fn every_handle_parameter_has_a_kind() {
        for f in Func::ALL {
            for (n, p) in f.params() {
                let r = f.role(n).expect("a parameter has a role");
                if *p == Param::Handle && f.c_name().starts_with("MPI_T_") {
                    assert_ne!(r, Role::Handle(None), "{}: {n}", f.yaml());
                }
            }
        }
        assert_eq!(
            Func::CvarWrite.role("handle"),
            Some(Role::Handle(Some(HandleKind::Cvar)))
        );
        assert_eq!(
            Func::PvarRead.role("handle"),
            Some(Role::Handle(Some(HandleKind::Pvar)))
        );
    }
}
