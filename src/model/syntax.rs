//! The `.tm` model language: statements, one per line (a line continues
//! while a parenthesis is open or when it ends with an operator or comma, or
//! the next line starts with one).
//!
//! ```text
//! # HPL on HPC2500, black-box approach (Orii and Anai, eq. 4)
//! T(p) = a * (1/p + c1 + c2*(p - 1)^2)
//! const a = 26022
//! param c1, c2                 # or: param c1 = 0.0088823, c2 = 1.9312e-7
//! weight p
//! predict p = 200, 500, 1000, 2000..10000:2000
//! fit none                     # analyse the given values instead of fitting
//! unit T = s, p = processors
//! family T(p) = c0 + c1*p*log2(p)   # an alternative form, one line each
//! ```
//!
//! A `family` line names another form of the same model for `--family`
//! analyses: the same function and variables, its own parameters (every
//! name that is not a variable or a constant).
//!
//! Value lists (`predict`, and the CLI's `--at`, `--drop`) share one
//! grammar: `VAR = ITEM, ITEM, ..., VAR = ...` where an item is a constant
//! expression or a range `a..b` (step 1), `a..b:step` or `a..b:*factor`.

use crate::lang::diag::Diagnostic;
use crate::lang::expr::Expr;
use crate::lang::lexer::{lex, Tok, Token};
use crate::lang::parser::Parser;
use crate::limits::{Limit, Limits};
use std::ops::Range;

/// Statement keywords (reserved: not usable as names).
pub const KEYWORDS: &[&str] = &["const", "param", "weight", "predict", "fit", "unit", "family"];

/// One item of a value list.
#[derive(Debug, Clone)]
pub enum Item {
    /// A single value.
    Value(Expr),
    /// `from..to`, with an optional step (`:s`) or factor (`:*f`).
    Range {
        /// First value.
        from: Expr,
        /// Last value (included when the steps hit it).
        to: Expr,
        /// Step or factor; `None` means step 1.
        step: Option<Step>,
        /// Span of the whole range.
        span: Range<usize>,
    },
}

/// The step of a range.
#[derive(Debug, Clone)]
pub enum Step {
    /// `:s` — add `s`.
    Add(Expr),
    /// `:*f` — multiply by `f`.
    Mul(Expr),
}

/// `VAR = items`.
#[derive(Debug, Clone)]
pub struct Assignment {
    /// The variable name.
    pub var: String,
    /// Span of the name.
    pub span: Range<usize>,
    /// Its values.
    pub items: Vec<Item>,
}

/// A declared name and its span.
pub type Name = (String, Range<usize>);

/// A parsed statement.
#[derive(Debug, Clone)]
pub enum Stmt {
    /// `F(v1, .., vn) = body`.
    Define {
        /// Function name (the data column of the measured value).
        name: (String, Range<usize>),
        /// Variables.
        vars: Vec<(String, Range<usize>)>,
        /// Right-hand side.
        body: Expr,
    },
    /// `const a = expr, ...`.
    Const(Vec<(Name, Expr)>),
    /// `param c1 [= expr], ...`.
    Param(Vec<(Name, Option<Expr>)>),
    /// `weight expr`.
    Weight(Expr),
    /// `predict v = items, ...`.
    Predict(Vec<Assignment>),
    /// `fit none` / `fit lsq`.
    Fit((String, Range<usize>)),
    /// `unit name = unit, ...`.
    Unit(Vec<(Name, String)>),
    /// `family F(v1, .., vn) = body`: an alternative form of the model.
    Family {
        /// Function name (must be the model's).
        name: (String, Range<usize>),
        /// Variables (must be the model's, in its order).
        vars: Vec<(String, Range<usize>)>,
        /// Right-hand side.
        body: Expr,
    },
}

/// Splits the token stream into statements (see the module doc).
fn statements(tokens: Vec<Token>, source: &str) -> Vec<Vec<Token>> {
    let operator = |t: &Tok| matches!(t, Tok::Plus | Tok::Minus | Tok::Star | Tok::Slash | Tok::Caret);
    let continues_after = |t: &Tok| {
        operator(t) || matches!(t, Tok::Comma | Tok::Assign | Tok::LParen | Tok::DotDot | Tok::Colon)
    };
    let continues_before =
        |t: &Tok| operator(t) || matches!(t, Tok::RParen | Tok::Comma | Tok::DotDot | Tok::Colon);
    let mut out: Vec<Vec<Token>> = Vec::new();
    let mut cur: Vec<Token> = Vec::new();
    let mut depth: i64 = 0;
    for t in tokens {
        if t.tok == Tok::Eof {
            break;
        }
        if t.tok == Tok::Semi && depth <= 0 {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if let Some(prev) = cur.last() {
            let gap = source.get(prev.span.end..t.span.start).unwrap_or("");
            // A keyword at the start of a line always starts a statement, so
            // an unclosed `(` is reported where it is, not lines later.
            let keyword_line = matches!(&t.tok, Tok::Ident(w) if KEYWORDS.contains(&w.as_str()));
            if gap.contains('\n')
                && ((depth <= 0 && !continues_after(&prev.tok) && !continues_before(&t.tok)) || keyword_line)
            {
                out.push(std::mem::take(&mut cur));
                depth = 0;
            }
        }
        match t.tok {
            Tok::LParen => depth += 1,
            Tok::RParen => depth -= 1,
            _ => {}
        }
        cur.push(t);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Parses a `.tm` file into statements.
pub fn parse(source: &str, file: &str, limits: &Limits) -> Result<Vec<(Stmt, Range<usize>)>, Diagnostic> {
    // A list of values cannot hold more than --max-points items, and the
    // rest of a model has a handful of commas: a file with far more is
    // refused before it is lexed (a 10 MB `predict p = 1,1,…` would
    // otherwise be five million tokens in memory before it is counted).
    let allowed = limits.points.saturating_add(10_000);
    if let Some((at, _)) = source.match_indices(',').nth(allowed) {
        return Err(Diagnostic::new(
            file,
            at..at + 1,
            format!(
                "too many values: more than {allowed} comma-separated items (a list holds at most {} values; raise the limit with {})",
                limits.points,
                Limit::Points.flag()
            ),
        ));
    }
    let tokens = lex(source, file)?;
    let mut out = Vec::new();
    for stmt in statements(tokens, source) {
        let (start, end) = match (stmt.first(), stmt.last()) {
            (Some(a), Some(b)) => (a.span.start, b.span.end),
            _ => continue,
        };
        let mut open: Vec<Range<usize>> = Vec::new();
        for t in &stmt {
            match t.tok {
                Tok::LParen => open.push(t.span.clone()),
                Tok::RParen if open.pop().is_none() => {
                    return Err(
                        Diagnostic::new(file, t.span.clone(), "unmatched `)`").with_label("no `(` before it")
                    );
                }
                _ => {}
            }
        }
        let unclosed = open.pop();
        let mut toks = stmt;
        toks.push(Token { tok: Tok::Eof, span: end..end });
        let mut p = Parser::from_tokens(toks, source, file).with_keywords(KEYWORDS).with_limits(*limits);
        // A parser that wanted a `)` at the end of the statement is better
        // answered by pointing at the `(` that was never closed.
        let s = statement(&mut p).map_err(|d| match &unclosed {
            Some(o) if d.message.contains("`)`") && d.message.ends_with("found end of input") => {
                Diagnostic::new(file, o.clone(), "unclosed `(`").with_label("this `(` is never closed")
            }
            _ => d,
        })?;
        if !p.at_eof() {
            let d = p.unexpected("the end of the statement (one statement per line)");
            // `param s w`: names in a list are separated by commas.
            let list = matches!(s, Stmt::Param(..)) && matches!(p.peek(), Tok::Ident(_));
            return Err(if list { d.with_help("separate the names with commas: `param s, w`") } else { d });
        }
        out.push((s, start..end));
    }
    Ok(out)
}

fn name_list<T>(
    p: &mut Parser,
    what: &str,
    mut item: impl FnMut(&mut Parser, (String, Range<usize>)) -> Result<T, Diagnostic>,
) -> Result<Vec<T>, Diagnostic> {
    let mut out = Vec::new();
    loop {
        let n = p.expect_ident(what)?;
        out.push(item(p, n)?);
        if !p.eat(&Tok::Comma) {
            return Ok(out);
        }
    }
}

fn statement(p: &mut Parser) -> Result<Stmt, Diagnostic> {
    if p.eat_ident("const") {
        return Ok(Stmt::Const(name_list(p, "a constant name", |p, n| {
            p.expect(&Tok::Assign)?;
            Ok((n, p.parse_expr()?))
        })?));
    }
    if p.eat_ident("param") {
        return Ok(Stmt::Param(name_list(p, "a parameter name", |p, n| {
            let v = if p.eat(&Tok::Assign) { Some(p.parse_expr()?) } else { None };
            Ok((n, v))
        })?));
    }
    if p.eat_ident("weight") {
        return Ok(Stmt::Weight(p.parse_expr()?));
    }
    if p.eat_ident("predict") {
        return Ok(Stmt::Predict(assignments(p)?));
    }
    if p.eat_ident("fit") {
        return Ok(Stmt::Fit(p.expect_ident("`none` or `lsq`")?));
    }
    if p.eat_ident("unit") {
        return Ok(Stmt::Unit(name_list(p, "a variable or function name", |p, n| {
            p.expect(&Tok::Assign)?;
            let (u, _) = p.expect_ident("a unit name (e.g. s, ms, us, W, MHz, processors)")?;
            Ok((n, u))
        })?));
    }
    let family = p.eat_ident("family");
    if matches!(p.peek(), Tok::Ident(_)) && *p.peek_nth(1) == Tok::LParen {
        let name = p.expect_ident("the model's name")?;
        p.expect(&Tok::LParen)?;
        let vars = name_list(p, "a variable name", |_, n| Ok(n))?;
        p.expect(&Tok::RParen)?;
        p.expect(&Tok::Assign)?;
        let body = p.parse_expr()?;
        return Ok(if family {
            Stmt::Family { name, vars, body }
        } else {
            Stmt::Define { name, vars, body }
        });
    }
    if family {
        return Err(p.unexpected("the alternative form, `T(p) = ...`").with_help(
            "write `family T(p) = c0 + c1*p*log2(p)`: the model's name and variables, then the alternative's expression",
        ));
    }
    let typo = match p.peek() {
        Tok::Ident(w) => KEYWORDS.iter().find(|k| w.len() >= 3 && strsim::damerau_levenshtein(w, k) == 1),
        _ => None,
    };
    let all = "statements are `T(p) = ...`, `const a = ...`, `param c1, c2`, `weight ...`, `predict p = ...`, `fit none`, `unit T = s` and `family T(p) = ...`";
    Err(p.unexpected("a statement").with_help(match typo {
        Some(k) => format!("did you mean `{k}`? {all}"),
        None => all.to_string(),
    }))
}

/// `VAR = items, VAR = items, ...` (a comma followed by `NAME =` starts the next variable).
pub fn assignments(p: &mut Parser) -> Result<Vec<Assignment>, Diagnostic> {
    let mut out = Vec::new();
    loop {
        let number = matches!(p.peek(), Tok::Num(_));
        let (var, span) = p.expect_ident("a variable name").map_err(|d| {
            // `--at 256`: the variable's name comes first.
            if number {
                d.with_help("name the variable before its values, e.g. `p=256`")
            } else {
                d
            }
        })?;
        p.expect(&Tok::Assign)?;
        let mut items = Vec::new();
        loop {
            items.push(item(p)?);
            count_items(p, &items)?;
            if *p.peek() == Tok::Comma
                && matches!(p.peek_nth(1), Tok::Ident(_))
                && *p.peek_nth(2) == Tok::Assign
            {
                break;
            }
            if !p.eat(&Tok::Comma) {
                out.push(Assignment { var, span, items });
                return Ok(out);
            }
        }
        out.push(Assignment { var, span, items });
        p.eat(&Tok::Comma);
    }
}

/// Refuses a list with more items than `--max-points` allows values while
/// it is parsed, not after: a 10 MB `predict p = 1,1,…` is stopped at the
/// limit, not once five million items are held.
fn count_items(p: &Parser, items: &[Item]) -> Result<(), Diagnostic> {
    let max = p.limits().points;
    if items.len() <= max {
        return Ok(());
    }
    let span = match items.last() {
        Some(Item::Value(e)) => e.span.clone(),
        Some(Item::Range { span, .. }) => span.clone(),
        None => 0..0,
    };
    Err(p.error(
        span,
        format!("too many values: more than {max} (raise the limit with {})", Limit::Points.flag()),
    ))
}

fn item(p: &mut Parser) -> Result<Item, Diagnostic> {
    let from = p.parse_expr()?;
    if !p.eat(&Tok::DotDot) {
        return Ok(Item::Value(from));
    }
    let to = p.parse_expr()?;
    let step = if p.eat(&Tok::Colon) {
        if p.eat(&Tok::Star) {
            Some(Step::Mul(p.parse_expr()?))
        } else {
            Some(Step::Add(p.parse_expr()?))
        }
    } else {
        None
    };
    let end = match &step {
        Some(Step::Add(e)) | Some(Step::Mul(e)) => e.span.end,
        None => to.span.end,
    };
    let span = from.span.start..end;
    Ok(Item::Range { from, to, step, span })
}

/// Parses a value-list argument from the command line (`p=1000`,
/// `p=200..1000:200,n=64`), naming it `what` in errors.
pub fn parse_assignments_arg(text: &str, what: &str, limits: &Limits) -> Result<Vec<Assignment>, Diagnostic> {
    let mut p = Parser::new(text, what)?.with_keywords(KEYWORDS).with_limits(*limits);
    let a = assignments(&mut p)?;
    if !p.at_eof() {
        return Err(p.unexpected("`,` or the end of the argument"));
    }
    Ok(a)
}

/// Parses a bare value-list argument (`16,64,256`, `2..4096:*2`), naming it
/// `what` in errors.
pub fn parse_items_arg(text: &str, what: &str, limits: &Limits) -> Result<Vec<Item>, Diagnostic> {
    let mut p = Parser::new(text, what)?.with_keywords(KEYWORDS).with_limits(*limits);
    let mut items = vec![item(&mut p)?];
    while p.eat(&Tok::Comma) {
        items.push(item(&mut p)?);
        count_items(&p, &items)?;
    }
    if !p.at_eof() {
        return Err(p.unexpected("`,` or the end of the argument"));
    }
    Ok(items)
}

/// Splits `p=10,p=20` (a variable given again starts a new point) into
/// `p=10` and `p=20`; `p=10,n=4000` stays one point, `p=10,20` one list.
pub(crate) fn split_points(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for chunk in text.split(',') {
        let name = chunk.split_once('=').map(|(n, _)| n.trim().to_string());
        if let Some(n) = &name {
            if seen.contains(n) {
                out.push(cur.join(","));
                cur.clear();
                seen.clear();
            }
            seen.push(n.clone());
        }
        cur.push(chunk.to_string());
    }
    if !cur.is_empty() {
        out.push(cur.join(","));
    }
    out
}

/// `p=130..300 step 10` (the words of the issue) as `p=130..300:10`.
pub(crate) fn normalise_step(args: &[String]) -> Vec<String> {
    let joined = args.join(" ");
    let mut out = String::new();
    let mut words = joined.split_whitespace().peekable();
    while let Some(w) = words.next() {
        if w == "step" {
            if let Some(n) = words.next() {
                out.push(':');
                out.push_str(n);
                continue;
            }
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out.split(' ').filter(|s| !s.is_empty()).map(String::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_variables_start_new_points() {
        assert_eq!(split_points("p=10,p=20"), vec!["p=10", "p=20"]);
        assert_eq!(split_points("p=10,20"), vec!["p=10,20"]);
        assert_eq!(split_points("p=128,n=4000,p=256,n=8000"), vec!["p=128,n=4000", "p=256,n=8000"]);
    }

    #[test]
    fn step_words_become_the_range_syntax() {
        let v = |a: &[&str]| normalise_step(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(v(&["p=130..300", "step", "10"]), vec!["p=130..300:10"]);
        assert_eq!(v(&["p=130..300 step 10"]), vec!["p=130..300:10"]);
        assert_eq!(v(&["p=130..300:10", "p=400"]), vec!["p=130..300:10", "p=400"]);
    }

    #[test]
    fn statements_split_on_lines_and_continue_on_operators() {
        let src = "T(p) = a *\n  (1/p + c1\n + c2)\nconst a = 2\nparam c1,\n c2\n";
        let s = parse(src, "m.tm", &Limits::default()).unwrap();
        assert_eq!(s.len(), 3);
        assert!(matches!(s[2].0, Stmt::Param(ref v) if v.len() == 2));
    }

    #[test]
    fn assignments_with_ranges_and_several_variables() {
        let a =
            parse_assignments_arg("p = 200, 500, 2000..10000:2000, n = 1..16:*2", "--at", &Limits::default())
                .unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(a[0].items.len(), 3);
        assert!(matches!(a[0].items[2], Item::Range { step: Some(Step::Add(_)), .. }));
        assert!(matches!(a[1].items[0], Item::Range { step: Some(Step::Mul(_)), .. }));
    }

    #[test]
    fn unbalanced_parentheses_are_located() {
        let src = "T(p) = c1*(p + 1\nconst a = 2\nparam c1";
        let e = parse(src, "m.tm", &Limits::default()).unwrap_err();
        assert_eq!(e.message, "unclosed `(`");
        assert_eq!(e.span, 10..11);
        let e = parse("T(p) = c1*p )", "m.tm", &Limits::default()).unwrap_err();
        assert_eq!(e.message, "unmatched `)`");
        assert_eq!(e.span, 12..13);
    }

    #[test]
    fn junk_after_a_statement_is_located() {
        let e = parse("T(p) = c1*p 2", "m.tm", &Limits::default()).unwrap_err();
        assert!(e.message.contains("expected an operator"), "{}", e.message);
        let e = parse("weight p\nfoo bar", "m.tm", &Limits::default()).unwrap_err();
        assert!(e.render("weight p\nfoo bar").contains("m.tm:2:"), "{e:?}");
    }
}
