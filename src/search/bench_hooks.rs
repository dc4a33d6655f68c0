//! Entry points into the stages of the search for `benches/search.rs`.
//! Not a supported API: they exist so that the hot parts can be timed alone
//! on real data.

use super::{BandSets, Counts, Row, RunState, Searcher};
use crate::bits::Mask54;
use crate::grid::{Grid, Puzzle};

/// The X and Y vectors (4 words each) of the step with the most pairs in
/// the costly row (fewest clues in band 3) of the first band-3 choice of
/// `grid` (as given). Panics when that row has no step of 4 words, rather
/// than give nothing to time.
pub fn recorded_step<B: AsRef<[u8]> + Sync>(
    searcher: &Searcher<'_, B>,
    grid: &Grid,
) -> (Vec<[u64; 4]>, Vec<[u64; 4]>) {
    let (ids, mut plan) = searcher.plan_of(grid).expect("band tables");
    let choice = plan.remove(0);
    let row = *choice.rows.iter().min_by_key(|r| r.z).expect("a row");
    let mut state = searcher.prepare_choice(grid, &choice);
    state.bands12.hooks.record_step = Some((0, Vec::new(), Vec::new()));
    let xsets = BandSets::for_band(
        searcher.catalogue,
        searcher.tables,
        &ids[choice.bands[0]],
        row.x,
    );
    let ysets = BandSets::for_band(
        searcher.catalogue,
        searcher.tables,
        &ids[choice.bands[1]],
        row.y,
    );
    state.run_row(
        &Row::single(Counts {
            x: xsets.size,
            y: ysets.size,
            z: row.z,
        }),
        &xsets,
        &ysets,
    );
    let (_, vx, vy) = state
        .bands12
        .hooks
        .record_step
        .take()
        .expect("recording was on");
    assert!(!vx.is_empty(), "no step of 4 words in row {row:?}");
    let four = |v: Vec<u64>| v.as_chunks::<4>().0.to_vec();
    (four(vx), four(vy))
}

/// Band 3 and the final checks for the bands-1+2 part of a 17 of a grid:
/// [`Band3Case::run`] enumerates band 3 from a fresh state each time.
pub struct Band3Case {
    state: RunState,
    xy: Mask54,
    z: usize,
}

impl Band3Case {
    /// `None` when `p` is not a 17 of `grid` that the plan covers.
    pub fn new<B: AsRef<[u8]> + Sync>(
        searcher: &Searcher<'_, B>,
        grid: &Grid,
        p: &Puzzle,
    ) -> Option<Self> {
        let (choice, counts, cells) = searcher.locate(grid, p)?;
        Some(Band3Case {
            state: searcher.prepare_choice(grid, &choice),
            xy: cells as u64 & crate::bits::BANDS12_FULL,
            z: counts.z,
        })
    }

    /// Runs band 3 for the XY; returns the 17s found (the puzzle's own among them).
    pub fn run(mut self) -> usize {
        self.state.band3_mut().solve_band3(self.xy, self.z);
        self.state.band3().found().len()
    }
}
