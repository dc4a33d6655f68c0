//! The walk of one band 2 as it was before the batched one: candidate by
//! candidate, each stack class cached on first meeting (216 cases a
//! stack), band 3's class looked up alone. The tests compare the two.

use super::*;
use crate::ed::fill::for_each_band3;

impl Walker {
    /// The walk of one band 2 as it was: candidate by candidate (the
    /// reference of the tests and timings).
    pub(crate) fn walk_band2_simple(
        &self,
        b: usize,
        row4: &[u8; 9],
        band2: &Band2,
        reverse: bool,
        visit: &mut impl FnMut(&[u8; 81]) -> Flow,
    ) -> Flow {
        let mut grid = [0u8; 81];
        grid[..27].copy_from_slice(self.catalogue.band(b));
        grid[27..36].copy_from_slice(row4);
        grid[36..54].copy_from_slice(&band2.rows);
        let mut bands12 = [0u8; 54];
        bands12.copy_from_slice(&grid[..54]);
        let mut stacks = StackClasses::new();
        let class2 = band2.class as usize;
        if reverse {
            // A band 2 has a few dozen completions at most: kept, then
            // visited backward.
            let mut kept: Vec<Band> = Vec::new();
            for_each_band3(&bands12, |band3| {
                grid[54..].copy_from_slice(band3);
                if self.accepts_simple(b, class2, &grid, &mut stacks) {
                    kept.push(*band3);
                }
            });
            for band3 in kept.iter().rev() {
                grid[54..].copy_from_slice(band3);
                if visit(&grid) == Flow::Stop {
                    return Flow::Stop;
                }
            }
            return Flow::Continue;
        }
        let mut flow = Flow::Continue;
        for_each_band3(&bands12, |band3| {
            if flow == Flow::Stop {
                return;
            }
            grid[54..].copy_from_slice(band3);
            if self.accepts_simple(b, class2, &grid, &mut stacks) {
                flow = visit(&grid);
            }
        });
        flow
    }

    fn accepts_simple(
        &self,
        b: usize,
        class2: usize,
        grid: &[u8; 81],
        stacks: &mut StackClasses,
    ) -> bool {
        // The bands (rows) and stacks (columns, transposed) other than
        // band 1 with class b: each gives more images with rows 1-3 = B.
        // The stacks first: their classes are cached, band 3's is not.
        let mut ties = [(false, 0usize); 5];
        let mut n_ties = 0;
        for s in 0..3 {
            let class = stacks.class_simple(&self.index, grid, s);
            if class < b {
                return false;
            }
            if class == b {
                ties[n_ties] = (true, s);
                n_ties += 1;
            }
        }
        let mut band3 = [0u8; 27];
        band3.copy_from_slice(&grid[54..]);
        let class3 = self.index.class_of(&band3);
        if class3 < b {
            return false;
        }
        for (k, class) in [(1, class2), (2, class3)] {
            if class == b {
                ties[n_ties] = (false, k);
                n_ties += 1;
            }
        }
        // Band 1's own images: one per automorphism of B.
        if self.row_maps[b].iter().any(|map| map.beats(grid, grid)) {
            return false;
        }
        !ties[..n_ties]
            .iter()
            .any(|&(transposed, k)| self.tie_beats(b, grid, transposed, k))
    }
}

impl StackClasses {
    fn class_simple(&mut self, index: &BandIndex, grid: &[u8; 81], s: usize) -> usize {
        let mut case = 0;
        for j in 0..3 {
            let c = 3 * s + j;
            case = case * 6 + order3(grid[54 + c], grid[63 + c], grid[72 + c]);
        }
        let slot = &mut self.classes[s][case];
        if *slot == 0 {
            let mut stack = [0u8; 27];
            for j in 0..3 {
                for r in 0..9 {
                    stack[9 * j + r] = grid[9 * r + 3 * s + j];
                }
            }
            *slot = index.class_of(&stack) as u16 + 1;
        }
        *slot as usize - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::tests::committed;
    /// The batched walk of a band 2 against the candidate-by-candidate one:
    /// the same grids, and how fast each is (thread CPU time; `cargo test
    /// --release --lib catalogue::tests::band2_walks -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn band2_walks() {
        use cpu_time::ThreadTime as Instant;
        let catalogue = committed();
        let walker = catalogue.walker();
        let mut rng = fastrand::Rng::with_seed(53);
        let (mut old_ns, mut new_ns, mut grids) = (0u64, 0u64, 0u64);
        let (mut candidates, mut band2_count, mut fill_ns) = (0u64, 0u64, 0u64);
        let mut fast_fill_ns = 0u64;
        let rounds: usize = std::env::var("S17_WALKS_N")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(400);
        for _ in 0..rounds {
            // A prefix drawn in proportion to its grids.
            let k = rng.u64(..catalogue.numbered());
            let b = catalogue.starts.partition_point(|&s| s <= k) - 1;
            let table = &catalogue.table(b).unwrap().0;
            let at = k - catalogue.starts[b];
            let prefix = table.before.partition_point(|&s| s <= at) - 1;
            let row4 = table.rows4[prefix];
            let band2s = walker.band2s(b, &row4);
            let from = rng.usize(0..band2s.len());
            for band2 in &band2s[from..band2s.len().min(from + 40)] {
                let (mut a, mut n) = (Vec::new(), Vec::new());
                let simple = std::env::var_os("S17_WALKS_BATCHED_ONLY").is_none();
                let start = Instant::now();
                if simple {
                    walker.walk_band2_simple(b, &row4, band2, false, &mut |g| {
                        a.push(*g);
                        Flow::Continue
                    });
                }
                old_ns += start.elapsed().as_nanos() as u64;
                let start = Instant::now();
                walker.walk_band2(b, &row4, band2, false, &mut |g| {
                    n.push(*g);
                    Flow::Continue
                });
                new_ns += start.elapsed().as_nanos() as u64;
                if simple {
                    assert_eq!(a, n);
                }
                grids += n.len() as u64;
                let mut bands12 = [0u8; 54];
                bands12[..27].copy_from_slice(walker.catalogue().band(b));
                bands12[27..36].copy_from_slice(&row4);
                bands12[36..].copy_from_slice(&band2.rows);
                let mut listed = Vec::new();
                let start = Instant::now();
                crate::ed::fill::for_each_band3(&bands12, |band3| listed.push(*band3));
                fill_ns += start.elapsed().as_nanos() as u64;
                let mut fast = Vec::new();
                let start = Instant::now();
                band3s_under(&bands12, &mut fast);
                fast_fill_ns += start.elapsed().as_nanos() as u64;
                assert_eq!(listed, fast);
                candidates += listed.len() as u64;
                band2_count += 1;
            }
        }
        println!(
            "{grids} grids: simple {:.1} ns a grid, batched {:.1} ns a grid",
            old_ns as f64 / grids as f64,
            new_ns as f64 / grids as f64
        );
        println!(
            "{band2_count} band 2s, {candidates} candidates, their enumeration {:.1} ns a grid \
             (band3s_under {:.1} ns)",
            fill_ns as f64 / grids as f64,
            fast_fill_ns as f64 / grids as f64
        );
    }

    #[test]
    fn the_batched_band2_walk_equals_the_simple_one() {
        // Band 2s of prefixes drawn in proportion to their grids and of the
        // first bands (automorphisms, ties), both directions: the same grids.
        let catalogue = committed();
        let walker = catalogue.walker();
        let mut rng = fastrand::Rng::with_seed(5353);
        for round in 0..120 {
            let (b, prefix) = if round < 20 {
                let b = round % 8;
                let table = &catalogue.table(b).unwrap().0;
                (b, rng.usize(0..table.rows4.len()))
            } else {
                let k = rng.u64(..catalogue.numbered());
                let b = catalogue.starts.partition_point(|&s| s <= k) - 1;
                let table = &catalogue.table(b).unwrap().0;
                let at = k - catalogue.starts[b];
                (b, table.before.partition_point(|&s| s <= at) - 1)
            };
            let row4 = catalogue.table(b).unwrap().0.rows4[prefix];
            let band2s = walker.band2s(b, &row4);
            let from = rng.usize(0..band2s.len());
            for band2 in &band2s[from..band2s.len().min(from + 10)] {
                for reverse in [false, true] {
                    let (mut simple, mut batched) = (Vec::new(), Vec::new());
                    walker.walk_band2_simple(b, &row4, band2, reverse, &mut |g| {
                        simple.push(*g);
                        Flow::Continue
                    });
                    walker.walk_band2(b, &row4, band2, reverse, &mut |g| {
                        batched.push(*g);
                        Flow::Continue
                    });
                    assert_eq!(simple, batched, "band {} prefix {prefix}", b + 1);
                }
            }
        }
    }
}
