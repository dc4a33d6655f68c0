//! `s17 campaign`: the exhaustive search of many slices of the ED
//! catalogue as a planned set of units for a cluster (`crate::campaign`):
//! `plan` cuts the work, `run` searches one unit (what the Slurm array runs),
//! `status` says how far it is, `merge` gathers the 17s (or the puzzles of
//! N clues; a `--first` campaign's flags, one file per slice), `flags`
//! prints a flag file.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::campaign::{
    self, CostTable, Plan, PlanSpec, Status, UnitRun, UnitState, goal_description, merge_into,
    status::name_units,
};
use crate::canon::minlex_grid;
use crate::ed::{Choices, Ed};
use crate::exhaust::Exhauster;
use crate::flags;
use crate::grid::{Grid, Puzzle};
use crate::output::{new_path, write_atomically, write_atomically_with};
use crate::search::SearchConfig;

use super::common::{
    GoalArgs, TablesArg, counted, counted_as, init_threads, load_tables, progress_bar, read_known,
};
use super::resumable::say_resuming;
use super::{Outcome, interrupt};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

impl Args {
    /// `campaign run`: a long command (`interrupt::install_early`).
    pub fn is_run(&self) -> bool {
        matches!(self.command, Command::Run(_))
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
    /// Units done, partial and not started, entries, 17s and CPU hours so
    /// far; exit 0 only when every planned entry is checkpointed exactly once.
    Status(StatusArgs),
    /// The 17s (puzzles of N clues) of all units, each once, as minlex
    /// puzzles; for a --first campaign, a flag file per slice into DIR.
    Merge(MergeArgs),
    /// Print a flag file: MINLEX_GRID<TAB>PUZZLE per flagged grid, or its counts.
    Flags(FlagsArgs),
    /// The campaign's answer from the flag files of DIR (`merge`'s output):
    /// per slice and in all, ED grids, searched, covered, flagged (TSV).
    Report(ReportArgs),
}

#[derive(clap::Args, Debug)]
struct ReportArgs {
    /// A directory of flag files (slice-K.s17f, from `s17 campaign merge`).
    dir: PathBuf,
}

#[derive(clap::Args, Debug)]
struct PlanArgs {
    /// The entries to search: `all`, slices and runs of slices (`0..416`
    /// is 0 to 415, `26,28,30`), or entries A to B-1 of a slice
    /// (`331:1683700..1684300`), separated by commas.
    #[arg(long, value_name = "LIST")]
    slices: String,
    /// The estimated CPU time of a unit, in core-hours (from
    /// data/ed-costs.tsv): each unit is estimated at most H plus one entry.
    #[arg(long, value_name = "H")]
    unit_hours: f64,
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
    /// grids, 17s, CPU hours spent against the plan's estimate for them.
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
    /// Output: one minlex puzzle per line, sorted, each once; for a
    /// --first campaign, a directory: a flag file DIR/slice-K.s17f per
    /// slice searched.
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
struct FlagsArgs {
    /// A flag file (DIR/slice-K.s17f of `s17 campaign merge`).
    file: PathBuf,
    /// Only the flagged grids of entries A to B-1.
    #[arg(long, value_name = "A..B", value_parser = super::enumerate::parse_range)]
    entries: Option<std::ops::Range<u64>>,
    /// Print the header's counts instead (grids of the slice, searched,
    /// covered, flagged).
    #[arg(long)]
    count: bool,
}

pub fn run(args: Args, quiet: bool) -> Outcome {
    match args.command {
        Command::Plan(a) => plan(a),
        Command::Run(a) => run_unit(a, quiet),
        Command::Work(a) => work(a, quiet),
        Command::Status(a) => status(a),
        Command::Merge(a) => merge_units(a, quiet),
        Command::Flags(a) => print_flags(a),
        Command::Report(a) => report_flags(a),
    }
}

use crate::campaign::plan::format_hours as hours;

/// A value out of range (a slice, the unit hours, a unit number) as a
/// usage error (exit 2); any other error as it is.
fn usage(err: campaign::CampaignError) -> anyhow::Error {
    use campaign::CampaignError::{BadList, BadUnitHours, NoSuchUnit};
    match err {
        BadList(_) | BadUnitHours(_) | NoSuchUnit { .. } => super::Usage(err.to_string()).into(),
        err => err.into(),
    }
}

fn plan(args: PlanArgs) -> Outcome {
    let goal = args.goal.goal();
    let costs = match &args.costs {
        Some(path) => CostTable::read(path)?,
        None => CostTable::for_goal(&goal)?,
    };
    let spec = PlanSpec::parse(&args.slices, &costs).map_err(usage)?;
    let plan = Plan::for_goal(&spec, args.unit_hours, &costs, goal).map_err(usage)?;
    let dir = &args.output;
    let units = campaign::units_path(dir);
    if units.exists() && !args.force {
        return Err(campaign::CampaignError::PlanExists(dir.clone()).into());
    }
    crate::output::make_dir("-o", dir, true).map_err(super::resumable::into_error)?;
    for sub in [campaign::out_dir(dir), dir.join("logs")] {
        std::fs::create_dir_all(&sub).with_context(|| format!("{}", sub.display()))?;
    }
    // The script names the directory and binary absolutely: the tasks may
    // start anywhere.
    let abs = std::fs::canonicalize(dir).with_context(|| format!("{}", dir.display()))?;
    let s17 = std::env::current_exe().context("the path of this s17 binary")?;
    let job = args
        .job_time
        .unwrap_or_else(|| campaign::plan::default_job_time(args.unit_hours));
    let workers = args
        .workers
        .map_or_else(|| plan.workers(job), |w| w as usize);
    let script = campaign::sbatch_path(dir);
    write_atomically(&script, plan.sbatch(&abs, &s17, job).as_bytes())
        .with_context(|| format!("cannot write {}", script.display()))?;
    set_executable(&script)?;
    let work_script = campaign::work_sbatch_path(dir);
    write_atomically(
        &work_script,
        plan.work_sbatch(&abs, &s17, workers, job).as_bytes(),
    )
    .with_context(|| format!("cannot write {}", work_script.display()))?;
    set_executable(&work_script)?;
    write_atomically(&units, plan.to_tsv().as_bytes())
        .with_context(|| format!("cannot write {}", units.display()))?;
    let largest = plan.largest().expect("a plan has a unit");
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "s17 campaign plan: {}: {}, {} core-hours estimated for {}; largest unit {} (slice \
         {}, entries {}..{}): {} core-hours",
        goal_description(&goal),
        counted(plan.units.len() as u64, "unit"),
        hours(plan.seconds()),
        counted(plan.entries(), "entry"),
        largest.number,
        largest.k,
        largest.entries.start,
        largest.entries.end,
        hours(largest.est_seconds),
    )?;
    writeln!(
        out,
        "wrote {} and {}; build the band tables once (`s17 tables build`), then submit:",
        units.display(),
        script.display()
    )?;
    for cmd in plan.submit_commands(&campaign::sbatch_path(&abs)) {
        writeln!(out, "  {cmd}")?;
    }
    writeln!(
        out,
        "or start {} pulling units (jobs of {}, each requeued by itself while units are \
         left; about {} hours of wall time by the estimate):\n  sbatch {}",
        counted(workers as u64, "worker"),
        campaign::plan::slurm_time(job),
        hours(plan.seconds() / workers as f64),
        campaign::work_sbatch_path(&abs).display()
    )?;
    Ok(true)
}

#[cfg(unix)]
fn set_executable(path: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("{}", path.display()))
}

#[cfg(not(unix))]
fn set_executable(_: &Path) -> anyhow::Result<()> {
    Ok(())
}

fn read_plan(dir: &Path) -> anyhow::Result<Plan> {
    let path = campaign::units_path(dir);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("{} (make a plan with `s17 campaign plan`)", path.display()))?;
    Ok(Plan::parse(&text, &path)?)
}

/// How `campaign run` stops and goes on: at once on Ctrl-C (its unit is
/// checkpointed entry by entry), and a rerun of the unit continues.
const STOP: interrupt::Stop = interrupt::Stop {
    command: "campaign",
    first: "the unit stops at once; what is checkpointed is kept",
    resume: "the same `s17 campaign run DIR UNIT` continues",
    unit: "entries",
    one: "entry",
    what: "results",
};

fn run_unit(args: RunArgs, quiet: bool) -> Outcome {
    init_threads(args.threads)?;
    let plan = read_plan(&args.dir)?;
    let config = SearchConfig::default();
    let run = UnitRun::open(&args.dir, &plan, args.unit, &config).map_err(usage)?;
    let unit = run.unit().clone();
    let name = format!(
        "unit {} (slice {}, entries {}..{})",
        unit.number, unit.k, unit.entries.start, unit.entries.end
    );
    let span = tracing::info_span!("campaign", unit = unit.number, k = unit.k);
    let _enter = span.enter();
    let (_, tables) = load_tables(&args.tables, quiet)?;
    let ed = Ed::new();
    let todo = run.todo(&ed);
    if !quiet && run.done_before() > 0 {
        say_resuming(STOP, &name, run.repair(), todo.len(), "puzzle");
    }
    let exhauster = Exhauster::new(&ed, &tables, config).with_goal(plan.goal);
    let what = goal_description(&plan.goal);
    let bar = progress_bar(todo.len() as u64, quiet, "entries", "0 grids, 0 puzzles");
    // Ctrl-C stops at once: the unit is checkpointed entry by entry.
    let (watched, before, planned) = (bar.clone(), unit.len() - todo.len() as u64, unit.len());
    let again = format!("s17 campaign run {} {}", args.dir.display(), unit.number);
    interrupt::install_at_once("campaign", move || {
        format!(
            "{} of {planned} entries checkpointed; `{again}` continues",
            before + watched.position()
        )
    })?;
    let counts = std::sync::Mutex::new((0u64, 0u64));
    let totals = run
        .search(
            &exhauster,
            &todo,
            &crate::exhaust::driver::never,
            &|r, _| {
                let mut c = counts.lock().expect("no panic while counting");
                c.0 += r.grids;
                c.1 += r.puzzles.len() as u64;
                bar.set_message(format!("{} grids, {} puzzles", c.0, c.1));
                bar.inc(1);
            },
        )
        .with_context(|| {
            format!(
                "{name} stopped; run it again to continue (`s17 campaign run {} {}`)",
                args.dir.display(),
                unit.number
            )
        })?;
    bar.finish_and_clear();
    if !quiet {
        eprintln!(
            "s17 campaign: {name}: {} searched, {} ({}), {} ({what}), {:.1} s CPU (estimate \
             for the unit {:.1} s); {} of {} entries done",
            counted(totals.entries, "entry"),
            counted(totals.grids, "ED grid"),
            counted_as(totals.bands3, "band 3", "bands 3"),
            counted(totals.puzzles, "puzzle"),
            totals.cpu.as_secs_f64(),
            unit.est_seconds,
            unit.len() - todo.len() as u64 + totals.entries,
            unit.len(),
        );
    }
    Ok(true)
}

/// The exit code of `campaign work` stopped for time with units left
/// (EX_TEMPFAIL): the worker script requeues itself.
const EXIT_TIME_UP: u8 = 75;

/// `campaign work DIR`: claims units one after another
/// (`crate::campaign::work`) and runs each as `campaign run` does.
fn work(args: WorkArgs, quiet: bool) -> Outcome {
    use campaign::work::{Claimed, Claims, REFRESH};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Instant;

    init_threads(args.threads)?;
    let plan = read_plan(&args.dir)?;
    let config = SearchConfig::default();
    let deadline = args
        .stop_after
        .map(|d| Instant::now() + d.saturating_sub(args.margin));
    let time_up = || deadline.is_some_and(|d| Instant::now() >= d);
    let claims = Claims::new(&args.dir, args.stale_after)?;
    let me = claims.me().describe();
    let (_, tables) = load_tables(&args.tables, quiet)?;
    let ed = Ed::new();
    let exhauster = Exhauster::new(&ed, &tables, config).with_goal(plan.goal);
    // A signal ends the worker at once: its unit is checkpointed entry by
    // entry, and its claim is stale once the process is gone.
    let dir = args.dir.display().to_string();
    interrupt::install_at_once("campaign", move || {
        format!("worker stopped; its unit is checkpointed, and `s17 campaign work {dir}` goes on")
    })?;
    let units = plan.units.len();
    let (mut cursor, mut finished, mut ran) = (0usize, 0u64, 0u64);
    let mut held = Vec::new();
    let say = |line: String| {
        if !quiet {
            eprintln!("s17 campaign work: {line}");
        }
    };
    'scan: loop {
        held.clear();
        for step in 0..units {
            if time_up() {
                break 'scan;
            }
            let number = (cursor + step) % units;
            let claim = match claims.try_claim(number)? {
                Claimed::Won(claim) => claim,
                Claimed::Done => continue,
                Claimed::Held(holder) => {
                    held.push((number, holder));
                    continue;
                }
            };
            cursor = number;
            let run = match UnitRun::open(&args.dir, &plan, number, &config) {
                Ok(run) => run,
                Err(campaign::CampaignError::Output(crate::output::OutputError::Locked(e))) => {
                    // Another run writes it (claimed another way): theirs.
                    say(format!("unit {number}: {e}; leaving it"));
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            let unit = run.unit().clone();
            let todo = run.todo(&ed);
            say(format!(
                "{me}: unit {number} (slice {}, entries {}..{}): {} to search{}",
                unit.k,
                unit.entries.start,
                unit.entries.end,
                counted(todo.len() as u64, "entry"),
                if run.done_before() > 0 {
                    format!(", {} done before", run.done_before())
                } else {
                    String::new()
                }
            ));
            let lost = AtomicBool::new(false);
            let beating = AtomicBool::new(true);
            let totals = std::thread::scope(|scope| {
                scope.spawn(|| {
                    let mut last = Instant::now();
                    while beating.load(Ordering::Relaxed) {
                        std::thread::sleep(std::time::Duration::from_millis(200));
                        if last.elapsed() >= REFRESH {
                            last = Instant::now();
                            if !claim.refresh() {
                                lost.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                });
                let stop = || time_up() || lost.load(Ordering::Relaxed);
                let totals = run.search(&exhauster, &todo, &stop, &|_, _| {});
                beating.store(false, Ordering::Relaxed);
                totals
            })
            .with_context(|| {
                format!(
                    "unit {number} stopped; a worker (or `s17 campaign run {} {number}`) continues it",
                    args.dir.display()
                )
            })?;
            ran += 1;
            let whole = totals.entries == todo.len() as u64;
            say(format!(
                "unit {number}: {} searched, {} ({:.1} s CPU){}",
                counted(totals.entries, "entry"),
                counted(totals.puzzles, "puzzle"),
                totals.cpu.as_secs_f64(),
                if whole { ", done" } else { ", given back" }
            ));
            if whole {
                claim.finish()?;
                finished += 1;
            } else if lost.load(Ordering::Relaxed) {
                say(format!(
                    "unit {number}: its claim was taken as stale by another worker"
                ));
            }
            continue 'scan;
        }
        break;
    }
    let left = if time_up() {
        "time is up"
    } else {
        "no unit left to claim"
    };
    let mut line = format!("{me}: {left}; {ran} units run here, {finished} finished");
    if !held.is_empty() && !time_up() {
        let list: Vec<String> = held
            .iter()
            .take(10)
            .map(|(u, h)| format!("{u} ({})", h.describe()))
            .collect();
        let _ = write!(line, "; held by other workers: {}", list.join(", "));
        if held.len() > 10 {
            let _ = write!(line, " and {} more", held.len() - 10);
        }
    }
    say(line);
    if time_up() {
        // Everything is synced and the claims given back.
        std::process::exit(i32::from(EXIT_TIME_UP));
    }
    Ok(true)
}

fn status(args: StatusArgs) -> Outcome {
    let status = Status::read(&args.dir)?;
    if let Some(path) = &args.rerun {
        let list = status.to_rerun().iter().fold(String::new(), |mut s, u| {
            let _ = writeln!(s, "{u}");
            s
        });
        write_atomically(path, list.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    std::io::stdout()
        .lock()
        .write_all(report(&args.dir, &status, args.slices).as_bytes())?;
    Ok(status.complete())
}

/// The per-slice table of `status --slices` (stdout): CPU/EST is the CPU
/// time spent over the estimate for the entries checkpointed.
fn slice_report(s: &Status) -> String {
    let row = |out: &mut String, c: [&str; 10]| {
        let _ = writeln!(
            out,
            "{:>5} {:>6} {:>12} {:>12} {:>10} {:>5} {:>9} {:>9} {:>9} {:>7}",
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9]
        );
    };
    let mut out = String::new();
    row(
        &mut out,
        [
            "slice", "units", "entries", "planned", "ED grids", "17s", "CPU h", "est h", "plan h",
            "CPU/est",
        ],
    );
    for slice in s.by_slice() {
        let ratio = if slice.est_done_seconds > 0.0 {
            format!("{:.2}", slice.cpu_seconds / slice.est_done_seconds)
        } else {
            "-".to_string()
        };
        row(
            &mut out,
            [
                &slice.k.to_string(),
                &slice.units.to_string(),
                &slice.checkpointed.to_string(),
                &slice.planned.to_string(),
                &slice.grids.to_string(),
                &slice.puzzles.to_string(),
                &hours(slice.cpu_seconds),
                &hours(slice.est_done_seconds),
                &hours(slice.est_seconds),
                &ratio,
            ],
        );
    }
    out
}

/// The status report (stdout), with the per-slice table if `slices`.
fn report(dir: &Path, s: &Status, slices: bool) -> String {
    let mut out = String::new();
    let w = &mut out;
    report_totals(w, dir, s);
    report_units(w, s);
    if slices {
        w.push_str(&slice_report(s));
    }
    let _ = writeln!(
        w,
        "{}",
        if s.complete() {
            "complete: every planned entry is checkpointed exactly once"
        } else {
            "incomplete"
        }
    );
    out
}

/// The campaign's totals: its goal, units, entries, ED grids, puzzles and
/// CPU time.
fn report_totals(w: &mut String, dir: &Path, s: &Status) {
    let n = |state| s.in_state(state).len();
    let (planned, checkpointed) = (s.planned(), s.checkpointed());
    let grids: u64 = s.units.iter().map(|u| u.grids).sum();
    let uncosted: u64 = s.units.iter().map(|u| u.uncosted).sum();
    let cpu: f64 = s.units.iter().map(|u| u.cpu_seconds).sum();
    let est: f64 = s.units.iter().map(|u| u.unit.est_seconds).sum();
    let est_done: f64 = s.units.iter().map(|u| u.est_done_seconds()).sum();
    let _ = writeln!(
        w,
        "campaign {}: {}",
        dir.display(),
        s.header.trim_start_matches("# ")
    );
    let _ = writeln!(w, "searching for: {}", goal_description(&s.goal));
    let _ = writeln!(
        w,
        "units: {} done, {} partial, {} not started (of {})",
        n(UnitState::Done),
        n(UnitState::Partial),
        n(UnitState::NotStarted),
        s.units.len()
    );
    let _ = writeln!(
        w,
        "entries: {checkpointed} of {planned} checkpointed ({:.2} %)",
        100.0 * checkpointed as f64 / planned.max(1) as f64
    );
    let _ = write!(w, "ED grids: {grids}");
    if uncosted > 0 {
        let _ = write!(w, " (and those of {uncosted} entries with no cost line)");
    }
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "{}s: {}{}",
        s.goal.clues,
        if s.distinct_exact() {
            format!("{} distinct", s.puzzles())
        } else {
            format!(
                "{} lines (too many to count the distinct ones here: `merge` does)",
                s.puzzles()
            )
        },
        if s.goal == crate::search::Goal::default() {
            String::new()
        } else {
            format!(" ({})", goal_description(&s.goal))
        }
    );
    let _ = writeln!(
        w,
        "CPU: {} core-hours spent; estimate {} for the entries checkpointed, {} for the plan",
        hours(cpu),
        hours(est_done),
        hours(est)
    );
}

/// The units that need attention: partial, not started, written by
/// another build, and the problems found.
fn report_units(w: &mut String, s: &Status) {
    for (state, what) in [
        (UnitState::Partial, "partial"),
        (UnitState::NotStarted, "not started"),
    ] {
        let units = s.in_state(state);
        if !units.is_empty() {
            let _ = writeln!(w, "{what}: {}", name_units(&units));
        }
    }
    let other: Vec<usize> = s
        .units
        .iter()
        .filter(|u| u.other_build)
        .map(|u| u.unit.number)
        .collect();
    if !other.is_empty() {
        let _ = writeln!(
            w,
            "note: checkpoints written by another build or tuning (this build will not resume them): {}",
            name_units(&other)
        );
    }
    for p in &s.problems {
        let _ = writeln!(w, "error: {p}");
    }
}

/// Before anything is written: `-o FILE` (or `FILE.new` with a known
/// list) that exists is refused without `--force`, and one that is the
/// known list is refused always (exit 2).
fn check_merge_output(args: &MergeArgs) -> anyhow::Result<()> {
    let mut written = vec![args.output.clone()];
    if let Some(known) = &args.known {
        super::resumable::refuse_output_as_input(&args.output, &[("known list", known)])?;
        written.push(new_path(&args.output));
    }
    super::resumable::check_output_dir(&args.output)?;
    if let Some(path) = written.iter().find(|p| p.exists()).filter(|_| !args.force) {
        anyhow::bail!(
            "{} already exists; pass --force to overwrite it",
            path.display()
        );
    }
    Ok(())
}

fn merge_units(args: MergeArgs, quiet: bool) -> Outcome {
    let status = Status::read(&args.dir)?;
    if status.goal.first {
        return merge_flags(&args, &status, quiet);
    }
    check_merge_output(&args)?;
    if args.known.is_some() && status.goal.clues != crate::plan::CLUES {
        anyhow::bail!(
            "--known lists 17s; this campaign searches for {}",
            goal_description(&status.goal)
        );
    }
    let known = read_known(args.known.as_deref())?;
    campaign::status::check_mergeable(&args.dir, &status, args.partial)?;
    let slices = chosen_slices(args.slices.as_deref())?;
    let spill = spill_dir(&args.output);
    let mut failure: Option<campaign::CampaignError> = None;
    let mut merged = campaign::Merged::default();
    let mut run = |out: &mut std::fs::File, new: Option<&mut std::fs::File>| {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
        let mut new = new.map(|f| std::io::BufWriter::with_capacity(1 << 16, f));
        let result = merge_into(
            &args.dir,
            &status,
            known.as_ref(),
            args.partial,
            slices.as_ref(),
            &spill,
            &mut out,
            new.as_mut().map(|w| w as &mut dyn std::io::Write),
        );
        let _ = std::fs::remove_dir_all(&spill);
        match result {
            Ok(m) => merged = m,
            Err(e) => {
                failure = Some(e);
                return Err(std::io::Error::other("merge failed"));
            }
        }
        out.flush()?;
        if let Some(w) = new.as_mut() {
            w.flush()?;
        }
        Ok(())
    };
    let written = if args.known.is_some() {
        let new = new_path(&args.output);
        write_atomically_with(&args.output, |out| {
            write_atomically_with(&new, |n| run(out, Some(n)))
        })
    } else {
        write_atomically_with(&args.output, |out| run(out, None))
    };
    if let Some(e) = failure {
        return Err(e.into());
    }
    written.with_context(|| format!("cannot write {}", args.output.display()))?;
    if !quiet {
        let noun = status.goal.clues.to_string();
        for (k, count) in &merged.per_slice {
            eprintln!("s17 campaign merge: slice {k}: {}", counted(*count, &noun));
        }
        let mut summary = format!(
            "s17 campaign merge: {} ({}) into {}",
            counted(merged.puzzles, &noun),
            goal_description(&status.goal),
            args.output.display()
        );
        if let Some(path) = &args.known {
            let _ = write!(
                summary,
                "; {} not in {} (in {})",
                merged.new,
                path.display(),
                new_path(&args.output).display()
            );
        }
        summary += &partial_note(&status);
        eprintln!("{summary}");
    }
    Ok(true)
}

/// The slices of `--slices LIST` (`None`: all).
fn chosen_slices(list: Option<&str>) -> anyhow::Result<Option<std::collections::BTreeSet<usize>>> {
    let Some(list) = list else {
        return Ok(None);
    };
    let mut out = std::collections::BTreeSet::new();
    for item in list.split(',').map(str::trim) {
        let bad = || anyhow::anyhow!("--slices: {item:?} is no slice nor run of slices (0..416)");
        match item.split_once("..") {
            Some((a, b)) => {
                let (a, b): (usize, usize) =
                    (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
                if a >= b || b > campaign::SLICES {
                    return Err(bad());
                }
                out.extend(a..b);
            }
            None => {
                let k: usize = item.parse().map_err(|_| bad())?;
                if k >= campaign::SLICES {
                    return Err(bad());
                }
                out.insert(k);
            }
        }
    }
    Ok(Some(out))
}

/// The spill directory of a merge into `output`: beside it, per process.
fn spill_dir(output: &Path) -> PathBuf {
    let mut name = output.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".spill{}", std::process::id()));
    output.with_file_name(name)
}

/// What a merge of an incomplete campaign (`--partial`) says of it.
fn partial_note(status: &Status) -> String {
    if status.complete() {
        String::new()
    } else {
        format!(
            "; partial: {} of {} entries checkpointed",
            status.checkpointed(),
            status.planned()
        )
    }
}

/// `merge` of a `--first` campaign: a flag file per slice searched into
/// the directory `args.output`, and the counts per slice on stderr.
fn merge_flags(args: &MergeArgs, status: &Status, quiet: bool) -> Outcome {
    if args.known.is_some() {
        anyhow::bail!("--known does not apply to a --first campaign (it writes flag files)");
    }
    let ed = Ed::new();
    campaign::status::check_mergeable(&args.dir, status, args.partial)?;
    let slices = chosen_slices(args.slices.as_deref())?;
    let dir = &args.output;
    // Refused before anything is written: a flag file of this merge that
    // exists, without --force.
    let mut searched: Vec<usize> = status
        .units
        .iter()
        .map(|u| u.unit.k)
        .filter(|k| slices.as_ref().is_none_or(|s| s.contains(k)))
        .collect();
    searched.sort_unstable();
    searched.dedup();
    if !args.force
        && let Some(old) = searched
            .iter()
            .map(|&k| dir.join(flags::file_name(k)))
            .find(|path| path.exists())
    {
        anyhow::bail!(
            "{} already exists; pass --force to overwrite it",
            old.display()
        );
    }
    crate::output::make_dir("-o", dir, true).map_err(super::resumable::into_error)?;
    let spill = campaign::flags::SpillDir(spill_dir(&dir.join("flags")));
    let write = |slice: &campaign::flags::SliceFlags| -> Result<(), campaign::CampaignError> {
        let h = &slice.header;
        let path = dir.join(flags::file_name(h.slice as usize));
        let bytes =
            flags::to_bytes(*h, &slice.records).map_err(|e| campaign::CampaignError::Io {
                path: path.clone(),
                source: std::io::Error::other(e.to_string()),
            })?;
        write_atomically(&path, &bytes).map_err(|source| campaign::CampaignError::Io {
            path: path.clone(),
            source,
        })
    };
    let merged = campaign::flags::merge_flags(
        &args.dir,
        status,
        &ed,
        args.partial,
        slices.as_ref(),
        &spill.0,
        &write,
    )?;
    drop(spill);
    let mut lower_bound = false;
    for h in &merged.slices {
        let path = dir.join(flags::file_name(h.slice as usize));
        lower_bound |= h.covered < h.searched;
        if !quiet {
            eprintln!(
                "s17 campaign merge: slice {}: {} covered, {} flagged, into {}{}",
                h.slice,
                counted(h.covered, "grid"),
                h.flagged,
                path.display(),
                if h.covered < h.searched {
                    format!(
                        " ({} whose hi visit is here {} a visit outside the campaign: their flag is a lower bound)",
                        counted(h.searched - h.covered, "grid"),
                        if h.searched - h.covered == 1 {
                            "has"
                        } else {
                            "have"
                        }
                    )
                } else {
                    String::new()
                }
            );
        }
    }
    for e in merged.errors.iter().take(20) {
        eprintln!("s17 campaign merge: error: {e}");
    }
    if !quiet {
        say_flags_merged(&merged, status, dir, lower_bound);
    }
    Ok(merged.errors.is_empty())
}

/// The summary of a flags merge (stderr): the grids flagged and covered
/// in the files of `dir`, and what makes them partial or a lower bound.
fn say_flags_merged(
    merged: &campaign::flags::FlagMerge,
    status: &Status,
    dir: &Path,
    lower_bound: bool,
) {
    let what = goal_description(&status.goal);
    let flagged: u64 = merged.slices.iter().map(|s| s.flagged).sum();
    let covered: u64 = merged.slices.iter().map(|s| s.covered).sum();
    let mut summary = format!(
        "s17 campaign merge: {what}: {} flagged, {covered} covered, in {} in {}",
        counted(flagged, "grid"),
        counted(merged.slices.len() as u64, "flag file"),
        dir.display()
    );
    if merged.outside > 0 {
        let _ = write!(
            summary,
            "; also {} flagged whose hi visit is outside the campaign (in no file)",
            counted(merged.outside, "grid")
        );
    }
    if lower_bound {
        summary += "; some grids' visits lie outside the campaign: where a grid is not covered, no flag is only a lower bound";
    }
    summary += &partial_note(status);
    eprintln!("{summary}");
}

/// `s17 campaign flags FILE`: the flagged grids as `MINLEX_GRID<TAB>PUZZLE`
/// (the example puzzle mapped with the grid's minlex transform), or the
/// header's counts.
fn print_flags(args: FlagsArgs) -> Outcome {
    let bytes = std::fs::read(&args.file).with_context(|| format!("{}", args.file.display()))?;
    let file = flags::FlagFile::open(bytes, &args.file.display().to_string())?;
    let h = *file.header();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if args.count {
        writeln!(
            out,
            "slice {}: {} grids, {} searched, {} covered, {} flagged ({}; flag: {})",
            h.slice,
            h.grids,
            h.searched,
            h.covered,
            h.flagged,
            args.file.display(),
            h.describe()
        )?;
        out.flush()?;
        return Ok(true);
    }
    let range = args.entries.unwrap_or(0..u64::MAX);
    let records: Vec<flags::FlagRecord> = file
        .records()
        .filter(|r| range.contains(&(r.entry as u64)))
        .collect();
    let Some(last) = records.last() else {
        return Ok(true);
    };
    let ed = Ed::new();
    let k = h.slice as usize;
    let mut next = records.iter().peekable();
    let mut failure = None;
    let walk = records[0].entry as u64..last.entry as u64 + 1;
    ed.for_each_entry(k, walk, |entry| {
        if failure.is_some() || next.peek().is_none_or(|r| r.entry as u64 != entry.number) {
            return;
        }
        let mut bands3 = Vec::new();
        ed.entry_visits(k, entry, Choices::HI, |v| bands3.push(v.band3));
        while let Some(r) = next.next_if(|r| r.entry as u64 == entry.number) {
            let Some(band3) = bands3.get(r.grid as usize) else {
                failure = Some(anyhow::anyhow!(
                    "{}: entry {} has {} grids, no grid {}",
                    args.file.display(),
                    r.entry,
                    bands3.len(),
                    r.grid
                ));
                return;
            };
            let mut cells = [0u8; 81];
            cells[..27].copy_from_slice(ed.catalogue().band(k));
            cells[27..54].copy_from_slice(&entry.band2);
            cells[54..].copy_from_slice(band3);
            let grid = Grid::from_digits_unchecked(cells);
            let (form, t) = minlex_grid(&grid);
            let puzzle = t.apply_puzzle(&Puzzle::from_grid(&grid, r.mask));
            if let Err(e) = writeln!(out, "{form}\t{puzzle}") {
                failure = Some(e.into());
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    out.flush()?;
    Ok(true)
}

/// `s17 campaign report DIR`: one TSV line per flag file of DIR and a
/// line `all`; every file checked whole, its grids against
/// data/ed-counts.tsv. A slice is complete when every one of its ED grids
/// is covered (all three visits searched); the total of flagged grids is
/// the catalogue's answer only when all 416 slices are, else a lower bound.
fn report_flags(args: ReportArgs) -> Outcome {
    let counts = crate::ed::counts::committed();
    let mut files: Vec<(usize, PathBuf)> = Vec::new();
    for item in std::fs::read_dir(&args.dir).with_context(|| format!("{}", args.dir.display()))? {
        let path = item
            .with_context(|| format!("{}", args.dir.display()))?
            .path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if let Some(k) = name
            .strip_prefix("slice-")
            .and_then(|n| n.strip_suffix(".s17f"))
            .and_then(|n| n.parse::<usize>().ok())
        {
            files.push((k, path));
        }
    }
    files.sort();
    if files.is_empty() {
        anyhow::bail!("{}: no flag file (slice-K.s17f) in it", args.dir.display());
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(out, "slice\ted_grids\tsearched\tcovered\tflagged\tcomplete")?;
    let (mut grids, mut searched, mut covered, mut flagged, mut complete) =
        (0u64, 0u64, 0u64, 0u64, 0usize);
    let mut describe = None;
    for (k, path) in &files {
        let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
        let file = flags::FlagFile::open(bytes, &path.display().to_string())?;
        let h = *file.header();
        if h.slice as usize != *k {
            anyhow::bail!("{}: holds slice {}, not {k}", path.display(), h.slice);
        }
        let ed_grids = counts[*k].grids;
        if h.grids != ed_grids {
            anyhow::bail!(
                "{}: {} grids in its header, but slice {k} has {ed_grids} ED grids (data/ed-counts.tsv)",
                path.display(),
                h.grids
            );
        }
        let what = h.describe();
        if describe.get_or_insert_with(|| what.clone()) != &what {
            anyhow::bail!(
                "{}: its flag is \"{what}\", the other files' \"{}\"",
                path.display(),
                describe.as_deref().unwrap_or_default()
            );
        }
        let done = h.covered == ed_grids;
        writeln!(
            out,
            "{k}\t{ed_grids}\t{}\t{}\t{}\t{}",
            h.searched,
            h.covered,
            h.flagged,
            if done { "yes" } else { "no" }
        )?;
        grids += ed_grids;
        searched += h.searched;
        covered += h.covered;
        flagged += h.flagged;
        complete += done as usize;
    }
    let all_done = complete == crate::campaign::SLICES;
    writeln!(
        out,
        "all\t{grids}\t{searched}\t{covered}\t{flagged}\t{}",
        if all_done { "yes" } else { "no" }
    )?;
    out.flush()?;
    let what = describe.unwrap_or_default();
    if all_done {
        eprintln!("s17 campaign report: ED grids that {what}: {flagged} of {grids}");
    } else {
        eprintln!(
            "s17 campaign report: ED grids that {what}: at least {flagged} (a lower bound: {complete} of {} slices complete, {} files)",
            crate::campaign::SLICES,
            files.len()
        );
    }
    Ok(true)
}
