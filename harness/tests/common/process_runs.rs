//! Runs of the suite on the reference misbehaving as a process (`process_faults.rs`,
//! `hostile_library.rs`): each run gets a TMPDIR of its own and a tag in its
//! environment, and is checked to have written every report and left nothing behind:
//! no temporary file, no /dev/shm segment, no process, no descriptor of the supervisor
//! (its count at the run's end against its start, from `--bench-stats`).
#![allow(dead_code)]

use crate::common::{bin, reference_lib, run, stdout};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A run that has not ended by then is a hung supervisor: the test fails instead of
/// hanging.
const RUN_LIMIT: Duration = Duration::from_secs(300);

/// A scratch directory of the test's own, used as the run's TMPDIR (so anything a
/// worker leaves in the temp dir is seen) and for the reports.
pub struct RunScratch {
    pub dir: PathBuf,
}

impl RunScratch {
    pub fn new(name: &str) -> RunScratch {
        let dir = std::env::temp_dir().join(format!("mpit-pf-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("tmp")).unwrap();
        RunScratch { dir }
    }
    pub fn tmp(&self) -> PathBuf {
        self.dir.join("tmp")
    }
    pub fn out(&self) -> PathBuf {
        self.dir.join("out")
    }
}

impl Drop for RunScratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn shm() -> BTreeSet<String> {
    std::fs::read_dir("/dev/shm")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Processes that still carry the run's tag in their environment.
pub fn tagged(tag: &str) -> Vec<String> {
    let want = format!("MPIT_TEST_TAG={tag}");
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(env) = std::fs::read(e.path().join("environ")) else {
            continue;
        };
        if env.split(|b| *b == 0).any(|v| v == want.as_bytes()) {
            found.push(e.file_name().to_string_lossy().into_owned());
        }
    }
    found
}

/// `cmd`'s output, or a failed test if it runs past [`RUN_LIMIT`] (killed first).
fn output_within(cmd: &mut std::process::Command, name: &str) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mpit-conform");
    let read = |r: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut v);
            }
            v
        })
    };
    let out = read(child.stdout.take().map(|r| Box::new(r) as _));
    let err = read(child.stderr.take().map(|r| Box::new(r) as _));
    let until = Instant::now() + RUN_LIMIT;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{name}: the run did not end within {RUN_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

pub struct Run {
    pub out: Output,
    pub report: Value,
    pub took: Duration,
}

/// Runs the suite on the reference with `faults`, checks that every report was written
/// and nothing was left behind, and returns the exit and the report.
pub fn faulty_run(name: &str, faults: &str, extra: &[&str]) -> Run {
    let lib = reference_lib();
    let s = RunScratch::new(name);
    let tag = format!("{name}-{}", std::process::id());
    let shm_before = shm();
    let junit = s.dir.join("junit.xml");
    let stats = s.dir.join("bench-stats.json");
    let mut c = bin();
    c.args(["--lib", lib.to_str().unwrap(), "-q", "--timeout", "2"])
        .arg("--out")
        .arg(s.out())
        .arg("--junit")
        .arg(&junit)
        .arg("--bench-stats")
        .arg(&stats)
        .args(extra)
        .env("MPIT_REFERENCE_FAULTS", faults)
        .env("MPIT_TEST_TAG", &tag)
        .env("TMPDIR", s.tmp());
    let t0 = Instant::now();
    let out = output_within(&mut c, name);
    let took = t0.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    for f in ["report.json", "report.md", "report.html"] {
        assert!(s.out().join(f).is_file(), "{name}: no {f}; stderr: {err}");
    }
    assert!(junit.is_file(), "{name}: no JUnit file");
    let report: Value =
        serde_json::from_slice(&std::fs::read(s.out().join("report.json")).unwrap()).unwrap();
    // Nothing left behind: the temp dir is empty, no new /dev/shm entry, no process, and
    // the supervisor ended with the descriptors it started with.
    let left: Vec<_> = std::fs::read_dir(s.tmp()).unwrap().flatten().collect();
    assert!(left.is_empty(), "{name}: left in TMPDIR: {left:?}");
    let new_shm: Vec<_> = shm().difference(&shm_before).cloned().collect();
    assert!(new_shm.is_empty(), "{name}: left in /dev/shm: {new_shm:?}");
    let orphans = tagged(&tag);
    assert!(orphans.is_empty(), "{name}: processes left: {orphans:?}");
    let usage: Value = serde_json::from_slice(&std::fs::read(&stats).expect("bench stats"))
        .expect("bench stats parse");
    assert_eq!(
        usage["fds_end"], usage["fds_start"],
        "{name}: the supervisor's open descriptors at the run's end and start"
    );
    Run { out, report, took }
}

/// The suite on the reference without a fault, run once for the tests that compare.
pub fn clean() -> &'static Run {
    static CLEAN: OnceLock<Run> = OnceLock::new();
    CLEAN.get_or_init(|| {
        let r = faulty_run("clean", "", &[]);
        assert_eq!(r.out.status.code(), Some(0));
        r
    })
}

pub fn results(r: &Value) -> &Vec<Value> {
    r["results"].as_array().expect("results")
}

pub fn count(r: &Value, status: &str) -> usize {
    results(r).iter().filter(|x| x["status"] == status).count()
}

pub fn with<'a>(r: &'a Value, case: &str, status: &str) -> Vec<&'a Value> {
    results(r)
        .iter()
        .filter(|x| x["case"] == case && x["status"] == status)
        .collect()
}

pub fn text(v: &Value) -> String {
    v.to_string()
}

/// (case, subject) of a result.
pub fn key(x: &Value) -> (String, String) {
    let s = |k: &str| x[k].as_str().unwrap_or_default().to_string();
    (s("case"), s("subject"))
}

/// (case, subject, status) of every result.
pub fn verdicts(r: &Value) -> BTreeSet<(String, String, String)> {
    results(r)
        .iter()
        .map(|x| {
            let (case, subject) = key(x);
            (
                case,
                subject,
                x["status"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The faults `mpit-conform faults FLAG` lists, against those a test runs: every fault
/// of the family needs its test.
pub fn every_fault_is_tested(flag: &str, tested: &[&str]) {
    let o = run(&["faults", flag], &[]);
    let listed: BTreeSet<String> = stdout(&o)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    let tested: BTreeSet<String> = tested.iter().map(|s| s.to_string()).collect();
    assert_eq!(listed, tested, "faults {flag}");
}
