//! Whole reports: one self-contained HTML file (inline SVG, inline CSS, no
//! scripts and no network resources), or Markdown with the SVG figures
//! written beside it.

use super::view::{band_ends, coords};
use super::{figures, Report};

/// Escapes text for HTML element content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(ch),
        }
    }
    o
}

/// An HTML table from a header and rows of plain text.
pub(crate) fn html_table(head: &[String], rows: &[Vec<String>]) -> String {
    let mut o = String::from("<table>\n<thead><tr>");
    for h in head {
        o.push_str(&format!("<th>{}</th>", esc(h)));
    }
    o.push_str("</tr></thead>\n<tbody>\n");
    for r in rows {
        o.push_str("<tr>");
        for c in r {
            o.push_str(&format!("<td>{}</td>", esc(c)));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody>\n</table>\n");
    o
}

/// The page around a body: title, inline style, nothing fetched.
pub(crate) fn page(title: &str, body: &str) -> String {
    let (top, bottom) = page_parts(title);
    format!("{top}{body}{bottom}")
}

/// What [`page`] writes before and after the body: for a body streamed
/// between them.
pub(crate) fn page_parts(title: &str) -> (String, String) {
    (
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n",
            esc(title)
        ),
        format!(
            "<footer>errband {} — exact values; decimals are correctly rounded views.</footer>\n</body>\n</html>\n",
            env!("CARGO_PKG_VERSION")
        ),
    )
}

const STYLE: &str = "body { font-family: sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { padding: 0.2em 0.7em; border-bottom: 1px solid #eee; text-align: right; font-variant-numeric: tabular-nums; }
th { border-bottom: 2px solid #999; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
pre { background: #f7f7f7; padding: 1em; overflow-x: auto; font-size: 0.85em; }
footer { margin-top: 3em; color: #777; font-size: 0.85em; }
";

#[cfg(feature = "cli")]
/// A whole report of a subcommand (`prune`, `plan`, `energy`, `barrier`,
/// `ms predict`): its headline, its charts inline and its full text report.
pub(crate) fn command_page(title: &str, headline: &str, charts: &[String], text: &str) -> String {
    let mut body = format!("<h1>{}</h1>\n", esc(title));
    if !headline.is_empty() {
        body.push_str(&format!("<p><strong>{}</strong></p>\n", esc(headline)));
    }
    for svg in charts {
        body.push_str(&format!("<figure class=\"plot-command\">\n{svg}\n</figure>\n"));
    }
    body.push_str(&format!("<h2>Full report</h2>\n<pre>{}</pre>\n", esc(text)));
    page(title, &body)
}

/// File names of the figures of a Markdown report `out.md`: `out-band.svg`, ….
pub(crate) fn figure_paths(md_path: &str) -> Vec<(&'static str, String)> {
    let stem = md_path.strip_suffix(".md").unwrap_or(md_path);
    ["band", "region", "residuals", "width"].iter().map(|k| (*k, format!("{stem}-{k}.svg"))).collect()
}

impl Report<'_> {
    /// The four figures, in report order: `(kind, caption, svg)`.
    fn figures(&self) -> Vec<(&'static str, String, String)> {
        vec![
            (
                "band",
                "Data, fitted model and the band per threshold (shaded: extrapolation)".into(),
                figures::band(self),
            ),
            ("region", "Δc region per threshold, vertices marked".into(), figures::region(self)),
            (
                "residuals",
                "Residuals in the fit's scale (weighted: w·e_i; otherwise e_i with ±e_max)".into(),
                figures::residuals(self),
            ),
            (
                "width",
                "Band width against the threshold, from e_max to Max|e_i|".into(),
                figures::width(self),
            ),
        ]
    }

    /// One self-contained HTML file with the whole analysis: its document
    /// as tables, the figures and the text report.
    pub fn html(&self) -> String {
        let doc = self.document();
        let (m, a) = (&doc.model, &doc.analysis);
        let mut b = String::new();
        b.push_str(&format!("<h1>errband: {} with {}</h1>\n", esc(&m.file), esc(&doc.data.info.file)));
        b.push_str(&format!(
            "<p>Model <code>{}({}) = {}</code>; {} measurements at {} distinct points.</p>\n",
            esc(&m.function),
            esc(&m.variables.join(", ")),
            esc(&m.body),
            doc.data.info.measurements,
            doc.data.info.points
        ));
        if let Some(ans) = super::answer::Answer::of_document(&doc) {
            b.push_str("<h2>Answer</h2>\n<ul class=\"answer\">\n");
            for l in &ans.points {
                b.push_str(&format!("<li><strong>{}</strong></li>\n", esc(l)));
            }
            for l in &ans.notes {
                b.push_str(&format!("<li>{}</li>\n", esc(l)));
            }
            b.push_str("</ul>\n");
        }
        let params: Vec<Vec<String>> =
            a.params.iter().map(|p| vec![p.name.clone(), p.value.decimal(), p.value.exact()]).collect();
        b.push_str("<h2>Parameters</h2>\n");
        b.push_str(&html_table(&["parameter".into(), "value".into(), "exact".into()], &params));
        b.push_str(&format!(
            "<p>Max|e<sub>i</sub>| = {}, RMS = {}, e<sub>max</sub> = {} (exact {}).</p>\n",
            esc(&a.max_residual.value.decimal()),
            esc(&a.rms.decimal),
            esc(&a.emax.value.decimal()),
            esc(&a.emax.value.exact())
        ));
        b.push_str("<h2>Bands</h2>\n<p>* marks coordinates outside the range of the data.</p>\n");
        let mut head: Vec<String> = m.variables.clone();
        head.push(format!("{}(C,x)", m.function));
        for r in &a.regions {
            head.extend([format!("{}: lower", r.threshold.label), "upper".into()]);
        }
        let rows: Vec<Vec<String>> = a
            .bands
            .iter()
            .map(|p| {
                let mut row = coords(&p.point, &m.variables, &p.beyond);
                row.push(p.model.decimal());
                for t in &p.bands {
                    let (l, u) = band_ends(&t.band, self.exact);
                    row.extend([l, u]);
                }
                row
            })
            .collect();
        b.push_str(&html_table(&head, &rows));
        b.push_str("<h2>Figures</h2>\n");
        for (kind, caption, svg) in self.figures() {
            b.push_str(&format!(
                "<figure class=\"plot-{kind}\">\n{svg}\n<figcaption>{}</figcaption>\n</figure>\n",
                esc(&caption)
            ));
        }
        b.push_str("<h2>Full report</h2>\n<pre>");
        b.push_str(&esc(&self.text()));
        b.push_str("</pre>\n");
        page(&format!("errband: {}", m.file), &b)
    }

    /// Markdown with figure links, and the figures to write beside it
    /// (`(path, svg)`, named after `md_path`).
    pub fn markdown_with_figures(&self, md_path: &str) -> (String, Vec<(String, String)>) {
        let doc = self.document();
        let mut md = self.markdown_of(&doc);
        let paths = figure_paths(md_path);
        let mut files = Vec::new();
        md.push_str("\n## Figures\n\n");
        for ((kind, caption, svg), (_, path)) in self.figures().into_iter().zip(paths) {
            let name = std::path::Path::new(&path)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.clone());
            md.push_str(&format!("![{caption}]({name})\n\n"));
            let _ = kind;
            files.push((path, svg));
        }
        if let Some(f) = &doc.band_function {
            let mut t = String::new();
            super::text::function_text(&mut t, &doc, f, self.exact, self.digits);
            md.push_str("## Band as a function\n\n```text\n");
            md.push_str(&t);
            md.push_str("```\n");
        }
        (md, files)
    }
}
