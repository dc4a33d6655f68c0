//! The one rule of every command that writes (`scan`, `exhaust`,
//! `validate --checkpoint`, `enumerate --all`/`--bands`, `campaign
//! plan`/`run`/`merge`, `man --dir`): before anything is written,
//! [`check_output`] (a file) or [`make_dir`] (a directory) refuses, with
//! `--force` or without,
//!
//! - `-` as an output (such a command writes a file; those that can print
//!   to standard output take no `-o`, or treat `-` before calling this);
//! - an output in a directory that does not exist, naming the directory
//!   the same way everywhere (no command makes missing parents);
//! - an output, or a companion it writes beside it (`FILE.lock`,
//!   `FILE.done`, `FILE.new`, `FILE.times`, `FILE.cost`: [`COMPANIONS`]),
//!   that is one of the run's inputs (the same file, through any path or
//!   link);
//! - an output or companion that is a campaign's own file (`units.tsv`,
//!   `campaign.sbatch`, `work.sbatch`, anything under `out/`, `logs/` or
//!   `claims/` of a directory holding a `units.tsv`);
//! - an output or companion of a file another run holds locked (its
//!   `FILE.lock`, [`super::OutputLock`]), naming that run's process;
//! - an output that is a directory, and a `FILE.lock` that is no lock
//!   file (a file of the user's that happens to bear the name: the lock
//!   would overwrite it with a process id).
//!
//! The resumable runs then take the output's lock themselves, so a run
//! that starts after this check is refused by the lock.

use std::fs::{File, TryLockError};
use std::io::Read;
use std::path::{Path, PathBuf};

use super::lock::{LockError, lock_path};

/// The files a command may write beside its output `FILE`: `FILE` plus
/// each of these suffixes. Every command is checked against all of them
/// (a rule per command would be one more thing to get wrong).
pub const COMPANIONS: [&str; 5] = [".lock", ".done", ".new", ".times", ".cost"];

/// Why an output is refused.
#[derive(Debug, thiserror::Error)]
pub enum UnsafeOutput {
    #[error(
        "{flag} -: this command writes a file, not standard output; give {flag} a file name \
         (`-` means standard input or output only where a command's help says so)"
    )]
    Stdout { flag: &'static str },
    #[error("cannot make {}", path.display())]
    Make {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "cannot write {}: no directory {} (make it first, or give a file in an existing \
         directory)",
        output.display(),
        dir.display()
    )]
    NoDirectory { output: PathBuf, dir: PathBuf },
    #[error("cannot write into {}: no directory {} (make it first)", dir.display(), dir.display())]
    MissingDir { dir: PathBuf },
    #[error(
        "{flag} {}: a file, not a directory (give a directory, or a name that does not exist yet)",
        dir.display()
    )]
    NotADirectory { flag: &'static str, dir: PathBuf },
    #[error(
        "{} would be written by this run, and it is the {what} {} it reads (the same file): \
         give the output another name",
        written.display(),
        input.display()
    )]
    IsInput {
        written: PathBuf,
        what: String,
        input: PathBuf,
    },
    #[error(
        "{} would be written by this run, and it is a file of the campaign {}: give the \
         output a path outside the campaign's units.tsv, campaign.sbatch, work.sbatch, out/, \
         logs/ and claims/",
        written.display(),
        campaign.display()
    )]
    CampaignFile { written: PathBuf, campaign: PathBuf },
    #[error(
        "{} is a directory; give the output a file name (e.g. {})",
        path.display(),
        path.join("out.txt").display()
    )]
    IsDirectory { path: PathBuf },
    #[error(
        "{} exists and is no lock file of s17 (it holds other data, which the run's lock \
         would overwrite): move it away, or give the output another name",
        lock.display()
    )]
    NotALock { lock: PathBuf },
    #[error(transparent)]
    Locked(#[from] LockError),
}

impl UnsafeOutput {
    /// A usage error (exit 2): an output the command line should not have
    /// named; a missing directory or a busy output is a runtime error.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            UnsafeOutput::Stdout { .. }
                | UnsafeOutput::IsInput { .. }
                | UnsafeOutput::CampaignFile { .. }
                | UnsafeOutput::NotALock { .. }
        )
    }
}

/// `output` and its [`COMPANIONS`].
pub fn written_files(output: &Path) -> Vec<PathBuf> {
    let mut files = vec![output.to_path_buf()];
    for suffix in COMPANIONS {
        let mut name = output.as_os_str().to_owned();
        name.push(suffix);
        files.push(PathBuf::from(name));
    }
    files
}

/// The rule (see the module note) for the output file `output` of
/// a command, given with `flag` (`-o`,
/// `--checkpoint`), of a run that reads `inputs` (what each is, and its
/// path; `-`, standard input, is no file).
pub fn check_output(
    flag: &'static str,
    output: &Path,
    inputs: &[(&str, &Path)],
) -> Result<(), UnsafeOutput> {
    if output == Path::new("-") {
        return Err(UnsafeOutput::Stdout { flag });
    }
    check_parent(output)?;
    for written in written_files(output) {
        check_written(&written, inputs)?;
    }
    // After those: a campaign's own directory (`out/`) is named as such.
    if output.is_dir() {
        return Err(UnsafeOutput::IsDirectory {
            path: output.to_path_buf(),
        });
    }
    let lock = lock_path(output);
    if !super::lock::is_lock_file(&lock) {
        return Err(UnsafeOutput::NotALock { lock });
    }
    Ok(())
}

/// The rule for a directory `dir` that a command writes into (`campaign
/// plan -o DIR`, `campaign merge -o DIR` of a `--first` campaign, `man
/// --dir`), then the directory made if `make` and missing (its parent
/// must exist).
pub fn make_dir(flag: &'static str, dir: &Path, make: bool) -> Result<(), UnsafeOutput> {
    if dir == Path::new("-") {
        return Err(UnsafeOutput::Stdout { flag });
    }
    if dir.is_dir() {
        return check_written(dir, &[]);
    }
    if dir.exists() {
        return Err(UnsafeOutput::NotADirectory {
            flag,
            dir: dir.to_path_buf(),
        });
    }
    if !make {
        return Err(UnsafeOutput::MissingDir {
            dir: dir.to_path_buf(),
        });
    }
    check_parent(dir)?;
    check_written(dir, &[])?;
    std::fs::create_dir(dir).map_err(|source| UnsafeOutput::Make {
        path: dir.to_path_buf(),
        source,
    })
}

/// The parent of `output` exists.
fn check_parent(output: &Path) -> Result<(), UnsafeOutput> {
    let dir = output.parent().filter(|d| !d.as_os_str().is_empty());
    match dir {
        Some(dir) if !dir.is_dir() => Err(UnsafeOutput::NoDirectory {
            output: output.to_path_buf(),
            dir: dir.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// One file the run writes: none of `inputs`, no campaign's own file,
/// not locked by another run.
fn check_written(written: &Path, inputs: &[(&str, &Path)]) -> Result<(), UnsafeOutput> {
    for (what, input) in inputs {
        if *input != Path::new("-") && same_file(written, input) {
            return Err(UnsafeOutput::IsInput {
                written: written.to_path_buf(),
                what: what.to_string(),
                input: input.to_path_buf(),
            });
        }
    }
    if let Some(campaign) = campaign_of(written) {
        return Err(UnsafeOutput::CampaignFile {
            written: written.to_path_buf(),
            campaign,
        });
    }
    // The file as an output of another run, or as one of its companions.
    let name = written.as_os_str().to_string_lossy();
    let owners = std::iter::once(written.to_path_buf()).chain(
        COMPANIONS
            .iter()
            .filter_map(|suffix| name.strip_suffix(suffix).map(PathBuf::from)),
    );
    for owner in owners {
        check_unlocked(&owner)?;
    }
    Ok(())
}

/// The campaign directory whose own file `path` is: `units.tsv`,
/// `campaign.sbatch`, `work.sbatch` (and names that start with them),
/// `out`, `logs` and `claims` of a directory holding a `units.tsv`, or
/// anything inside those three.
fn campaign_of(path: &Path) -> Option<PathBuf> {
    let is_campaign = |dir: &Path| dir.join("units.tsv").is_file();
    let parent = path.parent().map(|p| {
        if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        }
    })?;
    let name = path.file_name()?.to_string_lossy();
    let own = ["units.tsv", "campaign.sbatch", "work.sbatch"]
        .iter()
        .any(|n| name.starts_with(n))
        || matches!(&*name, "out" | "logs" | "claims");
    if own && is_campaign(parent) {
        return Some(parent.to_path_buf());
    }
    // Inside out/, logs/ or claims/ (at any depth).
    let mut dir = parent;
    while let Some(up) = dir.parent() {
        let up = if up.as_os_str().is_empty() {
            Path::new(".")
        } else {
            up
        };
        let sub = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        if matches!(sub.as_deref(), Some("out" | "logs" | "claims")) && is_campaign(up) {
            return Some(up.to_path_buf());
        }
        if up == dir {
            break;
        }
        dir = up;
    }
    None
}

/// Refuses `output` while another run holds its lock (`FILE.lock`); takes
/// no lock and makes no file.
fn check_unlocked(output: &Path) -> Result<(), UnsafeOutput> {
    let lock = lock_path(output);
    let Ok(mut file) = File::open(&lock) else {
        return Ok(());
    };
    match file.try_lock_shared() {
        Ok(()) => Ok(()),
        Err(TryLockError::WouldBlock) => {
            let mut text = String::new();
            let holder = file
                .read_to_string(&mut text)
                .ok()
                .and_then(|_| text.trim().parse().ok());
            Err(LockError::Busy {
                output: output.to_path_buf(),
                lock,
                holder,
            }
            .into())
        }
        Err(TryLockError::Error(_)) => Ok(()),
    }
}

/// True when `a` and `b` are one existing file, through whatever paths or
/// links (same device and inode on Unix; the same canonical path
/// elsewhere).
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        x.dev() == y.dev() && x.ino() == y.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (x, y);
        matches!((a.canonicalize(), b.canonicalize()), (Ok(p), Ok(q)) if p == q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::OutputLock;

    #[test]
    fn every_case_of_the_rule_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let input = d.join("g.txt.lock");
        std::fs::write(&input, "grids\n").unwrap();
        let out = d.join("g.txt");
        let err = check_output("-o", &out, &[("grid file", &input)]).unwrap_err();
        assert!(
            matches!(err, UnsafeOutput::IsInput { .. }) && err.is_usage(),
            "{err}"
        );

        let err = check_output("-o", Path::new("-"), &[]).unwrap_err();
        assert!(matches!(err, UnsafeOutput::Stdout { .. }), "{err}");

        let err = check_output("-o", &d.join("no/e.txt"), &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "cannot write {}: no directory {} (make it first, or give a file in an \
                 existing directory)",
                d.join("no/e.txt").display(),
                d.join("no").display()
            )
        );

        let campaign = d.join("demo");
        std::fs::create_dir_all(campaign.join("out")).unwrap();
        std::fs::create_dir_all(campaign.join("logs")).unwrap();
        std::fs::write(campaign.join("units.tsv"), "plan\n").unwrap();
        for own in ["units.tsv", "campaign.sbatch", "out/0.txt", "out", "logs/x"] {
            let err = check_output("-o", &campaign.join(own), &[]).unwrap_err();
            assert!(
                matches!(err, UnsafeOutput::CampaignFile { .. }),
                "{own}: {err}"
            );
        }
        // Beside them, a merge's own file is fine.
        check_output("-o", &campaign.join("all.txt"), &[]).unwrap();

        let held = OutputLock::acquire(&d.join("f.txt")).unwrap();
        for written in ["f.txt", "f.txt.done"] {
            let path = d.join(written);
            let err = check_output("-o", &path, &[]).unwrap_err();
            assert!(matches!(err, UnsafeOutput::Locked(_)), "{written}: {err}");
        }
        drop(held);
        check_output("-o", &d.join("f.txt"), &[]).unwrap();

        // A lock file left by a run (its process id) is fine; a file of
        // other data bearing the lock's name, or a directory as the
        // output, is refused.
        std::fs::write(d.join("p.txt.lock"), "4194300\n").unwrap();
        check_output("-o", &d.join("p.txt"), &[]).unwrap();
        std::fs::write(d.join("q.txt.lock"), "grids\n").unwrap();
        let err = check_output("-o", &d.join("q.txt"), &[]).unwrap_err();
        assert!(
            matches!(err, UnsafeOutput::NotALock { .. }) && err.is_usage(),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(d.join("q.txt.lock")).unwrap(),
            "grids\n"
        );
        let err = check_output("-o", &campaign, &[]).unwrap_err();
        assert!(
            matches!(err, UnsafeOutput::IsDirectory { .. }) && !err.is_usage(),
            "{err}"
        );
    }

    #[test]
    fn a_directory_is_made_only_in_one_that_exists() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let err = make_dir("-o", &d.join("a/b"), true).unwrap_err();
        assert!(matches!(err, UnsafeOutput::NoDirectory { .. }), "{err}");
        assert!(!d.join("a").exists());
        make_dir("-o", &d.join("a"), true).unwrap();
        assert!(d.join("a").is_dir());
        let err = make_dir("--dir", &d.join("b"), false).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "cannot write into {}: no directory {} (make it first)",
                d.join("b").display(),
                d.join("b").display()
            )
        );
        std::fs::write(d.join("f"), "a file").unwrap();
        for make in [true, false] {
            let err = make_dir("-o", &d.join("f"), make).unwrap_err();
            assert!(matches!(err, UnsafeOutput::NotADirectory { .. }), "{err}");
            assert_eq!(std::fs::read_to_string(d.join("f")).unwrap(), "a file");
        }
    }
}
