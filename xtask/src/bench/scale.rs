//! Scaling: the reference with its catalog replicated k times (every entry copied with a
//! unique name, references between entries kept within each copy), the suite run on
//! each, and a least-squares line through wall time against results.

use super::suite::{measure_suite, RunSpec, SuiteFigures};
use super::{BenchError, LibSpec};
use mpit_vocab::catalog::{Appears, Catalog, PvarRef};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// `cat` replicated `k` times. Copy 0 keeps the original names; copy r appends `_r{r}`
/// to every name and to every name it refers to (enums, members, sources). Entries that
/// appear at MPI_Init stay after all the others (indices must not move, R-CVAR-1).
pub fn replicate(cat: &Catalog, k: usize) -> Catalog {
    let k = k.max(1);
    let suffix = |r: usize, name: &str| {
        if r == 0 {
            name.to_string()
        } else {
            format!("{name}_r{r}")
        }
    };
    // Every copy of the always-visible entries, then every copy of the late ones.
    fn ordered<T: Clone>(
        items: &[T],
        k: usize,
        late: impl Fn(&T) -> bool,
        rename: impl Fn(usize, &T) -> T,
    ) -> Vec<T> {
        let mut out = Vec::with_capacity(items.len() * k);
        for phase in [false, true] {
            for r in 0..k {
                out.extend(
                    items
                        .iter()
                        .filter(|x| late(x) == phase)
                        .map(|x| rename(r, x)),
                );
            }
        }
        out
    }
    let enums = ordered(
        &cat.enums,
        k,
        |_| false,
        |r, e| {
            let mut e = e.clone();
            e.name = suffix(r, &e.name);
            e
        },
    );
    let sources = ordered(
        &cat.sources,
        k,
        |s| s.appears == Appears::MpiInit,
        |r, s| {
            let mut s = s.clone();
            s.name = suffix(r, &s.name);
            s
        },
    );
    let cvars = ordered(
        &cat.cvars,
        k,
        |v| v.appears == Appears::MpiInit,
        |r, v| {
            let mut v = v.clone();
            v.name = suffix(r, &v.name);
            v.enumtype = v.enumtype.map(|e| suffix(r, &e));
            v
        },
    );
    let pvars = ordered(
        &cat.pvars,
        k,
        |v| v.appears == Appears::MpiInit,
        |r, v| {
            let mut v = v.clone();
            v.name = suffix(r, &v.name);
            v.enumtype = v.enumtype.map(|e| suffix(r, &e));
            v
        },
    );
    let events = ordered(
        &cat.events,
        k,
        |v| v.appears == Appears::MpiInit,
        |r, v| {
            let mut v = v.clone();
            v.name = suffix(r, &v.name);
            v.enumtype = v.enumtype.map(|e| suffix(r, &e));
            v.source = suffix(r, &v.source);
            v
        },
    );
    let categories = ordered(
        &cat.categories,
        k,
        |c| c.appears == Appears::MpiInit,
        |r, c| {
            let mut c = c.clone();
            c.name = suffix(r, &c.name);
            c.cvars = c.cvars.iter().map(|n| suffix(r, n)).collect();
            c.pvars = c
                .pvars
                .iter()
                .map(|p| PvarRef {
                    name: suffix(r, &p.name),
                    class: p.class,
                })
                .collect();
            c.events = c.events.iter().map(|n| suffix(r, n)).collect();
            c.categories = c.categories.iter().map(|n| suffix(r, n)).collect();
            c
        },
    );
    Catalog {
        cvars,
        pvars,
        categories,
        enums,
        events,
        sources,
    }
}

/// One point of the scaling table.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScalePoint {
    pub factor: usize,
    /// cvars, pvars, categories, events in the catalog.
    pub entries: usize,
    /// Floor (a) of the reference with this catalog (it parses the catalog at load).
    pub floor_ms: Option<super::Spread>,
    /// `suite.floor_bound_ms` etc. are filled as for a library.
    pub suite: SuiteFigures,
}

/// `wall = intercept + slope × results`, least squares over the points' median walls.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Fit {
    pub intercept_ms: f64,
    pub slope_us_per_result: f64,
    pub r2: f64,
    /// Wall per result of the largest point over that of the line's slope: near 1 when
    /// the growth is linear, well above 1 when it is not.
    pub largest_point_vs_line: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Scaling {
    pub jobs: usize,
    pub points: Vec<ScalePoint>,
    pub fit: Option<Fit>,
}

impl Scaling {
    /// Wall per added result between consecutive points (µs): constant when the growth
    /// is linear, rising when each result costs more in a bigger run.
    pub fn marginal_us_per_result(&self) -> Vec<f64> {
        let xy: Vec<(f64, f64)> = self
            .points
            .iter()
            .filter_map(|p| Some((p.suite.median_run()?.results as f64, p.suite.wall_ms.median)))
            .collect();
        xy.windows(2)
            .filter(|w| w[1].0 > w[0].0)
            .map(|w| (w[1].1 - w[0].1) * 1000.0 / (w[1].0 - w[0].0))
            .collect()
    }

    /// The last marginal cost over the first (needs three points).
    pub fn marginal_growth(&self) -> Option<f64> {
        let m = self.marginal_us_per_result();
        match (m.first(), m.last()) {
            (Some(a), Some(b)) if m.len() >= 2 && *a > 0.0 => Some(b / a),
            _ => None,
        }
    }
}

/// Least squares through (x, y); `None` with fewer than two distinct x.
pub fn fit(points: &[(f64, f64)]) -> Option<Fit> {
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if points.len() < 2 || sxx == 0.0 {
        return None;
    }
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let ss_tot: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
    let ss_res: f64 = points
        .iter()
        .map(|p| (p.1 - intercept - slope * p.0).powi(2))
        .sum();
    let r2 = if ss_tot == 0.0 {
        1.0
    } else {
        1.0 - ss_res / ss_tot
    };
    let last = points.iter().max_by(|a, b| a.0.total_cmp(&b.0))?;
    let predicted = intercept + slope * last.0;
    Some(Fit {
        intercept_ms: intercept,
        slope_us_per_result: slope * 1000.0,
        r2,
        largest_point_vs_line: if predicted > 0.0 {
            last.1 / predicted
        } else {
            0.0
        },
    })
}

/// Runs the suite on the reference with the catalog replicated by each factor.
#[allow(clippy::too_many_arguments)]
pub fn measure_scaling(
    reference: &LibSpec,
    factors: &[usize],
    spec: &RunSpec,
    runs: usize,
    floor_runs: usize,
    floor_timeout: std::time::Duration,
    scratch: &Path,
    cores: usize,
) -> Result<Scaling, BenchError> {
    let base = Catalog::default_catalog();
    let mut points = Vec::new();
    for &k in factors {
        let cat = replicate(&base, k);
        let file = scratch.join(format!("catalog-x{k}.yaml"));
        std::fs::create_dir_all(scratch).map_err(|e| BenchError::Io {
            path: scratch.to_path_buf(),
            source: e,
        })?;
        std::fs::write(&file, cat.to_yaml()).map_err(|e| BenchError::Io {
            path: file.clone(),
            source: e,
        })?;
        // The generator must produce what the reference accepts.
        Catalog::load(&file).map_err(|e| BenchError::Catalog(e.to_string()))?;
        let mut lib = reference.clone();
        lib.env
            .push(("MPIT_REFERENCE_CATALOG".into(), file.display().to_string()));
        let floor = super::floor::enumerations(&lib, false, floor_runs, floor_timeout)
            .map(|(wall, ..)| wall)
            .ok();
        let suite = measure_suite(&lib, spec, runs, &scratch.join(format!("x{k}")))?;
        let _ = std::fs::remove_file(&file);
        let mut f = super::LibFigures {
            lib,
            real: false,
            floor: floor.map(|w| super::floor::Floor {
                enumerate_ms: Some(w),
                ..Default::default()
            }),
            suites: vec![suite],
            errors: Vec::new(),
        };
        super::derive(&mut f, cores);
        points.push(ScalePoint {
            factor: k,
            entries: cat.cvars.len() + cat.pvars.len() + cat.categories.len() + cat.events.len(),
            floor_ms: floor,
            suite: f.suites.remove(0),
        });
    }
    let xy: Vec<(f64, f64)> = points
        .iter()
        .filter_map(|p| Some((p.suite.median_run()?.results as f64, p.suite.wall_ms.median)))
        .collect();
    Ok(Scaling {
        jobs: spec.jobs,
        fit: fit(&xy),
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_are_valid_catalogs_k_times_the_size() {
        let base = Catalog::default_catalog();
        let c = replicate(&base, 3);
        assert_eq!(c.cvars.len(), 3 * base.cvars.len());
        assert_eq!(c.categories.len(), 3 * base.categories.len());
        let text = c.to_yaml();
        Catalog::from_yaml(&text, "x3").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(replicate(&base, 1), base);
    }

    #[test]
    fn a_line_fits_itself() {
        let f = fit(&[(100.0, 10.0), (1000.0, 100.0), (10000.0, 1000.0)]).expect("fit");
        assert!((f.slope_us_per_result - 100.0).abs() < 1e-6);
        assert!(f.intercept_ms.abs() < 1e-6);
        assert!((f.r2 - 1.0).abs() < 1e-9);
        assert!((f.largest_point_vs_line - 1.0).abs() < 1e-9);
        assert!(fit(&[(1.0, 1.0)]).is_none());
    }
}
