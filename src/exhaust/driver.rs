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

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rayon::prelude::*;

use super::{EntryRecorder, EntryResult, Exhauster, RunTotals};
use crate::ed::Entry;
use crate::grid::Puzzle;
use crate::output::{OutputError, ResultFiles};
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
        let clock = ThreadClock::start();
        let result = exhauster
            .search_entry(k, entry)
            .map_err(|source| DriveError::Entry {
                k,
                entry: entry.number,
                source,
            })?;
        let cpu = clock.elapsed();
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
