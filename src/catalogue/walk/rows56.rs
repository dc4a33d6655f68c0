//! Rows 5 and 6 of a prefix, filled in increasing order: the band 2s
//! that pass the band-2 tests ([`Walker::band2s`]).

use super::{Band2, Walker};
use crate::ed::band_index::order3;
use crate::grid::PERMS3;

/// Rows 5 and 6 under rows 1-4, cell by cell, in increasing order: the
/// band 2s that pass the band-2 tests.
pub(super) struct Rows56<'a> {
    pub(super) walker: &'a Walker,
    pub(super) b: usize,
    pub(super) grid: [u8; 81],
    pub(super) columns: [u16; 9],
    pub(super) boxes: [u16; 3],
    /// Digits placed in rows 5 and 6.
    pub(super) rows: [u16; 2],
    /// Rows 5-6 below `from` are skipped; from `to` on, the fill stops.
    pub(super) from: Option<&'a [u8; 18]>,
    pub(super) to: Option<&'a [u8; 18]>,
    pub(super) done: bool,
    pub(super) out: Vec<Band2>,
}

impl Rows56<'_> {
    /// Fills `cell` on; `tight`: the cells before it equal `from`'s, so
    /// this one starts at `from`'s digit.
    pub(super) fn cell(&mut self, cell: usize, tight: bool) {
        if cell == 54 {
            if let Some(to) = self.to
                && self.grid[36..54] >= to[..]
            {
                self.done = true;
                return;
            }
            return self.band2();
        }
        if cell == 36 && !tight {
            return self.rows5();
        }
        if cell == 45 {
            // Rows 4-5 fix band 2's class up to row 6's orders: every row 6
            // refused at once when none reaches `b`.
            let grid = &self.grid;
            let (label, block) = self.walker.index.block_under(|i| grid[27 + i]);
            if self.walker.index.max_class_of_block(block) < self.b {
                return;
            }
            if !tight {
                return self.row6(&label, block);
            }
        }
        let (r, col) = ((cell - 36) / 9, cell % 9);
        let mut free = 0x3fe & !(self.rows[r] | self.boxes[col / 3] | self.columns[col]);
        if col == 0 {
            // Normal order: first digits increase down the band.
            free &= !((2u16 << self.grid[cell - 9]) - 1);
        }
        let low = match self.from {
            Some(from) if tight => from[cell - 36],
            _ => 0,
        };
        free &= !((1u16 << low) - 1);
        while free != 0 && !self.done {
            let d = free.trailing_zeros() as u8;
            let bit = 1u16 << d;
            free &= free - 1;
            self.grid[cell] = d;
            self.rows[r] |= bit;
            self.boxes[col / 3] |= bit;
            self.columns[col] |= bit;
            self.cell(cell + 1, tight && d == low);
            self.rows[r] ^= bit;
            self.boxes[col / 3] ^= bit;
            self.columns[col] ^= bit;
        }
    }

    /// Every row 5 (no lower bound from `from`), each as cell 45 goes on:
    /// the cut on band 2's class, then row 6.
    fn rows5(&mut self) {
        let (columns, boxes) = (self.columns, self.boxes);
        for_each_row5(&columns, &boxes, self.grid[27], |row5| {
            self.grid[36..45].copy_from_slice(row5);
            let grid = &self.grid;
            let (label, block) = self.walker.index.block_under(|i| grid[27 + i]);
            if self.walker.index.max_class_of_block(block) < self.b {
                return !self.done;
            }
            for c in 0..9 {
                self.columns[c] = columns[c] | 1 << row5[c];
            }
            for s in 0..3 {
                self.boxes[s] =
                    boxes[s] | 1 << row5[3 * s] | 1 << row5[3 * s + 1] | 1 << row5[3 * s + 2];
            }
            self.row6(&label, block);
            !self.done
        });
        (self.columns, self.boxes) = (columns, boxes);
    }

    /// Row 6 under rows 1-5 (no lower bound from `from`), stack by stack:
    /// each box's three digits left, in the orders its columns allow, in
    /// increasing order; band 2's class looked up in the block of rows 4-5
    /// (`label`, `block`: [`BandIndex::block_under`]) from row 6's orders.
    fn row6(&mut self, label: &[u8; 10], block: usize) {
        let mut left = [[0u8; 3]; 3];
        let mut all = 0u16;
        for (s, digits) in left.iter_mut().enumerate() {
            let mut mask = 0x3fe & !self.boxes[s];
            if mask.count_ones() != 3 {
                return;
            }
            all |= mask;
            for d in digits.iter_mut() {
                *d = mask.trailing_zeros() as u8;
                mask &= mask - 1;
            }
        }
        if all != 0x3fe {
            // Two boxes lack a common digit: no row 6.
            return;
        }
        // The orders of each stack's digits that its columns allow (and
        // for stack 1, row 6 opening above row 5), increasing, with their
        // relabelled order.
        let mut triples = [[([0u8; 3], 0usize); 6]; 3];
        let mut counts = [0usize; 3];
        for s in 0..3 {
            for p in PERMS3 {
                let t = [
                    left[s][p[0] as usize],
                    left[s][p[1] as usize],
                    left[s][p[2] as usize],
                ];
                if (0..3).any(|k| self.columns[3 * s + k] & 1 << t[k] != 0)
                    || s == 0 && t[0] <= self.grid[36]
                {
                    continue;
                }
                let o = order3(
                    label[t[0] as usize],
                    label[t[1] as usize],
                    label[t[2] as usize],
                );
                triples[s][counts[s]] = (t, o);
                counts[s] += 1;
            }
        }
        for &(t0, o0) in &triples[0][..counts[0]] {
            for &(t1, o1) in &triples[1][..counts[1]] {
                for &(t2, o2) in &triples[2][..counts[2]] {
                    self.grid[45..48].copy_from_slice(&t0);
                    self.grid[48..51].copy_from_slice(&t1);
                    self.grid[51..54].copy_from_slice(&t2);
                    if let Some(to) = self.to
                        && self.grid[36..54] >= to[..]
                    {
                        self.done = true;
                        return;
                    }
                    let number = 216 * block + 36 * o0 + 6 * o1 + o2;
                    let class2 = self.walker.index.class_at(number as u32);
                    if class2 >= self.b {
                        self.keep_band2(class2);
                    }
                }
            }
        }
    }

    /// Band 2 is complete: kept when its class is not below `b` and no
    /// automorphism of band 1 moves row 5 or 6 below row 4.
    fn band2(&mut self) {
        let mut band2 = [0u8; 27];
        band2.copy_from_slice(&self.grid[27..54]);
        let class2 = self.walker.index.class_of(&band2);
        if class2 >= self.b {
            self.keep_band2(class2);
        }
    }

    /// Band 2 (of class `class2`, not below `b`) is kept when no
    /// automorphism of band 1 moves row 5 or 6 below row 4.
    fn keep_band2(&mut self, class2: usize) {
        let row4: &[u8; 9] = self.grid[27..36].try_into().expect("9 digits");
        for r in 4..6 {
            let row: &[u8; 9] = self.grid[9 * r..9 * r + 9].try_into().expect("9 digits");
            if self.walker.beaten(self.b, row, row4) {
                return;
            }
        }
        let mut rows = [0u8; 18];
        rows.copy_from_slice(&self.grid[36..54]);
        self.out.push(Band2 {
            rows,
            class: class2 as u16,
        });
    }
}

/// Every row 5 under rows 1-4, in increasing order: nine different
/// digits, none in its column's `columns` (rows 1-4) nor its box's
/// `boxes` (row 4), the first above `first` (row 4's: normal order);
/// `visit(row5)` until it says stop (false). Depth first
/// without recursion, the candidates of each cell a mask.
#[inline]
pub(super) fn for_each_row5(
    columns: &[u16; 9],
    boxes: &[u16; 3],
    first: u8,
    mut visit: impl FnMut(&[u8; 9]) -> bool,
) {
    let taken: [u16; 9] = std::array::from_fn(|c| columns[c] | boxes[c / 3]);
    let mut row = [0u8; 9];
    // Per cell, its candidates not yet tried; the digits before it.
    let mut left = [0u16; 9];
    let mut used = [0u16; 9];
    left[0] = 0x3fe & !taken[0] & !((2u16 << first) - 1);
    let mut cell = 0usize;
    loop {
        if left[cell] == 0 {
            if cell == 0 {
                return;
            }
            cell -= 1;
            continue;
        }
        let bit = left[cell] & left[cell].wrapping_neg();
        left[cell] ^= bit;
        row[cell] = bit.trailing_zeros() as u8;
        if cell == 8 {
            if !visit(&row) {
                return;
            }
            continue;
        }
        used[cell + 1] = used[cell] | bit;
        cell += 1;
        left[cell] = 0x3fe & !(taken[cell] | used[cell]);
    }
}
