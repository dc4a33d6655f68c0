//! Where a grid's ED class, or a 17, is visited: `s17 enumerate --which`.

use super::fill::for_each_band2;
use super::{Ed, Visit};
use crate::band::Band;
use crate::grid::{Grid, Puzzle};
use crate::search::clue_range_text;
use crate::search::plan::{CLUE_RANGE, band3_for};

/// Why a line cannot be placed in the catalogue.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WhichError {
    #[error("a puzzle must have {range} clues to be placed (it has {0})", range = clue_range_text())]
    WrongClueCount(usize),
    #[error("the puzzle has no solution")]
    NoSolution,
    #[error("the puzzle has more than one solution")]
    NotUnique,
}

impl Ed {
    /// The visit that finds this puzzle (a 17, or with `exhaust --clues N`
    /// a puzzle of N clues): its solution grid's visit for the band-3
    /// choice that the puzzle's clue counts fall in, as the bands are
    /// labelled by the canonical hi-form (the rule of `plan::band3_for`
    /// holds for every N).
    pub fn which_puzzle(&self, puzzle: &Puzzle) -> Result<(Grid, Visit), WhichError> {
        let clues = puzzle.clue_count();
        if !CLUE_RANGE.contains(&clues) {
            return Err(WhichError::WrongClueCount(clues));
        }
        let solutions = crate::solver::solve(puzzle, 2);
        let grid = match (solutions.count, solutions.first) {
            (1, Some(grid)) => grid,
            (0, _) => return Err(WhichError::NoSolution),
            _ => return Err(WhichError::NotUnique),
        };
        let hi = self.hi_form(grid.digits());
        let mut cells = *puzzle.digits();
        if hi.transposed {
            cells = *puzzle.transposed().digits();
        }
        let count = |band: usize| {
            cells[27 * band..27 * band + 27]
                .iter()
                .filter(|&&d| d != 0)
                .count()
        };
        let counts = hi.roles.map(count);
        let choice = band3_for(counts);
        let visit = *self
            .visits_of(&hi)
            .iter()
            .find(|v| v.choice == choice)
            .expect("three visits");
        Ok((grid, visit))
    }

    /// The entry numbers of several bands 2 of slice `k` (`None` for a band
    /// that is no entry of the slice), in one walk of the slice.
    pub fn entry_numbers(&self, k: usize, bands2: &[Band]) -> Vec<Option<u64>> {
        let mut order: Vec<usize> = (0..bands2.len()).collect();
        order.sort_by_key(|&i| bands2[i]);
        let mut out = vec![None; bands2.len()];
        let mut next = 0;
        let mut number = 0u64;
        for_each_band2(self.catalogue.band(k), |b2| {
            while next < order.len() && bands2[order[next]] < *b2 {
                next += 1;
            }
            let is_entry = self.entry_class(k, b2).is_some();
            while next < order.len() && bands2[order[next]] == *b2 {
                if is_entry {
                    out[order[next]] = Some(number);
                }
                next += 1;
            }
            number += is_entry as u64;
            next < order.len()
        });
        out
    }
}
