//! Strings from inputs (file names, column and region names, model text)
//! never become live markup or spreadsheet formulas: HTML, SVG, Markdown,
//! LaTeX and CSV outputs are fed `<script>`, quotes, `=cmd|` prefixes and
//! control characters and checked.

#[path = "common/cli.rs"]
mod cli;
use cli::*;

const EVIL: &str = "<script>alert(\"x\")</script>";
const IMG: &str = "<img src=x onerror=alert(1)>";

/// A directory whose name is itself an attack, holding copies of the HPL example.
fn evil_dir() -> std::path::PathBuf {
    let d = tmp_dir().join(format!("{EVIL} & 'q' \\input{{x}}"));
    std::fs::create_dir_all(&d).unwrap();
    for f in ["models/hpl.tm", "data/hpl.csv"] {
        let name = std::path::Path::new(f).file_name().unwrap();
        std::fs::copy(root().join(f), d.join(name)).unwrap();
    }
    d
}

/// No raw tag from the inputs survives in markup.
#[track_caller]
fn no_live_markup(what: &str, text: &str) {
    for bad in ["<script", "<img", "onerror=alert"] {
        let live = match bad {
            "onerror=alert" => text.contains("<img") && text.contains(bad),
            _ => text.contains(bad),
        };
        assert!(!live, "{what} contains live `{bad}`:\n{}", &text[..text.len().min(3000)]);
    }
}

#[test]
fn file_names_are_escaped_in_html_svg_markdown_and_latex() {
    let d = evil_dir();
    let model = d.join("hpl.tm");
    let data = d.join("hpl.csv");
    let (model, data) = (model.to_str().unwrap(), data.to_str().unwrap());
    let html = d.join("r.html");
    let svg = d.join("b.svg");
    ok(&[model, data, "--report", html.to_str().unwrap(), "--plot", svg.to_str().unwrap()]);
    no_live_markup("HTML report", &std::fs::read_to_string(&html).unwrap());
    no_live_markup("SVG plot", &std::fs::read_to_string(&svg).unwrap());
    let md = ok(&[model, data, "--format", "md"]);
    no_live_markup("Markdown", &md);
    // LaTeX: the file names appear only in `%` comment lines (one line each);
    // everywhere else no raw `&`, `<` or the name.
    let tex = ok(&[model, data, "--format", "latex"]);
    let body: Vec<&str> = tex.lines().filter(|l| !l.starts_with('%')).collect();
    let caption = body.iter().find(|l| l.contains("alert")).expect("the caption names the data file");
    assert!(caption.contains("\\& 'q' \\textbackslash{}input\\{x\\}"), "{caption}");
    assert!(!body.iter().any(|l| l.contains("\\input{x}")), "a live \\input in:\n{tex}");
}

#[test]
fn region_names_cannot_inject_markup_or_formulas() {
    let text = std::fs::read_to_string(root().join("data/energy_mg.csv")).unwrap();
    let evil = text
        .replace("\nresid,", &format!("\n\"{IMG}\","))
        .replace("\npsinv_smooth,", "\n\"=cmd|' /C calc'!A0\",")
        .replace("\nrprj3,", "\n\"+SUM(1,2)\",")
        .replace("\ninterp,", "\n\"@evil\u{7}bell\",");
    assert_ne!(evil, text, "the profile's regions were renamed");
    let f = tmp_file("evil.csv", &evil);
    let svg = tmp_dir().join("energy.svg");
    let md = ok(&["energy", &f, "--format", "md", "--plot", svg.to_str().unwrap()]);
    no_live_markup("energy Markdown", &md);
    no_live_markup("energy SVG", &std::fs::read_to_string(&svg).unwrap());
    let csv = ok(&["energy", &f, "--format", "csv"]);
    for line in csv.lines() {
        for cell in line.split(',') {
            let c = cell.trim_start_matches('"');
            assert!(
                !(c.starts_with('=') || c.starts_with('+') || c.starts_with('@')),
                "CSV cell could run as a formula: {cell:?} in {line:?}"
            );
        }
        assert!(!line.contains('\u{7}'), "a control character reached the CSV: {line:?}");
    }
    // The names are kept, made inert, not dropped.
    has(&csv, &["'=cmd|", "'+SUM(1"]);
}

#[test]
fn master_slave_reports_escape_the_task_file_name() {
    let d = evil_dir();
    let tasks = d.join("tasks.csv");
    std::fs::write(&tasks, "i1,time [us]\n0,1\n1,2\n").unwrap();
    let tasks = tasks.to_str().unwrap();
    let svg = d.join("ms.svg");
    let md = ok(&[
        "ms",
        "predict",
        tasks,
        "--grid",
        "2",
        "--procs",
        "2,3",
        "--format",
        "md",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    no_live_markup("ms Markdown", &md);
    no_live_markup("ms SVG", &std::fs::read_to_string(&svg).unwrap());
}
