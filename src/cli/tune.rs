//! `s17 tune`: the same sample of grids searched under every combination of
//! the listed tuning values; a table of times and counters, best first, and
//! a check that every combination finds the same 17s.

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::Context;

use crate::generate::random_grid;
use crate::grid::{Grid, Puzzle};
use crate::scan::{GridFile, Part, Totals, scan};
use crate::search::{SearchConfig, Searcher};

use super::Outcome;
use super::common::progress_bar;
use super::common::{TablesArg, init_threads, load_tables};

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
    /// Values of the XY chunk size to try (comma-separated).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = [SearchConfig::default().chunk])]
    pub chunk: Vec<usize>,
    /// Values of the UA limit of a 2X2Y step to try (comma-separated).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = [SearchConfig::default().ua_limit])]
    pub ua_limit: Vec<usize>,
    /// Values of the GUA limit of a 2X2Y step to try (comma-separated).
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = [SearchConfig::default().gua_limit])]
    pub gua_limit: Vec<usize>,
    /// Values of the UA12 harvest digit-subset limit to try.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = [SearchConfig::default().ua12_digits])]
    pub ua12_digits: Vec<usize>,
    /// Values of the GUA harvest digit-subset limit to try.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = [SearchConfig::default().gua_digits])]
    pub gua_digits: Vec<usize>,
    /// Worker threads (0 = all cores); 1 (the default) gives stable timings.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    #[command(flatten)]
    pub tables: TablesArg,
}

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
    let mut good = true;
    let grids: Vec<(usize, Grid)> = match (&args.input, args.random) {
        (Some(path), _) => {
            let catalogue = GridFile::read(path, Part::WHOLE).context("cannot read the grids")?;
            for (line, err) in catalogue.bad_lines() {
                eprintln!("s17 tune: {}: line {line}: {err}", path.display());
                good = false;
            }
            catalogue.grids().collect()
        }
        (None, n) => {
            let mut rng = fastrand::Rng::with_seed(args.seed);
            (1..=n.unwrap_or(0))
                .map(|i| (i, random_grid(&mut rng)))
                .collect()
        }
    };
    anyhow::ensure!(!grids.is_empty(), "no grid to search");
    let mut configs = Vec::new();
    for &chunk in &args.chunk {
        for &ua_limit in &args.ua_limit {
            for &gua_limit in &args.gua_limit {
                for &ua12_digits in &args.ua12_digits {
                    for &gua_digits in &args.gua_digits {
                        let config = SearchConfig {
                            chunk,
                            ua_limit,
                            gua_limit,
                            ua12_digits,
                            gua_digits,
                            ..SearchConfig::default()
                        };
                        config
                            .validate()
                            .map_err(|e| anyhow::anyhow!("bad tuning value: {e}"))?;
                        configs.push(config);
                    }
                }
            }
        }
    }

    let (catalogue, tables) = load_tables(&args.tables, quiet)?;
    let bar = progress_bar(
        (configs.len() * grids.len()) as u64,
        quiet,
        "grids",
        "0 17s",
    );
    let mut rows = Vec::new();
    for config in configs {
        let span = tracing::info_span!("combination", ?config);
        let _enter = span.enter();
        let searcher = Searcher::new(&catalogue, &tables, config);
        let found = Mutex::new(BTreeMap::new());
        let start = Instant::now();
        let totals = scan(
            &grids,
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
        rows.push(Row {
            config,
            wall,
            totals,
            found: found.into_inner().expect("no panic"),
        });
    }
    bar.finish_and_clear();

    for row in &rows[1..] {
        for (index, puzzles) in &row.found {
            let reference = &rows[0].found[index];
            if puzzles != reference {
                good = false;
                eprintln!(
                    "s17 tune: {} found {} 17s on grid {index} ({}), {} found {}",
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
    rows.sort_by(|a, b| a.wall.total_cmp(&b.wall));
    let mut out = BufWriter::new(std::io::stdout().lock());
    writeln!(
        out,
        "{:>6} {:>8} {:>9} {:>11} {:>10} {:>9} {:>12} {:>14} {:>11} {:>12} {:>5}",
        "chunk",
        "ua_limit",
        "gua_limit",
        "ua12_digits",
        "gua_digits",
        "total_s",
        "cpu_per_grid",
        "xy_tested",
        "survivors",
        "final_checks",
        "17s"
    )?;
    for row in &rows {
        let (c, s) = (&row.config, &row.totals.stats);
        writeln!(
            out,
            "{:>6} {:>8} {:>9} {:>11} {:>10} {:>9.3} {:>12.3} {:>14} {:>11} {:>12} {:>5}",
            c.chunk,
            c.ua_limit,
            c.gua_limit,
            c.ua12_digits,
            c.gua_digits,
            row.wall,
            row.totals.cpu_time.as_secs_f64() / row.totals.grids.max(1) as f64,
            s.xy_tested,
            s.survivors,
            s.final_checks,
            row.totals.puzzles
        )?;
    }
    out.flush()?;
    if !quiet {
        eprintln!(
            "s17 tune: {} grids, {} combinations",
            grids.len(),
            rows.len()
        );
    }
    Ok(good)
}

fn describe(c: &SearchConfig) -> String {
    format!(
        "chunk={} ua_limit={} gua_limit={} ua12_digits={} gua_digits={}",
        c.chunk, c.ua_limit, c.gua_limit, c.ua12_digits, c.gua_digits
    )
}
