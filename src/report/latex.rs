//! LaTeX (booktabs) tables for papers: the band table of an analysis and
//! the ranked table of a pruning comparison share one table writer.

use super::view::{any_clipped, band_ends, threshold_label};
use super::Report;
use crate::document::analysis::AnalysisDocument;

/// Escapes text for LaTeX outside math mode.
pub(crate) fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' => o.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                o.push('\\');
                o.push(ch);
            }
            '~' => o.push_str("\\textasciitilde{}"),
            '^' => o.push_str("\\textasciicircum{}"),
            'Δ' => o.push_str("$\\Delta$"),
            '×' => o.push_str("$\\times$"),
            _ => o.push(ch),
        }
    }
    o
}

/// A decimal as printed by errband (`1.93098e-7`, `-inf`) in math mode.
pub(crate) fn number(s: &str) -> String {
    match s {
        "+inf" | "inf" => return "$+\\infty$".into(),
        "-inf" => return "$-\\infty$".into(),
        _ => {}
    }
    // A lower end bounded by zero (Band::positive) keeps its mark.
    if let Some(v) = s.strip_suffix(super::CLIPPED) {
        return format!("{}$^{{\\dagger}}$", number(v));
    }
    match s.split_once('e') {
        Some((m, e)) if m.parse::<f64>().is_ok() => {
            let e = e.trim_start_matches('+');
            format!("${m}\\times 10^{{{e}}}$")
        }
        _ if s.parse::<f64>().is_ok() => format!("${s}$"),
        _ => escape(s),
    }
}

/// One booktabs table. `groups` are `(title, columns spanned)` over the
/// header row, starting after `lead` leading columns; cells are LaTeX already.
pub(crate) fn table(
    caption: &str,
    label: &str,
    lead: usize,
    groups: &[(String, usize)],
    head: &[String],
    rows: &[Vec<String>],
) -> String {
    let ncol = head.len();
    let mut o = String::new();
    o.push_str("% Requires \\usepackage{booktabs}.\n\\begin{table}[tbp]\n  \\centering\n");
    o.push_str(&format!("  \\caption{{{caption}}}\n  \\label{{{label}}}\n"));
    o.push_str(&format!("  \\begin{{tabular}}{{{}}}\n    \\toprule\n", "r".repeat(ncol)));
    if !groups.is_empty() {
        let mut cells: Vec<String> = vec![String::new(); lead];
        let mut rules = Vec::new();
        let mut col = lead + 1;
        for (title, span) in groups {
            cells.push(format!("\\multicolumn{{{span}}}{{c}}{{{title}}}"));
            rules.push(format!("\\cmidrule(lr){{{col}-{}}}", col + span - 1));
            col += span;
        }
        o.push_str(&format!("    {} \\\\\n    {}\n", cells.join(" & "), rules.join(" ")));
    }
    o.push_str(&format!("    {} \\\\\n    \\midrule\n", head.join(" & ")));
    for r in rows {
        o.push_str(&format!("    {} \\\\\n", r.join(" & ")));
    }
    o.push_str("    \\bottomrule\n  \\end{tabular}\n\\end{table}\n");
    o
}

impl Report<'_> {
    /// The band table as a LaTeX booktabs table, rendered from the
    /// analysis' document ([`crate::document::analysis::AnalysisDocument`]),
    /// as every renderer should.
    pub fn latex(&self) -> String {
        latex_of(&self.document(), self.exact, self.digits)
    }
}

/// The band table of an analysis document; `exact`: fractions instead of
/// decimals for the band ends and thresholds (`--exact`); `digits`: the
/// significant digits of a percentage (`--decimal`).
pub(crate) fn latex_of(doc: &AnalysisDocument, exact: bool, digits: usize) -> String {
    let m = &doc.model;
    let a = &doc.analysis;
    let vars: Vec<String> = m.variables.iter().map(|v| format!("${}$", escape(v))).collect();
    let f = format!(
        "${}(C, {})$",
        escape(&m.function),
        m.variables.iter().map(|v| escape(v)).collect::<Vec<_>>().join(", ")
    );
    let mut head = vars.clone();
    head.push(f.clone());
    let mut groups = Vec::new();
    for r in &a.regions {
        groups.push((
            escape(&threshold_label(&r.threshold, exact, digits)).replace("e\\_max", "$e_{\\max}$"),
            2,
        ));
        head.extend(["lower".to_string(), "upper".to_string()]);
    }
    let rows: Vec<Vec<String>> = a
        .bands
        .iter()
        .map(|p| {
            let mut row: Vec<String> = m
                .variables
                .iter()
                .map(|v| {
                    let value = p.point.get(v).map_or("", String::as_str);
                    format!("${value}{}$", if p.beyond.contains(v) { "^{*}" } else { "" })
                })
                .collect();
            row.push(number(&p.model.decimal()));
            for t in &p.bands {
                let (l, u) = band_ends(&t.band, exact);
                row.extend([number(&l), number(&u)]);
            }
            row
        })
        .collect();
    // A band bounded by zero, or none because all of it lies below zero.
    let clipped =
        any_clipped(a.bands.iter().flat_map(|p| &p.bands).flat_map(|t| [&t.band, &t.measurement_band]));
    let units = m.units.get(&m.function).map(|u| format!(" in {}", escape(u))).unwrap_or_default();
    let caption = format!(
        "Prediction bands of {f}{units} from {} ({} measurements): the extremes of the model over the parameter region allowed by each residual threshold; $e_{{\\max}} = {}$. Points marked $^*$ are extrapolated.{} Exact values by errband {}.",
        escape(&doc.data.info.file),
        doc.data.info.measurements,
        a.emax.value.decimal(),
        if clipped {
            " A lower end marked $^\\dagger$ reached below zero and is bounded by zero (run times are positive)."
        } else {
            ""
        },
        doc.header.errband
    );
    let mut header = format!(
        "% errband {}: {} with {}\n",
        doc.header.errband,
        m.file.replace(char::is_control, " "),
        doc.data.info.file.replace(char::is_control, " ")
    );
    // The data's warnings as comments: seen by whoever opens the file,
    // never typeset into the paper.
    for w in &doc.data.warnings {
        header.push_str(&format!("% warning: {}\n", w.replace(char::is_control, " ")));
    }
    header + &table(&caption, "tab:errband-bands", vars.len() + 1, &groups, &head, &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_text_escape() {
        assert_eq!(number("1.93098e-7"), "$1.93098\\times 10^{-7}$");
        assert_eq!(number("560.236"), "$560.236$");
        assert_eq!(number("-inf"), "$-\\infty$");
        assert_eq!(number("0†"), "$0$$^{\\dagger}$");
        assert_eq!(
            escape("a_b & 50% #1 {x} ~^\\"),
            "a\\_b \\& 50\\% \\#1 \\{x\\} \\textasciitilde{}\\textasciicircum{}\\textbackslash{}"
        );
    }
}
