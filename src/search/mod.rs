//! The complete 17-clue search of one grid (ARCHITECTURE.md: the stages,
//! why the pipeline is sound, the search plan).
//!
//! For each of the three band-3 choices of the [`plan`], the grid's bands
//! are reordered into a *search grid* whose band 3 is rows 6..9; the
//! [`harvest`] collects its unavoidable sets; [`part1`] runs the 2X2Y loop
//! over the valid clue sets of bands 1 and 2 and checks each surviving XY
//! with the bands-1+2 solver; [`band3`] completes each valid XY in band 3
//! and runs the final uniqueness check. Every 17 of the grid is found by
//! exactly one (choice, row): results need no de-duplication.
//!
//! # Threads and time
//!
//! The three band-3 choices of a grid run side by side on idle threads
//! (rayon). Once no grid waits (a lone grid, or the last grids of a `search`,
//! `scan` or `validate`), an idle thread may also take rows of a choice, on a
//! state of its own (its own harvest; it lacks the fresh UAs of the rows it
//! did not search): every state holds genuine UAs of the grid only, so any
//! state may search any row (`Searcher::with_split_rows_after`, told the
//! number of grids of the run; a choice already running hands on its rows
//! from its next row). While grids wait the split stays off: the threads have
//! other grids to search, and a stolen half of a row list only costs. A
//! grid's time (`GridResult::cpu_time`, what `scan`, `validate` and `tune`
//! report) is the thread CPU time of its planning and of each row with its
//! state's harvest, summed over the threads that ran them: a wall time would
//! count a loaded machine, a paused run or, around a `rayon::join`, another
//! grid's work. (`exhaust` times each entry by its thread's CPU time too: an
//! entry runs on one thread.) Stage counters ([`Stats`]) are kept per worker,
//! merged with `+=`, and printed by `--stats` and the scan summary;
//! `GridResult::by_row` has the counters of each row.
//!
//! This file sits at both ends of the order of the search's files
//! (ARCHITECTURE.md, "Invariants"): its `Stats` and the re-exports of
//! `options` sit below the two halves, its driver on top of them; `shared`
//! takes the socket classes from `signatures`, not from band 3. To see the
//! uses: `grep -rn 'use crate::search\|use super::' src/search`.

pub mod band3;
pub mod goal;
pub mod harvest;
pub mod hitting;
pub mod look;
pub mod options;
pub mod part1;
pub mod plan;
pub mod runner;
mod sets;
pub mod shared;
pub mod signatures;

use std::ops::AddAssign;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::band::{BandCatalogue, BandId};
use crate::bits::{Mask81, cells};
use crate::grid::{Grid, Puzzle};

use crate::tables::{BandTables, TableError};

pub use goal::{Goal, GoalError, clue_range_text};
pub use harvest::Gua;
pub use options::{ConfigError, SearchConfig, TUNING_OPTIONS, TuningOption};
pub use plan::{Choice, Counts, Rank};
pub use runner::{Row, RunState, SetCache, Sharing};
pub use sets::{BandSets, GridSets};

/// Defines [`Stats`] from one list of its counters, each with the name it
/// is printed under (`s17 search --stats`, `s17 exhaust --stats`): the
/// struct's fields, [`Stats::COUNTERS`] (the printed ones, in order) and
/// `combine`. Adding a counter is one line here. The `unprinted` ones are
/// merged like the others but left out of [`Stats::COUNTERS`] (the CLI
/// prints `non_minimal` on its own).
macro_rules! stage_counters {
    (
        printed { $( $(#[$doc:meta])* $field:ident => $name:literal, )* }
        unprinted { $( $(#[$udoc:meta])* $ufield:ident, )* }
    ) => {
        /// Stage counters of a search, merged with `+=`.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct Stats {
            $(
                $(#[$doc])*
                #[doc = concat!("\n\nPrinted as `", $name, "`.")]
                pub $field: u64,
            )*
            $( $(#[$udoc])* pub $ufield: u64, )*
            /// Time in the harvest.
            pub harvest_time: Duration,
            /// Time in the whole search (wall).
            pub total_time: Duration,
            /// CPU time of the harvest and the rows, summed over the threads that
            /// ran them ([`ThreadClock`]): unlike the wall times, not inflated by a
            /// loaded machine or a paused process.
            pub cpu_time: Duration,
        }

        impl Stats {
            /// The printed stage counters in the order they are printed:
            /// (printed name, the counter).
            pub const COUNTERS: &[(&str, fn(&Stats) -> u64)] =
                &[ $( ($name, |s: &Stats| s.$field), )* ];

            /// Each counter and time of `self` combined with its twin in `o`.
            fn combine(
                &mut self,
                o: &Stats,
                count: fn(u64, u64) -> u64,
                time: fn(Duration, Duration) -> Duration,
            ) {
                $( self.$field = count(self.$field, o.$field); )*
                $( self.$ufield = count(self.$ufield, o.$ufield); )*
                for (mine, theirs) in [
                    (&mut self.harvest_time, o.harvest_time),
                    (&mut self.total_time, o.total_time),
                    (&mut self.cpu_time, o.cpu_time),
                ] {
                    *mine = time(*mine, theirs);
                }
            }
        }
    };
}

stage_counters! {
    printed {
        /// UA12 harvested (minimal, inside bands 1+2, spanning both bands).
        ua12 => "ua12",
        /// GUAs harvested (including band-3 UAs).
        guas => "guas",
        /// 2X2Y steps (pairs of slices) visited.
        steps => "steps",
        /// Steps skipped because a UA became empty.
        dead_steps => "dead",
        /// XY pairs tested in the inner loop.
        xy_tested => "xy",
        /// XY pairs that hit every kept UA.
        survivors => "survivors",
        /// Survivors killed because band 3 cannot hit the open sockets (the
        /// GUAs with bits in the step).
        band3_dead => "band3_dead",
        /// Survivors killed by a UA beyond the step's bit vectors.
        extra_dead => "extra_dead",
        /// Survivors killed because band 3 cannot hit the band-3 parts of all
        /// the GUAs they miss (the whole GUA list).
        gua_dead => "gua_dead",
        /// Survivors that also passed the extra UAs and went to the solver.
        bands12_checks => "b12checks",
        /// XY valid for bands 1+2.
        valid_xy => "valid_xy",
        /// Fresh UA12 found by failed bands-1+2 checks.
        fresh_ua12 => "fresh_ua12",
        /// Band-3 clue sets that hit every required set.
        band3_candidates => "band3",
        /// Full uniqueness checks.
        final_checks => "final",
        /// Fresh UAs found by failed final checks.
        fresh_uas => "fresh_ua",
        /// Fresh GUAs handed to the other bands 3 of a catalogue entry
        /// (`s17 exhaust`).
        shared_guas => "shared_gua",
        /// Puzzles found (kept: minimal ones, or every valid one with
        /// [`Goal::non_minimal`]).
        found => "found",
    }
    unprinted {
        /// Valid puzzles dropped because a clue can be removed (N > 17);
        /// printed as `non_minimal` on the per-row lines of `search --stats`.
        non_minimal,
    }
}

impl Stats {
    /// The counts and times since `before` (an earlier reading of the same
    /// counters).
    pub fn since(&self, before: &Stats) -> Stats {
        let mut d = *self;
        d.combine(before, u64::saturating_sub, Duration::saturating_sub);
        d
    }
}

impl AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.combine(&o, |a, b| a + b, |a, b| a + b);
    }
}

/// The result of searching one grid.
#[derive(Clone, Debug, Default)]
pub struct GridResult {
    /// Every puzzle of the grid the [`Goal`] asks for, sorted (with
    /// [`Goal::first`], at most one).
    pub puzzles: Vec<Puzzle>,
    /// Counters per band-3 choice, in plan order (hi, mid, lo).
    pub by_choice: Vec<(Rank, Stats)>,
    /// Counters per row searched, in plan order (choices hi, mid, lo, each
    /// in its search order); a state's harvest counts with the first row
    /// it ran.
    pub by_row: Vec<(Rank, Counts, Stats)>,
    /// Whether the transposed grid was searched (the cheaper orientation).
    pub transposed: bool,
    /// With the first look ([`look`]; `search --clues 18 --first`): the 17
    /// search before it, the look's time, and whether it found the puzzle
    /// (then `by_choice` and `by_row` are empty).
    pub first_look: Option<FirstLook>,
    /// CPU time of the whole search: the planning and every choice's
    /// [`Stats::cpu_time`].
    pub cpu_time: Duration,
}

/// This thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`) since the clock
/// started; where the platform has no thread clock, the wall time.
///
/// A piece of work timed with it must not wait on rayon (`join`, a parallel
/// iterator): while waiting, the thread may run another grid's work.
pub struct ThreadClock {
    cpu: Option<cpu_time::ThreadTime>,
    wall: Instant,
}

impl ThreadClock {
    pub fn start() -> Self {
        ThreadClock {
            cpu: cpu_time::ThreadTime::try_now().ok(),
            wall: Instant::now(),
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.cpu
            .as_ref()
            .and_then(|t| t.try_elapsed().ok())
            .unwrap_or_else(|| self.wall.elapsed())
    }
}

/// The first look of a search ([`GridResult::first_look`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct FirstLook {
    /// The 17 search stopped at its first 17 (all choices together).
    pub seventeen: Stats,
    /// The thread CPU time of the look around that 17, if there was one.
    pub looked: Duration,
    /// Whether the look found the puzzle.
    pub found: bool,
}

impl GridResult {
    /// Counters of all choices together, with the first look's 17 search
    /// and the look's time.
    pub fn total(&self) -> Stats {
        let mut s = Stats::default();
        for (_, c) in &self.by_choice {
            s += *c;
        }
        if let Some(look) = &self.first_look {
            s += look.seventeen;
            s.cpu_time += look.looked;
            s.total_time += look.looked;
        }
        s
    }
}

/// Searches grids with one catalogue, one set of tables and one config.
pub struct Searcher<'a, B: AsRef<[u8]>> {
    catalogue: &'a BandCatalogue,
    tables: &'a BandTables<B>,
    config: SearchConfig,
    goal: Goal,
    /// The rows of a choice may run on idle threads once this many grids
    /// have started (`usize::MAX`: never), counted in `started`.
    split_after: usize,
    started: AtomicUsize,
}

/// The grid with its bands reordered: row r of the search grid is row
/// `3 * bands[r / 3] + r % 3` of the original.
fn reorder_bands(grid: &Grid, bands: [usize; 3]) -> Grid {
    let mut cells = [0u8; 81];
    for (cell, out) in cells.iter_mut().enumerate() {
        *out = grid.digit(original_cell(cell, bands));
    }
    Grid::from_digits_unchecked(cells)
}

/// Where a cell of the search grid lies in the original grid.
fn original_cell(cell: usize, bands: [usize; 3]) -> usize {
    bands[cell / 27] * 27 + cell % 27
}

/// The 27 digits of band `b` of a grid.
pub fn band_digits(grid: &Grid, b: usize) -> [u8; 27] {
    let mut band = [0u8; 27];
    band.copy_from_slice(&grid.digits()[27 * b..27 * b + 27]);
    band
}

impl<'a, B: AsRef<[u8]> + Sync> Searcher<'a, B> {
    pub fn new(
        catalogue: &'a BandCatalogue,
        tables: &'a BandTables<B>,
        config: SearchConfig,
    ) -> Self {
        Searcher {
            catalogue,
            tables,
            config,
            goal: Goal::default(),
            split_after: usize::MAX,
            started: AtomicUsize::new(0),
        }
    }

    /// Lets an idle thread of the pool take rows of a band-3 choice, with a
    /// state of its own (its own harvest; it lacks the fresh UAs of the
    /// rows before): for a lone grid, so that a slow choice does not leave
    /// a core idle. Off by default: when other grids wait, as in a scan,
    /// the threads have better work and the split only costs (measured in
    /// benches/HISTORY.md).
    pub fn with_split_rows(self, on: bool) -> Self {
        self.with_split_rows_after(if on { 0 } else { usize::MAX })
    }

    /// [`Self::with_split_rows`] from the moment the `grids`-th grid
    /// starts: given the number of grids of a run, the rows split only
    /// once no grid waits (the end of a scan, or a lone grid), so the
    /// threads that run out of grids help the searches still running.
    /// A choice already searching hands on its rows from its next row on.
    pub fn with_split_rows_after(mut self, grids: usize) -> Self {
        self.split_after = grids;
        self
    }

    /// Searches for `goal` (default: every 17).
    pub fn with_goal(mut self, goal: Goal) -> Self {
        debug_assert!(plan::CLUE_RANGE.contains(&goal.clues));
        self.goal = goal;
        self
    }

    pub fn goal(&self) -> Goal {
        self.goal
    }

    /// Whether the rows of a choice may go to idle threads now.
    fn split_now(&self) -> bool {
        self.started.load(Ordering::Relaxed) >= self.split_after
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// The catalogue identity of each band of `grid` and its search plan.
    /// This is where a search first reads each band's tables, so a corrupt
    /// band section is refused here ([`BandTables::try_band`]), before the
    /// search relies on it.
    fn plan_of(&self, grid: &Grid) -> Result<(Vec<BandId>, Vec<Choice>), TableError> {
        let ids: Vec<_> = (0..3)
            .map(|b| self.catalogue.identify(&band_digits(grid, b)))
            .collect();
        let mut cost = [0; 3];
        let mut min_size = [0; 3];
        for b in 0..3 {
            let table = self.tables.try_band(ids[b].index)?;
            cost[b] = table.sets(6).len() as u64;
            min_size[b] = table.min_size();
        }
        Ok((ids, plan::plan_for(cost, min_size, self.goal.clues)))
    }

    /// A cost estimate of searching `grid` as given: over every row of its
    /// plan, the product of the numbers of valid X and Y sets (sizes up to
    /// 6; rows with a larger size have tiny partners and are left out).
    pub fn estimate(&self, grid: &Grid) -> Result<u64, TableError> {
        let (ids, plan) = self.plan_of(grid)?;
        Ok(self.estimate_plan(&ids, &plan))
    }

    /// [`Self::estimate`] from the band identities and plan.
    fn estimate_plan(&self, ids: &[BandId], plan: &[Choice]) -> u64 {
        let count = |b: usize, size: usize| -> u64 {
            if size > 6 {
                0
            } else {
                self.tables.band(ids[b].index).sets(size).len() as u64
            }
        };
        plan.iter()
            .flat_map(|c| {
                c.rows
                    .iter()
                    .map(move |r| count(c.bands[0], r.x) * count(c.bands[1], r.y))
            })
            .sum()
    }

    /// Every puzzle of the [`Goal`] (default: every 17-clue puzzle) whose
    /// unique solution is `grid`.
    ///
    /// The grid is searched as given or transposed, whichever has the
    /// smaller [`Self::estimate`]: both orientations find every puzzle (a
    /// puzzle's transpose is a puzzle of the transposed grid), and on random
    /// grids the smaller estimate was the faster search in 11 cases of 11.
    ///
    /// An error only if the tables of one of the grid's bands (as given or
    /// transposed) are corrupt: then nothing is searched.
    pub fn search(&self, grid: &Grid) -> Result<GridResult, TableError> {
        if self.goal.takes_first_look() {
            return self.search_with_first_look(grid);
        }
        self.search_full(grid)
    }

    /// The first 18 of `grid`: when the grid holds a 17 (a 17 search
    /// stopped at its first), the look around it ([`look`]; with
    /// [`Goal::non_minimal`], the 17 plus its first empty cell), and when
    /// that does not settle it, the full 18 search. The result's counters
    /// and CPU time include the 17 search.
    fn search_with_first_look(&self, grid: &Grid) -> Result<GridResult, TableError> {
        let seventeen = Searcher {
            catalogue: self.catalogue,
            tables: self.tables,
            config: self.config,
            goal: Goal::first_look(),
            split_after: if self.split_now() { 0 } else { usize::MAX },
            started: AtomicUsize::new(0),
        };
        let pre = seventeen.search_full(grid)?;
        let clock = ThreadClock::start();
        let near = pre
            .puzzles
            .first()
            .and_then(|p| match self.goal.non_minimal {
                true => Some(look::plus_one(p.clue_mask())),
                false => look::minimal_18_near(grid, p.clue_mask()),
            });
        let looked = clock.elapsed();
        tracing::debug!(
            seventeen = pre.puzzles.len(),
            found = near.is_some(),
            ?looked,
            "first look"
        );
        let first_look = Some(FirstLook {
            seventeen: pre.total(),
            looked,
            found: near.is_some(),
        });
        let before = pre.cpu_time + looked;
        if let Some(clues) = near {
            return Ok(GridResult {
                puzzles: vec![Puzzle::from_grid(grid, clues)],
                transposed: false,
                cpu_time: before,
                first_look,
                ..GridResult::default()
            });
        }
        let mut result = self.search_full(grid)?;
        result.cpu_time += before;
        result.first_look = first_look;
        Ok(result)
    }

    /// [`Self::search`] without the first look.
    fn search_full(&self, grid: &Grid) -> Result<GridResult, TableError> {
        let clock = ThreadClock::start();
        let transposed = grid.transposed();
        let (ids, plan) = self.plan_of(grid)?;
        let (t_ids, t_plan) = self.plan_of(&transposed)?;
        let transpose = self.estimate_plan(&t_ids, &t_plan) < self.estimate_plan(&ids, &plan);
        let planning = clock.elapsed();
        if transpose {
            let mut result = self.search_planned(&transposed, &t_ids, t_plan, planning);
            for p in &mut result.puzzles {
                *p = p.transposed();
            }
            result.puzzles.sort();
            result.transposed = true;
            return Ok(result);
        }
        Ok(self.search_planned(grid, &ids, plan, planning))
    }

    /// [`Self::search`] in the grid's own orientation.
    pub fn search_as_given(&self, grid: &Grid) -> Result<GridResult, TableError> {
        let clock = ThreadClock::start();
        let (ids, plan) = self.plan_of(grid)?;
        Ok(self.search_planned(grid, &ids, plan, clock.elapsed()))
    }

    /// The search of `grid` by its band identities and plan, after
    /// `planning` of CPU time.
    fn search_planned(
        &self,
        grid: &Grid,
        ids: &[BandId],
        plan: Vec<Choice>,
        planning: Duration,
    ) -> GridResult {
        let span = tracing::debug_span!("grid", grid = %grid);
        let _enter = span.enter();
        self.started.fetch_add(1, Ordering::Relaxed);
        let mut result = GridResult::default();
        let run = GridRun {
            grid,
            sets: SetCache::new(self.catalogue, ids.to_vec()),
            stop: self.goal.first.then(Arc::default),
            rows: Mutex::new(Vec::new()),
        };
        // The choices are independent: on a pool with idle threads (the end
        // of a scan, or a single grid) they run side by side.
        let deferred = self.deferred_row(&plan);
        let mut searched: Vec<_> = plan
            .into_par_iter()
            .map(|choice| {
                let _enter = span.enter();
                let start = Instant::now();
                let rows: Vec<Counts> = choice
                    .rows
                    .iter()
                    .copied()
                    .filter(|&r| deferred != Some((choice.band3_rank, r)))
                    .collect();
                let states = self.search_choice(&run, &choice, &rows, None);
                (choice, states, start.elapsed())
            })
            .collect();
        if let Some((rank, row)) = deferred
            && !run.stopped()
            && let Some((choice, states, time)) =
                searched.iter_mut().find(|(c, ..)| c.band3_rank == rank)
        {
            // On the state that searched the choice's other rows: their
            // fresh UAs serve it.
            let start = Instant::now();
            let more = self.search_choice(&run, choice, &[row], states.pop());
            states.extend(more);
            *time += start.elapsed();
        }
        for (choice, states, time) in searched {
            let mut stats = Stats::default();
            for state in states {
                stats += state.stats();
                for set in state.found(self.goal.first).map(|(_, cells)| cells) {
                    let original: Mask81 = cells(set)
                        .map(|c| 1u128 << original_cell(c, choice.bands))
                        .sum();
                    result.puzzles.push(Puzzle::from_grid(grid, original));
                }
            }
            stats.total_time = time;
            result.cpu_time += stats.cpu_time;
            result.by_choice.push((choice.band3_rank, stats));
        }
        result.cpu_time += planning;
        result.puzzles.sort();
        if self.goal.first {
            // Choices running side by side may each have found one.
            result.puzzles.truncate(1);
        }
        result.by_row = run.rows.into_inner().expect("no row panicked");
        result
            .by_row
            .sort_by_key(|(rank, row, _)| (std::cmp::Reverse(*rank), plan::search_order(row)));
        result
    }

    /// The rows `rows` of a band-3 choice, on `state` if given (else a new
    /// one): returns the states that searched them, which hold the puzzles
    /// (cell masks of the search grid) and the counters.
    ///
    /// The rows run in order on one state, so the fresh UAs a row finds
    /// serve the rows after it; with [`Self::with_split_rows`] an idle thread
    /// may take rows with a state of its own ([`Self::run_rows`]).
    fn search_choice(
        &self,
        run: &GridRun,
        choice: &Choice,
        rows: &[Counts],
        state: Option<RunState>,
    ) -> Vec<RunState> {
        let span = tracing::debug_span!("choice", band3 = ?choice.band3_rank);
        let _enter = span.enter();
        let free = Mutex::new(state);
        let rows: Vec<Row> = rows.iter().map(|&c| Row::single(c)).collect();
        let mut states = self.run_rows(run, choice, &rows, &free);
        states.extend(free.into_inner().expect("no row panicked"));
        states
    }

    /// The row that `--first` searches last ([`Goal::deferred_row`]), with
    /// its choice, if the plan has it (only an 18 search has the 6-6-6 row;
    /// band 3 = hi).
    fn deferred_row(&self, plan: &[Choice]) -> Option<(Rank, Counts)> {
        let row = self.goal.deferred_row()?;
        let choice = plan.iter().find(|c| c.rows.contains(&row))?;
        Some((choice.band3_rank, row))
    }

    /// Searches `rows` of a choice, each on the state in `free` (none yet:
    /// a new one), put back when the row is done. With
    /// [`Self::with_split_rows`], halves of the rows go to `rayon::join`: a half
    /// that no thread steals runs after the first on the same thread and
    /// state, and one that an idle thread steals finds `free` empty and
    /// runs on a new state (its own harvest), returned at the end unless
    /// `free` is empty again. Every state holds genuine UAs of this grid
    /// only, so any state can search any row, and the puzzles of all of
    /// them are the choice's puzzles. With [`Goal::first`], no row starts
    /// once a puzzle is kept.
    fn run_rows(
        &self,
        run: &GridRun,
        choice: &Choice,
        rows: &[Row],
        free: &Mutex<Option<RunState>>,
    ) -> Vec<RunState> {
        if self.split_now() && rows.len() > 1 {
            let (first, rest) = rows.split_at(rows.len() / 2);
            let (mut done, more) = rayon::join(
                || self.run_rows(run, choice, first, free),
                || self.run_rows(run, choice, rest, free),
            );
            done.extend(more);
            return done;
        }
        let mut done = Vec::new();
        for (k, row) in rows.iter().enumerate() {
            if run.stopped() {
                break;
            }
            if k > 0 && rows.len() - k > 1 && self.split_now() {
                // The last grid started meanwhile: the rows left may split.
                done.extend(self.run_rows(run, choice, &rows[k..], free));
                return done;
            }
            let clock = ThreadClock::start();
            let taken = free.lock().expect("no row panicked").take();
            let mut state = taken.unwrap_or_else(|| {
                let mut state = self.prepare_choice(run.grid, choice);
                state.keep(&self.goal, run.stop.clone());
                state
            });
            let xsets = run.sets.get(self.tables, choice.bands[0], row.counts.x);
            let ysets = run.sets.get(self.tables, choice.bands[1], row.counts.y);
            let mut counts = state.run_row(row, xsets, ysets);
            let cpu = clock.elapsed();
            state.bands12.stats.cpu_time += cpu;
            counts.cpu_time += cpu;
            run.rows
                .lock()
                .expect("no row panicked")
                .push((choice.band3_rank, row.counts, counts));
            let mut slot = free.lock().expect("no row panicked");
            if slot.is_none() {
                *slot = Some(state);
            } else {
                done.push(state);
            }
        }
        done
    }

    /// The band-3 choice and plan row that a 17 of `grid` (in the grid's
    /// own orientation) belongs to, with the puzzle's cells in that
    /// choice's search grid; `None` when its clue counts fall in no row.
    ///
    /// # Panics
    /// If the tables of one of the grid's bands are corrupt.
    pub fn locate(&self, grid: &Grid, p: &Puzzle) -> Option<(Choice, Counts, Mask81)> {
        let (_, plan) = self.plan_of(grid).unwrap_or_else(|e| panic!("{e}"));
        let clues = p.clue_mask();
        let count = |band: usize| crate::bits::band_part(clues, band).count_ones() as usize;
        plan.into_iter().find_map(|choice| {
            let counts = Counts {
                x: count(choice.bands[0]),
                y: count(choice.bands[1]),
                z: count(choice.bands[2]),
            };
            choice.rows.contains(&counts).then(|| {
                let moved = (0..81)
                    .filter(|&c| clues >> original_cell(c, choice.bands) & 1 != 0)
                    .map(|c| 1u128 << c)
                    .sum();
                (choice, counts, moved)
            })
        })
    }

    /// The search grid of a choice with its harvested UAs, ready for rows.
    fn prepare_choice(&self, grid: &Grid, choice: &Choice) -> RunState {
        let search_grid = reorder_bands(grid, choice.bands);
        RunState::prepare(&[search_grid], Sharing::Own, self.config)
    }
}

/// One orientation of a grid under search: its bands' valid sets, the stop
/// flag of [`Goal::first`], and the counters of each row.
struct GridRun<'g, 'a> {
    grid: &'g Grid,
    sets: SetCache<'a>,
    /// Set once a puzzle is kept, with [`Goal::first`].
    stop: Option<Arc<AtomicBool>>,
    rows: Mutex<Vec<(Rank, Counts, Stats)>>,
}

impl GridRun<'_, '_> {
    /// Whether a puzzle was kept and the search stops ([`Goal::first`]).
    fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

#[cfg(feature = "hooks")]
pub mod bench_hooks;
#[cfg(test)]
mod tests;
