//! `s17 campaign`: the exhaustive search of many slices of the ED
//! catalogue as a planned set of units for a cluster (`s17::campaign`):
//! `plan` cuts the work, `run` searches one unit (what the Slurm array runs),
//! `status` says how far it is, `merge` gathers the 17s (or the puzzles of
//! N clues; a `--first` campaign's flags, one file per slice), `flags`
//! prints a flag file.

use std::path::{Path, PathBuf};

use anyhow::Context;

use s17::campaign::{self, Plan};

use super::Outcome;
use super::common::{GoalArgs, TablesArg};

mod flags;
mod merge;
mod plan;
mod report;
mod run;
mod status;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

impl Args {
    /// `campaign run`: a long command (`interrupt::install_early`).
    /// The name of its long subcommand (`campaign run`, `campaign work`),
    /// whose signals are caught before any work; `None` for the others.
    pub fn long_name(&self) -> Option<&'static str> {
        match self.command {
            Command::Run(_) => Some("campaign run"),
            Command::Work(_) => Some("campaign work"),
            _ => None,
        }
    }
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Cut slices of the ED catalogue into units of about H core-hours:
    /// DIR/units.tsv and the Slurm array script DIR/campaign.sbatch.
    Plan(PlanArgs),
    /// Search one unit into DIR/out/UNIT.txt (resumes a killed or requeued unit).
    Run(RunArgs),
    /// A worker: claim the next unit neither done nor claimed, run it, and
    /// go on until none is left or the time is up (DIR/work.sbatch runs it).
    Work(WorkArgs),
    /// Units done, partial and not started, entries, puzzles found (17s, or
    /// of the plan's --clues) and CPU hours so far; exit 0 only when every
    /// planned entry is checkpointed exactly once.
    Status(StatusArgs),
    /// The puzzles found (17s, or of the plan's --clues) of all units, each
    /// once, as minlex puzzles; for a --first campaign, a flag file per
    /// slice into DIR.
    Merge(MergeArgs),
    /// Print a flag file, or a directory's: MINLEX_GRID<TAB>PUZZLE per
    /// flagged grid (with --numbers: NUMBER<TAB>MINLEX_GRID<TAB>PUZZLE), or
    /// its counts.
    Flags(FlagsArgs),
    /// A flag campaign's answer as one bitmap of 5,472,730,538 bits, bit
    /// k-1 (least significant bit first) set when the grid of catalogue
    /// number k is flagged, from the
    /// flag files of DIR (`merge`'s output); `s17 catalogue has --bitmap
    /// FILE` answers from it.
    Bitmap(BitmapArgs),
    /// The campaign's answer from the flag files of DIR (`merge`'s output):
    /// per slice and in all, ED grids, searched, covered, flagged (TSV).
    Report(ReportArgs),
}

#[derive(clap::Args, Debug)]
struct ReportArgs {
    /// A directory of flag files (slice-K.s17f, from `s17 campaign merge`).
    dir: PathBuf,
    /// The survey: DIR holds the flags of a `--clues 18 --first` campaign,
    /// DIR17 those of a `--clues 17 --first` one; per slice, the grids whose
    /// lowest clue count is 17, 18 or 19 and more (TSV).
    #[arg(long = "with-17", value_name = "DIR17")]
    with_17: Option<PathBuf>,
    /// Also draw the report into FILE, an SVG picture a browser opens: per
    /// slice, the share of its ED grids covered and the share of those
    /// flagged; the totals in its title.
    #[arg(long, value_name = "FILE", conflicts_with = "with_17")]
    svg: Option<PathBuf>,
    /// Overwrite the --svg FILE if it exists.
    #[arg(long, requires = "svg")]
    force: bool,
}

#[derive(clap::Args, Debug)]
struct PlanArgs {
    /// The entries to search: `all`, slices and runs of slices (`0..416`
    /// is 0 to 415, `26,28,30`), or entries A to B-1 of a slice
    /// (`331:1683700..1684300`), separated by commas.
    #[arg(long, value_name = "LIST", required_unless_present = "replan")]
    slices: Option<String>,
    /// The estimated CPU time of a unit, in core-hours (from
    /// data/ed-costs.tsv): each unit is estimated at most H plus one entry.
    /// With --replan, default: the plan's.
    #[arg(long, value_name = "H", required_unless_present = "replan")]
    unit_hours: Option<f64>,
    /// Re-plan what is left of the campaign in DIR (stop its workers
    /// first): units started are kept; the entries of the others are cut
    /// again, the cost of each slice corrected by the CPU time measured in
    /// the units' .cost records over the plan's (a slice not yet measured:
    /// by the whole campaign's ratio). The goal is the plan's.
    #[arg(long, conflicts_with_all = ["slices", "force"])]
    replan: bool,
    /// The campaign directory (created if missing, in a directory that
    /// exists).
    #[arg(long, short = 'o', value_name = "DIR")]
    output: PathBuf,
    /// Replace the plan of DIR if it has one (its results stay in DIR/out).
    #[arg(long)]
    force: bool,
    /// What every unit searches for (default: every 17). A goal other than
    /// 17s is planned by its own cost table (data/ed-costs-N[-first].tsv,
    /// built in for 18 and 17 --first), or by --costs FILE.
    #[command(flatten)]
    goal: GoalArgs,
    /// The time limit of a Slurm job (both scripts' --time: 90m, 12h, 2d or
    /// [D-]HH:MM:SS). Default: four times --unit-hours, at least an hour.
    #[arg(long, value_name = "DURATION", value_parser = campaign::work::parse_duration)]
    job_time: Option<std::time::Duration>,
    /// Pulling workers in DIR/work.sbatch. Default: enough for about four
    /// rounds of jobs by the estimate, at most one per unit.
    #[arg(long, value_name = "W", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    workers: Option<u32>,
    /// A cost table to plan by instead of the built-in one of the goal
    /// (the format of data/ed-costs.tsv, as tools/ed-costs.sh writes it
    /// from `s17 exhaust --estimate`): for a goal with no built-in table
    /// (16 or 19 clues), or a machine unlike the one measured.
    #[arg(long, value_name = "FILE")]
    costs: Option<PathBuf>,
    /// Cut units by each entry's predicted cost: count every planned
    /// entry's bands 3 first (about 20 µs an entry, all cores: seconds a
    /// slice, hours for the whole catalogue); for 18s each hi visit weighs
    /// as 8 bands 3 more and an entry costs its slice's cost per weight
    /// times its weight to the power 0.8 (the table's `# cost per weight`
    /// line); for 17s each slice's cost is shared among its entries by
    /// their bands 3 plus a fixed part (4 times the slice's mean). An entry
    /// with none costs nothing; a heavy entry gets its own unit and light
    /// ones share. With --replan: the units not started.
    #[arg(long)]
    per_entry: bool,
}

#[derive(clap::Args, Debug)]
struct RunArgs {
    /// The campaign directory.
    dir: PathBuf,
    /// The unit's number (its line in units.tsv, from 0).
    unit: usize,
    /// Worker threads (0 = all cores); entries are searched in parallel.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    #[command(flatten)]
    tables: TablesArg,
}

#[derive(clap::Args, Debug)]
struct WorkArgs {
    /// The campaign directory.
    dir: PathBuf,
    /// Start no entry after this long (90s, 45m, 2h, 1d, or Slurm's
    /// [D-]HH:MM:SS): the unit in progress is given back between entries
    /// (exit 75). Default: no limit.
    #[arg(long, value_name = "DURATION", value_parser = campaign::work::parse_duration)]
    stop_after: Option<std::time::Duration>,
    /// Stop this much before --stop-after (the time an entry in progress
    /// has to finish).
    #[arg(long, value_name = "DURATION", default_value = "0s", value_parser = campaign::work::parse_duration, requires = "stop_after")]
    margin: std::time::Duration,
    /// A claim of another host whose heartbeat is older than this is taken
    /// again (its worker is gone); node clocks must agree well within it.
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = campaign::work::parse_duration)]
    stale_after: std::time::Duration,
    /// Worker threads (0 = all cores); a unit's entries are searched in
    /// parallel.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    #[command(flatten)]
    tables: TablesArg,
}

#[derive(clap::Args, Debug)]
struct StatusArgs {
    /// The campaign directory.
    dir: PathBuf,
    /// Also a line per slice: units, entries checkpointed of planned, ED
    /// grids, puzzles found (a column named for the goal: 17s, 18s, ...),
    /// CPU hours spent against the plan's estimate for them.
    #[arg(long)]
    slices: bool,
    /// Write the units to run again (not done: partial or not started),
    /// one number a line, into FILE (all of them; the report's lines name
    /// at most 30 runs).
    #[arg(long, value_name = "FILE")]
    rerun: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
struct MergeArgs {
    /// The campaign directory.
    dir: PathBuf,
    /// Output: one minlex puzzle per line, sorted, each once (`-`:
    /// standard output, without --known); for a --first campaign, a
    /// directory: a flag file DIR/slice-K.s17f per slice searched.
    #[arg(long, short = 'o', value_name = "FILE|DIR")]
    output: PathBuf,
    /// A list of known 17s: the 17s not in it also go to FILE.new (17s only).
    #[arg(long, value_name = "LIST")]
    known: Option<PathBuf>,
    /// Merge an incomplete campaign's checkpointed entries.
    #[arg(long)]
    partial: bool,
    /// Merge only these slices (`26,28,30`, `0..416`).
    #[arg(long, value_name = "LIST")]
    slices: Option<String>,
    /// Overwrite FILE (and FILE.new) if they exist.
    #[arg(long)]
    force: bool,
}

#[derive(clap::Args, Debug)]
struct BitmapArgs {
    /// A directory of flag files (slice-K.s17f, from `s17 campaign merge`).
    dir: PathBuf,
    /// The bitmap file (684 MB long, sparse: only blocks with a set bit
    /// take disk).
    #[arg(long, short = 'o', value_name = "FILE")]
    output: PathBuf,
    /// Export a campaign that is not complete (not every slice, not every
    /// grid covered, merged --partial, or files of several plans): the
    /// bitmap says so, and a clear bit is then no answer.
    #[arg(long)]
    partial: bool,
    /// Replace FILE if it exists.
    #[arg(long)]
    force: bool,
    /// Read the catalogue tables from DIR first (as `s17 catalogue number
    /// --tables`).
    #[arg(long, value_name = "DIR")]
    catalogue: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
struct FlagsArgs {
    /// A flag file (DIR/slice-K.s17f of `s17 campaign merge`), or a
    /// directory of them (every slice-K.s17f, by slice).
    #[arg(value_name = "FILE|DIR")]
    file: PathBuf,
    /// The grid's catalogue number first: NUMBER<TAB>MINLEX_GRID<TAB>PUZZLE
    /// (the catalogue tables of the grids' first bands are needed).
    #[arg(long, conflicts_with = "count")]
    numbers: bool,
    /// Read the catalogue tables from DIR first (as `s17 catalogue number
    /// --tables`).
    #[arg(long, value_name = "DIR", requires = "numbers")]
    catalogue: Option<PathBuf>,
    /// Only the flagged grids of entries A to B-1.
    #[arg(long, value_name = "A..B", value_parser = super::enumerate::parse_range)]
    entries: Option<std::ops::Range<u64>>,
    /// Print the header's counts instead (grids of the slice, searched,
    /// covered, flagged) and its provenance (plan fingerprint, entries of
    /// the slice checkpointed of planned, campaign complete or partial,
    /// the merging build).
    #[arg(long)]
    count: bool,
}

pub fn run(args: Args, quiet: bool) -> Outcome {
    match args.command {
        Command::Plan(a) => plan::plan(a),
        Command::Run(a) => run::run_unit(a, quiet),
        Command::Work(a) => run::work(a, quiet),
        Command::Status(a) => status::status(a),
        Command::Merge(a) => merge::merge_units(a, quiet),
        Command::Flags(a) => flags::print_flags(a, quiet),
        Command::Bitmap(a) => flags::export_bitmap(a, quiet),
        Command::Report(a) => report::report_flags(a),
    }
}

use s17::campaign::plan::format_hours as hours;

/// A value out of range (a slice, the unit hours, a unit number) as a
/// usage error (exit 2); any other error as it is.
fn usage(err: campaign::CampaignError) -> anyhow::Error {
    use campaign::CampaignError::{BadList, BadUnitHours, NoCostTable, NoSuchUnit};
    match err {
        BadList(_) | BadUnitHours(_) | NoSuchUnit { .. } | NoCostTable { .. } => {
            super::Usage(err.to_string()).into()
        }
        err => err.into(),
    }
}

fn read_plan(dir: &Path) -> anyhow::Result<Plan> {
    let path = campaign::units_path(dir);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("{} (make a plan with `s17 campaign plan`)", path.display()))?;
    Ok(Plan::parse(&text, &path)?)
}
