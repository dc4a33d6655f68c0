//! The search plan for one grid (ARCHITECTURE.md): which band plays band 3,
//! and which clue counts (x, y, z) each choice searches, so that every 17 of
//! the grid is found by exactly one (choice, row) pair.
//!
//! Bands are ranked by cost (their number of valid 6-clue sets; ties by
//! position): `lo`, `mid`, `hi`. A 17 with clue counts per band takes as
//! band 3 the highest-ranked band with at least 7 clues, or, when the counts
//! are 6-6-5, the highest-ranked band with 6 clues.

/// Rank of a band in the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rank {
    Lo,
    Mid,
    Hi,
}

/// One band-3 choice: the grid bands (0..3) that play band 1 (the X band),
/// band 2 (the Y band) and band 3, and the clue counts to search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// Which ranked band is band 3.
    pub band3_rank: Rank,
    /// Grid band indices (0..3) for bands 1, 2, 3 of this search.
    pub bands: [usize; 3],
    /// The (x, y, z) clue counts of bands 1, 2, 3, each summing to 17,
    /// in the order they are searched: z from the largest down (then x
    /// upwards). The rows with a large z have few clues in bands 1+2 and
    /// are cheap, and their failed bands-1+2 checks give many fresh UA12;
    /// the expensive z = 6 rows, searched last, start with those.
    pub rows: Vec<Counts>,
}

/// Clue counts of bands 1, 2 and 3 in one row of the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Counts {
    pub x: usize,
    pub y: usize,
    pub z: usize,
}

/// The order in which a choice's rows are searched, as a sort key: z from
/// the largest down, then x upwards (see [`Choice::rows`]).
pub fn search_order(row: &Counts) -> (std::cmp::Reverse<usize>, usize) {
    (std::cmp::Reverse(row.z), row.x)
}

/// Total number of clues of the puzzles we look for.
pub const CLUES: usize = 17;

/// Ranks three bands by cost (ties by position): returns the grid band
/// indices ordered lo, mid, hi.
pub fn rank_bands(cost: [u64; 3]) -> [usize; 3] {
    let mut order = [0, 1, 2];
    order.sort_by_key(|&b| (cost[b], b));
    order
}

/// Which ranked band is band 3 for a 17 with clue counts `counts` (indexed
/// by rank lo, mid, hi), following the rule above.
pub fn band3_for(counts: [usize; 3]) -> Rank {
    let ranks = [Rank::Lo, Rank::Mid, Rank::Hi];
    if let Some(r) = (0..3).rev().find(|&r| counts[r] >= 7) {
        return ranks[r];
    }
    let r = (0..3)
        .rev()
        .find(|&r| counts[r] == 6)
        .expect("a 17 has a band with 6+ clues");
    ranks[r]
}

/// True when the row (clue counts by rank lo, mid, hi) belongs to the
/// search with band 3 = `rank`.
fn belongs(rank: Rank, by_rank: [usize; 3]) -> bool {
    by_rank.iter().sum::<usize>() == CLUES && band3_for(by_rank) == rank
}

/// The full plan for a grid whose bands have the given costs and minimum
/// valid clue-set sizes (indexed by grid band). Rows whose counts are below
/// a band's minimum are left out (no valid clue set exists there).
pub fn plan(cost: [u64; 3], min_size: [usize; 3]) -> Vec<Choice> {
    let order = rank_bands(cost);
    let mut choices = Vec::new();
    for (band3_rank, x_rank, y_rank) in [
        (Rank::Hi, Rank::Lo, Rank::Mid),
        (Rank::Mid, Rank::Lo, Rank::Hi),
        (Rank::Lo, Rank::Mid, Rank::Hi),
    ] {
        let bands = [
            order[x_rank as usize],
            order[y_rank as usize],
            order[band3_rank as usize],
        ];
        let mut rows = Vec::new();
        // Largest z first (see `Choice::rows`): 0.56 → 0.50 s per random
        // grid (benches/HISTORY.md).
        for z in (0..=CLUES).rev() {
            for x in 0..=CLUES - z {
                let y = CLUES - z - x;
                let mut by_rank = [0; 3];
                by_rank[x_rank as usize] = x;
                by_rank[y_rank as usize] = y;
                by_rank[band3_rank as usize] = z;
                let possible =
                    x >= min_size[bands[0]] && y >= min_size[bands[1]] && z >= min_size[bands[2]];
                if possible && belongs(band3_rank, by_rank) {
                    rows.push(Counts { x, y, z });
                }
            }
        }
        choices.push(Choice {
            band3_rank,
            bands,
            rows,
        });
    }
    choices
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranking_breaks_ties_by_position() {
        assert_eq!(rank_bands([5, 1, 9]), [1, 0, 2]);
        assert_eq!(rank_bands([3, 3, 3]), [0, 1, 2]);
        assert_eq!(rank_bands([7, 3, 3]), [1, 2, 0]);
    }

    #[test]
    fn every_distribution_is_searched_exactly_once() {
        // With no minimum, every split of 17 over three bands must appear in
        // exactly one row of exactly one choice (checked by brute force over
        // all splits, independently of how `plan` builds its rows).
        let cost = [10, 30, 20];
        let choices = plan(cost, [0, 0, 0]);
        let order = rank_bands(cost);
        for a in 0..=17 {
            for b in 0..=17 - a {
                let by_band = [a, b, 17 - a - b];
                let mut hits = 0;
                for choice in &choices {
                    for row in &choice.rows {
                        let mut mine = [0; 3];
                        mine[choice.bands[0]] = row.x;
                        mine[choice.bands[1]] = row.y;
                        mine[choice.bands[2]] = row.z;
                        if mine == by_band {
                            hits += 1;
                        }
                    }
                }
                assert_eq!(
                    hits, 1,
                    "split {by_band:?} searched {hits} times (order {order:?})"
                );
            }
        }
    }

    #[test]
    fn rows_come_largest_z_first_so_the_z6_rows_come_last() {
        for choice in plan([1, 2, 3], [2, 2, 2]) {
            let keys: Vec<_> = choice.rows.iter().map(search_order).collect();
            assert!(keys.is_sorted(), "{:?}", choice.rows);
            assert!(keys.windows(2).all(|w| w[0] != w[1]), "{:?}", choice.rows);
        }
        let hi = &plan([1, 2, 3], [3, 3, 3])[0];
        assert_eq!(
            hi.rows[hi.rows.len() - 2..],
            [Counts { x: 5, y: 6, z: 6 }, Counts { x: 6, y: 5, z: 6 }]
        );
    }

    #[test]
    fn rows_follow_the_spec_table() {
        let choices = plan([1, 2, 3], [2, 2, 2]);
        let hi = &choices[0];
        assert_eq!(hi.bands, [0, 1, 2]);
        assert!(hi.rows.contains(&Counts { x: 5, y: 6, z: 6 }));
        assert!(hi.rows.contains(&Counts { x: 6, y: 5, z: 6 }));
        assert!(hi.rows.contains(&Counts { x: 8, y: 2, z: 7 }));
        assert!(!hi.rows.contains(&Counts { x: 6, y: 6, z: 5 }));
        assert!(hi.rows.iter().all(|r| r.z >= 6));
        let mid = &choices[1];
        assert_eq!(mid.bands, [0, 2, 1]);
        assert!(mid.rows.contains(&Counts { x: 6, y: 5, z: 6 }));
        assert!(
            mid.rows
                .iter()
                .all(|r| r.y <= 6 && (r.z >= 7 || (r.x, r.y) == (6, 5)))
        );
        let lo = &choices[2];
        assert_eq!(lo.bands, [1, 2, 0]);
        assert!(lo.rows.iter().all(|r| r.x <= 6 && r.y <= 6 && r.z >= 7));
        // Minimum sizes remove impossible rows.
        let strict = plan([1, 2, 3], [6, 2, 2]);
        assert!(strict.iter().all(|c| c.rows.iter().all(|r| {
            let mut m = [0; 3];
            m[c.bands[0]] = r.x;
            m[c.bands[1]] = r.y;
            m[c.bands[2]] = r.z;
            m[0] >= 6
        })));
    }
}
