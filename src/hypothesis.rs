//! Extra-P's performance-model strings (its "hypotheses").
//!
//! Extra-P writes a fitted model as a sum of terms, each a coefficient
//! times powers and logarithms of the parameters:
//! `79.3076 + 0.00486739 * p^(7/3) * log2(p)^(1)` (its default format) or
//! `79.3076+0.00486739*p**(7/3)` (its Python format). [`parse`] reads
//! either into a [`Hypothesis`]; [`parse_printed`] reads what
//! `extrap --print all` prints (`Callpath:`, `Metric:`, `Model:` lines), a
//! hypothesis per callpath and metric.
//!
//! Only the grammar lives here, below both the readers (an Extra-P
//! experiment stores its models) and the model layer (which turns a
//! hypothesis into an errband model, [`crate::model::extrap`]).

use crate::limits::Limits;
use crate::num::{fmt_fraction, parse_rat_with, Rat};
use num_traits::{One, Signed, Zero};
use std::fmt;

/// One factor of a term: `var^power` or `log2(var)^power`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Factor {
    /// `var^power`.
    Power(String, Rat),
    /// `log2(var)^power`.
    Log(String, Rat),
}

/// A coefficient times a product of factors (none for the constant term).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// Extra-P's coefficient, exact from its decimal text.
    pub coefficient: Rat,
    /// The factors, in Extra-P's order.
    pub factors: Vec<Factor>,
}

/// A model Extra-P fitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hypothesis {
    /// The terms in Extra-P's order (the constant, when there is one, first).
    pub terms: Vec<Term>,
    /// The text it was read from.
    pub original: String,
}

/// Why a model string is not one of Extra-P's hypotheses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HypothesisError {
    /// Byte offset of the fault in the string.
    pub at: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for HypothesisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.at)
    }
}

impl std::error::Error for HypothesisError {}

#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
    Num(&'a str),
    Ident(&'a str),
    Plus,
    Minus,
    Star,
    Caret,
    Slash,
    Open,
    Close,
}

fn lex(text: &str) -> Result<Vec<(Tok<'_>, usize)>, HypothesisError> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let tok = match c {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b'+' => Tok::Plus,
            b'-' => Tok::Minus,
            b'/' => Tok::Slash,
            b'(' => Tok::Open,
            b')' => Tok::Close,
            b'^' => Tok::Caret,
            b'*' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                out.push((Tok::Caret, start));
                continue;
            }
            b'*' => Tok::Star,
            b'0'..=b'9' | b'.' => {
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                    i += 1;
                }
                // An exponent `e-05`, as Python writes small floats.
                if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                    let mut j = i + 1;
                    if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                        j += 1;
                    }
                    if j < b.len() && b[j].is_ascii_digit() {
                        while j < b.len() && b[j].is_ascii_digit() {
                            j += 1;
                        }
                        i = j;
                    }
                }
                out.push((Tok::Num(&text[start..i]), start));
                continue;
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80) {
                    i += 1;
                }
                out.push((Tok::Ident(&text[start..i]), start));
                continue;
            }
            _ => {
                let ch = text[start..].chars().next().unwrap_or('?');
                return Err(HypothesisError {
                    at: start,
                    message: format!("unexpected `{ch}` in the model"),
                });
            }
        };
        out.push((tok, start));
        i += 1;
    }
    Ok(out)
}

struct Parser<'a> {
    toks: Vec<(Tok<'a>, usize)>,
    pos: usize,
    end: usize,
    limits: Limits,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&Tok<'a>> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |t| t.1)
    }

    fn fail<T>(&self, message: impl Into<String>) -> Result<T, HypothesisError> {
        Err(HypothesisError { at: self.at(), message: message.into() })
    }

    fn eat(&mut self, t: &Tok<'_>) -> bool {
        if self.peek() == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn number(&mut self, text: &str) -> Result<Rat, HypothesisError> {
        parse_rat_with(text, self.limits)
            .map_err(|e| HypothesisError { at: self.at(), message: format!("`{text}`: {e}") })
    }

    /// `-`? NUMBER (`/` NUMBER)?, optionally in parentheses.
    fn exponent(&mut self) -> Result<Rat, HypothesisError> {
        let paren = self.eat(&Tok::Open);
        let negative = self.eat(&Tok::Minus);
        let mut e = match self.peek().cloned() {
            Some(Tok::Num(n)) => {
                let v = self.number(n)?;
                self.pos += 1;
                v
            }
            _ => return self.fail("expected an exponent such as `2`, `(7/3)` or `(-1/2)`"),
        };
        if self.eat(&Tok::Slash) {
            let d = match self.peek().cloned() {
                Some(Tok::Num(n)) => {
                    let v = self.number(n)?;
                    self.pos += 1;
                    v
                }
                _ => return self.fail("expected the exponent's denominator"),
            };
            if d.is_zero() {
                return self.fail("the exponent's denominator is zero");
            }
            e /= d;
        }
        if paren && !self.eat(&Tok::Close) {
            return self.fail("expected `)` after the exponent");
        }
        Ok(if negative { -e } else { e })
    }

    fn power(&mut self) -> Result<Rat, HypothesisError> {
        if self.eat(&Tok::Caret) {
            self.exponent()
        } else {
            Ok(Rat::one())
        }
    }

    fn term(&mut self, negative: bool) -> Result<Term, HypothesisError> {
        let mut coefficient = if negative { -Rat::one() } else { Rat::one() };
        let mut factors = Vec::new();
        loop {
            match self.peek().cloned() {
                Some(Tok::Num(n)) => {
                    coefficient *= self.number(n)?;
                    self.pos += 1;
                }
                Some(Tok::Minus) if factors.is_empty() => {
                    // `+ -0.5 * p`: Extra-P joins a negative coefficient with ` + `.
                    self.pos += 1;
                    coefficient = -coefficient;
                    continue;
                }
                Some(Tok::Ident("log2")) => {
                    self.pos += 1;
                    if !self.eat(&Tok::Open) {
                        return self.fail("expected `(` after log2");
                    }
                    let var = match self.peek().cloned() {
                        Some(Tok::Ident(v)) => v.to_string(),
                        _ => return self.fail("expected a parameter inside log2(…)"),
                    };
                    self.pos += 1;
                    if !self.eat(&Tok::Close) {
                        return self.fail("expected `)` after the parameter");
                    }
                    let p = self.power()?;
                    if !p.is_zero() {
                        factors.push(Factor::Log(var, p));
                    }
                }
                Some(Tok::Ident(name)) if matches!(name, "inf" | "nan" | "None") => {
                    return self.fail(format!("`{name}` is not a coefficient errband can band"));
                }
                Some(Tok::Ident(name)) => {
                    self.pos += 1;
                    let p = self.power()?;
                    if !p.is_zero() {
                        factors.push(Factor::Power(name.to_string(), p));
                    }
                }
                _ => return self.fail("expected a coefficient, a parameter or log2(…)"),
            }
            if !self.eat(&Tok::Star) {
                return Ok(Term { coefficient, factors });
            }
        }
    }
}

/// Reads one of Extra-P's model strings (default or Python format).
pub fn parse(text: &str, limits: Limits) -> Result<Hypothesis, HypothesisError> {
    let toks = lex(text)?;
    let mut p = Parser { toks, pos: 0, end: text.len(), limits };
    if p.peek().is_none() {
        return p.fail("the model is empty");
    }
    let mut terms = Vec::new();
    let mut negative = p.eat(&Tok::Minus);
    loop {
        terms.push(p.term(negative)?);
        match p.peek() {
            None => break,
            Some(Tok::Plus) => negative = false,
            Some(Tok::Minus) => negative = true,
            Some(_) => return p.fail("expected `+`, `*` or the end of the model"),
        }
        p.pos += 1;
    }
    Ok(Hypothesis { terms, original: text.trim().to_string() })
}

fn power_text(base: &str, e: &Rat) -> String {
    if e.is_one() {
        base.to_string()
    } else if e.is_integer() && e.is_positive() {
        format!("{base}^{e}")
    } else {
        format!("{base}^({})", fmt_fraction(e))
    }
}

impl Hypothesis {
    /// The parameter names the model uses, in order of first use.
    pub fn variables(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for f in self.terms.iter().flat_map(|t| &t.factors) {
            let (Factor::Power(v, _) | Factor::Log(v, _)) = f;
            if !out.contains(v) {
                out.push(v.clone());
            }
        }
        out
    }

    /// Coefficient names and Extra-P's values: `c0` for the constant term,
    /// `c1, c2, …` for the others in order.
    pub fn coefficients(&self) -> Vec<(String, Rat)> {
        let mut k = 0;
        self.terms
            .iter()
            .map(|t| {
                let name = if t.factors.is_empty() {
                    "c0".to_string()
                } else {
                    k += 1;
                    format!("c{k}")
                };
                (name, t.coefficient.clone())
            })
            .collect()
    }

    /// The form in errband's syntax with the coefficients as parameters:
    /// `c0 + c1*p^(7/3)*log2(p)^2`.
    pub fn form(&self) -> String {
        self.terms
            .iter()
            .zip(self.coefficients())
            .map(|(t, (name, _))| {
                let mut parts = vec![name];
                for f in &t.factors {
                    parts.push(match f {
                        Factor::Power(v, e) => power_text(v, e),
                        Factor::Log(v, e) => power_text(&format!("log2({v})"), e),
                    });
                }
                parts.join("*")
            })
            .collect::<Vec<_>>()
            .join(" + ")
    }
}

/// A hypothesis found in Extra-P's printed output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintedModel {
    /// The callpath it belongs to.
    pub callpath: String,
    /// Its metric.
    pub metric: String,
    /// The model, or why it cannot be read.
    pub hypothesis: Result<Hypothesis, HypothesisError>,
    /// The byte offset of the model's text in the output.
    pub at: usize,
}

/// Whether `text` looks like Extra-P's printed output (`Callpath:` …
/// `Model:` lines) rather than a `.tm` model.
pub fn looks_printed(text: &str) -> bool {
    let mut callpath = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with("Callpath:") {
            callpath = true;
        } else if callpath && (line.starts_with("Model:") || line.starts_with("Model 1:")) {
            return true;
        }
    }
    false
}

/// The models in what `extrap --print all` prints, one per callpath and
/// metric, in order.
pub fn parse_printed(text: &str, limits: Limits) -> Vec<PrintedModel> {
    let mut out = Vec::new();
    let (mut callpath, mut metric) = (String::new(), String::new());
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line = raw.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim_start();
        let lead = line.len() - trimmed.len();
        if let Some(c) = trimmed.strip_prefix("Callpath:") {
            callpath = c.trim().to_string();
        } else if let Some(m) = trimmed.strip_prefix("Metric:") {
            metric = m.trim().to_string();
        } else if let Some(m) = trimmed.strip_prefix("Model:") {
            let start = offset + lead + "Model:".len() + (m.len() - m.trim_start().len());
            let hypothesis = match m.trim() {
                "None" => Err(HypothesisError { at: 0, message: "Extra-P printed no model (`None`)".into() }),
                t => parse(t, limits),
            };
            out.push(PrintedModel {
                callpath: callpath.clone(),
                metric: metric.clone(),
                hypothesis: hypothesis.map_err(|e| HypothesisError { at: start + e.at, ..e }),
                at: start,
            });
        } else if trimmed.starts_with("Model 1:") {
            out.push(PrintedModel {
                callpath: callpath.clone(),
                metric: metric.clone(),
                hypothesis: Err(HypothesisError {
                    at: offset + lead,
                    message: "Extra-P's segmented models (two models split at a point) are not read; band each segment's model on its own data".into(),
                }),
                at: offset + lead,
            });
        }
        offset += raw.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rat(s: &str) -> Rat {
        crate::num::parse_rat(s).unwrap()
    }

    #[test]
    fn extrap_default_and_python_formats() {
        let h = parse("79.3076 + 0.00486739 * p^(7/3)", Limits::default()).unwrap();
        assert_eq!(h.form(), "c0 + c1*p^(7/3)");
        assert_eq!(h.coefficients(), vec![("c0".into(), rat("79.3076")), ("c1".into(), rat("0.00486739"))]);
        let py = parse("79.3076+0.00486739*p**(7/3)", Limits::default()).unwrap();
        assert_eq!(py.terms, h.terms);
        let multi = parse(
            "1.5 + -2.5e-05 * p^(1) * log2(p)^(2) * q^(-1/2) + log2(q)^(1) - 3 * p^(0.5)",
            Limits::default(),
        )
        .unwrap();
        assert_eq!(multi.form(), "c0 + c1*p*log2(p)^2*q^(-1/2) + c2*log2(q) + c3*p^(1/2)");
        assert_eq!(
            multi.coefficients().iter().map(|c| c.1.clone()).collect::<Vec<_>>(),
            vec![rat("1.5"), rat("-0.000025"), rat("1"), rat("-3")]
        );
        assert_eq!(multi.variables(), vec!["p".to_string(), "q".to_string()]);
        // No constant: Extra-P omits a zero constant coefficient.
        assert_eq!(parse("4.0 * x^(2)", Limits::default()).unwrap().form(), "c1*x^2");
        assert_eq!(parse("-7", Limits::default()).unwrap().coefficients()[0].1, rat("-7"));
    }

    #[test]
    fn faults_are_located() {
        for (text, at) in
            [("1 + * p", 4), ("1 + p^(", 7), ("1 + p^(1/0)", 10), ("1 + inf * p", 4), ("2 $ p", 2)]
        {
            let e = parse(text, Limits::default()).unwrap_err();
            assert_eq!(e.at, at, "{text}: {e}");
        }
        assert!(parse("", Limits::default()).is_err());
    }

    #[test]
    fn printed_output_gives_a_model_per_series() {
        let out = "Callpath: compute\n\tMetric: time\n\t\tMeasurement point: (2.00E+01) Mean: 8.05E+01 Median: 8.05E+01\n\t\tModel: 79.3076 + 0.00486739 * p^(7/3)\n\t\tRSS: 1.0E+00\n\tMetric: visits\n\t\tModel: None\nCallpath: io\n\tMetric: time\n\t\tModel: 2 + 3 * p^(1)\n";
        assert!(looks_printed(out));
        assert!(!looks_printed("T(p) = a + b*p\nparam a, b\n"));
        let ms = parse_printed(out, Limits::default());
        assert_eq!(ms.len(), 3);
        assert_eq!((ms[0].callpath.as_str(), ms[0].metric.as_str()), ("compute", "time"));
        assert_eq!(&out[ms[0].at..ms[0].at + 7], "79.3076");
        assert!(ms[1].hypothesis.is_err());
        assert_eq!(ms[2].hypothesis.as_ref().unwrap().form(), "c0 + c1*p");
    }
}
