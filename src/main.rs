//! The `errband` binary: everything lives in the library's `cli` module.

/// Exact arithmetic allocates a big integer per operation; mimalloc's
/// thread-local free lists halve the allocator's share of a run.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // Unlocked handles: `--timeout`'s watchdog must be able to write to
    // stderr while the run is in progress.
    let code = errband::cli::run(std::env::args_os(), &mut std::io::stdout(), &mut std::io::stderr());
    std::process::exit(code);
}
