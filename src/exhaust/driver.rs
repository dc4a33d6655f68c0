//! The one entry driver: a list of entries of one slice searched into a
//! run's result files, entry by entry with a checkpoint line each
//! (`s17 exhaust -o`, `s17 campaign run` and `s17 campaign work`).
//!
//! The entries are searched in parallel on the current rayon pool, each
//! on one thread with no rayon inside, so that its thread's CPU time is
//! its cost whatever else the machine does. As an entry ends, under one
//! lock: its cost line (if the run keeps a cost file, `ENTRY<TAB>GRIDS
//! <TAB>BANDS3<TAB>SECONDS`), then its 17s and its checkpoint line
//! ([`EntryRecorder`]), then the caller's `on_entry` (a progress bar). So
//! every checkpointed entry has a cost line; after a kill between the
//! two, an entry searched again has two, both CPU time spent.
//!
//! `stop` is read before each entry starts: once it says so, no entry
//! starts and those in progress finish and are recorded. On an error the
//! entries recorded stay, the files are synced, and a new run goes on from
//! there.
//!
//! # An entry in parts
//!
//! An entry that alone may outlast a job is searched in parts
//! ([`run_entry_in_parts`]): its visits cut into P runs
//! ([`Exhauster::search_entry_part`]), each part checkpointed as it ends
//! in part files of their own, result files exactly like a run's
//! ([`ResultFiles`], INDEX being the part): `BASE.part` (`PART<TAB>PUZZLE`),
//! `BASE.part.done` and `BASE.part.cost` (`PART<TAB>GRIDS<TAB>BANDS3
//! <TAB>SECONDS`, before the part's checkpoint line). Their header names
//! the run's own header, the entry and P, so part files of anything else
//! are started over. A kill loses at most the parts in progress. When
//! every part is checkpointed, the entry is recorded in the run's files as
//! any entry (its 17s the union of the parts', sorted and distinct; its
//! cost the CPU time of every part, repeats included), and only then are
//! the part files removed; a run that finds part files of an entry
//! already checkpointed removes them. P is fixed by the caller (a
//! campaign's plan), not by when the kills come: a run killed at any
//! moment and run again writes what one uninterrupted run writes.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rayon::prelude::*;

use super::{EntryRecorder, EntryResult, Exhauster, RunTotals};
use crate::ed::Entry;
use crate::grid::Puzzle;
use crate::output::{self, Fingerprint, OpenMode, OutputError, ResultFiles};
use crate::search::ThreadClock;
use crate::tables::TableError;

/// Why a run of entries stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum DriveError {
    /// An entry could not be searched (its bands' tables).
    #[error("slice {k}, entry {entry}")]
    Entry {
        k: usize,
        entry: u64,
        #[source]
        source: TableError,
    },
    #[error(transparent)]
    Output(#[from] OutputError),
    /// The cost file could not be written.
    #[error("{}", path.display())]
    Costs {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// A run's cost file, open for appending: a line per entry searched.
pub struct CostLog<'c> {
    pub file: &'c mut File,
    pub path: &'c Path,
}

impl CostLog<'_> {
    fn write(&mut self, result: &EntryResult, cpu: Duration) -> Result<(), DriveError> {
        writeln!(
            self.file,
            "{}\t{}\t{}\t{:.6}",
            result.entry,
            result.grids,
            result.bands3,
            cpu.as_secs_f64()
        )
        .map_err(|source| self.error(source))
    }

    fn error(&self, source: io::Error) -> DriveError {
        DriveError::Costs {
            path: self.path.to_path_buf(),
            source,
        }
    }
}

/// Where a run of entries writes, and when it stops.
pub struct Sinks<'r, 'f> {
    /// The run's result files.
    pub files: &'f mut ResultFiles,
    /// The 17s the files already hold (from the entries done before a
    /// resume): none is written again.
    pub found: &'r [(usize, Puzzle)],
    /// The cost file, if the run keeps one.
    pub costs: Option<CostLog<'r>>,
    /// Read before each entry starts: true stops the run.
    pub stop: &'r (dyn Fn() -> bool + Sync),
}

/// Never stops a run.
pub fn never() -> bool {
    false
}

/// Searches the entries `todo` of slice `k` in parallel into `sinks`
/// (module note); `on_entry` sees each entry recorded, its CPU time and the
/// run's totals so far. The totals of the entries this run recorded.
pub fn run_entries<B: AsRef<[u8]> + Sync>(
    exhauster: &Exhauster<'_, B>,
    k: usize,
    todo: &[Entry],
    sinks: Sinks<'_, '_>,
    on_entry: &(dyn Fn(&EntryResult, Duration, &RunTotals) + Sync),
) -> Result<RunTotals, DriveError> {
    let Sinks {
        files,
        found,
        mut costs,
        stop,
    } = sinks;
    let recorder = EntryRecorder::new(files, found);
    let shared = Mutex::new((recorder, costs.as_mut()));
    let outcome = todo.par_iter().try_for_each(|entry| {
        if stop() {
            return Ok(());
        }
        let (result, cpu) = search_timed(exhauster, k, entry, 0, 1)?;
        let mut guard = shared.lock().expect("no panic while recording");
        let (recorder, costs) = &mut *guard;
        if let Some(costs) = costs {
            costs.write(&result, cpu)?;
        }
        recorder.record(&result, cpu)?;
        on_entry(&result, cpu, recorder.totals());
        Ok(())
    });
    // The entries recorded are synced even when one failed.
    let (recorder, costs) = shared.into_inner().expect("no panic while recording");
    let totals = recorder.finish()?;
    if let Some(costs) = costs {
        costs.file.sync_data().map_err(|e| costs.error(e))?;
    }
    outcome.map(|()| totals)
}

/// Part `part` of `parts` of slice `k`'s `entry` searched on this thread
/// (the whole entry for part 0 of 1): its result and CPU time.
fn search_timed<B: AsRef<[u8]> + Sync>(
    exhauster: &Exhauster<'_, B>,
    k: usize,
    entry: &Entry,
    part: usize,
    parts: usize,
) -> Result<(EntryResult, Duration), DriveError> {
    let clock = ThreadClock::start();
    let result = exhauster
        .search_entry_part(k, entry, part, parts)
        .map_err(|source| DriveError::Entry {
            k,
            entry: entry.number,
            source,
        })?;
    Ok((result, clock.elapsed()))
}

/// The part files of a run whose output is `base`: `BASE.part`, its
/// checkpoint `BASE.part.done`, its costs `BASE.part.cost`, its lock
/// `BASE.part.lock`.
pub fn part_paths(base: &Path) -> [PathBuf; 4] {
    let with = |suffix: &str| {
        let mut name = base.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    [
        with(".part"),
        with(".part.done"),
        with(".part.cost"),
        with(".part.lock"),
    ]
}

/// Removes the part files of `base` (module note), if any.
pub fn remove_parts(base: &Path) -> Result<(), DriveError> {
    for path in part_paths(base) {
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(source) => return Err(DriveError::Costs { path, source }),
        }
    }
    Ok(())
}

/// Searches entry `entry` of slice `k` in `parts` parts checkpointed in
/// the part files of `base` (module note), then records it into `sinks`
/// as [`run_entries`] does. `Ok(None)` when `stop` came before every part
/// was done (the parts done are kept for the next run).
pub fn run_entry_in_parts<B: AsRef<[u8]> + Sync>(
    exhauster: &Exhauster<'_, B>,
    k: usize,
    entry: &Entry,
    parts: usize,
    (base, header): (&Path, &str),
    sinks: Sinks<'_, '_>,
    on_entry: &(dyn Fn(&EntryResult, Duration, &RunTotals) + Sync),
) -> Result<Option<RunTotals>, DriveError> {
    let [part_out, _, part_cost, _] = part_paths(base);
    let detail = format!("entry={} parts={parts}", entry.number);
    let mut fingerprint = Fingerprint::new();
    fingerprint.update(format!("{header} {detail}").as_bytes());
    let part_header = output::checkpoint_header("exhaust-parts", fingerprint.finish(), &detail);
    let (mut files, state) = match ResultFiles::open(&part_out, &part_header, OpenMode::Resume) {
        Err(OutputError::Mismatch { .. } | OutputError::NoCheckpoint { .. }) => {
            // Another entry's or another plan's parts: start over.
            let _ = std::fs::remove_file(&part_cost);
            ResultFiles::open(&part_out, &part_header, OpenMode::Overwrite)?
        }
        opened => opened?,
    };
    let mut cost_file = open_append(&part_cost)?;
    let stop = sinks.stop;
    let todo: Vec<usize> = (0..parts).filter(|p| !state.done.contains(p)).collect();
    let shared = Mutex::new((&mut files, &mut cost_file));
    let outcome: Result<(), DriveError> = todo.par_iter().try_for_each(|&part| {
        if stop() {
            return Ok(());
        }
        let (result, cpu) = search_timed(exhauster, k, entry, part, parts)?;
        let mut guard = shared.lock().expect("no panic while recording");
        let (files, costs) = &mut *guard;
        let mut log = CostLog {
            file: costs,
            path: &part_cost,
        };
        log.write(
            &EntryResult {
                entry: part as u64,
                ..result.clone()
            },
            cpu,
        )?;
        files.record(part, &result.puzzles)?;
        Ok(())
    });
    files.sync()?;
    cost_file.sync_data().map_err(|source| DriveError::Costs {
        path: part_cost.clone(),
        source,
    })?;
    outcome?;
    drop(files);
    // Every part checkpointed? Read them back whole, from the files.
    let (files, state) = ResultFiles::open(&part_out, &part_header, OpenMode::Resume)?;
    drop(files);
    if (0..parts).any(|p| !state.done.contains(&p)) {
        return Ok(None);
    }
    let mut puzzles: Vec<Puzzle> = state.found.iter().map(|(_, p)| *p).collect();
    puzzles.sort();
    puzzles.dedup();
    let visits = exhauster.visits(k, entry);
    let cpu = part_seconds(&part_cost)?;
    let result = EntryResult {
        puzzles,
        ..EntryResult::counting(entry.number, &visits)
    };
    let totals = record_one(sinks, &result, cpu, on_entry)?;
    remove_parts(base)?;
    Ok(Some(totals))
}

/// Records one searched entry into `sinks` (cost line, 17s, checkpoint).
fn record_one(
    sinks: Sinks<'_, '_>,
    result: &EntryResult,
    cpu: Duration,
    on_entry: &(dyn Fn(&EntryResult, Duration, &RunTotals) + Sync),
) -> Result<RunTotals, DriveError> {
    let Sinks {
        files,
        found,
        mut costs,
        ..
    } = sinks;
    let mut recorder = EntryRecorder::new(files, found);
    if let Some(costs) = costs.as_mut() {
        costs.write(result, cpu)?;
    }
    recorder.record(result, cpu)?;
    on_entry(result, cpu, recorder.totals());
    let totals = recorder.finish()?;
    if let Some(costs) = costs {
        costs.file.sync_data().map_err(|e| costs.error(e))?;
    }
    Ok(totals)
}

/// Opens a cost file for appending, first cutting a partial last line (a
/// kill in the middle of a write).
pub fn open_append(path: &Path) -> Result<File, DriveError> {
    let error = |source| DriveError::Costs {
        path: path.to_path_buf(),
        source,
    };
    match std::fs::read(path) {
        Ok(bytes) if !bytes.is_empty() && !bytes.ends_with(b"\n") => {
            let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            output::write_atomically(path, &bytes[..keep]).map_err(error)?;
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(error(e)),
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(error)
}

/// The CPU time of every part line of a part cost file.
fn part_seconds(path: &Path) -> Result<Duration, DriveError> {
    let text = std::fs::read_to_string(path).map_err(|source| DriveError::Costs {
        path: path.to_path_buf(),
        source,
    })?;
    let secs: f64 = text
        .lines()
        .filter_map(|l| l.rsplit('\t').next()?.parse::<f64>().ok())
        .sum();
    Ok(Duration::from_secs_f64(secs.max(0.0)))
}
