//! The suite loaded from the case files (the bundled specs/cases, a directory, or one
//! file): each file parsed and validated, every error located at file:line:col in the
//! text (at the case's `id:` line, or the first offending word after it), case ids
//! unique.

use super::case::{Case, CaseFile};
use super::validate::validate;
use crate::specs::Source;
use mpit_vocab::yaml::{self, YamlError};
use std::collections::BTreeSet;

/// The whole case library.
#[derive(Debug, Clone, Default)]
pub struct Suite {
    pub cases: Vec<Case>,
    /// Where each file came from (`specs/cases/strings.yaml` in the bundle, or a path).
    pub files: Vec<String>,
}

impl Suite {
    /// Loads every case file of `src` (in name order), validating each case.
    pub fn load(src: &Source) -> Result<Suite, YamlError> {
        Suite::load_where(src, |_| true)
    }

    /// Loads only the files whose top-level `area:` line names `area`. A worker needs
    /// the cases of the jobs it is given, all of one area per job; parsing the whole
    /// suite in each of a run's (often a hundred and more) workers was most of their
    /// start-up. The supervisor has loaded and validated the whole suite before.
    pub fn load_area(src: &Source, area: &str) -> Result<Suite, YamlError> {
        let line = format!("area: {area}");
        Suite::load_where(src, |text| text.lines().any(|l| l.trim_end() == line))
    }

    /// `src` may also be one case file (`run --case-file`, e.g. a case `fuzz-props`
    /// wrote).
    fn load_where(src: &Source, wanted: impl Fn(&str) -> bool) -> Result<Suite, YamlError> {
        let mut suite = Suite::default();
        let mut ids = BTreeSet::new();
        for (origin, text) in src.case_files()? {
            if !wanted(&text) {
                continue;
            }
            for case in parse_file(&text, &origin)? {
                if !ids.insert(case.id.clone()) {
                    return Err(near_case(
                        &text,
                        &origin,
                        &case.id,
                        "id:",
                        format!("duplicate case id `{}`", case.id),
                    ));
                }
                suite.cases.push(case);
            }
            suite.files.push(origin);
        }
        Ok(suite)
    }

    pub fn get(&self, id: &str) -> Option<&Case> {
        self.cases.iter().find(|c| c.id == id)
    }
}

/// Parses and validates one file's text.
pub fn parse_file(text: &str, origin: &str) -> Result<Vec<Case>, YamlError> {
    let file: CaseFile = yaml::parse(text, origin)?;
    // The `id:` line of every case, in one pass over the text (searching the text once
    // per case made loading quadratic in the file's size).
    let mut id_lines: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, l) in text.lines().enumerate() {
        if let Some((_, id)) = l.split_once("id: ") {
            id_lines.entry(id.trim()).or_insert(i + 1);
        }
    }
    let mut out = Vec::new();
    for mut c in file.cases {
        c.area = Some(file.area);
        let line = match id_lines.get(c.id.as_str()) {
            Some(l) => *l,
            None => yaml::locate(text, &format!("id: {}", c.id)).map_or(0, |(l, _)| l),
        };
        c.origin = format!("{origin}:{line}");
        validate(&c, file.area)
            .map_err(|(needle, msg)| near_case(text, origin, &c.id, &needle, msg))?;
        out.push(c);
    }
    Ok(out)
}

/// An error located at the first `needle` at or after the case's `id:` line.
fn near_case(text: &str, origin: &str, id: &str, needle: &str, message: String) -> YamlError {
    let start = yaml::locate(text, &format!("id: {id}")).map_or(1, |(l, _)| l);
    let pos = text
        .lines()
        .enumerate()
        .skip(start - 1)
        .find_map(|(i, l)| l.find(needle).map(|c| (i + 1, c + 1)))
        .unwrap_or((start, 1));
    YamlError {
        origin: origin.to_string(),
        line: pos.0,
        col: pos.1,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cases::ForAll;
    use crate::verdict::Area;

    const OK: &str = r#"
area: strings
cases:
  - id: strings.cvar.name.truncate
    clause: MPI-4.1 §15.3.3
    rules: [R-STR-1, R-STR-2]
    level: must
    for_each: cvar
    buffers: {string: name, sizes: [0, 1, len-1, len, len+1, null_buf, null_len]}
    steps:
      - call: cvar_get_info
        args: {index: $index, name: $buffer}
        expect: {rc: MPI_SUCCESS, name: truncated}
"#;

    fn err(text: &str) -> String {
        parse_file(text, "t.yaml").unwrap_err().to_string()
    }

    #[test]
    fn parses_a_case() {
        let c = parse_file(OK, "t.yaml").unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].area(), Area::Strings);
        assert_eq!(c[0].buffers.as_ref().unwrap().sizes.len(), 7);
        assert_eq!(c[0].origin, "t.yaml:4");
    }

    #[test]
    fn a_case_costs_its_initializations_per_buffer_size() {
        let cost = |text: &str| parse_file(text, "t.yaml").unwrap()[0].cost();
        // The executor's one init, for each of the seven sizes.
        assert_eq!(cost(OK), 7);
        let mpi = OK.replace("for_each: cvar", "requires: [mpi_init]\n    for_each: cvar");
        assert_eq!(cost(&mpi), 77);
        let budget = OK
            .replace("for_each: cvar\n", "init: manual\n")
            .replace("    buffers: {string: name, sizes: [0, 1, len-1, len, len+1, null_buf, null_len]}\n", "")
            .replace(
                "call: cvar_get_info\n        args: {index: $index, name: $buffer}\n        expect: {rc: MPI_SUCCESS, name: truncated}",
                "call: init_thread\n        repeat: 3\n      - call: init_cycles\n        args: {required: MPI_THREAD_SINGLE, cycles: 10}",
            );
        assert_eq!(cost(&budget), 1003, "{budget}");
    }

    #[test]
    fn for_all_range() {
        let text = OK.replace(
            "args: {index: $index, name: $buffer}",
            "for_all: range($num_cvars + 1)\n        args: {index: $item}",
        );
        let c = parse_file(&text, "t.yaml").unwrap();
        assert!(matches!(c[0].steps[0].for_all, Some(ForAll::Range(_))));
        let e = err(&text.replace("range($num_cvars + 1)", "range($nope)"));
        assert!(e.contains("`$nope` is not defined"), "{e}");
        let e = err(&text.replace("range($num_cvars + 1)", "range(null_buf)"));
        assert!(e.contains("takes a number"), "{e}");
    }

    #[test]
    fn errors_are_located() {
        let e = err(&OK.replace("rc: MPI_SUCCESS", "rc: MPI_T_ERR_NOPE"));
        assert!(e.starts_with("t.yaml:13:"), "{e}");
        assert!(e.contains("unknown return code `MPI_T_ERR_NOPE`"), "{e}");
        let e = err(&OK.replace("level: must", "levle: must"));
        assert!(e.starts_with("t.yaml:7:5:"), "{e}");
        assert!(e.contains("unknown field `levle`"), "{e}");
        let e = err(&OK.replace("index: $index", "index: $indx"));
        assert!(e.starts_with("t.yaml:12:"), "{e}");
        assert!(e.contains("`$indx` is not defined"), "{e}");
        let e = err(&OK.replace("index: $index", "index: MPI_T_FOO"));
        assert!(e.contains("unknown constant `MPI_T_FOO`"), "{e}");
        let e = err(&OK.replace("call: cvar_get_info", "call: cvar_get_inf"));
        assert!(e.contains("unknown function `cvar_get_inf`"), "{e}");
        let e = err(&OK.replace("args: {index", "args: {indx: 1, index"));
        assert!(e.contains("has no parameter `indx`"), "{e}");
        let e = err(&OK.replace("level: must", "level: 3"));
        assert!(e.starts_with("t.yaml:7:"), "{e}");
        let e = err(&OK.replace("len+1,", "lenn,"));
        assert!(e.contains("bad buffer size"), "{e}");
        let e = err(&OK.replace("level: must", "level: must\n    first: 0"));
        assert!(e.contains("`first: 0` selects no subject"), "{e}");
        let one = parse_file(
            &OK.replace("level: must", "level: must\n    first: 1"),
            "t.yaml",
        );
        assert_eq!(one.unwrap()[0].first, Some(1));
        let e = err(&OK.replace(
            "      - call: cvar_get_info",
            "      - erroneous: true\n        call: cvar_get_info",
        ));
        assert!(e.contains("`erroneous` marks a call"), "{e}");
        let e = err(&OK.replace("id: strings.", "id: cvars."));
        assert!(e.contains("must start with `strings.`"), "{e}");
    }
}
