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
