//! `errband qe FILE|-`: eliminate quantifiers and print the result.

use super::files::Io;
use super::{read_input, Failure};
use crate::limits::Limits;
use crate::num::NumFormat;
use crate::qe::{self, output};
use clap::{Args, ValueEnum};

/// Output syntax of the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Cylindrical form in errband's own syntax, one cell per line.
    Text,
    /// JSON: variables, minimal constraints, cells (and vertices with --vertices).
    Json,
    /// One SMT-LIB2 term, to check `input <=> output` with any SMT solver.
    Smtlib,
    /// Mathematica syntax (`&&`, `||`, `==`).
    Mathematica,
}

/// Syntax for `--emit-problem`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// An SMT-LIB2 script declaring the free variables and asserting the formula.
    Smtlib,
    /// A Mathematica `Reduce` call.
    Mathematica,
}

/// Arguments of `errband qe`.
#[derive(Args, Debug)]
pub struct QeArgs {
    /// Formula file (`-` for standard input).
    pub file: String,
    /// Variable order of the cylindrical form, outermost first (e.g. `--order dc2,dc1`).
    #[arg(long, value_delimiter = ',')]
    pub order: Vec<String>,
    /// List the vertices (and rays, lines) of each convex piece.
    #[arg(long)]
    pub vertices: bool,
    /// Output syntax of the result.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print the input problem in this syntax instead of solving it.
    #[arg(long, value_enum)]
    pub emit_problem: Option<Emit>,
    /// Show numbers as correctly rounded decimals with N significant digits (default: exact fractions).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub decimal: Option<u32>,
}

/// Runs the command.
pub fn run(a: QeArgs, limits: &Limits, io: &mut Io) -> Result<(), Failure> {
    let source = read_input(&a.file)?;
    let name = if a.file == "-" { "<stdin>" } else { a.file.as_str() };
    let problem = qe::syntax::parse_problem_with(&source, name, limits)
        .map_err(|d| Failure::input(d.render(&source)))?;
    let fmt = a.decimal.map_or(NumFormat::Exact, |n| NumFormat::Decimal(n as usize));
    let write = |io: &mut Io, s: String| io.stdout(&format!("{s}\n"));
    if let Some(emit) = a.emit_problem {
        let text = match emit {
            Emit::Smtlib => output::smt_problem(&problem, name),
            Emit::Mathematica => output::mma_problem(&problem, &a.order),
        };
        return write(io, text.trim_end().to_string());
    }
    let opts = qe::Options { order: a.order.clone(), limits: *limits, ..Default::default() };
    let result = qe::solve(&problem, &opts).map_err(|e| Failure::of(&e))?;
    let text = match a.format {
        Format::Text => {
            let mut s = output::text(&result, fmt);
            if a.vertices {
                s.push_str(&vertices_text(&result, fmt));
            }
            s
        }
        Format::Json => {
            let doc = crate::document::qe::QeDocument {
                header: crate::document::Header::new(crate::document::Command::Qe),
                result: crate::document::qe::QeResultDoc::new(&result, fmt, a.vertices),
            };
            serde_json::to_string_pretty(&crate::document::to_value(&doc))
                .map_err(|e| Failure::analysis(format!("cannot encode JSON: {e}")))?
        }
        Format::Smtlib => output::smt_result(&result),
        Format::Mathematica => output::mma_result(&result),
    };
    write(io, text)
}

fn vertices_text(r: &qe::QeResult, fmt: NumFormat) -> String {
    let names = r.vars.names().join(", ");
    let point = |v: &Vec<crate::num::Rat>| {
        format!("({})", v.iter().map(|x| fmt.show(x)).collect::<Vec<_>>().join(", "))
    };
    let mut s = String::new();
    for (i, p) in r.pieces.iter().enumerate() {
        let g = &p.minimal.generators;
        s.push_str(&format!("\n\n# piece {}: {} vertices of ({names})", i + 1, g.vertices.len()));
        for v in &g.vertices {
            s.push_str(&format!("\nvertex {}", point(v)));
        }
        for v in &g.rays {
            s.push_str(&format!("\nray    {}", point(v)));
        }
        for v in &g.lines {
            s.push_str(&format!("\nline   {}", point(v)));
        }
        if g.vertices.is_empty() && r.vars.is_empty() {
            s.push_str("\n(no free variables)");
        }
    }
    s
}
