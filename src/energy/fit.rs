//! One region's fits: its measured means, the frequency f_opt,
//! the models of α_p, β_on (and the overhead energy of \[K2\] eq. 17)
//! analysed exactly, and the corners of their regions per threshold.

use super::input::{RegionSamples, Sample};
use super::{
    distinct, mean, Corner, EnergyError, FitKind, FitRun, FreqPoint, Objective, Place, RegionFit, Settings,
};
use crate::analysis::{self, Analysis, AnalysisError, Shape, Threshold};
use crate::data::Measurement;
use crate::model::{show_value, Model, Spec};
use crate::num::Rat;
use num_traits::{One, Zero};

/// What every region's fit shares.
pub(super) struct Ctx<'a> {
    /// The profile's file name, for messages.
    pub file: &'a str,
    /// The standard frequency, MHz.
    pub f_std: &'a Rat,
    /// The base node count.
    pub base: &'a Rat,
    /// The command's settings.
    pub s: &'a Settings,
    /// The thresholds of the fits' regions.
    pub thresholds: &'a [Threshold],
}

/// The region's measured means on the base node count.
struct Measured {
    /// Mean time at f_std, s.
    t_base: Rat,
    /// Means per frequency.
    freqs: Vec<FreqPoint>,
    /// Mean power per node at f_std, W.
    p_std: Rat,
}

/// Fits region `r`: means, f_opt, the analyses of its models, and their
/// corners per threshold.
pub(super) fn fit_region(r: &RegionSamples, c: &Ctx<'_>) -> Result<RegionFit, EnergyError> {
    let here = || {
        Box::new(Place {
            file: c.file.to_string(),
            line: r.line,
            region: r.name.clone(),
            f_std: c.f_std.clone(),
            base: c.base.clone(),
        })
    };
    let m = measured(r, c, &here)?;
    let forced = c.s.fopt.iter().find(|(n, _)| *n == r.name).map(|(_, f)| f.clone());
    let (f_opt, p_opt) = choose_fopt(r, c, &m, forced.as_ref())?;
    let overhead = c.s.overhead.contains(&r.name);
    let fits = fit_models(r, c, &m, overhead, &here)?;
    let (point, corners) = corners(r, c, &m.t_base, overhead, &fits)?;
    Ok(RegionFit {
        name: r.name.clone(),
        line: r.line,
        overhead,
        f_opt,
        f_opt_forced: forced.is_some(),
        p_std: m.p_std,
        p_opt,
        t_base: m.t_base,
        freqs: m.freqs,
        fits,
        point,
        corners,
    })
}

/// The mean time at the base node count and f_std, the means per
/// frequency there, and the power at f_std (all required).
fn measured(r: &RegionSamples, c: &Ctx<'_>, here: &dyn Fn() -> Box<Place>) -> Result<Measured, EnergyError> {
    let at = |x: &Sample, n: &Rat, f: &Rat| x.nodes == *n && x.freq == *f;
    let base_std: Vec<&Sample> = r.samples.iter().filter(|x| at(x, c.base, c.f_std)).collect();
    if base_std.is_empty() {
        let freqs = distinct(r.samples.iter().filter(|x| x.nodes == *c.base).map(|x| x.freq.clone()));
        let nodes = distinct(r.samples.iter().filter(|x| x.freq == *c.f_std).map(|x| x.nodes.clone()));
        return Err(EnergyError::NoBaseMeasurement { at: here(), freqs, nodes });
    }
    let t_base = mean(base_std.iter().map(|x| &x.time)).unwrap_or_default();
    let freqs: Vec<FreqPoint> =
        distinct(r.samples.iter().filter(|x| x.nodes == *c.base).map(|x| x.freq.clone()))
            .into_iter()
            .map(|f| {
                let xs: Vec<&Sample> = r.samples.iter().filter(|x| at(x, c.base, &f)).collect();
                FreqPoint {
                    time: mean(xs.iter().map(|x| &x.time)).unwrap_or_default(),
                    power: mean(xs.iter().filter_map(|x| x.power.as_ref())),
                    samples: xs.len(),
                    freq: f,
                }
            })
            .collect();
    let p_std = power_at(&freqs, c.f_std).ok_or_else(|| EnergyError::NoPowerAtFstd {
        at: here(),
        lines: base_std.iter().map(|x| x.line).collect(),
    })?;
    if freqs.len() < 2 {
        return Err(EnergyError::OneFrequency { at: here() });
    }
    Ok(Measured { t_base, freqs, p_std })
}

fn power_at(freqs: &[FreqPoint], f: &Rat) -> Option<Rat> {
    freqs.iter().find(|p| p.freq == *f).and_then(|p| p.power.clone())
}

/// f_opt and the power there: `--fopt`'s frequency, else the measured
/// frequency of least P·T (or P·T² for EDP); a tie goes to the higher one.
fn choose_fopt(
    r: &RegionSamples,
    c: &Ctx<'_>,
    m: &Measured,
    forced: Option<&Rat>,
) -> Result<(Rat, Rat), EnergyError> {
    if let Some(f) = forced {
        let p = power_at(&m.freqs, f).ok_or_else(|| EnergyError::NoPowerAtFopt {
            region: r.name.clone(),
            values: Box::new((f.clone(), c.base.clone())),
            measured: m.freqs.iter().filter(|p| p.power.is_some()).map(|p| p.freq.clone()).collect(),
        })?;
        return Ok((f.clone(), p));
    }
    let score = |p: &FreqPoint| -> Option<Rat> {
        let e = p.power.as_ref()? * &p.time;
        Some(match c.s.objective {
            Objective::Energy => e,
            Objective::Edp => e * &p.time,
        })
    };
    let mut best: Option<(Rat, &FreqPoint)> = None;
    for p in &m.freqs {
        if let Some(v) = score(p) {
            // Ascending frequencies: `<=` lets a tie go to the higher one.
            if best.as_ref().is_none_or(|(b, _)| v <= *b) {
                best = Some((v, p));
            }
        }
    }
    Ok(match best {
        Some((_, p)) => (p.freq.clone(), p.power.clone().unwrap_or_default()),
        None => (c.f_std.clone(), m.p_std.clone()),
    })
}

/// The analyses of α_p (or of the overhead energy) over the node counts at
/// f_std, and of β_on over the frequencies on the base node count.
fn fit_models(
    r: &RegionSamples,
    c: &Ctx<'_>,
    m: &Measured,
    overhead: bool,
    here: &dyn Fn() -> Box<Place>,
) -> Result<Vec<FitRun>, EnergyError> {
    let std_rows: Vec<&Sample> = r.samples.iter().filter(|x| x.freq == *c.f_std).collect();
    let node_counts = distinct(std_rows.iter().map(|x| x.nodes.clone()));
    if node_counts.len() < 2 {
        return Err(EnergyError::OneNodeCount { at: here(), counts: node_counts, overhead });
    }
    let opts = analysis::Options {
        thresholds: c.thresholds.to_vec(),
        no_cells: true,
        limits: c.s.limits,
        ..Default::default()
    };
    let run = |kind: FitKind, spec: Spec, data: Vec<Measurement>| -> Result<FitRun, EnergyError> {
        let file = format!("{} [{}: {} fit]", c.file, r.name, kind.name());
        let fail = |model: Model, error: AnalysisError| EnergyError::Fit {
            region: r.name.clone(),
            kind,
            model: Box::new(model),
            file: file.clone(),
            error: Box::new(error),
        };
        let model = spec
            .build(&file, c.s.digits, &c.s.limits)
            .map_err(|d| EnergyError::InternalModel { file: file.clone(), message: d.message })?;
        let analysis = Analysis::run_rows(&model, &data, &file, &opts).map_err(|e| fail(model.clone(), e))?;
        Ok(FitRun { kind, model, data, analysis })
    };
    let meas = |x: Rat, y: Rat, line: usize| Measurement { x: vec![x], y, line };
    let mut fits = Vec::new();
    if overhead {
        let p_std = &m.p_std;
        let e_base = c.base * p_std * &m.t_base;
        let mut data = Vec::new();
        for x in &std_rows {
            let p = x.power.as_ref().ok_or_else(|| EnergyError::OverheadNeedsPower {
                file: c.file.to_string(),
                line: x.line,
                region: r.name.clone(),
            })?;
            data.push(meas(x.nodes.clone(), &x.nodes * p * &x.time - &e_base, x.line));
        }
        let spec = Spec::new("E", &["n"], "af*log2(n) + bf")
            .comment("Overhead energy beyond perfect scaling, summed over the nodes (Kimura et al. [K2], eq. 17: n·E_overhead).")
            .params(&["af", "bf"])
            .unit("E", "J")
            .unit("n", "nodes");
        fits.push(run(FitKind::Overhead, spec, data)?);
    } else {
        let data: Vec<Measurement> =
            std_rows.iter().map(|x| meas(x.nodes.clone(), x.time.clone(), x.line)).collect();
        let spec = if c.base.is_one() {
            Spec::new("T", &["n"], "T1*(1 + ap*(1/n - 1))")
                .comment("alpha_p by Kimura et al. [K1], eq. 5 (least squares through the origin), T1 = T(1, r, f_std) measured.")
                .constant("T1", m.t_base.clone())
                .params(&["ap"])
        } else {
            Spec::new("T", &["n"], "A + B/n")
                .comment("Run time at f_std on n nodes (the base count above 1); alpha_p = B/(A + B).")
                .params(&["A", "B"])
        };
        fits.push(run(FitKind::Alpha, spec.unit("T", "s").unit("n", "nodes"), data)?);
    }
    let data: Vec<Measurement> = r
        .samples
        .iter()
        .filter(|x| x.nodes == *c.base)
        .map(|x| meas(x.freq.clone(), x.time.clone(), x.line))
        .collect();
    let spec = Spec::new("T", &["f"], "Tstd*(1 + bon*(fstd/f - 1))")
        .comment(format!(
            "beta_on by Kimura et al. [K1], eq. 6 (least squares through the origin) on {} nodes, Tstd = T(n0, r, f_std) measured.",
            show_value(c.base)
        ))
        .constant("Tstd", m.t_base.clone())
        .constant("fstd", c.f_std.clone())
        .params(&["bon"])
        .unit("T", "s")
        .unit("f", "MHz");
    fits.push(run(FitKind::Beta, spec, data)?);
    Ok(fits)
}

/// The region's values at the fitted parameters, and per threshold at every
/// combination of its fits' region vertices.
fn corners(
    r: &RegionSamples,
    c: &Ctx<'_>,
    t_base: &Rat,
    overhead: bool,
    fits: &[FitRun],
) -> Result<(Corner, Vec<Vec<Corner>>), EnergyError> {
    let time_part = |params: &[Rat]| -> (Rat, Rat) {
        if overhead {
            (Rat::zero(), c.base * t_base)
        } else if c.base.is_one() {
            let ap = params.first().cloned().unwrap_or_default();
            (t_base * (Rat::one() - &ap), t_base * ap)
        } else {
            (params.first().cloned().unwrap_or_default(), params.get(1).cloned().unwrap_or_default())
        }
    };
    let get = |k: FitKind| fits.iter().find(|f| f.kind == k);
    let first_two =
        |p: &[Rat]| (p.first().cloned().unwrap_or_default(), p.get(1).cloned().unwrap_or_default());
    let alpha_fit = get(FitKind::Alpha);
    let beta_fit = get(FitKind::Beta);
    let ov_fit = get(FitKind::Overhead);
    let point_of = |alpha: &[Rat], beta: &[Rat], ov: &[Rat]| {
        let (a, b) = time_part(alpha);
        let (af, bf) = if overhead { first_two(ov) } else { (Rat::zero(), Rat::zero()) };
        Corner { a, b, beta: beta.first().cloned().unwrap_or_default(), af, bf }
    };
    let empty: Vec<Rat> = Vec::new();
    let params = |f: Option<&FitRun>| f.map_or(empty.clone(), |f| f.analysis.params.clone());
    let point = point_of(&params(alpha_fit), &params(beta_fit), &params(ov_fit));
    let mut corners = Vec::with_capacity(c.thresholds.len());
    for (ti, t) in c.thresholds.iter().enumerate() {
        let vertices = |f: Option<&FitRun>| -> Result<Vec<Vec<Rat>>, EnergyError> {
            let Some(f) = f else { return Ok(vec![Vec::new()]) };
            let reg = &f.analysis.regions[ti];
            match &reg.shape {
                Shape::Empty => Err(EnergyError::BelowEmax {
                    threshold: t.text.clone(),
                    values: Box::new((reg.value.clone(), f.analysis.emax.clone())),
                    fit: f.kind.name(),
                    region: r.name.clone(),
                }),
                Shape::Unbounded { .. } => Err(EnergyError::Unbounded {
                    fit: f.kind.name(),
                    region: r.name.clone(),
                    threshold: t.text.clone(),
                }),
                Shape::Unlisted { limit, .. } => Err(EnergyError::TooManyVertices {
                    fit: f.kind.name(),
                    region: r.name.clone(),
                    limit: *limit,
                    threshold: t.text.clone(),
                }),
                Shape::Untrusted { .. } => Err(EnergyError::Untrusted {
                    fit: f.kind.name(),
                    region: r.name.clone(),
                    bound: reg.bound.describe(3),
                    threshold: t.text.clone(),
                }),
                _ => Ok(reg.params_at.clone()),
            }
        };
        let (va, vb, vo) = (vertices(alpha_fit)?, vertices(beta_fit)?, vertices(ov_fit)?);
        let mut cs = Vec::with_capacity(va.len() * vb.len() * vo.len());
        for a in &va {
            for b in &vb {
                for o in &vo {
                    cs.push(point_of(a, b, o));
                }
            }
        }
        corners.push(cs);
    }
    Ok((point, corners))
}
