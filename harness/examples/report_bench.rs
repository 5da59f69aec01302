//! How long the report layer takes on a large run (not a timed test: numbers vary by
//! machine). `cargo run --release --example report_bench -- [N] [OUT_DIR]` builds a
//! synthetic report of N results (default 10,000) through the Builder and times every
//! rendering; with OUT_DIR it also writes the files there for a look in a browser.

#[path = "../tests/report_fixture/mod.rs"]
mod report_fixture;

use mpit_report::{diff, html, json, junit, markdown, matrix, write_all, write_matrix};
use std::time::Instant;

fn time<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let v = f();
    println!("{what:<28} {:>9.1} ms", t.elapsed().as_secs_f64() * 1000.0);
    v
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(10_000);
    let out = args.next();
    println!("{n} results");
    let r = time("build (events → Report)", || report_fixture::large(n));
    let j = time("report.json (serialize)", || json::to_string(&r))?;
    time("report.json (parse)", || {
        json::parse(&j, "bench.json".as_ref())
    })?;
    let md = time("report.md", || markdown::render(&r));
    let page = time("report.html", || html::render(&r));
    let xml = time("JUnit XML", || junit::render(&r))?;
    let mut other = r.clone();
    for x in other.results.iter_mut().step_by(7) {
        x.status = mpit_spec::verdict::Status::Fail;
    }
    let d = time("diff", || diff::diff(&r, &other));
    let reports = [r.clone(), other];
    let mhtml = time("matrix (md + html, 2 targets)", || {
        (
            matrix::render_markdown(&reports),
            matrix::render_html(&reports),
        )
    });
    let dir = tempfile::tempdir()?;
    let target = out
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| dir.path().to_path_buf());
    time("write_all (4 files, atomic)", || {
        write_all(&r, &target, Some(&target.join("junit.xml")))
    })?;
    if target != dir.path() {
        write_matrix(&reports, &target)?;
    }
    println!(
        "sizes: json {} KiB, md {} KiB, html {} KiB, junit {} KiB, matrix.html {} KiB; diff: {} new fails",
        j.len() / 1024,
        md.len() / 1024,
        page.len() / 1024,
        xml.len() / 1024,
        mhtml.1.len() / 1024,
        d.new_fails.len()
    );
    Ok(())
}
