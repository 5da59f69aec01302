//! MPI-4.1 §15.3.4: MPI_T_init_thread / MPI_T_finalize (refcounted), and the model of
//! MPI_Init / MPI_Finalize, which may add variables (R-CVAR-1, R-INIT-5).

use super::{Model, MpiState};
use crate::faults::Fault;
use mpit_vocab::spec::{TErr, TResult, ThreadLevel};

impl Model {
    /// `MPI_T_init_thread`: R-INIT-1, nesting increments a reference count. The reference
    /// is MPI_THREAD_MULTIPLE-safe, so it provides what was asked for.
    pub fn init_thread(&mut self, required: ThreadLevel) -> TResult<ThreadLevel> {
        self.cycles_exhausted()?;
        self.t_init_touches_mpi_thread(required);
        if self.init_uncounted_here() {
            return Ok(required);
        }
        if self.fault(Fault::RefcountIgnored) {
            self.init_count = 1;
        } else {
            self.init_count = self.init_count.checked_add(1).ok_or(TErr::CannotInit)?;
        }
        Ok(required)
    }

    /// `MPI_T_finalize`: R-FIN-1/2, the last matching call uninitializes; one more returns
    /// NOT_INITIALIZED (the strict reading of "a corresponding return code").
    pub fn finalize(&mut self) -> TResult<()> {
        if self.init_count == 0 {
            return if self.fault(Fault::ExtraFinalizeAccepted) {
                Ok(())
            } else {
                Err(TErr::NotInitialized)
            };
        }
        self.init_count -= 1;
        if self.init_count == 0 {
            self.note_full_finalize();
            // The text says nothing of handles and sessions across a full finalize (the
            // catalog it keeps: §15.3.6, "not allowed to change the index of a control
            // variable or to delete a variable"): the reference frees them, and a call
            // with one afterwards passes an invalid parameter value (R-GEN-3).
            self.drop_runtime_objects();
            self.cvar_values_freed();
            // The string convention holds in every initialization: this fault breaks it
            // only in the ones after the first.
            if self.fault(Fault::OverrunAfterReinit) {
                self.faults.switch_on(Fault::OverrunOneByte);
            }
        }
        Ok(())
    }

    /// `MPI_Init` (singleton): entries marked `appears: mpi_init` become visible, appended
    /// after the others; categories changed, so the update number grows.
    pub fn mpi_init(&mut self) -> TResult<()> {
        if self.mpi != MpiState::NotInitialized {
            return Err(TErr::Invalid);
        }
        self.world_thread_default();
        let before = self.catalog_size();
        self.mpi = MpiState::Initialized;
        if self.catalog_size() != before {
            self.category_bump();
        }
        Ok(())
    }

    /// `MPI_Finalize`: MPI_T stays usable (R-GEN-4); nothing is removed (R-CVAR-1).
    pub fn mpi_finalize(&mut self) -> TResult<()> {
        if self.mpi != MpiState::Initialized {
            return Err(TErr::Invalid);
        }
        self.mpi = MpiState::Finalized;
        Ok(())
    }

    fn catalog_size(&self) -> usize {
        let c = &self.cat;
        self.visible_count(&c.cvars, |v| v.appears)
            + self.visible_count(&c.pvars, |v| v.appears)
            + self.visible_count(&c.categories, |v| v.appears)
            + self.visible_count(&c.events, |v| v.appears)
            + self.visible_count(&c.sources, |v| v.appears)
    }

    fn drop_runtime_objects(&mut self) {
        self.cvar.handles.clear();
        self.pvar.clear_sessions();
        self.event.clear_registrations();
    }
}

#[cfg(test)]
mod tests {
    use crate::faults::{Fault, Faults};
    use crate::model::Model;
    use mpit_vocab::catalog::Catalog;
    use mpit_vocab::spec::{TErr, ThreadLevel};
    use proptest::prelude::*;

    fn model(f: Faults) -> Model {
        Model::new(Catalog::default_catalog(), f)
    }

    /// R-INIT-1 / R-FIN-1/2: nesting, last finalize uninitializes, one more errs, re-init.
    #[test]
    fn refcount_nesting_and_extra_finalize() {
        let mut m = model(Faults::none());
        assert_eq!(m.cvar_get_num(), Err(TErr::NotInitialized));
        for _ in 0..3 {
            assert_eq!(m.init_thread(ThreadLevel::Single), Ok(ThreadLevel::Single));
        }
        for _ in 0..3 {
            assert!(m.cvar_get_num().is_ok());
            assert_eq!(m.finalize(), Ok(()));
        }
        assert_eq!(m.cvar_get_num(), Err(TErr::NotInitialized));
        assert_eq!(m.finalize(), Err(TErr::NotInitialized));
        m.init_thread(ThreadLevel::Multiple).unwrap();
        assert!(m.cvar_get_num().is_ok(), "re-init works (R-FIN-3)");
    }

    #[test]
    fn fault_refcount_ignored() {
        let mut m = model(Faults::one(Fault::RefcountIgnored));
        m.init_thread(ThreadLevel::Single).unwrap();
        m.init_thread(ThreadLevel::Single).unwrap();
        m.finalize().unwrap();
        assert_eq!(m.cvar_get_num(), Err(TErr::NotInitialized));
    }

    #[test]
    fn fault_extra_finalize_accepted() {
        let mut m = model(Faults::one(Fault::ExtraFinalizeAccepted));
        assert_eq!(m.finalize(), Ok(()));
    }

    #[test]
    fn fault_works_uninitialized() {
        let m = model(Faults::one(Fault::WorksUninitialized));
        assert!(m.cvar_get_num().is_ok());
    }

    /// R-CVAR-1: MPI_Init appends entries; existing indices stay.
    #[test]
    fn mpi_init_appends_and_bumps_category_changed() {
        let mut m = model(Faults::none());
        m.init_thread(ThreadLevel::Single).unwrap();
        let n = m.cvar_get_num().unwrap();
        let stamp = m.category_changed().unwrap();
        m.mpi_init().unwrap();
        assert!(m.cvar_get_num().unwrap() > n);
        assert!(m.category_changed().unwrap() > stamp);
    }

    proptest! {
        /// R-INIT-1 / R-FIN-2: after k inits, MPI_T is usable through k-1 finalizes and
        /// unusable after the k-th; the (k+1)-th returns NOT_INITIALIZED.
        #[test]
        fn refcount_any_depth(k in 1u32..1000) {
            let mut m = model(Faults::none());
            for _ in 0..k { m.init_thread(ThreadLevel::Funneled).unwrap(); }
            for _ in 0..k {
                prop_assert!(m.cvar_get_num().is_ok());
                prop_assert_eq!(m.finalize(), Ok(()));
            }
            prop_assert_eq!(m.cvar_get_num(), Err(TErr::NotInitialized));
            prop_assert_eq!(m.finalize(), Err(TErr::NotInitialized));
        }
    }
}
