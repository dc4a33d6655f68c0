//! The socket checks part 1 asks band 3 (ARCHITECTURE.md, stage 5): per
//! step, the sockets open for every XY and whether band 3 can take them;
//! per survivor, its open sockets against the bounds, then band 3 against
//! every GUA the survivor misses.

use crate::bits::{Mask27, Mask54, cells};
use crate::search::hitting::{Sockets, hitting_set};
use crate::search::signatures::ClassMask;

use super::Band3State;

/// Band-3 clue sets remembered as witnesses of feasibility.
const WITNESSES: usize = 32;

/// The last [`WITNESSES`] band-3 clue sets found by the feasibility check
/// (each hits band 3's UAs): the sockets each hits and its size.
#[derive(Default)]
pub(super) struct Witnesses {
    list: Vec<(Sockets, u8)>,
    /// Where the next witness goes once the list is full.
    next: usize,
}

impl Witnesses {
    /// Whether a witness hits every socket of `open` with at most `z`
    /// clues.
    #[inline]
    fn answer(&self, open: Sockets, z: usize) -> bool {
        self.list
            .iter()
            .any(|&(hit, size)| open & !hit == 0 && size as usize <= z)
    }

    /// Remembers a clue set of `size` cells that hits the sockets `hit`,
    /// in place of the oldest once the list is full.
    fn remember(&mut self, hit: Sockets, size: u8) {
        if self.list.len() < WITNESSES {
            self.list.push((hit, size));
        } else {
            self.list[self.next] = (hit, size);
            self.next = (self.next + 1) % WITNESSES;
        }
    }
}

impl Band3State {
    /// The sockets open for every XY of a step whose Y cells (pair and
    /// live cells, bands-1+2 numbering) are `ycells`, given the classes
    /// open for every XY of the step (`classes`, in class mode, from the
    /// [`crate::search::shared::classes::ClassGuas`]); `None` when band 3 cannot
    /// take them with `z` clues (the step is dead for this band 3). The
    /// one-grid search asks exactly (bounds, witnesses, then a search);
    /// in class mode (`s17 exhaust`) the bounds alone decide here, and
    /// each survivor's band 3 on every GUA settles the rest: the witnesses
    /// answer almost every call there, but the searches for the others
    /// cost more than the steps they kill save (1.5 % of the time).
    #[inline]
    pub(in crate::search) fn step_forced(
        &mut self,
        ycells: Mask54,
        z: usize,
        classes: Option<&ClassMask>,
    ) -> Option<Sockets> {
        let forced =
            self.slice.step_open(ycells) | classes.map_or(0, |c| self.sockets.class_sockets_of(c));
        let alive = if self.class_mode {
            self.sockets.bounds_pass(forced, z)
        } else {
            self.band3_can_take(forced, z)
        };
        alive.then_some(forced)
    }

    /// Whether a survivor XY of a step (`cells`: its cells but the X pair;
    /// `forced` as [`Self::step_forced`] gave; `class_open`, in class
    /// mode: this band 3's mini-row sockets whose classes are open for XY,
    /// else 0) can still be completed in band 3 with `z` clues, judged by
    /// bounds on the open sockets, then exactly by every GUA it misses;
    /// when true, the sets band 3 must hit are ready for
    /// [`Self::enumerate_band3`].
    #[inline]
    pub(in crate::search) fn survivor_passes(
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
    pub(in crate::search) fn survivor_bounds(
        &mut self,
        cells: Mask54,
        forced: Sockets,
        z: usize,
        class_open: Sockets,
    ) -> Option<Sockets> {
        let open = forced | class_open | self.slice.survivor_open(cells);
        // The bounds only: when they leave it open, band 3 against every
        // GUA decides, with the open sockets' T's among its sets (a search
        // on the sockets alone first would repeat most of its work).
        if !self.sockets.bounds_pass(open, z) {
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
    pub(in crate::search) fn survivor_guas(&mut self, xy: Mask54, open: Sockets, z: usize) -> bool {
        let x = self.slice.x;
        self.gua_index
            .prepare_slice(x.pair, x.cells, &self.slice.guas_unbitted);
        if !self.band3_required(xy, open, z) {
            self.stats.gua_dead += 1;
            return false;
        }
        true
    }

    /// Whether band 3 can hit its own UAs and the T of every open socket
    /// with `z` clues. (Not memoized: on slow grids a memo of the answers
    /// grows past the caches and costs more than the searches it saves.)
    pub(super) fn band3_can_take(&mut self, open: Sockets, z: usize) -> bool {
        let Some(open) = self.sockets.bounds_allow(open, z) else {
            return false;
        };
        // A band-3 clue set that worked before and hits every open T (and
        // is small enough) answers yes: a short scan, cheaper than a search.
        if self.witnesses.answer(open, z) {
            return true;
        }
        // Socket T's first (2 or 3 cells: the strongest branching), then
        // band 3's own UAs.
        let mut required = std::mem::take(&mut self.buffers.scratch);
        required.clear();
        let mut sockets = open;
        while sockets != 0 {
            required.push(self.sockets.socket_t[sockets.trailing_zeros() as usize]);
            sockets &= sockets - 1;
        }
        required.extend(
            self.gua_index
                .band3_uas()
                .zip(&self.sockets.band3_holds)
                .filter(|&(_, &holds)| holds & open == 0)
                .map(|(u, _)| u),
        );
        let found = hitting_set(&required, 0, 0, z, &mut self.buffers.arena);
        self.buffers.scratch = required;
        let Some(clues): Option<Mask27> = found else {
            return false;
        };
        let hit = cells(clues).fold(0, |m, c| m | self.sockets.cell_sockets[c]);
        self.witnesses.remember(hit, clues.count_ones() as u8);
        true
    }
}
