//! Known 17-clue puzzles grouped by solution grid, and the complete set of
//! 17s they predict for any grid.
//!
//! The known list holds one puzzle per equivalence class in arbitrary
//! orientation. For a grid G, the expected 17s are every known puzzle whose
//! solution is isomorphic to G, mapped onto G by the isomorphism, together
//! with their images under G's automorphisms. Puzzles are stored here on the
//! minlex form of their solution grid, so one lookup serves any orientation.
//!
//! [`KnownSet`] answers "is this 17 in the list?" for a hunter's scan: a
//! 17 is known when its minlex form is the minlex form of a listed puzzle.

use std::collections::HashMap;
use std::path::Path;

use rayon::prelude::*;

use crate::canon::{automorphisms, minlex_grid};
use crate::grid::{Grid, LineError, ParseError, Puzzle, without_bom};
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

/// A list of known 17s, read for telling new 17s from known ones.
///
/// [`KnownSet::contains`] is true exactly when the puzzle's minlex form is
/// the minlex form of a puzzle of the list. It does not compute puzzle
/// minlex forms (about 4,300 a second per core: 11 s of CPU at every start
/// for the 49,158 known 17s): two valid
/// puzzles have the same minlex form exactly when a board symmetry and
/// relabelling maps one onto the other, which then maps solution onto
/// solution; so the puzzle is known exactly when it is among the listed
/// puzzles mapped onto its solution grid by every isomorphism, which is
/// what [`KnownIndex::expected`] lists (grid minlex forms are fast).
#[derive(Clone, Debug, Default)]
pub struct KnownSet {
    index: KnownIndex,
    puzzles: usize,
}

/// Why a known list could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the known list {}", path.display())]
pub struct KnownFileError {
    pub path: std::path::PathBuf,
    #[source]
    pub source: std::io::Error,
}

impl KnownSet {
    /// The set of the checked puzzles of a list.
    pub fn new(puzzles: &[KnownPuzzle]) -> KnownSet {
        KnownSet {
            index: KnownIndex::new(puzzles),
            puzzles: puzzles.len(),
        }
    }

    /// Reads and checks a list file (one puzzle per line; blank and `#`
    /// lines skipped), in parallel: the set of its good puzzles, and the
    /// bad lines with their reasons.
    pub fn read(path: &Path) -> Result<(KnownSet, Vec<(usize, KnownError)>), KnownFileError> {
        let text = std::fs::read(path).map_err(|source| KnownFileError {
            path: path.to_path_buf(),
            source,
        })?;
        let text = String::from_utf8_lossy(without_bom(&text));
        let lines: Vec<(usize, &str)> = text.lines().enumerate().map(|(i, l)| (i + 1, l)).collect();
        let (good, bad) = lines
            .par_chunks(1024)
            .map(|chunk| check_lines(chunk.iter().copied()))
            .reduce(
                || (Vec::new(), Vec::new()),
                |mut a, b| {
                    a.0.extend(b.0);
                    a.1.extend(b.1);
                    a
                },
            );
        Ok((KnownSet::new(&good), bad))
    }

    /// Number of puzzles read into the set.
    pub fn len(&self) -> usize {
        self.puzzles
    }

    /// True for an empty list.
    pub fn is_empty(&self) -> bool {
        self.puzzles == 0
    }

    /// True when `puzzle` (a valid puzzle: one solution) has the minlex form
    /// of a listed puzzle. A puzzle without a unique solution is never in
    /// the set.
    pub fn contains(&self, puzzle: &Puzzle) -> bool {
        let s = solve(puzzle, 2);
        match (s.count, s.first) {
            (1, Some(grid)) => self.contains_on(&grid, puzzle),
            _ => false,
        }
    }

    /// [`Self::contains`] for a puzzle of the grid `grid` (its solution).
    pub fn contains_on(&self, grid: &Grid, puzzle: &Puzzle) -> bool {
        debug_assert!(puzzle.agrees_with(grid));
        self.index.expected(grid).binary_search(puzzle).is_ok()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canon::{Transform, minlex_puzzle};

    /// The first `n` puzzles of data/known17.txt, checked.
    fn known(n: usize) -> Vec<KnownPuzzle> {
        let text = include_str!("../data/known17.txt");
        let (good, bad) = check_lines(text.lines().take(n).enumerate().map(|(i, l)| (i + 1, l)));
        assert!(bad.is_empty());
        good
    }

    #[test]
    fn contains_agrees_with_minlex_forms() {
        // The set holds the first 300 puzzles; the probes are 40 of them
        // and 40 from further down the list, each moved by a random
        // symmetry and relabelling. The oracle: minlex forms.
        let all = known(2000);
        let (inside, outside) = all.split_at(300);
        let set = KnownSet::new(inside);
        assert_eq!(set.len(), 300);
        let forms: std::collections::HashSet<Puzzle> =
            inside.iter().map(|k| minlex_puzzle(&k.puzzle).0).collect();
        let mut rng = fastrand::Rng::with_seed(19);
        let (mut yes, mut no) = (0, 0);
        for k in inside.iter().step_by(7).chain(outside.iter().step_by(42)) {
            let t = Transform::random(&mut rng);
            let (puzzle, grid) = (t.apply_puzzle(&k.puzzle), t.apply_grid(&k.solution));
            let expected = forms.contains(&minlex_puzzle(&puzzle).0);
            assert_eq!(set.contains(&puzzle), expected, "{puzzle}");
            assert_eq!(set.contains_on(&grid, &puzzle), expected, "{puzzle}");
            if expected { yes += 1 } else { no += 1 }
        }
        assert!(yes >= 40 && no >= 30, "{yes} known, {no} new probes");
        // A puzzle that is not a valid 17 is never known.
        let sixteen = Puzzle::from_grid(
            &inside[0].solution,
            inside[0].puzzle.clue_mask() & (inside[0].puzzle.clue_mask() - 1),
        );
        assert!(!set.contains(&sixteen));
    }
}
