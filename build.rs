//! The build's identity for `s17 --version`: the commit it was built from
//! (`git rev-parse --short HEAD`; `no git` without git or a
//! repository), the target triple, and the CPU it
//! was built for (`native`: the building machine's, from
//! `.cargo/config.toml`; else the `-C target-cpu` given, or the target's
//! baseline).

use std::process::Command;

fn main() {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let commit = match git(&["rev-parse", "--short", "HEAD"]) {
        Some(hash) if !hash.is_empty() => hash,
        _ => "no git".to_string(),
    };
    // Built again when HEAD moves (a commit, a checkout): the repository's
    // own paths, which differ in a worktree.
    if let (Some(dir), Some(common)) = (
        git(&["rev-parse", "--git-dir"]),
        git(&["rev-parse", "--git-common-dir"]),
    ) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={common}/refs/heads");
        println!("cargo:rerun-if-changed={common}/packed-refs");
    }
    let target = std::env::var("TARGET").unwrap_or_default();
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let cpu = flags
        .split('\u{1f}')
        .filter_map(|f| f.strip_prefix("target-cpu="))
        .chain(
            flags
                .split('\u{1f}')
                .collect::<Vec<_>>()
                .windows(2)
                .filter(|w| w[0] == "-C")
                .filter_map(|w| w[1].strip_prefix("target-cpu=")),
        )
        .last()
        .unwrap_or("baseline")
        .to_string();
    println!("cargo:rustc-env=S17_BUILD=({commit}, {target}, cpu {cpu})");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
}
