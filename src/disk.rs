//! The file system at the bottom of every layer that writes: the one
//! whole-file rewrite ([`write_atomically`], [`write_atomically_with`]) and
//! the streaming [`Checksum`] of the band table and flag files. It names
//! no other module of the crate.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;
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
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp{}.{call}", std::process::id()));
    let temporary = path.with_file_name(name);
    let result = (|| {
        let mut file = File::create(&temporary)?;
        write(&mut file)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
        return result;
    }
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
}
