//! `--report FILE.html|md` on the predictors (energy, barrier, ms predict):
//! one writer for every subcommand (`cli::whole`), so the same promises hold
//! as for prune and plan: HTML is self-contained with its charts inline,
//! Markdown has each chart beside it as `out-KIND.svg`, an output may not be
//! an input, and a refused run writes nothing.

#[path = "common/cli.rs"]
mod cli;
use cli::*;

const ENERGY: [&str; 4] = ["energy", "data/energy_mg.csv", "--nodes", "2,16,inf"];
const BARRIER: [&str; 7] = [
    "barrier",
    "--nodes",
    "2..120",
    "--mpi-model",
    "models/mpi_barrier.tm",
    "--mpi-data",
    "data/mpi_barrier.csv",
];
const MS: [&str; 7] =
    ["ms", "predict", "data/mandelbrot_32x32.csv", "--grid", "1024x1024", "--procs", "8..32:8"];

fn with(base: &[&str], extra: &[&str]) -> Vec<String> {
    base.iter().chain(extra).map(|s| s.to_string()).collect()
}

fn run_ok(args: &[String]) -> String {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&a)
}

#[test]
fn html_reports_are_self_contained_with_their_charts_inline() {
    let dir = tmp_dir();
    for (base, charts, title) in [
        (&ENERGY[..], 3, "errband energy"),
        (&BARRIER[..], 1, "errband barrier"),
        (&MS[..], 1, "errband ms predict"),
    ] {
        let path = dir.join(format!("{}.html", base[0])).to_string_lossy().into_owned();
        let stdout = run_ok(&with(base, &["--report", &path]));
        let text = run_ok(&with(base, &[]));
        assert_eq!(stdout, text, "--report leaves standard output as it was");
        let h = std::fs::read_to_string(&path).expect("report written");
        assert!(h.starts_with("<!DOCTYPE html>") && h.contains(title), "{path}");
        assert_eq!(h.matches("<svg").count(), charts, "{path}: one inline chart per kind");
        for fetch in ["src=\"http", "href=\"http", "<script src"] {
            assert!(!h.contains(fetch), "{path} fetches something: {fetch}");
        }
    }
    // The barrier report leads with the conclusion.
    let h = std::fs::read_to_string(dir.join("barrier.html")).unwrap();
    assert!(h.contains("<p><strong>At N = 120"), "the conclusion heads the report");
}

#[test]
fn markdown_reports_have_each_chart_beside_them() {
    let dir = tmp_dir();
    let md = dir.join("energy.md").to_string_lossy().into_owned();
    run_ok(&with(&ENERGY, &["--report", &md]));
    let m = std::fs::read_to_string(&md).unwrap();
    for kind in ["delta", "ee", "shares"] {
        assert!(m.contains(&format!("![{kind}](energy-{kind}.svg)")), "{m}");
        let svg = std::fs::read_to_string(dir.join(format!("energy-{kind}.svg"))).unwrap();
        assert!(svg.starts_with("<svg"), "{kind}");
    }
    let md = dir.join("b.md").to_string_lossy().into_owned();
    run_ok(&with(&BARRIER, &["--report", &md]));
    assert!(std::fs::read_to_string(&md).unwrap().contains("![teb](b-teb.svg)"));
    assert!(dir.join("b-teb.svg").exists());
}

#[test]
fn a_report_over_an_input_or_a_refused_format_writes_nothing() {
    let dir = tmp_dir();
    let data = dir.join("tasks.csv");
    std::fs::copy(root().join("data/mandelbrot_32x32.csv"), &data).unwrap();
    let before = std::fs::read(&data).unwrap();
    let d = data.to_string_lossy().into_owned();
    let args = ["ms", "predict", &d, "--grid", "1024x1024", "--procs", "8", "--report", &d];
    let r = fails(&args, 2);
    has(&r.stderr, &["--report"]);
    assert_eq!(std::fs::read(&data).unwrap(), before, "the input is untouched");
    let out = dir.join("out.html").to_string_lossy().into_owned();
    let r = fails(
        &with(&ENERGY, &["--report", &out, "--format", "latex"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        2,
    );
    has(&r.stderr, &["--format latex", "no LaTeX output"]);
    assert!(!dir.join("out.html").exists(), "a refused run writes no report");
}

/// `--plot-at n=16000`: the band plot of a two-variable model at an
/// extrapolated problem size, over the whole range of the other variable.
#[test]
fn band_plots_take_a_slice_of_several_variables() {
    let dir = tmp_dir();
    let svg = dir.join("pn.svg").to_string_lossy().into_owned();
    let plot = format!("band={svg}");
    ok(&["models/pn.tm", "data/pn.csv", "--plot-at", "n=16000", "--plot", &plot]);
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.contains("(n = 16000)"), "the slice is named in the title");
    assert!(s.contains("p [processors]"), "p is the axis");
    assert!(s.contains("band, threshold max"), "the band at the extrapolated n is drawn");
    // Default: the first varying variable, the others at the first prediction point.
    ok(&["models/pn.tm", "data/pn.csv", "--plot", &plot]);
    assert!(std::fs::read_to_string(&svg).unwrap().contains("(n = 4000)"));
    for (arg, says) in [
        ("n=16000,p=4", "every variable is fixed"),
        ("q=3", "`q` is not a variable of the model"),
        ("n=1..3", "exactly one value"),
    ] {
        let r = fails(&["models/pn.tm", "data/pn.csv", "--plot-at", arg, "--plot", &plot], 2);
        has(&r.stderr, &["--plot-at", says]);
    }
}

/// A region whose vertices were not listed (`--max-vertices` passed) has
/// its bands from exact LPs in the numbers, and the band plot draws them
/// too: the figure reads the library's predictions, not the vertices.
#[test]
fn band_plots_draw_regions_whose_vertices_were_not_listed() {
    let dir = tmp_dir();
    let svg = dir.join("hpl.svg").to_string_lossy().into_owned();
    let plot = format!("band={svg}");
    let out = ok(&["models/hpl.tm", "data/hpl.csv", "--max-vertices", "3", "--plot", &plot]);
    assert!(out.contains("not listed"), "the regions' vertices were not listed:\n{out}");
    let s = std::fs::read_to_string(&svg).unwrap();
    for label in ["band, threshold max", "band, threshold trusted", "new measurement, threshold trusted"] {
        assert!(s.contains(label), "{label} is drawn");
    }
}

/// A whole experiment's report draws every series at the `--plot-at` slice.
#[test]
fn experiment_reports_take_the_slice_too() {
    let dir = tmp_dir();
    let model = dir.join("relearn.tm");
    std::fs::write(&model, "T(p, n) = c0 + c1*p + c2*n\nparam c0, c1, c2\n").unwrap();
    let html = dir.join("rel.html").to_string_lossy().into_owned();
    let m = model.to_string_lossy().into_owned();
    ok(&[&m, "data/extrap/relearn.extra-p", "--plot-at", "n=5000", "--report", &html]);
    let h = std::fs::read_to_string(&html).unwrap();
    assert_eq!(h.matches("(n = 5000)").count(), 14, "one band plot per callpath at n = 5000");
}
