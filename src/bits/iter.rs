//! The cells of a set, lowest first: one iterator for the three mask types.
//!
//! [`cells`] is used in hot loops; it compiles to the same loop as the
//! hand-written one (trailing zeros, then clear the lowest bit), with no
//! branch but the end test.

use super::CellMask;

/// Iterates the cells (set bits) of `mask`, lowest first.
#[inline]
pub fn cells<M: CellMask>(mut mask: M) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask.is_empty() {
            return None;
        }
        let cell = mask.lowest_cell();
        mask = mask.without_lowest();
        Some(cell)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::{Mask27, Mask54, Mask81};

    #[test]
    fn iterate_and_place() {
        assert_eq!(cells::<Mask27>(0b1011).collect::<Vec<_>>(), vec![0, 1, 3]);
        assert_eq!(cells::<Mask54>(1 << 53).collect::<Vec<_>>(), vec![53]);
        assert_eq!(
            cells::<Mask81>(1 << 80 | 1).collect::<Vec<_>>(),
            vec![0, 80]
        );
        assert_eq!(cells::<Mask81>(0).count(), 0);
    }
}
