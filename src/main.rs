//! The `errband` binary: everything lives in the library's `cli` module.

fn main() {
    // Unlocked handles: `--timeout`'s watchdog must be able to write to
    // stderr while the run is in progress.
    let code = errband::cli::run(std::env::args_os(), &mut std::io::stdout(), &mut std::io::stderr());
    std::process::exit(code);
}
