//! The report layer: the report.json contract, its renderings, diff, baseline gating and
//! waivers, on a synthetic run.

mod report_fixture;

use mpit_report::{
    diff, exit_code, html, json, junit, markdown, matrix, Builder, ReportError, RunEvent, Waivers,
    FORMAT_VERSION,
};
use mpit_spec::verdict::{Area, Status};
use report_fixture::{html_escape, old_and_new, parse_err, report, result, WAIVERS};
use serde_json::Value;
use std::path::Path;

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

// ---- report.json ----------------------------------------------------------------------

#[test]
fn builder_sorts_counts_and_marks_interruption() {
    let r = report();
    assert_eq!(r.format_version, FORMAT_VERSION);
    assert!(!r.interrupted);
    assert_eq!(r.planned, 12);
    assert_eq!(r.summary.total, 12);
    assert_eq!(
        r.summary.by_status.len(),
        8,
        "all eight statuses always present"
    );
    assert_eq!(r.summary.count(Status::Fail), 2);
    assert_eq!(r.summary.count(Status::Pass), 4);
    assert_eq!(r.summary.by_area[&Area::Strings][&Status::Pass], 2);
    // Area order first, then case id, then subjects in natural order (cvar 3 < 9 < 10).
    let subjects: Vec<&str> = r
        .results
        .iter()
        .filter(|x| x.case == "strings.cvar.name.truncate")
        .map(|x| x.subject.as_str())
        .collect();
    assert!(subjects[0].starts_with("cvar 3 "));
    assert!(subjects[1].starts_with("cvar 9 "));
    assert!(subjects[2].starts_with("cvar 10 "));
    assert_eq!(r.results[0].area, Area::Strings);

    // A runner that never says Finished: a partial report.
    let mut b = Builder::new();
    b.event(RunEvent::Result(result(
        "a.b",
        Area::Cvars,
        "",
        Status::Pass,
        "ok",
    )));
    let partial = b.finish();
    assert!(partial.interrupted);
    assert_eq!(exit_code(&partial, None), 2);
}

#[test]
fn json_round_trip() {
    let d = tmp();
    let path = d.path().join("report.json");
    let r = report();
    json::write(&r, &path).expect("write");
    let back = json::read(&path).expect("read");
    assert_eq!(back, r);
    // Nothing but the report is left in the directory (the temp file was renamed).
    let names: Vec<_> = std::fs::read_dir(d.path())
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("report.json")]);
}

/// The keys vendors' scripts read: pinned from the first format version on.
#[test]
fn stable_keys() {
    let v: Value = serde_json::from_str(&json::to_string(&report()).expect("json")).expect("parse");
    assert_eq!(v["format_version"], Value::from(1));
    assert_eq!(v["target"]["path"], "/opt/vendor/lib/libmpi.so.12");
    assert_eq!(v["target"]["abi_family"], "mpich");
    assert!(v["target"]["library_version"]
        .as_str()
        .is_some_and(|s| s.starts_with("Vendor MPI")));
    assert_eq!(v["target"]["mpi_version"], "4.1");
    let by_status = v["summary"]["by_status"]
        .as_object()
        .expect("by_status is an object");
    let keys: Vec<&str> = by_status.keys().map(String::as_str).collect();
    for s in [
        "pass",
        "fail",
        "warn",
        "skip",
        "unsupported",
        "crash",
        "timeout",
        "error",
    ] {
        assert!(keys.contains(&s), "summary.by_status.{s}");
        assert!(by_status[s].is_u64());
    }
    assert_eq!(by_status["fail"], 2);
    let areas = [
        "strings",
        "lifecycle",
        "indices",
        "errors",
        "all_handles",
        "cvars",
        "pvars",
        "categories",
        "enums_datatypes",
        "events",
        "consistency",
        "differential",
    ];
    let results = v["results"].as_array().expect("results[]");
    assert_eq!(results.len(), 12);
    for r in results {
        for k in [
            "case", "area", "subject", "status", "level", "clause", "message",
        ] {
            assert!(r[k].is_string(), "results[].{k} in {r}");
        }
        assert!(areas.contains(&r["area"].as_str().unwrap_or("")));
        assert!(["must", "should", "robustness"].contains(&r["level"].as_str().unwrap_or("")));
    }
    let fail = results
        .iter()
        .find(|r| r["status"] == "fail")
        .expect("a fail");
    assert_eq!(fail["evidence"][0]["call"], "MPI_T_cvar_get_info");
    assert_eq!(fail["evidence"][0]["rc"], "MPI_SUCCESS");
}

#[test]
fn format_version_mismatch_names_both_versions() {
    let d = tmp();
    let path = d.path().join("baseline.json");
    let mut v: Value = serde_json::to_value(report()).expect("value");
    v["format_version"] = Value::from(7);
    v["results"] = Value::from("a shape version 1 cannot read");
    std::fs::write(&path, v.to_string()).expect("write");
    let err = json::read(&path).expect_err("version 7");
    assert!(matches!(err, ReportError::FormatVersion { found: 7, .. }));
    assert_eq!(
        err.to_string(),
        format!(
            "{}: format_version 7, this mpit-conform reads 1",
            path.display()
        )
    );

    std::fs::write(&path, "{\"results\": []}").expect("write");
    let err = json::read(&path).expect_err("no version");
    assert!(
        err.to_string().contains("not an mpit-conform report"),
        "{err}"
    );
    std::fs::write(&path, "{\"format_version\": 1, \"tool\": 3}").expect("write");
    let err = json::read(&path).expect_err("bad shape");
    assert!(err.to_string().contains("line 1"), "{err}");
    let err = json::read(&d.path().join("missing.json")).expect_err("missing");
    assert!(err.to_string().contains("missing.json"), "{err}");
}

// ---- renderings -----------------------------------------------------------------------

#[test]
fn markdown_snapshot() {
    insta::assert_snapshot!("markdown", markdown::render(&report()));
}

#[test]
fn junit_snapshot() {
    let xml = junit::render(&report()).expect("junit");
    assert!(xml.contains("type=\"crash\""));
    assert!(xml.contains("type=\"timeout\""));
    assert!(xml.contains("<error"));
    insta::assert_snapshot!("junit", xml);
}

#[test]
fn markdown_cuts_long_lists() {
    let md = markdown::render(&report_fixture::large(2000));
    assert!(md.contains("_and "), "truncated");
    assert!(
        md.len() < 200_000,
        "a step summary stays small: {}",
        md.len()
    );
}

#[test]
fn html_escapes_and_holds_every_finding() {
    let r = report();
    let page = html::render(&r);
    assert!(!page.contains("<script>alert"), "report text is escaped");
    assert!(page.contains(r"&lt;script&gt;alert(\&quot;x\&quot;)&lt;/script&gt;"));
    assert!(page.contains("MPIR_CVAR_&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
    assert!(page.contains("Größe — 名前"));
    // Self-contained: no external resource of any kind.
    for needle in ["src=", "href=", "@import", "url("] {
        assert!(!page.contains(needle), "{needle}");
    }
    assert_eq!(
        page.matches("<script>").count(),
        1,
        "only the page's own script"
    );
    assert_eq!(page.matches("<tr class=\"r").count(), r.results.len());
    for x in r.results.iter().filter(|x| x.status != Status::Pass) {
        let row = format!(
            "<tr class=\"r x{}",
            if x.status.is_bad() || x.status == Status::Error {
                " finding"
            } else {
                ""
            }
        );
        assert!(page.contains(&row));
        assert!(page.contains(&html_escape(&x.case)), "{}", x.case);
        assert!(page.contains(&html_escape(&x.subject)), "{}", x.subject);
        assert!(page.contains(&html_escape(&x.message)), "{}", x.message);
    }
    // Each expandable row is followed by its evidence.
    assert_eq!(page.matches("<tr class=\"ev\">").count(), 8);
    // Each result a bug report can be written for shows the command that writes it, as
    // a shell runs it beside report.json (the report-bug command report.html shows).
    let bugs: Vec<_> = r
        .results
        .iter()
        .filter(|x| mpit_report::bug::reproducible(x))
        .collect();
    assert!(!bugs.is_empty());
    assert_eq!(page.matches("<div class=\"bug\">").count(), bugs.len());
    for x in bugs {
        let cmd = mpit_report::bug::command(x, "report.json");
        assert!(cmd.starts_with("mpit-conform report-bug --report report.json --case "));
        assert!(page.contains(&html_escape(&cmd)), "{cmd}");
    }
    assert!(page.contains("MPI_T_cvar_get_info"));
    assert!(page.contains("name truncated to 0 chars + NUL; byte 1 untouched"));
}

#[test]
fn write_all_writes_every_file() {
    let d = tmp();
    let out = d.path().join("out/nested");
    let junit_path = d.path().join("ci/junit.xml");
    let w = mpit_report::write_all(&report(), &out, Some(&junit_path)).expect("write_all");
    for p in [&w.json, &w.markdown, &w.html] {
        assert!(p.starts_with(&out) && p.is_file(), "{}", p.display());
        // Readable by others, like any file created under the usual umask (the
        // temporary file it was renamed from was 0600).
        let mode = std::os::unix::fs::PermissionsExt::mode(&p.metadata().unwrap().permissions());
        assert_eq!(mode & 0o777, 0o644, "{}", p.display());
    }
    assert_eq!(w.junit.as_deref(), Some(junit_path.as_path()));
    assert!(junit_path.is_file());
    assert_eq!(json::read(&w.json).expect("read"), report());
    let stray = std::fs::read_dir(&out)
        .expect("read_dir")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        })
        .count();
    assert_eq!(stray, 0);
}

#[test]
fn matrix_side_by_side() {
    let a = report();
    let mut b = report();
    b.target.path = "/opt/other/lib/libmpi.so.12".to_string();
    b.results.retain(|x| x.status != Status::Fail);
    b.results.iter_mut().for_each(|x| {
        if x.case == "lifecycle.finalize.extra" {
            x.status = Status::Pass;
        }
    });
    b.summary = mpit_report::Summary::of(&b.results);
    let reports = [a, b];
    let m = matrix::Matrix::new(&reports);
    assert_eq!(
        m.labels,
        vec!["vendor/lib/libmpi.so.12", "other/lib/libmpi.so.12"]
    );
    let row = &m.rows[&(Area::Strings, "strings.cvar.name.truncate".to_string())];
    let a0 = row[0].as_ref().expect("in a");
    assert_eq!((a0.worst, a0.total), (Status::Fail, 3));
    assert_eq!(
        row[1].as_ref().map(|c| (c.worst, c.total)),
        Some((Status::Pass, 2))
    );

    let md = matrix::render_markdown(&reports);
    assert!(md.contains("**fail 1/3** | pass 2/2"), "{md}");
    assert!(
        md.contains("| lifecycle | <code>lifecycle.finalize.extra</code> | **crash** | pass |"),
        "{md}"
    );
    assert!(md.contains("cases pass on every target"));
    let page = matrix::render_html(&reports);
    assert!(!page.contains("<script>alert"));
    assert_eq!(page.matches("<tr class=\"m\"").count(), m.rows.len());

    let d = tmp();
    let [p_md, p_html] = mpit_report::write_matrix(&reports, d.path()).expect("write_matrix");
    assert!(p_md.is_file() && p_html.is_file());
}

#[test]
fn sha256_of_a_file() {
    let d = tmp();
    let p = d.path().join("lib.so");
    std::fs::write(&p, "abc").expect("write");
    assert_eq!(
        mpit_report::sha256_file(&p).expect("hash"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert!(mpit_report::sha256_file(&d.path().join("none")).is_err());
}

// ---- diff and the baseline gate ----------------------------------------------------------

#[test]
fn diff_finds_every_kind_of_change() {
    let (old, new) = old_and_new();
    let d = diff::diff(&old, &new);
    let names = |v: &Vec<diff::Change>| v.iter().map(|c| c.case.clone()).collect::<Vec<_>>();
    assert_eq!(names(&d.new_fails), ["consistency.index.roundtrip"]);
    assert_eq!(d.new_fails[0].old, Some(Status::Pass));
    assert_eq!(names(&d.new_crashes), ["lifecycle.init.nest"]);
    assert_eq!(names(&d.fixed), ["consistency.index.roundtrip"]);
    assert_eq!(d.fixed[0].subject, "pvar 1 unexpected_recvq_length");
    assert_eq!(
        names(&d.changed),
        ["strings.cvar.desc.empty", "lifecycle.finalize.extra"]
    );
    assert_eq!(names(&d.added), ["cvars.write.back"]);
    assert_eq!(names(&d.removed), ["events.callback.safety"]);
    assert_eq!(d.unchanged, 6);
    assert!(d.worse());
    let text = d.render(&old, &new);
    assert!(text.contains("new fails (1):"), "{text}");
    assert!(
        text.contains("lifecycle.init.nest: pass -> crash"),
        "{text}"
    );
    assert!(text.contains("verdict: worse"), "{text}");

    let same = diff::diff(&old, &old);
    assert!(same.is_empty() && !same.worse());
    assert_eq!(same.unchanged, old.results.len());
}

#[test]
fn exit_codes_with_and_without_baseline() {
    let (old, mut new) = old_and_new();
    // Without a baseline: the `error` result makes the verdict incomplete.
    assert_eq!(exit_code(&old, None), 2);
    let mut no_error = old.clone();
    no_error.results.retain(|x| x.status != Status::Error);
    assert_eq!(exit_code(&no_error, None), 1);
    let mut clean = no_error.clone();
    clean.results.retain(|x| !x.status.is_bad());
    assert_eq!(exit_code(&clean, None), 0);
    // Against itself nothing is new.
    assert_eq!(exit_code(&old, Some(&old)), 0);
    // New fail and new crash count; the crash → fail of an already-bad case does not.
    assert_eq!(exit_code(&new, Some(&old)), 1);
    for x in &mut new.results {
        if x.case == "lifecycle.init.nest" || x.subject.starts_with("pvar 0") {
            x.waived = Some("known".to_string());
        }
    }
    assert_eq!(exit_code(&new, Some(&old)), 0, "the new ones are waived");
    new.interrupted = true;
    assert_eq!(exit_code(&new, Some(&old)), 2);
}

#[test]
fn diff_command_reads_files() {
    let d = tmp();
    let (old, new) = old_and_new();
    let (po, pn) = (d.path().join("old.json"), d.path().join("new.json"));
    json::write(&old, &po).expect("write");
    json::write(&new, &pn).expect("write");
    let (text, code) = mpit_report::diff_command(&po, &pn).expect("diff");
    assert_eq!(code, 1);
    assert!(text.contains("fixed (1):"));
    let (_, code) = mpit_report::diff_command(&po, &po).expect("diff");
    assert_eq!(code, 0);
    std::fs::write(&pn, "{\"format_version\": 2}").expect("write");
    let err = mpit_report::diff_command(&po, &pn).expect_err("version");
    assert!(err
        .to_string()
        .contains("format_version 2, this mpit-conform reads 1"));
}

// ---- waivers ---------------------------------------------------------------------------

#[test]
fn waivers_apply_and_report() {
    let w = Waivers::parse(WAIVERS, "waivers.yaml").expect("parse");
    assert_eq!(w.waivers.len(), 7);
    assert_eq!(w.waivers[1].origin, "waivers.yaml:6");
    let mut r = report();
    let out = w.apply(&mut r, "2025-06-01");
    let waived: Vec<(&str, &str)> = r
        .results
        .iter()
        .filter_map(|x| x.waived.as_deref().map(|w| (x.case.as_str(), w)))
        .collect();
    assert_eq!(
        waived,
        [
            ("strings.cvar.name.truncate", "MPICH#1234, fixed in 4.3"),
            (
                "lifecycle.finalize.extra",
                "crash on extra finalize, vendor ticket 77"
            ),
            ("consistency.index.roundtrip", "index table off by one"),
        ]
    );
    assert_eq!(out.applied, 3);
    assert_eq!(r.summary.waived, 3);
    assert_eq!(
        r.summary.count(Status::Fail),
        2,
        "waived results keep their status"
    );
    let cases = |v: &Vec<mpit_report::waivers::WaiverRef>| {
        v.iter().map(|w| w.case.clone()).collect::<Vec<_>>()
    };
    assert_eq!(cases(&out.expired), ["errors.codes.distinct"]);
    assert_eq!(cases(&out.unmatched_waivers), ["nosuch.case.*", "pvars.*"]);
    assert_eq!(cases(&out.unexpected_passes), ["lifecycle.init.nest"]);
    assert_eq!(r.waivers.as_ref(), Some(&out));
    let notes = out.notes();
    assert_eq!(notes.len(), 4);
    assert!(
        notes[0].starts_with("waivers.yaml:13: waiver case `errors.codes.distinct`"),
        "{notes:?}"
    );
    assert!(notes[0].contains("expired on 2024-01-31"));
    // The expired waiver does not apply: the `error` still makes the verdict incomplete;
    // the pvars timeout is not waived (its waiver targets another library).
    assert_eq!(exit_code(&r, None), 2);
    r.results.retain(|x| x.status != Status::Error);
    assert_eq!(exit_code(&r, None), 1);
    r.results.retain(|x| x.status != Status::Timeout);
    assert_eq!(exit_code(&r, None), 0);
    // An expiry day still applies on that day.
    let mut r2 = report();
    let out2 = w.apply(&mut r2, "2024-01-31");
    assert!(out2.expired.is_empty());
}

#[test]
fn conclude_applies_waivers_writes_and_gates() {
    let d = tmp();
    let baseline = report();
    let w = Waivers::parse(WAIVERS, "waivers.yaml").expect("parse");
    let mut r = report();
    let c =
        mpit_report::conclude(&mut r, d.path(), None, Some(&baseline), Some(&w)).expect("conclude");
    assert_eq!(c.exit, 0, "same results as the baseline");
    assert_eq!(c.notes.len(), 4, "{:?}", c.notes);
    assert!(c.headline.contains("(3 waived)"), "{}", c.headline);
    assert!(c
        .baseline_diff
        .as_deref()
        .is_some_and(|t| t.contains("nothing got worse")));
    let back = json::read(&c.written.json).expect("read");
    assert_eq!(back.summary.waived, 3);
    assert_eq!(back.waivers.map(|o| o.applied), Some(3));
    // Without a baseline the unwaived error and timeout decide.
    let mut r = report();
    let c = mpit_report::conclude(&mut r, d.path(), None, None, None).expect("conclude");
    assert_eq!(c.exit, 2);
    assert!(c.notes.is_empty() && c.baseline_diff.is_none());
}

#[test]
fn run_events_cross_a_pipe() {
    // The runner may send events between processes: they serialize both ways.
    let evs = vec![
        RunEvent::Started {
            target: report_fixture::target(),
            options: report_fixture::options(),
            planned: 1,
        },
        RunEvent::Result(result("a.b", Area::Cvars, "cvar 0 X", Status::Fail, "no")),
        RunEvent::Finished {
            interrupted: false,
            stopped_by: None,
        },
    ];
    for ev in evs {
        let line = serde_json::to_string(&ev).expect("serialize");
        assert!(!line.contains('\n'));
        let back: RunEvent = serde_json::from_str(&line).expect("deserialize");
        assert_eq!(back, ev);
    }
}

#[test]
fn waiver_errors_point_at_file_line_col() {
    let missing = parse_err("- case: a.*\n  target: \"*\"\n- case: b\n  target: \"*\"\n");
    assert!(missing.starts_with("w.yaml:1:3: "), "{missing}");
    assert!(missing.ends_with("missing field `reason`"), "{missing}");
    let empty = parse_err("- case: a.*\n  target: \"*\"\n  reason: ok\n- case: b\n  target: \"*\"\n  reason: \"  \"\n");
    assert_eq!(
        empty,
        "w.yaml:6:3: waiver without a reason: `reason` must say why"
    );
    let wrong_type = parse_err("- case: [a, b]\n  target: \"*\"\n  reason: x\n");
    assert!(wrong_type.starts_with("w.yaml:1:9: "), "{wrong_type}");
    assert!(
        wrong_type.contains("invalid type: sequence, expected a string"),
        "{wrong_type}"
    );
    let typo = parse_err("- case: a\n  target: \"*\"\n  reasn: x\n");
    assert!(typo.starts_with("w.yaml:3:3: "), "{typo}");
    assert!(typo.contains("unknown field `reasn`"), "{typo}");
    let date = parse_err("- case: a\n  target: \"*\"\n  reason: x\n  expires: 2025-02-30\n");
    assert_eq!(
        date,
        "w.yaml:4:12: `expires`: `2025-02-30` is not a date YYYY-MM-DD"
    );
    let glob = parse_err("- case: \"a[\"\n  target: \"*\"\n  reason: x\n");
    assert!(
        glob.starts_with("w.yaml:1:10: `case`: bad glob `a[`"),
        "{glob}"
    );
    let not_a_list = parse_err("case: a\n");
    assert!(not_a_list.starts_with("w.yaml:1:1: "), "{not_a_list}");
    // An empty file waives nothing.
    assert!(Waivers::parse("# nothing yet\n", "w.yaml")
        .expect("empty")
        .waivers
        .is_empty());
    let e = Waivers::load(Path::new("/nonexistent/w.yaml")).expect_err("missing file");
    assert!(
        e.to_string()
            .starts_with("/nonexistent/w.yaml:0:0: cannot read"),
        "{e}"
    );
}

/// Published reports travel: no path of the machine that made them (a checkout, a home,
/// a temp dir) in any of them.
#[test]
fn published_reports_name_no_machine_path() {
    use std::io::Read;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/published");
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("reports/published").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    assert!(files.len() > 10, "{} files", files.len());
    let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("checkout")
        .display()
        .to_string();
    for f in files {
        let mut text = String::new();
        if f.extension().is_some_and(|x| x == "gz") {
            let mut gz = flate2::read::GzDecoder::new(std::fs::File::open(&f).expect("open"));
            gz.read_to_string(&mut text).expect("gunzip");
        } else {
            text = std::fs::read_to_string(&f).unwrap_or_default();
        }
        for bad in [checkout.as_str(), "/work/", "/home/", "/root/", "/tmp/"] {
            assert!(!text.contains(bad), "{}: names {bad}", f.display());
        }
    }
}
