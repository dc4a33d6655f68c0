//! [`ResultFiles`]: the output `FILE`, its checkpoint `FILE.done` and
//! `FILE.new` of a run, opened (and repaired, on resume) under the
//! output's lock, then appended to grid by grid (the design is in the note
//! of [`crate::output`]).

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::checkpoint::{Reconciled, checkpoint_path, reconcile};
use super::lock::{OutputLock, lock_path};
use super::{OutputError, io_error, write_atomically};
use crate::grid::Puzzle;
use crate::known::KnownSet;

/// How to open the result files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenMode {
    /// Start a new run; refuse if the output or its checkpoint exists.
    Create,
    /// Start a new run, replacing any old output and checkpoint.
    Overwrite,
    /// Continue an interrupted run (or start one if neither file exists).
    Resume,
}

/// The output and checkpoint of a run, open for appending.
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

/// The 17s of a run not in a known list: `FILE.new`.
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
    /// Opens the files of `output` for a run named by `header` (see
    /// [`checkpoint_header`](super::checkpoint_header)). On resume, the files are repaired first and
    /// the returned state says which grids are done. The output is locked
    /// first ([`OutputLock`]): while these files are open, another run on
    /// the same output is refused with [`OutputError::Locked`] and touches
    /// nothing.
    pub fn open(
        output: &Path,
        header: &str,
        mode: OpenMode,
    ) -> Result<(ResultFiles, Reconciled), OutputError> {
        let checkpoint = checkpoint_path(output);
        let exists = |p: &Path| p.try_exists().map_err(io_error(p));
        // Refused before any file is made (the lock file included): an
        // output that is a directory, and one that exists without --resume
        // or --force (checked again under the lock; with a lock file, the
        // lock says first whether another run holds it).
        let unlocked = !exists(&lock_path(output))?;
        for path in [output, &checkpoint] {
            if path.is_dir() {
                return Err(OutputError::IsDirectory(path.to_path_buf()));
            }
            if mode == OpenMode::Create && unlocked && exists(path)? {
                return Err(OutputError::OutputExists(path.to_path_buf()));
            }
        }
        let lock = OutputLock::acquire(output)?;
        // What a kill between a temporary's write and its rename left
        // (only the holder of the lock writes these files).
        let companions: Vec<&str> = super::safety::COMPANIONS
            .iter()
            .copied()
            .chain([".part"])
            .collect();
        crate::disk::remove_stale_temporaries(output, &companions).map_err(io_error(output))?;
        let (out_exists, done_exists) = (exists(output)?, exists(&checkpoint)?);
        match open_locked(output, &checkpoint, header, mode, (out_exists, done_exists)) {
            Ok((output_file, checkpoint_file, state)) => {
                let files = ResultFiles {
                    output: output_file,
                    checkpoint: checkpoint_file,
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
            Err(e) => {
                // A refused or failed open leaves no file it made.
                for (path, existed) in [(output, out_exists), (&checkpoint, done_exists)] {
                    if !existed {
                        let _ = fs::remove_file(path);
                    }
                }
                lock.discard();
                Err(e)
            }
        }
    }

    /// From now on, also writes the 17s not in `known` to `FILE.new`
    /// (see the module note). `kept` are the 17s already in the output (the
    /// [`Reconciled::found`] of [`Self::open`]): the file is rewritten with
    /// those of them that are new. Returns their number.
    pub fn track_new(
        &mut self,
        known: Arc<KnownSet>,
        kept: &[(usize, Puzzle)],
    ) -> Result<u64, OutputError> {
        let path = new_path(&self.output_path);
        let mut bytes = Vec::new();
        let mut lines = 0;
        for (index, p) in kept {
            if !known.contains(p) {
                writeln!(bytes, "{index}\t{p}").expect("write to a Vec");
                lines += 1;
            }
        }
        write_atomically(&path, &bytes).map_err(io_error(&path))?;
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
    pub fn record(&mut self, index: usize, puzzles: &[Puzzle]) -> Result<(), OutputError> {
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
    pub fn sync(&mut self) -> Result<(), OutputError> {
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

/// [`ResultFiles::open`] under the lock, `existed` saying whether the
/// output and the checkpoint existed: the state of the run (repaired on
/// resume), and the output and checkpoint written and open for appending.
fn open_locked(
    output: &Path,
    checkpoint: &Path,
    header: &str,
    mode: OpenMode,
    existed: (bool, bool),
) -> Result<(File, File, Reconciled), OutputError> {
    let (out_exists, done_exists) = existed;
    let fresh = Reconciled {
        checkpoint: format!("{header}\n").into_bytes(),
        ..Reconciled::default()
    };
    // A new run (neither file there) finds no `FILE.new` of another: a
    // file of the user's of that name would be replaced by this run's new
    // 17s (h56: `scan -o f.txt --known K` emptied a `f.txt.new`).
    let new = new_path(output);
    if mode != OpenMode::Overwrite
        && !out_exists
        && !done_exists
        && new.try_exists().map_err(io_error(&new))?
    {
        return Err(OutputError::StrayNew {
            new,
            output: output.to_path_buf(),
        });
    }
    let state = match mode {
        OpenMode::Create if out_exists => {
            return Err(OutputError::OutputExists(output.to_path_buf()));
        }
        OpenMode::Create if done_exists => {
            return Err(OutputError::OutputExists(checkpoint.to_path_buf()));
        }
        OpenMode::Create | OpenMode::Overwrite => fresh,
        OpenMode::Resume if !out_exists && !done_exists => fresh,
        OpenMode::Resume if !done_exists => {
            return Err(OutputError::NoCheckpoint {
                output: output.to_path_buf(),
                checkpoint: checkpoint.to_path_buf(),
            });
        }
        OpenMode::Resume => {
            let old_output = if out_exists {
                fs::read(output).map_err(io_error(output))?
            } else {
                Vec::new()
            };
            let old_checkpoint = fs::read(checkpoint).map_err(io_error(checkpoint))?;
            reconcile(header, &old_output, &old_checkpoint).map_err(|foreign| {
                OutputError::Mismatch {
                    path: checkpoint.to_path_buf(),
                    expected: header.to_string(),
                    found: foreign.found,
                }
            })?
        }
    };
    // A run started over drops the 17s not in a known list of the run
    // it replaces (`--known` writes the file afresh).
    if mode == OpenMode::Overwrite {
        let new = new_path(output);
        if new.try_exists().map_err(io_error(&new))? {
            fs::remove_file(&new).map_err(io_error(&new))?;
        }
    }
    // The checkpoint first: an output without a checkpoint is refused on
    // resume, a checkpoint without an output is not.
    write_atomically(checkpoint, &state.checkpoint).map_err(io_error(checkpoint))?;
    write_atomically(output, &state.output).map_err(io_error(output))?;
    let append = |p: &Path| OpenOptions::new().append(true).open(p).map_err(io_error(p));
    Ok((append(output)?, append(checkpoint)?, state))
}
