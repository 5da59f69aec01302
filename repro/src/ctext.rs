//! C text: literals, printf formats of values, the C spelling of a case's checks, and the
//! fixed C functions a check needs. Pure functions from the case language to C source.

use mpit_spec::cases::expr::{Expr, Pred, Term};
use mpit_spec::cases::{FilterValues, Scalar, Step};
use mpit_vocab::spec::{Datatype, PvarClass, TErr};
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

/// The C functions written from the spec's tables, as sections of the format
/// `helpers.c` describes (`helpers.rs` keeps those a program reaches): `rc_name` and
/// `is_t_err` from the return codes (`TErr`), `dt_size`, `dt_kind` ('i', 'u', 'd', 'c';
/// 0 outside the table) and `dt_name` from the datatypes (`Datatype`), and
/// `check_error_codes` (R-RC-2), so a reproducer knows exactly the codes and datatypes
/// the harness knows.
pub fn spec_tables() -> String {
    let mut s = rc_name_fn();
    s.push_str("//@ tail is_t_err\n/* Whether rc is an MPI_T_ERR_* code, as the case language's `any_error` asks (an MPI\n * error class such as MPI_ERR_INTERN is not one). */\nstatic int is_t_err(int rc)\n{\n    return strncmp(rc_name(rc), \"MPI_T_ERR_\", 10) == 0;\n}\n");
    s.push_str(&datatype_fns());
    s.push_str(&error_codes_fn());
    s
}

/// The MPI-4.0 codes (`MPI_T_ERR_NOT_ACCESSIBLE`, `MPI_T_ERR_NOT_SUPPORTED`): an mpi.h
/// of an older MPI need not have them, and one of MPI-4.0 may lack them (FINDINGS F-13).
fn since_4_0(e: TErr) -> bool {
    matches!(e, TErr::NotAccessible | TErr::NotSupported)
}

/// `#if` of what mpi.h has: the standard ABI's codes are enumerators, not macros
/// (mpi_abi.h), so `defined` is asked of the others only. Lines of up to 100 columns,
/// continued with a backslash.
fn has(names: &[&str]) -> String {
    let all: Vec<String> = names.iter().map(|n| format!("defined({n})")).collect();
    let (open, close) = if all.len() == 1 { ("", "") } else { ("(", ")") };
    let mut out = format!("#if defined(MPI_ABI_VERSION) || {open}");
    let mut line = out.len();
    for (i, d) in all.iter().enumerate() {
        let sep = if i == 0 { "" } else { " && " };
        if line + sep.len() + d.len() + 3 > 100 {
            out.push_str(" \\\n   ");
            line = 3;
        }
        out.push_str(sep);
        out.push_str(d);
        line += sep.len() + d.len();
    }
    out.push_str(close);
    out.push('\n');
    out
}

/// Calls of a one-argument macro, several to a line, indented.
fn calls(mac: &str, names: &[&str]) -> String {
    let mut out = String::new();
    for chunk in names.chunks(3) {
        let line: Vec<String> = chunk.iter().map(|n| format!("{mac}({n})")).collect();
        let _ = writeln!(out, "    {}", line.join(" "));
    }
    out
}

/// `rc_name`: MPI_SUCCESS and each MPI_T_ERR_* code by name. An mpi.h that lacks one of
/// the MPI-3.1 codes names none of them (they print as numbers): one `#if` for the group.
fn rc_name_fn() -> String {
    let (old, new): (Vec<TErr>, Vec<TErr>) = TErr::ALL.iter().partition(|e| !since_4_0(**e));
    let old: Vec<&str> = old.iter().map(|e| e.spelling()).collect();
    let mut s = String::from(
        "//@ tail rc_name\n/* The name of a return code (MPI-4.1 §15.3.10), from mpit-conform's table of them. */\nstatic const char *rc_name(int rc)\n{\n    static char other[32];\n#define RC(c) if (rc == c) return #c;\n    RC(MPI_SUCCESS)\n",
    );
    s.push_str(&has(&old));
    s.push_str(&calls("RC", &old));
    s.push_str("#endif\n");
    for e in new {
        let n = e.spelling();
        s.push_str(&has(&[n]));
        let _ = writeln!(s, "    RC({n})\n#endif");
    }
    s.push_str("#undef RC\n    snprintf(other, sizeof other, \"%d (not an MPI_T code)\", rc);\n    return other;\n}\n");
    s
}

/// `dt_size`, `dt_kind` and `dt_name` from the datatype table (MPI-4.1 §15.3.5).
fn datatype_fns() -> String {
    // The datatypes with a property, in the table's order, grouped by its value.
    fn grouped<K: PartialEq + Copy>(by: impl Fn(Datatype) -> K) -> Vec<(K, Vec<&'static str>)> {
        let mut g: Vec<(K, Vec<&'static str>)> = Vec::new();
        for d in Datatype::ALL {
            match g.iter_mut().find(|(k, _)| *k == by(*d)) {
                Some((_, v)) => v.push(d.spelling()),
                None => g.push((by(*d), vec![d.spelling()])),
            }
        }
        g
    }
    let test = |names: &[&str]| {
        let each: Vec<String> = names.iter().map(|n| format!("d == {n}")).collect();
        each.join(" || ")
    };
    let mut s = String::from("//@ tail dt_size\n/* One element's size (MPI-4.1 §15.3.5, LP64); 8 outside the table, so a library's\n * write still lands in the buffer. */\nstatic size_t dt_size(MPI_Datatype d)\n{\n");
    for (size, names) in grouped(Datatype::size) {
        if size != 8 {
            let _ = writeln!(s, "    if ({}) return {size};", test(&names));
        }
    }
    s.push_str("    return 8;\n}\n//@ tail dt_kind\n/* How an element decodes: 'i' signed, 'u' unsigned, 'd' double, 'c' char; 0 outside\n * the table. */\nstatic int dt_kind(MPI_Datatype d)\n{\n");
    let kind = |d: Datatype| match d {
        Datatype::Double => 'd',
        Datatype::Char => 'c',
        d if d.is_unsigned() => 'u',
        _ => 'i',
    };
    for (k, names) in grouped(kind) {
        let _ = writeln!(s, "    if ({}) return '{k}';", test(&names));
    }
    s.push_str("    return 0;\n}\n//@ tail dt_name\nstatic const char *dt_name(MPI_Datatype d)\n{\n#define DT(x) if (d == x) return #x;\n");
    let all: Vec<&str> = Datatype::ALL.iter().map(|d| d.spelling()).collect();
    s.push_str(&calls("DT", &all));
    s.push_str("    DT(MPI_DATATYPE_NULL)\n#ifdef MPI_C_BOOL /* not an MPI_T type: named because Open MPI returns it (FINDINGS F-1) */\n    DT(MPI_C_BOOL)\n#endif\n#undef DT\n    return \"a datatype outside MPI-4.1's MPI_T table\";\n}\n");
    s
}

/// `check_error_codes` (R-RC-2): every MPI_T_ERR_* code defined by mpi.h, distinct, in
/// (MPI_SUCCESS, MPI_ERR_LASTCODE]; an MPI-4.0 code is asked of an MPI-4.0 mpi.h only.
fn error_codes_fn() -> String {
    let mut s = String::from(
        "//@ tail check_error_codes\n/* R-RC-2: every MPI_T_ERR_* code defined by mpi.h, distinct, in (MPI_SUCCESS, MPI_ERR_LASTCODE]. */\nstatic void check_error_codes(int must)\n{\n    int codes[32], n = 0;\n    char what[256];\n#define HAS(c) codes[n++] = c; printf(\"      \" #c \" = %d\\n\", c); \\\n    if (c <= MPI_SUCCESS || c > MPI_ERR_LASTCODE) { \\\n        snprintf(what, sizeof what, #c \" = %d is outside (MPI_SUCCESS, MPI_ERR_LASTCODE]\", c); deviation(must, \"mpi.h:\", what); }\n#define LACKS(c) deviation(must, \"mpi.h:\", #c \" is not defined (R-RC-2)\");\n",
    );
    for e in TErr::ALL {
        let n = e.spelling();
        s.push_str(&has(&[n]));
        let otherwise = if since_4_0(*e) {
            "#elif MPI_VERSION >= 4"
        } else {
            "#else"
        };
        let _ = writeln!(s, "    HAS({n})\n{otherwise}\n    LACKS({n})\n#endif");
    }
    s.push_str("#undef HAS\n#undef LACKS\n    for (int i = 0; i < n; i++)\n        for (int j = i + 1; j < n; j++)\n            if (codes[i] == codes[j]) { snprintf(what, sizeof what, \"two MPI_T_ERR_* codes are both %d\", codes[i]); deviation(must, \"mpi.h:\", what); }\n}\n");
    s
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
