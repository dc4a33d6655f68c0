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
