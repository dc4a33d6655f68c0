//! The `s17` binary: parse the command line, run it, map the outcome to an
//! exit code (0 ok, 1 bad input or a failed run, 2 usage).

use std::process::ExitCode;

fn main() -> ExitCode {
    // The build targets x86-64-v2 (.cargo/config.toml): refuse to run, with
    // a way out, on a CPU without its instructions rather than crash later.
    #[cfg(all(target_arch = "x86_64", target_feature = "popcnt"))]
    if !(std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("sse4.2"))
    {
        eprintln!(
            "s17: error: this build needs an x86-64-v2 CPU (POPCNT, SSE4.2); rebuild with \
             RUSTFLAGS=\"-C target-cpu=x86-64\" cargo build --release"
        );
        return ExitCode::from(1);
    }
    s17::cli::main()
}
