//! `campaign plan --per-entry`: each entry's bands 3 and the units cut by them.

use super::*;

/// Bytes a `--per-entry` plan holds per planned entry: its bands 3 (4)
/// and its cost (8).
pub const PER_ENTRY_BYTES: u64 = 12;
/// CPU seconds to count an entry's bands 3 (about 20 µs).
pub const BANDS3_SECONDS_PER_ENTRY: f64 = 20e-6;

/// The planned cost of an entry with no band 3 to search (`--per-entry`).
pub const ENTRY_FLOOR_SECONDS: f64 = 0.001;

/// How many bands 3 a hi visit of an entry weighs in its predicted cost
/// beside its bands 3, by goal ([`entry_bands3`]): 0 for 17s; 8 for 18s
/// (first per visit or not), whose search does more for each grid it
/// files. Chosen on three seeds' sampled entries (one a slice, 416 slices:
/// `benches/exhaust-estimate-2026-11-27-*clues18*.tsv`), each seed's
/// entries predicted from the other two's: the share of single entries
/// within half and twice their prediction rises from 0.51 (weight 0) to
/// 0.66 at 18 and from 0.56 to 0.70 at 18 first; at 17 a weight lowers it
/// (0.61 at 0, 0.50 at 8), so 17s keep the bands 3 alone.
pub fn hi_weight(goal: &Goal) -> u32 {
    if goal.clues >= 18 { HI_WEIGHT_18 } else { 0 }
}

/// [`hi_weight`] of the 18s.
pub const HI_WEIGHT_18: u32 = 8;

/// The weight of each entry of `range` of slice `k`, in order: its bands
/// 3, the band 3 visits its search has ([`crate::exhaust::Exhauster::visits`]),
/// plus `hi_weight` ([`hi_weight`]) for each of them that is a hi visit
/// (a grid the entry files).
pub fn entry_bands3(ed: &Ed, k: usize, range: Range<u64>, hi_weight: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity((range.end - range.start) as usize);
    ed.for_each_entry(k, range, |entry| {
        let mut n = 0u32;
        ed.entry_visits(k, entry, Choices::ALL, |v| {
            n += 1;
            if v.choices.contains(Choices::HI) {
                n += hi_weight;
            }
        });
        out.push(n);
    });
    out
}

/// [`entry_bands3`] of every piece, in parallel (a large piece in a few
/// runs: each walks the slice's entries from its start).
pub fn pieces_bands3(ed: &Ed, pieces: &[(usize, Range<u64>)], hi_weight: u32) -> Vec<Vec<u32>> {
    let runs = rayon::current_num_threads().max(1) as u64 * 2;
    let jobs: Vec<(usize, usize, Range<u64>)> = pieces
        .iter()
        .enumerate()
        .flat_map(|(i, (k, r))| {
            let n = r.end - r.start;
            let m = if n < 65_536 { 1 } else { runs.min(n) };
            (0..m).map(move |j| (i, *k, r.start + j * n / m..r.start + (j + 1) * n / m))
        })
        .collect();
    let counted: Vec<(usize, Vec<u32>)> = jobs
        .into_par_iter()
        .map(|(i, k, r)| (i, entry_bands3(ed, k, r, hi_weight)))
        .collect();
    let mut out = vec![Vec::new(); pieces.len()];
    for (i, v) in counted {
        out[i].extend(v);
    }
    out
}

/// Each planned entry's cost (`--per-entry`, module note): its slice's
/// cost per entry `per_entry(k)` times its bands 3 over the mean bands 3
/// of the planned entries of its slice.
pub fn entry_costs(
    pieces: &[(usize, Range<u64>)],
    bands3: &[Vec<u32>],
    per_entry: impl Fn(usize) -> f64,
) -> Vec<Vec<f64>> {
    let mut sums = vec![(0u64, 0u64); SLICES];
    for ((k, _), b) in pieces.iter().zip(bands3) {
        sums[*k].0 += b.len() as u64;
        sums[*k].1 += b.iter().map(|&x| x as u64).sum::<u64>();
    }
    pieces
        .iter()
        .zip(bands3)
        .map(|((k, _), b)| {
            let (n, total) = sums[*k];
            let mean = total as f64 / n.max(1) as f64;
            b.iter()
                .map(|&x| {
                    if mean > 0.0 {
                        (per_entry(*k) * x as f64 / mean).max(ENTRY_FLOOR_SECONDS)
                    } else {
                        ENTRY_FLOOR_SECONDS
                    }
                })
                .collect()
        })
        .collect()
}

/// Cuts a run of entries of costs `costs` into units of about `target`
/// seconds, in order (module note): the ranges, from 0, follow each other.
pub fn cut_by_entry(costs: &[f64], target: f64) -> Vec<Range<u64>> {
    let mut cuts = Vec::new();
    let (mut start, mut sum) = (0usize, 0.0f64);
    for (i, &c) in costs.iter().enumerate() {
        if i > start && (sum + c / 2.0 > target || c > target) {
            cuts.push(start as u64..i as u64);
            (start, sum) = (i, 0.0);
        }
        sum += c;
    }
    if start < costs.len() {
        cuts.push(start as u64..costs.len() as u64);
    }
    cuts
}
