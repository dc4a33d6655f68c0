//! The per-slice cost table a campaign is planned by: `data/ed-costs.tsv`,
//! compiled in.
//!
//! One line per slice of the ED catalogue, `K ENTRIES GRIDS SAMPLED SECONDS
//! SECONDS_PER_ENTRY` (tab-separated) under `#` lines naming its source (the
//! `s17 exhaust --estimate` run it comes from, the build and the machine).
//! SECONDS is the sample's CPU time over its SAMPLED entries, and
//! SECONDS_PER_ENTRY their mean. `tools/ed-costs.sh` makes the file from
//! `--estimate`'s output.
//!
//! A slice's cost is only its mean: entries of one slice differ a lot (a
//! few hundredths of a second to minutes), so a unit of many entries is
//! near its estimate and a unit of few may not be.
//!
//! **Shrinkage.** A slice's mean comes from three or four sampled entries
//! of a heavy-tailed cost (an entry's cost has a coefficient of variation
//! of 1.2 to 2.3 within its slice), so one heavy or one free entry moves
//! it by a factor of several. A table whose header has a line
//! `# within-slice cv: C` (the spread of one entry's cost within its
//! slice, zero-cost entries included, as the model takes it: chosen by a
//! held-out check, tables of some samples against the entries of
//! another, since the log of a mean of heavy-tailed costs does not spread
//! as a lognormal of the entries' own cv would) is read
//! with each slice's mean shrunk toward the catalogue's, empirical Bayes
//! on the log scale ([`CostTable::shrink`]): the log of a mean of n
//! entries is taken as normal around the log of the slice's true mean
//! with variance s² = ln(1 + C²/n) (and bias −s²/2); the slices' true log
//! means as normal around one centre with a variance τ² estimated by
//! moments (the spread of the slices' log means less the mean s²); each
//! slice gets its posterior mean, weight τ²/(τ²+s²) on its own sample.
//! The centre is not one figure but a line in the log of the slice's ED
//! grids per entry (exact for every slice, from `data/ed-counts.tsv`):
//! a slice of few grids per entry (slice 28 has none) has cheap entries,
//! and is pulled toward the cheap slices, not toward the catalogue.
//! A slice whose sample was all zero-cost entries (its mean at the floor)
//! is one more noisy mean (its s² is as large as any) and is pulled up
//! like the others. The shrunk means are then scaled together so that
//! the whole catalogue's estimate (entries times mean, summed) is the
//! table's: shrinkage moves cost between slices, the total stays the
//! stratified estimate of the sample. A table without the line (every
//! v1 table before it, any `--costs FILE`) is read as its means.
//!
//! **Cost per weight** (`plan --per-entry`). A table whose header has a
//! line `# cost per weight: power P, cv C` has two more columns, WEIGHED
//! (the sampled entries of weight above 0) and WEIGHT (their weights to
//! the power P, added; an entry's weight is its bands 3 plus 8 for each
//! hi visit, what `--per-entry` counts for 18s): each slice's cost per
//! weight, SECONDS over WEIGHT, is shrunk as the means are (the log of a
//! ratio of n weighed entries with variance ln(1 + C²/n), toward a line in
//! the log of the slice's ED grids per entry; [`CostTable::shrink_per_weight`]),
//! the sampled entries' total kept, and a `--per-entry` plan predicts an
//! entry of weight x > 0 at that figure times x^P (an entry of weight 0
//! costs the entry floor). The slice's sampled entries then say how dear a
//! unit of weight is there, not what its average entry costs; the planned
//! entries' own weights do the rest. An 18 entry's cost grows about as its
//! weight to the power 0.8 (P and C chosen on the three seeds' entries,
//! each seed held out: `benches/README.md`, "An entry's weight at plan
//! time"). Flat plans keep the slice's mean.

use std::path::{Path, PathBuf};

use super::{CampaignError, SLICES};
use crate::search::Goal;

/// The smallest cost of an entry, in CPU seconds: a slice whose sample
/// took no time (or had no entry) still costs something, so no unit is
/// planned as free.
pub const FLOOR_SECONDS: f64 = 0.01;

/// The committed table.
const COMMITTED: &str = include_str!("../../data/ed-costs.tsv");

/// The committed cost tables of goals other than 17s, by file name
/// ([`table_name`]), each made from an estimate run (`s17 exhaust
/// --estimate N --clues 18 [--first]`, then `tools/ed-costs.sh`). A table
/// for another goal is added here the same way.
pub const GOAL_TABLES: &[(&str, &str)] = &[
    (
        "data/ed-costs-18.tsv",
        include_str!("../../data/ed-costs-18.tsv"),
    ),
    (
        "data/ed-costs-18-first.tsv",
        include_str!("../../data/ed-costs-18-first.tsv"),
    ),
];

/// The file name of the cost table of a goal: `data/ed-costs.tsv` for 17s,
/// else `data/ed-costs-N.tsv` or, first per visit, `data/ed-costs-N-first.tsv`
/// (minimal or not share a table).
pub fn table_name(goal: &Goal) -> String {
    match goal.cost_key() {
        None => "data/ed-costs.tsv".to_string(),
        Some(key) => format!("data/ed-costs-{key}.tsv"),
    }
}

/// One slice's line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SliceCost {
    /// Entries of the slice.
    pub entries: u64,
    /// ED grids of the slice.
    pub grids: u64,
    /// Entries sampled.
    pub sampled: u64,
    /// The table's mean CPU seconds per entry (at least [`FLOOR_SECONDS`]).
    pub table: f64,
    /// The CPU seconds per entry a plan uses: the table's, or shrunk
    /// ([`CostTable::shrink`]).
    pub per_entry: f64,
    /// Sampled entries of weight above 0 (a table with a cost per weight,
    /// module note; else 0).
    pub weighed: u64,
    /// Their weights to the table's power, added (else 0).
    pub weight: f64,
    /// The CPU seconds per unit of weight to the power a `--per-entry`
    /// plan uses ([`CostTable::shrink_per_weight`]); `None` without a cost
    /// per weight.
    pub per_weight: Option<f64>,
}

/// The cost of every slice, and where the figures come from.
#[derive(Clone, Debug)]
pub struct CostTable {
    /// Indexed by slice.
    pub slices: Vec<SliceCost>,
    /// The header's `# source:` line (without `# `), or the file name.
    pub source: String,
    /// The header's `# within-slice cv:` figure, if any.
    pub within_cv: Option<f64>,
    /// How `per_entry` was made: `table means`, or the shrinkage's figures;
    /// then the cost per weight's, if any.
    pub model: String,
    /// The header's `# cost per weight:` power, if any (module note).
    pub weight_power: Option<f64>,
}

/// The header line that asks for shrinkage (module note).
pub const CV_LINE: &str = "within-slice cv:";

/// The header line that gives the cost per weight (module note):
/// `# cost per weight: power P, cv C`.
pub const WEIGHT_LINE: &str = "cost per weight:";

/// Added to a slice's ED grids per entry before its log is taken (the
/// centre a slice is shrunk toward, module note): a slice with no ED grid
/// of its own still has entries that cost.
pub const GRIDS_PER_ENTRY_OFFSET: f64 = 0.01;

impl CostTable {
    /// The committed `data/ed-costs.tsv`.
    pub fn committed() -> CostTable {
        CostTable::parse(COMMITTED, Path::new("data/ed-costs.tsv"))
            .expect("the committed cost table parses (tested)")
    }

    /// Parses a table (`path` names it in errors): every slice 0 to 415 in
    /// order, ENTRIES positive, SECONDS_PER_ENTRY a finite number (raised to
    /// the floor).
    pub fn parse(text: &str, path: &Path) -> Result<CostTable, CampaignError> {
        let bad = |line: usize, reason: String| CampaignError::BadFile {
            path: PathBuf::from(path),
            line,
            reason,
        };
        let mut slices = Vec::with_capacity(SLICES);
        let mut seconds_sampled = Vec::with_capacity(SLICES);
        let mut source = path.display().to_string();
        let mut within_cv = None;
        let mut per_weight: Option<(f64, f64)> = None;
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            if let Some(comment) = line.strip_prefix('#') {
                if let Some(s) = comment.trim().strip_prefix("source:") {
                    source = s.trim().to_string();
                }
                if let Some(s) = comment.trim().strip_prefix(CV_LINE) {
                    let word = s.split_whitespace().next().unwrap_or_default();
                    let cv: f64 = word
                        .parse()
                        .ok()
                        .filter(|c: &f64| c.is_finite() && *c > 0.0)
                        .ok_or_else(|| bad(n, format!("bad within-slice cv {word:?}")))?;
                    within_cv = Some(cv);
                }
                if let Some(s) = comment.trim().strip_prefix(WEIGHT_LINE) {
                    per_weight =
                        Some(parse_weight_line(s).ok_or_else(|| {
                            bad(n, format!("bad cost per weight {:?}", s.trim()))
                        })?);
                }
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            let fields = if per_weight.is_some() { 8 } else { 6 };
            if f.len() != fields {
                return Err(bad(n, format!("expected {fields} fields, got {}", f.len())));
            }
            let int = |j: usize, what: &str| -> Result<u64, CampaignError> {
                f[j].parse()
                    .map_err(|_| bad(n, format!("bad {what} {:?}", f[j])))
            };
            let k = int(0, "slice")?;
            if k != slices.len() as u64 {
                return Err(bad(n, format!("slice {k} where {} was due", slices.len())));
            }
            let entries = int(1, "entry count")?;
            if entries == 0 {
                return Err(bad(n, "a slice with no entries".into()));
            }
            let grids = int(2, "grid count")?;
            let sampled = int(3, "sample size")?;
            let per_entry: f64 = f[5]
                .parse()
                .map_err(|_| bad(n, format!("bad seconds per entry {:?}", f[5])))?;
            if !per_entry.is_finite() || per_entry < 0.0 {
                return Err(bad(n, format!("bad seconds per entry {per_entry}")));
            }
            let per_entry = per_entry.max(FLOOR_SECONDS);
            let (weighed, weight) = if per_weight.is_some() {
                let weight: f64 = f[7]
                    .parse()
                    .ok()
                    .filter(|w: &f64| w.is_finite() && *w >= 0.0)
                    .ok_or_else(|| bad(n, format!("bad weight {:?}", f[7])))?;
                (int(6, "count of weighed entries")?, weight)
            } else {
                (0, 0.0)
            };
            let seconds: f64 = f[4]
                .parse()
                .ok()
                .filter(|s: &f64| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| bad(n, format!("bad seconds {:?}", f[4])))?;
            seconds_sampled.push(seconds);
            slices.push(SliceCost {
                entries,
                grids,
                sampled,
                table: per_entry,
                per_entry,
                weighed,
                weight,
                per_weight: None,
            });
        }
        if slices.len() != SLICES {
            return Err(bad(
                text.lines().count(),
                format!("{} slices, expected {SLICES}", slices.len()),
            ));
        }
        let mut table = CostTable {
            slices,
            source,
            within_cv,
            model: "table means".to_string(),
            weight_power: None,
        };
        if let Some(cv) = within_cv {
            table.shrink(cv);
        }
        if let Some((power, cv)) = per_weight {
            table.shrink_per_weight(power, cv, &seconds_sampled);
        }
        Ok(table)
    }

    /// Sets each slice's cost per unit of weight (module note): `seconds[k]`
    /// the CPU seconds of slice k's sampled entries, over its `weight`,
    /// shrunk on the log scale toward a line in the log of the slice's ED
    /// grids per entry (as [`CostTable::shrink`], `cv` the spread of an
    /// entry's cost over its weight to the power within its slice); a
    /// slice with no weighed entry gets the line's value. Then all are
    /// scaled so that the sampled entries' predicted total is their
    /// measured one.
    pub fn shrink_per_weight(&mut self, power: f64, cv: f64, seconds: &[f64]) {
        let s2 = |n: u64| (cv * cv / n.max(1) as f64).ln_1p();
        // (biased log ratio, s²) of the slices with a weighed entry; a
        // sample that took no time is at the entry floor per entry.
        let with: Vec<Option<(f64, f64)>> = self
            .slices
            .iter()
            .zip(seconds)
            .map(|(s, &secs)| {
                (s.weighed > 0 && s.weight > 0.0).then(|| {
                    let secs = secs.max(super::plan::ENTRY_FLOOR_SECONDS * s.weighed as f64);
                    let v = s2(s.weighed);
                    ((secs / s.weight).ln() + v / 2.0, v)
                })
            })
            .collect();
        let Some((mut per, _, tau2)) = self.shrunk(&with) else {
            return;
        };
        let want: f64 = with
            .iter()
            .zip(seconds)
            .filter(|(w, _)| w.is_some())
            .map(|(_, &secs)| secs)
            .sum();
        let got: f64 = per
            .iter()
            .zip(&self.slices)
            .zip(&with)
            .filter(|(_, w)| w.is_some())
            .map(|((p, s), _)| p * s.weight)
            .sum();
        let scale = if got > 0.0 && want > 0.0 {
            want / got
        } else {
            1.0
        };
        for (s, p) in self.slices.iter_mut().zip(per.iter_mut()) {
            s.per_weight = Some(*p * scale);
        }
        self.weight_power = Some(power);
        self.model.push_str(&format!(
            "; per entry: cost per weight^{power} (weight = bands 3 + 8 hi visits), within-slice cv {cv}, between-slice log sd {:.2}, scaled by {scale:.3} to the sample's total",
            tau2.sqrt()
        ));
    }

    /// An entry's predicted CPU seconds by the cost per weight (module
    /// note): slice `k`'s cost per weight times `weight` to the power, at
    /// least `floor`, or `floor` for weight 0; `None` for a table without a
    /// cost per weight.
    pub fn per_weight_seconds(&self, k: usize, weight: u32, floor: f64) -> Option<f64> {
        let power = self.weight_power?;
        let per = self.slices[k].per_weight?;
        Some(if weight == 0 {
            floor
        } else {
            (per * f64::from(weight).powf(power)).max(floor)
        })
    }

    /// The shrinkage both figures take (module note): `logs[k]` slice k's
    /// sampled figure on the log scale, bias corrected, and its variance
    /// s², or `None` for a slice without one; each pulled toward the line
    /// of those logs on the log of the slices' ED grids per entry (exact,
    /// known for every slice), fitted by least squares, by its s² against
    /// the spread τ² around the line; a slice without one is the line.
    /// The figures (exponentials of the shrunk logs, bias corrected), the
    /// line's slope and τ²; `None` when no slice has a figure.
    fn shrunk(&self, logs: &[Option<(f64, f64)>]) -> Option<(Vec<f64>, f64, f64)> {
        let x = |s: &SliceCost| (s.grids as f64 / s.entries as f64 + GRIDS_PER_ENTRY_OFFSET).ln();
        let fit: Vec<(f64, f64, f64)> = self
            .slices
            .iter()
            .zip(logs)
            .filter_map(|(s, l)| l.map(|(y, v)| (x(s), y, v)))
            .collect();
        if fit.is_empty() {
            return None;
        }
        let (line, slope, tau2) = centre_line(&fit);
        let figures = self
            .slices
            .iter()
            .zip(logs)
            .map(|(s, l)| match l {
                Some((y, v)) => {
                    let w = tau2 / (tau2 + v);
                    (w * y + (1.0 - w) * line(x(s)) + w * v / 2.0).exp()
                }
                None => (line(x(s)) + tau2 / 2.0).exp(),
            })
            .collect();
        Some((figures, slope, tau2))
    }

    /// Shrinks every slice's mean toward the catalogue's (module note),
    /// `cv` the coefficient of variation of one entry's cost within its
    /// slice; the catalogue's total (entries times mean) is kept.
    pub fn shrink(&mut self, cv: f64) {
        // s² of the log of a mean of n entries; its log, bias corrected.
        let s2 = |n: u64| (cv * cv / n.max(1) as f64).ln_1p();
        let with: Vec<Option<(f64, f64)>> = self
            .slices
            .iter()
            .map(|s| (s.sampled > 0).then(|| (s.table.ln() + s2(s.sampled) / 2.0, s2(s.sampled))))
            .collect();
        let Some((mut shrunk, slope, tau2)) = self.shrunk(&with) else {
            return;
        };
        let total = |per: &mut dyn Iterator<Item = f64>| -> f64 {
            per.zip(&self.slices)
                .map(|(c, s)| c * s.entries as f64)
                .sum()
        };
        let want = total(&mut self.slices.iter().map(|s| s.table));
        let got = total(&mut shrunk.iter().copied());
        let scale = want / got;
        for (s, c) in self.slices.iter_mut().zip(shrunk.iter_mut()) {
            s.per_entry = (*c * scale).max(FLOOR_SECONDS);
        }
        self.model = format!(
            "shrunk: within-slice cv {cv}, toward {slope:.3} x ln(grids per entry + {GRIDS_PER_ENTRY_OFFSET}), between-slice log sd {:.2}, scaled by {scale:.3} to the table's total",
            tau2.sqrt()
        );
    }

    /// The committed table a campaign searching for `goal` is planned by:
    /// `data/ed-costs.tsv` for 17s (first per visit or not: the full search
    /// bounds the first), `data/ed-costs-N.tsv` or `data/ed-costs-N-first.tsv`
    /// for N clues, once made and compiled in ([`GOAL_TABLES`]). A goal with
    /// no table is refused, naming the missing file and the command that
    /// makes it (a 17 table scaled by a guess would balance nothing).
    pub fn for_goal(goal: &Goal) -> Result<CostTable, CampaignError> {
        let Some(key) = goal.cost_key() else {
            return Ok(CostTable::committed());
        };
        let name = table_name(goal);
        match GOAL_TABLES.iter().find(|(n, _)| *n == name) {
            Some((n, text)) => CostTable::parse(text, Path::new(n)),
            None => Err(CampaignError::NoCostTable {
                goal: goal.description(),
                table: name.clone(),
                command: format!(
                    "s17 exhaust --estimate 4 --threads 1 {} > est.tsv && tools/ed-costs.sh est.tsv BUILD MACHINE {key} > {name}",
                    Goal {
                        non_minimal: false,
                        ..*goal
                    }
                    .flags(),
                ),
            }),
        }
    }

    /// Reads a cost table from a file (`s17 campaign plan --costs`, for
    /// tests and trials).
    pub fn read(path: &Path) -> Result<CostTable, CampaignError> {
        let text = std::fs::read_to_string(path).map_err(super::io_error(path))?;
        CostTable::parse(&text, path)
    }

    /// The estimated CPU seconds of `entries` entries of slice `k`.
    pub fn seconds(&self, k: usize, entries: u64) -> f64 {
        self.slices[k].per_entry * entries as f64
    }
}

/// `power P, cv C` of a `# cost per weight:` line, both finite and
/// positive.
fn parse_weight_line(s: &str) -> Option<(f64, f64)> {
    let (p, c) = s.trim().split_once(',')?;
    let num = |t: &str, key: &str| -> Option<f64> {
        let v: f64 = t.trim().strip_prefix(key)?.trim().parse().ok()?;
        (v.is_finite() && v > 0.0).then_some(v)
    };
    // The cv may be followed by words in parentheses.
    let c = c.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
    Some((num(p, "power")?, num(&c, "cv")?))
}

/// The least-squares line of `(x, y, s²)` points, y on x, its slope, and
/// the spread around it less the mean s²: the centre and between-slice
/// variance of [`CostTable::shrink`] and [`CostTable::shrink_per_weight`].
/// A spread below the noise leaves a tenth of the spread: every slice keeps
/// some of its own sample.
fn centre_line(points: &[(f64, f64, f64)]) -> (impl Fn(f64) -> f64, f64, f64) {
    let count = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / count;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / count;
    let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let line = move |x: f64| mean_y + slope * (x - mean_x);
    let spread = points
        .iter()
        .map(|p| (p.1 - line(p.0)).powi(2))
        .sum::<f64>()
        / count;
    let noise = points.iter().map(|p| p.2).sum::<f64>() / count;
    (line, slope, (spread - noise).max(spread / 10.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_table_has_every_slice() {
        let t = CostTable::committed();
        assert_eq!(t.slices.len(), SLICES);
        assert!(t.source.contains("exhaust-estimate"), "{}", t.source);
        let entries: u64 = t.slices.iter().map(|s| s.entries).sum();
        let grids: u64 = t.slices.iter().map(|s| s.grids).sum();
        assert_eq!(entries, 986_727_817);
        assert_eq!(grids, 5_472_730_538);
        assert!(t.slices.iter().all(|s| s.per_entry >= FLOOR_SECONDS));
    }

    #[test]
    fn every_goal_table_has_every_slice_and_its_own_source() {
        assert!(!GOAL_TABLES.is_empty());
        for (name, text) in GOAL_TABLES {
            let t = CostTable::parse(text, Path::new(name)).unwrap();
            assert_eq!(t.slices.len(), SLICES, "{name}");
            let entries: u64 = t.slices.iter().map(|s| s.entries).sum();
            let grids: u64 = t.slices.iter().map(|s| s.grids).sum();
            assert_eq!((entries, grids), (986_727_817, 5_472_730_538), "{name}");
            assert!(
                t.source.contains("exhaust-estimate"),
                "{name}: {}",
                t.source
            );
            assert_ne!(t.source, CostTable::committed().source, "{name}");
        }
        let first18 = Goal::first_of(18);
        assert!(
            CostTable::for_goal(&first18)
                .unwrap()
                .source
                .contains("clues18-first")
        );
        // Minimal or not, every 18 shares the full search's table.
        for non_minimal in [false, true] {
            let all18 = Goal {
                first: false,
                non_minimal,
                ..first18
            };
            let source = CostTable::for_goal(&all18).unwrap().source;
            assert!(source.contains("clues18.tsv"), "{source}");
        }
    }

    #[test]
    fn goals_other_than_17s_need_their_own_table() {
        let goal = Goal::first_of(19);
        let err = CostTable::for_goal(&goal).unwrap_err().to_string();
        assert!(err.contains("data/ed-costs-19-first.tsv"), "{err}");
        assert!(
            err.contains("s17 exhaust --estimate 4 --threads 1 --clues 19 --first"),
            "{err}"
        );
        assert!(
            err.contains(
                "tools/ed-costs.sh est.tsv BUILD MACHINE 19-first > data/ed-costs-19-first.tsv"
            ),
            "{err}"
        );
        let first17 = Goal::first_of(17);
        assert_eq!(
            CostTable::for_goal(&first17).unwrap().source,
            CostTable::committed().source
        );
    }

    /// A table of 416 slices, slice k's mean `mean(k)`, `n` entries
    /// sampled each, with a `# within-slice cv:` line if `cv` is given.
    fn table(mean: impl Fn(usize) -> f64, n: u64, cv: Option<f64>) -> String {
        let mut text = String::from("# source: test\n");
        if let Some(cv) = cv {
            text.push_str(&format!("# {CV_LINE} {cv} (test)\n"));
        }
        for k in 0..SLICES {
            let m = mean(k);
            // As many grids as entries: one centre for all.
            let e = 100 + k;
            text.push_str(&format!("{k}\t{e}\t{e}\t{n}\t{}\t{m}\n", m * n as f64));
        }
        text
    }

    #[test]
    fn shrinkage_pulls_the_outlying_slices_in_and_keeps_the_total() {
        // Slices at 1 s an entry but for a heavy one (50 s) and a free one
        // (0: the floor), with a little spread among the others.
        let mean = |k: usize| match k {
            7 => 50.0,
            9 => 0.0,
            k => 0.8 + 0.4 * (k % 5) as f64 / 4.0,
        };
        let plain = CostTable::parse(&table(mean, 3, None), Path::new("t.tsv")).unwrap();
        assert_eq!(plain.model, "table means");
        assert!(plain.slices.iter().all(|s| s.per_entry == s.table));
        let t = CostTable::parse(&table(mean, 3, Some(1.4)), Path::new("t.tsv")).unwrap();
        assert_eq!(t.within_cv, Some(1.4));
        assert!(
            t.model.starts_with("shrunk: within-slice cv 1.4"),
            "{}",
            t.model
        );
        // The total is the table's (to rounding).
        let total = |f: &dyn Fn(&SliceCost) -> f64| -> f64 {
            t.slices.iter().map(|s| f(s) * s.entries as f64).sum()
        };
        let (want, got) = (total(&|s| s.table), total(&|s| s.per_entry));
        assert!((got / want - 1.0).abs() < 1e-9, "{got} {want}");
        // The outliers move toward the rest (and stay on their side: the
        // order of the means is kept among slices of one sample size).
        let (heavy, free) = (t.slices[7].per_entry, t.slices[9].per_entry);
        assert!(heavy < 25.0, "{heavy}");
        assert!(free > 0.1, "{free}");
        let mut by_table: Vec<&SliceCost> = t.slices.iter().collect();
        by_table.sort_by(|a, b| a.table.total_cmp(&b.table));
        assert!(
            by_table
                .windows(2)
                .all(|w| w[0].per_entry <= w[1].per_entry)
        );
        // More entries sampled: a slice keeps more of its own mean.
        let t12 = CostTable::parse(&table(mean, 12, Some(1.4)), Path::new("t.tsv")).unwrap();
        assert!(
            t12.slices[7].per_entry > heavy,
            "{}",
            t12.slices[7].per_entry
        );
        // A bad figure is named.
        let bad = table(mean, 3, Some(1.4)).replace("cv: 1.4", "cv: x");
        let err = CostTable::parse(&bad, Path::new("t.tsv")).unwrap_err();
        assert_eq!(err.to_string(), "t.tsv: line 2: bad within-slice cv \"x\"");
    }

    #[test]
    fn the_committed_tables_are_shrunk_and_keep_their_totals() {
        let mut tables = vec![CostTable::committed()];
        for (name, text) in GOAL_TABLES {
            tables.push(CostTable::parse(text, Path::new(name)).unwrap());
        }
        for t in tables {
            assert!(t.model.starts_with("shrunk: "), "{}", t.model);
            let want: f64 = t.slices.iter().map(|s| s.table * s.entries as f64).sum();
            let got: f64 = t
                .slices
                .iter()
                .map(|s| s.per_entry * s.entries as f64)
                .sum();
            assert!(
                (got / want - 1.0).abs() < 1e-6,
                "{}: {got} {want}",
                t.source
            );
            // Slice 28 has no ED grid of its own: its entries are cheap,
            // and it is pulled toward the slices of few grids an entry,
            // below the catalogue's mean.
            let s = t.slices[28];
            let entries: f64 = t.slices.iter().map(|s| s.entries as f64).sum();
            assert!(s.per_entry < want / entries, "{}: {s:?}", t.source);
        }
    }

    #[test]
    fn a_free_slice_gets_the_floor_and_bad_lines_are_named() {
        let mut text = String::from("# source: test\n");
        for k in 0..SLICES {
            text.push_str(&format!("{k}\t10\t5\t0\t0\t0\n"));
        }
        let t = CostTable::parse(&text, Path::new("t.tsv")).unwrap();
        assert_eq!(t.slices[3].per_entry, FLOOR_SECONDS);
        assert_eq!(t.source, "test");
        let cut = text.replace("7\t10\t5", "8\t10\t5");
        let err = CostTable::parse(&cut, Path::new("t.tsv")).unwrap_err();
        assert_eq!(err.to_string(), "t.tsv: line 9: slice 8 where 7 was due");
        let short: String = text.lines().take(5).map(|l| format!("{l}\n")).collect();
        let err = CostTable::parse(&short, Path::new("t.tsv")).unwrap_err();
        assert!(err.to_string().contains("4 slices, expected 416"), "{err}");
    }
}
