//! A real browser check of the plots: the HTML report (`--report OUT.html`)
//! and a standalone band plot (`--plot band=OUT.svg`) are rendered by
//! headless Chromium to PNG screenshots, and the pixels are checked — the
//! band fill colour and the vermilion fitted-model line are drawn, the page is not
//! blank — together with the HTML text: self-contained, no `<img>` that
//! could show a broken-image marker, at least four inline SVG figures.
//!
//! Chromium is `$ERRBAND_CHROMIUM`, else the first of `chromium`,
//! `chromium-browser`, `google-chrome` on `PATH`. Without one the tests are
//! reported as ignored (skipped), with a note on standard error, unless `ERRBAND_REQUIRE_BROWSER=1`
//! (set by `.ci/run`, which installs the Debian package `chromium`): then
//! they fail. `ERRBAND_BROWSER_KEEP=1` keeps the scratch directories (HTML,
//! SVG, screenshots) of passing runs too; failing runs always keep them.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The palette blue of the first band and of the regions, and its opacity.
const BAND_BLUE: Rgb = [0x00, 0x72, 0xb2];
const BAND_OPACITY: f64 = 0.25;
/// The shade over the extrapolated part of the band plot (`#000` at 0.06).
const SHADE_OPACITY: f64 = 0.06;
/// The fitted-model line (vermilion).
const MODEL_RED: Rgb = [0xd5, 0x5e, 0x00];
/// Allowed deviation per channel from an expected colour.
const TOLERANCE: u8 = 12;
/// Chromium gets this long per screenshot before it is killed.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(60);

type Rgb = [u8; 3];

const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];

// ------------------------------------------------------------------ helpers

/// `fg` at opacity `alpha` over `bg`, rounded as a browser does.
fn blend(fg: Rgb, alpha: f64, bg: Rgb) -> Rgb {
    let mix = |f: u8, b: u8| (f64::from(f) * alpha + f64::from(b) * (1.0 - alpha)).round() as u8;
    [mix(fg[0], bg[0]), mix(fg[1], bg[1]), mix(fg[2], bg[2])]
}

/// The band fill over a white plot area.
fn band_on_white() -> Rgb {
    blend(BAND_BLUE, BAND_OPACITY, WHITE)
}

/// The band fill over the extrapolation shade.
fn band_on_shade() -> Rgb {
    blend(BAND_BLUE, BAND_OPACITY, blend(BLACK, SHADE_OPACITY, WHITE))
}

/// Largest per-channel difference.
fn distance(a: Rgb, b: Rgb) -> u8 {
    (0..3).map(|i| a[i].abs_diff(b[i])).max().unwrap_or(0)
}

fn near(p: Rgb, c: Rgb) -> bool {
    distance(p, c) <= TOLERANCE
}

fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// A fresh scratch directory under the system temp dir.
fn scratch_dir(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let dir = std::env::temp_dir().join(format!("errband-browser-{name}-{}-{nanos}", std::process::id()));
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
    dir
}

/// Removes the scratch directory when a test passes (unless
/// `ERRBAND_BROWSER_KEEP=1`); a failing test keeps it and says where.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() || std::env::var_os("ERRBAND_BROWSER_KEEP").is_some_and(|v| v == "1") {
            eprintln!("browser test: scratch files kept in {}", self.0.display());
        } else {
            let _ = fs::remove_dir_all(&self.0);
        }
    }
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        p.is_file() && fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// The browser to use, or why there is none.
fn find_chromium() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("ERRBAND_CHROMIUM").filter(|v| !v.is_empty()) {
        let p = PathBuf::from(p);
        return if is_executable(&p) {
            Ok(p)
        } else {
            Err(format!("ERRBAND_CHROMIUM={} is not an executable file", p.display()))
        };
    }
    let names = ["chromium", "chromium-browser", "google-chrome"];
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in names {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if is_executable(&p) {
                return Ok(p);
            }
        }
    }
    Err(format!("none of {} on PATH and ERRBAND_CHROMIUM not set", names.join(", ")))
}

/// What to do with the rendering tests: run them with this browser, or
/// report them as ignored (skipped) with the reason.
/// `ERRBAND_REQUIRE_BROWSER=1` turns a missing browser into failures.
enum Browser {
    Found(PathBuf),
    Skip(String),
    Required(String),
}

fn browser() -> Browser {
    match find_chromium() {
        Ok(p) => Browser::Found(p),
        Err(why) if std::env::var_os("ERRBAND_REQUIRE_BROWSER").is_some_and(|v| v == "1") => {
            Browser::Required(format!(
                "ERRBAND_REQUIRE_BROWSER=1 but no browser for the rendering check: {why}.\n\
                 Install the Debian package `chromium` (`.ci/run` does) or point ERRBAND_CHROMIUM at one."
            ))
        }
        Err(why) => Browser::Skip(why),
    }
}

/// Runs `errband` from the crate root with `args`; it must succeed.
fn errband(args: &[&str]) {
    let out = assert_cmd::cargo::cargo_bin_cmd!("errband")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .timeout(Duration::from_secs(120))
        .output()
        .expect("run errband");
    assert!(
        out.status.success(),
        "errband {} failed ({}):\n--- stderr:\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Screenshots `file` with headless Chromium into `png` at `width`×`height`.
/// Chromium's standard error is noise unless the screenshot is missing.
fn screenshot(browser: &Path, file: &Path, png: &Path, width: u32, height: u32, dir: &Path) {
    let profile = dir.join(format!("profile-{width}x{height}"));
    let log = dir.join(format!("chromium-{width}x{height}.stderr"));
    let url = format!("file://{}", file.display());
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .arg(format!("--window-size={width},{height}"))
    .arg(format!("--screenshot={}", png.display()))
    .arg(&url)
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(fs::File::create(&log).expect("create chromium log"));
    #[cfg(unix)]
    {
        // Own process group, so that a timeout can end the helpers too.
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let started = Instant::now();
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {}: {e}", browser.display()));
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for chromium") {
            break status;
        }
        if started.elapsed() > BROWSER_TIMEOUT {
            #[cfg(unix)]
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).status();
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{} did not finish within {} s rendering {url}\n--- stderr:\n{}",
                browser.display(),
                BROWSER_TIMEOUT.as_secs(),
                fs::read_to_string(&log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let size = fs::metadata(png).map(|m| m.len()).unwrap_or(0);
    assert!(
        size > 0,
        "{} wrote no screenshot {} for {url} ({status})\n--- stderr:\n{}",
        browser.display(),
        png.display(),
        fs::read_to_string(&log).unwrap_or_default()
    );
}

/// A decoded screenshot: opaque 8-bit RGB pixels.
struct Image {
    width: u32,
    height: u32,
    pixels: Vec<Rgb>,
}

impl Image {
    fn count(&self, f: impl Fn(Rgb) -> bool) -> usize {
        self.pixels.iter().filter(|&&p| f(p)).count()
    }
}

/// Decodes an 8-bit RGB or RGBA PNG (alpha composited over white).
fn decode_png(path: &Path) -> Image {
    let file = fs::File::open(path).unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
    let mut reader =
        png::Decoder::new(file).read_info().unwrap_or_else(|e| panic!("decode {}: {e}", path.display()));
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap_or_else(|e| panic!("decode {}: {e}", path.display()));
    assert_eq!(info.bit_depth, png::BitDepth::Eight, "{}: expected 8-bit samples", path.display());
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("{}: expected an RGB or RGBA screenshot, got {other:?}", path.display()),
    };
    let mut pixels = Vec::with_capacity(info.width as usize * info.height as usize);
    for row in buf.chunks(info.line_size).take(info.height as usize) {
        for px in row[..info.width as usize * channels].chunks_exact(channels) {
            let rgb = [px[0], px[1], px[2]];
            pixels.push(if channels == 4 { blend(rgb, f64::from(px[3]) / 255.0, WHITE) } else { rgb });
        }
    }
    Image { width: info.width, height: info.height, pixels }
}

/// What a screenshot shows, in pixel counts.
#[derive(Debug)]
struct Counts {
    /// Within tolerance of either band blend (over white or over the shade).
    band: usize,
    /// Nearer the band-over-shade blend than the band-over-white one, and
    /// within tolerance of it: only the band plot's extrapolated part.
    band_on_shade: usize,
    red: usize,
    non_white: usize,
    total: usize,
}

fn measure(img: &Image) -> Counts {
    let (white, shade) = (band_on_white(), band_on_shade());
    Counts {
        band: img.count(|p| near(p, white) || near(p, shade)),
        band_on_shade: img.count(|p| near(p, shade) && distance(p, shade) < distance(p, white)),
        red: img.count(|p| near(p, MODEL_RED)),
        non_white: img.count(|p| p.iter().any(|&c| c < 245)),
        total: img.pixels.len(),
    }
}

/// The value of attribute `name` in the first tag starting with `start`.
fn attr<'a>(text: &'a str, start: &str, name: &str) -> Option<&'a str> {
    let tag_at = text.find(start)?;
    let tag = &text[tag_at..tag_at + text[tag_at..].find('>')?];
    let key = format!(" {name}=\"");
    let v = &tag[tag.find(&key)? + key.len()..];
    Some(&v[..v.find('"')?])
}

/// The first model band's path (the lighter bands of a new measurement
/// are drawn behind it) must be filled with the colour the pixel checks
/// look for.
fn assert_band_style(text: &str, what: &str) {
    const MODEL_BAND: &str = "<path class=\"band\" data-series=\"band, threshold";
    assert_eq!(attr(text, MODEL_BAND, "fill"), Some(hex(BAND_BLUE).as_str()), "{what}: band fill");
    assert_eq!(
        attr(text, MODEL_BAND, "fill-opacity").and_then(|v| v.parse::<f64>().ok()),
        Some(BAND_OPACITY),
        "{what}: band fill-opacity"
    );
}

/// Values of `src=`/`href=` attributes (any prefix, e.g. `xlink:href`) that
/// point at the network.
fn remote_references(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    let mut found = Vec::new();
    for key in ["src=", "href="] {
        for (at, _) in lower.match_indices(key) {
            let value = lower[at + key.len()..].trim_start_matches(['"', '\'']);
            if ["http://", "https://", "//"].iter().any(|s| value.starts_with(s)) {
                found.push(html[at..(at + 80).min(html.len())].to_string());
            }
        }
    }
    for (at, _) in lower.match_indices("url(") {
        let value = lower[at + 4..].trim_start_matches(['"', '\'', ' ']);
        if ["http://", "https://", "//"].iter().any(|s| value.starts_with(s)) {
            found.push(html[at..(at + 80).min(html.len())].to_string());
        }
    }
    found
}

// -------------------------------------------------------------------- tests

fn html_report_renders_in_chromium(browser: &Path) {
    let started = Instant::now();
    let dir = scratch_dir("report");
    let _keep = Scratch(dir.clone());
    let html_path = dir.join("report.html");
    // The paper's two thresholds: the pixel counts below were measured with
    // them (the default's trusted band covers much of the shade).
    let html_arg = html_path.to_str().expect("UTF-8 temp path");
    errband(&["models/hpl.tm", "data/hpl.csv", "-t", "max", "-t", "emax", "--report", html_arg]);
    let html = fs::read_to_string(&html_path).expect("read the HTML report");

    // The text: self-contained, nothing that can show a broken image, the figures inline.
    let lower = html.to_ascii_lowercase();
    for tag in ["<img", "<image", "<object", "<embed", "<iframe"] {
        assert!(
            !lower.contains(tag),
            "the report has a `{tag}` element, which can show a broken-image marker"
        );
    }
    let remote = remote_references(&html);
    assert!(remote.is_empty(), "the report is not self-contained, it references:\n{}", remote.join("\n"));
    let svgs = lower.matches("<svg").count();
    assert!(svgs >= 4, "expected at least 4 inline SVG figures, found {svgs}");
    assert_band_style(&html, "report");
    assert!(html.contains("<polygon class=\"region\""), "the report has no region polygon");
    assert!(html.contains(&format!("stroke=\"{}\"", hex(MODEL_RED))), "the report has no model line");

    // The pixels.
    let png_path = dir.join("report.png");
    screenshot(browser, &html_path, &png_path, 1200, 2400, &dir);
    let img = decode_png(&png_path);
    assert_eq!((img.width, img.height), (1200, 2400), "screenshot size");
    let c = measure(&img);
    eprintln!(
        "report screenshot {} (band {} over white, {} over the shade): {c:?}; {:.2} s",
        png_path.display(),
        hex(band_on_white()),
        hex(band_on_shade()),
        started.elapsed().as_secs_f64()
    );
    assert!(c.band > 2000, "too few band-fill pixels ({c:?}): bands and regions not drawn?");
    // Measured: ~7700 with the bands, ~2000 (edges, antialiasing) with the band paths removed.
    assert!(c.band_on_shade > 4000, "too few band pixels over the extrapolation shade ({c:?}): no band?");
    assert!(c.red > 50, "too few model-line pixels ({c:?})");
    assert!(c.non_white > c.total / 20, "the page looks blank ({c:?})");
}

fn standalone_band_svg_renders_in_chromium(browser: &Path) {
    let started = Instant::now();
    let dir = scratch_dir("band-svg");
    let _keep = Scratch(dir.clone());
    let svg_path = dir.join("band.svg");
    let plot = format!("band={}", svg_path.to_str().expect("UTF-8 temp path"));
    errband(&["models/hpl.tm", "data/hpl.csv", "-t", "max", "-t", "emax", "--plot", &plot]);
    let svg = fs::read_to_string(&svg_path).expect("read the band SVG");
    assert!(svg.contains("<svg"), "not an SVG file");
    assert_band_style(&svg, "band.svg");

    let png_path = dir.join("band.png");
    screenshot(browser, &svg_path, &png_path, 700, 450, &dir);
    let img = decode_png(&png_path);
    let c = measure(&img);
    eprintln!("band.svg screenshot {}: {c:?}; {:.2} s", png_path.display(), started.elapsed().as_secs_f64());
    // Measured: ~5900 band pixels over the shade, ~240 with the band paths removed.
    assert!(c.band > 3000, "too few band-fill pixels ({c:?})");
    assert!(c.band_on_shade > 3000, "too few band pixels over the extrapolation shade ({c:?}): no band?");
    assert!(c.red > 50, "too few model-line pixels ({c:?})");
    assert!(c.non_white > c.total / 20, "the plot looks blank ({c:?})");
}

/// Block size (px) of the reference comparison, the largest difference
/// (per channel, 0–255) of a block's mean that still counts as equal, and
/// the share of blocks that may differ: a font's antialiasing moves single
/// pixels, not the mean of a block; a moved legend, a lost band or another
/// colour changes many blocks.
const REF_BLOCK: usize = 4;
const REF_BLOCK_TOLERANCE: f64 = 24.0;
const REF_MAX_DIFFERING: f64 = 0.02;

/// The share of `REF_BLOCK`-square blocks whose mean colour differs by
/// more than the tolerance; images of different sizes differ entirely.
fn differing_blocks(a: &Image, b: &Image) -> f64 {
    if (a.width, a.height) != (b.width, b.height) {
        return 1.0;
    }
    let (w, h) = (a.width as usize, a.height as usize);
    let mean = |img: &Image, bx: usize, by: usize| {
        let mut sum = [0.0f64; 3];
        let mut n = 0.0;
        for y in by * REF_BLOCK..((by + 1) * REF_BLOCK).min(h) {
            for x in bx * REF_BLOCK..((bx + 1) * REF_BLOCK).min(w) {
                let p = img.pixels[y * w + x];
                for c in 0..3 {
                    sum[c] += f64::from(p[c]);
                }
                n += 1.0;
            }
        }
        sum.map(|v| v / n)
    };
    let (nx, ny) = (w.div_ceil(REF_BLOCK), h.div_ceil(REF_BLOCK));
    let mut differ = 0usize;
    for by in 0..ny {
        for bx in 0..nx {
            let (ma, mb) = (mean(a, bx, by), mean(b, bx, by));
            if (0..3).any(|c| (ma[c] - mb[c]).abs() > REF_BLOCK_TOLERANCE) {
                differ += 1;
            }
        }
    }
    differ as f64 / (nx * ny) as f64
}

/// The size an SVG declares on its root element.
fn svg_size(svg: &str) -> (u32, u32) {
    let num = |name: &str| -> u32 {
        attr(svg, "<svg", name)
            .and_then(|v| v.parse::<f64>().ok())
            .map(|v| v.ceil() as u32)
            .expect("svg size")
    };
    (num("width"), num("height"))
}

/// The band plots as Chromium draws them against reference screenshots in
/// `tests/data/plots/` (`ERRBAND_UPDATE_REFERENCE=1` writes them anew, to
/// be looked at before committing): the HPL band plot, the same with a
/// point dropped (eight series, the legend below the plot), and the width
/// plot (eight lines with markers).
fn plots_match_reference_screenshots(browser: &Path) {
    let dir = scratch_dir("reference");
    let _keep = Scratch(dir.clone());
    let refs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/plots");
    let update = std::env::var_os("ERRBAND_UPDATE_REFERENCE").is_some_and(|v| v == "1");
    let cases: [(&str, &[&str]); 3] = [
        ("hpl-band", &["models/hpl.tm", "data/hpl.csv", "--plot"]),
        ("hpl-drop", &["models/hpl.tm", "data/hpl.csv", "--drop", "p=110", "--plot"]),
        ("hpl-width", &["models/hpl.tm", "data/hpl.csv", "--plot"]),
    ];
    let mut failures = Vec::new();
    for (name, args) in cases {
        let svg_path = dir.join(format!("{name}.svg"));
        let kind = if name == "hpl-width" { "width" } else { "band" };
        let plot = format!("{kind}={}", svg_path.to_str().expect("UTF-8 temp path"));
        let mut args = args.to_vec();
        args.push(&plot);
        errband(&args);
        let (w, h) = svg_size(&fs::read_to_string(&svg_path).expect("read the SVG"));
        let png_path = dir.join(format!("{name}.png"));
        screenshot(browser, &svg_path, &png_path, w, h, &dir);
        let reference = refs.join(format!("{name}.png"));
        if update {
            fs::create_dir_all(&refs).expect("create the reference directory");
            fs::copy(&png_path, &reference).expect("write the reference screenshot");
            eprintln!("wrote {}", reference.display());
            continue;
        }
        let share = differing_blocks(&decode_png(&png_path), &decode_png(&reference));
        eprintln!(
            "{name}: {:.3} % of {REF_BLOCK}x{REF_BLOCK} blocks differ from the reference",
            100.0 * share
        );
        if share > REF_MAX_DIFFERING {
            failures.push(format!(
                "{name}: {:.2} % of blocks differ from {} (at most {:.0} %); the screenshot is {}",
                100.0 * share,
                reference.display(),
                100.0 * REF_MAX_DIFFERING,
                png_path.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// --------------------------------------------------------------- harness

/// libtest-mimic instead of the built-in harness: a test that cannot run
/// (no browser) is reported as *ignored*, with the reason on stderr, rather
/// than passing without having checked anything.
fn main() {
    let args = libtest_mimic::Arguments::from_args();
    type Test = (&'static str, fn(&Path));
    let tests: [Test; 3] = [
        ("html_report_renders_in_chromium", html_report_renders_in_chromium),
        ("standalone_band_svg_renders_in_chromium", standalone_band_svg_renders_in_chromium),
        ("plots_match_reference_screenshots", plots_match_reference_screenshots),
    ];
    let found = browser();
    if let Browser::Skip(why) = &found {
        eprintln!(
            "note: the browser rendering tests are skipped (reported as ignored): {why} \
             (install `chromium` or set ERRBAND_CHROMIUM; ERRBAND_REQUIRE_BROWSER=1 makes this a failure)"
        );
    }
    let trials = tests
        .into_iter()
        .map(|(name, test)| match &found {
            Browser::Found(p) => {
                let p = p.clone();
                libtest_mimic::Trial::test(name, move || {
                    test(&p);
                    Ok(())
                })
            }
            Browser::Skip(_) => libtest_mimic::Trial::test(name, || Ok(())).with_ignored_flag(true),
            Browser::Required(why) => {
                let why = why.clone();
                libtest_mimic::Trial::test(name, move || Err(why.into()))
            }
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
