//! The `s17` binary: parse the command line, run it, map the outcome to an
//! exit code (0 ok, 1 bad input or a failed run, 2 usage).

use std::process::ExitCode;

fn main() -> ExitCode {
    s17::cli::main()
}
