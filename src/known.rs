//! Known 17-clue puzzles grouped by solution grid, and the complete set of
//! 17s they predict for any grid.
//!
//! The known list holds one puzzle per equivalence class in arbitrary
//! orientation. For a grid G, the expected 17s are every known puzzle whose
//! solution is isomorphic to G, mapped onto G by the isomorphism, together
//! with their images under G's automorphisms. Puzzles are stored here on the
//! minlex form of their solution grid, so one lookup serves any orientation.

use std::collections::HashMap;

use crate::canon::{automorphisms, minlex_grid};
use crate::grid::{Grid, LineError, ParseError, Puzzle};
use crate::solver::solve;

/// Why a line of a known-17 list is not a valid 17.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KnownError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error("{0} clues, expected 17")]
    Clues(usize),
    #[error("no solution")]
    NoSolution,
    #[error("more than one solution")]
    NotUnique,
}

/// One checked puzzle of the list.
#[derive(Clone, Debug)]
pub struct KnownPuzzle {
    /// 1-based line number in the source.
    pub line: usize,
    pub puzzle: Puzzle,
    pub solution: Grid,
}

/// Checks one line: 81 cells, 17 clues, exactly one solution.
pub fn check_line(text: &str) -> Result<(Puzzle, Grid), KnownError> {
    let puzzle = Puzzle::parse(text)?;
    let clues = puzzle.clue_count();
    if clues != 17 {
        return Err(KnownError::Clues(clues));
    }
    let s = solve(&puzzle, 2);
    match (s.count, s.first) {
        (1, Some(grid)) => Ok((puzzle, grid)),
        (0, _) => Err(KnownError::NoSolution),
        _ => Err(KnownError::NotUnique),
    }
}

/// Parses and checks numbered lines (blank and `#` lines skipped): the good
/// puzzles, and an error per bad line.
pub fn check_lines<'a>(
    lines: impl IntoIterator<Item = (usize, &'a str)>,
) -> (Vec<KnownPuzzle>, Vec<(usize, KnownError)>) {
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for (line, text) in lines {
        let t = text.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        match check_line(t) {
            Ok((puzzle, solution)) => good.push(KnownPuzzle {
                line,
                puzzle,
                solution,
            }),
            Err(e) => bad.push((line, e)),
        }
    }
    (good, bad)
}

/// Known puzzles indexed by the minlex form of their solution grid.
#[derive(Clone, Debug, Default)]
pub struct KnownIndex {
    by_grid: HashMap<Grid, Vec<Puzzle>>,
}

impl KnownIndex {
    /// Indexes puzzles (with their solutions).
    pub fn new(puzzles: &[KnownPuzzle]) -> KnownIndex {
        let mut by_grid: HashMap<Grid, Vec<Puzzle>> = HashMap::new();
        for k in puzzles {
            let (canon, t) = minlex_grid(&k.solution);
            by_grid
                .entry(canon)
                .or_default()
                .push(t.apply_puzzle(&k.puzzle));
        }
        KnownIndex { by_grid }
    }

    /// Number of distinct solution grids.
    pub fn grids(&self) -> usize {
        self.by_grid.len()
    }

    /// The canonical grids and the known puzzles on each, in a stable order.
    pub fn entries(&self) -> Vec<(&Grid, &[Puzzle])> {
        let mut v: Vec<_> = self
            .by_grid
            .iter()
            .map(|(g, p)| (g, p.as_slice()))
            .collect();
        v.sort_by_key(|(g, _)| **g);
        v
    }

    /// Every 17 of `grid` the known list predicts, sorted, no duplicates.
    pub fn expected(&self, grid: &Grid) -> Vec<Puzzle> {
        let (canon, t) = minlex_grid(grid);
        let Some(known) = self.by_grid.get(&canon) else {
            return Vec::new();
        };
        let back = t.inverse();
        let autos = automorphisms(grid);
        let mut out = Vec::new();
        for p in known {
            let on_grid = back.apply_puzzle(p);
            debug_assert!(on_grid.agrees_with(grid));
            for a in &autos {
                out.push(a.apply_puzzle(&on_grid));
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

/// Turns a `LineError`-style report into text.
pub fn describe(line: usize, err: &KnownError) -> String {
    match err {
        KnownError::Parse(p) => LineError {
            line,
            error: p.clone(),
        }
        .to_string(),
        other => format!("line {line}: {other}"),
    }
}
