//! `mpit-conform catalog`: read a library's catalog in a worker and print it.

use super::{request, TargetArgs};
use crate::runner::readers::{self, ReadError};
use crate::target::catalog::{count_line, CatalogDump};
use anyhow::{anyhow, Result};

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
        println!("not read: {} ({}): {}", l.call, l.status, l.message);
    }
}

pub fn print_table(d: &CatalogDump) {
    if let Some(det) = &d.detection {
        println!("detected {} family: {}", det.family, det.evidence);
    }
    println!("ABI profile {}", d.profile);
    if !d.unresolved.is_empty() {
        println!(
            "ABI profile names objects the library does not export: {}",
            d.unresolved.join(", ")
        );
    }
    if let Some((a, b)) = d.mpi_version {
        println!(
            "MPI {a}.{b}; {}",
            d.library_version.lines().next().unwrap_or("")
        );
    }
    println!(
        "{}{}",
        count_line(d),
        if d.after_init {
            " (after MPI_Init)"
        } else {
            ""
        }
    );
    for v in &d.catalog.cvars {
        println!(
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
        println!(
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
        println!(
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
        println!("enum  {:<40} {}", e.name, items.join(" "));
    }
    for e in &d.catalog.events {
        println!(
            "event {:<40} {} elements, {}",
            e.name,
            e.elements.len(),
            e.verbosity
        );
    }
    for s in &d.catalog.sources {
        println!(
            "source {:<39} {} {} ticks/s",
            s.name, s.ordering, s.ticks_per_second
        );
    }
    if !d.unsupported.is_empty() {
        println!("unsupported (not exported): {}", d.unsupported.join(" "));
    }
    for u in &d.undecoded {
        println!("undecoded: {u}");
    }
}
