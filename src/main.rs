//! The `s17` binary: parse the command line, run it, map the outcome to an
//! exit code (0 ok, 1 bad input or a failed run, 2 usage, 130 interrupted by
//! Ctrl-C or SIGTERM).

#![deny(unsafe_code)]
// Nothing here writes to the terminal: `s17::cli` does (see `src/lib.rs`).
#![deny(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::dbg_macro,
    clippy::disallowed_methods
)]

use std::process::ExitCode;

fn main() -> ExitCode {
    s17::cli::main()
}
