//! The one runner of a search: a bands-1+2 state and its bands 3, the
//! plan's rows mapped onto the bands 3 active in each, and the valid sets
//! of bands 1 and 2 from one cache.
//!
//! A band-3 choice of one grid ([`super::Searcher`]) and a catalogue entry
//! ([`crate::exhaust::Exhauster`]) are the same run with one band 3 or
//! many: [`RunState::prepare`] harvests the UA12 of bands 1+2 once and the
//! GUAs of each band 3 ([`Sharing::Own`]: its own harvest and GUA bits;
//! [`Sharing::ByClass`]: the bands-1+2 parts harvested once per socket
//! signature and the GUA bits shared by socket class), [`RunState::keep`]
//! applies the [`Goal`], and [`RunState::run_row`] searches one row for the
//! bands 3 it names. What differs between the two callers is only where
//! the bands 3 come from and what is done with the puzzles found.
//!
//! [`RunState::prepare`] harvests the UA12 once: they are UAs of every grid
//! of the run (`crate::exhaust`'s module note says why), and the GUAs of each
//! band 3 by its [`Sharing`]: `Own` (its own harvest and GUA bits: one grid)
//! or `ByClass` (bands-1+2 parts harvested once per socket signature, GUA
//! bits kept once per socket class: an entry). Part 1 then runs the XY loop
//! in the matching `Mode` (`OneGrid` or `Shared`), a type parameter, so the
//! loop never tests which. The one-grid search maps the puzzles back to the
//! grid's cells (and may hand rows to idle threads, each with a state of its
//! own); the entry maps them to minlex form.
//!
//! # The goal
//!
//! N lives in the search's `Goal` (`Searcher::with_goal`: the clue total,
//! `--first`, `--non-minimal`), read where the plan is made and where a state
//! is prepared, never in the loops: a row carries its own counts, so the
//! steps, the XY loop and band 3 are the same code for every N, and the 17
//! search's counters do not change. A unique XY ∪ Z of N > 17 clues is kept
//! only when minimal (`solver::is_minimal`: each clue removed, the solver
//! finds a second solution), unless `--non-minimal`; for N ≤ 17 every valid
//! puzzle is minimal (no 16 exists) and nothing is checked. `--first` shares
//! one stop flag among a grid's choices, held by each choice's bands-1+2
//! state (`Bands12::stop_with`): it is set when a band 3 keeps its first
//! puzzle (part 2, `Bands12::part2`), and the rows, X slices and steps stop at
//! it. A band 3 itself only knows that it stops at its first
//! (`Band3State::finished`): in a catalogue entry each band 3 stops on its own
//! and the entry goes on for the others.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::plan::Counts;
use crate::band::{BandCatalogue, BandId, band_uas};
use crate::bits::Mask81;
use crate::grid::Grid;
use crate::tables::BandTables;

use super::band3::Band3State;
use super::harvest::{harvest_guas, spanning_ua12};
use super::part1::Bands12;
use super::signatures::SignatureHarvest;
use super::{BandSets, Goal, GridSets, SearchConfig, Stats, band_digits};

/// How the bands 3 of a run get their GUAs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// Each band 3 harvests its own GUAs and keeps its own GUA bits: the
    /// one-grid search (one band 3).
    Own,
    /// The bands 3 of a catalogue entry: the bands-1+2 parts of the GUAs
    /// harvested once per socket signature, the GUA bits of the mini-row
    /// sockets kept once per socket class ([`Bands12::add_band3`]).
    ByClass,
}

/// A row of the plan and the bands 3 that search it (indices into
/// [`RunState::bands3`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub counts: Counts,
    pub active: Vec<usize>,
}

impl Row {
    /// A row of a grid's choice: its one band 3 is active.
    pub fn single(counts: Counts) -> Row {
        Row {
            counts,
            active: vec![0],
        }
    }
}

/// The valid sets of the bands of a run: the bands 1 and 2 of each choice
/// of a grid (slots 0 to 2: the grid's bands), or of an entry (slots 0 and
/// 1), by size, each built at its first use and shared by the rows and the
/// threads of the run.
pub struct SetCache<'a> {
    catalogue: &'a BandCatalogue,
    ids: Vec<BandId>,
    sets: GridSets,
}

impl<'a> SetCache<'a> {
    /// The cache of the bands `ids` (by slot).
    pub fn new(catalogue: &'a BandCatalogue, ids: Vec<BandId>) -> Self {
        SetCache {
            catalogue,
            ids,
            sets: GridSets::new(),
        }
    }

    /// The valid sets of `size` of band `slot`.
    pub fn get<B: AsRef<[u8]>>(
        &self,
        tables: &BandTables<B>,
        slot: usize,
        size: usize,
    ) -> &BandSets {
        self.sets.get(slot, size, || {
            BandSets::for_band(self.catalogue, tables, &self.ids[slot], size)
        })
    }
}

/// A bands-1+2 state and its bands 3: what a run searches.
pub struct RunState {
    pub bands12: Bands12,
    pub bands3: Vec<Band3State>,
}

impl RunState {
    /// The state of `grids` (search grids: the same bands 1 and 2, each its
    /// own band 3), harvested: the UA12 once (with the first grid: they
    /// are UAs of every grid of the run), the GUAs and band-3 UAs of each
    /// band 3 as `sharing` says. The harvest's wall time goes into the
    /// bands-1+2 counters.
    pub fn prepare(grids: &[Grid], sharing: Sharing, config: SearchConfig) -> RunState {
        let start = Instant::now();
        let limits = config.harvest_limits();
        let first = grids[0];
        let ua12 = spanning_ua12(&first, &limits);
        let mut bands12 = Bands12::new(first, ua12, config);
        let mut bands3 = Vec::with_capacity(grids.len());
        match sharing {
            Sharing::Own => {
                debug_assert_eq!(grids.len(), 1, "own GUA bits: one band 3");
                let band3_uas = band_uas(&band_digits(&first, 2));
                let guas = harvest_guas(&first, &limits);
                tracing::debug!(
                    ua12 = bands12.ua12.len(),
                    guas = guas.len(),
                    band3_uas = band3_uas.len(),
                    "harvest done"
                );
                bands3.push(Band3State::new(first, guas, band3_uas, config));
            }
            Sharing::ByClass => {
                let mut signatures = SignatureHarvest::new(&band_digits(&first, 2));
                for grid in grids {
                    debug_assert_shared_uas(&bands12, grid);
                    let guas = signatures.guas(grid, &limits);
                    let uas = band_uas(&band_digits(grid, 2));
                    let mut state = Band3State::new(*grid, guas, uas, config);
                    bands12.add_band3(&mut state);
                    bands3.push(state);
                }
            }
        }
        bands12.stats.harvest_time = start.elapsed();
        RunState { bands12, bands3 }
    }

    /// Which puzzles to keep, by `goal`: minimal ones only for N > 17
    /// (unless [`Goal::non_minimal`]); with [`Goal::first`], each band 3
    /// stops at its first, and with `stop` (a grid's flag, shared by its
    /// choices) the whole run stops at the first any band 3 keeps.
    pub fn keep(&mut self, goal: &Goal, stop: Option<Arc<AtomicBool>>) {
        if let Some(flag) = stop {
            self.bands12.stop_with(flag);
        }
        for band3 in &mut self.bands3 {
            band3.keep(goal.checks_minimality(), goal.first);
        }
    }

    /// Searches one row for its active bands 3: X of `row.counts.x` clues
    /// from `xsets`, Y of `row.counts.y` from `ysets`; the counters of the
    /// row.
    pub fn run_row(&mut self, row: &Row, xsets: &BandSets, ysets: &BandSets) -> Stats {
        let before = self.stats();
        let counts = row.counts;
        debug_assert_eq!((xsets.size, ysets.size), (counts.x, counts.y));
        self.bands12
            .run_row(&mut self.bands3, &row.active, xsets, ysets, counts.z);
        self.stats().since(&before)
    }

    /// The counters of both halves.
    pub fn stats(&self) -> Stats {
        let mut s = self.bands12.stats;
        for band3 in &self.bands3 {
            s += *band3.stats();
        }
        s
    }

    /// The puzzles found, per band 3 its grid and clue masks (of the search
    /// grid); with `first`, at most one per band 3 (a band 3 may find more
    /// in the step of its first).
    pub fn found(&self, first: bool) -> impl Iterator<Item = (&Grid, Mask81)> + '_ {
        self.bands3.iter().flat_map(move |band3| {
            let found = band3.found();
            let found = if first {
                &found[..found.len().min(1)]
            } else {
                found
            };
            found.iter().map(move |&cells| (band3.grid(), cells))
        })
    }

    /// The one band 3 of a grid's choice.
    pub fn band3(&self) -> &Band3State {
        &self.bands3[0]
    }

    pub fn band3_mut(&mut self) -> &mut Band3State {
        &mut self.bands3[0]
    }
}

/// Debug builds: every shared UA12 is a UA of this band 3's grid too (a
/// filter may only use genuine unavoidable sets: ARCHITECTURE.md, "Why the
/// pipeline is sound"); the fresh ones are checked as they come
/// (`search::part1`).
fn debug_assert_shared_uas(bands12: &Bands12, grid: &Grid) {
    if cfg!(debug_assertions) {
        for &u in &bands12.ua12 {
            super::harvest::debug_assert_ua(grid, u.into());
        }
    }
}
