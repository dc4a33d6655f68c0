//! Sudoku solvers.
//!
//! `fast` is the bitboard solver the search uses; `reference` is a plain
//! backtracking oracle for tests. The functions at this level are the API
//! the rest of the program uses.

mod band_tables;
mod fast;
pub mod reference;

use crate::bits::Mask81;
use crate::grid::{Grid, Puzzle};

/// The outcome of a bounded solve: how many solutions were found (at most
/// the limit) and the first two of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solutions {
    pub count: usize,
    pub first: Option<Grid>,
    pub second: Option<Grid>,
}

/// Counts the solutions of `puzzle` up to `limit` (>= 1) and keeps the
/// first two.
pub fn solve(puzzle: &Puzzle, limit: usize) -> Solutions {
    fast::solve(puzzle, limit)
}

/// The number of solutions of `puzzle`, counting up to `limit` (>= 1).
/// `count_solutions(p, 2) == 1` is the uniqueness check.
pub fn count_solutions(puzzle: &Puzzle, limit: usize) -> usize {
    fast::count_solutions(puzzle, limit)
}

/// Calls `f` with each solution of `puzzle`, in search order, until
/// `limit` (>= 1) solutions were visited or `f` returns false; returns the
/// number of solutions visited.
pub fn for_each_solution(puzzle: &Puzzle, limit: usize, f: impl FnMut(&Grid) -> bool) -> usize {
    fast::for_each_solution(puzzle, limit, f)
}

/// The clues are the cells `clues` of `grid`, which must be a valid grid
/// (so it solves them): returns a solution other than `grid` if there is
/// one. `None` means the clues form a valid puzzle of `grid`.
pub fn other_solution(grid: &Grid, clues: Mask81) -> Option<Grid> {
    fast::other_solution(grid, clues)
}

/// Whether the clues `clues` of `grid`, a valid puzzle of it, form a
/// minimal one: removing any one clue leaves more than one solution.
pub fn is_minimal(grid: &Grid, clues: Mask81) -> bool {
    debug_assert!(other_solution(grid, clues).is_none(), "a valid puzzle");
    let mut rest = clues;
    while rest != 0 {
        let clue = rest & rest.wrapping_neg();
        rest ^= clue;
        if other_solution(grid, clues & !clue).is_none() {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Minimal by brute force with the reference solver: one solution, and
    /// more than one with any clue removed.
    fn minimal_by_reference(puzzle: &Puzzle) -> bool {
        let count = |p: &Puzzle| reference::solutions(p, 2, 0).0;
        assert_eq!(count(puzzle), 1);
        (0..81).filter(|&c| puzzle.digit(c) != 0).all(|c| {
            let mut digits = *puzzle.digits();
            digits[c] = 0;
            count(&Puzzle::from_digits(digits)) > 1
        })
    }

    #[test]
    fn is_minimal_agrees_with_the_reference_solver() {
        // Known 17s (minimal), each plus one cell (not minimal), and sets
        // two moves away (a clue removed, two cells added) that are valid:
        // some minimal 18s, some not.
        let root = env!("CARGO_MANIFEST_DIR");
        let text = std::fs::read_to_string(format!("{root}/data/known17.txt")).unwrap();
        let mut rng = fastrand::Rng::with_seed(36);
        let (mut minimal, mut not) = (0, 0);
        for line in text.lines().step_by(4999).take(10) {
            let p17 = Puzzle::parse(line).unwrap();
            let grid = solve(&p17, 2).first.unwrap();
            let clues = p17.clue_mask();
            let empty: Vec<usize> = (0..81).filter(|&c| clues >> c & 1 == 0).collect();
            let given: Vec<usize> = (0..81).filter(|&c| clues >> c & 1 != 0).collect();
            let mut cases = vec![clues, clues | 1 << empty[rng.usize(..empty.len())]];
            for _ in 0..200 {
                let (a, b) = (rng.usize(..empty.len()), rng.usize(..empty.len()));
                let set =
                    clues & !(1 << given[rng.usize(..given.len())]) | 1 << empty[a] | 1 << empty[b];
                if a != b && other_solution(&grid, set).is_none() {
                    cases.push(set);
                }
            }
            for set in cases {
                let want = minimal_by_reference(&Puzzle::from_grid(&grid, set));
                assert_eq!(
                    is_minimal(&grid, set),
                    want,
                    "{}",
                    Puzzle::from_grid(&grid, set)
                );
                if want { minimal += 1 } else { not += 1 }
            }
        }
        assert!(minimal >= 10 && not >= 10, "{minimal} minimal, {not} not");
    }
}
