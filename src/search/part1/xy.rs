//! The XY loop of a step (ARCHITECTURE.md, stage 5) and each survivor's
//! way through band 3 and the bands-1+2 check (stage 6), in the two modes:
//! [`Bands12::survivor_one`] and [`Bands12::survivor_shared`].
//!
//! The survivor checks, in full. Each survivor is checked against the UAs of
//! the step beyond the bit limit (a few hundred on slow grids) through an
//! index built once per step with survivors: per cell, the bits of the sets
//! it misses (up to 512 sets, the rest as a list), so the check is one AND
//! per cell of XY. GUAs get bits too (up to `gua_limit`), by cell per X slice
//! (`search::band3::SliceBits`): the GUA bits a survivor's cells all miss are
//! the GUAs whose S it misses, so band 3 must hit their T (their sockets are
//! *open*). A survivor whose open sockets' T's need more clues than band 3
//! has left, by the mini-row bound or by pairwise disjoint T's, dies here;
//! the others meet band 3 on every GUA: the T's of all GUAs whose S XY misses
//! (open sockets, the GUAs beyond the bits, fresh ones) and band 3's own UAs
//! must be hit by the clues left, a hitting-set search, in two stages (the
//! T's of at most 6 cells first, which settle almost every XY; the larger
//! ones only for an XY still alive). The one-grid search meets the socket
//! bounds first (three survivors in four die there), then the UAs beyond the
//! bit limit, then band 3 on every GUA; `exhaust`, where a survivor meets the
//! bounds of every band 3 of the entry, checks the UAs beyond the limit
//! first. A survivor left goes to the bands-1+2 check (the solver with band 3
//! given in full: exactly the bands 1+2 problem); a failure yields a fresh
//! UA12 (the difference from the other filling), added for the later steps.

use crate::bits::{Mask27, Mask54};
use crate::search::band3::Band3State;
use crate::search::harvest::debug_assert_ua;
use crate::search::hitting::Sockets;
use crate::search::shared::Shared;

use super::mode::StepBands3;
use super::step::{build_vectors, select_hitting};
use super::{Bands12, Mode};

impl Bands12 {
    /// The XY loop of a live step and each survivor's way through the
    /// band-3 states alive in the step.
    pub(super) fn xy_loop<M: Mode>(
        &mut self,
        mode: &mut M,
        mut step: StepBands3,
        (xpair, xrest, xbits): (Mask27, &[Mask27], &[u64]),
        (ypair, yrest, ybits): (Mask27, &[Mask27], &[u64]),
    ) {
        select_hitting(xbits, xrest.len(), self.must.xmust(), &mut self.buf.xsel);
        select_hitting(ybits, yrest.len(), &self.must.ymust, &mut self.buf.ysel);
        if self.buf.xsel.is_empty() || self.buf.ysel.is_empty() {
            self.stats.dead_steps += 1;
            return;
        }
        // Only the cells of the chosen X and Y can hit anything: the kept
        // sets shrink to them (fewer cells to scatter), and one left empty
        // kills the step.
        let xused = self.buf.xsel.iter().fold(0, |m, &i| m | xrest[i as usize]);
        let yused = self.buf.ysel.iter().fold(0, |m, &j| m | yrest[j as usize]);
        let used = xused as u64 | (yused as u64) << 27;
        if self.must.kept().iter().any(|&u| u & used == 0) {
            self.stats.dead_steps += 1;
            return;
        }
        let words = self.must.kept().len().div_ceil(64).max(1);
        self.buf.vx.clear();
        self.buf.vy.clear();
        let tested = match words {
            1 => self.collect_survivors::<1>(xrest, yrest, used),
            2 => self.collect_survivors::<2>(xrest, yrest, used),
            // Three words go in four: the 256-bit test is cheaper.
            _ => self.collect_survivors::<4>(xrest, yrest, used),
        };
        self.stats.xy_tested += tested;
        self.stats.survivors += self.buf.survivors.len() as u64;
        if self.buf.survivors.is_empty() {
            return;
        }
        if !self.must.index_extra(used) {
            self.stats.dead_steps += 1;
            return;
        }
        let survivors = std::mem::take(&mut self.buf.survivors);
        for &(i, j) in &survivors {
            let (i, j) = (
                self.buf.xsel[i as usize] as usize,
                self.buf.ysel[j as usize] as usize,
            );
            let xy = (xpair | xrest[i]) as u64 | ((ypair | yrest[j]) as u64) << 27;
            // The cells of XY but the X pair (the GUAs the pair hits are
            // not in the slices' lists).
            let cells = xy & !(xpair as u64);
            mode.survivor(self, &mut step, xy, cells);
        }
        self.buf.survivors = survivors;
    }

    /// A survivor XY of the one-grid search (one band 3, live in the step
    /// with the sockets `forced`; `cells`: XY but the X pair): the socket
    /// bounds, which end three survivors in four, before the UAs beyond
    /// the vector limit; then band 3 on every GUA, the bands-1+2 check,
    /// and part 2.
    #[inline]
    pub(super) fn survivor_one(
        &mut self,
        band3: &mut Band3State,
        forced: Sockets,
        xy: Mask54,
        cells: Mask54,
        z: usize,
    ) {
        let Some(open) = band3.survivor_bounds(cells, forced, z, 0) else {
            return;
        };
        if !self.must.extra_hit(xy) {
            self.stats.extra_dead += 1;
            return;
        }
        if !band3.survivor_guas(xy, open, z) {
            return;
        }
        if !self.check_bands12(xy) {
            // A fresh UA12 joins the filters: debug builds check that it
            // is a UA of the grid (the soundness rule, ARCHITECTURE.md).
            debug_assert_ua(band3.grid(), self.last_fresh.into());
            return;
        }
        if self.part2(band3, xy, z) {
            // No other band 3 to hand its fresh GUAs to.
            drop(band3.take_fresh_guas());
        }
    }

    /// A survivor XY of an entry's search (`exhaust`; `cells`: XY but the
    /// X pair): the UAs beyond the vector limit first (a survivor here
    /// meets the bounds of every band 3 of the entry), then the mini-row
    /// bound of every live band 3 at once, then each band 3 that passes in
    /// turn: its socket bounds and band 3 on every GUA, the bands-1+2
    /// check (once, for the first band 3 that lets XY through: it is the
    /// same for every band 3), and part 2, whose fresh GUAs go to the
    /// other bands 3.
    #[inline]
    pub(super) fn survivor_shared(
        &mut self,
        shared: &mut Shared,
        step: &mut StepBands3,
        xy: Mask54,
        cells: Mask54,
    ) {
        let z = step.z;
        if !self.must.extra_hit(xy) {
            self.stats.extra_dead += 1;
            return;
        }
        let passed = shared.survivor_bounds(cells, z);
        self.stats.band3_dead += (step.live.len() - passed) as u64;
        let mut valid = None;
        // The bands 3 that passed, in order (the list is put back after:
        // the checks below need `shared`).
        let live_pass = shared.take_pass();
        let passed = live_pass
            .iter()
            .enumerate()
            .flat_map(|(w, &bits)| crate::bits::cells(bits).map(move |b| 64 * w + b));
        for i in passed {
            let (k, forced) = step.live[i];
            let class_open = shared.class_open(i);
            let band3 = &mut step.all[k];
            if !band3.survivor_passes(cells, xy, forced, z, class_open) {
                continue;
            }
            if !*valid.get_or_insert_with(|| self.check_bands12(xy)) {
                // A fresh UA12 joins the filters of every band 3: debug
                // builds check that it is a UA of each (the soundness
                // rule, ARCHITECTURE.md).
                if cfg!(debug_assertions) {
                    for other in step.all.iter() {
                        debug_assert_ua(other.grid(), self.last_fresh.into());
                    }
                }
                break;
            }
            if !self.part2(band3, xy, z) {
                break;
            }
            let fresh = band3.take_fresh_guas();
            shared.share_guas(step.all, k, fresh, &mut self.stats);
        }
        shared.put_pass(live_pass);
    }

    /// A valid XY (it passed band 3 and the bands-1+2 check): part 2 on
    /// band 3, whose fresh UA12s join the filters. False when a test
    /// recorder took XY instead (`hooks`): the survivor goes no further.
    #[inline(always)]
    fn part2(&mut self, band3: &mut Band3State, xy: Mask54, z: usize) -> bool {
        #[cfg(feature = "hooks")]
        if let Some(list) = &mut self.hooks.record_valid_xy {
            list.push(xy);
            return false;
        }
        band3.enumerate_band3(xy, z);
        for ua in band3.take_fresh_ua12() {
            self.add_ua12(ua);
        }
        if band3.finished()
            && let Some(stop) = &self.stop
        {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        true
    }

    /// The XY inner loop of one step with `W`-word UA vectors: fills
    /// `survivors` with every (x, y) index pair whose vectors AND to zero,
    /// and returns the number of pairs tested.
    pub(super) fn collect_survivors<const W: usize>(
        &mut self,
        xrest: &[Mask27],
        yrest: &[Mask27],
        used: Mask54,
    ) -> u64 {
        let xs = self.buf.xsel.iter().map(|&i| xrest[i as usize]);
        let ys = self.buf.ysel.iter().map(|&j| yrest[j as usize]);
        build_vectors::<W>(
            self.must.kept(),
            used,
            xs,
            ys,
            &mut self.buf.vx,
            &mut self.buf.vy,
        );
        self.buf.survivors.clear();
        let vx: &[[u64; W]] = self.buf.vx.as_chunks::<W>().0;
        let vy: &[[u64; W]] = self.buf.vy.as_chunks::<W>().0;
        crate::bits::zero_and_pairs(vx, vy, self.config.chunk, &mut self.buf.survivors);
        #[cfg(feature = "hooks")]
        if let Some((pairs, rx, ry)) = &mut self.hooks.record_step
            && W == 4
            && vx.len() * vy.len() > *pairs
        {
            *pairs = vx.len() * vy.len();
            *rx = self.buf.vx.clone();
            *ry = self.buf.vy.clone();
        }
        (vx.len() * vy.len()) as u64
    }
}
