//! `s17 tune` on the real binary: one table row per combination, and bad
//! tuning values refused before any search.

use std::process::{Command, Output};

/// The band tables shared by the tests of this checkout (never the user's
/// cache), built once.
fn tables() -> &'static str {
    static BUILT: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    let path = concat!(env!("CARGO_TARGET_TMPDIR"), "/bands.s17t");
    BUILT.get_or_init(|| {
        s17::tables::BandTables::open_or_build(path, false).unwrap();
    });
    path
}

fn s17(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_s17"))
        .current_dir(dir)
        .args(args)
        .args(["--tables", tables()])
        .output()
        .unwrap()
}

#[test]
fn every_combination_gets_a_row_and_they_agree() {
    let dir = tempfile::tempdir().unwrap();
    let grid = s17::generate::random_grid(&mut fastrand::Rng::with_seed(9));
    std::fs::write(
        dir.path().join("grids.txt"),
        format!("# one grid\n{grid}\n"),
    )
    .unwrap();
    let out = s17(
        dir.path(),
        &[
            "tune",
            "--input",
            "grids.txt",
            "--chunk",
            "64,256",
            "--ua-limit",
            "128",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines.len(),
        3,
        "a header and one row per combination: {stdout}"
    );
    assert!(lines[0].contains("chunk") && lines[0].contains("xy_tested"));
    let mut chunks: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    chunks.sort();
    assert_eq!(chunks, ["256", "64"]);
}

#[test]
fn bad_values_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = s17(dir.path(), &["tune", "--random", "1", "--chunk", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("chunk must be in"));
    let out = s17(dir.path(), &["tune", "--random", "1", "--ua-limit", "x"]);
    assert_eq!(out.status.code(), Some(2), "usage error");
}
