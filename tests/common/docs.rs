//! Helpers shared by the documentation tests: the user-facing Markdown files
//! and the `--help` text of every (sub)command.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_errband"))
}

/// README.md and docs/*.md, sorted.
pub fn user_docs() -> Vec<PathBuf> {
    let mut v = vec![root().join("README.md")];
    let mut d: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    d.sort();
    v.extend(d);
    v
}

/// The `--help` output of `errband` with these subcommand words.
pub fn help(words: &[String]) -> String {
    let out = Command::new(bin()).args(words).arg("--help").env("NO_COLOR", "1").output().unwrap();
    assert!(out.status.success(), "errband {} --help failed", words.join(" "));
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands a help text lists under `Commands:` (without `help`).
fn subcommands(help: &str) -> Vec<String> {
    let mut v = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if line == "Commands:" {
            inside = true;
            continue;
        }
        if inside {
            if !line.starts_with("  ") {
                break;
            }
            // A command's name is indented by two spaces; wrapped
            // descriptions are indented further.
            if line.starts_with("   ") {
                continue;
            }
            let name = line.split_whitespace().next().unwrap_or("");
            if !name.is_empty() && name != "help" {
                v.push(name.to_string());
            }
        }
    }
    v
}

/// Every (sub)command as its words (the root is the empty list) with its
/// `--help` text, depth first, in the order `--help` lists them.
pub fn every_help() -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    let mut stack = vec![Vec::new()];
    while let Some(words) = stack.pop() {
        let h = help(&words);
        let subs = subcommands(&h);
        out.push((words.clone(), h));
        for s in subs.into_iter().rev() {
            let mut w = words.clone();
            w.push(s);
            stack.push(w);
        }
    }
    out
}
