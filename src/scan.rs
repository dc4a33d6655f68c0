//! Scanning a grid file: reading it (every grid, or one part of its
//! lines), and the parallel driver that searches the grids into resumable
//! result files ([`crate::output`], which explains the files).
//!
//! A **grid file** is a text file of solution grids, one 81-digit grid per
//! line; blank lines and lines starting with `#` are skipped, and a grid
//! is named by its 1-based line number in the whole file. `scan` reads
//! one (or a [`Part`] of it), `validate` and `tune` read lists of the same
//! form.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::ops::Range;
use std::path::Path;
use std::str::FromStr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::grid::{Grid, ParseError, without_bom};
use crate::output::{Fingerprint, OutputError, ResultFiles};
use crate::search::{GridResult, Stats};
use crate::tables::TableError;

/// Why a scan could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// Result files, and the grid file too: an I/O error on it is an
    /// [`OutputError::Io`] naming it.
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error(transparent)]
    Tables(#[from] TableError),
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> ScanError + '_ {
    |source| crate::output::io_error(path)(source).into()
}

// ---------------------------------------------------------------------------
// The grid file

/// The K-th (1-based) of N equal contiguous parts of a grid file's entries
/// (`scan --part K/N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    pub k: usize,
    pub n: usize,
}

impl Part {
    /// The whole file.
    pub const WHOLE: Part = Part { k: 1, n: 1 };

    /// The positions of this part among `len` entries; the N parts are
    /// disjoint, cover `0..len` and differ in size by at most one.
    pub fn range(&self, len: usize) -> Range<usize> {
        let at = |k: usize| ((len as u128 * k as u128) / self.n as u128) as usize;
        at(self.k - 1)..at(self.k)
    }
}

impl FromStr for Part {
    type Err = String;

    fn from_str(s: &str) -> Result<Part, String> {
        let bad = || format!("expected K/N with 1 <= K <= N, got {s:?}");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || k > n {
            return Err(bad());
        }
        Ok(Part { k, n })
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// One entry of a grid file: a line that is neither blank nor a `#` comment.
#[derive(Clone, Debug)]
pub struct Entry {
    /// 1-based line number in the whole file.
    pub line: usize,
    pub grid: Result<Grid, ParseError>,
}

/// The entries of one part of a grid file.
#[derive(Clone, Debug)]
pub struct GridFile {
    pub entries: Vec<Entry>,
    /// Entries in the whole file.
    pub total_entries: usize,
    /// FNV-1a hash of the whole file's bytes, naming it in checkpoints.
    pub fingerprint: u64,
}

impl GridFile {
    /// Reads the entries of `part` of the file at `path` (two passes: one
    /// to count and fingerprint, one to parse the part).
    pub fn read(path: &Path, part: Part) -> Result<GridFile, ScanError> {
        let open = || File::open(path).map(BufReader::new);
        GridFile::from_source(open, part).map_err(io_error(path))
    }

    /// The entries of `part` of a grid file held in memory (standard
    /// input, read whole).
    pub fn from_bytes(bytes: &[u8], part: Part) -> GridFile {
        GridFile::from_source(|| Ok(bytes), part).expect("memory reads do not fail")
    }

    /// The entries of `part` of the lines `open` gives (called twice).
    fn from_source<R: BufRead>(
        open: impl Fn() -> io::Result<R>,
        part: Part,
    ) -> io::Result<GridFile> {
        let mut fingerprint = Fingerprint::new();
        let mut total_entries = 0;
        for_each_line(open()?, |line, bytes| {
            fingerprint.update(bytes);
            if carries_entry(text_of(line, bytes)) {
                total_entries += 1;
            }
        })?;
        let wanted = part.range(total_entries);
        let mut entries = Vec::with_capacity(wanted.len());
        let mut position = 0;
        for_each_line(open()?, |line, bytes| {
            let bytes = text_of(line, bytes);
            if carries_entry(bytes) {
                if wanted.contains(&position) {
                    let grid = Grid::parse(String::from_utf8_lossy(bytes).trim_end());
                    entries.push(Entry { line, grid });
                }
                position += 1;
            }
        })?;
        Ok(GridFile {
            entries,
            total_entries,
            fingerprint: fingerprint.finish(),
        })
    }

    /// The good grids of the part with their line numbers.
    pub fn grids(&self) -> impl Iterator<Item = (usize, Grid)> + '_ {
        self.entries
            .iter()
            .filter_map(|e| e.grid.as_ref().ok().map(|g| (e.line, *g)))
    }

    /// The bad lines of the part with their reasons.
    pub fn bad_lines(&self) -> impl Iterator<Item = (usize, &ParseError)> + '_ {
        self.entries
            .iter()
            .filter_map(|e| e.grid.as_ref().err().map(|err| (e.line, err)))
    }
}

/// Calls `f(line_number, bytes)` for every line (bytes with the newline).
fn for_each_line(mut reader: impl BufRead, mut f: impl FnMut(usize, &[u8])) -> io::Result<()> {
    let mut buffer = Vec::new();
    let mut line = 0;
    loop {
        buffer.clear();
        if reader.read_until(b'\n', &mut buffer)? == 0 {
            return Ok(());
        }
        line += 1;
        f(line, &buffer);
    }
}

/// The text of line `line` (`bytes`): the first line without a
/// byte-order mark (the fingerprint keeps the file's bytes as they are).
fn text_of(line: usize, bytes: &[u8]) -> &[u8] {
    if line == 1 { without_bom(bytes) } else { bytes }
}

/// True unless the line is blank or a `#` comment.
fn carries_entry(bytes: &[u8]) -> bool {
    let t = bytes.trim_ascii();
    !t.is_empty() && t[0] != b'#'
}

// ---------------------------------------------------------------------------
// The driver

/// What a scan did, merged over its grids.
#[derive(Clone, Copy, Debug, Default)]
pub struct Totals {
    /// Grids searched.
    pub grids: u64,
    /// 17s found.
    pub puzzles: u64,
    /// Sum of the grids' CPU times ([`GridResult::cpu_time`]).
    pub cpu_time: Duration,
    /// Stage counters of all grids.
    pub stats: Stats,
}

/// Searches `grids` (index, grid) in parallel on the current rayon pool
/// with `job`, recording each grid's 17s in `files` (if any) as soon as it
/// is done, then calling `progress(index, result)`. Stops at
/// the first write error or table error (corrupt band tables: the job's
/// error); the grids done so far stay recorded and the files resumable.
///
/// Once `stop` (if given; the command line's Ctrl-C) is set, no grid
/// starts: the grids in progress finish and are recorded, the others are
/// neither searched nor recorded (`Totals::grids` counts the grids done),
/// and the files are synced as at the end.
pub fn scan<J, P>(
    grids: &[(usize, Grid)],
    mut files: Option<&mut ResultFiles>,
    stop: Option<&AtomicBool>,
    job: J,
    progress: P,
) -> Result<Totals, ScanError>
where
    J: Fn(&Grid) -> Result<GridResult, TableError> + Sync,
    P: Fn(usize, &GridResult) + Sync,
{
    let span = tracing::info_span!("scan", grids = grids.len());
    let _enter = span.enter();
    let shared = Mutex::new((files.as_deref_mut(), Totals::default()));
    grids.par_iter().try_for_each(|&(index, ref grid)| {
        if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
            return Ok(());
        }
        let grid_span = tracing::debug_span!(parent: &span, "scan_grid", line = index);
        let _enter = grid_span.enter();
        let start = Instant::now();
        let result = job(grid)?;
        let elapsed = start.elapsed();
        {
            let mut guard = shared.lock().expect("no panic while recording");
            let (files, totals) = &mut *guard;
            if let Some(files) = files {
                files.record(index, &result.puzzles)?;
            }
            totals.grids += 1;
            totals.puzzles += result.puzzles.len() as u64;
            totals.cpu_time += result.cpu_time;
            totals.stats += result.total();
        }
        tracing::debug!(
            found = result.puzzles.len(),
            secs = elapsed.as_secs_f64(),
            cpu_secs = result.cpu_time.as_secs_f64(),
            "grid done"
        );
        progress(index, &result);
        Ok::<(), ScanError>(())
    })?;
    let (_, totals) = shared.into_inner().expect("no panic while recording");
    if let Some(files) = files {
        files.sync()?;
    }
    Ok(totals)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::output::tests::{HEADER, expected_lines, fake_puzzles, grids, sorted_lines};
    use crate::output::{OpenMode, checkpoint_path, reconcile};

    /// The search replaced by the fake 17s of the output tests.
    fn fake_job(grid: &Grid) -> Result<GridResult, TableError> {
        Ok(GridResult {
            puzzles: fake_puzzles(grid),
            ..GridResult::default()
        })
    }

    /// A new output in a fresh directory: the directory, the output's
    /// path and its files.
    fn new_output() -> (tempfile::TempDir, std::path::PathBuf, ResultFiles) {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.txt");
        let (files, state) = ResultFiles::open(&out, HEADER, OpenMode::Create).unwrap();
        assert!(state.done.is_empty());
        (dir, out, files)
    }

    #[test]
    fn the_driver_records_every_grid_and_counts_it() {
        let gs = grids(40, 2);
        let (_dir, out, mut files) = new_output();
        let totals = scan(&gs, Some(&mut files), None, fake_job, |_, _| {}).unwrap();
        assert_eq!(totals.grids, gs.len() as u64);
        assert_eq!(totals.puzzles as usize, expected_lines(&gs).len());
        drop(files);
        let (output, checkpoint) = (
            fs::read(&out).unwrap(),
            fs::read(checkpoint_path(&out)).unwrap(),
        );
        assert_eq!(sorted_lines(&output), expected_lines(&gs));
        let state = reconcile(HEADER, &output, &checkpoint).unwrap();
        assert_eq!(state.done.len(), gs.len());
    }

    /// A stop set while grids are searched (as Ctrl-C does): the grids
    /// done are recorded whole, no other grid is, and a resume searches
    /// exactly the others, giving the output of a scan without a stop.
    #[test]
    fn a_stop_records_the_grids_done_and_a_resume_does_the_rest() {
        let gs = grids(40, 3);
        let (_dir, out, mut files) = new_output();
        let stop = AtomicBool::new(false);
        let progressed = std::sync::atomic::AtomicU64::new(0);
        // One worker, so that the stop comes between two grids: the fifth
        // sets it and is the last searched.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let totals = pool
            .install(|| {
                scan(&gs, Some(&mut files), Some(&stop), fake_job, |_, _| {
                    if progressed.fetch_add(1, Ordering::Relaxed) + 1 == 5 {
                        stop.store(true, Ordering::Relaxed);
                    }
                })
            })
            .unwrap();
        drop(files);
        assert_eq!(totals.grids, 5);
        let (output, checkpoint) = (
            fs::read(&out).unwrap(),
            fs::read(checkpoint_path(&out)).unwrap(),
        );
        let state = reconcile(HEADER, &output, &checkpoint).unwrap();
        assert_eq!(state.done.len(), 5);
        let finished: Vec<(usize, Grid)> = gs
            .iter()
            .filter(|(i, _)| state.done.contains(i))
            .copied()
            .collect();
        assert_eq!(sorted_lines(&output), expected_lines(&finished));

        let (mut files, state) = ResultFiles::open(&out, HEADER, OpenMode::Resume).unwrap();
        let todo: Vec<(usize, Grid)> = gs
            .iter()
            .filter(|(i, _)| !state.done.contains(i))
            .copied()
            .collect();
        let totals = scan(
            &todo,
            Some(&mut files),
            Some(&AtomicBool::new(false)),
            fake_job,
            |_, _| {},
        )
        .unwrap();
        assert_eq!(totals.grids as usize, gs.len() - 5);
        drop(files);
        assert_eq!(sorted_lines(&fs::read(&out).unwrap()), expected_lines(&gs));
    }

    #[test]
    fn parts_partition_the_entries() {
        for len in 0..40 {
            for n in 1..9 {
                let parts: Vec<Range<usize>> = (1..=n).map(|k| Part { k, n }.range(len)).collect();
                assert_eq!(parts[0].start, 0);
                assert_eq!(parts[n - 1].end, len);
                for w in parts.windows(2) {
                    assert_eq!(w[0].end, w[1].start);
                }
                let sizes: Vec<usize> = parts.iter().map(|r| r.len()).collect();
                assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
            }
        }
        assert_eq!("2/5".parse::<Part>(), Ok(Part { k: 2, n: 5 }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", ""] {
            assert!(bad.parse::<Part>().is_err(), "{bad}");
        }
    }

    #[test]
    fn grid_file_numbers_lines_and_reports_bad_ones() {
        let dir = tempfile::tempdir().unwrap();
        let gs = grids(3, 1);
        let text = format!(
            "# comment\n{}\n\n{}\nnot a grid\n  \n{}",
            gs[0].1,
            gs[1].1,
            gs[2].1 // no final newline
        );
        let path = dir.path().join("cat.txt");
        fs::write(&path, &text).unwrap();
        let cat = GridFile::read(&path, Part::WHOLE).unwrap();
        assert_eq!(cat.total_entries, 4);
        let good: Vec<(usize, Grid)> = cat.grids().collect();
        assert_eq!(good, vec![(2, gs[0].1), (4, gs[1].1), (7, gs[2].1)]);
        let bad: Vec<usize> = cat.bad_lines().map(|(l, _)| l).collect();
        assert_eq!(bad, vec![5]);
        let mut union = Vec::new();
        for k in 1..=3 {
            let part = GridFile::read(&path, Part { k, n: 3 }).unwrap();
            assert_eq!(part.fingerprint, cat.fingerprint);
            // The same file from memory (standard input) is the same part.
            let held = GridFile::from_bytes(text.as_bytes(), Part { k, n: 3 });
            assert_eq!(held.fingerprint, cat.fingerprint);
            assert_eq!(
                held.entries.iter().map(|e| e.line).collect::<Vec<_>>(),
                part.entries.iter().map(|e| e.line).collect::<Vec<_>>()
            );
            union.extend(part.entries.iter().map(|e| e.line));
        }
        assert_eq!(union, vec![2, 4, 5, 7]);
        fs::write(&path, text.replace("not a grid", "not a grid!")).unwrap();
        assert_ne!(
            GridFile::read(&path, Part::WHOLE).unwrap().fingerprint,
            cat.fingerprint
        );
    }
}
