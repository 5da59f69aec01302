//! report.html in a real browser: headless Chromium renders the synthetic report through
//! scripts/html-screenshot.sh, and the PNG must show a styled page, not a blank one.
//! Without Chromium the test fails with what to install (`scripts/test.sh` installs it),
//! unless MPIT_SKIP_REAL_TARGETS=1 says to skip it knowingly.

mod common;
mod report_fixture;

use mpit_report::{html, matrix, Waivers};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/html-screenshot.sh")
}

/// Screenshots `page`; `None` when no browser is installed and none is required.
fn screenshot(page: &str, dir: &Path, name: &str) -> Option<PathBuf> {
    let html_path = dir.join(format!("{name}.html"));
    let png_path = dir.join(format!("{name}.png"));
    std::fs::write(&html_path, page).expect("write html");
    let out = Command::new("bash")
        .arg(script())
        .arg(&html_path)
        .arg(&png_path)
        .arg("1280,2000")
        .output()
        .expect("run html-screenshot.sh");
    if out.status.code() == Some(127) {
        let msg = "chromium not found: report.html was NOT checked in a browser \
                   (apt-get install chromium)";
        assert!(
            !common::required(),
            "{msg}; `bash scripts/test.sh` installs it (MPIT_SKIP_REAL_TARGETS=1 skips knowingly)"
        );
        eprintln!("SKIPPED: {msg}");
        return None;
    }
    assert!(
        out.status.success(),
        "html-screenshot.sh failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    Some(png_path)
}

/// RGB pixels of a PNG, with its size.
fn pixels(png_path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let file = std::fs::File::open(png_path).expect("open png");
    let decoder = png::Decoder::new(std::io::BufReader::new(file));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("buffer size")];
    let info = reader.next_frame(&mut buf).expect("png frame");
    let channels = info.color_type.samples();
    assert!(
        channels >= 3,
        "colour screenshot, got {:?}",
        info.color_type
    );
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let px = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (info.width, info.height, px)
}

fn near(p: [u8; 3], q: [u8; 3]) -> bool {
    p.iter().zip(q).all(|(a, b)| a.abs_diff(b) <= 6)
}

#[test]
fn report_page_renders_in_chromium() {
    let dir = tempfile::tempdir().expect("tempdir");
    // One waived fail and one unmatched waiver, so the page shows both.
    let waivers = Waivers::parse(
        "- case: consistency.*\n  target: \"*\"\n  reason: off by one, vendor ticket 12\n\
         - case: nosuch.*\n  target: \"*\"\n  reason: stale\n",
        "waivers.yaml",
    )
    .expect("waivers");
    let mut report = report_fixture::report();
    waivers.apply(&mut report, "2025-01-02");
    let page = html::render(&report);
    assert!(page.contains("waived-tag"));
    let Some(png_path) = screenshot(&page, dir.path(), "report") else {
        return;
    };
    let size = std::fs::metadata(&png_path).expect("png").len();
    assert!(
        size > 20_000,
        "a real page compresses to more than {size} bytes"
    );
    let (w, h, px) = pixels(&png_path);
    assert_eq!((w, h), (1280, 2000));
    let distinct: HashSet<[u8; 3]> = px.iter().copied().collect();
    assert!(
        distinct.len() > 200,
        "only {} colours: blank page?",
        distinct.len()
    );
    // Not blank: a good share of the page differs from the background (#f5f7fa) and white.
    let inked = px
        .iter()
        .filter(|p| !near(**p, [0xf5, 0xf7, 0xfa]) && !near(**p, [0xff, 0xff, 0xff]))
        .count();
    assert!(
        inked * 100 > px.len() * 3,
        "{inked} of {} pixels inked",
        px.len()
    );
    // The stylesheet applied and the findings are on screen: the fail badges and the
    // crash badge are solid blocks of their colours (--fail #c62828, --crash #880e4f).
    for (name, rgb) in [("fail", [0xc6, 0x28, 0x28]), ("crash", [0x88, 0x0e, 0x4f])] {
        let n = px.iter().filter(|p| near(**p, rgb)).count();
        assert!(n > 300, "{name} badge colour: {n} pixels");
    }
    // Keep the shot for a human when asked (MPIT_KEEP_SCREENSHOT=DIR).
    if let Ok(keep) = std::env::var("MPIT_KEEP_SCREENSHOT") {
        let _ = std::fs::create_dir_all(&keep);
        let _ = std::fs::copy(&png_path, Path::new(&keep).join("report.png"));
        let _ = std::fs::copy(
            dir.path().join("report.html"),
            Path::new(&keep).join("report.html"),
        );
    }
}

#[test]
fn matrix_page_renders_in_chromium() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = report_fixture::report();
    let mut b = report_fixture::report();
    b.target.path = "/usr/lib/x86_64-linux-gnu/libmpich.so.12".to_string();
    b.results
        .iter_mut()
        .for_each(|r| r.status = mpit_spec::verdict::Status::Pass);
    b.summary = mpit_report::Summary::of(&b.results);
    let page = matrix::render_html(&[a, b]);
    let Some(png_path) = screenshot(&page, dir.path(), "matrix") else {
        return;
    };
    let (_, _, px) = pixels(&png_path);
    let distinct: HashSet<[u8; 3]> = px.iter().copied().collect();
    assert!(
        distinct.len() > 100,
        "only {} colours: blank page?",
        distinct.len()
    );
    let pass = px.iter().filter(|p| near(**p, [0x2e, 0x7d, 0x32])).count();
    assert!(pass > 300, "pass badge colour: {pass} pixels");
    if let Ok(keep) = std::env::var("MPIT_KEEP_SCREENSHOT") {
        let _ = std::fs::create_dir_all(&keep);
        let _ = std::fs::copy(&png_path, Path::new(&keep).join("matrix.png"));
    }
}
