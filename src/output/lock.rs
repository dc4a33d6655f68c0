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
//! the same name. Its content (a process id) is informative only.

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

/// An exclusive advisory lock on an output, held until dropped.
#[derive(Debug)]
pub struct OutputLock {
    /// Kept open: closing it releases the lock.
    _file: File,
    path: PathBuf,
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
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_error)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut text = String::new();
                let holder = file
                    .read_to_string(&mut text)
                    .ok()
                    .and_then(|_| text.trim().parse().ok());
                return Err(LockError::Busy {
                    output: output.to_path_buf(),
                    lock: path,
                    holder,
                });
            }
            Err(TryLockError::Error(e)) => return Err(io_error(e)),
        }
        // Ours now: say who holds it, for the message of a refused run.
        let write_pid = |file: &mut File| -> io::Result<()> {
            file.set_len(0)?;
            file.rewind()?;
            writeln!(file, "{}", std::process::id())?;
            file.flush()
        };
        write_pid(&mut file).map_err(io_error)?;
        Ok(OutputLock { _file: file, path })
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
}
