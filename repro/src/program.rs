//! The frame of a reproducer around its case: the header comment (the library, the
//! clause, how to build and what the exit status means), the lookup of the subject by
//! name, main() with its verdict, and the helpers the case reaches (`helpers`), written
//! after main() so that a reader meets the case first.

use super::ctext;
use super::emit::{Emitter, Subject};
use super::helpers;
use super::{parse_subject, Origin, ReproError};
use mpit_spec::cases::clauses::Clauses;
use mpit_spec::cases::{Case, SubjectKind};
use mpit_spec::kind::Kind;
use mpit_spec::verdict::{CaseResult, Status};
use std::fmt::Write as _;

/// The C program reproducing `result` (of `case`, found on `origin`).
pub fn c_program(
    case: &Case,
    result: &CaseResult,
    origin: &Origin,
    clauses: &Clauses,
) -> Result<String, ReproError> {
    let subject = parse_subject(case, &result.subject).map_err(ReproError::BadInput)?;
    let program = Emitter::program(case, &subject)?;
    // The case: the lookup of its subject, its declarations and main().
    let mut body = String::new();
    if let Subject::Entry { kind, name, parent } = &subject {
        body.push_str("static entry_t subj;\n");
        body.push_str(&lookup(
            *kind,
            name,
            parent.as_deref(),
            reported_index(&result.subject),
        ));
    }
    if !program.decls.is_empty() {
        body.push_str(&program.decls);
        body.push('\n');
    }
    let _ = write!(
        body,
        "int main(void)\n{{\n    int rc = MPI_SUCCESS; (void)rc;\n    printf(\"mpit-conform reproducer: {} on {}\\n\");\n",
        ctext::escape(&case.id),
        ctext::escape(if result.subject.is_empty() {
            "(no subject)"
        } else {
            &result.subject
        })
    );
    body.push_str(&program.body);
    let expected = format!(
        "mpit-conform saw on {}: {}",
        origin.library,
        first_line(&result.message)
    );
    let _ = write!(
        body,
        "    goto done;\ndone:\n    printf(\"clause: {}\\n\");\n    printf(\"{}\\n\");\n    if (deviations) printf(\"verdict: REPRODUCED (%d deviation%s)\\n\", deviations, deviations == 1 ? \"\" : \"s\");\n    else printf(\"verdict: not reproduced: every call returned as the standard says\\n\");\n    return deviations ? 1 : 0;\n}}\n",
        ctext::escape(&result.clause),
        ctext::escape(&expected)
    );
    let carried = helpers::carried(&body, program.tight);
    let mut c = String::new();
    header(&mut c, case, result, origin, clauses);
    if result.status == Status::Warn {
        // A finding below a MUST is what the program looks for: counted, as `--strict`
        // fails it (the header says so).
        c.push_str("#define REPRO_STRICT 1\n");
    }
    c.push_str("#include <mpi.h>\n");
    // Where the case cannot apply, the program is a main() that says why: a rule (or a
    // function) of a later MPI than this mpi.h's, or the reference's test hooks.
    let since = match (case.since.map(|v| (v.0, v.1)), program.needs_events) {
        (Some(v), true) => Some(v.max((4, 0))),
        (Some(v), false) => Some(v),
        (None, true) => Some((4, 0)),
        (None, false) => None,
    };
    let mut gates = Vec::new();
    if let Some((a, b)) = since {
        let older = match b {
            0 => format!("MPI_VERSION < {a}"),
            b => format!("MPI_VERSION < {a} || (MPI_VERSION == {a} && MPI_SUBVERSION < {b})"),
        };
        gates.push((
            older,
            format!("the rule is from MPI {a}.{b}; this mpi.h is older"),
        ));
    }
    if program.needs_reference {
        gates.push((
            "!defined(MPIT_REFERENCE_H)".to_string(),
            "the case drives the reference's test hooks (mpit_reference.h)".to_string(),
        ));
    }
    for (i, (cond, why)) in gates.iter().enumerate() {
        let _ = write!(
            c,
            "#{} {cond}\n#include <stdio.h>\nint main(void)\n{{\n    printf(\"not applicable: {why}\\n\");\n    return 77;\n}}\n",
            if i == 0 { "if" } else { "elif" }
        );
    }
    if !gates.is_empty() {
        c.push_str("#else\n");
    }
    c.push_str(&carried.head);
    if !carried.prototypes.is_empty() {
        c.push('\n');
        c.push_str(&carried.prototypes);
    }
    c.push_str(
        "\n/* ---- The case ---------------------------------------------------------------- */\n",
    );
    c.push_str(&body);
    if !carried.tail.is_empty() {
        c.push_str("\n/* ---- What the case calls ------------------------------------------------------ */\n");
        c.push_str(&carried.tail);
    }
    if !gates.is_empty() {
        c.push_str("#endif\n");
    }
    Ok(c)
}

pub(super) fn first_line(s: &str) -> String {
    let l = s.lines().next().unwrap_or("");
    match l.find("; library output:") {
        Some(i) => l[..i].to_string(),
        None => l.to_string(),
    }
}

fn header(c: &mut String, case: &Case, r: &CaseResult, o: &Origin, clauses: &Clauses) {
    let mut lines = vec![
        format!(
            "Reproducer of a `{}` result of mpit-conform, case {} ({}),",
            r.status.as_str(),
            case.id,
            r.level.as_str()
        ),
        format!(
            "subject: {}.",
            if r.subject.is_empty() {
                "none"
            } else {
                &r.subject
            }
        ),
        String::new(),
        format!("Found on: {} ({})", o.library, o.path),
        format!("  ABI family {}, sha256 {}", o.family, o.sha256),
    ];
    if !o.releases.is_empty() {
        lines.push("Releases affected (mpit-conform's release history, reports/history/):".into());
        lines.extend(o.releases.iter().map(|r| format!("  {r}")));
    }
    lines.extend([
        format!("Case: {}", case.title),
        format!("Clause: {}", r.clause),
    ]);
    for rule in &case.rules {
        if let Some(q) = clauses.rules.iter().find(|x| &x.rule == rule) {
            lines.push(format!("  {rule} ({}): \"{}\"", q.clause, q.quote));
        }
    }
    lines.push(format!("mpit-conform saw: {}", first_line(&r.message)));
    if matches!(r.status, Status::Crash | Status::Timeout) {
        lines.push(
            "The crash is the evidence: this program makes the same calls, and when the".into(),
        );
        lines.push("deviation reproduces it dies (or hangs) in the same call.".into());
    }
    if r.status == Status::Warn {
        lines.extend([
            "A warning: a SHOULD, a robustness probe or the other reading of a sentence,".into(),
            "which mpit-conform --strict fails. The program defines REPRO_STRICT (its first".into(),
            "line after this comment), so it counts that deviation and exits 1 when it".into(),
            "reproduces; without the line it prints `warn (not a MUST)` and exits 0.".into(),
        ]);
    }
    lines.extend([
        String::new(),
        "Build and run with the library's own compiler wrapper:".into(),
        "  mpicc repro.c -o repro && ./repro".into(),
        "For the MPI-5 standard ABI (libmpi_abi.so), the same source:".into(),
        "  mpicc -DMPI_ABI repro.c -o repro -lmpi_abi && ./repro   (or MPICH's mpicc_abi)".into(),
        "Exit status: 1 the deviation reproduces; 0 it does not; 77 not applicable (the".into(),
        "subject is not in this library's catalog). Variables are looked up by name.".into(),
        "-DREPRO_STRICT also counts SHOULD and robustness deviations (mpit-conform --strict)."
            .into(),
    ]);
    c.push_str("/*\n");
    for l in lines {
        // `*/` inside a quote would end the comment.
        let l = l.replace("*/", "* /");
        if l.is_empty() {
            c.push_str(" *\n");
        } else {
            let _ = writeln!(c, " * {l}");
        }
    }
    c.push_str(" */\n");
}

/// `lookup_subject`: the subject's index from its name, then its strings and datatype
/// from a full-size `*_get_info`, as mpit-conform's inventory has them.
fn lookup(kind: SubjectKind, name: &str, parent: Option<&str>, reported: i64) -> String {
    let n = ctext::c_string(name);
    // Kinds without a `*_get_index`: searched (an item within its enumeration).
    let search = match kind {
        SubjectKind::Enum => Some(format!("enum_named({n}, e)")),
        SubjectKind::Item => Some(format!(
            "item_named({}, {n}, e)",
            ctext::c_string(parent.unwrap_or(""))
        )),
        SubjectKind::Source => Some(format!("source_named({n}, e)")),
        _ => None,
    };
    if let Some(call) = search {
        return format!(
            "static void lookup_subject(entry_t *e)\n{{\n    int found = {call};\n    show_call(\"looking up the {k} {} by name\", found ? MPI_SUCCESS : -1);\n    if (!found) not_applicable(\"{k} {} is not in this library's catalog\");\n    printf(\"      {k} {} found, strlen(name)+1 = %d\\n\", e->len);\n}}\n",
            ctext::escape(name),
            ctext::escape(name),
            ctext::escape(name),
            k = kind.as_str()
        );
    }
    // The kinds found by `*_get_index`; helpers.c reads an entry with `<kind>_entry`.
    let by_index = match kind {
        SubjectKind::Cvar => Some(Kind::Cvar),
        SubjectKind::Category => Some(Kind::Category),
        SubjectKind::Event => Some(Kind::Event),
        SubjectKind::Pvar => Some(Kind::Pvar),
        _ => None,
    };
    let Some((entity, get_index)) = by_index.and_then(|e| Some((e, e.get_index()?))) else {
        return format!(
            "static void lookup_subject(entry_t *e) {{ (void)e; not_applicable(\"a {} subject\"); }}\n",
            kind.as_str()
        );
    };
    let (get_index, entry) = (get_index.c_name(), format!("{}_entry", entity.word()));
    let k = kind.as_str();
    let shown = ctext::escape(&n);
    let classes = ctext::pvar_classes();
    let find = if kind == SubjectKind::Pvar {
        // A pvar's name is unique within its class only (R-STR-6): every class is tried;
        // where two classes have the name, the index the report names breaks the tie.
        format!(
            "static const int classes[] = {{{classes}}};\n    rc = MPI_T_ERR_INVALID_NAME;\n    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++) {{\n        int i = -1;\n        if (MPI_T_pvar_get_index({n}, classes[c], &i) != MPI_SUCCESS) continue;\n        if (rc != MPI_SUCCESS || i == {reported}) idx = i;\n        rc = MPI_SUCCESS;\n    }}\n    show_call(\"MPI_T_pvar_get_index({shown}, each class)\", rc);"
        )
    } else {
        format!("rc = {get_index}({n}, &idx);\n    show_call(\"{get_index}({shown})\", rc);")
    };
    format!(
        "static void lookup_subject(entry_t *e)\n{{\n    int idx = -1, at = 0, n = 0, rc;\n    {find}\n    if (rc != MPI_SUCCESS) not_applicable(\"{k} {name_e} is not in this library's catalog\");\n    /* That index must hold the name, else the name is searched for (a wrong index is a\n     * finding of its own, R-CVAR-5). */\n    if (!{entry}(idx, e) || strcmp(e->name, {n}) != 0) {{\n        {num}(&n);\n        for (at = 0; at < n && !({entry}(at, e) && strcmp(e->name, {n}) == 0); at++) {{}}\n        printf(\"      {get_index} gave %d, which is not {name_e}; found by name at %d\\n\", idx, at < n ? at : -1);\n        if (at == n) not_applicable(\"the {k} of that name cannot be read\");\n    }}\n    printf(\"      {name_e} = index %d, strlen(name)+1 = %d, strlen(desc)+1 = %d\\n\", e->index, e->len, e->desc_len);\n}}\n",
        name_e = ctext::escape(name),
        num = entity.get_num().c_name(),
    )
}

/// The index a subject text names (`cvar 26 name` → 26), -1 when none: only a tie-break.
fn reported_index(subject: &str) -> i64 {
    subject
        .split_whitespace()
        .nth(1)
        .and_then(|i| i.parse().ok())
        .unwrap_or(-1)
}
