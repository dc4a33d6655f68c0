//! The exhaustive 17 search of catalogue entries (`s17 exhaust`;
//! ARCHITECTURE.md, "The exhaustive search of an entry").
//!
//! An entry of slice K is band 1 = catalogue band K and one band 2; its
//! bands 3 are the visits of the ED grids the entry holds, each tagged with
//! the band-3 choices (hi, mid, lo) it is the visit of ([`crate::ed`]). In
//! every visit, bands 1 and 2 are the entry's, so one bands-1+2 state
//! (`Bands12`: the UA12 and their harvest, the valid sets of bands 1 and
//! 2, the 2X2Y steps, the XY loop and the bands-1+2 checks) serves them
//! all; each band 3 has its own `Band3State` (GUAs, sockets, band-3 UAs,
//! part 2, final checks). The GUAs' bands-1+2 parts depend only on the
//! socket's signature, which bands 3 share, so they are harvested once
//! per signature for the whole entry (`SignatureHarvest`), and part 1's
//! GUA bits are given once per socket class for all the bands 3
//! (`Bands12::add_band3`, [`crate::search::shared::classes`]).
//!
//! The rows: a visit for choice c searches the clue counts (x, y, z) that
//! the one-grid plan gives to choice c when bands 1, 2, 3 of the visit play
//! the roles of the choice's table (hi: lo, mid, hi; mid: lo, hi, mid; lo:
//! mid, hi, lo). A row (x, y, z) is run once for the entry, with every band
//! 3 whose choices include it. A band 3 tagged with two choices searches the
//! union of their rows (a 17 in both is found twice and merged).
//!
//! Why the UA12 serve every band 3: a UA12 is where another filling of
//! bands 1+2 with the same digits in each column differs from the grid's;
//! every band 3 that completes bands 1 and 2 holds, in each column, the
//! digits they lack, so it completes the other filling too: the set is a UA
//! of every grid of the entry. (Debug builds check each one against each
//! band 3.)
//!
//! The 17s are given as minlex puzzles, sorted and distinct per entry.

use std::collections::{BTreeMap, HashSet};
use std::ops::Range;
use std::time::Duration;

use crate::band::BandId;
use crate::canon::minlex_puzzle;
use crate::ed::{Band3Visit, Choices, Ed, Entry};
use crate::grid::{Grid, Puzzle};
use crate::output::{self, Fingerprint, OutputError, ResultFiles};
use crate::search::plan::{self, Counts, Rank};
use crate::search::{Goal, Row, RunState, SearchConfig, SetCache, Sharing, Stats};
use crate::tables::{BandTables, TableError};

pub mod driver;
pub mod estimate;

/// What the search of one entry found.
#[derive(Clone, Debug, Default)]
pub struct EntryResult {
    /// The entry's number in its slice.
    pub entry: u64,
    /// The 17s found, as minlex puzzles, sorted and distinct.
    pub puzzles: Vec<Puzzle>,
    /// ED grids whose hi visit is in the entry (the grids it holds).
    pub grids: u64,
    /// Bands 3 searched (visits of one or more choices).
    pub bands3: u64,
    /// Stage counters: the bands-1+2 half once, every band 3's half.
    pub stats: Stats,
}

impl EntryResult {
    /// The result of entry `entry` with its `visits` counted (grids: the
    /// hi visits; bands 3: all) and nothing found yet.
    fn counting(entry: u64, visits: &[Band3Visit]) -> EntryResult {
        EntryResult {
            entry,
            grids: visits
                .iter()
                .filter(|v| v.choices.contains(Choices::HI))
                .count() as u64,
            bands3: visits.len() as u64,
            ..EntryResult::default()
        }
    }
}

/// Searches catalogue entries with one ED context, one set of tables and
/// one config.
pub struct Exhauster<'a, B: AsRef<[u8]>> {
    ed: &'a Ed,
    tables: &'a BandTables<B>,
    config: SearchConfig,
    goal: Goal,
}

/// The roles of bands 1, 2 and 3 of a visit for `choice`, as plan costs
/// (lower cost = lower rank): hi is (lo, mid, hi), mid is (lo, hi, mid), lo
/// is (mid, hi, lo).
fn visit_costs(choice: Rank) -> [u64; 3] {
    match choice {
        Rank::Hi => [0, 1, 2],
        Rank::Mid => [0, 2, 1],
        Rank::Lo => [1, 2, 0],
    }
}

/// The clue counts (of `clues` in all) a visit searches: the rows of its
/// choices, bands 1, 2, 3 being the visit's own (`min_size` of each).
pub fn visit_rows(choices: Choices, min_size: [usize; 3], clues: usize) -> Vec<Counts> {
    let mut rows = Vec::new();
    for choice in choices.iter() {
        let plan = plan::plan_for(visit_costs(choice), min_size, clues);
        let c = plan
            .into_iter()
            .find(|c| c.band3_rank == choice)
            .expect("the plan has every choice");
        debug_assert_eq!(c.bands, [0, 1, 2], "the visit's bands play the roles");
        rows.extend(c.rows);
    }
    rows.sort();
    rows.dedup();
    rows
}

/// The checkpoint header of `s17 exhaust -o` for entries `range` of slice
/// `k` (`..u64::MAX`: to the slice's end) under `config`, searching for
/// `goal`: it names the piece of work, so a resume with another slice,
/// range, tuning or goal is refused. `s17 campaign` writes its units' files
/// under the same header. The 17 search's header names no goal (as before
/// goals existed).
pub fn checkpoint_header(
    k: usize,
    range: &Range<u64>,
    config: &SearchConfig,
    goal: &Goal,
) -> String {
    let detail = format!(
        "band={k} entries={}..{}{}",
        range.start,
        if range.end == u64::MAX {
            String::new()
        } else {
            range.end.to_string()
        },
        goal,
    );
    let mut fingerprint = Fingerprint::new();
    fingerprint.update(format!("{detail} {config:?}").as_bytes());
    output::checkpoint_header("exhaust", fingerprint.finish(), &detail)
}

/// What a run of entries wrote, summed over the entries it searched.
#[derive(Clone, Debug, Default)]
pub struct RunTotals {
    pub entries: u64,
    pub grids: u64,
    pub bands3: u64,
    /// 17s written (new to the output file).
    pub puzzles: u64,
    /// Thread CPU time of the entries' searches.
    pub cpu: Duration,
    pub stats: Stats,
}

/// The writing side of a run of entries (`s17 exhaust -o`, a campaign's
/// unit): each searched entry's 17s into the result files, each 17 once
/// per file (one written before, by another entry or as an image under an
/// automorphism, is not written again), then its checkpoint entry.
pub struct EntryRecorder<'f> {
    files: &'f mut ResultFiles,
    seen: HashSet<Puzzle>,
    totals: RunTotals,
}

impl<'f> EntryRecorder<'f> {
    /// Records into `files`, which already hold the 17s `found` (those of
    /// the entries done before a resume).
    pub fn new(files: &'f mut ResultFiles, found: &[(usize, Puzzle)]) -> Self {
        EntryRecorder {
            files,
            seen: found.iter().map(|(_, p)| *p).collect(),
            totals: RunTotals::default(),
        }
    }

    /// Writes an entry's 17s not written before and its checkpoint entry,
    /// and counts it; `cpu` is its search's thread CPU time.
    pub fn record(&mut self, result: &EntryResult, cpu: Duration) -> Result<(), OutputError> {
        let fresh: Vec<Puzzle> = result
            .puzzles
            .iter()
            .copied()
            .filter(|p| self.seen.insert(*p))
            .collect();
        self.files.record(result.entry as usize, &fresh)?;
        let totals = &mut self.totals;
        totals.entries += 1;
        totals.grids += result.grids;
        totals.bands3 += result.bands3;
        totals.puzzles += fresh.len() as u64;
        totals.cpu += cpu;
        totals.stats += result.stats;
        Ok(())
    }

    pub fn totals(&self) -> &RunTotals {
        &self.totals
    }

    /// Forces the files to disk; the totals of the run.
    pub fn finish(self) -> Result<RunTotals, OutputError> {
        self.files.sync()?;
        Ok(self.totals)
    }
}

impl<'a, B: AsRef<[u8]> + Sync> Exhauster<'a, B> {
    pub fn new(ed: &'a Ed, tables: &'a BandTables<B>, config: SearchConfig) -> Self {
        Exhauster {
            ed,
            tables,
            config,
            goal: Goal::default(),
        }
    }

    /// Searches for `goal` (default: every 17). With [`Goal::first`], each
    /// visit (band 3) stops at its first puzzle: an entry gives at most one
    /// puzzle per band 3, and a grid has one iff one of its three visits
    /// gives one.
    pub fn with_goal(mut self, goal: Goal) -> Self {
        debug_assert!(plan::CLUE_RANGE.contains(&goal.clues));
        self.goal = goal;
        self
    }

    pub fn goal(&self) -> Goal {
        self.goal
    }

    /// The bands 3 of an entry that are visits, with their choices.
    pub fn visits(&self, k: usize, entry: &Entry) -> Vec<Band3Visit> {
        let mut visits = Vec::new();
        self.ed
            .entry_visits(k, entry, Choices::ALL, |v| visits.push(*v));
        visits
    }

    /// The grid of a visit: catalogue band `k`, the entry's band 2, `band3`.
    pub fn visit_grid(&self, k: usize, entry: &Entry, band3: &[u8; 27]) -> Grid {
        let mut cells = [0u8; 81];
        cells[..27].copy_from_slice(self.ed.catalogue().band(k));
        cells[27..54].copy_from_slice(&entry.band2);
        cells[54..].copy_from_slice(band3);
        Grid::from_digits_unchecked(cells)
    }

    /// The band's identity, its tables checked ([`BandTables::try_band`]).
    fn band_id(&self, band: &[u8; 27]) -> Result<BandId, TableError> {
        let id = self.ed.index().identify(band);
        self.tables.try_band(id.index)?;
        Ok(id)
    }

    /// Every 17 that entry `entry` of slice `k` is responsible for: the 17s
    /// of each band 3's grid in the rows of the choices it is visited for.
    pub fn search_entry(&self, k: usize, entry: &Entry) -> Result<EntryResult, TableError> {
        self.search_entry_part(k, entry, 0, 1)
    }

    /// Part `part` (from 0) of `parts` of an entry: the 17s of its visits
    /// cut into `parts` runs of nearly equal length, in order (part i is
    /// visits i·n/parts to (i+1)·n/parts − 1 of n). A band 3's 17s do not
    /// depend on which other bands 3 are searched with it, so the parts'
    /// 17s together are the entry's (with [`Goal::first`], a visit's first
    /// puzzle may be another, never its flag); `grids` and `bands3` count
    /// the part's own visits. One part of one is [`Exhauster::search_entry`].
    pub fn search_entry_part(
        &self,
        k: usize,
        entry: &Entry,
        part: usize,
        parts: usize,
    ) -> Result<EntryResult, TableError> {
        let span = tracing::debug_span!("entry", k, entry = entry.number);
        let _enter = span.enter();
        let mut visits = self.visits(k, entry);
        if parts > 1 {
            let n = visits.len();
            visits = visits[part * n / parts..(part + 1) * n / parts].to_vec();
        }
        let mut result = EntryResult::counting(entry.number, &visits);
        if visits.is_empty() {
            return Ok(result);
        }
        let band1 = self.ed.catalogue().band(k);
        let (id1, id2) = (self.band_id(band1)?, self.band_id(&entry.band2)?);
        let min1 = self.tables.band(id1.index).min_size();
        let min2 = self.tables.band(id2.index).min_size();
        // The rows of each band 3's choices, each row once with the bands 3
        // that search it.
        let mut rows: BTreeMap<Counts, Vec<usize>> = BTreeMap::new();
        let mut grids = Vec::with_capacity(visits.len());
        for (i, v) in visits.iter().enumerate() {
            let min3 = self.tables.band(self.band_id(&v.band3)?.index).min_size();
            for row in visit_rows(v.choices, [min1, min2, min3], self.goal.clues) {
                rows.entry(row).or_default().push(i);
            }
            grids.push(self.visit_grid(k, entry, &v.band3));
        }
        let mut state = RunState::prepare(&grids, Sharing::ByClass, self.config);
        // Each visit stops at its own first puzzle: no flag for the entry.
        state.keep(&self.goal, None);
        let sets = SetCache::new(self.ed.catalogue(), vec![id1, id2]);
        // Largest z first, as the one-grid plan orders its rows
        // ([`plan::Choice::rows`]): the cheap rows' fresh UA12 serve the
        // expensive z = 6 rows.
        let mut rows: Vec<Row> = rows
            .into_iter()
            .map(|(counts, active)| Row { counts, active })
            .collect();
        rows.sort_by_key(|row| plan::search_order(&row.counts));
        for row in &rows {
            let xsets = sets.get(self.tables, 0, row.counts.x);
            let ysets = sets.get(self.tables, 1, row.counts.y);
            state.run_row(row, xsets, ysets);
        }
        result.stats = state.stats();
        for (grid, cells) in state.found(self.goal.first) {
            let p = Puzzle::from_grid(grid, cells);
            result.puzzles.push(minlex_puzzle(&p).0);
        }
        result.puzzles.sort();
        result.puzzles.dedup();
        Ok(result)
    }
}
