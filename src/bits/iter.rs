//! The cells of a set, lowest first: one iterator for the three mask types.
//!
//! [`cells`] is used in hot loops; it compiles to the same loop as the
//! hand-written one (trailing zeros, then clear the lowest bit), with no
//! branch but the end test. `cells27`, `cells54` and `cells81` are the
//! older names, kept for the search until its call sites use `cells`.

use super::{CellMask, Mask27, Mask54, Mask81};

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

/// Iterates the set bits of a `u32`, lowest first: use [`cells`].
#[inline]
pub fn cells27(mask: Mask27) -> impl Iterator<Item = usize> {
    cells(mask)
}

/// Iterates the set bits of a `u64`, lowest first: use [`cells`].
#[inline]
pub fn cells54(mask: Mask54) -> impl Iterator<Item = usize> {
    cells(mask)
}

/// Iterates the set bits of a `u128`, lowest first: use [`cells`].
#[inline]
pub fn cells81(mask: Mask81) -> impl Iterator<Item = usize> {
    cells(mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterate_and_place() {
        assert_eq!(cells27(0b1011).collect::<Vec<_>>(), vec![0, 1, 3]);
        assert_eq!(cells54(1 << 53).collect::<Vec<_>>(), vec![53]);
        assert_eq!(cells81(1 << 80 | 1).collect::<Vec<_>>(), vec![0, 80]);
        assert_eq!(cells::<Mask27>(0b1011).collect::<Vec<_>>(), vec![0, 1, 3]);
        assert_eq!(cells::<Mask54>(1 << 53).collect::<Vec<_>>(), vec![53]);
        assert_eq!(
            cells::<Mask81>(1 << 80 | 1).collect::<Vec<_>>(),
            vec![0, 80]
        );
        assert_eq!(cells::<Mask81>(0).count(), 0);
    }
}
