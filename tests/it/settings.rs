//! The complete search under each non-default tuning setting, against the
//! known list: every setting must find exactly the known 17s of the golden
//! corpus (`crate::common::golden_grids`: the 29-17 grid and ten known grids in
//! random orientation; for the slowest setting, a UA limit of 4, the 29-17
//! grid and three of the others). A setting only decides how many genuine
//! UAs filter early, so none may change the 17s; most tests also check on
//! the 29-17 grid that their setting did change the search (a counter
//! moves the way it must against the default's). The portable kernels are
//! checked in `tests/portable.rs`. Run on a release build.
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): a
//! non-default tuning setting that changes the 17s of the golden corpus.

use std::sync::OnceLock;

use crate::common::bin::{s17, stdout_lines};
use crate::common::{GOLDEN_KNOWN, assert_finds_expected, fixture, golden_grids};
use s17::grid::Grid;
use s17::search::{SearchConfig, Searcher, Stats};

/// Every grid of the golden corpus.
const ALL: [usize; 1 + GOLDEN_KNOWN] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

/// Searches the grids `which` of the golden corpus (positions in
/// `golden_grids()`, the 29-17 grid first) under the default config as
/// `set` changes it; returns the counters of the 29-17 grid.
fn check_setting(set: impl FnOnce(&mut SearchConfig), which: &[usize]) -> Stats {
    let mut config = SearchConfig::default();
    set(&mut config);
    assert_ne!(config, SearchConfig::default());
    config.validate().unwrap();
    assert_eq!(
        which[0], 0,
        "the 29-17 grid is searched under every setting"
    );
    let f = fixture();
    let searcher = Searcher::new(&f.catalogue, &f.tables, config);
    let grids = golden_grids();
    let stats: Vec<Stats> = which
        .iter()
        .map(|&k| assert_finds_expected(&searcher, &grids[k]).total())
        .collect();
    stats[0]
}

/// The counters of the 29-17 grid at the default setting.
fn default_stats() -> &'static Stats {
    static STATS: OnceLock<Stats> = OnceLock::new();
    STATS.get_or_init(|| {
        let f = fixture();
        let searcher = Searcher::new(&f.catalogue, &f.tables, SearchConfig::default());
        assert_finds_expected(&searcher, &golden_grids()[0]).total()
    })
}

#[test]
fn a_ua_limit_of_four_finds_the_known_17s() {
    let stats = check_setting(
        |c| c.ua_limit = 4,
        // The slowest setting, about ten times the default's time (a
        // minute of CPU for the 29-17 grid, 2 to 70 s for the others):
        // for CI, the 29-17 grid and three of the faster others.
        &[0, 2, 5, 7],
    );
    // Fewer UAs in the vectors: more XY survive the inner loop.
    assert!(stats.survivors > default_stats().survivors, "{stats:?}");
}

#[test]
fn a_gua_limit_of_zero_finds_the_known_17s() {
    let stats = check_setting(|c| c.gua_limit = 0, &ALL);
    // No GUA bits: no survivor dies on the step's sockets, band 3 on
    // every GUA kills them instead.
    assert!(stats.gua_dead > default_stats().gua_dead, "{stats:?}");
}

#[test]
fn chunks_of_16_find_the_known_17s() {
    check_setting(|c| c.chunk = 16, &ALL);
}

#[test]
fn a_harvest_of_two_digits_finds_the_known_17s() {
    let stats = check_setting(
        |c| {
            c.ua12_digits = 2;
            c.gua_digits = 2;
        },
        &ALL,
    );
    assert!(stats.ua12 < default_stats().ua12, "{stats:?}");
    assert!(stats.guas < default_stats().guas, "{stats:?}");
}

#[test]
fn few_fillings_find_the_known_17s() {
    let stats = check_setting(|c| c.fillings = 3, &ALL);
    assert!(stats.ua12 < default_stats().ua12, "{stats:?}");
}

/// The 17s printed by `s17 search --stats ARGS GRIDS` (sorted) and the
/// UA12 harvested per grid (the `total:` lines of `--stats`).
fn search_cli(args: &[&str], grids: &[Grid]) -> (Vec<String>, Vec<u64>) {
    let output = s17(&["search", "--stats", "--threads", "1"])
        .args(args)
        .args(grids.iter().map(|g| g.to_string()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
    let mut found = stdout_lines(&output);
    found.sort();
    let ua12 = stderr
        .lines()
        .filter_map(|line| line.split_once(" total: ua12 "))
        .map(|(_, rest)| rest.split(' ').next().unwrap().parse().unwrap())
        .collect();
    (found, ua12)
}

/// `--fillings` on the command line reaches the search: one filling per
/// harvest subproblem harvests fewer UA12 than the default and finds the
/// same 17s, the known ones, on grids of the golden corpus.
#[test]
fn fillings_from_the_command_line_reach_the_search() {
    let all = golden_grids();
    let grids = [all[2], all[5], all[7]];
    let mut expected: Vec<String> = Vec::new();
    for (k, grid) in grids.iter().enumerate() {
        for p in fixture().known.expected(grid) {
            expected.push(format!("{}\t{p}", k + 1));
        }
    }
    expected.sort();
    let (found, ua12) = search_cli(&["--fillings", "1"], &grids);
    assert_eq!(found, expected);
    let (default_found, default_ua12) = search_cli(&[], &grids);
    assert_eq!(default_found, expected);
    assert_eq!(ua12.len(), grids.len());
    for (few, all) in ua12.iter().zip(&default_ua12) {
        assert!(few < all, "{ua12:?} against the default's {default_ua12:?}");
    }
}
