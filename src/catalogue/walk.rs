//! The walk: every minlex grid with a given first band (and, optionally, a
//! given row 4), in increasing order, with no table at all.
//!
//! A grid is visited in its *candidate form*: rows 1-3 the catalogue band
//! `B` (index `b`), rows 4-9 in normal order (rows of a band by increasing
//! first digit, band 2 before band 3 by first digit). Rows 4..9 are filled
//! in increasing order: row 4 over every permutation that fits under `B`
//! (its first digit the smallest that column 1 still lacks, since band 2
//! opens below band 3), then rows 5 and 6 cell by cell, then band 3 by
//! `band3s_admitted` (sorted). The visits are so in increasing order as
//! 81-digit strings.
//!
//! A candidate is minlex exactly when no image of it is smaller. Its first
//! band must be the smallest of the minlex forms of its six bands and stacks
//! (any band or stack can be moved to rows 1-3 and mapped onto its minlex
//! form, and every image's rows 1-3 are a band or stack of the grid), and
//! the catalogue lists minlex bands in increasing order, so: every band and
//! stack of class `< b` rules the candidate out (bands 2 and 3 tested as soon
//! as they are filled). When none is, the images whose rows 1-3 equal `B`
//! come from the bands and stacks of class `b`, each mapped onto `B` by one
//! isomorphism and then by each of `B`'s automorphisms, rows 4-9 then put in
//! normal order (the smallest arrangement, since the digits of column 1
//! differ). The walk builds exactly these images (band 1's own are its
//! automorphisms' images; another band or stack of class `b` is mapped onto
//! `B` by the fast [`BandIndex::identify`]) and keeps the candidate when none is
//! smaller, comparing row by row and stopping at the first digit that
//! differs. Nothing is assumed beyond these two facts, which the
//! tests check against `canon` on every grid visited.
//!
//! A band 2 is walked in batches ([`Walker::walk_band2`]). First what
//! rows 1-6 decide alone: band 1's automorphisms sorted out
//! (`Walker::band2_maps`: which mapped band comes first in an image is
//! fixed by rows 1-6, and when it is band 2 the image's rows 4-6 are
//! known, so the map either beats every candidate, none, or is kept; when
//! it is band 3 the map is kept unless its image's row 4 is too large at
//! its second digit), and the three stacks' classes, one per stack *case*
//! (the orders of the columns' digits in rows 7-9, up to a permutation of
//! rows 7-9, which moves columns inside one stack of the transposed band
//! and so keeps its class: 36 cases a stack, their numbers derived from
//! one: [`BandIndex::numbers_of_last_box`]), the band 2 refused when a
//! stack has no case of class `b` or more (`Walker::stacks_admit`; a
//! stack's cases depend on its own nine cells of rows 4-6 alone, so they
//! are cached per thread). Then the band-3 completions whose three stacks
//! are of admitted cases are listed stack by stack (`band3s_admitted`:
//! stack 1's case fixes each digit's row there; each column of stack 2
//! has at most two ways to avoid those rows; stack 3 takes the rest; 2.7
//! admitted cases of stack 1 a band 2 on the mean at first band 300, of
//! the 34 completions a band 2 has), the dense
//! numbers of the others' bands 3 computed and after them the table
//! lookups (so the lookups' cache misses overlap instead of following one
//! another), and last the kept automorphisms and the tie tests. The
//! candidate-by-candidate walk it replaced is kept for the tests
//! (`reference.rs`: the same grids in both directions, and `band2_walks`
//! times the two: `walk/tests.rs`).

use crate::band::{Band, BandCatalogue};
use crate::ed::BandIndex;

mod band2;
mod band3s;
#[cfg(test)]
mod reference;
mod rows5;
mod rows56;
#[cfg(test)]
mod tests;

use band2::KeptMap;
use band3s::band3s_of_cases;
#[cfg(test)]
use band3s::{band3s_admitted, band3s_under};
use rows56::Rows56;

/// The fixed part of the walk: the band catalogue, the fast band index and
/// each catalogue band's automorphisms as maps of the rows below it.
pub struct Walker {
    catalogue: BandCatalogue,
    index: BandIndex,
    /// Per catalogue band, its automorphisms but the identity, as maps of a
    /// row below the band: `(source, digits)`, the image row reading
    /// `digits[row[source[j]]]` at column `j`.
    row_maps: Vec<Vec<RowMap>>,
}

/// An automorphism of a band acting on a row of the grid below it.
#[derive(Clone, Copy, Debug)]
struct RowMap {
    source: [u8; 9],
    digits: [u8; 10],
    /// The inverse of `digits`.
    inverse: [u8; 10],
}

impl RowMap {
    const IDENTITY: RowMap = RowMap {
        source: [0, 1, 2, 3, 4, 5, 6, 7, 8],
        digits: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        inverse: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    };

    /// Whether the image of `grid` (rows 1-3 a band that this automorphism
    /// maps to itself; rows 4-9 in any order) under this automorphism, rows
    /// 4-9 put in normal order (the smallest arrangement with these rows
    /// 1-3), is smaller than `candidate` (same rows 1-3).
    #[inline]
    fn beats(&self, grid: &[u8; 81], candidate: &[u8; 81]) -> bool {
        // First digits of the mapped rows 4-9, and their order in the image:
        // the band holding the smallest first digit first, rows of a band
        // by increasing first digit.
        let first = |r: usize| self.digits[grid[9 * r + self.source[0] as usize] as usize];
        let mut order = [0usize; 6];
        let (lo, hi) =
            if first(3).min(first(4)).min(first(5)) < first(6).min(first(7)).min(first(8)) {
                (3, 6)
            } else {
                (6, 3)
            };
        for (k, start) in [lo, hi].into_iter().enumerate() {
            let mut rows = [start, start + 1, start + 2];
            rows.sort_unstable_by_key(|&r| first(r));
            order[3 * k..3 * k + 3].copy_from_slice(&rows);
        }
        for (i, &r) in order.iter().enumerate() {
            let row = &grid[9 * r..9 * r + 9];
            for j in 0..9 {
                let d = self.digits[row[self.source[j] as usize] as usize];
                let c = candidate[27 + 9 * i + j];
                if d != c {
                    return d < c;
                }
            }
        }
        false
    }
}

/// What a visit tells the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
}

impl Default for Walker {
    fn default() -> Self {
        Walker::new()
    }
}

impl Walker {
    /// The catalogue and the band index (about 0.2 s).
    pub fn new() -> Walker {
        let catalogue = BandCatalogue::new();
        let index = BandIndex::new(&catalogue);
        let row_maps = (0..catalogue.len())
            .map(|b| {
                catalogue.automorphisms(b)[1..]
                    .iter()
                    .map(|a| {
                        // Cell c of row 1 goes to column cells[c] % 9, as
                        // does every cell of column c.
                        let mut source = [0u8; 9];
                        for c in 0..9 {
                            source[a.cells[c] as usize % 9] = c as u8;
                        }
                        let mut inverse = [0u8; 10];
                        for (d, &e) in a.digits.iter().enumerate() {
                            inverse[e as usize] = d as u8;
                        }
                        RowMap {
                            source,
                            digits: a.digits,
                            inverse,
                        }
                    })
                    .collect()
            })
            .collect();
        Walker {
            catalogue,
            index,
            row_maps,
        }
    }

    /// The band catalogue.
    pub fn catalogue(&self) -> &BandCatalogue {
        &self.catalogue
    }

    /// The catalogue index (0-based) of a valid band.
    pub fn class_of(&self, band: &Band) -> usize {
        self.index.class_of(band)
    }

    /// Every row 4 that fits under catalogue band `b` in candidate form
    /// (whether or not a minlex grid has it), in increasing order.
    pub fn for_each_row4(&self, b: usize, mut visit: impl FnMut(&[u8; 9]) -> Flow) -> Flow {
        let band1 = self.catalogue.band(b);
        let mut columns = [0u16; 9];
        for (cell, &d) in band1.iter().enumerate() {
            columns[cell % 9] |= 1 << d;
        }
        let first = (!columns[0] & 0x3fe).trailing_zeros() as u8;
        let mut row = [0u8; 9];
        row[0] = first;
        row4_fill(&columns, 1 << first, &mut row, 1, &mut |row4| {
            if self.beaten(b, row4, row4) {
                Flow::Continue
            } else {
                visit(row4)
            }
        })
    }

    /// Whether an automorphism of band `b` moves `row` (a row of rows 4-9)
    /// to a row opening with row 4's first digit and smaller than `row4`:
    /// then that image, rows put in normal order, has that row as its row 4,
    /// and the grid is not minlex.
    #[inline]
    fn beaten(&self, b: usize, row: &[u8; 9], row4: &[u8; 9]) -> bool {
        self.row_maps[b].iter().any(|map| {
            for j in 0..9 {
                let d = map.digits[row[map.source[j] as usize] as usize];
                if d != row4[j] {
                    return d < row4[j];
                }
            }
            false
        })
    }

    /// Every minlex grid with first band `b` and row 4 `row4`, in increasing
    /// order, until `visit` says stop. `row4` must fit under the band (one
    /// of [`Self::for_each_row4`]).
    pub fn walk_prefix(
        &self,
        b: usize,
        row4: &[u8; 9],
        visit: &mut impl FnMut(&[u8; 81]) -> Flow,
    ) -> Flow {
        for band2 in &self.band2s(b, row4) {
            if self.walk_band2(b, row4, band2, false, visit) == Flow::Stop {
                return Flow::Stop;
            }
        }
        Flow::Continue
    }

    /// [`Self::walk_prefix`] in decreasing order.
    pub fn walk_prefix_rev(
        &self,
        b: usize,
        row4: &[u8; 9],
        visit: &mut impl FnMut(&[u8; 81]) -> Flow,
    ) -> Flow {
        for band2 in self.band2s(b, row4).iter().rev() {
            if self.walk_band2(b, row4, band2, true, visit) == Flow::Stop {
                return Flow::Stop;
            }
        }
        Flow::Continue
    }

    /// The grid of rank `rank` (0-based, below `count`, the prefix's
    /// number of grids) in the prefix `(b, row4)`: walked from the nearer
    /// end, so at most half the prefix.
    pub fn nth_in_prefix(
        &self,
        b: usize,
        row4: &[u8; 9],
        count: u64,
        rank: u64,
    ) -> Option<[u8; 81]> {
        self.nth_in_band2s(b, row4, &self.band2s(b, row4), (0, count), rank)
    }

    /// The grid of rank `rank` (0-based, in the prefix `(b, row4)`) among
    /// the grids of a run of consecutive band 2s of the prefix (`band2s`),
    /// the prefix's grids before the run and up to its end being `span`:
    /// walked from the nearer end of the run.
    pub fn nth_in_band2s(
        &self,
        b: usize,
        row4: &[u8; 9],
        band2s: &[Band2],
        span: (u64, u64),
        rank: u64,
    ) -> Option<[u8; 81]> {
        let (before, end) = span;
        if rank < before || rank >= end {
            return None;
        }
        let (mut skip, reverse) = if rank - before < (end - before) / 2 {
            (rank - before, false)
        } else {
            (end - rank - 1, true)
        };
        let mut out = None;
        let mut visit = |grid: &[u8; 81]| {
            if skip > 0 {
                skip -= 1;
                return Flow::Continue;
            }
            out = Some(*grid);
            Flow::Stop
        };
        if reverse {
            for band2 in band2s.iter().rev() {
                if self.walk_band2(b, row4, band2, true, &mut visit) == Flow::Stop {
                    break;
                }
            }
        } else {
            for band2 in band2s {
                if self.walk_band2(b, row4, band2, false, &mut visit) == Flow::Stop {
                    break;
                }
            }
        }
        out
    }

    /// The rank (0-based) of the minlex grid `form` in its prefix (rows 1-4
    /// catalogue band `b` and row 4, the prefix holding `count` grids), or
    /// `None` when the walk does not visit it. Only the band-3 completions
    /// on the nearer side of `form`'s rows 5-6 (in the prefix's list of
    /// band 2s) are walked: grids before it counted forward, or grids after
    /// it counted backward and taken from `count`.
    pub fn rank_in_prefix(&self, b: usize, form: &[u8; 81], count: u64) -> Option<u64> {
        let row4: &[u8; 9] = form[27..36].try_into().expect("9 digits");
        self.rank_in_band2s(b, form, &self.band2s(b, row4), (0, count))
    }

    /// [`Self::rank_in_prefix`] among the grids of a run of consecutive
    /// band 2s of the prefix (`band2s`, holding `form`'s rows 5-6), the
    /// prefix's grids before the run and up to its end being `span`.
    pub fn rank_in_band2s(
        &self,
        b: usize,
        form: &[u8; 81],
        band2s: &[Band2],
        span: (u64, u64),
    ) -> Option<u64> {
        let row4: &[u8; 9] = form[27..36].try_into().expect("9 digits");
        let p = band2s
            .binary_search_by(|band2| band2.rows[..].cmp(&form[36..54]))
            .ok()?;
        let reverse = p >= band2s.len() / 2;
        let (mut other, mut found) = (0u64, false);
        let mut tally = |grid: &[u8; 81]| {
            if grid == form {
                found = true;
                return Flow::Stop;
            }
            other += 1;
            Flow::Continue
        };
        let rest = if reverse {
            &band2s[p + 1..]
        } else {
            &band2s[..p]
        };
        for band2 in rest {
            self.walk_band2(b, row4, band2, false, &mut tally);
        }
        self.walk_band2(b, row4, &band2s[p], reverse, &mut tally);
        if !found {
            return None;
        }
        let (before, end) = span;
        let rank = if reverse {
            end.checked_sub(other + 1)?
        } else {
            before + other
        };
        (before..end).contains(&rank).then_some(rank)
    }

    /// Every band 2 (rows 5-6 under rows 1-4) of the prefix `(b, row4)`
    /// that passes the tests a band 2 alone allows (its class not below
    /// `b`; rows 5 and 6 not moved below row 4 by an automorphism of band
    /// `b`), in increasing order.
    pub fn band2s(&self, b: usize, row4: &[u8; 9]) -> Vec<Band2> {
        self.band2s_between(b, row4, None, None)
    }

    /// The band 2s of [`Self::band2s`] whose rows 5-6 are at least `from`
    /// and below `to` (no bound when `None`): the rows 5-6 below `from` are
    /// skipped without being tested, so a run costs about its own length.
    pub fn band2s_between(
        &self,
        b: usize,
        row4: &[u8; 9],
        from: Option<&[u8; 18]>,
        to: Option<&[u8; 18]>,
    ) -> Vec<Band2> {
        let mut grid = [0u8; 81];
        grid[..27].copy_from_slice(self.catalogue.band(b));
        grid[27..36].copy_from_slice(row4);
        let mut columns = [0u16; 9];
        let mut boxes = [0u16; 3];
        for (cell, &d) in grid[..36].iter().enumerate() {
            columns[cell % 9] |= 1 << d;
            if cell >= 27 {
                boxes[cell % 9 / 3] |= 1 << d;
            }
        }
        let mut fill = Rows56 {
            walker: self,
            b,
            grid,
            columns,
            boxes,
            rows: [0; 2],
            from,
            to,
            done: false,
            out: Vec::new(),
        };
        fill.cell(36, from.is_some());
        fill.out
    }

    /// The band 2 of rows 5-6 `rows` under the prefix `(b, row4)` when it
    /// passes the tests of [`Self::band2s`] (so is one of them).
    pub fn admitted_band2(&self, b: usize, row4: &[u8; 9], rows: &[u8; 18]) -> Option<Band2> {
        let mut band2 = [0u8; 27];
        band2[..9].copy_from_slice(row4);
        band2[9..].copy_from_slice(rows);
        let class = self.index.class_of(&band2);
        let beaten = |r: usize| {
            let row: &[u8; 9] = rows[9 * r..9 * r + 9].try_into().expect("9 digits");
            self.beaten(b, row, row4)
        };
        (class >= b && !beaten(0) && !beaten(1)).then_some(Band2 {
            rows: *rows,
            class: class as u16,
        })
    }

    /// The minlex grids of one band 2 of a prefix (one of
    /// [`Self::band2s`]), in increasing order (decreasing if `reverse`),
    /// until `visit` says stop.
    pub fn walk_band2(
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
        // A band 2 has a few dozen completions at most: all listed, their
        // classes computed together (the table's cache misses overlap),
        // then the minlex ones visited.
        // The lists are reused from band 2 to band 2 (taken out of the
        // thread's scratch while in use, so a nested walk gets its own).
        let mut scratch = SCRATCH.with(|cell| cell.take());
        scratch.band3s.clear();
        scratch.kept.clear();
        // The stacks first: most band 2s of the last bands list no
        // completion there, and band 1's automorphisms are then not needed.
        let Scratch {
            admitted,
            ties,
            allowed,
            listed,
            band3s,
            ..
        } = &mut scratch;
        if self.stacks_admit(b, &grid, admitted, ties, allowed) {
            band3s_of_cases(&bands12, admitted, allowed, listed, band3s);
            if !scratch.band3s.is_empty() && self.band2_maps(b, &grid, &mut scratch.maps) {
                self.minlex_band3s(b, band2.class as usize, &mut grid, &mut scratch);
            }
        }
        if reverse {
            scratch.kept.reverse();
        }
        let mut flow = Flow::Continue;
        for &k in &scratch.kept {
            grid[54..].copy_from_slice(&scratch.band3s[k as usize].0);
            if visit(&grid) == Flow::Stop {
                flow = Flow::Stop;
                break;
            }
        }
        SCRATCH.with(|cell| cell.replace(scratch));
        flow
    }

    /// Into `scratch.kept`, the indices (increasing) of the completions
    /// `scratch.band3s` (in increasing order, their stacks of admitted
    /// cases) of rows 1-6 of `grid` (bands 1, 2 of class `b` and `class2`
    /// `>= b`, already checked; the stacks' cases of class `b` in
    /// `scratch.ties`, the undecided automorphisms in `scratch.maps`) that
    /// make a minlex grid. `grid`'s rows 7-9 are overwritten.
    fn minlex_band3s(&self, b: usize, class2: usize, grid: &mut [u8; 81], scratch: &mut Scratch) {
        let Scratch {
            ties: stack_ties,
            maps,
            band3s,
            numbers,
            classes3,
            kept,
            ..
        } = scratch;
        // Their band 3's class: numbers first, then the lookups (the
        // table's cache misses overlap).
        numbers.clear();
        numbers.extend(band3s.iter().map(|(band3, _)| self.index.number(band3)));
        classes3.clear();
        classes3.extend(numbers.iter().map(|&n| self.index.class_at(n) as u16));
        kept.clear();
        for (k, (&(ref band3, cases), &class3)) in band3s.iter().zip(classes3.iter()).enumerate() {
            let class3 = class3 as usize;
            if class3 < b {
                continue;
            }
            let mut ties = [(false, 0usize); 5];
            let mut n_ties = 0;
            for (s, &case) in cases.iter().enumerate() {
                if stack_ties[s] >> case & 1 != 0 {
                    ties[n_ties] = (true, s);
                    n_ties += 1;
                }
            }
            for (t, class) in [(1, class2), (2, class3)] {
                if class == b {
                    ties[n_ties] = (false, t);
                    n_ties += 1;
                }
            }
            grid[54..].copy_from_slice(band3);
            // Band 1's own images: one per automorphism of B, those that
            // rows 1-6 leave undecided.
            if self.maps_beat(b, maps, grid) {
                continue;
            }
            if ties[..n_ties]
                .iter()
                .any(|&(transposed, t)| self.tie_beats(b, grid, transposed, t))
            {
                continue;
            }
            kept.push(k as u16);
        }
    }

    /// Every minlex grid with first band `b`, in increasing order.
    pub fn walk_band(&self, b: usize, visit: &mut impl FnMut(&[u8; 81]) -> Flow) -> Flow {
        self.for_each_row4(b, |row4| self.walk_prefix(b, row4, visit))
    }

    /// Whether an image with band (or, transposed, stack) `k` of `grid`
    /// moved to rows 1-3 and mapped onto catalogue band `b` (its class) is
    /// smaller than `grid`: one isomorphism onto `B`, then each
    /// automorphism of `B`, rows 4-9 in normal order.
    fn tie_beats(&self, b: usize, grid: &[u8; 81], transposed: bool, k: usize) -> bool {
        let mut g = *grid;
        if transposed {
            for r in 0..9 {
                for c in 0..9 {
                    g[9 * c + r] = grid[9 * r + c];
                }
            }
        }
        let mut x = [0u8; 27];
        x.copy_from_slice(&g[27 * k..27 * k + 27]);
        let id = self.index.identify(&x);
        debug_assert_eq!(id.index, b);
        let mut inverse = [0u8; 10];
        for c in 1..10 {
            inverse[id.digits[c] as usize] = c as u8;
        }
        let mut image = [0u8; 81];
        image[..27].copy_from_slice(self.catalogue.band(b));
        let mut at = 27;
        for other in (0..3).filter(|&o| o != k) {
            for r in 0..3 {
                for c in 0..9 {
                    image[at] = inverse[g[27 * other + 9 * r + id.cells[c] as usize % 9] as usize];
                    at += 1;
                }
            }
        }
        RowMap::IDENTITY.beats(&image, grid)
            || self.row_maps[b].iter().any(|map| map.beats(&image, grid))
    }
}

/// Fills row 4 from position `at` (digits used so far in `used`).
fn row4_fill(
    columns: &[u16; 9],
    used: u16,
    row: &mut [u8; 9],
    at: usize,
    visit: &mut impl FnMut(&[u8; 9]) -> Flow,
) -> Flow {
    if at == 9 {
        return visit(row);
    }
    let mut free = 0x3fe & !(used | columns[at]);
    while free != 0 {
        let d = free.trailing_zeros() as u8;
        free &= free - 1;
        row[at] = d;
        if row4_fill(columns, used | 1 << d, row, at + 1, visit) == Flow::Stop {
            return Flow::Stop;
        }
    }
    Flow::Continue
}

/// The lists of one band 2's walk ([`Walker::walk_band2`]), kept per
/// thread so that a walk allocates nothing once warm.
#[derive(Default)]
struct Scratch {
    /// Per stack, its cases of class `b` or more, and of class `b` (bit
    /// `case`: [`Walker::stacks_admit`]).
    admitted: [u64; 3],
    ties: [u64; 3],
    /// Per stack, the rows its admitted cases hold (`band3s_under`'s
    /// filter), and the band 3s it lists when stack 1 admits many cases.
    allowed: [u32; 3],
    listed: Vec<Band>,
    /// The automorphisms of band 1 that rows 1-6 leave undecided.
    maps: Vec<KeptMap>,
    /// The band-3 completions whose stacks are not below band 1, in
    /// increasing order, with their stacks' cases; their band 3's numbers
    /// and classes.
    band3s: Vec<(Band, [u8; 3])>,
    numbers: Vec<u32>,
    classes3: Vec<u16>,
    /// The completions that make minlex grids, increasing.
    kept: Vec<u16>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// A band 2 of a prefix that passed the band-2 tests: rows 5 and 6 and
/// the band's class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band2 {
    /// Rows 5 and 6.
    pub rows: [u8; 18],
    /// Catalogue index of band 2 (rows 4-6).
    pub class: u16,
}
