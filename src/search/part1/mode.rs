//! The two modes of part 1, chosen at compile time: the XY loop and the
//! survivor path are generic over [`Mode`], so neither tests per survivor
//! which one runs.
//!
//! - [`OneGrid`]: the one-grid search, one band 3 with its own GUA bits.
//! - [`Shared`]: the bands 3 of an ED-catalogue entry (`s17 exhaust`),
//!   with the GUA bits of their mini-row sockets shared by class.

use crate::bits::{Mask27, Mask54};
use crate::search::band3::Band3State;
use crate::search::hitting::Sockets;
use crate::search::shared::Shared;
use crate::search::signatures::ClassMask;

use super::Bands12;

/// How part 1 serves its bands 3.
pub(in crate::search) trait Mode {
    /// Prepares an X slice with pair `pair` and live cells `live`; returns
    /// the class parts the pair misses that got no class bit (the bands 3
    /// read them on every GUA).
    fn prepare_x_slice(&mut self, pair: Mask27, live: Mask27) -> &[(Mask54, u8)];

    /// The X slice is done.
    fn end_slice(&mut self);

    /// The classes open for every XY of a step with Y cells `ycells`, when
    /// the class bits are shared.
    fn step_classes(&mut self, ycells: Mask54) -> Option<ClassMask>;

    /// The bands 3 alive in a step (`step_live`: index into `bands3`,
    /// sockets open for every XY of the step) are known.
    fn prepare_step(&mut self, bands3: &[Band3State], step_live: &[(usize, Sockets)]);

    /// A survivor XY of the step (`cells`: XY but the X pair) goes its way
    /// through the bands 3 alive in the step.
    fn survivor(&mut self, b12: &mut Bands12, step: &mut StepBands3, xy: Mask54, cells: Mask54);
}

/// The bands 3 of a 2X2Y step, as the XY loop hands them to each survivor.
pub(in crate::search) struct StepBands3<'a> {
    /// Every band-3 state of the row.
    pub(super) all: &'a mut [Band3State],
    /// The states alive in the step (index into `all`), with the sockets
    /// open for every XY of the step.
    pub(super) live: &'a [(usize, Sockets)],
    /// The clues of band 3 in the row.
    pub(super) z: usize,
}

/// The one-grid search: one band 3, its GUA bits its own.
pub(in crate::search) struct OneGrid;

impl Mode for OneGrid {
    #[inline]
    fn prepare_x_slice(&mut self, _: Mask27, _: Mask27) -> &[(Mask54, u8)] {
        &[]
    }

    #[inline]
    fn end_slice(&mut self) {}

    #[inline]
    fn step_classes(&mut self, _: Mask54) -> Option<ClassMask> {
        None
    }

    #[inline]
    fn prepare_step(&mut self, _: &[Band3State], _: &[(usize, Sockets)]) {}

    #[inline(always)]
    fn survivor(&mut self, b12: &mut Bands12, step: &mut StepBands3, xy: Mask54, cells: Mask54) {
        let (k, forced) = step.live[0];
        b12.survivor_one(&mut step.all[k], forced, xy, cells, step.z);
    }
}

impl Mode for Shared {
    #[inline]
    fn prepare_x_slice(&mut self, pair: Mask27, live: Mask27) -> &[(Mask54, u8)] {
        Shared::prepare_x_slice(self, pair, live)
    }

    #[inline]
    fn end_slice(&mut self) {
        Shared::end_slice(self)
    }

    #[inline]
    fn step_classes(&mut self, ycells: Mask54) -> Option<ClassMask> {
        Some(Shared::step_classes(self, ycells))
    }

    #[inline]
    fn prepare_step(&mut self, bands3: &[Band3State], step_live: &[(usize, Sockets)]) {
        Shared::prepare_step(self, bands3, step_live)
    }

    #[inline(always)]
    fn survivor(&mut self, b12: &mut Bands12, step: &mut StepBands3, xy: Mask54, cells: Mask54) {
        b12.survivor_shared(self, step, xy, cells);
    }
}
