//! The cell-set types and their named operations.
//!
//! ```text
//! Mask27  u32   one band, cells 0..27 row-major inside the band, bits 27..32 zero
//! Mask54  u64   bands 1+2 (cells 0..54 of the grid), bits 54..64 zero
//! Mask81  u128  the whole grid, bits 81..128 zero
//! ```
//!
//! [`CellMask`] names the bit tricks the three types share (the lowest
//! cell, the set without it, subset tests), so that code says what it
//! means instead of writing `m & (m - 1)` or `a & !b == 0` by hand; the
//! methods are one or two instructions each, always inlined.

/// A set of cells of one band.
pub type Mask27 = u32;
/// A set of cells of bands 1+2 (grid cells 0..54).
pub type Mask54 = u64;
/// A set of cells of the grid.
pub type Mask81 = u128;

/// All 27 cells of a band.
pub const BAND_FULL: Mask27 = (1 << 27) - 1;
/// All 54 cells of bands 1+2.
pub const BANDS12_FULL: Mask54 = (1 << 54) - 1;
/// All 81 cells.
pub const GRID_FULL: Mask81 = (1 << 81) - 1;

/// The operations every cell-set type ([`Mask27`], [`Mask54`], [`Mask81`])
/// has, for code generic over the three (such as [`super::cells`]) and
/// for reading: `m.without_lowest()` rather than `m & (m - 1)`.
pub trait CellMask: Copy + Eq {
    /// True when the set has no cell.
    fn is_empty(self) -> bool;
    /// The lowest cell of a non-empty set.
    fn lowest_cell(self) -> usize;
    /// The set without its lowest cell (the empty set stays empty).
    fn without_lowest(self) -> Self;
    /// The lowest cell alone, as a set (empty for the empty set).
    fn lowest_bit(self) -> Self;
    /// The cells of `self` that are not in `other`.
    fn without(self, other: Self) -> Self;
    /// True when every cell of `self` is in `other`.
    fn is_subset_of(self, other: Self) -> bool;
}

macro_rules! cell_mask {
    ($($t:ty),*) => {$(
        impl CellMask for $t {
            #[inline(always)]
            fn is_empty(self) -> bool {
                self == 0
            }

            #[inline(always)]
            fn lowest_cell(self) -> usize {
                self.trailing_zeros() as usize
            }

            #[inline(always)]
            fn without_lowest(self) -> Self {
                self & self.wrapping_sub(1)
            }

            #[inline(always)]
            fn lowest_bit(self) -> Self {
                self & self.wrapping_neg()
            }

            #[inline(always)]
            fn without(self, other: Self) -> Self {
                self & !other
            }

            #[inline(always)]
            fn is_subset_of(self, other: Self) -> bool {
                self & !other == 0
            }
        }
    )*};
}

cell_mask!(Mask27, Mask54, Mask81);

/// The 27-cell part of a grid mask that lies in band `band`.
#[inline]
pub fn band_part(mask: Mask81, band: usize) -> Mask27 {
    ((mask >> (27 * band)) as u32) & BAND_FULL
}

/// A grid mask from a band mask placed in band `band`.
#[inline]
pub fn from_band(mask: Mask27, band: usize) -> Mask81 {
    (mask as u128) << (27 * band)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::cells;

    #[test]
    fn iterate_and_place() {
        let m = from_band(0b101, 2);
        assert_eq!(cells(m).collect::<Vec<_>>(), vec![54, 56]);
        assert_eq!(band_part(m, 2), 0b101);
        assert_eq!(band_part(m, 1), 0);
        assert_eq!(GRID_FULL.count_ones(), 81);
    }

    /// Each named operation against its plain definition, in all three
    /// types.
    #[test]
    fn named_operations_by_definition() {
        fn check<M: CellMask + std::fmt::Debug>(a: M, b: M, bits: impl Fn(M) -> Vec<usize>) {
            let (sa, sb) = (bits(a), bits(b));
            assert_eq!(a.is_empty(), sa.is_empty());
            if let Some(&first) = sa.first() {
                assert_eq!(a.lowest_cell(), first);
                assert_eq!(bits(a.lowest_bit()), vec![first]);
            } else {
                assert!(a.lowest_bit().is_empty());
            }
            assert_eq!(
                bits(a.without_lowest()),
                sa.iter().skip(1).copied().collect::<Vec<_>>()
            );
            let minus: Vec<usize> = sa.iter().filter(|c| !sb.contains(c)).copied().collect();
            assert_eq!(bits(a.without(b)), minus);
            assert_eq!(a.is_subset_of(b), minus.is_empty());
        }
        let mut rng = fastrand::Rng::with_seed(27);
        for k in 0..2000 {
            let thin = |x: u128| if k % 3 == 0 { x } else { x & x >> 7 & x >> 13 };
            let (a, b) = (thin(rng.u128(..)), thin(rng.u128(..)));
            let b = if k % 5 == 0 { a | b } else { b };
            let a = if k % 11 == 0 { 0 } else { a };
            check((a as Mask27) & BAND_FULL, (b as Mask27) & BAND_FULL, |m| {
                cells(m).collect()
            });
            check(
                (a as Mask54) & BANDS12_FULL,
                (b as Mask54) & BANDS12_FULL,
                |m| cells(m).collect(),
            );
            check(a & GRID_FULL, b & GRID_FULL, |m| cells(m).collect());
        }
    }
}
