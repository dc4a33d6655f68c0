//! The lowest clue count of a grid: the fewest clues of any puzzle whose
//! unique solution is the grid (such a puzzle is always minimal), with one
//! puzzle of that count as its witness.
//!
//! No 16-clue sudoku exists (McGuire, Tugemann and Civario, 2012), so 17
//! is the floor. The searches run in the cheapest order, each asked only
//! when the ones before found nothing:
//!
//! 1. every 17 (the complete 17 search): a 17 found is the witness (the
//!    first in sorted order), none found proves the grid has no 17;
//! 2. then for N = 18, 19, ... up to the last count the search takes
//!    ([`plan::CLUE_RANGE`], 19 today): the search for minimal N-clue
//!    puzzles stopped at its first ([`Goal::first`]), the same search as
//!    `s17 search --clues N --first`. A puzzle found is the witness;
//!    nothing found is a complete search, so a proof that the grid has no
//!    N (and, a puzzle of the lowest count being minimal, none of N
//!    clues at all).
//!
//! A grid with no puzzle up to the last count has its lowest count above
//! it, unsettled here ([`Lowest::clues`] is `None`).
//!
//! The first-18 search of a grid without a 17 repeats a 17 search stopped
//! at its first (its "first look", `search::look`), about 0.3 s; kept so
//! that the answer is exactly that of `search --clues 18 --first`.

use std::ops::RangeInclusive;
use std::time::Duration;

use crate::band::BandCatalogue;
use crate::grid::{Grid, Puzzle};
use crate::search::plan;
use crate::search::{Goal, SearchConfig, Searcher, Stats};
use crate::tables::{BandTables, TableError};

/// The clue counts `lowest` searches, in order: 17 up to the last count
/// the search takes.
pub const COUNTS: RangeInclusive<usize> = plan::CLUES..=*plan::CLUE_RANGE.end();

/// How a grid's lowest count was settled.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lowest {
    /// A puzzle of the lowest count (its clue count), or `None` when no
    /// count of [`COUNTS`] has one.
    pub witness: Option<Puzzle>,
    /// The 17s the complete 17 search found (the witness is the first).
    pub seventeens: usize,
    /// CPU time of all the grid's searches.
    pub cpu_time: Duration,
    /// Stage counters of all the grid's searches.
    pub stats: Stats,
}

impl Lowest {
    /// The lowest clue count, if settled.
    pub fn clues(&self) -> Option<usize> {
        self.witness.map(|p| p.clue_count())
    }

    /// The counts proven to have no puzzle by a complete search: from 17
    /// up to below the lowest count, or every count of [`COUNTS`] when
    /// none was found.
    pub fn proven_none(&self) -> RangeInclusive<usize> {
        match self.clues() {
            #[allow(clippy::reversed_empty_ranges)]
            Some(n) => plan::CLUES..=n - 1,
            None => COUNTS,
        }
    }

    /// How the count was settled, in words: `17 witness (one of 29 found
    /// by the complete 17 search)`, `18 witness (first found); no 17
    /// (complete search)`, `no 17, 18 or 19 (complete searches); 20 and
    /// up not searched`.
    pub fn describe(&self) -> String {
        let none: Vec<String> = self.proven_none().map(|n| n.to_string()).collect();
        let none = match none.as_slice() {
            [] => String::new(),
            [one] => format!("no {one} (complete search)"),
            [head @ .., last] => format!("no {} or {last} (complete searches)", head.join(", ")),
        };
        match self.clues() {
            Some(17) => format!(
                "17 witness (one of {} found by the complete 17 search)",
                self.seventeens
            ),
            Some(n) => format!("{n} witness (first found); {none}"),
            None => format!("{none}; {} and up not searched", COUNTS.end() + 1),
        }
    }

    /// The count column of the output: the count, or `>N` when no count
    /// up to N has a puzzle.
    pub fn count_text(&self) -> String {
        match self.clues() {
            Some(n) => n.to_string(),
            None => format!(">{}", COUNTS.end()),
        }
    }
}

/// The searches of [`Lowest`], one per count of [`COUNTS`], sharing one
/// catalogue, one set of tables and one config.
pub struct LowestSearch<'a, B: AsRef<[u8]>> {
    searchers: Vec<Searcher<'a, B>>,
}

impl<'a, B: AsRef<[u8]> + Sync> LowestSearch<'a, B> {
    pub fn new(
        catalogue: &'a BandCatalogue,
        tables: &'a BandTables<B>,
        config: SearchConfig,
    ) -> Self {
        let searchers = COUNTS
            .map(|clues| {
                let goal = if clues > plan::CLUES {
                    Goal::first_of(clues)
                } else {
                    Goal::all(clues)
                };
                Searcher::new(catalogue, tables, config).with_goal(goal)
            })
            .collect();
        LowestSearch { searchers }
    }

    /// Lets idle threads take rows of a choice once `grids` grids have
    /// started the 17 search (see [`Searcher::with_split_rows_after`]);
    /// the later searches split their rows only for a lone grid.
    pub fn with_split_rows_after(self, grids: usize) -> Self {
        let searchers = self
            .searchers
            .into_iter()
            .enumerate()
            .map(|(i, s)| match (i, grids) {
                (0, _) => s.with_split_rows_after(grids),
                (_, 0 | 1) => s.with_split_rows(true),
                _ => s,
            })
            .collect();
        LowestSearch { searchers }
    }

    /// The lowest count of `grid` and its witness (see the module note).
    /// An error only if the band tables are corrupt.
    pub fn lowest(&self, grid: &Grid) -> Result<Lowest, TableError> {
        let mut lowest = Lowest::default();
        for searcher in &self.searchers {
            let result = searcher.search(grid)?;
            lowest.cpu_time += result.cpu_time;
            lowest.stats += result.total();
            if searcher.goal().seeks_17s() {
                lowest.seventeens = result.puzzles.len();
            }
            if let Some(p) = result.puzzles.first() {
                lowest.witness = Some(*p);
                break;
            }
        }
        Ok(lowest)
    }
}
