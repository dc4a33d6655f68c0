//! Valid band clue sets: the sets of cells that hit every band UA.
//!
//! Enumeration of the valid sets of one size is a branching on the first UA
//! not yet hit: for its cells c1 < c2 < … (those not excluded), branch k takes
//! c_k and excludes c1..c_(k-1) from the rest of that branch. The branches
//! partition the sets that hit the UA, so every valid set comes out exactly
//! once. When every UA is hit, the set is completed in every way by cells not
//! excluded.
//!
//! A [`SetList`] holds the sets of one size as 27-bit masks, sorted by their
//! lowest cell, then their second lowest cell, then by value, with an index of
//! [`INDEX_LEN`] offsets: pair `p = pair_index(c1, c2)` (c1 < c2) owns
//! `sets[index[p]..index[p + 1]]`. Every set in slice (c1, c2) contains c1 and
//! c2 and no other cell below c2.
//!
//! ```text
//! set  u32  bit i = catalogue cell i (row-major in the band), bits 27..32 zero
//! ```

use std::borrow::Cow;
use std::ops::ControlFlow;

use super::Band;
use crate::bits::{BAND_FULL, CellMask, Mask27};

/// Number of cell pairs (c1, c2) with c1 < c2 < 27.
pub const PAIRS: usize = 351;

/// Length of a slice index: one offset per pair, and the end.
pub const INDEX_LEN: usize = PAIRS + 1;

/// The position of pair (first, second), first < second < 27, in
/// lexicographic order of pairs.
#[inline]
pub const fn pair_index(first: usize, second: usize) -> usize {
    debug_assert!(first < second && second < 27);
    first * 27 - first * (first + 1) / 2 + second - first - 1
}

/// The sort key of a set: lowest cell, second lowest cell, value.
#[inline]
pub fn sort_key(set: Mask27) -> u64 {
    let first = set.trailing_zeros() as u64;
    let second = set.without_lowest().lowest_cell() as u64;
    (first << 40) | (second << 32) | set as u64
}

/// The sets of one slice: those whose two lowest cells are `first` and
/// `second`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice<'a> {
    pub first: u8,
    pub second: u8,
    pub sets: &'a [u32],
}

/// The valid sets of one size, sorted and indexed by their two lowest cells.
/// Borrowed from the table file, or owned when generated on demand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetList<'a> {
    size: usize,
    sets: Cow<'a, [u32]>,
    index: Cow<'a, [u32]>,
}

impl<'a> SetList<'a> {
    /// Sorts sets of `size` cells (each at least 2), drops repeats, and
    /// builds the slice index.
    pub fn from_sets(size: usize, mut sets: Vec<u32>) -> SetList<'static> {
        assert!(size >= 2, "a set list needs sets of at least 2 cells");
        assert!(
            sets.iter()
                .all(|s| s.count_ones() as usize == size && s.is_subset_of(BAND_FULL))
        );
        sets.sort_unstable_by_key(|&s| sort_key(s));
        sets.dedup();
        let index = build_index(&sets);
        SetList {
            size,
            sets: Cow::Owned(sets),
            index: Cow::Owned(index),
        }
    }

    /// A list over sorted sets and their index (checked by the caller).
    pub(crate) fn borrowed(size: usize, sets: &'a [u32], index: &'a [u32]) -> SetList<'a> {
        debug_assert_eq!(index.len(), INDEX_LEN);
        SetList {
            size,
            sets: Cow::Borrowed(sets),
            index: Cow::Borrowed(index),
        }
    }

    /// Number of cells of each set.
    pub fn size(&self) -> usize {
        self.size
    }

    /// All sets, in slice order.
    pub fn sets(&self) -> &[u32] {
        &self.sets
    }

    /// The slice index ([`INDEX_LEN`] offsets into [`SetList::sets`]).
    pub fn slice_index(&self) -> &[u32] {
        &self.index
    }

    /// Number of sets.
    pub fn len(&self) -> usize {
        self.sets.len()
    }

    /// True when there are no sets of this size.
    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    /// The sets whose two lowest cells are `first` < `second`.
    pub fn slice(&self, first: usize, second: usize) -> &[u32] {
        slice_of(&self.sets, &self.index, first, second)
    }

    /// The non-empty slices, in (first, second) order.
    pub fn slices(&self) -> impl Iterator<Item = Slice<'_>> {
        slices_of(&self.sets, &self.index)
    }

    /// An owned copy.
    pub fn into_owned(self) -> SetList<'static> {
        SetList {
            size: self.size,
            sets: Cow::Owned(self.sets.into_owned()),
            index: Cow::Owned(self.index.into_owned()),
        }
    }
}

/// The slice index of sorted sets.
pub(crate) fn build_index(sets: &[u32]) -> Vec<u32> {
    let mut index = vec![0u32; INDEX_LEN];
    for &s in sets {
        let first = s.trailing_zeros() as usize;
        let second = s.without_lowest().lowest_cell();
        index[pair_index(first, second) + 1] += 1;
    }
    for p in 0..PAIRS {
        index[p + 1] += index[p];
    }
    index
}

pub(crate) fn slice_of<'s>(
    sets: &'s [u32],
    index: &[u32],
    first: usize,
    second: usize,
) -> &'s [u32] {
    let p = pair_index(first, second);
    &sets[index[p] as usize..index[p + 1] as usize]
}

pub(crate) fn slices_of<'s>(
    sets: &'s [u32],
    index: &'s [u32],
) -> impl Iterator<Item = Slice<'s>> + 's {
    (0..27u8)
        .flat_map(|first| (first + 1..27).map(move |second| (first, second)))
        .zip(index.windows(2))
        .filter(|(_, w)| w[0] < w[1])
        .map(move |((first, second), w)| Slice {
            first,
            second,
            sets: &sets[w[0] as usize..w[1] as usize],
        })
}

/// All valid sets of `size` cells (≥ 2) for the UAs `uas` of `band`, sorted
/// and sliced. `uas` should be the band's minimal UAs (any genuine UAs are
/// sound; sorted small first is fastest). Used for sizes 7 and 8, which the
/// table file does not store.
pub fn valid_sets(band: &Band, uas: &[u32], size: usize) -> SetList<'static> {
    debug_assert!(uas_are_genuine(band, uas));
    SetList::from_sets(size, valid_sets_unsorted(uas, size))
}

/// All sets of `size` cells that hit every set of `uas`, each once, in
/// enumeration order.
pub fn valid_sets_unsorted(uas: &[u32], size: usize) -> Vec<u32> {
    let mut out = Vec::new();
    extend(uas, 0, 0, 0, size as u32, &mut out);
    out
}

/// The size of the smallest set that hits every set of `uas`.
pub fn minimum_size(uas: &[u32]) -> usize {
    (0..=27)
        .find(|&size| exists(uas, 0, 0, 0, size))
        .expect("the full band hits every non-empty UA")
}

/// The branching of the module note: every extension of `chosen` by at
/// most `left` cells outside `dead` that hits every UA from `start` on
/// (those before `start` are hit already), each once; `done(chosen, dead,
/// left)` gets each, with the cells still excluded and the count still to
/// add, and may stop the walk.
fn branch(
    uas: &[u32],
    start: usize,
    chosen: u32,
    dead: u32,
    left: u32,
    done: &mut impl FnMut(u32, u32, u32) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let Some(offset) = uas[start..].iter().position(|&u| u & chosen == 0) else {
        return done(chosen, dead, left);
    };
    if left == 0 {
        return ControlFlow::Continue(());
    }
    let i = start + offset;
    let mut dead = dead;
    let mut candidates = uas[i].without(dead);
    while candidates != 0 {
        let bit = candidates.lowest_bit();
        candidates ^= bit;
        branch(uas, i + 1, chosen | bit, dead, left - 1, done)?;
        dead |= bit;
    }
    ControlFlow::Continue(())
}

/// Extends `chosen` by `left` cells outside `dead` so that every UA from
/// `start` on is hit (those before `start` are hit already).
fn extend(uas: &[u32], start: usize, chosen: u32, dead: u32, left: u32, out: &mut Vec<u32>) {
    let _ = branch(uas, start, chosen, dead, left, &mut |chosen, dead, left| {
        complete(chosen, BAND_FULL.without(dead | chosen), left, out);
        ControlFlow::Continue(())
    });
}

/// Pushes `chosen` plus every `left`-cell subset of `free`.
fn complete(chosen: u32, free: u32, left: u32, out: &mut Vec<u32>) {
    if left == 0 {
        out.push(chosen);
        return;
    }
    let mut free = free;
    while free.count_ones() >= left {
        let bit = free.lowest_bit();
        free ^= bit;
        complete(chosen | bit, free, left - 1, out);
    }
}

/// True when some extension of `chosen` by `left` cells hits every UA.
fn exists(uas: &[u32], start: usize, chosen: u32, dead: u32, left: usize) -> bool {
    // Stops at the first set that hits every UA and has room for the rest.
    let mut room = |chosen: u32, dead: u32, left: u32| {
        if BAND_FULL.without(dead | chosen).count_ones() >= left {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    branch(uas, start, chosen, dead, left as u32, &mut room).is_break()
}

/// Debug check of the soundness rule: each UA contains the difference
/// between `band` and another band with the same gangster, so the cells
/// outside it leave at least two fillings.
fn uas_are_genuine(band: &Band, uas: &[u32]) -> bool {
    let differences: Vec<u32> = super::gangster_mates(band)
        .iter()
        .map(|m| super::difference(band, m))
        .filter(|&d| d != 0)
        .collect();
    uas.iter()
        .all(|&u| differences.iter().any(|&d| d.is_subset_of(u)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_index_is_lexicographic() {
        let mut p = 0;
        for first in 0..27 {
            for second in first + 1..27 {
                assert_eq!(pair_index(first, second), p);
                p += 1;
            }
        }
        assert_eq!(p, PAIRS);
    }

    #[test]
    fn enumeration_matches_brute_force_on_toy_uas() {
        let uas = [0b1111, 0b11_0000_0011, 0b1010_1010_0000];
        for size in 2..=5 {
            let fast = SetList::from_sets(size, valid_sets_unsorted(&uas, size));
            let mut slow: Vec<u32> = (0u32..1 << 12)
                .filter(|s| s.count_ones() as usize == size && uas.iter().all(|u| u & s != 0))
                .collect();
            // Cells above 11 hit nothing but still complete sets.
            let extra = valid_sets_unsorted(&uas, size)
                .into_iter()
                .filter(|s| s >> 12 != 0)
                .count();
            assert_eq!(fast.len(), slow.len() + extra);
            slow.retain(|s| !fast.sets().contains(s));
            assert!(slow.is_empty());
        }
        assert_eq!(minimum_size(&uas), 2);
    }

    #[test]
    fn slices_cover_the_list_in_order() {
        let list = SetList::from_sets(3, vec![0b1011, 0b0111, 0b1101, 0b1_0000_0011]);
        let slices: Vec<_> = list.slices().collect();
        assert_eq!(slices.len(), 2);
        assert_eq!((slices[0].first, slices[0].second), (0, 1));
        assert_eq!(slices[0].sets, &[0b0111, 0b1011, 0b1_0000_0011]);
        assert_eq!((slices[1].first, slices[1].second), (0, 2));
        assert_eq!(list.slice(0, 2), &[0b1101]);
        assert!(list.slice(1, 2).is_empty());
    }
}
