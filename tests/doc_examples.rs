//! Every example shown in README.md and docs/*.md as a fenced block that
//! starts with `$ ` and runs `$ errband …` is run from the repository's root,
//! and its output (standard output and error together) must be what the
//! block shows after each command. A line `…` in a shown output marks a cut
//! that may skip any number of lines (at the start, in the middle, at the
//! end). A block preceded by the line `<!-- not-run -->` is skipped (for
//! commands that write files or need tools errband does not ship).
//!
//! `UPDATE_DOCS=1 cargo test --release --test doc_examples` rewrites the
//! outputs of failing blocks that have no cut.

#[path = "common/docs.rs"]
mod docs;

use std::process::Command;

struct Block {
    /// 0-based line index of the first line inside the fence.
    start: usize,
    /// 0-based line index of the closing fence.
    end: usize,
}

fn blocks(lines: &[&str]) -> Vec<Block> {
    let mut v = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].starts_with("```") {
            let open = i;
            let mut j = i + 1;
            while j < lines.len() && !lines[j].starts_with("```") {
                j += 1;
            }
            let inner = &lines[open + 1..j.min(lines.len())];
            let prev = lines[..open].iter().rev().find(|l| !l.trim().is_empty());
            let skip = prev.is_some_and(|l| l.trim() == "<!-- not-run -->");
            let runs = inner.first().is_some_and(|l| l.starts_with("$ "))
                && inner.iter().any(|l| l.starts_with("$ errband"));
            if runs && !skip {
                v.push(Block { start: open + 1, end: j });
            }
            i = j + 1;
        } else {
            i += 1;
        }
    }
    v
}

/// The commands of a block, each with its shown output lines.
fn commands<'a>(inner: &[&'a str]) -> Vec<(String, Vec<&'a str>)> {
    let mut v: Vec<(String, Vec<&str>)> = Vec::new();
    for l in inner {
        if let Some(c) = l.strip_prefix("$ ") {
            v.push((c.to_string(), Vec::new()));
        } else if let Some(last) = v.last_mut() {
            last.1.push(l);
        }
    }
    v
}

fn run(cmd: &str) -> String {
    let dir = docs::bin().parent().unwrap().to_path_buf();
    let path = format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("{{ {cmd}\n}} 2>&1"))
        .current_dir(docs::root())
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn is_cut(l: &str) -> bool {
    l.trim() == "…"
}

/// Whether the actual lines match the shown ones, `…` lines skipping any.
fn matches(shown: &[&str], actual: &[&str]) -> bool {
    let norm = |s: &str| s.trim_end().to_string();
    let segs: Vec<Vec<String>> =
        shown.split(|l| is_cut(l)).map(|s| s.iter().map(|l| norm(l)).collect()).collect();
    let act: Vec<String> = actual.iter().map(|l| norm(l)).collect();
    if segs.len() == 1 {
        return segs[0] == act;
    }
    let (first, last) = (&segs[0], &segs[segs.len() - 1]);
    if act.len() < first.len() + last.len()
        || act[..first.len()] != first[..]
        || act[act.len() - last.len()..] != last[..]
    {
        return false;
    }
    let mut pos = first.len();
    let end = act.len() - last.len();
    for seg in &segs[1..segs.len() - 1] {
        if seg.is_empty() {
            continue;
        }
        match (pos..=end.saturating_sub(seg.len()))
            .find(|&k| k + seg.len() <= end && act[k..k + seg.len()] == seg[..])
        {
            Some(k) => pos = k + seg.len(),
            None => return false,
        }
    }
    true
}

#[test]
fn every_shown_command_prints_what_is_shown() {
    let update = std::env::var_os("UPDATE_DOCS").is_some();
    let mut failures = Vec::new();
    let mut ran = 0;
    for path in docs::user_docs() {
        let name = path.strip_prefix(docs::root()).unwrap().display().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut rewritten: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        let mut changed = false;
        // Rewrite from the end, so earlier line numbers stay valid.
        for b in blocks(&lines).iter().rev() {
            let inner = &lines[b.start..b.end];
            let mut new_inner = Vec::new();
            let mut block_ok = true;
            let mut has_cut = false;
            for (cmd, shown) in commands(inner) {
                ran += 1;
                let actual = run(&cmd);
                let act: Vec<&str> = actual.lines().collect();
                has_cut |= shown.iter().any(|l| is_cut(l));
                new_inner.push(format!("$ {cmd}"));
                new_inner.extend(act.iter().map(|l| l.trim_end().to_string()));
                if !matches(&shown, &act) {
                    block_ok = false;
                    failures.push(format!(
                        "{name}:{}: `$ {cmd}` printed\n{}\n--- but the block shows ---\n{}\n",
                        b.start + 1,
                        actual.trim_end(),
                        shown.join("\n")
                    ));
                }
            }
            if !block_ok && update && !has_cut {
                rewritten.splice(b.start..b.end, new_inner);
                changed = true;
            }
        }
        if changed {
            std::fs::write(&path, rewritten.join("\n") + "\n").unwrap();
        }
    }
    assert!(ran > 0, "no `$ errband` examples found");
    assert!(
        failures.is_empty(),
        "{} shown command(s) print something else (a `…` line marks a cut; UPDATE_DOCS=1 rewrites uncut blocks):\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn cuts_match_as_documented() {
    assert!(matches(&["a", "…", "d"], &["a", "b", "c", "d"]));
    assert!(matches(&["…", "c"], &["a", "b", "c"]));
    assert!(matches(&["a", "…"], &["a", "b"]));
    assert!(matches(&["a", "…", "c", "…"], &["a", "b", "c", "d"]));
    assert!(!matches(&["a", "…", "x"], &["a", "b", "c"]));
    assert!(!matches(&["a", "b"], &["a", "b", "c"]));
}
