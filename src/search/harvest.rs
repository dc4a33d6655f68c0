//! UA harvest for one band-3 choice (ARCHITECTURE.md, stage 4).
//!
//! Works on the *search grid*: the grid with its bands reordered so that
//! band 3 of the search is rows 6..9. Everything found here is a genuine
//! unavoidable set, by construction: each one is the difference between the
//! grid and another valid grid that a solver produced. Debug builds re-check
//! it (the complement of the set has a second solution).
//!
//! - **UA12**: sets inside bands 1+2. For every digit subset D (2 to
//!   `ua12_digits` digits), fix band 3 and every cell of bands 1+2 whose digit
//!   is not in D, and enumerate the fillings; each differs from the grid on a
//!   UA12.
//! - **GUAs**: change band 3 by a *socket* (two cells of a mini-row swapped, or
//!   a whole mini-row rotated: T, the changed cells), which changes band 3's
//!   gangster; each filling of bands 1+2 under the new band 3 differs from the
//!   grid on a set S, and S ∪ T is a UA. Found the same way, with the digits
//!   of T always free.

use crate::bits::{BANDS12_FULL, GRID_FULL, Mask27, Mask54, Mask81, cells};
use crate::grid::{CELLS, Grid, Puzzle, box_of, col_of, row_of};
use crate::solver::for_each_solution;

/// A gangster UA: `s` in bands 1+2 (54-bit), `t` in band 3 (27-bit, band
/// coordinates). If a clue set of bands 1+2 misses `s`, band 3's clues must
/// hit `t`. Band-3 UAs are the case `s == 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Gua {
    pub s: Mask54,
    pub t: Mask27,
}

impl Gua {
    /// The whole set as a grid mask.
    pub fn cells(&self) -> Mask81 {
        self.s as u128 | (self.t as u128) << 54
    }
}

/// Limits of the harvest (see `SearchConfig`).
#[derive(Clone, Copy, Debug)]
pub struct HarvestLimits {
    /// Largest digit subset freed for UA12 (2..=6).
    pub ua12_digits: usize,
    /// Largest digit subset freed for GUAs (at least the socket's digits).
    pub gua_digits: usize,
    /// At most this many fillings enumerated per subproblem.
    pub fillings: usize,
}

/// Sorts by size then value, removes duplicates and supersets.
pub fn minimize<T: Copy + Ord>(
    sets: &mut Vec<T>,
    size: impl Fn(T) -> u32,
    subset: impl Fn(T, T) -> bool,
) {
    sets.sort_by_key(|&s| (size(s), s));
    sets.dedup();
    let mut kept: Vec<T> = Vec::with_capacity(sets.len());
    for &s in sets.iter() {
        if !kept.iter().any(|&k| subset(k, s)) {
            kept.push(s);
        }
    }
    *sets = kept;
}

/// Sorts 64-bit sets by size and keeps the minimal ones.
pub fn minimize54(sets: &mut Vec<Mask54>) {
    minimize(sets, |s| s.count_ones(), |a, b| a & !b == 0);
}

/// The cells of bands 1+2 whose digit is not in `digits` (bit d-1 = digit d).
fn cells_outside(grid: &Grid, digits: u16) -> Mask81 {
    let mut mask = 0;
    for cell in 0..54 {
        if digits & (1 << (grid.digit(cell) - 1)) == 0 {
            mask |= 1u128 << cell;
        }
    }
    mask
}

/// Digit subsets (9-bit masks) containing `required`, of sizes 2..=max.
fn digit_subsets(required: u16, max: usize) -> impl Iterator<Item = u16> {
    (0u16..512).filter(move |&d| {
        let n = d.count_ones() as usize;
        d & required == required && (2..=max).contains(&n)
    })
}

/// Debug builds: asserts that `ua` is an unavoidable set of `grid` (not
/// empty, and the puzzle of every other cell has a second solution); the
/// soundness rule of ARCHITECTURE.md. Release builds: nothing.
pub fn debug_assert_ua(grid: &Grid, ua: Mask81) {
    if cfg!(debug_assertions) {
        assert!(
            ua != 0 && crate::solver::other_solution(grid, GRID_FULL & !ua).is_some(),
            "{ua:#x} is no UA of {grid}"
        );
    }
}

/// Shrinks an unavoidable set of `grid` to a minimal one inside it: for
/// each cell c, if `ua` minus c still holds a UA (the grid outside it has a
/// second solution), `ua` becomes that solution's difference. Every set
/// this returns is unavoidable, and no cell can be dropped from it.
pub fn minimal_ua(grid: &Grid, ua: Mask81) -> Mask81 {
    let digits = grid.digits();
    let by_digit = digit_cells(grid);
    let mut blocked = blocked_by_digit(digits, ua);
    let mut ua = ua;
    // Cells proved needed: every UA inside `ua` holds them.
    let mut needed = 0;
    let mut cells = ua;
    while cells != 0 {
        let cell = cells & cells.wrapping_neg();
        cells &= cells - 1;
        if ua & cell == 0 {
            continue;
        }
        // Most cells of a minimal set are proved needed without the solver.
        let c = cell.trailing_zeros() as usize;
        let d = digits[c] as usize;
        let mut without = blocked;
        without[d] |= PEERS[c];
        let left = may_hold_ua(
            digits,
            &by_digit,
            without,
            ua & !cell,
            PEERS[c] | by_digit[d],
            needed,
        );
        if left == 0 {
            needed |= cell;
            continue;
        }
        // Any UA inside `ua` minus the cell lies inside `left`.
        match crate::solver::other_solution(grid, GRID_FULL & !left) {
            // A smaller UA: cells needed in `ua` stay needed in it.
            Some(other) => {
                ua = grid.difference(&other);
                cells &= ua;
                needed &= ua;
                blocked = blocked_by_digit(digits, ua);
            }
            None => needed |= cell,
        }
    }
    debug_assert_ua(grid, ua);
    ua
}

/// The cells of each digit (index 1..=9) of `grid`.
fn digit_cells(grid: &Grid) -> [Mask81; 10] {
    let mut by_digit = [0; 10];
    for (c, &d) in grid.digits().iter().enumerate() {
        by_digit[d as usize] |= 1 << c;
    }
    by_digit
}

/// The cells that see a cell holding each digit (index 1..=9) outside
/// `set`: in another solution that agrees with the grid outside `set`,
/// those cells cannot hold that digit.
fn blocked_by_digit(digits: &[u8; CELLS], set: Mask81) -> [Mask81; 10] {
    let mut blocked = [0; 10];
    for c in cells(GRID_FULL & !set) {
        blocked[digits[c] as usize] |= PEERS[c];
    }
    blocked
}

/// The cells of `set` that may lie in an unavoidable set inside it, by a
/// local argument: every such set lies inside the answer, and 0 means none
/// does. `by_digit` holds the grid's cells of each digit, `blocked` is
/// [`blocked_by_digit`] of `set`, and `work` the cells to test first (the
/// others passed the test before and need it again only when a cell they
/// depend on leaves). `needed` holds cells that every unavoidable set
/// inside `set` would hold (the caller knows it of a larger set): once one
/// of them leaves, the answer is 0.
///
/// If another solution G' differs from the grid G exactly on D ⊆ `set`,
/// then for each cell x of D with digit d and each unit of x, G' puts d on
/// some other cell y of D in that unit, and y sees no cell outside D that
/// holds d in G (G' keeps those). So a cell of `set` that fails this test
/// against the cells left is not in D; removing such cells keeps D, and
/// an empty result means there is no D.
fn may_hold_ua(
    digits: &[u8; CELLS],
    by_digit: &[Mask81; 10],
    mut blocked: [Mask81; 10],
    set: Mask81,
    work: Mask81,
    needed: Mask81,
) -> Mask81 {
    let (mut left, mut work) = (set, work & set);
    while work != 0 {
        let x = work.trailing_zeros() as usize;
        work &= work - 1;
        let d = digits[x] as usize;
        let places = left & !by_digit[d] & !blocked[d];
        let [r, c, b] = CELL_UNITS[x];
        if UNITS[r as usize] & places == 0
            || UNITS[c as usize] & places == 0
            || UNITS[b as usize] & places == 0
        {
            // x leaves: its peers may lose their last place for a digit,
            // and the cells of its digit lose the places x sees.
            if needed & (1 << x) != 0 {
                return 0;
            }
            left &= !(1 << x);
            blocked[d] |= PEERS[x];
            work |= (PEERS[x] | by_digit[d]) & left;
        }
    }
    left
}

/// The row, column and box of each cell, as indices of [`UNITS`]: rows
/// 0..9, columns 9..18, boxes 18..27.
const CELL_UNITS: [[u8; 3]; CELLS] = {
    let mut t = [[0u8; 3]; CELLS];
    let mut c = 0;
    while c < CELLS {
        t[c] = [
            row_of(c) as u8,
            (9 + col_of(c)) as u8,
            (18 + box_of(c)) as u8,
        ];
        c += 1;
    }
    t
};

/// The 27 units as cell masks.
const UNITS: [Mask81; 27] = {
    let mut units = [0u128; 27];
    let mut c = 0;
    while c < CELLS {
        let [r, col, b] = CELL_UNITS[c];
        units[r as usize] |= 1 << c;
        units[col as usize] |= 1 << c;
        units[b as usize] |= 1 << c;
        c += 1;
    }
    units
};

/// Each cell's row, column and box together (the cell included).
const PEERS: [Mask81; CELLS] = {
    let mut t = [0u128; CELLS];
    let mut c = 0;
    while c < CELLS {
        let [r, col, b] = CELL_UNITS[c];
        t[c] = UNITS[r as usize] | UNITS[col as usize] | UNITS[b as usize];
        c += 1;
    }
    t
};

/// UA12 of the search grid: unavoidable sets inside bands 1+2 (band 3
/// fixed), minimal among those found, sorted by size.
pub fn harvest_ua12(grid: &Grid, limits: &HarvestLimits) -> Vec<Mask54> {
    let band3: Mask81 = GRID_FULL & !(BANDS12_FULL as u128);
    let mut found = Vec::new();
    for digits in digit_subsets(0, limits.ua12_digits) {
        let clues = band3 | cells_outside(grid, digits);
        let puzzle = Puzzle::from_grid(grid, clues);
        for_each_solution(&puzzle, limits.fillings, |other| {
            let diff = grid.difference(other) as u64;
            if diff != 0 {
                found.push(diff);
            }
            true
        });
    }
    minimize54(&mut found);
    for &ua in &found {
        debug_assert_ua(grid, ua as u128);
    }
    found
}

/// The UA12 part 1 can use: those of [`harvest_ua12`] with cells in both
/// bands. (Sets inside band 1 or band 2 alone are band UAs, hit by every
/// valid clue set of the tables.)
pub fn spanning_ua12(grid: &Grid, limits: &HarvestLimits) -> Vec<Mask54> {
    use super::sets::BAND1;
    let mut ua12 = harvest_ua12(grid, limits);
    ua12.retain(|&u| u & BAND1 != 0 && u & !BAND1 != 0);
    ua12
}

/// The sockets of band 3: each is the set T of changed cells and the band 3
/// digits after the change (swap of two cells of a mini-row: 27; rotation
/// of a mini-row: 18).
pub fn sockets(grid: &Grid) -> Vec<(Mask27, [u8; 27])> {
    let mut band3 = [0u8; 27];
    band3.copy_from_slice(&grid.digits()[54..81]);
    let mut out = Vec::new();
    for row in 0..3 {
        for stack in 0..3 {
            let base = row * 9 + stack * 3;
            for (i, j) in [(0, 1), (0, 2), (1, 2)] {
                let mut changed = band3;
                changed.swap(base + i, base + j);
                out.push(((1 << (base + i)) | (1 << (base + j)), changed));
            }
            for turn in [1, 2] {
                let mut changed = band3;
                changed[base..base + 3].rotate_left(turn);
                out.push((0b111 << base, changed));
            }
        }
    }
    out
}

/// GUAs of the search grid for every socket of band 3, with their S parts
/// minimal per socket.
pub fn harvest_guas(grid: &Grid, limits: &HarvestLimits) -> Vec<Gua> {
    collect_guas(grid, |_, t, changed| socket_parts(grid, t, changed, limits))
}

/// The GUAs of the search grid from the S parts `parts(k, t, changed)`
/// gives for each socket (its number k in [`sockets`] order, its T, band 3
/// as the socket changes it), sorted by size. `s17 exhaust` passes parts
/// harvested once per socket signature ([`super::signatures`]); debug
/// builds check every GUA against this grid.
pub fn collect_guas(
    grid: &Grid,
    mut parts: impl FnMut(usize, Mask27, &[u8; 27]) -> Vec<Mask54>,
) -> Vec<Gua> {
    let mut guas = Vec::new();
    for (k, (t, band3)) in sockets(grid).into_iter().enumerate() {
        for s in parts(k, t, &band3) {
            let gua = Gua { s, t };
            debug_assert_ua(grid, gua.cells());
            guas.push(gua);
        }
    }
    guas.sort_by_key(|g| (g.s.count_ones() + g.t.count_ones(), g.s, g.t));
    guas
}

/// The minimal S parts of the GUAs of one socket (T = `t`, band 3 changed
/// into `changed`): the differences from `grid` of the fillings of bands
/// 1+2 under the changed band 3, every digit subset holding T's digits
/// freed in turn (up to `gua_digits` digits). They depend on bands 1+2 and
/// on band 3's gangster after the change only.
pub fn socket_parts(
    grid: &Grid,
    t: Mask27,
    changed: &[u8; 27],
    limits: &HarvestLimits,
) -> Vec<Mask54> {
    let mut required = 0u16;
    for cell in crate::bits::cells(t) {
        required |= 1 << (changed[cell] - 1);
    }
    let mut digits_template = [0u8; CELLS];
    digits_template[54..].copy_from_slice(changed);
    let mut found: Vec<Mask54> = Vec::new();
    for digits in digit_subsets(
        required,
        limits.gua_digits.max(required.count_ones() as usize),
    ) {
        let mut given = digits_template;
        for cell in cells(cells_outside(grid, digits)) {
            given[cell] = grid.digit(cell);
        }
        let puzzle = Puzzle::from_digits(given);
        for_each_solution(&puzzle, limits.fillings, |other| {
            let s = grid.difference(other) as u64 & BANDS12_FULL;
            debug_assert!(s != 0, "a new gangster forces a change in bands 1+2");
            found.push(s);
            true
        });
    }
    minimize54(&mut found);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRID: &str =
        "123456789456789123798231564234675918815943276967812435379164852582397641641528397";
    /// A random grid (line 20 of `s17 generate -n 50 --seed 1`).
    const RANDOM: &str =
        "617834952258796143943251867362945781495178236781623495526419378134587629879362514";

    #[test]
    fn minimize_keeps_minimal_sets_sorted() {
        let mut v = vec![0b1111u64, 0b0011, 0b0110, 0b0011, 0b1100_0000];
        minimize54(&mut v);
        assert_eq!(v, vec![0b0011, 0b0110, 0b1100_0000]);
    }

    #[test]
    fn minimal_ua_is_minimal() {
        let mut rng = fastrand::Rng::with_seed(3);
        let mut shrunk = 0;
        for k in 0..1000 {
            let g = Grid::parse(if k % 2 == 0 { GRID } else { RANDOM }).unwrap();
            // The differences of random clue sets with several solutions
            // (one to three of them, joined: a set holding several UAs).
            let mut big = 0;
            for _ in 0..rng.usize(1..4) {
                let density = rng.u8(20..50);
                let clues: Mask81 = (0..81)
                    .filter(|_| rng.u8(..100) < density)
                    .map(|c| 1u128 << c)
                    .sum();
                if let Some(other) = crate::solver::other_solution(&g, clues) {
                    big |= g.difference(&other);
                }
            }
            if big == 0 {
                continue;
            }
            let small = minimal_ua(&g, big);
            assert!(small & !big == 0 && small != 0);
            assert!(crate::solver::other_solution(&g, GRID_FULL & !small).is_some());
            for c in cells(small) {
                let without = small & !(1u128 << c);
                assert!(crate::solver::other_solution(&g, GRID_FULL & !without).is_none());
            }
            shrunk += (small != big) as usize;
        }
        assert!(shrunk > 300, "only {shrunk} sets shrunk");
    }

    #[test]
    fn may_hold_ua_never_misses_a_ua() {
        // Oracle: the solver. A set holds a UA exactly when the grid
        // outside it has a second solution; the local test keeps every
        // cell of the UA found, and may answer "none" only when the
        // solver finds none.
        let mut rng = fastrand::Rng::with_seed(11);
        let (mut pruned, mut holds) = (0, 0);
        for line in [GRID, RANDOM] {
            let g = Grid::parse(line).unwrap();
            let by_digit = digit_cells(&g);
            for _ in 0..4000 {
                let density = rng.u8(5..60);
                let set: Mask81 = (0..81)
                    .filter(|_| rng.u8(..100) < density)
                    .map(|c| 1u128 << c)
                    .sum();
                let other = crate::solver::other_solution(&g, GRID_FULL & !set);
                let blocked = blocked_by_digit(g.digits(), set);
                let local = may_hold_ua(g.digits(), &by_digit, blocked, set, set, 0);
                if let Some(other) = other {
                    // The UA found lies inside the cells kept.
                    let ua = g.difference(&other);
                    assert!(ua & !local == 0, "{set:#x} holds the UA {ua:#x}");
                    holds += 1;
                } else if local == 0 {
                    pruned += 1;
                }
            }
        }
        // Both answers occur, and the test spares many solver calls.
        assert!(
            holds > 500 && pruned > 2000,
            "{holds} hold a UA, {pruned} pruned"
        );
    }

    #[test]
    fn sockets_change_band3_only_at_t() {
        let g = Grid::parse(GRID).unwrap();
        let s = sockets(&g);
        assert_eq!(s.len(), 45);
        for (t, band3) in s {
            let diff: u32 = (0..27)
                .filter(|&c| band3[c] != g.digit(54 + c))
                .map(|c| 1 << c)
                .sum();
            assert_eq!(diff, t);
        }
    }

    #[test]
    fn harvested_sets_are_unavoidable() {
        let g = Grid::parse(GRID).unwrap();
        let limits = HarvestLimits {
            ua12_digits: 3,
            gua_digits: 3,
            fillings: 50,
        };
        let ua12 = harvest_ua12(&g, &limits);
        assert!(!ua12.is_empty());
        for &ua in ua12.iter().take(20) {
            assert!(ua & !BANDS12_FULL == 0);
            let clues = GRID_FULL & !(ua as u128);
            assert!(crate::solver::other_solution(&g, clues).is_some());
        }
        let guas = harvest_guas(&g, &limits);
        assert!(!guas.is_empty());
        for gua in guas.iter().take(20) {
            let clues = GRID_FULL & !gua.cells();
            assert!(crate::solver::other_solution(&g, clues).is_some());
        }
    }
}
