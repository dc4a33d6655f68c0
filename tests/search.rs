//! The complete search against its oracle: the list of known 17s (complete,
//! by the exhaustive searches that produced it), mapped onto each grid by
//! canonical forms and automorphisms (`s17::known`). Run on a release build.

use std::sync::OnceLock;

use s17::band::BandCatalogue;
use s17::canon::Transform;
use s17::generate::random_grid;
use s17::grid::{Grid, Puzzle};
use s17::known::{KnownIndex, check_lines};
use s17::search::{SearchConfig, Searcher};
use s17::solver::count_solutions;
use s17::tables::BandTables;

struct Fixture {
    catalogue: BandCatalogue,
    tables: BandTables<memmap2::Mmap>,
    known: KnownIndex,
    /// Distinct solution grids of the known list (canonical forms), sorted.
    known_grids: Vec<Grid>,
}

fn fixture() -> &'static Fixture {
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
        // Shared by the tests of this checkout, never the user's cache.
        let path = concat!(env!("CARGO_TARGET_TMPDIR"), "/bands.s17t");
        let tables = BandTables::open_or_build(path, false).unwrap();
        Fixture {
            catalogue: BandCatalogue::new(),
            tables,
            known,
            known_grids,
        }
    })
}

fn search(grid: &Grid) -> Vec<Puzzle> {
    let f = fixture();
    Searcher::new(&f.catalogue, &f.tables, SearchConfig::default())
        .search(grid)
        .unwrap()
        .puzzles
}

fn assert_finds_expected(grid: &Grid) {
    let f = fixture();
    let expected = f.known.expected(grid);
    let found = search(grid);
    for p in &found {
        assert_eq!(p.clue_count(), 17, "{p}");
        assert!(p.agrees_with(grid), "{p} is not a puzzle of {grid}");
        assert_eq!(count_solutions(p, 2), 1, "{p} is not unique");
    }
    let missed: Vec<_> = expected.iter().filter(|p| !found.contains(p)).collect();
    let new: Vec<_> = found.iter().filter(|p| !expected.contains(p)).collect();
    assert!(
        missed.is_empty(),
        "grid {grid}: known 17s missed: {missed:?}"
    );
    assert!(
        new.is_empty(),
        "grid {grid}: 17s not in the known list (verified unique): {new:?}"
    );
}

#[test]
fn the_grid_with_29_known_17s_gives_exactly_them() {
    let grid = Grid::parse(
        "123456789456789123798231564234675918815943276967812435379164852582397641641528397",
    )
    .unwrap();
    let f = fixture();
    assert_eq!(f.known.expected(&grid).len(), 29);
    assert_finds_expected(&grid);
}

#[test]
fn known_grids_in_random_orientation_give_their_known_17s() {
    // Seed 17; grids drawn from the solution grids of known17.txt, each
    // put in a random orientation. The 200-grid acceptance run uses the same
    // code path through `s17 validate`.
    let f = fixture();
    let mut rng = fastrand::Rng::with_seed(17);
    for _ in 0..6 {
        let grid = f.known_grids[rng.usize(..f.known_grids.len())];
        let moved = Transform::random(&mut rng).apply_grid(&grid);
        assert!(!f.known.expected(&moved).is_empty());
        assert_finds_expected(&moved);
    }
}

#[test]
fn random_grids_give_what_the_known_list_predicts() {
    // Seed 4; a random grid almost never holds a 17, and then the list
    // predicts none and the search must find none.
    let mut rng = fastrand::Rng::with_seed(4);
    for _ in 0..4 {
        assert_finds_expected(&random_grid(&mut rng));
    }
}

#[test]
fn both_orientations_give_the_same_17s() {
    // Seed 29: `search` picks the orientation with the smaller estimate;
    // the other one must give the same 17s, transposed back.
    let f = fixture();
    let searcher = Searcher::new(&f.catalogue, &f.tables, SearchConfig::default());
    let mut rng = fastrand::Rng::with_seed(29);
    for _ in 0..2 {
        let grid = f.known_grids[rng.usize(..f.known_grids.len())];
        let grid = Transform::random(&mut rng).apply_grid(&grid);
        let t = grid.transposed();
        let as_given = searcher.search_as_given(&grid).unwrap().puzzles;
        let mut back: Vec<Puzzle> = searcher
            .search_as_given(&t)
            .unwrap()
            .puzzles
            .iter()
            .map(|p| p.transposed())
            .collect();
        back.sort();
        assert!(!as_given.is_empty());
        assert_eq!(as_given, back, "grid {grid}");
        assert_eq!(
            searcher.search(&grid).unwrap().puzzles,
            as_given,
            "grid {grid}"
        );
    }
}
