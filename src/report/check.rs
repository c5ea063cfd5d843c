//! Renderings of `errband check` ([`crate::check::CheckReport`]): text,
//! JSON (a typed document), JUnit XML (one test case per point and
//! series), GitHub workflow annotations and Markdown (a step summary).
//! Every decimal is a correctly rounded view of an exact value.

use crate::check::{CheckReport, Judged, Verdict};
use crate::document::check::percent;
use crate::num::{fmt_fraction, fmt_sig, Rat};

/// A value in a report for reading: correctly rounded to `digits`
/// significant digits, or the exact fraction when `digits` is 0
/// (`--exact`).
fn show(x: &Rat, digits: usize) -> String {
    if digits == 0 {
        fmt_fraction(x)
    } else {
        fmt_sig(x, digits)
    }
}

/// The point of a result, `p = 110`.
fn point_of(r: &CheckReport, j: &Judged) -> String {
    r.expected[j.series].show_point(&j.measurement.x)
}

/// The value with the series' unit.
fn with_unit(r: &CheckReport, j: &Judged, v: &str) -> String {
    match &r.expected[j.series].unit {
        Some(u) => format!("{v} {}", crate::units::display(u)),
        None => v.to_string(),
    }
}

/// The band as `[lo, hi]`.
fn band_text(j: &Judged, digits: usize) -> String {
    match &j.band {
        Some(b) => format!(
            "[{}{}, {}]",
            b.lower.as_ref().map_or("-inf".into(), |v| show(v, digits)),
            if b.clipped { super::CLIPPED } else { "" },
            b.upper.as_ref().map_or("+inf".into(), |v| show(v, digits))
        ),
        None => "no band".into(),
    }
}

/// One sentence about a result: `p = 120: T = 667.5 s is above the band
/// [480, 600] s by +11.3 % of its upper edge`.
fn sentence(r: &CheckReport, j: &Judged, digits: usize) -> String {
    let e = &r.expected[j.series];
    let measured = with_unit(r, j, &show(&j.measurement.y, digits));
    let band = with_unit(r, j, &band_text(j, digits));
    let how = match (j.verdict, &j.deviation) {
        (Verdict::Inside, _) => format!("inside the recommended band {band}"),
        (Verdict::Above, Some(d)) => {
            format!("above the recommended band {band} by {} of its upper edge", percent(d))
        }
        (Verdict::Below, Some(d)) => {
            format!("below the recommended band {band} by {} of its lower edge", percent(d))
        }
        (Verdict::Above, None) => format!("above the recommended band {band}"),
        (Verdict::Below, None) => format!("below the recommended band {band}"),
        (Verdict::NoBand, _) => {
            format!("not checked: no recommended band ({})", j.refusal.as_deref().unwrap_or("refused"))
        }
    };
    let note = j.measurement.note.as_ref().map(|n| format!(" ({n})")).unwrap_or_default();
    format!("{}: {} = {measured}{note} is {how}", point_of(r, j), e.func)
        .replace(" is not checked", ": not checked")
}

fn summary_line(r: &CheckReport) -> String {
    let c = r.counts();
    let series = if r.expected.len() > 1 {
        let n = r.results.iter().map(|j| j.series).collect::<std::collections::BTreeSet<_>>().len();
        format!("{n} series, ")
    } else {
        String::new()
    };
    format!(
        "{series}{} measurement{}: {} inside, {} above, {} below, {} without a band; {}",
        c.measurements,
        if c.measurements == 1 { "" } else { "s" },
        c.inside,
        c.above,
        c.below,
        c.no_band,
        if r.failed() {
            format!("the check fails (--fail-on {})", r.fail_on.name())
        } else {
            format!("the check passes (--fail-on {})", r.fail_on.name())
        }
    )
}

/// The results grouped by series, in order.
fn by_series(r: &CheckReport) -> Vec<(usize, Vec<&Judged>)> {
    let mut out: Vec<(usize, Vec<&Judged>)> = Vec::new();
    for j in &r.results {
        match out.iter_mut().find(|(s, _)| *s == j.series) {
            Some((_, v)) => v.push(j),
            None => out.push((j.series, vec![j])),
        }
    }
    out
}

/// The text report (`digits` 0: exact fractions, as in the other
/// renderings for reading).
pub fn text(r: &CheckReport, digits: usize) -> String {
    let mut o = String::new();
    for (s, list) in by_series(r) {
        let e = &r.expected[s];
        let name = e.name();
        o.push_str(&format!(
            "{}{}({}) = {} (the recommended next-measurement band)\n",
            if name.is_empty() { String::new() } else { format!("{name}: ") },
            e.func,
            e.vars.join(", "),
            e.form
        ));
        for j in list {
            let mark = match (j.verdict, r.fails(j)) {
                (_, true) => "FAIL",
                (Verdict::Inside, _) => "ok",
                _ => "note",
            };
            o.push_str(&format!(
                "  {mark:<4} {}  ({}:{})\n",
                sentence(r, j, digits),
                j.file,
                j.measurement.line
            ));
        }
    }
    o.push_str(&format!("Summary: {}\n", summary_line(r)));
    o
}

/// Text for an XML attribute or element: the five special characters
/// escaped, and control characters XML 1.0 cannot hold replaced.
fn xml(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\n' | '\t' => o.push(c),
            c if c.is_control() => o.push('\u{FFFD}'),
            c => o.push(c),
        }
    }
    o
}

/// JUnit XML: a test suite per series, a test case per point; a case fails
/// when a measurement at its point fails the check, and is skipped when no
/// band is recommended there.
pub fn junit(r: &CheckReport, digits: usize) -> String {
    let mut suites = String::new();
    let (mut tests, mut failures) = (0usize, 0usize);
    for (s, list) in by_series(r) {
        let e = &r.expected[s];
        let name = if e.name().is_empty() { format!("{}({})", e.func, e.vars.join(", ")) } else { e.name() };
        // Points in order of first appearance.
        let mut points: Vec<&Vec<Rat>> = Vec::new();
        for j in &list {
            if !points.contains(&&j.measurement.x) {
                points.push(&j.measurement.x);
            }
        }
        let mut cases = String::new();
        let (mut fails, mut skipped) = (0usize, 0usize);
        for x in &points {
            let at: Vec<&&Judged> = list.iter().filter(|j| &j.measurement.x == *x).collect();
            let point = e.show_point(x);
            let failing: Vec<&&Judged> = at.iter().copied().filter(|j| r.fails(j)).collect();
            cases.push_str(&format!(
                "    <testcase name=\"{}\" classname=\"{}\">\n",
                xml(&point),
                xml(&format!("errband.check.{name}"))
            ));
            if let Some(first) = failing.first() {
                fails += 1;
                let body: Vec<String> = failing
                    .iter()
                    .map(|j| format!("{} ({}:{})", sentence(r, j, digits), j.file, j.measurement.line))
                    .collect();
                cases.push_str(&format!(
                    "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                    first.verdict.word(),
                    xml(&format!(
                        "{point}: {} of {} measurement{} outside the recommended band",
                        failing.len(),
                        at.len(),
                        if at.len() == 1 { "" } else { "s" }
                    )),
                    xml(&body.join("\n"))
                ));
            } else if at.iter().all(|j| j.verdict == Verdict::NoBand) {
                skipped += 1;
                cases.push_str(&format!(
                    "      <skipped message=\"{}\"/>\n",
                    xml(&format!(
                        "{point}: no recommended band ({})",
                        at[0].refusal.as_deref().unwrap_or("refused")
                    ))
                ));
            }
            let out: Vec<String> = at.iter().map(|j| sentence(r, j, digits)).collect();
            cases.push_str(&format!("      <system-out>{}</system-out>\n", xml(&out.join("\n"))));
            cases.push_str("    </testcase>\n");
        }
        tests += points.len();
        failures += fails;
        suites.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{fails}\" errors=\"0\" skipped=\"{skipped}\">\n{cases}  </testsuite>\n",
            xml(&name),
            points.len()
        ));
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"errband check\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">\n{suites}</testsuites>\n"
    )
}

/// A workflow command's message: `%`, CR and LF escaped as GitHub reads them.
fn gh_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A workflow command's property: also `:` and `,`.
fn gh_property(s: &str) -> String {
    gh_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub workflow annotations: `::error` for each measurement that fails
/// the check, `::warning` for one outside its band that does not, and one
/// without a band, at the file and line of the measurement; then the
/// summary line.
pub fn github(r: &CheckReport, digits: usize) -> String {
    let mut o = String::new();
    for j in &r.results {
        let level = match (r.fails(j), j.verdict) {
            (true, _) => "error",
            (false, Verdict::Inside) => continue,
            (false, _) => "warning",
        };
        let name = r.expected[j.series].name();
        let title =
            if name.is_empty() { "errband check".to_string() } else { format!("errband check: {name}") };
        o.push_str(&format!(
            "::{level} file={},line={},title={}::{}\n",
            gh_property(&j.file),
            j.measurement.line,
            gh_property(&title),
            gh_data(&sentence(r, j, digits))
        ));
    }
    o.push_str(&format!("errband check: {}\n", summary_line(r)));
    o
}

/// A Markdown table of every result, with the summary line: the GitHub
/// step summary, and `--format md`.
pub fn markdown(r: &CheckReport, digits: usize) -> String {
    let many = r.expected.len() > 1;
    let mut o = String::from("### errband check\n\n");
    o.push_str(&format!("{}\n\n", summary_line(r)));
    o.push_str(if many {
        "| series | point | measured | band | verdict | where |\n|---|---|---|---|---|---|\n"
    } else {
        "| point | measured | band | verdict | where |\n|---|---|---|---|---|\n"
    });
    for j in &r.results {
        let verdict = match (&j.deviation, r.fails(j)) {
            (Some(d), true) => format!("**{} {}** (fails)", j.verdict.word(), percent(d)),
            (Some(d), false) => format!("{} {}", j.verdict.word(), percent(d)),
            (None, true) => format!("**{}** (fails)", j.verdict.word()),
            (None, false) => j.verdict.word().to_string(),
        };
        let cells = [
            point_of(r, j),
            with_unit(r, j, &show(&j.measurement.y, digits)),
            with_unit(r, j, &band_text(j, digits)),
            verdict,
            format!("{}:{}", j.file, j.measurement.line),
        ];
        // The verdict is errband's own Markdown (bold when it fails).
        let mut row: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| if i == 3 { c.clone() } else { super::md_escape(c) })
            .collect();
        if many {
            row.insert(0, super::md_escape(&r.expected[j.series].name()));
        }
        o.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    o
}

/// A Python string literal.
fn py_str(s: &str) -> String {
    let mut o = String::from("'");
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '\'' => o.push_str("\\'"),
            '\n' => o.push_str("\\n"),
            c if c.is_control() => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('\'');
    o
}

/// Significant digits of the numbers in a ReFrame file: enough that the
/// value times one plus a fraction gives back the band's edge to 12
/// significant digits (each is off by at most half a unit in the 20th).
const REFRAME_DIGITS: usize = 20;

/// `--export reframe=FILE`: a Python dict, per point, of ReFrame's
/// `reference` entry for the model's function: `(value, lower, upper,
/// unit)`, the edges of the recommended band as fractions of the value
/// (`None` where the band has no edge). Points without a band or without a
/// positive value are listed as comments.
pub fn reframe(
    model: &crate::model::Model,
    data_file: &str,
    r: &crate::trust::Recommendation,
    points: &[&crate::trust::Recommended],
) -> String {
    let num = |x: &Rat| fmt_sig(x, REFRAME_DIGITS);
    let unit = model.units.get(&model.func).map_or("", String::as_str);
    let mut o = format!(
        "# ReFrame performance references written by errband {}: the recommended band of the\n# next measurement of {}({}) = {}, fitted to {}.\n# Each entry is (value, lower, upper, unit) with lower and upper as fractions of the\n# value, as ReFrame's `reference` takes them; a test picks its scale's entry, e.g.\n#     self.reference = REFERENCES[{}]\nREFERENCES = {{\n",
        crate::VERSION,
        model.func,
        model.vars.join(", "),
        r.form,
        data_file.replace('\n', " "),
        points.first().map_or_else(|| py_str("p=1"), |p| py_str(&key(model, &p.x)))
    );
    for p in points {
        let k = py_str(&key(model, &p.x));
        match crate::check::reference(p) {
            Some(f) => o.push_str(&format!(
                "    {k}: {{'*': {{{}: ({}, {}, {}, {})}}}},\n",
                py_str(&model.func),
                num(&f.value),
                f.lower.as_ref().map_or("None".into(), num),
                f.upper.as_ref().map_or("None".into(), num),
                py_str(unit)
            )),
            None => o.push_str(&format!(
                "    # {k}: no reference ({})\n",
                p.refusal.map_or("no positive prediction", |w| w.text())
            )),
        }
    }
    o.push_str("}\n");
    o
}

/// `p=110,n=4`: a point as a dictionary key.
fn key(model: &crate::model::Model, x: &[Rat]) -> String {
    model
        .vars
        .iter()
        .zip(x)
        .map(|(v, x)| format!("{v}={}", crate::model::show_value(x)))
        .collect::<Vec<_>>()
        .join(",")
}
