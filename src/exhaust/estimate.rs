//! The estimate of the whole ED catalogue's search time (`s17 exhaust
//! --estimate N`, the source of `data/ed-costs.tsv` that
//! [`crate::campaign::costs`] reads): a stratified sample of N random
//! entries per slice, each searched on one thread, its thread CPU time
//! scaled to the slice's entries (`data/ed-counts.tsv`).

use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::Exhauster;
use crate::ed::{Choices, Ed, Entry, counts};
use crate::search::{Searcher, ThreadClock};
use crate::tables::TableError;

/// The committed whole count (`data/ed-counts.tsv`): entries and grids
/// per slice.
pub fn slice_counts() -> Vec<(u64, u64)> {
    counts::committed()
        .iter()
        .map(|c| (c.entries, c.grids))
        .collect()
}

/// One sampled entry's costs.
#[derive(Clone, Copy, Debug)]
struct Sampled {
    k: usize,
    /// Thread CPU seconds of its `exhaust` search.
    secs: f64,
    /// ED grids whose hi visit is in the entry.
    grids: u64,
    bands3: u64,
    /// Seconds of its hi grids searched one by one (`compare`), else 0.
    one_grid: f64,
}

/// A slice's line of the estimate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SliceEstimate {
    pub k: usize,
    /// The slice's entries and ED grids (the committed count).
    pub entries: u64,
    pub grids: u64,
    /// Entries sampled, their bands 3 and hi grids.
    pub sampled: usize,
    pub bands3: u64,
    pub hi_grids: u64,
    /// The sample's CPU seconds.
    pub secs: f64,
    /// The slice's estimated seconds: mean per entry times its entries.
    pub slice_secs: f64,
    /// The sample's hi grids searched one by one (with `compare`).
    pub one_grid: f64,
}

/// The estimate over a range of slices.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    pub slices: Vec<SliceEstimate>,
    /// Estimated CPU seconds of the whole range.
    pub total: f64,
    /// ED grids of the range (the committed count).
    pub grids: u64,
    /// Entries sampled, their seconds and hi grids, and the seconds of
    /// those grids searched one by one.
    pub sampled_entries: usize,
    pub sampled_secs: f64,
    pub sampled_grids: u64,
    pub one_grid: f64,
    /// The sampling variance of `total`; `None` when a slice has fewer
    /// than two entries sampled (and is not sampled whole).
    pub variance: Option<f64>,
}

impl Estimate {
    /// Seconds per ED grid.
    pub fn per_grid(&self) -> f64 {
        self.total / self.grids.max(1) as f64
    }

    /// The standard error of [`Estimate::per_grid`], if known.
    pub fn standard_error(&self) -> Option<f64> {
        self.variance.map(|v| v.sqrt() / self.grids.max(1) as f64)
    }
}

/// The sampled entries: `n` distinct entries of each slice of `slices`
/// drawn uniformly (seeded by `seed` and the slice), or all of a slice of
/// `n` or fewer, found by walking each slice (in parallel) to its last.
pub fn sample(ed: &Ed, slices: Range<usize>, n: u64, seed: u64) -> Vec<(usize, Entry)> {
    let counts = slice_counts();
    slices
        .into_par_iter()
        .flat_map_iter(|k| {
            let entries = counts[k].0;
            let mut rng = fastrand::Rng::with_seed(seed ^ (k as u64) << 32);
            let numbers: Vec<u64> = if entries <= n {
                (0..entries).collect()
            } else {
                let mut set = BTreeSet::new();
                while (set.len() as u64) < n {
                    set.insert(rng.u64(..entries));
                }
                set.into_iter().collect()
            };
            let mut found = Vec::new();
            if let Some(&last) = numbers.last() {
                ed.for_each_entry(k, 0..last + 1, |e| {
                    if numbers.binary_search(&e.number).is_ok() {
                        found.push((k, *e));
                    }
                });
            }
            found
        })
        .collect()
}

/// Searches the sampled `jobs` (from [`sample`]) in parallel, each on one
/// thread, and, with `compare`, their hi grids one by one; `progress`
/// gets the ED grids done so far after each entry. The estimate covers
/// `slices`.
pub fn estimate<B: AsRef<[u8]> + Sync>(
    exhauster: &Exhauster<'_, B>,
    compare: Option<&Searcher<'_, B>>,
    jobs: &[(usize, Entry)],
    slices: Range<usize>,
    progress: impl Fn(u64) + Sync,
) -> Result<Estimate, TableError> {
    let grids_done = AtomicU64::new(0);
    let results: Vec<Sampled> = jobs
        .par_iter()
        .map(|(k, e)| {
            let clock = ThreadClock::start();
            let r = exhauster.search_entry(*k, e)?;
            let secs = clock.elapsed().as_secs_f64();
            let mut one_grid = 0.0;
            if let Some(searcher) = compare {
                for v in exhauster.visits(*k, e) {
                    if v.choices.contains(Choices::HI) {
                        let grid = exhauster.visit_grid(*k, e, &v.band3);
                        one_grid += searcher.search(&grid)?.cpu_time.as_secs_f64();
                    }
                }
            }
            progress(r.grids + grids_done.fetch_add(r.grids, Ordering::Relaxed));
            Ok(Sampled {
                k: *k,
                secs,
                grids: r.grids,
                bands3: r.bands3,
                one_grid,
            })
        })
        .collect::<Result<_, TableError>>()?;
    Ok(combine(&results, &slice_counts(), slices))
}

/// The estimate of `slices` from the sampled entries' costs and the
/// committed `counts`.
fn combine(results: &[Sampled], counts: &[(u64, u64)], slices: Range<usize>) -> Estimate {
    let mut estimate = Estimate {
        slices: Vec::new(),
        total: 0.0,
        grids: counts[slices.clone()].iter().map(|c| c.1).sum(),
        sampled_entries: results.len(),
        sampled_secs: 0.0,
        sampled_grids: 0,
        one_grid: 0.0,
        variance: Some(0.0),
    };
    for k in slices {
        let (entries, grids) = counts[k];
        let mine: Vec<&Sampled> = results.iter().filter(|r| r.k == k).collect();
        let secs: Vec<f64> = mine.iter().map(|r| r.secs).collect();
        let sum: f64 = secs.iter().sum();
        let slice = SliceEstimate {
            k,
            entries,
            grids,
            sampled: mine.len(),
            bands3: mine.iter().map(|r| r.bands3).sum(),
            hi_grids: mine.iter().map(|r| r.grids).sum(),
            secs: sum,
            slice_secs: if mine.is_empty() {
                0.0
            } else {
                sum / mine.len() as f64 * entries as f64
            },
            one_grid: mine.iter().map(|r| r.one_grid).sum(),
        };
        estimate.total += slice.slice_secs;
        estimate.variance = estimate
            .variance
            .zip(slice_variance(&secs, entries))
            .map(|(v, w)| v + w);
        estimate.sampled_secs += slice.secs;
        estimate.sampled_grids += slice.hi_grids;
        estimate.one_grid += slice.one_grid;
        estimate.slices.push(slice);
    }
    estimate
}

/// The sampling variance of a slice's estimate (its entries times the mean
/// of `secs`, the seconds of entries sampled uniformly without
/// replacement from its `entries`): entries² s² / n, times the share of
/// entries not sampled; `None` with fewer than two sampled.
pub fn slice_variance(secs: &[f64], entries: u64) -> Option<f64> {
    let n = secs.len();
    if n as u64 >= entries {
        // Every entry was searched.
        return Some(0.0);
    }
    if n < 2 {
        return None;
    }
    let mean = secs.iter().sum::<f64>() / n as f64;
    let s2 = secs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let entries = entries as f64;
    Some(entries * entries * s2 / n as f64 * (1.0 - n as f64 / entries))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The variance against the textbook formula on small cases, brute
    /// force over every sample: the mean of the squared errors of the
    /// slice estimate over all samples of two entries equals it.
    #[test]
    fn slice_variance_is_the_variance_of_the_estimate() {
        let all = [0.5, 1.0, 4.0, 2.5, 0.25];
        let entries = all.len() as u64;
        let total: f64 = all.iter().sum();
        let (mut squared, mut samples, mut predicted) = (0.0, 0.0, 0.0);
        for i in 0..all.len() {
            for j in i + 1..all.len() {
                let estimate = (all[i] + all[j]) / 2.0 * entries as f64;
                squared += (estimate - total).powi(2);
                predicted += slice_variance(&[all[i], all[j]], entries).unwrap();
                samples += 1.0;
            }
        }
        // The estimator of the variance is unbiased: its mean over the
        // samples is the true variance.
        assert!((squared / samples - predicted / samples).abs() < 1e-9);
        assert_eq!(slice_variance(&[1.0], 5), None);
        assert_eq!(slice_variance(&all, entries), Some(0.0));
    }

    /// A slice's line scales its sample's mean to its entries; the whole
    /// adds the slices, and a slice with one entry sampled (of more)
    /// leaves the variance unknown.
    #[test]
    fn the_estimate_scales_each_slice_sample_to_its_entries() {
        let at = |k, secs, grids| Sampled {
            k,
            secs,
            grids,
            bands3: 2 * grids,
            one_grid: 0.0,
        };
        let counts = [(10, 100), (4, 8), (3, 30)];
        let results = [at(0, 1.0, 2), at(0, 3.0, 1), at(1, 2.0, 1), at(2, 5.0, 4)];
        let e = combine(&results, &counts, 0..2);
        assert_eq!(e.slices.len(), 2);
        assert_eq!(e.slices[0].slice_secs, 20.0);
        assert_eq!(e.slices[1].slice_secs, 8.0);
        assert_eq!((e.total, e.grids, e.sampled_grids), (28.0, 108, 4));
        assert_eq!(e.slices[0].bands3, 6);
        assert_eq!(e.variance, None);
        let whole = combine(&results[..2], &counts, 0..1);
        assert!(whole.standard_error().is_some());
        assert_eq!(whole.per_grid(), 0.2);
    }
}
