//! The README's figures are the published reports': the results table
//! of the seven libraries, the number of findings in reports/FINDINGS.md, and the
//! example run's counts. `MPIT_BLESS=1 cargo test --test readme` rewrites the generated
//! parts from reports/published; without it the test fails on any difference.

mod common;

use common::repo;
use mpit_report::{json, Report};
use mpit_spec::verdict::Status;

/// The seven targets in the table's order, with the names the README gives them.
const TARGETS: &[(&str, &str)] = &[
    ("debian-mpich", "MPICH 4.0.2 (Debian)"),
    ("debian-openmpi", "Open MPI 4.1.4 (Debian)"),
    ("mpich5", "MPICH 5.0.2"),
    ("mpich5-abi", "MPICH 5.0.2, standard ABI"),
    ("openmpi5", "Open MPI 5.0.11"),
    ("impi", "Intel MPI 2021.19"),
    ("impi-abi", "Intel MPI 2021.19, standard ABI"),
];

fn report(target: &str) -> Report {
    json::read(&repo().join(format!("reports/published/{target}/report.json.gz")))
        .unwrap_or_else(|e| panic!("{target}: {e}"))
}

fn count(r: &Report, s: Status) -> usize {
    r.summary.by_status.get(&s).copied().unwrap_or(0)
}

/// The table, from the default-mode reports; crashes the baseline gate lets vary
/// (reports/published/unstable.yaml) are counted in brackets.
fn table() -> String {
    let unstable: Vec<serde_json::Value> = yaml_serde::from_str(
        &std::fs::read_to_string(repo().join("reports/published/unstable.yaml"))
            .expect("unstable.yaml"),
    )
    .expect("unstable.yaml parses");
    let mut t = String::from(
        "| library | pass | fail | warn | skip | unsupported | crash |\n|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for (target, label) in TARGETS {
        let r = report(target);
        let shaky = r
            .results
            .iter()
            .filter(|x| x.status == Status::Crash)
            .filter(|x| {
                unstable.iter().any(|e| {
                    e["target"] == *target
                        && e["case"] == x.case.as_str()
                        && e.get("subject").is_none_or(|s| *s == x.subject.as_str())
                })
            })
            .count();
        let crash = match shaky {
            0 => count(&r, Status::Crash).to_string(),
            n => format!("{} ({n} unstable)", count(&r, Status::Crash)),
        };
        t.push_str(&format!(
            "| {label} | {} | {} | {} | {} | {} | {crash} |\n",
            count(&r, Status::Pass),
            count(&r, Status::Fail),
            count(&r, Status::Warn),
            count(&r, Status::Skip),
            count(&r, Status::Unsupported),
        ));
    }
    t
}

/// Replaces what lies between `begin` and `end` (exclusive) with `body`.
fn splice(text: &str, begin: &str, end: &str, body: &str) -> (String, String) {
    let a = text
        .find(begin)
        .unwrap_or_else(|| panic!("README has no {begin}"))
        + begin.len();
    let b = a + text[a..]
        .find(end)
        .unwrap_or_else(|| panic!("README has no {end}"));
    (
        text[a..b].to_string(),
        format!("{}{body}{}", &text[..a], &text[b..]),
    )
}

#[test]
fn readme_figures_are_the_published_reports() {
    let path = repo().join("README.md");
    let text = std::fs::read_to_string(&path).expect("README.md");
    let mut problems = Vec::new();

    let (old, text) = splice(
        &text,
        "(MPIT_BLESS=1 rewrites it) -->\n",
        "<!-- /published-results -->",
        &table(),
    );
    if old != table() {
        problems.push(format!(
            "the results table differs from reports/published:\n{old}\nwant:\n{}",
            table()
        ));
    }

    let findings =
        std::fs::read_to_string(repo().join("reports/FINDINGS.md")).expect("FINDINGS.md");
    let n = findings
        .lines()
        .filter(|l| l.starts_with("### F-"))
        .count()
        .to_string();
    let (old, text) = splice(
        &text,
        "<!-- findings-count -->",
        "<!-- /findings-count -->",
        &n,
    );
    if old != n {
        problems.push(format!(
            "README says FINDINGS.md has {old} findings; it has {n}"
        ));
    }

    // The example run is the standard-ABI Intel MPI build: its counts are the published
    // report's.
    let r = report("impi-abi");
    // The whole line, as the run prints it: every status that occurred, fail included,
    // in the order of `Status::ALL`, then the total. Counted here from the results
    // themselves, not from the report's summary nor with `Summary::line`, so a line
    // that drops a status or does not add up fails.
    let occurred: Vec<(usize, Status)> = Status::ALL
        .iter()
        .map(|s| (r.results.iter().filter(|x| x.status == *s).count(), *s))
        .filter(|(n, _)| *n > 0)
        .collect();
    let sum: usize = occurred.iter().map(|(n, _)| n).sum();
    assert_eq!(sum, r.results.len(), "every result has one status");
    let parts: Vec<String> = occurred
        .iter()
        .map(|(n, s)| format!("{n} {}", s.as_str()))
        .collect();
    let line = format!("results: {} ({sum} total)", parts.join(", "));
    let (old, text) = splice(
        &text,
        "catalog: 18 categories, 778 cvars, 0 enums, 0 events, 0 pvars, 0 sources\n",
        "\n",
        &line,
    );
    if old != line {
        problems.push(format!(
            "the example's results line is `{old}`, the published report's `{line}`"
        ));
    }
    // And it is what the binary prints for that report: the CLI's own formatter.
    if r.results_line() != line {
        problems.push(format!(
            "mpit-conform prints `{}` for the published report; counted: `{line}`",
            r.results_line()
        ));
    }
    let all = format!(
        "| **all** | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        count(&r, Status::Pass),
        count(&r, Status::Fail),
        count(&r, Status::Warn),
        count(&r, Status::Skip),
        count(&r, Status::Unsupported),
        count(&r, Status::Crash),
        count(&r, Status::Timeout),
        count(&r, Status::Error),
        r.summary.total
    );
    let (old, mut text) = splice(
        &text,
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        "\n",
        &all,
    );
    if old != all {
        problems.push(format!(
            "the example's summary row is `{old}`, the published report's `{all}`"
        ));
    }
    for (area, counts) in &r.summary.by_area {
        let name = serde_json::to_value(area).expect("area");
        let name = name.as_str().expect("an area is a string");
        let begin = format!("\n| {name} | ");
        if !text.contains(&begin) {
            continue;
        }
        let row: Vec<String> = Status::ALL
            .iter()
            .map(|s| counts.get(s).copied().unwrap_or(0).to_string())
            .collect();
        let total: usize = counts.values().sum();
        let want = format!("{} | {total} |", row.join(" | "));
        let (old, new) = splice(&text, &begin, "\n", &want);
        if old != want {
            problems.push(format!(
                "the example's {name} row is `{old}`, the published report's `{want}`"
            ));
        }
        text = new;
    }
    let total = r.summary.total;
    let words = format!("{},{:03} results", total / 1000, total % 1000);
    let (old, text) = splice(
        &text,
        "standard-ABI build of Intel MPI (installed by\n`scripts/install-targets.sh`), ",
        " in",
        &words,
    );
    if old != words {
        problems.push(format!(
            "the example says `{old}`, the published report has {words}"
        ));
    }

    if std::env::var_os("MPIT_BLESS").is_some() {
        std::fs::write(&path, text).expect("write README.md");
        return;
    }
    assert!(
        problems.is_empty(),
        "{}\n(MPIT_BLESS=1 cargo test -p mpit-conform --test readme rewrites README.md)",
        problems.join("\n")
    );
}
