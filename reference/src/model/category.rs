//! MPI-4.1 §15.3.9: categories (R-CAT-1) and the category_changed update number.

use super::Model;
use crate::faults::Fault;
use mpit_vocab::catalog::Category;
use mpit_vocab::spec::{Members, TErr, TResult};

/// What `MPI_T_category_get_info` returns.
#[derive(Debug, Clone, PartialEq)]
pub struct CategoryInfo {
    pub name: String,
    pub desc: Option<String>,
    pub num_cvars: i32,
    pub num_pvars: i32,
    pub num_categories: i32,
}

#[derive(Debug, Clone)]
pub(super) struct CategoryState {
    /// The update number; MPI-4.1 saturates it at the largest int.
    stamp: i32,
    /// Calls of category_changed (fault `category-changed-decreasing`).
    calls: i32,
}

impl Default for CategoryState {
    fn default() -> Self {
        CategoryState { stamp: 1, calls: 0 }
    }
}

impl Model {
    fn category_visible(&self) -> usize {
        if self.catalog_skipped() {
            return 0;
        }
        self.visible_count(&self.cat.categories, |c| c.appears)
    }

    /// Records that categories were added or expanded.
    pub(super) fn category_bump(&mut self) {
        if self.fault(Fault::CategoryChangedNotBumped) {
            return;
        }
        self.category.stamp = self.category.stamp.saturating_add(1);
    }

    fn category(&self, i: i32) -> TResult<(usize, &Category)> {
        self.require_init()?;
        let i = self.index(i, self.category_visible())?;
        Ok((i, &self.cat.categories[i]))
    }

    /// Visible member indices of one kind, in catalog order (R-CAT-1: members are only
    /// ever appended).
    fn members(&self, ci: usize, which: Members) -> Vec<i32> {
        let c = &self.cat.categories[ci];
        let mut out: Vec<i32> = match which {
            Members::Cvars => c
                .cvars
                .iter()
                .filter_map(|n| self.cvar_get_index(n).ok())
                .collect(),
            Members::Pvars => c
                .pvars
                .iter()
                .filter_map(|p| self.pvar_get_index(&p.name, p.class).ok())
                .collect(),
            Members::Events => c
                .events
                .iter()
                .filter_map(|n| self.event_get_index(n).ok())
                .collect(),
            Members::Categories => c
                .categories
                .iter()
                .filter_map(|n| self.category_get_index(n).ok())
                .collect(),
        };
        if which == Members::Categories && ci == 0 && self.fault(Fault::CategoryCycle) {
            out.push(0);
        }
        // Fault `upstream-ompi-d843f7ae74`: MPI_Init's deregistration of unselected
        // components reset their groups, emptying the categories of the first one.
        if ci == 0
            && self.mpi != super::MpiState::NotInitialized
            && self.fault(Fault::UpstreamOmpiD843f7ae74)
        {
            out.clear();
        }
        out
    }

    /// `MPI_T_category_get_num`.
    pub fn category_get_num(&self) -> TResult<i32> {
        self.require_init()?;
        Ok(self.category_visible() as i32)
    }

    /// `MPI_T_category_get_info`.
    pub fn category_get_info(&self, i: i32) -> TResult<CategoryInfo> {
        let (ci, c) = self.category(i)?;
        let extra = i32::from(self.fault(Fault::CategoryCountMismatch));
        Ok(CategoryInfo {
            name: c.name.clone(),
            desc: c.desc.clone(),
            num_cvars: self.members(ci, Members::Cvars).len() as i32 + extra,
            num_pvars: self.members(ci, Members::Pvars).len() as i32,
            num_categories: self.members(ci, Members::Categories).len() as i32,
        })
    }

    /// `MPI_T_category_get_num_events` (MPI-4.0).
    pub fn category_get_num_events(&self, i: i32) -> TResult<i32> {
        let (ci, _) = self.category(i)?;
        Ok(self.members(ci, Members::Events).len() as i32)
    }

    /// `MPI_T_category_get_index`: INVALID_NAME if no visible category has the name.
    pub fn category_get_index(&self, name: &str) -> TResult<i32> {
        self.require_init()?;
        self.cat.categories[..self.category_visible()]
            .iter()
            .position(|c| c.name == name)
            .map(|i| i as i32)
            .ok_or(TErr::InvalidName)
    }

    /// `MPI_T_category_get_{cvars,pvars,events,categories}(cat, len, indices)`: the entries
    /// to write at the start of `indices`. R-CAT-1: at most `len`; entries past the
    /// category's count stay untouched, so the C ABI writes exactly these.
    pub fn category_get_members(&self, i: i32, which: Members, len: i32) -> TResult<Vec<i32>> {
        let (ci, _) = self.category(i)?;
        if len < 0 {
            return Err(TErr::Invalid);
        }
        let mut m = self.members(ci, which);
        m.truncate(len as usize);
        if which == Members::Cvars && self.fault(Fault::GetCvarsWritesPastLen) {
            m.push(0);
        }
        Ok(m)
    }

    /// `MPI_T_category_changed`: monotonically increasing (R-CAT-1; 4.1 saturates).
    pub fn category_changed(&mut self) -> TResult<i32> {
        self.require_init()?;
        self.category.calls = self.category.calls.saturating_add(1);
        if self.fault(Fault::CategoryChangedDecreasing) {
            return Ok(self.category.stamp.saturating_sub(self.category.calls));
        }
        Ok(self.category.stamp)
    }
}

#[cfg(test)]
mod tests {
    use crate::faults::{Fault, Faults};
    use crate::model::Model;
    use mpit_vocab::catalog::Catalog;
    use mpit_vocab::spec::Members;
    use mpit_vocab::spec::{TErr, ThreadLevel};
    use std::collections::BTreeSet;

    fn model(f: Faults) -> Model {
        let mut m = Model::new(Catalog::default_catalog(), f);
        m.init_thread(ThreadLevel::Single).unwrap();
        m
    }

    /// R-CAT-1: acyclic, members valid, counts consistent with get_*.
    #[test]
    fn categories_are_acyclic_and_consistent() {
        let mut m = model(Faults::none());
        m.mpi_init().unwrap();
        let n = m.category_get_num().unwrap();
        for i in 0..n {
            let info = m.category_get_info(i).unwrap();
            let cv = m.category_get_members(i, Members::Cvars, 1000).unwrap();
            assert_eq!(cv.len() as i32, info.num_cvars);
            for c in &cv {
                assert!(m.cvar_get_info(*c).is_ok());
            }
            let pv = m.category_get_members(i, Members::Pvars, 1000).unwrap();
            assert_eq!(pv.len() as i32, info.num_pvars);
            let ev = m.category_get_members(i, Members::Events, 1000).unwrap();
            assert_eq!(ev.len() as i32, m.category_get_num_events(i).unwrap());
            // DFS: no category reaches itself.
            let mut stack = m
                .category_get_members(i, Members::Categories, 1000)
                .unwrap();
            let mut seen = BTreeSet::new();
            while let Some(c) = stack.pop() {
                assert_ne!(c, i, "cycle through {}", info.name);
                if seen.insert(c) {
                    stack.extend(
                        m.category_get_members(c, Members::Categories, 1000)
                            .unwrap(),
                    );
                }
            }
        }
        assert_eq!(m.category_get_index("nope"), Err(TErr::InvalidName));
    }

    /// R-CAT-1: with len smaller than the count, exactly len entries.
    #[test]
    fn len_limits_entries() {
        let m = model(Faults::none());
        let i = m.category_get_index("ref_cat_p2p").unwrap();
        assert_eq!(
            m.category_get_members(i, Members::Cvars, 2).unwrap().len(),
            2
        );
        assert_eq!(
            m.category_get_members(i, Members::Cvars, 0).unwrap().len(),
            0
        );
    }

    /// Membership only grows across MPI_Init, as a suffix.
    #[test]
    fn membership_grows_at_the_end() {
        let mut m = model(Faults::none());
        let i = m.category_get_index("ref_cat_p2p").unwrap();
        let before = m.category_get_members(i, Members::Cvars, 100).unwrap();
        m.mpi_init().unwrap();
        let after = m.category_get_members(i, Members::Cvars, 100).unwrap();
        assert!(after.len() > before.len());
        assert_eq!(&after[..before.len()], &before[..]);
    }

    #[test]
    fn fault_category_cycle() {
        let m = model(Faults::one(Fault::CategoryCycle));
        assert!(m
            .category_get_members(0, Members::Categories, 100)
            .unwrap()
            .contains(&0));
    }

    #[test]
    fn fault_get_cvars_writes_past_len() {
        let m = model(Faults::one(Fault::GetCvarsWritesPastLen));
        let i = m.category_get_index("ref_cat_p2p").unwrap();
        assert_eq!(
            m.category_get_members(i, Members::Cvars, 1).unwrap().len(),
            2
        );
    }

    #[test]
    fn fault_category_changed_decreasing() {
        let mut m = model(Faults::one(Fault::CategoryChangedDecreasing));
        let a = m.category_changed().unwrap();
        assert!(m.category_changed().unwrap() < a);
    }

    #[test]
    fn fault_category_count_mismatch() {
        let m = model(Faults::one(Fault::CategoryCountMismatch));
        let i = m.category_get_index("ref_cat_p2p").unwrap();
        let info = m.category_get_info(i).unwrap();
        assert_ne!(
            info.num_cvars as usize,
            m.category_get_members(i, Members::Cvars, 100)
                .unwrap()
                .len()
        );
    }
}
