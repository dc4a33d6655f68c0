//! The fast solver against the data files and the reference solver.
//!
//! Run in release mode (`cargo test --release`): the known17 checks solve
//! 49,158 puzzles.
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): the
//! solver wrong about uniqueness
//! (`solver_cases_exact_counts_fast_and_reference`,
//! `random_puzzles_count_like_reference`: a property test against the
//! reference solver, `known17_are_unique`,
//! `known17_minus_a_clue_are_not_unique`).

use proptest::prelude::*;
use s17::bits::{GRID_FULL, Mask81};
use s17::grid::{Grid, Puzzle};
use s17::solver::{count_solutions, for_each_solution, other_solution, reference, solve};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data");

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{DATA}/{name}")).expect("data file")
}

/// (puzzle, count, solution if unique) for each line of solver_cases.txt.
fn solver_cases() -> Vec<(Puzzle, usize, Option<Grid>)> {
    read("solver_cases.txt")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            let puzzle = Puzzle::parse(fields[0]).expect("puzzle");
            let count = fields[1].parse().expect("count");
            let solution = fields
                .get(2)
                .filter(|s| s.len() == 81)
                .map(|s| Grid::parse(s).expect("solution"));
            (puzzle, count, solution)
        })
        .collect()
}

fn known17() -> Vec<Puzzle> {
    read("known17.txt")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| Puzzle::parse(l).expect("known17 puzzle"))
        .collect()
}

/// True when `grid` is a valid grid that agrees with every clue.
fn is_completion(puzzle: &Puzzle, grid: &Grid) -> bool {
    Grid::from_digits(*grid.digits()).is_ok() && puzzle.agrees_with(grid)
}

#[test]
fn solver_cases_exact_counts_fast_and_reference() {
    for (puzzle, count, solution) in solver_cases() {
        let limit = count + 5;
        let fast = solve(&puzzle, limit);
        assert_eq!(fast.count, count, "fast count of {puzzle}");
        assert_eq!(count_solutions(&puzzle, limit), count, "{puzzle}");
        let (reference_count, _) = reference::solutions(&puzzle, limit, 0);
        assert_eq!(reference_count, count, "reference count of {puzzle}");
        for grid in [fast.first, fast.second].iter().flatten() {
            assert!(is_completion(&puzzle, grid), "{puzzle} -> {grid}");
        }
        assert_eq!(fast.first.is_some(), count >= 1);
        assert_eq!(fast.second.is_some(), count >= 2);
        if count >= 2 {
            assert_ne!(fast.first, fast.second);
        }
        if count == 1 {
            assert_eq!(fast.first, solution, "{puzzle}");
        }
        // Limits below the count stop there.
        assert_eq!(count_solutions(&puzzle, 2), count.min(2));
        assert_eq!(solve(&puzzle, 1).count, count.min(1));
    }
}

#[test]
fn for_each_solution_enumerates_the_reference_set() {
    for (puzzle, count, _) in solver_cases() {
        let mut fast = Vec::new();
        let visited = for_each_solution(&puzzle, usize::MAX, |g| {
            fast.push(*g);
            true
        });
        assert_eq!(visited, count, "{puzzle}");
        let (_, mut reference) = reference::solutions(&puzzle, usize::MAX, usize::MAX);
        fast.sort();
        reference.sort();
        assert_eq!(fast, reference, "{puzzle}");
        // Stopping early: by the limit and by the callback.
        assert_eq!(for_each_solution(&puzzle, 3, |_| true), count.min(3));
        let mut seen = 0;
        let visited = for_each_solution(&puzzle, usize::MAX, |_| {
            seen += 1;
            seen < 2
        });
        assert_eq!(visited, count.min(2));
    }
}

#[test]
fn other_solution_on_solver_cases() {
    for (puzzle, count, _) in solver_cases() {
        if count == 0 {
            continue;
        }
        let grid = solve(&puzzle, 1).first.expect("solvable");
        let other = other_solution(&grid, puzzle.clue_mask());
        assert_eq!(other.is_none(), count == 1, "{puzzle}");
        if let Some(other) = other {
            assert_ne!(other, grid);
            assert!(is_completion(&puzzle, &other));
        }
    }
}

#[test]
fn known17_are_unique() {
    let puzzles = known17();
    assert_eq!(puzzles.len(), 49_158);
    for puzzle in &puzzles {
        let s = solve(puzzle, 2);
        assert_eq!(s.count, 1, "{puzzle}");
        let grid = s.first.expect("one solution");
        assert!(is_completion(puzzle, &grid));
        assert_eq!(other_solution(&grid, puzzle.clue_mask()), None, "{puzzle}");
    }
}

#[test]
fn known17_minus_a_clue_are_not_unique() {
    for puzzle in known17().iter().step_by(25) {
        let grid = solve(puzzle, 1).first.expect("solvable");
        let clues = puzzle.clue_mask();
        for cell in s17::bits::cells(clues) {
            let fewer: Mask81 = clues & !(1u128 << cell);
            let other = other_solution(&grid, fewer).expect("16 clues are never unique");
            assert_ne!(other, grid);
            assert!(is_completion(&Puzzle::from_grid(&grid, fewer), &other));
        }
    }
}

/// A random valid grid: a solution from solver_cases under a random
/// relabelling, band, row, stack and column permutation, and transposition.
fn random_grid(rng: &mut fastrand::Rng) -> Grid {
    let grids: Vec<Grid> = solver_cases().into_iter().filter_map(|c| c.2).collect();
    let base = grids[rng.usize(..grids.len())];
    let base = if rng.bool() { base.transposed() } else { base };
    let mut labels: Vec<u8> = (1..=9).collect();
    rng.shuffle(&mut labels);
    let order = |rng: &mut fastrand::Rng| {
        let mut outer = [0, 1, 2];
        rng.shuffle(&mut outer);
        let mut lines = Vec::new();
        for o in outer {
            let mut inner = [0, 1, 2];
            rng.shuffle(&mut inner);
            lines.extend(inner.map(|i| 3 * o + i));
        }
        lines
    };
    let (rows, cols) = (order(rng), order(rng));
    let mut cells = [0u8; 81];
    for r in 0..9 {
        for c in 0..9 {
            cells[9 * r + c] = labels[base.digit(9 * rows[r] + cols[c]) as usize - 1];
        }
    }
    Grid::from_digits(cells).expect("symmetries keep grids valid")
}

/// A random clue set of `n` cells.
fn random_clues(rng: &mut fastrand::Rng, n: usize) -> Mask81 {
    let mut cells: Vec<usize> = (0..81).collect();
    rng.shuffle(&mut cells);
    cells[..n].iter().fold(0, |m, &c| m | 1u128 << c)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_puzzles_count_like_reference(seed: u64, n in 20usize..=40, contradict: bool) {
        let mut rng = fastrand::Rng::with_seed(seed);
        let grid = random_grid(&mut rng);
        let clues = random_clues(&mut rng, n);
        let mut digits = *Puzzle::from_grid(&grid, clues).digits();
        if contradict {
            let cell = s17::bits::cells(clues).nth(rng.usize(..n)).unwrap();
            digits[cell] = (digits[cell] + rng.u8(0..8)) % 9 + 1;
        }
        let puzzle = Puzzle::from_digits(digits);
        let (expected, _) = reference::solutions(&puzzle, 3, 0);
        prop_assert_eq!(count_solutions(&puzzle, 3), expected, "{}", puzzle);
        let s = solve(&puzzle, 3);
        prop_assert_eq!(s.count, expected);
        for g in [s.first, s.second].iter().flatten() {
            prop_assert!(is_completion(&puzzle, g));
        }
        if !contradict {
            let other = other_solution(&grid, clues);
            prop_assert_eq!(other.is_none(), expected == 1, "{}", puzzle);
            if let Some(other) = other {
                prop_assert_ne!(other, grid);
                prop_assert!(is_completion(&puzzle, &other));
            }
        }
    }

    #[test]
    fn other_solution_of_dense_and_sparse_clue_sets(seed: u64, n in 0usize..=81) {
        let mut rng = fastrand::Rng::with_seed(seed);
        let grid = random_grid(&mut rng);
        let clues = random_clues(&mut rng, n);
        let puzzle = Puzzle::from_grid(&grid, clues);
        let unique = count_solutions(&puzzle, 2) == 1;
        let other = other_solution(&grid, clues);
        prop_assert_eq!(other.is_none(), unique);
        if let Some(other) = other {
            prop_assert_ne!(other, grid);
            prop_assert!(is_completion(&puzzle, &other));
        }
        prop_assert_eq!(other_solution(&grid, GRID_FULL), None);
    }
}
