//! What rows 1-6 of a candidate decide alone, before a band 2's
//! completions are listed ([`Walker::walk_band2`]): which of band 1's
//! automorphisms can still make a smaller image, and whether every stack
//! can still be of class `b` or more.

use super::Walker;
use super::band3s::rows_of_cases;

/// An automorphism of band 1 kept for a band 2's candidates
/// ([`Walker::band2_maps`]): its index in the band's row maps, and when
/// mapped band 3 comes first (`column` not `u8::MAX`), the column and
/// digit that pick band 3's row mapped to the image's row 4.
#[derive(Clone, Copy, Debug)]
pub(super) struct KeptMap {
    map: u16,
    column: u8,
    digit: u8,
}

impl Walker {
    /// Into `maps`, the automorphisms of band `b` (but the identity) whose
    /// images of `grid`'s candidates (rows 1-6 fixed, any band 3) rows 1-6
    /// do not decide; false when one image beats every candidate. Which
    /// mapped band comes first in an image is fixed by rows 1-6: the one
    /// holding, in column `source[0]`, the digit `d` mapped to row 4's
    /// first digit `m` (`m` is the smallest digit of rows 4-9 in column 1,
    /// and `d` is not in band 1's column `source[0]`). When it is band 2,
    /// the image's rows 4-6 are known: smaller than the candidates' (band
    /// 2 has no minlex grid), larger (the map never beats) or equal (kept,
    /// rows 7-9 to compare). When it is band 3, the image's row 4 is the
    /// mapped row of band 3 holding `d` in column `source[0]`: kept unless
    /// its second digit, one of band 3's in column `source[1]` but `d`, is
    /// above row 4's whatever it is.
    pub(super) fn band2_maps(&self, b: usize, grid: &[u8; 81], maps: &mut Vec<KeptMap>) -> bool {
        maps.clear();
        let m = grid[27] as usize;
        let mut band3_digits = [0x3feu16; 9];
        for (cell, &d) in grid[..54].iter().enumerate() {
            band3_digits[cell % 9] &= !(1u16 << d);
        }
        for (i, map) in self.row_maps[b].iter().enumerate() {
            let c0 = map.source[0] as usize;
            let d = map.inverse[m];
            if band3_digits[c0] & 1 << d != 0 {
                let mut second = band3_digits[map.source[1] as usize] & !(1u16 << d);
                let mut low = u8::MAX;
                while second != 0 {
                    low = low.min(map.digits[second.trailing_zeros() as usize]);
                    second &= second - 1;
                }
                if low <= grid[28] {
                    maps.push(KeptMap {
                        map: i as u16,
                        column: c0 as u8,
                        digit: d,
                    });
                }
                continue;
            }
            // Band 2 first: its rows by increasing mapped first digit.
            let first = |r: usize| map.digits[grid[9 * r + c0] as usize];
            let mut rows = [3usize, 4, 5];
            if first(rows[1]) < first(rows[0]) {
                rows.swap(0, 1);
            }
            if first(rows[2]) < first(rows[1]) {
                rows.swap(1, 2);
                if first(rows[1]) < first(rows[0]) {
                    rows.swap(0, 1);
                }
            }
            let mut order = std::cmp::Ordering::Equal;
            'rows: for (k, &r) in rows.iter().enumerate() {
                for j in 0..9 {
                    let e = map.digits[grid[9 * r + map.source[j] as usize] as usize];
                    let c = grid[27 + 9 * k + j];
                    if e != c {
                        order = e.cmp(&c);
                        break 'rows;
                    }
                }
            }
            match order {
                std::cmp::Ordering::Less => return false,
                std::cmp::Ordering::Greater => {}
                std::cmp::Ordering::Equal => maps.push(KeptMap {
                    map: i as u16,
                    column: u8::MAX,
                    digit: 0,
                }),
            }
        }
        true
    }

    /// Whether one of `maps` ([`Self::band2_maps`]) makes an image of
    /// `grid` (a candidate) smaller than it.
    #[inline]
    pub(super) fn maps_beat(&self, b: usize, maps: &[KeptMap], grid: &[u8; 81]) -> bool {
        if maps.is_empty() {
            return false;
        }
        // Band 3's row (0..3) holding digit d in column c.
        let mut row_of = [[0u8; 10]; 9];
        for r in 0..3 {
            for c in 0..9 {
                row_of[c][grid[54 + 9 * r + c] as usize] = r as u8;
            }
        }
        let row_maps = &self.row_maps[b];
        maps.iter().any(|kept| {
            let map = &row_maps[kept.map as usize];
            if kept.column != u8::MAX {
                // Band 3 first: its row holding `digit` in `column` is the
                // image's row 4.
                let r = row_of[kept.column as usize][kept.digit as usize] as usize;
                let row = &grid[54 + 9 * r..63 + 9 * r];
                for j in 1..9 {
                    let e = map.digits[row[map.source[j] as usize] as usize];
                    let c = grid[27 + j];
                    if e != c {
                        return e < c;
                    }
                }
            }
            map.beats(grid, grid)
        })
    }

    /// Into `admitted[s]` and `ties[s]`, the cases (bit `case`, as
    /// [`super::band3s::case_of`] numbers them) of stack `s` of `grid`'s
    /// candidates (rows 1-6 fixed) of class `b` or more and of class `b`;
    /// false as soon as a stack has no case of class `b` or more (then no
    /// candidate is minlex). A stack's cases depend on its nine cells of
    /// rows 4-6 alone (rows 1-3 are band `b`'s): they are kept in a small
    /// cache of the thread, since band 2s under one row 4 share them.
    pub(super) fn stacks_admit(
        &self,
        b: usize,
        grid: &[u8; 81],
        admitted: &mut [u64; 3],
        ties: &mut [u64; 3],
        allowed: &mut [u32; 3],
    ) -> bool {
        // One borrow of the cache for the three stacks (a nested walk, in
        // a visit, finds it borrowed and goes without).
        STACK_CASES.with(|cell| {
            let mut cache = cell.try_borrow_mut().ok();
            for s in 0..3 {
                let mut key = (b as u64) << 2 | s as u64;
                for r in 3..6 {
                    for j in 0..3 {
                        key = key << 4 | grid[9 * r + 3 * s + j] as u64;
                    }
                }
                let slot = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - CACHE_BITS)) as usize;
                let entry = match cache.as_mut().map(|c| &mut c[slot]) {
                    Some(entry) if entry.0 == key + 1 => *entry,
                    slot => {
                        let (a, t) = self.stack_cases(b, grid, s);
                        let entry = (key + 1, a, t, rows_of_cases(a));
                        if let Some(slot) = slot {
                            *slot = entry;
                        }
                        entry
                    }
                };
                (admitted[s], ties[s], allowed[s]) = (entry.1, entry.2, entry.3);
                if admitted[s] == 0 {
                    return false;
                }
            }
            true
        })
    }

    /// The cases of stack `s` of `grid`'s candidates of class `b` or more,
    /// and of class `b` ([`Self::stacks_admit`]).
    fn stack_cases(&self, b: usize, grid: &[u8; 81], s: usize) -> (u64, u64) {
        // Each column's digits in rows 7-9, increasing.
        let mut sets = [[0u8; 3]; 3];
        for (j, set) in sets.iter_mut().enumerate() {
            let mut mask = 0x3feu16;
            for r in 0..6 {
                mask &= !(1u16 << grid[9 * r + 3 * s + j]);
            }
            for x in set.iter_mut() {
                *x = mask.trailing_zeros() as u8;
                mask &= mask - 1;
            }
        }
        // Rows 7-9 by increasing digit of the stack's first column, the
        // other two columns in the orders of the case: transposed, the
        // last box of rows 2 and 3 in the orders 6 × 6.
        let mut numbers = [0u32; 36];
        self.index.numbers_of_last_box(
            |i| {
                // Stack `s` transposed into a band: its cell `9 j + r` is
                // the grid's cell (r, 3 s + j).
                let (j, r) = (i / 9, i % 9);
                if r < 6 {
                    grid[9 * r + 3 * s + j]
                } else {
                    sets[j][r - 6]
                }
            },
            sets[1],
            sets[2],
            &mut numbers,
        );
        let (mut admitted, mut ties) = (0u64, 0u64);
        for (case, &n) in numbers.iter().enumerate() {
            let class = self.index.class_at(n);
            admitted |= ((class >= b) as u64) << case;
            ties |= ((class == b) as u64) << case;
        }
        (admitted, ties)
    }
}

/// The stack cache's size: `1 << CACHE_BITS` entries.
const CACHE_BITS: u32 = 12;

thread_local! {
    /// Per stack (first band, stack, its rows 4-6) seen, its admitted and
    /// tie cases and the rows the admitted ones hold
    /// ([`Walker::stacks_admit`]): `(key + 1, admitted, ties, rows)`,
    /// direct-mapped.
    static STACK_CASES: std::cell::RefCell<Vec<(u64, u64, u64, u32)>> =
        std::cell::RefCell::new(vec![(0, 0, 0, 0); 1 << CACHE_BITS]);
}
