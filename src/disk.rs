//! The file system at the bottom of every layer that writes: the one
//! whole-file rewrite ([`write_atomically`], [`write_atomically_with`],
//! [`AtomicFile`] for a writer that seeks) and
//! the streaming [`Checksum`] of the band table and flag files. It names
//! no other module of the crate.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Replaces the file at `path` with `bytes`, or leaves it as it was: see
/// [`write_atomically_with`].
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically_with(path, |file| file.write_all(bytes))
}

/// Replaces the file at `path` with what `write` writes, or leaves it as it
/// was. `write` fills a temporary file beside `path`, named uniquely per
/// process and call (two threads or processes writing the same file at
/// once each fill their own, and the last rename wins with a complete
/// file); the temporary file is fsync'd and renamed over `path`, then the
/// directory is fsync'd where the platform allows it, so the rename itself
/// survives a power loss. On an error the temporary file is removed.
/// The directory must exist.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    let mut out = AtomicFile::create(path)?;
    write(out.file())?;
    out.commit()
}

/// A file that replaces the one at `path` when committed, or leaves it as
/// it was ([`write_atomically_with`] for a writer that seeks or writes in
/// pieces, as the bitmap does): filled in a temporary file beside `path`,
/// named uniquely per process and call; [`AtomicFile::commit`] fsyncs it,
/// renames it over `path` and fsyncs the directory where the platform
/// allows it; dropped uncommitted, the temporary file is removed.
pub struct AtomicFile {
    /// `None` once committed.
    file: Option<File>,
    temporary: PathBuf,
    path: PathBuf,
}

impl AtomicFile {
    /// Starts the temporary file of `path` (whose directory must exist).
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        static CALLS: AtomicU64 = AtomicU64::new(0);
        let call = CALLS.fetch_add(1, Ordering::Relaxed);
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(format!(".tmp{}.{call}", std::process::id()));
        let temporary = path.with_file_name(name);
        let file = File::create(&temporary)?;
        Ok(AtomicFile {
            file: Some(file),
            temporary,
            path: path.to_path_buf(),
        })
    }

    /// The temporary file, to write.
    pub fn file(&mut self) -> &mut File {
        self.file.as_mut().expect("not committed")
    }

    /// The temporary file's path (for error messages).
    pub fn temporary(&self) -> &Path {
        &self.temporary
    }

    /// Syncs the file and renames it over `path` (then syncs the
    /// directory); on an error the temporary file is removed and `path`
    /// is as it was.
    pub fn commit(mut self) -> io::Result<()> {
        let file = self.file.take().expect("not committed");
        let result = file.sync_all().and_then(|()| {
            drop(file);
            fs::rename(&self.temporary, &self.path)
        });
        if result.is_err() {
            let _ = fs::remove_file(&self.temporary);
            return result;
        }
        let dir = match self.path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        // Directory fsync makes the rename durable; not every platform allows it.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.temporary);
        }
    }
}

/// Removes the temporary files [`write_atomically_with`] left beside
/// `path` or beside a companion of it when a process was killed between
/// filling one and renaming it: the files `NAME` + suffixes + `.tmpPID.K`
/// of `path`'s directory, `NAME` being `path`'s file name and the suffixes
/// any sequence of `companions` (`.part`, `.done`, ...). Only the caller
/// may write these files (it holds their lock), so any such file is
/// stale; those of this process are left. Returns how many were removed.
pub fn remove_stale_temporaries(path: &Path, companions: &[&str]) -> io::Result<u64> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Ok(0);
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|f| f.strip_prefix(name)) else {
            continue;
        };
        if is_stale_temporary(rest, companions) {
            match fs::remove_file(entry.path()) {
                Ok(()) => removed += 1,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(removed)
}

/// `rest` (a file name after the output's name) is companions, then
/// `.tmpPID.K` with a PID other than this process's.
fn is_stale_temporary(rest: &str, companions: &[&str]) -> bool {
    let Some(at) = rest.rfind(".tmp") else {
        return false;
    };
    let (mut head, tail) = rest.split_at(at);
    let Some((pid, call)) = tail[".tmp".len()..].split_once('.') else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || !digits(call) || pid == std::process::id().to_string() {
        return false;
    }
    while !head.is_empty() {
        match companions
            .iter()
            .find(|c| !c.is_empty() && head.starts_with(**c))
        {
            Some(c) => head = &head[c.len()..],
            None => return false,
        }
    }
    true
}

/// A streaming 64-bit checksum: each 8-byte little-endian word `w` updates
/// the state as `h = rotl(h ^ w, 23) · K` (a bijection of `h` for each `w`,
/// injective in `w` for each `h`, so any change to a single word, in
/// particular any single flipped byte, always changes the result); the last
/// partial word is zero-padded and the byte length is mixed in at the end.
#[derive(Clone, Debug)]
pub struct Checksum {
    state: u64,
    pending: [u8; 8],
    pending_len: usize,
    total: u64,
}

const CHECKSUM_SEED: u64 = 0x5331_3742_414e_4453;
const CHECKSUM_K: u64 = 0x9e37_79b9_7f4a_7c15;

#[inline]
fn mix(state: u64, word: u64) -> u64 {
    (state ^ word).rotate_left(23).wrapping_mul(CHECKSUM_K)
}

impl Default for Checksum {
    fn default() -> Self {
        Checksum::new()
    }
}

impl Checksum {
    pub fn new() -> Checksum {
        Checksum {
            state: CHECKSUM_SEED,
            pending: [0; 8],
            pending_len: 0,
            total: 0,
        }
    }

    /// Adds bytes (any split of the same bytes gives the same checksum).
    pub fn update(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if self.pending_len > 0 {
            let take = (8 - self.pending_len).min(bytes.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&bytes[..take]);
            self.pending_len += take;
            bytes = &bytes[take..];
            if self.pending_len < 8 {
                return;
            }
            self.state = mix(self.state, u64::from_le_bytes(self.pending));
            self.pending_len = 0;
        }
        let words = bytes.chunks_exact(8);
        let rest = words.remainder();
        for w in words {
            self.state = mix(
                self.state,
                u64::from_le_bytes(w.try_into().expect("8 bytes")),
            );
        }
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// The checksum of all bytes so far.
    pub fn finish(&self) -> u64 {
        let mut state = self.state;
        if self.pending_len > 0 {
            let mut last = [0u8; 8];
            last[..self.pending_len].copy_from_slice(&self.pending[..self.pending_len]);
            state = mix(state, u64::from_le_bytes(last));
        }
        state = mix(state, self.total);
        state ^= state >> 31;
        state = state.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        state ^ state >> 29
    }

    /// The checksum of one byte string.
    pub fn of(bytes: &[u8]) -> u64 {
        let mut sum = Checksum::new();
        sum.update(bytes);
        sum.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_is_split_independent_and_catches_flips() {
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let whole = Checksum::of(&bytes);
        for split in [0, 1, 7, 8, 9, 500, 999, 1000] {
            let mut sum = Checksum::new();
            sum.update(&bytes[..split]);
            sum.update(&bytes[split..]);
            assert_eq!(sum.finish(), whole);
        }
        let mut flipped = bytes.clone();
        flipped[999] ^= 1;
        assert_ne!(Checksum::of(&flipped), whole);
        assert_ne!(Checksum::of(&bytes[..999]), whole);
    }

    #[test]
    fn an_atomic_file_replaces_its_path_only_when_committed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bits");
        std::fs::write(&path, "old").unwrap();
        let names = || {
            let mut n: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            n.sort();
            n
        };
        // Written in pieces (a seek back), dropped: the old file stays,
        // the temporary file goes.
        let mut out = AtomicFile::create(&path).unwrap();
        out.file().write_all(b"new!").unwrap();
        assert_eq!(names().len(), 2, "the temporary file beside the path");
        drop(out);
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(names(), ["bits"]);
        // Committed: replaced, nothing else left.
        let mut out = AtomicFile::create(&path).unwrap();
        use std::io::{Seek, SeekFrom};
        out.file().write_all(b"xxw!").unwrap();
        out.file().seek(SeekFrom::Start(0)).unwrap();
        out.file().write_all(b"ne").unwrap();
        out.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new!");
        assert_eq!(names(), ["bits"]);
    }

    #[test]
    fn stale_temporaries_of_a_file_and_its_companions_go_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mine = std::process::id();
        let stale = [
            "0.txt.tmp1.0",
            "0.txt.done.tmp42.7",
            "0.txt.part.done.tmp42.3",
            "0.txt.part.cost.tmp9.12",
        ];
        let kept = [
            "0.txt".to_string(),
            "0.txt.done".to_string(),
            "0.txt.tmpnotes".to_string(),
            "0.txt.old.tmp1.0".to_string(),
            "0.txt.tmp1".to_string(),
            "0.txt.tmp1.x".to_string(),
            "10.txt.tmp1.0".to_string(),
            "1.txt.done.tmp1.0".to_string(),
            format!("0.txt.done.tmp{mine}.0"),
        ];
        for name in stale.iter().copied().chain(kept.iter().map(String::as_str)) {
            std::fs::write(d.join(name), "x").unwrap();
        }
        let removed = remove_stale_temporaries(&d.join("0.txt"), &[".done", ".part", ".cost"]);
        assert_eq!(removed.unwrap(), stale.len() as u64);
        let mut left: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let mut expected = kept.to_vec();
        expected.sort();
        assert_eq!(left, expected);
        assert_eq!(
            remove_stale_temporaries(&d.join("none/0.txt"), &[".done"]).unwrap(),
            0
        );
    }
}
