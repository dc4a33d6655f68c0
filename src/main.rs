//! The `s17` binary: parse the command line, run it, map the outcome to an
//! exit code (0 ok, 1 bad input or a failed run, 2 usage, 130 interrupted by
//! Ctrl-C or SIGTERM).

#![deny(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    // The build targets the CPU that built it (.cargo/config.toml): refuse
    // to run, with a way out, on a CPU without its instructions rather than
    // crash later.
    #[cfg(target_arch = "x86_64")]
    {
        let missing = s17::bits::missing_cpu_features();
        if !missing.is_empty() {
            // Not `eprintln!`, which panics on a closed stderr.
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "s17: error: this build uses CPU features this CPU lacks ({}); rebuild it on \
                 this machine (cargo build --release), or for a baseline with \
                 RUSTFLAGS=\"-C target-cpu=x86-64\" cargo build --release",
                missing.join(", ")
            );
            return ExitCode::from(1);
        }
    }
    s17::cli::main()
}
