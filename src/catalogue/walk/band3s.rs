//! The band-3 completions of a band 2, listed for the batched walk
//! ([`super::Walker::walk_band2`]): those whose three stacks are of
//! admitted cases ([`band3s_admitted`]), stack by stack.

use crate::band::Band;
use crate::grid::PERMS3;

/// `PERM_OF[9 a + 3 b + c]`: the index in `PERMS3` of `[a, b, c]`, or 6
/// when it is not a permutation.
const PERM_OF: [u8; 32] = {
    let mut t = [6u8; 32];
    let mut p = 0;
    while p < 6 {
        let [a, b, c] = PERMS3[p];
        t[9 * a as usize + 3 * b as usize + c as usize] = p as u8;
        p += 1;
    }
    t
};

/// `COMPOSE[x][y]`: for two columns of a stack whose ranks go to rows
/// `PERMS3[x]` and `PERMS3[y]` (rank `k` in row `PERMS3[x][k]`), the
/// index of the order `o` of the second column's ranks in the rows taken
/// by the first's ranks: `o[i]` the rank of the second column in the row
/// holding the first's rank `i`.
const COMPOSE: [[u8; 6]; 6] = {
    let mut t = [[0u8; 6]; 6];
    let mut x = 0;
    while x < 6 {
        let mut y = 0;
        while y < 6 {
            let mut inverse = [0u8; 3];
            let mut k = 0;
            while k < 3 {
                inverse[PERMS3[y][k] as usize] = k as u8;
                k += 1;
            }
            let o = [
                inverse[PERMS3[x][0] as usize],
                inverse[PERMS3[x][1] as usize],
                inverse[PERMS3[x][2] as usize],
            ];
            t[x][y] = PERM_OF[9 * o[0] as usize + 3 * o[1] as usize + o[2] as usize];
            y += 1;
        }
        x += 1;
    }
    t
};

/// `AVOIDING[9 f0 + 3 f1 + f2]`: the permutations `x` (at most two, as
/// `(count, [x; 2])`) sending no rank `k` to row `f_k`.
const AVOIDING: [(u8, [u8; 2]); 32] = {
    let mut t = [(0u8, [0u8; 2]); 32];
    let mut f = 0;
    while f < 27 {
        let forbidden = [f / 9, f / 3 % 3, f % 3];
        let mut x = 0;
        while x < 6 {
            let p = PERMS3[x];
            if p[0] as usize != forbidden[0]
                && p[1] as usize != forbidden[1]
                && p[2] as usize != forbidden[2]
            {
                let (n, mut xs) = t[f];
                xs[n as usize] = x as u8;
                t[f] = (n + 1, xs);
            }
            x += 1;
        }
        f += 1;
    }
    t
};

/// Above this many admitted cases in each stack, [`band3s_of_cases`] lists
/// row by row: in the first bands nearly every case is admitted, and the
/// stack-by-stack listing would try them all (callgrind, instructions a
/// grid streamed: 26 is as good as the row-by-row listing from the
/// catalogue's start to its middle, and 10 % below it at number 5.2
/// billion).
const STACK_BY_STACK_MAX: u32 = 26;

/// The band 3s of [`band3s_admitted`] (same list, same order), by
/// [`band3s_admitted`] when a stack admits few cases, else row by row
/// ([`band3s_under`] through `allowed`, the rows the admitted cases hold,
/// into `listed`) and each stack's case checked.
pub(crate) fn band3s_of_cases(
    bands12: &[u8; 54],
    admitted: &[u64; 3],
    allowed: &[u32; 3],
    listed: &mut Vec<Band>,
    out: &mut Vec<(Band, [u8; 3])>,
) {
    if admitted.iter().map(|a| a.count_ones()).min() <= Some(STACK_BY_STACK_MAX) {
        return band3s_admitted(bands12, admitted, out);
    }
    listed.clear();
    band3s_under(bands12, allowed, listed);
    'band3: for band3 in listed.iter() {
        let mut cases = [0u8; 3];
        for (s, case) in cases.iter_mut().enumerate() {
            *case = case_of(band3, s) as u8;
            if admitted[s] >> *case & 1 == 0 {
                continue 'band3;
            }
        }
        out.push((*band3, cases));
    }
}

/// The rows (bit `9 i + 3 j + k`, as [`band3s_under`] reads them) that the
/// cases `admitted` (bit `case`) of a stack hold.
pub(crate) fn rows_of_cases(admitted: u64) -> u32 {
    let mut rows = 0u32;
    let mut cases = admitted;
    while cases != 0 {
        let case = cases.trailing_zeros() as usize;
        cases &= cases - 1;
        let (o1, o2) = (PERMS3[case / 6], PERMS3[case % 6]);
        for i in 0..3 {
            rows |= 1 << (9 * i + 3 * o1[i] as usize + o2[i] as usize);
        }
    }
    rows
}

/// Every band 3 under bands 1-2 (`bands12`) in normal order whose three
/// stacks are of admitted cases (`admitted[s]` bit `case` set; a case as
/// [`case_of`] gives it), in increasing order, appended to `out` with
/// the three cases. The stack with the fewest admitted cases goes first:
/// its case puts each of its digits in a row of rows 7-9 (rows named by
/// its first column's digits, increasing); each column of the stack with
/// the next fewest then sends its three digits to the rows that the
/// first leaves them (at most two ways a column), and the last stack
/// takes what is left, which must be one digit of each of its columns a
/// row. The rows are put in normal order at the end (row 7 holds column
/// 1's smallest free digit): a case does not change when rows 7-9 are
/// permuted.
pub(crate) fn band3s_admitted(
    bands12: &[u8; 54],
    admitted: &[u64; 3],
    out: &mut Vec<(Band, [u8; 3])>,
) {
    let start = out.len();
    // Each column's free digits, increasing.
    let mut masks = [0x3feu16; 9];
    for r in 0..6 {
        for (c, mask) in masks.iter_mut().enumerate() {
            *mask &= !(1u16 << (bands12[9 * r + c] & 15));
        }
    }
    let mut free = [[0u8; 3]; 9];
    for (digits, mut mask) in free.iter_mut().zip(masks) {
        for d in digits.iter_mut() {
            *d = mask.trailing_zeros() as u8;
            mask &= mask.wrapping_sub(1);
        }
    }
    // The stacks by increasing number of admitted cases (the first of
    // equals first).
    let mut order = [0usize, 1, 2];
    order.sort_by_key(|&s| admitted[s].count_ones());
    let [first, second, third] = order;
    let mut cases0 = admitted[first];
    while cases0 != 0 {
        let case0 = cases0.trailing_zeros() as usize;
        cases0 &= cases0 - 1;
        // The first stack: its first column's rank i in row i, the others'
        // by the case; each digit's row (of rows 7-9, 0..3).
        let (o1, o2) = (PERMS3[case0 / 6], PERMS3[case0 % 6]);
        // Its columns' ranks' rows (`PERMS3` index), for the band at the end.
        let rows0 = [0, INVERSE[case0 / 6], INVERSE[case0 % 6]];
        let c0 = 3 * first;
        let mut row_of = [0u8; 16];
        for i in 0..3 {
            row_of[free[c0][i] as usize & 15] = i as u8;
            row_of[free[c0 + 1][o1[i] as usize] as usize & 15] = i as u8;
            row_of[free[c0 + 2][o2[i] as usize] as usize & 15] = i as u8;
        }
        // Each column of the other stacks sends its digits to rows other
        // than the first stack's: at most two ways, none when the first
        // stack holds its three digits in one row.
        let (c1, c2) = (3 * second, 3 * third);
        let mut ways = [(0u8, [0u8; 2]); 6];
        let mut none = false;
        for (j, way) in ways.iter_mut().enumerate() {
            let c = if j < 3 { c1 + j } else { c2 + j - 3 };
            let f = |k: usize| row_of[free[c][k] as usize & 15] as usize;
            *way = AVOIDING[(9 * f(0) + 3 * f(1) + f(2)) & 31];
            none |= way.0 == 0;
        }
        if none {
            continue;
        }
        let [(n3, x3s), (n4, x4s), (n5, x5s), ..] = ways;
        for &x3 in &x3s[..n3 as usize] {
            for &x4 in &x4s[..n4 as usize] {
                let high = 6 * COMPOSE[x3 as usize][x4 as usize] as usize;
                for &x5 in &x5s[..n5 as usize] {
                    let case1 = high + COMPOSE[x3 as usize][x5 as usize] as usize;
                    if admitted[second] >> case1 & 1 == 0 {
                        continue;
                    }
                    // The third stack: each digit in the row the first two
                    // leave.
                    let mut row2_of = row_of;
                    for (c, x) in [(c1, x3), (c1 + 1, x4), (c1 + 2, x5)] {
                        let p = PERMS3[x as usize];
                        for k in 0..3 {
                            let d = free[c][k] as usize & 15;
                            row2_of[d] = 3u8.wrapping_sub(row_of[d]).wrapping_sub(p[k]);
                        }
                    }
                    let mut xs = [0u8; 3];
                    let mut valid = true;
                    for (j, x) in xs.iter_mut().enumerate() {
                        let r = |k: usize| row2_of[free[c2 + j][k] as usize & 15] as usize;
                        *x = PERM_OF[(9 * r(0) + 3 * r(1) + r(2)) & 31];
                        valid &= *x < 6;
                    }
                    if !valid {
                        continue;
                    }
                    let case2 = 6 * COMPOSE[xs[0] as usize][xs[1] as usize] as usize
                        + COMPOSE[xs[0] as usize][xs[2] as usize] as usize;
                    if admitted[third] >> case2 & 1 == 0 {
                        continue;
                    }
                    // Per column, its ranks' rows (`PERMS3` index).
                    let mut rows = [0u8; 9];
                    rows[c0..c0 + 3].copy_from_slice(&rows0);
                    rows[c1..c1 + 3].copy_from_slice(&[x3, x4, x5]);
                    rows[c2..c2 + 3].copy_from_slice(&xs);
                    // Normal order: row k holds column 1's rank k.
                    let normal = INVERSE[rows[0] as usize] as usize;
                    let mut band = [0u8; 27];
                    for c in 0..9 {
                        let p = PERMS3[COMPOSE_ROWS[normal][rows[c] as usize] as usize];
                        for k in 0..3 {
                            band[9 * p[k] as usize + c] = free[c][k];
                        }
                    }
                    let mut cases = [0u8; 3];
                    cases[first] = case0 as u8;
                    cases[second] = case1 as u8;
                    cases[third] = case2 as u8;
                    out.push((band, cases));
                }
            }
        }
    }
    out[start..].sort_unstable_by_key(|&(band, _)| band);
}

/// `COMPOSE_ROWS[y][x]`: the index in `PERMS3` of `k ↦ PERMS3[y][PERMS3[x][k]]`
/// (rank `k` sent to row `PERMS3[x][k]`, then the rows renamed by `y`).
const COMPOSE_ROWS: [[u8; 6]; 6] = {
    let mut t = [[0u8; 6]; 6];
    let mut y = 0;
    while y < 6 {
        let mut x = 0;
        while x < 6 {
            let (py, px) = (PERMS3[y], PERMS3[x]);
            t[y][x] = PERM_OF[9 * py[px[0] as usize] as usize
                + 3 * py[px[1] as usize] as usize
                + py[px[2] as usize] as usize];
            x += 1;
        }
        y += 1;
    }
    t
};

/// `INVERSE[p]`: the index in `PERMS3` of the inverse of `PERMS3[p]`.
const INVERSE: [u8; 6] = {
    let mut t = [0u8; 6];
    let mut p = 0;
    while p < 6 {
        let o = PERMS3[p];
        let mut inverse = [0u8; 3];
        let mut k = 0;
        while k < 3 {
            inverse[o[k] as usize] = k as u8;
            k += 1;
        }
        t[p] = PERM_OF[9 * inverse[0] as usize + 3 * inverse[1] as usize + inverse[2] as usize];
        p += 1;
    }
    t
};

/// The case (0..36) of stack `s` of a band 3 under fixed rows 1-6: the
/// orders of its three columns' digits, up to a permutation of rows 7-9
/// (which moves columns inside one stack of the transposed band, so keeps
/// its class): the rows taken in the order that sorts the stack's first
/// column, then `6 o1 + o2`, the orders (`PERMS3` indices) of the other
/// two columns' digits in those rows.
#[inline]
pub(crate) fn case_of(band3: &Band, s: usize) -> usize {
    let c = 3 * s;
    let (a, b, d) = (band3[c], band3[9 + c], band3[18 + c]);
    // The rows (0..3) in increasing order of column c's digits.
    let rows: [usize; 3] = match order3(a, b, d) {
        0 => [0, 1, 2],
        1 => [0, 2, 1],
        2 => [1, 0, 2],
        3 => [2, 0, 1],
        4 => [1, 2, 0],
        _ => [2, 1, 0],
    };
    let mut case = 0;
    for j in 1..3 {
        let at = |r: usize| band3[9 * rows[r] + c + j];
        case = case * 6 + order3(at(0), at(1), at(2));
    }
    case
}

/// The order (0..6, the index in `PERMS3`) of three distinct digits.
#[inline]
pub(crate) fn order3(a: u8, b: u8, c: u8) -> usize {
    2 * ((b < a) as usize + (c < a) as usize) + (c < b) as usize
}

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
