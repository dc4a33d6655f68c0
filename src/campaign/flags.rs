//! The merge of a `--first` campaign: one flag file per slice
//! ([`crate::flags`]) for the slices whose entries it searched.
//!
//! The puzzles of every checkpointed entry (one per visit that found one,
//! at any visit: hi, mid or lo) become flag records of their grids
//! ([`flag_records`]); a grid is kept in slice K's file when its hi visit
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

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::Path;

use super::{CampaignError, CostTable, Status, io_error, unit_costs};
use crate::band::Band;
use crate::ed::{Choices, Ed, Entry, HiForm, Key};
use crate::flags::{FlagHeader, FlagRecord, MapError, flag_records};

/// One slice's flags.
#[derive(Clone, Debug)]
pub struct SliceFlags {
    pub header: FlagHeader,
    pub records: Vec<FlagRecord>,
}

/// What the merge of a `--first` campaign gives.
#[derive(Clone, Debug, Default)]
pub struct FlagMerge {
    /// By slice, for every slice with a searched entry.
    pub slices: Vec<SliceFlags>,
    /// Flagged grids whose hi visit lies outside the searched entries (a
    /// mid or lo visit found their puzzle): in no file.
    pub outside: u64,
    /// Puzzles that gave no record (bugs, or damaged files).
    pub errors: Vec<MapError>,
}

/// Whether sorted, disjoint `runs` hold `e`.
fn holds(runs: &[Range<u64>], e: u64) -> bool {
    let i = runs.partition_point(|r| r.end <= e);
    i < runs.len() && runs[i].contains(&e)
}

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

/// The grids of each checkpointed entry from the units' cost lines (the
/// last line of an entry).
fn cost_grids(dir: &Path, status: &Status) -> Result<HashMap<(usize, u64), u64>, CampaignError> {
    let mut grids = HashMap::new();
    for u in &status.units {
        let path = unit_costs(dir, u.unit.number);
        let text = match std::fs::read(&path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io_error(&path)(e)),
        };
        for line in text.lines() {
            let f: Vec<&str> = line.split('\t').collect();
            if let [entry, g, _, _] = f[..]
                && let (Ok(entry), Ok(g)) = (entry.parse::<u64>(), g.parse::<u64>())
                && holds(&u.done, entry)
            {
                grids.insert((u.unit.k, entry), g);
            }
        }
    }
    Ok(grids)
}

/// The flag files of a `--first` campaign (`status` read from `dir`).
/// Incomplete campaigns are refused unless `partial`.
pub fn merge_flags(
    dir: &Path,
    status: &Status,
    ed: &Ed,
    partial: bool,
) -> Result<FlagMerge, CampaignError> {
    if !partial && let Some(missing) = status.missing() {
        return Err(CampaignError::Incomplete {
            dir: dir.to_path_buf(),
            missing,
        });
    }
    let costs = CostTable::committed();
    let runs = searched_runs(status);
    let whole = |k: usize| {
        runs.get(&k)
            .is_some_and(|r| r.len() == 1 && r[0] == (0..costs.slices[k].entries))
    };
    let puzzles: Vec<_> = {
        let mut all: Vec<_> = status
            .units
            .iter()
            .flat_map(|u| u.puzzles.iter().copied())
            .collect();
        all.sort();
        all.dedup();
        all
    };
    let (mut records, errors) = flag_records(ed, &puzzles);
    let grids_of = cost_grids(dir, status)?;
    let mut merge = FlagMerge {
        errors,
        ..FlagMerge::default()
    };
    // Grids to place: (hi slice, mid band 2, lo slice, lo band 2).
    struct Pending {
        mid: Band,
        lo_class: usize,
        lo: Band,
    }
    for (&k, searched) in &runs {
        let (mut searched_grids, mut covered) = (0u64, 0u64);
        let mut pending: Vec<Pending> = Vec::new();
        for r in searched {
            ed.for_each_entry(k, r.clone(), |entry| {
                let c2 = entry.class2;
                let known = grids_of.get(&(k, entry.number)).copied();
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
        // The pending grids' mid and lo entries, one walk per slice.
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
        for (i, ok) in lo_ok.iter().enumerate() {
            let mid_ok = whole(k) || mid_entries[i].is_some_and(|e| holds(searched, e));
            covered += (*ok && mid_ok) as u64;
        }
        let slice_records: Vec<FlagRecord> = records.remove(&k).unwrap_or_default();
        let (inside, out): (Vec<_>, Vec<_>) = slice_records
            .into_iter()
            .partition(|r| holds(searched, r.entry as u64));
        merge.outside += out.len() as u64;
        merge.slices.push(SliceFlags {
            header: FlagHeader {
                clues: status.goal.clues as u32,
                kind: FlagHeader::kind_of(&status.goal),
                slice: k as u32,
                grids: costs.slices[k].grids,
                searched: searched_grids,
                covered,
                flagged: inside.len() as u64,
            },
            records: inside,
        });
    }
    merge.outside += records.values().map(|r| r.len() as u64).sum::<u64>();
    Ok(merge)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_hold_their_entries() {
        let runs = [2..5, 7..8, 10..20];
        let held: Vec<u64> = (0..22).filter(|&e| holds(&runs, e)).collect();
        assert_eq!(held, [2, 3, 4, 7, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    }
}
