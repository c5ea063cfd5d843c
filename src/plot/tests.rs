use super::*;

fn pts(v: &[(f64, f64)]) -> Vec<(f64, f64)> {
    v.to_vec()
}

fn band_chart() -> Chart {
    let xs = [10.0, 20.0, 50.0, 100.0, 1000.0, 10000.0];
    let line: Vec<(f64, f64)> = xs.iter().map(|&x| (x, 2.0 + 0.001 * x)).collect();
    let lower: Vec<(f64, f64)> = line.iter().map(|&(x, y)| (x, y - 0.1 * x.log10())).collect();
    let upper: Vec<(f64, f64)> = line.iter().map(|&(x, y)| (x, y + 0.1 * x.log10())).collect();
    let mut c = Chart::new("T(p) & <bands>", Axis::log("p [processors]"), Axis::linear("t [s]"));
    c.series.push(Series::new("band", SeriesKind::Band { lower, upper, light: false }));
    c.series.push(Series::new("fit", SeriesKind::Line { pts: line, dashed: false }));
    c.series.push(Series::new(
        "data",
        SeriesKind::Points { pts: pts(&[(16.0, 2.0), (32.0, 2.05), (f64::NAN, 1.0)]), mark: Mark::Circle },
    ));
    c.shade_x = Some((120.0, 10000.0));
    c.hline = Some((2.0, "threshold".into()));
    c
}

fn region_chart(title: &str) -> Chart {
    let mut c = Chart::new(title, Axis::linear("c0"), Axis::linear("c1"));
    c.series.push(Series::new(
        "region",
        SeriesKind::Polygon {
            pts: pts(&[(0.0, 0.0), (1.0, 0.2), (1.2, 1.0), (0.3, 1.1), (-0.2, 0.5)]),
            marked: true,
        },
    ));
    c
}

fn count(s: &str, pat: &str) -> usize {
    s.matches(pat).count()
}

fn ids(s: &str) -> Vec<String> {
    s.split("id=\"").skip(1).filter_map(|r| r.split('"').next()).map(str::to_string).collect()
}

#[test]
fn polygon_has_one_pair_per_vertex() {
    let svg = region_chart("region").svg();
    assert_eq!(count(&svg, "<polygon class=\"region\""), 1);
    let attr = svg.split("<polygon class=\"region\"").nth(1).and_then(|r| r.split("points=\"").nth(1));
    let points = attr.and_then(|a| a.split('"').next()).unwrap_or("");
    assert_eq!(points.split(' ').count(), 5);
    assert!(points.split(' ').all(|p| p.split(',').count() == 2));
    assert_eq!(count(&svg, "class=\"vertex\""), 5);
    assert!(svg.contains("data-series=\"region\""));
    assert!(svg.contains("fill-opacity=\"0.25\""));
}

#[test]
fn band_line_points_and_shade_have_their_classes() {
    let svg = band_chart().svg();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(!svg.contains("<?xml"));
    assert_eq!(count(&svg, "<path class=\"band\" data-series=\"band\""), 1);
    assert_eq!(count(&svg, "<polyline class=\"line\" data-series=\"fit\""), 1);
    assert_eq!(count(&svg, "class=\"point\""), 2, "the NaN point is skipped");
    assert_eq!(count(&svg, "<rect class=\"extrapolation\" "), 1);
    assert!(svg.contains("fill=\"#000\" fill-opacity=\"0.06\""));
    assert!(svg.contains(">extrapolated</text>"));
    assert_eq!(count(&svg, "<g class=\"legend\">"), 1);
    assert_eq!(count(&svg, "class=\"swatch\""), 3);
    assert!(svg.contains("class=\"hline\""));
    assert!(svg.contains(">10⁴</text>"));
    assert!(svg.contains("clip-path=\"url(#"));
}

#[test]
fn non_finite_values_are_skipped_without_panicking() {
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    let mut c = Chart::new("nan", Axis::log("x"), Axis::linear("y"));
    c.series.push(Series::new(
        "p",
        SeriesKind::Points {
            pts: pts(&[(nan, 1.0), (1.0, inf), (-1.0, 1.0), (2.0, 3.0)]),
            mark: Mark::Cross,
        },
    ));
    c.series.push(Series::new(
        "l",
        SeriesKind::Line { pts: pts(&[(1.0, 1.0), (nan, nan), (3.0, 1.0)]), dashed: true },
    ));
    c.series.push(Series::new(
        "b",
        SeriesKind::Band {
            lower: pts(&[(1.0, 0.0), (2.0, nan), (3.0, 0.0)]),
            upper: pts(&[(1.0, 1.0)]),
            light: false,
        },
    ));
    c.series.push(Series::new("s", SeriesKind::Stems { pts: pts(&[(1.0, nan), (2.0, -1.0)]) }));
    c.series.push(Series::new("r", SeriesKind::Polygon { pts: pts(&[(nan, 0.0)]), marked: true }));
    c.shade_x = Some((nan, inf));
    c.hline = Some((nan, "h".into()));
    let svg = c.svg();
    assert_eq!(count(&svg, "class=\"point\""), 1);
    assert_eq!(count(&svg, "class=\"line\""), 0, "both line pieces are single points");
    assert_eq!(count(&svg, "class=\"stem\""), 1);
    assert!(!svg.contains("NaN") && !svg.contains("inf"));
    let huge = Chart {
        series: vec![Series::new(
            "huge",
            SeriesKind::Line {
                pts: pts(&[(0.0, 0.0), (f64::MAX, f64::MAX), (-f64::MAX, 1e-300)]),
                dashed: false,
            },
        )],
        ..Chart::new("huge", Axis::linear("x"), Axis::linear("y"))
    };
    let svg = huge.svg();
    assert!(!svg.contains("NaN") && !svg.contains("inf"));
}

#[test]
fn empty_and_degenerate_charts_render_axes_and_a_note() {
    let c = Chart::new("", Axis::linear("x"), Axis::log("y"));
    let svg = c.svg();
    assert!(svg.contains("class=\"frame\""));
    assert!(svg.contains(">no data</text>"));
    assert!(!svg.contains("class=\"legend\""));
    let mut c = Chart::new("one", Axis::linear("x"), Axis::linear("y"));
    c.series.push(Series::new(
        "p",
        SeriesKind::Points { pts: pts(&[(3.0, 3.0), (3.0, 3.0)]), mark: Mark::Square },
    ));
    let svg = c.svg();
    assert!(!svg.contains("no data"));
    assert!(count(&svg, "<text x=") >= 4, "ticks around the single value");
    let mut odd = Chart::new(
        "odd",
        Axis::linear("x").range(Some(5.0), Some(5.0)),
        Axis::log("y").range(Some(-1.0), None),
    );
    odd.width = f64::NAN;
    odd.height = 1.0;
    assert!(odd.svg().contains("width=\"640\""));
}

#[test]
fn text_is_xml_escaped() {
    let mut c = region_chart("a <b> & \"c\" 'd'");
    c.series[0].name = "x<y".into();
    let svg = c.svg();
    assert!(svg.contains("a &lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;"));
    assert!(svg.contains("data-series=\"x&lt;y\""));
    assert!(!svg.contains("<b>"));
}

#[test]
fn grid_has_one_plot_area_per_chart_and_unique_ids() {
    let charts = [region_chart("c0 vs c1"), region_chart("c0 vs c1"), band_chart()];
    let svg = grid(&charts, 2, "pairwise projections");
    assert_eq!(count(&svg, "class=\"plot-area\""), 3);
    assert_eq!(count(&svg, "<svg "), 1);
    let ids = ids(&svg);
    assert_eq!(ids.len(), 3);
    let mut uniq = ids.clone();
    uniq.sort();
    uniq.dedup();
    assert_eq!(uniq.len(), ids.len(), "{ids:?}");
    for id in &ids {
        assert!(svg.contains(&format!("url(#{id})")));
    }
    assert!(!grid(&[], 3, "").contains("plot-area"));
}

#[test]
fn output_is_deterministic() {
    let c = band_chart();
    assert_eq!(c.svg(), c.svg());
    assert_eq!(c.svg(), band_chart().svg());
    let g = [region_chart("a"), band_chart()];
    assert_eq!(grid(&g, 2, "t"), grid(&g, 2, "t"));
}

#[test]
fn colours_follow_the_cycle_unless_fixed() {
    let mut c = region_chart("r");
    c.series.push(
        Series::new("l", SeriesKind::Line { pts: pts(&[(0.0, 0.0), (1.0, 1.0)]), dashed: false }).color(3),
    );
    c.series.push(Series::new("m", SeriesKind::Line { pts: pts(&[(0.0, 1.0), (1.0, 0.0)]), dashed: false }));
    let svg = c.svg();
    assert!(svg.contains(&format!("fill=\"{}\" fill-opacity=\"0.25\"", PALETTE[0])));
    let line_of = |name: &str| {
        let rest = svg.split(&format!("data-series=\"{name}\"")).nth(1).unwrap_or("");
        rest.split('\n').next().unwrap_or("").to_string()
    };
    assert!(line_of("l").contains(PALETTE[3]));
    assert!(line_of("m").contains(PALETTE[1]));
}

#[test]
fn legend_avoids_the_corner_with_data() {
    // Data crowd the top right; the legend moves elsewhere.
    let mut c = Chart::new("legend", Axis::linear("x"), Axis::linear("y"));
    let crowd: Vec<(f64, f64)> =
        (0..100).map(|i| (8.0 + f64::from(i % 10) * 0.2, 8.0 + f64::from(i / 10) * 0.2)).collect();
    c.series.push(Series::new("crowd", SeriesKind::Points { pts: crowd, mark: Mark::Circle }));
    c.series.push(Series::new("", SeriesKind::Points { pts: pts(&[(0.0, 0.0)]), mark: Mark::Circle }));
    let svg = c.svg();
    let legend = svg.split("<rect class=\"legend-box\" x=\"").nth(1).unwrap_or("");
    let x: f64 = legend.split('"').next().and_then(|v| v.parse().ok()).unwrap_or(f64::NAN);
    assert!(x < 320.0, "legend at x = {x}");
    assert_eq!(count(&svg, "class=\"swatch\""), 1, "unnamed series stay out of the legend");
}

#[test]
fn y_label_sits_left_of_the_widest_tick_label() {
    let mut c = Chart::new("", Axis::linear("x"), Axis::linear("a long y label [units]"));
    c.series.push(Series::new(
        "",
        SeriesKind::Points { pts: pts(&[(0.0, -1.23456e-8), (1.0, 3.0e-8)]), mark: Mark::Circle },
    ));
    let svg = c.svg();
    let ylabel_x: f64 = svg
        .split("class=\"axis-label y\" x=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN);
    let tick_group = svg.split("class=\"tick-labels y\"").nth(1).unwrap_or("");
    for t in tick_group.split("<text x=\"").skip(1) {
        let x: f64 = t.split('"').next().and_then(|v| v.parse().ok()).unwrap_or(f64::NAN);
        let label = t.split('>').nth(1).and_then(|r| r.split('<').next()).unwrap_or("");
        let left = x - label.chars().count() as f64 * 11.0 * 0.6;
        assert!(left > ylabel_x + 3.0, "{label} at {left} vs y label at {ylabel_x}");
    }
}

#[test]
fn bar_chart_draws_bars_missing_markers_and_rotated_long_labels() {
    let cats: Vec<String> = ["small-case", "medium-sized-case", "a-rather-long-category-name", "d"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut b = BarChart::new(
        "max error",
        cats,
        vec![
            ("model A".into(), vec![Some(1.0), Some(2.0), None, Some(f64::INFINITY)]),
            ("model B".into(), vec![Some(1.5), Some(f64::NAN), Some(3.0), Some(0.5)]),
        ],
        Axis::linear("e [%]"),
    );
    b.hline = Some((2.5, "limit".into()));
    let svg = b.svg();
    assert_eq!(count(&svg, "class=\"bar\""), 5);
    assert_eq!(count(&svg, "class=\"missing\""), 3);
    assert!(svg.contains(">∞</text>"));
    assert!(svg.contains("rotate(-35"));
    assert_eq!(count(&svg, "class=\"swatch\""), 2);
    assert_eq!(svg, b.svg());
    let empty = BarChart::new("", vec![], vec![], Axis::log("y"));
    assert!(empty.svg().contains("no data"));
}

/// The first number of attribute `name` in the first tag starting with `start`.
fn attr_num(svg: &str, start: &str, name: &str) -> f64 {
    let tag = svg.split(start).nth(1).unwrap_or("");
    let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
    tag.split(&format!(" {name}=\""))
        .nth(1)
        .and_then(|v| v.split('"').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

/// The plot area: the clip path's rectangle (x0, y0, x1, y1).
fn plot_area(svg: &str) -> (f64, f64, f64, f64) {
    let rest = svg.split("<clipPath").nth(1).unwrap_or("");
    let (x, y) = (attr_num(rest, "<rect", "x"), attr_num(rest, "<rect", "y"));
    (x, y, x + attr_num(rest, "<rect", "width"), y + attr_num(rest, "<rect", "height"))
}

/// Six lines zig-zagging over the whole plot: no corner is clean.
fn six_lines(names: &[&str]) -> Chart {
    let mut c = Chart::new("six", Axis::linear("x"), Axis::linear("y"));
    for (k, name) in names.iter().enumerate() {
        let pts: Vec<(f64, f64)> =
            (0..=40).map(|i| (f64::from(i), if (i + k as i32) % 2 == 0 { 0.0 } else { 10.0 })).collect();
        c.series.push(Series::new(*name, SeriesKind::Line { pts, dashed: false }));
    }
    c
}

#[test]
fn legend_goes_outside_when_every_corner_has_data() {
    // Short names: a narrow legend, on the right; the chart grows wider.
    let svg = six_lines(&["a", "b", "c", "d", "e", "f"]).svg();
    let plot_x1 = plot_area(&svg).2;
    let (lx, svg_w) = (attr_num(&svg, "<rect class=\"legend-box\"", "x"), attr_num(&svg, "<svg", "width"));
    assert!(lx > plot_x1, "legend at x = {lx}, plot ends at {plot_x1}");
    assert!(svg_w > 640.0 && lx < svg_w, "svg width {svg_w}, legend at {lx}");
    assert_eq!(count(&svg, "class=\"swatch\""), 6);
    // Long names: a wide legend, below the plot; the chart grows taller.
    let long = ["the first series with a long name", "b", "c", "d", "e", "f"];
    let svg = six_lines(&long).svg();
    let plot_y1 = plot_area(&svg).3;
    let (ly, svg_h) = (attr_num(&svg, "<rect class=\"legend-box\"", "y"), attr_num(&svg, "<svg", "height"));
    assert!(ly > plot_y1 + 20.0, "legend at y = {ly}, plot ends at {plot_y1}");
    assert!(svg_h > 400.0 && ly < svg_h, "svg height {svg_h}, legend at {ly}");
    assert_eq!(attr_num(&svg, "<svg", "width"), 640.0);
    // In a grid, the cells make room for the grown charts.
    let g = grid(&[six_lines(&long), six_lines(&["a"])], 2, "");
    assert!(attr_num(&g, "<svg", "height") > 400.0);
}

#[test]
fn legend_stays_inside_in_a_clean_corner() {
    let svg = band_chart().svg();
    let plot_x0 = plot_area(&svg).0;
    let lx = attr_num(&svg, "<rect class=\"legend-box\"", "x");
    assert!(lx > plot_x0 && attr_num(&svg, "<svg", "width") == 640.0, "legend at {lx}");
}

#[test]
fn bands_that_leave_the_axis_are_marked_at_its_edge() {
    // A band below a fixed y minimum on a linear axis, above the maximum too.
    let mut c = Chart::new("clip", Axis::linear("x"), Axis::linear("y").range(Some(0.0), Some(10.0)));
    let lower: Vec<(f64, f64)> = (0..=10).map(|i| (f64::from(i), 5.0 - f64::from(i))).collect();
    let upper: Vec<(f64, f64)> = (0..=10).map(|i| (f64::from(i), 6.0 + f64::from(i))).collect();
    c.series.push(Series::new("band", SeriesKind::Band { lower, upper, light: false }));
    let svg = c.svg();
    assert!(svg.contains(">band continues below the axis</text>"), "{svg}");
    assert!(svg.contains(">band continues above the axis</text>"), "{svg}");
    // Each side leaves once and runs to the end: a mark where it leaves, one at the end.
    assert_eq!(count(&svg, "class=\"clip-mark\""), 4);
    // On a log axis a lower end at 0 cannot be drawn: said so.
    let mut c = Chart::new("zero", Axis::linear("x"), Axis::log("y"));
    let lower: Vec<(f64, f64)> = (1..=10).map(|i| (f64::from(i), if i > 5 { 0.0 } else { 1.0 })).collect();
    let upper: Vec<(f64, f64)> = (1..=10).map(|i| (f64::from(i), 100.0)).collect();
    c.series.push(Series::new("band", SeriesKind::Band { lower, upper, light: false }));
    let svg = c.svg();
    assert!(svg.contains(">band reaches 0 (off the log axis)</text>"), "{svg}");
    // A band inside the axis has no marks.
    assert_eq!(count(&band_chart().svg(), "clip-mark"), 0);
}
