//! The per-slice cost table a campaign is planned by: `data/ed-costs.tsv`,
//! compiled in.
//!
//! One line per slice of the ED catalogue, `K ENTRIES GRIDS SAMPLED SECONDS
//! SECONDS_PER_ENTRY` (tab-separated) under `#` lines naming its source (the
//! `s17 exhaust --estimate` run it comes from, the build and the machine).
//! SECONDS is the sample's CPU time over its SAMPLED entries, and
//! SECONDS_PER_ENTRY their mean. `tools/ed-costs.sh` makes the file from
//! `--estimate`'s output.
//!
//! A slice's cost is only its mean: entries of one slice differ a lot (a
//! few hundredths of a second to minutes), so a unit of many entries is
//! near its estimate and a unit of few may not be.

use std::path::{Path, PathBuf};

use super::{CampaignError, SLICES};
use crate::search::Goal;

/// The smallest cost of an entry, in CPU seconds: a slice whose sample
/// took no time (or had no entry) still costs something, so no unit is
/// planned as free.
pub const FLOOR_SECONDS: f64 = 0.01;

/// The committed table.
const COMMITTED: &str = include_str!("../../data/ed-costs.tsv");

/// The committed cost tables of goals other than 17s, by file name
/// ([`table_name`]), each made from an estimate run (`s17 exhaust
/// --estimate N --clues 18 [--first]`, then `tools/ed-costs.sh`). A table
/// for another goal is added here the same way.
pub const GOAL_TABLES: &[(&str, &str)] = &[
    (
        "data/ed-costs-18.tsv",
        include_str!("../../data/ed-costs-18.tsv"),
    ),
    (
        "data/ed-costs-18-first.tsv",
        include_str!("../../data/ed-costs-18-first.tsv"),
    ),
];

/// The file name of the cost table of a goal: `data/ed-costs.tsv` for 17s,
/// else `data/ed-costs-N.tsv` or, first per visit, `data/ed-costs-N-first.tsv`
/// (minimal or not share a table).
pub fn table_name(goal: &Goal) -> String {
    match goal.cost_key() {
        None => "data/ed-costs.tsv".to_string(),
        Some(key) => format!("data/ed-costs-{key}.tsv"),
    }
}

/// One slice's line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SliceCost {
    /// Entries of the slice.
    pub entries: u64,
    /// ED grids of the slice.
    pub grids: u64,
    /// Mean CPU seconds per entry (at least [`FLOOR_SECONDS`]).
    pub per_entry: f64,
}

/// The cost of every slice, and where the figures come from.
#[derive(Clone, Debug)]
pub struct CostTable {
    /// Indexed by slice.
    pub slices: Vec<SliceCost>,
    /// The header's `# source:` line (without `# `), or the file name.
    pub source: String,
}

impl CostTable {
    /// The committed `data/ed-costs.tsv`.
    pub fn committed() -> CostTable {
        CostTable::parse(COMMITTED, Path::new("data/ed-costs.tsv"))
            .expect("the committed cost table parses (tested)")
    }

    /// Parses a table (`path` names it in errors): every slice 0 to 415 in
    /// order, ENTRIES positive, SECONDS_PER_ENTRY a finite number (raised to
    /// the floor).
    pub fn parse(text: &str, path: &Path) -> Result<CostTable, CampaignError> {
        let bad = |line: usize, reason: String| CampaignError::BadFile {
            path: PathBuf::from(path),
            line,
            reason,
        };
        let mut slices = Vec::with_capacity(SLICES);
        let mut source = path.display().to_string();
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            if let Some(comment) = line.strip_prefix('#') {
                if let Some(s) = comment.trim().strip_prefix("source:") {
                    source = s.trim().to_string();
                }
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() != 6 {
                return Err(bad(n, format!("expected 6 fields, got {}", f.len())));
            }
            let int = |j: usize, what: &str| -> Result<u64, CampaignError> {
                f[j].parse()
                    .map_err(|_| bad(n, format!("bad {what} {:?}", f[j])))
            };
            let k = int(0, "slice")?;
            if k != slices.len() as u64 {
                return Err(bad(n, format!("slice {k} where {} was due", slices.len())));
            }
            let entries = int(1, "entry count")?;
            if entries == 0 {
                return Err(bad(n, "a slice with no entries".into()));
            }
            let grids = int(2, "grid count")?;
            let per_entry: f64 = f[5]
                .parse()
                .map_err(|_| bad(n, format!("bad seconds per entry {:?}", f[5])))?;
            if !per_entry.is_finite() || per_entry < 0.0 {
                return Err(bad(n, format!("bad seconds per entry {per_entry}")));
            }
            slices.push(SliceCost {
                entries,
                grids,
                per_entry: per_entry.max(FLOOR_SECONDS),
            });
        }
        if slices.len() != SLICES {
            return Err(bad(
                text.lines().count(),
                format!("{} slices, expected {SLICES}", slices.len()),
            ));
        }
        Ok(CostTable { slices, source })
    }

    /// The committed table a campaign searching for `goal` is planned by:
    /// `data/ed-costs.tsv` for 17s (first per visit or not: the full search
    /// bounds the first), `data/ed-costs-N.tsv` or `data/ed-costs-N-first.tsv`
    /// for N clues, once made and compiled in ([`GOAL_TABLES`]). A goal with
    /// no table is refused, naming the missing file and the command that
    /// makes it (a 17 table scaled by a guess would balance nothing).
    pub fn for_goal(goal: &Goal) -> Result<CostTable, CampaignError> {
        let Some(key) = goal.cost_key() else {
            return Ok(CostTable::committed());
        };
        let name = table_name(goal);
        match GOAL_TABLES.iter().find(|(n, _)| *n == name) {
            Some((n, text)) => CostTable::parse(text, Path::new(n)),
            None => Err(CampaignError::NoCostTable {
                goal: goal.description(),
                table: name.clone(),
                command: format!(
                    "s17 exhaust --estimate 4 --threads 1 {} > est.tsv && tools/ed-costs.sh est.tsv BUILD MACHINE {key} > {name}",
                    Goal {
                        non_minimal: false,
                        ..*goal
                    }
                    .flags(),
                ),
            }),
        }
    }

    /// Reads a cost table from a file (`s17 campaign plan --costs`, for
    /// tests and trials).
    pub fn read(path: &Path) -> Result<CostTable, CampaignError> {
        let text = std::fs::read_to_string(path).map_err(super::io_error(path))?;
        CostTable::parse(&text, path)
    }

    /// The estimated CPU seconds of `entries` entries of slice `k`.
    pub fn seconds(&self, k: usize, entries: u64) -> f64 {
        self.slices[k].per_entry * entries as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_table_has_every_slice() {
        let t = CostTable::committed();
        assert_eq!(t.slices.len(), SLICES);
        assert!(t.source.contains("exhaust-estimate"), "{}", t.source);
        let entries: u64 = t.slices.iter().map(|s| s.entries).sum();
        let grids: u64 = t.slices.iter().map(|s| s.grids).sum();
        assert_eq!(entries, 986_727_817);
        assert_eq!(grids, 5_472_730_538);
        assert!(t.slices.iter().all(|s| s.per_entry >= FLOOR_SECONDS));
    }

    #[test]
    fn every_goal_table_has_every_slice_and_its_own_source() {
        assert!(!GOAL_TABLES.is_empty());
        for (name, text) in GOAL_TABLES {
            let t = CostTable::parse(text, Path::new(name)).unwrap();
            assert_eq!(t.slices.len(), SLICES, "{name}");
            let entries: u64 = t.slices.iter().map(|s| s.entries).sum();
            let grids: u64 = t.slices.iter().map(|s| s.grids).sum();
            assert_eq!((entries, grids), (986_727_817, 5_472_730_538), "{name}");
            assert!(
                t.source.contains("exhaust-estimate"),
                "{name}: {}",
                t.source
            );
            assert_ne!(t.source, CostTable::committed().source, "{name}");
        }
        let first18 = Goal {
            clues: 18,
            first: true,
            non_minimal: false,
        };
        assert!(
            CostTable::for_goal(&first18)
                .unwrap()
                .source
                .contains("clues18-first")
        );
        // Minimal or not, every 18 shares the full search's table.
        for non_minimal in [false, true] {
            let all18 = Goal {
                first: false,
                non_minimal,
                ..first18
            };
            let source = CostTable::for_goal(&all18).unwrap().source;
            assert!(source.contains("clues18.tsv"), "{source}");
        }
    }

    #[test]
    fn goals_other_than_17s_need_their_own_table() {
        let goal = Goal {
            clues: 19,
            first: true,
            non_minimal: false,
        };
        let err = CostTable::for_goal(&goal).unwrap_err().to_string();
        assert!(err.contains("data/ed-costs-19-first.tsv"), "{err}");
        assert!(
            err.contains("s17 exhaust --estimate 4 --threads 1 --clues 19 --first"),
            "{err}"
        );
        assert!(
            err.contains(
                "tools/ed-costs.sh est.tsv BUILD MACHINE 19-first > data/ed-costs-19-first.tsv"
            ),
            "{err}"
        );
        let first17 = Goal {
            first: true,
            ..Goal::default()
        };
        assert_eq!(
            CostTable::for_goal(&first17).unwrap().source,
            CostTable::committed().source
        );
    }

    #[test]
    fn a_free_slice_gets_the_floor_and_bad_lines_are_named() {
        let mut text = String::from("# source: test\n");
        for k in 0..SLICES {
            text.push_str(&format!("{k}\t10\t5\t0\t0\t0\n"));
        }
        let t = CostTable::parse(&text, Path::new("t.tsv")).unwrap();
        assert_eq!(t.slices[3].per_entry, FLOOR_SECONDS);
        assert_eq!(t.source, "test");
        let cut = text.replace("7\t10\t5", "8\t10\t5");
        let err = CostTable::parse(&cut, Path::new("t.tsv")).unwrap_err();
        assert_eq!(err.to_string(), "t.tsv: line 9: slice 8 where 7 was due");
        let short: String = text.lines().take(5).map(|l| format!("{l}\n")).collect();
        let err = CostTable::parse(&short, Path::new("t.tsv")).unwrap_err();
        assert!(err.to_string().contains("4 slices, expected 416"), "{err}");
    }
}
