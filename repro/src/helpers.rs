//! The C a reproducer carries besides its case: the sections of the C files beside this
//! one (`helpers.c` says their format) and those written from the spec's tables
//! (`ctext::spec_tables`), of which a program keeps only what its case reaches: the
//! closure over which section names which (a reproducer is the smallest
//! program that shows the deviation, not a library pasted whole).
//!
//! What goes where: `head` sections (headers, types, macros, what main() reads) before
//! the case, then the signature of each function of the `tail` sections, then the case,
//! then the `tail` sections themselves, so a reader meets the case first.

use super::ctext;
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// The C files of helper sections, in the order their sections are written out.
const FILES: [&str; 5] = [
    include_str!("helpers.c"),
    include_str!("events.c"),
    include_str!("snapshot.c"),
    include_str!("names.c"),
    include_str!("activity.c"),
];

/// The marker that starts a section (and, followed by anything else, a comment of the
/// file that no program carries).
const MARKER: &str = "//@ ";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Before the case.
    Head,
    /// After main(), declared before the case.
    Tail,
}

#[derive(Debug)]
struct Section {
    /// What the section defines; the first names it.
    names: Vec<String>,
    place: Place,
    /// `if=NAME` (one or more): this version replaces the plain one where the program
    /// reaches one of the names.
    when: Vec<String>,
    /// Only where mpi.h is MPI-4.0 or later (the event interface, §15.3.8).
    mpi4: bool,
    text: String,
    /// The identifiers the text uses (comments and literals left out).
    uses: BTreeSet<String>,
}

/// What a program carries besides its case.
#[derive(Debug, Default)]
pub(super) struct Carried {
    /// Before the case: headers, types, macros, variables main() reads.
    pub head: String,
    /// The signature of each function defined after main().
    pub prototypes: String,
    /// After main(): the functions and what only they use.
    pub tail: String,
}

fn sections() -> &'static [Section] {
    static ALL: OnceLock<Vec<Section>> = OnceLock::new();
    ALL.get_or_init(|| {
        // The functions written from the spec's tables call none of the others: first,
        // so that the others need no declaration of them.
        let generated = ctext::spec_tables();
        [generated.as_str()]
            .into_iter()
            .chain(FILES)
            .flat_map(parse)
            .collect()
    })
}

/// The sections of one file. The text before its first section is the file's comment.
fn parse(file: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    for line in file.lines() {
        if let Some(marker) = line.strip_prefix(MARKER) {
            let mut words = marker.split_whitespace();
            let place = match words.next() {
                Some("head") => Place::Head,
                Some("tail") => Place::Tail,
                // A comment of the file.
                _ => continue,
            };
            let mut s = Section {
                names: Vec::new(),
                place,
                when: Vec::new(),
                mpi4: false,
                text: String::new(),
                uses: BTreeSet::new(),
            };
            for w in words {
                match w.strip_prefix("if=") {
                    Some(n) => s.when.push(n.to_string()),
                    None if w == "mpi4" => s.mpi4 = true,
                    None => s.names.push(w.to_string()),
                }
            }
            out.push(s);
        } else if let Some(s) = out.last_mut() {
            s.text.push_str(line);
            s.text.push('\n');
        }
    }
    for s in &mut out {
        s.uses = identifiers(&s.text);
    }
    out
}

/// The identifiers of C text, leaving out comments and string and character literals.
pub(super) fn identifiers(c: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let b = c.as_bytes();
    let (mut i, mut word) = (0, String::new());
    while i < b.len() {
        let ch = b[i];
        let next = b.get(i + 1).copied();
        let skip_to = match (ch, next) {
            (b'/', Some(b'*')) => c[i + 2..].find("*/").map_or(b.len(), |j| i + 2 + j + 2),
            (b'/', Some(b'/')) => c[i..].find('\n').map_or(b.len(), |j| i + j),
            (b'"' | b'\'', _) => {
                let mut j = i + 1;
                while j < b.len() && b[j] != ch {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                j + 1
            }
            _ => i,
        };
        if skip_to != i || !(ch.is_ascii_alphanumeric() || ch == b'_') {
            if !word.is_empty() {
                out.insert(std::mem::take(&mut word));
            }
            i = if skip_to != i { skip_to } else { i + 1 };
            continue;
        }
        word.push(char::from(ch));
        i += 1;
    }
    if !word.is_empty() {
        out.insert(word);
    }
    out
}

/// The section that defines `name` for a program that reaches `reached`: a version whose
/// `if=` the program reaches, else the plain one.
fn defining(all: &[Section], name: &str, reached: &BTreeSet<String>) -> Option<usize> {
    let mut plain = None;
    for (i, s) in all.iter().enumerate() {
        if !s.names.iter().any(|n| n == name) {
            continue;
        }
        if s.when.is_empty() {
            plain = plain.or(Some(i));
        } else if s.when.iter().any(|w| reached.contains(w)) {
            return Some(i);
        }
    }
    plain
}

/// The sections a case reaches, directly or through other sections. The versions are
/// chosen by what the previous round reached, until a round reaches nothing new.
fn closure(all: &[Section], case: &BTreeSet<String>) -> BTreeSet<usize> {
    let mut before = case.clone();
    // A round can only add names (two at most: a version brings its own), so few rounds.
    for _ in 0..8 {
        let (mut reached, mut picked) = (case.clone(), BTreeSet::new());
        let mut todo: Vec<String> = case.iter().cloned().collect();
        while let Some(name) = todo.pop() {
            let Some(i) = defining(all, &name, &before) else {
                continue;
            };
            if picked.insert(i) {
                for u in &all[i].uses {
                    if reached.insert(u.clone()) {
                        todo.push(u.clone());
                    }
                }
            }
        }
        if reached == before {
            return picked;
        }
        before = reached;
    }
    BTreeSet::new()
}

/// The functions of a tail section: (name, declaration), from each signature line (a
/// line at the margin followed by `{`).
fn prototypes(text: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .windows(2)
        .filter(|w| w[1] == "{" && w[0].starts_with("static ") && w[0].ends_with(')'))
        .filter_map(|w| {
            let before = &w[0][..w[0].find('(')?];
            let mut name = before.rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
            Some((name.next()?.to_string(), format!("{};", w[0])))
        })
        .collect()
}

/// Lines, under `#if MPI_VERSION >= 4` where `mpi4` (runs of them under one).
fn push_guarded(out: &mut String, open: &mut bool, mpi4: bool, text: &str) {
    if mpi4 != *open {
        out.push_str(if mpi4 {
            "#if MPI_VERSION >= 4\n"
        } else {
            "#endif\n"
        });
        *open = mpi4;
    }
    out.push_str(text);
}

/// The condition (`if=`) of the versions for a program whose buffers are sized to the
/// byte: a value buffer (count × element size), a string buffer smaller than its string
/// plus 64 bytes. The harness places every buffer against a PROT_NONE page, so a library
/// that reads or writes past such a buffer dies there; the program must too.
pub(super) const TIGHT: &str = "tight_buffers";

/// What a program whose case is `case` (its C text: the lookup, declarations and
/// main()) carries; `tight`: it passes buffers sized to the byte ([`TIGHT`]).
pub(super) fn carried(case: &str, tight: bool) -> Carried {
    let all = sections();
    let mut case_uses = identifiers(case);
    if tight {
        case_uses.insert(TIGHT.to_string());
    }
    let picked = closure(all, &case_uses);
    let mut c = Carried::default();
    let (mut open_p, mut open_t) = (false, false);
    let mut declared = BTreeSet::new();
    for (i, s) in all.iter().enumerate() {
        if !picked.contains(&i) {
            continue;
        }
        match s.place {
            Place::Head => c.head.push_str(&s.text),
            Place::Tail => {
                // Declared before the case where the case, or a function written before
                // this one, calls it.
                for (name, p) in prototypes(&s.text) {
                    let called_before = case_uses.contains(&name)
                        || picked
                            .range(..i)
                            .any(|&j| all[j].place == Place::Tail && all[j].uses.contains(&name));
                    if called_before && declared.insert(p.clone()) {
                        push_guarded(&mut c.prototypes, &mut open_p, s.mpi4, &format!("{p}\n"));
                    }
                }
                let sep = if c.tail.is_empty() || open_t != s.mpi4 {
                    ""
                } else {
                    "\n"
                };
                push_guarded(
                    &mut c.tail,
                    &mut open_t,
                    s.mpi4,
                    &format!("{sep}{}", s.text),
                );
            }
        }
    }
    for (text, open) in [(&mut c.prototypes, open_p), (&mut c.tail, open_t)] {
        if open {
            text.push_str("#endif\n");
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(set: &BTreeSet<usize>) -> Vec<&'static str> {
        set.iter()
            .map(|&i| sections()[i].names[0].as_str())
            .collect()
    }

    /// Every section defines what it says, once per version, and every function of a
    /// tail section has a signature line the writer declares before the case.
    #[test]
    fn every_section_defines_its_names() {
        let all = sections();
        assert!(all.len() > 40, "{} sections", all.len());
        for s in all {
            let first = &s.names[0];
            assert!(!s.text.trim().is_empty(), "{first} is empty");
            if first.starts_with('<') {
                assert!(s.text.starts_with(&format!("#include {first}")), "{first}");
                continue;
            }
            for n in &s.names {
                assert!(s.uses.contains(n), "{first} does not define {n}");
            }
            if s.place == Place::Tail && s.text.contains("\n{\n") {
                assert!(
                    !prototypes(&s.text).is_empty(),
                    "{first}: a function whose signature is not one line at the margin"
                );
            }
            let versions = all
                .iter()
                .filter(|o| o.names[0] == *first && o.when.is_empty() == s.when.is_empty());
            assert_eq!(versions.count(), 1, "{first} twice");
        }
    }

    /// The closure keeps what a case names and what that names in turn, and no more; the
    /// guard pages come in with a check of bounds (stray_writes), not with a buffer alone.
    #[test]
    fn the_closure_keeps_what_the_case_reaches() {
        let all = sections();
        let plain = closure(
            all,
            &identifiers("sarg_t a = sarg(1, 1, 0, 0); show_call(\"x\", 0);"),
        );
        let got = names(&plain);
        for want in [
            "sarg",
            "guarded",
            "guarded_t",
            "show_call",
            "rc_name",
            "<stdio.h>",
        ] {
            assert!(got.contains(&want), "{want} missing from {got:?}");
        }
        for not in [
            "stray_writes",
            "<sys/mman.h>",
            "snapshot",
            "vbuf_num",
            "deviation",
        ] {
            assert!(!got.contains(&not), "{not} in {got:?}");
        }
        let checked = closure(
            all,
            &identifiers("sarg_t a = sarg(1, 1, 0, 0); string_broken(&a, 0, \"x\");"),
        );
        let got = names(&checked);
        assert!(
            got.contains(&"<sys/mman.h>") && got.contains(&"stray_writes"),
            "{got:?}"
        );
        let guarded: Vec<_> = checked
            .iter()
            .filter(|&&i| all[i].names[0] == "guarded")
            .collect();
        assert_eq!(guarded.len(), 1);
        assert!(all[*guarded[0]].text.contains("mprotect"));
        // A buffer sized to the byte brings them too.
        let mut tight = identifiers("sarg_t a = sarg(1, 1, 0, 0);");
        tight.insert(TIGHT.to_string());
        let got = names(&closure(all, &tight));
        assert!(
            got.contains(&"<sys/mman.h>") && !got.contains(&"stray_writes"),
            "{got:?}"
        );
        // Names in comments and strings reach nothing.
        let none = closure(
            all,
            &identifiers("/* snapshot */ x(\"check_names_unique\");"),
        );
        assert!(none.is_empty(), "{:?}", names(&none));
    }

    #[test]
    fn identifiers_skip_comments_and_literals() {
        let ids = identifiers("a /* b */ c // d\n\"e \\\" f\" 'g' h_1");
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        assert_eq!(ids, ["a", "c", "h_1"]);
    }
}
