//! The analysis as pictures (SVG, through [`crate::plot`]): the band plot
//! (paper Fig. 4, 9), the Δc regions (Fig. 3), the residuals (Fig. 8) and
//! the band width against the threshold. Everything up to here is exact;
//! values become floats only when handed to the chart.

use super::{Report, Views};
use crate::analysis::Shape;
use crate::data::Measurement;
use crate::model::Model;
use crate::num::{to_f64, Rat};
use crate::plot::{grid, Axis, Chart, Mark, Scale, Series, SeriesKind};
use num_traits::Zero;

/// Samples along the x axis of a band plot.
const BAND_SAMPLES: usize = 240;
/// Palette index of the data (black) and of the fitted model (vermilion).
const DATA_COLOR: usize = 7;
const MODEL_COLOR: usize = 3;
/// Palette index of the family band (sky blue, drawn light).
const FAMILY_COLOR: usize = 5;
/// Palette indices of pruned bands (green, purple: hues apart from the full
/// data's blue and orange).
const PRUNED_COLORS: [usize; 2] = [2, 4];

/// Samples of the family band: each costs two exact LPs per consistent form.
const FAMILY_SAMPLES: usize = 60;

/// The family band of a new measurement at the family's last threshold
/// (`trusted` by default) along the plotted variable, at a subset of the
/// samples `xs`: the library's hull of the consistent forms' bands there
/// ([`crate::family::FamilyAnalysis::hull_at`], the rule the reported
/// family band follows), drawn with a gap where it has no band or an
/// unbounded side. `None` without a family or without a consistent form.
#[allow(clippy::type_complexity)]
fn family_band(
    r: &Report,
    xs: &[Rat],
    fixed: &[Rat],
    axis_var: usize,
) -> Option<(String, Vec<(f64, f64)>, Vec<(f64, f64)>)> {
    let f = r.family?;
    let t = f.levels.len().checked_sub(1)?;
    let step = (xs.len() / FAMILY_SAMPLES).max(1);
    let picked: Vec<&Rat> = xs.iter().step_by(step).collect();
    let nv = f.members.first()?.model.vars.len();
    let points: Vec<Vec<Rat>> = picked
        .iter()
        .map(|x| {
            let mut pt = if fixed.len() == nv { fixed.to_vec() } else { vec![Rat::zero(); nv] };
            pt[axis_var] = (*x).clone();
            pt
        })
        .collect();
    let (hulls, forms) = f.hull_at(t, &points);
    if forms == 0 {
        return None;
    }
    // A side without a bound leaves a gap in the band (NaN breaks it).
    let ends: Vec<Option<(f64, f64)>> = hulls
        .iter()
        .map(|h| {
            let b = &h.as_ref()?.measurement;
            Some((to_f64(b.lower.as_ref()?), to_f64(b.upper.as_ref()?)))
        })
        .collect();
    let side = |upper: bool| -> Vec<(f64, f64)> {
        picked
            .iter()
            .zip(&ends)
            .map(|(x, e)| (to_f64(x), e.map_or(f64::NAN, |(l, u)| if upper { u } else { l })))
            .collect()
    };
    let name = format!(
        "family band, new measurement ({forms} form{}, threshold {})",
        if forms == 1 { "" } else { "s" },
        f.levels[t].threshold.text
    );
    Some((name, side(false), side(true)))
}

/// Palette index of region `i`'s band (skipping the data and model colours).
pub(crate) fn region_color(i: usize) -> usize {
    [0, 1, 2, 4, 5, 6][i % 6]
}

/// `label [unit]` for a model name (variable or function) when a unit is known.
pub(crate) fn with_unit(model: &Model, name: &str) -> String {
    match model.units.get(name) {
        Some(u) => format!("{name} [{}]", crate::units::display(u)),
        None => name.to_string(),
    }
}

/// Log scale when every value is positive and they span more than a factor of 20.
pub(crate) fn scale_for(values: impl Iterator<Item = f64>) -> Scale {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo > 0.0 && hi / lo > 20.0 {
        Scale::Log
    } else {
        Scale::Linear
    }
}

/// A band's two sides as drawn, `(x, y)` samples.
type Sides = (Vec<(f64, f64)>, Vec<(f64, f64)>);

/// A band's ends as drawn: NaN (a gap in the chart) for a missing band or
/// an unbounded side.
fn ends(b: Option<&crate::band::Band>) -> (f64, f64) {
    let end = |v: Option<&Rat>| v.map_or(f64::NAN, to_f64);
    b.map_or((f64::NAN, f64::NAN), |b| (end(b.lower.as_ref()), end(b.upper.as_ref())))
}

/// The band plot's curves: samples of the fitted model and, per region,
/// of its band and of its new-measurement band, `(x, lower, upper)`.
struct Curves {
    model: Vec<(f64, f64)>,
    bands: Vec<Vec<(f64, f64, f64)>>,
    measurement: Vec<Vec<(f64, f64, f64)>>,
}

impl Curves {
    /// One side of region `i`'s band (`measurement`: its new-measurement
    /// band), or `None` when no sample has a band there.
    fn sides(&self, i: usize, measurement: bool) -> Option<Sides> {
        let s = if measurement { &self.measurement[i] } else { &self.bands[i] };
        if s.iter().all(|&(_, l, u)| l.is_nan() && u.is_nan()) {
            return None;
        }
        Some((s.iter().map(|&(x, l, _)| (x, l)).collect(), s.iter().map(|&(x, _, u)| (x, u)).collect()))
    }
}

/// Curves along the plotted variable (`xs`, the other variables at
/// `fixed`): the library's exact predictions there
/// ([`crate::analysis::Predictor`]: the same bands as the numbers, bounded
/// by zero for run times), converted to floats only for the chart. A
/// sample where the model cannot be evaluated is left out.
fn curves(
    m: &Model,
    a: &crate::analysis::Analysis,
    data: &[Measurement],
    xs: &[Rat],
    fixed: &[Rat],
    axis_var: usize,
) -> Curves {
    let nv = m.vars.len();
    let predictor = a.predictor(m, data, &crate::analysis::Options::default());
    let mut log = predictor.new_log();
    let mut c = Curves {
        model: Vec::new(),
        bands: vec![Vec::new(); a.regions.len()],
        measurement: vec![Vec::new(); a.regions.len()],
    };
    for x in xs {
        let mut pt = if fixed.len() == nv { fixed.to_vec() } else { vec![Rat::zero(); nv] };
        pt[axis_var] = x.clone();
        let Ok(p) = predictor.predict(pt, &mut log) else { continue };
        let xf = to_f64(x);
        c.model.push((xf, to_f64(&p.model)));
        for (i, (b, n)) in p.bands.iter().zip(&p.measurement).enumerate() {
            let ((bl, bu), (nl, nu)) = (ends(b.as_ref()), ends(n.as_ref()));
            c.bands[i].push((xf, bl, bu));
            c.measurement[i].push((xf, nl, nu));
        }
    }
    c
}

/// Band plot: data, fitted model and one band per threshold against one
/// variable, the extrapolation shaded. The slice is `--plot-at`'s (the
/// other variables at the given values, over the whole range of the
/// plotted one) or, by default, the model's first varying variable with
/// the others at the first prediction point's values.
pub fn band(r: &Report) -> String {
    let m = r.model;
    let a = r.analysis;
    let nv = m.vars.len();
    let first = a.predictions.first().map(|p| p.x.clone());
    let (axis_var, fixed) = match r.plot_at {
        Some(s) => (s.axis, s.fixed.clone()),
        None => {
            // The first variable the prediction points vary in (or the first).
            let axis = match &first {
                Some(f) => (0..nv).find(|&i| a.predictions.iter().any(|p| p.x[i] != f[i])).unwrap_or(0),
                None => 0,
            };
            (axis, first.clone().or_else(|| r.data.first().map(|d| d.x.clone())).unwrap_or_default())
        }
    };
    let on_slice = |x: &[Rat]| (0..nv).all(|i| i == axis_var || x.get(i) == fixed.get(i));
    let data: Vec<(Rat, Rat)> =
        r.data.iter().filter(|d| on_slice(&d.x)).map(|d| (d.x[axis_var].clone(), d.y.clone())).collect();
    let mut xs_all: Vec<Rat> = data
        .iter()
        .map(|(x, _)| x.clone())
        .chain(a.predictions.iter().filter(|p| on_slice(&p.x)).map(|p| p.x[axis_var].clone()))
        .collect();
    if r.plot_at.is_some() {
        // A chosen slice (often at an extrapolated value, where nothing was
        // measured) spans the plotted variable's whole range.
        xs_all.extend(r.data.iter().map(|d| d.x[axis_var].clone()));
        xs_all.extend(a.predictions.iter().map(|p| p.x[axis_var].clone()));
    }
    let (Some(lo), Some(hi)) = (xs_all.iter().min().cloned(), xs_all.iter().max().cloned()) else {
        return Chart::new("no data to plot", Axis::linear(""), Axis::linear("")).svg();
    };
    let dmax = data.iter().map(|(x, _)| x.clone()).max().unwrap_or_else(|| lo.clone());
    let xs = crate::envelope::samples(&lo, &hi, BAND_SAMPLES);
    let mut full = curves(m, a, r.data, &xs, &fixed, axis_var);
    let model_pts = std::mem::take(&mut full.model);
    let var = &m.vars[axis_var.min(nv.saturating_sub(1))];
    let xscale = r.scales[0].unwrap_or_else(|| scale_for(xs.iter().map(to_f64)));
    let yscale = r.scales[1].unwrap_or_else(|| {
        scale_for(model_pts.iter().map(|p| p.1).chain(data.iter().map(|(_, y)| to_f64(y))))
    });
    let others: Vec<String> = (0..nv)
        .filter(|&i| i != axis_var)
        .map(|i| format!("{} = {}", m.vars[i], crate::model::show_value(&fixed[i])))
        .collect();
    let title = format!(
        "{}({}) = {}{}",
        m.func,
        m.vars.join(", "),
        m.body_text,
        if others.is_empty() { String::new() } else { format!("  ({})", others.join(", ")) }
    );
    let mut c =
        Chart::new(title, Axis::new(with_unit(m, var), xscale), Axis::new(with_unit(m, &m.func), yscale));
    // Behind everything, lightest: the family band of a new measurement.
    if let Some((name, lower, upper)) = family_band(r, &xs, &fixed, axis_var) {
        c.series.push(Series::new(name, SeriesKind::Band { lower, upper, light: true }).color(FAMILY_COLOR));
    }
    // Then the band of a new measurement (light) at the last threshold
    // (`trusted` by default: the one to bet on; one per threshold would bury
    // the plot).
    for (i, reg) in a.regions.iter().enumerate().skip(a.regions.len().saturating_sub(1)) {
        let Some((lower, upper)) = full.sides(i, true) else { continue };
        let name = format!("new measurement, threshold {}", r.legend_label(reg));
        c.series
            .push(Series::new(name, SeriesKind::Band { lower, upper, light: true }).color(region_color(i)));
    }
    let region_series = |reg: &crate::analysis::Region, (lower, upper): Sides, dashed: bool| {
        // A region that is one point (e_max when it is attained uniquely)
        // has a band of width zero: drawn as a curve, so that it shows.
        if reg.shape == Shape::Point {
            SeriesKind::Line { pts: upper, dashed }
        } else {
            SeriesKind::Band { lower, upper, light: false }
        }
    };
    for (i, reg) in a.regions.iter().enumerate() {
        let Some(sides) = full.sides(i, false) else { continue };
        let name = format!("band, threshold {}", r.legend_label(reg));
        c.series.push(Series::new(name, region_series(reg, sides, false)).color(region_color(i)));
    }
    // With --drop: the pruned fit and its bands (the paper's Fig. 9).
    if let Some(p) = r.pruned {
        let pa = &p.analysis;
        let pruned = curves(m, pa, r.data, &xs, &fixed, axis_var);
        let what = p.dropped.iter().map(|&i| m.show_point(&r.data[i].x)).collect::<Vec<_>>().join("; ");
        for (i, reg) in pa.regions.iter().enumerate() {
            let Some(sides) = pruned.sides(i, false) else { continue };
            let name = format!("pruned band (without {what}), threshold {}", r.legend_label(reg));
            c.series.push(
                Series::new(name, region_series(reg, sides, true))
                    .color(PRUNED_COLORS[i % PRUNED_COLORS.len()]),
            );
        }
        c.series.push(
            Series::new(
                format!("pruned fit (without {what})"),
                SeriesKind::Line { pts: pruned.model, dashed: true },
            )
            .color(MODEL_COLOR),
        );
    }
    c.series.push(
        Series::new(format!("fitted model T(C, {var})"), SeriesKind::Line { pts: model_pts, dashed: false })
            .color(MODEL_COLOR),
    );
    let pts: Vec<(f64, f64)> = data.iter().map(|(x, y)| (to_f64(x), to_f64(y))).collect();
    c.series
        .push(Series::new("measurements", SeriesKind::Points { pts, mark: Mark::Circle }).color(DATA_COLOR));
    if hi > dmax {
        c.shade_x = Some((to_f64(&dmax), to_f64(&hi)));
    }
    c.svg()
}

/// Convex polygon of 2-D points in counter-clockwise order around their
/// centroid (drawing only: the points are a convex polygon's vertices).
fn ccw(mut pts: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    let n = pts.len() as f64;
    let (cx, cy) = pts.iter().fold((0.0, 0.0), |(a, b), p| (a + p.0 / n, b + p.1 / n));
    pts.sort_by(|p, q| {
        let a = (p.1 - cy).atan2(p.0 - cx);
        let b = (q.1 - cy).atan2(q.0 - cx);
        a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal)
    });
    pts
}

/// 2-D convex hull (monotone chain), for projections of a region's vertices.
fn hull(mut pts: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    pts.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let cross =
        |o: (f64, f64), a: (f64, f64), b: (f64, f64)| (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0);
    let mut lower: Vec<(f64, f64)> = Vec::new();
    for &p in &pts {
        while lower.len() >= 2 && cross(lower[lower.len() - 2], lower[lower.len() - 1], p) <= 0.0 {
            lower.pop();
        }
        lower.push(p);
    }
    let mut upper: Vec<(f64, f64)> = Vec::new();
    for &p in pts.iter().rev() {
        while upper.len() >= 2 && cross(upper[upper.len() - 2], upper[upper.len() - 1], p) <= 0.0 {
            upper.pop();
        }
        upper.push(p);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    lower
}

/// The regions as polygons (paper Fig. 3): one chart for two parameters,
/// pairwise projections in a grid for more, an interval chart for one.
pub fn region(r: &Report) -> String {
    let a = r.analysis;
    let k = a.dnames.len();
    let pair_chart = |i: usize, j: usize, project: bool| {
        let mut c = Chart::new(
            if project {
                format!("projection onto ({}, {})", a.dnames[i], a.dnames[j])
            } else {
                "Δc regions".into()
            },
            Axis::linear(a.dnames[i].clone()),
            Axis::linear(a.dnames[j].clone()),
        );
        // Largest threshold first, so smaller regions are drawn on top.
        let mut order: Vec<usize> = (0..a.regions.len()).collect();
        order.sort_by(|&x, &y| a.regions[y].value.cmp(&a.regions[x].value).then(x.cmp(&y)));
        for ri in order {
            let reg = &a.regions[ri];
            let pts: Vec<(f64, f64)> = reg.vertices.iter().map(|v| (to_f64(&v[i]), to_f64(&v[j]))).collect();
            let unb =
                if matches!(reg.shape, Shape::Unbounded { .. }) { " (unbounded: vertices only)" } else { "" };
            let name = format!("threshold {}{unb}", r.legend_label(reg));
            let kind = match reg.shape {
                Shape::Empty | Shape::Unlisted { .. } | Shape::Untrusted { .. } => continue,
                Shape::Point => SeriesKind::Points { pts, mark: Mark::Diamond },
                Shape::Unbounded { .. } => SeriesKind::Points { pts, mark: Mark::Circle },
                Shape::Bounded if pts.len() < 3 => SeriesKind::Line { pts, dashed: false },
                Shape::Bounded => {
                    let poly = if project { hull(pts) } else { ccw(pts) };
                    SeriesKind::Polygon { pts: poly, marked: true }
                }
            };
            c.series.push(Series::new(name, kind).color(region_color(ri)));
        }
        c.series.push(
            Series::new("fit (Δc = 0)", SeriesKind::Points { pts: vec![(0.0, 0.0)], mark: Mark::Cross })
                .color(MODEL_COLOR),
        );
        c
    };
    match k {
        0 => Chart::new("no parameters", Axis::linear(""), Axis::linear("")).svg(),
        1 => {
            let mut c = Chart::new(
                "Δc intervals per threshold",
                Axis::linear(a.dnames[0].clone()),
                Axis::linear("threshold"),
            );
            for (ri, reg) in a.regions.iter().enumerate() {
                let y = to_f64(&reg.value);
                let pts: Vec<(f64, f64)> = reg.vertices.iter().map(|v| (to_f64(&v[0]), y)).collect();
                c.series.push(
                    Series::new(
                        format!("threshold {}", r.legend_label(reg)),
                        SeriesKind::Line { pts, dashed: false },
                    )
                    .color(region_color(ri)),
                );
            }
            c.svg()
        }
        2 => pair_chart(0, 1, false).svg(),
        _ => {
            let mut charts = Vec::new();
            for i in 0..k {
                for j in i + 1..k {
                    let mut c = pair_chart(i, j, true);
                    c.width = 420.0;
                    c.height = 340.0;
                    charts.push(c);
                }
            }
            grid(&charts, 2, "Δc region: pairwise projections (convex hulls of the projected vertices)")
        }
    }
}

/// Residuals against the first variable, in the fit's own scale (paper
/// Fig. 8, which plots the residuals of its weighted fit): `w(x_i)·e_i` for
/// a weighted model, otherwise `e_i` with the ±e_max lines.
pub fn residuals(r: &Report) -> String {
    let m = r.model;
    let a = r.analysis;
    let var = m.vars.first().cloned().unwrap_or_default();
    let weighted = m.is_weighted();
    let pts: Vec<(f64, f64)> = (0..r.data.len())
        .map(|i| {
            let e = a.residuals.e(r.data, i);
            let w = if weighted { &a.design.groups[a.design.group_of[i]].weight * &e } else { e };
            (to_f64(&r.data[i].x[0]), to_f64(&w))
        })
        .collect();
    let xscale = scale_for(pts.iter().map(|p| p.0));
    let unit = m.units.get(&m.func).map(|u| format!(" [{}]", crate::units::display(u))).unwrap_or_default();
    let (title, ylabel) = if weighted {
        (
            format!(
                "Weighted residuals of {} (weight {}; the fit's scale)",
                m.func,
                m.weight_text.clone().unwrap_or_default()
            ),
            "w(x_i)·e_i".to_string(),
        )
    } else {
        (
            format!(
                "Residuals of {}: Max|e_i| = {}, e_max = {}",
                m.func,
                r.dec(&a.residuals.max_abs),
                r.dec(&a.emax)
            ),
            format!("e_i = T(C, x_i) − d_i{unit}"),
        )
    };
    let mut c = Chart::new(title, Axis::new(with_unit(m, &var), xscale), Axis::linear(ylabel));
    let (x0, x1) = pts.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let e = to_f64(&a.emax);
    if x0.is_finite() && !weighted {
        c.series.push(
            Series::new("±e_max", SeriesKind::Line { pts: vec![(x0, e), (x1, e)], dashed: true })
                .color(region_color(1)),
        );
        c.series.push(
            Series::new("", SeriesKind::Line { pts: vec![(x0, -e), (x1, -e)], dashed: true })
                .color(region_color(1)),
        );
    }
    let name = if weighted { "weighted residual w·e_i" } else { "residual e_i" };
    c.series.push(Series::new(name, SeriesKind::Stems { pts }).color(region_color(0)));
    c.hline = Some((0.0, String::new()));
    c.svg()
}

/// Relative band width (width / |T(C, x)|, in %) against the threshold
/// from e_max to Max|e_i|, one line per prediction point (up to 8).
pub fn width(r: &Report) -> String {
    let m = r.model;
    let a = r.analysis;
    let mut c = Chart::new(
        "Band width against the residual threshold",
        Axis::linear(format!(
            "threshold e′{}",
            m.units.get(&m.func).map(|u| format!(" [{}]", crate::units::display(u))).unwrap_or_default()
        )),
        Axis::linear("band width / T(C, x) [%]"),
    );
    let curves = match r.function {
        Some(f) => f.curves.clone(),
        None => crate::envelope::width_curves(a, m),
    };
    for (i, (p, curve)) in a.predictions.iter().zip(&curves).enumerate().take(8) {
        let t = to_f64(&p.model).abs();
        let pts: Vec<(f64, f64)> = curve
            .points
            .iter()
            .filter_map(|(e, l, u)| match (l, u) {
                (Some(l), Some(u)) if t > 0.0 => Some((to_f64(e), 100.0 * to_f64(&(u - l)) / t)),
                _ => None,
            })
            .collect();
        const MARKS: [Mark; 5] = [Mark::Circle, Mark::Square, Mark::Triangle, Mark::Diamond, Mark::Cross];
        let kind = SeriesKind::MarkedLine { pts, mark: MARKS[i % MARKS.len()] };
        c.series.push(Series::new(m.show_point(&p.x), kind).color(i % 8));
    }
    c.svg()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Analysis, Options};
    use crate::threshold::Threshold;

    #[test]
    fn the_band_plot_draws_the_exact_bands_of_the_numbers() {
        // HPL's 5 % band reaches below zero past p = 1 000: the numbers bound
        // it by zero, and the plot must show the same band, not a float
        // re-derivation that dips below.
        let (m, data) = crate::testdata::hpl("param c1, c2\nweight p\npredict p = 2000");
        let thresholds = vec![Threshold::parse("max").unwrap(), Threshold::parse("5%").unwrap()];
        let a = Analysis::run_rows(&m, &data, "hpl.csv", &Options::default().thresholds(thresholds)).unwrap();
        let xs: Vec<Rat> = [10, 500, 2000, 8000].iter().map(|&p| crate::num::int(p)).collect();
        let c = curves(&m, &a, &data, &xs, &[Rat::zero()], 0);
        assert_eq!(c.model.len(), xs.len());
        let exact = a.predictor(&m, &data, &Options::default());
        let mut log = exact.new_log();
        for (j, x) in xs.iter().enumerate() {
            let p = exact.predict(vec![x.clone()], &mut log).unwrap();
            assert_eq!(c.model[j], (to_f64(x), to_f64(&p.model)));
            for i in 0..a.regions.len() {
                let (l, u) = ends(p.bands[i].as_ref());
                assert_eq!((c.bands[i][j].1, c.bands[i][j].2), (l, u), "region {i}, p = {x}");
                let (l, u) = ends(p.measurement[i].as_ref());
                assert_eq!((c.measurement[i][j].1, c.measurement[i][j].2), (l, u), "region {i}, p = {x}");
            }
        }
        let last = a.regions.len() - 1;
        assert_eq!(c.bands[last][2].1, 0.0, "the 5 % band at p = 2000 is bounded by zero");
        assert!(c.bands.iter().flatten().chain(c.measurement.iter().flatten()).all(|&(_, l, _)| l >= 0.0));
    }

    #[test]
    fn hull_and_ccw_keep_convex_vertices() {
        let sq = vec![(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)];
        assert_eq!(ccw(sq.clone()).len(), 4);
        let mut inner = sq.clone();
        inner.push((0.5, 0.5));
        assert_eq!(hull(inner).len(), 4);
    }
}
