//! Models given as data ([`Spec`]): a function name, its variables, an
//! expression, and exact constants, parameters and units as values.
//!
//! The stages that make models (energy's three fits, `--family pmnf`'s
//! starting form, Extra-P's hypotheses) describe them with a `Spec`, never
//! with `.tm` text they write and a parser reads back. The model module alone
//! speaks `.tm`: [`Spec::source`] is the canonical text of the model, shown
//! by `--show-fits` and in the JSON, and kept so that evaluation errors found
//! later can point into it. [`Spec::build`] checks that every constant and
//! given value of the built model is exactly the one in the spec.

use super::{show_value, Model};
use crate::lang::diag::Diagnostic;
use crate::limits::Limits;
use crate::num::Rat;

/// A model as data. Only `body`, the model's expression, is text: a formula
/// over the variables, constants and parameters (`T1*(1 + ap*(1/n - 1))`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Spec {
    /// Lines of explanation, written as `#` comments above the model.
    pub comment: Vec<String>,
    /// The function name (`T`).
    pub func: String,
    /// Its variables, in order.
    pub vars: Vec<String>,
    /// The model's expression.
    pub body: String,
    /// Constants and their exact values.
    pub consts: Vec<(String, Rat)>,
    /// Parameters, with a given value (used by `fit none`) or not (fitted).
    pub params: Vec<(String, Option<Rat>)>,
    /// Units of the function and of variables (`T = s`, `n = nodes`).
    pub units: Vec<(String, String)>,
}

impl Spec {
    /// The model `func(vars) = body`, without constants, parameters or
    /// units yet.
    pub fn new(func: &str, vars: &[&str], body: &str) -> Spec {
        Spec {
            func: func.to_string(),
            vars: vars.iter().map(|v| v.to_string()).collect(),
            body: body.to_string(),
            ..Spec::default()
        }
    }

    /// Adds a line of explanation.
    pub fn comment(mut self, line: impl Into<String>) -> Spec {
        self.comment.push(line.into());
        self
    }

    /// Adds a constant with its exact value.
    pub fn constant(mut self, name: &str, value: Rat) -> Spec {
        self.consts.push((name.to_string(), value));
        self
    }

    /// Adds fitted parameters.
    pub fn params(mut self, names: &[&str]) -> Spec {
        self.params.extend(names.iter().map(|n| (n.to_string(), None)));
        self
    }

    /// Adds a parameter with a given value.
    pub fn given(mut self, name: &str, value: Rat) -> Spec {
        self.params.push((name.to_string(), Some(value)));
        self
    }

    /// Adds a unit (of the function or a variable).
    pub fn unit(mut self, name: &str, unit: &str) -> Spec {
        self.units.push((name.to_string(), unit.to_string()));
        self
    }

    /// The canonical `.tm` text of the model: comments, definition,
    /// constants, parameters, units, one statement each. Values are exact:
    /// a decimal when they are one, else a fraction.
    pub fn source(&self) -> String {
        let mut s = String::new();
        for line in &self.comment {
            // A comment is one line: a line break would end it.
            s.push_str(&format!("# {}\n", line.replace(['\n', '\r'], " ")));
        }
        s.push_str(&format!("{}({}) = {}\n", self.func, self.vars.join(", "), self.body));
        let list = |items: Vec<String>| items.join(", ");
        if !self.consts.is_empty() {
            let cs = self.consts.iter().map(|(n, v)| format!("{n} = {}", show_value(v))).collect();
            s.push_str(&format!("const {}\n", list(cs)));
        }
        if !self.params.is_empty() {
            let ps = self
                .params
                .iter()
                .map(|(n, v)| match v {
                    Some(v) => format!("{n} = {}", show_value(v)),
                    None => n.clone(),
                })
                .collect();
            s.push_str(&format!("param {}\n", list(ps)));
        }
        if !self.units.is_empty() {
            let us = self.units.iter().map(|(n, u)| format!("{n} = {u}")).collect();
            s.push_str(&format!("unit {}\n", list(us)));
        }
        s
    }

    /// The checked model, named `file` in messages, inexact values rounded
    /// to `digits` significant digits, held to `limits`. Errors are those
    /// of the model language, located in [`Spec::source`] (a name that is
    /// not declared, a body that is not affine in the parameters), which
    /// they carry: their `Display` is the full report.
    pub fn build(&self, file: &str, digits: u32, limits: &Limits) -> Result<Model, Diagnostic> {
        let source: std::sync::Arc<str> = self.source().into();
        // Names come from data (an experiment's parameters, a CSV header):
        // one that is not a plain identifier would be read as model text
        // (`p) = 1` ends the definition), so it is refused, not written.
        let names = std::iter::once(&self.func)
            .chain(&self.vars)
            .chain(self.consts.iter().map(|c| &c.0))
            .chain(self.params.iter().map(|p| &p.0));
        if let Some(bad) = names.into_iter().find(|n| !is_plain_name(n)) {
            return Err(Diagnostic::new(
                file,
                0..source.len(),
                format!("`{}` is not a name errband's models can use (letters, digits and `_`, not first a digit)", bad.escape_debug()),
            )
            .with_source(source));
        }
        let model =
            Model::parse_with(&source, file, digits, limits).map_err(|d| d.with_source(source.clone()))?;
        // The canonical text states each value exactly; a value that a name
        // or comment could have changed is an error, not a different model.
        let consts_match = model.consts.len() == self.consts.len()
            && model.consts.iter().zip(&self.consts).all(|(a, b)| a == b);
        let params_match = model.params.len() == self.params.len()
            && model.params.iter().zip(&self.params).all(|(p, (n, v))| &p.name == n && &p.given == v);
        if !consts_match || !params_match {
            return Err(Diagnostic::new(
                file,
                0..source.len(),
                "the model's constants or parameters are not the ones given (a name is not a plain identifier?)"
                    .to_string(),
            )
            .with_source(source));
        }
        Ok(model)
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*`.
fn is_plain_name(s: &str) -> bool {
    let mut b = s.bytes();
    b.next().is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rat;

    fn r(s: &str) -> Rat {
        parse_rat(s).unwrap()
    }

    #[test]
    fn names_from_data_that_are_not_plain_identifiers_are_refused() {
        let l = Limits::default();
        // A variable named so that the model text would end early and a new
        // body begin: refused, never written.
        let bad = Spec::new("T", &["p) = 5*p\n#"], "c0 + c1*p").params(&["c0", "c1"]);
        let e = bad.build("x", 30, &l).unwrap_err();
        assert!(e.message.contains("is not a name"), "{}", e.message);
        for name in ["", "1p", "p q", "p-1", "π"] {
            assert!(Spec::new("T", &[name], "c0").params(&["c0"]).build("x", 30, &l).is_err(), "{name:?}");
        }
        Spec::new("T", &["p_1"], "c0 + c1*p_1").params(&["c0", "c1"]).build("x", 30, &l).unwrap();
    }

    #[test]
    fn a_spec_renders_canonical_text_and_builds_its_exact_values() {
        let spec = Spec::new("T", &["n"], "T1*(1 + ap*(1/n - 1))")
            .comment("alpha_p\nby least squares")
            .constant("T1", r("1") / r("3"))
            .params(&["ap"])
            .unit("T", "s")
            .unit("n", "nodes");
        assert_eq!(
            spec.source(),
            "# alpha_p by least squares\nT(n) = T1*(1 + ap*(1/n - 1))\nconst T1 = 1/3\nparam ap\nunit T = s, n = nodes\n"
        );
        let m = spec.build("a.tm", 30, &Limits::default()).unwrap();
        assert_eq!(m.consts, vec![("T1".to_string(), r("1") / r("3"))]);
        assert_eq!(m.units.get("n").map(String::as_str), Some("nodes"));
        // Long and negative values stay exact.
        let v = r("-123456789012345678901234567890.000000000000000000000000000001");
        let given = Spec::new("T", &["p"], "c0 + c1*p").given("c0", v.clone()).given("c1", r("2") / r("7"));
        let m = given.build("g.tm", 30, &Limits::default()).unwrap();
        assert_eq!(m.params[0].given, Some(v));
        assert_eq!(m.params[1].given, Some(r("2") / r("7")));
    }

    #[test]
    fn a_bad_spec_is_a_located_model_error() {
        let bad = Spec::new("T", &["p"], "a*p*b").params(&["a", "b"]);
        let e = bad.build("bad.tm", 30, &Limits::default()).unwrap_err();
        assert!(e.message.contains("affine") || e.message.contains("product"), "{}", e.message);
        let unknown = Spec::new("T", &["p"], "a*q").params(&["a"]);
        assert!(unknown.build("u.tm", 30, &Limits::default()).unwrap_err().message.contains("unknown name"));
    }
}
