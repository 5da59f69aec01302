//! The small expression language of case files: argument values, buffer sizes,
//! expected values and return-code sets. Each is parsed while the YAML is read, so a
//! typo is reported at its `file:line:col`.

use mpit_vocab::profile::AbiProfile;
use mpit_vocab::spec::{Bind, CbSafety, Datatype, PvarClass, Scope, SourceOrder, TErr};
use mpit_vocab::spec::{ThreadLevel, Verbosity};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// One operand of an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    Int(i64),
    /// `$name`: a subject variable or a value saved by an earlier step.
    Var(String),
    /// `MPI_...`: a constant, resolved through the target's ABI profile.
    Const(String),
}

/// A value written in a case: `3`, `$index`, `MPI_T_PVAR_ALL_HANDLES`, `$num + 5`,
/// `$v0 + 16*$t1 - 16*$t0` (integer coefficients), `null`, or text (for `Text` parameters such as names given to `*_get_index`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// Terms with their integer coefficients (±1 unless written `K*term`).
    Sum(Vec<(i64, Term)>),
    /// YAML `null`: a NULL pointer where the parameter allows one.
    Null,
    /// A string that is not an expression; only `Text` parameters accept it.
    Text(String),
    /// A buffer shape for a string parameter (see `Size`).
    Shape(Size),
}

/// The size of a string buffer, relative to the length of the string expected in it
/// (`len` = strlen + 1): MPI-4.1 §15.3.3's corner cases are 0, 1, len-1, len, len+1,
/// a NULL buffer, a NULL length pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    Fixed(u32),
    /// `len + k` (k may be negative).
    Len(i64),
    /// buf = NULL with a non-zero `*len` (R-STR-3).
    NullBuf,
    /// A full-size buffer but a NULL length pointer (R-STR-4: buffer ignored).
    NullLen,
    /// Large enough for the expected string (the default of string parameters).
    Full,
}

impl Size {
    /// As results name a buffer: `0`, `len-1`, `NULL`, `NULL len`, `full`.
    pub fn text(self) -> String {
        match self {
            Size::Fixed(n) => n.to_string(),
            Size::Len(0) => "len".into(),
            Size::Len(k) => format!("len{k:+}"),
            Size::NullBuf => "NULL".into(),
            Size::NullLen => "NULL len".into(),
            Size::Full => "full".into(),
        }
    }
}

/// Every constant name a case may use, as the standard ABI profile defines them.
pub fn known_constant(name: &str) -> bool {
    constant_kind(name).is_some()
}

/// Which table of a profile a constant name belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstKind {
    Success,
    TErr(TErr),
    ThreadLevel(ThreadLevel),
    Verbosity(Verbosity),
    Bind(Bind),
    Scope(Scope),
    PvarClass(PvarClass),
    CbSafety(CbSafety),
    SourceOrder(SourceOrder),
    Datatype(Datatype),
    /// A predefined handle listed in the profile's `handles`.
    Handle,
    /// `MPI_ERR_LASTCODE`.
    LastCode,
}

pub fn constant_kind(name: &str) -> Option<ConstKind> {
    if name == "MPI_SUCCESS" {
        return Some(ConstKind::Success);
    }
    if name == "MPI_ERR_LASTCODE" {
        return Some(ConstKind::LastCode);
    }
    if let Some(e) = TErr::from_spelling(name) {
        return Some(ConstKind::TErr(e));
    }
    if let Some(t) = ThreadLevel::from_spelling(name) {
        return Some(ConstKind::ThreadLevel(t));
    }
    if let Some(d) = Datatype::from_spelling(name) {
        return Some(ConstKind::Datatype(d));
    }
    let suffix = |p: &str| name.strip_prefix(p);
    if let Some(v) = suffix("MPI_T_VERBOSITY_").and_then(Verbosity::from_spelling) {
        return Some(ConstKind::Verbosity(v));
    }
    if let Some(v) = suffix("MPI_T_BIND_").and_then(Bind::from_spelling) {
        return Some(ConstKind::Bind(v));
    }
    if let Some(v) = suffix("MPI_T_SCOPE_").and_then(Scope::from_spelling) {
        return Some(ConstKind::Scope(v));
    }
    if let Some(v) = suffix("MPI_T_PVAR_CLASS_").and_then(PvarClass::from_spelling) {
        return Some(ConstKind::PvarClass(v));
    }
    if let Some(v) = suffix("MPI_T_CB_REQUIRE_").and_then(CbSafety::from_spelling) {
        return Some(ConstKind::CbSafety(v));
    }
    if let Some(v) = suffix("MPI_T_SOURCE_").and_then(SourceOrder::from_spelling) {
        return Some(ConstKind::SourceOrder(v));
    }
    if standard_handles().iter().any(|h| h == name) {
        return Some(ConstKind::Handle);
    }
    None
}

fn standard_handles() -> &'static [String] {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| AbiProfile::standard().handles.keys().cloned().collect())
}

/// Parses expression text (not YAML: the scalar's contents).
pub fn parse_expr(s: &str) -> Result<Expr, String> {
    let t = s.trim();
    match t {
        "null_buf" => return Ok(Expr::Shape(Size::NullBuf)),
        "null_len" => return Ok(Expr::Shape(Size::NullLen)),
        "full" => return Ok(Expr::Shape(Size::Full)),
        _ => {}
    }
    let mut terms = Vec::new();
    let mut sign = 1;
    let mut expect_term = true;
    for tok in tokens(t) {
        match (tok.as_str(), expect_term) {
            ("+", false) => {
                sign = 1;
                expect_term = true;
            }
            ("-", false) => {
                sign = -1;
                expect_term = true;
            }
            ("-", true) if terms.is_empty() => sign = -sign,
            // `K*term`: an integer coefficient (e.g. `16*$t1`, a bound on elapsed time).
            (w, true) => {
                let (k, w) = match w.split_once('*') {
                    Some((k, rest)) => (
                        k.parse::<i64>()
                            .map_err(|_| format!("bad coefficient `{k}` in `{t}`"))?,
                        rest,
                    ),
                    None => (1, w),
                };
                terms.push((sign * k, term(w)?));
                expect_term = false;
            }
            (w, false) => return Err(format!("expected `+` or `-` before `{w}` in `{t}`")),
        }
    }
    if expect_term {
        return Err(format!("incomplete expression `{t}`"));
    }
    Ok(Expr::Sum(terms))
}

fn tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in s.chars() {
        if c == '+' || c == '-' || c.is_whitespace() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn term(w: &str) -> Result<Term, String> {
    if let Some(v) = w.strip_prefix('$') {
        if v.is_empty() || !v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("bad variable name `{w}`"));
        }
        return Ok(Term::Var(v.to_string()));
    }
    if let Some(hex) = w.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16)
            .map(Term::Int)
            .map_err(|_| format!("bad number `{w}`"));
    }
    if let Ok(n) = w.parse::<i64>() {
        return Ok(Term::Int(n));
    }
    if w.starts_with("MPI_") {
        return if known_constant(w) {
            Ok(Term::Const(w.to_string()))
        } else {
            Err(format!("unknown constant `{w}`"))
        };
    }
    Err(format!(
        "`{w}` is not a number, a `$variable` or an MPI_ constant"
    ))
}

/// Parses one buffer size of a `buffers.sizes` list.
pub fn parse_size(s: &str) -> Result<Size, String> {
    let t: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    match t.as_str() {
        "null_buf" => return Ok(Size::NullBuf),
        "null_len" => return Ok(Size::NullLen),
        "full" => return Ok(Size::Full),
        "len" => return Ok(Size::Len(0)),
        _ => {}
    }
    if let Some(k) = t.strip_prefix("len") {
        return k
            .parse::<i64>()
            .map(Size::Len)
            .map_err(|_| format!("bad buffer size `{s}` (want len, len+K or len-K)"));
    }
    t.parse::<u32>().map(Size::Fixed).map_err(|_| {
        format!("bad buffer size `{s}` (want N, len, len+K, len-K, null_buf, null_len, full)")
    })
}

struct ExprVisitor;

impl Visitor<'_> for ExprVisitor {
    type Value = Expr;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number, a `$variable`, an MPI_ constant, an expression or null")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Expr, E> {
        Ok(Expr::Sum(vec![(1, Term::Int(v))]))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Expr, E> {
        i64::try_from(v)
            .map(|v| Expr::Sum(vec![(1, Term::Int(v))]))
            .map_err(|_| E::custom(format!("number {v} out of range")))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Expr, E> {
        Ok(Expr::Sum(vec![(1, Term::Int(v as i64))]))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Expr, E> {
        Ok(Expr::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Expr, E> {
        Ok(Expr::Null)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Expr, E> {
        // A string that does not parse stays text; parameters that need a number reject
        // it when the case is validated (with the same message, located at the text).
        Ok(parse_expr(v).unwrap_or_else(|_| Expr::Text(v.to_string())))
    }
}

impl<'de> Deserialize<'de> for Expr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Expr, D::Error> {
        d.deserialize_any(ExprVisitor)
    }
}

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Size, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Size;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a buffer size: N, len, len+K, len-K, null_buf, null_len or full")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Size, E> {
                u32::try_from(v)
                    .map(Size::Fixed)
                    .map_err(|_| E::custom("buffer size out of range"))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Size, E> {
                u32::try_from(v)
                    .map(Size::Fixed)
                    .map_err(|_| E::custom("buffer size out of range"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Size, E> {
                parse_size(v).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// An expected return code: one name, a list of names (any of them), or `any_error`
/// (any MPI_T_ERR_* of the profile).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RcSet {
    AnyOf(Vec<String>),
    AnyError,
}

fn rc_name<E: de::Error>(v: &str) -> Result<String, E> {
    if v == "MPI_SUCCESS" || TErr::from_spelling(v).is_some() {
        Ok(v.to_string())
    } else {
        Err(E::custom(format!(
            "unknown return code `{v}` (want MPI_SUCCESS, an MPI_T_ERR_* name or any_error)"
        )))
    }
}

impl<'de> Deserialize<'de> for RcSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RcSet, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RcSet;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a return-code name, a list of them, or any_error")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RcSet, E> {
                if v == "any_error" {
                    return Ok(RcSet::AnyError);
                }
                Ok(RcSet::AnyOf(vec![rc_name(v)?]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RcSet, A::Error> {
                let mut out = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    out.push(rc_name(&s)?);
                }
                if out.is_empty() {
                    return Err(de::Error::custom("an empty list of return codes"));
                }
                Ok(RcSet::AnyOf(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// An expectation on one OUT value: a bare value means equality.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pred {
    #[serde(default)]
    pub eq: Option<Expr>,
    #[serde(default)]
    pub ne: Option<Expr>,
    #[serde(default)]
    pub lt: Option<Expr>,
    #[serde(default)]
    pub le: Option<Expr>,
    #[serde(default)]
    pub gt: Option<Expr>,
    #[serde(default)]
    pub ge: Option<Expr>,
    /// Inclusive bounds.
    #[serde(default)]
    pub between: Option<(Expr, Expr)>,
    #[serde(default, rename = "in")]
    pub one_of: Option<Vec<Expr>>,
    #[serde(default)]
    pub not_in: Option<Vec<Expr>>,
    /// For lists: every element satisfies this.
    #[serde(default)]
    pub each: Option<Box<Pred>>,
    /// For lists: strictly ascending.
    #[serde(default)]
    pub ascending: Option<bool>,
    /// For lists: no two elements equal.
    #[serde(default)]
    pub distinct: Option<bool>,
    /// For lists: the number of elements.
    #[serde(default)]
    pub length: Option<Expr>,
    /// For lists: the other checks look at the list without its first N elements (e.g.
    /// the entries of `indices` past the count, which must keep the sentinel).
    #[serde(default)]
    pub skip: Option<Expr>,
    /// For lists: the other checks look at the first N elements only (after `skip`).
    #[serde(default)]
    pub take: Option<Expr>,
}

impl Pred {
    /// The comparisons it makes, with their C/Rust operator.
    pub fn comparisons(&self) -> [(&Option<Expr>, &'static str); 6] {
        [
            (&self.eq, "=="),
            (&self.ne, "!="),
            (&self.lt, "<"),
            (&self.le, "<="),
            (&self.gt, ">"),
            (&self.ge, ">="),
        ]
    }
}

/// `Pred` as written: a scalar (equality) or a mapping of operators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredSpec(pub Pred);

impl<'de> Deserialize<'de> for PredSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PredSpec, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PredSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a value, or a mapping of eq/ne/lt/le/gt/ge/between/in/not_in/each/ascending/distinct/length/skip/take")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<PredSpec, E> {
                eq(ExprVisitor.visit_i64(v)?)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<PredSpec, E> {
                eq(ExprVisitor.visit_u64(v)?)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<PredSpec, E> {
                eq(ExprVisitor.visit_bool(v)?)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<PredSpec, E> {
                eq(parse_expr(v).map_err(E::custom)?)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<PredSpec, A::Error> {
                Pred::deserialize(de::value::MapAccessDeserializer::new(map)).map(PredSpec)
            }
        }
        fn eq<E: de::Error>(e: Expr) -> Result<PredSpec, E> {
            Ok(PredSpec(Pred {
                eq: Some(e),
                ..Pred::default()
            }))
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions() {
        assert_eq!(
            parse_expr("$num + 5"),
            Ok(Expr::Sum(vec![
                (1, Term::Var("num".into())),
                (1, Term::Int(5))
            ]))
        );
        assert_eq!(parse_expr("-1"), Ok(Expr::Sum(vec![(-1, Term::Int(1))])));
        assert!(parse_expr("MPI_T_ERR_NOPE")
            .unwrap_err()
            .contains("unknown constant"));
        assert!(parse_expr("$a $b").is_err());
        assert!(parse_expr("$a +").is_err());
        assert!(known_constant("MPI_T_PVAR_ALL_HANDLES"));
        assert!(known_constant("MPI_T_SCOPE_ALL_EQ"));
        assert!(known_constant("MPI_T_PVAR_CLASS_HIGHWATERMARK"));
        assert!(!known_constant("MPI_T_SCOPE_EVERYWHERE"));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("len-1"), Ok(Size::Len(-1)));
        assert_eq!(parse_size("len + 1"), Ok(Size::Len(1)));
        assert_eq!(parse_size("0"), Ok(Size::Fixed(0)));
        assert_eq!(parse_size("null_len"), Ok(Size::NullLen));
        assert!(parse_size("lenn").is_err());
    }
}
