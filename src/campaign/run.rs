//! Running one unit: `s17 exhaust` on the unit's entries, into the unit's
//! result files.
//!
//! The output and checkpoint are `exhaust -o`'s ([`ResultFiles`] under
//! [`crate::exhaust::checkpoint_header`]), always opened to resume: a unit
//! killed or requeued at any moment continues where it stopped, and loses
//! or repeats nothing (`crate::output`'s module note). Entries are searched
//! in parallel on the current rayon pool, each on one thread, as `exhaust`
//! does; a 17 is written once per unit file.
//!
//! Besides, each entry's cost goes to `UNIT.txt.cost` (`ENTRY<TAB>GRIDS
//! <TAB>BANDS3<TAB>SECONDS`, its thread CPU time) just before its
//! checkpoint line, so every checkpointed entry has a cost line (after a
//! kill between the two, an entry searched again has two: both are CPU
//! time spent). A partial last line left by a kill is cut when the unit
//! starts again.

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{CampaignError, Plan, Unit, io_error, out_dir, unit_costs, unit_output};
use crate::ed::{Ed, Entry};
pub use crate::exhaust::RunTotals;
use crate::exhaust::driver::{self, DriveError};
use crate::exhaust::{EntryResult, Exhauster, checkpoint_header};
use crate::output::OutputError;
use crate::output::{OpenMode, Reconciled, Repair, ResultFiles, write_atomically};
use crate::search::{Goal, SearchConfig};

/// A unit's result files, open (and locked) to go on with it.
pub struct UnitRun {
    unit: Unit,
    /// The parts its entry is searched in ([`Plan::parts`]).
    parts: usize,
    /// Its output and checkpoint header.
    output: PathBuf,
    header: String,
    files: ResultFiles,
    costs: File,
    costs_path: PathBuf,
    state: Reconciled,
}

impl UnitRun {
    /// Opens unit `number` of the campaign in `dir` to resume it (or start
    /// it), under `config` (part of the checkpoint's header).
    pub fn open(
        dir: &Path,
        plan: &Plan,
        number: usize,
        config: &SearchConfig,
    ) -> Result<UnitRun, CampaignError> {
        let unit = plan
            .units
            .get(number)
            .ok_or_else(|| CampaignError::NoSuchUnit {
                dir: dir.to_path_buf(),
                unit: number,
                units: plan.units.len(),
            })?
            .clone();
        let out = out_dir(dir);
        fs::create_dir_all(&out).map_err(io_error(&out))?;
        // The plan's goal is part of the header: a unit file of another
        // goal is refused.
        let header = checkpoint_header(unit.k, &unit.entries, config, &plan.goal);
        let (files, state) =
            match ResultFiles::open(&unit_output(dir, number), &header, OpenMode::Resume) {
                Ok(opened) => opened,
                Err(OutputError::Mismatch {
                    path,
                    expected,
                    found,
                }) => {
                    return Err(
                        match found.parse::<Goal>().ok().filter(|g| *g != plan.goal) {
                            Some(theirs) => CampaignError::OtherGoal {
                                unit: number,
                                path,
                                found: theirs.description(),
                                expected: plan.goal.description(),
                            },
                            None => OutputError::Mismatch {
                                path,
                                expected,
                                found,
                            }
                            .into(),
                        },
                    );
                }
                Err(e) => return Err(e.into()),
            };
        // The output is locked now: the cost file is ours too.
        let costs_path = unit_costs(dir, number);
        let costs = open_costs(&costs_path)?;
        Ok(UnitRun {
            parts: plan.parts(&unit),
            output: unit_output(dir, number),
            header,
            unit,
            files,
            costs,
            costs_path,
            state,
        })
    }

    pub fn unit(&self) -> &Unit {
        &self.unit
    }

    /// What the resume repaired.
    pub fn repair(&self) -> &Repair {
        &self.state.repair
    }

    /// The parts its entry is searched in (1: entries whole).
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// Entries of the unit checkpointed before this run.
    pub fn done_before(&self) -> usize {
        self.state.done.len()
    }

    /// The unit's entries not yet checkpointed (a walk of the slice up to
    /// the unit's end).
    pub fn todo(&self, ed: &Ed) -> Vec<Entry> {
        let mut todo = Vec::new();
        ed.for_each_entry(self.unit.k, self.unit.entries.clone(), |e| {
            if !self.state.done.contains(&(e.number as usize)) {
                todo.push(*e);
            }
        });
        todo
    }

    /// Searches `todo` into the unit's files ([`driver::run_entries`],
    /// with the cost file), recording each entry as it finishes; `on_entry`
    /// sees each result and its CPU time (for a progress bar), `stop` is
    /// read before each entry starts. On an error, what was recorded stays
    /// (the files are synced) and a new run goes on from there.
    pub fn search<B: AsRef<[u8]> + Sync>(
        mut self,
        exhauster: &Exhauster<'_, B>,
        todo: &[Entry],
        stop: &(dyn Fn() -> bool + Sync),
        on_entry: &(dyn Fn(&EntryResult, Duration) + Sync),
    ) -> Result<RunTotals, CampaignError> {
        let sinks = driver::Sinks {
            files: &mut self.files,
            found: &self.state.found,
            costs: Some(driver::CostLog {
                file: &mut self.costs,
                path: &self.costs_path,
            }),
            stop,
        };
        let on_entry = |r: &EntryResult, cpu, _: &RunTotals| on_entry(r, cpu);
        let base = &self.output;
        match todo {
            [entry] if self.parts > 1 => driver::run_entry_in_parts(
                exhauster,
                self.unit.k,
                entry,
                self.parts,
                (base, &self.header),
                sinks,
                &on_entry,
            )
            .map(Option::unwrap_or_default),
            _ => {
                if todo.is_empty() {
                    // Part files left by a kill after their entry's
                    // checkpoint line.
                    driver::remove_parts(base).map_err(drive_error)?;
                }
                driver::run_entries(exhauster, self.unit.k, todo, sinks, &on_entry)
            }
        }
        .map_err(drive_error)
    }
}

/// A driver's error as a campaign's.
fn drive_error(e: DriveError) -> CampaignError {
    match e {
        DriveError::Entry { k, entry, source } => CampaignError::Entry { k, entry, source },
        DriveError::Output(e) => CampaignError::Output(e),
        DriveError::Costs { path, source } => CampaignError::Io { path, source },
    }
}

/// Opens a unit's cost file for appending, first cutting a partial last
/// line (a kill in the middle of a write).
fn open_costs(path: &Path) -> Result<File, CampaignError> {
    match fs::read(path) {
        Ok(bytes) if !bytes.is_empty() && !bytes.ends_with(b"\n") => {
            let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            write_atomically(path, &bytes[..keep]).map_err(io_error(path))?;
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_error(path)(e)),
    }
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io_error(path))
}
