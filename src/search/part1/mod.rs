//! Part 1, the 2X2Y loop (ARCHITECTURE.md, stage 5), and the bands-1+2
//! check (stage 6).
//!
//! X runs over the slices of band 1's valid sets, Y over band 2's. For a
//! pair of slices (a *step*) the four slice cells are fixed: UAs they hit are
//! dropped, the others lose the cells no set of the step can add, and an
//! emptied UA kills the step. The first `ua_limit` UAs left get one bit each;
//! every live cell has a vector with bit i set when the cell does NOT hit
//! UA i. A set's vector is the AND over its cells, and XY hits every kept UA
//! exactly when `vX & vY` is all zero.
//!
//! A survivor is first checked against the UAs beyond the limit, through
//! a per-step index by cell (`StepSets::index_extra`). GUAs get bits the
//! same way as UAs (up to `gua_limit`): for a survivor, the GUA bits of
//! `vX & vY` are the GUAs whose bands-1+2 part XY misses, so their sockets
//! are *open* and band 3 must hit their T. If bounds show that band 3
//! cannot hit all open T's with the clues it has left, the survivor dies;
//! then band 3 must hit the T of every GUA it misses and its own UAs (a
//! hitting-set search, `Band3State::survivor_passes`). The others are
//! checked by the solver with band 3 given in full (exactly the bands-1+2
//! problem under band 3's gangster); a failure gives a fresh UA12 for the
//! later steps.
//!
//! The UA12 and everything filtered by them depend on bands 1 and 2 only
//! (band 3's gangster is the complement of their columns), so one
//! [`Bands12`] state serves every band 3 that completes them: the steps and
//! the XY loop run once, and each survivor goes to the band-3 states
//! ([`Band3State`]) active on the row. The one-grid search uses it with one
//! band 3 (a choice of [`super::runner`]); `s17 exhaust` with every band 3 of an entry,
//! where the GUA bits of the bands 3's mini-row sockets are kept once, by
//! socket class ([`super::shared::classes`]), and each survivor's open classes
//! serve every band 3. Which of the two a row runs is a type (`Mode`:
//! `OneGrid` or [`Shared`]), so the XY loop and the survivor path are
//! compiled once for each and never test it.
//!
//! - `step`: the 2X2Y step, the sets XY must hit in it, and its vectors.
//! - `xy`: the XY loop and each survivor's way through band 3.
//! - `mode`: the two modes.

mod mode;
mod step;
#[cfg(test)]
mod tests;
mod xy;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::bits::{BANDS12_FULL, GRID_FULL, Mask27, Mask54, Mask81};
use crate::grid::Grid;
use crate::solver::other_solution;

use super::band3::Band3State;
use super::hitting::Sockets;
use super::sets::{BAND1, BandSets, XSlice};
use super::shared::Shared;
use super::{SearchConfig, Stats};

pub(in crate::search) use mode::{Mode, OneGrid};
use step::{StepSets, cell_bits};

/// Band 3 cells of the search grid.
const BAND3_CELLS: Mask81 = GRID_FULL & !(BANDS12_FULL as u128);

/// The bands-1+2 state of a search: the UA12 (growing as checks fail), the
/// step filters, the XY loop and its buffers, shared by every band 3 that
/// completes bands 1 and 2.
pub struct Bands12 {
    /// A grid with these bands 1 and 2 (any band 3 completing them: the
    /// bands-1+2 check does not depend on which).
    pub grid: Grid,
    /// UA12 spanning bands 1 and 2, sorted by size.
    pub ua12: Vec<Mask54>,
    pub config: SearchConfig,
    /// Counters of the bands-1+2 stages (the band-3 states count theirs).
    pub stats: Stats,
    /// Recorders for the tests and benches.
    #[cfg(feature = "hooks")]
    pub hooks: Hooks,
    /// The UA12 as the current X slice sees them.
    slice: SliceUas,
    /// The sets XY must hit in the current step.
    must: StepSets,
    /// Buffers of the steps and the XY loop, reused across steps.
    buf: XyBuffers,
    /// The last fresh UA12 a bands-1+2 check found (for debug checks).
    last_fresh: Mask54,
    /// The class bits and the view of the live bands 3 when the bands 3
    /// of an entry share them (`s17 exhaust`; [`Bands12::add_band3`]);
    /// `None` in the one-grid search.
    shared: Option<Shared>,
    /// The stop flag of a grid's search with [`crate::search::Goal::first`]
    /// (shared by its choices): set when a band 3 keeps its first puzzle,
    /// checked per X slice and per step. A catalogue entry has none: each
    /// of its bands 3 stops on its own ([`Band3State::finished`]).
    stop: Option<Arc<AtomicBool>>,
}

/// Recorders the cross-check tests and the benches turn on (cargo feature
/// `hooks`; absent from the default build).
#[cfg(feature = "hooks")]
#[derive(Default)]
pub struct Hooks {
    /// When set, valid XY are recorded here instead of going to band 3
    /// (used by the cross-check tests).
    pub record_valid_xy: Option<Vec<Mask54>>,
    /// When set, keeps the X and Y vectors of the 4-word step with the most
    /// pairs (for the benches).
    pub record_step: Option<(usize, Vec<u64>, Vec<u64>)>,
}

/// The UA12 of bands 1+2 as the current X slice sees them.
#[derive(Default)]
struct SliceUas {
    /// The X slice.
    x: XSlice,
    /// Set when a fresh UA12 has no cell the slice can take.
    dead: bool,
    /// UAs of bands 1+2 that the X pair misses, cut to the slice's live
    /// cells: those with band-1 cells left, then those without.
    uas_x: Vec<Mask54>,
    uas_b2: Vec<Mask54>,
}

/// Buffers of the steps and the XY loop, reused across steps.
#[derive(Default)]
struct XyBuffers {
    /// Indices of the X (Y) of the step that hit every `xmust` (`ymust`).
    xsel: Vec<u32>,
    ysel: Vec<u32>,
    /// [`cell_bits`] of the current X slice, and of every Y slice of the row.
    xbits: Vec<u64>,
    ybits: Vec<u64>,
    vx: Vec<u64>,
    vy: Vec<u64>,
    survivors: Vec<(u32, u32)>,
    /// The band-3 states alive in the current step, with the sockets open
    /// for every XY of the step.
    step_live: Vec<(usize, Sockets)>,
}

impl Bands12 {
    pub fn new(grid: Grid, ua12: Vec<Mask54>, config: SearchConfig) -> Self {
        Bands12 {
            grid,
            stats: Stats {
                ua12: ua12.len() as u64,
                ..Stats::default()
            },
            ua12,
            config,
            #[cfg(feature = "hooks")]
            hooks: Hooks::default(),
            slice: SliceUas::default(),
            must: StepSets::default(),
            buf: XyBuffers::default(),
            last_fresh: 0,
            shared: None,
            stop: None,
        }
    }

    /// The stop flag of a grid's search with [`crate::search::Goal::first`]:
    /// set at the first puzzle any band 3 keeps, and read per X slice and
    /// per step.
    pub fn stop_with(&mut self, flag: Arc<AtomicBool>) {
        self.stop = Some(flag);
    }

    /// Whether the search stops: its stop flag is set.
    #[inline]
    pub(super) fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// Shares the GUA bits of the mini-row sockets between the bands 3
    /// (`s17 exhaust`): files the GUAs of `band3`'s mini-row sockets by
    /// class (and the gangsters its sockets make) and puts it in class
    /// mode (`Band3State::use_class_bits`). Once one band 3 is added,
    /// every band 3 given to [`Bands12::run_row`] must be. The class bits
    /// of an X slice are at most 8 times `gua_limit` (shared by all bands
    /// 3, where the one-grid search gives each band 3 `gua_limit`).
    pub fn add_band3(&mut self, band3: &mut Band3State) {
        let limit = 8 * self.config.gua_limit;
        self.shared
            .get_or_insert_with(|| Shared::new(limit))
            .add_band3(band3);
    }

    /// Searches one row of the plan: X of `xsets.size` clues in band 1, Y of
    /// `ysets.size` in band 2, and `z` clues in band 3, for the band-3
    /// states `active` (indices into `bands3`; each must have these bands
    /// 1 and 2). Without [`Self::add_band3`], `active` holds one band 3
    /// (the one-grid search).
    pub fn run_row(
        &mut self,
        bands3: &mut [Band3State],
        active: &[usize],
        xsets: &BandSets,
        ysets: &BandSets,
        z: usize,
    ) {
        match self.shared.take() {
            Some(mut shared) => {
                self.run_row_in(&mut shared, bands3, active, xsets, ysets, z);
                self.shared = Some(shared);
            }
            None => {
                debug_assert_eq!(active.len(), 1, "the one-grid search has one band 3");
                self.run_row_in(&mut OneGrid, bands3, active, xsets, ysets, z);
            }
        }
    }

    /// [`Self::run_row`] in mode `M`.
    fn run_row_in<M: Mode>(
        &mut self,
        mode: &mut M,
        bands3: &mut [Band3State],
        active: &[usize],
        xsets: &BandSets,
        ysets: &BandSets,
        z: usize,
    ) {
        let span = tracing::debug_span!("row", x = xsets.size, y = ysets.size, z);
        let _enter = span.enter();
        let before = self.stats;
        let start = std::time::Instant::now();
        // Per Y slice (and per X slice below), which of its sets hold each
        // cell: the sets that hit a given set are the OR of its cells' rows.
        let mut ybits = std::mem::take(&mut self.buf.ybits);
        let mut xbits = std::mem::take(&mut self.buf.xbits);
        ybits.clear();
        let yrange: Vec<_> = ysets
            .slices
            .iter()
            .map(|ys| {
                let start = ybits.len();
                cell_bits(&ysets.rest[ys.start as usize..ys.end as usize], &mut ybits);
                start..ybits.len()
            })
            .collect();
        for xs in &xsets.slices {
            if self.stopped() || active.iter().all(|&b| bands3[b].finished()) {
                break;
            }
            let xrest = &xsets.rest[xs.start as usize..xs.end as usize];
            xbits.clear();
            cell_bits(xrest, &mut xbits);
            if !self.prepare_x_slice(xs.pair, xs.live) {
                self.stats.dead_steps += ysets.slices.len() as u64;
                continue;
            }
            let unbitted = mode.prepare_x_slice(xs.pair, xs.live);
            for &b in active {
                bands3[b].prepare_x_slice(xs.pair, xs.live, unbitted);
            }
            for (k, ys) in ysets.slices.iter().enumerate() {
                // Fresh sets found by the checks join the slice's lists
                // as they come; one that no set of the slice can hit
                // ends it.
                if self.slice.dead {
                    self.stats.dead_steps += (ysets.slices.len() - k) as u64;
                    break;
                }
                if self.stopped() {
                    break;
                }
                let yrest = &ysets.rest[ys.start as usize..ys.end as usize];
                let ybits = &ybits[yrange[k].clone()];
                self.step(
                    mode,
                    bands3,
                    active,
                    (xs.pair, xrest, &xbits),
                    (ys.pair, ys.live, yrest, ybits),
                    z,
                );
            }
        }
        (self.buf.xbits, self.buf.ybits) = (xbits, ybits);
        self.slice.x.active = false;
        mode.end_slice();
        for &b in active {
            bands3[b].end_slice();
        }
        tracing::debug!(
            xsets = xsets.len(),
            ysets = ysets.len(),
            ua12 = self.ua12.len(),
            steps = self.stats.steps - before.steps,
            dead = self.stats.dead_steps - before.dead_steps,
            xy = self.stats.xy_tested - before.xy_tested,
            survivors = self.stats.survivors - before.survivors,
            b12 = self.stats.bands12_checks - before.bands12_checks,
            valid_xy = self.stats.valid_xy - before.valid_xy,
            secs = start.elapsed().as_secs_f64(),
            "row done"
        );
    }

    /// Filters the UA12 for an X slice with cells `a` and live cells `live`;
    /// false when a UA cannot be hit by any X of the slice nor any Y.
    fn prepare_x_slice(&mut self, a: Mask27, live: Mask27) -> bool {
        self.slice.x = XSlice::start(a, live);
        self.slice.dead = false;
        let (a, live) = (self.slice.x.pair, self.slice.x.live());
        self.slice.uas_x.clear();
        self.slice.uas_b2.clear();
        for &u in &self.ua12 {
            if u & a == 0 {
                let v = u & live;
                if v == 0 {
                    return false;
                }
                if v & BAND1 == 0 {
                    self.slice.uas_b2.push(v);
                } else {
                    self.slice.uas_x.push(v);
                }
            }
        }
        self.must.reserve(self.slice.uas_x.len());
        true
    }

    /// True when XY has a unique bands-1+2 filling under band 3's gangster;
    /// otherwise records the fresh UA12.
    pub(super) fn check_bands12(&mut self, xy: Mask54) -> bool {
        self.stats.bands12_checks += 1;
        match other_solution(&self.grid, xy as u128 | BAND3_CELLS) {
            None => {
                self.stats.valid_xy += 1;
                true
            }
            Some(other) => {
                let diff = self.grid.difference(&other);
                let fresh = super::harvest::minimal_ua(&self.grid, diff) as u64 & BANDS12_FULL;
                debug_assert!(fresh != 0 && fresh & xy == 0);
                self.last_fresh = fresh;
                self.stats.fresh_ua12 += 1;
                self.add_ua12(fresh);
                self.must.extra.push(fresh);
                false
            }
        }
    }

    /// Inserts a fresh UA12 in size order, unless a known one is inside it.
    pub(super) fn add_ua12(&mut self, ua: Mask54) {
        let size = ua.count_ones();
        let at = self.ua12.partition_point(|u| u.count_ones() <= size);
        if self.ua12[..at].iter().any(|&u| u & !ua == 0) {
            return;
        }
        self.ua12.insert(at, ua);
        // It joins the current X slice's lists.
        let Some(v) = self.slice.x.cut(ua) else {
            return;
        };
        if v == 0 {
            self.slice.dead = true;
        } else if v & BAND1 == 0 {
            self.slice.uas_b2.push(v);
        } else {
            self.slice.uas_x.push(v);
            self.must.reserve(self.slice.uas_x.len());
        }
    }
}
