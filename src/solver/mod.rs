//! Sudoku solvers.
//!
//! `reference` is a plain backtracking oracle for tests. The functions at
//! this level are the API the rest of the program uses.

pub mod reference;

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
    let (count, mut found) = reference::solutions(puzzle, limit.max(1), 2);
    let second = if found.len() > 1 { found.pop() } else { None };
    let first = found.pop();
    Solutions {
        count,
        first,
        second,
    }
}

/// Counts solutions up to `limit`.
pub fn count_solutions(puzzle: &Puzzle, limit: usize) -> usize {
    reference::solutions(puzzle, limit.max(1), 0).0
}

/// Calls `f` on each solution (up to `limit`) until it returns false;
/// returns how many were visited.
pub fn for_each_solution(puzzle: &Puzzle, limit: usize, mut f: impl FnMut(&Grid) -> bool) -> usize {
    let (_, found) = reference::solutions(puzzle, limit, limit);
    let mut n = 0;
    for g in &found {
        n += 1;
        if !f(g) {
            break;
        }
    }
    n
}

/// A solution of the clues `clues` of `grid` other than `grid`, if any.
pub fn other_solution(grid: &Grid, clues: crate::bits::Mask81) -> Option<Grid> {
    let (_, found) = reference::solutions(&Puzzle::from_grid(grid, clues), 2, 2);
    found.into_iter().find(|g| g != grid)
}
