//! docs/reference.md is the command-line reference generated from the clap
//! definitions (the `--help` of every command and subcommand). This test
//! regenerates it and fails when the committed file differs; to update it:
//!
//! ```sh
//! UPDATE_REFERENCE=1 cargo test --release --test reference
//! ```

#[path = "common/docs.rs"]
mod docs;

fn generate() -> String {
    let mut out = String::from(
        "# Command-line reference\n\n\
         <!-- Generated from the clap definitions by tests/reference.rs; do not edit.\n     \
         Regenerate with: UPDATE_REFERENCE=1 cargo test --release --test reference -->\n\n\
         The `--help` of every command. The guides explain what the options are for:\n\
         [the main command](guide.md), [prune](prune.md), [plan](plan.md), [energy](energy.md),\n\
         [barrier](barrier.md), [ms](ms.md), [qe](qe.md); every flag in one table:\n\
         [guide.md](guide.md#every-flag-one-vocabulary).\n",
    );
    let all = docs::every_help();
    out.push_str("\n## Commands\n\n");
    for (words, _) in &all {
        let name =
            if words.is_empty() { "errband".to_string() } else { format!("errband {}", words.join(" ")) };
        let anchor = name.replace(' ', "-");
        out.push_str(&format!("- [`{name}`](#{anchor})\n"));
    }
    for (words, help) in &all {
        let name =
            if words.is_empty() { "errband".to_string() } else { format!("errband {}", words.join(" ")) };
        out.push_str(&format!("\n## {name}\n\n```text\n{}\n```\n", help.trim_end()));
    }
    out
}

#[test]
fn the_reference_is_generated_from_clap() {
    let path = docs::root().join("docs/reference.md");
    let want = generate();
    if std::env::var_os("UPDATE_REFERENCE").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let got = std::fs::read_to_string(&path).unwrap_or_default();
    if got != want {
        let tmp = docs::root().join("target/reference.md");
        let _ = std::fs::write(&tmp, &want);
        panic!(
            "docs/reference.md differs from the clap definitions (expected text in {}); \
             regenerate it with: UPDATE_REFERENCE=1 cargo test --release --test reference",
            tmp.display()
        );
    }
}
