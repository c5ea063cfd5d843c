//! Markdown of one analysis, rendered from its document
//! ([`AnalysisDocument`]) and its residual rows: the same sections as the
//! text report, as tables.

use super::tables::{md_escape, md_row, md_table_head};
use super::view::{any_clipped, band_ends, coords, dropped_text, pruned_at, shrink_cell, threshold_label};
use crate::document::analysis::{AnalysisDocument, FitDocument, RegionShape, ResidualRow};

impl super::Report<'_> {
    /// Markdown: the same sections as the text report, as tables,
    /// rendered from the analysis' document.
    pub fn markdown(&self) -> String {
        self.markdown_of(&self.document())
    }

    /// [`Report::markdown`] of this report's document `doc`, made once by
    /// the caller.
    pub(crate) fn markdown_of(&self, doc: &AnalysisDocument) -> String {
        let (m, digits) = (self.model, self.digits);
        let mut rows =
            (0..self.data.len()).map(|i| ResidualRow::new(m, self.analysis, self.data, i, i + 1, digits));
        markdown_of(doc, &mut rows, self.exact, digits)
    }
}

/// The Markdown of `doc`, whose residual table is `residuals` (one row per
/// measurement, in the order of the data).
/// `exact`: band ends, absolute thresholds and the family's intervals as
/// fractions (`--exact`); `digits`: the significant digits of percentages
/// and thresholds (`--decimal`).
pub(crate) fn markdown_of(
    doc: &AnalysisDocument,
    residuals: &mut dyn Iterator<Item = ResidualRow>,
    exact: bool,
    digits: usize,
) -> String {
    let m = &doc.model;
    let a = &doc.analysis;
    let mut o = String::new();
    o.push_str(&format!("# errband: {} with {}\n\n", md_escape(&m.file), md_escape(&doc.data.info.file)));
    if let Some(ans) = super::answer::Answer::of_document(doc) {
        o.push_str("## Answer\n\n");
        for l in ans.points.iter().chain(&ans.notes) {
            o.push_str(&format!("- {}\n", md_escape(l)));
        }
        o.push('\n');
    }
    o.push_str(&format!(
        "Model: `{}({}) = {}` — {} measurements at {} distinct points.\n\n",
        m.function,
        m.variables.join(", "),
        m.body.replace('`', "'"),
        doc.data.info.measurements,
        doc.data.info.points
    ));
    // The data's warnings, as the text report gives them under `Data`.
    for w in &doc.data.warnings {
        o.push_str(&format!("> warning: {}\n\n", md_escape(w)));
    }
    o.push_str("## Parameters\n\n| parameter | value | exact |\n|---|---|---|\n");
    for p in &a.params {
        o.push_str(&format!("| {} | {} | {} |\n", md_escape(&p.name), p.value.decimal(), p.value.exact()));
    }
    o.push_str(&format!(
        "\nMax|e_i| = {}, RMS = {}, e_max = {} (exact {}){}.\n\n",
        a.max_residual.value.decimal(),
        a.rms.decimal,
        a.emax.value.decimal(),
        a.emax.value.exact(),
        a.remax.as_ref().map_or(String::new(), |r| format!(
            ", remax = {} % (exact {})",
            super::view::pct(r, digits, ""),
            r.exact()
        ))
    ));
    o.push_str("## Residuals\n\n");
    let mut head = vec!["row".to_string()];
    head.extend(m.variables.iter().cloned());
    head.extend(["d_i".into(), "T(C,x_i)".into(), "e_i".into()]);
    o.push_str(&md_table_head(&head));
    for r in residuals {
        let mut row = vec![r.row.to_string()];
        row.extend(coords(&r.point, &m.variables, &[]));
        row.extend([r.measured.decimal(), r.model.decimal(), r.residual.decimal()]);
        o.push_str(&md_row(&row));
    }
    o.push_str("\n## Regions\n\n");
    for r in &a.regions {
        o.push_str(&format!("- threshold `{}`: ", md_escape(&threshold_label(&r.threshold, exact, digits))));
        match (r.shape, &r.unlisted) {
            (RegionShape::Empty, _) => o.push_str(&format!("empty (e_max = {})\n", a.emax.value.decimal())),
            (RegionShape::Untrusted, _) => {
                o.push_str("no trustworthy band: the model misses its own data by too much\n")
            }
            (RegionShape::Unlisted, Some(u)) if u.limit == "work" => o.push_str(&format!(
                "not listed (listing it needs more work than --max-vertices {} allows); bands from exact LPs\n",
                u.max_vertices
            )),
            (RegionShape::Unlisted, u) => o.push_str(&format!(
                "not listed (its vertex enumeration passed --max-vertices {}, reaching {}); bands from exact LPs\n",
                u.as_ref().map_or(0, |u| u.max_vertices),
                u.as_ref().map_or(0, |u| u.vertices_reached)
            )),
            (shape, _) => {
                let v: Vec<String> = r
                    .vertices
                    .iter()
                    .map(|v| {
                        let xs: Vec<String> =
                            m.perturbations.iter().filter_map(|d| v.get(d)).map(crate::document::Exact::decimal).collect();
                        format!("({})", xs.join(", "))
                    })
                    .collect();
                let unb = if matches!(shape, RegionShape::Unbounded) { " (unbounded)" } else { "" };
                let n = r.vertices.len();
                o.push_str(&format!(
                    "{n} vert{}{unb}: {}\n",
                    if n == 1 { "ex" } else { "ices" },
                    v.join(", ")
                ));
            }
        }
    }
    o.push_str("\n## Bands\n\n`*` marks coordinates outside the range of the data (extrapolation).\n\n");
    let mut head: Vec<String> = m.variables.clone();
    head.push("T(C,x)".into());
    for r in &a.regions {
        let t = &r.threshold.label;
        head.extend([
            format!("{t} lower"),
            format!("{t} upper"),
            format!("{t} new measurement lower"),
            format!("{t} new measurement upper"),
        ]);
    }
    o.push_str(&md_table_head(&head));
    for p in &a.bands {
        let mut row = coords(&p.point, &m.variables, &p.beyond);
        row.push(p.model.decimal());
        for t in &p.bands {
            for b in [&t.band, &t.measurement_band] {
                let (l, u) = band_ends(b, exact);
                row.extend([l, u]);
            }
        }
        o.push_str(&md_row(&row));
    }
    if any_clipped(a.bands.iter().flat_map(|p| &p.bands).flat_map(|t| [&t.band, &t.measurement_band])) {
        o.push_str(&format!("\n{}\n", md_escape(super::CLIPPED_NOTE)));
    }
    if let Some(p) = &doc.pruned {
        o.push_str(&format!("\n## Pruned: without {}\n\n", md_escape(&dropped_text(p, &m.variables))));
        let mut head: Vec<String> = m.variables.clone();
        head.extend(["threshold".into(), "width (all)".into(), "width (pruned)".into(), "shrink".into()]);
        o.push_str(&md_table_head(&head));
        for (i, full) in a.bands.iter().enumerate() {
            let (pruned, shrink) = pruned_at(p, i, &full.point);
            for (i, t) in full.bands.iter().enumerate() {
                let width = |b: Option<&crate::document::Band>| {
                    b.and_then(|b| b.width.as_ref()).map_or("-".into(), |w| w.decimal())
                };
                let mut row = coords(&full.point, &m.variables, &[]);
                row.extend([
                    t.threshold.label.clone(),
                    width(Some(&t.band)),
                    width(pruned.and_then(|pb| pb.bands.get(i)).map(|t| &t.band)),
                    shrink_cell(shrink, i),
                ]);
                o.push_str(&md_row(&row));
            }
        }
    }
    hint(&mut o, a);
    if let Some(f) = &doc.family {
        super::family::family_markdown(&mut o, f, m, digits, exact);
    }
    if let Some(h) = &doc.holdout {
        super::backtest::backtest_markdown(&mut o, h);
    }
    o
}

/// The minimax refit, when it differs from the fit.
fn hint(o: &mut String, a: &FitDocument) {
    if let Some(h) = &a.hint {
        let vals: Vec<String> =
            h.params.iter().map(|p| format!("{} = {}", p.name, p.value.decimal())).collect();
        o.push_str(&format!(
            "\n**Hint:** RMS > e_max; the minimax point {} has Max|e_i| = e_max.\n",
            vals.join(", ")
        ));
    }
}
