//! errband loses nothing and never dies on input (issue 17): no output may
//! name an input, outputs are whole or absent, floats cannot crash a run,
//! bytes are located, write failures and pipes follow one policy, and
//! oddities that used to be read silently are refused.

#[path = "common/cli.rs"]
mod cli;
use cli::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const HPL: &str = "models/hpl.tm";
const HPL_DATA: &str = "data/hpl.csv";

/// Copies bundled files into a fresh scratch directory; returns the directory.
fn copies(files: &[&str]) -> PathBuf {
    let d = tmp_dir();
    for f in files {
        std::fs::copy(root().join(f), d.join(Path::new(f).file_name().unwrap())).unwrap();
    }
    d
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// Runs `args` (with `{d}` replaced by the scratch dir), expecting exit 2
/// and a message naming the input; every file in the directory keeps its bytes.
#[track_caller]
fn refused(d: &Path, args: &[&str], needle: &str) {
    let before: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    let dir = s(d);
    let args: Vec<String> = args.iter().map(|a| a.replace("{d}", &dir)).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = fails(&args, 2);
    has(&r.stderr, &[needle]);
    assert!(r.stdout.is_empty(), "{}", r.show());
    assert!(r.secs < 5.0, "refused only after {:.1} s", r.secs);
    for (p, bytes) in before {
        assert_eq!(std::fs::read(&p).unwrap(), bytes, "{} changed by {args:?}", p.display());
    }
}

const NOT_OVER: &str = "never writes over its inputs";

#[test]
fn no_output_route_can_replace_an_input() {
    let d = copies(&[HPL, HPL_DATA, "models/mpi_barrier.tm", "data/mpi_barrier.csv", "data/energy_mg.csv"]);
    std::fs::create_dir(d.join("sub")).unwrap();
    // The main command: --plot, --plot KIND=, --report, through ./sub/..
    refused(&d, &["{d}/hpl.tm", "{d}/hpl.csv", "--plot", "{d}/hpl.csv"], NOT_OVER);
    refused(&d, &["{d}/hpl.tm", "{d}/hpl.csv", "--plot", "band={d}/sub/../hpl.tm"], NOT_OVER);
    refused(&d, &["{d}/hpl.tm", "{d}/hpl.csv", "--report", "{d}/hpl.csv"], NOT_OVER);
    // prune and plan.
    refused(
        &d,
        &["prune", "{d}/hpl.tm", "{d}/hpl.csv", "--target", "p=1000", "--plot", "{d}/hpl.csv"],
        NOT_OVER,
    );
    refused(
        &d,
        &[
            "plan",
            "{d}/hpl.tm",
            "{d}/hpl.csv",
            "--target",
            "p=1000",
            "--candidates",
            "p=300",
            "--report",
            "{d}/hpl.tm",
        ],
        NOT_OVER,
    );
    // energy, barrier.
    refused(&d, &["energy", "{d}/energy_mg.csv", "--plot", "ee={d}/energy_mg.csv"], NOT_OVER);
    let barrier =
        ["barrier", "--mpi-model", "{d}/mpi_barrier.tm", "--mpi-data", "{d}/mpi_barrier.csv", "--plot"];
    refused(&d, &[&barrier[..], &["{d}/mpi_barrier.csv"]].concat(), NOT_OVER);
    refused(&d, &[&barrier[..], &["{d}/mpi_barrier.tm"]].concat(), NOT_OVER);
    // ms predict (tasks, order, speeds) and ms sample (the command's files).
    std::fs::write(d.join("tasks.csv"), "i1,time [us]\n0,100\n1,1\n2,1\n3,1\n").unwrap();
    std::fs::write(d.join("order.csv"), "i1\n1\n2\n3\n0\n").unwrap();
    std::fs::write(d.join("speeds.csv"), "slave,ratio\n1,2\n2,2\n").unwrap();
    let ms = ["ms", "predict", "{d}/tasks.csv", "--grid", "4", "--procs", "3"];
    refused(&d, &[&ms[..], &["--plot", "{d}/tasks.csv"]].concat(), NOT_OVER);
    refused(&d, &[&ms[..], &["--order", "{d}/order.csv", "--plot", "{d}/order.csv"]].concat(), NOT_OVER);
    refused(&d, &[&ms[..], &["--speeds", "{d}/speeds.csv", "--plot", "{d}/speeds.csv"]].concat(), NOT_OVER);
    std::fs::write(d.join("task.sh"), "#!/bin/sh\n").unwrap();
    refused(
        &d,
        &["ms", "sample", "--grid", "2", "--out", "{d}/task.sh", "--", "sh", "{d}/task.sh", "{i1}"],
        NOT_OVER,
    );
    // Hard and symbolic links to an input are the input.
    std::fs::hard_link(d.join("hpl.csv"), d.join("hard.svg")).unwrap();
    refused(&d, &["{d}/hpl.tm", "{d}/hpl.csv", "--plot", "{d}/hard.svg"], NOT_OVER);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(d.join("hpl.tm"), d.join("link.svg")).unwrap();
        refused(&d, &["{d}/hpl.tm", "{d}/hpl.csv", "--plot", "{d}/link.svg"], NOT_OVER);
    }
    // The figures a Markdown report writes beside it count too.
    std::fs::copy(d.join("hpl.csv"), d.join("r-band.svg")).unwrap();
    refused(&d, &["{d}/hpl.tm", "{d}/r-band.svg", "--report", "{d}/r.md"], NOT_OVER);
}

#[test]
fn outputs_are_checked_before_any_work() {
    let d = copies(&[HPL, HPL_DATA]);
    refused(&d, &["{d}/hpl.tm", "{d}/hpl.csv", "--plot", "{d}/x.png"], "must end in .svg");
    refused(&d, &["{d}/hpl.tm", "{d}/hpl.csv", "--plot", "region={d}/x.pdf"], "must end in .svg");
    refused(&d, &["{d}/hpl.tm", "{d}/hpl.csv", "--report", "{d}/r.txt"], "must end in .html or .md");
    refused(&d, &["{d}/hpl.tm", "{d}/hpl.csv", "--plot", "{d}/no/such/dir/b.svg"], "does not exist");
    refused(
        &d,
        &["{d}/hpl.tm", "{d}/hpl.csv", "--plot", "{d}/a.svg", "--plot", "width={d}/a.svg"],
        "same file",
    );
    refused(&d, &["ms", "mandelbrot", "--grid", "4x4", "--out", "{d}/m.svg"], "writes CSV text");
    // Nothing was created.
    assert!(!d.join("a.svg").exists() && !d.join("x.png").exists());
}

#[test]
fn files_are_whole_or_untouched_and_each_write_is_announced() {
    let d = copies(&[HPL, HPL_DATA]);
    let (m, data, svg) = (s(&d.join("hpl.tm")), s(&d.join("hpl.csv")), s(&d.join("band.svg")));
    let r = run(&[&m, &data, "--plot", &svg, "--report", &s(&d.join("r.html"))]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    has(&r.stderr, &[&format!("wrote {svg}\n"), &format!("wrote {}\n", s(&d.join("r.html")))]);
    assert!(std::fs::read_to_string(&svg).unwrap().trim_end().ends_with("</svg>"));
    // A failing run (too few points for the model) leaves the old plot as it was.
    std::fs::write(&svg, "old plot").unwrap();
    let two = tmp_file("two.csv", "p,T\n10,2848.8\n");
    let r = fails(&[&m, &two, "--plot", &svg], 1);
    assert!(!r.stderr.contains("wrote"), "{}", r.show());
    assert_eq!(std::fs::read_to_string(&svg).unwrap(), "old plot");
    // No temporary file is left behind.
    let stray: Vec<String> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains(".errband-"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

/// A time that is up before the output begins stops the run, whether or
/// not the watchdog thread was scheduled in time (HPL's analysis takes a
/// few milliseconds): exit 1, nothing on standard output, no plot. The
/// outcome depends on the clock, never on the scheduler.
#[test]
fn a_timeout_stops_the_run_before_any_output() {
    let d = copies(&[HPL, HPL_DATA]);
    let (m, data, svg) = (s(&d.join("hpl.tm")), s(&d.join("hpl.csv")), s(&d.join("band.svg")));
    for _ in 0..12 {
        let r = run(&[&m, &data, "--format", "json", "--plot", &svg, "--timeout", "1ns"]);
        assert_eq!(r.code, Some(1), "{}", r.show());
        assert!(r.stdout.is_empty(), "exit 1 after output:\n{}", r.show());
        assert!(!Path::new(&svg).exists(), "exit 1 but the plot was written");
        has(&r.stderr, &["--timeout 1ns reached"]);
        assert_eq!(r.stderr.matches("reached").count(), 1, "said twice:\n{}", r.show());
    }
}

/// Numbers far outside f64's range reach the float LP proposer; it must
/// step aside and let the exact path answer.
#[test]
fn numbers_beyond_f64_do_not_crash_the_run() {
    let big =
        tmp_file("big.csv", &format!("{}1e200,5\n", std::fs::read_to_string(root().join(HPL_DATA)).unwrap()));
    let r = run(&[HPL, &big]);
    assert!(matches!(r.code, Some(0 | 1)), "{}", r.show());
    let quad = tmp_file("quad.tm", "T(p) = a + b*p + c*p^2\nparam a, b, c\n");
    let qd = tmp_file("quad.csv", "p,T\n1,2\n2,3\n3,5\n4,7\n1e155,9\n");
    let r = run(&[&quad, &qd]);
    assert!(matches!(r.code, Some(0 | 1)), "{}", r.show());
    let qe = tmp_file("big.qe", "1e400*x <= 1 and x >= -1 and y <= x + 1e-400 and y >= 0\n");
    let out = ok(&["qe", &qe]);
    has(&out, &["<= x <= 1/1000"]);
    let r = run(&["plan", HPL, HPL_DATA, "--target", "p=1000", "--candidates", "p=1e200"]);
    assert!(matches!(r.code, Some(0 | 1)), "{}", r.show());
    let r = run(&["barrier", "--nodes", "2,1e200", "--mpi", "120us"]);
    assert!(matches!(r.code, Some(0 | 2)), "{}", r.show());
    let profile = std::fs::read_to_string(root().join("data/energy_ideal.csv")).unwrap();
    let e = tmp_file("energy.csv", &profile.replacen(",2000,", ",1e400,", 1));
    assert_ne!(std::fs::read_to_string(&e).unwrap(), profile);
    let r = run(&["energy", &e]);
    assert!(matches!(r.code, Some(0..=2)), "{}", r.show());
}

#[test]
fn help_and_reports_to_a_full_disk_fail_and_a_closed_pipe_is_quiet() {
    if !Path::new("/dev/full").exists() {
        eprintln!("note: no /dev/full here; the full-disk half of this test did not run");
    }
    let bin = assert_cmd::cargo::cargo_bin!("errband");
    if Path::new("/dev/full").exists() {
        for args in [&["--help"][..], &["--version"], &[HPL, HPL_DATA], &["qe", "models/hpl_eq6.qe"]] {
            let out = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
            let o = Command::new(bin).args(args).current_dir(root()).stdout(out).output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
            has(&err, &["cannot write standard output"]);
        }
    }
    // A reader that stops early: quiet success.
    for args in [&[HPL, HPL_DATA, "--format", "json"][..], &["ms", "mandelbrot", "--grid", "256x256"]] {
        let mut child = Command::new(bin)
            .args(args)
            .current_dir(root())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(o.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn bytes_are_located_in_every_file_kind() {
    // Invalid UTF-8 at line 3, column 3 of each kind of input.
    let bad = |name: &str, head: &str| {
        let p = tmp_dir().join(name);
        let mut bytes = head.as_bytes().to_vec();
        bytes.extend_from_slice(b"ab\xff\n");
        std::fs::write(&p, bytes).unwrap();
        s(&p)
    };
    let cases: Vec<(String, Vec<String>)> = {
        let m = bad("m.tm", "T(p) = a/p\nparam a\n");
        let c = bad("d.csv", "p,T\n1,2\n");
        let x = bad("x.txt", "PARAMETER p\nPOINTS 1 2\n");
        let q = bad("f.qe", "x >= 0\nand x <= 1\n");
        let e = bad("e.csv", "region,nodes\nr,1\n");
        let t = bad("t.csv", "i1,time\n0,1\n");
        let o = bad("o.csv", "i1\n0\n");
        let sp = bad("s.csv", "slave,ratio\n1,1\n");
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        vec![
            (m.clone(), v(&[&m, HPL_DATA])),
            (c.clone(), v(&[HPL, &c])),
            (x.clone(), v(&["models/amdahl.tm", &x])),
            (q.clone(), v(&["qe", &q])),
            (e.clone(), v(&["energy", &e])),
            (t.clone(), v(&["ms", "predict", &t, "--grid", "2", "--procs", "2"])),
            (
                o.clone(),
                v(&[
                    "ms",
                    "predict",
                    "data/mandelbrot_32x32.csv",
                    "--grid",
                    "1024x1024",
                    "--procs",
                    "2",
                    "--order",
                    &o,
                ]),
            ),
            (
                sp.clone(),
                v(&[
                    "ms",
                    "predict",
                    "data/mandelbrot_32x32.csv",
                    "--grid",
                    "1024x1024",
                    "--procs",
                    "2",
                    "--speeds",
                    &sp,
                ]),
            ),
            (c.clone(), v(&["barrier", "--mpi-model", "models/mpi_barrier.tm", "--mpi-data", &c])),
        ]
    };
    for (file, args) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = fails(&args, 2);
        has(&r.stderr, &[&format!("{file}:3:3: not valid UTF-8 (byte 0xFF")]);
    }
    // A Latin-1 header from a Windows tool gets a hint.
    let latin = tmp_dir().join("latin1.csv");
    std::fs::write(&latin, b"p,T [\xb5s]\n10,1\n").unwrap();
    let r = fails(&[HPL, &s(&latin)], 2);
    has(&r.stderr, &[":1:6:", "Latin-1", "save it as UTF-8"]);
}

#[test]
fn a_bom_and_old_mac_line_ends_are_read() {
    let model = std::fs::read_to_string(root().join(HPL)).unwrap();
    let bom = tmp_file("bom.tm", &format!("\u{feff}{model}"));
    let data = std::fs::read_to_string(root().join(HPL_DATA)).unwrap();
    let cr = tmp_file("cr.csv", &data.replace('\n', "\r"));
    assert_eq!(json(&[&bom, &cr])["fit"], json(&[HPL, HPL_DATA])["fit"]);
    let qe = std::fs::read_to_string(root().join("models/hpl_eq6.qe")).unwrap();
    let bom_qe = tmp_file("bom.qe", &format!("\u{feff}{qe}"));
    assert_eq!(ok(&["qe", &bom_qe]), ok(&["qe", "models/hpl_eq6.qe"]));
    // An error after lone CRs is on the right line.
    let bad = tmp_file("crbad.csv", "p,T\r10,1\r20,x\r");
    let r = fails(&[HPL, &bad], 2);
    has(&r.stderr, &[&format!("{bad}:3:")]);
}

#[test]
fn control_characters_from_inputs_never_reach_the_terminal() {
    let f = tmp_file("esc.csv", "p,T\n10,\u{1b}[31mred\u{7}\n");
    let r = fails(&[HPL, &f], 2);
    assert!(!r.stderr.contains('\u{1b}') && !r.stderr.contains('\u{7}'), "{:?}", r.stderr);
    has(&r.stderr, &["\\u{1b}[31mred"]);
    let r = fails(&[HPL, "no\u{1b}]0;title\u{7}.csv"], 2);
    assert!(!r.stderr.contains('\u{1b}'), "{:?}", r.stderr);
}

#[test]
fn silently_accepted_oddities_are_refused() {
    let r = fails(&[HPL, HPL_DATA, "--order", "dc1,dc1"], 2);
    has(&r.stderr, &["`dc1` twice"]);
    let r = fails(&["qe", "models/hpl_eq7.qe", "--order", "dc1,dc1"], 2);
    has(&r.stderr, &["`dc1` twice"]);
    let r = fails(&[HPL, HPL_DATA, "--x", "p=p", "--x", "p=T"], 2);
    has(&r.stderr, &["--x p=T", "already given the column `p`"]);
    let r = fails(&[HPL, HPL_DATA, "--y", "p"], 2);
    has(&r.stderr, &["--y p", "both the variable `p` and the measured value"]);
    let r = fails(&[HPL, HPL_DATA, "--x", "p=T"], 2);
    has(&r.stderr, &["--x p=T", "both the variable `p` and the measured value"]);
    let f = tmp_file("sep.csv", "p,T\n10,2848.8\n1_000,1\n");
    let r = fails(&[HPL, &f], 2);
    has(&r.stderr, &[&format!("{f}:3:"), "digit separator"]);
}

/// Bands never wait on vertex enumeration: a region past `--max-vertices`
/// is not listed, and its bands (exact LPs) are the ones the vertices give.
#[test]
fn bands_do_not_wait_on_vertices_and_lp_bands_equal_vertex_bands() {
    for (model, data) in [
        (HPL, HPL_DATA),
        ("models/amdahl.tm", "data/amdahl.csv"),
        ("models/pn.tm", "data/pn.csv"),
        ("models/whitebox.tm", "data/whitebox.csv"),
    ] {
        let listed = json(&[model, data]);
        let unlisted = json(&[model, data, "--max-vertices", "1"]);
        assert_eq!(listed["bands"], unlisted["bands"], "{model}");
        assert_eq!(unlisted["regions"][0]["shape"], "unlisted", "{model}");
    }
    // A degree-7 polynomial on 30 points: thousands of vertices per region.
    let terms: Vec<String> = (0..8).map(|i| format!("c{i}*p^{i}")).collect();
    let names: Vec<String> = (0..8).map(|i| format!("c{i}")).collect();
    let m = tmp_file(
        "d7.tm",
        &format!("T(p) = {}\nparam {}\npredict p = 40\n", terms.join(" + "), names.join(", ")),
    );
    let mut csv = String::from("p,T\n");
    for p in 1..=30u32 {
        csv += &format!("{p},{}.{:03}\n", 100 / p + p / 2, (p * 7919) % 1000);
    }
    let d = tmp_file("d7.csv", &csv);
    let r = run(&[&m, &d]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert!(r.secs < 10.0, "{:.1} s", r.secs);
    has(&r.stdout, &["not listed", "40*"]);
}

/// Limits hold while working: numbers formed by products, long lists,
/// many pieces and wide inputs are refused (or done) in bounded time.
#[test]
fn limits_hold_while_working() {
    // 40 squarings of a constant: refused at the first that could pass
    // --max-number-digits, in a model and in a `.qe` let.
    let mut m = String::from("T(p) = a40*c/p\nconst a0 = 7\n");
    let mut q = String::from("let a0 = 7;\n");
    for i in 0..40 {
        m += &format!("const a{} = a{i}*a{i}\n", i + 1);
        q += &format!("let a{} = a{i}*a{i};\n", i + 1);
    }
    m += "param c\n";
    let r = fails(&[&tmp_file("sq.tm", &m), HPL_DATA], 2);
    has(&r.stderr, &["--max-number-digits", "a16*a16"]);
    assert!(r.secs < 5.0, "{:.1} s", r.secs);
    q += "x <= a40\n";
    let r = fails(&["qe", &tmp_file("sq.qe", &q)], 2);
    has(&r.stderr, &["--max-number-digits", "a16*a16"]);
    // 900 factors of 7^9999 (under the 1000-operator nesting limit), in a model and in --at.
    let factors = vec!["7^9999"; 900].join("*");
    let r = fails(&[&tmp_file("f.tm", &format!("T(p) = c*({factors})/p\nparam c\n")), HPL_DATA], 2);
    has(&r.stderr, &["--max-number-digits"]);
    assert!(r.secs < 5.0, "{:.1} s", r.secs);
    let r = fails(&[HPL, HPL_DATA, "--at", &format!("p={factors}")], 2);
    has(&r.stderr, &["--max-number-digits"]);
    assert!(r.secs < 5.0, "{:.1} s", r.secs);
    // A predict list far past --max-points is stopped while it is read.
    let list = vec!["1"; 300_000].join(",");
    let r =
        fails(&[&tmp_file("long.tm", &format!("T(p) = c/p\nparam c\npredict p = {list}\n")), HPL_DATA], 2);
    has(&r.stderr, &["too many values", "--max-points"]);
    assert!(r.secs < 5.0, "{:.1} s", r.secs);
    // Pieces: 2^20 are counted and refused before any is built; 2^10 are done.
    let or = |n: usize| (0..n).map(|i| format!("(x{i} <= 0 or x{i} >= 1)")).collect::<Vec<_>>().join(" and ");
    let r = fails(&["qe", &tmp_file("p20.qe", &or(20))], 1);
    has(&r.stderr, &["more than 2000 convex pieces", "--max-pieces"]);
    assert!(r.secs < 5.0, "{:.1} s", r.secs);
    let r = run(&["qe", &tmp_file("p10.qe", &or(10))]);
    assert_eq!(r.code, Some(0), "{}", r.show());
    assert_eq!(r.stdout.lines().filter(|l| l.starts_with("or ")).count(), 1023);
    assert!(r.secs < 10.0, "{:.1} s", r.secs);
    // 100 000 columns with a duplicate at the end; 100 000 Extra-P regions.
    let mut header: Vec<String> = (0..100_000).map(|i| format!("c{i}")).collect();
    header.push("c7".into());
    let r = fails(&[HPL, &tmp_file("wide.csv", &format!("{}\n", header.join(",")))], 2);
    has(&r.stderr, &["duplicate column name `c7` (columns 8 and 100001)"]);
    assert!(r.secs < 5.0, "{:.1} s", r.secs);
    let mut x = String::from("PARAMETER p\nPOINTS 1 2 4\n");
    for i in 0..100_000 {
        x += &format!("REGION r{i}\nMETRIC time\nDATA 1\nDATA 2\nDATA 3\n");
    }
    let r = fails(&["models/amdahl.tm", &tmp_file("many.txt", &x), "--region", "nope"], 2);
    has(&r.stderr, &["no callpath matches --region `nope`", "(99988 more, 100000 in all)"]);
    assert!(r.stderr.len() < 2000, "the message lists every region");
    assert!(r.secs < 5.0, "{:.1} s", r.secs);
}

/// A device node at `path` like /dev/MAJOR:MINOR: made with mknod when root
/// (so a build that replaced its outputs could not delete the real one),
/// else a symlink to the system's node; false when neither is possible.
fn device_like(path: &Path, system: &str, major: u32, minor: u32) -> bool {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: plain system calls on a valid C string.
    if unsafe { libc::geteuid() } == 0 {
        let dev = libc::makedev(major, minor);
        return unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, dev) } == 0;
    }
    Path::new(system).exists() && std::os::unix::fs::symlink(system, path).is_ok()
}

fn is_char_device(p: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(p).is_ok_and(|m| m.file_type().is_char_device())
}

/// Special files are written where they are, never replaced: a full device
/// is exit 1 and stays a device, the null device takes a plot, a FIFO
/// nobody reads ends at --timeout and stays a FIFO, a symlink to an input
/// is refused.
#[test]
fn special_files_are_written_in_place_and_stay_what_they_are() {
    let d = copies(&[HPL, HPL_DATA]);
    let (m, data) = (s(&d.join("hpl.tm")), s(&d.join("hpl.csv")));
    let full = d.join("full");
    if device_like(&full, "/dev/full", 1, 7) {
        let r = fails(&["ms", "sample", "--grid", "2", "-o", &s(&full), "--", "true"], 1);
        has(&r.stderr, &["No space left on device"]);
        assert!(!r.stderr.contains("wrote"), "{}", r.show());
        assert!(is_char_device(&full), "the device node was replaced");
        let r = fails(&[&m, &data, "--plot", &s(&full)], 1);
        assert!(is_char_device(&full), "{}", r.show());
    }
    let null = d.join("null");
    if device_like(&null, "/dev/null", 1, 3) {
        // No .svg asked of a device; the bytes go in and the node stays.
        ok(&[&m, &data, "--plot", &s(&null), "--report", &s(&d.join("r.html"))]);
        assert!(is_char_device(&null));
    }
    let fifo = d.join("band.svg");
    let c = std::ffi::CString::new(s(&fifo)).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let r = fails(&[&m, &data, "--plot", &s(&fifo), "--timeout", "1s"], 1);
    has(&r.stderr, &["--timeout 1s reached"]);
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO was replaced");
    std::os::unix::fs::symlink(&data, d.join("link.svg")).unwrap();
    refused(&d, &[&m, &data, "--plot", &s(&d.join("link.svg"))], "never writes over its inputs");
    let dir_out = fails(&[&m, &data, "--plot", &s(&d)], 2);
    has(&dir_out.stderr, &["is a directory"]);
}

/// Options that do not apply to the input are refused naming both, and a
/// first word that is neither a command nor a file says so.
#[test]
fn options_that_do_not_apply_and_unknown_words_are_refused() {
    let r = fails(&["models/amdahl.tm", "data/extrap_amdahl.txt", "--by", "p"], 2);
    has(&r.stderr, &["--by p: applies to CSV files", "data/extrap_amdahl.txt", "Extra-P text input"]);
    let r = fails(&["models/amdahl.tm", "data/extrap_amdahl.txt", "--delimiter", ";"], 2);
    has(&r.stderr, &["--delimiter: applies to CSV files"]);
    let r = fails(&["frobnicate", HPL_DATA], 2);
    has(&r.stderr, &["`frobnicate` is neither a command nor a file", "the nearest command is"]);
    // A path that does not exist is still said as such.
    let r = fails(&["no/such.tm", HPL_DATA], 2);
    has(&r.stderr, &["cannot read `no/such.tm`"]);
    let r = fails(&["prnue", HPL, HPL_DATA], 2);
    has(&r.stderr, &["did you mean `prune`"]);
}
