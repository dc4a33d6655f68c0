//! Hitting sets in band 3: whether a few clues can hit a family of band-3
//! sets, and the bounds that settle most such questions at once (the
//! mini-row bound, disjoint sets). Part 1 and part 2 both ask.

use crate::bits::Mask27;

/// A set of sockets (distinct band-3 parts of GUAs), by id.
pub type Sockets = u64;
/// A lower bound on the clues band 3 needs to hit a family of sets: the
/// exact count for the sets that lie inside one mini-row (three cells of a
/// row and a box), the others left out. Mini-rows are disjoint, so their
/// needs add up; the need of one mini-row comes from `MIN_HIT`.
#[derive(Default)]
pub struct MiniRowBound {
    /// Seven bits per mini-row r (bits 7r..7r + 7): bit s - 1 set when
    /// the 3-bit cell subset s occurs.
    pub family: u64,
}

impl MiniRowBound {
    /// The family bit of `t` if it lies inside one mini-row, else 0.
    #[inline]
    pub fn bit(t: Mask27) -> u64 {
        crate::bits::mini_row_bit(t)
    }

    /// Counts `t` if it lies inside one mini-row (empty sets are ignored).
    #[cfg(test)]
    pub fn add(&mut self, t: Mask27) {
        self.family |= Self::bit(t);
    }

    /// The cells of the mini-rows that hold a counted set.
    #[inline]
    pub fn cells(&self) -> Mask27 {
        let mut cells = 0;
        for r in 0..9 {
            let used = (self.family >> (7 * r)) & 0x7f != 0;
            cells |= if used { 0b111 << (3 * r) } else { 0 };
        }
        cells
    }

    #[inline]
    pub fn clues(&self) -> usize {
        (0..9)
            .map(|r| MIN_HIT[(self.family >> (7 * r)) as usize & 0x7f] as usize)
            .sum()
    }
}

/// A mask with the low `n` bits set, over `W` words.
pub fn all_bits<const W: usize>(n: usize) -> [u64; W] {
    std::array::from_fn(|w| low_bits(n, w))
}

/// Word `w` of a mask with the low `n` bits set.
#[inline]
pub fn low_bits(n: usize, w: usize) -> u64 {
    match n.saturating_sub(64 * w) {
        0 => 0,
        k if k >= 64 => !0,
        k => (1 << k) - 1,
    }
}
/// True when more than `z` of the open sockets' T's are pairwise disjoint
/// (greedily): then no `z` cells hit them all.
#[inline]
pub fn disjoint_sets_exceed(socket_t: &[Mask27], open: Sockets, z: usize) -> bool {
    if (open.count_ones() as usize) <= z {
        return false;
    }
    let (mut union, mut disjoint, mut sockets) = (0u32, 0usize, open);
    while sockets != 0 {
        let t = socket_t[sockets.trailing_zeros() as usize];
        sockets &= sockets - 1;
        if t & union == 0 {
            union |= t;
            disjoint += 1;
            if disjoint > z {
                return true;
            }
        }
    }
    false
}

/// Whether some set of at most `left` more cells, added to `clues` and
/// avoiding `excluded`, hits every set of `required` (`arena` is scratch
/// space).
///
/// Branches on the unhit set with the fewest cells left, and gives up as
/// soon as a lower bound on the clues still needed exceeds `left`: the
/// larger of the number of pairwise disjoint unhit sets (greedy) and the
/// exact need of the unhit sets that lie inside one mini-row each (the
/// mini-rows are disjoint, so their needs add up). When either bound
/// equals `left`, the clues must all lie in the cells it counts (the
/// mini-rows, or the disjoint sets), and every set is cut to them.
pub fn can_hit(
    required: &[Mask27],
    clues: Mask27,
    excluded: Mask27,
    left: usize,
    arena: &mut Vec<Mask27>,
) -> bool {
    hitting_set(required, clues, excluded, left, arena).is_some()
}

/// [`can_hit`] with the set found: `clues` and at most `left` more cells
/// that hit every set of `required`.
pub fn hitting_set(
    required: &[Mask27],
    clues: Mask27,
    excluded: Mask27,
    left: usize,
    arena: &mut Vec<Mask27>,
) -> Option<Mask27> {
    // The unhit sets, cut to the cells still allowed; each node of the
    // search writes its children's (shorter) lists after its own.
    // (Only grown: every node writes a list before reading it.)
    let room = (required.len() + crate::bits::CUT_SLACK) * (left + 1);
    if arena.len() < room {
        arena.resize(room, 0);
    }
    let mut len = 0;
    for &t in required {
        if t & clues == 0 {
            let avail = t & !excluded;
            if avail == 0 {
                return None;
            }
            arena[len] = avail;
            len += 1;
        }
    }
    hit_node(arena, len, clues, left)
}

/// One node of [`hitting_set`]: `arena[..len]` holds the unhit sets (cut to
/// the cells allowed, none empty), the rest is room for the children.
fn hit_node(arena: &mut [Mask27], len: usize, clues: Mask27, left: usize) -> Option<Mask27> {
    let (list, rest) = arena.split_at_mut(len);
    if list.is_empty() {
        return Some(clues);
    }
    if left <= 1 {
        // One cell left (or none): it must lie in every unhit set.
        let common = list.iter().fold(!0, |m, &t| m & t);
        return (left == 1 && common != 0).then(|| clues | (common & common.wrapping_neg()));
    }
    let scan = crate::bits::node_scan(list, left)?;
    let (mut best, union, disjoint) = (scan.best, scan.union, scan.disjoint);
    let bound = MiniRowBound {
        family: scan.family,
    };
    let need = bound.clues();
    if need > left {
        return None;
    }
    // Critical cuts: when the mini-rows that need clues take them all, only
    // their cells can be clues; when the disjoint sets take them all (one
    // each), only their cells can be. A set left without such cells is dead.
    let mut field = if need == left { bound.cells() } else { !0 };
    if disjoint == left {
        field &= union;
    }
    if field != !0 {
        best = crate::bits::cut_scan(list, field)?;
    }
    let mut excluded = 0;
    let mut branch = best;
    while branch != 0 {
        let cell = branch & branch.wrapping_neg();
        branch &= branch - 1;
        if left == 2 {
            // One cell left after this one: it must lie in every set this
            // cell misses (no list for the child).
            let (mut common, mut unhit, mut empty) = (!0, false, false);
            for &t in list.iter() {
                let missed = t & cell == 0;
                let avail = t & !excluded;
                common &= if missed { avail } else { !0 };
                unhit |= missed;
                empty |= missed & (avail == 0);
            }
            if empty {
                return None;
            }
            if !unhit {
                return Some(clues | cell);
            }
            if common != 0 {
                return Some(clues | cell | (common & common.wrapping_neg()));
            }
            excluded |= cell;
            continue;
        }
        // None: a set unhit here and in every later branch.
        let n = crate::bits::unhit_cut(list, (cell, excluded), rest)?;
        if let Some(found) = hit_node(rest, n, clues | cell, left - 1) {
            return Some(found);
        }
        excluded |= cell;
    }
    None
}

/// For a family of non-empty subsets of 3 cells (bit s - 1 set when subset
/// s, a 3-bit mask, is in it): the fewest cells that hit them all.
pub(super) const MIN_HIT: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut family = 0;
    while family < 128 {
        let mut best = 3u8;
        let mut cells = 0;
        while cells < 8 {
            let mut hits_all = true;
            let mut s = 1;
            while s < 8 {
                if family & (1 << (s - 1)) != 0 && s & cells == 0 {
                    hits_all = false;
                }
                s += 1;
            }
            let n = (cells & 1) + (cells >> 1 & 1) + (cells >> 2 & 1);
            if hits_all && (n as u8) < best {
                best = n as u8;
            }
            cells += 1;
        }
        t[family] = best;
        family += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::cells;

    /// Every set of at most `k` cells of `allowed`, by brute force.
    fn brute(required: &[Mask27], clues: Mask27, allowed: Mask27, k: usize) -> bool {
        fn go(required: &[Mask27], chosen: Mask27, allowed: Mask27, k: usize) -> bool {
            if required.iter().all(|&t| t & chosen != 0) {
                return true;
            }
            if k == 0 {
                return false;
            }
            let mut cells = allowed;
            while cells != 0 {
                let cell = cells & cells.wrapping_neg();
                cells &= cells - 1;
                // Cells in increasing order: each set tried once.
                if go(required, chosen | cell, cells, k - 1) {
                    return true;
                }
            }
            false
        }
        go(required, clues, allowed, k)
    }

    #[test]
    fn can_hit_agrees_with_brute_force() {
        let mut rng = fastrand::Rng::with_seed(5);
        let (mut yes, mut no, mut critical, mut packed) = (0, 0, 0, 0);
        for _ in 0..3000 {
            let mut required = Vec::new();
            for _ in 0..rng.usize(1..14) {
                let t = if rng.bool() {
                    // Inside one mini-row: 2 or 3 of its cells.
                    let (row, stack) = (rng.u32(0..3), rng.u32(0..3));
                    let local = [0b011, 0b101, 0b110, 0b111][rng.usize(0..4)];
                    local << (9 * row + 3 * stack)
                } else {
                    (0..rng.u32(2..7)).fold(0, |m, _| m | 1 << rng.u32(0..27))
                };
                required.push(t);
            }
            let clues = if rng.u8(..) < 40 {
                1 << rng.u32(0..27)
            } else {
                0
            };
            let excluded = (0..rng.u32(0..4)).fold(0, |m, _| m | 1 << rng.u32(0..27)) & !clues;
            let left = rng.usize(0..5);
            let expected = brute(
                &required,
                clues,
                crate::bits::BAND_FULL & !excluded & !clues,
                left,
            );
            assert_eq!(
                can_hit(&required, clues, excluded, left, &mut Vec::new()),
                expected,
                "{required:x?} clues {clues:#x} excluded {excluded:#x} left {left}"
            );
            if let Some(set) = hitting_set(&required, clues, excluded, left, &mut Vec::new()) {
                assert!(required.iter().all(|&t| t & set != 0));
                assert_eq!(set & clues, clues);
                assert_eq!(set & excluded, 0);
                assert!((set & !clues).count_ones() as usize <= left);
            }
            if expected {
                yes += 1
            } else {
                no += 1
            }
            // Cases where the mini-rows need every clue left, or the
            // disjoint sets take them all (the critical cuts of
            // `hit_node`), must come up.
            let mut bound = MiniRowBound::default();
            let (mut union, mut disjoint) = (0, 0);
            for &t in required.iter().filter(|&&t| t & clues == 0) {
                bound.add(t & !excluded);
                if t & !excluded & union == 0 {
                    union |= t & !excluded;
                    disjoint += 1;
                }
            }
            critical += (left >= 2 && bound.clues() == left) as usize;
            packed += (left >= 2 && disjoint == left) as usize;
        }
        assert!(yes > 300 && no > 300, "{yes} feasible, {no} not");
        assert!(critical > 100, "only {critical} critical cases");
        assert!(
            packed > 100,
            "only {packed} cases with as many disjoint sets as clues"
        );
    }

    #[test]
    fn mini_row_bound_is_exact_on_mini_row_sets() {
        let mut rng = fastrand::Rng::with_seed(13);
        for _ in 0..2000 {
            let sets: Vec<Mask27> = (0..rng.usize(0..8))
                .map(|_| (0..rng.u32(1..5)).fold(0, |m, _| m | 1 << rng.u32(0..27)))
                .collect();
            let mut bound = MiniRowBound::default();
            let (mut inside, mut rows) = (Vec::new(), 0);
            for &t in &sets {
                bound.add(t);
                // Inside one mini-row: every cell has the same c / 3.
                let r = t.trailing_zeros() / 3;
                let is_inside = cells(t).all(|c| c as u32 / 3 == r);
                assert_eq!(MiniRowBound::bit(t) != 0, is_inside, "{t:#x}");
                if is_inside {
                    inside.push(t);
                    rows |= 0b111 << (3 * r);
                }
            }
            assert_eq!(bound.cells(), rows);
            let need = bound.clues();
            assert!(brute(&inside, 0, crate::bits::BAND_FULL, need));
            assert!(need == 0 || !brute(&inside, 0, crate::bits::BAND_FULL, need - 1));
        }
    }

    #[test]
    fn min_hit_table_by_hand() {
        assert_eq!(MIN_HIT[0], 0);
        // {a, b} alone: one cell.
        assert_eq!(MIN_HIT[1 << (0b011 - 1)], 1);
        // The three pairs of a mini-row: two cells.
        assert_eq!(MIN_HIT[(1 << 2) | (1 << 4) | (1 << 5)], 2);
        // Three single cells: three.
        assert_eq!(MIN_HIT[(1 << 0) | (1 << 1) | (1 << 3)], 3);
        // {a} and {b, c}: two.
        assert_eq!(MIN_HIT[(1 << 0) | (1 << 5)], 2);
    }
}
