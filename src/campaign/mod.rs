//! A campaign: the exhaustive search of many entries of the ED catalogue
//! (up to all of it, about 17 core-years), cut into units of about equal
//! estimated cost that a cluster runs as a job array (`s17 campaign`;
//! ARCHITECTURE.md, "Campaigns").
//!
//! A campaign is a directory:
//!
//! - `units.tsv`, the plan ([`plan`]): a header naming it, then one line
//!   `UNIT<TAB>K<TAB>A<TAB>B<TAB>EST_SECONDS` per unit, a range of entries
//!   A..B of slice K. The units are numbered 0, 1, 2, … in order and cover
//!   every planned entry exactly once.
//! - `campaign.sbatch`, the Slurm array script over the units.
//! - `out/UNIT.txt` and `out/UNIT.txt.done`: the unit's 17s and checkpoint,
//!   exactly as `s17 exhaust --band K --entries A..B -o out/UNIT.txt` writes
//!   them (same header, [`crate::exhaust::checkpoint_header`]), so a killed
//!   or requeued unit continues where it stopped ([`run`]).
//! - `out/UNIT.txt.cost`: one line `ENTRY<TAB>GRIDS<TAB>BANDS3<TAB>SECONDS`
//!   per entry searched (the thread CPU time of its search), written just
//!   before the entry's checkpoint line: statistics only (ED grids, CPU
//!   hours), never used to decide what is done.
//! - `work.sbatch`, the Slurm script of W pulling workers (`s17 campaign
//!   work`, [`work`]), and `claims/`: their claim files `UNIT.claim` and
//!   done markers `UNIT.done`.
//! - `out/UNIT.txt.part*`: the parts of a one-entry unit searched in parts
//!   ([`plan::Plan::parts`], [`crate::exhaust::driver`]), while it runs.
//! - `logs/`: the array tasks' and workers' logs.
//!
//! [`status`] reads a campaign back: which units are done, partial or not
//! started, and any entry checkpointed twice or outside its unit; a
//! campaign is complete when every planned entry is checkpointed exactly
//! once. [`status::merge_into`] gathers the 17s of all units.
//!
//! Costs come from `data/ed-costs.tsv` ([`costs`]): the mean CPU seconds
//! per entry of each slice, from `s17 exhaust --estimate`.

pub mod bitmap;
pub mod costs;
pub mod flags;
pub mod lines;
pub mod merge;
pub mod plan;
pub mod run;
pub mod scripts;
pub mod status;
pub mod work;

use std::io;
use std::path::{Path, PathBuf};

use crate::output::OutputError;
use crate::tables::TableError;

pub use costs::CostTable;
pub use plan::{Plan, PlanSpec, Unit};
pub use run::UnitRun;
pub use status::{Merged, Problem, SliceStatus, Status, UnitState, UnitStatus, merge_into};

/// The slices of the ED catalogue (one per band of the band catalogue).
pub use crate::band::BANDS as SLICES;

/// Why a campaign command could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    #[error("{}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// A bad `--slices` list (the item, what is wrong).
    #[error("--slices: {0}")]
    BadList(String),
    /// A bad `--unit-hours`.
    #[error("--unit-hours: {0}")]
    BadUnitHours(String),
    /// A cost table or units file that does not parse.
    #[error("{}: line {line}: {reason}", path.display())]
    BadFile {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    #[error("{} already holds a plan (units.tsv); pass --force to replace it", .0.display())]
    PlanExists(PathBuf),
    #[error("no unit {unit} in {}: the plan has units 0 to {}", dir.display(), units.saturating_sub(1))]
    NoSuchUnit {
        dir: PathBuf,
        unit: usize,
        units: usize,
    },
    #[error("the campaign in {} is incomplete:\n{missing}", dir.display())]
    Incomplete { dir: PathBuf, missing: String },
    /// Damaged or foreign lines in units' files: nothing is merged.
    #[error("the campaign in {} has bad lines; nothing merged:\n{faults}", dir.display())]
    Faults { dir: PathBuf, faults: String },
    /// No cost table for a campaign's goal.
    #[error(
        "no cost table for a campaign of {goal}: {table} is missing; make it from an estimate run (`{command}`) and plan with it: `s17 campaign plan ... --costs {table}`"
    )]
    NoCostTable {
        goal: String,
        table: String,
        command: String,
    },
    /// A unit's files written under another goal than the plan's.
    #[error("unit {unit}: {} was written searching for {found}, but this campaign searches for {expected}; it is another campaign's unit (move it away, or plan with that goal)", path.display())]
    OtherGoal {
        unit: usize,
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("slice {k}, entry {entry}")]
    Entry {
        k: usize,
        entry: u64,
        #[source]
        source: TableError,
    },
}

pub(crate) fn io_error(path: &Path) -> impl FnOnce(io::Error) -> CampaignError + '_ {
    move |source| CampaignError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The plan of a campaign: `DIR/units.tsv`.
pub fn units_path(dir: &Path) -> PathBuf {
    dir.join("units.tsv")
}

/// The Slurm array script of a campaign: `DIR/campaign.sbatch`.
pub fn sbatch_path(dir: &Path) -> PathBuf {
    dir.join("campaign.sbatch")
}

/// The Slurm script of the pulling workers: `DIR/work.sbatch`.
pub fn work_sbatch_path(dir: &Path) -> PathBuf {
    dir.join("work.sbatch")
}

/// The directory of the units' result files: `DIR/out`.
pub fn out_dir(dir: &Path) -> PathBuf {
    dir.join("out")
}

/// Unit `unit`'s output (`DIR/out/UNIT.txt`; its checkpoint is
/// `FILE.done`, [`crate::output::checkpoint_path`]).
pub fn unit_output(dir: &Path, unit: usize) -> PathBuf {
    out_dir(dir).join(format!("{unit}.txt"))
}

/// Unit `unit`'s cost record: `DIR/out/UNIT.txt.cost`.
pub fn unit_costs(dir: &Path, unit: usize) -> PathBuf {
    out_dir(dir).join(format!("{unit}.txt.cost"))
}
