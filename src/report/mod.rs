//! Renders an [`Analysis`] (and an optional pruned one beside it) as a
//! terminal report, JSON, CSV band tables, Markdown, LaTeX, SVG figures and
//! whole HTML/Markdown reports. Every number shown is
//! an exact value printed as a fraction or a correctly rounded decimal.

/// SVG figures of an analysis.
mod answer;
mod backtest;
pub mod barrier;
pub mod check;
pub mod energy;
pub mod experiment;
mod family;
pub mod figures;
pub(crate) mod html;
mod json;
mod latex;
mod markdown;
pub mod ms;
/// Rendering of `errband plan`.
pub mod plan;
/// Rendering of `errband prune`.
pub mod prune;
mod stream;
mod tables;
mod text;
mod view;

pub(crate) use tables::{csv_line, md_escape, md_row, md_table_head, plural, table, table_left};

use crate::analysis::{Analysis, Region};
use crate::data::Measurement;
use crate::envelope::BandFunction;
use crate::model::Model;
use crate::num::{fmt_fraction, fmt_sig, Rat};

/// Significant digits of the numbers in a plot legend's labels.
const LEGEND_DIGITS: usize = 4;
use serde_json::Value;

/// The mark of a band's lower end bounded by zero ([`crate::band::Band::positive`]).
pub(crate) const CLIPPED: &str = "†";
/// What the mark means, under a table that shows it.
pub(crate) const CLIPPED_NOTE: &str = "† bounded by zero: the band reached below zero, and a run time is never negative (every measurement is positive), so positivity is a constraint at that point; \"below 0\": the whole band is below zero there, no parameters of the region give a positive time";

/// Up to this many measurements, the text report lists every residual.
const MAX_ROW_TABLE: usize = 100;
/// Most distinct points listed in the per-point residual table.
const MAX_POINT_TABLE: usize = 60;

pub use crate::session::Pruned;

/// What to render.
pub struct Report<'a> {
    /// The model.
    pub model: &'a Model,
    /// Data file name.
    pub data_file: &'a str,
    /// All measurements.
    pub data: &'a [Measurement],
    /// The analysis of all of them.
    pub analysis: &'a Analysis,
    /// With `--drop`: the analysis without the dropped ones.
    pub pruned: Option<&'a Pruned>,
    /// With `--envelope` (and in whole reports): the band as a function.
    pub function: Option<&'a BandFunction>,
    /// Axis scales of the band plot (None: log when the values span more than a factor of 20).
    pub scales: [Option<crate::plot::Scale>; 2],
    /// Significant digits of decimals.
    pub digits: usize,
    /// Show exact fractions in the text report.
    pub exact: bool,
    /// Warnings from reading the data.
    pub warnings: &'a [String],
    /// With `--holdout`: the backtest (`data` and `analysis` are then its
    /// training measurements and their analysis).
    pub backtest: Option<&'a crate::backtest::Backtest>,
    /// With a family: the family on the same measurements (`data`).
    pub family: Option<&'a crate::family::FamilyAnalysis>,
    /// With `--plot-at`: the slice the band plot shows (default: the first
    /// varying variable, the others at the first prediction point).
    pub plot_at: Option<&'a crate::model::Slice>,
    /// The band errband recommends for the next measurement at each point.
    pub recommendation: Option<&'a crate::trust::Recommendation>,
    /// Why there is no recommendation.
    pub recommendation_error: Option<&'a str>,
    /// True when the model is the family's best form (no model file).
    pub discovered: bool,
    /// Measurements set aside before a change of trend (not in `data`).
    pub set_aside: &'a [Measurement],
}

pub use crate::analysis::shrink_ratio;

/// Number views shared by the text renderers: exact fractions or correctly
/// rounded decimals, threshold labels, the RMS.
pub(crate) trait Views {
    /// Significant digits of decimals.
    fn digits(&self) -> usize;
    /// Exact fractions instead of decimals in tables meant for reading (`--exact`).
    fn exact(&self) -> bool;
    /// As the reader asked: exact fraction or correctly rounded decimal.
    fn num(&self, x: &Rat) -> String {
        if self.exact() {
            fmt_fraction(x)
        } else {
            self.dec(x)
        }
    }
    /// Correctly rounded decimal.
    fn dec(&self, x: &Rat) -> String {
        fmt_sig(x, self.digits())
    }
    /// A threshold as written with its bound: `max = 17.9772`,
    /// `trusted: r = 5 %`, or a number alone ([`view::bound_label`]).
    fn bound_label(&self, text: &str, b: &crate::analysis::Bound) -> String {
        view::bound_label(text, b, self.exact(), self.digits())
    }
    /// The RMS from the mean square, rounded once from the exact square root.
    fn rms_text(&self, ms: &Rat) -> String {
        crate::fit::rms_display(ms, self.digits())
    }
}

/// `Views` for a renderer struct with `digits` and `exact` fields.
macro_rules! views {
    ($t:ident) => {
        impl $crate::report::Views for $t<'_> {
            fn digits(&self) -> usize {
                self.digits
            }
            fn exact(&self) -> bool {
                self.exact
            }
        }
    };
}
pub(crate) use views;

views!(Report);

/// One command's report in each of its outputs: the one renderer behind
/// `prune`, `plan`, `energy`, `barrier` and `ms predict`, so that the CLI
/// writes `--format`, `--plot` and `--report` for all of them in one place
/// (`cli::whole`).
pub trait CommandReport {
    /// `errband prune: MODEL with DATA`.
    fn title(&self) -> String;
    /// The one sentence a reader needs first (the best choice, the
    /// conclusion), empty when the command has none.
    fn headline(&self) -> String;
    /// The terminal report.
    fn text(&self) -> String;
    /// Markdown.
    fn markdown(&self) -> String;
    /// JSON with exact values (`errband schema COMMAND`).
    fn json(&self) -> Value;
    /// CSV: the command's main table, one record per row.
    fn csv(&self) -> String;
    /// A LaTeX booktabs table, where the command has one.
    fn latex(&self) -> Option<String> {
        None
    }
    /// The charts (SVG), each with its `--plot` kind, which also names its
    /// file beside a Markdown report (`out-KIND.svg`).
    fn charts(&self) -> Vec<(&'static str, String)>;
}

/// Rows a ranked table shows: `show` of `n`, all when `show` is 0.
pub(crate) fn rows_shown(show: usize, n: usize) -> usize {
    if show == 0 {
        n
    } else {
        show.min(n)
    }
}

impl Report<'_> {
    /// A threshold's name in a plot legend: as in the report, every number
    /// correctly rounded to at most [`LEGEND_DIGITS`] significant digits (the
    /// legend tells bands apart; the report carries the values).
    fn legend_label(&self, r: &Region) -> String {
        let digits = self.digits().min(LEGEND_DIGITS);
        let (text, b) = (&r.threshold.text, &r.bound);
        if let Ok(v) = crate::num::parse_rat(text) {
            fmt_sig(&v, digits)
        } else if b.is_relative() {
            format!("{text}: {}", b.describe(digits))
        } else {
            format!("{text} = {}", fmt_sig(&b.absolute, digits))
        }
    }
}
