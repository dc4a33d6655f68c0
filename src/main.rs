//! The `s17` binary: parse the command line, run it, map the outcome to an
//! exit code (0 ok, 1 bad input or a failed run, 2 usage, 130 interrupted by
//! Ctrl-C or SIGTERM).

#![deny(unsafe_code)]
// Nothing here writes to the terminal but `cli`, the printer (see `src/lib.rs`).
#![deny(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::dbg_macro,
    clippy::disallowed_methods
)]

#[allow(clippy::disallowed_methods)] // the printer: owns stdout and stderr
mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
