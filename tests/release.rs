//! The release script is wired up: `scripts/release.sh` exists and is
//! executable, CI runs it and tests the wheel it builds (instead of building
//! another), the Cargo profile it names exists, and `dist/` is ignored by
//! git. Building the artefacts takes minutes; CI's step does that.

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Lines that are commands, not comments.
fn code(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'))
}

#[test]
fn the_script_is_a_strict_executable_bash_script() {
    let text = read("scripts/release.sh");
    assert!(text.starts_with("#!/usr/bin/env bash\n"), "scripts/release.sh: no bash shebang");
    assert!(code(&text).any(|l| l == "set -euo pipefail"), "scripts/release.sh: no `set -euo pipefail`");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(root().join("scripts/release.sh")).unwrap().permissions().mode();
        assert!(mode & 0o111 == 0o111, "scripts/release.sh is not executable (mode {mode:o})");
    }
}

#[test]
fn the_profile_the_script_builds_with_exists() {
    let script = read("scripts/release.sh");
    let profile = code(&script)
        .find_map(|l| l.split("--profile ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("scripts/release.sh: no `cargo build --profile NAME`");
    let cargo = read("Cargo.toml");
    let header = format!("[profile.{profile}]");
    let section: Vec<&str> = cargo
        .lines()
        .skip_while(|l| l.trim() != header)
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with('['))
        .map(str::trim)
        .collect();
    assert!(cargo.lines().any(|l| l.trim() == header), "Cargo.toml has no {header}");
    assert!(section.contains(&"inherits = \"release\""), "{header} does not inherit release: {section:?}");
    assert!(section.contains(&"strip = true"), "{header} does not strip: {section:?}");
}

#[test]
fn ci_runs_the_script_and_tests_its_wheel() {
    let ci = read(".ci/run");
    let lines: Vec<&str> = code(&ci).collect();
    let release = lines.iter().position(|l| l.starts_with("scripts/release.sh"));
    let release = release.expect(".ci/run does not run scripts/release.sh");
    let wheel = lines.iter().position(|l| l.contains("install") && l.contains("dist/errband-*.whl"));
    let wheel = wheel.expect(".ci/run does not install the wheel from dist/");
    assert!(release < wheel, ".ci/run installs the wheel before release.sh builds it");
    assert!(
        !lines.iter().any(|l| l.contains("maturin build")),
        ".ci/run builds a wheel of its own beside release.sh's"
    );
}

#[test]
fn dist_is_ignored_by_git() {
    let gitignore = read(".gitignore");
    assert!(
        code(&gitignore).any(|l| matches!(l, "/dist/" | "/dist" | "dist/" | "dist")),
        ".gitignore does not ignore dist/"
    );
    // And git agrees, where this is a git checkout with git installed
    // (exit 0: ignored, 1: not ignored, anything else: no answer).
    let asked =
        Command::new("git").args(["check-ignore", "-q", "dist/SHA256SUMS"]).current_dir(root()).status();
    if let Ok(status) = asked {
        assert_ne!(status.code(), Some(1), "git does not ignore files in dist/");
    }
}
