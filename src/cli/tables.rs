//! `s17 tables`: build, verify and describe the band table file.

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use s17::tables::{BandTables, MAX_STORED_SIZE, MIN_STORED_SIZE, counts_line};

use super::Outcome;
use super::common::{build_tables, open_or_build, table_error, table_path};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Build the band tables (all 416 bands) and write them atomically.
    Build(PathArg),
    /// Check the header, the checksum and every list of the band tables.
    Verify(PathArg),
    /// Describe the band tables (building them first if missing).
    Stats(StatsArgs),
}

#[derive(clap::Args, Debug)]
pub struct PathArg {
    /// Table file [default: $S17_TABLES, else s17/bands.s17t in the user's
    /// cache directory, e.g. ~/.cache/s17/bands.s17t]
    #[arg(long)]
    pub path: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    pub path: PathArg,
    /// One line per catalogue band, in minlex order: `BAND27 MIN N5 N6`
    /// (the band, the smallest valid clue set size, the numbers of valid
    /// 5-clue and 6-clue sets).
    #[arg(long)]
    pub counts: bool,
}

impl PathArg {
    fn resolve(&self) -> anyhow::Result<PathBuf> {
        table_path(self.path.as_deref())
    }
}

/// Runs one `tables` subcommand.
pub fn run(args: Args, quiet: bool) -> Outcome {
    match args.command {
        Command::Build(path) => build(path.resolve()?),
        Command::Verify(path) => verify(path.resolve()?),
        Command::Stats(stats_args) => stats(stats_args, quiet),
    }
}

fn build(path: PathBuf) -> Outcome {
    let summary = build_tables(&path, true)?;
    eprintln!(
        "s17 tables: wrote {} ({} bands, {:.1} MiB) in {:.1} s",
        path.display(),
        summary.bands,
        summary.file_len as f64 / (1 << 20) as f64,
        summary.elapsed.as_secs_f64()
    );
    Ok(true)
}

fn verify(path: PathBuf) -> Outcome {
    let start = Instant::now();
    let tables = BandTables::open(&path).map_err(|e| table_error(e, &path))?;
    tables.verify().map_err(|e| table_error(e, &path))?;
    eprintln!(
        "s17 tables: {} is good ({} bands, checksum {:#018x}, {:.3} s)",
        path.display(),
        tables.len(),
        tables.stored_checksum(),
        start.elapsed().as_secs_f64()
    );
    Ok(true)
}

fn stats(args: StatsArgs, quiet: bool) -> Outcome {
    let path = args.path.resolve()?;
    let tables = open_or_build(&path, quiet)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if args.counts {
        for table in tables.iter() {
            writeln!(out, "{}", counts_line(&table))?;
        }
        out.flush()?;
        return Ok(true);
    }
    writeln!(out, "file        {}", path.display())?;
    writeln!(
        out,
        "size        {} bytes ({:.1} MiB)",
        tables.file_len(),
        tables.file_len() as f64 / (1 << 20) as f64
    )?;
    writeln!(out, "bands       {}", tables.len())?;
    writeln!(out, "minimal UAs {}", tables.total_uas())?;
    writeln!(out, "sets        {}", tables.total_sets())?;
    for size in MIN_STORED_SIZE..=MAX_STORED_SIZE {
        let counts: Vec<usize> = tables.iter().map(|t| t.sets(size).len()).collect();
        let (max_at, max) = counts
            .iter()
            .enumerate()
            .max_by_key(|&(i, &n)| (n, std::cmp::Reverse(i)))
            .map(|(i, &n)| (i, n))
            .unwrap_or_default();
        writeln!(
            out,
            "size {size}      {} sets, largest band {max_at} with {max}",
            counts.iter().sum::<usize>()
        )?;
    }
    let mut by_min = BTreeMap::new();
    for table in tables.iter() {
        *by_min.entry(table.min_size()).or_insert(0usize) += 1;
    }
    let histogram: Vec<String> = by_min.iter().map(|(m, n)| format!("{m}: {n}")).collect();
    writeln!(out, "minimum     {} (size: bands)", histogram.join(", "))?;
    out.flush()?;
    Ok(true)
}
