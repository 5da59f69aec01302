//! `mpit-conform catalog`: read a library's catalog in a worker and print it.

use super::{request, TargetArgs};
use anyhow::{anyhow, Result};
use mpit_conform::runner::readers::{self, ReadError};
use mpit_process::outln;
use mpit_target::catalog::{count_line, CatalogDump};

/// Reads the catalog in worker processes (the only kind of process that loads vendor
/// code), after a singleton MPI_Init when `after_init`. The outer error is bad input or
/// a library that is not MPI (exit 2); the inner one a library that died or hung while
/// starting (exit 1: the library's finding, one line).
pub fn read_catalog(t: &TargetArgs, after_init: bool) -> Result<Result<CatalogDump, String>> {
    let setup = request(t)?;
    let lib = setup.hello.lib.display().to_string();
    match readers::catalog(&setup, after_init) {
        Ok(d) => Ok(Ok(d)),
        Err(ReadError::Died(d)) => Ok(Err(format!("{lib}: {}", d.message))),
        // A library's own load errors are already one line naming the file.
        Err(e) => Err(anyhow!("{e}")),
    }
}

/// The entries that could not be read, one line each (the command then exits 1).
pub fn print_lost(d: &CatalogDump) {
    for l in &d.lost {
        outln!("not read: {} ({}): {}", l.call, l.status, l.message);
    }
}

pub fn print_table(d: &CatalogDump) {
    if let Some(det) = &d.detection {
        outln!("detected {} family: {}", det.family, det.evidence);
    }
    outln!("ABI profile {}", d.profile);
    if !d.unresolved.is_empty() {
        outln!(
            "ABI profile names objects the library does not export: {}",
            d.unresolved.join(", ")
        );
    }
    if let Some((a, b)) = d.mpi_version {
        outln!(
            "MPI {a}.{b}; {}",
            d.library_version.lines().next().unwrap_or("")
        );
    }
    outln!(
        "{}{}",
        count_line(d),
        if d.after_init {
            " (after MPI_Init)"
        } else {
            ""
        }
    );
    for v in &d.catalog.cvars {
        outln!(
            "cvar  {:<40} {:<22} {:<8} {:<14} {}",
            v.name,
            v.datatype,
            v.scope,
            v.verbosity,
            v.value
                .as_ref()
                .map(|x| format!("{x:?}"))
                .unwrap_or_default()
        );
    }
    for p in &d.catalog.pvars {
        outln!(
            "pvar  {:<40} {:<22} {:<14} {:<14}{}{}",
            p.name,
            p.datatype,
            p.class,
            p.verbosity,
            if p.continuous { " continuous" } else { "" },
            if p.readonly { " readonly" } else { "" }
        );
    }
    for c in &d.catalog.categories {
        outln!(
            "category {:<36} cvars {} pvars {} events {} subcategories {}",
            c.name,
            c.cvars.len(),
            c.pvars.len(),
            c.events.len(),
            c.categories.join(",")
        );
    }
    for e in &d.catalog.enums {
        let items: Vec<String> = e
            .items
            .iter()
            .map(|i| format!("{}={}", i.name, i.value))
            .collect();
        outln!("enum  {:<40} {}", e.name, items.join(" "));
    }
    for e in &d.catalog.events {
        outln!(
            "event {:<40} {} elements, {}",
            e.name,
            e.elements.len(),
            e.verbosity
        );
    }
    for s in &d.catalog.sources {
        outln!(
            "source {:<39} {} {} ticks/s",
            s.name,
            s.ordering,
            s.ticks_per_second
        );
    }
    if !d.unsupported.is_empty() {
        outln!("unsupported (not exported): {}", d.unsupported.join(" "));
    }
    for u in &d.undecoded {
        outln!("undecoded: {u}");
    }
}
