//! The walk of one band 2 as it was before the batched one: candidate by
//! candidate, each stack class cached on first meeting (216 cases a
//! stack), band 3's class looked up alone. The tests compare the two.

use super::band3s::order3;
use super::*;
use crate::ed::fill::for_each_band3;

impl Walker {
    /// The walk of one band 2 as it was: candidate by candidate (the
    /// reference of the tests and timings).
    pub(crate) fn walk_band2_simple(
        &self,
        b: usize,
        row4: &[u8; 9],
        band2: &Band2,
        reverse: bool,
        visit: &mut impl FnMut(&[u8; 81]) -> Flow,
    ) -> Flow {
        let mut grid = [0u8; 81];
        grid[..27].copy_from_slice(self.catalogue.band(b));
        grid[27..36].copy_from_slice(row4);
        grid[36..54].copy_from_slice(&band2.rows);
        let mut bands12 = [0u8; 54];
        bands12.copy_from_slice(&grid[..54]);
        let mut stacks = StackClasses::new();
        let class2 = band2.class as usize;
        if reverse {
            // A band 2 has a few dozen completions at most: kept, then
            // visited backward.
            let mut kept: Vec<Band> = Vec::new();
            for_each_band3(&bands12, |band3| {
                grid[54..].copy_from_slice(band3);
                if self.accepts_simple(b, class2, &grid, &mut stacks) {
                    kept.push(*band3);
                }
            });
            for band3 in kept.iter().rev() {
                grid[54..].copy_from_slice(band3);
                if visit(&grid) == Flow::Stop {
                    return Flow::Stop;
                }
            }
            return Flow::Continue;
        }
        let mut flow = Flow::Continue;
        for_each_band3(&bands12, |band3| {
            if flow == Flow::Stop {
                return;
            }
            grid[54..].copy_from_slice(band3);
            if self.accepts_simple(b, class2, &grid, &mut stacks) {
                flow = visit(&grid);
            }
        });
        flow
    }

    fn accepts_simple(
        &self,
        b: usize,
        class2: usize,
        grid: &[u8; 81],
        stacks: &mut StackClasses,
    ) -> bool {
        // The bands (rows) and stacks (columns, transposed) other than
        // band 1 with class b: each gives more images with rows 1-3 = B.
        // The stacks first: their classes are cached, band 3's is not.
        let mut ties = [(false, 0usize); 5];
        let mut n_ties = 0;
        for s in 0..3 {
            let class = stacks.class_simple(&self.index, grid, s);
            if class < b {
                return false;
            }
            if class == b {
                ties[n_ties] = (true, s);
                n_ties += 1;
            }
        }
        let mut band3 = [0u8; 27];
        band3.copy_from_slice(&grid[54..]);
        let class3 = self.index.class_of(&band3);
        if class3 < b {
            return false;
        }
        for (k, class) in [(1, class2), (2, class3)] {
            if class == b {
                ties[n_ties] = (false, k);
                n_ties += 1;
            }
        }
        // Band 1's own images: one per automorphism of B.
        if self.row_maps[b].iter().any(|map| map.beats(grid, grid)) {
            return false;
        }
        !ties[..n_ties]
            .iter()
            .any(|&(transposed, k)| self.tie_beats(b, grid, transposed, k))
    }
}

/// The classes of the three stacks of the candidates of one band 2: rows
/// 1-6 are fixed, so each column's three digits in rows 7-9 are a fixed
/// set and a stack is fixed by the order of its three columns' digits
/// there (6 × 6 × 6 cases). Each class is computed once, when first met.
struct StackClasses {
    /// Per stack and case, the class + 1 (0: not yet computed).
    classes: [[u16; 216]; 3],
}

impl StackClasses {
    fn new() -> StackClasses {
        StackClasses {
            classes: [[0; 216]; 3],
        }
    }

    fn class_simple(&mut self, index: &BandIndex, grid: &[u8; 81], s: usize) -> usize {
        let mut case = 0;
        for j in 0..3 {
            let c = 3 * s + j;
            case = case * 6 + order3(grid[54 + c], grid[63 + c], grid[72 + c]);
        }
        let slot = &mut self.classes[s][case];
        if *slot == 0 {
            let mut stack = [0u8; 27];
            for j in 0..3 {
                for r in 0..9 {
                    stack[9 * j + r] = grid[9 * r + 3 * s + j];
                }
            }
            *slot = index.class_of(&stack) as u16 + 1;
        }
        *slot as usize - 1
    }
}
