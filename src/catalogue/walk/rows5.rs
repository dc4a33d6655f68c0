//! The rows 5 of a prefix that the fill of rows 5-6 goes on from, and
//! the band 2s under one of them: what a rows-5 list (`NNN.r5s`,
//! `crate::catalogue::rows5`) marks and what a stream walks under a marked
//! row 5.

use super::rows56::for_each_row5;
use super::{Band2, Flow, Rows56, Walker};

impl Walker {
    /// Every row 5 of the prefix `(b, row4)` that the fill of rows 5-6
    /// ([`Self::band2s`]) goes on from: the rows 5 that fit under rows 1-4
    /// (first digit above row 4's) and pass its cut at cell 45 (some order
    /// of row 6 makes band 2 of class `b` or more), in increasing order,
    /// until `visit` says stop. Every band 2 of [`Self::band2s`] lies under
    /// one of them (the rows-5 lists, `crate::catalogue::rows5`).
    pub fn for_each_row5(
        &self,
        b: usize,
        row4: &[u8; 9],
        visit: &mut impl FnMut(&[u8; 9]) -> Flow,
    ) -> Flow {
        let band1 = self.catalogue.band(b);
        let mut columns = [0u16; 9];
        let mut boxes = [0u16; 3];
        for (cell, &d) in band1.iter().enumerate() {
            columns[cell % 9] |= 1 << d;
        }
        for (col, &d) in row4.iter().enumerate() {
            columns[col] |= 1 << d;
            boxes[col / 3] |= 1 << d;
        }
        let mut rows45 = [0u8; 18];
        rows45[..9].copy_from_slice(row4);
        let mut flow = Flow::Continue;
        for_each_row5(&columns, &boxes, row4[0], |row5| {
            rows45[9..].copy_from_slice(row5);
            // The cut at cell 45: some row 6 makes band 2 of class `b` or more.
            if self.index.max_class_under(|i| rows45[i]) < b {
                return true;
            }
            flow = visit(row5);
            flow == Flow::Continue
        });
        flow
    }

    /// The band 2s of [`Self::band2s`] whose row 5 is `row5` (one of
    /// [`Self::for_each_row5`]), in increasing order: row 6 alone filled.
    pub fn band2s_under_row5(&self, b: usize, row4: &[u8; 9], row5: &[u8; 9]) -> Vec<Band2> {
        let mut grid = [0u8; 81];
        grid[..27].copy_from_slice(self.catalogue.band(b));
        grid[27..36].copy_from_slice(row4);
        grid[36..45].copy_from_slice(row5);
        let mut columns = [0u16; 9];
        let mut boxes = [0u16; 3];
        let mut row5_digits = 0u16;
        for (cell, &d) in grid[..45].iter().enumerate() {
            columns[cell % 9] |= 1 << d;
            if cell >= 27 {
                boxes[cell % 9 / 3] |= 1 << d;
            }
            if cell >= 36 {
                row5_digits |= 1 << d;
            }
        }
        let mut fill = Rows56 {
            walker: self,
            b,
            grid,
            columns,
            boxes,
            rows: [row5_digits, 0],
            from: None,
            to: None,
            done: false,
            out: Vec::new(),
        };
        fill.cell(45, false);
        fill.out
    }
}
