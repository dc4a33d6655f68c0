//! The files a run writes and must not lose: resumable result files with
//! their checkpoint, their repair on resume, the lock that allows one run
//! per output, and the one atomic write every whole-file rewrite goes
//! through (result files, the band table file, `enumerate`'s counts file).
//!
//! - [`files`]: [`ResultFiles`], the output `FILE`, its checkpoint
//!   `FILE.done` and `FILE.new`, open for appending; used by `scan`,
//!   `validate --checkpoint` and `exhaust`.
//! - [`checkpoint`]: the checkpoint header and path, the [`Fingerprint`]
//!   that names a run's input, and [`reconcile`], the repair on resume.
//! - [`lock`]: [`OutputLock`], one run per output.
//! - [`safety`]: the one rule of every output ([`check_output`],
//!   [`make_dir`]): never `-`, an input, a campaign's own file or a file
//!   another run holds locked, in a directory that exists.
//! - [`write_atomically`]: a whole file replaced, or left as it was.
//!
//! # Result files
//!
//! A run writes two files, both append-only while it runs:
//!
//! - the **output** `FILE`: one line `INDEX<TAB>PUZZLE` per 17 found, INDEX
//!   naming the piece of work (for `scan`, the 1-based line number of the
//!   grid in the grid file; for `exhaust`, the entry number);
//! - the **checkpoint** `FILE.done`: a header line naming the run (the
//!   input's fingerprint and which part of it), then one line
//!   `INDEX<TAB>COUNT` per finished piece ("grid" below), COUNT being the
//!   number of 17s it wrote.
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
//! written with [`write_atomically`], so a crash during the repair leaves
//! the old or the new file, and either is a valid state to resume from. No
//! 17 is lost (a grid is either kept with all its lines or searched again)
//! and none is repeated (the lines of a grid not kept are removed before it
//! is searched again).

use std::io;
use std::path::{Path, PathBuf};

pub mod checkpoint;
pub mod files;
pub mod lock;
pub mod safety;

#[cfg(test)]
pub(crate) mod tests;

pub use crate::disk::{write_atomically, write_atomically_with};
pub use checkpoint::{
    Fingerprint, ForeignHeader, Reconciled, Repair, checkpoint_header, checkpoint_path, reconcile,
};
pub use files::{OpenMode, ResultFiles, new_path};
pub use lock::{LockError, OutputLock};
pub use safety::{UnsafeOutput, check_output, make_dir, same_file};

/// Why result files could not be opened or written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("{}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(transparent)]
    Locked(#[from] LockError),
    #[error("{} already exists; pass --resume to continue that run, or --force to start over", .0.display())]
    OutputExists(PathBuf),
    #[error("{} is a directory; give the output a file name (e.g. {})", .0.display(), .0.join("out.txt").display())]
    IsDirectory(PathBuf),
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
        "{} exists, but {} and its checkpoint do not: it is no file of this run, and a run \
         with a known list would replace it; move it away, or pass --force to start over",
        new.display(),
        output.display()
    )]
    StrayNew { new: PathBuf, output: PathBuf },
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

/// An [`OutputError::Io`] naming `path`.
pub(crate) fn io_error(path: &Path) -> impl FnOnce(io::Error) -> OutputError + '_ {
    move |source| OutputError::Io {
        path: path.to_path_buf(),
        source,
    }
}
