//! Backtests on the user's own data: fit without some measurements (the
//! largest scale, or those a condition names), then check each held-out
//! measurement against every band errband gives at its point.
//!
//! This is how a band earns trust: not by its derivation, but by how often
//! it contained measurements it never saw. The checks are exact (the bands
//! are exact rationals and so are the measurements); the summary counts,
//! per threshold and band kind, the measurements inside, the points with no
//! band (refused), and the median relative half-width.

use crate::analysis::{Analysis, AnalysisError, Band, Options};
use crate::data::Measurement;
use crate::family::{FamilyAnalysis, FamilyError, Origin};
use crate::lang::diag::Diagnostic;
use crate::model::Model;
use crate::num::{parse_rat, Point, Rat};
use num_traits::{Signed, Zero};
use std::collections::HashMap;

/// A comparison in a holdout condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `=`
    Eq,
    /// `!=`
    Ne,
}

impl Op {
    fn holds(self, a: &Rat, b: &Rat) -> bool {
        match self {
            Op::Lt => a < b,
            Op::Le => a <= b,
            Op::Gt => a > b,
            Op::Ge => a >= b,
            Op::Eq => a == b,
            Op::Ne => a != b,
        }
    }
}

/// Which measurements to hold out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holdout {
    /// Those at the largest value of a variable (the first one by default).
    Largest(usize),
    /// Those meeting every condition `var OP value`.
    Where(Vec<(usize, Op, Rat)>),
}

impl Holdout {
    /// Parses `largest`, `largest n`, or conditions joined by `and` or
    /// commas: `p>=512`, `p = 512 and n > 100`.
    pub fn parse(text: &str, vars: &[String]) -> Result<Holdout, Diagnostic> {
        let err = |span: std::ops::Range<usize>, m: String| Diagnostic::new("--holdout", span, m);
        let var_index = |name: &str, at: usize| {
            vars.iter().position(|v| v == name).ok_or_else(|| {
                err(
                    at..at + name.len(),
                    format!("`{name}` is not a variable of the model (it has {})", vars.join(", ")),
                )
            })
        };
        let t = text.trim();
        let lead = text.len() - text.trim_start().len();
        if let Some(rest) = t.strip_prefix("largest") {
            let v = rest.trim();
            return if v.is_empty() {
                Ok(Holdout::Largest(0))
            } else {
                Ok(Holdout::Largest(var_index(v, lead + t.len() - rest.trim_start().len())?))
            };
        }
        let mut conds = Vec::new();
        let mut offset = 0;
        for part in text.split(',').flat_map(|p| p.split(" and ")) {
            let at = text[offset..].find(part).map_or(offset, |i| offset + i);
            offset = at + part.len();
            let p = part.trim();
            let p_at = at + (part.len() - part.trim_start().len());
            let ops =
                [("<=", Op::Le), (">=", Op::Ge), ("!=", Op::Ne), ("<", Op::Lt), (">", Op::Gt), ("=", Op::Eq)];
            let Some((i, len, op)) = ops.iter().find_map(|(s, op)| p.find(s).map(|i| (i, s.len(), *op)))
            else {
                return Err(err(
                    p_at..p_at + p.len().max(1),
                    format!("`{p}`: expected a condition such as `p>=512`, or `largest`"),
                ));
            };
            let name = p[..i].trim();
            let value = p[i + len..].trim();
            let var = var_index(name, p_at)?;
            let v = parse_rat(value)
                .map_err(|e| err(p_at + i + len..p_at + p.len(), format!("`{value}`: {e}")))?;
            conds.push((var, op, v));
        }
        Ok(Holdout::Where(conds))
    }

    /// The indices of the held-out measurements.
    pub fn held(&self, data: &[Measurement]) -> Vec<usize> {
        match self {
            Holdout::Largest(v) => {
                let Some(top) = data.iter().filter_map(|m| m.x.get(*v)).max() else { return vec![] };
                (0..data.len()).filter(|&i| data[i].x.get(*v) == Some(top)).collect()
            }
            Holdout::Where(conds) => (0..data.len())
                .filter(|&i| conds.iter().all(|(v, op, c)| data[i].x.get(*v).is_some_and(|x| op.holds(x, c))))
                .collect(),
        }
    }

    /// The measurements left to fit: `data` without those [`Holdout::held`] names.
    pub fn train(&self, data: &[Measurement]) -> Vec<Measurement> {
        let mut is_held = vec![false; data.len()];
        for i in self.held(data) {
            is_held[i] = true;
        }
        data.iter().zip(&is_held).filter(|(_, h)| !**h).map(|(m, _)| m.clone()).collect()
    }
}

/// A kind of band a held-out measurement is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The band of the model value (the paper's).
    Model,
    /// The band of a new measurement.
    Measurement,
    /// The family's band of a new measurement (the hull over the forms
    /// consistent at the threshold).
    Family,
    /// The band errband recommends for the next measurement
    /// ([`crate::trust`]).
    Recommended,
}

impl Kind {
    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Model => "model",
            Kind::Measurement => "measurement",
            Kind::Family => "family",
            Kind::Recommended => "recommended",
        }
    }
}

/// One held-out measurement against one band.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// The threshold (as written).
    pub threshold: String,
    /// Which band.
    pub kind: Kind,
    /// The band (`None`: no band: the region is empty, or untrusted).
    pub band: Option<Band>,
    /// Inside the band (`None` when there is no band).
    pub inside: Option<bool>,
    /// How far outside, relative to the measurement: `(d − upper)/d` above
    /// the band, `(lower − d)/d` below it; zero inside.
    pub outside_by: Option<Rat>,
}

/// A held-out measurement and its verdicts.
#[derive(Debug, Clone)]
pub struct Check {
    /// Its index in the data.
    pub row: usize,
    /// The measurement.
    pub measurement: Measurement,
    /// One verdict per threshold and kind.
    pub verdicts: Vec<Verdict>,
}

/// Coverage of one threshold and band kind over the held-out measurements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    /// The threshold.
    pub threshold: String,
    /// The band kind.
    pub kind: Kind,
    /// Held-out measurements with a band.
    pub measurements: usize,
    /// Of those, inside it.
    pub inside: usize,
    /// Held-out points with no band (refused or empty).
    pub refused: usize,
    /// Held-out points in all.
    pub points: usize,
    /// Per point with a finite band: its half-width over the mean of the
    /// held-out measurements there.
    pub half_widths: Vec<Rat>,
}

impl Coverage {
    /// The median of the relative half-widths.
    pub fn median_half_width(&self) -> Option<Rat> {
        let mut v = self.half_widths.clone();
        v.sort();
        let n = v.len();
        match n {
            0 => None,
            _ if n % 2 == 1 => Some(v[n / 2].clone()),
            _ => Some((&v[n / 2 - 1] + &v[n / 2]) / Rat::from_integer(2.into())),
        }
    }

    /// Adds another coverage of the same threshold and kind.
    pub fn add(&mut self, o: &Coverage) {
        self.measurements += o.measurements;
        self.inside += o.inside;
        self.refused += o.refused;
        self.points += o.points;
        self.half_widths.extend(o.half_widths.iter().cloned());
    }
}

/// The result of a backtest.
#[derive(Debug, Clone)]
pub struct Backtest {
    /// The condition as the user wrote it.
    pub holdout: String,
    /// The measurements the model was fitted on.
    pub train: Vec<Measurement>,
    /// The held-out measurements (indices into the data).
    pub held: Vec<usize>,
    /// The analysis on `train`, with the held-out points among its predictions.
    pub analysis: Analysis,
    /// The family on `train`, at the same points, when one was asked for.
    pub family: Option<FamilyAnalysis>,
    /// One check per held-out measurement.
    pub checks: Vec<Check>,
    /// Coverage per threshold and kind, in the analysis' threshold order.
    pub coverage: Vec<Coverage>,
}

/// Why a backtest could not be done.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum BacktestError {
    /// Nothing is held out, or nothing is left to fit.
    Split(String),
    /// The analysis on the training measurements failed.
    Analysis(AnalysisError),
    /// The family on the training measurements failed.
    Family(FamilyError),
}

impl From<AnalysisError> for BacktestError {
    fn from(e: AnalysisError) -> Self {
        BacktestError::Analysis(e)
    }
}

/// Builds a family's forms from the training measurements (so that a
/// family that ranks terms on the data sees only those).
pub type FamilyForms<'a> = dyn Fn(&[Measurement]) -> Result<Vec<(Model, Origin)>, FamilyError> + Sync + 'a;

/// Fits `model` on the measurements `holdout` leaves, and checks each
/// held-out one against every band at its point; with `family`, also the
/// family's band of a new measurement. `text` is the condition as
/// written, for reports.
pub fn run(
    model: &Model,
    data: &[Measurement],
    file: &str,
    opts: &Options,
    holdout: &Holdout,
    text: &str,
    family: Option<&FamilyForms<'_>>,
) -> Result<Backtest, BacktestError> {
    let held = holdout.held(data);
    if held.is_empty() {
        return Err(BacktestError::Split(format!("--holdout {text} holds out no measurement of {file}")));
    }
    if held.len() == data.len() {
        return Err(BacktestError::Split(format!(
            "--holdout {text} holds out every measurement of {file}; nothing is left to fit"
        )));
    }
    let train = holdout.train(data);
    let mut at = opts.at.clone();
    for &i in &held {
        if !at.contains(&data[i].x) {
            at.push(data[i].x.clone());
        }
    }
    let analysis = Analysis::run_rows(model, &train, file, &Options { at, ..opts.clone() })?;
    let points: Vec<Vec<Rat>> = analysis.predictions.iter().map(|p| p.x.clone()).collect();
    let family = match family {
        None => None,
        Some(build) => {
            let forms = build(&train).map_err(BacktestError::Family)?;
            Some(crate::family::analyse(forms, &train, file, opts, &points).map_err(BacktestError::Family)?)
        }
    };
    // Every band, as (threshold, kind, band per prediction point).
    let mut lists: Vec<(String, Kind, Vec<Option<Band>>)> = Vec::new();
    for (t, r) in analysis.regions.iter().enumerate() {
        let name = r.threshold.text.clone();
        lists.push((
            name.clone(),
            Kind::Model,
            analysis.predictions.iter().map(|p| p.bands[t].clone()).collect(),
        ));
        lists.push((
            name,
            Kind::Measurement,
            analysis.predictions.iter().map(|p| p.measurement[t].clone()).collect(),
        ));
    }
    if let Some(f) = &family {
        for (l, hull) in f.levels.iter().zip(&f.hull) {
            let bands = hull.iter().map(|h| h.as_ref().map(|h| h.measurement.clone())).collect();
            lists.push((l.threshold.text.clone(), Kind::Family, bands));
        }
    }
    let mut b = Backtest {
        holdout: text.to_string(),
        train,
        held: held.clone(),
        analysis,
        family,
        checks: held
            .iter()
            .map(|&i| Check { row: i, measurement: data[i].clone(), verdicts: Vec::new() })
            .collect(),
        coverage: Vec::new(),
    };
    for (threshold, kind, bands) in lists {
        b.add(data, &points, &threshold, kind, &bands);
    }
    Ok(b)
}

impl Backtest {
    /// Checks every held-out measurement against one more band list (one
    /// band per point of `points`, which holds every held-out point), and
    /// adds its coverage.
    pub fn add(
        &mut self,
        data: &[Measurement],
        points: &[Vec<Rat>],
        threshold: &str,
        kind: Kind,
        bands: &[Option<Band>],
    ) {
        let prediction_of: HashMap<Point<&[Rat]>, usize> =
            points.iter().enumerate().map(|(k, x)| (Point(x.as_slice()), k)).collect();
        for c in &mut self.checks {
            let d = &c.measurement;
            let band =
                prediction_of.get(&Point(d.x.as_slice())).and_then(|&k| bands.get(k)).cloned().flatten();
            let (inside, outside_by) = match &band {
                None => (None, None),
                Some(b) => {
                    let below = b.lower.as_ref().filter(|l| d.y < **l).map(|l| l - &d.y);
                    let above = b.upper.as_ref().filter(|u| d.y > **u).map(|u| &d.y - u);
                    let by = below.or(above).map_or_else(Rat::zero, |gap| {
                        if d.y.is_zero() {
                            gap
                        } else {
                            gap / d.y.abs()
                        }
                    });
                    (Some(by.is_zero()), Some(by))
                }
            };
            c.verdicts.push(Verdict { threshold: threshold.to_string(), kind, band, inside, outside_by });
        }
        self.coverage.push(coverage(threshold, kind, bands, &prediction_of, data, &self.held));
    }
}

/// Coverage of one threshold and kind (see [`Coverage`]).
fn coverage(
    threshold: &str,
    kind: Kind,
    bands: &[Option<Band>],
    prediction_of: &HashMap<Point<&[Rat]>, usize>,
    data: &[Measurement],
    held: &[usize],
) -> Coverage {
    // The held-out measurements by point, in order of first appearance.
    let mut points: Vec<(&[Rat], Vec<&Rat>)> = Vec::new();
    for &i in held {
        match points.iter_mut().find(|(x, _)| *x == data[i].x.as_slice()) {
            Some((_, ys)) => ys.push(&data[i].y),
            None => points.push((data[i].x.as_slice(), vec![&data[i].y])),
        }
    }
    let mut c = Coverage {
        threshold: threshold.to_string(),
        kind,
        measurements: 0,
        inside: 0,
        refused: 0,
        points: 0,
        half_widths: vec![],
    };
    for (x, ys) in &points {
        c.points += 1;
        let Some(b) = prediction_of.get(&Point(x)).and_then(|&k| bands.get(k)?.as_ref()) else {
            c.refused += 1;
            continue;
        };
        for y in ys {
            c.measurements += 1;
            if b.contains(y) {
                c.inside += 1;
            }
        }
        let mean = ys.iter().fold(Rat::zero(), |a, y| a + *y) / Rat::from_integer(ys.len().into());
        if let (Some(w), false) = (b.width(), mean.is_zero()) {
            c.half_widths.push(w / Rat::from_integer(2.into()) / mean.abs());
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{frac, int};

    fn data() -> Vec<Measurement> {
        // T = 10 + 100/p, exactly, then a measurement at p = 8 off by 1.
        [(1, "110"), (2, "60"), (4, "35"), (8, "23.5"), (8, "22.5")]
            .iter()
            .enumerate()
            .map(|(i, (p, y))| Measurement { x: vec![int(*p)], y: parse_rat(y).unwrap(), line: i + 2 })
            .collect()
    }

    #[test]
    fn conditions_parse_and_split() {
        let vars = vec!["p".to_string(), "n".to_string()];
        assert_eq!(Holdout::parse("largest", &vars).unwrap(), Holdout::Largest(0));
        assert_eq!(Holdout::parse(" largest n", &vars).unwrap(), Holdout::Largest(1));
        assert_eq!(
            Holdout::parse("p>=512 and n != 3", &vars).unwrap(),
            Holdout::Where(vec![(0, Op::Ge, int(512)), (1, Op::Ne, int(3))])
        );
        assert_eq!(Holdout::parse("p<1/2", &vars).unwrap(), Holdout::Where(vec![(0, Op::Lt, frac(1, 2))]));
        let e = Holdout::parse("q>=5", &vars).unwrap_err();
        assert!(e.message.contains("`q` is not a variable"), "{}", e.message);
        assert_eq!(e.span, 0..1);
        assert!(Holdout::parse("p", &vars).unwrap_err().message.contains("expected a condition"));
        assert!(Holdout::parse("p>=x", &vars).is_err());
        let d = data();
        assert_eq!(Holdout::Largest(0).held(&d), vec![3, 4]);
        assert_eq!(Holdout::parse("p<=2", &["p".into()]).unwrap().held(&d), vec![0, 1]);
    }

    #[test]
    fn held_out_measurements_are_checked_against_every_band() {
        let m = Model::parse("T(p) = a + b/p\nparam a, b\n", "m.tm", 30).unwrap();
        let opts = Options {
            thresholds: vec![
                crate::analysis::Threshold::parse("max").unwrap(),
                crate::analysis::Threshold::parse("1").unwrap(),
            ],
            ..Options::default()
        };
        let b = run(&m, &data(), "d.csv", &opts, &Holdout::Largest(0), "largest", None).unwrap();
        assert_eq!(b.train.len(), 3);
        assert_eq!(b.held, vec![3, 4]);
        // The fit on p = 1, 2, 4 is exact: T(8) = 22.5; max = 0, so the
        // model band is that value and so is the max+0 measurement band.
        let model_max = &b.coverage[0];
        assert_eq!((model_max.kind, model_max.measurements, model_max.inside), (Kind::Model, 2, 1));
        // At threshold 1 the new-measurement band is [L − 1, U + 1] ∋ 23.5.
        let meas_1 = &b.coverage[3];
        assert_eq!((meas_1.kind, meas_1.inside, meas_1.points), (Kind::Measurement, 2, 1));
        let v = &b.checks[0].verdicts[0];
        assert_eq!(v.inside, Some(false));
        assert_eq!(v.outside_by, Some(frac(2, 47)), "23.5 is 1 above the band [22.5, 22.5]");
        assert!(run(
            &m,
            &data(),
            "d.csv",
            &opts,
            &Holdout::parse("p>100", &["p".into()]).unwrap(),
            "p>100",
            None
        )
        .is_err());
    }
}
