//! The rules a catalog must satisfy for the reference serving it to be conformant
//! (MPI-4.1 §15.3), and the deviations a mirrored vendor catalog may declare instead.

use super::{Appears, CatValue, Catalog};
use crate::spec::{Datatype, PvarClass};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A rule of MPI-4.1 §15.3 a catalog entry breaks, declared so that a vendor's catalog
/// breaking it can still be mirrored by the reference (which then serves the entry as
/// the vendor does; a check judging the mirror finds the same deviation). Written in
/// YAML as the rule id: `deviations: [R-ENUM-1]`. [`Catalog::mark_deviations`] sets
/// exactly the ones an entry has, and validation rejects any an entry declares but
/// does not have, so a declaration can never hide a conforming entry's mistakes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Deviation {
    /// An enumeration on a variable whose datatype is not MPI_INT (R-ENUM-1; Open MPI
    /// gives its bit-flag cvars MPI_UNSIGNED with an enum).
    #[serde(rename = "R-ENUM-1")]
    EnumOnNonInt,
    /// A pvar datatype outside its class's table (R-PCLASS).
    #[serde(rename = "R-PCLASS")]
    ClassDatatype,
}

impl std::fmt::Display for Deviation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Deviation::EnumOnNonInt => "R-ENUM-1",
            Deviation::ClassDatatype => "R-PCLASS",
        })
    }
}

/// The deviations of an entry with this datatype, enum and (for pvars) class.
fn deviations_of(dt: Datatype, en: &Option<String>, class: Option<PvarClass>) -> Vec<Deviation> {
    let mut d = Vec::new();
    if en.is_some() && dt != Datatype::Int {
        d.push(Deviation::EnumOnNonInt);
    }
    if class.is_some_and(|c| !c.allowed_datatypes().contains(&dt)) {
        d.push(Deviation::ClassDatatype);
    }
    d
}

/// An entry's declared deviations must be exactly the ones it has; `class` names the
/// pvar class and datatype for the R-PCLASS message.
fn check_deviations(
    name: &str,
    declared: &[Deviation],
    has: &[Deviation],
    class: Option<(PvarClass, Datatype)>,
) -> Result<(), (String, String)> {
    if let Some(d) = has.iter().find(|d| !declared.contains(d)) {
        let msg = match (d, class) {
            (Deviation::ClassDatatype, Some((c, dt))) => {
                format!("pvar `{name}`: class {c} may not use {dt} (R-PCLASS)")
            }
            (Deviation::ClassDatatype, None) => {
                format!("pvar `{name}`: its class may not use its datatype (R-PCLASS)")
            }
            (Deviation::EnumOnNonInt, _) => {
                format!("`{name}`: only MPI_INT variables may carry an enum (R-ENUM-1)")
            }
        };
        return Err((name.to_string(), msg));
    }
    if let Some(d) = declared.iter().find(|d| !has.contains(d)) {
        return Err((
            name.to_string(),
            format!("`{name}` declares deviation {d}, which it does not have"),
        ));
    }
    Ok(())
}

impl Catalog {
    /// Sets each cvar's and pvar's `deviations` to exactly those it has (what a dump of
    /// a vendor's catalog does before writing it out).
    pub fn mark_deviations(&mut self) {
        for v in &mut self.cvars {
            v.deviations = deviations_of(v.datatype, &v.enumtype, None);
        }
        for p in &mut self.pvars {
            p.deviations = deviations_of(p.datatype, &p.enumtype, Some(p.class));
        }
    }

    /// The rules of MPI-4.1 §15.3 a catalog must satisfy for the reference to be
    /// conformant. Returns (text to locate, message).
    pub fn validate(&self) -> Result<(), (String, String)> {
        let err = |needle: &str, msg: String| Err((needle.to_string(), msg));
        // R-STR-6: names non-empty and unique (pvars by name+class, items within an enum).
        unique(self.cvars.iter().map(|v| v.name.clone()), "cvar")?;
        unique(
            self.pvars
                .iter()
                .map(|p| format!("{}\u{0}{}", p.name, p.class)),
            "pvar (name, class)",
        )?;
        unique(self.categories.iter().map(|c| c.name.clone()), "category")?;
        unique(self.enums.iter().map(|e| e.name.clone()), "enum")?;
        unique(self.events.iter().map(|e| e.name.clone()), "event")?;
        unique(self.sources.iter().map(|s| s.name.clone()), "source")?;
        let enums: BTreeSet<&str> = self.enums.iter().map(|e| e.name.as_str()).collect();
        for e in &self.enums {
            if e.items.is_empty() {
                // R-ENUM-2: num > 0.
                return err(&e.name, format!("enum `{}` has no items", e.name));
            }
            unique(e.items.iter().map(|i| i.name.clone()), "enum item")?;
        }
        // R-ENUM-1 (only MPI_INT carries an enum) is checked with the deviations.
        let check_enum = |name: &str, en: &Option<String>| match en {
            Some(en) if !enums.contains(en.as_str()) => {
                err(name, format!("`{name}`: unknown enum `{en}`"))
            }
            _ => Ok(()),
        };
        for v in &self.cvars {
            check_enum(&v.name, &v.enumtype)?;
            let has = deviations_of(v.datatype, &v.enumtype, None);
            check_deviations(&v.name, &v.deviations, &has, None)?;
            if v.count == 0 {
                return err(&v.name, format!("cvar `{}`: count must be >= 1", v.name));
            }
            if let (Datatype::Char, Some(CatValue::Str(s))) = (v.datatype, &v.value) {
                if s.len() + 1 > v.count as usize {
                    return err(
                        &v.name,
                        format!(
                            "cvar `{}`: count {} does not hold the value and its NUL (R-TYPE-2)",
                            v.name, v.count
                        ),
                    );
                }
            }
        }
        for p in &self.pvars {
            check_enum(&p.name, &p.enumtype)?;
            let has = deviations_of(p.datatype, &p.enumtype, Some(p.class));
            check_deviations(&p.name, &p.deviations, &has, Some((p.class, p.datatype)))?;
            if p.count == 0 {
                return err(&p.name, format!("pvar `{}`: count must be >= 1", p.name));
            }
        }
        let sources: BTreeSet<&str> = self.sources.iter().map(|s| s.name.as_str()).collect();
        for e in &self.events {
            check_enum(&e.name, &e.enumtype)?;
            if !sources.contains(e.source.as_str()) {
                return err(
                    &e.name,
                    format!("event `{}`: unknown source `{}`", e.name, e.source),
                );
            }
            let mut last = -1i64;
            for d in e.displacements() {
                if d <= last {
                    return err(
                        &e.name,
                        format!("event `{}`: displacements must ascend from 0", e.name),
                    );
                }
                last = d;
            }
            if e.displacements().first().is_some_and(|d| *d != 0) {
                return err(
                    &e.name,
                    format!("event `{}`: displacements must start at 0", e.name),
                );
            }
        }
        self.validate_categories()?;
        self.validate_appends()
    }

    fn validate_categories(&self) -> Result<(), (String, String)> {
        let cvars: BTreeSet<&str> = self.cvars.iter().map(|v| v.name.as_str()).collect();
        let events: BTreeSet<&str> = self.events.iter().map(|v| v.name.as_str()).collect();
        let cats: BTreeMap<&str, usize> = self
            .categories
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.as_str(), i))
            .collect();
        for c in &self.categories {
            let bad = |what: &str, n: &str| {
                Err((
                    c.name.clone(),
                    format!("category `{}`: unknown {what} `{n}`", c.name),
                ))
            };
            for n in &c.cvars {
                if !cvars.contains(n.as_str()) {
                    return bad("cvar", n);
                }
            }
            for p in &c.pvars {
                if self.pvar_index(&p.name, p.class).is_none() {
                    return bad("pvar", &format!("{} ({})", p.name, p.class));
                }
            }
            for n in &c.events {
                if !events.contains(n.as_str()) {
                    return bad("event", n);
                }
            }
            for n in &c.categories {
                if !cats.contains_key(n.as_str()) {
                    return bad("category", n);
                }
            }
        }
        // MPI-4.1 §15.3.9 (R-CAT-1): no category contains itself, directly or transitively.
        for (start, c) in self.categories.iter().enumerate() {
            let mut stack: Vec<usize> = c.categories.iter().map(|n| cats[n.as_str()]).collect();
            let mut seen = BTreeSet::new();
            while let Some(i) = stack.pop() {
                if i == start {
                    return Err((
                        c.name.clone(),
                        format!("category `{}` contains itself (R-CAT-1)", c.name),
                    ));
                }
                if seen.insert(i) {
                    stack.extend(
                        self.categories[i]
                            .categories
                            .iter()
                            .map(|n| cats[n.as_str()]),
                    );
                }
            }
        }
        Ok(())
    }

    /// Entries that appear at MPI_Init must come after all others, so indices never move
    /// (R-CVAR-1); inside a category, members appearing later come after the others so
    /// membership only grows at the end (R-CAT-1).
    fn validate_appends(&self) -> Result<(), (String, String)> {
        fn tail<'a>(
            kind: &str,
            it: impl Iterator<Item = (&'a str, Appears)>,
        ) -> Result<(), (String, String)> {
            let mut late = false;
            for (name, a) in it {
                match a {
                    Appears::MpiInit => late = true,
                    Appears::Always if late => {
                        return Err((name.to_string(), format!("{kind} `{name}` appears always but follows one that appears at MPI_Init; indices would move")))
                    }
                    Appears::Always => {}
                }
            }
            Ok(())
        }
        tail(
            "cvar",
            self.cvars.iter().map(|v| (v.name.as_str(), v.appears)),
        )?;
        tail(
            "pvar",
            self.pvars.iter().map(|v| (v.name.as_str(), v.appears)),
        )?;
        tail(
            "category",
            self.categories.iter().map(|v| (v.name.as_str(), v.appears)),
        )?;
        tail(
            "event",
            self.events.iter().map(|v| (v.name.as_str(), v.appears)),
        )?;
        tail(
            "source",
            self.sources.iter().map(|v| (v.name.as_str(), v.appears)),
        )?;
        for c in &self.categories {
            let cv = c.cvars.iter().map(|n| {
                (
                    n.as_str(),
                    self.cvars
                        .iter()
                        .find(|v| &v.name == n)
                        .map_or(Appears::Always, |v| v.appears),
                )
            });
            tail("category member cvar", cv)?;
            let pv = c.pvars.iter().map(|p| {
                (
                    p.name.as_str(),
                    self.pvar_index(&p.name, p.class)
                        .map_or(Appears::Always, |i| self.pvars[i].appears),
                )
            });
            tail("category member pvar", pv)?;
            let ev = c.events.iter().map(|n| {
                (
                    n.as_str(),
                    self.events
                        .iter()
                        .find(|v| &v.name == n)
                        .map_or(Appears::Always, |v| v.appears),
                )
            });
            tail("category member event", ev)?;
            let cc = c.categories.iter().map(|n| {
                (
                    n.as_str(),
                    self.categories
                        .iter()
                        .find(|v| &v.name == n)
                        .map_or(Appears::Always, |v| v.appears),
                )
            });
            tail("category member category", cc)?;
        }
        Ok(())
    }
}

fn unique(names: impl Iterator<Item = String>, kind: &str) -> Result<(), (String, String)> {
    let mut seen = BTreeSet::new();
    for n in names {
        let shown = n.replace('\u{0}', " ");
        let first = n.split('\u{0}').next().unwrap_or("").to_string();
        if first.is_empty() {
            return Err((
                String::new(),
                format!("a {kind} has an empty name (R-STR-6)"),
            ));
        }
        if !seen.insert(n) {
            return Err((first, format!("duplicate {kind} name `{shown}` (R-STR-6)")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "enums:\n  - name: flags\n    items: [{value: 1, name: a}]\ncvars:\n  - name: v\n    verbosity: USER_BASIC\n    datatype: MPI_UNSIGNED\n    enum: flags\n    scope: LOCAL\n";

    /// R-ENUM-1: an enum on a non-MPI_INT cvar is an error unless declared; a declared
    /// deviation the entry does not have is an error too; marking finds exactly it.
    #[test]
    fn deviations_are_declared_exactly() {
        let e = Catalog::from_yaml(BASE, "c.yaml").expect_err("undeclared");
        assert!(e.message.contains("R-ENUM-1"), "{e}");
        let declared = format!("{BASE}    deviations: [R-ENUM-1]\n");
        let c = Catalog::from_yaml(&declared, "c.yaml").expect("declared");
        assert_eq!(c.cvars[0].deviations, vec![Deviation::EnumOnNonInt]);
        let spurious = declared.replace("MPI_UNSIGNED", "MPI_INT");
        let e = Catalog::from_yaml(&spurious, "c.yaml").expect_err("spurious");
        assert!(e.message.contains("declares deviation R-ENUM-1"), "{e}");
        let mut c = Catalog::from_yaml(&BASE.replace("MPI_UNSIGNED", "MPI_INT"), "c.yaml")
            .expect("conforming");
        c.cvars[0].datatype = Datatype::Unsigned;
        c.mark_deviations();
        assert_eq!(c.cvars[0].deviations, vec![Deviation::EnumOnNonInt]);
        assert!(
            c.to_yaml().contains("deviations:\n  - R-ENUM-1"),
            "{}",
            c.to_yaml()
        );
        assert_eq!(Catalog::from_yaml(&c.to_yaml(), "back.yaml"), Ok(c));
    }

    #[test]
    fn pvar_class_deviation() {
        let text = "pvars:\n  - name: p\n    verbosity: USER_BASIC\n    class: COUNTER\n    datatype: MPI_DOUBLE\n";
        let e = Catalog::from_yaml(text, "c.yaml").expect_err("undeclared");
        assert!(
            e.message
                .contains("class COUNTER may not use MPI_DOUBLE (R-PCLASS)"),
            "{e}"
        );
        let ok = format!("{text}    deviations: [R-PCLASS]\n");
        assert!(Catalog::from_yaml(&ok, "c.yaml").is_ok());
        let e = Catalog::from_yaml(&format!("{text}    deviations: [R-NOPE]\n"), "c.yaml")
            .expect_err("unknown");
        assert!(e.line > 0, "{e}");
    }
}
