//! A minimal MPI_Info, enough for MPI_T: the info objects that source/event get_info and
//! the event handle/callback info calls return (new objects the user frees).

use super::{InfoHandle, Model, Registry};
use mpit_vocab::spec::{TErr, TResult};
use std::collections::BTreeMap;

#[derive(Debug, Default, Clone)]
pub(super) struct InfoState {
    objects: Registry<InfoHandle, BTreeMap<String, String>>,
}

impl Model {
    /// `MPI_Info_create`.
    pub fn info_create(&mut self) -> InfoHandle {
        self.info_new_from(BTreeMap::new())
    }

    /// A new info object holding `entries`.
    pub(super) fn info_new_from(&mut self, entries: BTreeMap<String, String>) -> InfoHandle {
        let h = InfoHandle(self.new_id());
        self.info.objects.insert(h, entries);
        h
    }

    pub(super) fn info_exists(&self, h: InfoHandle) -> bool {
        self.info.objects.contains_key(&h)
    }

    /// The entries of an info argument (`None` is MPI_INFO_NULL: no hints).
    pub(super) fn info_entries(&self, h: Option<InfoHandle>) -> TResult<BTreeMap<String, String>> {
        match h {
            None => Ok(BTreeMap::new()),
            Some(h) => self.info.objects.get(&h).cloned().ok_or(TErr::Invalid),
        }
    }

    /// `MPI_Info_free` (the C ABI then sets the handle to MPI_INFO_NULL).
    pub fn info_free(&mut self, h: InfoHandle) -> TResult<()> {
        self.info
            .objects
            .remove(&h)
            .map(|_| ())
            .ok_or(TErr::Invalid)
    }

    /// `MPI_Info_set`.
    pub fn info_set(&mut self, h: InfoHandle, key: &str, value: &str) -> TResult<()> {
        let o = self.info.objects.get_mut(&h).ok_or(TErr::Invalid)?;
        o.insert(key.to_string(), value.to_string());
        Ok(())
    }

    /// `MPI_Info_get_string`'s lookup.
    pub fn info_get(&self, h: InfoHandle, key: &str) -> TResult<Option<String>> {
        Ok(self
            .info
            .objects
            .get(&h)
            .ok_or(TErr::Invalid)?
            .get(key)
            .cloned())
    }

    /// `MPI_Info_get_nkeys`.
    pub fn info_nkeys(&self, h: InfoHandle) -> TResult<i32> {
        Ok(self.info.objects.get(&h).ok_or(TErr::Invalid)?.len() as i32)
    }

    /// `MPI_Info_get_nthkey`.
    pub fn info_nthkey(&self, h: InfoHandle, n: i32) -> TResult<String> {
        let o = self.info.objects.get(&h).ok_or(TErr::Invalid)?;
        usize::try_from(n)
            .ok()
            .and_then(|n| o.keys().nth(n))
            .cloned()
            .ok_or(TErr::Invalid)
    }

    /// Number of live info objects (tests check that get_info calls create new ones).
    pub fn info_live(&self) -> usize {
        self.info.objects.len()
    }
}
