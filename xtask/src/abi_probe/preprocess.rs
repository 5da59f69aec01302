//! Step 1 of the probe: the header run through the C preprocessor with a file that
//! expands every probed name, read back into what the header declares (identifiers,
//! `extern` objects, macro expansions). Kept apart because it is pure text work, tested
//! without a compiler.

use super::ProbeError;
use crate::abi_tags;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// What the preprocessor says about one name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// A macro, with its expansion.
    Macro(String),
    /// Declared by the header but not a macro: an enumerator, or an `extern` object.
    Declared {
        object: bool,
    },
    Absent,
}

/// What a name's value is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Value {
    /// A compile-time constant: the compiled probe prints it.
    Constant,
    /// The address of (`deref: false`) or the value in (`deref: true`) a library object.
    Symbol {
        symbol: String,
        deref: bool,
    },
    Absent,
}

/// The preprocessed header: which identifiers it declares, which of them are `extern`
/// objects, and the expansion of every probed macro.
#[derive(Debug)]
pub struct Preprocessed {
    /// The header's path as the preprocessor found it.
    pub header_path: Option<String>,
    pub(super) identifiers: BTreeSet<String>,
    pub(super) objects: BTreeSet<String>,
    pub(super) macros: BTreeMap<String, String>,
    /// `(type, struct tag)` of the MPI_T handle typedefs (crate::abi_tags).
    pub t_handle_tags: Vec<(String, String)>,
}

/// A C token: an identifier or one punctuation character (literals are dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Punct(char),
}

/// Tokens of preprocessed C text; string and character literals are skipped (so
/// `__attribute__((visibility("default")))` contributes no `default`), numbers dropped.
fn tokens(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with('#') {
            continue; // a line marker
        }
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '"' || c == '\'' {
                while let Some(d) = chars.next() {
                    if d == '\\' {
                        chars.next();
                    } else if d == c {
                        break;
                    }
                }
            } else if c.is_ascii_alphabetic() || c == '_' {
                let mut id = String::from(c);
                while let Some(&d) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' {
                        id.push(d);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(Tok::Ident(id));
            } else if c.is_ascii_digit() {
                while chars
                    .peek()
                    .is_some_and(|d| d.is_ascii_alphanumeric() || *d == '.')
                {
                    chars.next();
                }
            } else if !c.is_whitespace() {
                out.push(Tok::Punct(c));
            }
        }
    }
    out
}

/// The objects an `extern` declaration declares: per comma-separated declarator, its
/// last identifier, once `__attribute__((...))` and array bounds are dropped. A
/// declaration with parentheses left over declares a function and is skipped.
fn extern_objects(toks: &[Tok], out: &mut BTreeSet<String>) {
    let mut stmt: Vec<Tok> = Vec::new();
    let mut flush = |stmt: &mut Vec<Tok>| {
        if stmt.contains(&Tok::Ident("extern".into())) {
            // Drop attribute groups and bracketed bounds.
            let mut clean = Vec::new();
            let mut i = 0;
            while i < stmt.len() {
                match &stmt[i] {
                    Tok::Ident(a) if a == "__attribute__" || a == "__asm__" || a == "asm" => {
                        i += 1;
                        let mut depth = 0;
                        while i < stmt.len() {
                            match stmt[i] {
                                Tok::Punct('(') => depth += 1,
                                Tok::Punct(')') => {
                                    depth -= 1;
                                    if depth == 0 {
                                        break;
                                    }
                                }
                                _ => {}
                            }
                            i += 1;
                        }
                    }
                    Tok::Punct('[') => {
                        while i < stmt.len() && stmt[i] != Tok::Punct(']') {
                            i += 1;
                        }
                    }
                    t => clean.push(t.clone()),
                }
                i += 1;
            }
            if !clean.contains(&Tok::Punct('(')) {
                for decl in clean.split(|t| *t == Tok::Punct(',')) {
                    if let Some(Tok::Ident(name)) =
                        decl.iter().rev().find(|t| matches!(t, Tok::Ident(_)))
                    {
                        out.insert(name.clone());
                    }
                }
            }
        }
        stmt.clear();
    };
    for t in toks {
        match t {
            Tok::Punct(';' | '{' | '}') => flush(&mut stmt),
            t => stmt.push(t.clone()),
        }
    }
    flush(&mut stmt);
}

/// The marker line between the header and the probed macros in the generated file.
const BEGIN: &str = "mpit_probe_begin";
const MACRO: &str = "mpit_probe_macro_";

/// The file run through the preprocessor: the header, then per name a line that shows
/// its expansion if it is a macro.
pub(super) fn names_file(header: &str, names: &[String]) -> String {
    let mut s = format!("#include <{header}>\n{BEGIN}\n");
    for n in names {
        let _ = writeln!(s, "#ifdef {n}\n{MACRO}{n} {n}\n#endif");
    }
    s
}

impl Preprocessed {
    /// Reads the preprocessor's output of [`names_file`].
    pub fn parse(output: &str, header: &str) -> Result<Preprocessed, ProbeError> {
        let Some(split) = output
            .lines()
            .position(|l| l.trim() == BEGIN)
            .map(|n| output.lines().take(n).map(|l| l.len() + 1).sum::<usize>())
        else {
            return Err(ProbeError::Unexpected(format!(
                "the preprocessor's output lacks the `{BEGIN}` line"
            )));
        };
        let (head, tail) = output.split_at(split.min(output.len()));
        // `# 1 "/usr/include/mpich/mpi.h" 1`: the first file entered named like the header.
        let header_path = head.lines().find_map(|l| {
            let rest = l.strip_prefix("# ")?;
            let q = rest.find('"')?;
            let file = &rest[q + 1..q + 1 + rest[q + 1..].find('"')?];
            let name = Path::new(file).file_name()?.to_str()?;
            (name == header).then(|| file.to_string())
        });
        let toks = tokens(head);
        let identifiers = toks
            .iter()
            .filter_map(|t| match t {
                Tok::Ident(s) => Some(s.clone()),
                Tok::Punct(_) => None,
            })
            .collect();
        let mut objects = BTreeSet::new();
        extern_objects(&toks, &mut objects);
        let flat: Vec<Result<&str, char>> = toks
            .iter()
            .map(|t| match t {
                Tok::Ident(s) => Ok(s.as_str()),
                Tok::Punct(c) => Err(*c),
            })
            .collect();
        let t_handle_tags = abi_tags::handle_tags(&flat);
        let mut macros = BTreeMap::new();
        for l in tail.lines() {
            if let Some(rest) = l.trim_start().strip_prefix(MACRO) {
                let (name, expansion) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                macros.insert(name.to_string(), expansion.trim().to_string());
            }
        }
        let p = Preprocessed {
            header_path,
            identifiers,
            objects,
            macros,
            t_handle_tags,
        };
        Ok(p)
    }

    pub fn seen(&self, name: &str) -> Seen {
        if let Some(e) = self.macros.get(name) {
            Seen::Macro(e.clone())
        } else if self.identifiers.contains(name) {
            Seen::Declared {
                object: self.objects.contains(name),
            }
        } else {
            Seen::Absent
        }
    }

    /// A handle's value: an expansion naming a library object (`&(ompi_mpi_int)`, or
    /// any `ompi_*` name) is that object's address, or its content without `&`; a
    /// declared object (MPICH's `MPI_T_PVAR_ALL_HANDLES`) is its content.
    pub(super) fn handle(&self, name: &str) -> Value {
        match self.seen(name) {
            Seen::Macro(e) => {
                let object = tokens(&e).into_iter().find_map(|t| match t {
                    Tok::Ident(id) if self.objects.contains(&id) || id.starts_with("ompi_") => {
                        Some(id)
                    }
                    _ => None,
                });
                match object {
                    Some(symbol) => Value::Symbol {
                        symbol,
                        deref: !e.contains('&'),
                    },
                    None => Value::Constant,
                }
            }
            Seen::Declared { object: true } => Value::Symbol {
                symbol: name.to_string(),
                deref: true,
            },
            Seen::Declared { object: false } => Value::Constant,
            Seen::Absent => Value::Absent,
        }
    }

    /// An integer constant's value kind (a variable cannot be read at compile time).
    pub(super) fn int(&self, name: &str, header: &str) -> Result<Value, ProbeError> {
        match self.seen(name) {
            Seen::Absent => Ok(Value::Absent),
            Seen::Declared { object: true } => Err(ProbeError::NotConstant {
                header: header.to_string(),
                name: name.to_string(),
            }),
            _ => Ok(Value::Constant),
        }
    }

    /// A version macro's expansion without quotes (`"4.0.2"` → `4.0.2`).
    pub(super) fn version(&self, name: &str) -> Option<String> {
        self.macros
            .get(name)
            .map(|e| {
                e.trim_matches(|c: char| c == '"' || c.is_whitespace())
                    .to_string()
            })
            .filter(|v| !v.is_empty())
    }
}
