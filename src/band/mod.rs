//! Bands: three rows of a grid, their catalogue, their UAs and their valid
//! clue sets.
//!
//! A [`Band`] is 27 digits 1..=9, row-major 3×9: cell `9 * r + c` is row `r`,
//! column `c` of the band, the same numbering as a [`Mask27`] bit.
//!
//! - [`catalogue`]: the 416 essentially different bands in minlex form, and
//!   for any band its catalogue index and the cell/digit maps to it.
//! - [`ua`]: the bands with the same gangster and the minimal band UAs.
//! - [`valid`]: the valid clue sets of each size, sorted and sliced by their
//!   two lowest cells ([`SetList`]).
//!
//! The memory-mapped file that stores all of this for the 416 bands is
//! [`crate::tables`].

pub mod catalogue;
pub mod ua;
pub mod valid;

pub use catalogue::{Automorphism, BANDS, BandCatalogue, BandId};
pub use ua::{band_uas, gangster_mates};
pub use valid::{SetList, Slice, minimum_size, pair_index, valid_sets, valid_sets_unsorted};

use crate::bits::Mask27;
use crate::grid::Grid;

/// One band: digits 1..=9, row-major 3×9.
pub type Band = [u8; 27];

/// The gangster of a band: for each column, the set of its 3 digits as a
/// bit mask (bit `d` for digit `d`, bits 1..=9).
pub type Gangster = [u16; 9];

/// Why a text is not a band.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BandError {
    #[error("expected 27 digits, found {found} characters")]
    Length { found: usize },
    #[error("bad character {ch:?} at position {position} (expected 1-9)")]
    Character { position: usize, ch: char },
    #[error("not a valid band: a digit repeats in a row or a box")]
    Invalid,
}

/// Parses 27 digits 1-9 (row-major) into a valid band.
pub fn parse_band(text: &str) -> Result<Band, BandError> {
    let text = text.trim();
    let found = text.chars().count();
    if found != 27 {
        return Err(BandError::Length { found });
    }
    let mut band = [0u8; 27];
    for (position, ch) in text.chars().enumerate() {
        band[position] = match ch {
            '1'..='9' => ch as u8 - b'0',
            _ => {
                return Err(BandError::Character {
                    position: position + 1,
                    ch,
                });
            }
        };
    }
    if !is_valid_band(&band) {
        return Err(BandError::Invalid);
    }
    Ok(band)
}

/// The band as 27 digits.
pub fn band_to_string(band: &Band) -> String {
    band.iter().map(|&d| char::from(b'0' + d)).collect()
}

/// True when every row and every box of the band holds each digit 1..=9
/// once (columns inside a band then hold 3 distinct digits automatically).
pub fn is_valid_band(band: &Band) -> bool {
    let mut rows = [0u16; 3];
    let mut boxes = [0u16; 3];
    for (cell, &d) in band.iter().enumerate() {
        if !(1..=9).contains(&d) {
            return false;
        }
        let bit = 1u16 << d;
        let (row, stack) = (cell / 9, (cell % 9) / 3);
        if rows[row] & bit != 0 || boxes[stack] & bit != 0 {
            return false;
        }
        rows[row] |= bit;
        boxes[stack] |= bit;
    }
    true
}

/// Band `index` (0..3) of a grid.
pub fn band_of_grid(grid: &Grid, index: usize) -> Band {
    let mut band = [0u8; 27];
    band.copy_from_slice(&grid.digits()[27 * index..27 * index + 27]);
    band
}

/// The gangster of a band: the digit set of each column.
pub fn gangster(band: &Band) -> Gangster {
    let mut columns = [0u16; 9];
    for (cell, &d) in band.iter().enumerate() {
        columns[cell % 9] |= 1 << d;
    }
    columns
}

/// The cells where two bands differ.
pub fn difference(a: &Band, b: &Band) -> Mask27 {
    let mut mask = 0;
    for cell in 0..27 {
        if a[cell] != b[cell] {
            mask |= 1 << cell;
        }
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        let text = "123456789456789123789123456";
        let band = parse_band(text).unwrap();
        assert_eq!(band_to_string(&band), text);
        assert!(is_valid_band(&band));
        assert_eq!(gangster(&band)[0], 1 << 1 | 1 << 4 | 1 << 7);
        assert_eq!(parse_band("12"), Err(BandError::Length { found: 2 }));
        assert_eq!(
            parse_band("123456789456789123789123455"),
            Err(BandError::Invalid)
        );
        assert!(matches!(
            parse_band("12345678945678912378912345x"),
            Err(BandError::Character { position: 27, .. })
        ));
    }
}
