//! The two input forms of `errband energy`:
//!
//! * a **profile** in long form, `region,nodes,freq,time,power`, one line per
//!   measurement (repetitions allowed; `power` may be empty where it is not
//!   needed), units in the header (`time [ms]`) or given by the caller;
//! * **fitted values**, `region,alpha_p,beta_on,p_std,p_opt,f_opt,t_std`
//!   (\[K1\] Table 3), with optional `f_std`, `alpha_f`, `beta_f` columns.
//!
//! Everything is converted exactly to seconds, MHz, watts and joules.

use crate::data::table::{Row, Table};
use crate::data::DataError;
use crate::limits::Limits;
use crate::num::Rat;
use crate::units::{factor, Dim};
use num_traits::{One, Signed};

/// One measurement of a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// Node count.
    pub nodes: Rat,
    /// Frequency, MHz.
    pub freq: Rat,
    /// Run time of the region, s.
    pub time: Rat,
    /// Average power per node, W (after `--power total` division).
    pub power: Option<Rat>,
    /// 1-based line in the file.
    pub line: usize,
}

/// All samples of one region, in file order.
#[derive(Debug, Clone)]
pub struct RegionSamples {
    /// The region's name.
    pub name: String,
    /// Line of its first sample.
    pub line: usize,
    /// Its samples.
    pub samples: Vec<Sample>,
}

/// One region of the fitted-values form.
#[derive(Debug, Clone)]
pub struct GivenRegion {
    /// The region's name.
    pub name: String,
    /// Its line.
    pub line: usize,
    /// Parallel fraction α_p.
    pub alpha_p: Rat,
    /// Frequency sensitivity β_on.
    pub beta_on: Rat,
    /// Power per node at f_std, W.
    pub p_std: Rat,
    /// Power per node at f_opt, W.
    pub p_opt: Rat,
    /// The chosen frequency, MHz.
    pub f_opt: Rat,
    /// Time on one node at f_std, s.
    pub t_std: Rat,
    /// f_std of this line (column `f_std`), MHz.
    pub f_std: Option<Rat>,
    /// Overhead energy coefficients `(α^f, β^f)` in J (columns `alpha_f`, `beta_f`).
    pub overhead: Option<(Rat, Rat)>,
}

/// What the file holds.
#[derive(Debug, Clone)]
pub enum Input {
    /// A long-form profile.
    Profile(Vec<RegionSamples>),
    /// Fitted values.
    Given(Vec<GivenRegion>),
}

/// How the `power` column is meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PowerIs {
    /// Average power of one node (the papers' P(1, r, f)).
    #[default]
    PerNode,
    /// Total power of all nodes of the run; divided by `nodes`.
    Total,
}

/// Units for columns whose header gives none.
#[derive(Debug, Clone)]
pub struct DefaultUnits {
    /// Time unit (default `s`).
    pub time: String,
    /// Frequency unit (default `MHz`).
    pub freq: String,
    /// Power unit (default `W`).
    pub power: String,
}

impl Default for DefaultUnits {
    fn default() -> Self {
        DefaultUnits { time: "s".into(), freq: "MHz".into(), power: "W".into() }
    }
}

const PROFILE_HEADER: &str = "region,nodes,freq [MHz],time [s],power [W]";
const GIVEN_HEADER: &str = "region,alpha_p,beta_on,p_std,p_opt,f_opt,t_std";

/// Reads either form; the fitted-values form is recognised by an `alpha_p` column.
pub fn read(
    text: &str,
    file: &str,
    units: &DefaultUnits,
    power_is: PowerIs,
    limits: Limits,
) -> Result<Input, DataError> {
    let t = Table::read(text, file, limits.rows)?;
    if t.find("alpha_p").is_some() {
        read_given(&t, units, limits).map(Input::Given)
    } else {
        read_profile(&t, units, power_is, limits).map(Input::Profile)
    }
}

/// The factor of column `col`'s unit (header, else the default).
fn unit_factor(t: &Table, col: usize, dim: Dim, default: &str) -> Result<Rat, DataError> {
    let c = &t.columns[col];
    let unit = c.unit.as_deref().unwrap_or(default);
    factor(dim, unit).ok_or_else(|| {
        t.header_error(
            format!("column `{}`: unknown {} unit `{unit}`", c.name, dim_name(dim)),
            Some(format!("accepted: {}", dim.accepted())),
        )
    })
}

fn dim_name(d: Dim) -> &'static str {
    match d {
        Dim::Time => "time",
        Dim::Frequency => "frequency",
        Dim::Power => "power",
        Dim::Energy => "energy",
        Dim::Bytes => "size",
    }
}

fn region_name(t: &Table, row: &Row, col: usize) -> Result<String, DataError> {
    let name = row.cell(col).to_string();
    if name.is_empty() {
        return Err(t.cell_error(row, col, format!("line {}: empty region name", row.line), None));
    }
    Ok(name)
}

fn positive(t: &Table, row: &Row, col: usize, noun: &str, v: Rat) -> Result<Rat, DataError> {
    if v.is_positive() {
        Ok(v)
    } else {
        Err(t.cell_error(
            row,
            col,
            format!("line {}: {noun} must be positive, got {}", row.line, row.cell(col)),
            None,
        ))
    }
}

fn read_profile(
    t: &Table,
    units: &DefaultUnits,
    power_is: PowerIs,
    limits: Limits,
) -> Result<Vec<RegionSamples>, DataError> {
    let cols = t.require(&["region", "nodes", "freq", "time", "power"], PROFILE_HEADER)?;
    let (rc, nc, fc, tc, pc) = (cols[0], cols[1], cols[2], cols[3], cols[4]);
    let ft = unit_factor(t, tc, Dim::Time, &units.time)?;
    let ff = unit_factor(t, fc, Dim::Frequency, &units.freq)?;
    let fp = unit_factor(t, pc, Dim::Power, &units.power)?;
    let mut regions: Vec<RegionSamples> = Vec::new();
    for row in &t.rows {
        let name = region_name(t, row, rc)?;
        let nodes = positive(t, row, nc, "the node count", t.number(row, nc, "node count", limits)?)?;
        if !nodes.is_integer() {
            return Err(t.cell_error(
                row,
                nc,
                format!("line {}: a node count must be a whole number", row.line),
                None,
            ));
        }
        let freq = positive(t, row, fc, "the frequency", t.number(row, fc, "frequency", limits)? * &ff)?;
        let time = positive(t, row, tc, "the time", t.number(row, tc, "time", limits)? * &ft)?;
        let power = match t.optional_number(row, pc, "power", limits)? {
            None => None,
            Some(p) => {
                let p = positive(t, row, pc, "the power", p * &fp)?;
                Some(if power_is == PowerIs::Total { p / &nodes } else { p })
            }
        };
        let s = Sample { nodes, freq, time, power, line: row.line };
        match regions.iter_mut().find(|r| r.name == name) {
            Some(r) => r.samples.push(s),
            None => regions.push(RegionSamples { name, line: row.line, samples: vec![s] }),
        }
    }
    if regions.is_empty() {
        return Err(t.end_error(
            format!("no measurements in {}", t.file),
            Some(format!("expected lines such as `main,2,3000,12.5,140` under `{PROFILE_HEADER}`")),
        ));
    }
    Ok(regions)
}

fn read_given(t: &Table, units: &DefaultUnits, limits: Limits) -> Result<Vec<GivenRegion>, DataError> {
    let cols =
        t.require(&["region", "alpha_p", "beta_on", "p_std", "p_opt", "f_opt", "t_std"], GIVEN_HEADER)?;
    let [rc, ac, bc, psc, poc, foc, tsc] = [cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6]];
    let fstd_col = t.find("f_std");
    let ov_cols = (t.find("alpha_f"), t.find("beta_f"));
    if ov_cols.0.is_some() != ov_cols.1.is_some() {
        return Err(t.header_error(
            "the overhead energy needs both `alpha_f` and `beta_f` columns".into(),
            Some("E_overhead(n) = (alpha_f·log2 n + beta_f)/n (Kimura et al. [K2], eq. 17)".into()),
        ));
    }
    let ff = unit_factor(t, foc, Dim::Frequency, &units.freq)?;
    let fsf = match fstd_col {
        Some(c) => unit_factor(t, c, Dim::Frequency, &units.freq)?,
        None => Rat::one(),
    };
    let ft = unit_factor(t, tsc, Dim::Time, &units.time)?;
    let fps = unit_factor(t, psc, Dim::Power, &units.power)?;
    let fpo = unit_factor(t, poc, Dim::Power, &units.power)?;
    let mut out: Vec<GivenRegion> = Vec::new();
    for row in &t.rows {
        let name = region_name(t, row, rc)?;
        if let Some(prev) = out.iter().find(|g| g.name == name) {
            return Err(t.cell_error(
                row,
                rc,
                format!("line {}: region `{name}` is given twice (first on line {})", row.line, prev.line),
                Some("the fitted-values form has one line per region".into()),
            ));
        }
        let num = |c: usize, noun: &str| t.number(row, c, noun, limits);
        let overhead = match ov_cols {
            (Some(a), Some(b)) => {
                let ef = |c: usize| unit_factor(t, c, Dim::Energy, "J");
                Some((num(a, "alpha_f")? * ef(a)?, num(b, "beta_f")? * ef(b)?))
            }
            _ => None,
        };
        out.push(GivenRegion {
            alpha_p: num(ac, "alpha_p")?,
            beta_on: num(bc, "beta_on")?,
            p_std: positive(t, row, psc, "p_std", num(psc, "power")? * &fps)?,
            p_opt: positive(t, row, poc, "p_opt", num(poc, "power")? * &fpo)?,
            f_opt: positive(t, row, foc, "f_opt", num(foc, "frequency")? * &ff)?,
            t_std: positive(t, row, tsc, "t_std", num(tsc, "time")? * &ft)?,
            f_std: match fstd_col {
                Some(c) => Some(positive(t, row, c, "f_std", num(c, "frequency")? * &fsf)?),
                None => None,
            },
            overhead,
            name,
            line: row.line,
        });
    }
    if out.is_empty() {
        return Err(t.end_error(
            format!("no regions in {}", t.file),
            Some(format!("expected lines under `{GIVEN_HEADER}`")),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::frac;

    fn profile(text: &str) -> Result<Vec<RegionSamples>, String> {
        match read(text, "p.csv", &DefaultUnits::default(), PowerIs::PerNode, Limits::default()) {
            Ok(Input::Profile(p)) => Ok(p),
            Ok(Input::Given(_)) => Err("given".into()),
            Err(e) => Err(e.render(text)),
        }
    }

    #[test]
    fn profile_units_and_grouping() {
        let p =
            profile("region,nodes,freq [GHz],time [ms],power\na,2,3,1500,140\nb,2,3,10,\na,4,2.5,800,120\n")
                .unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].samples.len(), 2);
        assert_eq!(p[0].samples[0].freq, frac(3000, 1));
        assert_eq!(p[0].samples[0].time, frac(3, 2));
        assert_eq!(p[1].samples[0].power, None);
    }

    #[test]
    fn profile_errors_point_at_cells() {
        let e = profile("region,nodes,freq,time,power\na,2.5,3000,1,1\n").unwrap_err();
        assert!(e.contains("p.csv:2:3") && e.contains("whole number"), "{e}");
        let e = profile("region,nodes,freq,time,power\na,2,3000,-1,1\n").unwrap_err();
        assert!(e.contains("time must be positive"), "{e}");
        let e = profile("region,nodes,freq,time\na,2,3000,1\n").unwrap_err();
        assert!(e.contains("no column `power`"), "{e}");
        let e = profile("region,nodes,freq [parsec],time,power\na,2,3000,1,1\n").unwrap_err();
        assert!(e.contains("unknown frequency unit `parsec`"), "{e}");
        let e = profile("region,nodes,freq,time,power\n,2,3000,1,1\n").unwrap_err();
        assert!(e.contains("empty region name"), "{e}");
    }

    #[test]
    fn total_power_is_divided_by_nodes() {
        let text = "region,nodes,freq,time,power\na,4,3000,1,400\n";
        let Ok(Input::Profile(p)) =
            read(text, "p.csv", &DefaultUnits::default(), PowerIs::Total, Limits::default())
        else {
            panic!("not a profile")
        };
        assert_eq!(p[0].samples[0].power, Some(frac(100, 1)));
    }

    #[test]
    fn given_form() {
        let text = "region,alpha_p,beta_on,p_std,p_opt,f_opt,t_std\ncalc,1.0,1.0,125,125,3000,1\nmem,0.9,0.1,150,115,2000,1\n";
        let Ok(Input::Given(g)) =
            read(text, "g.csv", &DefaultUnits::default(), PowerIs::PerNode, Limits::default())
        else {
            panic!("not given")
        };
        assert_eq!(g.len(), 2);
        assert_eq!(g[1].alpha_p, frac(9, 10));
        let dup = format!("{text}calc,1,1,1,1,1,1\n");
        let e =
            read(&dup, "g.csv", &DefaultUnits::default(), PowerIs::PerNode, Limits::default()).unwrap_err();
        assert!(e.render(&dup).contains("given twice"));
    }
}
