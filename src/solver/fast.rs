//! The fast solver: a band-oriented bitboard with a small `Copy` state.
//!
//! For each digit `d` and band `b` the board keeps one 27-bit word
//! `cand[3 * d + b]`: the cells of band `b` where `d` may still go (a placed
//! digit keeps only its own cell in its word). Each band also keeps the
//! cells not yet placed. Layout of a word: see [`super::band_tables`].
//!
//! Propagation, until nothing changes:
//!
//! - **Band placements.** Inside a band a digit fills one mini-row per row
//!   and per box, a 3x3 permutation. A word whose mini-row pattern admits
//!   no permutation is a contradiction; mini-rows in no admissible
//!   permutation are cleared (this covers pointing and claiming inside the
//!   band, and box hidden singles, which become row singles).
//! - **Row singles.** A row of a word with one cell left places the digit
//!   there (a hidden single of the row).
//! - **Naked singles**, found bit-parallel over the 9 words of a band:
//!   cells covered once; cells covered by no word are a contradiction.
//! - When those are exhausted, the **stack update**: the same permutation
//!   rule column-wise (in a stack a digit fills one column per band), and
//!   hidden singles of columns.
//!
//! Placing a digit clears its cell in the 8 other digits' words, its row,
//! box and column peers in its own band word, and its column in the other
//! two bands. It marks nothing: the board keeps each word as its last band
//! update left it (`seen`), and one SIMD compare of the two arrays gives
//! the words due for an update.
//!
//! When stuck, the search branches on a bivalue cell (any cell with the
//! fewest candidates otherwise): a copy of the board takes one digit, the
//! board itself then takes the other (or loses the tried digit). The board
//! is 240 bytes; a known 17 needs about 3.6 propagations on average.

use super::Solutions;
use super::band_tables::{MINIROWS_OF_ROW, PEERS, PLACEMENT_CELLS, STACK_ADMISSIBLE};
use crate::bits::{BAND_FULL, Mask27, Mask81, cells, differing_words, nonzero_cells};
use crate::grid::{CELLS, Grid, Puzzle};

/// The two bands other than a band.
const OTHER_BANDS: [[usize; 2]; 3] = [[1, 2], [0, 2], [0, 1]];

/// All 27 words.
const ALL_WORDS: u32 = (1 << 27) - 1;

/// Index of the word of `digit` (0..9) in `band` (0..3).
#[inline(always)]
const fn word(digit: usize, band: usize) -> usize {
    3 * digit + band
}

/// The lowest cell of each row of a band word, as `1 << 9 * row` steps.
const ROW_STARTS: Mask27 = 1 | 1 << 9 | 1 << 18;

/// The cells of a band word whose row holds exactly one cell. Every row
/// must hold at least one cell.
///
/// `w & (w - ROW_STARTS)` clears the lowest cell of each row (no row is
/// empty, so no borrow crosses rows): rows left empty held one cell.
#[inline(always)]
fn row_singles(w: Mask27) -> Mask27 {
    debug_assert!(w & 0x1ff != 0 && w & (0x1ff << 9) != 0 && w >> 18 != 0);
    w & !occupied_rows(w & w.wrapping_sub(ROW_STARTS))
}

/// The rows (all 9 cells each) of a band word that hold a cell. A row `v`
/// is non-empty when `v + 0x1ff` carries out of its 9 bits; rows 0 and 2
/// carry into bits 9 and 27, row 1, added apart, into bit 18.
#[inline(always)]
fn occupied_rows(w: Mask27) -> Mask27 {
    const OUTER: Mask27 = 0x1ff | 0x1ff << 18;
    const MIDDLE: Mask27 = 0x1ff << 9;
    let carries = ((w & OUTER) + OUTER) & (1 << 9 | 1 << 27) | ((w & MIDDLE) + MIDDLE) & (1 << 18);
    (carries >> 9) * 0x1ff
}

/// The mini-row pattern of a band word (see [`super::band_tables`]).
#[inline(always)]
fn minirow_pattern(w: Mask27) -> usize {
    MINIROWS_OF_ROW[(w & 0x1ff) as usize] as usize
        | (MINIROWS_OF_ROW[((w >> 9) & 0x1ff) as usize] as usize) << 3
        | (MINIROWS_OF_ROW[(w >> 18) as usize] as usize) << 6
}

/// The columns (9 bits) holding a cell of a band word.
#[inline(always)]
fn column_fold(w: Mask27) -> u32 {
    (w | w >> 9 | w >> 18) & 0x1ff
}

/// The 3x3 pattern (bit `3 * band + column in stack`) of one stack in a
/// digit's column sets `columns` (bit `9 * band + column`): three 3-bit
/// groups at bits 0, 9, 18 gathered to bits 12, 15, 18 by one multiply
/// (the other partial products land apart, outside bits 12..21).
#[inline(always)]
fn stack_pattern(columns: u32, stack: usize) -> usize {
    const GROUPS: u32 = 7 | 7 << 9 | 7 << 18;
    let groups = (columns >> (3 * stack)) & GROUPS;
    ((groups.wrapping_mul(1 | 1 << 6 | 1 << 12) >> 12) & 0x1ff) as usize
}

/// The band cells of a set of columns (9 bits).
#[inline(always)]
fn spread_columns(columns: u32) -> Mask27 {
    columns | columns << 9 | columns << 18
}

/// The lowest set bit's index.
#[inline(always)]
fn lowest(mask: u32) -> usize {
    mask.trailing_zeros() as usize
}

/// What propagation ended with.
enum Step {
    Contradiction,
    Solved,
    /// Stuck: branch on this cell (band, cell in band).
    Guess {
        band: usize,
        cell: usize,
    },
}

/// The solver state, copied on branching (240 bytes).
#[derive(Clone, Copy)]
struct Board {
    /// Candidate cells per (digit, band); see [`word`]. The 28th word,
    /// always 0, pads the array to whole SIMD registers.
    cand: [Mask27; 28],
    /// Cells not yet placed, per band.
    unsolved: [Mask27; 3],
    /// Each word as its last band update left it: words that differ
    /// are due for an update.
    seen: [Mask27; 28],
    /// Words changed since their digit's last stack update.
    stack_dirty: u32,
}

impl Board {
    /// The board with the given clues (cell 0..81, digit 0..9) placed and
    /// their peers cleared; `None` when two clues clash.
    #[inline]
    fn with_clues(clues: impl Iterator<Item = (usize, usize)>) -> Option<Board> {
        let mut excluded = [[0 as Mask27; 3]; 9];
        let mut placed = [[0 as Mask27; 3]; 9];
        let mut filled = [0 as Mask27; 3];
        for (cell, digit) in clues {
            let (band, bit) = (cell / 27, 1 << (cell % 27));
            if excluded[digit][band] & bit != 0 {
                return None;
            }
            let peers = &PEERS[cell];
            for b in 0..3 {
                excluded[digit][b] |= peers[b];
            }
            placed[digit][band] |= bit;
            filled[band] |= bit;
        }
        let mut cand = [0; 28];
        for digit in 0..9 {
            for band in 0..3 {
                cand[word(digit, band)] =
                    (BAND_FULL & !(excluded[digit][band] | filled[band])) | placed[digit][band];
            }
        }
        Some(Board {
            cand,
            unsolved: filled.map(|f| BAND_FULL & !f),
            seen: std::array::from_fn(|i| if i < 27 { !0 } else { 0 }),
            stack_dirty: ALL_WORDS,
        })
    }

    /// The words that changed since their last band update (bit `i`).
    #[inline(always)]
    fn changed(&self) -> u32 {
        differing_words(&self.cand, &self.seen)
    }

    /// Places `digit` at `cell` of `band` (a current candidate).
    #[inline(always)]
    fn place(&mut self, digit: usize, band: usize, cell: usize) {
        self.place_cells(digit, band, 1 << cell);
    }

    /// Places `digit` at each of `cells` of `band`: current candidates, no
    /// two of them peers (at most one per row, box and column).
    #[inline(always)]
    fn place_cells(&mut self, digit: usize, band: usize, cells: Mask27) {
        debug_assert!(cells != 0 && self.cand[word(digit, band)] & cells == cells);
        debug_assert!(self.unsolved[band] & cells == cells);
        self.unsolved[band] &= !cells;
        for d in 0..9 {
            self.cand[word(d, band)] &= !cells;
        }
        let columns = column_fold(cells);
        let boxes = ((columns | columns >> 1 | columns >> 2) & 0b001_001_001) * 0b111;
        let peers = occupied_rows(cells) | spread_columns(boxes);
        let own = word(digit, band);
        self.cand[own] = (self.cand[own] & !peers) | cells;
        let columns = !spread_columns(columns);
        for b in OTHER_BANDS[band] {
            let i = word(digit, b);
            self.cand[i] &= columns;
        }
    }

    /// Removes `digit` from the candidates of `cell` of `band`.
    #[inline(always)]
    fn eliminate(&mut self, digit: usize, band: usize, cell: usize) {
        let i = word(digit, band);
        self.cand[i] &= !(1 << cell);
    }

    /// Band update of word `i`: keeps the cells of admissible mini-rows and
    /// places row singles. False on a contradiction.
    #[inline(always)]
    fn update_word(&mut self, i: usize) -> bool {
        let (digit, band) = (i / 3, i % 3);
        let w = self.cand[i];
        let w = w & PLACEMENT_CELLS[minirow_pattern(w)];
        if w == 0 {
            return false;
        }
        self.cand[i] = w;
        self.seen[i] = w;
        let singles = row_singles(w) & self.unsolved[band];
        if singles != 0 {
            self.place_cells(digit, band, singles);
        }
        true
    }

    /// Places naked singles `singles` of `band`.
    #[inline(always)]
    fn place_naked_singles(&mut self, band: usize, singles: Mask27) {
        for digit in 0..9 {
            loop {
                let mine = self.cand[word(digit, band)] & singles & self.unsolved[band];
                if mine == 0 {
                    break;
                }
                self.place(digit, band, lowest(mine));
            }
        }
    }

    /// Propagates until solved, contradicted or stuck.
    #[inline]
    fn propagate(&mut self) -> Step {
        loop {
            loop {
                let mut changed = self.changed();
                if changed == 0 {
                    break;
                }
                self.stack_dirty |= changed;
                while changed != 0 {
                    if !self.update_word(lowest(changed)) {
                        return Step::Contradiction;
                    }
                    changed &= changed - 1;
                }
            }
            let mut placed = false;
            let mut guess = None;
            for band in 0..3 {
                let unsolved = self.unsolved[band];
                if unsolved == 0 {
                    continue;
                }
                let (mut one, mut two, mut three) = (0, 0, 0);
                for digit in 0..9 {
                    let w = self.cand[word(digit, band)];
                    three |= two & w;
                    two |= one & w;
                    one |= w;
                }
                if unsolved & !one != 0 {
                    return Step::Contradiction;
                }
                let singles = unsolved & !two;
                if singles != 0 {
                    self.place_naked_singles(band, singles);
                    placed = true;
                } else {
                    // Branch in the band with the most cells left.
                    let pairs = unsolved & !three;
                    let n = unsolved.count_ones();
                    if pairs != 0 && guess.is_none_or(|(_, _, m)| n > m) {
                        guess = Some((band, lowest(pairs), n));
                    }
                }
            }
            if placed {
                continue;
            }
            match self.stack_update() {
                None => return Step::Contradiction,
                Some(true) => continue,
                Some(false) if self.changed() != 0 => continue,
                Some(false) => {}
            }
            if let Some((band, cell, _)) = guess {
                return Step::Guess { band, cell };
            }
            return match self.fewest_candidates() {
                Some((band, cell)) => Step::Guess { band, cell },
                None => Step::Solved,
            };
        }
    }

    /// Stack update, the column-wise counterpart of the band update, for
    /// every digit: in each stack a digit fills one column per band and
    /// one band per column (a 3x3 permutation of band x column), so columns
    /// outside every admissible permutation are cleared; then a column with
    /// one candidate cell left places the digit there (a hidden single of
    /// the column). `None` on a contradiction, else whether it placed.
    #[inline]
    fn stack_update(&mut self) -> Option<bool> {
        let mut placed = false;
        for digit in 0..9 {
            let words = 0b111 << word(digit, 0);
            if self.stack_dirty & words == 0 {
                continue;
            }
            self.stack_dirty &= !words;
            let w = [0, 1, 2].map(|band| self.cand[word(digit, band)]);
            let columns = column_fold(w[0]) | column_fold(w[1]) << 9 | column_fold(w[2]) << 18;
            let admissible = [0, 1, 2].map(|stack| STACK_ADMISSIBLE[stack_pattern(columns, stack)]);
            if admissible.contains(&0) {
                return None;
            }
            let keep = admissible[0] | admissible[1] << 3 | admissible[2] << 6;
            let (mut once, mut twice) = (0, 0);
            for (band, w) in w.into_iter().enumerate() {
                let w = w & spread_columns((keep >> (9 * band)) & 0x1ff);
                self.cand[word(digit, band)] = w;
                let (a, b, c) = (w & 0x1ff, (w >> 9) & 0x1ff, w >> 18);
                twice |= (once & (a | b | c)) | (a & b) | (a & c) | (b & c);
                once |= a | b | c;
            }
            let single_columns = spread_columns(once & !twice);
            if single_columns == 0 {
                continue;
            }
            for band in 0..3 {
                loop {
                    let cells = self.cand[word(digit, band)] & single_columns & self.unsolved[band];
                    if cells == 0 {
                        break;
                    }
                    self.place(digit, band, lowest(cells));
                    placed = true;
                }
            }
        }
        Some(placed)
    }

    /// The unsolved cell with the fewest candidates, if any.
    #[cold]
    fn fewest_candidates(&self) -> Option<(usize, usize)> {
        let mut best: Option<(u32, usize, usize)> = None;
        for band in 0..3 {
            let mut unsolved = self.unsolved[band];
            while unsolved != 0 {
                let cell = lowest(unsolved);
                unsolved &= unsolved - 1;
                let n = self.digits_at(band, cell).count_ones();
                if best.is_none_or(|(m, _, _)| n < m) {
                    best = Some((n, band, cell));
                }
            }
        }
        best.map(|(_, band, cell)| (band, cell))
    }

    /// The candidate digits of a cell, bit `digit`.
    #[inline(always)]
    fn digits_at(&self, band: usize, cell: usize) -> u32 {
        let mut digits = 0;
        for digit in 0..9 {
            digits |= ((self.cand[word(digit, band)] >> cell) & 1) << digit;
        }
        digits
    }

    /// The grid of a solved board.
    fn solution_grid(&self) -> Grid {
        let mut cells = [0u8; CELLS];
        for digit in 0..9 {
            for band in 0..3 {
                // Solved: the digit holds one cell in each row of the band.
                let mut w = self.cand[word(digit, band)];
                debug_assert_eq!(w.count_ones(), 3);
                for _ in 0..3 {
                    cells[27 * band + lowest(w)] = digit as u8 + 1;
                    w &= w.wrapping_sub(1);
                }
            }
        }
        Grid::from_digits_unchecked(cells)
    }

    /// The board of a puzzle's clues.
    #[inline]
    fn of_puzzle(puzzle: &Puzzle) -> Option<Board> {
        let digits = puzzle.digits();
        Board::with_clues(cells(nonzero_cells(digits)).map(|c| (c, digits[c] as usize - 1)))
    }
}

/// Receives the solutions of a search; returns false to stop it.
trait Visitor {
    fn visit(&mut self, board: &Board) -> bool;
}

/// Depth-first search from `board`; false when the visitor stopped it.
fn search<V: Visitor>(board: Board, visitor: &mut V) -> bool {
    search_near(board, visitor, None)
}

/// [`search`] trying at each guess the digit of `near` first when it is a
/// candidate (so the first solution found tends to agree with `near` on
/// more cells), else the lowest.
fn search_near<V: Visitor>(mut board: Board, visitor: &mut V, near: Option<&[u8; 81]>) -> bool {
    loop {
        match board.propagate() {
            Step::Contradiction => return true,
            Step::Solved => return visitor.visit(&board),
            Step::Guess { band, cell } => {
                let digits = board.digits_at(band, cell);
                let first = match near {
                    Some(near) if digits >> (near[27 * band + cell] - 1) & 1 != 0 => {
                        near[27 * band + cell] as usize - 1
                    }
                    _ => lowest(digits),
                };
                let mut child = board;
                child.place(first, band, cell);
                if !search_near(child, visitor, near) {
                    return false;
                }
                let rest = digits & !(1 << first);
                if rest & (rest - 1) == 0 {
                    board.place(lowest(rest), band, cell);
                } else {
                    board.eliminate(first, band, cell);
                }
            }
        }
    }
}

/// Counts solutions up to a limit, keeping the first `KEEP` (0..=2).
struct Counter<const KEEP: usize> {
    count: usize,
    limit: usize,
    kept: [Option<Grid>; 2],
}

impl<const KEEP: usize> Counter<KEEP> {
    fn new(limit: usize) -> Self {
        Counter {
            count: 0,
            limit: limit.max(1),
            kept: [None, None],
        }
    }
}

impl<const KEEP: usize> Visitor for Counter<KEEP> {
    #[inline]
    fn visit(&mut self, board: &Board) -> bool {
        if self.count < KEEP {
            self.kept[self.count] = Some(board.solution_grid());
        }
        self.count += 1;
        self.count < self.limit
    }
}

/// Calls a closure with each solution, up to a limit.
struct Each<F> {
    count: usize,
    limit: usize,
    f: F,
}

impl<F: FnMut(&Grid) -> bool> Visitor for Each<F> {
    fn visit(&mut self, board: &Board) -> bool {
        self.count += 1;
        (self.f)(&board.solution_grid()) && self.count < self.limit
    }
}

/// Stops at the first solution and keeps its board.
struct First(Option<Board>);

impl Visitor for First {
    #[inline]
    fn visit(&mut self, board: &Board) -> bool {
        self.0 = Some(*board);
        false
    }
}

/// Counts the solutions of `puzzle` up to `limit` (>= 1) and keeps the
/// first two.
pub fn solve(puzzle: &Puzzle, limit: usize) -> Solutions {
    let mut counter = Counter::<2>::new(limit);
    if let Some(board) = Board::of_puzzle(puzzle) {
        search(board, &mut counter);
    }
    let [first, second] = counter.kept;
    Solutions {
        count: counter.count,
        first,
        second,
    }
}

/// The number of solutions of `puzzle`, counting up to `limit` (>= 1).
pub fn count_solutions(puzzle: &Puzzle, limit: usize) -> usize {
    let mut counter = Counter::<0>::new(limit);
    if let Some(board) = Board::of_puzzle(puzzle) {
        search(board, &mut counter);
    }
    counter.count
}

/// Calls `f` with each solution of `puzzle` until `limit` solutions were
/// visited or `f` returns false; returns the number visited.
pub fn for_each_solution(puzzle: &Puzzle, limit: usize, f: impl FnMut(&Grid) -> bool) -> usize {
    let mut each = Each {
        count: 0,
        limit: limit.max(1),
        f,
    };
    if let Some(board) = Board::of_puzzle(puzzle) {
        search(board, &mut each);
    }
    each.count
}

/// A solution of the clues `clues` of `grid` other than `grid`, if any.
/// `grid` must be a valid grid (it is then a solution of its clues).
///
/// The search follows the grid: at each branch it first tries, in a copy,
/// a digit that differs from the grid (any solution found there differs),
/// then keeps the grid's digit. Reaching a solved board on that path means
/// reaching the grid itself.
pub fn other_solution(grid: &Grid, clues: Mask81) -> Option<Grid> {
    let digits = grid.digits();
    let mut board = Board::with_clues(cells(clues).map(|c| (c, digits[c] as usize - 1)))?;
    loop {
        match board.propagate() {
            Step::Contradiction | Step::Solved => return None,
            Step::Guess { band, cell } => {
                let own = digits[27 * band + cell] as usize - 1;
                let candidates = board.digits_at(band, cell);
                debug_assert!(candidates >> own & 1 != 0, "grid is not a solution");
                let others = candidates & !(1 << own);
                let other = lowest(others);
                let mut child = board;
                child.place(other, band, cell);
                let mut first = First(None);
                // The grid's digits first elsewhere: an other solution close
                // to the grid gives a small difference (a cheap minimal UA).
                search_near(child, &mut first, Some(digits));
                if let Some(found) = first.0 {
                    return Some(found.solution_grid());
                }
                if others & (others - 1) == 0 {
                    board.place(own, band, cell);
                } else {
                    board.eliminate(other, band, cell);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRID: &str =
        "123456789456789123798231564234675918815943276967812435379164852582397641641528397";

    #[test]
    fn stack_patterns_gather_bits() {
        for columns in (0u32..1 << 27).step_by(4099) {
            for stack in 0..3 {
                let mut expected = 0;
                for band in 0..3 {
                    for j in 0..3 {
                        expected |= (columns >> (9 * band + 3 * stack + j) & 1) << (3 * band + j);
                    }
                }
                assert_eq!(stack_pattern(columns, stack), expected as usize);
            }
        }
    }

    #[test]
    fn placing_clears_exactly_the_peers() {
        let empty = Board::with_clues(std::iter::empty()).unwrap();
        for (cell, peers) in PEERS.iter().enumerate() {
            let (band, digit) = (cell / 27, cell % 9);
            let mut board = empty;
            board.place(digit, band, cell % 27);
            for (b, &band_peers) in peers.iter().enumerate() {
                let expected = BAND_FULL & !band_peers;
                assert_eq!(board.cand[word(digit, b)], expected, "cell {cell} band {b}");
                for other in (0..9).filter(|&d| d != digit) {
                    let expected = if b == band {
                        BAND_FULL & !(1 << (cell % 27))
                    } else {
                        BAND_FULL
                    };
                    assert_eq!(board.cand[word(other, b)], expected);
                }
            }
        }
    }

    #[test]
    fn row_singles_and_patterns() {
        assert_eq!(row_singles(0b11 | 1 << 12 | 0b1001 << 18), 1 << 12);
        assert_eq!(occupied_rows(1 << 26), 0x1ff << 18);
        assert_eq!(occupied_rows(1 << 9 | 1 << 8), 0x3ffff);
        assert_eq!(minirow_pattern(1 | 1 << 17 | 1 << 21), 1 | 1 << 5 | 1 << 7);
    }

    #[test]
    fn full_grid_and_empty_puzzle() {
        let g = Grid::parse(GRID).unwrap();
        let s = solve(&g.to_puzzle(), 5);
        assert_eq!((s.count, s.first, s.second), (1, Some(g), None));
        let empty = Puzzle::parse(&".".repeat(81)).unwrap();
        let s = solve(&empty, 7);
        assert_eq!(s.count, 7);
        assert_ne!(s.first, s.second);
        assert_eq!(count_solutions(&empty, 100), 100);
    }

    #[test]
    fn clashing_clues_have_no_solution() {
        let mut d = [0u8; 81];
        d[0] = 5;
        d[80] = 5;
        assert_eq!(count_solutions(&Puzzle::from_digits(d), 3), 3);
        d[4] = 5; // row 0 now holds 5 twice
        assert_eq!(count_solutions(&Puzzle::from_digits(d), 3), 0);
    }

    #[test]
    fn other_solution_of_full_and_sparse_clues() {
        let g = Grid::parse(GRID).unwrap();
        assert_eq!(other_solution(&g, crate::bits::GRID_FULL), None);
        let clues = crate::bits::GRID_FULL & !0b111_111_111;
        assert_eq!(other_solution(&g, clues), None);
        let other = other_solution(&g, 0).expect("empty puzzle has many solutions");
        assert_ne!(other, g);
    }
}
