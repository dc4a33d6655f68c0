//! Options shared by the commands that search: tables, tuning, threads.

use std::path::{Path, PathBuf};

use anyhow::Context;

use s17::band::BandCatalogue;
use s17::search::plan::{CLUE_RANGE, CLUES};
use s17::search::{Goal, SearchConfig, TUNING_OPTIONS, TuningOption, clue_range_text};
use s17::tables::{self, BandTables, BuildProgress, BuildSummary, TableError, default_table_path};

/// Search tuning options: one flag per entry of [`TUNING_OPTIONS`], with
/// its default, range (checked by clap: a value out of range is a usage
/// error) and help.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TuningArgs {
    config: SearchConfig,
}

impl TuningArgs {
    /// The configuration given (clap has checked the ranges already; the
    /// check here is kept for configurations built in other ways).
    pub fn config(&self) -> anyhow::Result<SearchConfig> {
        self.config
            .validate()
            .map_err(|e| anyhow::anyhow!("bad tuning option: {e}"))?;
        Ok(self.config)
    }
}

/// The flag of a tuning option: its name and help (`lead`, then the
/// table's help and range).
pub fn tuning_arg(option: &TuningOption, lead: Option<&str>) -> clap::Arg {
    let help = match lead {
        Some(lead) => format!("{lead}: {}", option.help),
        None => {
            let mut chars = option.help.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase());
            first.into_iter().chain(chars).collect()
        }
    };
    clap::Arg::new(option.name)
        .long(option.name)
        .help(format!("{help} [range: {}-{}]", option.min, option.max))
}

/// `cmd` with one flag per entry of [`TUNING_OPTIONS`]: [`tuning_arg`]
/// with `lead`, shaped by `shape` (value name, parser), and defaulting to
/// the option's default.
pub fn tuning_args(
    cmd: clap::Command,
    lead: Option<&str>,
    shape: impl Fn(clap::Arg, &TuningOption) -> clap::Arg,
) -> clap::Command {
    TUNING_OPTIONS
        .iter()
        .enumerate()
        .fold(cmd, |cmd, (k, option)| {
            cmd.arg(shape(tuning_arg(option, lead), option).default_value(tuning_default(k)))
        })
}

/// Each tuning option's default as text, for clap (which keeps
/// `&'static str` defaults).
fn tuning_default(k: usize) -> &'static str {
    static DEFAULTS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    &DEFAULTS.get_or_init(|| {
        TUNING_OPTIONS
            .iter()
            .map(|o| o.default.to_string())
            .collect()
    })[k]
}

/// The parser of a tuning option's values: a number in the option's range
/// (clap's usage error, exit 2, for one outside it).
pub fn tuning_value_parser(option: &TuningOption) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(option.min as u64..=option.max as u64)
}

/// A group of the tuning flags, one flag per option of the table: how
/// each flag is shaped and how the values given are kept. `search` and
/// the other searching commands take one value per option
/// ([`TuningArgs`]), `tune` a list ([`super::tune::TuningLists`]).
pub trait TuningGroup: Default {
    /// The lead of each flag's help, if any.
    const LEAD: Option<&'static str>;
    /// The flag of `option`, from its common form ([`tuning_args`]).
    fn shape(arg: clap::Arg, option: &TuningOption) -> clap::Arg;
    /// Keeps what `matches` holds for the option `k` of the table.
    fn keep(&mut self, k: usize, option: &TuningOption, matches: &clap::ArgMatches);
}

/// clap's two traits for a [`TuningGroup`] (clap's traits cannot be
/// implemented for every `T: TuningGroup` at once, so a macro writes them
/// for each group).
macro_rules! tuning_group {
    ($group:ty) => {
        impl clap::Args for $group {
            fn augment_args(cmd: clap::Command) -> clap::Command {
                use $crate::cli::common::TuningGroup;
                $crate::cli::common::tuning_args(cmd, <$group>::LEAD, <$group>::shape)
            }

            fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
                Self::augment_args(cmd)
            }
        }

        impl clap::FromArgMatches for $group {
            fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
                let mut group = Self::default();
                group.update_from_arg_matches(matches)?;
                Ok(group)
            }

            fn update_from_arg_matches(
                &mut self,
                matches: &clap::ArgMatches,
            ) -> Result<(), clap::Error> {
                use $crate::cli::common::TuningGroup;
                for (k, option) in s17::search::TUNING_OPTIONS.iter().enumerate() {
                    self.keep(k, option, matches);
                }
                Ok(())
            }
        }
    };
}
pub(crate) use tuning_group;

impl TuningGroup for TuningArgs {
    const LEAD: Option<&'static str> = None;

    fn shape(arg: clap::Arg, option: &TuningOption) -> clap::Arg {
        arg.value_name("N")
            .value_parser(tuning_value_parser(option))
    }

    fn keep(&mut self, _: usize, option: &TuningOption, matches: &clap::ArgMatches) {
        if let Some(&value) = matches.get_one::<usize>(option.name) {
            (option.set)(&mut self.config, value);
        }
    }
}

tuning_group!(TuningArgs);

/// The flags of the commands that search: band tables, tuning.
#[derive(clap::Args, Debug, Clone)]
pub struct SearchArgs {
    #[command(flatten)]
    pub tables: TablesArg,
    #[command(flatten)]
    pub tuning: TuningArgs,
}

impl SearchArgs {
    /// The tuning configuration, once `threads` workers are set up.
    pub fn start(&self, threads: usize) -> anyhow::Result<SearchConfig> {
        let config = self.tuning.config()?;
        init_threads(threads)?;
        Ok(config)
    }
}

/// `--clues N`: the clue total of the puzzles searched (`search`, `scan`,
/// `tune`).
#[derive(clap::Args, Debug, Clone, Copy, PartialEq, Eq)]
pub struct CluesArg {
    /// Look for the puzzles of N clues (the clue range): every minimal one,
    /// unless --non-minimal
    #[arg(
        long,
        help = format!(
            "Look for the puzzles of N clues ({}): every minimal one, unless --non-minimal",
            clue_range_text()
        ),
        value_name = "N",
        default_value_t = CLUES,
        value_parser = ClueCount,
        hide_possible_values = true,
    )]
    pub clues: usize,
}

/// The parser of `--clues`: a number of [`CLUE_RANGE`] (clap's range
/// error otherwise), whose values the shell completions offer.
#[derive(Clone, Copy, Debug)]
pub struct ClueCount;

impl clap::builder::TypedValueParser for ClueCount {
    type Value = usize;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<usize, clap::Error> {
        clap::builder::RangedU64ValueParser::<usize>::new()
            .range(*CLUE_RANGE.start() as u64..=*CLUE_RANGE.end() as u64)
            .parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        // clap wants `'static` names: the counts 10 to 30 written out,
        // those of CLUE_RANGE offered.
        const NAMES: [&str; 21] = [
            "10", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20", "21", "22", "23",
            "24", "25", "26", "27", "28", "29", "30",
        ];
        debug_assert!(
            CLUE_RANGE
                .clone()
                .all(|c| NAMES.contains(&c.to_string().as_str()))
        );
        Some(Box::new(
            NAMES
                .iter()
                .filter(|n| n.parse().is_ok_and(|c: usize| CLUE_RANGE.contains(&c)))
                .map(clap::builder::PossibleValue::new),
        ))
    }
}

/// What `search` and `scan` look for: `--clues N`, `--first`,
/// `--non-minimal`.
#[derive(clap::Args, Debug, Clone, Copy, PartialEq, Eq)]
pub struct GoalArgs {
    #[command(flatten)]
    pub clues: CluesArg,
    /// Stop each grid at its first puzzle found and print it, or nothing
    /// (is there one?)
    #[arg(long)]
    pub first: bool,
    /// Also print the valid puzzles that are not minimal (a clue can be
    /// removed keeping one solution; for --clues 18, a 17 of the grid
    /// plus one cell)
    #[arg(long)]
    pub non_minimal: bool,
}

impl GoalArgs {
    pub fn goal(&self) -> Goal {
        Goal {
            clues: self.clues.clues,
            non_minimal: self.non_minimal,
            first: self.first,
        }
    }
}

/// Where the band tables are.
#[derive(clap::Args, Debug, Clone)]
pub struct TablesArg {
    /// Band table file (default: $S17_TABLES, else s17/bands.s17t in the
    /// user's cache directory, e.g. ~/.cache/s17/bands.s17t); built on first
    /// use if missing.
    #[arg(long, value_name = "PATH")]
    pub tables: Option<PathBuf>,
}

/// The catalogue and the opened (or freshly built) tables.
pub fn load_tables(
    arg: &TablesArg,
    quiet: bool,
) -> anyhow::Result<(BandCatalogue, BandTables<memmap2::Mmap>)> {
    let path = table_path(arg.tables.as_deref())?;
    let tables = open_or_build(&path, quiet)?;
    Ok((BandCatalogue::new(), tables))
}

/// The table file: `given` (from `--tables` or `--path`), else the default
/// ($S17_TABLES, else the user's cache directory).
pub fn table_path(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    match given {
        Some(path) => Ok(path.to_path_buf()),
        None => Ok(default_table_path()?),
    }
}

/// Opens the tables at `path`, building them first when the file is missing
/// or of another format version, and saying so on stderr (unless `quiet`):
/// the first run builds 126 MiB, and the user should know where.
pub fn open_or_build(path: &Path, quiet: bool) -> anyhow::Result<BandTables<memmap2::Mmap>> {
    match BandTables::open(path) {
        Err(e) if e.is_rebuilt() => {
            check_table_dir(path)?;
            if !quiet {
                let why = match e {
                    TableError::Version { found, .. } => {
                        format!("the file there is of format version {found}, ")
                    }
                    _ => String::new(),
                };
                eprintln!(
                    "s17: building the band tables at {} ({why}126 MiB, a few seconds, once)",
                    path.display()
                );
            }
            build_tables(path, !quiet)?;
            BandTables::open(path).map_err(|e| table_error(e, path))
        }
        other => other.map_err(|e| table_error(e, path)),
    }
}

/// Refuses a table file in a directory that does not exist, unless it is
/// in the cache directory (made when missing): a file elsewhere
/// (`--path`, `--tables`, `$S17_TABLES`) must go to a directory that
/// exists, so that a mistyped path is refused rather than made.
fn check_table_dir(path: &Path) -> anyhow::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let in_cache = dirs::cache_dir().is_some_and(|cache| path.starts_with(cache));
    if let Some(dir) = dir.filter(|d| !in_cache && !d.is_dir()) {
        anyhow::bail!(
            "cannot write the band tables {}: no directory {} (make it first, or give a \
             file in an existing directory)",
            path.display(),
            dir.display()
        );
    }
    Ok(())
}

/// Builds the band tables at `path`, with a progress bar on stderr when
/// `show` is set.
pub fn build_tables(path: &Path, show: bool) -> anyhow::Result<BuildSummary> {
    check_table_dir(path)?;
    let bar = if show {
        indicatif::ProgressBar::new(0)
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "band tables {bar:40} {pos}/{len} bands [{elapsed}]",
        )
        .expect("valid template"),
    );
    let summary = tables::build(path, &mut |p: BuildProgress| {
        bar.set_length(p.total as u64);
        bar.set_position(p.done as u64);
    });
    bar.finish_and_clear();
    summary.map_err(|e| table_error(e, path))
}

/// A table error for the user: the errors that do not name the file get
/// it as context, and their `s17 tables build` hint gets `--path PATH`
/// when the file is not the default one.
pub fn table_error(err: TableError, path: &Path) -> anyhow::Error {
    if err.names_file() {
        return anyhow::Error::new(err);
    }
    let is_default = default_table_path().is_ok_and(|default| default == path);
    let context = format!("band tables {}", path.display());
    if is_default {
        return anyhow::Error::new(err).context(context);
    }
    let command = format!("`s17 tables build --path {}`", path.display());
    let message = err.to_string().replace("`s17 tables build`", &command);
    anyhow::anyhow!(message).context(context)
}

/// The known list at `path` (`--known`), if one is given; a bad line in
/// it fails the run.
pub fn read_known(path: Option<&Path>) -> anyhow::Result<Option<s17::known::KnownSet>> {
    let Some(path) = path else {
        return Ok(None);
    };
    let (set, bad) = s17::known::KnownSet::read(path)?;
    if let Some((line, err)) = bad.first() {
        anyhow::bail!("{}: {}", path.display(), s17::known::describe(*line, err));
    }
    Ok(Some(set))
}

/// The most worker threads per core: more only add switching (a 1.4 s
/// scan with `--threads 100000` took 44 s).
pub const THREADS_PER_CORE: usize = 4;

/// Sets up the rayon pool with `threads` workers (0 = all cores; more
/// than [`THREADS_PER_CORE`] per core are cut to that, with a warning).
pub fn init_threads(threads: usize) -> anyhow::Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let most = THREADS_PER_CORE * cores;
    let threads = if threads > most {
        eprintln!(
            "s17: warning: --threads {threads} is more than {THREADS_PER_CORE} per core; using \
             {most} ({})",
            counted(cores as u64, "core")
        );
        most
    } else {
        threads
    };
    if threads > 0 {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .context("cannot start the worker threads")?;
    }
    Ok(())
}

/// How to open a run's result files, from `--resume` and `--force`.
pub fn open_mode(resume: bool, force: bool) -> s17::output::OpenMode {
    use s17::output::OpenMode;
    match (resume, force) {
        (true, _) => OpenMode::Resume,
        (false, true) => OpenMode::Overwrite,
        (false, false) => OpenMode::Create,
    }
}

/// Warns when a run without `--known` resumes an output that has a
/// `FILE.new`: the file keeps the new 17s of the runs that had a known
/// list, and this run will not add its own.
pub fn warn_untracked_new(command: &str, files: &s17::output::ResultFiles, quiet: bool) {
    let new = s17::output::new_path(files.output_path());
    if !quiet && new.exists() {
        eprintln!(
            "s17 {command}: warning: {} is not kept up to date by a run without --known \
             (it holds the new 17s of the runs that had one); pass --known LIST on every run",
            new.display()
        );
    }
}

/// The summary line of the 17s not in the known list (`FILE.new`): how
/// many this run found, `before` being those already there when it opened.
pub fn report_new(
    command: &str,
    known: &std::path::Path,
    files: &s17::output::ResultFiles,
    before: u64,
) {
    let total = files.new_lines();
    eprintln!(
        "s17 {command}: {} (not in {}) found in this run, {total} in all in {}",
        counted(total - before, "new 17"),
        known.display(),
        s17::output::new_path(files.output_path()).display()
    );
}

/// A progress bar on stderr: `unit` done of `len`, a message (what was
/// found so far; `message` to start), rate, ETA. Hidden with `quiet`.
/// When stderr is no terminal (a batch job, `nohup`), indicatif draws
/// nothing, so a plain line with the same facts is printed every
/// `S17_PROGRESS_SECS` seconds (default 60; 0: none) until the bar is
/// finished.
pub fn progress_bar(len: u64, quiet: bool, unit: &str, message: &str) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
    if quiet {
        return ProgressBar::hidden();
    }
    if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        let bar = ProgressBar::hidden();
        bar.set_length(len);
        bar.set_message(message.to_string());
        let every = match std::env::var("S17_PROGRESS_SECS") {
            Err(_) => 60.0,
            Ok(text) => match text.trim().parse::<f64>() {
                Ok(secs) if secs.is_finite() && secs >= 0.0 => secs,
                _ => {
                    eprintln!(
                        "s17: warning: S17_PROGRESS_SECS={text:?} is not a number of seconds \
                         (0 or more); a progress line every 60 s"
                    );
                    60.0
                }
            },
        };
        if every > 0.0 {
            let every = std::time::Duration::from_secs_f64(every);
            let (watched, unit) = (bar.clone(), unit.to_string());
            std::thread::spawn(move || progress_lines(&watched, &unit, every));
        }
        return bar;
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{elapsed_precise}} [{{wide_bar}}] {{pos}}/{{len}} {unit}, {{msg}}, {{rate}}, ETA {{eta}}"
        ))
        .expect("valid template")
        .with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
            let secs = state.elapsed().as_secs_f64();
            let rate = if secs > 0.0 { state.pos() as f64 / secs } else { 0.0 };
            let _ = write!(w, "{rate:.2}/s");
        })
        .with_key("eta", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
            let eta = mean_eta(state.pos(), state.len().unwrap_or(0), state.elapsed());
            let _ = write!(w, "{}", show_eta(eta));
        })
        .progress_chars("=> "),
    );
    bar.set_message(message.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(500));
    bar
}

/// Prints a progress line for `bar` every `every` until it is finished
/// (for stderr that is no terminal).
fn progress_lines(bar: &indicatif::ProgressBar, unit: &str, every: std::time::Duration) {
    use indicatif::HumanDuration;
    // Checked at least each second: a finished bar stops the lines at once.
    let tick = every.min(std::time::Duration::from_secs(1));
    let mut next = every;
    loop {
        std::thread::sleep(tick);
        if bar.is_finished() {
            return;
        }
        let elapsed = bar.elapsed();
        if elapsed < next {
            continue;
        }
        next = elapsed + every;
        let (pos, len) = (bar.position(), bar.length().unwrap_or(0));
        eprintln!(
            "s17: {pos} of {len} {unit} ({:.1} %), {}, {} elapsed, ETA {}",
            100.0 * pos as f64 / len.max(1) as f64,
            bar.message(),
            HumanDuration(elapsed),
            show_eta(mean_eta(pos, len, elapsed))
        );
    }
}

/// The time left at the mean pace of the whole run so far: `elapsed` for
/// `pos` of `len` done; `None` before the first is done. (indicatif's own
/// estimate weighs the last seconds only: it swings with grids of very
/// different cost, and grows without bound while no step ends, as when
/// a run is paused or starved of CPU.)
pub fn mean_eta(pos: u64, len: u64, elapsed: std::time::Duration) -> Option<std::time::Duration> {
    (pos > 0).then(|| elapsed.mul_f64(len.saturating_sub(pos) as f64 / pos as f64))
}

fn show_eta(eta: Option<std::time::Duration>) -> String {
    match eta {
        Some(eta) => indicatif::HumanDuration(eta).to_string(),
        None => "unknown".to_string(),
    }
}

/// `n` and `noun`, the noun plural unless `n` is 1: "1 grid", "0 grids",
/// "3 entries", "1 bad line".
pub fn counted(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    match (n, noun.strip_suffix('y')) {
        (1, _) => format!("1 {noun}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        (_, None) => format!("{n} {noun}s"),
    }
}

/// `n` and `one` or `many`: for a plural that is not [`counted`]'s
/// ("1 band 3", "2 bands 3").
pub fn counted_as(n: impl Into<u64>, one: &str, many: &str) -> String {
    match n.into() {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn counted_nouns_are_singular_for_one_only() {
        assert_eq!(counted(1u64, "grid"), "1 grid");
        assert_eq!(counted(0u64, "grid"), "0 grids");
        assert_eq!(counted(2u64, "bad line"), "2 bad lines");
        assert_eq!(counted(1u64, "entry"), "1 entry");
        assert_eq!(counted(12u64, "entry"), "12 entries");
        assert_eq!(counted_as(1u64, "band 3", "bands 3"), "1 band 3");
        assert_eq!(counted_as(0u64, "band 3", "bands 3"), "0 bands 3");
    }

    /// The ETA is the mean time per step so far times the steps left:
    /// unknown before the first, zero at the end, and finite however long
    /// the run has gone without a step (indicatif's estimate had printed
    /// "584942417355 years" for a validation starved of CPU for minutes).
    #[test]
    fn eta_is_the_mean_pace_times_the_steps_left() {
        assert_eq!(mean_eta(0, 40, Duration::from_secs(20)), None);
        assert_eq!(
            mean_eta(10, 40, Duration::from_secs(20)),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            mean_eta(40, 40, Duration::from_secs(20)),
            Some(Duration::ZERO)
        );
        assert_eq!(
            mean_eta(1, 2, Duration::from_secs(1_000_000)),
            Some(Duration::from_secs(1_000_000))
        );
        assert_eq!(show_eta(None), "unknown");
        let minutes = Duration::from_secs(180);
        assert_eq!(
            show_eta(Some(minutes)),
            indicatif::HumanDuration(minutes).to_string()
        );
    }
}
