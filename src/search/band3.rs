//! Part 2, band 3 (SPEC §4 step 6), and the final uniqueness check.
//!
//! For a valid XY, band 3 needs exactly `z` clues that hit every band-3 UA
//! and the band-3 part `t` of every GUA whose bands-1+2 part `s` XY misses.
//! Those clue sets are enumerated as hitting sets: take the first required
//! set not yet hit and branch on its cells, excluding the cells of earlier
//! branches (so each clue set comes once); when everything is hit, the clues
//! still missing are any cells not excluded. Each candidate gets the full
//! uniqueness check; a failure yields a fresh UA, which joins the GUA list
//! (it is one: the other solution keeps XY, so its bands-1+2 part is missed
//! by XY and its band-3 part must be hit).

use std::collections::HashMap;

use crate::bits::{BAND_FULL, BANDS12_FULL, Mask27, Mask54, Mask81};
use crate::solver::other_solution;

use super::harvest::Gua;
use super::part1::{ChoiceState, low_bits};

/// Every GUA of a choice (harvested and fresh) indexed by cell: bit k of
/// cell c's row (one flat array, rows of `stride` words) is set when GUA
/// k's bands-1+2 part holds cell c, so the GUAs an XY misses are the zero
/// bits of the OR of its cells' rows. Many GUAs
/// share their band-3 part: each distinct part gets an id, so the parts an
/// XY leaves to band 3 come without repeats. Band 3's own UAs, required
/// whatever XY is, are kept here too.
///
/// A set that holds a smaller required set is hit with it: the *small*
/// parts (at most 3 cells; the first 64 of them) get a bit each, and every
/// larger part and band-3 UA the bits of the small parts inside it, so
/// those sets are left out by one test.
#[derive(Default)]
pub struct GuaIndex {
    /// Every GUA.
    all: CellRows,
    /// Each GUA's bands-1+2 part.
    s: Vec<Mask54>,
    /// The GUAs that the X pair of the current X slice misses, with rows
    /// for the slice's live cells only: XY of the slice need no more.
    slice: CellRows,
    /// The X pair and live cells of `slice` (no slice: pair 0, live 0).
    slice_pair: Mask54,
    slice_live: Mask54,
    /// The distinct band-3 parts by size bucket (2 cells or fewer, 3, 4 or
    /// more), each bucket in order of arrival, each with its small bit
    /// (small parts, 0 past the first 64) or the small bits of the small
    /// parts inside it (larger parts): one record, one cache line to read.
    parts: [Vec<(Mask27, u64)>; BUCKETS],
    /// Small parts so far.
    small_count: usize,
    /// Band 3's UAs and the small bits of the small parts inside each.
    band3_uas: Vec<(Mask27, u64)>,
    /// Each distinct part's id and bucket key.
    ids: HashMap<Mask27, (u32, BucketKey)>,
}

/// GUAs indexed by cell: bit k of cell c's row is set when GUA k's
/// bands-1+2 part holds c; each GUA's band-3 part as a [`BucketKey`].
#[derive(Default)]
struct CellRows {
    /// `rows[c * stride + w]`: word w of cell c's bits.
    rows: Vec<u64>,
    /// Words per cell row (room for growth).
    stride: usize,
    /// Each GUA's part.
    key: Vec<BucketKey>,
}

impl CellRows {
    /// Adds a GUA with bands-1+2 cells `s` and part `key`.
    fn push(&mut self, s: Mask54, key: BucketKey) {
        let k = self.key.len();
        if k / 64 >= self.stride {
            let stride = (2 * self.stride).max(16);
            let mut rows = vec![0u64; 54 * stride];
            for c in 0..54 {
                rows[c * stride..c * stride + self.stride]
                    .copy_from_slice(&self.rows[c * self.stride..(c + 1) * self.stride]);
            }
            (self.rows, self.stride) = (rows, stride);
        }
        let mut cells = s;
        while cells != 0 {
            self.rows[cells.trailing_zeros() as usize * self.stride + k / 64] |= 1 << (k % 64);
            cells &= cells - 1;
        }
        self.key.push(key);
    }

    /// Drops every GUA (keeps the room).
    fn clear(&mut self) {
        let words = self.key.len().div_ceil(64);
        for c in 0..54 {
            self.rows[c * self.stride..c * self.stride + words].fill(0);
        }
        self.key.clear();
    }

    /// Marks in `seen` the parts of the GUAs that miss the cells `xy`
    /// (`hit` is scratch space).
    fn mark_missed(&self, xy: Mask54, hit: &mut Vec<u64>, seen: &mut [Vec<u64>; BUCKETS]) {
        let n = self.key.len();
        let words = n.div_ceil(64);
        hit.clear();
        hit.resize(words, 0);
        let mut cells = xy;
        while cells != 0 {
            let c = cells.trailing_zeros() as usize;
            cells &= cells - 1;
            let row = &self.rows[c * self.stride..c * self.stride + words];
            for (h, &r) in hit.iter_mut().zip(row) {
                *h |= r;
            }
        }
        for (w, &h) in hit.iter().enumerate() {
            let mut missed = !h & low_bits(n, w);
            while missed != 0 {
                let key = self.key[64 * w + missed.trailing_zeros() as usize];
                let (b, local) = (
                    (key >> BUCKET_SHIFT) as usize,
                    (key & ((1 << BUCKET_SHIFT) - 1)) as usize,
                );
                seen[b][local / 64] |= 1 << (local % 64);
                missed &= missed - 1;
            }
        }
    }
}

/// A part's bucket (top bits) and index in its bucket.
type BucketKey = u32;
const BUCKET_SHIFT: u32 = 28;

/// Size buckets of band-3 parts.
const BUCKETS: usize = 3;
/// The buckets of small parts (at most 3 cells).
const SMALL_BUCKETS: usize = 2;

/// The bucket of a band-3 part: the smallest parts first (the strongest
/// branching of the hitting-set search).
fn bucket(t: Mask27) -> usize {
    match t.count_ones() {
        0..=2 => 0,
        3 => 1,
        _ => 2,
    }
}

impl GuaIndex {
    /// Adds a GUA; returns the id of its band-3 part (ids count the
    /// distinct parts from 0, in the order they first come).
    pub fn push(&mut self, g: Gua) -> u32 {
        let next = self.ids.len() as u32;
        let b = bucket(g.t);
        let local = self.parts[b].len() as u32;
        let (id, key) = *self
            .ids
            .entry(g.t)
            .or_insert((next, (b as u32) << BUCKET_SHIFT | local));
        if id == next {
            let bits = if b < SMALL_BUCKETS {
                let bit = if self.small_count < 64 {
                    1 << self.small_count
                } else {
                    0
                };
                self.small_count += 1;
                // Larger sets holding the new small part.
                for (t, holds) in self.parts[SMALL_BUCKETS..]
                    .iter_mut()
                    .flatten()
                    .chain(&mut self.band3_uas)
                {
                    if g.t & !*t == 0 {
                        *holds |= bit;
                    }
                }
                bit
            } else {
                self.small_holds(g.t)
            };
            self.parts[b].push((g.t, bits));
        }
        self.all.push(g.s, key);
        self.s.push(g.s);
        if self.slice_live != 0 && g.s & self.slice_pair == 0 {
            self.slice.push(g.s & self.slice_live, key);
        }
        id
    }

    /// Prepares the view of an X slice with pair `pair` and live cells
    /// `live` (both bands): the GUAs the pair misses, cut to `live`.
    pub fn prepare_slice(&mut self, pair: Mask54, live: Mask54) {
        if (pair, live) == (self.slice_pair, self.slice_live) {
            return;
        }
        (self.slice_pair, self.slice_live) = (pair, live);
        self.slice.clear();
        for (&s, &key) in self.s.iter().zip(&self.all.key) {
            if s & pair == 0 {
                self.slice.push(s & live, key);
            }
        }
    }

    /// Adds a UA inside band 3 (required whatever XY is).
    pub fn push_band3_ua(&mut self, t: Mask27) {
        self.band3_uas.push((t, self.small_holds(t)));
    }

    /// The UAs inside band 3, in the order they came.
    pub fn band3_uas(&self) -> impl Iterator<Item = Mask27> + '_ {
        self.band3_uas.iter().map(|&(t, _)| t)
    }

    /// The small bits of the small parts inside `t`.
    fn small_holds(&self, t: Mask27) -> u64 {
        self.parts[..SMALL_BUCKETS]
            .iter()
            .flatten()
            .filter(|&&(u, _)| u & !t == 0)
            .fold(0, |m, &(_, bit)| m | bit)
    }

    /// Appends the distinct band-3 parts of the GUAs whose bands-1+2 part
    /// misses `xy`, smallest first, then band 3's UAs, leaving out the sets
    /// that hold a small part appended; `hit` and `seen` are scratch space.
    fn missed_by(
        &self,
        xy: Mask54,
        hit: &mut Vec<u64>,
        seen: &mut [Vec<u64>; BUCKETS],
        out: &mut Vec<Mask27>,
    ) {
        for (b, seen) in seen.iter_mut().enumerate() {
            seen.clear();
            seen.resize(self.parts[b].len().div_ceil(64), 0);
        }
        // In the current slice, the GUAs the pair hits are left out and
        // the pair cells need no rows.
        let pair = self.slice_pair;
        if self.slice_live != 0 && xy & pair == pair && xy & !self.slice_live == 0 {
            self.slice.mark_missed(xy & !pair, hit, seen);
        } else {
            self.all.mark_missed(xy, hit, seen);
        }
        // The small parts first, then the larger parts and band 3's UAs
        // that hold none of them.
        // (No branch on the larger parts, hard to predict: each is written,
        // only the count of those kept moves.)
        let mut small = 0;
        for (b, seen) in seen.iter().enumerate() {
            let parts = &self.parts[b];
            let keep_all = b < SMALL_BUCKETS;
            for (w, &bits) in seen.iter().enumerate().filter(|&(_, &bits)| bits != 0) {
                let mut bits = bits;
                let mut kept = out.len();
                out.resize(kept + bits.count_ones() as usize, 0);
                while bits != 0 {
                    let (t, holds) = parts[64 * w + bits.trailing_zeros() as usize];
                    if keep_all {
                        small |= holds;
                    }
                    out[kept] = t;
                    kept += (keep_all || holds & small == 0) as usize;
                    bits &= bits - 1;
                }
                out.truncate(kept);
            }
        }
        out.extend(
            self.band3_uas
                .iter()
                .filter(|&&(_, holds)| holds & small == 0)
                .map(|&(t, _)| t),
        );
    }
}

/// Buffers of part 2, reused across XY.
#[derive(Default)]
pub struct Band3Buffers {
    /// Band-3 parts of the sets the current XY leaves to band 3.
    required: Vec<Mask27>,
    /// Scratch list for feasibility checks.
    pub scratch: Vec<Mask27>,
    /// Scratch space of the hitting-set search.
    pub arena: Vec<Mask27>,
    /// Scratch bits for the GUA index.
    hit: Vec<u64>,
    seen: [Vec<u64>; BUCKETS],
}

impl ChoiceState {
    /// Completes a valid XY with `z` clues in band 3 in every way that can
    /// give a unique puzzle, and keeps those that do.
    pub(super) fn solve_band3(&mut self, xy: Mask54, z: usize) {
        if self.band3_required(xy, z) {
            self.enumerate_band3(xy, z);
        }
    }

    /// Collects the sets band 3 must hit after XY (the band-3 parts of the
    /// GUAs XY misses, then band 3's own UAs) and tells whether `z` clues
    /// can hit them all.
    pub(super) fn band3_required(&mut self, xy: Mask54, z: usize) -> bool {
        let mut required = std::mem::take(&mut self.band3.required);
        required.clear();
        self.gua_index
            .missed_by(xy, &mut self.band3.hit, &mut self.band3.seen, &mut required);
        let feasible = super::part1::can_hit(&required, 0, 0, z, &mut self.band3.arena);
        self.band3.required = required;
        feasible
    }

    /// The band-3 enumeration for XY once [`Self::band3_required`] has
    /// filled the required sets.
    pub(super) fn enumerate_band3(&mut self, xy: Mask54, z: usize) {
        self.hit(xy, 0, 0, z);
    }

    /// Hitting-set enumeration: `clues` chosen so far, `excluded` cells that
    /// may no longer be chosen, `left` clues still to place.
    fn hit(&mut self, xy: Mask54, clues: Mask27, excluded: Mask27, left: usize) {
        let next = self
            .band3
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
            if self.band3.required.iter().all(|&t| t & clues != 0) {
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
                debug_assert_eq!(clues.count_ones(), super::plan::CLUES as u32);
                self.stats.found += 1;
                self.found.push(clues);
            }
            Some(other) => {
                let diff = super::harvest::minimal_ua(&self.grid, self.grid.difference(&other));
                let s = diff as u64 & BANDS12_FULL;
                let t = (diff >> 54) as u32;
                debug_assert!(t != 0, "XY was valid for bands 1+2, so band 3 must change");
                self.stats.fresh_uas += 1;
                if t == 0 {
                    self.ua12.push(s);
                    return;
                }
                if s == 0 {
                    self.add_band3_ua(t);
                } else {
                    self.add_gua(Gua { s, t });
                }
                self.band3.required.push(t);
            }
        }
    }
}
