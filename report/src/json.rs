//! `report.json`: written whole or not at all, read back with the format version checked
//! first (a baseline from another version is refused by name, not by a confusing
//! shape error).

use super::{Report, ReportError, FORMAT_VERSION};
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically: a temporary file in the same directory (so the
/// rename does not cross filesystems), flushed to disk, then renamed over `path`. A reader
/// sees the old file or the new one, never a half-written one; on error the temporary
/// file is removed.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    atomic_write_with(path, |w| {
        w.write_all(bytes).map_err(|source| ReportError::Io {
            path: path.to_path_buf(),
            source,
        })
    })
}

/// [`atomic_write`] with the bytes produced by `fill` straight into the temporary file,
/// so a large report is never held in memory as text as well.
pub fn atomic_write_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> Result<(), ReportError>,
) -> Result<(), ReportError> {
    let io = |source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".mpit-conform-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io)?;
    {
        let mut w = std::io::BufWriter::new(tmp.as_file_mut());
        fill(&mut w)?;
        w.flush().map_err(io)?;
    }
    // tempfile creates 0600; a report is for others to read too (CI artifacts, shared
    // directories), as a file made with `create` under the usual umask would be.
    let mode = <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o644);
    tmp.as_file().set_permissions(mode).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// The report as pretty JSON (what `report.json` holds).
pub fn to_string(report: &Report) -> Result<String, ReportError> {
    let mut s = serde_json::to_string_pretty(report)?;
    s.push('\n');
    Ok(s)
}

/// Writes the report as [`to_string`] would, streamed.
pub fn write(report: &Report, path: &Path) -> Result<(), ReportError> {
    atomic_write_with(path, |w| {
        serde_json::to_writer_pretty(&mut *w, report)?;
        w.write_all(b"\n").map_err(|source| ReportError::Io {
            path: path.to_path_buf(),
            source,
        })
    })
}

/// Reads a report. The file is user input (a baseline, a report given to `diff`): every
/// problem is an error naming the file. A name ending in `.gz` is gunzipped first (the
/// committed baselines in reports/published/ are stored so: a full Open MPI report is
/// 40 MB of JSON, 1 MB gzipped).
pub fn read(path: &Path) -> Result<Report, ReportError> {
    let io = |source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let text = if path.extension().is_some_and(|e| e == "gz") {
        let f = std::fs::File::open(path).map_err(io)?;
        let mut text = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(f), &mut text)
            .map_err(io)?;
        text
    } else {
        std::fs::read_to_string(path).map_err(io)?
    };
    parse(&text, path)
}

/// Parses a report's text; `path` names it in errors.
pub fn parse(text: &str, path: &Path) -> Result<Report, ReportError> {
    let not = |message: String| ReportError::NotAReport {
        path: path.to_path_buf(),
        message,
    };
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| not(e.to_string()))?;
    let version = value
        .get("format_version")
        .ok_or_else(|| not("no `format_version`".to_string()))?;
    let found = version
        .as_u64()
        .ok_or_else(|| not(format!("`format_version` is {version}, not a number")))?;
    if found != u64::from(FORMAT_VERSION) {
        return Err(ReportError::FormatVersion {
            path: path.to_path_buf(),
            found,
        });
    }
    // Parsed again from the text, not the value, so shape errors carry line and column.
    serde_json::from_str(text).map_err(|e| not(e.to_string()))
}
