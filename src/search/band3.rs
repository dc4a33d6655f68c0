//! The band-3 half of a search: everything that depends on band 3 (its
//! GUAs and their sockets, band 3's own UAs, the socket checks of part 1,
//! part 2 and the final check), kept apart from the bands-1+2 half
//! ([`super::part1::Bands12`]) so that one bands-1+2 state can serve every
//! band 3 of a catalogue entry (ARCHITECTURE.md, stages 5 to 8).
//!
//! Part 2 (stage 7): for a valid XY, band 3 needs exactly `z` clues that
//! hit every band-3 UA and the band-3 part `t` of every GUA whose
//! bands-1+2 part `s` XY misses. Those clue sets are enumerated as hitting
//! sets: take the first required set not yet hit and branch on its cells,
//! excluding the cells of earlier branches (so each clue set comes once);
//! when everything is hit, the clues still missing are any cells not
//! excluded. Each candidate gets the full uniqueness check (stage 8); a
//! failure yields a fresh UA, which joins the GUA list (it is one: the other
//! solution keeps XY, so its bands-1+2 part is missed by XY and its band-3
//! part must be hit).

use std::collections::HashMap;

use crate::bits::sockets::{groups_hit, mini_row_clues};
use crate::bits::{BAND_FULL, BANDS12_FULL, Mask27, Mask54, Mask81, cells27, cells54};
use crate::grid::Grid;
use crate::solver::other_solution;

use super::classes::{CLASS_SOCKETS, CLASS_WORDS, CLASSES, ClassMask, socket_classes};
use super::harvest::Gua;
use super::hitting::{
    MiniRowBound, Sockets, all_bits, can_hit, disjoint_sets_exceed, hitting_set, low_bits,
};
use super::sets::BAND1;
use super::{SearchConfig, Stats};

/// Most sockets (distinct band-3 parts of GUAs with bits in the step).
const MAX_SOCKETS: usize = Sockets::BITS as usize;
// The GUA index leaves the parts with sockets to the caller.
const _: () = assert!(MAX_SOCKETS == SOCKET_PARTS as usize);

/// No socket of a class in a band 3.
const NO_SOCKET: u8 = u8::MAX;

/// Most 64-bit words of GUA bits in a step vector.
const MAX_GUA_WORDS: usize = 8;

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
    /// which gains the small parts appended).
    fn missed_parts(
        &self,
        xy: Mask54,
        parts: &[(Mask27, u64)],
        small: &mut u64,
        out: &mut Vec<Mask27>,
    ) {
        let n = self.part.len();
        let words = n.div_ceil(64);
        // The rows of XY's cells, read a word at a time: no buffer to
        // clear and fill.
        let (rows, m) = crate::bits::row_starts(xy, self.stride);
        let rows = &rows[..m];
        // No branch on the parts, hard to predict: each is written, only
        // the count of those kept moves.
        let mut seen = *small;
        for w in 0..words {
            let h = rows.iter().fold(0, |h, &row| h | self.rows[row + w]);
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
/// first stage; measured in benches/README.md).
const STAGE1_CELLS: u32 = 6;

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
    fn missed_by(&self, xy: Mask54, open: u64, out: &mut Vec<Mask27>) -> Option<u64> {
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
    fn missed_large(&self, xy: Mask54, small: u64, out: &mut Vec<Mask27>) -> bool {
        let before = out.len();
        let mut small = small;
        self.slice_large
            .missed_parts(xy & !self.slice_pair, &self.parts, &mut small, out);
        out.len() > before
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
}

/// The band-3 state of one search grid (bands 1+2 and one band 3): its GUAs
/// and sockets (growing as final checks fail), the 17s found, counters, and
/// the per-X-slice views part 1 reads.
pub struct Band3State {
    /// The search grid: bands 1 and 2 as the bands-1+2 state has them,
    /// this band 3 as rows 6..9.
    pub grid: Grid,
    /// The mini-row sockets (0 to 35): class and T of each.
    class_sockets: [(u8, Mask27); CLASS_SOCKETS],
    /// The socket of each class (`NO_SOCKET`: none in this band 3).
    socket_of_class: [u8; CLASSES],
    /// The classes of the mini-row sockets, and their socket bits, for
    /// [`crate::bits::move_bits`] (socket numbers follow the classes).
    class_from: ClassMask,
    class_to: ClassMask,
    /// Set when the GUAs of the mini-row sockets get their bits in the
    /// [`super::classes::ClassGuas`] of the bands-1+2 state (`s17
    /// exhaust`; [`Self::use_class_bits`]).
    class_mode: bool,
    /// The GUAs with a socket that get GUA bits here, per band 3, and the
    /// socket of each, smallest S first: all of them, or in class mode
    /// those of sockets past the mini-row ones (fresh GUAs of other T's).
    guas: Vec<Gua>,
    gua_socket: Vec<u8>,
    /// The band-3 part of each socket.
    socket_t: Vec<Mask27>,
    /// For each socket, the other sockets whose T lies inside its T.
    socket_dom: Vec<Sockets>,
    /// For each UA inside band 3 (kept in the GUA index, in the same
    /// order), the sockets whose T lies inside it: with one of them open the
    /// UA is hit anyway.
    band3_holds: Vec<Sockets>,
    /// Every GUA, indexed by cell for part 2.
    gua_index: GuaIndex,
    config: SearchConfig,
    pub stats: Stats,
    /// The 17s found, as cell masks of the search grid.
    pub found: Vec<Mask81>,
    /// UA12 found by a final check (none is expected: XY was valid for
    /// bands 1+2), for the bands-1+2 state to take.
    pub(super) fresh_ua12: Vec<Mask54>,
    /// The fresh GUAs of the last part 2, each with the other solution
    /// its final check found, for the bands-1+2 state to hand on to other
    /// bands 3 (`s17 exhaust`; [`super::classes`]).
    pub(super) fresh_guas: Vec<(Gua, Grid)>,
    /// GUAs with a bit in this X slice: bands-1+2 part, socket; grouped
    /// by socket.
    guas_x: Vec<(Mask54, u8)>,
    /// Scratch list for sorting `guas_x`.
    guas_sorted: Vec<(Mask54, u8)>,
    /// GUAs with a socket that the X slice's pair misses but that got no
    /// GUA bit (past the limit): bands-1+2 part, socket. The GUA index
    /// reads them for band 3 on every GUA.
    guas_unbitted: Vec<(Mask54, u32)>,
    /// Per word of GUA bits: the top bit of each socket's group (its part
    /// in the word), and the other bits of the groups.
    gtop: [u64; MAX_GUA_WORDS],
    glow: [u64; MAX_GUA_WORDS],
    /// The socket of each GUA bit.
    gsocket: Vec<u8>,
    /// Per word of GUA bits: the top bits of the groups in socket order
    /// (all groups of the slice's start; a fresh GUA's group comes after),
    /// and their sockets (one each, in the same order).
    gtop_sorted: [u64; MAX_GUA_WORDS],
    gtop_sockets: [u64; MAX_GUA_WORDS],
    /// Per stack, for the mini-row bound ([`Self::mini_row_clues`]): the
    /// sockets of the stack's pairs of columns 2 and 3, in the row order
    /// of its other mini-row sockets (3 bits for each of the 8 values of
    /// the 3 sockets' bits).
    pairs12_rows: [u32; 3],
    /// Per band-3 cell: the sockets whose T holds it.
    cell_sockets: [Sockets; 27],
    /// The last [`WITNESSES`] band-3 clue sets found by the feasibility
    /// check (each hits band 3's UAs): the sockets each hits and its size.
    witnesses: Vec<(Sockets, u8)>,
    /// Where the next witness goes once the list is full.
    witness_next: usize,
    /// The X pair and the live cells of both bands of this X slice.
    slice_cells: (Mask54, Mask54),
    /// The live cells of the X slice's sets (band 1).
    slice_xlive: Mask54,
    /// Set while an X slice is searched: fresh sets join its lists.
    slice_active: bool,
    /// Sockets of `guas` open for every XY of this X slice.
    forced_x: Sockets,
    /// Words of GUA bits in this X slice.
    gwords: usize,
    /// Per cell of bands 1+2: the GUA bits whose set the cell hits.
    ghit: Vec<[u64; MAX_GUA_WORDS]>,
    /// The GUA bits every X of the slice misses.
    gx_all: [u64; MAX_GUA_WORDS],
    /// The number of GUA bits of the slice and the mask of them all (it
    /// grows when fresh GUAs join the slice).
    bits: (usize, [u64; MAX_GUA_WORDS]),
    band3: Band3Buffers,
}

/// Band-3 clue sets remembered as witnesses of feasibility.
const WITNESSES: usize = 32;

impl Band3State {
    /// The state of search grid `grid` with its harvested GUAs and band 3's
    /// own UAs.
    pub fn new(grid: Grid, guas: Vec<Gua>, band3_uas: Vec<Mask27>, config: SearchConfig) -> Self {
        let mut state = Band3State {
            grid,
            class_sockets: [(0, 0); CLASS_SOCKETS],
            socket_of_class: [NO_SOCKET; CLASSES],
            class_from: [0; CLASS_WORDS],
            class_to: [0; CLASS_WORDS],
            class_mode: false,
            guas: Vec::new(),
            gua_socket: Vec::new(),
            socket_t: Vec::new(),
            socket_dom: Vec::new(),
            band3_holds: Vec::new(),
            gua_index: Default::default(),
            config,
            stats: Stats {
                guas: guas.len() as u64,
                ..Stats::default()
            },
            found: Vec::new(),
            fresh_ua12: Vec::new(),
            fresh_guas: Vec::new(),
            guas_x: Vec::new(),
            guas_sorted: Vec::new(),
            guas_unbitted: Vec::new(),
            gtop: [0; MAX_GUA_WORDS],
            glow: [0; MAX_GUA_WORDS],
            gsocket: Vec::new(),
            gtop_sorted: [0; MAX_GUA_WORDS],
            gtop_sockets: [0; MAX_GUA_WORDS],
            pairs12_rows: [0; 3],
            cell_sockets: [0; 27],
            witnesses: Vec::new(),
            witness_next: 0,
            slice_cells: (0, 0),
            slice_xlive: 0,
            slice_active: false,
            forced_x: 0,
            gwords: 1,
            ghit: Vec::new(),
            gx_all: [0; MAX_GUA_WORDS],
            bits: (0, [0; MAX_GUA_WORDS]),
            band3: Default::default(),
        };
        // The mini-row sockets first, numbered by class.
        let band3: [u8; 27] = grid.digits()[54..].try_into().expect("27 cells");
        state.class_sockets = socket_classes(&band3);
        for (k, (class, t)) in socket_classes(&band3).into_iter().enumerate() {
            let id = state.gua_index.part_id(t) as usize;
            debug_assert_eq!(id, k);
            state.new_socket(t);
            let c = class as usize;
            state.socket_of_class[c] = k as u8;
            state.class_from[c / 64] |= 1 << (c % 64);
            state.class_to[c / 64] |= 1 << k;
        }
        state.pairs12_rows = pairs12_rows(&state.socket_t);
        for u in band3_uas {
            state.add_band3_ua(u);
        }
        for g in guas {
            state.add_gua(g);
        }
        state
    }

    /// Adds a GUA to the index band 3 reads; a GUA whose T is one of the
    /// first 64 distinct T's has a socket (the index's id of the T) and
    /// gets GUA bits here, but in class mode a GUA of a mini-row socket
    /// needs its S part filed in the [`super::classes::ClassGuas`] of the
    /// bands-1+2 state instead ([`Self::class_parts`], or as a fresh
    /// part).
    pub(super) fn add_gua(&mut self, g: Gua) {
        let socket = self.gua_index.push(g) as usize;
        if socket >= MAX_SOCKETS {
            self.gua_index.slice_push(g.s, socket as u32);
            return;
        }
        if socket == self.socket_t.len() {
            self.new_socket(g.t);
        }
        if self.class_mode && socket < CLASS_SOCKETS {
            return;
        }
        // Smallest bands-1+2 part first: those are missed most often, so
        // they take the step's bits first.
        let size = g.s.count_ones();
        let at = self.guas.partition_point(|h| h.s.count_ones() <= size);
        self.guas.insert(at, g);
        self.gua_socket.insert(at, socket as u8);
        self.slice_add_gua(g.s, socket);
    }

    /// A new socket with band-3 part `t` (the next socket number).
    fn new_socket(&mut self, t: Mask27) {
        let socket = self.socket_t.len();
        let mut dom = 0;
        for (r, &u) in self.socket_t.iter().enumerate() {
            if u & !t == 0 {
                dom |= 1 << r;
            } else if t & !u == 0 {
                self.socket_dom[r] |= 1 << socket;
            }
        }
        // A T inside one mini-row is a mini-row socket's: the mini-row
        // bound reads only those.
        debug_assert!(socket < CLASS_SOCKETS || MiniRowBound::bit(t) == 0);
        self.socket_t.push(t);
        self.socket_dom.push(dom);
        for c in cells27(t) {
            self.cell_sockets[c] |= 1 << socket;
        }
        for (holds, u) in self.band3_holds.iter_mut().zip(self.gua_index.band3_uas()) {
            if t & !u == 0 {
                *holds |= 1 << socket;
            }
        }
    }

    /// Class mode: the GUAs of the mini-row sockets get their bits in the
    /// [`super::classes::ClassGuas`] of the bands-1+2 state, shared with
    /// the other bands 3 of an entry, and the GUAs of other sockets get
    /// none (they are few, and with bits they cost more time per band 3
    /// than they save: they go to band 3 on every GUA, or force their
    /// socket).
    pub(super) fn use_class_bits(&mut self) {
        self.class_mode = true;
        let mut kept = 0;
        for k in 0..self.guas.len() {
            if self.gua_socket[k] as usize >= CLASS_SOCKETS {
                self.guas[kept] = self.guas[k];
                self.gua_socket[kept] = self.gua_socket[k];
                kept += 1;
            }
        }
        self.guas.truncate(kept);
        self.gua_socket.truncate(kept);
    }

    /// Most GUA bits of this band 3 in an X slice.
    fn bit_limit(&self) -> usize {
        if self.class_mode {
            0
        } else {
            self.config.gua_limit.min(64 * MAX_GUA_WORDS)
        }
    }

    /// The class and S part of every GUA of a mini-row socket, for the
    /// [`super::classes::ClassGuas`] of the bands-1+2 state.
    pub fn class_parts(&self) -> impl Iterator<Item = (u8, Mask54)> + '_ {
        let index = &self.gua_index;
        (0..index.s.len()).filter_map(move |k| {
            let id = index.all.part[k] as usize;
            (id < CLASS_SOCKETS).then(|| (self.class_sockets[id].0, index.s[k]))
        })
    }

    /// This band 3's socket of `class`, if it has one.
    fn class_socket(&self, class: u8) -> Option<u32> {
        match self.socket_of_class[class as usize] {
            NO_SOCKET => None,
            k => Some(k as u32),
        }
    }

    /// The T of this band 3's socket of `class`, if it has one.
    pub fn class_t(&self, class: u8) -> Option<Mask27> {
        self.class_socket(class)
            .map(|k| self.class_sockets[k as usize].1)
    }

    /// The class of a mini-row socket's T.
    pub fn class_of_t(&self, t: Mask27) -> Option<u8> {
        match self.gua_index.ids.get(&t) {
            Some(&id) if (id as usize) < CLASS_SOCKETS => Some(self.class_sockets[id as usize].0),
            _ => None,
        }
    }

    /// A part S of `class` found by another band 3 (or by a final check of
    /// this one whose T is not this class's): the GUA of S and this band
    /// 3's T of the class joins the index (the caller checks that the band
    /// 3 has the class). With `unbitted`, it got no bit in the X slice:
    /// band 3 on every GUA reads it.
    pub(super) fn add_class_gua(&mut self, class: u8, s: Mask54, unbitted: bool) {
        let socket = self.class_socket(class).expect("the band 3 has the class");
        let t = self.class_sockets[socket as usize].1;
        let id = self.gua_index.push(Gua { s, t });
        debug_assert_eq!(id, socket);
        if unbitted {
            self.mark_unbitted(class, s);
        }
    }

    /// A part S of `class` the X slice gave no bit (past the limit): band
    /// 3 on every GUA reads it, if this band 3 has the class.
    pub(super) fn mark_unbitted(&mut self, class: u8, s: Mask54) {
        if let Some(socket) = self.class_socket(class) {
            self.guas_unbitted.push((s, socket));
            self.gua_index.slice_push(s, socket);
        }
    }

    /// The mini-row sockets of the classes `classes`.
    #[inline]
    fn class_sockets_of(&self, classes: &ClassMask) -> Sockets {
        crate::bits::move_bits(classes, &self.class_from, &self.class_to)
    }

    /// A fresh GUA with a socket joins the current X slice: its socket is
    /// forced when no cell of the slice can hit it, else it gets the next
    /// GUA bit (a group of its own) while there is room, else it joins the
    /// GUAs band 3 on every GUA reads.
    fn slice_add_gua(&mut self, s: Mask54, socket: usize) {
        if self.forced_x & (1 << socket) != 0 {
            return;
        }
        let Some(v) = self.slice_cut(s) else {
            return;
        };
        if v == 0 {
            self.forced_x |= 1 << socket;
            return;
        }
        let k = self.guas_x.len();
        if k >= self.bit_limit() {
            self.guas_unbitted.push((s, socket as u32));
            self.gua_index.slice_push(s, socket as u32);
            return;
        }
        let (w, bit) = (k / 64, 1 << (k % 64));
        self.guas_x.push((v, socket as u8));
        self.gsocket.push(socket as u8);
        self.gtop[w] |= bit;
        for c in cells54(v) {
            self.ghit[c][w] |= bit;
        }
        if v & self.slice_xlive == 0 {
            self.gx_all[w] |= bit;
        }
        self.gwords = w + 1;
    }

    /// A fresh set of bands 1+2 as the current X slice sees it: `None` when
    /// no slice is searched or the slice's X pair hits it, else its cells
    /// that the slice's sets can still take (as `prepare_x_slice` cuts).
    fn slice_cut(&self, s: Mask54) -> Option<Mask54> {
        let (pair, cells) = self.slice_cells;
        (self.slice_active && s & pair == 0).then_some(s & cells & !pair)
    }

    /// Adds a UA inside band 3.
    pub(super) fn add_band3_ua(&mut self, t: Mask27) {
        let holds = (0..self.socket_t.len())
            .filter(|&k| self.socket_t[k] & !t == 0)
            .fold(0, |m, k| m | 1 << k);
        self.band3_holds.push(holds);
        self.gua_index.push_band3_ua(t);
    }

    /// Prepares the GUAs for an X slice with pair `a` and live cells `live`
    /// (band 1): each GUA of `guas` (all socketed ones, or in class mode
    /// those past the mini-row sockets) that the pair misses gets a GUA
    /// bit for the slice (up to the limit), or forces its socket when no
    /// cell of the slice can hit it. `class_unbitted` (class
    /// mode): the class parts the pair misses that got no bit in the
    /// [`super::classes::ClassGuas`].
    pub(super) fn prepare_x_slice(
        &mut self,
        a: Mask27,
        live: Mask27,
        class_unbitted: &[(Mask54, u8)],
    ) {
        let xlive = live as u64;
        let (a, live) = (a as u64, xlive | !BAND1);
        self.slice_active = true;
        self.slice_cells = (a, (a | live) & BANDS12_FULL);
        self.slice_xlive = xlive;
        let gua_limit = self.bit_limit();
        self.guas_x.clear();
        self.guas_unbitted.clear();
        self.gua_index.forget_slice();
        self.forced_x = 0;
        for (g, &socket) in self.guas.iter().zip(&self.gua_socket) {
            if g.s & a == 0 && self.forced_x & (1 << socket) == 0 {
                let v = g.s & live;
                if v == 0 {
                    self.forced_x |= 1 << socket;
                } else if self.guas_x.len() < gua_limit {
                    self.guas_x.push((v, socket));
                } else {
                    self.guas_unbitted.push((g.s, socket as u32));
                }
            }
        }
        for &(s, class) in class_unbitted {
            if let Some(socket) = self.class_socket(class) {
                self.guas_unbitted.push((s, socket));
            }
        }
        // Grouped by socket, so that finding the open sockets takes one
        // step per socket (see `sockets_of`).
        // A counting sort (stable, sockets < 64) into the scratch list.
        let mut start = [0u16; MAX_SOCKETS + 1];
        for &(_, socket) in &self.guas_x {
            start[socket as usize + 1] += 1;
        }
        for k in 0..MAX_SOCKETS {
            start[k + 1] += start[k];
        }
        self.guas_sorted.clear();
        self.guas_sorted.resize(self.guas_x.len(), (0, 0));
        for &(v, socket) in &self.guas_x {
            let at = &mut start[socket as usize];
            self.guas_sorted[*at as usize] = (v, socket);
            *at += 1;
        }
        std::mem::swap(&mut self.guas_x, &mut self.guas_sorted);
        self.gsocket.clear();
        self.gsocket
            .extend(self.guas_x.iter().map(|&(_, socket)| socket));
        let all = all_bits::<MAX_GUA_WORDS>(self.guas_x.len());
        self.gtop = [0; MAX_GUA_WORDS];
        for (k, pair) in self.gsocket.windows(2).enumerate() {
            // The last bit of a group, or of a word.
            if pair[0] != pair[1] || k % 64 == 63 {
                self.gtop[k / 64] |= 1 << (k % 64);
            }
        }
        if let Some(k) = self.gsocket.len().checked_sub(1) {
            self.gtop[k / 64] |= 1 << (k % 64);
        }
        self.glow = std::array::from_fn(|w| all[w] & !self.gtop[w]);
        // Each group's socket comes after the one before (counting sort),
        // and a socket has at most one group per word.
        self.gtop_sorted = self.gtop;
        self.gtop_sockets = [0; MAX_GUA_WORDS];
        for (w, &tops) in self.gtop.iter().enumerate() {
            for k in cells54(tops) {
                self.gtop_sockets[w] |= 1 << self.gsocket[64 * w + k];
            }
            // `sockets_of` moves the k-th top to the k-th socket.
            assert_eq!(tops.count_ones(), self.gtop_sockets[w].count_ones());
        }
        self.gwords = self.guas_x.len().div_ceil(64);
        self.ghit.clear();
        self.ghit.resize(54, [0; MAX_GUA_WORDS]);
        for (k, &(s, _)) in self.guas_x.iter().enumerate() {
            let mut cells = s;
            while cells != 0 {
                let c = cells.trailing_zeros() as usize;
                self.ghit[c][k / 64] |= 1 << (k % 64);
                cells &= cells - 1;
            }
        }
        let hit = hit_bits(&self.ghit, xlive, MAX_GUA_WORDS);
        self.gx_all = std::array::from_fn(|w| all[w] & !hit[w]);
        self.bits = (self.guas_x.len(), all);
    }

    /// The X slice is done: fresh sets no longer join its lists.
    pub(super) fn end_slice(&mut self) {
        self.slice_active = false;
    }

    /// The sockets open for every XY of a step whose Y cells (pair and
    /// live cells, bands-1+2 numbering) are `ycells`, given the classes
    /// open for every XY of the step (`classes`, in class mode, from the
    /// [`super::classes::ClassGuas`]); `None` when band 3 cannot take
    /// them with `z` clues (the step is dead for this band 3). The
    /// one-grid search asks exactly (bounds, witnesses, then a search);
    /// in class mode (`s17 exhaust`) the bounds alone decide here, and
    /// each survivor's band 3 on every GUA settles the rest: the witnesses
    /// answer almost every call there, but the searches for the others
    /// cost more than the steps they kill save (1.5 % of the time).
    #[inline]
    pub(super) fn step_forced(
        &mut self,
        ycells: Mask54,
        z: usize,
        classes: Option<&ClassMask>,
    ) -> Option<Sockets> {
        let mut forced = self.forced_x | classes.map_or(0, |c| self.class_sockets_of(c));
        if self.gwords > 0 {
            let yhit = hit_bits(&self.ghit, ycells, self.gwords);
            let missed: [u64; MAX_GUA_WORDS] = std::array::from_fn(|w| self.gx_all[w] & !yhit[w]);
            forced |= self.sockets_of(&missed[..self.gwords]);
        }
        let alive = if self.class_mode {
            self.bounds_pass(forced, z)
        } else {
            self.band3_can_take(forced, z)
        };
        alive.then_some(forced)
    }

    /// Whether a survivor XY of a step (`cells`: its cells but the X pair;
    /// `forced` as [`Self::step_forced`] gave; `class_open`, in class
    /// mode: this band 3's mini-row sockets whose classes are open for XY,
    /// else 0) can still be completed in
    /// band 3 with `z` clues, judged by bounds on the open sockets, then
    /// exactly by every GUA it misses; when true, the sets band 3 must hit
    /// are ready for [`Self::enumerate_band3`].
    #[inline]
    pub(super) fn survivor_passes(
        &mut self,
        cells: Mask54,
        xy: Mask54,
        forced: Sockets,
        z: usize,
        class_open: Sockets,
    ) -> bool {
        match self.survivor_bounds(cells, forced, z, class_open) {
            Some(open) => self.survivor_guas(xy, open, z),
            None => false,
        }
    }

    /// The first half of [`Self::survivor_passes`]: the survivor's open
    /// sockets, if their bounds let `z` clues hit them.
    #[inline]
    pub(super) fn survivor_bounds(
        &mut self,
        cells: Mask54,
        forced: Sockets,
        z: usize,
        class_open: Sockets,
    ) -> Option<Sockets> {
        let mut open = forced | self.forced_x | class_open;
        if self.gwords > 0 {
            // Fresh GUAs may have joined the slice (bits, forced sockets).
            if self.guas_x.len() != self.bits.0 {
                self.bits = (
                    self.guas_x.len(),
                    all_bits::<MAX_GUA_WORDS>(self.guas_x.len()),
                );
            }
            let all = self.bits.1;
            let hit = hit_bits(&self.ghit, cells, self.gwords);
            let missed: [u64; MAX_GUA_WORDS] = std::array::from_fn(|w| all[w] & !hit[w]);
            open |= self.sockets_of(&missed[..self.gwords]);
        }
        // The bounds only: when they leave it open, band 3 against every
        // GUA decides, with the open sockets' T's among its sets (a search
        // on the sockets alone first would repeat most of its work).
        if !self.bounds_pass(open, z) {
            self.stats.band3_dead += 1;
            return None;
        }
        Some(open)
    }

    /// The second half of [`Self::survivor_passes`]: band 3 against every
    /// GUA (the open sockets `open` for those with a GUA bit, the index's
    /// slice view for the others), far cheaper than the solver, and it
    /// kills most XY.
    #[inline]
    pub(super) fn survivor_guas(&mut self, xy: Mask54, open: Sockets, z: usize) -> bool {
        let (pair, live) = self.slice_cells;
        self.gua_index
            .prepare_slice(pair, live, &self.guas_unbitted);
        if !self.band3_required(xy, open, z) {
            self.stats.gua_dead += 1;
            return false;
        }
        true
    }

    /// The sockets of the GUA bits set in `missed`.
    #[inline]
    fn sockets_of(&self, missed: &[u64]) -> Sockets {
        let mut tops = [0; MAX_GUA_WORDS];
        let mut fresh = 0;
        for (w, &bits) in missed.iter().enumerate() {
            tops[w] = groups_hit(bits, self.gtop[w], self.glow[w]);
            fresh |= tops[w] & !self.gtop_sorted[w];
        }
        // The groups in socket order: their bits move to their sockets.
        let n = missed.len();
        let mut open =
            crate::bits::move_bits(&tops[..n], &self.gtop_sorted[..n], &self.gtop_sockets[..n]);
        // Fresh GUAs' groups (rare) one by one.
        if fresh != 0 {
            for (w, &tops) in tops[..n].iter().enumerate() {
                for k in cells54(tops & !self.gtop_sorted[w]) {
                    open |= 1 << self.gsocket[64 * w + k];
                }
            }
        }
        open
    }

    /// The [`MiniRowBound`] of the T's of the sockets `open`: the clues
    /// needed in the mini-rows with an open socket, one, or two where all
    /// three pairs are open. Only the mini-row sockets (0 to 35, numbered
    /// by class) lie inside a mini-row; in each stack, the groups of three
    /// sockets (pairs of columns 1+2, 1+3, 2+3, then whole mini-rows) come
    /// in the row order of the first column's digits, but the pairs of
    /// columns 2+3 in that of the second column's (`pairs12_rows` moves
    /// them into the first's).
    #[inline]
    fn mini_row_clues(&self, open: Sockets) -> usize {
        mini_row_clues(&self.pairs12_rows, open)
    }

    /// What the mini-row bound of a survivor needs from this band 3, for
    /// all bands 3 at once in part 1 (class mode): its classes (their bits
    /// packed in order are its mini-row sockets' bits,
    /// [`crate::bits::extract_each`]) and its `pairs12_rows` (for
    /// [`mini_row_clues`]).
    pub(super) fn bound_view(&self) -> (ClassMask, [u32; 3]) {
        (self.class_from, self.pairs12_rows)
    }

    /// Whether the bounds allow `z` clues to hit the T of every open
    /// socket, as [`Self::bounds_allow`] tells, but quicker: with only
    /// mini-row sockets open, pairwise disjoint T's lie in distinct
    /// mini-rows (two T's of one mini-row meet), so the mini-row bound is
    /// at least their number and settles it alone.
    #[inline]
    fn bounds_pass(&self, open: Sockets, z: usize) -> bool {
        if open >> CLASS_SOCKETS == 0 {
            self.mini_row_clues(open) <= z
        } else {
            self.bounds_allow(open, z).is_some()
        }
    }

    /// Whether the bounds allow `z` clues to hit the T of every open
    /// socket: the mini-row bound, then pairwise disjoint T's. If so, the
    /// open sockets whose T holds no other open socket's T (the others are
    /// hit with those); `None` when a bound exceeds `z`.
    #[inline]
    fn bounds_allow(&self, open: Sockets, z: usize) -> Option<Sockets> {
        // The mini-row bound first: it settles most calls.
        if self.mini_row_clues(open) > z {
            return None;
        }
        // A socket whose T holds another open socket's T is hit with it:
        // leave it out.
        let mut needed = open;
        let mut sockets = open;
        while sockets != 0 {
            let s = sockets.trailing_zeros() as usize;
            sockets &= sockets - 1;
            if open & self.socket_dom[s] != 0 {
                needed &= !(1 << s);
            }
        }
        (!disjoint_sets_exceed(&self.socket_t, needed, z)).then_some(needed)
    }

    /// Whether band 3 can hit its own UAs and the T of every open socket
    /// with `z` clues. (Not memoized: on slow grids a memo of the answers
    /// grows past the caches and costs more than the searches it saves.)
    fn band3_can_take(&mut self, open: Sockets, z: usize) -> bool {
        let Some(open) = self.bounds_allow(open, z) else {
            return false;
        };
        // A band-3 clue set that worked before and hits every open T (and
        // is small enough) answers yes: a short scan, cheaper than a search.
        if self
            .witnesses
            .iter()
            .any(|&(hit, size)| open & !hit == 0 && size as usize <= z)
        {
            return true;
        }
        // Socket T's first (2 or 3 cells: the strongest branching), then
        // band 3's own UAs.
        let mut required = std::mem::take(&mut self.band3.scratch);
        required.clear();
        let mut sockets = open;
        while sockets != 0 {
            required.push(self.socket_t[sockets.trailing_zeros() as usize]);
            sockets &= sockets - 1;
        }
        required.extend(
            self.gua_index
                .band3_uas()
                .zip(&self.band3_holds)
                .filter(|&(_, &holds)| holds & open == 0)
                .map(|(u, _)| u),
        );
        let found = hitting_set(&required, 0, 0, z, &mut self.band3.arena);
        self.band3.scratch = required;
        let Some(clues) = found else {
            return false;
        };
        let hit = cells27(clues).fold(0, |m, c| m | self.cell_sockets[c]);
        let size = clues.count_ones() as u8;
        if self.witnesses.len() < WITNESSES {
            self.witnesses.push((hit, size));
        } else {
            self.witnesses[self.witness_next] = (hit, size);
            self.witness_next = (self.witness_next + 1) % WITNESSES;
        }
        true
    }

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
        let staged = self.gua_index.missed_by(xy, open, &mut required);
        let mut feasible = can_hit(&required, 0, 0, z, &mut self.band3.arena);
        // The large parts only when the others leave XY alive (they seldom
        // decide: most XY die without them, at half the cost).
        if let Some(small) = staged
            && feasible
            && self.gua_index.missed_large(xy, small, &mut required)
        {
            feasible = can_hit(&required, 0, 0, z, &mut self.band3.arena);
        }
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
                debug_assert_eq!(clues.count_ones(), crate::plan::CLUES as u32);
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
                    self.fresh_ua12.push(s);
                    return;
                }
                if s == 0 {
                    self.add_band3_ua(t);
                } else {
                    self.add_gua(Gua { s, t });
                    self.fresh_guas.push((Gua { s, t }, other));
                }
                self.band3.required.push(t);
            }
        }
    }
}

/// The OR of the rows of `table` (one per cell) over the cells of `cells`.
#[inline]
fn hit_bits(table: &[[u64; MAX_GUA_WORDS]], cells: Mask54, words: usize) -> [u64; MAX_GUA_WORDS] {
    /// The first `W` words (the others are 0).
    #[inline]
    fn first<const W: usize>(
        table: &[[u64; MAX_GUA_WORDS]],
        cells: Mask54,
    ) -> [u64; MAX_GUA_WORDS] {
        let mut out = [0u64; MAX_GUA_WORDS];
        let mut cells = cells;
        while cells != 0 {
            let row = &table[cells.trailing_zeros() as usize];
            for w in 0..W {
                out[w] |= row[w];
            }
            cells &= cells - 1;
        }
        out
    }
    match words {
        0 => [0; MAX_GUA_WORDS],
        1 => first::<1>(table, cells),
        2 => first::<2>(table, cells),
        3 | 4 => first::<4>(table, cells),
        _ => first::<MAX_GUA_WORDS>(table, cells),
    }
}

/// The `pairs12_rows` of a band 3 whose sockets 0 to 35 have the T's
/// `socket_t` (see [`Band3State::mini_row_clues`]).
///
/// # Panics
/// If the mini-row sockets do not come in the order that bound reads.
fn pairs12_rows(socket_t: &[Mask27]) -> [u32; 3] {
    // The row (0 to 2) of each socket of a group of three.
    let rows = |first: usize| -> [u32; 3] {
        std::array::from_fn(|k| socket_t[first + k].trailing_zeros() / 9)
    };
    std::array::from_fn(|stack| {
        let order = rows(9 * stack);
        assert!(
            rows(9 * stack + 3) == order && rows(27 + 3 * stack) == order,
            "the mini-row sockets of stack {stack} are not in one row order"
        );
        let from = rows(9 * stack + 6);
        // Where each of the three sockets of pairs 2+3 goes.
        let to = from.map(|r| order.iter().position(|&q| q == r).expect("a row") as u32);
        (0..8u32).fold(0, |packed, g| {
            let moved = (0..3)
                .filter(|&k| g >> k & 1 != 0)
                .fold(0, |m, k| m | 1 << to[k]);
            packed | moved << (3 * g)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::band::band_uas;
    use crate::generate::random_grid;
    use crate::search::classes::{ClassGuas, Fresh};
    use crate::search::harvest::harvest_guas;

    /// Whether at most `z` cells hit every set: branch on a cell of the
    /// first set not hit yet (a hitting set holds one).
    fn brute(sets: &[Mask27], clues: Mask27, z: usize) -> bool {
        match sets.iter().find(|&&t| t & clues == 0) {
            None => true,
            Some(_) if z == 0 => false,
            Some(&t) => cells27(t).any(|c| brute(sets, clues | 1 << c, z - 1)),
        }
    }

    /// A random grid, its band 3's UAs and its band-3 state with the GUAs
    /// of the default harvest.
    fn harvested_state(rng: &mut fastrand::Rng) -> (Grid, Vec<Mask27>, Band3State) {
        let limits = SearchConfig::default().harvest_limits();
        let grid = random_grid(rng);
        let band3: [u8; 27] = grid.digits()[54..].try_into().unwrap();
        let uas = band_uas(&band3);
        let state = Band3State::new(
            grid,
            harvest_guas(&grid, &limits),
            uas.clone(),
            SearchConfig::default(),
        );
        (grid, uas, state)
    }

    /// A survivor's way through band 3 (its open sockets, then band 3 on
    /// every GUA, in two stages by the size of the parts) answers exactly
    /// whether `z` clues can hit the band-3 part of every GUA that XY
    /// misses and band 3's own UAs, read directly from the GUA list: on
    /// harvested grids with many added GUAs of every size, so that the
    /// slice's view holds small and large parts (random sets, not UAs:
    /// this checks the index, not soundness), fresh GUAs joining a slice
    /// included.
    #[test]
    fn survivor_check_agrees_with_every_gua() {
        use crate::search::hitting::can_hit;
        let mut rng = fastrand::Rng::with_seed(41);
        let (mut yes, mut no, mut staged) = (0, 0, 0);
        let random_cells = |rng: &mut fastrand::Rng, from: u64, n: usize| {
            let cells: Vec<usize> = (0..64).filter(|&c| from >> c & 1 != 0).collect();
            (0..n).fold(0u64, |m, _| m | 1 << cells[rng.usize(..cells.len())])
        };
        // Its T holds two cells or more, as a UA's part in a band does (a
        // T of one cell would lie in one mini-row without being a
        // mini-row socket's).
        let gua = |rng: &mut fastrand::Rng| {
            let (ns, nt) = (rng.usize(10..24), rng.usize(2..13));
            let t = loop {
                let t = random_cells(rng, BAND_FULL as u64, nt) as Mask27;
                if t.count_ones() >= 2 {
                    break t;
                }
            };
            Gua {
                s: random_cells(rng, BANDS12_FULL, ns),
                t,
            }
        };
        // A GUA filed in the state and, if its T is a mini-row socket's,
        // in the class bits (fresh or not), as `Bands12` does.
        let file = |state: &mut Band3State, classes: &mut ClassGuas, g: Gua, fresh: bool| {
            state.add_gua(g);
            let Some(class) = state.class_of_t(g.t).filter(|_| state.class_mode) else {
                return;
            };
            if !fresh {
                classes.add(class, g.s);
            } else if classes.add_fresh(class, g.s) == Fresh::Unbitted {
                state.mark_unbitted(class, g.s);
            }
        };
        // A random GUA of a mini-row socket.
        let class_gua = |rng: &mut fastrand::Rng, state: &Band3State| {
            let (_, t) = state.class_sockets[rng.usize(..CLASS_SOCKETS)];
            let n = rng.usize(14..26);
            Gua {
                s: random_cells(rng, BANDS12_FULL, n),
                t,
            }
        };
        // Class mode (bits shared by class, all or some of them) and the
        // one-grid search's bits per band 3.
        for (class_mode, limit) in [(true, 4096), (true, 60), (false, 0)] {
            let (grid, uas, mut state) = harvested_state(&mut rng);
            if class_mode {
                state.use_class_bits();
            }
            let mut classes = ClassGuas::new(limit);
            classes.add_sockets(&grid);
            for (class, s) in state.class_parts() {
                classes.add(class, s);
            }
            for _ in 0..600 {
                let g = gua(&mut rng);
                file(&mut state, &mut classes, g, false);
            }
            for _ in 0..100 {
                let g = class_gua(&mut rng, &state);
                file(&mut state, &mut classes, g, false);
            }
            for _ in 0..20 {
                // An X slice: its pair and live cells in band 1.
                let pair = random_cells(&mut rng, BAND1, 2) as Mask27;
                let live = random_cells(&mut rng, BAND1 & !(pair as u64), 12) as Mask27;
                classes.prepare_x_slice(pair, live);
                let unbitted = if class_mode { classes.unbitted() } else { &[] };
                state.prepare_x_slice(pair, live, unbitted);
                for round in 0..60 {
                    if round == 30 {
                        // Fresh GUAs join the slice.
                        for k in 0..40 {
                            let g = gua(&mut rng);
                            file(&mut state, &mut classes, g, true);
                            if k % 4 == 0 {
                                let g = class_gua(&mut rng, &state);
                                file(&mut state, &mut classes, g, true);
                            }
                        }
                    }
                    let z = rng.usize(5..=9);
                    let (nx, ny) = (rng.usize(2..7), rng.usize(4..11));
                    let x = random_cells(&mut rng, live as u64, nx);
                    let y = random_cells(&mut rng, BANDS12_FULL & !BAND1, ny);
                    let step_classes = class_mode.then(|| classes.step_forced(y));
                    let Some(forced) = state.step_forced(y, z, step_classes.as_ref()) else {
                        continue;
                    };
                    let xy = pair as u64 | x | y;
                    let open = class_mode.then(|| classes.open_classes(x | y));
                    let class_open = open.as_ref().map_or(0, |c| state.class_sockets_of(c));
                    let passes = state.survivor_passes(x | y, xy, forced, z, class_open);
                    let index = &state.gua_index;
                    let mut required: Vec<Mask27> = (0..index.s.len())
                        .filter(|&k| index.s[k] & xy == 0)
                        .map(|k| index.parts[index.all.part[k] as usize].0)
                        .collect();
                    staged += required.iter().any(|t| t.count_ones() > STAGE1_CELLS) as usize;
                    required.extend(&uas);
                    let expected = can_hit(&required, 0, 0, z, &mut Vec::new());
                    assert_eq!(passes, expected, "grid {grid}, xy {xy:#x}, z {z}");
                    if expected { yes += 1 } else { no += 1 }
                }
            }
            state.end_slice();
            classes.end_slice();
        }
        assert!(yes > 100 && no > 100 && staged > 500, "{yes} {no} {staged}");
    }

    /// The mini-row bound read from the socket bits equals the one built
    /// from the open sockets' T's, and the quick bounds agree with the
    /// full ones, on random socket sets of harvested grids (sockets past
    /// the mini-row ones included).
    #[test]
    fn mini_row_clues_agree_with_the_sockets_t() {
        let mut rng = fastrand::Rng::with_seed(32);
        let mut seen = [0usize; 10];
        for _ in 0..4 {
            let (grid, _, mut state) = harvested_state(&mut rng);
            // Sockets of larger T's (random sets: the bound reads T's only).
            while state.socket_t.len() < CLASS_SOCKETS + 12 {
                let t: Mask27 = (0..rng.usize(4..=7)).fold(0, |t, _| t | 1 << rng.usize(..27));
                if t.count_ones() < 4 {
                    continue;
                }
                let s = rng.u64(..) & BANDS12_FULL;
                state.add_gua(Gua { s, t });
            }
            let sockets = state.socket_t.len();
            for _ in 0..3000 {
                let mut open: Sockets = 0;
                for _ in 0..rng.usize(0..=24) {
                    open |= 1 << rng.usize(..sockets);
                }
                let mut bound = MiniRowBound::default();
                for s in cells54(open) {
                    bound.add(state.socket_t[s]);
                }
                let clues = state.mini_row_clues(open);
                assert_eq!(clues, bound.clues(), "open {open:#x}, grid {grid}");
                for z in clues.saturating_sub(1)..=clues + 1 {
                    let pass = state.bounds_allow(open, z).is_some();
                    assert_eq!(state.bounds_pass(open, z), pass, "open {open:#x}, z {z}");
                }
                seen[clues.min(9)] += 1;
            }
        }
        // Bounds from none to many, with mini-rows needing two.
        assert!(seen[0] > 0 && seen[9] > 0, "{seen:?}");
    }

    /// The socket check of part 1 (and its short cuts: mini-row bound,
    /// dominated sockets, disjoint sets, witnesses) answers exactly whether
    /// `z` clues can hit the open sockets' T's and band 3's own UAs, on
    /// random socket sets of harvested grids, bounds met exactly included.
    #[test]
    fn band3_can_take_agrees_with_brute_force() {
        let mut rng = fastrand::Rng::with_seed(31);
        let (mut tight, mut yes, mut no) = (0, 0, 0);
        for _ in 0..4 {
            let (grid, uas, mut state) = harvested_state(&mut rng);
            let sockets = state.socket_t.len();
            assert!(sockets > 8, "a grid has sockets");
            for _ in 0..1500 {
                let mut open: Sockets = 0;
                for _ in 0..rng.usize(0..=8) {
                    open |= 1 << rng.usize(..sockets);
                }
                let z = rng.usize(1..=7);
                let mut sets: Vec<Mask27> = cells54(open).map(|s| state.socket_t[s]).collect();
                sets.extend(&uas);
                let expected = brute(&sets, 0, z);
                tight += (state.mini_row_clues(open) == z) as usize;
                if expected {
                    yes += 1
                } else {
                    no += 1
                }
                assert_eq!(
                    state.band3_can_take(open, z),
                    expected,
                    "open {open:#x}, z {z}, grid {grid}"
                );
            }
        }
        // The sample meets every case: feasible, infeasible, bound = z.
        assert!(tight > 50 && yes > 500 && no > 500, "{tight} {yes} {no}");
    }
}
