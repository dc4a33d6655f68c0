//! Tests of part 1's pieces: the selection of the X and Y of a step, and
//! the survivors' index of the sets beyond the vector limit.

#[cfg(test)]
mod select_tests {
    use super::super::step::{cell_bits, select_hitting};
    use crate::bits::Mask27;

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
