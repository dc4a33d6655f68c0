//! Valid clue sets of one band of the search grid, mapped from catalogue
//! coordinates into the band's own cells and grouped by slice (the two
//! lowest catalogue cells, which every set of the slice contains).
//!
//! ```text
//! rest[start..end]  each set of the slice minus its two slice cells (27-bit)
//! pair              the two slice cells (27-bit)
//! live              union of rest[start..end]: cells some set can add
//! ```

use std::sync::OnceLock;

use crate::band::{BandCatalogue, BandId, valid_sets};
use crate::bits::{BANDS12_FULL, Mask27, Mask54};
use crate::tables::BandTables;

/// Band 1 cells in a 54-bit bands-1+2 mask.
pub const BAND1: Mask54 = (1 << 27) - 1;

/// The X slice being searched, as the lists that fresh sets join see it:
/// its X pair and the cells of both bands its XY can still take.
#[derive(Clone, Copy, Debug, Default)]
pub struct XSlice {
    /// The X pair (band 1).
    pub pair: Mask54,
    /// The pair, the live cells of band 1 and every cell of band 2.
    pub cells: Mask54,
    /// The live cells of the slice's sets (band 1).
    pub xlive: Mask54,
    /// Set while the slice is searched: fresh sets join its lists.
    pub active: bool,
}

impl XSlice {
    /// The slice of pair `a` and live cells `live` (band 1), searched from
    /// now on.
    #[inline]
    pub fn start(a: Mask27, live: Mask27) -> Self {
        let (a, xlive) = (a as u64, live as u64);
        XSlice {
            pair: a,
            cells: (a | xlive | !BAND1) & BANDS12_FULL,
            xlive,
            active: true,
        }
    }

    /// The cells a set the pair misses keeps for the slice: the live
    /// cells of band 1 and every cell of band 2 (and past band 2).
    #[inline]
    pub fn live(&self) -> Mask54 {
        self.xlive | !BAND1
    }

    /// A fresh set of bands 1+2 as the slice sees it: `None` when no slice
    /// is searched or the X pair hits it, else its cells that the slice's
    /// sets can still take (as the slice's start cut the others).
    #[inline]
    pub fn cut(&self, s: Mask54) -> Option<Mask54> {
        (self.active && s & self.pair == 0).then_some(s & self.cells & !self.pair)
    }
}

/// One slice: the sets that share their two slice cells.
#[derive(Clone, Copy, Debug)]
pub struct SliceSets {
    pub pair: Mask27,
    pub live: Mask27,
    pub start: u32,
    pub end: u32,
}

/// The valid clue sets of one size of one band, in band coordinates.
#[derive(Clone, Debug, Default)]
pub struct BandSets {
    pub size: usize,
    pub rest: Vec<Mask27>,
    pub slices: Vec<SliceSets>,
}

/// Maps 27-bit catalogue masks to band masks, 9 bits at a time.
struct CellMap {
    parts: [[u32; 512]; 3],
}

impl CellMap {
    fn new(id: &BandId) -> CellMap {
        let mut parts = [[0u32; 512]; 3];
        for (k, part) in parts.iter_mut().enumerate() {
            for (bits, out) in part.iter_mut().enumerate() {
                for i in 0..9 {
                    if bits & (1 << i) != 0 {
                        *out |= 1 << id.cells[9 * k + i];
                    }
                }
            }
        }
        CellMap { parts }
    }

    #[inline]
    fn map(&self, m: u32) -> u32 {
        self.parts[0][(m & 511) as usize]
            | self.parts[1][((m >> 9) & 511) as usize]
            | self.parts[2][(m >> 18) as usize]
    }
}

impl BandSets {
    /// The valid sets of `size` of the band identified by `id`, from the
    /// table file (sizes up to 6) or computed on demand (larger sizes).
    pub fn for_band<B: AsRef<[u8]>>(
        catalogue: &BandCatalogue,
        tables: &BandTables<B>,
        id: &BandId,
        size: usize,
    ) -> BandSets {
        let map = CellMap::new(id);
        let table = tables.band(id.index);
        let mut out = BandSets {
            size,
            ..Default::default()
        };
        if size <= 6 {
            for slice in table.slices(size) {
                out.push_slice(&map, slice.first, slice.second, slice.sets);
            }
        } else {
            let owned = valid_sets(catalogue.band(id.index), table.uas(), size);
            for slice in owned.slices() {
                out.push_slice(&map, slice.first, slice.second, slice.sets);
            }
        }
        out
    }

    fn push_slice(&mut self, map: &CellMap, first: u8, second: u8, sets: &[u32]) {
        let pair_catalogue = (1u32 << first) | (1u32 << second);
        let pair = map.map(pair_catalogue);
        let start = self.rest.len() as u32;
        let mut live = 0;
        for &set in sets {
            debug_assert!(set & pair_catalogue == pair_catalogue);
            let rest = map.map(set & !pair_catalogue);
            live |= rest;
            self.rest.push(rest);
        }
        self.slices.push(SliceSets {
            pair,
            live,
            start,
            end: self.rest.len() as u32,
        });
    }

    /// A list holding only `set` (a full band mask), if it is one of these.
    pub fn only(&self, set: Mask27) -> Option<BandSets> {
        for s in &self.slices {
            if set & s.pair == s.pair {
                let rest = set & !s.pair;
                if self.rest[s.start as usize..s.end as usize].contains(&rest) {
                    let one = SliceSets {
                        pair: s.pair,
                        live: rest,
                        start: 0,
                        end: 1,
                    };
                    return Some(BandSets {
                        size: self.size,
                        rest: vec![rest],
                        slices: vec![one],
                    });
                }
            }
        }
        None
    }

    /// The whole slice that holds `set` (a full band mask), if it is one
    /// of these: the X sets of one 2X2Y step as the search sees them.
    pub fn slice_holding(&self, set: Mask27) -> Option<BandSets> {
        let s = self.slices.iter().find(|s| {
            set & s.pair == s.pair
                && self.rest[s.start as usize..s.end as usize].contains(&(set & !s.pair))
        })?;
        let rest = self.rest[s.start as usize..s.end as usize].to_vec();
        let whole = SliceSets {
            start: 0,
            end: rest.len() as u32,
            ..*s
        };
        Some(BandSets {
            size: self.size,
            rest,
            slices: vec![whole],
        })
    }

    /// Number of sets.
    pub fn len(&self) -> usize {
        self.rest.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// Every set as a full band mask (for tests and checks).
    pub fn full_sets(&self) -> impl Iterator<Item = Mask27> + '_ {
        self.slices.iter().flat_map(move |s| {
            self.rest[s.start as usize..s.end as usize]
                .iter()
                .map(move |&r| r | s.pair)
        })
    }
}

/// The valid sets of a grid's three bands, by band and size, each built at
/// its first use and kept for the grid's other rows (sizes above 6 are
/// computed from the band's UAs: for 8 and more, a good part of a second).
pub struct GridSets {
    /// By grid band, then size (0 to 27).
    sets: [Vec<OnceLock<BandSets>>; 3],
}

impl Default for GridSets {
    fn default() -> Self {
        GridSets {
            sets: std::array::from_fn(|_| (0..=27).map(|_| OnceLock::new()).collect()),
        }
    }
}

impl GridSets {
    pub fn new() -> Self {
        Self::default()
    }

    /// The sets of `size` of grid band `band`: `build` makes them the
    /// first time (a thread asking meanwhile waits for them).
    pub fn get(&self, band: usize, size: usize, build: impl FnOnce() -> BandSets) -> &BandSets {
        self.sets[band][size].get_or_init(build)
    }
}
