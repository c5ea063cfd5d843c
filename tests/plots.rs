//! The plots' legends never cover data: each SVG errband writes is parsed,
//! and its legend box must not overlap, inside the plot area, any data
//! marker (measurements, region vertices, the markers of marked lines) or
//! any band edge or line. Checked on the bundled examples: the HPL band plot
//! (5 series), with a dropped point (8 series), the width plot (8 lines of
//! near-equal values), the region and residual plots, the master/slave and
//! the barrier plots. Also: the colour-blind-safe palette, thresholds rounded
//! in legend labels, and bands that leave the axis marked at its edge.

#[path = "common/cli.rs"]
mod cli;

use quick_xml::events::{BytesStart, Event};
use std::path::PathBuf;

/// An axis-aligned box in SVG user units (y grows downwards).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rect {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Rect {
    fn intersect(&self, o: &Rect) -> Option<Rect> {
        let r = Rect {
            x0: self.x0.max(o.x0),
            y0: self.y0.max(o.y0),
            x1: self.x1.min(o.x1),
            y1: self.y1.min(o.y1),
        };
        (r.x0 < r.x1 && r.y0 < r.y1).then_some(r)
    }
    fn around(pts: &[(f64, f64)]) -> Option<Rect> {
        let first = pts.first()?;
        Some(pts.iter().fold(Rect { x0: first.0, y0: first.1, x1: first.0, y1: first.1 }, |r, p| Rect {
            x0: r.x0.min(p.0),
            y0: r.y0.min(p.1),
            x1: r.x1.max(p.0),
            y1: r.y1.max(p.1),
        }))
    }
}

/// What one chart of an SVG draws, in the SVG's coordinates.
#[derive(Debug, Default)]
struct Drawing {
    plot: Option<Rect>,
    legends: Vec<Rect>,
    /// Bounding boxes of data markers.
    markers: Vec<(String, Rect)>,
    /// Polylines: lines and band edges.
    lines: Vec<(String, Vec<(f64, f64)>)>,
    clip_marks: usize,
    clip_labels: Vec<String>,
    legend_texts: Vec<String>,
}

fn attr(e: &BytesStart<'_>, key: &str) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.as_ref() == key)
        .and_then(|a| a.normalized_value(quick_xml::XmlVersion::default()).ok().map(|v| v.into_owned()))
}

fn f(e: &BytesStart<'_>, key: &str) -> f64 {
    attr(e, key)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("<{:?}> without a numeric {key}", e.name()))
}

/// The numbers of a `points` attribute or a path's `d` (commands dropped), in pairs.
fn pairs(text: &str) -> Vec<(f64, f64)> {
    let nums: Vec<f64> = text
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e'))
        .filter(|t| !t.is_empty())
        .filter_map(|t| t.parse().ok())
        .collect();
    nums.chunks_exact(2).map(|c| (c[0], c[1])).collect()
}

/// Parses an SVG with one chart (translations of groups are applied).
fn parse(svg: &str) -> Drawing {
    let mut r = quick_xml::Reader::from_str(svg);
    let mut d = Drawing::default();
    // Offsets of open groups, and whether we are inside a clipPath, a legend, a clip label.
    // Offset and series name (`data-series` of a group) of each open group.
    let mut offsets: Vec<(f64, f64, String)> = vec![(0.0, 0.0, String::new())];
    let (mut in_clip, mut in_legend, mut in_clip_label) = (false, false, false);
    let mut legend_depth = 0usize;
    loop {
        let ev = r.read_event().expect("well-formed SVG");
        let (e, empty) = match &ev {
            Event::Start(e) => (e.clone(), false),
            Event::Empty(e) => (e.clone(), true),
            Event::End(e) => {
                let name = e.name();
                let tag: &str = name.as_ref();
                match tag {
                    "g" => {
                        offsets.pop();
                        if in_legend {
                            legend_depth -= 1;
                            in_legend = legend_depth > 0;
                        }
                    }
                    "clipPath" => in_clip = false,
                    "text" => in_clip_label = false,
                    _ => {}
                }
                continue;
            }
            Event::Text(t) => {
                let t: &str = t.as_ref();
                let t = t.to_string();
                if in_clip_label {
                    d.clip_labels.push(t);
                } else if in_legend {
                    d.legend_texts.push(t);
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let (ox, oy, group_series) = offsets.last().cloned().expect("the root offset");
        let class = attr(&e, "class").unwrap_or_default();
        let series = attr(&e, "data-series").unwrap_or(group_series);
        let name = e.name();
        let tag: &str = name.as_ref();
        match tag {
            "g" => {
                let (mut dx, mut dy) = (ox, oy);
                if let Some(t) = attr(&e, "transform") {
                    let p = pairs(t.trim_start_matches("translate"));
                    dx += p[0].0;
                    dy += p[0].1;
                }
                if class == "legend" || in_legend {
                    in_legend = true;
                    legend_depth += 1;
                }
                if !empty {
                    offsets.push((dx, dy, series));
                }
            }
            "clipPath" => in_clip = !empty,
            "rect" if in_clip => {
                let (x, y) = (f(&e, "x") + ox, f(&e, "y") + oy);
                d.plot = Some(Rect { x0: x, y0: y, x1: x + f(&e, "width"), y1: y + f(&e, "height") });
            }
            "rect" if class == "legend-box" => {
                let (x, y) = (f(&e, "x") + ox, f(&e, "y") + oy);
                d.legends.push(Rect { x0: x, y0: y, x1: x + f(&e, "width"), y1: y + f(&e, "height") });
            }
            _ if in_legend => {}
            "circle" if matches!(class.as_str(), "point" | "vertex" | "stem-head") => {
                let (x, y, rad) = (f(&e, "cx") + ox, f(&e, "cy") + oy, f(&e, "r"));
                d.markers.push((series, Rect { x0: x - rad, y0: y - rad, x1: x + rad, y1: y + rad }));
            }
            "rect" if matches!(class.as_str(), "point" | "vertex") => {
                let (x, y) = (f(&e, "x") + ox, f(&e, "y") + oy);
                d.markers
                    .push((series, Rect { x0: x, y0: y, x1: x + f(&e, "width"), y1: y + f(&e, "height") }));
            }
            "path" if matches!(class.as_str(), "point" | "vertex") => {
                let pts: Vec<(f64, f64)> = pairs(&attr(&e, "d").unwrap_or_default())
                    .into_iter()
                    .map(|p| (p.0 + ox, p.1 + oy))
                    .collect();
                d.markers.push((series, Rect::around(&pts).expect("a marker path with points")));
            }
            "path" if class == "clip-mark" => d.clip_marks += 1,
            "text" if class == "clip-label" => in_clip_label = !empty,
            "polyline" if matches!(class.as_str(), "line" | "band-edge") => {
                let pts = pairs(&attr(&e, "points").unwrap_or_default());
                d.lines.push((series, pts.into_iter().map(|p| (p.0 + ox, p.1 + oy)).collect()));
            }
            _ => {}
        }
    }
    d
}

/// Whether segment a–b meets the box (Liang–Barsky clipping).
fn segment_meets(a: (f64, f64), b: (f64, f64), r: &Rect) -> bool {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [(-dx, a.0 - r.x0), (dx, r.x1 - a.0), (-dy, a.1 - r.y0), (dy, r.y1 - a.1)] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    t0 <= t1
}

/// What the legend covers inside the plot area: one line per marker or
/// line segment.
fn covered(d: &Drawing) -> Vec<String> {
    let plot = d.plot.expect("a plot area (clip path)");
    let mut found = Vec::new();
    for legend in &d.legends {
        let Some(inside) = legend.intersect(&plot) else { continue };
        for (series, m) in &d.markers {
            if m.intersect(&inside).is_some() {
                found.push(format!("marker of {series:?} at {m:?}"));
            }
        }
        for (series, pts) in &d.lines {
            if let Some(w) = pts.windows(2).find(|w| segment_meets(w[0], w[1], &inside)) {
                found.push(format!("line of {series:?} from {:?} to {:?}", w[0], w[1]));
            }
        }
    }
    found
}

/// Runs errband with `args` (plots written into a scratch directory named
/// by `{dir}`) and returns the SVG written to `name` there.
fn plot(test: &str, args: &[&str], name: &str) -> (String, PathBuf) {
    let dir = cli::tmp_dir();
    let args: Vec<String> =
        args.iter().map(|a| a.replace("{dir}", dir.to_str().expect("UTF-8 path"))).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = cli::run(&args);
    assert_eq!(run.code, Some(0), "{test}: {}", run.show());
    let path = dir.join(name);
    (std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())), dir)
}

fn assert_legend_clear(test: &str, args: &[&str], name: &str, min_entries: usize) -> Drawing {
    let (svg, dir) = plot(test, args, name);
    let d = parse(&svg);
    assert!(!d.legends.is_empty(), "{test}: no legend");
    assert!(
        d.legend_texts.len() >= min_entries,
        "{test}: expected at least {min_entries} legend entries, found {:?}",
        d.legend_texts
    );
    assert!(!d.markers.is_empty() || !d.lines.is_empty(), "{test}: nothing drawn? ({})", dir.display());
    let hits = covered(&d);
    assert!(hits.is_empty(), "{test}: the legend covers data in {}:\n{}", dir.display(), hits.join("\n"));
    d
}

#[test]
fn checker_finds_a_legend_over_a_marker_and_a_line() {
    // The test must be able to fail: a legend drawn over a point and a line.
    let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">
<g class="chart" transform="translate(10,0)">
<defs><clipPath id="c"><rect x="0" y="0" width="80" height="80"/></clipPath></defs>
<g class="plot-area"><polyline class="band-edge" data-series="b" points="0,5 80,5" fill="none"/>
<g class="points" data-series="m"><circle class="point" cx="20" cy="20" r="3.5" fill="#000"/></g></g>
<g class="legend"><rect class="legend-box" x="10" y="0" width="30" height="30"/>
<circle class="swatch" cx="15" cy="20" r="3.5"/><text x="20" y="20">m</text></g>
</g></svg>"##;
    let d = parse(svg);
    assert_eq!(d.plot, Some(Rect { x0: 10.0, y0: 0.0, x1: 90.0, y1: 80.0 }));
    assert_eq!(d.legends, vec![Rect { x0: 20.0, y0: 0.0, x1: 50.0, y1: 30.0 }]);
    let hits = covered(&d);
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert!(hits[0].contains("marker of \"m\""), "{hits:?}");
    assert!(hits[1].contains("line of \"b\""), "{hits:?}");
    // The swatch inside the legend is not data.
    assert_eq!(d.markers.len(), 1);
}

#[test]
fn hpl_band_plot_legend_covers_no_data() {
    let d = assert_legend_clear(
        "plots-hpl-band",
        &["models/hpl.tm", "data/hpl.csv", "--plot", "band={dir}/band.svg"],
        "band.svg",
        5,
    );
    // Thresholds rounded in the legend: max = 17.98, not its six digits.
    assert!(d.legend_texts.iter().any(|t| t == "band, threshold max = 17.98"), "{:?}", d.legend_texts);
    // The trusted band reaches 0, which a log axis cannot show: marked.
    assert!(d.clip_marks >= 1, "no clip mark");
    assert_eq!(d.clip_labels, vec!["band reaches 0 (off the log axis)".to_string()]);
}

#[test]
fn hpl_pruned_band_plot_with_eight_series_legend_covers_no_data() {
    let d = assert_legend_clear(
        "plots-hpl-drop",
        &["models/hpl.tm", "data/hpl.csv", "--drop", "p=110", "--plot", "band={dir}/band.svg"],
        "band.svg",
        8,
    );
    // Too tall for a clean corner: below the plot, the chart taller than 400.
    let plot = d.plot.expect("plot area");
    assert!(d.legends[0].y0 > plot.y1, "legend {:?} not below the plot {plot:?}", d.legends[0]);
}

#[test]
fn hpl_width_region_and_residual_plots_legends_cover_no_data() {
    let args = [
        "models/hpl.tm",
        "data/hpl.csv",
        "--plot",
        "width={dir}/width.svg",
        "--plot",
        "region={dir}/region.svg",
        "--plot",
        "residuals={dir}/residuals.svg",
    ];
    assert_legend_clear("plots-hpl-width", &args, "width.svg", 8);
    // The region plot of a model with several parameters is a grid of charts.
    let (svg, _) = plot("plots-hpl-region", &args, "region.svg");
    let charts = svg.matches("class=\"chart\"").count();
    assert!(charts >= 1);
    assert_legend_clear("plots-hpl-residuals", &args, "residuals.svg", 2);
}

#[test]
fn master_slave_plot_legend_covers_no_data() {
    let dir = cli::tmp_dir();
    let tasks = dir.join("tasks.csv");
    let tasks = tasks.to_str().expect("UTF-8 path");
    let run = cli::run(&["ms", "mandelbrot", "--grid", "128x128", "--out", tasks]);
    assert_eq!(run.code, Some(0), "{}", run.show());
    let args = [
        "ms",
        "predict",
        tasks,
        "--grid",
        "128x128",
        "--procs",
        "8,16,32,48,64",
        "--compare-subsets",
        "1/16,1/256",
        "--plot",
        "{dir}/ms.svg",
    ];
    assert_legend_clear("plots-ms", &args, "ms.svg", 3);
}

#[test]
fn barrier_plot_legend_covers_no_data() {
    assert_legend_clear(
        "plots-barrier",
        &[
            "barrier",
            "--nodes",
            "2,3,4,12,13,30,31,64,120",
            "--mpi-model",
            "models/mpi_barrier.tm",
            "--mpi-data",
            "data/mpi_barrier.csv",
            "-t",
            "max",
            "--plot",
            "{dir}/barrier.svg",
        ],
        "barrier.svg",
        2,
    );
}

#[test]
fn band_colours_come_from_the_colour_blind_safe_palette() {
    let (svg, _) = plot(
        "plots-palette",
        &["models/hpl.tm", "data/hpl.csv", "--plot", "band={dir}/band.svg"],
        "band.svg",
    );
    // max: blue, trusted: orange (Okabe and Ito), measurements black.
    for (what, colour) in [("max", "#0072b2"), ("trusted", "#e69f00")] {
        let band = svg
            .lines()
            .find(|l| l.starts_with("<path class=\"band\"") && l.contains(&format!("threshold {what}")))
            .unwrap_or_else(|| panic!("no {what} band path"));
        assert!(band.contains(&format!("fill=\"{colour}\"")), "{what}: {band}");
    }
    assert!(svg.contains("class=\"point\" cx="), "no measurement markers");
    assert!(!svg.contains("#ff7f0e") && !svg.contains("#8c564b"), "old near-identical orange/brown tints");
}
