//! The bundled HPL measurements (data/hpl.csv) reproduce the paper's
//! e_max when the eq. (6) formula is built from them, through the binary.

use assert_cmd::cargo::cargo_bin_cmd;

fn measurements() -> Vec<(String, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/hpl.csv");
    let text = std::fs::read_to_string(path).expect("bundled data file");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .skip(1)
        .map(|l| {
            let (p, t) = l.split_once(',').expect("two columns");
            (p.trim().to_string(), t.trim().to_string())
        })
        .collect()
}

#[test]
fn eq6_built_from_the_bundled_csv_gives_the_papers_emax() {
    let rows = measurements();
    assert_eq!(rows.len(), 12);
    let mut f = String::from("let a = 26022; let C1 = 0.0088823; let C2 = 1.9312e-7;\nexists dc1, dc2:\n");
    for (i, (p, t)) in rows.iter().enumerate() {
        let join = if i == 0 { "    " } else { "and " };
        f.push_str(&format!("{join}-emax <= {t} - a*(1/{p} + C1 + dc1 + (C2 + dc2)*({p} - 1)^2) <= emax\n"));
    }
    let out = cargo_bin_cmd!("errband").args(["qe", "-"]).write_stdin(f).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1101248/81125 <= emax\n");
}

#[test]
fn dropping_the_outlier_at_p110_lowers_emax() {
    // Orii & Anai section 4.4: p = 110 has the outlying residual; without it the
    // smallest achievable residual bound must not grow (it is a minimax over
    // fewer points) and here it shrinks.
    let rows: Vec<_> = measurements().into_iter().filter(|(p, _)| p != "110").collect();
    let mut f = String::from("let a = 26022; let C1 = 0.0088823; let C2 = 1.9312e-7;\nexists dc1, dc2:\n");
    for (i, (p, t)) in rows.iter().enumerate() {
        let join = if i == 0 { "    " } else { "and " };
        f.push_str(&format!("{join}-emax <= {t} - a*(1/{p} + C1 + dc1 + (C2 + dc2)*({p} - 1)^2) <= emax\n"));
    }
    let out = cargo_bin_cmd!("errband").args(["qe", "-"]).write_stdin(f).output().expect("runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let bound = text.trim().strip_suffix(" <= emax").expect("a lower bound on emax");
    let (n, d) = bound.split_once('/').unwrap_or((bound, "1"));
    let value: f64 = n.parse::<f64>().unwrap() / d.parse::<f64>().unwrap();
    assert!(value < 1101248.0 / 81125.0, "emax without p = 110 is {value}");
}

#[test]
fn the_pruned_tables_pair_every_point_with_its_own_pruned_band() {
    // `--drop`: the Markdown table of widths must show, for every
    // prediction point and threshold, the full and the pruned analysis'
    // widths at that same point, as the JSON document holds them.
    let run = |format: &str| {
        let out = cargo_bin_cmd!("errband")
            .args(["models/hpl.tm", "data/hpl.csv", "--drop", "p=60", "--format", format])
            .output()
            .expect("runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let doc: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    let width = |pb: &serde_json::Value, i: usize| {
        pb["bands"][i]["band"]["width"]["decimal"].as_str().unwrap().to_string()
    };
    let mut expected = Vec::new();
    for (full, pruned) in
        doc["bands"].as_array().unwrap().iter().zip(doc["pruned"]["bands"].as_array().unwrap())
    {
        assert_eq!(full["point"], pruned["point"]);
        for (i, t) in full["bands"].as_array().unwrap().iter().enumerate() {
            let p = full["point"]["p"].as_str().unwrap();
            let label = t["threshold"]["label"].as_str().unwrap();
            expected.push(format!("| {p} | {label} | {} | {} |", width(full, i), width(pruned, i)));
        }
    }
    assert_eq!(expected.len(), 16, "8 points × 2 thresholds");
    let md = run("md");
    let table = md.split("## Pruned").nth(1).expect("a pruned section");
    for row in &expected {
        assert!(table.contains(row.as_str()), "missing {row} in\n{table}");
    }
    // The text table has the same rows, each with both bands.
    let text = run("text");
    let section = text.split("Pruned: without p = 60").nth(1).expect("a pruned section");
    let rows = section.lines().filter(|l| l.matches('[').count() == 2 && l.contains('×')).count();
    assert_eq!(rows, 16, "{section}");
}
