//! Categories (MPI-4.1 §15.3.9) and enumerations (§15.3.5).

use super::strings::{Nulls, StrSlot};
use super::{Called, Lib, Members, RawHandle, StrArg, StrOut, GUARD};
use std::ffi::c_int;

/// Every OUT value of `MPI_T_category_get_info`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawCategoryInfo {
    pub name: StrOut,
    pub desc: StrOut,
    pub num_cvars: c_int,
    pub num_pvars: c_int,
    pub num_categories: c_int,
}

impl Lib {
    pub fn category_get_num(&self) -> Called<i32> {
        Self::get_num(self.raw.category_get_num)
    }

    /// `MPI_T_category_changed(&update_number)` (R-CAT-1).
    pub fn category_changed(&self) -> Called<i32> {
        Self::get_num(self.raw.category_changed)
    }

    pub fn category_get_index(&self, name: &str) -> Called<i32> {
        Self::get_index(self.raw.category_get_index, name)
    }

    pub fn category_get_info(&self, i: i32, name: StrArg, desc: StrArg) -> Called<RawCategoryInfo> {
        self.category_get_info_nulls(i, name, desc, Nulls::NONE)
    }

    /// `MPI_T_category_get_info` with the OUT arguments `nulls` names passed as NULL.
    pub fn category_get_info_nulls(
        &self,
        i: i32,
        name: StrArg,
        desc: StrArg,
        nulls: Nulls,
    ) -> Called<RawCategoryInfo> {
        let f = self.raw.category_get_info?;
        let (mut n, mut d) = (StrSlot::new(name), StrSlot::new(desc));
        let mut o = RawCategoryInfo::default();
        // SAFETY: as in `cvar_get_info`.
        let rc = unsafe {
            f(
                i,
                n.buf_ptr(),
                n.len_ptr(),
                d.buf_ptr(),
                d.len_ptr(),
                nulls.ptr("num_cvars", &mut o.num_cvars),
                nulls.ptr("num_pvars", &mut o.num_pvars),
                nulls.ptr("num_categories", &mut o.num_categories),
            )
        };
        o.name = n.out();
        o.desc = d.out();
        Some((rc, o))
    }

    /// `MPI_T_category_get_info` asking only for the name: every other OUT argument
    /// NULL (R-CVAR-3's rule for the *_get_info functions).
    pub fn category_get_info_name_only(&self, i: i32, name: StrArg) -> Called<StrOut> {
        let f = self.raw.category_get_info?;
        let mut n = StrSlot::new(name);
        use std::ptr::null_mut as null;
        // SAFETY: the name pair is NULL or storage of this frame (as in `cvar_get_info`);
        // every other OUT pointer is NULL.
        let rc = unsafe {
            f(
                i,
                n.buf_ptr(),
                n.len_ptr(),
                null(),
                null(),
                null(),
                null(),
                null(),
            )
        };
        Some((rc, n.out()))
    }

    pub fn category_get_num_events(&self, i: i32) -> Called<i32> {
        let f = self.raw.category_get_num_events?;
        let mut n = -1;
        // SAFETY: a valid int pointer.
        Some((unsafe { f(i, &mut n) }, n))
    }

    /// `MPI_T_category_get_{cvars,pvars,events,categories}` into an array of `len` ints
    /// pre-filled with `sentinel`, so entries the call must not touch can be checked.
    pub fn category_members(
        &self,
        which: Members,
        cat: i32,
        len: usize,
        sentinel: i32,
    ) -> Called<Vec<i32>> {
        let f = match which {
            Members::Cvars => self.raw.category_get_cvars,
            Members::Pvars => self.raw.category_get_pvars,
            Members::Events => self.raw.category_get_events,
            Members::Categories => self.raw.category_get_categories,
        }?;
        let mut v = vec![sentinel; len];
        // SAFETY: the array holds `len` ints and `len` is passed.
        let rc = unsafe { f(cat, len as c_int, v.as_mut_ptr()) };
        Some((rc, v))
    }

    /// As [`Lib::category_members`], with [`GUARD`] more sentinel entries past the `len`
    /// the call is told about: the second value says whether the call wrote into them (an
    /// overrun of `indices[]`, R-CAT-1), caught entry-exactly instead of corrupting memory.
    pub fn category_members_guarded(
        &self,
        which: Members,
        cat: i32,
        len: usize,
        sentinel: i32,
    ) -> Called<(Vec<i32>, bool)> {
        let f = match which {
            Members::Cvars => self.raw.category_get_cvars,
            Members::Pvars => self.raw.category_get_pvars,
            Members::Events => self.raw.category_get_events,
            Members::Categories => self.raw.category_get_categories,
        }?;
        let mut v = vec![sentinel; len + GUARD];
        // SAFETY: the array holds `len + GUARD` ints and `len` is passed.
        let rc = unsafe { f(cat, len as c_int, v.as_mut_ptr()) };
        let overrun = v[len..].iter().any(|x| *x != sentinel);
        v.truncate(len);
        Some((rc, (v, overrun)))
    }

    pub fn enum_get_info(&self, e: RawHandle, name: StrArg) -> Called<(i32, StrOut)> {
        self.enum_get_info_nulls(e, name, Nulls::NONE)
    }

    /// `MPI_T_enum_get_info` with `num` NULL when `nulls` names it.
    pub fn enum_get_info_nulls(
        &self,
        e: RawHandle,
        name: StrArg,
        nulls: Nulls,
    ) -> Called<(i32, StrOut)> {
        let f = self.raw.enum_get_info?;
        let mut n = StrSlot::new(name);
        let mut num = -1;
        // SAFETY: `e` is a value the library returned as an enum handle; the others are
        // NULL or storage of this frame.
        let rc = unsafe { f(e, nulls.ptr("num", &mut num), n.buf_ptr(), n.len_ptr()) };
        Some((rc, (num, n.out())))
    }

    pub fn enum_get_item(&self, e: RawHandle, item: i32, name: StrArg) -> Called<(i32, StrOut)> {
        self.enum_get_item_nulls(e, item, name, Nulls::NONE)
    }

    /// `MPI_T_enum_get_item` with `value` NULL when `nulls` names it.
    pub fn enum_get_item_nulls(
        &self,
        e: RawHandle,
        item: i32,
        name: StrArg,
        nulls: Nulls,
    ) -> Called<(i32, StrOut)> {
        let f = self.raw.enum_get_item?;
        let mut n = StrSlot::new(name);
        let mut value = 0;
        // SAFETY: as in `enum_get_info`.
        let rc = unsafe {
            f(
                e,
                item,
                nulls.ptr("value", &mut value),
                n.buf_ptr(),
                n.len_ptr(),
            )
        };
        Some((rc, (value, n.out())))
    }
}
