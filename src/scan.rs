//! Scanning a catalogue of grids: reading the catalogue, the resumable
//! result files, and the parallel driver.
//!
//! # Result files
//!
//! A scan writes two files, both append-only while it runs:
//!
//! - the **output** `FILE`: one line `INDEX<TAB>PUZZLE` per 17 found, INDEX
//!   being the 1-based line number of the grid in the catalogue;
//! - the **checkpoint** `FILE.done`: a header line naming the scan (the
//!   catalogue's fingerprint and the slice), then one line `INDEX<TAB>COUNT`
//!   per finished grid, COUNT being the number of 17s it wrote.
//!
//! A grid's checkpoint line is written only after all its output lines have
//! been handed to the operating system (unbuffered writes, in that order,
//! under one lock), and both files are fsync'd every few seconds and at the
//! end. On resume ([`reconcile`]) a grid counts as finished only when its
//! checkpoint line is complete (ends in a newline) and the output holds
//! exactly COUNT well-formed lines for it; everything else about unfinished
//! grids is dropped from the output and the grid is searched again. So:
//!
//! - a kill (Ctrl-C, `kill -9`) leaves, for the grid being written, either
//!   no checkpoint line (its partial output is dropped, the grid rerun) or
//!   a complete one after complete output (kept);
//! - a power loss may persist the checkpoint ahead of the output, or leave
//!   zeros at a file's end; the COUNT comparison catches a lost output line
//!   and the grid is rerun; stray bytes never parse as an entry.
//!
//! With a known list ([`ResultFiles::track_new`]), a third file,
//! `FILE.new`, holds the lines of the 17s that are not in the list (same
//! format). It is derived data: rewritten from the kept output lines when
//! the files are opened, then appended to (each grid's new lines after its
//! output lines and before its checkpoint entry), so after a resume it
//! holds exactly the new 17s of the finished grids.
//!
//! A partial last line of either file is dropped. The repaired files are
//! written to a temporary file, fsync'd and renamed over the old ones, so
//! a crash during the repair leaves the old or the new file, and either is
//! a valid state to resume from. No 17 is lost (a grid is either kept with
//! all its lines or searched again) and none is repeated (the lines of a
//! grid not kept are removed before it is searched again).

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::grid::{Grid, ParseError, Puzzle};
use crate::known::KnownSet;
use crate::lock::{LockError, OutputLock};
use crate::search::{GridResult, Stats};
use crate::tables::TableError;

/// Why a scan could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    #[error("{}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(transparent)]
    Locked(#[from] LockError),
    #[error(transparent)]
    Tables(#[from] TableError),
    #[error("{} already exists; pass --resume to continue that run, or --force to start over", .0.display())]
    OutputExists(PathBuf),
    #[error(
        "{} exists but has no checkpoint {}, so it is not a resumable output; \
         pass --force to overwrite it",
        output.display(),
        checkpoint.display()
    )]
    NoCheckpoint {
        output: PathBuf,
        checkpoint: PathBuf,
    },
    #[error(
        "checkpoint {} belongs to another run ({found:?}; this one is {expected:?}): \
         its input, slice or entry range changed; pass --force to start over",
        path.display()
    )]
    Mismatch {
        path: PathBuf,
        expected: String,
        found: String,
    },
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> ScanError + '_ {
    move |source| ScanError::Io {
        path: path.to_path_buf(),
        source,
    }
}

// ---------------------------------------------------------------------------
// Catalogue

/// The K-th (1-based) of N equal contiguous parts of a catalogue's entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    pub k: usize,
    pub n: usize,
}

impl Slice {
    /// The whole catalogue.
    pub const WHOLE: Slice = Slice { k: 1, n: 1 };

    /// The positions of this part among `len` entries; the N parts are
    /// disjoint, cover `0..len` and differ in size by at most one.
    pub fn range(&self, len: usize) -> Range<usize> {
        let at = |k: usize| ((len as u128 * k as u128) / self.n as u128) as usize;
        at(self.k - 1)..at(self.k)
    }
}

impl FromStr for Slice {
    type Err = String;

    fn from_str(s: &str) -> Result<Slice, String> {
        let bad = || format!("expected K/N with 1 <= K <= N, got {s:?}");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || k > n {
            return Err(bad());
        }
        Ok(Slice { k, n })
    }
}

impl fmt::Display for Slice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// One entry of a catalogue: a line that is neither blank nor a `#` comment.
#[derive(Clone, Debug)]
pub struct Entry {
    /// 1-based line number in the whole file.
    pub line: usize,
    pub grid: Result<Grid, ParseError>,
}

/// The entries of one slice of a catalogue file.
#[derive(Clone, Debug)]
pub struct Catalogue {
    pub entries: Vec<Entry>,
    /// Entries in the whole file.
    pub total_entries: usize,
    /// FNV-1a hash of the whole file's bytes, naming it in checkpoints.
    pub fingerprint: u64,
}

impl Catalogue {
    /// Reads the entries of `slice` of the file at `path` (two passes: one
    /// to count and fingerprint, one to parse the slice).
    pub fn read(path: &Path, slice: Slice) -> Result<Catalogue, ScanError> {
        let open = || File::open(path).map(BufReader::new).map_err(io_error(path));
        let mut fingerprint = Fingerprint::new();
        let mut total_entries = 0;
        for_each_line(open()?, |_, bytes| {
            fingerprint.update(bytes);
            if carries_entry(bytes) {
                total_entries += 1;
            }
        })
        .map_err(io_error(path))?;
        let wanted = slice.range(total_entries);
        let mut entries = Vec::with_capacity(wanted.len());
        let mut position = 0;
        for_each_line(open()?, |line, bytes| {
            if carries_entry(bytes) {
                if wanted.contains(&position) {
                    let grid = Grid::parse(String::from_utf8_lossy(bytes).trim_end());
                    entries.push(Entry { line, grid });
                }
                position += 1;
            }
        })
        .map_err(io_error(path))?;
        Ok(Catalogue {
            entries,
            total_entries,
            fingerprint: fingerprint.finish(),
        })
    }

    /// The good grids of the slice with their line numbers.
    pub fn grids(&self) -> impl Iterator<Item = (usize, Grid)> + '_ {
        self.entries
            .iter()
            .filter_map(|e| e.grid.as_ref().ok().map(|g| (e.line, *g)))
    }

    /// The bad lines of the slice with their reasons.
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

/// True unless the line is blank or a `#` comment.
fn carries_entry(bytes: &[u8]) -> bool {
    let t = bytes.trim_ascii();
    !t.is_empty() && t[0] != b'#'
}

/// 64-bit FNV-1a.
#[derive(Clone, Copy, Debug)]
pub struct Fingerprint(u64);

impl Fingerprint {
    pub fn new() -> Fingerprint {
        Fingerprint(0xcbf2_9ce4_8422_2325)
    }

    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }

    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fingerprint {
    fn default() -> Self {
        Fingerprint::new()
    }
}

/// The checkpoint header line (without newline) of a scan.
pub fn checkpoint_header(kind: &str, fingerprint: u64, detail: &str) -> String {
    format!("# s17 {kind} checkpoint v1 input={fingerprint:016x} {detail}")
}

/// The checkpoint file of an output file: `FILE.done`.
pub fn checkpoint_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".done");
    PathBuf::from(name)
}

// ---------------------------------------------------------------------------
// Reconciling interrupted files

/// What a resume found and repaired.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Repair {
    /// Grids finished before the interruption (kept).
    pub kept_grids: usize,
    /// Output lines kept (the 17s of the kept grids).
    pub kept_lines: usize,
    /// Complete output lines dropped (17s of unfinished grids, or malformed).
    pub dropped_lines: usize,
    /// Checkpoint entries dropped (malformed, duplicated, or whose output
    /// lines were not all there).
    pub dropped_entries: usize,
    /// The output ended in a partial line (dropped).
    pub partial_output: bool,
    /// The checkpoint ended in a partial line (dropped).
    pub partial_checkpoint: bool,
}

/// The state to resume from: the repaired file contents and what is done.
#[derive(Clone, Debug, Default)]
pub struct Reconciled {
    /// The finished grids (their indices).
    pub done: BTreeSet<usize>,
    /// The 17s of the finished grids, in file order.
    pub found: Vec<(usize, Puzzle)>,
    /// The repaired output file.
    pub output: Vec<u8>,
    /// The repaired checkpoint file (header included).
    pub checkpoint: Vec<u8>,
    pub repair: Repair,
}

/// Complete lines (without their newline) and whether a partial one followed.
fn complete_lines(bytes: &[u8]) -> (Vec<&[u8]>, bool) {
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let tail = lines.pop().unwrap_or_default();
    (lines, !tail.is_empty())
}

/// `INDEX<TAB>REST` with a decimal index (scan's lines count from 1,
/// exhaust's entries from 0).
fn split_index(line: &[u8]) -> Option<(usize, &[u8])> {
    let tab = line.iter().position(|&b| b == b'\t')?;
    let (digits, rest) = (&line[..tab], &line[tab + 1..]);
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let index = std::str::from_utf8(digits).ok()?.parse().ok()?;
    Some((index, rest))
}

fn parse_entry(line: &[u8]) -> Option<(usize, usize)> {
    let (index, count) = split_index(line)?;
    if count.is_empty() || count.len() > 6 || !count.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some((index, std::str::from_utf8(count).ok()?.parse().ok()?))
}

fn parse_result(line: &[u8]) -> Option<(usize, Puzzle)> {
    let (index, puzzle) = split_index(line)?;
    if puzzle.len() != 81 {
        return None;
    }
    Some((
        index,
        Puzzle::parse(std::str::from_utf8(puzzle).ok()?).ok()?,
    ))
}

/// Works out, from the bytes of an interrupted output and checkpoint, which
/// grids are finished and what the repaired files hold (see the module
/// note). An empty checkpoint, or one without a complete header line, means
/// nothing is done; a complete header other than `header` is an error (the
/// `String` is the header found).
pub fn reconcile(header: &str, output: &[u8], checkpoint: &[u8]) -> Result<Reconciled, String> {
    let mut repair = Repair::default();
    let (entry_lines, partial) = complete_lines(checkpoint);
    repair.partial_checkpoint = partial;
    let mut entry_lines = entry_lines.into_iter();
    if let Some(first) = entry_lines.next()
        && first != header.as_bytes()
    {
        return Err(String::from_utf8_lossy(first).into_owned());
    }
    // Index -> promised count; None once the entry is known to be unusable.
    let mut promised: HashMap<usize, Option<usize>> = HashMap::new();
    let mut order = Vec::new();
    for line in entry_lines {
        match parse_entry(line) {
            Some((index, count)) => match promised.get_mut(&index) {
                Some(seen) => *seen = None,
                None => {
                    promised.insert(index, Some(count));
                    order.push(index);
                }
            },
            None => repair.dropped_entries += 1,
        }
    }

    let (result_lines, partial) = complete_lines(output);
    repair.partial_output = partial;
    let mut parsed = Vec::with_capacity(result_lines.len());
    let mut present: HashMap<usize, usize> = HashMap::new();
    for line in result_lines {
        let item = parse_result(line);
        if let Some((index, _)) = item {
            *present.entry(index).or_default() += 1;
        }
        parsed.push((line, item));
    }

    let mut done = BTreeSet::new();
    let mut new_checkpoint = Vec::with_capacity(checkpoint.len());
    new_checkpoint.extend_from_slice(header.as_bytes());
    new_checkpoint.push(b'\n');
    for index in order {
        let count = promised[&index];
        if count.is_some() && count == Some(present.get(&index).copied().unwrap_or(0)) {
            done.insert(index);
            writeln!(new_checkpoint, "{index}\t{}", count.unwrap_or(0)).expect("write to a Vec");
        } else {
            repair.dropped_entries += 1;
        }
    }

    let mut new_output = Vec::with_capacity(output.len());
    let mut found = Vec::new();
    for (line, item) in parsed {
        match item {
            Some((index, puzzle)) if done.contains(&index) => {
                new_output.extend_from_slice(line);
                new_output.push(b'\n');
                found.push((index, puzzle));
            }
            _ => repair.dropped_lines += 1,
        }
    }
    repair.kept_grids = done.len();
    repair.kept_lines = found.len();
    Ok(Reconciled {
        done,
        found,
        output: new_output,
        checkpoint: new_checkpoint,
        repair,
    })
}

// ---------------------------------------------------------------------------
// The result files

/// How to open the result files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenMode {
    /// Start a new scan; refuse if the output or its checkpoint exists.
    Create,
    /// Start a new scan, replacing any old output and checkpoint.
    Overwrite,
    /// Continue an interrupted scan (or start one if neither file exists).
    Resume,
}

/// The output and checkpoint of a scan, open for appending.
pub struct ResultFiles {
    output: File,
    checkpoint: File,
    output_path: PathBuf,
    checkpoint_path: PathBuf,
    sync_every: Duration,
    last_sync: Instant,
    unsynced: usize,
    buffer: Vec<u8>,
    /// `FILE.new` and the known list, with [`ResultFiles::track_new`].
    new: Option<NewFile>,
    /// Held while the files are open: one run per output.
    _lock: OutputLock,
}

/// The 17s of a scan not in a known list: `FILE.new`.
struct NewFile {
    file: File,
    path: PathBuf,
    known: Arc<KnownSet>,
    /// Lines in the file.
    lines: u64,
}

/// The file of the new 17s of an output: `FILE.new`.
pub fn new_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".new");
    PathBuf::from(name)
}

impl ResultFiles {
    /// Opens the files of `output` for a scan named by `header` (see
    /// [`checkpoint_header`]). On resume, the files are repaired first and
    /// the returned state says which grids are done. The output is locked
    /// first ([`OutputLock`]): while these files are open, another run on
    /// the same output is refused with [`ScanError::Locked`] and touches
    /// nothing.
    pub fn open(
        output: &Path,
        header: &str,
        mode: OpenMode,
    ) -> Result<(ResultFiles, Reconciled), ScanError> {
        let lock = OutputLock::acquire(output)?;
        let checkpoint = checkpoint_path(output);
        let exists = |p: &Path| p.try_exists().map_err(io_error(p));
        let (out_exists, done_exists) = (exists(output)?, exists(&checkpoint)?);
        let fresh = Reconciled {
            checkpoint: format!("{header}\n").into_bytes(),
            ..Reconciled::default()
        };
        let state = match mode {
            OpenMode::Create if out_exists => {
                return Err(ScanError::OutputExists(output.to_path_buf()));
            }
            OpenMode::Create if done_exists => return Err(ScanError::OutputExists(checkpoint)),
            OpenMode::Create | OpenMode::Overwrite => fresh,
            OpenMode::Resume if !out_exists && !done_exists => fresh,
            OpenMode::Resume if !done_exists => {
                return Err(ScanError::NoCheckpoint {
                    output: output.to_path_buf(),
                    checkpoint,
                });
            }
            OpenMode::Resume => {
                let old_output = if out_exists {
                    fs::read(output).map_err(io_error(output))?
                } else {
                    Vec::new()
                };
                let old_checkpoint = fs::read(&checkpoint).map_err(io_error(&checkpoint))?;
                reconcile(header, &old_output, &old_checkpoint).map_err(|found| {
                    ScanError::Mismatch {
                        path: checkpoint.clone(),
                        expected: header.to_string(),
                        found,
                    }
                })?
            }
        };
        // A run started over drops the 17s not in a known list of the run
        // it replaces (`--known` writes the file afresh).
        if mode == OpenMode::Overwrite {
            let new = new_path(output);
            if exists(&new)? {
                fs::remove_file(&new).map_err(io_error(&new))?;
            }
        }
        // The checkpoint first: an output without a checkpoint is refused on
        // resume, a checkpoint without an output is not.
        write_atomically(&checkpoint, &state.checkpoint)?;
        write_atomically(output, &state.output)?;
        let append = |p: &Path| OpenOptions::new().append(true).open(p).map_err(io_error(p));
        let files = ResultFiles {
            output: append(output)?,
            checkpoint: append(&checkpoint)?,
            output_path: output.to_path_buf(),
            checkpoint_path: checkpoint,
            sync_every: Duration::from_secs(5),
            last_sync: Instant::now(),
            unsynced: 0,
            buffer: Vec::new(),
            new: None,
            _lock: lock,
        };
        Ok((files, state))
    }

    /// From now on, also writes the 17s not in `known` to `FILE.new`
    /// (see the module note). `kept` are the 17s already in the output (the
    /// [`Reconciled::found`] of [`Self::open`]): the file is rewritten with
    /// those of them that are new. Returns their number.
    pub fn track_new(
        &mut self,
        known: Arc<KnownSet>,
        kept: &[(usize, Puzzle)],
    ) -> Result<u64, ScanError> {
        let path = new_path(&self.output_path);
        let mut bytes = Vec::new();
        let mut lines = 0;
        for (index, p) in kept {
            if !known.contains(p) {
                writeln!(bytes, "{index}\t{p}").expect("write to a Vec");
                lines += 1;
            }
        }
        write_atomically(&path, &bytes)?;
        let file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(io_error(&path))?;
        self.new = Some(NewFile {
            file,
            path,
            known,
            lines,
        });
        Ok(lines)
    }

    /// Lines in `FILE.new` (0 without a known list).
    pub fn new_lines(&self) -> u64 {
        self.new.as_ref().map_or(0, |n| n.lines)
    }

    /// Sets how often the files are fsync'd (default every 5 s).
    pub fn set_sync_interval(&mut self, every: Duration) {
        self.sync_every = every;
    }

    /// Appends the 17s of one finished grid, then its checkpoint entry.
    pub fn record(&mut self, index: usize, puzzles: &[Puzzle]) -> Result<(), ScanError> {
        self.buffer.clear();
        for p in puzzles {
            writeln!(self.buffer, "{index}\t{p}").expect("write to a Vec");
        }
        // Unbuffered: after write_all the lines are in the operating system.
        self.output
            .write_all(&self.buffer)
            .map_err(io_error(&self.output_path))?;
        if let Some(new) = &mut self.new {
            self.buffer.clear();
            for p in puzzles.iter().filter(|p| !new.known.contains(p)) {
                writeln!(self.buffer, "{index}\t{p}").expect("write to a Vec");
                new.lines += 1;
            }
            new.file
                .write_all(&self.buffer)
                .map_err(io_error(&new.path))?;
        }
        self.buffer.clear();
        writeln!(self.buffer, "{index}\t{}", puzzles.len()).expect("write to a Vec");
        self.checkpoint
            .write_all(&self.buffer)
            .map_err(io_error(&self.checkpoint_path))?;
        self.unsynced += 1;
        if self.last_sync.elapsed() >= self.sync_every {
            self.sync()?;
        }
        Ok(())
    }

    /// Forces both files to disk, the output first.
    pub fn sync(&mut self) -> Result<(), ScanError> {
        if self.unsynced > 0 {
            self.output
                .sync_data()
                .map_err(io_error(&self.output_path))?;
            if let Some(new) = &self.new {
                new.file.sync_data().map_err(io_error(&new.path))?;
            }
            self.checkpoint
                .sync_data()
                .map_err(io_error(&self.checkpoint_path))?;
            self.unsynced = 0;
        }
        self.last_sync = Instant::now();
        Ok(())
    }

    pub fn output_path(&self) -> &Path {
        &self.output_path
    }

    pub fn checkpoint_path(&self) -> &Path {
        &self.checkpoint_path
    }
}

/// Writes `bytes` to a temporary file beside `path`, fsyncs it and renames
/// it over `path`, then fsyncs the directory.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ScanError> {
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp");
    let temp = PathBuf::from(name);
    let mut file = File::create(&temp).map_err(io_error(&temp))?;
    file.write_all(bytes).map_err(io_error(&temp))?;
    file.sync_all().map_err(io_error(&temp))?;
    drop(file);
    fs::rename(&temp, path).map_err(io_error(path))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // Directory fsync makes the rename durable; not every platform allows it.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
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
pub fn scan<J, P>(
    grids: &[(usize, Grid)],
    mut files: Option<&mut ResultFiles>,
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
    use super::*;
    use crate::generate::random_grid;

    /// A cheap deterministic stand-in for the search: 0 to 3 "puzzles" per
    /// grid (17-cell patterns of the grid; not real 17s, the driver does not care).
    fn fake_job(grid: &Grid) -> Result<GridResult, TableError> {
        let k = (grid.digit(0) as usize + grid.digit(10) as usize) % 4;
        let mut puzzles: Vec<Puzzle> = (0..k)
            .map(|j| Puzzle::from_grid(grid, ((1u128 << 17) - 1) << (5 * j)))
            .collect();
        puzzles.sort();
        Ok(GridResult {
            puzzles,
            ..GridResult::default()
        })
    }

    fn grids(n: usize, seed: u64) -> Vec<(usize, Grid)> {
        let mut rng = fastrand::Rng::with_seed(seed);
        // Indices with gaps, as line numbers with comments in between.
        (0..n).map(|i| (3 * i + 2, random_grid(&mut rng))).collect()
    }

    fn expected_lines(grids: &[(usize, Grid)]) -> Vec<String> {
        let mut lines: Vec<String> = grids
            .iter()
            .flat_map(|(i, g)| {
                fake_job(g)
                    .unwrap()
                    .puzzles
                    .into_iter()
                    .map(move |p| format!("{i}\t{p}"))
            })
            .collect();
        lines.sort();
        lines
    }

    fn sorted_lines(bytes: &[u8]) -> Vec<String> {
        let mut lines: Vec<String> = String::from_utf8(bytes.to_vec())
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        lines.sort();
        lines
    }

    const HEADER: &str = "# s17 scan checkpoint v1 input=0123456789abcdef slice=1/1";

    /// Runs a complete scan into `dir` and returns (output, checkpoint) bytes.
    fn full_run(dir: &Path, grids: &[(usize, Grid)]) -> (Vec<u8>, Vec<u8>) {
        let out = dir.join("full.txt");
        let (mut files, state) = ResultFiles::open(&out, HEADER, OpenMode::Create).unwrap();
        assert!(state.done.is_empty());
        let totals = scan(grids, Some(&mut files), fake_job, |_, _| {}).unwrap();
        assert_eq!(totals.grids, grids.len() as u64);
        drop(files);
        (
            fs::read(&out).unwrap(),
            fs::read(checkpoint_path(&out)).unwrap(),
        )
    }

    /// Completes a reconciled state as a resumed scan would, in memory: the
    /// kept lines plus the fake results of every grid not done.
    fn completed(state: &Reconciled, grids: &[(usize, Grid)]) -> Vec<String> {
        let todo: Vec<(usize, Grid)> = grids
            .iter()
            .filter(|(i, _)| !state.done.contains(i))
            .copied()
            .collect();
        let mut lines = sorted_lines(&state.output);
        lines.extend(expected_lines(&todo));
        lines.sort();
        lines
    }

    /// The writes of a run in the order they happened: the checkpoint header,
    /// then per grid its output lines and its checkpoint entry.
    fn write_log(output: &[u8], checkpoint: &[u8]) -> Vec<(bool, Vec<u8>, Option<usize>)> {
        let mut log = vec![(false, format!("{HEADER}\n").into_bytes(), None)];
        let mut out_lines = output.split_inclusive(|&b| b == b'\n');
        for entry in checkpoint.split_inclusive(|&b| b == b'\n').skip(1) {
            let (index, count) = parse_entry(&entry[..entry.len() - 1]).unwrap();
            let mut chunk = Vec::new();
            for _ in 0..count {
                let line = out_lines.next().unwrap();
                assert_eq!(
                    parse_result(&line[..line.len() - 1]).unwrap().0,
                    index,
                    "output grouped by grid"
                );
                chunk.extend_from_slice(line);
            }
            log.push((true, chunk, None));
            log.push((false, entry.to_vec(), Some(index)));
        }
        assert!(out_lines.next().is_none());
        log
    }

    #[test]
    fn slices_partition_the_entries() {
        for len in 0..40 {
            for n in 1..9 {
                let parts: Vec<Range<usize>> = (1..=n).map(|k| Slice { k, n }.range(len)).collect();
                assert_eq!(parts[0].start, 0);
                assert_eq!(parts[n - 1].end, len);
                for w in parts.windows(2) {
                    assert_eq!(w[0].end, w[1].start);
                }
                let sizes: Vec<usize> = parts.iter().map(|r| r.len()).collect();
                assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
            }
        }
        assert_eq!("2/5".parse::<Slice>(), Ok(Slice { k: 2, n: 5 }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", ""] {
            assert!(bad.parse::<Slice>().is_err(), "{bad}");
        }
    }

    #[test]
    fn catalogue_numbers_lines_and_reports_bad_ones() {
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
        let cat = Catalogue::read(&path, Slice::WHOLE).unwrap();
        assert_eq!(cat.total_entries, 4);
        let good: Vec<(usize, Grid)> = cat.grids().collect();
        assert_eq!(good, vec![(2, gs[0].1), (4, gs[1].1), (7, gs[2].1)]);
        let bad: Vec<usize> = cat.bad_lines().map(|(l, _)| l).collect();
        assert_eq!(bad, vec![5]);
        let mut union = Vec::new();
        for k in 1..=3 {
            let part = Catalogue::read(&path, Slice { k, n: 3 }).unwrap();
            assert_eq!(part.fingerprint, cat.fingerprint);
            union.extend(part.entries.iter().map(|e| e.line));
        }
        assert_eq!(union, vec![2, 4, 5, 7]);
        fs::write(&path, text.replace("not a grid", "not a grid!")).unwrap();
        assert_ne!(
            Catalogue::read(&path, Slice::WHOLE).unwrap().fingerprint,
            cat.fingerprint
        );
    }

    #[test]
    fn a_kill_at_any_byte_loses_and_repeats_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let gs = grids(40, 2);
        let (output, checkpoint) = full_run(dir.path(), &gs);
        let full = expected_lines(&gs);
        assert_eq!(sorted_lines(&output), full);
        let log = write_log(&output, &checkpoint);
        let total: usize = log.iter().map(|(_, bytes, _)| bytes.len()).sum();
        for cut in 0..=total {
            // The files as they are when the process dies after `cut` bytes.
            let (mut out, mut done, mut finished) = (Vec::new(), Vec::new(), BTreeSet::new());
            let mut left = cut;
            for (is_output, bytes, index) in &log {
                let n = left.min(bytes.len());
                if *is_output { &mut out } else { &mut done }.extend_from_slice(&bytes[..n]);
                if n == bytes.len()
                    && let Some(i) = index
                {
                    finished.insert(*i);
                }
                left -= n;
            }
            let state = reconcile(HEADER, &out, &done).unwrap();
            assert_eq!(
                state.done, finished,
                "cut at {cut}: finished grids are kept, others rerun"
            );
            assert_eq!(completed(&state, &gs), full, "cut at {cut}");
            // Reconciling the repaired files changes nothing.
            let again = reconcile(HEADER, &state.output, &state.checkpoint).unwrap();
            assert_eq!(
                (again.output, again.checkpoint),
                (state.output.clone(), state.checkpoint.clone())
            );
            assert_eq!(again.repair.dropped_lines + again.repair.dropped_entries, 0);
        }
    }

    #[test]
    fn a_power_loss_at_any_offsets_loses_and_repeats_nothing() {
        // Each file may keep any prefix, independently, and may end in zeros.
        let dir = tempfile::tempdir().unwrap();
        let gs = grids(30, 3);
        let (output, checkpoint) = full_run(dir.path(), &gs);
        let full = expected_lines(&gs);
        for out_len in (0..=output.len()).step_by(13).chain([output.len()]) {
            for done_len in 0..=checkpoint.len() {
                for zeros in [0, 5] {
                    let mut out = output[..out_len].to_vec();
                    let mut done = checkpoint[..done_len].to_vec();
                    out.extend(std::iter::repeat_n(0u8, zeros));
                    done.extend(std::iter::repeat_n(0u8, zeros));
                    let state = match reconcile(HEADER, &out, &done) {
                        Ok(s) => s,
                        // Zeros after a header cut short make a complete
                        // line only with a newline, which zeros never add.
                        Err(found) => panic!("{out_len}/{done_len}/{zeros}: header {found:?}"),
                    };
                    assert_eq!(
                        completed(&state, &gs),
                        full,
                        "output {out_len} bytes, checkpoint {done_len}"
                    );
                }
            }
        }
    }

    #[test]
    fn resume_on_disk_after_truncation_gives_the_full_result() {
        let dir = tempfile::tempdir().unwrap();
        let gs = grids(25, 4);
        let (output, checkpoint) = full_run(dir.path(), &gs);
        let full = expected_lines(&gs);
        let out = dir.path().join("out.txt");
        for (k, out_len) in (0..=output.len()).step_by(output.len() / 7 + 1).enumerate() {
            let done_len = checkpoint.len() * k / 8;
            fs::write(&out, &output[..out_len]).unwrap();
            fs::write(
                checkpoint_path(&out),
                &checkpoint[..done_len.max(HEADER.len() + 1)],
            )
            .unwrap();
            let (mut files, state) = ResultFiles::open(&out, HEADER, OpenMode::Resume).unwrap();
            let todo: Vec<(usize, Grid)> = gs
                .iter()
                .filter(|(i, _)| !state.done.contains(i))
                .copied()
                .collect();
            scan(&todo, Some(&mut files), fake_job, |_, _| {}).unwrap();
            drop(files);
            assert_eq!(
                sorted_lines(&fs::read(&out).unwrap()),
                full,
                "cut {out_len}/{done_len}"
            );
            // A second resume finds everything done and changes nothing.
            let before = (
                fs::read(&out).unwrap(),
                fs::read(checkpoint_path(&out)).unwrap(),
            );
            let (_, state) = ResultFiles::open(&out, HEADER, OpenMode::Resume).unwrap();
            assert_eq!(state.done.len(), gs.len());
            assert_eq!(
                before,
                (
                    fs::read(&out).unwrap(),
                    fs::read(checkpoint_path(&out)).unwrap()
                )
            );
        }
    }

    #[test]
    fn opening_refuses_what_it_must() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("o.txt");
        fs::write(&out, "precious\n").unwrap();
        assert!(matches!(
            ResultFiles::open(&out, HEADER, OpenMode::Create),
            Err(ScanError::OutputExists(_))
        ));
        assert!(matches!(
            ResultFiles::open(&out, HEADER, OpenMode::Resume),
            Err(ScanError::NoCheckpoint { .. })
        ));
        assert_eq!(fs::read_to_string(&out).unwrap(), "precious\n");
        fs::write(
            checkpoint_path(&out),
            "# s17 scan checkpoint v1 input=ffffffffffffffff slice=1/1\n",
        )
        .unwrap();
        assert!(matches!(
            ResultFiles::open(&out, HEADER, OpenMode::Resume),
            Err(ScanError::Mismatch { .. })
        ));
        assert_eq!(fs::read_to_string(&out).unwrap(), "precious\n");
        let (_, state) = ResultFiles::open(&out, HEADER, OpenMode::Overwrite).unwrap();
        assert!(state.done.is_empty());
        assert_eq!(fs::read(&out).unwrap(), b"");
        assert_eq!(
            fs::read_to_string(checkpoint_path(&out)).unwrap(),
            format!("{HEADER}\n")
        );
        // Resume with no files at all starts a new scan.
        let other = dir.path().join("new.txt");
        assert!(ResultFiles::open(&other, HEADER, OpenMode::Resume).is_ok());
        assert!(other.exists());
    }

    #[test]
    fn a_second_open_of_the_same_output_is_refused_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let gs = grids(3, 6);
        let out = dir.path().join("o.txt");
        let (mut files, _) = ResultFiles::open(&out, HEADER, OpenMode::Create).unwrap();
        files
            .record(gs[0].0, &fake_job(&gs[0].1).unwrap().puzzles)
            .unwrap();
        let before = (
            fs::read(&out).unwrap(),
            fs::read(checkpoint_path(&out)).unwrap(),
        );
        for mode in [OpenMode::Create, OpenMode::Overwrite, OpenMode::Resume] {
            let err = ResultFiles::open(&out, HEADER, mode).err().unwrap();
            assert!(
                matches!(err, ScanError::Locked(LockError::Busy { .. })),
                "{mode:?}: {err}"
            );
            let after = (
                fs::read(&out).unwrap(),
                fs::read(checkpoint_path(&out)).unwrap(),
            );
            assert_eq!(after, before, "{mode:?}");
        }
        drop(files);
        let (_, state) = ResultFiles::open(&out, HEADER, OpenMode::Resume).unwrap();
        assert_eq!(state.done, BTreeSet::from([gs[0].0]));
    }

    #[test]
    fn output_new_follows_the_output_through_a_crash_and_resume() {
        // The fake 17s are not valid puzzles, so none is in any known list:
        // FILE.new must hold exactly the output's lines at every stage.
        let dir = tempfile::tempdir().unwrap();
        let gs = grids(20, 7);
        let known = Arc::new(KnownSet::default());
        let out = dir.path().join("o.txt");
        let new = new_path(&out);
        let (mut files, state) = ResultFiles::open(&out, HEADER, OpenMode::Create).unwrap();
        assert_eq!(
            files.track_new(Arc::clone(&known), &state.found).unwrap(),
            0
        );
        scan(&gs[..12], Some(&mut files), fake_job, |_, _| {}).unwrap();
        let lines = files.new_lines();
        drop(files);
        let output = fs::read(&out).unwrap();
        assert_eq!(fs::read(&new).unwrap(), output);
        assert_eq!(lines as usize, sorted_lines(&output).len());
        assert!(lines > 0);
        // A crash: the output cut in its last line, the checkpoint intact
        // (so the last grids are dropped and searched again).
        fs::write(&out, &output[..output.len() - 30]).unwrap();
        let (mut files, state) = ResultFiles::open(&out, HEADER, OpenMode::Resume).unwrap();
        let kept = files.track_new(Arc::clone(&known), &state.found).unwrap();
        assert_eq!(kept as usize, state.found.len());
        assert_eq!(fs::read(&new).unwrap(), fs::read(&out).unwrap());
        let todo: Vec<(usize, Grid)> = gs
            .iter()
            .filter(|(i, _)| !state.done.contains(i))
            .copied()
            .collect();
        scan(&todo, Some(&mut files), fake_job, |_, _| {}).unwrap();
        drop(files);
        assert_eq!(sorted_lines(&fs::read(&new).unwrap()), expected_lines(&gs));
        assert_eq!(fs::read(&new).unwrap(), fs::read(&out).unwrap());
    }

    #[test]
    fn reconcile_rejects_bad_entries_and_foreign_lines() {
        let gs = grids(2, 5);
        let p = Puzzle::from_grid(&gs[0].1, (1 << 17) - 1);
        let output = format!("7\t{p}\n7\t{p}\n9\t{p}\ngarbage\n8\t{p}\n");
        let checkpoint = format!("{HEADER}\n7\t2\n8\t1\n8\t1\n9\t2\nx\t1\n10\t0\n");
        let state = reconcile(HEADER, output.as_bytes(), checkpoint.as_bytes()).unwrap();
        // 7 complete; 8 duplicated entry; 9 short of lines; 10 has no 17.
        assert_eq!(state.done, BTreeSet::from([7, 10]));
        assert_eq!(state.output, format!("7\t{p}\n7\t{p}\n").into_bytes());
        assert_eq!(state.repair.dropped_lines, 3);
        assert_eq!(state.repair.dropped_entries, 3);
    }
}
