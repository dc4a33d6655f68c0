//! One run per output: an advisory lock held for as long as a run writes
//! its output.
//!
//! Two runs writing the same output (`scan`, `validate --checkpoint`, any
//! command built on [`crate::output::ResultFiles`]) would interleave their
//! lines and race on the repair of the checkpoint. So the first run takes an
//! exclusive advisory lock ([`File::try_lock`]: `flock` on Unix,
//! `LockFileEx` on Windows) on a lock file beside the output, `FILE.lock`,
//! and any other run that asks for the same lock is refused at once with
//! [`LockError::Busy`], naming the holder's process id (written into the
//! lock file by the holder). The operating system drops the lock when the
//! holder exits, however it exits (`kill -9` included), so a stale lock
//! never blocks a resume.
//!
//! The lock file is left in place after the run: removing it while another
//! process may have it open would let two runs lock two different files of
//! the same name. Its content (a process id) is informative only. One
//! exception: a run refused before it wrote anything removes the lock file
//! it created ([`OutputLock::discard`]), so that it leaves no file behind;
//! a run that opened that file meanwhile finds, once it holds the lock, that
//! the name no longer leads to its file, and takes the lock again.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

/// Why a lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "{} is in use by another run ({}lock {}); wait for it to end, \
         or give this run another output",
        output.display(),
        match holder { Some(pid) => format!("process {pid}, "), None => String::new() },
        lock.display()
    )]
    Busy {
        output: PathBuf,
        lock: PathBuf,
        holder: Option<u32>,
    },
    #[error(
        "{} exists and is no lock file of s17 (it holds other data, which the lock would \
         overwrite): move it away, or give the output another name",
        lock.display()
    )]
    NotALock { lock: PathBuf },
    #[error("cannot lock {}", lock.display())]
    Io {
        lock: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// The lock file of an output: `FILE.lock`.
pub fn lock_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// True unless `path` exists and holds something else than a lock file of
/// s17 does (nothing, or a process id): a missing file is one to make.
pub fn is_lock_file(path: &Path) -> bool {
    match std::fs::metadata(path) {
        Err(_) => true,
        Ok(meta) if !meta.is_file() => false,
        Ok(_) => std::fs::read(path).is_ok_and(|bytes| holds_a_pid_or_nothing(&bytes)),
    }
}

/// A lock file's content: nothing (made, not yet written), or a process id
/// and a line end.
fn holds_a_pid_or_nothing(bytes: &[u8]) -> bool {
    bytes.len() <= 24 && bytes.trim_ascii().iter().all(u8::is_ascii_digit)
}

/// Opens the lock file at `path`, creating it if missing; true if it was
/// created.
///
/// `Ok(None)`: the file existed, then was removed before it could be opened
/// (by a run that gave up): try again. A missing directory is an error.
fn open_lock_file(path: &Path) -> io::Result<Option<(File, bool)>> {
    let mut options = OpenOptions::new();
    options.read(true).write(true);
    match options.clone().create_new(true).open(path) {
        Ok(file) => Ok(Some((file, true))),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => match options.open(path) {
            Ok(file) => Ok(Some((file, false))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    }
}

/// True if `path` still names the open `file` (always on systems without
/// file identities to compare, which do not remove open files).
fn names_file(path: &Path, file: &File) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(path), file.metadata()) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (path, file);
        true
    }
}

/// The error of a failed `try_lock` of `file`, the lock file of `output`
/// at `path`: [`LockError::Busy`] naming the holder's process id.
fn lock_error(error: TryLockError, output: &Path, path: &Path, mut file: File) -> LockError {
    match error {
        TryLockError::WouldBlock => {
            let mut text = String::new();
            let holder = file
                .read_to_string(&mut text)
                .ok()
                .and_then(|_| text.trim().parse().ok());
            LockError::Busy {
                output: output.to_path_buf(),
                lock: path.to_path_buf(),
                holder,
            }
        }
        TryLockError::Error(source) => LockError::Io {
            lock: path.to_path_buf(),
            source,
        },
    }
}

/// An exclusive advisory lock on an output, held until dropped.
#[derive(Debug)]
pub struct OutputLock {
    /// Kept open: closing it releases the lock.
    file: File,
    path: PathBuf,
    /// This lock made the lock file (it did not exist before).
    created: bool,
}

impl OutputLock {
    /// Takes the lock of `output` (creating `FILE.lock` if needed), or
    /// refuses at once if another process (or another `OutputLock` of this
    /// process) holds it.
    pub fn acquire(output: &Path) -> Result<OutputLock, LockError> {
        let path = lock_path(output);
        let io_error = |source| LockError::Io {
            lock: path.clone(),
            source,
        };
        let (mut file, created) = loop {
            let (file, created) = match open_lock_file(&path) {
                Ok(Some(opened)) => opened,
                // Removed between the two opens by a run that gave up.
                Ok(None) => continue,
                Err(e) => return Err(io_error(e)),
            };
            match file.try_lock() {
                // Removed by a run that gave up before this one locked it:
                // another run may lock the new file of that name.
                Ok(()) if !names_file(&path, &file) => continue,
                Ok(()) => break (file, created),
                Err(e) => return Err(lock_error(e, output, &path, file)),
            }
        };
        // A file of the user's bearing the lock's name is not overwritten.
        if !created {
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes).map_err(io_error)?;
            if !holds_a_pid_or_nothing(&bytes) {
                return Err(LockError::NotALock { lock: path });
            }
        }
        // Ours now: say who holds it, for the message of a refused run.
        let write_pid = |file: &mut File| -> io::Result<()> {
            file.set_len(0)?;
            file.rewind()?;
            writeln!(file, "{}", std::process::id())?;
            file.flush()
        };
        write_pid(&mut file).map_err(io_error)?;
        Ok(OutputLock {
            file,
            path,
            created,
        })
    }

    /// Releases the lock, removing the lock file if this lock created it:
    /// for a run refused before it wrote anything (see the module note).
    pub fn discard(self) {
        if self.created {
            let _ = std::fs::remove_file(&self.path);
        }
        drop(self.file);
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_other_data_is_no_lock_and_stays() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("e.txt");
        std::fs::write(lock_path(&output), "grids\n").unwrap();
        let err = OutputLock::acquire(&output).unwrap_err();
        assert!(matches!(err, LockError::NotALock { .. }), "{err}");
        assert_eq!(
            std::fs::read_to_string(lock_path(&output)).unwrap(),
            "grids\n"
        );
        std::fs::write(lock_path(&output), "123\n").unwrap();
        OutputLock::acquire(&output).unwrap();
    }

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("out.txt");
        let first = OutputLock::acquire(&output).unwrap();
        assert_eq!(first.path(), dir.path().join("out.txt.lock"));
        let err = OutputLock::acquire(&output).unwrap_err();
        match &err {
            LockError::Busy { holder, .. } => assert_eq!(*holder, Some(std::process::id())),
            other => panic!("expected Busy, got {other:?}"),
        }
        let message = err.to_string();
        assert!(
            message.contains("out.txt is in use by another run")
                && message.contains(&format!("process {}", std::process::id())),
            "{message}"
        );
        // Another output is independent.
        let _other = OutputLock::acquire(&dir.path().join("other.txt")).unwrap();
        drop(first);
        OutputLock::acquire(&output).unwrap();
    }

    #[test]
    fn a_missing_directory_is_an_io_error_naming_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let err = OutputLock::acquire(&dir.path().join("no/such/out.txt")).unwrap_err();
        assert!(matches!(err, LockError::Io { .. }), "{err:?}");
        assert!(err.to_string().contains("out.txt.lock"), "{err}");
    }

    /// A discarded lock removes the lock file it made, and only that one;
    /// a waiter that opened the removed file locks the new one instead.
    #[test]
    fn a_discarded_lock_removes_only_the_file_it_made() {
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("out.txt");
        let lock = lock_path(&output);
        OutputLock::acquire(&output).unwrap().discard();
        assert!(!lock.exists());
        drop(OutputLock::acquire(&output).unwrap());
        assert!(lock.exists());
        OutputLock::acquire(&output).unwrap().discard();
        assert!(lock.exists(), "made by an earlier lock: kept");

        // The waiter's file is removed (as a refused run discards it) while
        // it is open: the name no longer leads to it, so a lock on it is
        // not the output's lock.
        #[cfg(unix)]
        {
            let waiter = OpenOptions::new().read(true).open(&lock).unwrap();
            std::fs::remove_file(&lock).unwrap();
            assert!(!names_file(&lock, &waiter));
            let held = OutputLock::acquire(&output).unwrap();
            assert!(names_file(&lock, &held.file));
        }
    }
}
