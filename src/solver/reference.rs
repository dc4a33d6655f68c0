//! A plain backtracking solver, obviously correct and slow: the oracle that
//! the fast solver is cross-checked against. Not used by the search.
//!
//! Candidates are kept as 9-bit masks per cell; it always branches on the
//! empty cell with the fewest candidates.

use crate::grid::{CELLS, Grid, Puzzle, box_of, col_of, row_of};

/// Counts the solutions of `puzzle`, stopping at `limit`, and returns the
/// first `keep` solutions found, in search order.
pub fn solutions(puzzle: &Puzzle, limit: usize, keep: usize) -> (usize, Vec<Grid>) {
    let mut cells = *puzzle.digits();
    let mut used = [[0u16; 9]; 3];
    for (cell, &d) in cells.iter().enumerate() {
        if d != 0 {
            let bit = 1u16 << (d - 1);
            let units = [row_of(cell), col_of(cell), box_of(cell)];
            for (kind, &u) in units.iter().enumerate() {
                if used[kind][u] & bit != 0 {
                    return (0, Vec::new());
                }
                used[kind][u] |= bit;
            }
        }
    }
    let mut found = Vec::new();
    let mut count = 0;
    search(&mut cells, &mut used, limit, keep, &mut count, &mut found);
    (count, found)
}

fn search(
    cells: &mut [u8; CELLS],
    used: &mut [[u16; 9]; 3],
    limit: usize,
    keep: usize,
    count: &mut usize,
    found: &mut Vec<Grid>,
) {
    if *count >= limit {
        return;
    }
    let mut best: Option<(usize, u16)> = None;
    for cell in 0..CELLS {
        if cells[cell] != 0 {
            continue;
        }
        let taken = used[0][row_of(cell)] | used[1][col_of(cell)] | used[2][box_of(cell)];
        let free = !taken & 0x1ff;
        if best.is_none_or(|(_, b)| free.count_ones() < b.count_ones()) {
            best = Some((cell, free));
            if free.count_ones() <= 1 {
                break;
            }
        }
    }
    let Some((cell, free)) = best else {
        *count += 1;
        if found.len() < keep {
            found.push(Grid::from_digits_unchecked(*cells));
        }
        return;
    };
    let units = [row_of(cell), col_of(cell), box_of(cell)];
    for d in 0..9u8 {
        let bit = 1u16 << d;
        if free & bit == 0 {
            continue;
        }
        cells[cell] = d + 1;
        for (kind, &u) in units.iter().enumerate() {
            used[kind][u] |= bit;
        }
        search(cells, used, limit, keep, count, found);
        for (kind, &u) in units.iter().enumerate() {
            used[kind][u] &= !bit;
        }
        cells[cell] = 0;
        if *count >= limit {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_small_cases() {
        let grid =
            "123456789456789123798231564234675918815943276967812435379164852582397641641528397";
        let p = Puzzle::parse(grid).unwrap();
        assert_eq!(solutions(&p, 10, 1).0, 1);
        let empty = Puzzle::parse(&".".repeat(81)).unwrap();
        let (n, sols) = solutions(&empty, 5, 5);
        assert_eq!((n, sols.len()), (5, 5));
        // Empty a deadly rectangle (digits a, b / b, a on two rows and two
        // columns, in two boxes): exactly two solutions. The grid has two
        // such rectangles (rows 3 and 6, columns 7 and 9; rows 5 and 6,
        // columns 1 and 4).
        let g = Grid::parse(grid).unwrap();
        let d = *g.digits();
        let mut rectangles = Vec::new();
        for (r1, r2) in (0..9).flat_map(|r1| (r1 + 1..9).map(move |r2| (r1, r2))) {
            for (c1, c2) in (0..9).flat_map(|c1| (c1 + 1..9).map(move |c2| (c1, c2))) {
                let cells = [9 * r1 + c1, 9 * r1 + c2, 9 * r2 + c1, 9 * r2 + c2];
                let mut boxes: Vec<usize> = cells.iter().map(|&c| box_of(c)).collect();
                boxes.sort_unstable();
                boxes.dedup();
                if d[cells[0]] == d[cells[3]] && d[cells[1]] == d[cells[2]] && boxes.len() == 2 {
                    rectangles.push(cells);
                }
            }
        }
        assert_eq!(rectangles.len(), 2, "{rectangles:?}");
        for cells in rectangles {
            let mut holed = d;
            for c in cells {
                holed[c] = 0;
            }
            let (n, sols) = solutions(&Puzzle::from_digits(holed), 10, 10);
            assert_eq!(n, 2, "{cells:?}");
            // The grid, and the grid with the rectangle's digits swapped.
            let mut changed: Vec<usize> = sols
                .iter()
                .map(|s| g.difference(s).count_ones() as usize)
                .collect();
            changed.sort_unstable();
            assert_eq!(changed, [0, 4], "{cells:?}");
        }
    }
}
