//! Deterministic SVG charts for scientific plots, written by hand with std
//! only. Callers convert exact numbers to `f64` at drawing time and hand in
//! series; the output looks like matplotlib's defaults (framed axes, nice
//! ticks, a legend kept off the data where possible) and is byte-identical
//! across runs: coordinates carry two decimals and nothing iterates a hash map.
//!
//! Every chart is a standalone `<svg>` without an XML prologue, so it can also
//! be inlined in HTML; the one id per chart (its clip path) is a hash of the
//! chart's own content and position, so ids do not clash within a page or a
//! [`grid`].

mod bars;
mod chart;
mod legend;
mod render;
mod series;
mod stacked;
mod svg;
mod ticks;
pub use stacked::StackedBarChart;

/// The colour cycle: Okabe and Ito's colour-blind-safe palette ("Color
/// Universal Design", 2008), ordered so that the first three (blue, orange,
/// bluish green) are the most distinct hues for protanopes, deuteranopes and
/// tritanopes alike, then vermilion (the fitted model), reddish purple, sky
/// blue, a dark yellow (Okabe and Ito's yellow `#F0E442` vanishes on white as
/// a light fill, so its hue is kept at a darker shade) and black (data).
pub const PALETTE: [&str; 8] =
    ["#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9", "#b8a000", "#000000"];

/// How an axis maps values to positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scale {
    /// Equal distances for equal differences.
    #[default]
    Linear,
    /// Base 10; non-positive values cannot be placed and are skipped.
    Log,
}

/// One axis of a chart.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Axis {
    /// Text along the axis, unit included, e.g. `p [processors]`.
    pub label: String,
    /// Linear or base-10 logarithmic.
    pub scale: Scale,
    /// Fixed lower limit instead of the data's padded minimum.
    pub min: Option<f64>,
    /// Fixed upper limit instead of the data's padded maximum.
    pub max: Option<f64>,
}

impl Axis {
    /// An axis with an automatic range.
    pub fn new(label: impl Into<String>, scale: Scale) -> Axis {
        Axis { label: label.into(), scale, min: None, max: None }
    }

    /// A linear axis with an automatic range.
    pub fn linear(label: impl Into<String>) -> Axis {
        Axis::new(label, Scale::Linear)
    }

    /// A base-10 log axis with an automatic range.
    pub fn log(label: impl Into<String>) -> Axis {
        Axis::new(label, Scale::Log)
    }

    /// The same axis with fixed limits (`None` keeps that end automatic).
    pub fn range(mut self, min: Option<f64>, max: Option<f64>) -> Axis {
        self.min = min;
        self.max = max;
        self
    }
}

/// Marker shapes for point series, so series stay apart in greyscale too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mark {
    /// Filled circle.
    #[default]
    Circle,
    /// Filled square.
    Square,
    /// Filled upward triangle.
    Triangle,
    /// Filled diamond.
    Diamond,
    /// Diagonal cross (stroked).
    Cross,
}

/// What a series draws.
#[derive(Debug, Clone, PartialEq)]
pub enum SeriesKind {
    /// Scattered markers (measurements).
    Points {
        /// Data coordinates; non-finite ones are skipped.
        pts: Vec<(f64, f64)>,
        /// Marker shape.
        mark: Mark,
    },
    /// A polyline through the points in order; skipped points break it.
    Line {
        /// Data coordinates.
        pts: Vec<(f64, f64)>,
        /// Dashed stroke, e.g. for a prediction beyond the data.
        dashed: bool,
    },
    /// A polyline with a marker at each point: lines that run close
    /// together stay apart by their markers' shapes.
    MarkedLine {
        /// Data coordinates.
        pts: Vec<(f64, f64)>,
        /// Marker shape.
        mark: Mark,
    },
    /// Filled area between two curves sampled at the same xs: `lower[i].0 == upper[i].0`.
    Band {
        /// Lower curve.
        lower: Vec<(f64, f64)>,
        /// Upper curve, same length and xs as `lower`.
        upper: Vec<(f64, f64)>,
        /// Drawn lighter, with dashed edges: a wider band behind the main
        /// ones (a new measurement's, a family's).
        light: bool,
    },
    /// Closed polygon, vertices in order; vertex markers drawn when `marked`.
    Polygon {
        /// Vertices in order, the closing one not repeated.
        pts: Vec<(f64, f64)>,
        /// Draw a marker on every vertex.
        marked: bool,
    },
    /// Vertical segments from 0 (or the axis minimum) to y at each x with a marker on top (stem plot,
    /// for residuals).
    Stems {
        /// Tops of the stems.
        pts: Vec<(f64, f64)>,
    },
}

/// A named series with its colour.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text; an empty name keeps the series out of the legend.
    pub name: String,
    /// What to draw.
    pub kind: SeriesKind,
    /// Index into [`PALETTE`] (taken modulo its length); `None` takes the
    /// next colour not chosen explicitly, as matplotlib's cycle does.
    pub color: Option<usize>,
}

impl Series {
    /// A series with the next automatic colour.
    pub fn new(name: impl Into<String>, kind: SeriesKind) -> Series {
        Series { name: name.into(), kind, color: None }
    }

    /// The same series with a fixed palette colour.
    pub fn color(mut self, index: usize) -> Series {
        self.color = Some(index);
        self
    }
}

/// An x–y chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Title above the plot; empty for none.
    pub title: String,
    /// Horizontal axis.
    pub x: Axis,
    /// Vertical axis.
    pub y: Axis,
    /// Series, drawn fills first, then lines, then markers (each in order).
    pub series: Vec<Series>,
    /// A lightly shaded x span, e.g. the extrapolation region.
    pub shade_x: Option<(f64, f64)>,
    /// Small label at the top of the shaded span.
    pub shade_label: String,
    /// A dashed horizontal reference line with its label (y = 0, a threshold).
    pub hline: Option<(f64, String)>,
    /// Width in px (default 640).
    pub width: f64,
    /// Height in px (default 400).
    pub height: f64,
}

impl Chart {
    /// An empty 640 × 400 chart; the shade label defaults to "extrapolated".
    pub fn new(title: impl Into<String>, x: Axis, y: Axis) -> Chart {
        Chart {
            title: title.into(),
            x,
            y,
            series: Vec::new(),
            shade_x: None,
            shade_label: "extrapolated".to_string(),
            hline: None,
            width: 640.0,
            height: 400.0,
        }
    }

    /// The chart as a standalone `<svg>` element: `width` × `height`, wider
    /// or taller when the legend has to go outside the plot.
    pub fn svg(&self) -> String {
        let (body, (w, h)) = chart::chart(self, 0.0, 0.0);
        render::wrap(w, h, &body)
    }

    /// The `<g>` body without the outer `<svg>` element, drawn at an offset, for composing grids.
    pub fn svg_fragment(&self, dx: f64, dy: f64) -> String {
        chart::chart(self, dx, dy).0
    }

    /// The size [`Chart::svg`] draws: `width` × `height`, plus the room of
    /// a legend that goes outside the plot.
    pub fn size(&self) -> (f64, f64) {
        chart::chart(self, 0.0, 0.0).1
    }
}

/// Grouped vertical bars: one bar per group in each category.
#[derive(Debug, Clone, PartialEq)]
pub struct BarChart {
    /// Title above the plot; empty for none.
    pub title: String,
    /// Category names along the x axis (rotated when long).
    pub categories: Vec<String>,
    /// Legend name and one value per category; `None` marks a missing bar.
    pub groups: Vec<(String, Vec<Option<f64>>)>,
    /// Value axis.
    pub y: Axis,
    /// A dashed horizontal reference line with its label.
    pub hline: Option<(f64, String)>,
    /// Width in px (default 640).
    pub width: f64,
    /// Height in px (default 400).
    pub height: f64,
    /// Shown at the top of the plot where a value is `None` or NaN (an
    /// infinite value shows "∞" instead), so a gap is not read as zero.
    pub missing_label: String,
}

impl BarChart {
    /// A 640 × 400 bar chart; missing bars are marked "n/a".
    pub fn new(
        title: impl Into<String>,
        categories: Vec<String>,
        groups: Vec<(String, Vec<Option<f64>>)>,
        y: Axis,
    ) -> BarChart {
        BarChart {
            title: title.into(),
            categories,
            groups,
            y,
            hline: None,
            width: 640.0,
            height: 400.0,
            missing_label: "n/a".to_string(),
        }
    }

    /// The chart as a standalone `<svg>` element.
    pub fn svg(&self) -> String {
        render::standalone(self.width, self.height, |dx, dy| self.svg_fragment(dx, dy))
    }

    /// The `<g>` body without the outer `<svg>`, drawn at an offset.
    pub fn svg_fragment(&self, dx: f64, dy: f64) -> String {
        bars::bars(self, dx, dy)
    }
}

/// Several charts in one SVG in a grid with `cols` columns (for pairwise projections of a region).
pub fn grid(charts: &[Chart], cols: usize, title: &str) -> String {
    chart::grid(charts, cols, title)
}

#[cfg(test)]
mod tests;
