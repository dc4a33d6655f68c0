//! `s17 tune`: the same sample of grids searched under every combination of
//! the listed tuning values; a table of times and counters, best first, and
//! a check that every combination finds the same 17s (or, with `--clues N`,
//! the same puzzles of N clues).

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::Context;
use indicatif::ProgressBar;

use s17::generate::random_grid;
use s17::grid::{Grid, Puzzle};
use s17::scan::{GridFile, Part, Totals, scan};
use s17::search::{Goal, SearchConfig, Searcher, TUNING_OPTIONS, TuningOption};

use super::Outcome;
use super::common::{
    CluesArg, TablesArg, TuningGroup, init_threads, load_tables, progress_bar, tuning_group,
    tuning_value_parser,
};
use super::input::{BadLines, no_items};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Grids to search, one per line (blank and '#' lines skipped).
    #[arg(
        long,
        short = 'i',
        value_name = "GRIDS",
        required_unless_present = "random"
    )]
    pub input: Option<PathBuf>,
    /// Instead of --input: N random grids drawn with --seed.
    #[arg(long, value_name = "N", conflicts_with = "input")]
    pub random: Option<usize>,
    /// Seed of --random.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub values: TuningLists,
    #[command(flatten)]
    pub clues: CluesArg,
    /// Worker threads (0 = all cores); 1 (the default) gives stable timings.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    #[command(flatten)]
    pub tables: TablesArg,
}

/// The values to try of each tuning option: one flag per entry of
/// [`TUNING_OPTIONS`] taking a comma-separated list (default: the
/// option's default). clap checks each value against the table's range:
/// one out of range is a usage error (exit 2), before any file is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TuningLists {
    /// Per option, in table order.
    lists: Vec<Vec<usize>>,
}

impl TuningLists {
    /// Every combination of the listed values, the first option's values
    /// varying slowest; an error for the first out of range (clap has
    /// checked the ranges already; the check is kept for lists built in
    /// other ways).
    pub fn configs(&self) -> anyhow::Result<Vec<SearchConfig>> {
        let mut configs = vec![SearchConfig::default()];
        for (option, values) in TUNING_OPTIONS.iter().zip(&self.lists) {
            configs = configs
                .iter()
                .flat_map(|config| {
                    values.iter().map(move |&value| {
                        let mut config = *config;
                        (option.set)(&mut config, value);
                        config
                    })
                })
                .collect();
        }
        for config in &configs {
            config
                .validate()
                .map_err(|e| anyhow::anyhow!("bad tuning value: {e}"))?;
        }
        Ok(configs)
    }
}

/// Each option's list is its default alone.
impl Default for TuningLists {
    fn default() -> TuningLists {
        TuningLists {
            lists: TUNING_OPTIONS.iter().map(|o| vec![o.default]).collect(),
        }
    }
}

impl TuningGroup for TuningLists {
    const LEAD: Option<&'static str> = Some("Values to try (comma-separated)");

    fn shape(arg: clap::Arg, option: &TuningOption) -> clap::Arg {
        arg.value_name("LIST")
            .value_delimiter(',')
            .action(clap::ArgAction::Append)
            .value_parser(tuning_value_parser(option))
    }

    fn keep(&mut self, k: usize, option: &TuningOption, matches: &clap::ArgMatches) {
        if let Some(values) = matches.get_many::<usize>(option.name) {
            self.lists[k] = values.copied().collect();
        }
    }
}

tuning_group!(TuningLists);

/// One combination's run.
struct Row {
    config: SearchConfig,
    wall: f64,
    totals: Totals,
    /// Sorted 17s per grid index.
    found: BTreeMap<usize, Vec<Puzzle>>,
}

/// Prints the table (stdout); exit 1 if combinations disagree on the 17s
/// or an input line was bad.
pub fn run(args: Args, quiet: bool) -> Outcome {
    init_threads(args.threads)?;
    let span = tracing::info_span!("tune");
    let _enter = span.enter();
    let (grids, good_lines) = read_grids(&args)?;
    anyhow::ensure!(!grids.is_empty(), "no grid to search");
    let configs = args.values.configs()?;

    let (catalogue, tables) = load_tables(&args.tables, quiet)?;
    let goal = Goal::all(args.clues.clues);
    let what = format!("{}s", goal.clues);
    let bar = progress_bar(
        (configs.len() * grids.len()) as u64,
        quiet,
        "grids",
        &format!("0 {what}"),
    );
    let mut rows = Vec::new();
    for config in configs {
        let searcher = Searcher::new(&catalogue, &tables, config).with_goal(goal);
        rows.push(search_combination(&searcher, config, &grids, &bar)?);
    }
    bar.finish_and_clear();

    let same = all_agree(&rows, &grids, &what);
    rows.sort_by(|a, b| a.wall.total_cmp(&b.wall));
    print_table(&rows, &what)?;
    if !quiet {
        eprintln!(
            "s17 tune: {} grids, {} combinations",
            grids.len(),
            rows.len()
        );
    }
    Ok(good_lines && same)
}

/// The grids of `--input` (its bad lines reported; false when there
/// were any) or `--random N`.
fn read_grids(args: &Args) -> anyhow::Result<(Vec<(usize, Grid)>, bool)> {
    match (&args.input, args.random) {
        (Some(path), _) => {
            let catalogue = GridFile::read(path, Part::WHOLE).context("cannot read the grids")?;
            if catalogue.total_entries == 0 {
                return Err(no_items("grid", &path.display().to_string()));
            }
            let mut bad = BadLines::new("tune");
            for (line, err) in catalogue.bad_lines() {
                bad.report(format_args!("{}: line {line}: {err}", path.display()));
            }
            bad.finish();
            Ok((catalogue.grids().collect(), bad.count() == 0))
        }
        (None, n) => {
            let mut rng = fastrand::Rng::with_seed(args.seed);
            let grids = (1..=n.unwrap_or(0))
                .map(|i| (i, random_grid(&mut rng)))
                .collect();
            Ok((grids, true))
        }
    }
}

/// The grids searched under one combination (`searcher`'s `config`):
/// its row of the table.
fn search_combination<B: AsRef<[u8]> + Sync>(
    searcher: &Searcher<'_, B>,
    config: SearchConfig,
    grids: &[(usize, Grid)],
    bar: &ProgressBar,
) -> anyhow::Result<Row> {
    let span = tracing::info_span!("combination", ?config);
    let _enter = span.enter();
    let found = Mutex::new(BTreeMap::new());
    let start = Instant::now();
    let totals = scan(
        grids,
        None,
        None,
        |grid| searcher.search(grid),
        |index, result| {
            found
                .lock()
                .expect("no panic")
                .insert(index, result.puzzles.clone());
            bar.inc(1);
        },
    )?;
    let wall = start.elapsed().as_secs_f64();
    Ok(Row {
        config,
        wall,
        totals,
        found: found.into_inner().expect("no panic"),
    })
}

/// True when every combination found the puzzles of the first; each
/// grid where one did not is named (stderr).
fn all_agree(rows: &[Row], grids: &[(usize, Grid)], what: &str) -> bool {
    let mut same = true;
    for row in &rows[1..] {
        for (index, puzzles) in &row.found {
            let reference = &rows[0].found[index];
            if puzzles != reference {
                same = false;
                eprintln!(
                    "s17 tune: {} found {} {what} on grid {index} ({}), {} found {}",
                    describe(&row.config),
                    puzzles.len(),
                    grids
                        .iter()
                        .find(|(i, _)| i == index)
                        .map(|(_, g)| g.to_string())
                        .unwrap_or_default(),
                    describe(&rows[0].config),
                    reference.len()
                );
            }
        }
    }
    same
}

/// The table (stdout), one line per combination in the order of `rows`.
fn print_table(rows: &[Row], what: &str) -> std::io::Result<()> {
    let mut out = BufWriter::new(std::io::stdout().lock());
    for option in &TUNING_OPTIONS {
        write!(out, "{:>w$} ", column(option), w = width(option))?;
    }
    writeln!(
        out,
        "{:>9} {:>12} {:>14} {:>11} {:>12} {:>5}",
        "total_s", "cpu_per_grid", "xy_tested", "survivors", "final_checks", what
    )?;
    for row in rows {
        let (c, s) = (&row.config, &row.totals.stats);
        for option in &TUNING_OPTIONS {
            write!(out, "{:>w$} ", (option.get)(c), w = width(option))?;
        }
        writeln!(
            out,
            "{:>9.3} {:>12.3} {:>14} {:>11} {:>12} {:>5}",
            row.wall,
            row.totals.cpu_time.as_secs_f64() / row.totals.grids.max(1) as f64,
            s.xy_tested,
            s.survivors,
            s.final_checks,
            row.totals.puzzles
        )?;
    }
    out.flush()
}

/// An option's column heading: its field name.
fn column(option: &TuningOption) -> String {
    option.name.replace('-', "_")
}

fn width(option: &TuningOption) -> usize {
    option.name.len().max(6)
}

/// `chunk=256 ua_limit=256 ...`: every option's value in `c`.
fn describe(c: &SearchConfig) -> String {
    TUNING_OPTIONS
        .iter()
        .map(|option| format!("{}={}", column(option), (option.get)(c)))
        .collect::<Vec<_>>()
        .join(" ")
}
