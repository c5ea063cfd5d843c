//! `errband MODEL DATA`: the core method on a model file and measurements.

use super::{read_input, Failure};
use crate::analysis::{Analysis, AnalysisError, Options, Shape, Threshold};
use crate::data::{self, ColumnSpec, Measurement};
use crate::fit::FitError;
use crate::model::{syntax, FitMode, Model};
use crate::num::{fmt_fraction, fmt_sig, Rat};
use crate::report::{Pruned, Report};
use clap::{Args, ValueEnum};
use std::collections::BTreeMap;
use std::io::Write;
use std::time::Instant;

/// Output syntax of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The terminal report, read top to bottom.
    Text,
    /// JSON (schema in the README).
    Json,
    /// The band table as CSV.
    Csv,
    /// Markdown tables.
    Md,
}

/// Which QE problem `--emit-qe` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EmitQe {
    /// Paper eq. (6): ∃Δc over the residual system; solving it gives `e_max <= e`.
    Emax,
    /// Paper eq. (5)/(7): the region at the first threshold.
    Region,
}

/// Arguments of the main command.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// Model file (`.tm`).
    #[arg(value_name = "MODEL")]
    pub model: Option<String>,
    /// Measurements: CSV with a header, or Extra-P text (`-` for standard input).
    #[arg(value_name = "DATA")]
    pub data: Option<String>,
    /// Residual threshold: `max` (= Max|e_i|), `emax`, a number, or `K*emax`, `K*max`; repeatable (default: max and emax).
    #[arg(long = "threshold", short = 't', value_name = "T", allow_negative_numbers = true)]
    pub thresholds: Vec<String>,
    /// Prediction points, e.g. `p=1000`, `p=2000..10000:2000`, `p=1024,n=100..300:100`; repeatable.
    #[arg(long, value_name = "POINTS")]
    pub at: Vec<String>,
    /// Drop the measurements at these points (e.g. `p=110`), refit and compare; repeatable.
    #[arg(long, value_name = "POINTS")]
    pub drop: Vec<String>,
    /// Drop the N-th measurement (the `row` column of the residual table); repeatable.
    #[arg(long = "drop-row", value_name = "N")]
    pub drop_row: Vec<usize>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Show exact fractions in the text report.
    #[arg(long)]
    pub exact: bool,
    /// Significant digits of decimals.
    #[arg(long, value_name = "N", default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub decimal: u32,
    /// Order of the Δ variables in the cylindrical form, outermost first (e.g. `dc2,dc1`).
    #[arg(long, value_delimiter = ',')]
    pub order: Vec<String>,
    /// Analyse the parameter values given in the model instead of fitting (same as `fit none`).
    #[arg(long)]
    pub no_fit: bool,
    /// Column holding the measured value (default: the model's function name).
    #[arg(long, value_name = "COLUMN")]
    pub y: Option<String>,
    /// Column holding a model variable, e.g. `p=procs`; repeatable.
    #[arg(long, value_name = "VAR=COLUMN")]
    pub x: Vec<String>,
    /// Extra-P region to read.
    #[arg(long)]
    pub region: Option<String>,
    /// Extra-P metric to read.
    #[arg(long)]
    pub metric: Option<String>,
    /// Significant digits of values that cannot be exact (log2 of a non-power of two, ln, sqrt, exp).
    #[arg(long, value_name = "N", default_value_t = crate::num::transcendental::DEFAULT_DIGITS, value_parser = clap::value_parser!(u32).range(10..=1000))]
    pub digits: u32,
    /// Print a QE problem of the analysis in `errband qe` syntax instead of the report.
    #[arg(long, value_enum, value_name = "WHICH")]
    pub emit_qe: Option<EmitQe>,
    /// Print the time spent in each phase to standard error.
    #[arg(long)]
    pub timings: bool,
}

fn write_out(out: &mut dyn Write, s: &str) -> Result<(), Failure> {
    out.write_all(s.as_bytes()).map_err(|e| Failure::analysis(format!("cannot write output: {e}")))
}

fn fit_failure(e: FitError, model: &Model, data_file: &str) -> Failure {
    match e {
        FitError::Eval(d) => Failure::input(d.render(&model.source)),
        FitError::TooFewPoints { points, params } => Failure::analysis(format!(
            "too few points: {params} parameters need at least {params} distinct data points; {data_file} has {points}"
        )),
        FitError::RankDeficient { directions } => {
            let names: Vec<&str> = model.params.iter().map(|p| p.name.as_str()).collect();
            let mut involved: Vec<&str> = Vec::new();
            let mut dirs = Vec::new();
            for d in &directions {
                let terms: Vec<String> = d
                    .iter()
                    .zip(&names)
                    .filter(|(v, _)| !num_traits::Zero::is_zero(*v))
                    .map(|(v, n)| {
                        if !involved.contains(n) {
                            involved.push(n);
                        }
                        format!("{}·{n}", fmt_fraction(v))
                    })
                    .collect();
                dirs.push(format!("({})", terms.join(", ")));
            }
            Failure::analysis(format!(
                "the data cannot separate the parameters {}: changing them along {} leaves the model unchanged at every data point\n  = help: measure at more distinct points, fix a parameter with `const`, or analyse given values with `fit none` (the region is then unbounded along these directions)",
                involved.join(", "),
                dirs.join(" and ")
            ))
        }
    }
}

fn analysis_failure(e: AnalysisError, model: &Model, data_file: &str) -> Failure {
    match e {
        AnalysisError::Fit(f) => fit_failure(f, model, data_file),
        AnalysisError::Qe(q) => Failure::analysis(format!("the QE engine stopped: {q}")),
        AnalysisError::NegativeThreshold(t, v) => {
            Failure::input(format!("threshold `{t}` is negative ({})", fmt_sig(&v, 6)))
        }
        AnalysisError::NoData => Failure::input(format!("no measurements in {data_file}")),
    }
}

/// Indices of the measurements matching any of the `--drop` points or `--drop-row` numbers.
fn dropped(
    model: &Model,
    data: &[Measurement],
    drop: &[String],
    rows: &[usize],
) -> Result<Vec<usize>, Failure> {
    let mut out = Vec::new();
    for d in drop {
        let assigns = syntax::parse_assignments_arg(d, "--drop").map_err(|e| Failure::input(e.render(d)))?;
        let points = model.points(&assigns, "--drop", d).map_err(|e| Failure::input(e.render(d)))?;
        let hit: Vec<usize> = (0..data.len()).filter(|&i| points.contains(&data[i].x)).collect();
        if hit.is_empty() {
            return Err(Failure::input(format!("--drop {d}: no measurement is at that point")));
        }
        out.extend(hit);
    }
    for &r in rows {
        if r == 0 || r > data.len() {
            return Err(Failure::input(format!(
                "--drop-row {r}: there are {} measurements (rows 1..{})",
                data.len(),
                data.len()
            )));
        }
        out.push(r - 1);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Runs the main command.
pub fn run(a: AnalyzeArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Failure> {
    let t0 = Instant::now();
    let (model_path, data_path) = match (&a.model, &a.data) {
        (Some(m), Some(d)) => (m.clone(), d.clone()),
        _ => {
            return Err(Failure::input(
                "usage: errband MODEL DATA [OPTIONS]  (e.g. errband models/hpl.tm data/hpl.csv); see errband --help",
            ))
        }
    };
    let msrc = read_input(&model_path)?;
    let mut model =
        Model::parse(&msrc, &model_path, a.digits).map_err(|d| Failure::input(d.render(&msrc)))?;
    if a.no_fit {
        if let Some(p) = model.params.iter().find(|p| p.given.is_none()) {
            return Err(Failure::input(format!(
                "--no-fit needs a value for every parameter; `{}` has none in {model_path} (write `param {} = VALUE`)",
                p.name, p.name
            )));
        }
        model.fit = FitMode::Given;
    }
    let mut rename = BTreeMap::new();
    for x in &a.x {
        let (v, c) = x
            .split_once('=')
            .ok_or_else(|| Failure::input(format!("--x {x}: expected VAR=COLUMN, e.g. p=procs")))?;
        if !model.vars.iter().any(|m| m == v.trim()) {
            return Err(Failure::input(format!(
                "--x {x}: `{}` is not a variable of the model ({})",
                v.trim(),
                model.vars.join(", ")
            )));
        }
        rename.insert(v.trim().to_string(), c.trim().to_string());
    }
    let spec = ColumnSpec {
        vars: model.vars.clone(),
        y: model.func.clone(),
        rename,
        y_column: a.y.clone(),
        region: a.region.clone(),
        metric: a.metric.clone(),
        ..ColumnSpec::default()
    };
    let dsrc = read_input(&data_path)?;
    let dataset = data::read(&dsrc, &data_path, &spec).map_err(|e| Failure::input(e.render(&dsrc)))?;
    // Units from the data header fill in those the model does not state.
    for (k, u) in &dataset.units {
        model.units.entry(k.clone()).or_insert_with(|| u.clone());
    }
    let t_parse = t0.elapsed();

    let mut thresholds = Vec::new();
    for t in &a.thresholds {
        thresholds.push(Threshold::parse(t).map_err(|d| Failure::input(d.render(t)))?);
    }
    let mut at = Vec::new();
    for s in &a.at {
        let assigns = syntax::parse_assignments_arg(s, "--at").map_err(|e| Failure::input(e.render(s)))?;
        at.extend(model.points(&assigns, "--at", s).map_err(|e| Failure::input(e.render(s)))?);
    }
    let dnames = crate::analysis::delta_names(&model);
    for o in &a.order {
        if !dnames.contains(o) {
            return Err(Failure::input(format!("--order {o}: the Δ variables are {}", dnames.join(", "))));
        }
    }
    let opts = Options { thresholds, at, order: a.order.clone() };
    let rows = &dataset.rows;

    if let Some(which) = a.emit_qe {
        let design = crate::fit::Design::new(&model, rows, &data_path)
            .map_err(|e| fit_failure(e, &model, &data_path))?;
        let threshold = match which {
            EmitQe::Emax => None,
            EmitQe::Region => {
                let an = Analysis::run(&model, rows, &data_path, &opts)
                    .map_err(|e| analysis_failure(e, &model, &data_path))?;
                Some(an.regions.first().map(|r| r.value.clone()).unwrap_or_default())
            }
        };
        let names: Vec<String> = model.params.iter().map(|p| p.name.clone()).collect();
        let p = Analysis::problem(&design, &names, threshold.as_ref());
        let header = match which {
            EmitQe::Emax => format!(
                "# e_max of {model_path} on {data_path} (paper eq. 6), over the parameters themselves\n# (c = C + Δc); `errband qe` gives `e_max <= e`\n"
            ),
            EmitQe::Region => format!(
                "# region of {model_path} on {data_path} at threshold {} (paper eq. 5/7), over the\n# parameters themselves (c = C + Δc: subtract the fitted C for the Δc region)\n",
                threshold.as_ref().map(fmt_fraction).unwrap_or_default()
            ),
        };
        let body = crate::qe::output::qe_problem(&p);
        write_out(out, &format!("{header}{body}\n"))?;
        return Ok(super::EXIT_OK);
    }

    let t1 = Instant::now();
    let analysis = Analysis::run(&model, rows, &data_path, &opts)
        .map_err(|e| analysis_failure(e, &model, &data_path))?;
    let t_analysis = t1.elapsed();
    let pruned = if a.drop.is_empty() && a.drop_row.is_empty() {
        None
    } else {
        let d = dropped(&model, rows, &a.drop, &a.drop_row)?;
        let kept: Vec<Measurement> =
            (0..rows.len()).filter(|i| !d.contains(i)).map(|i| rows[i].clone()).collect();
        let mut popts = opts.clone();
        popts.at = analysis.predictions.iter().map(|p| p.x.clone()).collect();
        let mut pmodel = model.clone();
        pmodel.predict.clear();
        let pa = Analysis::run(&pmodel, &kept, &data_path, &popts).map_err(|e| {
            let f = analysis_failure(e, &model, &data_path);
            Failure { message: format!("after dropping: {}", f.message), code: f.code }
        })?;
        Some(Pruned { dropped: d, analysis: pa })
    };
    let t2 = Instant::now();
    let report = Report {
        model: &model,
        data_file: &data_path,
        data: rows,
        analysis: &analysis,
        pruned: pruned.as_ref(),
        digits: a.decimal as usize,
        exact: a.exact,
        warnings: &dataset.warnings,
    };
    let text = match a.format {
        Format::Text => report.text(),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&report.json())
                .map_err(|e| Failure::analysis(format!("cannot write JSON: {e}")))?;
            s.push('\n');
            s
        }
        Format::Csv => report.csv(),
        Format::Md => report.markdown(),
    };
    write_out(out, &text)?;
    let t_output = t2.elapsed();
    if a.timings {
        let _ = writeln!(
            err,
            "timings: parse {:.1} ms, analysis {:.1} ms (fit, e_max, regions, bands), output {:.1} ms, total {:.1} ms",
            t_parse.as_secs_f64() * 1e3,
            t_analysis.as_secs_f64() * 1e3,
            t_output.as_secs_f64() * 1e3,
            t0.elapsed().as_secs_f64() * 1e3
        );
    }
    // A requested threshold below e_max leaves nothing to analyse for it:
    // the report says so, and the exit code tells scripts.
    let empty: Vec<&str> = analysis
        .regions
        .iter()
        .filter(|r| r.shape == Shape::Empty)
        .map(|r| r.threshold.text.as_str())
        .collect();
    if !empty.is_empty() {
        let _ = writeln!(
            err,
            "errband: threshold {} is below e_max = {} (exact {}): the region is empty",
            empty.join(", "),
            fmt_sig(&analysis.emax, a.decimal as usize),
            fmt_fraction(&analysis.emax)
        );
        return Ok(super::EXIT_ANALYSIS);
    }
    let _: Option<Rat> = None;
    Ok(super::EXIT_OK)
}
