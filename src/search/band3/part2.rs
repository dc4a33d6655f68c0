//! Part 2 (ARCHITECTURE.md, stage 7) and the final check (stage 8): for a
//! valid XY, band 3 needs exactly `z` clues that hit every band-3 UA and
//! the band-3 part `t` of every GUA whose bands-1+2 part `s` XY misses.
//! Those clue sets are enumerated as hitting sets: take the first required
//! set not yet hit and branch on its cells, excluding the cells of earlier
//! branches (so each clue set comes once); when everything is hit, the
//! clues still missing are any cells not excluded. Each candidate gets the
//! full uniqueness check; a failure yields a fresh UA, which joins the GUA
//! list (it is one: the other solution keeps XY, so its bands-1+2 part is
//! missed by XY and its band-3 part must be hit). A unique puzzle is kept,
//! or, when only minimal ones are asked for (N > 17), kept if no clue can
//! be removed ([`is_minimal`]).

use crate::bits::{BAND_FULL, BANDS12_FULL, Mask27, Mask54, Mask81};
use crate::search::harvest::Gua;
use crate::search::hitting::can_hit;
use crate::solver::{is_minimal, other_solution};

use super::Band3State;

/// Buffers of part 2 and of the socket checks, reused across XY.
#[derive(Default)]
pub(super) struct Band3Buffers {
    /// Band-3 parts of the sets the current XY leaves to band 3.
    required: Vec<Mask27>,
    /// Scratch list for feasibility checks.
    pub(super) scratch: Vec<Mask27>,
    /// Scratch space of the hitting-set search.
    pub(super) arena: Vec<Mask27>,
}

impl Band3State {
    /// Completes a valid XY with `z` clues in band 3 in every way that can
    /// give a unique puzzle, and keeps those that do.
    #[cfg(any(test, feature = "hooks"))]
    pub(in crate::search) fn solve_band3(&mut self, xy: Mask54, z: usize) {
        self.gua_index.forget_slice();
        if self.band3_required(xy, 0, z) {
            self.enumerate_band3(xy, z);
        }
    }

    /// Collects the sets band 3 must hit after XY (the band-3 parts of the
    /// GUAs XY misses, then band 3's own UAs) and tells whether `z` clues
    /// can hit them all; `open` as for [`GuaIndex::missed_by`].
    pub(super) fn band3_required(&mut self, xy: Mask54, open: u64, z: usize) -> bool {
        let mut required = std::mem::take(&mut self.buffers.required);
        required.clear();
        let staged = self.gua_index.missed_by(xy, open, &mut required);
        let mut feasible = can_hit(&required, 0, 0, z, &mut self.buffers.arena);
        // The large parts only when the others leave XY alive (they seldom
        // decide: most XY die without them, at half the cost).
        if let Some(small) = staged
            && feasible
            && self.gua_index.missed_large(xy, small, &mut required)
        {
            feasible = can_hit(&required, 0, 0, z, &mut self.buffers.arena);
        }
        self.buffers.required = required;
        feasible
    }

    /// The band-3 enumeration for XY once [`Self::band3_required`] has
    /// filled the required sets.
    pub(in crate::search) fn enumerate_band3(&mut self, xy: Mask54, z: usize) {
        self.hit(xy, 0, 0, z);
    }

    /// Hitting-set enumeration: `clues` chosen so far, `excluded` cells that
    /// may no longer be chosen, `left` clues still to place.
    fn hit(&mut self, xy: Mask54, clues: Mask27, excluded: Mask27, left: usize) {
        let next = self
            .buffers
            .required
            .iter()
            .copied()
            .find(|&t| t & clues == 0);
        match next {
            None => self.complete(xy, clues, BAND_FULL & !excluded & !clues, left),
            Some(_) if left == 0 => {}
            Some(t) => {
                let mut excluded = excluded;
                let mut branch = t & !excluded;
                while branch != 0 {
                    let cell = branch & branch.wrapping_neg();
                    self.hit(xy, clues | cell, excluded, left - 1);
                    excluded |= cell;
                    branch &= branch - 1;
                }
            }
        }
    }

    /// Every way to add `left` cells of `free` to `clues` (all required sets
    /// are hit already, unless a fresh UA arrived meanwhile).
    fn complete(&mut self, xy: Mask54, clues: Mask27, free: Mask27, left: usize) {
        if left == 0 {
            if self.buffers.required.iter().all(|&t| t & clues != 0) {
                self.final_check(xy, clues);
            }
            return;
        }
        if (free.count_ones() as usize) < left {
            return;
        }
        let mut free = free;
        while free.count_ones() as usize >= left {
            let cell = free & free.wrapping_neg();
            free &= free - 1;
            self.complete(xy, clues | cell, free, left - 1);
        }
    }

    /// The full uniqueness check of XY ∪ Z.
    fn final_check(&mut self, xy: Mask54, z: Mask27) {
        self.stats.band3_candidates += 1;
        self.stats.final_checks += 1;
        let clues: Mask81 = xy as u128 | (z as u128) << 54;
        match other_solution(&self.grid, clues) {
            None => {
                if self.out.minimal_only && !is_minimal(&self.grid, clues) {
                    self.stats.non_minimal += 1;
                    return;
                }
                self.stats.found += 1;
                self.out.found.push(clues);
            }
            Some(other) => {
                let diff =
                    crate::search::harvest::minimal_ua(&self.grid, self.grid.difference(&other));
                let s = diff as u64 & BANDS12_FULL;
                let t = (diff >> 54) as u32;
                debug_assert!(t != 0, "XY was valid for bands 1+2, so band 3 must change");
                self.stats.fresh_uas += 1;
                if t == 0 {
                    self.out.fresh_ua12.push(s);
                    return;
                }
                if s == 0 {
                    self.add_band3_ua(t);
                } else {
                    self.add_gua(Gua { s, t });
                    self.out.fresh_guas.push((Gua { s, t }, other));
                }
                self.buffers.required.push(t);
            }
        }
    }
}
