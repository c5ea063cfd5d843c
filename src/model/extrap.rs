//! Extra-P's performance models as errband models.
//!
//! [`model_spec`] makes a [`Hypothesis`] (Extra-P's model string, read by
//! [`crate::hypothesis`]) a model with one parameter per coefficient,
//! Extra-P's values given, so that errband can refit the same form exactly
//! or band Extra-P's own coefficients (`--no-fit`); [`ModelSet`] holds the
//! models a file gives, one per series or one for every series.

use super::Spec;
use crate::data::{Experiment, StoredModel};
pub use crate::hypothesis::{
    looks_printed, parse, parse_printed, Factor, Hypothesis, HypothesisError, PrintedModel, Term,
};
use crate::lang::diag::Diagnostic;
use crate::limits::Limits;

/// Models Extra-P fitted, read from a file given where a `.tm` model goes:
/// one hypothesis for every series, or one per callpath and metric.
#[derive(Debug, Clone)]
pub struct ModelSet {
    /// The file they were read from.
    pub file: String,
    /// One model for every series (a file holding one hypothesis).
    pub shared: Option<StoredModel>,
    /// One model per series: `(callpath, metric)` and the model, or why
    /// there is none.
    pub per_series: Vec<(String, String, Result<StoredModel, String>)>,
    /// The parameters the models use, in order of first use (or the
    /// experiment's parameters when the models come with one).
    pub variables: Vec<String>,
}

impl Hypothesis {
    /// The hypothesis as a stored model of a series.
    pub fn stored(&self, callpath: &str, metric: &str) -> StoredModel {
        StoredModel {
            callpath: callpath.to_string(),
            metric: metric.to_string(),
            form: self.form(),
            coefficients: self.coefficients(),
            original: self.original.clone(),
        }
    }
}

impl ModelSet {
    /// Extra-P's models in `text`: its printed output (`Callpath:` …
    /// `Model:`), or a file holding one model string and comments. `None`
    /// when the text is neither (a `.tm` model: it has an `=`).
    pub fn from_text(text: &str, file: &str, limits: Limits) -> Option<Result<ModelSet, Diagnostic>> {
        if looks_printed(text) {
            let mut variables = Vec::new();
            let per_series = parse_printed(text, limits)
                .into_iter()
                .map(|p| {
                    let model = match p.hypothesis {
                        Ok(h) => {
                            for v in h.variables() {
                                if !variables.contains(&v) {
                                    variables.push(v);
                                }
                            }
                            Ok(h.stored(&p.callpath, &p.metric))
                        }
                        Err(e) => Err(located(text, file, &e)),
                    };
                    (p.callpath, p.metric, model)
                })
                .collect();
            return Some(Ok(ModelSet { file: file.to_string(), shared: None, per_series, variables }));
        }
        let mut body = None;
        let mut offset = 0;
        for raw in text.split_inclusive('\n') {
            let line = raw.trim();
            if !line.is_empty() && !line.starts_with('#') {
                if body.is_some() || line.contains('=') {
                    return None;
                }
                body = Some((offset + (raw.len() - raw.trim_start().len()), line));
            }
            offset += raw.len();
        }
        let (start, line) = body?;
        Some(
            parse(line, limits)
                .map(|h| ModelSet {
                    file: file.to_string(),
                    variables: h.variables(),
                    shared: Some(h.stored("", "")),
                    per_series: Vec::new(),
                })
                .map_err(|e| {
                    let at = start + e.at;
                    Diagnostic::new(file, at..(at + 1).min(text.len()).max(at), e.message).with_help(
                        "a model file is a `.tm` model (`T(p) = a + b*p`) or a model as Extra-P prints it (`79.3 + 0.0048 * p^(7/3)`)",
                    )
                }),
        )
    }

    /// The models an Extra-P experiment stores, one per series.
    pub fn from_experiment(exp: &Experiment) -> ModelSet {
        ModelSet {
            file: exp.file.clone(),
            shared: None,
            per_series: exp
                .models
                .iter()
                .map(|m| (m.callpath.clone(), m.metric.clone(), Ok(m.clone())))
                .collect(),
            variables: exp.params.clone(),
        }
    }

    /// The model of the series `callpath / metric`, or why there is none.
    pub fn lookup(&self, callpath: &str, metric: &str) -> Result<&StoredModel, String> {
        if let Some(m) = &self.shared {
            return Ok(m);
        }
        match self.per_series.iter().find(|(c, m, _)| c == callpath && m == metric) {
            Some((_, _, Ok(m))) => Ok(m),
            Some((_, _, Err(why))) => Err(why.clone()),
            None => Err(format!(
                "{} holds no Extra-P model for `{callpath} / {metric}` ({} models)",
                self.file,
                self.per_series.len()
            )),
        }
    }
}

/// A hypothesis error as a one-line located message.
fn located(text: &str, file: &str, e: &HypothesisError) -> String {
    let before = &text[..e.at.min(text.len())];
    let line = 1 + before.matches('\n').count();
    let column = 1 + before.rsplit('\n').next().map_or(0, |l| l.chars().count());
    format!("{file}:{line}:{column}: {}", e.message)
}

/// The model of a stored model's form over `vars` (every parameter of the
/// data, so that all series read their measurements the same way), named
/// `func`, with Extra-P's coefficients given as the parameters' values.
pub fn model_spec(m: &StoredModel, func: &str, vars: &[String]) -> Spec {
    let what = if m.callpath.is_empty() && m.metric.is_empty() {
        String::new()
    } else {
        format!(" for `{} / {}`", m.callpath, m.metric)
    };
    let vars: Vec<&str> = vars.iter().map(String::as_str).collect();
    let mut spec = Spec::new(func, &vars, &m.form).comment(format!("Extra-P's model{what}: {}", m.original));
    for (n, v) in &m.coefficients {
        spec = spec.given(n, v.clone());
    }
    spec
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::Rat;

    fn rat(s: &str) -> Rat {
        crate::num::parse_rat(s).unwrap()
    }

    #[test]
    fn model_spec_builds_a_model_with_extrap_values() {
        let h = parse("79.3076 + 0.00486739 * p^(7/3) * log2(n)^(1)", Limits::default()).unwrap();
        let spec = model_spec(&h.stored("compute", "time"), "T", &["p".into(), "n".into()]);
        assert!(spec.source().contains("param c0 = 79.3076, c1 = 0.00486739\n"), "{}", spec.source());
        let m = spec.build("extrap", 30, &Limits::default()).unwrap();
        assert_eq!(m.vars, vec!["p".to_string(), "n".to_string()]);
        let given: Vec<Rat> = m.params.iter().map(|p| p.given.clone().unwrap()).collect();
        assert_eq!(given, vec![rat("79.3076"), rat("0.00486739")]);
    }

    #[test]
    fn a_model_file_is_a_tm_model_printed_output_or_one_hypothesis() {
        let l = Limits::default();
        assert!(ModelSet::from_text("T(p) = a + b*p\nparam a, b\n", "m.tm", l).is_none());
        let one = ModelSet::from_text("# from Extra-P\n\n  79.3076 + 0.00486739 * p^(7/3)\n", "m.txt", l)
            .unwrap()
            .unwrap();
        assert_eq!(one.variables, vec!["p".to_string()]);
        assert_eq!(one.lookup("any", "thing").unwrap().form, "c0 + c1*p^(7/3)");
        let bad = ModelSet::from_text("# x\n79.3 + * p\n", "m.txt", l).unwrap().unwrap_err();
        assert_eq!(bad.span.start, 4 + 7);
        let printed = "Callpath: a\n\tMetric: time\n\t\tModel: 1 + 2 * n^(1)\nCallpath: b\n\tMetric: time\n\t\tModel: None\n";
        let set = ModelSet::from_text(printed, "out.txt", l).unwrap().unwrap();
        assert_eq!(set.lookup("a", "time").unwrap().form, "c0 + c1*n");
        assert_eq!(set.lookup("b", "time").unwrap_err(), "out.txt:6:10: Extra-P printed no model (`None`)");
        assert!(set.lookup("c", "time").unwrap_err().contains("no Extra-P model for `c / time`"));
    }
}
