//! Merging a campaign's puzzles: every distinct puzzle of the units'
//! checkpointed entries, sorted, once. [`merge_into`] sorts one slice at
//! a time (chunks of [`CHUNK`] puzzles sorted into spill files, then
//! merged), in parallel over slices, and merges the slices' sorted files
//! into the output, so memory does not grow with the puzzles found.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};
use std::fs;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::status::{Status, UnitStatus, for_each_kept};
use super::{CampaignError, io_error};
use crate::grid::{CELLS, Puzzle};
use crate::known::KnownSet;

/// Puzzles a merge sorts in memory at once per slice (81 bytes each).
pub const CHUNK: usize = 1 << 19;

/// What a merge of a campaign's puzzles gave.
#[derive(Clone, Debug, Default)]
pub struct Merged {
    /// Distinct puzzles written.
    pub puzzles: u64,
    /// Per slice merged: its distinct puzzles.
    pub per_slice: BTreeMap<usize, u64>,
    /// Puzzles not in the known list (with one).
    pub new: u64,
}

/// Refuses a merge of `status` before anything is written: a campaign
/// with faults always, an incomplete one unless `partial`.
pub fn check_mergeable(dir: &Path, status: &Status, partial: bool) -> Result<(), CampaignError> {
    if let Some(faults) = status.faults() {
        return Err(CampaignError::Faults {
            dir: dir.to_path_buf(),
            faults,
        });
    }
    if !partial && let Some(missing) = status.missing() {
        return Err(CampaignError::Incomplete {
            dir: dir.to_path_buf(),
            missing,
        });
    }
    Ok(())
}

/// A sorted file of distinct puzzles, 81 digit bytes each.
fn write_run(path: &Path, puzzles: &[Puzzle]) -> Result<(), CampaignError> {
    let file = fs::File::create(path).map_err(io_error(path))?;
    let mut w = BufWriter::with_capacity(1 << 16, file);
    for p in puzzles {
        w.write_all(p.digits()).map_err(io_error(path))?;
    }
    w.flush().map_err(io_error(path))
}

/// Reads a run file back, one puzzle at a time.
struct RunReader {
    reader: BufReader<fs::File>,
    path: PathBuf,
}

impl RunReader {
    fn open(path: &Path) -> Result<RunReader, CampaignError> {
        let file = fs::File::open(path).map_err(io_error(path))?;
        Ok(RunReader {
            reader: BufReader::with_capacity(1 << 16, file),
            path: path.to_path_buf(),
        })
    }

    fn next(&mut self) -> Result<Option<Puzzle>, CampaignError> {
        let mut cells = [0u8; CELLS];
        match self.reader.read_exact(&mut cells) {
            Ok(()) => Ok(Some(Puzzle::from_digits(cells))),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(io_error(&self.path)(e)),
        }
    }
}

/// Merges sorted runs, each puzzle once, calling `f` on each in order.
fn merge_runs(
    runs: &[PathBuf],
    mut f: impl FnMut(&Puzzle) -> Result<(), CampaignError>,
) -> Result<(), CampaignError> {
    let mut readers = runs
        .iter()
        .map(|p| RunReader::open(p))
        .collect::<Result<Vec<_>, _>>()?;
    let mut heap = BinaryHeap::new();
    for (i, r) in readers.iter_mut().enumerate() {
        if let Some(p) = r.next()? {
            heap.push(Reverse((p, i)));
        }
    }
    let mut last: Option<Puzzle> = None;
    while let Some(Reverse((p, i))) = heap.pop() {
        if last != Some(p) {
            f(&p)?;
            last = Some(p);
        }
        if let Some(next) = readers[i].next()? {
            heap.push(Reverse((next, i)));
        }
    }
    Ok(())
}

/// The distinct puzzles of slice `k`'s units sorted into one run file
/// under `spill`: chunks of [`CHUNK`] sorted in memory, then merged.
fn sort_slice(
    dir: &Path,
    k: usize,
    units: &[&UnitStatus],
    spill: &Path,
) -> Result<(PathBuf, u64), CampaignError> {
    let mut chunk: Vec<Puzzle> = Vec::new();
    let mut runs: Vec<PathBuf> = Vec::new();
    let flush = |chunk: &mut Vec<Puzzle>, runs: &mut Vec<PathBuf>| {
        chunk.sort_unstable();
        chunk.dedup();
        let path = spill.join(format!("slice-{k}.run{}", runs.len()));
        write_run(&path, chunk)?;
        runs.push(path);
        chunk.clear();
        Ok::<(), CampaignError>(())
    };
    for u in units {
        let mut failed = None;
        for_each_kept(dir, u, |_, _, p| {
            chunk.push(p);
            if chunk.len() >= CHUNK
                && failed.is_none()
                && let Err(e) = flush(&mut chunk, &mut runs)
            {
                failed = Some(e);
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
    }
    let count;
    let path = spill.join(format!("slice-{k}.sorted"));
    if runs.is_empty() {
        chunk.sort_unstable();
        chunk.dedup();
        write_run(&path, &chunk)?;
        count = chunk.len() as u64;
    } else {
        if !chunk.is_empty() {
            flush(&mut chunk, &mut runs)?;
        }
        drop(chunk);
        let file = fs::File::create(&path).map_err(io_error(&path))?;
        let mut w = BufWriter::with_capacity(1 << 16, file);
        let mut n = 0u64;
        merge_runs(&runs, |p| {
            n += 1;
            w.write_all(p.digits()).map_err(io_error(&path))
        })?;
        w.flush().map_err(io_error(&path))?;
        count = n;
        for r in &runs {
            let _ = fs::remove_file(r);
        }
    }
    Ok((path, count))
}

/// Merges the puzzles of `status`'s units (of the `slices` chosen, else
/// all) into `out`, one minlex puzzle a line, sorted, each once; those not
/// in `known` also into `new`. Sorts slice by slice in parallel (spill
/// files under `spill`, removed at the end), so memory is bounded by
/// [`CHUNK`] per thread. Refused as [`check_mergeable`] says.
#[allow(clippy::too_many_arguments)]
pub fn merge_into(
    dir: &Path,
    status: &Status,
    known: Option<&KnownSet>,
    partial: bool,
    slices: Option<&BTreeSet<usize>>,
    spill: &Path,
    out: &mut dyn Write,
    mut new: Option<&mut dyn Write>,
) -> Result<Merged, CampaignError> {
    check_mergeable(dir, status, partial)?;
    let mut by_slice: BTreeMap<usize, Vec<&UnitStatus>> = BTreeMap::new();
    for u in &status.units {
        if slices.is_none_or(|s| s.contains(&u.unit.k)) {
            by_slice.entry(u.unit.k).or_default().push(u);
        }
    }
    fs::create_dir_all(spill).map_err(io_error(spill))?;
    let sorted: Vec<(usize, PathBuf, u64)> = by_slice
        .par_iter()
        .map(|(&k, units)| sort_slice(dir, k, units, spill).map(|(p, n)| (k, p, n)))
        .collect::<Result<_, _>>()?;
    let mut merged = Merged {
        per_slice: sorted.iter().map(|(k, _, n)| (*k, *n)).collect(),
        ..Merged::default()
    };
    let files: Vec<PathBuf> = sorted.iter().map(|(_, p, _)| p.clone()).collect();
    let write_error = |e: io::Error| CampaignError::Io {
        path: PathBuf::from("the merge's output"),
        source: e,
    };
    merge_runs(&files, |p| {
        merged.puzzles += 1;
        writeln!(out, "{p}").map_err(write_error)?;
        if let Some(set) = known
            && !set.contains(p)
        {
            merged.new += 1;
            if let Some(w) = new.as_mut() {
                writeln!(w, "{p}").map_err(write_error)?;
            }
        }
        Ok(())
    })?;
    for f in &files {
        let _ = fs::remove_file(f);
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_runs_merge_into_each_puzzle_once_in_order() {
        let dir = std::env::temp_dir().join(format!("s17-runs-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let mut rng = fastrand::Rng::with_seed(52);
        let puzzle = |rng: &mut fastrand::Rng| {
            let mut cells = [0u8; CELLS];
            cells[rng.usize(..CELLS)] = rng.u8(1..4);
            Puzzle::from_digits(cells)
        };
        let all: Vec<Puzzle> = (0..500).map(|_| puzzle(&mut rng)).collect();
        let mut runs = Vec::new();
        for (i, chunk) in all.chunks(70).enumerate() {
            let mut chunk = chunk.to_vec();
            chunk.sort_unstable();
            chunk.dedup();
            let path = dir.join(format!("run{i}"));
            write_run(&path, &chunk).unwrap();
            runs.push(path);
        }
        let mut merged = Vec::new();
        merge_runs(&runs, |p| {
            merged.push(*p);
            Ok(())
        })
        .unwrap();
        let expected: Vec<Puzzle> = all
            .iter()
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        assert_eq!(merged, expected);
        fs::remove_dir_all(&dir).unwrap();
    }
}
