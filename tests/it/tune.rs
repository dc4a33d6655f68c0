//! `s17 tune` on the real binary: one table row per combination, each
//! finding the known 17s of grids that hold some, and bad tuning values
//! refused before any search.
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): a tuning
//! that changes the 17s (`every_combination_gets_a_row_and_they_agree`).

use s17::grid::Grid;

use crate::common::bin::{run_in, stdout_of_success};

#[test]
fn every_combination_gets_a_row_and_they_agree() {
    // Two grids holding known 17s (those of data/sample-grids.txt, one and
    // two 17s; quick to search even with a UA limit of 4): every
    // combination of the extreme settings must find all their known 17s.
    let dir = tempfile::tempdir().unwrap();
    let grids = [
        "836491752724835961591672438982314576653789124417256893245167389178923645369548217",
        "384791256297365841651482739875219364413657982926834175142578693568923417739146528",
    ]
    .map(|g| Grid::parse(g).unwrap());
    let known = &crate::common::fixture().known;
    let expected: usize = grids.iter().map(|g| known.expected(g).len()).sum();
    assert_eq!(expected, 3);
    std::fs::write(
        dir.path().join("grids.txt"),
        format!("# two grids\n{}\n{}\n", grids[0], grids[1]),
    )
    .unwrap();
    let args: Vec<&str> =
        "tune --input grids.txt --threads 2 --chunk 16,256 --ua-limit 4,256 --gua-limit 0,512"
            .split(' ')
            .collect();
    let out = run_in(dir.path(), &args);
    let stdout = stdout_of_success(&out);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines.len(),
        9,
        "a header and one row per combination: {stdout}"
    );
    assert!(lines[0].contains("chunk") && lines[0].contains("xy_tested"));
    assert!(lines[0].ends_with("17s"), "{}", lines[0]);
    let mut combinations: Vec<[&str; 3]> = Vec::new();
    for line in &lines[1..] {
        let fields: Vec<&str> = line.split_whitespace().collect();
        combinations.push([fields[0], fields[1], fields[2]]);
        assert_eq!(
            fields.last().unwrap().parse::<usize>().unwrap(),
            expected,
            "{line}"
        );
    }
    combinations.sort();
    let mut all = Vec::new();
    for chunk in ["16", "256"] {
        for ua in ["256", "4"] {
            for gua in ["0", "512"] {
                all.push([chunk, ua, gua]);
            }
        }
    }
    all.sort();
    assert_eq!(combinations, all);
}

#[test]
fn bad_values_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    // Out of range is a usage error (exit 2, issue 38), from clap, naming
    // the option and its range.
    let out = run_in(dir.path(), &["tune", "--random", "1", "--chunk", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with(
        "s17 tune: error: invalid value '1' for '--chunk <LIST>': 1 is not in the range \
                 16 to 4096"
    ));
    let out = run_in(dir.path(), &["tune", "--random", "1", "--ua-limit", "x"]);
    assert_eq!(out.status.code(), Some(2), "usage error");
    let out = run_in(dir.path(), &["tune", "--random", "1", "--fillings", "5,0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with(
        "s17 tune: error: invalid value '0' for '--fillings <LIST>': 0 is not in the \
             range 1 to 1000000"
    ));
}

/// Every option of the table takes a list, `--fillings` too, and gets a
/// column.
#[test]
fn fillings_get_a_list_and_a_column() {
    let dir = tempfile::tempdir().unwrap();
    let args: Vec<&str> = "tune --random 1 --seed 7 --fillings 1,2000"
        .split(' ')
        .collect();
    let out = run_in(dir.path(), &args);
    let stdout = stdout_of_success(&out);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header[..6],
        [
            "chunk",
            "ua_limit",
            "gua_limit",
            "ua12_digits",
            "gua_digits",
            "fillings"
        ]
    );
    let mut fillings: Vec<&str> = lines[1..]
        .iter()
        .map(|line| line.split_whitespace().nth(5).unwrap())
        .collect();
    fillings.sort();
    assert_eq!(fillings, ["1", "2000"]);
}
