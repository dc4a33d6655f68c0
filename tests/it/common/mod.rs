//! Shared by the integration tests: the band tables, the known list
//! indexed by solution grid (the oracle: it is complete), the golden
//! corpus of grids holding known 17s, and running the binary ([`bin`]).

// Each test target uses its own part of this module.
#![allow(dead_code)]

pub mod bin;
pub mod signals;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::OnceLock;

use s17::band::BandCatalogue;
use s17::canon::{Transform, minlex_grid};
use s17::grid::{Grid, Puzzle};
use s17::known::{KnownIndex, check_lines};
use s17::search::{GridResult, Searcher};
use s17::solver::count_solutions;
use s17::tables::BandTables;

/// How long a test waits for a child `s17` to make progress (record a
/// grid or an entry) before it fails. A safety net only: every wait is on
/// a condition (a file's lines, a caught signal, a line of output), and
/// the bound, far beyond what a loaded machine needs, turns a hang into a
/// failure. `secs` for the release build the
/// suite runs on (`cargo test --release`), twenty times as long for a
/// debug build, whose search is 20 to 50 times slower, so that the debug
/// assertions can be run end to end (`cargo test`) without a false alarm.
pub fn progress_limit(secs: u64) -> std::time::Duration {
    let factor = if cfg!(debug_assertions) { 20 } else { 1 };
    std::time::Duration::from_secs(secs * factor)
}

/// The grid with the most known 17s (29), in minlex form.
pub const GRID29: &str =
    "123456789456789123798231564234675918815943276967812435379164852582397641641528397";

/// A random grid of `data/sample-grids.txt` (line 3), with no 17: a search
/// of a fraction of a second.
pub const QUICK_GRID: &str =
    "289615473431782569756349821678251934123497658945836217897523146312964785564178392";

/// The first puzzle of `data/known17.txt`.
pub const FIRST_KNOWN17: &str =
    ".................1.....2.3......3.2...1.4......5....6..3......4.7..8...962...7...";

/// The known 17 of slice 331, entry 1683769 (the campaigns' test entry), in
/// minlex form.
pub const SLICE331_17: &str =
    "........1.......23..4..5.........6...1.37....8..2........1........83....5.6...4..";

pub struct Fixture {
    pub catalogue: BandCatalogue,
    pub tables: BandTables<memmap2::Mmap>,
    pub known: KnownIndex,
    /// Distinct solution grids of the known list (canonical forms), sorted.
    pub known_grids: Vec<Grid>,
}

pub fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let root = env!("CARGO_MANIFEST_DIR");
        let text = std::fs::read_to_string(format!("{root}/data/known17.txt")).unwrap();
        let (good, bad) = check_lines(text.lines().enumerate().map(|(i, l)| (i + 1, l)));
        assert!(bad.is_empty(), "known17.txt has bad lines: {bad:?}");
        assert_eq!(good.len(), 49_158);
        let known = KnownIndex::new(&good);
        assert_eq!(known.grids(), 46_301);
        let known_grids = known.entries().into_iter().map(|(g, _)| *g).collect();
        let tables = BandTables::open(bin::shared_tables()).unwrap();
        Fixture {
            catalogue: BandCatalogue::new(),
            tables,
            known,
            known_grids,
        }
    })
}

/// Grids of the golden corpus after the 29-17 grid.
pub const GOLDEN_KNOWN: usize = 10;

/// The golden corpus: the grid with 29 known 17s, then ten grids of the
/// known list drawn with seed 18, each in a random orientation (the same
/// grids as `src/search/tests.rs`). Every grid holds known 17s.
pub fn golden_grids() -> Vec<Grid> {
    let f = fixture();
    let mut rng = fastrand::Rng::with_seed(18);
    let mut grids = vec![Grid::parse(GRID29).unwrap()];
    for _ in 0..GOLDEN_KNOWN {
        let grid = f.known_grids[rng.usize(..f.known_grids.len())];
        grids.push(Transform::random(&mut rng).apply_grid(&grid));
    }
    for grid in &grids {
        assert!(!f.known.expected(grid).is_empty(), "{grid}");
    }
    grids
}

/// Searches `grid` and checks that exactly the 17s the known list predicts
/// come out, each one a verified 17 of the grid.
pub fn assert_finds_expected<B: AsRef<[u8]> + Sync>(
    searcher: &Searcher<'_, B>,
    grid: &Grid,
) -> GridResult {
    let expected = fixture().known.expected(grid);
    let result = searcher.search(grid).unwrap();
    let found = &result.puzzles;
    for p in found {
        assert_eq!(p.clue_count(), 17, "{p}");
        assert!(p.agrees_with(grid), "{p} is not a puzzle of {grid}");
        assert_eq!(count_solutions(p, 2), 1, "{p} is not unique");
    }
    let missed: Vec<&Puzzle> = expected.iter().filter(|p| !found.contains(p)).collect();
    let new: Vec<&Puzzle> = found.iter().filter(|p| !expected.contains(p)).collect();
    let config = searcher.config();
    assert!(
        missed.is_empty(),
        "grid {grid} ({config:?}): known 17s missed: {missed:?}"
    );
    assert!(
        new.is_empty(),
        "grid {grid} ({config:?}): 17s not in the known list (verified unique): {new:?}"
    );
    result
}

/// The one-grid search (`s17 search --first --clues 17`) on the grids listed
/// in `list`, one a line: the minlex grids that have a 17 (an oracle that
/// shares no code with a campaign's flags).
pub fn grids_with_a_17(list: &Path) -> BTreeSet<Grid> {
    let out = bin::s17(&[
        "search",
        "--first",
        "--clues",
        "17",
        "--threads",
        "2",
        "-q",
        "-i",
        list.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", bin::text(&out));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            // `GRID_NUMBER<TAB>PUZZLE` for several grids.
            let p = Puzzle::parse(l.rsplit('\t').next().unwrap()).unwrap();
            minlex_grid(&s17::solver::solve(&p, 2).first.unwrap()).0
        })
        .collect()
}
