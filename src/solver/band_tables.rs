//! Lookup tables of the fast solver, computed at compile time by `const fn`s.
//!
//! All masks are in band coordinates (see [`crate::bits::Mask27`]): bit
//! `9 * row + column` for row 0..3 of the band and column 0..9. A
//! **mini-row pattern** is a 9-bit value with bit `3 * row + box` set when
//! the mini-row (row, box) of the band holds at least one candidate:
//!
//! ```text
//! band word (27 bits)                 mini-row pattern (9 bits)
//! row 2: bits 18..27  [box0|box1|box2]   bits 6 7 8
//! row 1: bits  9..18  [box0|box1|box2]   bits 3 4 5
//! row 0: bits  0.. 9  [box0|box1|box2]   bits 0 1 2
//! ```

use crate::bits::Mask27;
use crate::grid::PERMS3;

/// For a row of a band word (9 bits): which of its 3 mini-rows are
/// non-empty (bit `box`).
pub const MINIROWS_OF_ROW: [u8; 512] = minirows_of_row();

/// For a mini-row pattern: the band cells lying in a mini-row that belongs
/// to some placement of the digit compatible with the pattern (one mini-row
/// per row and per box, i.e. a 3x3 permutation inside the pattern); 0 when
/// no placement fits, which is a contradiction.
pub const PLACEMENT_CELLS: [Mask27; 512] = placement_cells();

/// For a 3x3 pattern (bit `3 * row + box`): the union of the 3x3
/// permutations inside it, in the same layout; 0 when there is none.
pub const PERMUTATION_UNION: [u16; 512] = permutation_union();

/// [`PERMUTATION_UNION`] of a stack pattern (bit `3 * band + column`),
/// spread to bit `9 * band + column`.
pub const STACK_ADMISSIBLE: [u32; 512] = stack_admissible();

/// For a column 0..9: its 3 cells in a band.
pub const COLUMN_IN_BAND: [Mask27; 9] = column_in_band();

/// For a grid cell 0..81: its peers (row, column, box; not itself), as
/// three band words.
pub const PEERS: [[Mask27; 3]; 81] = peers();

const fn minirows_of_row() -> [u8; 512] {
    let mut table = [0u8; 512];
    let mut row = 0;
    while row < 512 {
        let mut bits = 0u8;
        let mut b = 0;
        while b < 3 {
            if (row >> (3 * b)) & 7 != 0 {
                bits |= 1 << b;
            }
            b += 1;
        }
        table[row] = bits;
        row += 1;
    }
    table
}

const fn placement_cells() -> [Mask27; 512] {
    let mut table = [0; 512];
    let mut pattern = 0;
    while pattern < 512 {
        let mut cells = 0;
        let mut p = 0;
        while p < 6 {
            // Row r goes to box `perm[r]`.
            let perm = PERMS3[p];
            let mut fits = true;
            let mut these = 0;
            let mut row = 0;
            while row < 3 {
                let bx = perm[row] as usize;
                if (pattern >> (3 * row + bx)) & 1 == 0 {
                    fits = false;
                }
                these |= 7 << (9 * row + 3 * bx);
                row += 1;
            }
            if fits {
                cells |= these;
            }
            p += 1;
        }
        table[pattern] = cells;
        pattern += 1;
    }
    table
}

const fn permutation_union() -> [u16; 512] {
    let mut table = [0; 512];
    let mut pattern: u16 = 0;
    while pattern < 512 {
        let mut union: u16 = 0;
        let mut p = 0;
        while p < 6 {
            let perm = PERMS3[p];
            let these: u16 = 1 << perm[0] | 1 << (3 + perm[1]) | 1 << (6 + perm[2]);
            if pattern & these == these {
                union |= these;
            }
            p += 1;
        }
        table[pattern as usize] = union;
        pattern += 1;
    }
    table
}

const fn stack_admissible() -> [u32; 512] {
    let mut table = [0; 512];
    let mut pattern = 0;
    while pattern < 512 {
        let union = PERMUTATION_UNION[pattern] as u32;
        table[pattern] = (union & 7) | (union >> 3 & 7) << 9 | (union >> 6 & 7) << 18;
        pattern += 1;
    }
    table
}

const fn band_peers(cell: usize) -> Mask27 {
    let (row, col) = (cell / 9, cell % 9);
    let bx = col / 3;
    let mut peers = 0x1ff << (9 * row);
    let mut r = 0;
    while r < 3 {
        peers |= 7 << (9 * r + 3 * bx);
        peers |= 1 << (9 * r + col);
        r += 1;
    }
    peers & !(1 << cell)
}

const fn column_in_band() -> [Mask27; 9] {
    let mut table = [0; 9];
    let mut col = 0;
    while col < 9 {
        table[col] = (1 | 1 << 9 | 1 << 18) << col;
        col += 1;
    }
    table
}

const fn peers() -> [[Mask27; 3]; 81] {
    let mut table = [[0; 3]; 81];
    let mut cell = 0;
    while cell < 81 {
        let band = cell / 27;
        let mut b = 0;
        while b < 3 {
            table[cell][b] = if b == band {
                band_peers(cell % 27)
            } else {
                COLUMN_IN_BAND[cell % 9]
            };
            b += 1;
        }
        cell += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_cells_of_simple_patterns() {
        // All mini-rows present: every cell can hold the digit.
        assert_eq!(PLACEMENT_CELLS[0x1ff], crate::bits::BAND_FULL);
        // The identity permutation only.
        let diagonal = 1 | 1 << 4 | 1 << 8;
        assert_eq!(PLACEMENT_CELLS[diagonal], 7 | 7 << 12 | 7 << 24);
        // Row 0 confined to box 0: rows 1, 2 lose box 0.
        let pattern = 1 | 0b111 << 3 | 0b111 << 6;
        let cells = PLACEMENT_CELLS[pattern];
        assert_eq!(cells & (7 << 9 | 7 << 18), 0);
        assert_eq!(cells & 0x1ff, 7);
        // A row with no mini-row: no placement.
        assert_eq!(PLACEMENT_CELLS[0b111 | 0b111 << 3], 0);
    }

    #[test]
    fn peers_have_twenty_cells() {
        for cell in 0..81 {
            let n: u32 = PEERS[cell].iter().map(|m| m.count_ones()).sum();
            assert_eq!(n, 20, "cell {cell}");
            assert_eq!(PEERS[cell][cell / 27] >> (cell % 27) & 1, 0);
        }
        assert_eq!(MINIROWS_OF_ROW[0b100_000_001], 0b101);
    }
}
