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

/// The part of an entry's predicted cost that does not grow with its
/// weight, in units of its slice's mean weight, by goal ([`entry_costs`]):
/// an entry of weight x > 0 weighs x + F·mean. Chosen on real units
/// (`benches/campaign-units-2026-11-29.tsv`, `benches/README.md`): units
/// of random windows of 9 to 11 slices a goal (2 to 24 entries a unit at
/// 18 first, 14 to 124 at 17), each entry's CPU time from the units'
/// `.cost` lines. At 18 the bands 3 overweigh heavy entries: the log sd of
/// the units' measured over planned (one machine factor) falls from 0.49
/// at F = 0 to 0.33 at F = 8, and F chosen on the other slices' units was
/// 4, 8 or 16 for each slice held out (held-out units within half and
/// twice their plan: 13 of 14). At 17, 0.56 at F = 0 and 0.52 at F = 4,
/// and single entries more so: the log sd of an entry's measured over
/// predicted, its slice's mean taken out, is 0.99 at F = 0, 0.68 at F = 4
/// and 0.69 flat (a 17 entry's bands 3 tell little of its cost: its bands
/// 1+2 work is most of it). The 18s (every minimal one) take the 18
/// first's F, not measured apart. The committed 18 tables have a cost per
/// weight ([`predicted_costs`]), which replaces the share by weight and
/// with it F: F applies to an 18 table without one (`--costs FILE`).
pub fn fixed_share(goal: &Goal) -> f64 {
    if goal.clues >= 18 {
        FIXED_SHARE_18
    } else {
        FIXED_SHARE_17
    }
}

/// [`fixed_share`] of the 17s.
pub const FIXED_SHARE_17: f64 = 4.0;
/// [`fixed_share`] of the 18s.
pub const FIXED_SHARE_18: f64 = 8.0;

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
/// cost per entry `per_entry(k)` shared by weight among the planned entries
/// of its slice, an entry of x > 0 bands 3 weighing x + `fixed`·m (m their
/// mean bands 3, [`fixed_share`]), one of none the floor; so the slice's
/// total is kept and `fixed` 0 shares by the bands 3 alone.
pub fn entry_costs(
    pieces: &[(usize, Range<u64>)],
    bands3: &[Vec<u32>],
    per_entry: impl Fn(usize) -> f64,
    fixed: f64,
) -> Vec<Vec<f64>> {
    let mut sums = vec![(0u64, 0u64, 0u64); SLICES];
    for ((k, _), b) in pieces.iter().zip(bands3) {
        sums[*k].0 += b.len() as u64;
        sums[*k].1 += b.iter().map(|&x| x as u64).sum::<u64>();
        sums[*k].2 += b.iter().filter(|&&x| x > 0).count() as u64;
    }
    pieces
        .iter()
        .zip(bands3)
        .map(|((k, _), b)| {
            let (n, total, weighed) = sums[*k];
            let mean = total as f64 / n.max(1) as f64;
            // The mean weight: the bands 3's, plus the fixed part of the
            // entries that have one.
            let mean_weight = mean + fixed * mean * weighed as f64 / n.max(1) as f64;
            b.iter()
                .map(|&x| {
                    if mean > 0.0 && x > 0 {
                        (per_entry(*k) * (x as f64 + fixed * mean) / mean_weight)
                            .max(ENTRY_FLOOR_SECONDS)
                    } else {
                        ENTRY_FLOOR_SECONDS
                    }
                })
                .collect()
        })
        .collect()
}

/// Each planned entry's cost by the table `costs` and the goal: by the
/// table's cost per weight when it has one (an entry of weight x > 0 at
/// its slice's cost per weight times x to the table's power,
/// [`CostTable::per_weight_seconds`]: the 18 tables), else its slice's
/// cost per entry shared by weight ([`entry_costs`], the goal's
/// [`fixed_share`]).
pub fn predicted_costs(
    pieces: &[(usize, Range<u64>)],
    bands3: &[Vec<u32>],
    costs: &CostTable,
    goal: &Goal,
) -> Vec<Vec<f64>> {
    if costs.weight_power.is_none() {
        return entry_costs(
            pieces,
            bands3,
            |k| costs.slices[k].per_entry,
            fixed_share(goal),
        );
    }
    pieces
        .iter()
        .zip(bands3)
        .map(|((k, _), b)| {
            b.iter()
                .map(|&x| {
                    costs
                        .per_weight_seconds(*k, x, ENTRY_FLOOR_SECONDS)
                        .expect("a table with a power has a cost per weight for every slice")
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
