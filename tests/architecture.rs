//! The module graph has no circles: for the library's top-level modules
//! (`src/X.rs` or `src/X/`), "X uses Y" when X's non-test code names
//! `crate::Y`; that relation must be acyclic, so every layer can be read,
//! tested and replaced without the ones above it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The top-level module each source file belongs to, with its code (test
/// modules and comments left out).
fn modules() -> BTreeMap<String, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().and_then(|x| x.to_str()) != Some("rs") {
                continue;
            }
            let rel = path.strip_prefix(&src).unwrap();
            let first = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
            let module = first.trim_end_matches(".rs").to_string();
            if module == "lib" || module == "main" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
            let code: String =
                code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
            out.entry(module).or_default().push_str(&code);
        }
    }
    out
}

/// `X uses Y` edges between distinct top-level modules.
fn edges(mods: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, code) in mods {
        let uses = g.entry(m.clone()).or_default();
        for other in mods.keys() {
            if other != m
                && (code.contains(&format!("crate::{other}::")) || code.contains(&format!("crate::{other};")))
            {
                uses.insert(other.clone());
            }
        }
        // `use crate::{a, b::c}` groups.
        for group in code.split("use crate::{").skip(1) {
            let body = group.split("};").next().unwrap_or("");
            for item in body.split(',') {
                let name = item.trim().split("::").next().unwrap_or("").trim();
                if name != m && mods.contains_key(name) {
                    uses.insert(name.to_string());
                }
            }
        }
    }
    g
}

/// A circle through the graph, if there is one (depth-first search).
fn circle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        mark: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        mark.insert(n.to_string(), Mark::Open);
        path.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            match mark.get(m).copied().unwrap_or(Mark::New) {
                Mark::Open => {
                    let at = path.iter().position(|p| p == m).unwrap();
                    let mut c = path[at..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                Mark::New => {
                    if let Some(c) = visit(m, g, mark, path) {
                        return Some(c);
                    }
                }
                Mark::Done => {}
            }
        }
        path.pop();
        mark.insert(n.to_string(), Mark::Done);
        None
    }
    let mut mark = BTreeMap::new();
    for n in g.keys() {
        if mark.get(n).copied().unwrap_or(Mark::New) == Mark::New {
            if let Some(c) = visit(n, g, &mut mark, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn the_top_level_modules_form_no_circle() {
    let mods = modules();
    assert!(mods.len() > 20, "found only {:?}", mods.keys());
    let g = edges(&mods);
    // The reader of this graph must see real edges (a parser that saw none
    // would pass trivially).
    assert!(g["analysis"].contains("fit") && g["data"].contains("hypothesis"), "{g:?}");
    if let Some(c) = circle(&g) {
        panic!("a circle among modules: {}", c.join(" -> "));
    }
}

#[test]
fn the_circle_finder_finds_circles() {
    let g: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into_iter()
    .collect();
    assert_eq!(circle(&g).unwrap(), ["a", "b", "c", "a"]);
}
