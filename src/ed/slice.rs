//! Slices of the ED catalogue: the entries of one band-1 class and the
//! band-3 visits of each entry.

use std::ops::Range;

use super::fill::{for_each_band2, for_each_band3};
use super::{Ed, Key};
use crate::band::Band;
use crate::search::Rank;

/// A set of band-3 choices (bit 0 hi, bit 1 mid, bit 2 lo).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Choices(pub u8);

impl Choices {
    pub const HI: Choices = Choices(1);
    pub const MID: Choices = Choices(2);
    pub const LO: Choices = Choices(4);
    pub const ALL: Choices = Choices(7);
    pub const NONE: Choices = Choices(0);

    /// The set holding one choice.
    pub fn of(rank: Rank) -> Choices {
        match rank {
            Rank::Hi => Choices::HI,
            Rank::Mid => Choices::MID,
            Rank::Lo => Choices::LO,
        }
    }

    pub fn contains(self, other: Choices) -> bool {
        self.0 & other.0 == other.0 && other.0 != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The choices in order hi, mid, lo.
    pub fn iter(self) -> impl Iterator<Item = Rank> {
        [Rank::Hi, Rank::Mid, Rank::Lo]
            .into_iter()
            .filter(move |&r| self.contains(Choices::of(r)))
    }

    /// `hi`, `mid`, `lo` joined by commas.
    pub fn names(self) -> String {
        self.iter().map(choice_name).collect::<Vec<_>>().join(",")
    }
}

impl std::ops::BitOr for Choices {
    type Output = Choices;
    fn bitor(self, o: Choices) -> Choices {
        Choices(self.0 | o.0)
    }
}

impl std::ops::BitOrAssign for Choices {
    fn bitor_assign(&mut self, o: Choices) {
        self.0 |= o.0;
    }
}

/// The name of a choice: `hi`, `mid` or `lo`.
pub fn choice_name(rank: Rank) -> &'static str {
    match rank {
        Rank::Hi => "hi",
        Rank::Mid => "mid",
        Rank::Lo => "lo",
    }
}

/// One entry of a slice: its number, its band 2 and band 2's class.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub number: u64,
    pub band2: Band,
    pub class2: usize,
}

/// What one band 3 of an entry is visited for.
#[derive(Clone, Copy, Debug)]
pub struct Band3Visit {
    pub band3: Band,
    /// The choices this grid is the visit of.
    pub choices: Choices,
    /// With the hi choice: the grid's number of automorphisms.
    pub automorphisms: u32,
}

impl Ed {
    /// Visits the entries of slice `k` whose numbers lie in `range`, in
    /// order. Entries past the range are not walked.
    pub fn for_each_entry(&self, k: usize, range: Range<u64>, mut visit: impl FnMut(&Entry)) {
        let mut number = 0u64;
        for_each_band2(self.catalogue.band(k), |band2| {
            if number >= range.end {
                return false;
            }
            if let Some(class2) = self.entry_class(k, band2) {
                if number >= range.start {
                    visit(&Entry {
                        number,
                        band2: *band2,
                        class2,
                    });
                }
                number += 1;
            }
            true
        });
    }

    /// The number of entries of slice `k`.
    pub fn entry_count(&self, k: usize) -> u64 {
        let mut n = 0;
        self.for_each_entry(k, 0..u64::MAX, |_| n += 1);
        n
    }

    /// The entry number of band 2 in slice `k`, if it is an entry.
    pub fn entry_number(&self, k: usize, band2: &Band) -> Option<u64> {
        self.entry_class(k, band2)?;
        let mut number = 0u64;
        let mut found = None;
        for_each_band2(self.catalogue.band(k), |b2| {
            if b2 == band2 {
                found = Some(number);
                return false;
            }
            if self.entry_class(k, b2).is_some() {
                number += 1;
            }
            true
        });
        found
    }

    /// Every band 3 of an entry of slice `k` that is the visit of one of the
    /// `wanted` choices of its grid, in increasing order.
    pub fn entry_visits(
        &self,
        k: usize,
        entry: &Entry,
        wanted: Choices,
        mut visit: impl FnMut(&Band3Visit),
    ) {
        let r1 = self.rank(k);
        let r2 = self.rank(entry.class2);
        let mut grid = [0u8; 81];
        grid[..27].copy_from_slice(self.catalogue.band(k));
        grid[27..54].copy_from_slice(&entry.band2);
        let mut bands12 = [0u8; 54];
        bands12.copy_from_slice(&grid[..54]);
        // The bands 3 first, then their classes, then the stacks' classes of
        // those that may be visits: each pass computes table numbers before
        // it looks them up, so the table's cache misses overlap.
        let mut bands3: Vec<Band> = Vec::with_capacity(64);
        for_each_band3(&bands12, |band3| bands3.push(*band3));
        let numbers: Vec<u32> = bands3.iter().map(|b| self.index.number(b)).collect();
        let mut candidates: Vec<(usize, usize, Choices)> = Vec::with_capacity(bands3.len());
        for (i, &number) in numbers.iter().enumerate() {
            let r3 = self.rank(self.index.class_at(number));
            let maybe = Choices(band_rank_choices(r1, r2, r3).0 & wanted.0);
            if !maybe.is_empty() {
                candidates.push((i, r3, maybe));
            }
        }
        let stack_numbers: Vec<[u32; 3]> = candidates
            .iter()
            .map(|&(i, _, _)| {
                grid[54..].copy_from_slice(&bands3[i]);
                std::array::from_fn(|s| self.index.number(&super::stack_band(&grid, s)))
            })
            .collect();
        for (&(i, r3, mut maybe), numbers) in candidates.iter().zip(&stack_numbers) {
            let band3 = &bands3[i];
            let stacks = numbers
                .iter()
                .map(|&n| self.rank(self.index.class_at(n)))
                .min()
                .expect("three stacks");
            grid[54..].copy_from_slice(band3);
            // The slice's band must be of the lowest rank of all six.
            if stacks < r1 {
                maybe.0 &= Choices::LO.0;
            }
            if stacks < r3 {
                maybe.0 &= !Choices::LO.0;
            }
            if maybe.is_empty() {
                continue;
            }
            let ranks = [r1, r2, r3, stacks];
            let (choices, automorphisms) = self.band3_choices(k, entry, &grid, ranks, maybe);
            if !choices.is_empty() {
                visit(&Band3Visit {
                    band3: *band3,
                    choices,
                    automorphisms,
                });
            }
        }
    }

    /// Which of the `maybe` choices the grid (bands 1 and 2 of `entry` of
    /// slice `k`, then a band 3) really is a visit of, and its number of
    /// automorphisms. `ranks`: of band 1, band 2, band 3 and the lowest of
    /// the three stacks.
    fn band3_choices(
        &self,
        k: usize,
        entry: &Entry,
        grid: &[u8; 81],
        ranks: [usize; 4],
        maybe: Choices,
    ) -> (Choices, u32) {
        let [r1, r2, r3, stacks] = ranks;
        let band3: &Band = grid[54..].try_into().expect("27 digits");
        // Short cut: when the lowest rank of the six is held by one band
        // alone and the three ranks differ, the grid's hi-forms (and the
        // forms of its mid and lo visits) are its images under band 1's
        // automorphisms; without any, the grid is its own form and has
        // no automorphism.
        let mut choices = Choices::NONE;
        let mut plain = Choices::NONE;
        let mut slow = Choices::NONE;
        for (choice, strict) in [
            (Choices::HI, r1 < r2 && r2 < r3 && r1 < stacks),
            (Choices::MID, r1 < r3 && r3 < r2 && r1 < stacks),
            (Choices::LO, r3 < r1 && r1 < r2 && r3 < stacks),
        ] {
            if maybe.contains(choice) {
                if strict {
                    plain |= choice;
                } else {
                    slow |= choice;
                }
            }
        }
        let mut automorphisms = 1;
        if !plain.is_empty() {
            if self.band_automorphisms(k) == 1 {
                choices |= plain;
            } else if let Some(a) = self.smallest_image(k, &entry.band2, band3) {
                choices |= plain;
                automorphisms = a;
            }
        }
        if !slow.is_empty() {
            let key: &Key = grid[27..].try_into().expect("54 digits");
            if slow.contains(Choices::HI)
                && let Some(a) = self.own_hi_form(grid)
            {
                choices |= Choices::HI;
                automorphisms = a;
            }
            if slow.contains(Choices::MID) || slow.contains(Choices::LO) {
                let hi = self.hi_form(grid);
                for v in self.visits_of(&hi).iter().skip(1) {
                    let c = Choices::of(v.choice);
                    if slow.contains(c) && v.class == k && v.key == *key {
                        choices |= c;
                    }
                }
            }
        }
        (choices, automorphisms)
    }
}

/// The choices a band 3 of rank `r3` may be a visit of, by the ranks of
/// bands 1, 2 and 3 alone (the stacks not yet looked at).
fn band_rank_choices(r1: usize, r2: usize, r3: usize) -> Choices {
    let mut maybe = Choices::NONE;
    if r2 <= r3 {
        maybe |= Choices::HI;
    }
    if r1 <= r3 && r3 <= r2 {
        maybe |= Choices::MID;
    }
    if r3 <= r1 {
        maybe |= Choices::LO;
    }
    maybe
}

/// What a count of (part of) a slice found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SliceCount {
    /// Entries walked.
    pub entries: u64,
    /// ED grids (hi visits).
    pub grids: u64,
    /// ED grids by number of automorphisms: `(automorphisms, grids)`,
    /// increasing.
    pub by_automorphisms: Vec<(u32, u64)>,
}

impl SliceCount {
    /// Adds one ED grid with `automorphisms` automorphisms.
    pub fn add_grid(&mut self, automorphisms: u32) {
        self.grids += 1;
        match self
            .by_automorphisms
            .binary_search_by_key(&automorphisms, |&(a, _)| a)
        {
            Ok(i) => self.by_automorphisms[i].1 += 1,
            Err(i) => self.by_automorphisms.insert(i, (automorphisms, 1)),
        }
    }

    /// Adds another count.
    pub fn merge(&mut self, other: &SliceCount) {
        self.entries += other.entries;
        for &(a, n) in &other.by_automorphisms {
            match self.by_automorphisms.binary_search_by_key(&a, |&(x, _)| x) {
                Ok(i) => self.by_automorphisms[i].1 += n,
                Err(i) => self.by_automorphisms.insert(i, (a, n)),
            }
            self.grids += n;
        }
    }

    /// The split as `1:N,2:N,…`.
    pub fn split_text(&self) -> String {
        self.by_automorphisms
            .iter()
            .map(|(a, n)| format!("{a}:{n}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

impl Ed {
    /// Counts the ED grids (hi visits) of the entries of slice `k` numbered
    /// in `range`.
    pub fn count_entries(&self, k: usize, range: Range<u64>) -> SliceCount {
        let mut count = SliceCount::default();
        self.for_each_entry(k, range, |entry| {
            count.entries += 1;
            self.entry_visits(k, entry, Choices::HI, |v| count.add_grid(v.automorphisms));
        });
        count
    }
}
