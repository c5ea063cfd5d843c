//! The `errband qe` file language: `let` constants followed by one formula
//! of linear real arithmetic, parsed into a [`Problem`] with exact
//! coefficients and located errors.
//!
//! ```text
//! file      := let_stmt* formula ';'? EOF
//! let_stmt  := 'let' IDENT '=' expr ';'
//! formula   := or (('implies' | '=>') formula)?
//! or        := and (('or' | '||') and)*
//! and       := unary (('and' | '&&') unary)*
//! unary     := ('not' | '!') unary | quant | atom
//! quant     := ('exists' | 'forall') IDENT (',' IDENT)* ':' formula
//! atom      := 'true' | 'false' | chain | '(' formula ')'
//! chain     := expr relop expr (relop expr)*
//! ```
//!
//! Every identifier that is not a `let` constant or a keyword is a variable,
//! numbered in order of first appearance.

use super::formula::{Atom, Formula, Problem, Rel};
use crate::lang::diag::Diagnostic;
use crate::lang::expr::Expr;
use crate::lang::lexer::Tok;
use crate::lang::linearize::{linearize_in, NameValue};
use crate::lang::parser::Parser;
use crate::limits::{Limit, Limits};
use crate::linear::{LinExpr, VarId, VarTable};
use crate::num::Rat;
use std::collections::HashMap;
use std::ops::Range;

/// Reserved words of the formula language; none of them may name a
/// constant or a variable.
pub const KEYWORDS: &[&str] = &["let", "exists", "forall", "and", "or", "not", "implies", "true", "false"];

/// Deepest nesting of formulas (parentheses, `not`, quantifiers, `implies`)
/// accepted, so that recursive consumers cannot overflow the stack.
pub const MAX_FORMULA_DEPTH: usize = 100;

/// Parses an `errband qe` file into its variables and formula. Every affine
/// form in the result has `vars.len()` coefficients.
///
/// ```
/// use errband::qe::syntax::parse_problem;
/// let p = parse_problem("let k = 2; exists y: x <= y and y <= k", "ex.qe").unwrap();
/// assert_eq!(p.vars.names(), ["y", "x"]);
/// ```
pub fn parse_problem(source: &str, file: &str) -> Result<Problem, Diagnostic> {
    parse_problem_with(source, file, &Limits::default())
}

/// [`parse_problem`] with literals and powers held to `limits`.
pub fn parse_problem_with(source: &str, file: &str, limits: &Limits) -> Result<Problem, Diagnostic> {
    let parser = Parser::new(source, file)?.with_keywords(KEYWORDS).with_limits(*limits);
    let mut q = QeParser { p: parser, lets: HashMap::new(), vars: VarTable::new(), depth: 0, atoms: 0 };
    while q.p.at_ident("let") {
        q.let_stmt()?;
    }
    if q.p.at_eof() {
        let d = q.p.unexpected("a formula");
        return Err(d.with_help("write a formula such as `exists y: x <= y and y <= 3`"));
    }
    let mut formula = q.formula()?;
    q.p.eat(&Tok::Semi);
    if !q.p.at_eof() {
        let d = q.p.unexpected("end of input");
        let help = if q.p.at_ident("let") {
            "`let` definitions must all come before the formula"
        } else {
            "a file holds one formula: combine formulas with `and`, `or` or `implies`"
        };
        return Err(d.with_help(help));
    }
    let n = q.vars.len();
    resize_all(&mut formula, n);
    Ok(Problem { vars: q.vars, formula })
}

fn resize_all(f: &mut Formula, n: usize) {
    match f {
        Formula::True | Formula::False => {}
        Formula::Atom(a) => {
            let e = std::mem::replace(&mut a.expr, LinExpr::zero(0));
            a.expr = e.resized(n);
        }
        Formula::And(fs) | Formula::Or(fs) => fs.iter_mut().for_each(|g| resize_all(g, n)),
        Formula::Not(g) | Formula::Exists(_, g) | Formula::Forall(_, g) => resize_all(g, n),
        Formula::Implies(a, b) => {
            resize_all(a, n);
            resize_all(b, n);
        }
    }
}

fn relation(t: &Tok) -> Option<Rel> {
    Some(match t {
        Tok::Lt => Rel::Lt,
        Tok::Le => Rel::Le,
        Tok::Assign | Tok::EqEq => Rel::Eq,
        Tok::Ne => Rel::Ne,
        Tok::Ge => Rel::Ge,
        Tok::Gt => Rel::Gt,
        _ => return None,
    })
}

/// A comparison chain, parsed but not yet evaluated.
struct Chain {
    exprs: Vec<Expr>,
    rels: Vec<Rel>,
}

struct QeParser<'a> {
    p: Parser<'a>,
    lets: HashMap<String, Rat>,
    vars: VarTable,
    depth: usize,
    /// Atoms built so far, held to [`Limits::atoms`].
    atoms: usize,
}

impl QeParser<'_> {
    fn reserved(&self, name: &str, span: Range<usize>, what: &str) -> Result<(), Diagnostic> {
        if KEYWORDS.contains(&name) {
            return Err(self
                .p
                .error(span, format!("`{name}` is a reserved word and cannot be {what}"))
                .with_label("reserved word")
                .with_help(format!("reserved words: {}", KEYWORDS.join(", "))));
        }
        Ok(())
    }

    /// `let NAME = expr ;`
    fn let_stmt(&mut self) -> Result<(), Diagnostic> {
        self.p.next(); // `let`
        let (name, span) = self.p.expect_ident("a name after `let`")?;
        self.reserved(&name, span.clone(), "a constant")?;
        if self.lets.contains_key(&name) {
            return Err(self
                .p
                .error(span, format!("`{name}` is already defined"))
                .with_label("defined again here"));
        }
        self.p.expect(&Tok::Assign)?;
        let e = self.p.parse_expr()?;
        for (n, s) in e.names() {
            if !self.lets.contains_key(n) {
                return Err(self
                    .p
                    .error(s, format!("`{n}` is not a constant"))
                    .with_label("not defined by an earlier `let`")
                    .with_help("a `let` may only use numbers and constants defined before it"));
            }
        }
        let lets = &self.lets;
        let env = |n: &str| lets.get(n).map(|c| NameValue::Const(c.clone()));
        let value = linearize_in(&e, &env, 0, self.p.file(), self.p.source(), self.p.limits())?;
        if !matches!(self.p.peek(), Tok::Semi) {
            return Err(self.p.unexpected("`;` after the `let` definition"));
        }
        self.p.next();
        self.lets.insert(name, value.constant);
        Ok(())
    }

    fn enter(&mut self) -> Result<(), Diagnostic> {
        if self.depth >= MAX_FORMULA_DEPTH {
            let span = self.p.peek_token().span.clone();
            return Err(self
                .p
                .error(span, "formula is nested too deeply")
                .with_help(format!("the limit is {MAX_FORMULA_DEPTH} levels")));
        }
        self.depth += 1;
        Ok(())
    }

    /// `or (('implies' | '=>') formula)?`
    fn formula(&mut self) -> Result<Formula, Diagnostic> {
        self.enter()?;
        let r = self.implies();
        self.depth -= 1;
        r
    }

    fn implies(&mut self) -> Result<Formula, Diagnostic> {
        let lhs = self.or()?;
        if self.p.eat_ident("implies") || self.p.eat(&Tok::Arrow) {
            let rhs = self.formula()?;
            return Ok(Formula::Implies(Box::new(lhs), Box::new(rhs)));
        }
        Ok(lhs)
    }

    fn or(&mut self) -> Result<Formula, Diagnostic> {
        let mut items = vec![self.and()?];
        while self.p.eat_ident("or") || self.p.eat(&Tok::OrOr) {
            items.push(self.and()?);
        }
        Ok(collect(items, false))
    }

    fn and(&mut self) -> Result<Formula, Diagnostic> {
        let mut items = vec![self.unary()?];
        while self.p.eat_ident("and") || self.p.eat(&Tok::AndAnd) {
            items.push(self.unary()?);
        }
        Ok(collect(items, true))
    }

    fn unary(&mut self) -> Result<Formula, Diagnostic> {
        self.enter()?;
        let r = self.unary_inner();
        self.depth -= 1;
        r
    }

    fn unary_inner(&mut self) -> Result<Formula, Diagnostic> {
        if self.p.eat_ident("not") || self.p.eat(&Tok::Bang) {
            return Ok(Formula::Not(Box::new(self.unary()?)));
        }
        if self.p.at_ident("exists") || self.p.at_ident("forall") {
            return self.quantifier();
        }
        self.atom()
    }

    // The functions on the recursive path (formula, implies, or, and, unary,
    // quantifier, atom) keep few locals and build errors in helpers, so that
    // each nesting level costs little stack, also in debug builds.

    /// `('exists' | 'forall') IDENT (',' IDENT)* ':' formula`
    fn quantifier(&mut self) -> Result<Formula, Diagnostic> {
        let (exists, ids) = self.quantifier_head()?;
        let body = Box::new(self.formula()?);
        Ok(if exists { Formula::Exists(ids, body) } else { Formula::Forall(ids, body) })
    }

    /// The quantifier word, its variables and the `:`.
    #[inline(never)]
    fn quantifier_head(&mut self) -> Result<(bool, Vec<VarId>), Diagnostic> {
        let q = self.p.next();
        let exists = matches!(&q.tok, Tok::Ident(s) if s == "exists");
        let word = if exists { "exists" } else { "forall" };
        let mut ids = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        loop {
            let (name, span) = self.p.expect_ident(&format!("a variable name after `{word}`"))?;
            self.reserved(&name, span.clone(), "a variable")?;
            if self.lets.contains_key(&name) {
                return Err(self
                    .p
                    .error(span, format!("`{name}` is a `let` constant and cannot be quantified"))
                    .with_label("defined by `let`")
                    .with_help("rename the constant or the variable"));
            }
            if seen.contains(&name) {
                return Err(self
                    .p
                    .error(span, format!("`{name}` appears twice in this quantifier"))
                    .with_label("repeated variable"));
            }
            ids.push(self.vars.intern(&name));
            seen.push(name);
            if !self.p.eat(&Tok::Comma) {
                break;
            }
        }
        if *self.p.peek() != Tok::Colon {
            return Err(self
                .p
                .unexpected("`:` after the quantified variables")
                .with_help(format!("write `{word} x, y: formula`")));
        }
        self.p.next();
        Ok((exists, ids))
    }

    /// `'true' | 'false' | chain | '(' formula ')'`
    fn atom(&mut self) -> Result<Formula, Diagnostic> {
        if self.p.eat_ident("true") {
            return Ok(Formula::True);
        }
        if self.p.eat_ident("false") {
            return Ok(Formula::False);
        }
        if *self.p.peek() != Tok::LParen {
            return self.chain_atom();
        }
        // `(`: a parenthesised expression starting a comparison, or a
        // parenthesised formula. Try the comparison first and, when both
        // fail, report the error that got further. A comparison that
        // parses is what the `(` began (a parenthesised formula cannot be
        // followed by a comparison operator), so its own errors, such as a
        // product of two variables, are the ones shown.
        let save = self.p.position();
        let as_chain = match self.chain() {
            Ok(chain) => return self.build(chain),
            Err(e) => e,
        };
        self.p.restore(save);
        self.p.next(); // `(`
        match self.formula() {
            Ok(f) => self.close_paren(f, as_chain),
            Err(e) => Err(further(as_chain, e)),
        }
    }

    #[inline(never)]
    fn close_paren(&mut self, f: Formula, as_chain: Diagnostic) -> Result<Formula, Diagnostic> {
        if *self.p.peek() == Tok::RParen {
            self.p.next();
            Ok(f)
        } else {
            Err(further(as_chain, self.p.unexpected("`)` to close the formula")))
        }
    }

    /// A comparison chain, turned into atoms (no recursion into formulas).
    #[inline(never)]
    fn chain_atom(&mut self) -> Result<Formula, Diagnostic> {
        let chain = self.chain()?;
        self.build(chain)
    }

    /// `expr relop expr (relop expr)*`, syntax only. Not inlined: `atom`
    /// recurses through parenthesised formulas, and its frame stays small.
    #[inline(never)]
    fn chain(&mut self) -> Result<Chain, Diagnostic> {
        let mut exprs = vec![self.p.parse_expr()?];
        let mut rels = Vec::new();
        while let Some(rel) = relation(self.p.peek()) {
            self.p.next();
            rels.push(rel);
            exprs.push(self.p.parse_expr()?);
        }
        if rels.is_empty() {
            return Err(self
                .p
                .unexpected("a comparison operator (`<`, `<=`, `=`, `!=`, `>=`, `>`)")
                .with_help("an atom compares two expressions, e.g. `x + 1 <= 2*y`"));
        }
        Ok(Chain { exprs, rels })
    }

    /// Interns the chain's variables and turns it into atoms.
    #[inline(never)]
    fn build(&mut self, chain: Chain) -> Result<Formula, Diagnostic> {
        self.atoms += chain.rels.len();
        if self.atoms > self.p.limits().atoms {
            return Err(self.too_many_atoms(&chain));
        }
        for e in &chain.exprs {
            for (n, _) in e.names() {
                if !self.lets.contains_key(n) {
                    self.vars.intern(n);
                }
            }
        }
        let n = self.vars.len();
        let (lets, vars) = (&self.lets, &self.vars);
        let env = |name: &str| {
            lets.get(name)
                .map(|c| NameValue::Const(c.clone()))
                .or_else(|| vars.lookup(name).map(NameValue::Var))
        };
        let forms = chain
            .exprs
            .iter()
            .map(|e| linearize_in(e, &env, n, self.p.file(), self.p.source(), self.p.limits()))
            .collect::<Result<Vec<_>, _>>()?;
        let mut atoms: Vec<Formula> = chain
            .rels
            .iter()
            .zip(forms.windows(2))
            .map(|(&rel, w)| Formula::Atom(Atom::compare(&w[0], rel, &w[1])))
            .collect();
        Ok(if atoms.len() == 1 { atoms.remove(0) } else { Formula::And(atoms) })
    }
}

impl QeParser<'_> {
    #[inline(never)]
    fn too_many_atoms(&self, chain: &Chain) -> Diagnostic {
        let first = chain.exprs.first().map_or(0, |e| e.span.start);
        let last = chain.exprs.last().map_or(first, |e| e.span.end);
        let limits = self.p.limits();
        self.p
            .error(first..last, format!("too many comparisons in one formula {}", Limit::Atoms.note(limits)))
            .with_label("this one passes the limit")
    }
}

/// The error that got further into the input (`a`, the comparison
/// reading's, on a tie).
fn further(a: Diagnostic, b: Diagnostic) -> Diagnostic {
    if b.span.start > a.span.start {
        b
    } else {
        a
    }
}

/// One formula from the operands of `and` (or `or`), flattening nested
/// conjunctions (disjunctions).
fn collect(items: Vec<Formula>, conj: bool) -> Formula {
    if items.len() == 1 {
        return items.into_iter().next().unwrap_or(Formula::True);
    }
    let mut out = Vec::with_capacity(items.len());
    for f in items {
        match f {
            Formula::And(fs) if conj => out.extend(fs),
            Formula::Or(fs) if !conj => out.extend(fs),
            f => out.push(f),
        }
    }
    if conj {
        Formula::And(out)
    } else {
        Formula::Or(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{frac, int, pow10, NumFormat};
    use num_bigint::BigInt;
    use proptest::prelude::*;

    const EQ6: &str = "# Orii & Anai, eq. (6)
let a  = 26022;
let C1 = 0.0088823;
let C2 = 1.9312e-7;
exists dc1, dc2:
    -emax <= 14244/5 - a*(1/10 + C1 + dc1 + (C2 + dc2)*(10 - 1)^2) <= emax
and -emax <= 15477/10 - a*(1/20 + C1 + dc1 + (C2 + dc2)*(20 - 1)^2) <= emax
";

    fn parse(s: &str) -> Problem {
        match parse_problem(s, "t.qe") {
            Ok(p) => p,
            Err(d) => panic!("{}", d.render(s)),
        }
    }

    fn err(s: &str) -> Diagnostic {
        parse_problem(s, "t.qe").expect_err("should not parse")
    }

    fn show(p: &Problem) -> String {
        p.formula.show(&p.vars, NumFormat::Exact)
    }

    #[test]
    fn parses_eq6() {
        let p = parse(EQ6);
        assert_eq!(p.vars.names(), ["dc1", "dc2", "emax"]);
        assert_eq!(p.formula.free_vars(3), vec![2]);
        let (ids, body) = match &p.formula {
            Formula::Exists(ids, body) => (ids.clone(), body),
            f => panic!("not an exists: {f:?}"),
        };
        assert_eq!(ids, vec![0, 1]);
        let atoms = match &**body {
            Formula::And(fs) => fs.clone(),
            f => panic!("not a conjunction: {f:?}"),
        };
        assert_eq!(atoms.len(), 4);
        let a = int(26022);
        let c1 = frac(88823, 10_000_000);
        let c2 = Rat::new(BigInt::from(19312), pow10(11));
        let mid = LinExpr {
            coeffs: vec![-a.clone(), -a.clone() * int(81), int(0)],
            constant: frac(14244, 5) - &a * (frac(1, 10) + &c1 + &c2 * int(81)),
        };
        let emax = LinExpr::var(3, 2);
        assert_eq!(atoms[0], Formula::Atom(Atom::compare(&emax.scale(&int(-1)), Rel::Le, &mid)));
        assert_eq!(atoms[1], Formula::Atom(Atom::compare(&mid, Rel::Le, &emax)));
        for f in &atoms {
            match f {
                Formula::Atom(at) => assert_eq!(at.expr.dim(), 3),
                f => panic!("not an atom: {f:?}"),
            }
        }
    }

    #[test]
    fn quantifier_alternation_and_connectives() {
        let p = parse("forall x: exists y: x < y");
        assert_eq!(p.vars.names(), ["x", "y"]);
        assert_eq!(show(&p), "forall x: (exists y: (x - y < 0))");

        let p = parse("not x < 1 and y != 2 implies true or false");
        assert_eq!(show(&p), "(not (x < 1) and y != 2) implies (true or false)");
        let p = parse("a > 0 => b > 0 ⇒ c > 0 ; ");
        assert!(matches!(&p.formula, Formula::Implies(_, r) if matches!(**r, Formula::Implies(..))));
        let p = parse("!(x = 1) && x == 2 || x <> 3 ∧ x ≤ 4 ∨ ¬ x ≥ 5 ⇒ x ≠ 6");
        assert_eq!(
            show(&p),
            "((not (x = 1) and x = 2) or (x != 3 and x <= 4) or not (x >= 5)) implies (x != 6)"
        );
        // the quantifier body extends as far right as possible
        let p = parse("x > 0 and exists y: y < x or y > 2");
        assert_eq!(show(&p), "x > 0 and exists y: (-x + y < 0 or y > 2)");
    }

    #[test]
    fn parenthesised_formula_versus_expression() {
        let p = parse("(x+1) <= 2 or (x >= 3)");
        assert_eq!(show(&p), "x <= 1 or x >= 3");
        let p = parse("((x) + 1 < 2 and (y < 3)) and ((x < 1))");
        assert_eq!(show(&p), "x < 1 and y < 3 and x < 1");
        let p = parse("(exists y: y < x) or (true)");
        assert_eq!(show(&p), "exists y: (y - x < 0) or true");
        // chain: a <= b < c  means  a <= b and b < c
        let p = parse("0 <= x < 2*y = 4");
        assert_eq!(show(&p), "-x <= 0 and x - 2*y < 0 and 2*y = 4");
    }

    #[test]
    fn lets_are_exact_constants() {
        let p = parse("let k = 1/3; let m = k^2 * 9; m*x <= k");
        assert_eq!(show(&p), "x <= 1/3");
        let e = err("let k = 1; let m = k + z; x < m");
        assert_eq!((e.message.as_str(), e.span.clone()), ("`z` is not a constant", 23..24));
        let e = err("let k = 1; let k = 2; x < k");
        assert_eq!(e.message, "`k` is already defined");
        let e = err("let k = 1 x < k");
        assert_eq!(e.message, "expected an operator before `x`");
        let e = err("x < 1; let k = 1;");
        assert_eq!(e.message, "expected end of input, found keyword `let`");
        let e = err("let k = 1;");
        assert_eq!(e.message, "expected a formula, found end of input");
        let e = err("let k = 1; exists k: k < 1");
        assert_eq!(
            (e.message.as_str(), e.span.clone()),
            ("`k` is a `let` constant and cannot be quantified", 18..19)
        );
    }

    #[test]
    fn reserved_names_are_rejected() {
        let e = err("let or = 1; x < 1");
        assert_eq!(
            (e.message.as_str(), e.span.clone()),
            ("`or` is a reserved word and cannot be a constant", 4..6)
        );
        let e = err("exists true: x < 1");
        assert_eq!(e.message, "`true` is a reserved word and cannot be a variable");
        let e = err("x < not");
        assert_eq!(e.message, "expected an expression, found keyword `not`");
        let e = err("exists x, x: x < 1");
        assert_eq!((e.message.as_str(), e.span.clone()), ("`x` appears twice in this quantifier", 10..11));
    }

    #[test]
    fn missing_colon_after_quantifier_is_located() {
        let src = "exists x, y\n  x < y";
        let e = err(src);
        assert_eq!(e.message, "expected `:` after the quantified variables, found `x`");
        assert_eq!(e.headline(src), "t.qe:2:3: expected `:` after the quantified variables, found `x`");
        let e = err("exists : x < 1");
        assert_eq!(e.message, "expected a variable name after `exists`, found `:`");
    }

    #[test]
    fn other_errors_are_located() {
        let src = "let a = 2;\nexists dc1, dc2:\n  -emax <= a*dc1*dc2 <= emax";
        let e = err(src);
        assert_eq!(e.message, "a product of two variables is not linear");
        assert_eq!(e.render(src).lines().nth(4), Some("  |              ^^^^^^^ dc1 * dc2"));
        assert_eq!(e.headline(src), "t.qe:3:14: a product of two variables is not linear");
        // without the `let`, `a` is a variable too
        let e = err("exists dc1, dc2: -emax <= a*dc1*dc2 <= emax");
        assert_eq!(&*e.label, "a * dc1");
        let e = err("x < 1 y < 2");
        assert_eq!(e.span, 6..7);
        let e = err("(x + 1");
        assert_eq!(e.message, "expected `)`, found end of input");
        let e = err("(x < 1");
        assert_eq!(e.message, "expected `)` to close the formula, found end of input");
        let e = err("(x + 1) and y < 2");
        assert_eq!(
            e.message,
            "expected a comparison operator (`<`, `<=`, `=`, `!=`, `>=`, `>`), found keyword `and`"
        );
        let e = err("");
        assert_eq!(e.span, 0..0);
        let e = err("x < 1 ; y < 2");
        assert!(e.help.unwrap().contains("combine"));
        let e = err("x < f(1)");
        assert_eq!(e.message, "functions are not allowed here");
        let e = err("x < 1 $");
        assert_eq!(e.message, "unexpected character `$`");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("{}x < 1{}", "(".repeat(5000), ")".repeat(5000));
        assert!(err(&deep).message.contains("nested too deeply"));
        let nots = format!("{}x < 1", "not ".repeat(5000));
        assert!(err(&nots).message.contains("nested too deeply"));
        let ok = format!("{}x < 1{}", "(".repeat(40), ")".repeat(40));
        assert_eq!(show(&parse(&ok)), "x < 1");
    }

    /// The `qe_parser` fuzz target's SIGSEGV (no input saved): a product of
    /// two variables in parentheses recursed without end while its error
    /// was built. Here it, the input the fuzzer found, and every kind of
    /// nesting at its deepest accepted depth, one deeper and far deeper are
    /// parsed and solved (as the fuzz target does) on a thread with a 1 MiB
    /// stack, half a spawned thread's default: a clean error or a result,
    /// never an overflow.
    #[test]
    fn hostile_inputs_end_cleanly_on_a_small_stack() {
        let run = || {
            let found = "# Seed 003 (Orii 125 (about 13.5747).\nlet a  = 52044;      # the pr\x7fgra\0\0m's value\n    \
                         -emax <dc= 14245/5 - a*(1/10 + C1 + idc1 + (C2 * dc2)*(10 - 1)^2) <= e|.\n";
            assert!(parse_problem(found, "t.qe").is_err());
            // At the start of an atom too: the comparison parses, so its
            // error is shown, not the parenthesised formula's at `)`.
            for text in [
                "x < 2*((x + 1)*(y))",
                "exists y: 0 <= (y*x) + 1",
                "x < (x*y)",
                "(x*y) < 1",
                "(x*y) + 1 <= 2",
            ] {
                let d = parse_problem(text, "t.qe").expect_err("not linear");
                assert!(d.message.contains("not linear"), "{}", d.render(text));
            }
            fn wrap(open: &str, inner: &str, close: &str, k: usize) -> String {
                format!("{}{inner}{}", open.repeat(k), close.repeat(k))
            }
            /// The input with `k` levels of one kind of nesting.
            type Shape = fn(usize) -> String;
            let shapes: Vec<(&str, Shape)> = vec![
                ("parentheses", |k| wrap("(", "x < 1", ")", k)),
                ("not", |k| format!("{}x < 1", "not ".repeat(k))),
                ("quantifiers", |k| wrap("exists y: (", "x < y", ")", k)),
                ("implies", |k| vec!["x < 1"; k + 1].join(" => ")),
                ("expression parentheses", |k| format!("x < {}", wrap("(", "1", ")", k))),
                ("minus signs", |k| format!("x < {}1", "-".repeat(k))),
                ("powers", |k| format!("x < {}", vec!["1"; k + 1].join("^"))),
                ("sum", |k| format!("x < {}", vec!["x"; k + 1].join("+"))),
                ("formula and expression parentheses", |k| {
                    wrap("(", &format!("{} < 1", wrap("(", "x", ")", k)), ")", k)
                }),
                ("negated sums", |k| format!("x < {}", wrap("-(", &vec!["x"; 960].join("+"), ")", k))),
            ];
            for (what, shape) in shapes {
                // The deepest accepted (acceptance falls off at one depth).
                let (mut ok, mut bad) = (0, 5000);
                assert!(parse_problem(&shape(bad), "t.qe").is_err(), "{what}: 5000 levels");
                while bad - ok > 1 {
                    let mid = (ok + bad) / 2;
                    if parse_problem(&shape(mid), "t.qe").is_ok() {
                        ok = mid;
                    } else {
                        bad = mid;
                    }
                }
                let p = parse_problem(&shape(ok), "t.qe").expect("the deepest accepted");
                let _ = crate::qe::solve(&p, &crate::qe::Options::default());
                // One level deeper is an error, not always the nesting one
                // (of a formula's and an expression's reading of `(`, the
                // error that got further is shown).
                assert!(parse_problem(&shape(bad), "t.qe").is_err(), "{what}");
            }
        };
        let worker = std::thread::Builder::new().stack_size(1 << 20).spawn(run).expect("a thread");
        assert!(worker.join().is_ok());
    }

    #[test]
    fn all_forms_have_the_final_dimension() {
        let p = parse("x < 1 and exists y: y < 2 and z = 3");
        assert_eq!(p.vars.names(), ["x", "y", "z"]);
        fn check(f: &Formula) {
            match f {
                Formula::Atom(a) => assert_eq!(a.expr.dim(), 3),
                Formula::And(fs) | Formula::Or(fs) => fs.iter().for_each(check),
                Formula::Exists(_, g) | Formula::Forall(_, g) | Formula::Not(g) => check(g),
                Formula::Implies(a, b) => {
                    check(a);
                    check(b)
                }
                Formula::True | Formula::False => {}
            }
        }
        check(&p.formula);
    }

    fn small_rat() -> impl Strategy<Value = Rat> {
        (-6i64..=6, 1i64..=4).prop_map(|(n, d)| frac(n, d))
    }

    fn qf_formula() -> impl Strategy<Value = Formula> {
        let rel = prop_oneof![
            Just(Rel::Lt),
            Just(Rel::Le),
            Just(Rel::Eq),
            Just(Rel::Ne),
            Just(Rel::Ge),
            Just(Rel::Gt)
        ];
        let atom =
            (prop::collection::vec(small_rat(), 3), small_rat(), rel).prop_map(|(coeffs, constant, rel)| {
                Formula::Atom(Atom { expr: LinExpr { coeffs, constant }, rel })
            });
        let leaf = prop_oneof![1 => Just(Formula::True), 1 => Just(Formula::False), 6 => atom];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Formula::And),
                prop::collection::vec(inner.clone(), 0..4).prop_map(Formula::Or),
                inner.clone().prop_map(|f| Formula::Not(Box::new(f))),
                (inner.clone(), inner).prop_map(|(a, b)| Formula::Implies(Box::new(a), Box::new(b))),
            ]
        })
    }

    proptest! {
        #[test]
        fn printed_formulas_parse_back_equivalently(
            f in qf_formula(),
            points in prop::collection::vec(prop::collection::vec(small_rat(), 3), 1..6),
        ) {
            let vars = VarTable::from_names(["x", "y", "z"]);
            let text = f.show(&vars, NumFormat::Exact);
            let p = parse_problem(&text, "p.qe").map_err(|d| TestCaseError::fail(d.render(&text)))?;
            for pt in &points {
                let mapped: Vec<Rat> = p
                    .vars
                    .names()
                    .iter()
                    .map(|n| vars.lookup(n).map(|i| pt[i].clone()).unwrap_or_default())
                    .collect();
                prop_assert_eq!(f.eval_qf(pt), p.formula.eval_qf(&mapped), "{}", text);
            }
        }
    }
}
