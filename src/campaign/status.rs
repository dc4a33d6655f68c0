//! Reading a campaign back: what each unit has checkpointed, what is
//! wrong, and the 17s of all units.
//!
//! An entry of a unit counts as checkpointed exactly when a resume of the
//! unit would keep it ([`reconcile`]: a complete checkpoint line, and the
//! output holds as many lines for it as the line promises) and it lies in
//! the unit's range. Besides, the raw checkpoint is read for what must not
//! be there: an entry with two checkpoint lines (a resume drops both and
//! searches it again), an entry outside the unit's range, a checkpoint
//! header of another piece of work, a checkpoint file of no unit. Each is
//! a [`Problem`]. The campaign is complete when every unit has all its
//! entries checkpointed and there is no problem: then, since the units
//! cover every planned entry exactly once, every planned entry is
//! checkpointed exactly once.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::fs;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::{CampaignError, Plan, Unit, io_error, out_dir, unit_costs, unit_output, units_path};
use crate::exhaust::checkpoint_header;
use crate::grid::Puzzle;
use crate::known::KnownSet;
use crate::output::{checkpoint_path, reconcile};
use crate::search::{Goal, SearchConfig};

/// Where a unit stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitState {
    /// No result files.
    NotStarted,
    /// Result files, but not every entry checkpointed.
    Partial,
    /// Every entry checkpointed.
    Done,
}

/// Something in a campaign's files that must not be there.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// An entry with two or more checkpoint lines in its unit.
    Twice { unit: usize, entry: u64 },
    /// A checkpointed entry outside its unit's range.
    Outside {
        unit: usize,
        entry: u64,
        entries: Range<u64>,
    },
    /// A unit's checkpoint names another slice or range.
    OtherWork {
        unit: usize,
        found: String,
        expected: String,
    },
    /// A checkpoint file of no unit of the plan.
    Stray { path: PathBuf },
    /// A unit's checkpoint was written searching for another goal.
    OtherGoal {
        unit: usize,
        found: String,
        expected: String,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Twice { unit, entry } => {
                write!(f, "unit {unit}: entry {entry} is checkpointed twice")
            }
            Problem::Outside {
                unit,
                entry,
                entries,
            } => write!(
                f,
                "unit {unit}: entry {entry} is checkpointed outside the unit's entries {}..{}",
                entries.start, entries.end
            ),
            Problem::OtherWork {
                unit,
                found,
                expected,
            } => write!(
                f,
                "unit {unit}: its checkpoint is for other work ({found:?}; the unit is {expected:?})"
            ),
            Problem::OtherGoal {
                unit,
                found,
                expected,
            } => write!(
                f,
                "unit {unit}: its checkpoint was written searching for {found}, but this campaign searches for {expected}"
            ),
            Problem::Stray { path } => {
                write!(f, "{}: a checkpoint of no unit of the plan", path.display())
            }
        }
    }
}

/// One unit, read back.
#[derive(Clone, Debug)]
pub struct UnitStatus {
    pub unit: Unit,
    pub state: UnitState,
    /// Entries of its range checkpointed.
    pub checkpointed: u64,
    /// ED grids of those entries (from the cost file).
    pub grids: u64,
    /// Checkpointed entries with no cost line (their grids are not counted).
    pub uncosted: u64,
    /// CPU seconds spent on the unit (every cost line, entries searched
    /// again included).
    pub cpu_seconds: f64,
    /// The checkpointed entries, as runs of consecutive entries.
    pub done: Vec<Range<u64>>,
    /// The puzzles of the checkpointed entries.
    pub puzzles: Vec<Puzzle>,
    /// Its checkpoint was written under another build or tuning (the same
    /// slice and range; a run of this build would refuse to resume it).
    pub other_build: bool,
}

impl UnitStatus {
    /// The plan's estimate for the entries checkpointed: the unit's
    /// estimate times the share of its entries checkpointed.
    pub fn est_done_seconds(&self) -> f64 {
        self.unit.est_seconds * self.checkpointed as f64 / self.unit.len().max(1) as f64
    }
}

/// The units of one slice, summed (`s17 campaign status --slices`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SliceStatus {
    pub k: usize,
    pub units: usize,
    pub planned: u64,
    pub checkpointed: u64,
    pub grids: u64,
    /// Distinct 17s of the slice's checkpointed entries.
    pub puzzles: usize,
    pub cpu_seconds: f64,
    /// The plan's estimate for the entries checkpointed
    /// ([`UnitStatus::est_done_seconds`]).
    pub est_done_seconds: f64,
    /// The plan's estimate for the slice's planned entries.
    pub est_seconds: f64,
}

/// A whole campaign, read back.
#[derive(Clone, Debug)]
pub struct Status {
    /// The plan's header line.
    pub header: String,
    /// What the campaign searches for (the plan's).
    pub goal: Goal,
    pub units: Vec<UnitStatus>,
    pub problems: Vec<Problem>,
}

/// The part of an exhaust checkpoint header after its fingerprint.
fn work_of(header: &str) -> &str {
    header.find(" band=").map_or(header, |i| &header[i + 1..])
}

/// Complete lines `ENTRY<TAB>COUNT` of a checkpoint after its header.
fn checkpoint_entries(bytes: &[u8]) -> Vec<u64> {
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    lines.pop(); // the part after the last newline: empty or partial
    lines
        .iter()
        .skip(1)
        .filter_map(|line| {
            let text = std::str::from_utf8(line).ok()?;
            let (entry, count) = text.split_once('\t')?;
            count.parse::<u64>().ok()?;
            entry.parse().ok()
        })
        .collect()
}

fn read_or_empty(path: &Path) -> Result<Option<Vec<u8>>, CampaignError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(path)(e)),
    }
}

impl Status {
    /// Reads the campaign in `dir`.
    pub fn read(dir: &Path) -> Result<Status, CampaignError> {
        let path = units_path(dir);
        let text = fs::read_to_string(&path).map_err(io_error(&path))?;
        let plan = Plan::parse(&text, &path)?;
        let mut problems = Vec::new();
        let mut units = Vec::with_capacity(plan.units.len());
        for unit in &plan.units {
            units.push(read_unit(dir, unit, &plan.goal, &mut problems)?);
        }
        // Checkpoints of no unit (a plan replaced by a smaller one).
        let out = out_dir(dir);
        if let Ok(listing) = fs::read_dir(&out) {
            let mut stray = Vec::new();
            for item in listing {
                let name = item.map_err(io_error(&out))?.file_name();
                let name = name.to_string_lossy();
                if let Some(number) = name.strip_suffix(".txt.done")
                    && number.parse::<usize>().is_ok_and(|n| n >= plan.units.len())
                {
                    stray.push(out.join(&*name));
                }
            }
            stray.sort();
            problems.extend(stray.into_iter().map(|path| Problem::Stray { path }));
        }
        Ok(Status {
            header: plan.header,
            goal: plan.goal,
            units,
            problems,
        })
    }

    /// Entries planned.
    pub fn planned(&self) -> u64 {
        self.units.iter().map(|u| u.unit.len()).sum()
    }

    /// Entries checkpointed (in their units' ranges).
    pub fn checkpointed(&self) -> u64 {
        self.units.iter().map(|u| u.checkpointed).sum()
    }

    /// The units summed per slice, by slice.
    pub fn by_slice(&self) -> Vec<SliceStatus> {
        let mut slices: BTreeMap<usize, (SliceStatus, BTreeSet<Puzzle>)> = BTreeMap::new();
        for u in &self.units {
            let (slice, puzzles) = slices.entry(u.unit.k).or_default();
            slice.k = u.unit.k;
            slice.units += 1;
            slice.planned += u.unit.len();
            slice.checkpointed += u.checkpointed;
            slice.grids += u.grids;
            slice.cpu_seconds += u.cpu_seconds;
            slice.est_seconds += u.unit.est_seconds;
            slice.est_done_seconds += u.est_done_seconds();
            puzzles.extend(u.puzzles.iter().copied());
        }
        slices
            .into_values()
            .map(|(slice, puzzles)| SliceStatus {
                puzzles: puzzles.len(),
                ..slice
            })
            .collect()
    }

    /// The units in `state`, by number.
    pub fn in_state(&self, state: UnitState) -> Vec<usize> {
        self.units
            .iter()
            .filter(|u| u.state == state)
            .map(|u| u.unit.number)
            .collect()
    }

    /// True when every planned entry is checkpointed exactly once.
    pub fn complete(&self) -> bool {
        self.problems.is_empty() && self.units.iter().all(|u| u.state == UnitState::Done)
    }

    /// What keeps the campaign from being complete, in a few lines
    /// (`None` when it is complete).
    pub fn missing(&self) -> Option<String> {
        if self.complete() {
            return None;
        }
        let mut lines = Vec::new();
        let partial = self.in_state(UnitState::Partial);
        if !partial.is_empty() {
            lines.push(format!("partial units: {}", name_units(&partial)));
        }
        let not_started = self.in_state(UnitState::NotStarted);
        if !not_started.is_empty() {
            lines.push(format!("units not started: {}", name_units(&not_started)));
        }
        lines.extend(self.problems.iter().take(20).map(|p| format!("error: {p}")));
        if self.problems.len() > 20 {
            lines.push(format!("… and {} more errors", self.problems.len() - 20));
        }
        Some(lines.join("\n"))
    }
}

/// Reads unit `unit`'s files.
fn read_unit(
    dir: &Path,
    unit: &Unit,
    goal: &Goal,
    problems: &mut Vec<Problem>,
) -> Result<UnitStatus, CampaignError> {
    let n = unit.number;
    let output_path = unit_output(dir, n);
    let done_path = checkpoint_path(&output_path);
    let mut status = UnitStatus {
        unit: unit.clone(),
        state: UnitState::NotStarted,
        checkpointed: 0,
        grids: 0,
        uncosted: 0,
        cpu_seconds: 0.0,
        done: Vec::new(),
        puzzles: Vec::new(),
        other_build: false,
    };
    let output = read_or_empty(&output_path)?;
    let checkpoint = read_or_empty(&done_path)?;
    if output.is_none() && checkpoint.is_none() {
        return Ok(status);
    }
    status.state = UnitState::Partial;
    let (output, checkpoint) = (output.unwrap_or_default(), checkpoint.unwrap_or_default());
    let expected = checkpoint_header(unit.k, &unit.entries, &SearchConfig::default(), goal);
    let found = match checkpoint.iter().position(|&b| b == b'\n') {
        Some(end) => String::from_utf8_lossy(&checkpoint[..end]).into_owned(),
        None => expected.clone(), // no complete header: nothing checkpointed
    };
    if work_of(&found) != work_of(&expected) {
        if let Some(other) = super::run::other_goal(&found, goal) {
            problems.push(Problem::OtherGoal {
                unit: n,
                found: other,
                expected: super::goal_description(goal),
            });
            return Ok(status);
        }
        problems.push(Problem::OtherWork {
            unit: n,
            found: work_of(&found).to_string(),
            expected: work_of(&expected).to_string(),
        });
        return Ok(status);
    }
    status.other_build = found != expected;
    let kept = reconcile(&found, &output, &checkpoint).expect("the header is the file's own");
    let mut lines: HashMap<u64, usize> = HashMap::new();
    for entry in checkpoint_entries(&checkpoint) {
        *lines.entry(entry).or_default() += 1;
    }
    let mut twice: Vec<u64> = lines
        .iter()
        .filter(|&(_, &c)| c > 1)
        .map(|(&e, _)| e)
        .collect();
    twice.sort();
    problems.extend(
        twice
            .into_iter()
            .map(|entry| Problem::Twice { unit: n, entry }),
    );
    for &entry in &kept.done {
        if !unit.entries.contains(&(entry as u64)) {
            problems.push(Problem::Outside {
                unit: n,
                entry: entry as u64,
                entries: unit.entries.clone(),
            });
        }
    }
    let inside = |e: usize| unit.entries.contains(&(e as u64));
    status.checkpointed = kept.done.iter().filter(|&&e| inside(e)).count() as u64;
    let mut done: Vec<u64> = kept
        .done
        .iter()
        .filter(|&&e| inside(e))
        .map(|&e| e as u64)
        .collect();
    done.sort_unstable();
    for e in done {
        match status.done.last_mut() {
            Some(run) if run.end == e => run.end += 1,
            _ => status.done.push(e..e + 1),
        }
    }
    status.puzzles = kept
        .found
        .iter()
        .filter(|(e, _)| inside(*e))
        .map(|(_, p)| *p)
        .collect();
    if status.checkpointed == unit.len() {
        status.state = UnitState::Done;
    }
    // The cost lines: CPU time of every line, grids of the checkpointed
    // entries (the last line of each).
    let costs_path = unit_costs(dir, n);
    let costs = read_or_empty(&costs_path)?.unwrap_or_default();
    let mut grids: HashMap<u64, u64> = HashMap::new();
    for line in String::from_utf8_lossy(&costs).lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if let [entry, g, _, secs] = f[..]
            && let (Ok(entry), Ok(g), Ok(secs)) = (entry.parse(), g.parse(), secs.parse::<f64>())
        {
            grids.insert(entry, g);
            status.cpu_seconds += secs;
        }
    }
    for &entry in kept.done.iter().filter(|&&e| inside(e)) {
        match grids.get(&(entry as u64)) {
            Some(g) => status.grids += g,
            None => status.uncosted += 1,
        }
    }
    Ok(status)
}

/// Unit numbers as ranges, `3, 5-9, 12`, at most 30 of them.
pub fn name_units(units: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &u in units {
        match runs.last_mut() {
            Some((_, last)) if *last + 1 == u => *last = u,
            _ => runs.push((u, u)),
        }
    }
    let mut parts: Vec<String> = runs
        .iter()
        .take(30)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    if runs.len() > 30 {
        parts.push(format!("… ({} units in all)", units.len()));
    }
    parts.join(", ")
}

/// The 17s of a campaign, merged.
#[derive(Clone, Debug, Default)]
pub struct Merged {
    /// Every 17 once, as a minlex puzzle, sorted.
    pub puzzles: Vec<Puzzle>,
    /// Per slice of the plan: the distinct 17s its units found.
    pub per_slice: BTreeMap<usize, u64>,
    /// The 17s not in the known list (with one), sorted.
    pub new: Vec<Puzzle>,
}

/// Merges the 17s of `status`'s units. An incomplete campaign is refused,
/// naming what is missing, unless `partial` (then the checkpointed entries'
/// 17s are merged).
pub fn merge(
    dir: &Path,
    status: &Status,
    known: Option<&KnownSet>,
    partial: bool,
) -> Result<Merged, CampaignError> {
    if !partial && let Some(missing) = status.missing() {
        return Err(CampaignError::Incomplete {
            dir: dir.to_path_buf(),
            missing,
        });
    }
    let all: BTreeSet<Puzzle> = status
        .units
        .iter()
        .flat_map(|u| u.puzzles.iter().copied())
        .collect();
    let new = match known {
        Some(set) => all.iter().filter(|p| !set.contains(p)).copied().collect(),
        None => Vec::new(),
    };
    Ok(Merged {
        puzzles: all.into_iter().collect(),
        per_slice: status
            .by_slice()
            .into_iter()
            .map(|s| (s.k, s.puzzles as u64))
            .collect(),
        new,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_names_come_as_runs() {
        assert_eq!(name_units(&[3, 5, 6, 7, 8, 9, 12]), "3, 5-9, 12");
        assert_eq!(name_units(&[]), "");
        let many: Vec<usize> = (0..100).map(|i| 2 * i).collect();
        assert!(name_units(&many).ends_with("… (100 units in all)"));
    }

    #[test]
    fn raw_checkpoint_lines_and_the_work_they_name() {
        let bytes = b"# s17 exhaust checkpoint v1 input=00 band=3 entries=0..5\n0\t0\n4\t1\n4\t1\nx\t1\n2\t";
        assert_eq!(checkpoint_entries(bytes), vec![0, 4, 4]);
        assert_eq!(
            work_of("# s17 exhaust checkpoint v1 input=0123 band=3 entries=0..5"),
            "band=3 entries=0..5"
        );
    }
}
