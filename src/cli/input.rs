//! Arguments shared by the commands that read a model and measurements
//! (`errband MODEL DATA`, `prune`, `plan`), and their validation into a
//! model, a dataset and analysis options.

use super::{decode, read_bytes, Failure};
use crate::analysis::{Options, Threshold};
use crate::data::detect::{self, Kind};
use crate::data::{self, Aggregate, ColumnSpec, Dataset, Parts, Selection, Source};
use crate::limits::Limits;
use crate::model::extrap::{self, ModelSet};
use crate::model::{FitMode, Model};
use crate::num::Rat;
use clap::Args;
use std::collections::BTreeMap;

/// Options shared by every command that analyses a model on data.
#[derive(Args, Debug, Clone)]
pub struct CommonArgs {
    /// Residual threshold: absolute (`max` = Max|e_i|, `emax`, a number, `K*emax`), relative (`5%`, `rmax` = Max|e_i|/d_i, `remax`, `2*remax`), `max(2*remax, 5%)`, or `trusted` (= max(2*remax, NOISE)); repeatable (default: max and trusted).
    #[arg(long = "threshold", short = 't', value_name = "T", allow_negative_numbers = true)]
    pub thresholds: Vec<String>,
    /// Show exact fractions in the text report.
    #[arg(long)]
    pub exact: bool,
    /// Significant digits of decimals.
    #[arg(long, value_name = "N", default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub decimal: u32,
    /// Analyse the parameter values given in the model instead of fitting (same as `fit none`).
    #[arg(long)]
    pub no_fit: bool,
    /// Fit without the model's `weight` (plain least squares).
    #[arg(long)]
    pub unweighted: bool,
    /// Column holding the measured value (default: the model's function name).
    #[arg(long, value_name = "COLUMN")]
    pub y: Option<String>,
    /// Column holding a model variable, e.g. `p=procs`; repeatable.
    #[arg(long, value_name = "VAR=COLUMN")]
    pub x: Vec<String>,
    /// Callpaths (Extra-P regions, or `--by` groups) to analyse: a name or a glob such as `'main->*'` (default: every one).
    #[arg(long, value_name = "NAME|GLOB")]
    pub region: Option<String>,
    /// Metrics to analyse: a name or a glob (default: every one).
    #[arg(long, value_name = "NAME|GLOB")]
    pub metric: Option<String>,
    /// Split a CSV file into groups by the values of these columns, one analysis per group (e.g. `--by mpi,collective`).
    #[arg(long, value_name = "COLUMNS", value_delimiter = ',')]
    pub by: Vec<String>,
    /// Field separator of CSV input: `,` `;` `tab` or `space` (runs of blanks, as OSU benchmarks print); default: detected from the header line.
    #[arg(long, value_name = "SEP", value_parser = data::dialect::Delimiter::parse)]
    pub delimiter: Option<data::dialect::Delimiter>,
    /// How the repetitions at a point enter the fit: all (each is a constraint; the paper's method), mean (what Extra-P fits), median, min or max.
    #[arg(long, value_enum, value_name = "HOW", default_value_t = Aggregate::All)]
    pub aggregate: Aggregate,
    /// Run-to-run variability the trusted band assumes at least, as a percentage or fraction (`5%`, `0.05`): the trusted threshold is max(2*remax, NOISE).
    #[arg(long, value_name = "NOISE", default_value = "5%", value_parser = crate::threshold::parse_noise)]
    pub noise: Rat,
    /// Significant digits to which values that cannot be exact are correctly rounded (log2 of a non-power of two, ln, sqrt, exp); `--decimal` sets display digits.
    #[arg(long = "precision", alias = "digits", value_name = "N", default_value_t = crate::num::transcendental::DEFAULT_DIGITS, value_parser = clap::value_parser!(u32).range(10..=1000))]
    pub digits: u32,
}

/// A model and its measurements, read and checked.
pub struct Loaded {
    /// The model (units completed from the data header); with Extra-P's
    /// models, that of the first series that has one.
    pub model: Model,
    /// One model per series (in `parts` order) when the model argument
    /// holds Extra-P's models, each or why it could not be built (message,
    /// exit code); empty when `model` serves every series.
    pub models: Vec<Result<Model, crate::session::SeriesError>>,
    /// Every series selected (a whole experiment, or `--by` groups).
    pub parts: Parts,
    /// How repetitions were aggregated.
    pub aggregate: Aggregate,
    /// Their file name.
    pub data_path: String,
    /// Parsed thresholds (empty: the defaults).
    pub thresholds: Vec<Threshold>,
    /// The limits in force (`--max-*`).
    pub limits: Limits,
    /// `--noise`.
    pub noise: crate::num::Rat,
}

impl Loaded {
    /// The measurements of the first (often the only) series selected
    /// (borrowed: a copy of 10^6 rows cost a third of the memory).
    pub fn dataset(&self) -> &Dataset {
        &self.parts.first().dataset
    }

    /// Analysis options with these thresholds.
    pub fn options(&self) -> Options {
        Options {
            thresholds: self.thresholds.clone(),
            limits: self.limits,
            noise: Some(self.noise.clone()),
            ..Options::default()
        }
    }

    /// Points given on the command line (`--at p=1000`, `--target …`), expanded.
    pub fn points(&self, args: &[String], flag: &str) -> Result<Vec<Vec<Rat>>, Failure> {
        self.model.points_args(args, flag).map_err(Failure::input)
    }

    /// The points of `args` as written, enumerated on demand.
    pub fn point_set(&self, args: &[String], flag: &str) -> Result<crate::model::PointSet, Failure> {
        self.model.point_set(args, flag).map_err(Failure::input)
    }

    /// The one series a command that analyses a single series reads; an
    /// error lists the series when the input holds several.
    pub fn single(&self, command: &str) -> Result<&Dataset, Failure> {
        match self.parts.len() {
            1 => Ok(self.dataset()),
            n => {
                let names: Vec<String> =
                    (0..n.min(8)).filter_map(|i| self.parts.name(i)).map(|p| format!("`{p}`")).collect();
                Err(Failure::input(format!(
                    "{command} analyses one series, and {} holds {n} ({}{}); choose one with --region and --metric",
                    self.data_path,
                    names.join(", "),
                    if n > 8 { ", …" } else { "" }
                )))
            }
        }
    }
}

/// What the model argument names: a `.tm` model, or models Extra-P fitted.
enum ModelInput {
    /// One model for every series.
    Tm(Box<Model>),
    /// Extra-P's hypotheses, one per series or one for all.
    Extrap(ModelSet),
}

/// Reads the model argument.
fn read_model(path: &str, a: &CommonArgs, limits: &Limits) -> Result<ModelInput, Failure> {
    let bytes = read_bytes(path)?;
    let kind = detect::sniff(&bytes, path);
    if kind == Kind::ExtrapArchive {
        let exp = data::read_experiment(&bytes, "", kind, path, *limits).map_err(Failure::input)?;
        if exp.models.is_empty() {
            // Stored models that are not read say why (their JSON paths).
            let why: String =
                exp.warnings.iter().filter(|w| w.contains("not read")).map(|w| format!("\n  {w}")).collect();
            return Err(Failure::input(format!(
                "{path}: the Extra-P experiment stores no models errband can read; give a .tm model, or model it in Extra-P and save it{why}"
            )));
        }
        return Ok(ModelInput::Extrap(ModelSet::from_experiment(&exp)));
    }
    let msrc = decode(bytes, if path == "-" { "<stdin>" } else { path })?;
    if let Some(set) = ModelSet::from_text(&msrc, path, *limits) {
        return set.map(ModelInput::Extrap).map_err(|d| Failure::input(d.render(&msrc)));
    }
    let model =
        Model::parse_with(&msrc, path, a.digits, limits).map_err(|d| Failure::input(d.render(&msrc)))?;
    Ok(ModelInput::Tm(Box::new(model)))
}

/// Applies `--no-fit` and `--unweighted` to a model.
fn adjust(model: &mut Model, a: &CommonArgs, model_path: &str) -> Result<(), Failure> {
    if a.no_fit {
        if let Some(p) = model.params.iter().find(|p| p.given.is_none()) {
            return Err(Failure::input(format!(
                "--no-fit needs a value for every parameter; `{}` has none in {model_path} (write `param {} = VALUE`)",
                p.name, p.name
            )));
        }
        model.fit = FitMode::Given;
    }
    if a.unweighted {
        model.clear_weight();
    }
    Ok(())
}

/// The model a family is built on when no model file is given
/// ([`crate::session::discovery_base`] with the columns `--x`, `--y`,
/// `--by` and `--delimiter` name).
fn base_model(
    source: &Source<'_>,
    a: &CommonArgs,
    limits: &Limits,
) -> Result<(Model, Option<String>), Failure> {
    let x: Vec<String> =
        a.x.iter().map(|x| x.split_once('=').map_or(x.as_str(), |(v, _)| v).trim().to_string()).collect();
    let cols =
        crate::session::DiscoveryColumns { x: &x, y: a.y.as_deref(), by: &a.by, delimiter: a.delimiter };
    crate::session::discovery_base(source, &cols, a.digits, limits, crate::session::Spelling::Cli)
        .map_err(|e| Failure::input(e.to_string()))
}

/// Reads and checks the model and the data; with no model file, the model
/// is `T(vars) = c0` over the data's variables, for a family to replace.
pub fn load(
    model_path: Option<&str>,
    data_path: &str,
    a: &CommonArgs,
    limits: &Limits,
) -> Result<Loaded, Failure> {
    let sel = Selection { callpath: a.region.clone(), metric: a.metric.clone() };
    // The data first: Extra-P's models take the data's parameters as their variables.
    // A directory is a set of CUBE profiles, one subdirectory per run.
    let dir = Some(std::path::Path::new(data_path)).filter(|d| data_path != "-" && d.is_dir());
    let dbytes = if dir.is_some() { Vec::new() } else { read_bytes(data_path)? };
    // Text formats move their bytes into the text; archives keep theirs.
    let (kind, dsrc, dbytes) =
        data::decode_input(dbytes, if data_path == "-" { "<stdin>" } else { data_path })
            .map_err(Failure::input)?;
    let source = Source::read(dir, kind, &dsrc, &dbytes, data_path, *limits, &sel).map_err(Failure::input)?;
    drop(dbytes);
    // Options that only a CSV file has a use for are refused on other
    // inputs, naming both: silently ignored, they would leave the user
    // believing the groups or the separator were applied.
    if let Source::Experiment { experiment, .. } = &source {
        let what = if dir.is_some() {
            "a directory of CUBE profiles".to_string()
        } else {
            format!("{} input", experiment.format.name())
        };
        let csv_only = [
            (!a.by.is_empty()).then(|| format!("--by {}", a.by.join(","))),
            a.delimiter.map(|_| "--delimiter".to_string()),
        ];
        if let Some(flag) = csv_only.into_iter().flatten().next() {
            return Err(Failure::input(format!(
                "{flag}: applies to CSV files, and {} is {what}; its series are chosen with --region and --metric",
                super::files::escape_controls(data_path)
            )));
        }
    }
    let mut y_default = None;
    let (input, model_path) = match model_path {
        Some(p) => (
            read_model(p, a, limits).map_err(|f| {
                // `errband data.csv model.tm`: the CSV read as a model.
                if data_path.to_ascii_lowercase().ends_with(".tm") && f.code == super::EXIT_INPUT {
                    Failure {
                        message: format!(
                            "{}\n  = help: the model comes first: errband {data_path} {p}",
                            f.message.trim_end()
                        ),
                        code: f.code,
                    }
                } else {
                    f
                }
            })?,
            p,
        ),
        None => {
            let (m, y) = base_model(&source, a, limits)?;
            y_default = y;
            (ModelInput::Tm(Box::new(m)), "(no model file)")
        }
    };
    let (vars, func): (Vec<String>, String) = match &input {
        ModelInput::Tm(m) => (m.vars.clone(), m.func.clone()),
        ModelInput::Extrap(set) => {
            let vars = source.params().map_or_else(|| set.variables.clone(), <[String]>::to_vec);
            if let Some(v) = set.variables.iter().find(|v| !vars.contains(v)) {
                return Err(Failure::input(format!(
                    "{model_path}: Extra-P's model uses the parameter `{v}`, which {data_path} does not have (it has {})",
                    vars.join(", ")
                )));
            }
            (vars, "T".to_string())
        }
    };
    let mut rename = BTreeMap::new();
    for x in &a.x {
        let (v, c) = x
            .split_once('=')
            .ok_or_else(|| Failure::input(format!("--x {x}: expected VAR=COLUMN, e.g. p=procs")))?;
        if !vars.iter().any(|m| m == v.trim()) {
            return Err(Failure::input(format!(
                "--x {x}: `{}` is not a variable of the model ({})",
                v.trim(),
                vars.join(", ")
            )));
        }
        if let Some(before) = rename.insert(v.trim().to_string(), c.trim().to_string()) {
            return Err(Failure::input(format!(
                "--x {x}: `{}` was already given the column `{before}`; give each variable one --x",
                v.trim()
            )));
        }
    }
    // The measured value and each variable need a column of their own.
    let column_of = |v: &String| rename.get(v).cloned().unwrap_or_else(|| v.clone());
    let y_column = a.y.clone().or_else(|| y_default.clone()).unwrap_or_else(|| func.clone());
    let mut owner: BTreeMap<String, &String> = BTreeMap::new();
    for v in &vars {
        let c = column_of(v);
        if c == y_column {
            let flag = if a.y.is_some() { format!("--y {y_column}") } else { format!("--x {v}={c}") };
            return Err(Failure::input(format!(
                "{flag}: the column `{c}` would be both the variable `{v}` and the measured value; name another column"
            )));
        }
        if let Some(other) = owner.insert(c.clone(), v) {
            return Err(Failure::input(format!(
                "--x: the variables `{other}` and `{v}` would both read the column `{c}`; give each its own column"
            )));
        }
    }
    // (Only a CSV table read without a model file has a default column.)
    let implicit_vars = y_default.is_some() && a.x.is_empty();
    let spec = ColumnSpec {
        vars: vars.clone(),
        y: func.clone(),
        rename,
        y_column: a.y.clone().or(y_default),
        region: a.region.clone(),
        metric: a.metric.clone(),
        limits: *limits,
        by: a.by.clone(),
        delimiter: a.delimiter,
    };
    let mut parts = source
        .into_parts(data_path, &spec, &sel, a.aggregate)
        .map_err(|e| Failure::input(e.render(&dsrc)))?;
    if let Some(y) = spec.y_column.as_ref().filter(|_| implicit_vars) {
        if let Some(w) = crate::session::default_variables_warning(&vars, y, crate::session::Spelling::Cli) {
            parts.warn(w);
        }
    }
    let (mut model, models) = match input {
        ModelInput::Tm(mut m) => {
            adjust(&mut m, a, model_path)?;
            (*m, Vec::new())
        }
        ModelInput::Extrap(set) => {
            let mut models = Vec::with_capacity(parts.len());
            for i in 0..parts.len() {
                let (callpath, metric) = parts.names(i).unwrap_or_default();
                let built = set.lookup(callpath, metric).and_then(|m| {
                    let spec = extrap::model_spec(m, &func, &vars);
                    let name = if set.shared.is_some() {
                        model_path.to_string()
                    } else {
                        format!("{model_path} ({})", parts.name(i).unwrap_or_default())
                    };
                    let mut model = spec.build(&name, a.digits, limits).map_err(|d| d.to_string())?;
                    adjust(&mut model, a, model_path).map_err(|f| f.message)?;
                    Ok(model)
                });
                models.push(built.map_err(crate::session::SeriesError::Model));
            }
            let first = match &models[0] {
                Ok(m) => m.clone(),
                Err(e) if models.len() == 1 => return Err(Failure::input(e.to_string())),
                Err(_) => models.iter().find_map(|m| m.as_ref().ok().cloned()).ok_or_else(|| {
                    Failure::input(format!(
                        "{model_path}: no series of {data_path} has a model that errband can read"
                    ))
                })?,
            };
            (first, models)
        }
    };
    model.complete_units(&parts.first().dataset.units);
    let thresholds = Threshold::parse_list(&a.thresholds, &a.noise).map_err(Failure::input)?;
    Ok(Loaded {
        model,
        models,
        parts,
        aggregate: a.aggregate,
        data_path: data_path.to_string(),
        thresholds,
        limits: *limits,
        noise: a.noise.clone(),
    })
}
