//! One vocabulary: every flag of every command, read from the clap
//! definitions, means one thing wherever it appears (one value name, no
//! visible old spelling), and docs/guide.md's flag table lists exactly these
//! flags with the commands that take them.

use std::collections::BTreeMap;

/// Spellings that meant different things on different commands; they may
/// survive only as hidden aliases.
const RETIRED: [&str; 4] = ["digits", "show-fits", "candidates", "unit"];

thread_local! {
    static CONFLICTS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

struct Flag {
    value: String,
    help: String,
    commands: Vec<String>,
}

fn walk(cmd: &clap::Command, path: &str, flags: &mut BTreeMap<String, Flag>) {
    for arg in cmd.get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        if arg.is_hide_set() || long == "help" || long == "version" {
            continue;
        }
        let value = if !arg.get_action().takes_values() {
            String::new()
        } else {
            arg.get_value_names()
                .map(|v| v.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" "))
                .unwrap_or_default()
        };
        let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
        let first = help.lines().next().unwrap_or("").trim_end_matches('.').replace('|', "\\|");
        let f = flags.entry(long.to_string()).or_insert(Flag {
            value: value.clone(),
            help: first,
            commands: vec![],
        });
        if f.value != value {
            CONFLICTS.with(|c| {
                c.borrow_mut()
                    .push(format!("--{long}: `{}` on {} but `{value}` on {path}", f.value, f.commands[0]))
            });
        }
        if !f.commands.iter().any(|c| c == path) {
            f.commands.push(path.to_string());
        }
    }
    for sub in cmd.get_subcommands() {
        let p =
            if path == "errband" { sub.get_name().to_string() } else { format!("{path} {}", sub.get_name()) };
        walk(sub, &p, flags);
    }
}

fn flags() -> BTreeMap<String, Flag> {
    let mut cmd = errband::cli::command();
    cmd.build();
    let mut flags = BTreeMap::new();
    walk(&cmd, "errband", &mut flags);
    flags
}

fn table(flags: &BTreeMap<String, Flag>, all: usize) -> String {
    let mut out = String::from("| flag | commands | meaning |\n|---|---|---|\n");
    for (name, f) in flags {
        let flag = if f.value.is_empty() { format!("`--{name}`") } else { format!("`--{name} {}`", f.value) };
        let cmds = if f.commands.len() >= all { "every command".to_string() } else { f.commands.join(", ") };
        out.push_str(&format!("| {flag} | {cmds} | {} |\n", f.help));
    }
    out
}

#[test]
fn every_flag_means_one_thing_and_old_spellings_are_hidden() {
    let flags = flags();
    let conflicts = CONFLICTS.with(|c| c.borrow().clone());
    assert!(conflicts.is_empty(), "one flag, one meaning (one value name):\n{}", conflicts.join("\n"));
    for old in RETIRED {
        if let Some(f) = flags.get(old) {
            panic!("--{old} is visible on {:?}; it must be a hidden alias only", f.commands);
        }
    }
    for one in
        ["decimal", "precision", "at", "format", "plot", "report", "time-unit", "show-fit", "candidate"]
    {
        assert!(flags.contains_key(one), "--{one} should exist");
    }
}

#[test]
fn the_readme_table_lists_every_flag() {
    let flags = flags();
    let all = flags.get("timeout").map_or(0, |f| f.commands.len());
    let want = table(&flags, all);
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/guide.md")).unwrap();
    let (begin, end) = ("<!-- flags:begin -->\n", "<!-- flags:end -->");
    let got = readme.find(begin).and_then(|b| {
        let rest = &readme[b + begin.len()..];
        rest.find(end).map(|e| &rest[..e])
    });
    if got != Some(want.as_str()) {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/target/flags-table.md");
        let _ = std::fs::write(path, &want);
        panic!("docs/guide.md's flag table (between {begin:?} and {end:?}) differs from the clap definitions; the expected table is in {path}");
    }
}
