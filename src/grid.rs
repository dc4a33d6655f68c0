//! Grids, puzzles and their 81-character line format.
//!
//! Cells are numbered 0..81 row-major: cell `c` is in row `c / 9`, column
//! `c % 9`. Band `b` is rows `3b..3b+3` (27 cells), stack `s` is columns
//! `3s..3s+3`. A [`Grid`] holds digits 1..=9 in every cell; a [`Puzzle`]
//! holds 0 for an empty cell. The text format is one line of 81 characters,
//! digits `1`-`9` and `.` or `0` for empty; a line may carry more fields after
//! the 81 characters (separated by whitespace, `:`, `,` or `;`), which parsing
//! ignores.

use std::fmt;

use crate::bits::Mask81;

/// Number of cells in a grid.
pub const CELLS: usize = 81;

/// The UTF-8 byte-order mark some editors (Windows Notepad) put at the
/// start of a text file.
pub const BYTE_ORDER_MARK: &[u8] = b"\xef\xbb\xbf";

/// The first line of a file without its [`BYTE_ORDER_MARK`], if it has one:
/// every reader of grid and puzzle files skips it.
pub fn without_bom(first_line: &[u8]) -> &[u8] {
    first_line
        .strip_prefix(BYTE_ORDER_MARK)
        .unwrap_or(first_line)
}

/// Row of a cell.
#[inline]
pub const fn row_of(cell: usize) -> usize {
    cell / 9
}

/// Column of a cell.
#[inline]
pub const fn col_of(cell: usize) -> usize {
    cell % 9
}

/// Box (0..9, row-major) of a cell.
#[inline]
pub const fn box_of(cell: usize) -> usize {
    (cell / 27) * 3 + (cell % 9) / 3
}

/// Band (0..3) of a cell.
#[inline]
pub const fn band_of(cell: usize) -> usize {
    cell / 27
}

/// Stack (0..3) of a cell.
#[inline]
pub const fn stack_of(cell: usize) -> usize {
    (cell % 9) / 3
}

/// Cell index from row and column.
#[inline]
pub const fn cell_at(row: usize, col: usize) -> usize {
    row * 9 + col
}

/// The six permutations of three things (bands, stacks, the rows of a
/// band, the columns of a stack, the three digits of a band's column), in
/// lexicographic order. Users rely on this order (`ed::band_index` decodes a transform
/// number `t` with row order `PERMS3[t / 1296]`): do not reorder it.
pub const PERMS3: [[u8; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// The 1,296 orders of the nine rows (or columns) that keep each band's
/// (stack's) lines together: band order `PERMS3[a]`, then the orders
/// inside bands 0, 1, 2 (`PERMS3[b]`, `PERMS3[c]`, `PERMS3[d]`), at index
/// `216a + 36b + 6c + d`. Users rely on this order (`ed::band_index`
/// decodes a transform number with it): do not reorder it.
pub fn line_orders() -> Vec<[u8; 9]> {
    let mut out = Vec::with_capacity(1296);
    for bands in &PERMS3 {
        for p0 in &PERMS3 {
            for p1 in &PERMS3 {
                for p2 in &PERMS3 {
                    let mut order = [0u8; 9];
                    for (k, inner) in [p0, p1, p2].into_iter().enumerate() {
                        for i in 0..3 {
                            order[3 * k + i] = 3 * bands[k] + inner[i];
                        }
                    }
                    out.push(order);
                }
            }
        }
    }
    out
}

/// A uniformly random one of the [`line_orders`]: the bands (stacks)
/// shuffled, then the lines inside each.
pub fn random_line_order(rng: &mut fastrand::Rng) -> [u8; 9] {
    let mut bands = [0u8, 1, 2];
    rng.shuffle(&mut bands);
    let mut out = [0u8; 9];
    for (k, &band) in bands.iter().enumerate() {
        let mut inner = [0u8, 1, 2];
        rng.shuffle(&mut inner);
        for i in 0..3 {
            out[3 * k + i] = 3 * band + inner[i];
        }
    }
    out
}

/// A kind of unit, used in error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Row,
    Column,
    Box,
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unit::Row => "row",
            Unit::Column => "column",
            Unit::Box => "box",
        })
    }
}

/// Why a line is not a grid or a puzzle.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("expected 81 cells, found {found}")]
    Length { found: usize },
    #[error("bad character {ch:?} at position {position} (expected 1-9, '.' or '0')")]
    Character { position: usize, ch: char },
    #[error("digit {digit} appears twice in {unit} {index}")]
    Repeated { digit: u8, unit: Unit, index: usize },
    #[error("not a complete grid: {empty} empty cells")]
    Incomplete { empty: usize },
}

/// A [`ParseError`] with the 1-based line number it came from; the text
/// says both (`line 5: bad character ...`), so the parse error is not also
/// given as its source (which would print the reason twice in a chain).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {error}")]
pub struct LineError {
    pub line: usize,
    pub error: ParseError,
}

/// True for the bytes that end the first field: ASCII whitespace (as
/// `char::is_whitespace` sees it) and the separators `:`, `,`, `;`.
#[inline]
fn is_separator(b: u8) -> bool {
    matches!(b, b' ' | b'\t'..=b'\r' | b':' | b',' | b';')
}

/// The first field of a line: everything before the first separator.
/// Only used for lines with non-ASCII bytes (the error path).
fn first_field(line: &str) -> &str {
    let line = line.trim_start();
    let end = line
        .find(|c: char| c.is_whitespace() || matches!(c, ':' | ',' | ';'))
        .unwrap_or(line.len());
    &line[..end]
}

/// Parses the 81 cells of a line into digits 0..=9 (0 = empty).
///
/// The fast path works on bytes: when the line (after leading whitespace)
/// is 81 cell bytes followed by its end or a separator, map each byte to a
/// digit without branching and check them all at once. Anything else goes to
/// [`parse_cells_slow`], which finds the reason.
#[inline]
fn parse_cells(line: &[u8]) -> Result<[u8; CELLS], ParseError> {
    let start = line
        .iter()
        .position(|&b| !matches!(b, b' ' | b'\t'..=b'\r'))
        .unwrap_or(line.len());
    let rest = &line[start..];
    if let Some(field) = rest.first_chunk::<CELLS>()
        && rest.get(CELLS).is_none_or(|&b| is_separator(b))
    {
        let mut cells = [0u8; CELLS];
        let mut bad = false;
        for (out, &b) in cells.iter_mut().zip(field) {
            let digit = if b == b'.' { 0 } else { b.wrapping_sub(b'0') };
            bad |= digit > 9;
            *out = digit;
        }
        if !bad {
            return Ok(cells);
        }
    }
    parse_cells_slow(line, rest)
}

/// The error of a line that [`parse_cells`] did not take (`rest` is the
/// line after its leading whitespace). A line with a non-ASCII byte before
/// the end of its first field goes to [`parse_cells_text`], which counts and
/// reports characters, not bytes.
#[cold]
fn parse_cells_slow(line: &[u8], rest: &[u8]) -> Result<[u8; CELLS], ParseError> {
    let end = rest
        .iter()
        .position(|&b| is_separator(b) || !b.is_ascii())
        .unwrap_or(rest.len());
    if end < rest.len() && !rest[end].is_ascii() {
        return parse_cells_text(&String::from_utf8_lossy(line));
    }
    if end != CELLS {
        return Err(ParseError::Length { found: end });
    }
    let (index, &b) = rest
        .iter()
        .enumerate()
        .find(|&(_, &b)| !matches!(b, b'0'..=b'9' | b'.'))
        .expect("the fast path refused a byte of the field");
    Err(ParseError::Character {
        position: index + 1,
        ch: b as char,
    })
}

/// [`parse_cells`] for text with non-ASCII characters (positions and the
/// length count characters).
fn parse_cells_text(line: &str) -> Result<[u8; CELLS], ParseError> {
    let field = first_field(line);
    let found = field.chars().count();
    if found != CELLS {
        return Err(ParseError::Length { found });
    }
    let mut cells = [0u8; CELLS];
    for (position, ch) in field.chars().enumerate() {
        cells[position] = match ch {
            '1'..='9' => ch as u8 - b'0',
            '.' | '0' => 0,
            _ => {
                return Err(ParseError::Character {
                    position: position + 1,
                    ch,
                });
            }
        };
    }
    Ok(cells)
}

/// True when some digit repeats in a row, column or box (digits 0..=9,
/// 0 = empty).
///
/// Each clue is one bit (`1 << digit`, none for an empty cell). A unit has
/// no repeat exactly when the sum of its bits equals their OR. Rows, columns
/// and boxes are summed in registers, with no branch and no table.
#[inline]
fn has_repeat(cells: &[u8; CELLS]) -> bool {
    let bits: [u16; CELLS] = cells.map(|d| (1u16 << (d & 15)) & !1);
    let mut col_or = [0u16; 9];
    let mut col_sum = [0u16; 9];
    let mut repeat = false;
    for band in bits.chunks_exact(27) {
        let mut box_or = [0u16; 9];
        let mut box_sum = [0u16; 9];
        for row in band.chunks_exact(9) {
            let (mut or, mut sum) = (0u16, 0u16);
            for c in 0..9 {
                or |= row[c];
                sum += row[c];
                col_or[c] |= row[c];
                col_sum[c] += row[c];
                box_or[c] |= row[c];
                box_sum[c] += row[c];
            }
            repeat |= or != sum;
        }
        for stack in 0..3 {
            let or = box_or[3 * stack] | box_or[3 * stack + 1] | box_or[3 * stack + 2];
            let sum = box_sum[3 * stack] + box_sum[3 * stack + 1] + box_sum[3 * stack + 2];
            repeat |= or != sum;
        }
    }
    repeat | (col_or != col_sum)
}

/// Checks that no digit repeats in a row, column or box; the error names
/// the first repeat in cell order (row before column before box).
fn check_units(cells: &[u8; CELLS]) -> Result<(), ParseError> {
    if !has_repeat(cells) {
        return Ok(());
    }
    let mut seen = [[0u16; 9]; 3];
    for (cell, &digit) in cells.iter().enumerate() {
        if digit == 0 {
            continue;
        }
        let bit = 1u16 << digit;
        let units = [row_of(cell), col_of(cell), box_of(cell)];
        for (kind, &index) in units.iter().enumerate() {
            if seen[kind][index] & bit != 0 {
                let unit = [Unit::Row, Unit::Column, Unit::Box][kind];
                return Err(ParseError::Repeated {
                    digit,
                    unit,
                    index: index + 1,
                });
            }
            seen[kind][index] |= bit;
        }
    }
    // Only digits above 15 (outside the contract) get here: the cell loop
    // is the authority.
    Ok(())
}

/// A set of clues: digits 1..=9 placed in some cells, 0 elsewhere.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Puzzle {
    cells: [u8; CELLS],
}

/// Cell contents reflected in the main diagonal.
fn transpose_cells(cells: &[u8; CELLS]) -> [u8; CELLS] {
    std::array::from_fn(|cell| cells[cell_at(col_of(cell), row_of(cell))])
}

impl Puzzle {
    /// The puzzle reflected in its main diagonal (rows become columns): a
    /// puzzle of the transposed grid.
    pub fn transposed(&self) -> Puzzle {
        Puzzle {
            cells: transpose_cells(&self.cells),
        }
    }

    /// Parses a puzzle line. Repeated digits in a unit are an error.
    pub fn parse(line: &str) -> Result<Puzzle, ParseError> {
        Puzzle::parse_bytes(line.as_bytes())
    }

    /// [`Puzzle::parse`] for a line of bytes (need not be UTF-8: a byte
    /// that is not ASCII is reported as a bad character).
    pub fn parse_bytes(line: &[u8]) -> Result<Puzzle, ParseError> {
        let cells = parse_cells(line)?;
        check_units(&cells)?;
        Ok(Puzzle { cells })
    }

    /// A puzzle from raw digits (0 = empty), without checks.
    pub fn from_digits(cells: [u8; CELLS]) -> Puzzle {
        debug_assert!(cells.iter().all(|&d| d <= 9));
        Puzzle { cells }
    }

    /// The clues of `grid` at the cells of `clues`.
    pub fn from_grid(grid: &Grid, clues: Mask81) -> Puzzle {
        let mut cells = [0u8; CELLS];
        for cell in crate::bits::cells(clues) {
            cells[cell] = grid.digit(cell);
        }
        Puzzle { cells }
    }

    /// Digits, 0 = empty.
    pub fn digits(&self) -> &[u8; CELLS] {
        &self.cells
    }

    /// The digit at a cell, 0 if empty.
    pub fn digit(&self, cell: usize) -> u8 {
        self.cells[cell]
    }

    /// Number of clues.
    pub fn clue_count(&self) -> usize {
        self.cells.iter().filter(|&&d| d != 0).count()
    }

    /// The cells holding a clue.
    pub fn clue_mask(&self) -> Mask81 {
        let mut mask = 0;
        for (cell, &d) in self.cells.iter().enumerate() {
            if d != 0 {
                mask |= 1u128 << cell;
            }
        }
        mask
    }

    /// True when every clue agrees with `grid`.
    pub fn agrees_with(&self, grid: &Grid) -> bool {
        self.cells
            .iter()
            .zip(grid.digits())
            .all(|(&p, &g)| p == 0 || p == g)
    }
}

impl fmt::Display for Puzzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = [b'.'; CELLS];
        for (out, &d) in text.iter_mut().zip(&self.cells) {
            if d != 0 {
                *out = b'0' + d;
            }
        }
        f.write_str(std::str::from_utf8(&text).expect("ascii"))
    }
}

impl fmt::Debug for Puzzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Puzzle({self})")
    }
}

/// A complete, valid sudoku grid: digits 1..=9, every unit a permutation.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Grid {
    cells: [u8; CELLS],
}

impl Grid {
    /// Parses a grid line: 81 digits 1-9 forming a valid grid.
    pub fn parse(line: &str) -> Result<Grid, ParseError> {
        Grid::parse_bytes(line.as_bytes())
    }

    /// [`Grid::parse`] for a line of bytes.
    pub fn parse_bytes(line: &[u8]) -> Result<Grid, ParseError> {
        Grid::from_digits(parse_cells(line)?)
    }

    /// A grid from digits, checked to be complete and valid.
    pub fn from_digits(cells: [u8; CELLS]) -> Result<Grid, ParseError> {
        let empty = cells.iter().filter(|&&d| d == 0).count();
        if empty != 0 {
            return Err(ParseError::Incomplete { empty });
        }
        check_units(&cells)?;
        Ok(Grid { cells })
    }

    /// A grid from digits the caller knows to be a valid grid.
    pub fn from_digits_unchecked(cells: [u8; CELLS]) -> Grid {
        debug_assert!(Grid::from_digits(cells).is_ok());
        Grid { cells }
    }

    /// Digits 1..=9.
    pub fn digits(&self) -> &[u8; CELLS] {
        &self.cells
    }

    /// The digit (1..=9) at a cell.
    #[inline]
    pub fn digit(&self, cell: usize) -> u8 {
        self.cells[cell]
    }

    /// The whole grid as a puzzle with 81 clues.
    pub fn to_puzzle(&self) -> Puzzle {
        Puzzle { cells: self.cells }
    }

    /// The grid reflected in its main diagonal (rows become columns).
    pub fn transposed(&self) -> Grid {
        Grid {
            cells: transpose_cells(&self.cells),
        }
    }

    /// The cells where `self` and `other` differ.
    pub fn difference(&self, other: &Grid) -> Mask81 {
        let mut mask = 0;
        for cell in 0..CELLS {
            if self.cells[cell] != other.cells[cell] {
                mask |= 1u128 << cell;
            }
        }
        mask
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_puzzle(), f)
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub const GRID: &str =
        "123456789456789123798231564234675918815943276967812435379164852582397641641528397";

    #[test]
    fn cell_helpers() {
        assert_eq!((row_of(40), col_of(40), box_of(40)), (4, 4, 4));
        assert_eq!((band_of(80), stack_of(80), box_of(80)), (2, 2, 8));
        assert_eq!(box_of(cell_at(3, 8)), 5);
        assert_eq!(cell_at(8, 8), 80);
    }

    #[test]
    fn grid_round_trip_and_transpose() {
        let g = Grid::parse(GRID).unwrap();
        assert_eq!(g.to_string(), GRID);
        let t = g.transposed();
        assert_ne!(t, g);
        assert_eq!(t.transposed(), g);
        assert_eq!(t.digit(cell_at(0, 1)), g.digit(cell_at(1, 0)));
        assert_eq!(g.difference(&g), 0);
        assert_eq!(g.difference(&t).count_ones() % 2, 0);
        // A puzzle of the grid, transposed, is a puzzle of the transpose.
        let p = Puzzle::from_grid(&g, 0x1_5678_9abc_def0_1357_9bdf);
        assert!(p.transposed().agrees_with(&t));
        assert_eq!(p.transposed().clue_count(), p.clue_count());
        assert_eq!(p.transposed().transposed(), p);
    }

    #[test]
    fn puzzle_formats() {
        let p = Puzzle::parse(&GRID.replace('9', "0")).unwrap();
        assert_eq!(p.clue_count(), 72);
        assert_eq!(p.to_string(), GRID.replace('9', "."));
        assert!(p.agrees_with(&Grid::parse(GRID).unwrap()));
        let with_fields = format!("{}:1:{}", GRID.replace('1', "."), GRID);
        assert_eq!(Puzzle::parse(&with_fields).unwrap().clue_count(), 72);
        assert_eq!(
            Puzzle::from_grid(&Grid::parse(GRID).unwrap(), p.clue_mask()),
            p
        );
    }

    #[test]
    fn parse_errors_say_why() {
        assert_eq!(Grid::parse("123"), Err(ParseError::Length { found: 3 }));
        let bad = format!("x{}", &GRID[1..]);
        assert_eq!(
            Grid::parse(&bad),
            Err(ParseError::Character {
                position: 1,
                ch: 'x'
            })
        );
        let holed = format!(".{}", &GRID[1..]);
        assert_eq!(
            Grid::parse(&holed),
            Err(ParseError::Incomplete { empty: 1 })
        );
        let repeated = format!("1{}", &GRID[2..]).to_string() + "1";
        assert!(matches!(
            Grid::parse(&repeated),
            Err(ParseError::Repeated { .. })
        ));
        // A digit twice in the first row, column and box.
        for (digit, unit, gap) in [(1, Unit::Row, 0), (5, Unit::Column, 26), (7, Unit::Box, 10)] {
            let text = format!("{digit}{}{digit}{}", ".".repeat(gap), ".".repeat(79 - gap));
            assert_eq!(
                Puzzle::parse(&text),
                Err(ParseError::Repeated {
                    digit,
                    unit,
                    index: 1
                }),
                "{text}"
            );
        }
    }

    #[test]
    fn line_ends_separators_and_non_ascii() {
        let p = GRID.replace('9', ".");
        for line in [
            format!("{p}\r"),
            format!("  {p}\t# note"),
            format!("{p};x"),
            format!("{p},1"),
        ] {
            assert_eq!(Puzzle::parse(&line).unwrap().to_string(), p, "{line:?}");
        }
        assert_eq!(
            Puzzle::parse(&format!("{p}x")),
            Err(ParseError::Length { found: 82 })
        );
        // Positions and lengths count characters, not bytes.
        let accented = format!("{}é{}", &p[..40], &p[41..]);
        assert_eq!(
            Puzzle::parse(&accented),
            Err(ParseError::Character {
                position: 41,
                ch: 'é'
            })
        );
        let mut bytes = p.clone().into_bytes();
        bytes[3] = 0xff;
        assert_eq!(
            Puzzle::parse_bytes(&bytes),
            Err(ParseError::Character {
                position: 4,
                ch: '\u{fffd}'
            })
        );
        assert_eq!(
            Puzzle::parse(&format!("\u{a0}{p}")),
            Ok(Puzzle::parse(&p).unwrap())
        );
    }

    /// The branch-free repeat test agrees with a plain cell-by-cell check on
    /// random clue sets of a grid with random digits changed.
    #[test]
    fn repeat_test_matches_plain_check() {
        fn plain(cells: &[u8; CELLS]) -> bool {
            (0..CELLS).any(|a| {
                (0..a).any(|b| {
                    cells[a] != 0
                        && cells[a] == cells[b]
                        && (row_of(a) == row_of(b)
                            || col_of(a) == col_of(b)
                            || box_of(a) == box_of(b))
                })
            })
        }
        let grid = Grid::parse(GRID).unwrap();
        let mut rng = fastrand::Rng::with_seed(17);
        let (mut with, mut without) = (0, 0);
        for _ in 0..20_000 {
            let mut cells = *grid.digits();
            for d in cells.iter_mut() {
                if rng.u8(0..3) != 0 {
                    *d = 0;
                }
            }
            for _ in 0..rng.usize(0..3) {
                cells[rng.usize(0..CELLS)] = rng.u8(0..10);
            }
            let expected = plain(&cells);
            assert_eq!(has_repeat(&cells), expected, "{cells:?}");
            assert_eq!(check_units(&cells).is_err(), expected);
            if expected { with += 1 } else { without += 1 }
        }
        assert!(with > 1000 && without > 1000, "{with} {without}");
    }
}
