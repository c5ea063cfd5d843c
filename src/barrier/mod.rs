//! Barrier latency predictor (Hayakawa, docs/methods.md \[H\]): when does a chassis-level
//! hardware barrier beat plain MPI_Barrier over Ethernet?
//!
//! Chassis of `per_chassis` nodes form a tree: the root chassis feeds
//! `root_fanout` children (each of its nodes one child in the paper's
//! Fig. 8), an inter-level chassis feeds `inter_fanout` (its left and right
//! nodes). Chassis are filled level by level, so `K = ⌈N / per_chassis⌉`
//! chassis need `L_i` inter levels, the smallest `L ≥ 0` with
//! `1 + r·(1 + f + … + f^L) ≥ K`. \[H\] section 5.2 (its eq. 2 is garbled in the
//! scan; this is the reading consistent with its text):
//!
//! * one chassis (`N ≤ per_chassis`): `T_EB = T_IB`;
//! * otherwise: `T_EB = (4 + 3·L_i)·T_IB + 3·(L_i + 1)·T_SR`.
//!
//! `T_EB` grows with `T_IB` and `T_SR`, so intervals of them map to the
//! interval between the ends. The reference MPI_Barrier time is a constant
//! (or interval) or a `.tm` model fitted by the core pipeline, whose band
//! at each threshold carries into every comparison. The crossover
//! `T_SR*(N) = (T_MPI(N) − (4 + 3·L_i)·T_IB) / (3·(L_i + 1))` is exact.

pub mod args;

use crate::analysis::{Analysis, AnalysisError, Band, Options, Shape as RegionShape, Threshold};
use crate::data::Measurement;
use crate::model::Model;
use crate::num::{self, fmt_sig, Interval, Point, Rat};
use num_traits::{Signed, Zero};

/// The chassis tree's layout parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tree {
    /// Nodes per chassis.
    pub per_chassis: u64,
    /// Children of the root chassis (the paper: one per node).
    pub root_fanout: u64,
    /// Children of an inter-level chassis (the paper: its left and right nodes).
    pub inter_fanout: u64,
}

/// Why no prediction can be made.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum BarrierError {
    /// `--per-chassis 0`.
    #[error("--per-chassis 0: a chassis holds at least one node")]
    ZeroPerChassis,
    /// `--root-fanout 0`.
    #[error("--root-fanout 0: the root chassis must feed at least one chassis")]
    ZeroRootFanout,
    /// A node count below 2.
    #[error("N = {0}: a barrier needs at least 2 nodes")]
    TooFewNodes(u64),
    /// More chassis than a tree with inter-level fan-out 0 holds.
    #[error("N = {nodes} needs {chassis} chassis, but a tree with inter-level fan-out 0 holds at most {} (1 root + {root_fanout} children); raise --inter-fanout", root_fanout.saturating_add(1))]
    TreeTooSmall {
        /// N.
        nodes: u64,
        /// Chassis it needs.
        chassis: u64,
        /// Children of the root chassis.
        root_fanout: u64,
    },
    /// No node counts.
    #[error("no node counts")]
    NoNodes,
    /// Node counts out of order or repeated.
    #[error("node counts must be ascending and distinct")]
    NodesNotAscending,
    /// No T_SR case.
    #[error("no T_SR case (--t-sr)")]
    NoTsr,
    /// `--conclude-at N` for an N that is not listed.
    #[error("--conclude-at {0}: N = {0} is not among the listed node counts (--nodes)")]
    ConcludeAtNotListed(u64),
    /// A negative time.
    #[error("{what} = {} s is negative; times are ≥ 0", fmt_sig(.lo, 6))]
    NegativeTime {
        /// Which time (`T_IB`, `T_SR`, `MPI_Barrier`).
        what: &'static str,
        /// Its lower end, s.
        lo: Rat,
    },
    /// An interval whose lower end exceeds its upper end.
    #[error("{what}: the interval {}..{} s is empty (its lower end exceeds its upper end)", fmt_sig(&.interval.lo, 6), fmt_sig(&.interval.hi, 6))]
    EmptyInterval {
        /// Which time.
        what: &'static str,
        /// The interval, s.
        interval: Box<Interval>,
    },
    /// The MPI_Barrier model does not have exactly one variable.
    #[error("the MPI_Barrier model in {file} has variables {}; it needs exactly one, the node count", .vars.join(", "))]
    ModelVariables {
        /// The model file.
        file: String,
        /// Its variables.
        vars: Vec<String>,
    },
    /// The MPI_Barrier model could not be analysed.
    #[error("MPI_Barrier model: {0}")]
    Model(Box<AnalysisError>),
    /// A threshold of the MPI_Barrier model below its e_max (exit code 1).
    #[error("threshold `{threshold}` = {} is below e_max = {} of the MPI_Barrier model: no parameter values fit that well\n  = help: use a threshold of at least `emax`", fmt_sig(&.values.0, 6), fmt_sig(&.values.1, 6))]
    BelowEmax {
        /// The threshold as written.
        threshold: String,
        /// Its value and the model's e_max.
        values: Box<(Rat, Rat)>,
    },
    /// A threshold that does not parse.
    #[error("{0}")]
    BadThreshold(String),
    /// A node count without a prediction from the model's analysis (an
    /// internal inconsistency, reported rather than panicking).
    #[error("no prediction at N = {0}")]
    NoPrediction(u64),
}

impl crate::error::Classified for BarrierError {
    fn kind(&self) -> crate::error::ErrorKind {
        match self {
            BarrierError::Model(e) => crate::error::Classified::kind(&**e),
            BarrierError::BelowEmax { .. } | BarrierError::NoPrediction(_) => {
                crate::error::ErrorKind::Analysis
            }
            _ => crate::error::ErrorKind::Input,
        }
    }
}

impl Tree {
    /// The paper's tree for `per_chassis` nodes per chassis, fan-outs
    /// overridable.
    pub fn new(
        per_chassis: u64,
        root_fanout: Option<u64>,
        inter_fanout: Option<u64>,
    ) -> Result<Tree, BarrierError> {
        if per_chassis == 0 {
            return Err(BarrierError::ZeroPerChassis);
        }
        let root_fanout = root_fanout.unwrap_or(per_chassis);
        if root_fanout == 0 {
            return Err(BarrierError::ZeroRootFanout);
        }
        Ok(Tree { per_chassis, root_fanout, inter_fanout: inter_fanout.unwrap_or(per_chassis - 1) })
    }

    /// Chassis in full trees with 0, 1, 2, … inter levels, while they fit
    /// in a u64: `1 + r·(1 + f + … + f^L)`.
    fn capacities(&self) -> impl Iterator<Item = u64> + '_ {
        let mut level = Some(self.root_fanout);
        let mut total = 1u64.checked_add(self.root_fanout);
        std::iter::from_fn(move || {
            let t = total?;
            level = level.and_then(|l| l.checked_mul(self.inter_fanout));
            total = match (total, level) {
                // Fan-out 0: no tree deeper than the root's children.
                (_, Some(0)) => None,
                (Some(t), Some(l)) => t.checked_add(l),
                _ => None,
            };
            Some(t)
        })
    }

    /// The number of inter levels `L` holding `chassis` chassis (≥ 2), or
    /// `None` when no tree of this layout holds them.
    fn inter_levels(&self, chassis: u64) -> Option<u64> {
        if self.inter_fanout == 1 {
            // A chain below each root child: 1 + r·(L + 1) chassis.
            return Some((chassis - 1).div_ceil(self.root_fanout).saturating_sub(1));
        }
        let mut last = 0;
        for (l, c) in self.capacities().enumerate() {
            if c >= chassis {
                return Some(l as u64);
            }
            last = l;
        }
        // Past u64: a fan-out ≥ 2 tree with one more level holds any u64 count.
        (self.inter_fanout >= 2).then_some(last as u64 + 1)
    }

    /// Node counts in `lo..=hi` at which L_i changes (the first N of a new
    /// layout), ascending: past one chassis, and past each full tree. At most
    /// [`MAX_BREAKPOINTS`] of them.
    pub fn breakpoints(&self, lo: u64, hi: u64) -> Vec<u64> {
        if self.inter_fanout == 1 {
            // Chains: b_k = c + 1 + c·r·k for k ≥ 0, an arithmetic progression.
            let (base, step) =
                (self.per_chassis.saturating_add(1), self.per_chassis.saturating_mul(self.root_fanout));
            let k0 = if lo < base { 0 } else { (lo - base) / step + 1 };
            return (k0..)
                .map_while(|k| step.checked_mul(k).and_then(|x| x.checked_add(base)).filter(|&n| n <= hi))
                .filter(|&n| n > lo)
                .take(MAX_BREAKPOINTS)
                .collect();
        }
        let first = self.per_chassis.checked_add(1);
        let later = self.capacities().map(|c| c.checked_mul(self.per_chassis).and_then(|n| n.checked_add(1)));
        std::iter::once(first)
            .chain(later)
            .map_while(|b| b.filter(|&n| n <= hi))
            .filter(|&n| n > lo)
            .take(MAX_BREAKPOINTS)
            .collect()
    }

    /// The tree for `n` nodes.
    pub fn layout(&self, n: u64) -> Result<Layout, BarrierError> {
        if n < 2 {
            return Err(BarrierError::TooFewNodes(n));
        }
        let chassis = n.div_ceil(self.per_chassis);
        if chassis == 1 {
            return Ok(Layout { nodes: n, chassis, inter_levels: None, per_level: vec![1] });
        }
        let l = self.inter_levels(chassis).ok_or(BarrierError::TreeTooSmall {
            nodes: n,
            chassis,
            root_fanout: self.root_fanout,
        })?;
        // Chassis per level, filled level by level (kept short for long chains).
        let mut per_level = vec![1u64];
        let (mut left, mut width) = (chassis - 1, self.root_fanout);
        while left > 0 && per_level.len() < MAX_LEVELS_LISTED {
            let here = left.min(width);
            per_level.push(here);
            left -= here;
            width = width.saturating_mul(self.inter_fanout);
        }
        Ok(Layout { nodes: n, chassis, inter_levels: Some(l), per_level })
    }
}

/// Breakpoints returned by [`Tree::breakpoints`] at most.
pub const MAX_BREAKPOINTS: usize = 1000;

/// Levels listed in [`Layout::per_level`] at most.
pub const MAX_LEVELS_LISTED: usize = 64;

/// The chassis tree at one node count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// N.
    pub nodes: u64,
    /// ⌈N / per_chassis⌉.
    pub chassis: u64,
    /// L_i; `None` for a single chassis (T_EB = T_IB).
    pub inter_levels: Option<u64>,
    /// Chassis per level, root first (at most [`MAX_LEVELS_LISTED`] levels).
    pub per_level: Vec<u64>,
}

impl Layout {
    /// `(k_IB, k_SR)` with `T_EB = k_IB·T_IB + k_SR·T_SR`.
    pub fn coefficients(&self) -> (u128, u128) {
        match self.inter_levels {
            None => (1, 0),
            // u128: no overflow for any u64 level count.
            Some(l) => (4 + 3 * u128::from(l), 3 * (u128::from(l) + 1)),
        }
    }

    /// T_EB for these T_IB and T_SR (both non-negative, so monotone).
    pub fn t_eb(&self, t_ib: &Interval, t_sr: &Interval) -> Interval {
        let (a, b) = self.coefficients();
        let (a, b) = (Rat::from_integer(a.into()), Rat::from_integer(b.into()));
        Interval { lo: &a * &t_ib.lo + &b * &t_sr.lo, hi: a * &t_ib.hi + b * &t_sr.hi }
    }

    /// T_SR at which T_EB equals `reference`, over `t_ib`: `None` for one
    /// chassis (T_EB does not depend on T_SR). Ends follow the band's.
    pub fn crossover(&self, t_ib: &Interval, reference: &Band) -> Option<Band> {
        let (a, b) = self.coefficients();
        if b == 0 {
            return None;
        }
        let (a, b) = (Rat::from_integer(a.into()), Rat::from_integer(b.into()));
        // Decreasing in T_IB, increasing in the reference.
        let lower = reference.lower.as_ref().map(|m| num::div(&num::sub_lowest(m, &(&a * &t_ib.hi)), &b));
        let upper = reference.upper.as_ref().map(|m| num::div(&num::sub_lowest(m, &(&a * &t_ib.lo)), &b));
        Some(Band::new(lower, upper))
    }
}

fn int(n: u64) -> Rat {
    Rat::from_integer(n.into())
}

/// Who is faster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The chassis (SCMD) network: T_EB below MPI_Barrier throughout.
    Chassis,
    /// MPI_Barrier: below T_EB throughout.
    Mpi,
    /// Equal.
    Tie,
    /// The intervals overlap: either may win.
    Undecided,
}

impl Verdict {
    /// Short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Chassis => "chassis",
            Verdict::Mpi => "MPI",
            Verdict::Tie => "tie",
            Verdict::Undecided => "undecided",
        }
    }
}

/// MPI_Barrier minus T_EB: positive when the chassis network wins.
pub fn margin(reference: &Band, t_eb: &Interval) -> Band {
    Band::new(
        reference.lower.as_ref().map(|m| num::sub_lowest(m, &t_eb.hi)),
        reference.upper.as_ref().map(|m| num::sub_lowest(m, &t_eb.lo)),
    )
}

/// The verdict of a margin.
pub fn verdict(m: &Band) -> Verdict {
    let zero = Rat::zero();
    match (&m.lower, &m.upper) {
        (Some(lo), _) if lo.is_positive() => Verdict::Chassis,
        (_, Some(hi)) if hi.is_negative() => Verdict::Mpi,
        (Some(lo), Some(hi)) if *lo == zero && *hi == zero => Verdict::Tie,
        _ => Verdict::Undecided,
    }
}

/// MPI_Barrier / T_EB (how many times faster the chassis network is);
/// `None` when T_EB can be 0.
pub fn speedup(reference: &Band, t_eb: &Interval) -> Option<Band> {
    if !t_eb.lo.is_positive() {
        return None;
    }
    Some(Band::new(
        reference.lower.as_ref().map(|m| num::div(m, if m.is_negative() { &t_eb.lo } else { &t_eb.hi })),
        reference.upper.as_ref().map(|m| num::div(m, if m.is_negative() { &t_eb.hi } else { &t_eb.lo })),
    ))
}

/// An MPI_Barrier time model fitted to measurements.
#[derive(Debug, Clone)]
pub struct MpiModel {
    /// The model (one variable: the node count).
    pub model: Model,
    /// Its measurements.
    pub data: Vec<Measurement>,
    /// Their file name.
    pub file: String,
    /// Seconds per unit of the model's value.
    pub unit_factor: Rat,
    /// Thresholds of its bands (empty: `max`).
    pub thresholds: Vec<Threshold>,
    /// Whether its analysis keeps the next-measurement bands (shown with
    /// the fit); the predictor itself reads only the model bands.
    pub measurement_bands: bool,
}

impl MpiModel {
    /// The MPI_Barrier model `model` (its time unit from its `unit`
    /// statement or the data's header) fitted to `data` of file `file` at
    /// `thresholds`; `measurement_bands` adds the bands of a new
    /// measurement. Fails when the model states no time unit.
    pub fn new(
        model: Model,
        data: Vec<Measurement>,
        file: &str,
        thresholds: Vec<Threshold>,
        measurement_bands: bool,
    ) -> Result<MpiModel, String> {
        let func = &model.func;
        let unit = model.units.get(func).cloned().ok_or_else(|| {
            format!(
                "the MPI_Barrier model {} states no time unit for `{func}`: add `unit {func} = us` to the model, or `[us]` to the time column's header in {file}",
                model.file
            )
        })?;
        let unit_factor = crate::units::factor_or_err(
            crate::units::Dim::Time,
            &unit,
            &format!("the unit of `{func}` in {}", model.file),
        )?;
        Ok(MpiModel { model, data, file: file.to_string(), unit_factor, thresholds, measurement_bands })
    }
}

/// The reference MPI_Barrier time.
#[derive(Debug, Clone)]
pub enum Reference {
    /// A given time or interval, s.
    Constant(Interval),
    /// A fitted model.
    Model(Box<MpiModel>),
}

/// Everything `errband barrier` needs.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Node counts, ascending, each ≥ 2.
    pub nodes: Vec<u64>,
    /// The chassis tree.
    pub tree: Tree,
    /// T_IB, s.
    pub t_ib: Interval,
    /// T_SR cases, s (points or intervals).
    pub t_sr: Vec<Interval>,
    /// The reference (`None`: T_EB only).
    pub reference: Option<Reference>,
    /// Node counts the conclusion is stated at (empty: the largest listed).
    pub conclude_at: Vec<u64>,
}

/// One reference column: the fitted (or given) value, or a band at one threshold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// `fit`, `given`, or the threshold's text.
    pub label: String,
    /// True for a band (a threshold) rather than the value itself.
    pub band: bool,
}

/// The comparison of one T_SR case with one reference column.
#[derive(Debug, Clone)]
pub struct Versus {
    /// MPI_Barrier − T_EB.
    pub margin: Band,
    /// Who wins.
    pub verdict: Verdict,
    /// MPI_Barrier / T_EB.
    pub speedup: Option<Band>,
}

/// The predictions at one node count.
#[derive(Debug, Clone)]
pub struct Row {
    /// The tree.
    pub layout: Layout,
    /// T_EB per T_SR case, s.
    pub t_eb: Vec<Interval>,
    /// MPI_Barrier per reference column, s (`None` for an unbounded band).
    pub mpi: Vec<Band>,
    /// `[case][column]`.
    pub versus: Vec<Vec<Versus>>,
    /// The crossover T_SR per reference column (`None`: one chassis).
    pub crossover: Vec<Option<Band>>,
}

/// T_EB and the reference at one node count of the plotted curves.
#[derive(Debug, Clone)]
pub struct CurvePoint {
    /// N.
    pub nodes: u64,
    /// T_EB per T_SR case, s.
    pub t_eb: Vec<Interval>,
    /// MPI_Barrier per reference column, s.
    pub mpi: Vec<Band>,
}

/// Most node counts sampled for the curves besides the listed ones.
pub const CURVE_SAMPLES: u64 = 240;

/// Node counts for drawing: every N when the range is short, else
/// geometrically spread ones; plus the listed N and both sides of every
/// breakpoint, so the steps of T_EB are drawn where they are.
pub fn curve_nodes(tree: &Tree, nodes: &[u64]) -> Vec<u64> {
    let (Some(&lo), Some(&hi)) = (nodes.iter().min(), nodes.iter().max()) else { return Vec::new() };
    let mut out: Vec<u64> = nodes.to_vec();
    if hi - lo <= CURVE_SAMPLES {
        out.extend(lo..=hi);
    } else {
        let ratio = (hi as f64 / lo as f64).powf(1.0 / CURVE_SAMPLES as f64);
        out.extend(
            (0..=CURVE_SAMPLES)
                .map(|i| ((lo as f64) * ratio.powi(i as i32)).round() as u64)
                .filter(|&n| (lo..=hi).contains(&n)),
        );
    }
    for b in tree.breakpoints(lo, hi) {
        out.extend([b - 1, b]);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The result of `errband barrier`.
#[derive(Debug, Clone)]
pub struct Prediction {
    /// The inputs.
    pub settings: Settings,
    /// Reference columns (empty without a reference).
    pub columns: Vec<Column>,
    /// One row per node count.
    pub rows: Vec<Row>,
    /// The curves for the plot, ascending in N (see [`curve_nodes`]).
    pub curve: Vec<CurvePoint>,
    /// The MPI_Barrier model's analysis.
    pub analysis: Option<Analysis>,
    /// Notes (inexact log2 values and the like).
    pub warnings: Vec<String>,
}

/// Runs the predictor.
pub fn predict(s: &Settings) -> Result<Prediction, BarrierError> {
    if s.nodes.is_empty() {
        return Err(BarrierError::NoNodes);
    }
    if !s.nodes.windows(2).all(|w| w[0] < w[1]) {
        return Err(BarrierError::NodesNotAscending);
    }
    if s.t_sr.is_empty() {
        return Err(BarrierError::NoTsr);
    }
    for (what, i) in std::iter::once(("T_IB", &s.t_ib)).chain(s.t_sr.iter().map(|t| ("T_SR", t))) {
        check_time(what, i)?;
    }
    if let Some(Reference::Constant(c)) = &s.reference {
        check_time("MPI_Barrier", c)?;
    }
    let layouts = s.nodes.iter().map(|&n| s.tree.layout(n)).collect::<Result<Vec<_>, _>>()?;
    if let Some(n) = s.conclude_at.iter().find(|n| !s.nodes.contains(n)) {
        return Err(BarrierError::ConcludeAtNotListed(*n));
    }
    let curve_n = curve_nodes(&s.tree, &s.nodes);
    let curve_layouts: Vec<Result<Layout, BarrierError>> =
        curve_n.iter().map(|&n| s.tree.layout(n)).collect();
    let mut warnings = Vec::new();
    // The reference at every curve node count (the listed ones among them).
    let Referenced { columns, analysis, at: mpi_at } = match &s.reference {
        None => Referenced { columns: Vec::new(), analysis: None, at: vec![Vec::new(); curve_n.len()] },
        Some(Reference::Constant(c)) => {
            let b = Band::new(Some(c.lo.clone()), Some(c.hi.clone()));
            let columns = vec![Column { label: "given".into(), band: c.lo != c.hi }];
            Referenced { columns, analysis: None, at: vec![vec![b]; curve_n.len()] }
        }
        Some(Reference::Model(m)) => {
            let r = model_reference(m, &curve_n)?;
            if let Some(a) = r.analysis.as_ref().filter(|a| !a.design.log.inexact.is_empty()) {
                warnings.push(format!(
                    "the MPI_Barrier model's inexact function values (such as log2 N for N not a power of two) are correctly rounded to {} significant digits",
                    a.design.log.digits
                ));
            }
            r
        }
    };
    let mpi_of = |n: u64| -> Vec<Band> {
        curve_n.binary_search(&n).ok().and_then(|i| mpi_at.get(i).cloned()).unwrap_or_default()
    };
    // T_EB depends on N only through the layout's coefficients, which
    // change at a few dozen N out of thousands: computed once per pair.
    let mut t_ebs: std::collections::HashMap<(u128, u128), Vec<Interval>> = Default::default();
    for layout in layouts.iter().chain(curve_layouts.iter().flatten()) {
        t_ebs
            .entry(layout.coefficients())
            .or_insert_with(|| s.t_sr.iter().map(|t| layout.t_eb(&s.t_ib, t)).collect());
    }
    let t_eb_of = |layout: &Layout| t_ebs.get(&layout.coefficients()).cloned().unwrap_or_default();
    // Rows are independent and each is a few dozen exact operations on the
    // reference's long fractions: in parallel, in order.
    use rayon::prelude::*;
    let rows = layouts
        .into_par_iter()
        .map(|layout| {
            let mpi = mpi_of(layout.nodes);
            let t_eb = t_eb_of(&layout);
            let versus = t_eb
                .iter()
                .map(|t| {
                    mpi.iter()
                        .map(|m| {
                            let margin = margin(m, t);
                            Versus { verdict: verdict(&margin), margin, speedup: speedup(m, t) }
                        })
                        .collect()
                })
                .collect();
            let crossover = mpi.iter().map(|m| layout.crossover(&s.t_ib, m)).collect();
            Row { layout, t_eb, mpi, versus, crossover }
        })
        .collect();
    let curve = curve_n
        .par_iter()
        .zip(mpi_at)
        .zip(curve_layouts)
        .map(|((&n, mpi), layout)| Ok(CurvePoint { nodes: n, t_eb: t_eb_of(&layout?), mpi }))
        .collect::<Result<Vec<_>, BarrierError>>()?;
    Ok(Prediction { settings: s.clone(), columns, rows, curve, analysis, warnings })
}

fn check_time(what: &'static str, i: &Interval) -> Result<(), BarrierError> {
    if i.lo.is_negative() {
        return Err(BarrierError::NegativeTime { what, lo: i.lo.clone() });
    }
    if i.lo > i.hi {
        return Err(BarrierError::EmptyInterval { what, interval: Box::new(i.clone()) });
    }
    Ok(())
}

/// The reference's columns and its value per column at each node count, s.
struct Referenced {
    columns: Vec<Column>,
    analysis: Option<Analysis>,
    at: Vec<Vec<Band>>,
}

/// Fits the MPI_Barrier model and reads it (and its bands) at every node count, in s.
fn model_reference(m: &MpiModel, nodes: &[u64]) -> Result<Referenced, BarrierError> {
    if m.model.vars.len() != 1 {
        return Err(BarrierError::ModelVariables { file: m.model.file.clone(), vars: m.model.vars.clone() });
    }
    let thresholds = if m.thresholds.is_empty() {
        vec![Threshold::parse("max").map_err(|d| BarrierError::BadThreshold(d.message))?]
    } else {
        m.thresholds.clone()
    };
    let at: Vec<Vec<Rat>> = nodes.iter().map(|&n| vec![int(n)]).collect();
    let opts = Options {
        thresholds: thresholds.clone(),
        at: at.clone(),
        no_cells: true,
        skip_measurement: !m.measurement_bands,
        limits: *m.model.limits(),
        ..Options::default()
    };
    let a = Analysis::run_rows(&m.model, &m.data, &m.file, &opts)
        .map_err(|e| BarrierError::Model(Box::new(e)))?;
    for (t, r) in thresholds.iter().zip(&a.regions) {
        if r.shape == RegionShape::Empty {
            return Err(BarrierError::BelowEmax {
                threshold: t.text.clone(),
                values: Box::new((r.value.clone(), a.emax.clone())),
            });
        }
    }
    let mut columns = vec![Column { label: "fit".into(), band: false }];
    columns.extend(thresholds.iter().map(|t| Column { label: t.text.clone(), band: true }));
    let scale = |x: &Rat| crate::num::mul(x, &m.unit_factor);
    // Predictions by point: a linear search per node count was quadratic
    // (10 000 node counts, 10^8 comparisons).
    let index: std::collections::HashMap<Point<&[Rat]>, &crate::analysis::Prediction> =
        a.predictions.iter().map(|p| (Point(p.x.as_slice()), p)).collect();
    use rayon::prelude::*;
    let rows = at
        .par_iter()
        .zip(nodes.par_iter())
        .map(|(x, &n)| {
            let p = index.get(&Point(x.as_slice())).ok_or(BarrierError::NoPrediction(n))?;
            let fit = scale(&p.model);
            let mut row = vec![Band::new(Some(fit.clone()), Some(fit))];
            row.extend(p.bands.iter().map(|b| match b {
                Some(b) => Band::new(b.lower.as_ref().map(scale), b.upper.as_ref().map(scale)),
                None => Band::new(None, None),
            }));
            Ok(row)
        })
        .collect::<Result<Vec<_>, BarrierError>>()?;
    Ok(Referenced { columns, analysis: Some(a), at: rows })
}

#[cfg(test)]
mod tests;
