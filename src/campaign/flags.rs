//! The merge of a `--first` campaign: one flag file per slice
//! ([`crate::flags`]) for the slices whose entries it searched.
//!
//! The puzzles of every checkpointed entry (one per visit that found one,
//! at any visit: hi, mid or lo) become flag records of their grids
//! (`flag_records`); a grid is kept in slice K's file when its hi visit
//! is in an entry of K that the campaign searched (checkpointed). The
//! counts of slice K:
//!
//! - *searched*: grids whose hi visit is in a searched entry of K (the
//!   units' cost lines, or the entry's hi visits counted when an entry has
//!   no cost line);
//! - *covered*: those whose mid visit (an entry of K) and lo visit (an
//!   entry of the slice of the hi entry's band-2 class) were searched too.
//!   When K is searched whole, every mid visit is; when the lo slice is
//!   searched whole, every lo visit is; when the lo slice has no searched
//!   entry, no lo visit is. Only the other entries are walked: each grid's
//!   visits ([`Ed::visits_of`]), their entry numbers in one walk per slice
//!   ([`Ed::entry_numbers`]). So the count is exact.
//!
//! A covered grid's flag is exact; a searched grid that is not covered may
//! lack a flag only because an unsearched visit held its puzzle: a lower
//! bound.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::status::{UnitStatus, check_mergeable, for_each_kept, holds};
use super::{CampaignError, CostTable, Status, io_error, unit_costs, unit_output};
use crate::band::Band;
use crate::ed::{Choices, Ed, Entry, HiForm, Key};
use crate::flags::{
    FlagHeader, FlagRecord, MapError, PLACED_LEN, Placed, Provenance, THIS_BUILD, place,
    slice_records,
};
use crate::grid::Puzzle;

/// One slice's flags.
#[derive(Clone, Debug)]
pub struct SliceFlags {
    pub header: FlagHeader,
    /// The plan's fingerprint, the slice's entries planned and
    /// checkpointed, complete or partial, this build.
    pub provenance: Provenance,
    pub records: Vec<FlagRecord>,
}

/// What the merge of a `--first` campaign gives (the records went to the
/// writer, one slice at a time).
#[derive(Clone, Debug, Default)]
pub struct FlagMerge {
    /// The headers written, by slice: every slice with a searched entry.
    pub slices: Vec<FlagHeader>,
    /// Flagged grids whose hi visit lies outside the searched entries (a
    /// mid or lo visit found their puzzle): in no file.
    pub outside: u64,
    /// Placed puzzles that gave no record (bugs).
    pub errors: Vec<MapError>,
}

/// Puzzles placed at once (in parallel) while reading a unit.
const BATCH: usize = 1 << 12;
/// Bad puzzles named per unit; the rest are counted.
const NAMED: usize = 20;

/// The searched entries of each slice, as sorted runs.
fn searched_runs(status: &Status) -> BTreeMap<usize, Vec<Range<u64>>> {
    let mut runs: BTreeMap<usize, Vec<Range<u64>>> = BTreeMap::new();
    for u in &status.units {
        runs.entry(u.unit.k)
            .or_default()
            .extend(u.done.iter().cloned());
    }
    for list in runs.values_mut() {
        list.sort_by_key(|r| r.start);
        let mut merged: Vec<Range<u64>> = Vec::with_capacity(list.len());
        for r in list.drain(..) {
            match merged.last_mut() {
                Some(last) if last.end >= r.start => last.end = last.end.max(r.end),
                _ => merged.push(r),
            }
        }
        *list = merged;
    }
    runs
}

/// The grids of slice `k`'s checkpointed entries from its units' cost
/// lines (the last line of an entry), asked for in increasing entry order
/// beside the slice walk: the units (which do not overlap) are read one at
/// a time as the walk reaches them, so memory holds one unit's entries,
/// not the slice's.
struct CostGrids<'a> {
    dir: &'a Path,
    /// Slice `k`'s units, by first entry.
    units: Vec<&'a UnitStatus>,
    /// The next unit to read.
    next: usize,
    /// The end of the range of the unit read (0 before the first).
    end: u64,
    /// Its (entry, grids), sorted, one an entry, and the first not yet
    /// passed.
    grids: Vec<(u64, u64)>,
    at: usize,
}

impl<'a> CostGrids<'a> {
    /// Over `units`, those of one slice.
    fn new(dir: &'a Path, units: impl Iterator<Item = &'a UnitStatus>) -> Self {
        let mut units: Vec<&UnitStatus> = units.collect();
        units.sort_by_key(|u| u.unit.entries.start);
        CostGrids {
            dir,
            units,
            next: 0,
            end: 0,
            grids: Vec::new(),
            at: 0,
        }
    }

    /// The grids of `entry`, no smaller than the entry asked for before.
    fn get(&mut self, entry: u64) -> Result<Option<u64>, CampaignError> {
        while entry >= self.end {
            let Some(u) = self.units.get(self.next).copied() else {
                self.grids.clear();
                self.end = u64::MAX;
                break;
            };
            self.next += 1;
            if u.unit.entries.end > entry {
                self.read(u)?;
            }
        }
        while self.grids.get(self.at).is_some_and(|&(e, _)| e < entry) {
            self.at += 1;
        }
        Ok(self
            .grids
            .get(self.at)
            .filter(|&&(e, _)| e == entry)
            .map(|&(_, g)| g))
    }

    /// Reads unit `u`'s cost lines of its checkpointed entries.
    fn read(&mut self, u: &UnitStatus) -> Result<(), CampaignError> {
        self.grids.clear();
        self.at = 0;
        self.end = u.unit.entries.end;
        let path = unit_costs(self.dir, u.unit.number);
        let file = match fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io_error(&path)(e)),
        };
        let mut reader = BufReader::with_capacity(1 << 16, file);
        let mut buf = Vec::with_capacity(128);
        loop {
            buf.clear();
            if reader
                .read_until(b'\n', &mut buf)
                .map_err(io_error(&path))?
                == 0
            {
                break;
            }
            if buf.last() == Some(&b'\n') {
                buf.pop();
            }
            let line = String::from_utf8_lossy(&buf);
            let f: Vec<&str> = line.split('\t').collect();
            if let [entry, g, _, _] = f[..]
                && let (Ok(entry), Ok(g)) = (entry.parse::<u64>(), g.parse::<u64>())
                && holds(&u.done, entry)
            {
                self.grids.push((entry, g));
            }
        }
        // The last line of an entry counts (a stable sort keeps file order).
        self.grids.sort_by_key(|&(e, _)| e);
        let mut kept: Vec<(u64, u64)> = Vec::with_capacity(self.grids.len());
        for &(e, g) in &self.grids {
            match kept.last_mut() {
                Some(last) if last.0 == e => last.1 = g,
                _ => kept.push((e, g)),
            }
        }
        self.grids = kept;
        Ok(())
    }
}

/// Phase 1: every kept puzzle of every unit placed at its hi visit and
/// spilled to `spill/K.placed` for the slices `wanted`; the puzzles that
/// cannot be placed named by unit, file and line (nothing is spilled
/// then).
fn spill_placed(
    dir: &Path,
    status: &Status,
    ed: &Ed,
    wanted: &dyn Fn(usize) -> bool,
    spill: &Path,
) -> Result<BTreeSet<usize>, CampaignError> {
    fs::create_dir_all(spill).map_err(io_error(spill))?;
    let mut writers: BTreeMap<usize, BufWriter<fs::File>> = BTreeMap::new();
    let mut faults: Vec<String> = Vec::new();
    for u in &status.units {
        let path = unit_output(dir, u.unit.number);
        let (mut named, mut more) = (0usize, 0u64);
        let mut batch: Vec<(u64, Puzzle)> = Vec::with_capacity(BATCH);
        let mut failed: Option<CampaignError> = None;
        let mut flush = |batch: &mut Vec<(u64, Puzzle)>| {
            let placed: Vec<(u64, Result<Placed, MapError>)> = batch
                .par_iter()
                .map(|(line, p)| (*line, place(ed, p)))
                .collect();
            batch.clear();
            for (line, result) in placed {
                match result {
                    Ok(p) if wanted(p.k) && faults.is_empty() => {
                        if let Err(e) = spill_one(&mut writers, spill, &p) {
                            failed.get_or_insert(e);
                        }
                    }
                    Ok(_) => {}
                    Err(e) if named < NAMED => {
                        named += 1;
                        faults.push(format!(
                            "error: unit {}: {} line {line}: {e}",
                            u.unit.number,
                            path.display()
                        ));
                    }
                    Err(_) => more += 1,
                }
            }
        };
        for_each_kept(dir, u, |_, line, p| {
            batch.push((line, p));
            if batch.len() >= BATCH {
                flush(&mut batch);
            }
        })?;
        flush(&mut batch);
        if let Some(e) = failed {
            return Err(e);
        }
        if more > 0 {
            faults.push(format!(
                "error: unit {}: {}: {more} more puzzles that are no puzzle of one grid",
                u.unit.number,
                path.display()
            ));
        }
    }
    if !faults.is_empty() {
        return Err(CampaignError::Faults {
            dir: dir.to_path_buf(),
            faults: faults.join("\n"),
        });
    }
    flush_spilled(writers, spill)
}

/// Appends placed puzzle `p` to `spill/K.placed` of its slice, the file
/// created at its first puzzle.
fn spill_one(
    writers: &mut BTreeMap<usize, BufWriter<fs::File>>,
    spill: &Path,
    p: &Placed,
) -> Result<(), CampaignError> {
    let file = spill.join(format!("{}.placed", p.k));
    let w = match writers.entry(p.k) {
        std::collections::btree_map::Entry::Occupied(o) => o.into_mut(),
        std::collections::btree_map::Entry::Vacant(v) => {
            let f = fs::File::create(&file).map_err(io_error(&file))?;
            v.insert(BufWriter::with_capacity(1 << 13, f))
        }
    };
    w.write_all(&p.to_bytes()).map_err(io_error(&file))
}

/// Flushes the spill files; the slices spilled.
fn flush_spilled(
    writers: BTreeMap<usize, BufWriter<fs::File>>,
    spill: &Path,
) -> Result<BTreeSet<usize>, CampaignError> {
    let mut spilled = BTreeSet::new();
    for (k, mut w) in writers {
        let file = spill.join(format!("{k}.placed"));
        w.flush().map_err(io_error(&file))?;
        spilled.insert(k);
    }
    Ok(spilled)
}

/// Reads `spill/K.placed` back (empty when there is none), one placed
/// puzzle per grid (band 2, band 3) with its smallest mask, as
/// [`slice_records`] keeps: so memory grows with the slice's flagged grids,
/// not with the puzzles found for them.
fn read_placed(spill: &Path, k: usize) -> Result<Vec<Placed>, CampaignError> {
    let path = spill.join(format!("{k}.placed"));
    let file = match fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error(&path)(e)),
    };
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut best: HashMap<(Band, Band), u128> = HashMap::new();
    let mut b = [0u8; PLACED_LEN];
    loop {
        match reader.read_exact(&mut b) {
            Ok(()) => {
                let p = Placed::from_bytes(k, &b);
                best.entry((p.band2, p.band3))
                    .and_modify(|m| *m = (*m).min(p.mask))
                    .or_insert(p.mask);
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(io_error(&path)(e)),
        }
    }
    let _ = fs::remove_file(&path);
    Ok(best
        .into_iter()
        .map(|((band2, band3), mask)| Placed {
            k,
            band2,
            band3,
            mask,
        })
        .collect())
}

/// What one slice's phase 2 gives.
struct SliceResult {
    header: Option<FlagHeader>,
    outside: u64,
    errors: Vec<MapError>,
}

/// The flag files of a `--first` campaign (`status` read from `dir`), of
/// the `slices` chosen (else all): `write` gets each slice's flags as they
/// are made (in parallel over slices), so only a few slices' records are
/// in memory at once. Phase 1 places every kept puzzle at its hi visit,
/// spilled per slice under `spill`; phase 2 turns each slice's spill into
/// records and counts its searched and covered grids. Campaigns with
/// faults, or incomplete ones unless `partial`, are refused before
/// anything is written.
pub fn merge_flags(
    dir: &Path,
    status: &Status,
    ed: &Ed,
    partial: bool,
    slices: Option<&BTreeSet<usize>>,
    spill: &Path,
    write: &(dyn Fn(&SliceFlags) -> Result<(), CampaignError> + Sync),
) -> Result<FlagMerge, CampaignError> {
    check_mergeable(dir, status, partial)?;
    let costs = CostTable::committed();
    let chosen = |k: usize| slices.is_none_or(|s| s.contains(&k));
    let units_tsv = super::units_path(dir);
    let plan = Provenance::fingerprint(&fs::read(&units_tsv).map_err(io_error(&units_tsv))?);
    let provenance = |k: usize| {
        let of_k = status.units.iter().filter(|u| u.unit.k == k);
        Provenance {
            plan,
            planned: of_k.clone().map(|u| u.unit.len()).sum(),
            checkpointed: of_k.map(|u| u.checkpointed).sum(),
            complete: status.complete(),
            build: THIS_BUILD.to_string(),
        }
    };
    let runs = searched_runs(status);
    let spilled = spill_placed(dir, status, ed, &chosen, spill)?;
    let todo: BTreeSet<usize> = runs
        .keys()
        .copied()
        .filter(|&k| chosen(k))
        .chain(spilled.iter().copied())
        .collect();
    let results: Vec<SliceResult> = todo
        .par_iter()
        .map(|&k| {
            let placed = read_placed(spill, k)?;
            let (records, errors) = slice_records(ed, k, &placed);
            drop(placed);
            let Some(searched) = runs.get(&k) else {
                return Ok(SliceResult {
                    header: None,
                    outside: records.len() as u64,
                    errors,
                });
            };
            let (searched_grids, covered) =
                count_slice(dir, status, ed, &runs, k, searched, &costs)?;
            let (inside, out): (Vec<_>, Vec<_>) = records
                .into_iter()
                .partition(|r| holds(searched, r.entry as u64));
            let flags = SliceFlags {
                header: FlagHeader {
                    grids: costs.slices[k].grids,
                    searched: searched_grids,
                    covered,
                    flagged: inside.len() as u64,
                    ..FlagHeader::for_goal(&status.goal, k)
                },
                provenance: provenance(k),
                records: inside,
            };
            write(&flags)?;
            Ok(SliceResult {
                header: Some(flags.header),
                outside: out.len() as u64,
                errors,
            })
        })
        .collect::<Result<_, CampaignError>>()?;
    let mut merge = FlagMerge::default();
    for r in results {
        merge.slices.extend(r.header);
        merge.outside += r.outside;
        merge.errors.extend(r.errors);
    }
    Ok(merge)
}

/// Slice `k`'s searched and covered grids (see the module note).
fn count_slice(
    dir: &Path,
    status: &Status,
    ed: &Ed,
    runs: &BTreeMap<usize, Vec<Range<u64>>>,
    k: usize,
    searched: &[Range<u64>],
    costs: &CostTable,
) -> Result<(u64, u64), CampaignError> {
    let whole = |k: usize| {
        runs.get(&k)
            .is_some_and(|r| r.len() == 1 && r[0] == (0..costs.slices[k].entries))
    };
    let mut grids_of = CostGrids::new(dir, status.units.iter().filter(|u| u.unit.k == k));
    let mut failed: Option<CampaignError> = None;
    let (mut searched_grids, mut covered) = (0u64, 0u64);
    let mut pending: Vec<Pending> = Vec::new();
    for r in searched {
        ed.for_each_entry(k, r.clone(), |entry| {
            if failed.is_some() {
                return;
            }
            let c2 = entry.class2;
            let known = match grids_of.get(entry.number) {
                Ok(g) => g,
                Err(e) => {
                    failed = Some(e);
                    return;
                }
            };
            let lo_none = !runs.contains_key(&c2);
            if let Some(g) = known
                && ((whole(k) && whole(c2)) || lo_none)
            {
                searched_grids += g;
                if !lo_none {
                    covered += g;
                }
                return;
            }
            each_hi_visit(ed, k, entry, |key| {
                searched_grids += 1;
                if lo_none {
                    return;
                }
                let hi = HiForm {
                    class: k,
                    key: *key,
                    automorphisms: 1,
                    transposed: false,
                    roles: [0, 1, 2],
                };
                let [_, mid, lo] = ed.visits_of(&hi);
                debug_assert_eq!(lo.class, c2);
                pending.push(Pending {
                    mid: mid.key[..27].try_into().expect("27 digits"),
                    lo_class: lo.class,
                    lo: lo.key[..27].try_into().expect("27 digits"),
                });
            });
        });
    }
    if let Some(e) = failed {
        return Err(e);
    }
    covered += count_pending_covered(ed, runs, k, searched, &pending, &whole);
    Ok((searched_grids, covered))
}

/// A grid of slice `k` to place: its mid band 2, lo slice and lo band 2.
struct Pending {
    mid: Band,
    lo_class: usize,
    lo: Band,
}

/// How many of the `pending` grids of slice `k` have their mid and lo
/// entries searched too (`whole`: slice searched entire); one walk per slice.
fn count_pending_covered(
    ed: &Ed,
    runs: &BTreeMap<usize, Vec<Range<u64>>>,
    k: usize,
    searched: &[Range<u64>],
    pending: &[Pending],
    whole: &dyn Fn(usize) -> bool,
) -> u64 {
    let mids: Vec<Band> = pending.iter().map(|p| p.mid).collect();
    let mid_entries = if whole(k) {
        vec![None; mids.len()]
    } else {
        ed.entry_numbers(k, &mids)
    };
    let mut lo_ok = vec![false; pending.len()];
    let mut by_lo: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, p) in pending.iter().enumerate() {
        by_lo.entry(p.lo_class).or_default().push(i);
    }
    for (c, idx) in by_lo {
        if whole(c) {
            idx.iter().for_each(|&i| lo_ok[i] = true);
            continue;
        }
        let los: Vec<Band> = idx.iter().map(|&i| pending[i].lo).collect();
        let lo_runs = &runs[&c];
        for (&i, number) in idx.iter().zip(ed.entry_numbers(c, &los)) {
            lo_ok[i] = number.is_some_and(|e| holds(lo_runs, e));
        }
    }
    let mut covered = 0u64;
    for (i, ok) in lo_ok.iter().enumerate() {
        let mid_ok = whole(k) || mid_entries[i].is_some_and(|e| holds(searched, e));
        covered += (*ok && mid_ok) as u64;
    }
    covered
}

/// The spill directory of a merge, removed whatever happens.
pub struct SpillDir(pub PathBuf);

impl Drop for SpillDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Calls `f` with the key (bands 2 and 3) of every hi visit of an entry.
fn each_hi_visit(ed: &Ed, k: usize, entry: &Entry, mut f: impl FnMut(&Key)) {
    ed.entry_visits(k, entry, Choices::HI, |v| {
        let mut key = [0u8; 54];
        key[..27].copy_from_slice(&entry.band2);
        key[27..].copy_from_slice(&v.band3);
        f(&key);
    });
}

/// A flag record that names no grid of its entry (a damaged or foreign
/// flag file: the checksum held, so another program's).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("slice {k}, entry {entry} has {grids} grids, no grid {grid}")]
pub struct NoSuchGrid {
    pub k: usize,
    pub entry: u32,
    pub grids: usize,
    pub grid: u32,
}

/// Calls `f` with each flag record of slice `k` (`records`, in the file's
/// (entry, grid) order) and its hi-visit grid (catalogue band K, the
/// entry's band 2, the record's band 3), until `f` fails. The entries from
/// the first record's to the last's are walked once.
pub fn for_each_flagged<E: From<NoSuchGrid>>(
    ed: &Ed,
    k: usize,
    records: &[FlagRecord],
    mut f: impl FnMut(&FlagRecord, &crate::grid::Grid) -> Result<(), E>,
) -> Result<(), E> {
    let (Some(first), Some(last)) = (records.first(), records.last()) else {
        return Ok(());
    };
    let mut next = records.iter().copied().peekable();
    let mut failure = None;
    ed.for_each_entry(k, first.entry as u64..last.entry as u64 + 1, |entry| {
        if failure.is_some() || next.peek().is_none_or(|r| r.entry as u64 != entry.number) {
            return;
        }
        let mut bands3 = Vec::new();
        ed.entry_visits(k, entry, Choices::HI, |v| bands3.push(v.band3));
        while let Some(r) = next.next_if(|r| r.entry as u64 == entry.number) {
            let Some(band3) = bands3.get(r.grid as usize) else {
                failure = Some(E::from(NoSuchGrid {
                    k,
                    entry: r.entry,
                    grids: bands3.len(),
                    grid: r.grid,
                }));
                return;
            };
            let mut cells = [0u8; 81];
            cells[..27].copy_from_slice(ed.catalogue().band(k));
            cells[27..54].copy_from_slice(&entry.band2);
            cells[54..].copy_from_slice(band3);
            if let Err(e) = f(&r, &crate::grid::Grid::from_digits_unchecked(cells)) {
                failure = Some(e);
            }
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_hold_their_entries() {
        let runs = [2..5, 7..8, 10..20];
        let held: Vec<u64> = (0..22).filter(|&e| holds(&runs, e)).collect();
        assert_eq!(held, [2, 3, 4, 7, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    }

    fn unit(number: usize, entries: Range<u64>, done: &[(u64, u64)]) -> UnitStatus {
        let done: Vec<Range<u64>> = done.iter().map(|&(a, b)| a..b).collect();
        UnitStatus {
            unit: crate::campaign::Unit {
                number,
                k: 3,
                entries,
                est_seconds: 1.0,
            },
            state: crate::campaign::UnitState::Partial,
            checkpointed: done.iter().map(|r| r.end - r.start).sum(),
            grids: 0,
            uncosted: 0,
            cpu_seconds: 0.0,
            done,
            lines: 0,
            other_build: false,
        }
    }

    #[test]
    fn cost_grids_read_unit_by_unit_give_the_last_line_of_each_checkpointed_entry() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(crate::campaign::out_dir(dir.path())).unwrap();
        // Unit 1 (entries 10..20) is listed first; unit 0 (0..10) has no
        // cost file; unit 2 (20..30) has lines out of order, an entry run
        // twice, a line not checkpointed, a malformed one and a last line
        // without its newline.
        let units = [
            unit(1, 10..20, &[(10, 13), (15, 16)]),
            unit(0, 0..10, &[(0, 10)]),
            unit(2, 20..30, &[(20, 30)]),
        ];
        fs::write(
            unit_costs(dir.path(), 1),
            "12\t5\t1\t0.1\n10\t7\t1\t0.1\n12\t9\t1\t0.1\n14\t3\t1\t0.1\n11\tx\t1\t0.1\n15\t4\t1\t0.",
        )
        .unwrap();
        fs::write(
            unit_costs(dir.path(), 2),
            "25\t1\t1\t1\n21\t2\t1\t1\n25\t6\t1\t1\n29\t8\t2\n",
        )
        .unwrap();
        let mut grids = CostGrids::new(dir.path(), units.iter());
        let got: Vec<(u64, u64)> = (0..32)
            .filter_map(|e| grids.get(e).unwrap().map(|g| (e, g)))
            .collect();
        assert_eq!(got, [(10, 7), (12, 9), (15, 4), (21, 2), (25, 6)]);
        // Skipping ahead past whole units.
        let mut grids = CostGrids::new(dir.path(), units.iter());
        assert_eq!(grids.get(12).unwrap(), Some(9));
        assert_eq!(grids.get(25).unwrap(), Some(6));
        assert_eq!(grids.get(29).unwrap(), None);
    }
}
