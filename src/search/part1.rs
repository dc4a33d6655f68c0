//! Part 1, the 2X2Y loop (SPEC §4 step 4), and the bands-1+2 check (step 5).
//!
//! X runs over the slices of band 1's valid sets, Y over band 2's. For a
//! pair of slices (a *step*) the four slice cells are fixed: UAs they hit are
//! dropped, the others lose the cells no set of the step can add, and an
//! emptied UA kills the step. The first `ua_limit` UAs left get one bit each;
//! every live cell has a vector with bit i set when the cell does NOT hit
//! UA i. A set's vector is the AND over its cells, and XY hits every kept UA
//! exactly when `vX & vY` is all zero. Survivors are checked against the
//! UAs beyond the limit, then by the solver with band 3 given in full, which
//! is exactly the bands-1+2 problem under band 3's gangster; a failure gives
//! a fresh UA12 for the later steps.

use crate::bits::{BANDS12_FULL, GRID_FULL, Mask27, Mask54, Mask81, cells27};
use crate::grid::Grid;
use crate::solver::other_solution;

use super::harvest::Gua;
use super::sets::{BAND1, BandSets};
use super::{SearchConfig, Stats};

/// Band 3 cells of the search grid.
const BAND3_CELLS: Mask81 = GRID_FULL & !(BANDS12_FULL as u128);

/// The state of one band-3 choice: its UAs (growing as checks fail), the
/// 17s found, counters, and reusable buffers.
pub struct ChoiceState {
    pub grid: Grid,
    pub ua12: Vec<Mask54>,
    pub guas: Vec<Gua>,
    pub config: SearchConfig,
    pub stats: Stats,
    pub found: Vec<Mask81>,
    /// UA12 found since the list was last sorted.
    fresh_since_sort: usize,
    // Buffers reused across steps.
    uas_x: Vec<Mask54>,
    kept: Vec<Mask54>,
    extra: Vec<Mask54>,
    survivors: Vec<(u32, u32)>,
    pub(super) band3: super::band3::Band3Buffers,
}

/// Words of the step vectors, for each supported width.
const MAX_WORDS: usize = 4;

impl ChoiceState {
    pub fn new(grid: Grid, ua12: Vec<Mask54>, guas: Vec<Gua>, config: SearchConfig) -> ChoiceState {
        ChoiceState {
            grid,
            ua12,
            guas,
            config,
            stats: Stats::default(),
            found: Vec::new(),
            fresh_since_sort: 0,
            uas_x: Vec::new(),
            kept: Vec::new(),
            extra: Vec::new(),
            survivors: Vec::new(),
            band3: Default::default(),
        }
    }

    /// Searches one row of the plan: X of `xsets.size` clues in band 1, Y of
    /// `ysets.size` in band 2, and `z` clues in band 3.
    pub fn run_row(&mut self, xsets: &BandSets, ysets: &BandSets, z: usize) {
        let span = tracing::trace_span!("row", x = xsets.size, y = ysets.size, z);
        let _enter = span.enter();
        let before = self.stats;
        let start = std::time::Instant::now();
        for xs in &xsets.slices {
            if self.fresh_since_sort > 0 {
                super::harvest::minimize54(&mut self.ua12);
                self.fresh_since_sort = 0;
            }
            let a = xs.pair as u64;
            // UAs of this X slice: not hit by its two cells, band-1 part
            // reduced to the cells its sets can add.
            self.uas_x.clear();
            let mut dead = false;
            for &u in &self.ua12 {
                if u & a != 0 {
                    continue;
                }
                let v = (u & !BAND1) | (u & xs.live as u64);
                if v == 0 {
                    dead = true;
                    break;
                }
                self.uas_x.push(v);
            }
            if dead {
                self.stats.dead_steps += ysets.slices.len() as u64;
                continue;
            }
            let xrest = &xsets.rest[xs.start as usize..xs.end as usize];
            tracing::trace!(steps = self.stats.steps, xy = self.stats.xy_tested, survivors = self.stats.survivors, b12 = self.stats.bands12_checks, valid = self.stats.valid_xy, fresh = self.stats.fresh_ua12, finals = self.stats.final_checks, ua12 = self.ua12.len(), "x slice");
            for ys in &ysets.slices {
                let yrest = &ysets.rest[ys.start as usize..ys.end as usize];
                self.step(xs.pair, xrest, ys.pair, ys.live, yrest, z);
            }
        }
        tracing::debug!(
            x = xsets.size,
            y = ysets.size,
            z,
            xsets = xsets.len(),
            ysets = ysets.len(),
            ua12 = self.ua12.len(),
            steps = self.stats.steps - before.steps,
            dead = self.stats.dead_steps - before.dead_steps,
            xy = self.stats.xy_tested - before.xy_tested,
            survivors = self.stats.survivors - before.survivors,
            valid_xy = self.stats.valid_xy - before.valid_xy,
            final_checks = self.stats.final_checks - before.final_checks,
            secs = start.elapsed().as_secs_f64(),
            "row done"
        );
    }

    /// One 2X2Y step.
    fn step(&mut self, xpair: Mask27, xrest: &[Mask27], ypair: Mask27, ylive: Mask27, yrest: &[Mask27], z: usize) {
        self.stats.steps += 1;
        let b = (ypair as u64) << 27;
        let ylive = (ylive as u64) << 27;
        self.kept.clear();
        self.extra.clear();
        for &u in &self.uas_x {
            if u & b != 0 {
                continue;
            }
            let v = (u & BAND1) | (u & ylive);
            if v == 0 {
                self.stats.dead_steps += 1;
                return;
            }
            if self.kept.len() < self.config.ua_limit.min(64 * MAX_WORDS) {
                self.kept.push(v);
            } else {
                self.extra.push(v);
            }
        }
        let words = self.kept.len().div_ceil(64).max(1);
        self.survivors.clear();
        let tested = match words {
            1 => collect_survivors::<1>(&self.kept, xrest, yrest, self.config.chunk, &mut self.survivors),
            2 => collect_survivors::<2>(&self.kept, xrest, yrest, self.config.chunk, &mut self.survivors),
            3 => collect_survivors::<3>(&self.kept, xrest, yrest, self.config.chunk, &mut self.survivors),
            _ => collect_survivors::<4>(&self.kept, xrest, yrest, self.config.chunk, &mut self.survivors),
        };
        self.stats.xy_tested += tested;
        self.stats.survivors += self.survivors.len() as u64;
        let survivors = std::mem::take(&mut self.survivors);
        for &(i, j) in &survivors {
            let xy = (xpair | xrest[i as usize]) as u64 | ((ypair | yrest[j as usize]) as u64) << 27;
            if self.extra.iter().any(|&u| u & xy == 0) {
                continue;
            }
            if self.check_bands12(xy) {
                self.solve_band3(xy, z);
            }
        }
        self.survivors = survivors;
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
                let fresh = self.grid.difference(&other) as u64 & BANDS12_FULL;
                debug_assert!(fresh != 0 && fresh & xy == 0);
                self.stats.fresh_ua12 += 1;
                self.ua12.push(fresh);
                self.extra.push(fresh);
                self.fresh_since_sort += 1;
                false
            }
        }
    }
}

/// The XY inner loop of one step with `W`-word vectors: returns the number
/// of pairs tested and pushes every (x, y) index pair whose vectors AND to
/// zero.
fn collect_survivors<const W: usize>(
    kept: &[Mask54],
    xrest: &[Mask27],
    yrest: &[Mask27],
    chunk: usize,
    out: &mut Vec<(u32, u32)>,
) -> u64 {
    // not_hit[cell]: bit i set when the cell does not hit kept UA i.
    let mut not_hit = [[0u64; W]; 54];
    let mut all = [0u64; W];
    for i in 0..kept.len() {
        all[i / 64] |= 1 << (i % 64);
    }
    for v in not_hit.iter_mut() {
        *v = all;
    }
    for (i, &u) in kept.iter().enumerate() {
        let mut cells = u;
        while cells != 0 {
            let c = cells.trailing_zeros() as usize;
            not_hit[c][i / 64] &= !(1 << (i % 64));
            cells &= cells - 1;
        }
    }
    let vector = |set: Mask27, offset: usize| {
        let mut v = all;
        for c in cells27(set) {
            for w in 0..W {
                v[w] &= not_hit[c + offset][w];
            }
        }
        v
    };
    let vx: Vec<[u64; W]> = xrest.iter().map(|&s| vector(s, 0)).collect();
    let vy: Vec<[u64; W]> = yrest.iter().map(|&s| vector(s, 27)).collect();
    for (block, ys) in vy.chunks(chunk).enumerate() {
        let base = (block * chunk) as u32;
        for (i, a) in vx.iter().enumerate() {
            for (j, b) in ys.iter().enumerate() {
                let mut acc = 0;
                for w in 0..W {
                    acc |= a[w] & b[w];
                }
                if acc == 0 {
                    out.push((i as u32, base + j as u32));
                }
            }
        }
    }
    (vx.len() * vy.len()) as u64
}
