//! What one `reference_ffi` input is made of: a sequence of calls, each a function of
//! the table (`cases::funcs::Func`) the oracle may call (its `roles::Plan`) and one value
//! per parameter, decoded from the fuzzer's bytes with `arbitrary` by the parameter's
//! role (`roles::role`): the values that find bugs (the handles the run holds, handles it
//! freed, predefined handles, 0, 1, small numbers, numbers near real handles, any
//! number), not one decoder per function.

use super::roles::{Plan, Role};
use arbitrary::{Arbitrary, Unstructured};

/// A handle argument (pointer-sized MPI_T handle or MPI object handle).
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum H {
    /// 0: every MPI_T `*_NULL` handle of the standard ABI.
    Zero,
    /// 1: `MPI_T_PVAR_ALL_HANDLES` in the standard ABI.
    One,
    Small(u8),
    /// A live handle of the pool the parameter draws from (k-th, wrapping).
    Typed(u8),
    /// A live handle of any pool (k-th, wrapping), moved by `delta`: a handle of the
    /// wrong kind, or a number near a real one.
    Live(u8, i8),
    /// A handle this run freed or an event instance after its callback returned
    /// (k-th from the most recent, wrapping).
    Freed(u8),
    /// A predefined handle value of the profile (`MPI_COMM_WORLD`, datatypes, ...).
    Predefined(u8),
    Any(u64),
}

/// An index argument.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Idx {
    /// `k mod (n + 2)`: mostly valid, sometimes just past the end.
    In(u8),
    Any(i32),
}

/// A constant of an enum-like table (thread level, cb safety, pvar class).
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Konst {
    /// The k-th constant the profile defines (wrapping).
    Known(u8),
    Any(i32),
}

/// One (buf, len) pair of the string convention. The buffer is never smaller than
/// `*len` says: a caller lying about its buffer is undefined behaviour (R-GEN-3), not
/// something the reference can check.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum S {
    /// A buffer of n bytes, `*len = n`.
    Sized(u8),
    /// A buffer of `cap` bytes, `*len = n mod (cap + 1)`.
    Roomy { cap: u8, n: u8 },
    /// NULL buffer with this `*len` (R-STR-3).
    NullBuf(i8),
    /// A buffer, `*len` zero or negative (R-STR-3).
    NonPositive(i8),
    /// NULL length pointer, with or without a buffer (R-STR-4).
    NullLen(bool),
}

/// A name argument of `*_get_index`.
#[derive(Debug, Clone, Arbitrary)]
pub enum Name {
    /// The name of the k-th entry of the catalog (wrapping).
    Real(u8),
    /// A real name with one byte changed or cut.
    Mangled(u8, u8),
    Any(String),
}

/// `obj_handle` of the `*_handle_alloc` calls: NULL or a local variable holding a value.
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum Obj {
    Null,
    Holding(H),
}

/// One parameter's value as decoded, before the run resolves it against what it holds.
#[derive(Debug, Clone)]
pub enum Gen {
    Handle(H),
    Index(Idx),
    Const(Konst),
    Byte(u8),
    Signed(i8),
    Str(S),
    Name(Name),
    Text(String),
    Obj(Obj),
    Data(Vec<u8>),
    Flag(bool),
    /// Derived from the other arguments, not from the input (`Role::Tag`).
    Derived,
}

/// One call: the function's plan, a value per parameter (in the plan's order), and for
/// a read through a handle the buffer's slack beyond what the variable needs. The values
/// stand in a vector the caller keeps from call to call (`call`), so decoding allocates
/// nothing for them; resolving takes the strings and bytes out of them.
#[derive(Debug)]
pub struct Call<'p, 'g> {
    pub plan: &'p Plan,
    pub gens: &'g mut [Gen],
    pub slack: u8,
}

/// Decodes one call among `callable` (not empty), its values into `gens` (cleared
/// first).
pub fn call<'p, 'g>(
    u: &mut Unstructured,
    callable: &'p [Plan],
    gens: &'g mut Vec<Gen>,
) -> arbitrary::Result<Call<'p, 'g>> {
    let plan = u.choose(callable)?;
    gens.clear();
    for (_, r) in &plan.params {
        gens.push(match r {
            Role::Handle(_) => Gen::Handle(H::arbitrary(u)?),
            Role::Index(_) => Gen::Index(Idx::arbitrary(u)?),
            Role::Const(_) => Gen::Const(Konst::arbitrary(u)?),
            Role::Size { .. } => Gen::Byte(u8::arbitrary(u)?),
            Role::Steps => Gen::Signed(i8::arbitrary(u)?),
            Role::Tag => Gen::Derived,
            Role::Str => Gen::Str(S::arbitrary(u)?),
            Role::Name(_) => Gen::Name(Name::arbitrary(u)?),
            Role::Text => Gen::Text(String::arbitrary(u)?),
            Role::Obj => Gen::Obj(Obj::arbitrary(u)?),
            Role::Data => Gen::Data(Vec::<u8>::arbitrary(u)?),
            Role::Flag => Gen::Flag(bool::arbitrary(u)?),
        });
    }
    let slack = match plan.slack {
        true => u8::arbitrary(u)?,
        false => 0,
    };
    Ok(Call {
        plan,
        gens: gens.as_mut_slice(),
        slack,
    })
}
