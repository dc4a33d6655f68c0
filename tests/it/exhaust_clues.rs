//! `exhaust --clues N` against oracles that share none of its catalogue
//! code: the one-grid search (`search --clues N`) of every grid an entry
//! visits, each of its puzzles placed by `which` (the plan's rule for N);
//! `--first`, one puzzle per visit exactly where the one-grid search has
//! one there; `--non-minimal`, every known 17 plus one clue placed in the
//! entry.
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): a puzzle
//! of N clues lost by `exhaust --clues N` (the union over an entry's visits
//! against the one-grid search of each grid the entry visits; by hand on a
//! whole slice: `tools/check-slice-clues.sh`).

use std::collections::{BTreeMap, BTreeSet};

use s17::band::Band;
use s17::canon::minlex_puzzle;
use s17::ed::{Band3Visit, Ed, Entry};
use s17::exhaust::Exhauster;
use s17::grid::{Grid, Puzzle};
use s17::search::{Goal, SearchConfig, Searcher};

use crate::common::fixture;

/// The entry numbered `number` of slice `k`.
fn entry(ed: &Ed, k: usize, number: u64) -> Entry {
    let mut found = None;
    ed.for_each_entry(k, number..number + 1, |e| found = Some(*e));
    found.expect("the entry exists")
}

/// Whether `which` places puzzle `p` in visit `v` of entry `e` of slice
/// `k` (the slice, the entry's band 2 and the visit's band 3).
fn placed_at(ed: &Ed, p: &Puzzle, k: usize, e: &Entry, v: &Band3Visit) -> bool {
    let visit = ed.which_puzzle(p).expect("a puzzle of its grid").1;
    let band2: Band = visit.key[..27].try_into().unwrap();
    let band3: Band = visit.key[27..].try_into().unwrap();
    visit.class == k && band2 == e.band2 && band3 == v.band3
}

fn goal(clues: usize, first: bool, non_minimal: bool) -> Goal {
    Goal {
        clues,
        first,
        non_minimal,
    }
}

/// Entries 3 and 9 of slice 28 (the cheapest slice; they hold 0 and 3
/// 18s, about 5 s each, and the one-grid search of their grids about a
/// minute): for each band 3, `exhaust --clues 18` gives exactly the
/// 18s of the one-grid search of its grid that `which` places in this
/// visit; with `--first`, one puzzle for exactly the bands 3 that have
/// some, and it is one of them.
#[test]
fn entries_give_exactly_the_one_grid_18s_which_places_there() {
    let f = fixture();
    let ed = Ed::new();
    let config = SearchConfig::default();
    let all = Exhauster::new(&ed, &f.tables, config).with_goal(goal(18, false, false));
    let first = Exhauster::new(&ed, &f.tables, config).with_goal(goal(18, true, false));
    let searcher = Searcher::new(&f.catalogue, &f.tables, config).with_goal(goal(18, false, false));
    let k = 28;
    let (mut visits_with, mut visits_without) = (0, 0);
    for number in [3, 9] {
        let e = entry(&ed, k, number);
        let got: BTreeSet<Puzzle> = all
            .search_entry(k, &e)
            .unwrap()
            .puzzles
            .into_iter()
            .collect();
        let firsts = first.search_entry(k, &e).unwrap().puzzles;
        let mut expected = BTreeSet::new();
        let mut with_some = 0;
        for v in all.visits(k, &e) {
            let grid = all.visit_grid(k, &e, &v.band3);
            let here: BTreeSet<Puzzle> = searcher
                .search(&grid)
                .unwrap()
                .puzzles
                .iter()
                .filter(|p| placed_at(&ed, p, k, &e, &v))
                .map(|p| minlex_puzzle(p).0)
                .collect();
            if here.is_empty() {
                visits_without += 1;
            } else {
                visits_with += 1;
                with_some += 1;
                // The visit's first puzzle is one of its own.
                assert_eq!(
                    firsts.iter().filter(|p| here.contains(p)).count(),
                    1,
                    "entry {number}: --first gives one puzzle of the visit"
                );
            }
            expected.extend(here);
        }
        assert_eq!(got, expected, "slice {k}, entry {number}");
        assert_eq!(firsts.len(), with_some, "entry {number}: one per visit");
        assert!(firsts.iter().all(|p| p.clue_count() == 18));
    }
    // The sample must test both sides of the flag.
    assert!(
        visits_with > 0 && visits_without > 0,
        "{visits_with} {visits_without}"
    );
}

/// Entries holding known 17s (a seeded sample of the list): `exhaust
/// --clues 18 --non-minimal` gives every known 17 of the entry's grids
/// plus one empty cell that `which` places in the entry; those are valid
/// 18s, not minimal ones, so without `--non-minimal` none of them comes.
#[test]
fn non_minimal_18s_hold_every_17_plus_one_clue_placed_in_the_entry() {
    let f = fixture();
    let ed = Ed::new();
    let config = SearchConfig::default();
    let non_minimal = Exhauster::new(&ed, &f.tables, config).with_goal(goal(18, false, true));
    // The 17s of slice 381 entry 18 and slice 382 entry 2553 (placed by
    // `enumerate --which` in the whole-slice proof campaign): entries whose
    // 18 search takes seconds.
    let mut checked = 0;
    for (k, number) in [(381, 18), (382, 2553)] {
        let e = entry(&ed, k, number);
        let got: BTreeSet<Puzzle> = non_minimal
            .search_entry(k, &e)
            .unwrap()
            .puzzles
            .into_iter()
            .collect();
        let mut plus_one = BTreeMap::new();
        for v in non_minimal.visits(k, &e) {
            let grid = non_minimal.visit_grid(k, &e, &v.band3);
            for p in f.known.expected(&grid) {
                for cell in (0..81).filter(|&c| p.digit(c) == 0) {
                    let mut cells = *p.digits();
                    cells[cell] = grid.digit(cell);
                    let q = Puzzle::from_digits(cells);
                    if placed_at(&ed, &q, k, &e, &v) {
                        plus_one.insert(minlex_puzzle(&q).0, p);
                    }
                }
            }
        }
        assert!(!plus_one.is_empty(), "slice {k} entry {number} holds a 17");
        for (q, p) in &plus_one {
            assert!(
                got.contains(q),
                "{q} ({p} plus a clue) not found at {k}/{number}"
            );
            checked += 1;
        }
    }
    assert!(checked > 20, "only {checked} puzzles checked");
}

/// A grid's N-clue puzzles lie in its three visits, across slices: the
/// three entries that hold them give together exactly the one-grid search
/// (N = 16: none; N = 17: the grid's 17s), and with `--first` the grid
/// has one exactly when some visit gives one.
#[test]
fn a_grids_three_visits_together_give_its_puzzles_for_each_n() {
    let f = fixture();
    let ed = Ed::new();
    let config = SearchConfig::default();
    let grid = Grid::parse(crate::common::GRID29).unwrap();
    for (clues, expected) in [(16, 0), (17, 29)] {
        let ex = Exhauster::new(&ed, &f.tables, config).with_goal(goal(clues, false, false));
        let first = Exhauster::new(&ed, &f.tables, config).with_goal(goal(clues, true, false));
        let one = Searcher::new(&f.catalogue, &f.tables, config)
            .with_goal(goal(clues, false, false))
            .search(&grid)
            .unwrap();
        let want: BTreeSet<Puzzle> = one.puzzles.iter().map(|p| minlex_puzzle(p).0).collect();
        assert_eq!(want.len(), expected);
        let (mut union, mut flagged) = (BTreeSet::new(), false);
        for v in &ed.visits(grid.digits()) {
            let band2: Band = v.key[..27].try_into().unwrap();
            let number = ed.entry_numbers(v.class, &[band2])[0].expect("an entry");
            let e = entry(&ed, v.class, number);
            let mine = |p: &Puzzle| want.contains(p);
            union.extend(
                ex.search_entry(v.class, &e)
                    .unwrap()
                    .puzzles
                    .into_iter()
                    .filter(mine),
            );
            flagged |= first
                .search_entry(v.class, &e)
                .unwrap()
                .puzzles
                .iter()
                .any(mine);
        }
        assert_eq!(union, want, "N = {clues}");
        assert_eq!(flagged, !want.is_empty(), "N = {clues}");
    }
}
