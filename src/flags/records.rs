//! From puzzles found at any visit (hi, mid or lo) to their grids' flag
//! records.
//!
//! For each puzzle: its solution (the solver), the canonical hi-form of
//! that grid ([`Ed::hi_form`]), so the hi visit's slice K and key (band 2,
//! band 3); the entry number of band 2 in slice K (one walk of the slice
//! for all the puzzles of K, [`Ed::entry_numbers`]); the grid index, band
//! 3's position among the entry's hi visits; and the puzzle mapped onto the
//! hi-visit grid ([`isomorphism`], `Transform::apply_puzzle`), checked to
//! agree with that grid and to have one solution. A grid found by several
//! puzzles (several visits, or images under automorphisms) keeps the
//! **smallest mask** (as an integer, cell 0 the lowest bit), so the records
//! do not depend on the order of the puzzles.

use std::collections::{BTreeMap, HashMap};

use super::FlagRecord;
use crate::band::Band;
use crate::canon::isomorphism;
use crate::ed::{Choices, Ed, Entry, compose};
use crate::grid::{Grid, Puzzle};

/// Why a puzzle gives no record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    #[error("{0}: the puzzle has no solution")]
    NoSolution(Puzzle),
    #[error("{0}: the puzzle has more than one solution")]
    NotUnique(Puzzle),
    #[error("{0}: the hi visit's band 2 is no entry of slice {1} (a bug)")]
    NoEntry(Puzzle, usize),
    #[error("{0}: the hi visit's band 3 is no hi visit of slice {1}, entry {2} (a bug)")]
    NoGrid(Puzzle, usize, u64),
    #[error("{0}: mapped onto the hi-visit grid it is no puzzle of it (a bug)")]
    BadMap(Puzzle),
    #[error("{0}: entry {2} of slice {1} does not fit a flag record (u32)")]
    TooLarge(Puzzle, usize, u64),
}

/// Flag records by slice, sorted by (entry, grid), one per grid.
pub type FlagRecords = BTreeMap<usize, Vec<FlagRecord>>;

/// A puzzle placed at its grid's hi visit: the slice K, the hi visit's
/// band 2 and band 3, and the clue mask on the hi-visit grid (catalogue
/// band K, band 2, band 3). What a merge spills per slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    pub k: usize,
    pub band2: Band,
    pub band3: Band,
    pub mask: u128,
}

/// Bytes of a [`Placed`] in a spill file (its slice is the file's).
pub const PLACED_LEN: usize = 27 + 27 + 16;

impl Placed {
    /// Its bytes in a spill file: band 2, band 3, mask (little-endian).
    pub fn to_bytes(&self) -> [u8; PLACED_LEN] {
        let mut b = [0u8; PLACED_LEN];
        b[..27].copy_from_slice(&self.band2);
        b[27..54].copy_from_slice(&self.band3);
        b[54..].copy_from_slice(&self.mask.to_le_bytes());
        b
    }

    /// Back from [`Placed::to_bytes`], of slice `k`.
    pub fn from_bytes(k: usize, b: &[u8; PLACED_LEN]) -> Placed {
        Placed {
            k,
            band2: band_of(&b[..27]),
            band3: band_of(&b[27..54]),
            mask: u128::from_le_bytes(b[54..].try_into().expect("16 bytes")),
        }
    }

    /// The puzzle on the hi-visit grid (for messages).
    fn puzzle(&self, ed: &Ed) -> Puzzle {
        let mut key = [0u8; 54];
        key[..27].copy_from_slice(&self.band2);
        key[27..].copy_from_slice(&self.band3);
        let grid = Grid::from_digits_unchecked(compose(ed.catalogue().band(self.k), &key));
        Puzzle::from_grid(&grid, self.mask)
    }
}

/// Solves `puzzle` and places it at its grid's hi visit.
pub fn place(ed: &Ed, puzzle: &Puzzle) -> Result<Placed, MapError> {
    let solutions = crate::solver::solve(puzzle, 2);
    let grid = match (solutions.count, solutions.first) {
        (1, Some(grid)) => grid,
        (0, _) => return Err(MapError::NoSolution(*puzzle)),
        _ => return Err(MapError::NotUnique(*puzzle)),
    };
    let hi = ed.hi_form(grid.digits());
    let target = Grid::from_digits_unchecked(compose(ed.catalogue().band(hi.class), &hi.key));
    let mask = onto(puzzle, &grid, &target).ok_or(MapError::BadMap(*puzzle))?;
    Ok(Placed {
        k: hi.class,
        band2: band_of(&hi.key[..27]),
        band3: band_of(&hi.key[27..]),
        mask,
    })
}

/// The records of slice `k` from its placed puzzles (one walk of the
/// slice for their entry numbers), sorted, one per grid with the smallest
/// mask; the placed puzzles that gave none.
pub fn slice_records(ed: &Ed, k: usize, placed: &[Placed]) -> (Vec<FlagRecord>, Vec<MapError>) {
    let mut errors = Vec::new();
    let bands2: Vec<Band> = placed.iter().map(|p| p.band2).collect();
    let numbers = ed.entry_numbers(k, &bands2);
    // Each entry's hi visits, once.
    let mut visits: HashMap<u64, Vec<Band>> = HashMap::new();
    let mut best: BTreeMap<(u32, u32), u128> = BTreeMap::new();
    for (p, number) in placed.iter().zip(numbers) {
        let Some(number) = number else {
            errors.push(MapError::NoEntry(p.puzzle(ed), k));
            continue;
        };
        let Ok(entry32) = u32::try_from(number) else {
            errors.push(MapError::TooLarge(p.puzzle(ed), k, number));
            continue;
        };
        let hi_bands3 = visits.entry(number).or_insert_with(|| {
            let entry = Entry {
                number,
                band2: p.band2,
                class2: ed.index().class_of(&p.band2),
            };
            let mut bands3 = Vec::new();
            ed.entry_visits(k, &entry, Choices::HI, |v| bands3.push(v.band3));
            bands3
        });
        let Some(index) = hi_bands3.iter().position(|b| *b == p.band3) else {
            errors.push(MapError::NoGrid(p.puzzle(ed), k, number));
            continue;
        };
        best.entry((entry32, index as u32))
            .and_modify(|m| *m = (*m).min(p.mask))
            .or_insert(p.mask);
    }
    let records = best
        .into_iter()
        .map(|((entry, grid), mask)| FlagRecord { entry, grid, mask })
        .collect();
    (records, errors)
}

/// The flag records of the grids of `puzzles` (any visit; any
/// orientation and labelling), by slice of their hi visits, and the
/// puzzles that gave none (errors do not stop the others).
pub fn flag_records(ed: &Ed, puzzles: &[Puzzle]) -> (FlagRecords, Vec<MapError>) {
    let mut errors = Vec::new();
    let mut by_slice: BTreeMap<usize, Vec<Placed>> = BTreeMap::new();
    for puzzle in puzzles {
        match place(ed, puzzle) {
            Ok(p) => by_slice.entry(p.k).or_default().push(p),
            Err(e) => errors.push(e),
        }
    }
    let mut out = FlagRecords::new();
    for (k, placed) in by_slice {
        let (records, more) = slice_records(ed, k, &placed);
        errors.extend(more);
        if !records.is_empty() {
            out.insert(k, records);
        }
    }
    (out, errors)
}

/// The clue mask of `puzzle` (of `grid`) mapped onto the isomorphic grid
/// `target`, checked: it agrees with `target` and has one solution.
pub fn onto(puzzle: &Puzzle, grid: &Grid, target: &Grid) -> Option<u128> {
    let t = isomorphism(grid, target)?;
    let mapped = t.apply_puzzle(puzzle);
    let ok = mapped.agrees_with(target)
        && mapped.clue_count() == puzzle.clue_count()
        && crate::solver::solve(&mapped, 2).count == 1;
    ok.then(|| mapped.clue_mask())
}

fn band_of(digits: &[u8]) -> Band {
    digits.try_into().expect("27 digits")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canon::{Transform, minlex_puzzle};

    /// A known 17 (slice 331, entry 1683769 holds one of its visits).
    const KNOWN_17: &str =
        "........1.......23..4..5.........6...1.37....8..2........1........83....5.6...4..";

    #[test]
    fn a_puzzle_at_any_visit_gives_the_hi_visits_record() {
        let ed = Ed::new();
        let p = Puzzle::parse(KNOWN_17).unwrap();
        let grid = crate::solver::solve(&p, 2).first.unwrap();
        let hi = ed.hi_form(grid.digits());
        assert_eq!(hi.automorphisms, 1, "a grid without automorphisms");
        let visits = ed.visits_of(&hi);
        // The record from the definitions: the hi visit's entry, its grid
        // index among the entry's hi visits, the 17 on that grid.
        let band2 = band_of(&hi.key[..27]);
        let entry = ed.entry_number(hi.class, &band2).unwrap();
        let e = Entry {
            number: entry,
            band2,
            class2: ed.index().class_of(&band2),
        };
        let mut bands3 = Vec::new();
        ed.entry_visits(hi.class, &e, Choices::HI, |v| bands3.push(v.band3));
        let index = bands3.iter().position(|b| b[..] == hi.key[27..]).unwrap();
        let hi_grid = Grid::from_digits_unchecked(visits[0].grid(&ed));
        let on_hi = isomorphism(&grid, &hi_grid).unwrap().apply_puzzle(&p);
        assert!(on_hi.agrees_with(&hi_grid));
        let expected = FlagRecord {
            entry: entry as u32,
            grid: index as u32,
            mask: on_hi.clue_mask(),
        };
        // The 17 as each visit holds it, in minlex form, and a random image.
        let mut forms = vec![p, minlex_puzzle(&p).0];
        for v in &visits {
            let g = Grid::from_digits_unchecked(v.grid(&ed));
            forms.push(isomorphism(&grid, &g).unwrap().apply_puzzle(&p));
        }
        let mut rng = fastrand::Rng::with_seed(44);
        forms.push(Transform::random(&mut rng).apply_puzzle(&p));
        for form in forms {
            let (records, errors) = flag_records(&ed, &[form]);
            assert!(errors.is_empty(), "{errors:?}");
            assert_eq!(records.len(), 1);
            assert_eq!(records[&hi.class], vec![expected], "{form}");
        }
        // Several puzzles of one grid: one record.
        let (records, _) = flag_records(&ed, &[p, minlex_puzzle(&p).0]);
        assert_eq!(records[&hi.class].len(), 1);
        // A puzzle with two solutions is named, and the others go on.
        let mut two = *p.digits();
        let cell = two.iter().position(|&d| d != 0).unwrap();
        two[cell] = 0;
        let two = Puzzle::from_digits(two);
        let (records, errors) = flag_records(&ed, &[two, p]);
        assert_eq!(errors, vec![MapError::NotUnique(two)]);
        assert_eq!(records[&hi.class], vec![expected]);
    }
}
