//! Reading a campaign back: what each unit has checkpointed, what is
//! wrong, and the 17s of all units.
//!
//! Everything streams: a unit's output is read line by line and only
//! per-unit counts are kept (the entries of its checkpoint, a count per
//! entry), so memory does not grow with the puzzles found. Distinct
//! puzzles are counted exactly while they are few ([`DISTINCT_CAP`]);
//! beyond that `status` gives the lines and `merge` the distinct ones
//! ([`merge_into`], in [`super::merge`]). The per-line checks are in
//! [`super::lines`].
//!
//! Every complete line of a unit's output is checked: `ENTRY<TAB>PUZZLE`
//! with an entry of the unit and a well-formed puzzle (81 digits or dots,
//! no digit twice in a row, column or box) of the goal's clue count; so is
//! every complete checkpoint line. Each bad line is a [`Problem`] naming
//! the unit, the file and the line; no byte of any file makes the reader
//! panic. Only a last line without its newline (a kill while writing) is
//! left alone: a resume drops it.
//!
//! An entry of a unit counts as checkpointed exactly when a resume of the
//! unit would keep it (`reconcile`: a complete checkpoint line, and the
//! output holds as many lines for it as the line promises) and it lies in
//! the unit's range. Besides, the raw checkpoint is read for what must not
//! be there: an entry with two checkpoint lines (a resume drops both and
//! searches it again), an entry outside the unit's range, a checkpoint
//! header of another piece of work, a checkpoint file of no unit. Each is
//! a [`Problem`]. The campaign is complete when every unit has all its
//! entries checkpointed and there is no problem: then, since the units
//! cover every planned entry exactly once, every planned entry is
//! checkpointed exactly once.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs;
use std::io::BufRead;
use std::ops::Range;
use std::path::Path;

use super::lines::{
    BadLines, check_puzzle, for_each_line, open_or_none, parse_checkpoint_line, read_or_empty,
    split_entry, work_of,
};
pub use super::merge::{CHUNK, Merged, check_mergeable, merge_into};
use super::{CampaignError, Plan, Unit, io_error, out_dir, unit_costs, unit_output, units_path};
use crate::exhaust::checkpoint_header;
use crate::grid::{CELLS, Puzzle};
use crate::output::checkpoint_path;
use crate::search::{Goal, SearchConfig};

/// Distinct puzzles `status` counts exactly (held in memory, 24 bytes
/// each: [`PackedPuzzle`]); beyond, it counts lines.
pub const DISTINCT_CAP: usize = 1 << 18;
pub use super::lines::{NAMED_LINES, Problem};

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
    /// Puzzle lines of the checkpointed entries.
    pub lines: u64,
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
    /// Distinct 17s of the slice's checkpointed entries (their lines when
    /// the campaign holds more than [`DISTINCT_CAP`]: see
    /// [`Status::distinct_exact`]).
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
    /// Distinct puzzles per slice, while at most [`DISTINCT_CAP`] in all.
    distinct: Option<BTreeMap<usize, HashSet<PackedPuzzle>>>,
}

impl Status {
    /// Reads the campaign in `dir`, counting distinct puzzles while they
    /// are few ([`DISTINCT_CAP`]).
    pub fn read(dir: &Path) -> Result<Status, CampaignError> {
        Status::read_with(dir, true)
    }

    /// Reads the campaign in `dir` without counting distinct puzzles
    /// ([`Status::distinct_exact`] is false): what a merge needs.
    pub fn read_counts(dir: &Path) -> Result<Status, CampaignError> {
        Status::read_with(dir, false)
    }

    fn read_with(dir: &Path, count_distinct: bool) -> Result<Status, CampaignError> {
        let path = units_path(dir);
        let text = fs::read_to_string(&path).map_err(io_error(&path))?;
        let plan = Plan::parse(&text, &path)?;
        let mut problems = Vec::new();
        let mut units = Vec::with_capacity(plan.units.len());
        let mut distinct = count_distinct.then(Distinct::default);
        for unit in &plan.units {
            units.push(read_unit(
                dir,
                unit,
                &plan.goal,
                &mut problems,
                &mut distinct,
            )?);
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
            distinct: distinct.map(|d| d.sets),
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

    /// Whether [`SliceStatus::puzzles`] and [`Status::puzzles`] count
    /// distinct puzzles (else lines: more than [`DISTINCT_CAP`]).
    pub fn distinct_exact(&self) -> bool {
        self.distinct.is_some()
    }

    /// Distinct puzzles of the checkpointed entries (lines when not
    /// [`Status::distinct_exact`]).
    pub fn puzzles(&self) -> u64 {
        match &self.distinct {
            Some(sets) => {
                let mut all: HashSet<&PackedPuzzle> = HashSet::new();
                sets.values().for_each(|s| all.extend(s.iter()));
                all.len() as u64
            }
            None => self.units.iter().map(|u| u.lines).sum(),
        }
    }

    /// The units summed per slice, by slice.
    pub fn by_slice(&self) -> Vec<SliceStatus> {
        let mut slices: BTreeMap<usize, SliceStatus> = BTreeMap::new();
        for u in &self.units {
            let slice = slices.entry(u.unit.k).or_default();
            slice.k = u.unit.k;
            slice.units += 1;
            slice.planned += u.unit.len();
            slice.checkpointed += u.checkpointed;
            slice.grids += u.grids;
            slice.cpu_seconds += u.cpu_seconds;
            slice.est_seconds += u.unit.est_seconds;
            slice.est_done_seconds += u.est_done_seconds();
            slice.puzzles += u.lines as usize;
        }
        if let Some(sets) = &self.distinct {
            for slice in slices.values_mut() {
                slice.puzzles = sets.get(&slice.k).map_or(0, HashSet::len);
            }
        }
        slices.into_values().collect()
    }

    /// The units in `state`, by number.
    pub fn in_state(&self, state: UnitState) -> Vec<usize> {
        self.units
            .iter()
            .filter(|u| u.state == state)
            .map(|u| u.unit.number)
            .collect()
    }

    /// The units a rerun must run: those not done.
    pub fn to_rerun(&self) -> Vec<usize> {
        self.units
            .iter()
            .filter(|u| u.state != UnitState::Done)
            .map(|u| u.unit.number)
            .collect()
    }

    /// True when every planned entry is checkpointed exactly once.
    pub fn complete(&self) -> bool {
        self.problems.is_empty() && self.units.iter().all(|u| u.state == UnitState::Done)
    }

    /// The slices whose units are all done (with no problem of theirs).
    pub fn complete_slices(&self) -> BTreeSet<usize> {
        let mut bad: BTreeSet<usize> = BTreeSet::new();
        let mut all: BTreeSet<usize> = BTreeSet::new();
        for u in &self.units {
            all.insert(u.unit.k);
            if u.state != UnitState::Done {
                bad.insert(u.unit.k);
            }
        }
        for p in &self.problems {
            match p {
                Problem::Twice { unit, .. }
                | Problem::Outside { unit, .. }
                | Problem::OtherWork { unit, .. }
                | Problem::OtherGoal { unit, .. }
                | Problem::BadLine { unit, .. }
                | Problem::MoreBadLines { unit, .. } => {
                    if let Some(u) = self.units.get(*unit) {
                        bad.insert(u.unit.k);
                    }
                }
                Problem::Stray { .. } => {}
            }
        }
        all.difference(&bad).copied().collect()
    }

    /// The faults ([`Problem::is_fault`]) as lines, `None` when there are
    /// none.
    pub fn faults(&self) -> Option<String> {
        let faults: Vec<String> = self
            .problems
            .iter()
            .filter(|p| p.is_fault())
            .map(|p| format!("error: {p}"))
            .collect();
        (!faults.is_empty()).then(|| faults.join("\n"))
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

/// Distinct puzzles per slice while there are few.
#[derive(Default)]
struct Distinct {
    sets: BTreeMap<usize, HashSet<PackedPuzzle>>,
    held: usize,
}

/// A puzzle of at most 27 clues in 24 bytes, one-to-one: its clue cells
/// (81 bits) and its clues' digits in cell order (4 bits each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PackedPuzzle([u64; 3]);

impl PackedPuzzle {
    /// Most clues a packed puzzle holds.
    pub const MAX_CLUES: usize = 27;

    /// `None` for a puzzle of more than [`PackedPuzzle::MAX_CLUES`] clues.
    pub fn new(p: &Puzzle) -> Option<PackedPuzzle> {
        let (mut cells, mut digits, mut n) = (0u128, 0u128, 0usize);
        for (i, &d) in p.digits().iter().enumerate() {
            if d != 0 {
                if n == Self::MAX_CLUES {
                    return None;
                }
                cells |= 1 << i;
                digits |= (d as u128) << (4 * n);
                n += 1;
            }
        }
        // 81 + 108 bits: cells in the low 81 bits, digits above.
        let all = [cells | (digits << 81), digits >> 47];
        Some(PackedPuzzle([
            all[0] as u64,
            (all[0] >> 64) as u64,
            all[1] as u64,
        ]))
    }
}

/// Reads unit `unit`'s files, streaming its output.
fn read_unit(
    dir: &Path,
    unit: &Unit,
    goal: &Goal,
    problems: &mut Vec<Problem>,
    distinct: &mut Option<Distinct>,
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
        lines: 0,
        other_build: false,
    };
    let output = open_or_none(&output_path)?;
    let checkpoint = read_or_empty(&done_path)?;
    if output.is_none() && checkpoint.is_none() {
        return Ok(status);
    }
    status.state = UnitState::Partial;
    let checkpoint = checkpoint.unwrap_or_default();
    match check_header(unit, goal, &checkpoint, &done_path, problems) {
        Some(other_build) => status.other_build = other_build,
        None => return Ok(status),
    }
    let (promised, order) = read_promises(n, &checkpoint, &done_path, problems)?;
    let present = match output {
        Some(mut reader) => count_output(unit, goal, &mut reader, &output_path, problems)?,
        None => HashMap::new(),
    };
    let done = settle_done(unit, &promised, order, &present, &mut status, problems);
    drop(present);
    if status.checkpointed == unit.len() {
        status.state = UnitState::Done;
    }
    hold_distinct(dir, &status, goal, distinct)?;
    add_costs(dir, &done, &mut status)?;
    Ok(status)
}

/// Checks the first line of a unit's checkpoint against the header a run
/// of `unit` for `goal` writes: `Some(other_build)` when it is the unit's
/// work (`other_build`: written by another build or configuration), `None`
/// with the problem named when the header is not text, or names another
/// goal or other work. A checkpoint without a complete header has nothing
/// checkpointed: it passes.
fn check_header(
    unit: &Unit,
    goal: &Goal,
    checkpoint: &[u8],
    done_path: &Path,
    problems: &mut Vec<Problem>,
) -> Option<bool> {
    let n = unit.number;
    let expected = checkpoint_header(unit.k, &unit.entries, &SearchConfig::default(), goal);
    let found = match checkpoint.iter().position(|&b| b == b'\n') {
        Some(end) => match std::str::from_utf8(&checkpoint[..end]) {
            Ok(text) => text.to_string(),
            Err(_) => {
                problems.push(Problem::BadLine {
                    unit: n,
                    path: done_path.to_path_buf(),
                    line: 1,
                    why: "the checkpoint header is not text (a byte that is not UTF-8)".into(),
                });
                return None;
            }
        },
        None => expected.clone(), // no complete header: nothing checkpointed
    };
    if work_of(&found) != work_of(&expected) {
        if let Some(theirs) = found.parse::<Goal>().ok().filter(|g| g != goal) {
            problems.push(Problem::OtherGoal {
                unit: n,
                found: theirs.description(),
                expected: goal.description(),
            });
            return None;
        }
        problems.push(Problem::OtherWork {
            unit: n,
            found: work_of(&found).to_string(),
            expected: work_of(&expected).to_string(),
        });
        return None;
    }
    Some(found != expected)
}

/// Entry -> the count its checkpoint line promises (`None`: two lines).
type Promises = HashMap<u64, Option<u64>>;

/// The checkpoint's lines after its header: entry -> promised count
/// (`None`: the entry is checkpointed twice, named as a problem), and the
/// entries in the order of their first line. Lines that are not
/// `ENTRY<TAB>COUNT` are named.
fn read_promises(
    n: usize,
    checkpoint: &[u8],
    done_path: &Path,
    problems: &mut Vec<Problem>,
) -> Result<(Promises, Vec<u64>), CampaignError> {
    let mut promised = Promises::new();
    let mut order: Vec<u64> = Vec::new();
    let mut twice: BTreeSet<u64> = BTreeSet::new();
    let mut bad = BadLines::new(n, done_path);
    let mut reader = checkpoint;
    for_each_line(&mut reader, done_path, |number, line| {
        if number == 1 {
            return; // the header
        }
        match parse_checkpoint_line(line) {
            Some((entry, count)) => match promised.get_mut(&entry) {
                Some(seen) => {
                    *seen = None;
                    twice.insert(entry);
                }
                None => {
                    promised.insert(entry, Some(count));
                    order.push(entry);
                }
            },
            None => bad.push(number, "not ENTRY<TAB>COUNT".into()),
        }
    })?;
    bad.into_problems(problems);
    problems.extend(
        twice
            .into_iter()
            .map(|entry| Problem::Twice { unit: n, entry }),
    );
    Ok((promised, order))
}

/// The output's lines, one at a time: the number of puzzle lines of each
/// entry. Cut or foreign lines, entries outside the unit and puzzles not of
/// the goal's clue count are named (a puzzle of another clue count still
/// counts for the checkpoint, as a resume counts it).
fn count_output(
    unit: &Unit,
    goal: &Goal,
    reader: &mut impl BufRead,
    output_path: &Path,
    problems: &mut Vec<Problem>,
) -> Result<HashMap<u64, u64>, CampaignError> {
    let mut present: HashMap<u64, u64> = HashMap::new();
    let mut bad = BadLines::new(unit.number, output_path);
    let clues = goal.clues;
    for_each_line(reader, output_path, |number, line| {
        let Some((entry, rest)) = split_entry(line) else {
            bad.push(
                number,
                "not ENTRY<TAB>PUZZLE (a cut or foreign line)".into(),
            );
            return;
        };
        if !unit.entries.contains(&entry) {
            bad.push(
                number,
                format!(
                    "entry {entry} is outside the unit's entries {}..{}",
                    unit.entries.start, unit.entries.end
                ),
            );
        }
        match check_puzzle(rest, clues) {
            Ok(_) => *present.entry(entry).or_default() += 1,
            Err(why) => {
                // A line of another clue count still counts for the
                // checkpoint (as a resume counts it); it is named.
                if rest.len() == CELLS && Puzzle::parse_bytes(rest).is_ok() {
                    *present.entry(entry).or_default() += 1;
                }
                bad.push(number, why);
            }
        }
    })?;
    bad.into_problems(problems);
    Ok(present)
}

/// The done entries, sorted: those with one checkpoint line whose count the
/// output holds (one outside the unit is named instead). Sets `status`'s
/// lines, checkpointed count and runs of done entries.
fn settle_done(
    unit: &Unit,
    promised: &Promises,
    order: Vec<u64>,
    present: &HashMap<u64, u64>,
    status: &mut UnitStatus,
    problems: &mut Vec<Problem>,
) -> Vec<u64> {
    let mut done: Vec<u64> = Vec::new();
    for entry in order {
        if let Some(Some(count)) = promised.get(&entry)
            && present.get(&entry).copied().unwrap_or(0) == *count
        {
            if unit.entries.contains(&entry) {
                done.push(entry);
                status.lines += count;
            } else {
                problems.push(Problem::Outside {
                    unit: unit.number,
                    entry,
                    entries: unit.entries.clone(),
                });
            }
        }
    }
    done.sort_unstable();
    status.checkpointed = done.len() as u64;
    for &e in &done {
        match status.done.last_mut() {
            Some(run) if run.end == e => run.end += 1,
            _ => status.done.push(e..e + 1),
        }
    }
    done
}

/// Adds the unit's distinct puzzles to `distinct`, while few: the output
/// read again, its kept lines only (so no line is held while the entries
/// are not known). Past [`DISTINCT_CAP`], or with a puzzle too large to
/// pack, `distinct` becomes `None`.
fn hold_distinct(
    dir: &Path,
    status: &UnitStatus,
    goal: &Goal,
    distinct: &mut Option<Distinct>,
) -> Result<(), CampaignError> {
    if distinct
        .as_ref()
        .is_some_and(|d| d.held as u64 + status.lines > DISTINCT_CAP as u64)
    {
        *distinct = None;
    }
    if let Some(d) = distinct.as_mut() {
        let set = d.sets.entry(status.unit.k).or_default();
        let mut packable = true;
        for_each_kept(dir, status, |_, _, p| {
            if p.clue_count() != goal.clues {
                return; // named by count_output
            }
            match PackedPuzzle::new(&p) {
                Some(key) => d.held += set.insert(key) as usize,
                None => packable = false,
            }
        })?;
        if !packable {
            *distinct = None;
        }
    }
    Ok(())
}

/// Adds the unit's cost lines to `status`: the CPU time of every line, the
/// grids of the `done` entries (the last line of each); a done entry
/// without a line counts as uncosted.
fn add_costs(dir: &Path, done: &[u64], status: &mut UnitStatus) -> Result<(), CampaignError> {
    let costs_path = unit_costs(dir, status.unit.number);
    let mut grids: HashMap<u64, u64> = HashMap::new();
    if let Some(mut reader) = open_or_none(&costs_path)? {
        for_each_line(&mut reader, &costs_path, |_, line| {
            let line = String::from_utf8_lossy(line);
            let f: Vec<&str> = line.split('\t').collect();
            if let [entry, g, _, secs] = f[..]
                && let (Ok(entry), Ok(g), Ok(secs)) =
                    (entry.parse(), g.parse(), secs.parse::<f64>())
            {
                grids.insert(entry, g);
                status.cpu_seconds += secs;
            }
        })?;
    }
    for entry in done {
        match grids.get(entry) {
            Some(g) => status.grids += g,
            None => status.uncosted += 1,
        }
    }
    Ok(())
}

/// Calls `f(entry, line, puzzle)` for each puzzle of a checkpointed entry
/// of unit `u` (streaming its output again).
pub fn for_each_kept(
    dir: &Path,
    u: &UnitStatus,
    mut f: impl FnMut(u64, u64, Puzzle),
) -> Result<(), CampaignError> {
    if u.done.is_empty() {
        return Ok(());
    }
    let path = unit_output(dir, u.unit.number);
    let Some(mut reader) = open_or_none(&path)? else {
        return Ok(());
    };
    for_each_line(&mut reader, &path, |number, line| {
        if let Some((entry, rest)) = split_entry(line)
            && holds(&u.done, entry)
            && rest.len() == CELLS
            && let Ok(p) = Puzzle::parse_bytes(rest)
        {
            f(entry, number, p);
        }
    })
}

/// Whether sorted, disjoint `runs` hold `e`.
pub fn holds(runs: &[Range<u64>], e: u64) -> bool {
    let i = runs.partition_point(|r| r.end <= e);
    i < runs.len() && runs[i].contains(&e)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_puzzles_are_equal_exactly_when_the_puzzles_are() {
        let mut rng = fastrand::Rng::with_seed(52);
        let mut seen: HashMap<PackedPuzzle, Puzzle> = HashMap::new();
        for i in 0..20_000 {
            let mut cells = [0u8; CELLS];
            // Few cells and digits, so that equal puzzles come up too.
            let most = if i % 2 == 0 {
                3
            } else {
                PackedPuzzle::MAX_CLUES
            };
            for _ in 0..rng.usize(0..=most) {
                cells[rng.usize(..CELLS)] = rng.u8(1..=9);
            }
            let p = Puzzle::from_digits(cells);
            let key = PackedPuzzle::new(&p).expect("at most 27 clues");
            assert_eq!(*seen.entry(key).or_insert(p), p);
        }
        let full = Puzzle::from_digits([9; CELLS]);
        assert_eq!(PackedPuzzle::new(&full), None);
    }

    #[test]
    fn unit_names_come_as_runs() {
        assert_eq!(name_units(&[3, 5, 6, 7, 8, 9, 12]), "3, 5-9, 12");
        assert_eq!(name_units(&[]), "");
        let many: Vec<usize> = (0..100).map(|i| 2 * i).collect();
        assert!(name_units(&many).ends_with("… (100 units in all)"));
    }
}
