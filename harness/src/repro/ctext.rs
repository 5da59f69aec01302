//! C text: literals, printf formats of values, the C spelling of a case's checks, and the
//! fixed C functions a check needs. Pure functions from the case language to C source.

use crate::cases::expr::{Expr, Pred, Term};
use crate::cases::{FilterValues, Scalar, Step};
use mpit_reference::spec::PvarClass;
use std::collections::BTreeMap;
use std::fmt::Write as _;

type R<T> = Result<T, String>;

pub fn capacity(step: &Step) -> String {
    match step.args.get("capacity") {
        Some(Expr::Sum(t)) if t.len() == 1 => match &t[0].1 {
            Term::Int(n) => n.to_string(),
            _ => "64".into(),
        },
        _ => "64".into(),
    }
}

pub fn fill(template: &str, subst: &BTreeMap<String, String>) -> R<String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let j = rest[i..].find('}').ok_or("unclosed template")? + i;
        let key = &rest[i + 1..j];
        let v = subst
            .get(key)
            .ok_or_else(|| format!("no value for {{{key}}}"))?;
        out.push_str(v);
        rest = &rest[j + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

pub fn filter_cond(key: &str, want: &FilterValues) -> R<String> {
    let field = match key {
        "bind" | "readonly" | "continuous" | "atomic" | "var_class" | "scope" | "verbosity"
        | "datatype" => format!("it_e.{key}"),
        other => return Err(format!("a `where: {other}` in C")),
    };
    let val = |s: &Scalar| match s {
        Scalar::Bool(b) => u8::from(*b).to_string(),
        Scalar::Int(i) => i.to_string(),
        Scalar::Str(s) => s.clone(),
    };
    Ok(match want {
        FilterValues::One(s) => format!("{field} == {}", val(s)),
        FilterValues::Any(l) => format!(
            "({})",
            l.iter()
                .map(|s| format!("{field} == {}", val(s)))
                .collect::<Vec<_>>()
                .join(" || ")
        ),
        FilterValues::Not { not } => not
            .iter()
            .map(|s| format!("{field} != {}", val(s)))
            .collect::<Vec<_>>()
            .join(" && "),
    })
}

pub fn print_value(v: &str, ty: &str) -> (String, String) {
    match ty {
        "double" => ("%g".into(), format!("(double)({v})")),
        "int" | "long long" | "MPI_T_source_order" => ("%lld".into(), format!("(long long)({v})")),
        "MPI_Count" => ("%lld".into(), format!("(long long)({v})")),
        "MPI_Datatype" => ("%s".into(), format!("dt_name({v})")),
        _ => (
            "%#llx".into(),
            format!("(unsigned long long)(uintptr_t)({v})"),
        ),
    }
}

pub fn print_out(o: &str, ty: &str) -> String {
    let (f, a) = print_value(&format!("o_{o}"), ty);
    format!("printf(\"      {o} = {f}\\n\", {a});")
}

/// An expression as the case file writes it (`$num_cvars + 1`, `MPI_T_PVAR_ALL_HANDLES`).
pub fn expr_text(e: &Expr) -> String {
    match e {
        Expr::Sum(t) => t
            .iter()
            .map(|(s, t)| {
                let x = match t {
                    Term::Int(i) => i.to_string(),
                    Term::Const(c) => c.clone(),
                    Term::Var(v) => format!("${v}"),
                };
                match *s {
                    1 => x,
                    -1 => format!("-{x}"),
                    k => format!("{k}*{x}"),
                }
            })
            .collect::<Vec<_>>()
            .join(" + "),
        Expr::Null => "NULL".into(),
        Expr::Text(t) => format!("{t:?}"),
        Expr::Shape(s) => format!("a buffer of size {}", s.text()),
    }
}

pub fn pred_text(p: &Pred) -> String {
    let mut parts = Vec::new();
    let show = expr_text;
    for (e, op) in p.comparisons() {
        if let Some(e) = e {
            parts.push(format!("{op} {}", show(e)));
        }
    }
    if let Some((a, b)) = &p.between {
        parts.push(format!("between {} and {}", show(a), show(b)));
    }
    if let Some(l) = &p.one_of {
        parts.push(format!(
            "one of [{}]",
            l.iter().map(show).collect::<Vec<_>>().join(", ")
        ));
    }
    if let Some(l) = &p.not_in {
        parts.push(format!(
            "none of [{}]",
            l.iter().map(show).collect::<Vec<_>>().join(", ")
        ));
    }
    parts.join(" and ")
}

pub fn size_label(null_buf: u8, null_len: u8, cap: &str) -> String {
    match (null_buf, null_len) {
        (1, _) => "NULL buffer".into(),
        (_, 1) => "NULL length".into(),
        _ => format!("{} bytes", cap.replace('"', "")),
    }
}

/// A C string literal.
pub fn c_string(s: &str) -> String {
    format!("\"{}\"", escape(s))
}

/// Text for inside a C string literal (and a printf format: `%` doubled).
pub fn escape(s: &str) -> String {
    let mut o = String::new();
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            '%' => o.push_str("%%"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(o, "\\{:03o}", c as u32);
            }
            c => o.push(c),
        }
    }
    o
}

pub fn error_codes_fn() -> String {
    use mpit_reference::spec::TErr;
    let mut s = String::from(
        "/* R-RC-2: every MPI_T_ERR_* code defined by mpi.h, distinct, in (MPI_SUCCESS, MPI_ERR_LASTCODE]. */\nstatic void check_error_codes(int must)\n{\n    int codes[32], n = 0;\n    char what[256];\n",
    );
    for e in TErr::ALL {
        let name = e.spelling();
        // MPI-4.0 added these two: an mpi.h of an older MPI need not have them.
        let (since, end) = if matches!(e, TErr::NotAccessible | TErr::NotSupported) {
            ("#if MPI_VERSION >= 4\n    ", "\n#endif")
        } else {
            ("    ", "")
        };
        let _ = write!(
            s,
            "#if defined({name}) || defined(MPI_ABI_VERSION)\n    codes[n++] = {name};\n    printf(\"      {name} = %d\\n\", {name});\n    if ({name} <= MPI_SUCCESS || {name} > MPI_ERR_LASTCODE) {{ snprintf(what, sizeof what, \"{name} = %d is outside (MPI_SUCCESS, MPI_ERR_LASTCODE]\", {name}); deviation(must, what); }}\n#else\n{since}deviation(must, \"{name} is not defined by this mpi.h (R-RC-2)\");{end}\n#endif\n"
        );
    }
    s.push_str("    for (int i = 0; i < n; i++)\n        for (int j = i + 1; j < n; j++)\n            if (codes[i] == codes[j]) { snprintf(what, sizeof what, \"two MPI_T_ERR_* codes are both %d\", codes[i]); deviation(must, what); }\n}\n");
    s
}

/// The C functions that name and size what the spec's tables list, written from those
/// tables (`TErr`, `Datatype`) so a reproducer knows exactly the codes and datatypes the
/// harness knows: `rc_name`, `dt_size`, `dt_kind` ('i', 'u', 'd', 'c'; 0 outside the
/// table) and `dt_name`.
pub fn spec_tables() -> String {
    use mpit_reference::spec::Datatype;
    let mut s = String::from(
        "static UNUSED const char *rc_name(int rc)\n{\n    static char other[32];\n    if (rc == MPI_SUCCESS) return \"MPI_SUCCESS\";\n",
    );
    s.push_str(&each_t_err(|n| {
        format!("    if (rc == {n}) return \"{n}\";")
    }));
    s.push_str("    snprintf(other, sizeof other, \"%d (not an MPI_T code)\", rc);\n    return other;\n}\n\n");
    let each = |body: &dyn Fn(Datatype) -> String| -> String {
        Datatype::ALL.iter().map(|d| body(*d)).collect()
    };
    let _ = write!(
        s,
        "/* One element's size (MPI-4.1 §15.3.5, LP64); 8 outside the table, so a library's\n * write still lands in the buffer. */\nstatic UNUSED size_t dt_size(MPI_Datatype d)\n{{\n{}    return 8;\n}}\n\n",
        each(&|d| format!("    if (d == {}) return {};\n", d.spelling(), d.size()))
    );
    let _ = write!(
        s,
        "static UNUSED int dt_kind(MPI_Datatype d)\n{{\n{}    return 0;\n}}\n\n",
        each(&|d| {
            let k = match d {
                Datatype::Double => 'd',
                Datatype::Char => 'c',
                d if d.is_unsigned() => 'u',
                _ => 'i',
            };
            format!("    if (d == {}) return '{k}';\n", d.spelling())
        })
    );
    let _ = write!(
        s,
        "static UNUSED const char *dt_name(MPI_Datatype d)\n{{\n{}    if (d == MPI_DATATYPE_NULL) return \"MPI_DATATYPE_NULL\";\n#ifdef MPI_C_BOOL /* not an MPI_T type: named because Open MPI returns it (FINDINGS F-1) */\n    if (d == MPI_C_BOOL) return \"MPI_C_BOOL\";\n#endif\n    return \"a datatype outside MPI-4.1's MPI_T table\";\n}}\n",
        each(&|d| format!("    if (d == {0}) return \"{0}\";\n", d.spelling()))
    );
    s
}

/// `is_t_err(rc)`: whether `rc` is one of the chapter's MPI_T_ERR_* codes (`TErr`), as
/// the case language's `any_error` asks.
pub fn is_t_err_fn() -> String {
    let mut s = String::from("static int is_t_err(int rc)\n{\n");
    s.push_str(&each_t_err(|n| format!("    if (rc == {n}) return 1;")));
    s.push_str("    return 0;\n}\n");
    s
}

/// `line` of each MPI_T_ERR_* code (`TErr`), where this mpi.h has the code: an older
/// one may lack the MPI-4.0 codes, and the standard ABI's codes are enumerators, not
/// macros (mpi_abi.h).
fn each_t_err(line: impl Fn(&str) -> String) -> String {
    use mpit_reference::spec::TErr;
    TErr::ALL
        .iter()
        .map(|e| {
            let n = e.spelling();
            format!(
                "#if defined({n}) || defined(MPI_ABI_VERSION)\n{}\n#endif\n",
                line(n)
            )
        })
        .collect()
}

/// The pvar classes, as C constants: a lookup by name tries each (R-STR-6: a name is
/// unique within its class).
pub fn pvar_classes() -> String {
    PvarClass::ALL
        .iter()
        .map(|c| format!("MPI_T_PVAR_CLASS_{}", c.spelling()))
        .collect::<Vec<_>>()
        .join(", ")
}
