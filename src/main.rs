//! The `s17` binary: parse the command line, run it, map the outcome to an
//! exit code (0 ok, 1 bad input or a failed run, 2 usage).

use std::process::ExitCode;

fn main() -> ExitCode {
    // The build targets the CPU that built it (.cargo/config.toml): refuse
    // to run, with a way out, on a CPU without its instructions rather than
    // crash later.
    #[cfg(target_arch = "x86_64")]
    {
        let missing = missing_cpu_features();
        if !missing.is_empty() {
            eprintln!(
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

/// The CPU features this build was compiled to use that the running CPU
/// lacks (the ones a target-cpu setting turns on for ordinary code).
#[cfg(target_arch = "x86_64")]
fn missing_cpu_features() -> Vec<&'static str> {
    macro_rules! check {
        ($($feature:tt),*) => {{
            let mut missing = Vec::new();
            $(
                if cfg!(target_feature = $feature) && !std::arch::is_x86_feature_detected!($feature) {
                    missing.push($feature);
                }
            )*
            missing
        }};
    }
    check!(
        "popcnt",
        "sse3",
        "ssse3",
        "sse4.1",
        "sse4.2",
        "avx",
        "avx2",
        "bmi1",
        "bmi2",
        "lzcnt",
        "fma",
        "f16c",
        "movbe",
        "xsave",
        "adx",
        "sha",
        "aes",
        "pclmulqdq",
        "rdrand",
        "rdseed",
        "gfni",
        "vaes",
        "vpclmulqdq",
        "sse4a",
        "cmpxchg16b",
        "fxsr",
        "xsavec",
        "xsaveopt",
        "xsaves",
        "avx512f"
    )
}
