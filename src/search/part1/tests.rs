//! Tests of part 1's pieces: the hitting-set helpers it and band 3
//! use, the selection of the X and Y of a step, and the survivors' index
//! of the sets beyond the vector limit.

#[cfg(test)]
mod can_hit_tests {
    use super::super::step::{cell_bits, select_hitting};
    use crate::bits::Mask27;
    use crate::bits::cells27;
    use crate::search::hitting::*;

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
                let is_inside = cells27(t).all(|c| c as u32 / 3 == r);
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
    fn select_hitting_keeps_exactly_the_sets_that_hit_everything() {
        let mut rng = fastrand::Rng::with_seed(8);
        let mut out = Vec::new();
        for _ in 0..500 {
            let set =
                |rng: &mut fastrand::Rng, k: u32| (0..k).fold(0, |m, _| m | 1 << rng.u32(0..27));
            let rest: Vec<Mask27> = (0..rng.usize(0..200)).map(|_| set(&mut rng, 6)).collect();
            let must: Vec<Mask27> = (0..rng.usize(0..6)).map(|_| set(&mut rng, 5)).collect();
            let mut bits = vec![7]; // cell_bits appends
            cell_bits(&rest, &mut bits);
            select_hitting(&bits[1..], rest.len(), &must, &mut out);
            let expected: Vec<u32> = (0..rest.len() as u32)
                .filter(|&i| must.iter().all(|&m| m & rest[i as usize] != 0))
                .collect();
            assert_eq!(out, expected, "rest {rest:x?} must {must:x?}");
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

#[cfg(test)]
mod extra_tests {
    use super::super::step::StepSets;
    use crate::bits::{BANDS12_FULL, Mask54};

    /// A random subset of `cells`, each cell kept with probability
    /// `keep` in 64ths.
    fn subset(rng: &mut fastrand::Rng, cells: Mask54, keep: u64) -> Mask54 {
        (0..54)
            .filter(|&c| cells >> c & 1 != 0 && rng.u64(0..64) < keep)
            .fold(0, |m, c| m | 1 << c)
    }

    /// The survivors' index of the sets beyond the vector limit answers
    /// exactly as the list does: for lists shorter and longer than the
    /// index (whose tail is read as a list), with sets added after the
    /// index was built (fresh UA12 of the step), for XY with and without
    /// cells outside the step's cells (its pairs, which the sets miss);
    /// and a set that misses every cell of the step ends the step.
    #[test]
    fn extra_index_agrees_with_the_list() {
        let mut rng = fastrand::Rng::with_seed(23);
        let (mut hit, mut missed, mut dead) = (0, 0, 0);
        for round in 0..600 {
            // Pair cells (no set holds them) and the step's other cells.
            let pairs = subset(&mut rng, BANDS12_FULL, 3);
            let used = subset(&mut rng, BANDS12_FULL & !pairs, 40);
            let n = [0, 1, 63, 64, 65, 300, 512, 513, 700][round % 9];
            let mut sets = StepSets::default();
            for _ in 0..n {
                let keep = rng.u64(1..12);
                let mut u = subset(&mut rng, BANDS12_FULL & !pairs, keep);
                if u & used == 0 && rng.u64(0..8) != 0 {
                    u |= 1 << (used | 1).trailing_zeros();
                }
                sets.extra.push(u & !pairs);
            }
            let alive = sets.extra.iter().all(|&u| u & used != 0);
            assert_eq!(sets.index_extra(used), alive, "round {round}");
            if !alive {
                dead += 1;
                continue;
            }
            for _ in 0..rng.usize(0..3) {
                sets.extra.push(subset(&mut rng, BANDS12_FULL, 6) | 1);
            }
            for _ in 0..200 {
                let keep = rng.u64(4..64);
                let xy = subset(&mut rng, used, keep) | pairs;
                let expected = sets.extra.iter().all(|&u| u & xy != 0);
                assert_eq!(sets.extra_hit(xy), expected, "round {round}, xy {xy:#x}");
                if expected { hit += 1 } else { missed += 1 }
            }
        }
        assert!(
            hit > 5000 && missed > 5000 && dead > 20,
            "{hit} {missed} {dead}"
        );
    }
}
