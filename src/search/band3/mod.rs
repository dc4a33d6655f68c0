//! The band-3 half of a search: everything that depends on band 3 (its
//! GUAs and their sockets, band 3's own UAs, the socket checks of part 1,
//! part 2 and the final check), kept apart from the bands-1+2 half
//! ([`super::part1::Bands12`]) so that one bands-1+2 state can serve every
//! band 3 of a catalogue entry (ARCHITECTURE.md, stages 5 to 8).
//!
//! Part 1 asks a [`Band3State`] its questions through a few methods and
//! reads none of its fields: per X slice `Band3State::prepare_x_slice`
//! and `Band3State::end_slice`, per step `Band3State::step_forced`,
//! per survivor `Band3State::survivor_passes` (or its two halves), and
//! for a valid XY `Band3State::enumerate_band3`.
//!
//! - `sockets`: the socket geometry of band 3 and the bounds on the
//!   clues its open sockets need.
//! - `slice`: the GUA bits of the current X slice.
//! - `index`: every GUA by cell, for band 3 on every GUA and part 2.
//! - `checks`: the socket checks of a step and of a survivor.
//! - `part2`: the band-3 completion of a valid XY and the final check.

mod checks;
mod index;
mod part2;
mod slice;
mod sockets;
#[cfg(test)]
mod tests;

use crate::bits::{Mask27, Mask54, Mask81};
use crate::grid::Grid;

use super::harvest::Gua;
use super::hitting::Sockets;
use super::signatures::{CLASS_SOCKETS, ClassMask};
use super::{SearchConfig, Stats};

use checks::Witnesses;
use index::{GuaIndex, SOCKET_PARTS};
use part2::Band3Buffers;
use slice::SliceBits;
use sockets::BandSockets;

/// Most sockets (distinct band-3 parts of GUAs with bits in the step).
const MAX_SOCKETS: usize = Sockets::BITS as usize;
// The GUA index leaves the parts with sockets to the caller.
const _: () = assert!(MAX_SOCKETS == SOCKET_PARTS as usize);

/// Most 64-bit words of GUA bits in a step vector.
const MAX_GUA_WORDS: usize = 8;

/// What a band 3 found: the puzzles, and the fresh sets its final checks
/// gave that the bands-1+2 state takes; and which puzzles it keeps.
#[derive(Default)]
struct Results {
    /// The puzzles found, as cell masks of the search grid.
    found: Vec<Mask81>,
    /// Keep only the minimal puzzles (N > 17).
    minimal_only: bool,
    /// Stop at the first puzzle kept (the bands-1+2 state holds the stop
    /// flag of a grid's search: [`super::part1::Bands12::keep`]).
    first: bool,
    /// UA12 found by a final check (none is expected: XY was valid for
    /// bands 1+2), for the bands-1+2 state to take.
    fresh_ua12: Vec<Mask54>,
    /// The fresh GUAs of the last part 2, each with the other solution
    /// its final check found, for the bands-1+2 state to hand on to other
    /// bands 3 (`s17 exhaust`; [`super::shared::classes`]).
    fresh_guas: Vec<(Gua, Grid)>,
}

/// The band-3 state of one search grid (bands 1+2 and one band 3): its GUAs
/// and sockets (growing as final checks fail), the 17s found, counters, and
/// the per-X-slice views part 1 asks about.
pub struct Band3State {
    /// The search grid: bands 1 and 2 as the bands-1+2 state has them,
    /// this band 3 as rows 6..9.
    grid: Grid,
    /// The sockets and their T's.
    sockets: BandSockets,
    /// Set when the GUAs of the mini-row sockets get their bits in the
    /// [`super::shared::classes::ClassGuas`] of the bands-1+2 state (`s17
    /// exhaust`; [`Self::use_class_bits`]).
    class_mode: bool,
    /// The GUAs with a socket that get GUA bits here, per band 3, and the
    /// socket of each, smallest S first: all of them, or in class mode
    /// those of sockets past the mini-row ones (fresh GUAs of other T's).
    guas: Vec<Gua>,
    gua_socket: Vec<u8>,
    /// Every GUA, indexed by cell for part 2.
    gua_index: GuaIndex,
    /// The GUA bits of the current X slice.
    slice: SliceBits,
    /// Clue sets that answered the step check before.
    witnesses: Witnesses,
    config: SearchConfig,
    stats: Stats,
    /// The 17s and the fresh sets found.
    out: Results,
    buffers: Band3Buffers,
}

impl Band3State {
    /// The state of search grid `grid` with its harvested GUAs and band 3's
    /// own UAs.
    pub fn new(grid: Grid, guas: Vec<Gua>, band3_uas: Vec<Mask27>, config: SearchConfig) -> Self {
        let mut state = Band3State {
            grid,
            sockets: BandSockets::new(),
            class_mode: false,
            guas: Vec::new(),
            gua_socket: Vec::new(),
            gua_index: Default::default(),
            slice: SliceBits::new(),
            witnesses: Witnesses::default(),
            config,
            stats: Stats {
                guas: guas.len() as u64,
                ..Stats::default()
            },
            out: Results::default(),
            buffers: Default::default(),
        };
        // The mini-row sockets first, numbered by class.
        let band3: [u8; 27] = grid.digits()[54..].try_into().expect("27 cells");
        let index = &mut state.gua_index;
        state.sockets.add_mini_rows(&band3, |t| index.part_id(t));
        for u in band3_uas {
            state.add_band3_ua(u);
        }
        for g in guas {
            state.add_gua(g);
        }
        state
    }

    /// The search grid.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The counters of the band-3 stages.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Which puzzles to keep: with `minimal_only`, those no clue can be
    /// removed from; with `first`, this band 3 stops at its first one.
    pub(in crate::search) fn keep(&mut self, minimal_only: bool, first: bool) {
        self.out.minimal_only = minimal_only;
        self.out.first = first;
    }

    /// Whether this band 3 stops at its first puzzle and has found it:
    /// then no step takes it any more.
    #[inline]
    pub(in crate::search) fn finished(&self) -> bool {
        self.out.first && !self.out.found.is_empty()
    }

    /// The puzzles found, as cell masks of the search grid.
    pub fn found(&self) -> &[Mask81] {
        &self.out.found
    }

    /// The UA12 the final checks found since the last call (none is
    /// expected), for the bands-1+2 state.
    pub(in crate::search) fn take_fresh_ua12(&mut self) -> Vec<Mask54> {
        std::mem::take(&mut self.out.fresh_ua12)
    }

    /// The fresh GUAs the final checks found since the last call, each
    /// with its other solution, for the bands-1+2 state to hand on.
    pub(in crate::search) fn take_fresh_guas(&mut self) -> Vec<(Gua, Grid)> {
        std::mem::take(&mut self.out.fresh_guas)
    }

    /// Adds a GUA to the index band 3 reads; a GUA whose T is one of the
    /// first 64 distinct T's has a socket (the index's id of the T) and
    /// gets GUA bits here, but in class mode a GUA of a mini-row socket
    /// needs its S part filed in the [`super::shared::classes::ClassGuas`] of the
    /// bands-1+2 state instead ([`Self::class_parts`], or as a fresh
    /// part).
    pub(in crate::search) fn add_gua(&mut self, g: Gua) {
        let socket = self.gua_index.push(g) as usize;
        if socket >= MAX_SOCKETS {
            self.gua_index.slice_push(g.s, socket as u32);
            return;
        }
        if socket == self.sockets.socket_t.len() {
            self.sockets.add(g.t, self.gua_index.band3_uas());
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
        // It joins the current X slice.
        if self.slice.add(g.s, socket, self.bit_limit()) {
            self.gua_index.slice_push(g.s, socket as u32);
        }
    }

    /// Class mode: the GUAs of the mini-row sockets get their bits in the
    /// [`super::shared::classes::ClassGuas`] of the bands-1+2 state, shared with
    /// the other bands 3 of an entry, and the GUAs of other sockets get
    /// none (they are few, and with bits they cost more time per band 3
    /// than they save: they go to band 3 on every GUA, or force their
    /// socket).
    pub(in crate::search) fn use_class_bits(&mut self) {
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
    /// [`super::shared::classes::ClassGuas`] of the bands-1+2 state.
    pub fn class_parts(&self) -> impl Iterator<Item = (u8, Mask54)> + '_ {
        let index = &self.gua_index;
        (0..index.s.len()).filter_map(move |k| {
            let id = index.all.part[k] as usize;
            (id < CLASS_SOCKETS).then(|| (self.sockets.class_sockets[id].0, index.s[k]))
        })
    }

    /// The T of this band 3's socket of `class`, if it has one.
    pub fn class_t(&self, class: u8) -> Option<Mask27> {
        self.sockets
            .class_socket(class)
            .map(|k| self.sockets.class_sockets[k as usize].1)
    }

    /// The class of a mini-row socket's T.
    pub fn class_of_t(&self, t: Mask27) -> Option<u8> {
        match self.gua_index.ids.get(&t) {
            Some(&id) if (id as usize) < CLASS_SOCKETS => {
                Some(self.sockets.class_sockets[id as usize].0)
            }
            _ => None,
        }
    }

    /// A part S of `class` found by another band 3 (or by a final check of
    /// this one whose T is not this class's): the GUA of S and this band
    /// 3's T of the class joins the index (the caller checks that the band
    /// 3 has the class). With `unbitted`, it got no bit in the X slice:
    /// band 3 on every GUA reads it.
    pub(in crate::search) fn add_class_gua(&mut self, class: u8, s: Mask54, unbitted: bool) {
        let socket = self
            .sockets
            .class_socket(class)
            .expect("the band 3 has the class");
        let t = self.sockets.class_sockets[socket as usize].1;
        let id = self.gua_index.push(Gua { s, t });
        debug_assert_eq!(id, socket);
        if unbitted {
            self.mark_unbitted(class, s);
        }
    }

    /// A part S of `class` the X slice gave no bit (past the limit): band
    /// 3 on every GUA reads it, if this band 3 has the class.
    pub(in crate::search) fn mark_unbitted(&mut self, class: u8, s: Mask54) {
        if let Some(socket) = self.sockets.class_socket(class) {
            self.slice.guas_unbitted.push((s, socket));
            self.gua_index.slice_push(s, socket);
        }
    }

    /// What the mini-row bound of a survivor needs from this band 3, for
    /// all bands 3 at once in part 1 (class mode): its classes (their bits
    /// packed in order are its mini-row sockets' bits,
    /// [`crate::bits::extract_each`]) and its `pairs12_rows` (for
    /// [`crate::bits::sockets::mini_row_clues`]).
    pub(in crate::search) fn bound_view(&self) -> (ClassMask, [u32; 3]) {
        self.sockets.bound_view()
    }

    /// Adds a UA inside band 3.
    pub(in crate::search) fn add_band3_ua(&mut self, t: Mask27) {
        self.sockets.add_band3_ua(t);
        self.gua_index.push_band3_ua(t);
    }

    /// Prepares the GUAs for an X slice with pair `a` and live cells `live`
    /// (band 1): each GUA of `guas` (all socketed ones, or in class mode
    /// those past the mini-row sockets) that the pair misses gets a GUA
    /// bit for the slice (up to the limit), or forces its socket when no
    /// cell of the slice can hit it. `class_unbitted` (class
    /// mode): the class parts the pair misses that got no bit in the
    /// [`super::shared::classes::ClassGuas`].
    pub(in crate::search) fn prepare_x_slice(
        &mut self,
        a: Mask27,
        live: Mask27,
        class_unbitted: &[(Mask54, u8)],
    ) {
        let gua_limit = self.bit_limit();
        self.gua_index.forget_slice();
        self.slice
            .prepare(a, live, &self.guas, &self.gua_socket, gua_limit);
        for &(s, class) in class_unbitted {
            if let Some(socket) = self.sockets.class_socket(class) {
                self.slice.guas_unbitted.push((s, socket));
            }
        }
    }

    /// The X slice is done: fresh sets no longer join its lists.
    pub(in crate::search) fn end_slice(&mut self) {
        self.slice.x.active = false;
    }
}
