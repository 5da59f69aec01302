//! The reference as a test double for real tools: the cdylib staged
//! under MPICH's file names (`libmpi.so.12`, `libmpich.so.12`) speaks MPICH's ABI.
//! * the harness judges that build exactly as it judges the standard-ABI one;
//! * two tools nobody here wrote — MPICH's `mpivars` (Debian's and the PyPI wheel's) and
//!   Intel's `impi_info` — run unmodified against it with `LD_LIBRARY_PATH` and list the
//!   reference's catalog (the names come from `mpit-conform catalog`, not from here);
//! * under chosen faults and conforming variations each tool's behaviour is classified,
//!   and README.md's table "The reference as a test double for tools" must be that
//!   classification (`MPIT_BLESS=1`, or `bash scripts/tool-faults.sh`, rewrites it).
//!
//! A missing tool fails (never skips) unless `MPIT_SKIP_REAL_TARGETS=1` says to skip.

mod common;

use common::{real_targets, reference_lib, repo, run, scratch, stdout, suite};
use serde_json::Value;
use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a tool may run: a clean run takes milliseconds.
const TOOL_TIMEOUT: Duration = Duration::from_secs(5);

/// A name counts as listed when the output has at least this many of its first
/// characters (a tool with a fixed name buffer prints a truncated long name).
const MIN_PREFIX: usize = 100;

/// The faults and conforming variations the table shows: those a listing tool meets
/// (strings, names, counts, categories, return codes, a crash, a hang). The outcome of
/// each is measured, never written here.
const FAULTS: &[&str] = &[
    "empty-descriptions",
    "long-names",
    "trunc-len-off-by-one",
    "missing-nul",
    "overrun-one-byte",
    "null-buf-len-no-plus-one",
    "empty-desc-len-zero",
    "duplicate-name",
    "verbosity-out-of-range",
    "provided-illegal",
    "category-cycle",
    "category-count-mismatch",
    "get-cvars-writes-past-len",
    "char-count-excludes-nul",
    "empty-enum",
    "crash-in-call",
    "hang-in-call",
    "crash-in-init",
];

/// Stages the reference cdylib under MPICH's two file names (symlinks: the library
/// tells its ABI from the name it was loaded under, not from the file it resolves to).
fn stage(dir: &Path) -> PathBuf {
    let lib = reference_lib();
    for name in ["libmpi.so.12", "libmpich.so.12"] {
        let link = dir.join(name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&lib, &link).expect("symlink the reference");
    }
    dir.join("libmpi.so.12")
}

/// The three tools, by the libraries scripts/install-targets.sh installs: Debian's
/// `mpich` package puts mpivars in /usr/bin; the wheels keep theirs in `bin/` beside
/// `lib/`. `None` when the targets are absent and may be skipped.
fn tools() -> Option<Vec<(&'static str, PathBuf)>> {
    let targets = real_targets()?;
    let lib = |name: &str| {
        let (_, path, _) = targets
            .iter()
            .find(|(n, _, _)| n == name)
            .unwrap_or_else(|| panic!("{name} in .targets/targets.txt"));
        PathBuf::from(path)
    };
    let beside = |name: &str, tool: &str| {
        lib(name)
            .parent()
            .and_then(Path::parent)
            .expect("<prefix>/lib/<lib>")
            .join("bin")
            .join(tool)
    };
    let tools = vec![
        (
            "mpivars (Debian MPICH 4.0.2)",
            PathBuf::from("/usr/bin/mpivars"),
        ),
        ("mpivars (MPICH 5.0.2 wheel)", beside("mpich5", "mpivars")),
        ("impi_info (Intel MPI 2021.19)", beside("impi", "impi_info")),
    ];
    for (name, path) in &tools {
        assert!(
            path.exists(),
            "{name}: {} is missing: run scripts/install-targets.sh (MPIT_SKIP_REAL_TARGETS=1 skips knowingly)",
            path.display()
        );
    }
    Some(tools)
}

/// How a tool run ended.
#[derive(Debug, Clone, PartialEq)]
enum End {
    Exit(i32),
    Signal(i32),
    Timeout,
}

#[derive(Debug, Clone)]
struct ToolRun {
    end: End,
    stdout: String,
    stderr: String,
}

/// Runs `tool` with the staged directory first on `LD_LIBRARY_PATH` (it wins over the
/// wheels' RUNPATH) and `MPIT_REFERENCE_FAULTS=faults`; killed after [`TOOL_TIMEOUT`].
fn run_tool(tool: &Path, dir: &Path, faults: Option<&str>) -> ToolRun {
    let out_dir = scratch(&format!(
        "tool-{}-{}",
        tool.file_name().and_then(|f| f.to_str()).unwrap_or("tool"),
        faults.unwrap_or("clean")
    ));
    let (o, e) = (out_dir.join("stdout"), out_dir.join("stderr"));
    let mut c = Command::new(tool);
    c.env("LD_LIBRARY_PATH", dir)
        .env_remove("MPIT_REFERENCE_ABI")
        .env_remove("MPIT_REFERENCE_CATALOG")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&o).expect("stdout file"))
        .stderr(std::fs::File::create(&e).expect("stderr file"));
    match faults {
        Some(f) => c.env("MPIT_REFERENCE_FAULTS", f),
        None => c.env_remove("MPIT_REFERENCE_FAULTS"),
    };
    let mut child = c.spawn().expect("start the tool");
    let deadline = Instant::now() + TOOL_TIMEOUT;
    let end = loop {
        match child.try_wait().expect("wait for the tool") {
            Some(s) => {
                break s
                    .signal()
                    .map_or(End::Exit(s.code().unwrap_or(-1)), End::Signal)
            }
            None if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break End::Timeout;
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    ToolRun {
        end,
        stdout: read(&o),
        stderr: read(&e),
    }
}

/// The names the reference serves, from `mpit-conform catalog` on the staged library
/// (with the same faults; `after_init` as mpivars, which calls MPI_Init_thread first):
/// (cvar names, pvar names, cvars without a description). `None` when the catalog
/// command itself fails under the fault (a crash or hang it injects).
fn catalog(
    lib: &Path,
    faults: Option<&str>,
    after_init: bool,
) -> Option<(Vec<String>, Vec<String>, Vec<String>)> {
    let mut args = vec![
        "catalog",
        "--lib",
        lib.to_str().expect("utf-8"),
        "--format",
        "json",
        "--timeout",
        "3",
    ];
    if after_init {
        args.push("--after-init");
    }
    let env: Vec<(&str, &str)> = faults
        .map(|f| ("MPIT_REFERENCE_FAULTS", f))
        .into_iter()
        .collect();
    let o = run(&args, &env);
    let v: Value = serde_json::from_str(&stdout(&o)).ok()?;
    let names = |k: &str| -> Vec<String> {
        v["catalog"][k]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x["name"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let undescribed = v["catalog"]["cvars"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|x| x["desc"].as_str().is_none_or(str::is_empty))
                .filter_map(|x| x["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let (c, p) = (names("cvars"), names("pvars"));
    (!c.is_empty()).then_some((c, p, undescribed))
}

/// Whether `out` lists `name` as a word of its own (words end at blanks, `|`, `=`, `:`,
/// `,`, `(`): in full, or a word of [`MIN_PREFIX`] characters or more that begins it.
fn listed(out: &str, name: &str) -> bool {
    out.split(|c: char| c.is_whitespace() || "|=:,(".contains(c))
        .any(|w| w == name || (w.len() >= MIN_PREFIX && name.starts_with(w)))
}

fn is_mpivars(tool: &str) -> bool {
    tool.starts_with("mpivars")
}

/// The names `tool` should list: every cvar, and for mpivars (which reads pvars too)
/// every pvar.
fn expected(tool: &str, cat: &(Vec<String>, Vec<String>, Vec<String>)) -> Vec<String> {
    let mut v = cat.0.clone();
    if is_mpivars(tool) {
        v.extend(cat.1.iter().cloned());
    }
    v.sort();
    v.dedup();
    v
}

fn signal_name(s: i32) -> String {
    match s {
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGABRT => "SIGABRT".into(),
        libc::SIGBUS => "SIGBUS".into(),
        libc::SIGKILL => "SIGKILL".into(),
        libc::SIGFPE => "SIGFPE".into(),
        n => format!("signal {n}"),
    }
}

/// Shortens a line for a table cell (no `|`, at most 60 characters).
fn cell(s: &str) -> String {
    let s: String = s
        .replace('|', "/")
        .replace('\t', " ")
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    let s = s.trim();
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s.to_string()
    }
}

/// What a tool did under a fault, against its clean run:
/// * `crash (SIG…)` — killed by a signal; `hang` — still running after the timeout;
/// * `error exit N` — a status other than the clean run's, with its first stderr line;
/// * `wrong output` — exit as clean, but names of the catalog missing that the clean run
///   listed (the catalog served under a conforming variation; the clean one under a
///   violation);
/// * `copes` — every such name listed: `same output` as the clean run, or how stdout
///   differs (+added/−removed lines, the first added one quoted).
///
/// New stderr lines (complaints) are added to any of these.
fn classify(clean: &ToolRun, r: &ToolRun, names: &[String]) -> String {
    match &r.end {
        End::Signal(s) => return format!("crash ({})", signal_name(*s)),
        End::Timeout => return format!("hang (killed after {} s)", TOOL_TIMEOUT.as_secs()),
        End::Exit(c) if End::Exit(*c) != clean.end => {
            let first = r
                .stderr
                .lines()
                .chain(r.stdout.lines().rev())
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            return format!("error exit {c}: `{}`", cell(first));
        }
        End::Exit(_) => {}
    }
    // Names the clean run does not list either are the clean row's finding, not this one's.
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !listed(&r.stdout, n) && listed(&clean.stdout, &clean_name(n)))
        .collect();
    let new_err: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| !clean.stderr.lines().any(|c| c == *l))
        .collect();
    let added: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| !clean.stdout.lines().any(|c| c == *l))
        .collect();
    let removed = clean
        .stdout
        .lines()
        .filter(|l| !r.stdout.lines().any(|c| c == *l))
        .count();
    let mut s = if !missing.is_empty() {
        format!(
            "wrong output: {} of {} names missing (`{}`)",
            missing.len(),
            names.len(),
            cell(missing[0])
        )
    } else if r.stdout == clean.stdout {
        "copes: same output".to_string()
    } else {
        let first = added
            .first()
            .map(|l| format!(" (`{}`)", cell(l)))
            .unwrap_or_default();
        format!("copes: +{}/−{removed} lines{first}", added.len())
    };
    if !new_err.is_empty() {
        s.push_str(&format!(
            "; {} new stderr lines (`{}`)",
            new_err.len(),
            cell(new_err[0])
        ));
    }
    s
}

/// A name as the clean catalog has it: `long-names` pads names with `_xxx…`, so the
/// clean run is asked about the name before the padding.
fn clean_name(n: &str) -> String {
    match n.find("_xxxxxxxx") {
        Some(i) => n[..i].to_string(),
        None => n.to_string(),
    }
}

/// The clean row: how many of the served names each tool lists.
fn clean_cell(r: &ToolRun, names: &[String]) -> String {
    let missing: Vec<&String> = names.iter().filter(|n| !listed(&r.stdout, n)).collect();
    let end = match r.end {
        End::Exit(c) => format!("exit {c}"),
        End::Signal(s) => signal_name(s),
        End::Timeout => "hang".into(),
    };
    match missing.first() {
        None => format!("{end}; lists all {} names", names.len()),
        Some(m) => format!(
            "{end}; lists {} of {} names: not the {} cvars without a description (`{}`)",
            names.len() - missing.len(),
            names.len(),
            missing.len(),
            cell(m)
        ),
    }
}

/// The cvars impi_info leaves out of a clean run must be exactly those without a
/// description (a finding about impi_info: R-STR-6 makes descriptions optional).
fn check_clean(tool: &str, r: &ToolRun, cat: &(Vec<String>, Vec<String>, Vec<String>)) {
    assert_eq!(
        r.end,
        End::Exit(0),
        "{tool}: clean run\n{}\n{}",
        r.stdout,
        r.stderr
    );
    let names = expected(tool, cat);
    assert!(
        names.len() > 20,
        "{tool}: the catalog has {} names",
        names.len()
    );
    let missing: Vec<&String> = names.iter().filter(|n| !listed(&r.stdout, n)).collect();
    if is_mpivars(tool) {
        assert!(
            missing.is_empty(),
            "{tool} does not list {missing:?}\n{}",
            r.stdout
        );
    } else {
        let mut undescribed: Vec<&String> = cat.2.iter().collect();
        undescribed.sort();
        assert!(
            !undescribed.is_empty(),
            "the default catalog has cvars without a description"
        );
        assert_eq!(
            missing, undescribed,
            "{tool}: missing names other than the undescribed cvars\n{}",
            r.stdout
        );
    }
}

/// The Markdown table: one row per fault, one column per tool.
fn fault_table(dir: &Path, lib: &Path, tools: &[(&'static str, PathBuf)]) -> String {
    let clean_cat =
        [false, true].map(|after| catalog(lib, None, after).expect("the clean catalog"));
    let clean: Vec<ToolRun> = tools.iter().map(|(_, t)| run_tool(t, dir, None)).collect();
    for ((name, _), r) in tools.iter().zip(&clean) {
        check_clean(name, r, &clean_cat[usize::from(is_mpivars(name))]);
    }
    // The catalog under a conforming variation is the one to list; a violation's own
    // view of it is no yardstick (e.g. truncated names), so the clean one is.
    let conforming: Vec<String> = stdout(&run(&["faults", "--conforming"], &[]))
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    let conforming = &conforming;
    // Each fault's runs in their own thread: a hang costs one timeout, not three.
    let rows: Vec<(String, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = FAULTS
            .iter()
            .map(|f| {
                let clean = &clean;
                let clean_cat = &clean_cat;
                s.spawn(move || {
                    let cells = tools
                        .iter()
                        .zip(clean)
                        .map(|((name, path), c)| {
                            let after = is_mpivars(name);
                            let clean = || clean_cat[usize::from(after)].clone();
                            let cat = if conforming.iter().any(|c| c == f) {
                                catalog(lib, Some(f), after).unwrap_or_else(clean)
                            } else {
                                clean()
                            };
                            let r = run_tool(path, dir, Some(f));
                            classify(c, &r, &expected(name, &cat))
                        })
                        .collect();
                    (f.to_string(), cells)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a fault's runs"))
            .collect()
    });
    let kinds: BTreeMap<String, String> = stdout(&run(&["faults"], &[]))
        .lines()
        .chain(
            stdout(&run(&["faults", "--conforming"], &[]))
                .lines()
                .collect::<Vec<_>>(),
        )
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 3).then(|| {
                let kind = if f[1] == "conforming" {
                    "conforming".to_string()
                } else {
                    format!("violates {}", f[2])
                };
                (f[0].to_string(), kind)
            })
        })
        .collect();
    let mut t = String::from("| `MPIT_REFERENCE_FAULTS` | kind |");
    for (name, _) in tools {
        t.push_str(&format!(" {name} |"));
    }
    t.push_str("\n|---|---|");
    t.push_str(&"---|".repeat(tools.len()));
    t.push_str("\n| (none) | clean |");
    for ((name, _), r) in tools.iter().zip(&clean) {
        let cat = &clean_cat[usize::from(is_mpivars(name))];
        t.push_str(&format!(" {} |", clean_cell(r, &expected(name, cat))));
    }
    t.push('\n');
    for (f, cells) in rows {
        let kind = kinds
            .get(&f)
            .cloned()
            .unwrap_or_else(|| "process fault".into());
        t.push_str(&format!("| `{f}` | {kind} |"));
        for c in cells {
            t.push_str(&format!(" {c} |"));
        }
        t.push('\n');
    }
    t
}

/// The harness judges the reference loaded as `libmpi.so.12` (MPICH's ABI) case by case
/// as it judges the standard-ABI build: any difference is a bug of the ABI layer.
#[test]
fn the_harness_judges_the_mpich_build_like_the_standard_one() {
    let dir = scratch("double-harness");
    let staged = stage(&dir);
    let (code_m, m) = suite(&staged, &[], &[], &dir.join("mpich"));
    let (code_s, s) = suite(&reference_lib(), &[], &[], &dir.join("standard"));
    assert_eq!(m["target"]["abi_family"], "mpich", "{}", m["target"]);
    assert_eq!(s["target"]["abi_family"], "standard", "{}", s["target"]);
    assert_eq!((code_m, code_s), (Some(0), Some(0)));
    let statuses = |r: &Value| -> BTreeMap<String, String> {
        r["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|x| {
                (
                    format!("{} {}", x["case"], x["subject"]),
                    x["status"].to_string(),
                )
            })
            .collect()
    };
    let (a, b) = (statuses(&m), statuses(&s));
    assert!(a.len() > 1000, "{} results", a.len());
    let differ: Vec<_> = a.iter().filter(|(k, v)| b.get(*k) != Some(v)).collect();
    assert!(
        differ.is_empty(),
        "{} of {} results differ: {:?}",
        differ.len(),
        a.len(),
        &differ[..differ.len().min(10)]
    );
    assert_eq!(a.len(), b.len());
    // MPIT_REFERENCE_ABI chooses the ABI whatever the file name.
    let o = run(
        &["catalog", "--lib", reference_lib().to_str().expect("utf-8")],
        &[("MPIT_REFERENCE_ABI", "mpich")],
    );
    let text = format!("{}{}", stdout(&o), String::from_utf8_lossy(&o.stderr));
    assert!(text.contains("detected mpich family"), "{text}");
}

/// Clean: each tool lists the reference's catalog (impi_info: see [`check_clean`]).
#[test]
fn the_tools_list_the_reference_catalog() {
    let Some(tools) = tools() else { return };
    let dir = scratch("double-clean");
    let lib = stage(&dir);
    for (name, path) in &tools {
        let r = run_tool(path, &dir, None);
        let cat = catalog(&lib, None, is_mpivars(name)).expect("the clean catalog");
        check_clean(name, &r, &cat);
    }
}

/// README.md's fault table is what the tools do now.
#[test]
fn the_readme_fault_table_is_current() {
    let Some(tools) = tools() else { return };
    let dir = scratch("double-faults");
    let lib = stage(&dir);
    let table = fault_table(&dir, &lib, &tools);
    let (begin, end) = (
        "<!-- tool-faults: generated by harness/tests/tool_double.rs (bash scripts/tool-faults.sh rewrites it) -->\n",
        "<!-- /tool-faults -->",
    );
    let path = repo().join("README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md");
    let start = readme
        .find(begin)
        .expect("the tool-faults marker in README.md")
        + begin.len();
    let stop = readme[start..].find(end).expect("the /tool-faults marker") + start;
    if std::env::var_os("MPIT_BLESS").is_some() {
        let new = format!("{}{table}{}", &readme[..start], &readme[stop..]);
        std::fs::write(&path, new).expect("write README.md");
        return;
    }
    assert_eq!(
        readme[start..stop],
        table,
        "README.md's tool fault table is stale (bash scripts/tool-faults.sh rewrites it)"
    );
}
