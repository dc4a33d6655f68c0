//! The GUA index of a band 3 ([`GuaIndex`]): every GUA of a choice by
//! cell, with the distinct band-3 parts by id, so that the band-3 parts an
//! XY leaves to band 3 are read with one OR per cell of XY; and the view
//! of the current X slice, in two stages by the size of the parts.

use std::collections::HashMap;

use crate::bits::{Mask27, Mask54};
use crate::search::harvest::Gua;
use crate::search::hitting::low_bits;

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
    pub(super) all: CellRows,
    /// Each GUA's bands-1+2 part.
    pub(super) s: Vec<Mask54>,
    /// The GUAs without a socket (part id from [`SOCKET_PARTS`]; their
    /// indices in `all`) by the size class of their parts: the order of a
    /// slice's view.
    by_class: [Vec<u32>; 3],
    /// The GUAs that the X pair of the current X slice misses and that
    /// have no GUA bit in the slice (see [`GuaIndex::prepare_slice`]), with
    /// rows for the slice's live cells only (XY of the slice need no
    /// more), smallest parts first: those whose band-3 part has at most
    /// [`STAGE1_CELLS`] cells, then (`slice_large`) the others.
    slice: CellRows,
    slice_large: CellRows,
    /// The X pair and live cells of `slice` (none: pair 0, live 0).
    slice_pair: Mask54,
    slice_live: Mask54,
    /// The distinct band-3 parts by id, each with its small bit (small
    /// parts; 0 past the first 64) or the small bits of the small parts
    /// inside it (larger parts).
    pub(super) parts: Vec<(Mask27, u64)>,
    /// Small parts so far.
    small_count: usize,
    /// Band 3's UAs and the small bits of the small parts inside each.
    band3_uas: Vec<(Mask27, u64)>,
    /// Each distinct part's id.
    pub(super) ids: HashMap<Mask27, u32>,
}

/// GUAs indexed by cell: bit k of cell c's row is set when GUA k's
/// bands-1+2 part holds c; the part id of each GUA.
#[derive(Default)]
pub(super) struct CellRows {
    /// `rows[c * stride + w]`: word w of cell c's bits.
    rows: Vec<u64>,
    /// Words per cell row (room for growth).
    stride: usize,
    /// Each GUA's part id.
    pub(super) part: Vec<u32>,
    /// Scratch: the OR of an XY's rows (see [`CellRows::missed_parts`]).
    hit: Vec<u64>,
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
    /// which gains the small parts appended).
    fn missed_parts(
        &mut self,
        xy: Mask54,
        parts: &[(Mask27, u64)],
        small: &mut u64,
        out: &mut Vec<Mask27>,
    ) {
        let n = self.part.len();
        let words = n.div_ceil(64);
        // The OR of the rows of XY's cells, eight words at a time where
        // the CPU can (on slow grids a survivor reads a few thousand GUAs).
        self.hit.resize(words, 0);
        crate::bits::or_rows(&self.rows, self.stride, xy, &mut self.hit);
        // No branch on the parts, hard to predict: each is written, only
        // the count of those kept moves.
        let mut seen = *small;
        for (w, &h) in self.hit.iter().enumerate() {
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

/// Band 3 on every GUA first reads the GUAs of the slice's view whose
/// part has at most this many cells, and the others only for an XY that
/// survives those: on slow grids, most of the view's GUAs are fresh ones
/// with parts of 7 cells or more (half of them 9 or more), and 86 to 90 %
/// of the XY that die, die without them (8 cells: 99 %, but a larger
/// first stage; measured in benches/HISTORY.md).
pub(super) const STAGE1_CELLS: u32 = 6;

/// The part of a slice's view (`stage1` or `large`) for part `id` of
/// `parts`, by its size.
fn view_of<'a>(
    parts: &[(Mask27, u64)],
    id: u32,
    stage1: &'a mut CellRows,
    large: &'a mut CellRows,
) -> &'a mut CellRows {
    if parts[id as usize].0.count_ones() <= STAGE1_CELLS {
        stage1
    } else {
        large
    }
}

/// Parts of at most this many cells are small.
const SMALL_CELLS: u32 = 3;

/// The parts that may have a socket (ids below this): see
/// `search::part1`.
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
        let id = self.part_id(g.t);
        if id >= SOCKET_PARTS {
            self.by_class[size_class(g.t)].push(self.s.len() as u32);
        }
        self.all.push(g.s, id);
        self.s.push(g.s);
        id
    }

    /// The id of band-3 part `t`, given it if it has none yet (ids count
    /// the distinct parts from 0, in the order they first come).
    pub fn part_id(&mut self, t: Mask27) -> u32 {
        let next = self.parts.len() as u32;
        let id = *self.ids.entry(t).or_insert(next);
        if id == next {
            let bits = if t.count_ones() <= SMALL_CELLS {
                let bit = if self.small_count < 64 {
                    1 << self.small_count
                } else {
                    0
                };
                self.small_count += 1;
                // Larger sets holding the new small part.
                for (u, holds) in self.parts.iter_mut().chain(&mut self.band3_uas) {
                    if u.count_ones() > SMALL_CELLS && t & !*u == 0 {
                        *holds |= bit;
                    }
                }
                bit
            } else {
                self.small_holds(t)
            };
            self.parts.push((t, bits));
        }
        id
    }

    /// Adds a GUA (bands-1+2 part `s`, part `id`) to the slice's view, if
    /// there is one and the X pair misses it: for a fresh GUA without a
    /// GUA bit in the slice.
    pub fn slice_push(&mut self, s: Mask54, id: u32) {
        if self.slice_live != 0 && s & self.slice_pair == 0 {
            let view = view_of(&self.parts, id, &mut self.slice, &mut self.slice_large);
            view.push(s & self.slice_live, id);
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
        self.slice_large.clear();
        for (class, by_class) in self.by_class.iter().enumerate() {
            for &(s, id) in unsocketed {
                if s & pair == 0 && size_class(self.parts[id as usize].0) == class {
                    view_of(&self.parts, id, &mut self.slice, &mut self.slice_large)
                        .push(s & live, id);
                }
            }
            for &k in by_class {
                let (s, id) = (self.s[k as usize], self.all.part[k as usize]);
                if s & pair == 0 {
                    view_of(&self.parts, id, &mut self.slice, &mut self.slice_large)
                        .push(s & live, id);
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
    /// part appended before them. When XY belongs to the slice of the
    /// view, `open` must hold the sockets (part ids) of the GUAs with a
    /// GUA bit that XY misses: those parts are appended (small ones
    /// first), then those of the view's GUAs that XY misses (smallest
    /// first), but not the parts of more than [`STAGE1_CELLS`] cells: the
    /// result is `Some` of the small bits of the parts appended, for
    /// [`GuaIndex::missed_large`]. Otherwise every GUA is read, and the
    /// result is `None`.
    pub(super) fn missed_by(
        &mut self,
        xy: Mask54,
        open: u64,
        out: &mut Vec<Mask27>,
    ) -> Option<u64> {
        let mut small = 0;
        let mut staged = None;
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
                .missed_parts(xy & !pair, &self.parts, &mut small, out);
            while large != 0 {
                let (t, holds) = self.parts[large.trailing_zeros() as usize];
                large &= large - 1;
                if holds & small == 0 {
                    out.push(t);
                }
            }
            staged = Some(small);
        } else {
            self.all.missed_parts(xy, &self.parts, &mut small, out);
        }
        // As in `missed_parts`: no branch on the sets, each is written and
        // only the count of those kept moves.
        let mut kept = out.len();
        out.resize(kept + self.band3_uas.len(), 0);
        for &(t, holds) in &self.band3_uas {
            out[kept] = t;
            kept += (holds & small == 0) as usize;
        }
        out.truncate(kept);
        staged
    }

    /// After [`GuaIndex::missed_by`] gave `Some(small)` for XY: appends
    /// the parts of more than [`STAGE1_CELLS`] cells of the view's GUAs
    /// that XY misses (as `missed_by` would have); returns whether any was
    /// appended.
    pub(super) fn missed_large(&mut self, xy: Mask54, small: u64, out: &mut Vec<Mask27>) -> bool {
        let before = out.len();
        let mut small = small;
        self.slice_large
            .missed_parts(xy & !self.slice_pair, &self.parts, &mut small, out);
        out.len() > before
    }
}
