//! Oracle `catalog_yaml`: the catalog loader (`Catalog::from_yaml`, what
//! `MPIT_REFERENCE_CATALOG` and `--catalog` files go through) on arbitrary text.
//!
//! * It never panics: any text is a catalog or an error.
//! * An error names the origin it was given (`origin:line:col: message`), so a user
//!   can find the line.
//! * A catalog it accepts survives the trip the harness makes with it: `mpit-conform
//!   catalog --format yaml` writes a target's catalog with `to_yaml` for the reference
//!   to load back (mirroring a target), so `to_yaml` of an accepted catalog must load
//!   again and be written the same way (compared as text: a NaN start value would make
//!   the values unequal to themselves).

use mpit_vocab::catalog::Catalog;

/// The origin the oracle names the text by.
pub const ORIGIN: &str = "fuzz.yaml";

/// Runs one input (bytes that are not UTF-8 are replaced: the loader takes text).
pub fn run(data: &[u8]) {
    check(&String::from_utf8_lossy(data));
}

/// Checks one text.
pub fn check(text: &str) {
    match Catalog::from_yaml(text, ORIGIN) {
        Err(e) => {
            let msg = e.to_string();
            assert!(
                msg.starts_with(&format!("{ORIGIN}:")),
                "a catalog error names its origin: {msg}"
            );
        }
        Ok(c) => {
            let once = c.to_yaml();
            match Catalog::from_yaml(&once, "to_yaml") {
                Ok(back) => assert_eq!(
                    back.to_yaml(),
                    once,
                    "a catalog written by to_yaml loads back the same"
                ),
                Err(e) => panic!(
                    "an accepted catalog, written by to_yaml, does not load back: {e}\n{once}"
                ),
            }
        }
    }
}
