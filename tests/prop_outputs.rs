//! The output policy, as a property: whatever an output path is (a new
//! name, a regular file, a symlink to one, a FIFO with a reader), the bytes
//! arrive, the kind of the path is what it was (a FIFO stays a FIFO, a
//! symlink a symlink), and no input changes.

#[path = "common/cli.rs"]
mod cli;
use cli::*;
use proptest::prelude::*;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy)]
enum Target {
    New,
    Regular,
    Symlink,
    FifoWithReader,
}

/// What a path is, followed or not.
fn kind(p: &Path) -> &'static str {
    match std::fs::symlink_metadata(p) {
        Err(_) => "missing",
        Ok(m) if m.file_type().is_symlink() => "symlink",
        Ok(m) if m.file_type().is_fifo() => "fifo",
        Ok(m) if m.file_type().is_file() => "file",
        Ok(_) => "other",
    }
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string; the call only creates a node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo {}", p.display());
}

fn run_case(target: Target, report: bool, old: &str) -> Result<(), TestCaseError> {
    let d = tmp_dir();
    for f in ["models/hpl.tm", "data/hpl.csv"] {
        std::fs::copy(root().join(f), d.join(Path::new(f).file_name().unwrap())).unwrap();
    }
    let inputs: Vec<(PathBuf, Vec<u8>)> =
        ["hpl.tm", "hpl.csv"].iter().map(|n| (d.join(n), std::fs::read(d.join(n)).unwrap())).collect();
    let name = if report { "out.html" } else { "out.svg" };
    let path = d.join(name);
    let pointee = d.join("pointee.txt");
    let mut reader = None;
    match target {
        Target::New => {}
        Target::Regular => std::fs::write(&path, old).unwrap(),
        Target::Symlink => {
            std::fs::write(&pointee, old).unwrap();
            std::os::unix::fs::symlink(&pointee, &path).unwrap();
        }
        Target::FifoWithReader => {
            mkfifo(&path);
            let p = path.clone();
            reader = Some(std::thread::spawn(move || std::fs::read(p).unwrap_or_default()));
        }
    }
    let before = kind(&path);
    let (hpl, data, out) = (d.join("hpl.tm"), d.join("hpl.csv"), path.to_str().unwrap().to_string());
    let flag = if report { "--report" } else { "--plot" };
    let r = run(&[hpl.to_str().unwrap(), data.to_str().unwrap(), flag, &out]);
    let got = match reader {
        Some(t) => {
            if !t.is_finished() {
                // The run never opened the FIFO: unblock the reader so the
                // test fails instead of hanging.
                let _ = std::fs::OpenOptions::new().write(true).open(&path);
            }
            t.join().unwrap()
        }
        None => {
            let p = if matches!(target, Target::Symlink) { &pointee } else { &path };
            std::fs::read(p).unwrap_or_default()
        }
    };
    prop_assert_eq!(r.code, Some(0), "{}", r.show());
    let text = String::from_utf8_lossy(&got);
    let want = if report { "<html" } else { "<svg" };
    prop_assert!(text.contains(want), "{:?}: the output holds {} bytes: {:.200}", target, got.len(), text);
    let after = kind(&path);
    match target {
        Target::New => prop_assert_eq!(after, "file"),
        _ => prop_assert_eq!(after, before, "{:?}: the path's kind changed", target),
    }
    if let Target::Symlink = target {
        prop_assert_eq!(kind(&pointee), "file");
    }
    for (p, bytes) in &inputs {
        prop_assert_eq!(&std::fs::read(p).unwrap(), bytes, "{} changed", p.display());
    }
    Ok(())
}

fn target() -> impl Strategy<Value = Target> {
    prop_oneof![Just(Target::New), Just(Target::Regular), Just(Target::Symlink), Just(Target::FifoWithReader)]
}

proptest! {
    // Each case is a run of the binary (tens of milliseconds).
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_output_path_gets_its_bytes_and_keeps_its_kind(
        t in target(),
        report in any::<bool>(),
        old in "[a-z]{0,40}",
    ) {
        run_case(t, report, &old)?;
    }
}
