//! Re-planning a running campaign (`s17 campaign plan --replan`): the
//! units started kept as they are, the entries of the others cut again by
//! the costs the campaign measured ([`measured_costs`], [`replan_with`]).

use std::collections::BTreeSet;
use std::ops::Range;
use std::path::Path;

use super::{
    MAGIC, MAX_UNITS, PER_ENTRY_TAIL, Plan, Unit, check_unit_hours, cut_by_entry, even_cuts,
    format_hours, hi_weight, pieces_bands3, predicted_costs, unit_count,
};
use crate::campaign::{CampaignError, CostTable, SLICES, io_error, out_dir, unit_costs, work};
use crate::ed::Ed;

/// Pseudo-entries at the campaign-wide ratio that a slice's own measured
/// ratio is pooled with when re-planning ([`replan`]): entry costs are
/// heavy-tailed, so a slice with a few measured entries moves only part
/// of the way to their ratio.
pub const REPLAN_PRIOR_ENTRIES: f64 = 10.0;

/// One slice's measured cost in a running campaign: the cost lines of its
/// units' `.cost` records against the plan's table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    pub k: usize,
    /// Cost lines (entries searched, repeats after a kill included).
    pub entries: u64,
    /// Their CPU seconds.
    pub seconds: f64,
    /// What the plan predicted for them: the table's cost per entry
    /// times their lines, or their per-entry predictions for a plan cut
    /// by entry ([`measured_costs`]).
    pub planned: f64,
    /// The ratio the re-plan corrects the slice's cost by (pooled with
    /// the campaign-wide ratio, [`REPLAN_PRIOR_ENTRIES`]).
    pub ratio: f64,
}

/// A re-plan of a running campaign ([`replan`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Replanned {
    pub plan: Plan,
    /// Units kept as they were (started: some file of theirs exists).
    pub kept: usize,
    /// Units cut again from the entries of the units not started.
    pub new: usize,
    /// The slices measured, in slice order.
    pub measured: Vec<Measured>,
    /// Measured over planned seconds of every cost line (1 when none).
    pub ratio: f64,
}

/// The units of a campaign's directory that have started: a file of
/// theirs (`UNIT.txt*` under `out/`, a claim or done marker under
/// `claims/`) exists.
fn started_units(dir: &Path) -> Result<BTreeSet<usize>, CampaignError> {
    let mut started = BTreeSet::new();
    for sub in [out_dir(dir), work::claims_dir(dir)] {
        let list = match std::fs::read_dir(&sub) {
            Ok(list) => list,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io_error(&sub)(e)),
        };
        for f in list {
            let f = f.map_err(io_error(&sub))?;
            let name = f.file_name();
            let name = name.to_string_lossy();
            if let Some(n) = name.split('.').next().and_then(|n| n.parse().ok()) {
                started.insert(n);
            }
        }
    }
    Ok(started)
}

/// The measured costs of the units of `plan` in `dir` (their `.cost`
/// records; a partial last line left by a kill is skipped), per slice,
/// against `costs`, with each slice's pooled ratio and the campaign-wide
/// one. The seconds planned for the entries measured are the table's cost
/// per entry times their cost lines, or, for a plan cut by entry
/// ([`Plan::is_per_entry`]) when `ed` is given, the sum of the per-entry
/// predictions of the same entries ([`predicted_costs`] over the plan's
/// entries of their slice): a heavy entry measured first is then judged
/// against its own heavy prediction, not against the slice's mean.
pub fn measured_costs(
    dir: &Path,
    plan: &Plan,
    costs: &CostTable,
    ed: Option<&Ed>,
) -> Result<(Vec<Measured>, f64), CampaignError> {
    let ed = ed.filter(|_| plan.is_per_entry());
    // (lines, seconds, planned seconds) per slice.
    let mut per_slice = vec![(0u64, 0.0f64, 0.0f64); SLICES];
    let mut by_slice: Vec<Vec<&Unit>> = vec![Vec::new(); SLICES];
    for u in &plan.units {
        by_slice[u.k].push(u);
    }
    for (k, units) in by_slice.iter().enumerate() {
        let mut lines: Vec<(u64, f64)> = Vec::new();
        for u in units {
            let path = unit_costs(dir, u.number);
            let text = match std::fs::read(&path) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io_error(&path)(e)),
            };
            for line in text.split_terminator('\n') {
                let f: Vec<&str> = line.split('\t').collect();
                let parsed = match f[..] {
                    [entry, _, _, secs] => entry.parse::<u64>().ok().zip(secs.parse::<f64>().ok()),
                    _ => None,
                }
                .filter(|(_, s)| s.is_finite() && *s >= 0.0);
                if let Some(line) = parsed {
                    lines.push(line);
                }
            }
        }
        if lines.is_empty() {
            continue;
        }
        let per = costs.slices[k].per_entry;
        let planned = match ed {
            Some(ed) => {
                let predicted = SlicePredictions::new(ed, plan, k, units, costs);
                lines
                    .iter()
                    .map(|&(e, _)| predicted.of(e).unwrap_or(per))
                    .sum()
            }
            None => per * lines.len() as f64,
        };
        per_slice[k] = (
            lines.len() as u64,
            lines.iter().map(|&(_, s)| s).sum(),
            planned,
        );
    }
    let (all_secs, all_planned) = per_slice
        .iter()
        .fold((0.0, 0.0), |(s, p), &(_, secs, planned)| {
            (s + secs, p + planned)
        });
    let ratio = if all_planned > 0.0 {
        all_secs / all_planned
    } else {
        1.0
    };
    let measured = per_slice
        .iter()
        .enumerate()
        .filter(|(_, (n, _, _))| *n > 0)
        .map(|(k, &(n, seconds, planned))| {
            let per = costs.slices[k].per_entry;
            Measured {
                k,
                entries: n,
                seconds,
                planned,
                ratio: (seconds + REPLAN_PRIOR_ENTRIES * ratio * per)
                    / (planned + REPLAN_PRIOR_ENTRIES * per),
            }
        })
        .collect();
    Ok((measured, ratio))
}

/// The per-entry predictions of a plan cut by entry for one slice: each
/// planned entry's cost as the plan predicted it ([`predicted_costs`] over the
/// plan's entries of the slice, `costs`' cost per entry, the goal's
/// weights), kept by runs of entries.
struct SlicePredictions {
    /// Maximal runs of the slice's planned entries, in order, and the
    /// prediction of each entry of each.
    pieces: Vec<(usize, Range<u64>)>,
    costs: Vec<Vec<f64>>,
}

impl SlicePredictions {
    fn new(ed: &Ed, plan: &Plan, k: usize, units: &[&Unit], costs: &CostTable) -> Self {
        let mut ranges: Vec<Range<u64>> = units.iter().map(|u| u.entries.clone()).collect();
        ranges.sort_by_key(|r| r.start);
        let mut pieces: Vec<(usize, Range<u64>)> = Vec::new();
        for r in ranges {
            match pieces.last_mut() {
                Some((_, last)) if last.end == r.start => last.end = r.end,
                _ => pieces.push((k, r)),
            }
        }
        let bands3 = pieces_bands3(ed, &pieces, hi_weight(&plan.goal));
        let costs = predicted_costs(&pieces, &bands3, costs, &plan.goal);
        SlicePredictions { pieces, costs }
    }

    /// The prediction of entry `e`, if it is planned.
    fn of(&self, e: u64) -> Option<f64> {
        let i = self
            .pieces
            .partition_point(|(_, r)| r.start <= e)
            .checked_sub(1)?;
        let (_, r) = &self.pieces[i];
        r.contains(&e)
            .then(|| self.costs[i][(e - r.start) as usize])
    }
}

/// Re-plans what is left of the campaign `plan` in `dir` (`s17 campaign
/// plan --replan`): every unit that has started (`started_units`) is
/// kept as it is (its number, entries and estimate, so its files and
/// parts stay valid); the entries of the units not started are cut again
/// into units of about `unit_hours`, by `costs` corrected per slice by
/// the measured over planned CPU time of the campaign's `.cost` records
/// ([`measured_costs`]: for a plan cut by entry, against the per-entry
/// predictions of the entries measured; a slice with none by the
/// campaign-wide ratio).
/// The new units take the numbers of the units they replace, in order,
/// then numbers after the last (a slice left with fewer units than it
/// had is cut finer, so no number is left empty). Every planned entry is
/// still in exactly one unit; what a unit finds does not depend on how
/// entries are cut. Workers must be stopped while the plan is replaced
/// (a running worker knows the old units).
pub fn replan(
    dir: &Path,
    plan: &Plan,
    costs: &CostTable,
    unit_hours: f64,
) -> Result<Replanned, CampaignError> {
    replan_with(dir, plan, costs, unit_hours, None)
}

/// [`replan`], the units not started cut by each entry's predicted cost
/// when `ed` is given (`plan --replan --per-entry`, [`Plan::per_entry`]):
/// the slices' corrected costs shared among their entries left by their
/// bands 3.
pub fn replan_with(
    dir: &Path,
    plan: &Plan,
    costs: &CostTable,
    unit_hours: f64,
    ed: Option<&Ed>,
) -> Result<Replanned, CampaignError> {
    let hours = check_unit_hours(unit_hours)?;
    let target = hours * 3600.0;
    let started = started_units(dir)?;
    // A plan cut by entry is judged by its per-entry predictions (an Ed
    // made for it when the new cuts are flat).
    let own = (plan.is_per_entry() && ed.is_none()).then(Ed::new);
    let (measured, ratio) = measured_costs(dir, plan, costs, ed.or(own.as_ref()))?;
    let corrected = corrected_costs(costs, &measured, ratio);
    let (pieces, free) = left_pieces(plan, &started);
    // Per entry: each piece's cuts by the predicted costs, as counts of
    // entries; else nearly equal lengths.
    let predicted = ed.map(|ed| {
        predicted_costs(
            &pieces,
            &pieces_bands3(ed, &pieces, hi_weight(&plan.goal)),
            &corrected,
            &plan.goal,
        )
    });
    let mut cuts: Vec<Option<Vec<Range<u64>>>> = match &predicted {
        Some(p) => p.iter().map(|c| Some(cut_by_entry(c, target))).collect(),
        None => vec![None; pieces.len()],
    };
    let counts = unit_counts(&pieces, &mut cuts, &corrected, target, free.len());
    let new: u64 = counts.iter().sum();
    let total = plan.units.len() - free.len() + new as usize;
    if total > MAX_UNITS {
        return Err(CampaignError::BadUnitHours(format!(
            "{hours} core-hours per unit gives {total} units, more than {MAX_UNITS}; plan larger units"
        )));
    }
    let mut numbers = free.into_iter().chain(plan.units.len()..);
    let mut units: Vec<Unit> = plan
        .units
        .iter()
        .filter(|u| started.contains(&u.number))
        .cloned()
        .collect();
    for (j, ((k, range), &m)) in pieces.iter().zip(&counts).enumerate() {
        let ranges: Vec<Range<u64>> = match &cuts[j] {
            Some(cut) => cut.clone(),
            None => even_cuts(range.end - range.start, m).collect(),
        };
        for r in ranges {
            let est_seconds = match &predicted {
                Some(p) => p[j][r.start as usize..r.end as usize].iter().sum(),
                None => corrected.seconds(*k, r.end - r.start),
            };
            units.push(Unit {
                number: numbers.next().expect("numbers never run out"),
                k: *k,
                entries: range.start + r.start..range.start + r.end,
                est_seconds,
            });
        }
    }
    units.sort_by_key(|u| u.number);
    let kept = total - new as usize;
    let mut out = Plan {
        header: String::new(),
        units,
        goal: plan.goal,
    };
    let lines: u64 = measured.iter().map(|m| m.entries).sum();
    let replanned =
        format!("replanned: {kept} units kept, {lines} cost lines measured at {ratio:.3} of plan");
    out.header = replan_header(plan, &out, hours, costs, ed.is_some(), &replanned);
    Ok(Replanned {
        plan: out,
        kept,
        new: new as usize,
        measured,
        ratio,
    })
}

/// `costs` corrected by what the campaign measured: every slice by the
/// campaign-wide `ratio`, a slice with cost lines of its own by its own
/// ratio.
fn corrected_costs(costs: &CostTable, measured: &[Measured], ratio: f64) -> CostTable {
    let mut corrected = costs.clone();
    for s in corrected.slices.iter_mut() {
        s.per_entry *= ratio;
        s.per_weight = s.per_weight.map(|p| p * ratio);
    }
    for m in measured {
        let (was, now) = (&costs.slices[m.k], &mut corrected.slices[m.k]);
        now.per_entry = was.per_entry * m.ratio;
        now.per_weight = was.per_weight.map(|p| p * m.ratio);
    }
    corrected
}

/// The entries of the units of `plan` not `started`, as maximal runs
/// (slice, entries) in order, and the numbers those units free.
fn left_pieces(plan: &Plan, started: &BTreeSet<usize>) -> (Vec<(usize, Range<u64>)>, Vec<usize>) {
    let mut pieces: Vec<(usize, Range<u64>)> = Vec::new();
    let mut left: Vec<&Unit> = plan
        .units
        .iter()
        .filter(|u| !started.contains(&u.number))
        .collect();
    let free: Vec<usize> = left.iter().map(|u| u.number).collect();
    left.sort_by_key(|u| (u.k, u.entries.start));
    for u in left {
        match pieces.last_mut() {
            Some((k, r)) if *k == u.k && r.end == u.entries.start => r.end = u.entries.end,
            _ => pieces.push((u.k, u.entries.clone())),
        }
    }
    (pieces, free)
}

/// The number of units each piece is cut into: its `cuts` by entry where
/// given, else about `target` seconds each by the `corrected` costs; with
/// fewer units than the `free` numbers, the piece of the longest units is
/// cut finer (and then in nearly equal lengths: its cut by entry dropped)
/// until no number is left empty.
fn unit_counts(
    pieces: &[(usize, Range<u64>)],
    cuts: &mut [Option<Vec<Range<u64>>>],
    corrected: &CostTable,
    target: f64,
    free: usize,
) -> Vec<u64> {
    let mut counts: Vec<u64> = pieces
        .iter()
        .zip(cuts.iter())
        .map(|((k, r), cut)| match cut {
            Some(cut) => cut.len() as u64,
            None => unit_count(r.end - r.start, corrected.slices[*k].per_entry, target),
        })
        .collect();
    while (counts.iter().sum::<u64>() as usize) < free {
        let (i, _) = pieces
            .iter()
            .zip(&counts)
            .enumerate()
            .filter(|(_, ((_, r), m))| r.end - r.start > **m)
            .max_by_key(|(_, ((_, r), m))| (r.end - r.start).div_ceil(**m))
            .expect("the units replaced had an entry each");
        counts[i] += 1;
        cuts[i] = None;
    }
    counts
}

/// The header of a re-planned `out`: that of a plan of `hours` per unit
/// (the slices of the old `plan`, its goal, the costs and model), then
/// what the re-planning did (`replanned`).
fn replan_header(
    plan: &Plan,
    out: &Plan,
    hours: f64,
    costs: &CostTable,
    per_entry: bool,
    replanned: &str,
) -> String {
    let list = plan
        .header
        .split(' ')
        .find_map(|w| w.strip_prefix("slices="))
        .unwrap_or("?");
    format!(
        "{MAGIC} slices={list} unit-hours={hours} units={} entries={} est-core-hours={}{} costs={}; {}{}; {replanned}",
        out.units.len(),
        out.entries(),
        format_hours(out.seconds()),
        plan.goal,
        costs.source,
        costs.model,
        if per_entry { PER_ENTRY_TAIL } else { "" },
    )
}
