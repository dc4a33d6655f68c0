//! The machinery that serves the many bands 3 of one ED-catalogue entry
//! (`s17 exhaust`; ARCHITECTURE.md, "The exhaustive search of an entry"):
//! one bands-1+2 state runs the steps and the XY loop once, and each
//! survivor goes to every band 3 of the entry alive in the step. (The
//! socket signatures and classes these build on, which also number a band
//! 3's sockets, are [`super::signatures`], below both halves.)
//!
//! - [`classes`]: the GUA bits of the mini-row sockets kept once, by
//!   socket class ([`ClassGuas`]), for every band 3 at once.
//! - `share`: fresh GUAs handed on from the band 3 that found them to
//!   the others.
//!
//! [`Shared`] holds what part 1 keeps for the entry: the class bits and,
//! per step, the view the mini-row bound of each live band 3 reads.
//!
//! What an entry does once, and what each band 3 does:
//!
//! - once per entry (`search::part1::Bands12`, `search::signatures`, this
//!   module): the UA12 harvest, the valid sets of bands 1 and 2, the 2X2Y
//!   steps and their UA filters, the XY loop, the UAs beyond the vector limit,
//!   the bands-1+2 check and its fresh UA12; the GUA harvest of each socket
//!   signature; the hand-over of fresh GUAs by the gangster they make or the
//!   digits of their T;
//! - per band 3 (`search::band3::Band3State`): the GUAs and sockets built from
//!   the shared harvest, band 3's UAs, the step's forced sockets, the
//!   survivor's socket check and check against every GUA, part 2, the final
//!   check and its fresh UAs.
//!
//! A survivor goes through the band-3 states one by one; the bands-1+2 check
//! runs at most once per survivor, when the first band 3 lets it through. A
//! step is dead when it is dead for every band 3; a band 3 dead for the step
//! is left out of it. Everything else is the one-grid search's own code, so
//! the proof of the one-grid pipeline applies to each band 3. Debug builds
//! check each shared UA12 against each band 3 (its complement has a second
//! solution) and every GUA against its grid.

pub mod classes;
mod share;

use crate::bits::sockets::{BoundLanes, mini_row_pass};
use crate::bits::{Mask27, Mask54};
use crate::search::band3::Band3State;
use crate::search::hitting::Sockets;

use crate::search::signatures::ClassMask;
use classes::ClassGuas;

/// The part-1 state the bands 3 of an entry share: the class bits of
/// their mini-row sockets' GUAs, and per step the bands 3 alive in it as
/// the mini-row bound of a survivor reads them.
pub struct Shared {
    /// The S parts of the GUAs of the mini-row sockets, by class, with
    /// their bits in the X slice.
    classes: ClassGuas,
    /// Per band 3 alive in the step: its classes and, with its forced
    /// sockets, its `pairs12_rows` ([`Band3State::bound_view`]).
    live_classes: Vec<ClassMask>,
    live_bounds: BoundLanes,
    /// A survivor's open mini-row sockets in each live band 3, and which
    /// bands 3 pass the mini-row bound (bit i for live band 3 i).
    live_sockets: Vec<Sockets>,
    live_pass: Vec<u64>,
}

impl Shared {
    /// No band 3 yet; at most `limit` class bits per X slice.
    pub fn new(limit: usize) -> Self {
        Shared {
            classes: ClassGuas::new(limit),
            live_classes: Vec::new(),
            live_bounds: BoundLanes::default(),
            live_sockets: Vec::new(),
            live_pass: Vec::new(),
        }
    }

    /// Files the GUAs of `band3`'s mini-row sockets by class (and the
    /// gangsters its sockets make) and puts it in class mode
    /// (`Band3State::use_class_bits`).
    pub fn add_band3(&mut self, band3: &mut Band3State) {
        band3.use_class_bits();
        self.classes.add_sockets(band3.grid());
        for (class, s) in band3.class_parts() {
            self.classes.add(class, s);
        }
    }

    /// Prepares the class bits of an X slice with pair `pair` and live
    /// cells `live`; returns the class parts the pair misses that got no
    /// bit, which the bands 3 read on every GUA.
    #[inline]
    pub(in crate::search) fn prepare_x_slice(
        &mut self,
        pair: Mask27,
        live: Mask27,
    ) -> &[(Mask54, u8)] {
        self.classes.prepare_x_slice(pair, live);
        self.classes.unbitted()
    }

    /// The X slice is done.
    #[inline]
    pub(in crate::search) fn end_slice(&mut self) {
        self.classes.end_slice();
    }

    /// The classes open for every XY of a step with Y cells `ycells`
    /// ([`ClassGuas::step_forced`]).
    #[inline]
    pub(in crate::search) fn step_classes(&mut self, ycells: Mask54) -> ClassMask {
        self.classes.step_forced(ycells)
    }

    /// The view of the bands 3 alive in a step (band `k` of `bands3` with
    /// its forced sockets, for each of `step_live`) that the survivors'
    /// mini-row bound reads.
    #[inline]
    pub(in crate::search) fn prepare_step(
        &mut self,
        bands3: &[Band3State],
        step_live: &[(usize, Sockets)],
    ) {
        self.live_classes.clear();
        self.live_bounds.clear();
        for &(k, forced) in step_live {
            let (classes, pairs12) = bands3[k].bound_view();
            self.live_classes.push(classes);
            self.live_bounds.push(forced, pairs12);
        }
    }

    /// The classes open for a survivor XY (`cells`: its cells but the X
    /// pair), for every live band 3 at once: each one's open mini-row
    /// sockets in them, and the mini-row bound from the compact view
    /// first (the sockets forced at the step's start: fewer than now, so
    /// a bound over `z` holds now too). Returns how many live bands 3
    /// pass; [`Self::take_pass`] tells which.
    #[inline]
    pub(in crate::search) fn survivor_bounds(&mut self, cells: Mask54, z: usize) -> usize {
        let classes = self.classes.open_classes(cells);
        crate::bits::extract_each(&classes, &self.live_classes, &mut self.live_sockets);
        mini_row_pass(
            &self.live_sockets,
            &self.live_bounds,
            z,
            &mut self.live_pass,
        );
        let passed: u32 = self.live_pass.iter().map(|w| w.count_ones()).sum();
        passed as usize
    }

    /// Which live bands 3 passed the last [`Self::survivor_bounds`] (bit
    /// i for live band 3 i), to be given back with [`Self::put_pass`].
    #[inline]
    pub(in crate::search) fn take_pass(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.live_pass)
    }

    /// Gives back the list [`Self::take_pass`] took.
    #[inline]
    pub(in crate::search) fn put_pass(&mut self, live_pass: Vec<u64>) {
        self.live_pass = live_pass;
    }

    /// Live band 3 `i`'s mini-row sockets whose classes are open for the
    /// last survivor.
    #[inline]
    pub(in crate::search) fn class_open(&self, i: usize) -> Sockets {
        self.live_sockets[i]
    }
}
