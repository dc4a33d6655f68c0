//! The band-3 completions of a band 2, listed for the batched walk
//! ([`super::Walker::walk_band2`]).

use crate::band::Band;

/// Every band 3 under bands 1-2 (`bands12`) in normal order, in
/// increasing order, appended to `out`: the same as [`for_each_band3`],
/// with rows as digit masks and no closure per row. Only the bands 3
/// whose every row fits `allowed`, per stack, bit `9 i + 3 j + k` set
/// when the row may hold its three columns' `i`-th, `j`-th and `k`-th
/// smallest free digits (all ones: every band 3).
pub(crate) fn band3s_under(bands12: &[u8; 54], allowed: &[u32; 3], out: &mut Vec<Band>) {
    let mut columns = [0x3feu16; 9];
    for (cell, &d) in bands12.iter().enumerate() {
        columns[cell % 9] &= !(1u16 << d);
    }
    let fits = |row: &[u16; 9]| {
        (0..3).all(|s| {
            let rank = |j: usize| (columns[3 * s + j] & (row[3 * s + j] - 1)).count_ones();
            allowed[s] >> (9 * rank(0) + 3 * rank(1) + rank(2)) & 1 != 0
        })
    };
    // Normal order: row 7 opens with column 1's smallest digit, row 8 with
    // its middle one.
    rows_of(&columns, |row7| {
        if !fits(row7) {
            return;
        }
        let mut rest = columns;
        for c in 0..9 {
            rest[c] &= !row7[c];
        }
        rows_of(&rest, |row8| {
            let mut row9 = [0u16; 9];
            for c in 0..9 {
                row9[c] = rest[c] & !row8[c];
            }
            if !fits(row8) || !fits(&row9) {
                return;
            }
            let mut band = [0u8; 27];
            for c in 0..9 {
                band[c] = row7[c].trailing_zeros() as u8;
                band[9 + c] = row8[c].trailing_zeros() as u8;
                band[18 + c] = (rest[c] & !row8[c]).trailing_zeros() as u8;
            }
            out.push(band);
        });
    });
}

/// Every row (as one digit bit per column) taking one digit of each
/// column's set (`columns`: within a stack the sets are disjoint, and each
/// digit is in one set of each stack), nine different digits, column 1's
/// smallest first, in increasing order.
#[inline(always)]
fn rows_of(columns: &[u16; 9], mut visit: impl FnMut(&[u16; 9])) {
    #[inline(always)]
    fn lowest(mask: u16) -> u16 {
        mask & mask.wrapping_neg()
    }
    let d0 = lowest(columns[0]);
    let mut m1 = columns[1];
    while m1 != 0 {
        let d1 = lowest(m1);
        m1 ^= d1;
        let mut m2 = columns[2];
        while m2 != 0 {
            let d2 = lowest(m2);
            m2 ^= d2;
            let stack0 = d0 | d1 | d2;
            let mut m3 = columns[3] & !stack0;
            while m3 != 0 {
                let d3 = lowest(m3);
                m3 ^= d3;
                let mut m4 = columns[4] & !stack0;
                while m4 != 0 {
                    let d4 = lowest(m4);
                    m4 ^= d4;
                    let mut m5 = columns[5] & !stack0;
                    while m5 != 0 {
                        let d5 = lowest(m5);
                        m5 ^= d5;
                        // Three digits left, each in one of stack 2's
                        // disjoint sets: a row when each set gets one.
                        let left = 0x3fe & !(stack0 | d3 | d4 | d5);
                        let (d6, d7, d8) =
                            (left & columns[6], left & columns[7], left & columns[8]);
                        if d6 != 0 && d7 != 0 && d8 != 0 {
                            visit(&[d0, d1, d2, d3, d4, d5, d6, d7, d8]);
                        }
                    }
                }
            }
        }
    }
}
