//! The `errband` binary: everything lives in the library's `cli` module.

fn main() {
    let code = errband::cli::run(std::env::args_os(), &mut std::io::stdout().lock(), &mut std::io::stderr().lock());
    std::process::exit(code);
}
