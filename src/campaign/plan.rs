//! Planning a campaign: which entries (`--slices LIST`), cut into units of
//! about H core-hours by the cost table, written as `units.tsv` and a Slurm
//! array script.
//!
//! LIST is `all`, or items separated by commas: a slice `K`, a run of
//! slices `A..B` (A to B-1; `A..` to the last), or entries of one slice
//! `K:A..B` (A to B-1; `K:A..` to the slice's end). Items may come in any
//! order but may not overlap; the plan takes them in slice and entry order.
//!
//! Cutting: a planned range of n entries of slice K, each estimated at c
//! seconds (the slice's mean), becomes m units of nearly equal length,
//! m = n·c / (H·3600) rounded up, at least 1 and at most n, and large
//! enough that no unit of two or more entries is estimated above 2H. So a
//! unit is estimated at most H plus one entry (a Slurm time limit can be
//! set from H), and within twice H unless it is a single entry; a range
//! of more than H gives units of more than H/2. A unit never crosses a
//! slice and never splits an entry, and the units of a range follow each
//! other without gap or overlap: every planned entry is in exactly one unit.
//!
//! No unit longer than a job: a unit of one entry estimated above H is
//! searched in parts of about H each, checkpointed one by one
//! ([`Plan::parts`]), so a job limited to a few times H makes progress on
//! it however often it is killed and requeued. (An entry is known only by
//! its slice's mean cost; one far above its estimate still runs long.)
//!
//! Per entry (`plan --per-entry`, [`Plan::per_entry`]): each planned
//! entry's bands 3 are counted first (a walk of its visits, [`entry_bands3`],
//! about the cost of `enumerate --count`: some 20 µs an entry, so a slice of
//! a million entries takes about 20 CPU-seconds and the whole catalogue
//! several CPU-hours), each hi visit weighing [`hi_weight`] more for 18s
//! ([`predicted_costs`]). With a table that has a cost per weight (the 18
//! tables, [`CostTable::shrink_per_weight`]) an entry of weight x costs its
//! slice's cost per weight times x^0.8, fitted on the sampled entries'
//! own weights. Else (17s) a slice's planned cost is shared among its
//! planned entries by weight: its bands 3 plus a fixed part,
//! [`fixed_share`] times the slice's mean (4 for 17s, whose bands 3 tell
//! little of an entry's cost; an entry of weight 0
//! costs [`ENTRY_FLOOR_SECONDS`]): the slice's total stays the table's,
//! a heavy entry is planned heavy and light ones share a unit. A range is
//! then cut greedily in order ([`cut_by_entry`]): a unit is closed before
//! an entry that would take it past the target by more than half the
//! entry, or that alone is above the target; so a unit of two or more
//! entries is estimated within 1.5 times H, and an entry above H is a
//! unit of its own (searched in parts). The weights predict an entry's
//! cost only in part, and a slice's mean (three sampled entries) is off by
//! up to 2 or 3 times: units of a few entries to a hundred took 0.5 to 2
//! times their plan (one machine factor) in 79 to 92 % of the cases
//! measured (`benches/README.md`, "Measured over planned on real units");
//! `--replan` corrects the slices from their first units.
//!
//! Re-planning a running campaign (`plan --replan`, [`replan()`]): the units
//! started keep their lines; the entries of the others are cut again by the
//! table corrected per slice by measured over planned CPU time from the
//! units' `.cost` records (pooled with the campaign-wide ratio, which also
//! corrects the slices not yet measured: the cluster's speed against the
//! table's machine). Entry costs within a slice spread over a factor of
//! about 2.7 (log sd about 1, `benches/README.md`), so a slice's few
//! sampled entries give its mean only within about ±50 %: the first units
//! of a campaign measure it better, and the re-plan uses that.
//!
//! The plan also writes the Slurm scripts: `campaign.sbatch`, an array of
//! one task per unit submitted in chunks ([`Plan::sbatch`]), and
//! `work.sbatch`, an array of W pulling workers ([`Plan::work_sbatch`],
//! [`super::work`]); both with a `--time` (default four times H, at least
//! an hour) and `--requeue`.

use std::fmt::Write as _;
use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;

use super::{CampaignError, CostTable, SLICES};
use crate::ed::{Choices, Ed};
use crate::search::Goal;

pub use super::scripts::{ARRAY_CHUNK, WORKER_ROUNDS, default_job_time, format_hours, slurm_time};

/// The first line of `units.tsv` starts with this.
pub const MAGIC: &str = "# s17 campaign plan v1";

/// The column line of `units.tsv`.
const COLUMNS: &str = "# UNIT\tK\tA\tB\tEST_SECONDS";

/// The most units a plan may have (a plan with more asks for units far
/// below a useful size; raise `--unit-hours`).
pub const MAX_UNITS: usize = 1_000_000;

/// The most parts an entry is cut into ([`Plan::parts`]).
pub const MAX_PARTS: usize = 1024;

/// One unit: entries `entries` of slice `k`.
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    /// Its number: its line in `units.tsv`, from 0.
    pub number: usize,
    pub k: usize,
    pub entries: Range<u64>,
    /// Its estimated CPU seconds.
    pub est_seconds: f64,
}

impl Unit {
    /// Its number of entries.
    pub fn len(&self) -> u64 {
        self.entries.end - self.entries.start
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The entries a campaign searches: ranges of entries of slices, in slice
/// and entry order, none empty, none overlapping.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanSpec {
    pub pieces: Vec<(usize, Range<u64>)>,
    /// The list as given, without whitespace.
    pub list: String,
}

impl PlanSpec {
    /// Parses LIST (module note) against the slices' entry counts.
    pub fn parse(list: &str, costs: &CostTable) -> Result<PlanSpec, CampaignError> {
        let bad = |item: &str, why: String| CampaignError::BadList(format!("{item:?}: {why}"));
        let compact: String = list.chars().filter(|c| !c.is_whitespace()).collect();
        if compact.is_empty() {
            return Err(CampaignError::BadList(
                "empty; give `all`, slices (`0..416`, `26,28,30`) or a slice's entries (`331:1683700..1684300`)"
                    .into(),
            ));
        }
        let entries = |k: usize| costs.slices[k].entries;
        let mut pieces = Vec::new();
        if compact == "all" {
            pieces.extend((0..SLICES).map(|k| (k, 0..entries(k))));
        } else {
            for item in compact.split(',') {
                if item.is_empty() {
                    return Err(CampaignError::BadList(format!(
                        "an empty item in {compact:?}"
                    )));
                }
                let slice = |text: &str| -> Result<usize, CampaignError> {
                    let k: usize = text
                        .parse()
                        .map_err(|_| bad(item, format!("{text:?} is not a slice number")))?;
                    if k >= SLICES {
                        return Err(bad(
                            item,
                            format!("slice {k}: slices are 0 to {}", SLICES - 1),
                        ));
                    }
                    Ok(k)
                };
                if let Some((k, range)) = item.split_once(':') {
                    let k = slice(k)?;
                    let range = parse_range(range, entries(k)).map_err(|e| bad(item, e))?;
                    if range.end > entries(k) {
                        return Err(bad(
                            item,
                            format!(
                                "slice {k} has {} entries (0 to {})",
                                entries(k),
                                entries(k) - 1
                            ),
                        ));
                    }
                    pieces.push((k, range));
                } else if item.contains("..") {
                    let range = parse_range(item, SLICES as u64).map_err(|e| bad(item, e))?;
                    if range.end > SLICES as u64 {
                        return Err(bad(item, format!("slices are 0 to {}", SLICES - 1)));
                    }
                    pieces.extend(range.map(|k| (k as usize, 0..entries(k as usize))));
                } else {
                    let k = slice(item)?;
                    pieces.push((k, 0..entries(k)));
                }
            }
        }
        pieces.sort_by_key(|(k, r)| (*k, r.start));
        for pair in pieces.windows(2) {
            let ((k1, r1), (k2, r2)) = (&pair[0], &pair[1]);
            if k1 == k2 && r2.start < r1.end {
                return Err(CampaignError::BadList(format!(
                    "entries {}..{} and {}..{} of slice {k1} overlap (an entry is planned once)",
                    r1.start, r1.end, r2.start, r2.end
                )));
            }
        }
        Ok(PlanSpec {
            pieces,
            list: compact,
        })
    }
}

/// `A..B` (B exclusive, non-empty; `A..` ends at `end`).
fn parse_range(text: &str, end: u64) -> Result<Range<u64>, String> {
    let (a, b) = text
        .split_once("..")
        .ok_or_else(|| format!("expected A..B, got {text:?}"))?;
    let number = |s: &str| -> Result<u64, String> {
        s.parse().map_err(|_| format!("{s:?} is not a number"))
    };
    let a = number(a)?;
    let b = if b.is_empty() { end } else { number(b)? };
    if a >= b {
        return Err(format!("the range {a}..{b} is empty"));
    }
    Ok(a..b)
}

/// Checks `--unit-hours`: a finite number above 0.
pub fn check_unit_hours(hours: f64) -> Result<f64, CampaignError> {
    if !hours.is_finite() || hours <= 0.0 {
        return Err(CampaignError::BadUnitHours(format!(
            "{hours} is not a positive number of core-hours"
        )));
    }
    Ok(hours)
}

/// The number of units for `n` entries of `per_entry` seconds each, with
/// units of about `target` seconds (module note).
fn unit_count(n: u64, per_entry: f64, target: f64) -> u64 {
    let mut m = ((n as f64 * per_entry / target).ceil() as u64).clamp(1, n);
    // At most `cap` entries per unit keeps a unit of two or more entries
    // within twice the target.
    let cap = (2.0 * target / per_entry).floor() as u64;
    if cap <= 1 {
        m = n;
    } else {
        m = m.max(n.div_ceil(cap));
    }
    m
}

/// `n` entries (from 0) cut into `m` runs of nearly equal lengths, in
/// order: run i ends where run i+1 starts.
fn even_cuts(n: u64, m: u64) -> impl Iterator<Item = Range<u64>> {
    (0..m).map(move |i| i * n / m..(i + 1) * n / m)
}

mod per_entry;
pub use per_entry::{
    BANDS3_SECONDS_PER_ENTRY, ENTRY_FLOOR_SECONDS, FIXED_SHARE_17, FIXED_SHARE_18, HI_WEIGHT_18,
    PER_ENTRY_BYTES, cut_by_entry, entry_bands3, entry_costs, fixed_share, hi_weight,
    pieces_bands3, predicted_costs,
};

/// A campaign's units, and the header naming the plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The first line of `units.tsv`, without its newline.
    pub header: String,
    pub units: Vec<Unit>,
    /// What every unit searches for (named in the header by
    /// its `Display` words before `costs=`; none: every 17).
    pub goal: Goal,
}

impl Plan {
    /// Cuts `spec` into units of about `unit_hours` core-hours by `costs`,
    /// to search every 17.
    pub fn new(spec: &PlanSpec, unit_hours: f64, costs: &CostTable) -> Result<Plan, CampaignError> {
        Plan::for_goal(spec, unit_hours, costs, Goal::default())
    }

    /// [`Plan::new`] for a campaign searching for `goal` (`costs` should be
    /// the goal's table, [`CostTable::for_goal`]).
    pub fn for_goal(
        spec: &PlanSpec,
        unit_hours: f64,
        costs: &CostTable,
        goal: Goal,
    ) -> Result<Plan, CampaignError> {
        let hours = check_unit_hours(unit_hours)?;
        let target = hours * 3600.0;
        let counts: Vec<u64> = spec
            .pieces
            .iter()
            .map(|(k, r)| unit_count(r.end - r.start, costs.slices[*k].per_entry, target))
            .collect();
        let total: u64 = counts.iter().sum();
        if total > MAX_UNITS as u64 {
            return Err(CampaignError::BadUnitHours(format!(
                "{hours} core-hours per unit gives {total} units, more than {MAX_UNITS}; plan larger units"
            )));
        }
        let mut units = Vec::with_capacity(total as usize);
        for ((k, range), &m) in spec.pieces.iter().zip(&counts) {
            for r in even_cuts(range.end - range.start, m) {
                units.push(Unit {
                    number: units.len(),
                    k: *k,
                    entries: range.start + r.start..range.start + r.end,
                    est_seconds: costs.seconds(*k, r.end - r.start),
                });
            }
        }
        Ok(Plan::headed(spec, hours, costs, goal, units, ""))
    }

    /// [`Plan::for_goal`] cut by each entry's predicted cost (`plan
    /// --per-entry`, module note): `bands3` holds the bands 3 of each
    /// entry of each piece of `spec` ([`pieces_bands3`]).
    pub fn per_entry(
        spec: &PlanSpec,
        unit_hours: f64,
        costs: &CostTable,
        goal: Goal,
        bands3: &[Vec<u32>],
    ) -> Result<Plan, CampaignError> {
        let hours = check_unit_hours(unit_hours)?;
        let target = hours * 3600.0;
        let predicted = predicted_costs(&spec.pieces, bands3, costs, &goal);
        let mut units = Vec::new();
        for ((k, range), c) in spec.pieces.iter().zip(&predicted) {
            assert_eq!(c.len() as u64, range.end - range.start, "a cost per entry");
            for r in cut_by_entry(c, target) {
                if units.len() >= MAX_UNITS {
                    return Err(CampaignError::BadUnitHours(format!(
                        "{hours} core-hours per unit gives more than {MAX_UNITS} units; plan larger units"
                    )));
                }
                units.push(Unit {
                    number: units.len(),
                    k: *k,
                    entries: range.start + r.start..range.start + r.end,
                    est_seconds: c[r.start as usize..r.end as usize].iter().sum(),
                });
            }
        }
        Ok(Plan::headed(
            spec,
            hours,
            costs,
            goal,
            units,
            PER_ENTRY_TAIL,
        ))
    }

    /// The plan of `units`, its header naming `spec`, the unit size, the
    /// totals, the goal and the cost model, then `tail`.
    fn headed(
        spec: &PlanSpec,
        hours: f64,
        costs: &CostTable,
        goal: Goal,
        units: Vec<Unit>,
        tail: &str,
    ) -> Plan {
        let mut plan = Plan {
            header: String::new(),
            units,
            goal,
        };
        plan.header = format!(
            "{MAGIC} slices={} unit-hours={hours} units={} entries={} est-core-hours={}{} costs={}; {}{tail}",
            spec.list,
            plan.units.len(),
            plan.entries(),
            format_hours(plan.seconds()),
            goal,
            costs.source,
            costs.model,
        );
        plan
    }

    /// Whether the plan was cut by each entry's predicted cost (`plan
    /// --per-entry`: its header says so, [`PER_ENTRY_TAIL`]).
    pub fn is_per_entry(&self) -> bool {
        self.header.contains(PER_ENTRY_TAIL)
    }

    /// The unit size of the plan in seconds (`unit-hours=` of its header).
    pub fn unit_seconds(&self) -> Option<f64> {
        let word = self
            .header
            .split(' ')
            .find_map(|w| w.strip_prefix("unit-hours="))?;
        word.parse::<f64>()
            .ok()
            .filter(|h| h.is_finite() && *h > 0.0)
            .map(|h| h * 3600.0)
    }

    /// The parts a unit is searched in: a unit of one entry estimated above
    /// the unit size has its entry cut into ⌈estimate / size⌉ parts (at
    /// most [`MAX_PARTS`]), each checkpointed
    /// ([`crate::exhaust::driver::run_entry_in_parts`]), so a job limited
    /// to about the unit size still makes progress on it; any other unit,
    /// 1. From the estimate as `units.tsv` keeps it (a tenth of a second).
    pub fn parts(&self, unit: &Unit) -> usize {
        let Some(size) = self.unit_seconds() else {
            return 1;
        };
        let est = (unit.est_seconds * 10.0).round() / 10.0;
        if unit.len() != 1 || est <= size {
            return 1;
        }
        ((est / size).ceil() as usize).clamp(1, MAX_PARTS)
    }

    /// Entries planned.
    pub fn entries(&self) -> u64 {
        self.units.iter().map(Unit::len).sum()
    }

    /// Estimated CPU seconds of the whole plan.
    pub fn seconds(&self) -> f64 {
        self.units.iter().map(|u| u.est_seconds).sum()
    }

    /// The unit with the largest estimate (the first of them).
    pub fn largest(&self) -> Option<&Unit> {
        self.units
            .iter()
            .reduce(|a, b| if b.est_seconds > a.est_seconds { b } else { a })
    }

    /// The text of `units.tsv`.
    pub fn to_tsv(&self) -> String {
        let mut text = format!("{}\n{COLUMNS}\n", self.header);
        for u in &self.units {
            writeln!(
                text,
                "{}\t{}\t{}\t{}\t{:.1}",
                u.number, u.k, u.entries.start, u.entries.end, u.est_seconds
            )
            .expect("write to a String");
        }
        text
    }

    /// Reads `units.tsv` (`path` names it in errors): the header, then
    /// units numbered 0, 1, 2, … with valid, non-empty ranges.
    pub fn parse(text: &str, path: &Path) -> Result<Plan, CampaignError> {
        let bad = |line: usize, reason: String| CampaignError::BadFile {
            path: path.to_path_buf(),
            line,
            reason,
        };
        let mut lines = text.lines().enumerate();
        let header = match lines.next() {
            Some((_, h)) if h.starts_with(MAGIC) => h.to_string(),
            _ => return Err(bad(1, format!("not a campaign plan (no {MAGIC:?} header)"))),
        };
        // The goal's words come before `costs=` (whose source may hold any
        // words).
        let words = header.split(" costs=").next().unwrap_or_default();
        let goal: Goal = words
            .parse()
            .map_err(|_| bad(1, "a bad clues= in the header".to_string()))?;
        let mut units = Vec::new();
        for (i, line) in lines {
            let n = i + 1;
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() != 5 {
                return Err(bad(n, format!("expected 5 fields, got {}", f.len())));
            }
            let int = |j: usize| -> Result<u64, CampaignError> {
                f[j].parse()
                    .map_err(|_| bad(n, format!("field {} is not a number: {:?}", j + 1, f[j])))
            };
            let (number, k, a, b) = (int(0)?, int(1)?, int(2)?, int(3)?);
            let est_seconds: f64 = f[4]
                .parse()
                .map_err(|_| bad(n, format!("bad estimate {:?}", f[4])))?;
            if number != units.len() as u64 {
                return Err(bad(
                    n,
                    format!("unit {number} where {} was due", units.len()),
                ));
            }
            if k >= SLICES as u64 || a >= b {
                return Err(bad(
                    n,
                    format!("slice {k}, entries {a}..{b}: no such range"),
                ));
            }
            units.push(Unit {
                number: number as usize,
                k: k as usize,
                entries: a..b,
                est_seconds,
            });
        }
        Ok(Plan {
            header,
            units,
            goal,
        })
    }
}

/// What the header of a plan cut by entry says after its cost model
/// ([`Plan::is_per_entry`]).
pub const PER_ENTRY_TAIL: &str = "; per entry by its bands 3";

mod replan;
pub use replan::{Measured, REPLAN_PRIOR_ENTRIES, Replanned, measured_costs, replan, replan_with};

#[cfg(test)]
mod tests;
