//! The search plan for one grid (ARCHITECTURE.md): which band plays band 3,
//! and which clue counts (x, y, z) each choice searches, so that every
//! puzzle of N clues of the grid is found by exactly one (choice, row) pair.
//!
//! Bands are ranked by cost (their number of valid 6-clue sets; ties by
//! position): `lo`, `mid`, `hi`. A puzzle with clue counts per band takes as
//! band 3 the highest-ranked band with at least 7 clues, or, when no band
//! has 7, the highest-ranked band among those with the most clues (for a
//! 17, counts 6-6-5: the highest-ranked band with 6).
//!
//! The ranking belongs to the grid, not to a puzzle. A 17 puts c_lo, c_mid,
//! c_hi clues in the ranked bands, 17 in all; since three bands of at most 5
//! clues hold only 15, some band has 6 or more. Choice c searches bands 1 and
//! 2 = the other two bands, lower rank first, and its **rows** are the count
//! triples (x, y, z) (x clues in band 1, y in band 2, z in band 3) that the
//! rule gives to c. For 17:
//!
//! ```text
//! band 3  bands 1, 2  rows (x, y, z)
//! hi      lo, mid     z ≥ 7 (any x + y = 17 − z); or z = 6 and (x, y) is (5, 6) or (6, 5)
//! mid     lo, hi      z ≥ 7 and y ≤ 6; or z = 6 and (x, y) = (6, 5)
//! lo      mid, hi     z ≥ 7, x ≤ 6 and y ≤ 6
//! ```
//!
//! # Why this is an exact partition
//!
//! The rule is a function of the count triple and the ranking, so each
//! puzzle of the grid gets exactly one band 3. [`plan`] does not transcribe
//! the table: it goes through every triple summing to N and gives choice c
//! exactly the triples the rule assigns to c (`belongs`). So the rows of the
//! three choices are disjoint and together hold every triple, and each puzzle
//! lies in exactly one row of exactly one choice: results need no
//! de-duplication, and nothing depends on facts about 17s (such as "no band
//! of a 17 has 2 clues"). The only rows left out are those where a count is
//! below that band's smallest valid clue set, which no puzzle has (its clues
//! in a band are a valid band clue set: ARCHITECTURE.md, "Why the pipeline is
//! sound", step 1). The test `every_distribution_is_searched_exactly_once`
//! checks the partition by brute force: each of the 171 triples summing to 17
//! lies in exactly one row of one choice, counted without the rule;
//! `rows_follow_the_spec_table` checks the table above. The expensive band
//! (hi) is only ever expanded with at most 6 clues. The transposed grid has
//! its own ranking and its own partition, which is why the search may pick
//! the cheaper orientation.
//!
//! A choice searches its rows on one state, **largest z first** (then x
//! upwards, [`search_order`]), so the expensive z = 6 rows come last: the
//! rows with a large z have few clues in bands 1+2 and cost little, but many
//! of their XY that pass band 3 are not unique for bands 1+2, and each such
//! failed check gives a fresh UA12 that the z = 6 rows then use from their
//! start. The order cannot change what is found: every row is searched
//! whole, and every fresh UA is genuine. `exhaust` orders an entry's rows the
//! same way.
//!
//! For orientation only: the known 17s split by band clue counts as about
//! 6-6-5 55 %, 7-5-5 26 %, 7-6-4 17 %, 8-5-4 1.6 %, and a few dozen each of
//! 7-7-3, 8-6-3 and 9-4-4.
//!
//! # Any clue count N
//!
//! [`plan_for`] takes the clue total N (in [`CLUE_RANGE`]; [`plan`] is
//! N = 17). The rule generalises as stated above: for N = 18 the counts
//! 6-6-6 give band 3 = hi; for N = 16, 6-5-5 and 6-6-4; N = 19, 20 and 21
//! always have a band of 7 (6 + 6 + 6 = 18). For 17 the rows stay the same
//! (`the_17_rows_are_the_table_of_the_17_search` compares them with the
//! table). The partition is exact for the same reason, and
//! `every_triple_of_every_clue_count_is_searched_exactly_once` checks it by
//! brute force for every N of [`CLUE_RANGE`] (16 to 21), under every
//! ranking of the bands, on every triple of counts summing to N (each 0 to
//! N). Again hi is never expanded with more than 6
//! clues (a band of 7 or more that is highest-ranked is band 3). Bands 1 and
//! 2 then need valid sets of 7 cells and more (up to N − 7 − the other
//! band's minimum): `search::BandSets::for_band` builds any size above 6
//! from the band's minimal UAs (`band::valid_sets`), and a grid's search
//! keeps each band's sets of each size once built (`search::GridSets`),
//! shared by its choices and rows; the test
//! `grid_sets_of_7_and_8_are_exactly_the_valid_sets_of_brute_force` checks
//! them against the solver.

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
    /// The (x, y, z) clue counts of bands 1, 2, 3, each summing to N,
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

/// Total number of clues of the puzzles we look for, unless told otherwise
/// ([`plan_for`]).
pub const CLUES: usize = 17;

/// The clue totals a search may look for (`--clues`): below 16 no puzzle
/// exists; 21 is the largest lowest clue count known of any grid (four
/// grids have a 21 and no 20), so `s17 lowest` settles every grid known.
/// Nothing in the plan stops at 21: a larger N only builds larger valid
/// sets of bands 1 and 2.
pub const CLUE_RANGE: std::ops::RangeInclusive<usize> = 16..=21;

/// Ranks three bands by cost (ties by position): returns the grid band
/// indices ordered lo, mid, hi.
pub fn rank_bands(cost: [u64; 3]) -> [usize; 3] {
    let mut order = [0, 1, 2];
    order.sort_by_key(|&b| (cost[b], b));
    order
}

/// Which ranked band is band 3 for a puzzle with clue counts `counts`
/// (indexed by rank lo, mid, hi), following the rule above: the
/// highest-ranked band with 7 or more clues, else the highest-ranked band
/// among those with the most clues.
pub fn band3_for(counts: [usize; 3]) -> Rank {
    let ranks = [Rank::Lo, Rank::Mid, Rank::Hi];
    if let Some(r) = (0..3).rev().find(|&r| counts[r] >= 7) {
        return ranks[r];
    }
    let most = counts.iter().max().copied().unwrap_or_default();
    let r = (0..3)
        .rev()
        .find(|&r| counts[r] == most)
        .expect("three counts");
    ranks[r]
}

/// True when the row (clue counts by rank lo, mid, hi) belongs to the
/// search for `clues` clues with band 3 = `rank`.
fn belongs(rank: Rank, by_rank: [usize; 3], clues: usize) -> bool {
    by_rank.iter().sum::<usize>() == clues && band3_for(by_rank) == rank
}

/// The plan of the 17 search ([`plan_for`] with [`CLUES`]).
pub fn plan(cost: [u64; 3], min_size: [usize; 3]) -> Vec<Choice> {
    plan_for(cost, min_size, CLUES)
}

/// The full plan for puzzles of `clues` clues of a grid whose bands have
/// the given costs and minimum valid clue-set sizes (indexed by grid band).
/// Rows whose counts are below a band's minimum are left out (no valid
/// clue set exists there).
pub fn plan_for(cost: [u64; 3], min_size: [usize; 3], clues: usize) -> Vec<Choice> {
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
        for z in (0..=clues).rev() {
            for x in 0..=clues - z {
                let y = clues - z - x;
                let mut by_rank = [0; 3];
                by_rank[x_rank as usize] = x;
                by_rank[y_rank as usize] = y;
                by_rank[band3_rank as usize] = z;
                let possible =
                    x >= min_size[bands[0]] && y >= min_size[bands[1]] && z >= min_size[bands[2]];
                if possible && belongs(band3_rank, by_rank, clues) {
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

    /// Where the triple `by_band` (clue counts indexed by grid band) lies in
    /// `choices`: the number of (choice, row) pairs holding it.
    fn times_searched(choices: &[Choice], by_band: [usize; 3]) -> usize {
        choices
            .iter()
            .flat_map(|c| c.rows.iter().map(move |r| (c.bands, r)))
            .filter(|(bands, r)| {
                let mut mine = [0; 3];
                mine[bands[0]] = r.x;
                mine[bands[1]] = r.y;
                mine[bands[2]] = r.z;
                mine == by_band
            })
            .count()
    }

    #[test]
    fn every_triple_of_every_clue_count_is_searched_exactly_once() {
        // For every N of the range (16 to 21) and every ranking of the bands
        // (the 6 orders of three distinct costs, and ties), each triple of
        // band clue counts summing to N lies in exactly one row of one
        // choice.
        let mut costs = vec![[5, 5, 5]];
        for a in 0..3u64 {
            for b in (0..3).filter(|&b| b != a) {
                costs.push([a, b, 3 - a - b].map(|k| 10 * (k + 1)));
            }
        }
        assert_eq!(costs.len(), 7);
        for clues in CLUE_RANGE {
            for &cost in &costs {
                let choices = plan_for(cost, [0, 0, 0], clues);
                for row in choices.iter().flat_map(|c| &c.rows) {
                    assert_eq!(row.x + row.y + row.z, clues, "{row:?}");
                }
                for a in 0..=clues {
                    for b in 0..=clues - a {
                        let c = clues - a - b;
                        let by_band = [a, b, c];
                        let hits = times_searched(&choices, by_band);
                        assert_eq!(hits, 1, "N = {clues}, costs {cost:?}: {by_band:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_17_rows_are_the_table_of_the_17_search() {
        // The rows for 17, written from the table of the module note (not
        // from the rule): hi takes z >= 7, or z = 6 with (x, y) = (5, 6)
        // or (6, 5); mid takes z >= 7 with y <= 6, or (6, 5, 6); lo takes
        // z >= 7 with x, y <= 6. Same rows, same order, for every minimum.
        let table = |rank: Rank, r: &Counts| match rank {
            Rank::Hi => r.z >= 7 || (r.z == 6 && matches!((r.x, r.y), (5, 6) | (6, 5))),
            Rank::Mid => (r.z >= 7 && r.y <= 6) || (r.z, r.x, r.y) == (6, 6, 5),
            Rank::Lo => r.z >= 7 && r.x <= 6 && r.y <= 6,
        };
        for min_size in [[0, 0, 0], [2, 2, 2], [3, 4, 2], [4, 4, 4], [2, 5, 3]] {
            let choices = plan_for([4, 9, 1], min_size, 17);
            assert_eq!(choices, plan([4, 9, 1], min_size));
            for choice in &choices {
                let mut rows: Vec<Counts> = (0..=17)
                    .flat_map(|x| {
                        (0..=17 - x).map(move |y| Counts {
                            x,
                            y,
                            z: 17 - x - y,
                        })
                    })
                    .filter(|r| table(choice.band3_rank, r))
                    .filter(|r| {
                        r.x >= min_size[choice.bands[0]]
                            && r.y >= min_size[choice.bands[1]]
                            && r.z >= min_size[choice.bands[2]]
                    })
                    .collect();
                rows.sort_by_key(search_order);
                assert_eq!(choice.rows, rows, "{:?}", choice.band3_rank);
            }
        }
    }

    #[test]
    fn the_rule_for_n_takes_a_band_of_7_else_the_largest_count() {
        use Rank::*;
        assert_eq!(band3_for([6, 6, 5]), Mid);
        assert_eq!(band3_for([6, 6, 6]), Hi);
        assert_eq!(band3_for([6, 5, 5]), Lo);
        assert_eq!(band3_for([6, 4, 6]), Hi);
        assert_eq!(band3_for([8, 7, 3]), Mid);
        assert_eq!(band3_for([9, 4, 6]), Lo);
        // N = 18 without a band of 7 is 6-6-6, band 3 = hi.
        let hi = &plan_for([1, 2, 3], [2, 2, 2], 18)[0];
        assert_eq!(hi.rows.last(), Some(&Counts { x: 6, y: 6, z: 6 }));
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
