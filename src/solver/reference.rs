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
        // Remove a deadly pattern: two rows, two columns, two boxes.
        let g = Grid::parse(grid).unwrap();
        let mut d = *g.digits();
        // Find a rectangle in band 0 with digits a,b / b,a.
        let mut hole = None;
        'outer: for c1 in 0..9 {
            for c2 in c1 + 1..9 {
                for r2 in 1..3 {
                    let (a, b) = (d[c1], d[c2]);
                    if c1 / 3 != c2 / 3 && d[r2 * 9 + c1] == b && d[r2 * 9 + c2] == a {
                        hole = Some([c1, c2, r2 * 9 + c1, r2 * 9 + c2]);
                        break 'outer;
                    }
                }
            }
        }
        if let Some(h) = hole {
            for c in h {
                d[c] = 0;
            }
            assert_eq!(solutions(&Puzzle::from_digits(d), 10, 2).0, 2);
        }
    }
}
