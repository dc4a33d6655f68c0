//! The complete search against its oracle: the list of known 17s (complete,
//! by the exhaustive searches that produced it), mapped onto each grid by
//! canonical forms and automorphisms (`s17::known`). Run on a release build.
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): anything
//! in the search, on real grids
//! (`the_grid_with_29_known_17s_gives_exactly_them`,
//! `known_grids_in_random_orientation_give_their_known_17s`,
//! `random_grids_give_what_the_known_list_predicts`: the known list is
//! complete, so it is the oracle); a count triple searched by no choice
//! (`both_orientations_give_the_same_17s`).

use crate::common::fixture;
use s17::canon::Transform;
use s17::generate::random_grid;
use s17::grid::{Grid, Puzzle};
use s17::search::{SearchConfig, Searcher};

fn assert_finds_expected(grid: &Grid) {
    let f = fixture();
    let searcher = Searcher::new(&f.catalogue, &f.tables, SearchConfig::default());
    crate::common::assert_finds_expected(&searcher, grid);
}

#[test]
fn the_grid_with_29_known_17s_gives_exactly_them() {
    let grid = Grid::parse(crate::common::GRID29).unwrap();
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
