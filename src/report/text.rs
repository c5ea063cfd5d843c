//! The terminal report of an analysis, read top to bottom, rendered from
//! its document ([`AnalysisDocument`]).

use super::tables::{abbreviated, plural, table};
use super::view::{
    band_ends, coords, dropped_text, num, pct, point_label, pruned_at, shrink_cell, threshold_label,
};
use super::{Report, MAX_POINT_TABLE, MAX_ROW_TABLE};
use crate::document::analysis::{
    AnalysisDocument, BandFunctionDocument, EnvelopePiece, FitDocument, FitKind, PointResiduals, RegionShape,
    ResidualRow, ThresholdBand,
};
use crate::document::{Band, BandStatus, Exact, ModelInfo};

/// The residual table of a text report: every measurement, or one line
/// per distinct point when there are many.
pub(crate) enum Residuals {
    /// One row per measurement.
    Rows(Vec<ResidualRow>),
    /// One row per distinct point, and whether every point is listed.
    Points {
        /// The rows.
        rows: Vec<PointResiduals>,
        /// Every point is listed (otherwise those with the largest |e_i|).
        listed: bool,
    },
}

impl Report<'_> {
    /// The terminal report, read top to bottom.
    pub fn text(&self) -> String {
        self.text_with(&self.document())
    }

    /// [`Report::text`] of this report's document `doc`, made once by the
    /// caller.
    pub(crate) fn text_with(&self, doc: &AnalysisDocument) -> String {
        let (m, a, digits) = (self.model, self.analysis, self.digits);
        let residuals = if self.data.len() > MAX_ROW_TABLE {
            let (rows, listed) = crate::document::analysis::residuals_by_point(m, a, MAX_POINT_TABLE, digits);
            Residuals::Points { rows, listed }
        } else {
            Residuals::Rows(
                (0..self.data.len()).map(|i| ResidualRow::new(m, a, self.data, i, i + 1, digits)).collect(),
            )
        };
        text_of(doc, &residuals, self.exact, digits)
    }
}

/// A line and its newline.
fn line(o: &mut String, s: impl AsRef<str>) {
    o.push_str(s.as_ref());
    o.push('\n');
}

/// The terminal report of `doc` with its residual table `residuals`;
/// `exact`: exact fractions instead of decimals (`--exact`); `digits`: the
/// significant digits of percentages and thresholds (`--decimal`).
pub(crate) fn text_of(doc: &AnalysisDocument, residuals: &Residuals, exact: bool, digits: usize) -> String {
    let m = &doc.model;
    let a = &doc.analysis;
    let n = |e: &Exact| num(e, exact).to_string();
    let mut o = String::new();
    line(&mut o, format!("errband {} — {} with {}", doc.header.errband, m.file, doc.data.info.file));
    line(&mut o, "");
    // The answer first, or why there is none.
    o.push_str(&super::answer::Answer::section(
        super::answer::Answer::of_document(doc),
        doc.recommendation_error.as_deref(),
    ));
    line(&mut o, format!("Model   {}({}) = {}", m.function, m.variables.join(", "), m.body));
    for c in &m.constants {
        line(&mut o, format!("        const {} = {}", c.name, c.value));
    }
    if !m.units.is_empty() {
        let u: Vec<String> = m.units.iter().map(|(k, v)| format!("{k} in {v}")).collect();
        line(&mut o, format!("        units: {}", u.join(", ")));
    }
    let how = match (a.fit, &m.weight) {
        (FitKind::None, _) => "given values (fit none)".to_string(),
        (FitKind::Lsq, None) => "exact least squares".to_string(),
        (FitKind::Lsq, Some(w)) => {
            format!("exact weighted least squares, weight {w} (minimises Σ (w·(d_i − T_i))²)")
        }
    };
    line(&mut o, format!("        params {}: {how}", m.params.join(", ")));
    for note in m.inexact.iter().take(8) {
        line(&mut o, format!("        note: {note} (not exact: rounded to {} significant digits)", m.digits));
    }
    if m.inexact.len() > 8 {
        line(&mut o, format!("        note: {} more inexact values", m.inexact.len() - 8));
    }
    let (count, points) = (doc.data.info.measurements, doc.data.info.points);
    line(
        &mut o,
        format!(
            "Data    {count} measurement{} at {points} distinct point{} ({})",
            plural(count),
            plural(points),
            doc.data.info.file
        ),
    );
    if !doc.set_aside.is_empty() {
        let mut aside: Vec<String> =
            doc.set_aside.iter().map(|s| point_label(&s.point, &m.variables)).collect();
        aside.dedup();
        line(
            &mut o,
            format!(
                "        set aside: {} measurement{} before a change of trend ({})",
                doc.set_aside.len(),
                plural(doc.set_aside.len()),
                abbreviated(&aside, "; ")
            ),
        );
    }
    for w in &doc.data.warnings {
        line(&mut o, format!("        warning: {w}"));
    }
    line(&mut o, "");

    line(&mut o, if matches!(a.fit, FitKind::None) { "Parameters (given)" } else { "Fit" });
    for p in &a.params {
        let shown = num(&p.value, exact);
        let f = p.value.exact();
        let also = if exact || f.len() > 70 || f == shown { String::new() } else { format!("   = {f}") };
        line(&mut o, format!("  {} = {shown}{also}", p.name));
    }
    line(&mut o, "");

    residual_table(&mut o, doc, residuals, exact);
    line(&mut o, "");
    emax_text(&mut o, m, a, exact, digits);
    line(&mut o, "");
    regions_text(&mut o, m, a, exact, digits);
    bands_text(&mut o, m, a, exact);
    if let Some(h) = &a.hint {
        line(&mut o, "");
        line(
            &mut o,
            format!(
                "Hint: RMS = {} > e_max = {}: the model improves by moving to the minimax point C + Δc* (paper, section 4.3):",
                a.rms.decimal, a.emax.value.decimal()
            ),
        );
        let vals: Vec<String> = h.params.iter().map(|p| format!("{} = {}", p.name, n(&p.value))).collect();
        line(&mut o, format!("  param {}", vals.join(", ")));
        line(
            &mut o,
            format!(
                "  (with `fit none`: Max|e_i| = e_max = {}, RMS = {})",
                a.emax.value.decimal(),
                h.rms.decimal
            ),
        );
    }
    if doc.pruned.is_some() {
        line(&mut o, "");
        pruned_text(&mut o, doc, exact);
    }
    if let Some(f) = &doc.band_function {
        line(&mut o, "");
        function_text(&mut o, doc, f, exact, digits);
    }
    if let Some(f) = &doc.family {
        super::family::family_text(&mut o, f, m, digits, exact);
    }
    if let Some(h) = &doc.holdout {
        super::backtest::backtest_text(&mut o, h, m, exact);
    }
    o
}

fn residual_table(o: &mut String, doc: &AnalysisDocument, residuals: &Residuals, exact: bool) {
    let m = &doc.model;
    let n = |e: &Exact| num(e, exact).to_string();
    match residuals {
        Residuals::Rows(rs) => {
            let mut head = vec!["row".to_string(), "line".to_string()];
            head.extend(m.variables.iter().cloned());
            head.extend(["d_i".to_string(), format!("{}(C,x_i)", m.function), "e_i".to_string()]);
            let mut rows = vec![head];
            for r in rs {
                let mut row = vec![r.row.to_string(), r.line.to_string()];
                row.extend(coords(&r.point, &m.variables, &[]));
                row.extend([n(&r.measured), n(&r.model), n(&r.residual)]);
                rows.push(row);
            }
            o.push_str("Residuals e_i = T(C, x_i) − d_i\n");
            o.push_str(&table(&rows, 2));
        }
        Residuals::Points { rows: rs, listed } => {
            let mut head: Vec<String> = m.variables.clone();
            head.extend([
                "count".into(),
                "d min".into(),
                "d max".into(),
                format!("{}(C,x)", m.function),
                "e min".into(),
                "e max".into(),
            ]);
            let mut rows = vec![head];
            for r in rs {
                let mut row = coords(&r.point, &m.variables, &[]);
                row.push(r.count.to_string());
                row.extend([
                    n(&r.measured_min),
                    n(&r.measured_max),
                    n(&r.model),
                    n(&r.residual_min),
                    n(&r.residual_max),
                ]);
                rows.push(row);
            }
            let points = doc.data.info.points;
            o.push_str(&format!(
                "Residuals e_i = T(C, x_i) − d_i, by point ({} measurements at {points} points{})\n",
                doc.data.info.measurements,
                if *listed {
                    String::new()
                } else {
                    format!("; the {} points with the largest |e_i|", rs.len())
                }
            ));
            o.push_str(&table(&rows, 2));
            if !listed {
                o.push_str(&format!(
                    "  ... {} more points; --format json lists every residual\n",
                    points - rs.len()
                ));
            }
        }
    }
    let a = &doc.analysis;
    o.push_str(&format!(
        "  Max|e_i| = {} (row {}, {})   RMS = {}\n",
        n(&a.max_residual.value),
        a.max_residual.row,
        point_label(&a.max_residual.point, &m.variables),
        a.rms.decimal
    ));
}

/// The values of a map over the perturbations Δc, in the parameters' order.
fn in_order<'a>(
    m: &'a ModelInfo,
    v: &'a std::collections::BTreeMap<String, Exact>,
) -> impl Iterator<Item = &'a Exact> {
    m.perturbations.iter().filter_map(|d| v.get(d))
}

fn vec_text(m: &ModelInfo, v: &std::collections::BTreeMap<String, Exact>, exact: bool) -> String {
    in_order(m, v).map(|x| num(x, exact)).collect::<Vec<_>>().join(", ")
}

fn emax_text(o: &mut String, m: &ModelInfo, a: &FitDocument, exact: bool, digits: usize) {
    let e = &a.emax;
    o.push_str(&format!(
        "e_max = {}   (exact {}): the smallest threshold any Δc meets on every measurement (paper eq. 6)\n",
        e.value.decimal(),
        e.value.exact()
    ));
    let dc: Vec<String> = m
        .perturbations
        .iter()
        .filter_map(|d| e.dc.get(d).map(|v| format!("{d} = {}", num(v, exact))))
        .collect();
    let how = if e.unique {
        "attained only at"
    } else if !e.listed {
        "attained (its region's vertices were not listed) for one at"
    } else {
        "attained on a face of the e_max region; its vertex mean is"
    };
    o.push_str(&format!("  {how} {}\n", dc.join(", ")));
    // Repeated measurements that disagree bound e_max from below for any
    // model: say so when that is what sets it.
    if let Some(p) = &e.spread_at {
        o.push_str(&format!(
            "  (= half the spread of the repeated measurements at {}: no model can do better)\n",
            point_label(p, &m.variables)
        ));
    }
    match &a.remax {
        Some(r) => o.push_str(&format!(
            "remax = {} %   (exact {}): the smallest relative threshold, |T − d_i| ≤ r·d_i on every measurement; the fit's Max|e_i|/d_i is {} %\n",
            pct(r, digits, ""),
            r.exact(),
            a.rmax.as_ref().map_or(String::new(), |v| pct(v, digits, ""))
        )),
        None => o.push_str("remax: none (relative thresholds need every measurement positive)\n"),
    }
}

fn regions_text(o: &mut String, m: &ModelInfo, a: &FitDocument, exact: bool, digits: usize) {
    o.push_str(&format!(
        "Regions of Δc = ({}) allowed by each threshold (paper eq. 5, 7)\n",
        m.perturbations.join(", ")
    ));
    for r in &a.regions {
        let label = threshold_label(&r.threshold, exact, digits);
        match r.shape {
            RegionShape::Empty => {
                o.push_str(&format!(
                    "  threshold {label}: empty: e_max = {} (exact {}); no Δc fits every measurement within {}\n",
                    a.emax.value.decimal(),
                    a.emax.value.exact(),
                    r.threshold.absolute.as_ref().map_or_else(|| "?".to_string(), |v| num(v, exact))
                ));
                continue;
            }
            // A relative threshold fails on data that are not all positive,
            // exactly where remax does not exist.
            RegionShape::Untrusted if a.remax.is_none() => {
                o.push_str(&format!("  threshold {label}: no trustworthy band: a relative bound needs positive measurements, and some are zero or negative\n"));
                continue;
            }
            RegionShape::Untrusted => {
                o.push_str(&format!(
                    "  threshold {label}: no trustworthy band: the model misses its own data by remax = {} %, so r reaches {} %; a band from this model form would not be worth betting on (try another form, or give -t explicitly)\n",
                    a.remax.as_ref().map_or("?".into(), |r| pct(r, 3, "")),
                    r.threshold.relative.as_ref().map_or("?".into(), |r| pct(r, 3, ""))
                ));
                continue;
            }
            RegionShape::Point => o.push_str(&format!("  threshold {label}: a single point\n")),
            RegionShape::Bounded => {
                o.push_str(&format!("  threshold {label}: bounded, {} vertices\n", r.vertices.len()))
            }
            RegionShape::Unlisted => {
                let u = r.unlisted.as_ref();
                let limit = u.map_or(0, |u| u.max_vertices);
                let why = if u.is_some_and(|u| u.limit == "work") {
                    format!("listing its vertices and cylindrical form needs more work than --max-vertices {limit} allows (raise it to list the region)")
                } else {
                    format!(
                        "enumerating its vertices passed --max-vertices {limit} (reached {})",
                        u.map_or(0, |u| u.vertices_reached)
                    )
                };
                o.push_str(&format!(
                    "  threshold {label}: not listed: {why}; it is the residual system at this threshold, and its bands come from exact LPs\n"
                ));
                continue;
            }
            RegionShape::Unbounded => {
                let dirs: Vec<String> = r
                    .rays
                    .iter()
                    .map(|d| format!("+({})", vec_text(m, d, exact)))
                    .chain(r.lines.iter().map(|d| format!("±({})", vec_text(m, d, exact))))
                    .collect();
                o.push_str(&format!(
                    "  threshold {label}: unbounded: the data leave Δc free along {} (over ({}))\n",
                    dirs.join(", "),
                    m.perturbations.join(", ")
                ));
            }
        }
        for v in &r.vertices {
            o.push_str(&format!("    vertex ({})\n", vec_text(m, v, exact)));
        }
        if matches!(r.shape, RegionShape::Point) {
            continue;
        }
        match &r.cylindrical {
            // A whole experiment skips the cylindrical forms (the cost of
            // its run); the vertices above are the region, exactly.
            None => o.push_str("    (cylindrical form not computed for a whole experiment: choose the series with --region and --metric to see it)\n"),
            Some(c) => {
                o.push_str(&format!(
                    "    cylindrical ({} outermost):\n",
                    c.order.first().map_or("", String::as_str)
                ));
                for l in (if exact { &c.text } else { &c.text_decimal }).lines() {
                    o.push_str(&format!("      {l}\n"));
                }
            }
        }
    }
}

fn bands_text(o: &mut String, m: &ModelInfo, a: &FitDocument, exact: bool) {
    if a.bands.is_empty() {
        o.push_str("\nNo prediction points (add `predict p = ...` to the model or `--at p=...`).\n");
        return;
    }
    o.push_str(&format!(
        "\nBands of {}(C+Δc, x) over each region (* = extrapolated beyond the data)\n",
        m.function
    ));
    o.push_str(&band_table(m, a, |t| &t.band, true, exact));
    o.push_str(&format!(
        "\nBands of a new measurement at x: it scatters about {}(c, x) as the data did within each threshold ([L − a, U + a] for an absolute threshold a, [L/(1+r), U/(1−r)] for a relative one r)\n",
        m.function
    ));
    if let Some(def) = a.regions.iter().find_map(|r| r.definition.as_ref()) {
        o.push_str(&format!(
            "  trusted = {def}: assumes the model form {}({}) = {} and new measurements scattering about it as the old ones did; no band covers a change of regime (a protocol switch, a cache cliff)\n",
            m.function,
            m.variables.join(", "),
            m.body
        ));
    }
    o.push_str(&band_table(m, a, |t| &t.measurement_band, false, exact));
    if super::view::any_clipped(
        a.bands.iter().flat_map(|p| &p.bands).flat_map(|t| [&t.band, &t.measurement_band]),
    ) {
        o.push_str(&format!("  {}\n", super::CLIPPED_NOTE));
    }
}

/// A table of bands per prediction point and threshold (`band` picks the
/// model's band or that of a new measurement), with the model's value when
/// `model_column`.
fn band_table(
    m: &ModelInfo,
    a: &FitDocument,
    band: impl Fn(&ThresholdBand) -> &Band,
    model_column: bool,
    exact: bool,
) -> String {
    let mut head: Vec<String> = m.variables.clone();
    if model_column {
        head.push(format!("{}(C,x)", m.function));
    }
    for r in &a.regions {
        head.extend([format!("{}: lower", r.threshold.label), "upper".into(), "±rel".into()]);
    }
    let mut rows = vec![head];
    for p in &a.bands {
        let mut row = coords(&p.point, &m.variables, &p.beyond);
        if model_column {
            row.push(num(&p.model, exact).to_string());
        }
        for t in &p.bands {
            let b = band(t);
            let (l, u) = band_ends(b, exact);
            let rel = b.relative_half_width.as_ref().map_or(String::new(), |r| pct(r, 3, "%"));
            row.extend([l, u, rel]);
        }
        rows.push(row);
    }
    table(&rows, 2)
}

fn pruned_text(o: &mut String, doc: &AnalysisDocument, exact: bool) {
    let Some(p) = &doc.pruned else { return };
    let (m, a, b) = (&doc.model, &doc.analysis, &p.analysis);
    let n = |e: &Exact| num(e, exact).to_string();
    o.push_str(&format!("Pruned: without {}\n", dropped_text(p, &m.variables)));
    for par in &b.params {
        o.push_str(&format!("  {} = {}\n", par.name, n(&par.value)));
    }
    o.push_str(&format!(
        "  Max|e_i| = {} (was {})   RMS = {} (was {})   e_max = {} (was {})\n",
        n(&b.max_residual.value),
        n(&a.max_residual.value),
        b.rms.decimal,
        a.rms.decimal,
        b.emax.value.decimal(),
        a.emax.value.decimal()
    ));
    let mut head: Vec<String> = m.variables.clone();
    head.extend(["threshold".into(), "band (all data)".into(), "band (pruned)".into(), "shrink".into()]);
    let mut rows = vec![head];
    let show = |bd: Option<&Band>| match bd {
        None => "-".to_string(),
        Some(bd) => {
            let (l, u) = band_ends(bd, exact);
            if bd.status == BandStatus::Ok {
                format!("[{l}, {u}]")
            } else {
                l
            }
        }
    };
    for (i, full) in a.bands.iter().enumerate() {
        let (pruned, shrink) = pruned_at(p, i, &full.point);
        for (i, t) in full.bands.iter().enumerate() {
            let mut row = coords(&full.point, &m.variables, &[]);
            row.push(t.threshold.label.clone());
            row.push(show(Some(&t.band)));
            row.push(show(pruned.and_then(|q| q.bands.get(i)).map(|t| &t.band)));
            row.push(shrink_cell(shrink, i));
            rows.push(row);
        }
    }
    o.push_str(&table(&rows, 2));
}

/// `[lo, hi]` of an envelope piece, `≈` marking an end that is an exact
/// enclosure of an irrational or unresolved switch point.
fn piece_range(p: &EnvelopePiece) -> String {
    let end = |x: &Exact, exact: bool| if exact { x.decimal() } else { format!("≈{}", x.decimal()) };
    format!("[{}, {}]", end(&p.from, p.from_exact), end(&p.to, p.to_exact))
}

/// The band as a function of the point and of the threshold.
pub(crate) fn function_text(
    o: &mut String,
    doc: &AnalysisDocument,
    f: &BandFunctionDocument,
    exact: bool,
    digits: usize,
) {
    let (m, a) = (&doc.model, &doc.analysis);
    if let Some(var) = m.variables.first().filter(|_| m.variables.len() == 1) {
        o.push_str(&format!(
            "Band as a function of {var} over [{}, {}]: each envelope piece is the model at one region vertex\n",
            f.range.from.decimal(), f.range.to.decimal()
        ));
        for (r, e) in a.regions.iter().zip(&f.envelopes) {
            o.push_str(&format!("  threshold {}:", threshold_label(&r.threshold, exact, digits)));
            if let Some(skip) = &e.skipped {
                o.push_str(&format!(" {skip}\n"));
                continue;
            }
            o.push('\n');
            for (name, chain) in [("upper", &e.upper), ("lower", &e.lower)] {
                for (i, p) in chain.iter().enumerate() {
                    let params: Vec<String> = m
                        .params
                        .iter()
                        .zip(&p.params)
                        .map(|(n, v)| format!("{n} = {}", num(v, exact)))
                        .collect();
                    o.push_str(&format!(
                        "    {:5}  {var} in {}  vertex {}: {}\n",
                        if i == 0 { name } else { "" },
                        piece_range(p),
                        p.vertex,
                        params.join(", ")
                    ));
                }
            }
        }
        o.push_str("  (breakpoints are exact unless marked ≈: then enclosed exactly to 2^-48 of the sampling step, enclosure in JSON)\n\n");
    }
    o.push_str("Band against the threshold e' from e_max to Max|e_i| (linear between the rows)\n");
    for c in &f.width_vs_threshold {
        o.push_str(&format!("  at {}:\n", point_label(&c.point, &m.variables)));
        let mut rows = vec![vec!["e'".to_string(), "lower".into(), "upper".into(), "width".into()]];
        for bp in &c.breakpoints {
            let b = &bp.band;
            rows.push(vec![
                num(&bp.value, exact).to_string(),
                b.lower.as_ref().map_or_else(|| "-inf".to_string(), |v| num(v, exact)),
                b.upper.as_ref().map_or_else(|| "+inf".to_string(), |v| num(v, exact)),
                b.width.as_ref().map_or_else(|| "inf".to_string(), |v| num(v, exact)),
            ]);
        }
        o.push_str(&table(&rows, 4));
    }
}
