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
//! hitting-set search, [`Band3State::survivor_passes`]). The others are
//! checked by the solver with band 3 given in full (exactly the bands-1+2
//! problem under band 3's gangster); a failure gives a fresh UA12 for the
//! later steps.
//!
//! The UA12 and everything filtered by them depend on bands 1 and 2 only
//! (band 3's gangster is the complement of their columns), so one
//! [`Bands12`] state serves every band 3 that completes them: the steps and
//! the XY loop run once, and each survivor goes to the band-3 states
//! ([`Band3State`]) active on the row. The one-grid search uses it with one
//! band 3 ([`ChoiceState`]); `s17 exhaust` with every band 3 of an entry,
//! where the GUA bits of the bands 3's mini-row sockets are kept once, by
//! socket class ([`super::classes`]), and each survivor's open classes
//! serve every band 3.

use crate::band::{band_of_grid, gangster};
use crate::bits::{BANDS12_FULL, GRID_FULL, Mask27, Mask54, Mask81, cells27, cells54};
use crate::grid::Grid;
use crate::solver::other_solution;

use super::band3::Band3State;
use super::classes::{ClassGuas, ClassMask, Fresh};
use super::harvest::{Gua, debug_assert_ua};
use super::hitting::{Sockets, all_bits, low_bits};
use super::sets::{BAND1, BandSets};
use super::{SearchConfig, Stats};
use crate::bits::sockets::{BoundLanes, mini_row_pass};

/// Band 3 cells of the search grid.
const BAND3_CELLS: Mask81 = GRID_FULL & !(BANDS12_FULL as u128);

/// Most 64-bit words of UA bits in a step vector.
const MAX_UA_WORDS: usize = 4;

/// Words of the survivors' index of the sets beyond the vector limit.
const EXTRA_WORDS: usize = 8;

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
    /// When set, valid XY are recorded here instead of going to band 3
    /// (used by the cross-check tests).
    pub record_valid_xy: Option<Vec<Mask54>>,
    /// When set, keeps the X and Y vectors of the 4-word step with the most
    /// pairs (for the benches).
    pub record_step: Option<(usize, Vec<u64>, Vec<u64>)>,
    // Buffers reused across steps.
    /// UAs of bands 1+2 that the X pair misses, cut to the slice's live
    /// cells: those with band-1 cells left, then those without.
    uas_x: Vec<Mask54>,
    uas_b2: Vec<Mask54>,
    /// The X pair and the live cells of both bands of this X slice.
    slice_cells: (Mask54, Mask54),
    /// Set while an X slice is searched: fresh sets join its lists.
    slice_active: bool,
    /// Set when a fresh UA12 has no cell the slice can take.
    slice_dead: bool,
    /// The sets XY must hit in the current step.
    must: StepSets,
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
    /// In class mode, per band 3 of `step_live`: its classes and, with its
    /// forced sockets, its `pairs12_rows` ([`Band3State::bound_view`]); a
    /// survivor's open mini-row sockets in it, and which bands 3 pass the
    /// mini-row bound (bit i for `step_live[i]`; all, outside class mode).
    live_classes: Vec<ClassMask>,
    live_bounds: BoundLanes,
    live_sockets: Vec<Sockets>,
    live_pass: Vec<u64>,
    /// The last fresh UA12 a bands-1+2 check found (for debug checks).
    last_fresh: Mask54,
    /// The S parts of the GUAs of the mini-row sockets of the bands 3, by
    /// class, with their bits in the X slice, when they are shared (`s17
    /// exhaust`; [`Bands12::add_band3`]).
    classes: Option<ClassGuas>,
}

/// The search of one band-3 choice of a grid: the bands-1+2 state and the
/// state of its one band 3.
pub struct ChoiceState {
    pub bands12: Bands12,
    pub band3: Band3State,
}

impl ChoiceState {
    pub fn new(
        grid: Grid,
        ua12: Vec<Mask54>,
        guas: Vec<super::harvest::Gua>,
        band3_uas: Vec<Mask27>,
        config: SearchConfig,
    ) -> Self {
        ChoiceState {
            bands12: Bands12::new(grid, ua12, config),
            band3: Band3State::new(grid, guas, band3_uas, config),
        }
    }

    /// Searches one row of the plan ([`Bands12::run_row`]).
    pub fn run_row(&mut self, xsets: &BandSets, ysets: &BandSets, z: usize) {
        self.bands12
            .run_row(std::slice::from_mut(&mut self.band3), &[0], xsets, ysets, z);
    }

    /// The counters of both halves.
    pub fn stats(&self) -> Stats {
        let mut s = self.bands12.stats;
        s += *self.band3.stats();
        s
    }
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
            record_valid_xy: None,
            record_step: None,
            uas_x: Vec::new(),
            uas_b2: Vec::new(),
            slice_cells: (0, 0),
            slice_active: false,
            slice_dead: false,
            must: StepSets::default(),
            xsel: Vec::new(),
            ysel: Vec::new(),
            xbits: Vec::new(),
            ybits: Vec::new(),
            vx: Vec::new(),
            vy: Vec::new(),
            survivors: Vec::new(),
            step_live: Vec::new(),
            live_classes: Vec::new(),
            live_bounds: BoundLanes::default(),
            live_sockets: Vec::new(),
            live_pass: Vec::new(),
            last_fresh: 0,
            classes: None,
        }
    }

    /// Shares the GUA bits of the mini-row sockets between the bands 3
    /// (`s17 exhaust`): files the GUAs of `band3`'s mini-row sockets by
    /// class (and the gangsters its sockets make) and puts it in class
    /// mode (`Band3State::use_class_bits`). Once one band 3 is added,
    /// every band 3 given to [`Bands12::run_row`] must be. The class bits
    /// of an X slice are at most 8 times `gua_limit` (shared by all bands
    /// 3, where the one-grid search gives each band 3 `gua_limit`).
    pub fn add_band3(&mut self, band3: &mut Band3State) {
        let classes = self
            .classes
            .get_or_insert_with(|| ClassGuas::new(8 * self.config.gua_limit));
        band3.use_class_bits();
        classes.add_sockets(band3.grid());
        for (class, s) in band3.class_parts() {
            classes.add(class, s);
        }
    }

    /// Searches one row of the plan: X of `xsets.size` clues in band 1, Y of
    /// `ysets.size` in band 2, and `z` clues in band 3, for the band-3
    /// states `active` (indices into `bands3`; each must have these bands
    /// 1 and 2).
    pub fn run_row(
        &mut self,
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
        let mut ybits = std::mem::take(&mut self.ybits);
        let mut xbits = std::mem::take(&mut self.xbits);
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
            let xrest = &xsets.rest[xs.start as usize..xs.end as usize];
            xbits.clear();
            cell_bits(xrest, &mut xbits);
            if !self.prepare_x_slice(xs.pair, xs.live) {
                self.stats.dead_steps += ysets.slices.len() as u64;
                continue;
            }
            let unbitted = match &mut self.classes {
                Some(classes) => {
                    classes.prepare_x_slice(xs.pair, xs.live);
                    classes.unbitted()
                }
                None => &[],
            };
            for &b in active {
                bands3[b].prepare_x_slice(xs.pair, xs.live, unbitted);
            }
            for (k, ys) in ysets.slices.iter().enumerate() {
                // Fresh sets found by the checks join the slice's lists
                // as they come; one that no set of the slice can hit
                // ends it.
                if self.slice_dead {
                    self.stats.dead_steps += (ysets.slices.len() - k) as u64;
                    break;
                }
                let yrest = &ysets.rest[ys.start as usize..ys.end as usize];
                let ybits = &ybits[yrange[k].clone()];
                self.step(
                    bands3,
                    active,
                    (xs.pair, xrest, &xbits),
                    (ys.pair, ys.live, yrest, ybits),
                    z,
                );
            }
        }
        (self.xbits, self.ybits) = (xbits, ybits);
        self.slice_active = false;
        if let Some(classes) = &mut self.classes {
            classes.end_slice();
        }
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
        let xlive = live as u64;
        let (a, live) = (a as u64, xlive | !BAND1);
        (self.slice_active, self.slice_dead) = (true, false);
        self.slice_cells = (a, (a | live) & BANDS12_FULL);
        self.uas_x.clear();
        self.uas_b2.clear();
        for &u in &self.ua12 {
            if u & a == 0 {
                let v = u & live;
                if v == 0 {
                    return false;
                }
                if v & BAND1 == 0 {
                    self.uas_b2.push(v);
                } else {
                    self.uas_x.push(v);
                }
            }
        }
        self.must.reserve(self.uas_x.len());
        true
    }

    /// A fresh set of bands 1+2 as the current X slice sees it: `None` when
    /// no slice is searched or the slice's X pair hits it, else its cells
    /// that the slice's sets can still take (as `prepare_x_slice` cuts).
    fn slice_cut(&self, s: Mask54) -> Option<Mask54> {
        let (pair, cells) = self.slice_cells;
        (self.slice_active && s & pair == 0).then_some(s & cells & !pair)
    }

    /// One 2X2Y step: the X slice (pair, sets minus the pair, their
    /// [`cell_bits`]) and the Y slice (pair, live cells, sets, bits), for
    /// the band-3 states `active`.
    fn step(
        &mut self,
        bands3: &mut [Band3State],
        active: &[usize],
        (xpair, xrest, xbits): (Mask27, &[Mask27], &[u64]),
        (ypair, ylive, yrest, ybits): (Mask27, Mask27, &[Mask27], &[u64]),
        z: usize,
    ) {
        self.stats.steps += 1;
        let b = (ypair as u64) << 27;
        let live = ((ylive as u64) << 27) | BAND1;
        let ua_limit = self.config.ua_limit.min(64 * MAX_UA_WORDS);
        // Sets without band-1 cells first: one the Y pair misses and no Y
        // can hit kills the step.
        self.must.ymust.clear();
        for &u in &self.uas_b2 {
            if u & b == 0 {
                let v = (u & live) >> 27;
                if v == 0 {
                    self.stats.dead_steps += 1;
                    return;
                }
                self.must.ymust.push(v as Mask27);
            }
        }
        self.must.file(&self.uas_x, b, live, ua_limit);
        // Per band 3, the sockets open for every XY of the step (GUAs no
        // cell of the step hits): a band 3 that cannot take them is dead
        // for the step, and so is the step when every band 3 is.
        let ycells = (ypair as u64 | ylive as u64) << 27;
        let classes = self.classes.as_mut().map(|c| c.step_forced(ycells));
        let mut step_live = std::mem::take(&mut self.step_live);
        step_live.clear();
        for &k in active {
            if let Some(forced) = bands3[k].step_forced(ycells, z, classes.as_ref()) {
                step_live.push((k, forced));
            }
        }
        if step_live.is_empty() {
            self.stats.dead_steps += 1;
            self.step_live = step_live;
            return;
        }
        if self.classes.is_some() {
            self.live_classes.clear();
            self.live_bounds.clear();
            for &(k, forced) in &step_live {
                let (classes, pairs12) = bands3[k].bound_view();
                self.live_classes.push(classes);
                self.live_bounds.push(forced, pairs12);
            }
        } else {
            // Every band 3 goes on to its own checks.
            self.live_pass.clear();
            self.live_pass.resize(step_live.len().div_ceil(64), 0);
            for i in 0..step_live.len() {
                self.live_pass[i / 64] |= 1 << (i % 64);
            }
        }
        self.xy_loop(
            bands3,
            &step_live,
            (xpair, xrest, xbits),
            (ypair, yrest, ybits),
            z,
        );
        self.step_live = step_live;
    }

    /// The XY loop of a live step and each survivor's way through the
    /// band-3 states alive in the step.
    fn xy_loop(
        &mut self,
        bands3: &mut [Band3State],
        step_live: &[(usize, Sockets)],
        (xpair, xrest, xbits): (Mask27, &[Mask27], &[u64]),
        (ypair, yrest, ybits): (Mask27, &[Mask27], &[u64]),
        z: usize,
    ) {
        select_hitting(xbits, xrest.len(), self.must.xmust(), &mut self.xsel);
        select_hitting(ybits, yrest.len(), &self.must.ymust, &mut self.ysel);
        if self.xsel.is_empty() || self.ysel.is_empty() {
            self.stats.dead_steps += 1;
            return;
        }
        // Only the cells of the chosen X and Y can hit anything: the kept
        // sets shrink to them (fewer cells to scatter), and one left empty
        // kills the step.
        let xused = self.xsel.iter().fold(0, |m, &i| m | xrest[i as usize]);
        let yused = self.ysel.iter().fold(0, |m, &j| m | yrest[j as usize]);
        let used = xused as u64 | (yused as u64) << 27;
        if self.must.kept().iter().any(|&u| u & used == 0) {
            self.stats.dead_steps += 1;
            return;
        }
        let words = self.must.kept().len().div_ceil(64).max(1);
        self.vx.clear();
        self.vy.clear();
        let tested = match words {
            1 => self.collect_survivors::<1>(xrest, yrest, used),
            2 => self.collect_survivors::<2>(xrest, yrest, used),
            // Three words go in four: the 256-bit test is cheaper.
            _ => self.collect_survivors::<4>(xrest, yrest, used),
        };
        self.stats.xy_tested += tested;
        self.stats.survivors += self.survivors.len() as u64;
        if self.survivors.is_empty() {
            return;
        }
        if !self.must.index_extra(used) {
            self.stats.dead_steps += 1;
            return;
        }
        let survivors = std::mem::take(&mut self.survivors);
        for &(i, j) in &survivors {
            let (i, j) = (
                self.xsel[i as usize] as usize,
                self.ysel[j as usize] as usize,
            );
            let xy = (xpair | xrest[i]) as u64 | ((ypair | yrest[j]) as u64) << 27;
            // The cells of XY but the X pair (the GUAs the pair hits are
            // not in the slices' lists).
            let cells = xy & !(xpair as u64);
            // The one-grid search (one band 3, no class bits): the socket
            // bounds, which end three survivors in four, before the UAs
            // beyond the vector limit. (`exhaust` runs those first: a
            // survivor there meets the bounds of every band 3.)
            let bounded = if self.classes.is_none() {
                debug_assert_eq!(step_live.len(), 1, "the one-grid search has one band 3");
                let (k, forced) = step_live[0];
                let Some(open) = bands3[k].survivor_bounds(cells, forced, z, 0) else {
                    continue;
                };
                Some(open)
            } else {
                None
            };
            if !self.must.extra_hit(xy) {
                self.stats.extra_dead += 1;
                continue;
            }
            // The classes open for XY, for every band 3 at once, and each
            // live band 3's open mini-row sockets in them.
            let classes = self.classes.as_mut().map(|c| c.open_classes(cells));
            if let Some(classes) = &classes {
                crate::bits::extract_each(classes, &self.live_classes, &mut self.live_sockets);
                // The mini-row bound from the compact view first, for all
                // live bands 3 at once (the sockets forced at the step's
                // start: fewer than now, so a bound over z holds now too).
                mini_row_pass(
                    &self.live_sockets,
                    &self.live_bounds,
                    z,
                    &mut self.live_pass,
                );
                let passed: u32 = self.live_pass.iter().map(|w| w.count_ones()).sum();
                self.stats.band3_dead += (step_live.len() - passed as usize) as u64;
            }
            // The bands-1+2 check is the same for every band 3: done once,
            // for the first band 3 that lets XY through.
            let mut valid = None;
            // The bands 3 that passed, in order (`live_pass` is put back
            // after: the checks below need all of `self`).
            let live_pass = std::mem::take(&mut self.live_pass);
            let passed = live_pass
                .iter()
                .enumerate()
                .flat_map(|(w, &bits)| cells54(bits).map(move |b| 64 * w + b));
            for i in passed {
                let (k, forced) = step_live[i];
                let class_open = if classes.is_some() {
                    self.live_sockets[i]
                } else {
                    0
                };
                let band3 = &mut bands3[k];
                let passes = match bounded {
                    Some(open) => band3.survivor_guas(xy, open, z),
                    None => band3.survivor_passes(cells, xy, forced, z, class_open),
                };
                if !passes {
                    continue;
                }
                if !*valid.get_or_insert_with(|| self.check_bands12(xy)) {
                    // A fresh UA12 joins the filters of every band 3: debug
                    // builds check that it is a UA of each (the soundness rule,
                    // ARCHITECTURE.md).
                    if cfg!(debug_assertions) {
                        for other in bands3.iter() {
                            debug_assert_ua(other.grid(), self.last_fresh.into());
                        }
                    }
                    break;
                }
                match &mut self.record_valid_xy {
                    Some(list) => {
                        list.push(xy);
                        break;
                    }
                    None => {
                        band3.enumerate_band3(xy, z);
                        for ua in band3.take_fresh_ua12() {
                            self.add_ua12(ua);
                        }
                        let fresh = band3.take_fresh_guas();
                        self.share_guas(bands3, k, fresh);
                    }
                }
            }
            self.live_pass = live_pass;
        }
        self.survivors = survivors;
    }

    /// Files the fresh GUAs of band 3 `from` (each with the other
    /// solution its final check found) by class, when the class bits are
    /// shared (`s17 exhaust`): a GUA of a mini-row socket gives its S part
    /// to the class bits, and so to every band 3 with the class, as the
    /// GUA of its socket of the class. A GUA of another T gives its S to
    /// the class of the gangster its other solution makes, if a socket of
    /// the entry makes it ([`ClassGuas::class_of_gangster`] says why that
    /// is a GUA).
    fn share_guas(&mut self, bands3: &mut [Band3State], from: usize, fresh: Vec<(Gua, Grid)>) {
        let Some(classes) = &mut self.classes else {
            return;
        };
        let grid = *bands3[from].grid();
        for (gua, other) in fresh {
            let class = match bands3[from].class_of_t(gua.t) {
                Some(class) => class,
                None => {
                    // A fresh GUA is a minimal UA, so every other
                    // solution of its complement differs from the grid
                    // exactly on it (the difference of two solutions is a
                    // UA); the final check's may differ on more.
                    let other = if grid.difference(&other) == gua.cells() {
                        other
                    } else {
                        other_solution(&grid, GRID_FULL & !gua.cells())
                            .expect("a minimal UA has a second solution")
                    };
                    match classes.class_of_gangster(&gangster(&band_of_grid(&other, 2))) {
                        Some(class) => class,
                        None => {
                            self.stats.shared_guas += share_by_digits(bands3, from, gua);
                            continue;
                        }
                    }
                }
            };
            let filed = classes.add_fresh(class, gua.s);
            if filed == Fresh::Held {
                continue;
            }
            let unbitted = filed == Fresh::Unbitted;
            for (k, band3) in bands3.iter_mut().enumerate() {
                let Some(t) = band3.class_t(class) else {
                    continue;
                };
                if (k, t) == (from, gua.t) {
                    // Its final check filed it already.
                    if unbitted {
                        band3.mark_unbitted(class, gua.s);
                    }
                    continue;
                }
                let mate = Gua { s: gua.s, t };
                debug_assert!(
                    other_solution(band3.grid(), GRID_FULL & !mate.cells()).is_some(),
                    "{mate:?} is no UA of {}",
                    band3.grid()
                );
                band3.add_class_gua(class, gua.s, unbitted);
                if k != from {
                    self.stats.shared_guas += 1;
                }
            }
        }
    }

    /// The XY inner loop of one step with `W`-word UA vectors: fills
    /// `survivors` with every (x, y) index pair whose vectors AND to zero,
    /// and returns the number of pairs tested.
    fn collect_survivors<const W: usize>(
        &mut self,
        xrest: &[Mask27],
        yrest: &[Mask27],
        used: Mask54,
    ) -> u64 {
        let xs = self.xsel.iter().map(|&i| xrest[i as usize]);
        let ys = self.ysel.iter().map(|&j| yrest[j as usize]);
        build_vectors::<W>(self.must.kept(), used, xs, ys, &mut self.vx, &mut self.vy);
        self.survivors.clear();
        let vx: &[[u64; W]] = self.vx.as_chunks::<W>().0;
        let vy: &[[u64; W]] = self.vy.as_chunks::<W>().0;
        crate::bits::zero_and_pairs(vx, vy, self.config.chunk, &mut self.survivors);
        if let Some((pairs, rx, ry)) = &mut self.record_step
            && W == 4
            && vx.len() * vy.len() > *pairs
        {
            *pairs = vx.len() * vy.len();
            *rx = self.vx.clone();
            *ry = self.vy.clone();
        }
        (vx.len() * vy.len()) as u64
    }

    /// True when XY has a unique bands-1+2 filling under band 3's gangster;
    /// otherwise records the fresh UA12.
    fn check_bands12(&mut self, xy: Mask54) -> bool {
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
    fn add_ua12(&mut self, ua: Mask54) {
        let size = ua.count_ones();
        let at = self.ua12.partition_point(|u| u.count_ones() <= size);
        if self.ua12[..at].iter().any(|&u| u & !ua == 0) {
            return;
        }
        self.ua12.insert(at, ua);
        // It joins the current X slice's lists.
        let Some(v) = self.slice_cut(ua) else {
            return;
        };
        if v == 0 {
            self.slice_dead = true;
        } else if v & BAND1 == 0 {
            self.uas_b2.push(v);
        } else {
            self.uas_x.push(v);
            self.must.reserve(self.uas_x.len());
        }
    }
}

/// Hands a fresh GUA of band 3 `from` that no class takes to every other
/// band 3 with the same digits in the cells of its T; returns how many
/// took it. Its other solution changes only T in band 3, and each row and
/// box of band 3 keeps its digits there; the same change in a band 3 with
/// T's digits keeps its rows and boxes too, and changes its columns'
/// digits as it changed those of `from`, so bands 1 and 2 changed at S
/// still complete it: S and T make a GUA of that band 3 as well.
fn share_by_digits(bands3: &mut [Band3State], from: usize, gua: Gua) -> u64 {
    let own = *bands3[from].grid().digits();
    let mut shared = 0;
    for (k, band3) in bands3.iter_mut().enumerate() {
        let band = band3.grid().digits();
        if k == from || cells27(gua.t).any(|c| band[54 + c] != own[54 + c]) {
            continue;
        }
        debug_assert!(
            other_solution(band3.grid(), GRID_FULL & !gua.cells()).is_some(),
            "{gua:?} is no UA of {}",
            band3.grid()
        );
        band3.add_gua(gua);
        shared += 1;
    }
    shared
}

/// The sets XY must hit in one step, filed by where they can be hit.
#[derive(Default)]
struct StepSets {
    /// Sets with cells in both bands, in `kbuf[..nk]`: the first `limit`
    /// get a vector bit.
    kbuf: Vec<Mask54>,
    nk: usize,
    limit: usize,
    /// Such sets beyond the vector limit (and fresh UA12 found during the
    /// step), checked on survivors.
    extra: Vec<Mask54>,
    /// The first `extra_indexed` of `extra` by cell, for the survivors:
    /// row c has bit k set when cell c misses extra set k (`extra_all`,
    /// every bit, for the cells outside `extra_cells`, which a survivor
    /// has only in its pairs, which the sets miss).
    extra_rows: Vec<[u64; EXTRA_WORDS]>,
    extra_all: [u64; EXTRA_WORDS],
    extra_indexed: usize,
    extra_cells: Mask54,
    /// Sets left with band-1 cells only (`xbuf[..nx]`), band-2 cells only
    /// (`ymust`): filters of the X (Y) list.
    xbuf: Vec<Mask27>,
    nx: usize,
    ymust: Vec<Mask27>,
}

impl StepSets {
    /// Makes room for filing `n` sets.
    fn reserve(&mut self, n: usize) {
        let room = n + crate::bits::FILE_SLACK;
        if self.kbuf.len() < room {
            self.kbuf.resize(room, 0);
            self.xbuf.resize(room, 0);
        }
    }

    /// Files the sets of `uas` (each with band-1 cells) that miss `b`, cut
    /// to `live`: into the X filters when no band-2 cell is left, else
    /// into the kept sets.
    #[inline]
    fn file(&mut self, uas: &[Mask54], b: Mask54, live: Mask54, limit: usize) {
        let (nk, nx) = crate::bits::file_sets(uas, b, live, &mut self.kbuf, &mut self.xbuf);
        (self.nk, self.nx, self.limit) = (nk, nx, limit);
        self.extra.clear();
        if nk > limit {
            self.extra.extend_from_slice(&self.kbuf[limit..nk]);
        }
    }

    /// Indexes the sets beyond the vector limit (the first
    /// `64 * EXTRA_WORDS`) by the cells `used` (every cell of the step's
    /// survivors but the pairs); false when one of them misses `used`, so
    /// that every survivor misses it.
    fn index_extra(&mut self, used: Mask54) -> bool {
        let indexed = self.extra.len().min(64 * EXTRA_WORDS);
        let all = all_bits::<EXTRA_WORDS>(indexed);
        if indexed == 0 {
            // No set: no row is read (no cell is indexed).
            (self.extra_all, self.extra_indexed, self.extra_cells) = (all, 0, 0);
            return true;
        }
        self.extra_rows.clear();
        self.extra_rows.resize(54, all);
        (self.extra_all, self.extra_indexed, self.extra_cells) = (all, indexed, used);
        for (w, group) in self.extra[..indexed].chunks(64).enumerate() {
            let mut m = [0u64; 64];
            for (row, &u) in m.iter_mut().zip(group) {
                *row = u & used;
                if *row == 0 {
                    return false;
                }
            }
            crate::bits::transpose64(&mut m);
            for (row, &holders) in self.extra_rows.iter_mut().zip(&m) {
                row[w] &= !holders;
            }
        }
        self.extra[indexed..].iter().all(|&u| u & used != 0)
    }

    /// Whether XY (a survivor of the step) hits every set beyond the vector
    /// limit, [`StepSets::index_extra`] done.
    #[inline]
    fn extra_hit(&self, xy: Mask54) -> bool {
        let mut missed = self.extra_all;
        let mut cells = xy & self.extra_cells;
        while cells != 0 {
            let row = &self.extra_rows[cells.trailing_zeros() as usize];
            for w in 0..EXTRA_WORDS {
                missed[w] &= row[w];
            }
            cells &= cells - 1;
        }
        missed.iter().all(|&m| m == 0)
            && self.extra[self.extra_indexed..]
                .iter()
                .all(|&u| u & xy != 0)
    }

    fn kept(&self) -> &[Mask54] {
        &self.kbuf[..self.nk.min(self.limit)]
    }

    fn xmust(&self) -> &[Mask27] {
        &self.xbuf[..self.nx]
    }
}

/// Builds the `W`-word step vectors of `sets` (at most 64 `W` of them;
/// bits = sets, a cell's vector has bit i set when the cell misses set i)
/// for every X and Y; only the cells of `used` (every cell of the X and Y)
/// get their rows right.
fn build_vectors<const W: usize>(
    sets: &[Mask54],
    used: Mask54,
    xrest: impl ExactSizeIterator<Item = Mask27>,
    yrest: impl ExactSizeIterator<Item = Mask27>,
    vx: &mut Vec<u64>,
    vy: &mut Vec<u64>,
) {
    debug_assert!(sets.len() <= 64 * W);
    let all = all_bits::<W>(sets.len());
    let mut not_hit = [all; 54];
    // 64 sets at a time: the transpose of their cell masks gives, per cell,
    // the sets that hold it.
    for (w, group) in sets.chunks(64).enumerate() {
        let mut m = [0u64; 64];
        for (row, &u) in m.iter_mut().zip(group) {
            *row = u & used;
        }
        crate::bits::transpose64(&mut m);
        for (row, &holders) in not_hit.iter_mut().zip(&m) {
            row[w] &= !holders;
        }
    }
    crate::bits::and_rows(&not_hit[..27], all, xrest, vx);
    crate::bits::and_rows(&not_hit[27..], all, yrest, vy);
}

/// Appends, for each of the 27 cells of a band, a row of
/// `rest.len().div_ceil(64)` words (at least one) with bit i set when set
/// i of `rest` holds the cell.
fn cell_bits(rest: &[Mask27], out: &mut Vec<u64>) {
    let words = rest.len().div_ceil(64).max(1);
    let base = out.len();
    out.resize(base + 27 * words, 0);
    for (i, &r) in rest.iter().enumerate() {
        let mut cells = r;
        while cells != 0 {
            let c = cells.trailing_zeros() as usize;
            out[base + c * words + i / 64] |= 1 << (i % 64);
            cells &= cells - 1;
        }
    }
}

/// The indices of the `n` sets (given by their [`cell_bits`]) that hit
/// every set of `must`.
fn select_hitting(bits: &[u64], n: usize, must: &[Mask27], out: &mut Vec<u32>) {
    out.clear();
    let words = bits.len() / 27;
    // Four words at a time (each cell's row read once for the four): done
    // as soon as none of their sets is left.
    let mut w = 0;
    while w < words {
        match words - w {
            1 => select_words::<1>(bits, words, w, n, must, out),
            2 => select_words::<2>(bits, words, w, n, must, out),
            3 => select_words::<3>(bits, words, w, n, must, out),
            _ => select_words::<4>(bits, words, w, n, must, out),
        }
        w += 4;
    }
}

/// [`select_hitting`] on words `w..w + K` of the rows.
#[inline]
fn select_words<const K: usize>(
    bits: &[u64],
    words: usize,
    w: usize,
    n: usize,
    must: &[Mask27],
    out: &mut Vec<u32>,
) {
    let mut alive: [u64; K] = std::array::from_fn(|k| low_bits(n, w + k));
    for &m in must {
        // The sets that hit m: the OR of the rows of its cells.
        let mut hit = [0u64; K];
        let mut cells = m;
        while cells != 0 {
            let row = &bits[cells.trailing_zeros() as usize * words + w..][..K];
            for k in 0..K {
                hit[k] |= row[k];
            }
            cells &= cells - 1;
        }
        let mut any = 0;
        for k in 0..K {
            alive[k] &= hit[k];
            any |= alive[k];
        }
        if any == 0 {
            return;
        }
    }
    for (k, &a) in alive.iter().enumerate() {
        let mut a = a;
        while a != 0 {
            out.push((64 * (w + k)) as u32 + a.trailing_zeros());
            a &= a - 1;
        }
    }
}

#[cfg(test)]
mod can_hit_tests {
    use super::super::hitting::*;
    use super::*;
    use crate::bits::cells27;

    /// Every set of at most `k` cells of `allowed`, by brute force.
    fn brute(required: &[Mask27], clues: Mask27, allowed: Mask27, k: usize) -> bool {
        fn go(required: &[Mask27], chosen: Mask27, allowed: Mask27, k: usize) -> bool {
            if required.iter().all(|&t| t & chosen != 0) {
                return true;
            }
            if k == 0 {
                return false;
            }
            let mut cells = allowed;
            while cells != 0 {
                let cell = cells & cells.wrapping_neg();
                cells &= cells - 1;
                // Cells in increasing order: each set tried once.
                if go(required, chosen | cell, cells, k - 1) {
                    return true;
                }
            }
            false
        }
        go(required, clues, allowed, k)
    }

    #[test]
    fn can_hit_agrees_with_brute_force() {
        let mut rng = fastrand::Rng::with_seed(5);
        let (mut yes, mut no, mut critical, mut packed) = (0, 0, 0, 0);
        for _ in 0..3000 {
            let mut required = Vec::new();
            for _ in 0..rng.usize(1..14) {
                let t = if rng.bool() {
                    // Inside one mini-row: 2 or 3 of its cells.
                    let (row, stack) = (rng.u32(0..3), rng.u32(0..3));
                    let local = [0b011, 0b101, 0b110, 0b111][rng.usize(0..4)];
                    local << (9 * row + 3 * stack)
                } else {
                    (0..rng.u32(2..7)).fold(0, |m, _| m | 1 << rng.u32(0..27))
                };
                required.push(t);
            }
            let clues = if rng.u8(..) < 40 {
                1 << rng.u32(0..27)
            } else {
                0
            };
            let excluded = (0..rng.u32(0..4)).fold(0, |m, _| m | 1 << rng.u32(0..27)) & !clues;
            let left = rng.usize(0..5);
            let expected = brute(
                &required,
                clues,
                crate::bits::BAND_FULL & !excluded & !clues,
                left,
            );
            assert_eq!(
                can_hit(&required, clues, excluded, left, &mut Vec::new()),
                expected,
                "{required:x?} clues {clues:#x} excluded {excluded:#x} left {left}"
            );
            if let Some(set) = hitting_set(&required, clues, excluded, left, &mut Vec::new()) {
                assert!(required.iter().all(|&t| t & set != 0));
                assert_eq!(set & clues, clues);
                assert_eq!(set & excluded, 0);
                assert!((set & !clues).count_ones() as usize <= left);
            }
            if expected {
                yes += 1
            } else {
                no += 1
            }
            // Cases where the mini-rows need every clue left, or the
            // disjoint sets take them all (the critical cuts of
            // `hit_node`), must come up.
            let mut bound = MiniRowBound::default();
            let (mut union, mut disjoint) = (0, 0);
            for &t in required.iter().filter(|&&t| t & clues == 0) {
                bound.add(t & !excluded);
                if t & !excluded & union == 0 {
                    union |= t & !excluded;
                    disjoint += 1;
                }
            }
            critical += (left >= 2 && bound.clues() == left) as usize;
            packed += (left >= 2 && disjoint == left) as usize;
        }
        assert!(yes > 300 && no > 300, "{yes} feasible, {no} not");
        assert!(critical > 100, "only {critical} critical cases");
        assert!(
            packed > 100,
            "only {packed} cases with as many disjoint sets as clues"
        );
    }

    #[test]
    fn mini_row_bound_is_exact_on_mini_row_sets() {
        let mut rng = fastrand::Rng::with_seed(13);
        for _ in 0..2000 {
            let sets: Vec<Mask27> = (0..rng.usize(0..8))
                .map(|_| (0..rng.u32(1..5)).fold(0, |m, _| m | 1 << rng.u32(0..27)))
                .collect();
            let mut bound = MiniRowBound::default();
            let (mut inside, mut rows) = (Vec::new(), 0);
            for &t in &sets {
                bound.add(t);
                // Inside one mini-row: every cell has the same c / 3.
                let r = t.trailing_zeros() / 3;
                let is_inside = cells27(t).all(|c| c as u32 / 3 == r);
                assert_eq!(MiniRowBound::bit(t) != 0, is_inside, "{t:#x}");
                if is_inside {
                    inside.push(t);
                    rows |= 0b111 << (3 * r);
                }
            }
            assert_eq!(bound.cells(), rows);
            let need = bound.clues();
            assert!(brute(&inside, 0, crate::bits::BAND_FULL, need));
            assert!(need == 0 || !brute(&inside, 0, crate::bits::BAND_FULL, need - 1));
        }
    }

    #[test]
    fn select_hitting_keeps_exactly_the_sets_that_hit_everything() {
        let mut rng = fastrand::Rng::with_seed(8);
        let mut out = Vec::new();
        for _ in 0..500 {
            let set =
                |rng: &mut fastrand::Rng, k: u32| (0..k).fold(0, |m, _| m | 1 << rng.u32(0..27));
            let rest: Vec<Mask27> = (0..rng.usize(0..200)).map(|_| set(&mut rng, 6)).collect();
            let must: Vec<Mask27> = (0..rng.usize(0..6)).map(|_| set(&mut rng, 5)).collect();
            let mut bits = vec![7]; // cell_bits appends
            cell_bits(&rest, &mut bits);
            select_hitting(&bits[1..], rest.len(), &must, &mut out);
            let expected: Vec<u32> = (0..rest.len() as u32)
                .filter(|&i| must.iter().all(|&m| m & rest[i as usize] != 0))
                .collect();
            assert_eq!(out, expected, "rest {rest:x?} must {must:x?}");
        }
    }

    #[test]
    fn min_hit_table_by_hand() {
        assert_eq!(MIN_HIT[0], 0);
        // {a, b} alone: one cell.
        assert_eq!(MIN_HIT[1 << (0b011 - 1)], 1);
        // The three pairs of a mini-row: two cells.
        assert_eq!(MIN_HIT[(1 << 2) | (1 << 4) | (1 << 5)], 2);
        // Three single cells: three.
        assert_eq!(MIN_HIT[(1 << 0) | (1 << 1) | (1 << 3)], 3);
        // {a} and {b, c}: two.
        assert_eq!(MIN_HIT[(1 << 0) | (1 << 5)], 2);
    }
}

#[cfg(test)]
mod extra_tests {
    use super::*;

    /// A random subset of `cells`, each cell kept with probability
    /// `keep` in 64ths.
    fn subset(rng: &mut fastrand::Rng, cells: Mask54, keep: u64) -> Mask54 {
        (0..54)
            .filter(|&c| cells >> c & 1 != 0 && rng.u64(0..64) < keep)
            .fold(0, |m, c| m | 1 << c)
    }

    /// The survivors' index of the sets beyond the vector limit answers
    /// exactly as the list does: for lists shorter and longer than the
    /// index (whose tail is read as a list), with sets added after the
    /// index was built (fresh UA12 of the step), for XY with and without
    /// cells outside the step's cells (its pairs, which the sets miss);
    /// and a set that misses every cell of the step ends the step.
    #[test]
    fn extra_index_agrees_with_the_list() {
        let mut rng = fastrand::Rng::with_seed(23);
        let (mut hit, mut missed, mut dead) = (0, 0, 0);
        for round in 0..600 {
            // Pair cells (no set holds them) and the step's other cells.
            let pairs = subset(&mut rng, BANDS12_FULL, 3);
            let used = subset(&mut rng, BANDS12_FULL & !pairs, 40);
            let n = [0, 1, 63, 64, 65, 300, 512, 513, 700][round % 9];
            let mut sets = StepSets::default();
            for _ in 0..n {
                let keep = rng.u64(1..12);
                let mut u = subset(&mut rng, BANDS12_FULL & !pairs, keep);
                if u & used == 0 && rng.u64(0..8) != 0 {
                    u |= 1 << (used | 1).trailing_zeros();
                }
                sets.extra.push(u & !pairs);
            }
            let alive = sets.extra.iter().all(|&u| u & used != 0);
            assert_eq!(sets.index_extra(used), alive, "round {round}");
            if !alive {
                dead += 1;
                continue;
            }
            for _ in 0..rng.usize(0..3) {
                sets.extra.push(subset(&mut rng, BANDS12_FULL, 6) | 1);
            }
            for _ in 0..200 {
                let keep = rng.u64(4..64);
                let xy = subset(&mut rng, used, keep) | pairs;
                let expected = sets.extra.iter().all(|&u| u & xy != 0);
                assert_eq!(sets.extra_hit(xy), expected, "round {round}, xy {xy:#x}");
                if expected { hit += 1 } else { missed += 1 }
            }
        }
        assert!(
            hit > 5000 && missed > 5000 && dead > 20,
            "{hit} {missed} {dead}"
        );
    }
}

#[cfg(test)]
mod share_tests {
    use super::*;
    use crate::search::harvest::minimal_ua;

    /// A fresh GUA handed on by digits is a UA of every band 3 that takes
    /// it (the solver finds the other solution), and the bands that take
    /// it are exactly those with its T's digits.
    #[test]
    fn guas_shared_by_digits_are_uas_of_the_bands_that_take_them() {
        let mut rng = fastrand::Rng::with_seed(12);
        let (mut guas, mut shared) = (0, 0);
        for seed in [3, 4, 5] {
            let grids = crate::search::signatures::tests::entry(seed);
            let config = SearchConfig::default();
            let mut bands3: Vec<Band3State> = grids
                .iter()
                .map(|&g| Band3State::new(g, Vec::new(), Vec::new(), config))
                .collect();
            for _ in 0..150 {
                // A minimal UA of the first grid with cells in both parts.
                let clues = (0..rng.usize(17..30)).fold(0u128, |m, _| m | 1 << rng.u32(..81));
                let Some(other) = other_solution(&grids[0], clues) else {
                    continue;
                };
                let ua = minimal_ua(&grids[0], grids[0].difference(&other));
                let (s, t) = (ua as u64 & BANDS12_FULL, (ua >> 54) as Mask27);
                if s == 0 || t == 0 {
                    continue;
                }
                let gua = Gua { s, t };
                let own = grids[0].digits();
                let mut takers = 0;
                for grid in &grids[1..] {
                    if cells27(t).all(|c| grid.digits()[54 + c] == own[54 + c]) {
                        assert!(
                            other_solution(grid, GRID_FULL & !ua).is_some(),
                            "{gua:?} is no UA of {grid}"
                        );
                        takers += 1;
                    }
                }
                assert_eq!(share_by_digits(&mut bands3, 0, gua), takers);
                guas += 1;
                shared += takers;
            }
        }
        assert!(guas > 100 && shared > 20, "{guas} GUAs, {shared} shares");
    }
}
