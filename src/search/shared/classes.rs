//! GUA bits by socket class, shared by the bands 3 of a bands-1+2 state
//! (ARCHITECTURE.md, "The exhaustive search of an entry").
//!
//! A band 3 has 36 mini-row sockets: the 27 pairs of cells and the 9 whole
//! mini-rows of its rows (the two turns of a mini-row have one T). Which
//! bands-1+2 parts S make GUAs with a socket depends only on how the
//! socket changes band 3's gangster ([`crate::search::signatures`]), so the
//! sockets of all bands 3 of an entry fall into 162 *classes* (81 pair
//! signatures, 81 mini-row signatures with the two turns together; see
//! [`crate::search::signatures::socket_classes`]), and a band 3 has each
//! of its 36 sockets in a different class. Every S part
//! of a class makes, with the T of that class's socket in any band 3 that
//! has the class, a GUA of that band 3's grid.
//!
//! [`ClassGuas`] keeps the S parts of each class and, per X slice, gives
//! them bits by cell as the band-3 states did per band: for a survivor XY,
//! one OR over its cells tells which classes have an S part that XY misses
//! (the *open classes*), for every band 3 at once; each band 3 then reads
//! its open sockets from the open classes ([`crate::bits::move_bits`]).
//!
//! Up to 8 × `gua_limit` bits per X slice, smallest parts first, a group of
//! bits per class. Each band 3 reads its open sockets from the open classes
//! with a PEXT and a PDEP per word (its sockets 0 to 35 are numbered in class
//! order for this). The bands 3 then keep no GUA bits of their own: the GUAs
//! of other T's (fresh ones only) go to band 3 on every GUA, or force their
//! socket in a slice that cannot hit them. The one-grid search keeps its bits
//! per band 3 (a class level would only add work for one band 3). Tests:
//! `open_classes_agree_with_the_parts` (the open classes are exactly the
//! classes with a part the XY misses),
//! `class_parts_make_uas_of_every_band_3_with_the_class`; the survivor check's
//! test (`survivor_check_agrees_with_every_gua`) runs in both modes.

use std::collections::HashMap;

use crate::band::{Gangster, gangster};
use crate::bits::sockets::groups_hit;
use crate::bits::{Mask27, Mask54, cells, move_bits};
use crate::grid::Grid;

use crate::search::harvest::sockets;
use crate::search::hitting::low_bits;
use crate::search::sets::XSlice;
use crate::search::signatures::{CLASS_WORDS, CLASSES, ClassMask, classes_in_socket_order};

/// Most words of class GUA bits in an X slice.
pub const MAX_CLASS_WORDS: usize = 64;

/// What became of a fresh S part given to [`ClassGuas::add_fresh`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fresh {
    /// A part of the class lies inside it: nothing to add.
    Held,
    /// Added; in the current X slice it has a bit, forces its class, or is
    /// hit by the X pair (or no slice is searched).
    Added,
    /// Added, but past the slice's bits: band 3 on every GUA must read it.
    Unbitted,
}

/// The S parts of every socket class of a bands-1+2 state, and their bits
/// in the current X slice.
pub struct ClassGuas {
    /// Each class's S parts (none holds another).
    parts: Vec<Vec<Mask54>>,
    /// The class of each gangster a socket of a band 3 makes.
    by_gangster: HashMap<Gangster, u8>,
    /// Most bits in an X slice.
    limit: usize,
    /// The X slice.
    slice: XSlice,
    /// Classes open for every XY of the slice (a part no live cell hits).
    forced_x: ClassMask,
    /// Which class each group of bits belongs to.
    groups: ClassGroups,
    /// Every bit, and the bits no X of the slice can hit.
    all: [u64; MAX_CLASS_WORDS],
    gx_all: [u64; MAX_CLASS_WORDS],
    /// Words in use.
    words: usize,
    /// `rows[c * MAX_CLASS_WORDS + w]`: word w of the bits whose part
    /// holds cell c.
    rows: Vec<u64>,
    /// Parts the X pair misses beyond the bits: (S, class).
    unbitted: Vec<(Mask54, u8)>,
    /// Scratch lists.
    scratch: Vec<(Mask54, u8)>,
    hit: [u64; MAX_CLASS_WORDS],
}

/// The groups of the class bits of an X slice: runs of bits of one class
/// (per word), and the maps from their top bits to their classes.
struct ClassGroups {
    /// The class of each bit; bits come grouped by class.
    bit_class: Vec<u8>,
    /// Per word: the top bit of each group (a class's bits in the word, or
    /// a fresh bit alone) and the other bits of the groups.
    gtop: [u64; MAX_CLASS_WORDS],
    glow: [u64; MAX_CLASS_WORDS],
    /// Per class word q and word w: the top bits of the groups of the
    /// slice's start whose class is in word q, and their classes' bits in
    /// word q (a class has one group per word at most, and the groups of
    /// a word come in class order), for [`crate::bits::move_bits`].
    tops_of: [[u64; MAX_CLASS_WORDS]; CLASS_WORDS],
    classes_to: [[u64; MAX_CLASS_WORDS]; CLASS_WORDS],
    /// Per class word q: the words w (a range: bits come in class order)
    /// whose `tops_of[q][w]` is not 0.
    q_words: [std::ops::Range<usize>; CLASS_WORDS],
    /// The top bits of the slice's start (fresh bits come after).
    sorted_tops: [u64; MAX_CLASS_WORDS],
}

impl ClassGuas {
    /// No class yet; at most `limit` bits per X slice (capped at
    /// [`MAX_CLASS_WORDS`] words).
    pub fn new(limit: usize) -> Self {
        ClassGuas {
            parts: vec![Vec::new(); CLASSES],
            by_gangster: HashMap::new(),
            limit: limit.min(64 * MAX_CLASS_WORDS),
            slice: XSlice::default(),
            forced_x: [0; CLASS_WORDS],
            groups: ClassGroups {
                bit_class: Vec::new(),
                gtop: [0; MAX_CLASS_WORDS],
                glow: [0; MAX_CLASS_WORDS],
                tops_of: [[0; MAX_CLASS_WORDS]; CLASS_WORDS],
                classes_to: [[0; MAX_CLASS_WORDS]; CLASS_WORDS],
                q_words: [0..0, 0..0, 0..0],
                sorted_tops: [0; MAX_CLASS_WORDS],
            },
            all: [0; MAX_CLASS_WORDS],
            gx_all: [0; MAX_CLASS_WORDS],
            words: 0,
            rows: vec![0; 54 * MAX_CLASS_WORDS],
            unbitted: Vec::new(),
            scratch: Vec::new(),
            hit: [0; MAX_CLASS_WORDS],
        }
    }

    /// Files the sockets of search grid `grid`'s band 3 by the gangster
    /// they make (for [`ClassGuas::class_of_gangster`]).
    pub fn add_sockets(&mut self, grid: &Grid) {
        let band3: [u8; 27] = grid.digits()[54..].try_into().expect("27 cells");
        let classes = classes_in_socket_order(&band3);
        for ((_, changed), class) in sockets(grid).iter().zip(classes) {
            let old = self.by_gangster.insert(gangster(changed), class);
            debug_assert!(old.is_none_or(|c| c == class), "a gangster in two classes");
        }
    }

    /// The class of the sockets that make gangster `g`, if a band 3 filed
    /// with [`ClassGuas::add_sockets`] has one.
    ///
    /// Why a part S found for one band 3 serves the class: a grid H that
    /// differs from that band 3's grid on S ∪ T gives band 3 the gangster
    /// `g`; any band 3 of the entry with a socket making `g`, changed at
    /// that socket, forms a grid with H's bands 1+2 (bands meet only
    /// through their columns' digit sets), which differs from that band
    /// 3's grid on S and the socket's T: a GUA of it.
    pub fn class_of_gangster(&self, g: &Gangster) -> Option<u8> {
        self.by_gangster.get(g).copied()
    }

    /// Adds a harvested part S to `class` unless one of its parts lies
    /// inside S; drops the parts that S lies inside. Before the search
    /// (no X slice).
    pub fn add(&mut self, class: u8, s: Mask54) {
        if self.holds(class, s) {
            return;
        }
        let parts = &mut self.parts[class as usize];
        parts.retain(|&p| s & !p != 0);
        parts.push(s);
    }

    /// Whether a part of `class` lies inside `s` (then XY missing `s`
    /// misses it too, and the T is the same).
    fn holds(&self, class: u8, s: Mask54) -> bool {
        self.parts[class as usize].iter().any(|&p| p & !s == 0)
    }

    /// The parts of `class`.
    pub fn parts(&self, class: u8) -> &[Mask54] {
        &self.parts[class as usize]
    }

    /// Adds a fresh part S to `class` during the search: it joins the
    /// current X slice as a harvested one would (a bit of its own while
    /// there is room).
    pub fn add_fresh(&mut self, class: u8, s: Mask54) -> Fresh {
        if self.holds(class, s) {
            return Fresh::Held;
        }
        self.parts[class as usize].push(s);
        let x = self.slice;
        let c = class as usize;
        if !x.active || s & x.pair != 0 || self.forced_x[c / 64] >> (c % 64) & 1 != 0 {
            return Fresh::Added;
        }
        let v = s & x.cells & !x.pair;
        if v == 0 {
            self.forced_x[c / 64] |= 1 << (c % 64);
            return Fresh::Added;
        }
        let k = self.groups.bit_class.len();
        if k >= self.limit {
            self.unbitted.push((s, class));
            return Fresh::Unbitted;
        }
        let (w, bit) = (k / 64, 1u64 << (k % 64));
        self.groups.bit_class.push(class);
        self.groups.gtop[w] |= bit;
        self.all[w] |= bit;
        for cell in cells(v) {
            self.rows[cell * MAX_CLASS_WORDS + w] |= bit;
        }
        if v & self.slice.xlive == 0 {
            self.gx_all[w] |= bit;
        }
        self.words = w + 1;
        Fresh::Added
    }

    /// Prepares the bits of an X slice with pair `a` and live cells `live`
    /// (band 1): every part the pair misses forces its class when no cell
    /// of the slice can hit it; the others of unforced classes get a bit
    /// (smallest parts first, up to the limit), grouped by class.
    pub fn prepare_x_slice(&mut self, a: Mask27, live: Mask27) {
        self.slice = XSlice::start(a, live);
        let (a, live, xlive) = (self.slice.pair, self.slice.live(), self.slice.xlive);
        self.forced_x = [0; CLASS_WORDS];
        self.unbitted.clear();
        let mut kept = std::mem::take(&mut self.scratch);
        kept.clear();
        for (class, parts) in self.parts.iter().enumerate() {
            let mut forced = false;
            let start = kept.len();
            for &s in parts {
                if s & a == 0 {
                    if s & live == 0 {
                        forced = true;
                        break;
                    }
                    kept.push((s, class as u8));
                }
            }
            if forced {
                kept.truncate(start);
                self.forced_x[class / 64] |= 1 << (class % 64);
            }
        }
        if kept.len() > self.limit {
            // The smallest parts (within the slice) keep the bits.
            kept.sort_by_key(|&(s, _)| (s & live).count_ones());
            self.unbitted.extend_from_slice(&kept[self.limit..]);
            kept.truncate(self.limit);
            kept.sort_by_key(|&(_, class)| class);
        }
        // Clear the old rows, then file the bits by class.
        for c in 0..54 {
            self.rows[c * MAX_CLASS_WORDS..c * MAX_CLASS_WORDS + self.words].fill(0);
        }
        self.groups.bit_class.clear();
        let n = kept.len();
        self.words = n.div_ceil(64);
        self.groups.gtop = [0; MAX_CLASS_WORDS];
        self.groups.tops_of = [[0; MAX_CLASS_WORDS]; CLASS_WORDS];
        self.groups.classes_to = [[0; MAX_CLASS_WORDS]; CLASS_WORDS];
        for (k, &(s, class)) in kept.iter().enumerate() {
            let (w, bit) = (k / 64, 1u64 << (k % 64));
            self.groups.bit_class.push(class);
            // The last bit of a group: the class changes, or the word ends.
            if k + 1 == n || kept[k + 1].1 != class || k % 64 == 63 {
                self.groups.gtop[w] |= bit;
                let c = class as usize;
                self.groups.tops_of[c / 64][w] |= bit;
                self.groups.classes_to[c / 64][w] |= 1 << (c % 64);
            }
            for cell in cells(s & live) {
                self.rows[cell * MAX_CLASS_WORDS + w] |= bit;
            }
        }
        for w in 0..MAX_CLASS_WORDS {
            self.all[w] = low_bits(n, w);
            self.groups.glow[w] = self.all[w] & !self.groups.gtop[w];
        }
        self.groups.q_words = std::array::from_fn(|q| {
            let used = |w: &usize| self.groups.tops_of[q][*w] != 0;
            let first = (0..self.words).find(used).unwrap_or(0);
            let end = (0..self.words).rev().find(used).map_or(0, |w| w + 1);
            first..end.max(first)
        });
        self.groups.sorted_tops = self.groups.gtop;
        self.hit_bits(xlive);
        for w in 0..MAX_CLASS_WORDS {
            self.gx_all[w] = self.all[w] & !self.hit[w];
        }
        self.scratch = kept;
    }

    /// The X slice is done: fresh parts no longer join its bits.
    pub fn end_slice(&mut self) {
        self.slice.active = false;
    }

    /// The parts the X pair misses that got no bit in this X slice.
    pub fn unbitted(&self) -> &[(Mask54, u8)] {
        &self.unbitted
    }

    /// The classes open for every XY of a step whose Y cells (pair and
    /// live cells, bands-1+2 numbering) are `ycells`: a part the X slice
    /// cannot hit and those Y cells miss, or forced by the slice.
    pub fn step_forced(&mut self, ycells: Mask54) -> ClassMask {
        self.hit_bits(ycells);
        self.tops_missed(true);
        self.classes_of()
    }

    /// The classes open for XY (`cells`: its cells but the X pair): those
    /// with a bit whose part XY misses, and those forced by the slice.
    #[inline]
    pub fn open_classes(&mut self, cells: Mask54) -> ClassMask {
        self.hit_bits(cells);
        self.tops_missed(false);
        self.classes_of()
    }

    /// Turns the hit bits in `hit` into the top bits of the groups with a
    /// bit missed: of the bits no X of the slice can hit (`gx_all`), or of
    /// all bits.
    #[inline]
    fn tops_missed(&mut self, gx_all: bool) {
        let n = self.words;
        let bits = if gx_all { &self.gx_all } else { &self.all };
        let groups = self.groups.gtop[..n].iter().zip(&self.groups.glow[..n]);
        for ((hit, &bits), (&top, &low)) in self.hit[..n].iter_mut().zip(&bits[..n]).zip(groups) {
            *hit = groups_hit(bits & !*hit, top, low);
        }
    }

    /// The classes of the group tops in `hit`, and the forced.
    #[inline]
    fn classes_of(&self) -> ClassMask {
        let n = self.words;
        let tops = &self.hit[..n];
        let mut open = self.forced_x;
        for (q, open) in open.iter_mut().enumerate() {
            let words = self.groups.q_words[q].clone();
            *open |= move_bits(
                &tops[words.clone()],
                &self.groups.tops_of[q][words.clone()],
                &self.groups.classes_to[q][words],
            );
        }
        // Fresh bits (rare) one by one.
        for (w, &tops) in tops.iter().enumerate() {
            let fresh = tops & !self.groups.sorted_tops[w];
            if fresh != 0 {
                for k in cells(fresh) {
                    let c = self.groups.bit_class[64 * w + k] as usize;
                    open[c / 64] |= 1 << (c % 64);
                }
            }
        }
        open
    }

    /// The OR of the rows of the cells of `cells` (the words in use), into
    /// `hit`.
    #[inline]
    fn hit_bits(&mut self, cells: Mask54) {
        crate::bits::or_rows(
            &self.rows,
            MAX_CLASS_WORDS,
            cells,
            &mut self.hit[..self.words],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::{BANDS12_FULL, GRID_FULL};
    use crate::search::signatures::{CLASS_SOCKETS, socket_classes};
    use crate::solver::other_solution;

    /// A random grid's bands 1+2 and up to `n` bands 3 that complete them.
    fn entry(seed: u64, n: usize) -> Vec<Grid> {
        let mut grids = crate::search::signatures::tests::entry(seed);
        grids.truncate(n);
        grids
    }

    fn band3(grid: &Grid) -> [u8; 27] {
        grid.digits()[54..].try_into().unwrap()
    }

    /// Each band 3 has 36 sockets in 36 classes: the 27 pairs and 9
    /// mini-rows of its rows; two bands 3 share a class exactly when their
    /// sockets of it change the gangster alike (for a mini-row: the same
    /// two ways).
    #[test]
    fn socket_classes_are_the_mini_row_sockets() {
        let grids = entry(7, 24);
        assert!(grids.len() >= 8, "only {} bands 3", grids.len());
        let mut changes: HashMap<u8, Vec<Gangster>> = HashMap::new();
        let mut shared = 0;
        for grid in &grids {
            let classes = socket_classes(&band3(grid));
            let mut ts: Vec<Mask27> = classes.iter().map(|&(_, t)| t).collect();
            ts.sort();
            ts.dedup();
            assert_eq!(ts.len(), CLASS_SOCKETS);
            assert!(classes.windows(2).all(|w| w[0].0 < w[1].0));
            for &(class, t) in &classes {
                assert!((class as usize) < CLASSES);
                assert!(t.count_ones() == 2 || t.count_ones() == 3);
                // The gangsters its socket(s) of this T make.
                let mut made: Vec<Gangster> = sockets(grid)
                    .iter()
                    .filter(|(u, _)| *u == t)
                    .map(|(_, changed)| gangster(changed))
                    .collect();
                made.sort();
                assert_eq!(made.len(), if t.count_ones() == 2 { 1 } else { 2 });
                match changes.get(&class) {
                    Some(seen) => {
                        assert_eq!(seen, &made, "class {class} of {grid}");
                        shared += 1;
                    }
                    None => {
                        changes.insert(class, made);
                    }
                }
            }
        }
        // Distinct classes make distinct gangsters.
        let mut all: Vec<Gangster> = changes.values().flatten().copied().collect();
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n);
        assert!(shared > 100, "only {shared} shared classes");
    }

    /// A part of a class makes, with the class's T in every band 3 that
    /// has it, a UA of that band 3's grid (checked by the solver), for the
    /// harvested parts and for fresh GUAs filed by their other solution's
    /// gangster.
    #[test]
    fn class_parts_make_uas_of_every_band_3_with_the_class() {
        let limits = crate::search::SearchConfig::default().harvest_limits();
        let grids = entry(8, 12);
        let mut classes = ClassGuas::new(512);
        for grid in &grids {
            classes.add_sockets(grid);
        }
        // Harvested parts of the first band 3, filed by class.
        let own = socket_classes(&band3(&grids[0]));
        for g in crate::search::harvest::harvest_guas(&grids[0], &limits) {
            let &(class, _) = own.iter().find(|&&(_, t)| t == g.t).expect("a socket");
            classes.add(class, g.s);
        }
        // Fresh GUAs of random puzzles of the first band 3.
        let mut rng = fastrand::Rng::with_seed(9);
        let mut fresh = 0;
        for _ in 0..300 {
            let mut clues: u128 = 0;
            for _ in 0..rng.usize(17..30) {
                let cell = if rng.u8(..3) < 2 {
                    rng.u32(..54)
                } else {
                    rng.u32(54..81)
                };
                clues |= 1 << cell;
            }
            let Some(other) = other_solution(&grids[0], clues) else {
                continue;
            };
            let ua = crate::search::harvest::minimal_ua(&grids[0], grids[0].difference(&other));
            let (s, t) = (ua as u64 & BANDS12_FULL, (ua >> 54) as Mask27);
            if s == 0 || t == 0 {
                continue;
            }
            let other = other_solution(&grids[0], GRID_FULL & !ua).expect("a UA");
            if let Some(class) = classes.class_of_gangster(&gangster(&band3(&other))) {
                classes.add_fresh(class, s);
                fresh += 1;
            }
        }
        assert!(fresh > 20, "only {fresh} fresh parts with a class");
        let mut checked = 0;
        for grid in &grids {
            for (class, t) in socket_classes(&band3(grid)) {
                for &s in classes.parts(class).iter().step_by(3) {
                    let ua = s as u128 | (t as u128) << 54;
                    assert!(
                        other_solution(grid, GRID_FULL & !ua).is_some(),
                        "class {class}: {s:x} with {t:x} is no UA of {grid}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 300, "only {checked} checked");
    }

    /// The open classes of an XY are exactly the classes with a part it
    /// misses (the X pair hit none; the live cells of the slice), when
    /// every part has a bit, and a superset of those with a bit otherwise.
    #[test]
    fn open_classes_agree_with_the_parts() {
        let mut rng = fastrand::Rng::with_seed(5);
        for limit in [4096, 100] {
            let mut classes = ClassGuas::new(limit);
            for _ in 0..1500 {
                let class = rng.u8(..CLASSES as u8);
                let mut s = 0u64;
                for _ in 0..rng.usize(1..9) {
                    s |= 1 << rng.u32(..54);
                }
                classes.add(class, s);
            }
            for _ in 0..20 {
                let a: Mask27 = 1 << rng.u32(..27) | 1 << rng.u32(..27);
                let live: Mask27 = rng.u32(..) & ((1 << 27) - 1) & !a;
                classes.prepare_x_slice(a, live);
                let (pair, cells) = (classes.slice.pair, classes.slice.cells);
                let unbitted: Vec<_> = classes.unbitted().to_vec();
                assert_eq!(unbitted.is_empty(), limit == 4096);
                for _ in 0..50 {
                    let xy = (rng.u64(..) & rng.u64(..) & cells) | pair;
                    let open = classes.open_classes(xy & !pair);
                    for class in 0..CLASSES {
                        let bitted = |s: Mask54| !unbitted.contains(&(s, class as u8));
                        let missed = classes.parts[class]
                            .iter()
                            .any(|&s| s & pair == 0 && s & xy == 0 && bitted(s));
                        let is_open = open[class / 64] >> (class % 64) & 1 != 0;
                        assert_eq!(is_open, missed, "class {class}");
                    }
                }
            }
        }
    }
}
