//! [`Transform`]: one symmetry of the sudoku board combined with a digit
//! relabelling.

use crate::grid::{CELLS, Grid, Puzzle, cell_at, col_of, random_line_order, row_of};

/// A validity-preserving map of grids: an optional transposition, then a
/// row permutation and a column permutation (each = an order of the three
/// bands/stacks × an order of the three lines inside each), then a
/// relabelling of the digits.
///
/// # Convention
///
/// `t.apply_grid(g)` is the grid `out` with
///
/// ```text
/// g'          = if t.transposed() { g reflected in its main diagonal } else { g }
/// out[r][c]   = t.map_digit( g'[t.rows()[r]][t.cols()[c]] )
/// ```
///
/// so `rows()[r]` names the line of `g'` that becomes row `r` (a "source"
/// array, not a destination array). Composition reads left to right:
/// `a.then(&b)` applies `a` first, then `b`:
///
/// ```
/// use s17::canon::Transform;
/// use s17::grid::Grid;
/// let g = Grid::parse(
///     "123456789456789123798231564234675918815943276967812435379164852582397641641528397",
/// )
/// .unwrap();
/// let mut rng = fastrand::Rng::with_seed(7);
/// let (a, b) = (Transform::random(&mut rng), Transform::random(&mut rng));
/// assert_eq!(a.then(&b).apply_grid(&g), b.apply_grid(&a.apply_grid(&g)));
/// assert_eq!(a.then(&a.inverse()), Transform::identity());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Transform {
    transpose: bool,
    rows: [u8; 9],
    cols: [u8; 9],
    /// `digits[d]` is the image of digit `d`; `digits[0] == 0` (empty stays
    /// empty).
    digits: [u8; 10],
}

/// True when `p` is a permutation of 0..9 that keeps bands (or stacks)
/// together: positions 3k..3k+3 all take lines of one band.
fn is_line_permutation(p: &[u8; 9]) -> bool {
    let mut seen = 0u16;
    for &x in p {
        if x >= 9 {
            return false;
        }
        seen |= 1 << x;
    }
    seen == 0x1ff
        && (0..3).all(|k| p[3 * k] / 3 == p[3 * k + 1] / 3 && p[3 * k] / 3 == p[3 * k + 2] / 3)
}

fn invert9(p: &[u8; 9]) -> [u8; 9] {
    let mut inv = [0u8; 9];
    for (i, &x) in p.iter().enumerate() {
        inv[x as usize] = i as u8;
    }
    inv
}

impl Transform {
    /// The transform that changes nothing.
    pub fn identity() -> Transform {
        Transform {
            transpose: false,
            rows: [0, 1, 2, 3, 4, 5, 6, 7, 8],
            cols: [0, 1, 2, 3, 4, 5, 6, 7, 8],
            digits: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        }
    }

    /// A transform from its parts (see the type's convention); `digits[d - 1]`
    /// is the image of digit `d`. `None` unless `rows` and `cols` keep bands
    /// and stacks together and `digits` is a permutation of 1..=9.
    pub fn new(
        transpose: bool,
        rows: [u8; 9],
        cols: [u8; 9],
        digits: [u8; 9],
    ) -> Option<Transform> {
        let mut seen = 0u16;
        for &d in &digits {
            if !(1..=9).contains(&d) {
                return None;
            }
            seen |= 1 << d;
        }
        if seen != 0x3fe || !is_line_permutation(&rows) || !is_line_permutation(&cols) {
            return None;
        }
        let mut map = [0u8; 10];
        map[1..].copy_from_slice(&digits);
        Some(Transform {
            transpose,
            rows,
            cols,
            digits: map,
        })
    }

    /// A uniformly random transform.
    pub fn random(rng: &mut fastrand::Rng) -> Transform {
        let transpose = rng.bool();
        let rows = random_line_order(rng);
        let cols = random_line_order(rng);
        let mut digits = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
        rng.shuffle(&mut digits);
        Transform::new(transpose, rows, cols, digits).expect("valid by construction")
    }

    /// Whether the input is transposed first.
    pub fn transposed(&self) -> bool {
        self.transpose
    }

    /// `rows()[r]`: the line of the (possibly transposed) input that becomes
    /// row `r`.
    pub fn rows(&self) -> &[u8; 9] {
        &self.rows
    }

    /// `cols()[c]`: the column of the (possibly transposed) input that
    /// becomes column `c`.
    pub fn cols(&self) -> &[u8; 9] {
        &self.cols
    }

    /// The image of a digit (1..=9); 0 (empty) maps to 0.
    #[inline]
    pub fn map_digit(&self, digit: u8) -> u8 {
        self.digits[digit as usize]
    }

    /// The input cell whose content lands on output cell `cell`.
    #[inline]
    pub fn source_cell(&self, cell: usize) -> usize {
        let r = self.rows[row_of(cell)] as usize;
        let c = self.cols[col_of(cell)] as usize;
        if self.transpose {
            cell_at(c, r)
        } else {
            cell_at(r, c)
        }
    }

    /// Where the content of input cell `cell` goes.
    pub fn apply_cell(&self, cell: usize) -> usize {
        let (mut r, mut c) = (row_of(cell) as u8, col_of(cell) as u8);
        if self.transpose {
            std::mem::swap(&mut r, &mut c);
        }
        let row = self.rows.iter().position(|&x| x == r).expect("permutation");
        let col = self.cols.iter().position(|&x| x == c).expect("permutation");
        cell_at(row, col)
    }

    fn apply_digits(&self, input: &[u8; CELLS]) -> [u8; CELLS] {
        let mut out = [0u8; CELLS];
        for (cell, o) in out.iter_mut().enumerate() {
            *o = self.digits[input[self.source_cell(cell)] as usize];
        }
        out
    }

    /// The image of a grid.
    pub fn apply_grid(&self, grid: &Grid) -> Grid {
        Grid::from_digits_unchecked(self.apply_digits(grid.digits()))
    }

    /// The image of a puzzle (empty cells stay empty).
    pub fn apply_puzzle(&self, puzzle: &Puzzle) -> Puzzle {
        Puzzle::from_digits(self.apply_digits(puzzle.digits()))
    }

    /// `self` first, then `other`: `a.then(&b).apply_grid(g) ==
    /// b.apply_grid(&a.apply_grid(g))`.
    pub fn then(&self, other: &Transform) -> Transform {
        let (first_rows, first_cols) = if other.transpose {
            (&self.cols, &self.rows)
        } else {
            (&self.rows, &self.cols)
        };
        let mut rows = [0u8; 9];
        let mut cols = [0u8; 9];
        for i in 0..9 {
            rows[i] = first_rows[other.rows[i] as usize];
            cols[i] = first_cols[other.cols[i] as usize];
        }
        let mut digits = [0u8; 10];
        for (out, &mid) in digits.iter_mut().zip(&self.digits) {
            *out = other.digits[mid as usize];
        }
        Transform {
            transpose: self.transpose != other.transpose,
            rows,
            cols,
            digits,
        }
    }

    /// The transform that undoes `self`: `t.then(&t.inverse())` is the
    /// identity (and so is `t.inverse().then(&t)`).
    pub fn inverse(&self) -> Transform {
        let (rows, cols) = if self.transpose {
            (invert9(&self.cols), invert9(&self.rows))
        } else {
            (invert9(&self.rows), invert9(&self.cols))
        };
        let mut digits = [0u8; 10];
        for d in 0..10u8 {
            digits[self.digits[d as usize] as usize] = d;
        }
        Transform {
            transpose: self.transpose,
            rows,
            cols,
            digits,
        }
    }
}

impl Default for Transform {
    fn default() -> Self {
        Transform::identity()
    }
}

impl std::fmt::Debug for Transform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let line = |p: &[u8]| p.iter().map(|x| char::from(b'0' + x)).collect::<String>();
        write!(
            f,
            "Transform {{ transpose: {}, rows: {}, cols: {}, digits: {} }}",
            self.transpose,
            line(&self.rows),
            line(&self.cols),
            line(&self.digits[1..]),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRID: &str =
        "123456789456789123798231564234675918815943276967812435379164852582397641641528397";

    #[test]
    fn identity_and_transpose() {
        let g = Grid::parse(GRID).unwrap();
        assert_eq!(Transform::identity().apply_grid(&g), g);
        let t = Transform::new(
            true,
            [0, 1, 2, 3, 4, 5, 6, 7, 8],
            [0, 1, 2, 3, 4, 5, 6, 7, 8],
            [1, 2, 3, 4, 5, 6, 7, 8, 9],
        )
        .unwrap();
        assert_eq!(t.apply_grid(&g), g.transposed());
    }

    #[test]
    fn rejects_bad_parts() {
        let id = [0, 1, 2, 3, 4, 5, 6, 7, 8];
        let digits = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        assert!(Transform::new(false, [0, 1, 3, 2, 4, 5, 6, 7, 8], id, digits).is_none());
        assert!(Transform::new(false, id, [0, 0, 2, 3, 4, 5, 6, 7, 8], digits).is_none());
        assert!(Transform::new(false, id, id, [1, 1, 3, 4, 5, 6, 7, 8, 9]).is_none());
        assert!(Transform::new(false, [3, 5, 4, 0, 1, 2, 8, 7, 6], id, digits).is_some());
    }

    #[test]
    fn rows_are_sources() {
        // Row 0 of the output is row 3 of the input.
        let g = Grid::parse(GRID).unwrap();
        let id = [0, 1, 2, 3, 4, 5, 6, 7, 8];
        let t = Transform::new(
            false,
            [3, 4, 5, 0, 1, 2, 6, 7, 8],
            id,
            [1, 2, 3, 4, 5, 6, 7, 8, 9],
        )
        .unwrap();
        assert_eq!(&t.apply_grid(&g).to_string()[..9], &GRID[27..36]);
        assert_eq!(t.apply_cell(27), 0);
        assert_eq!(t.source_cell(0), 27);
    }

    #[test]
    fn laws_on_random_transforms() {
        let g = Grid::parse(GRID).unwrap();
        let mut rng = fastrand::Rng::with_seed(1);
        for _ in 0..200 {
            let a = Transform::random(&mut rng);
            let b = Transform::random(&mut rng);
            let c = Transform::random(&mut rng);
            let ga = a.apply_grid(&g);
            assert!(Grid::from_digits(*ga.digits()).is_ok());
            assert_eq!(a.then(&b).apply_grid(&g), b.apply_grid(&ga));
            assert_eq!(a.then(&b).then(&c), a.then(&b.then(&c)));
            assert_eq!(a.then(&a.inverse()), Transform::identity());
            assert_eq!(a.inverse().then(&a), Transform::identity());
            assert_eq!(a.inverse().apply_grid(&ga), g);
            for cell in 0..CELLS {
                let to = a.apply_cell(cell);
                assert_eq!(a.source_cell(to), cell);
                assert_eq!(ga.digit(to), a.map_digit(g.digit(cell)));
            }
        }
    }
}
