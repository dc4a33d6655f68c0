//! Part 2, band 3 (ARCHITECTURE.md, stage 7), and the final uniqueness
//! check (stage 8).
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
/// k's bands-1+2 part holds c, so the GUAs an XY misses are the zero
/// bits of the OR of its cells' rows. Many GUAs share their band-3 part:
/// each distinct part gets an id. Band 3's own UAs, required whatever XY
/// is, are kept here too.
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
    /// The GUAs (their indices in `all`) of each size class of their
    /// parts: the order of a slice's view.
    by_class: [Vec<u32>; 3],
    /// The GUAs that the X pair of the current X slice misses and that
    /// have no GUA bit in the slice (see [`GuaIndex::prepare_slice`]), with
    /// rows for the slice's live cells only (XY of the slice need no
    /// more), smallest parts first.
    slice: CellRows,
    /// The X pair and live cells of `slice` (none: pair 0, live 0).
    slice_pair: Mask54,
    slice_live: Mask54,
    /// The distinct band-3 parts by id, each with its small bit (small
    /// parts; 0 past the first 64) or the small bits of the small parts
    /// inside it (larger parts).
    parts: Vec<(Mask27, u64)>,
    /// Small parts so far.
    small_count: usize,
    /// Band 3's UAs and the small bits of the small parts inside each.
    band3_uas: Vec<(Mask27, u64)>,
    /// Each distinct part's id.
    ids: HashMap<Mask27, u32>,
}

/// GUAs indexed by cell: bit k of cell c's row is set when GUA k's
/// bands-1+2 part holds c; the part id of each GUA.
#[derive(Default)]
struct CellRows {
    /// `rows[c * stride + w]`: word w of cell c's bits.
    rows: Vec<u64>,
    /// Words per cell row (room for growth).
    stride: usize,
    /// Each GUA's part id.
    part: Vec<u32>,
}

impl CellRows {
    /// Adds a GUA with bands-1+2 cells `s` and part `id`.
    fn push(&mut self, s: Mask54, id: u32) {
        let k = self.part.len();
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
        self.part.push(id);
    }

    /// Drops every GUA (keeps the room).
    fn clear(&mut self) {
        let words = self.part.len().div_ceil(64);
        for c in 0..54 {
            self.rows[c * self.stride..c * self.stride + words].fill(0);
        }
        self.part.clear();
    }

    /// Appends to `out` the band-3 parts (from `parts`) of the GUAs that
    /// miss the cells `xy`, in the order of the GUAs, leaving out those
    /// that hold a small part already appended (their bits in `small`,
    /// which gains the small parts appended); `hit` is scratch space.
    fn missed_parts(
        &self,
        xy: Mask54,
        parts: &[(Mask27, u64)],
        hit: &mut Vec<u64>,
        small: &mut u64,
        out: &mut Vec<Mask27>,
    ) {
        let n = self.part.len();
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
        // No branch on the parts, hard to predict: each is written, only
        // the count of those kept moves.
        let mut seen = *small;
        for (w, &h) in hit.iter().enumerate() {
            let mut missed = !h & low_bits(n, w);
            if missed == 0 {
                continue;
            }
            let mut kept = out.len();
            out.resize(kept + missed.count_ones() as usize, 0);
            while missed != 0 {
                let (t, holds) =
                    parts[self.part[64 * w + missed.trailing_zeros() as usize] as usize];
                out[kept] = t;
                // A small part's bits are its own: a repeat is left out.
                kept += (holds & seen == 0) as usize;
                seen |= if t.count_ones() <= SMALL_CELLS {
                    holds
                } else {
                    0
                };
                missed &= missed - 1;
            }
            out.truncate(kept);
        }
        *small = seen;
    }
}

/// Parts of at most this many cells are small.
const SMALL_CELLS: u32 = 3;

/// The parts that may have a socket (ids below this): see
/// [`super::part1`].
pub const SOCKET_PARTS: u32 = 64;

/// The size class of a band-3 part (2 cells or fewer, 3, 4 or more): the
/// slice's GUAs come in this order, the strongest branching of the
/// hitting-set search first.
fn size_class(t: Mask27) -> usize {
    (t.count_ones() as usize).clamp(2, 4) - 2
}

impl GuaIndex {
    /// Adds a GUA; returns the id of its band-3 part (ids count the
    /// distinct parts from 0, in the order they first come).
    pub fn push(&mut self, g: Gua) -> u32 {
        let next = self.parts.len() as u32;
        let id = *self.ids.entry(g.t).or_insert(next);
        if id == next {
            let bits = if g.t.count_ones() <= SMALL_CELLS {
                let bit = if self.small_count < 64 {
                    1 << self.small_count
                } else {
                    0
                };
                self.small_count += 1;
                // Larger sets holding the new small part.
                for (t, holds) in self.parts.iter_mut().chain(&mut self.band3_uas) {
                    if t.count_ones() > SMALL_CELLS && g.t & !*t == 0 {
                        *holds |= bit;
                    }
                }
                bit
            } else {
                self.small_holds(g.t)
            };
            self.parts.push((g.t, bits));
        }
        self.by_class[size_class(g.t)].push(self.s.len() as u32);
        self.all.push(g.s, id);
        self.s.push(g.s);
        id
    }

    /// Adds a GUA (bands-1+2 part `s`, part `id`) to the slice's view, if
    /// there is one and the X pair misses it: for a fresh GUA without a
    /// GUA bit in the slice.
    pub fn slice_push(&mut self, s: Mask54, id: u32) {
        if self.slice_live != 0 && s & self.slice_pair == 0 {
            self.slice.push(s & self.slice_live, id);
        }
    }

    /// Drops the slice's view: the next [`GuaIndex::prepare_slice`]
    /// builds it afresh.
    pub fn forget_slice(&mut self) {
        (self.slice_pair, self.slice_live) = (0, 0);
    }

    /// Prepares the view of an X slice with pair `pair` and live cells
    /// `live` (both bands), unless it is ready: the GUAs the pair misses,
    /// cut to `live`, smallest parts first, except those with a socket
    /// (part id below [`SOCKET_PARTS`]): their sockets come with each XY
    /// ([`GuaIndex::missed_by`]). `unsocketed` lists the GUAs with a
    /// socket that the slice gave no GUA bit (bands-1+2 part, part id).
    pub fn prepare_slice(&mut self, pair: Mask54, live: Mask54, unsocketed: &[(Mask54, u32)]) {
        if (pair, live) == (self.slice_pair, self.slice_live) {
            return;
        }
        (self.slice_pair, self.slice_live) = (pair, live);
        self.slice.clear();
        for (class, by_class) in self.by_class.iter().enumerate() {
            for &(s, id) in unsocketed {
                if s & pair == 0 && size_class(self.parts[id as usize].0) == class {
                    self.slice.push(s & live, id);
                }
            }
            for &k in by_class {
                let (s, id) = (self.s[k as usize], self.all.part[k as usize]);
                if s & pair == 0 && id >= SOCKET_PARTS {
                    self.slice.push(s & live, id);
                }
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
        self.parts
            .iter()
            .filter(|&&(u, _)| u.count_ones() <= SMALL_CELLS && u & !t == 0)
            .fold(0, |m, &(_, bit)| m | bit)
    }

    /// Appends the band-3 parts of the GUAs whose bands-1+2 part misses
    /// `xy`, then band 3's UAs, leaving out the sets that hold a small
    /// part appended before them; `hit` is scratch space. When XY belongs
    /// to the slice of the view, `open` must hold the sockets (part ids)
    /// of the GUAs with a GUA bit that XY misses: those parts are appended
    /// (small ones first), then those of the view's GUAs that XY misses
    /// (smallest first); otherwise every GUA is read.
    fn missed_by(&self, xy: Mask54, open: u64, hit: &mut Vec<u64>, out: &mut Vec<Mask27>) {
        let mut small = 0;
        // In the current slice, the GUAs the pair hits are left out and
        // the pair cells need no rows.
        let pair = self.slice_pair;
        if self.slice_live != 0 && xy & pair == pair && xy & !self.slice_live == 0 {
            let mut large = 0u64;
            let mut sockets = open;
            while sockets != 0 {
                let id = sockets.trailing_zeros() as usize;
                sockets &= sockets - 1;
                let (t, holds) = self.parts[id];
                if t.count_ones() <= SMALL_CELLS {
                    // A small part's bits are its own.
                    small |= holds;
                    out.push(t);
                } else {
                    large |= 1 << id;
                }
            }
            self.slice
                .missed_parts(xy & !pair, &self.parts, hit, &mut small, out);
            while large != 0 {
                let (t, holds) = self.parts[large.trailing_zeros() as usize];
                large &= large - 1;
                if holds & small == 0 {
                    out.push(t);
                }
            }
        } else {
            self.all.missed_parts(xy, &self.parts, hit, &mut small, out);
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
}

impl ChoiceState {
    /// Completes a valid XY with `z` clues in band 3 in every way that can
    /// give a unique puzzle, and keeps those that do.
    pub(super) fn solve_band3(&mut self, xy: Mask54, z: usize) {
        self.gua_index.forget_slice();
        if self.band3_required(xy, 0, z) {
            self.enumerate_band3(xy, z);
        }
    }

    /// Collects the sets band 3 must hit after XY (the band-3 parts of the
    /// GUAs XY misses, then band 3's own UAs) and tells whether `z` clues
    /// can hit them all; `open` as for [`GuaIndex::missed_by`].
    pub(super) fn band3_required(&mut self, xy: Mask54, open: u64, z: usize) -> bool {
        let mut required = std::mem::take(&mut self.band3.required);
        required.clear();
        self.gua_index
            .missed_by(xy, open, &mut self.band3.hit, &mut required);
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
