//! No project-internal vocabulary in what users read: README.md, docs/*.md,
//! the bundled example models and data (their comments), the `--help` of
//! every command and the manual page. Banned: the papers called "seed N",
//! "the seeds" or `seed003` (a random seed, as `measure --seed` takes, is a
//! user's word), "SPEC", "issue N", "§" and paths into `../shared`.

#[path = "common/docs.rs"]
mod docs;

use std::process::Command;

/// What is wrong with one line, if anything.
fn banned(line: &str) -> Option<&'static str> {
    let lower = line.to_lowercase();
    let bytes = lower.as_bytes();
    let word = |i: usize| i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_');
    let mut from = 0;
    while let Some(k) = lower[from..].find("seed") {
        let i = from + k;
        let plural = bytes.get(i + 4) == Some(&b's');
        let end = if plural { i + 5 } else { i + 4 };
        // `seed 003`, `seeds 000/002`, `the seeds`: the papers by number.
        let numbered = lower[end..].trim_start().starts_with(|c: char| c.is_ascii_digit());
        let flag = lower[..i].ends_with("--");
        if !flag && (i == 0 || !word(i - 1)) && !word(end) && (numbered || plural) {
            return Some("a paper called `seed`");
        }
        // `seed003_eq6.qe`: a paper's number in a file name.
        if (i == 0 || !word(i - 1)) && lower[i + 4..].starts_with("00") {
            return Some("a paper called `seed`");
        }
        from = i + 4;
    }
    let b = line.as_bytes();
    let mut from = 0;
    while let Some(k) = line[from..].find("SPEC") {
        let i = from + k;
        let wb = |j: usize| j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_');
        if (i == 0 || !wb(i - 1)) && !wb(i + 4) {
            return Some("`SPEC`");
        }
        from = i + 4;
    }
    let mut from = 0;
    while let Some(k) = lower[from..].find("issue ") {
        let at = from + k;
        let i = at + "issue ".len();
        if (at == 0 || !word(at - 1)) && bytes.get(i).is_some_and(u8::is_ascii_digit) {
            return Some("`issue N`");
        }
        from = i;
    }
    if line.contains('§') {
        return Some("`§`");
    }
    if line.contains("../shared") {
        return Some("`../shared`");
    }
    None
}

fn scan(name: &str, text: &str, found: &mut Vec<String>) {
    for (n, line) in text.lines().enumerate() {
        if let Some(what) = banned(line) {
            found.push(format!("{name}:{}: {what}: {line}", n + 1));
        }
    }
}

#[test]
fn the_ban_catches_what_it_should() {
    for bad in [
        "seed 003",
        "Seeds 000/002",
        "(SPEC §3)",
        "issue 20",
        "see ../shared/holdout",
        "SPEC.",
        "seed003_eq6.qe",
    ] {
        assert!(banned(bad).is_some(), "{bad:?} should be banned");
    }
    for ok in [
        "--seed 7",
        "a random seed (recorded)",
        "# seed: 42",
        "hpl_eq6.qe",
        "seeded",
        "ColumnSpec",
        "tissue 3",
        "issues",
        "specification",
    ] {
        assert_eq!(banned(ok), None, "{ok:?} should pass");
    }
}

#[test]
fn readme_and_docs_speak_the_users_language() {
    let mut found = Vec::new();
    for path in docs::user_docs() {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.strip_prefix(docs::root()).unwrap().display().to_string();
        scan(&name, &text, &mut found);
    }
    assert!(found.is_empty(), "project-internal words in user documentation:\n{}", found.join("\n"));
}

#[test]
fn the_bundled_models_and_data_speak_the_users_language() {
    let mut found = Vec::new();
    let mut seen = 0;
    for dir in ["models", "data"] {
        let mut files: Vec<_> =
            std::fs::read_dir(docs::root().join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for path in files.into_iter().filter(|p| p.is_file()) {
            // Binary archives have no comments to read.
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let name = path.strip_prefix(docs::root()).unwrap().display().to_string();
            scan(&name, &text, &mut found);
            seen += 1;
        }
    }
    assert!(seen >= 15, "only {seen} bundled files read");
    assert!(found.is_empty(), "project-internal words in the bundled models and data:\n{}", found.join("\n"));
}

#[test]
fn help_texts_and_the_manual_speak_the_users_language() {
    let mut found = Vec::new();
    for (words, help) in docs::every_help() {
        scan(&format!("`errband {} --help`", words.join(" ")).replace("  ", " "), &help, &mut found);
    }
    let man = Command::new(docs::bin()).arg("man").output().unwrap();
    assert!(man.status.success());
    scan("`errband man`", &String::from_utf8_lossy(&man.stdout), &mut found);
    assert!(found.is_empty(), "project-internal words in --help or the manual page:\n{}", found.join("\n"));
}

/// The library's documentation (rustdoc: every `//!` and `///` line under
/// `src/`, test files aside) is what a Rust user reads.
#[test]
fn the_library_documentation_speaks_the_users_language() {
    fn walk(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, files);
            } else if p.extension().is_some_and(|e| e == "rs") {
                files.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&docs::root().join("src"), &mut files);
    let mut found = Vec::new();
    let mut doc_lines = 0;
    for path in files {
        let name = path.strip_prefix(docs::root()).unwrap().display().to_string();
        if name.ends_with("tests.rs") || name.ends_with("testdata.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let docs_only: String =
            text.lines()
                .map(|l| {
                    if l.trim_start().starts_with("//!") || l.trim_start().starts_with("///") {
                        l
                    } else {
                        ""
                    }
                })
                .collect::<Vec<_>>()
                .join("\n");
        doc_lines += docs_only.lines().filter(|l| !l.is_empty()).count();
        scan(&name, &docs_only, &mut found);
    }
    assert!(doc_lines > 5000, "only {doc_lines} documentation lines read");
    assert!(found.is_empty(), "project-internal words in the library's documentation:\n{}", found.join("\n"));
}
