//! `s17 catalogue`: catalogue numbers of grids and grids of catalogue
//! numbers (the field's minlex catalogue, `src/catalogue/`), and the count
//! tables behind them.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;

use s17::band::BANDS;
use s17::catalogue::bitmap::{Answer, Bitmap, BitmapError};
use s17::catalogue::{
    BandBand2s, BandCheckpoints, BandFile, BandRows5, BandTable, Catalogue, CatalogueError,
    ED_GRIDS, Flow, Walker,
};
use s17::grid::Grid;

use super::common::{counted, init_threads};
use super::input::{LineSource, is_skippable_bytes};
use super::{Outcome, Usage};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// The catalogue number of each grid (any image), one per line:
    /// `LINE<TAB>NUMBER`, in input order. Grids are numbered in batches:
    /// each first-band prefix holding grids of a batch is walked once.
    Number {
        /// Grids, one per line ('-' or nothing: stdin).
        input: Option<PathBuf>,
        #[command(flatten)]
        batch: Batch,
        #[command(flatten)]
        tables: TablesDir,
    },
    /// The minlex grid of each number N, and of every number of each range
    /// A..B (both included), in the order given: `NUMBER<TAB>GRID`. Single
    /// numbers are found in batches (each prefix walked once a batch).
    Grid {
        /// Numbers N or ranges A..B, from 1 to 5472730538.
        #[arg(value_name = "N|A..B", required_unless_present = "file")]
        numbers: Vec<String>,
        /// More numbers or ranges, one per line, from FILE ('-': stdin),
        /// after the arguments.
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
        #[command(flatten)]
        batch: Batch,
        #[command(flatten)]
        tables: TablesDir,
    },
    /// Build the count tables of first bands A..B (1-based, both included;
    /// the lines of data/bands416.txt), one file `NNN.cnt` per band; bands
    /// whose file is already in --dir are kept, so a stopped build resumes.
    Build {
        /// First bands A..B, or one band N (1 to 416).
        #[arg(long, value_name = "A..B")]
        bands: String,
        /// Where the tables go (made if missing, in a directory that exists; default: the user's cache, ~/.cache/s17/catalogue).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Worker threads (0: one per core).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Build the checkpoints (`NNN.ckp`) of the bands instead, from
        /// their tables (in --dir or the usual places): with them, a number
        /// or a grid walks a few thousand grids, not up to half a prefix.
        #[arg(long)]
        checkpoints: bool,
        /// With --checkpoints: a checkpoint every GRIDS grids of a prefix.
        #[arg(long, value_name = "GRIDS", requires = "checkpoints",
              default_value_t = s17::catalogue::checkpoint::DEFAULT_SPACING,
              value_parser = clap::value_parser!(u64).range(1..))]
        every: u64,
        /// Build the lists of band 2s with grids (`NNN.b2s`) of the bands
        /// instead, from their tables: with them, a stream through a band
        /// walks only those band 2s (the last bands' streams, about 10x).
        #[arg(long, conflicts_with = "checkpoints")]
        band2s: bool,
        /// Build the rows-5 lists (`NNN.r5s`) instead: per prefix, the rows
        /// 5 with grids; a stream through a band with no band 2 list fills
        /// row 6 under those only (bands 298-324, about 2x).
        #[arg(long, conflicts_with_all = ["checkpoints", "band2s"])]
        rows5: bool,
    },
    /// "Has this grid the flag?" from a bitmap of `s17 campaign bitmap`,
    /// for each grid (any image), one per line: `LINE<TAB>NUMBER<TAB>ANSWER`,
    /// ANSWER `yes` (flagged), `no` (not, in a complete bitmap) or `unknown`
    /// (not flagged in a partial bitmap: maybe not searched). What the flag
    /// means ("has a minimal 18") goes to stderr.
    Has {
        /// Grids, one per line ('-' or nothing: stdin).
        input: Option<PathBuf>,
        /// The bitmap (`s17 campaign bitmap DIR -o FILE`).
        #[arg(long, value_name = "FILE")]
        bitmap: PathBuf,
        #[command(flatten)]
        tables: TablesDir,
    },
    /// Copy checked catalogue tables (and checkpoints, band 2 and rows-5 lists) from DIR into the
    /// user's cache (or --dir), where an installed `s17` finds them: the
    /// source's `data/catalogue` holds them all.
    Install {
        /// Where the tables are (default: the source's data/catalogue, if
        /// this binary's source is still there).
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
        /// Where they go (made if missing, in a directory that exists; default: the user's cache, ~/.cache/s17/catalogue).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Which first bands have tables, where, and the numbers they cover.
    Status {
        /// Print first band N's table as text instead: a header line, then
        /// ROW4<TAB>COUNT for each row 4 holding grids (the text format,
        /// NNN.tsv, that `s17` also reads).
        #[arg(long, value_name = "N",
              value_parser = clap::value_parser!(u64).range(1..=BANDS as u64))]
        band: Option<u64>,
        #[command(flatten)]
        tables: TablesDir,
    },
}

#[derive(clap::Args, Debug)]
struct TablesDir {
    /// Read the tables from DIR first (before $S17_CATALOGUE, the cache and
    /// the tables committed with the source).
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
struct Batch {
    /// Lines numbered together: the more, the fewer walks per grid (a
    /// prefix is walked once a batch), at about 300 bytes of memory a line.
    #[arg(long, value_name = "LINES", default_value_t = 1_000_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    batch: u64,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 1)]
    threads: usize,
}

impl TablesDir {
    fn open(&self) -> anyhow::Result<Catalogue> {
        open_catalogue(self.tables.as_deref())
    }
}

/// The catalogue, its tables read from `first` before the usual places.
pub(super) fn open_catalogue(first: Option<&std::path::Path>) -> anyhow::Result<Catalogue> {
    let mut dirs = s17::catalogue::default_dirs();
    if let Some(dir) = first {
        dirs.insert(0, dir.to_path_buf());
    }
    Catalogue::open(&dirs).map_err(file_error)
}

/// A catalogue error that stops the run: a table or checkpoint file that
/// is not what it should be is bad input (exit 2), naming the file and why.
pub(super) fn file_error(e: CatalogueError) -> anyhow::Error {
    match e {
        CatalogueError::Format { .. } => Usage(e.to_string()).into(),
        e => e.into(),
    }
}

pub fn run(args: Args, quiet: bool) -> Outcome {
    match args.command {
        Command::Number {
            input,
            batch,
            tables,
        } => number(input, &batch, &tables, quiet),
        Command::Grid {
            numbers,
            file,
            batch,
            tables,
        } => grid(&numbers, file, &batch, &tables),
        Command::Build {
            bands,
            dir,
            threads,
            checkpoints: false,
            band2s: false,
            rows5: false,
            ..
        } => build(&bands, dir, threads, quiet),
        Command::Build {
            bands,
            dir,
            threads,
            checkpoints,
            every,
            rows5,
            ..
        } => {
            let every = checkpoints.then_some(every);
            build_checkpoints(&bands, dir, threads, every, rows5, quiet)
        }
        Command::Has {
            input,
            bitmap,
            tables,
        } => has(input, &bitmap, &tables, quiet),
        Command::Install { from, dir } => install(from, dir, quiet),
        Command::Status { band, tables } => status(band, &tables),
    }
}

/// `N` or `A..B` (both included) within 1..=max.
fn parse_range(text: &str, max: u64, what: &str) -> Result<(u64, u64), Usage> {
    let number = |s: &str| -> Result<u64, Usage> {
        let n: u64 = s.trim().parse().map_err(|_| {
            Usage(format!(
                "`{text}` is not a {what} N or a range A..B of them"
            ))
        })?;
        if !(1..=max).contains(&n) {
            return Err(Usage(format!("{n} is not a {what} (1 to {max})")));
        }
        Ok(n)
    };
    let (a, b) = match text.split_once("..") {
        Some((a, b)) => (number(a)?, number(b)?),
        None => {
            let n = number(text)?;
            (n, n)
        }
    };
    if b < a {
        return Err(Usage(format!("the range {text} is empty (B below A)")));
    }
    Ok((a, b))
}

fn number(input: Option<PathBuf>, batch: &Batch, tables: &TablesDir, quiet: bool) -> Outcome {
    init_threads(batch.threads)?;
    let catalogue = tables.open()?;
    let mut source = LineSource::open(input.as_deref())?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    let start = Instant::now();
    let tally = number_lines(
        "number",
        &mut source,
        batch.batch,
        &catalogue,
        &mut out,
        |out, line_number, n| Ok(writeln!(out, "{line_number}\t{n}")?),
    )?;
    out.flush()?;
    if !quiet {
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "s17 catalogue number: {} numbered in {secs:.3} s",
            counted(tally.grids, "grid")
        );
    }
    tally.outcome(&source.name)
}

/// What [`number_lines`] met.
struct Tally {
    grids: u64,
    malformed: u64,
    unnumbered: u64,
}

impl Tally {
    /// Malformed lines are a usage error (exit 2), as is an input with no
    /// grid; a grid without a number fails the run (exit 1).
    fn outcome(&self, name: &str) -> Outcome {
        if self.malformed > 0 {
            return Err(Usage(format!(
                "{name}: {} not a grid",
                counted(self.malformed, "line")
            ))
            .into());
        }
        if self.grids == 0 && self.unnumbered == 0 {
            return Err(super::input::no_items("grid", name));
        }
        Ok(self.unnumbered == 0)
    }
}

/// Numbers the grids of `source` (one per line, any image), `batch` lines
/// at a time, and hands each line numbered to `emit(out, line, number)`,
/// in input order; a line that is not a grid, or a grid without a number,
/// is reported on stderr (`s17 catalogue COMMAND: NAME: line N: why`).
fn number_lines<W: Write>(
    command: &str,
    source: &mut LineSource,
    batch: u64,
    catalogue: &Catalogue,
    out: &mut W,
    mut emit: impl FnMut(&mut W, usize, u64) -> anyhow::Result<()>,
) -> anyhow::Result<Tally> {
    let mut tally = Tally {
        grids: 0,
        malformed: 0,
        unnumbered: 0,
    };
    // One batch: the lines (a grid, or why not) and their grids.
    let mut lines: Vec<(usize, Result<(), String>)> = Vec::new();
    let mut batch_grids: Vec<Grid> = Vec::new();
    loop {
        lines.clear();
        batch_grids.clear();
        while (lines.len() as u64) < batch {
            let Some((line_number, line)) = source.next_line()? else {
                break;
            };
            if is_skippable_bytes(line) {
                continue;
            }
            match Grid::parse_bytes(line) {
                Ok(grid) => {
                    batch_grids.push(grid);
                    lines.push((line_number, Ok(())));
                }
                Err(e) => lines.push((line_number, Err(e.to_string()))),
            }
        }
        if lines.is_empty() {
            return Ok(tally);
        }
        let mut numbers = catalogue.numbers_each(&batch_grids).into_iter();
        for (line_number, line) in &lines {
            let failure = match line {
                Ok(()) => match numbers.next().expect("one answer a grid") {
                    Ok(n) => {
                        tally.grids += 1;
                        emit(out, *line_number, n)?;
                        continue;
                    }
                    Err(e) if e.is_file_error() => return Err(file_error(e)),
                    Err(e) => {
                        tally.unnumbered += 1;
                        e.to_string()
                    }
                },
                Err(e) => {
                    tally.malformed += 1;
                    e.clone()
                }
            };
            out.flush()?;
            eprintln!(
                "s17 catalogue {command}: {}: line {line_number}: {failure}",
                source.name
            );
        }
    }
}

fn has(
    input: Option<PathBuf>,
    bitmap: &std::path::Path,
    tables: &TablesDir,
    quiet: bool,
) -> Outcome {
    // A bitmap that cannot be read is a bad input: exit 2.
    let usage = |e: BitmapError| Usage(e.to_string());
    let mut bitmap = Bitmap::open(bitmap).map_err(usage)?;
    let catalogue = tables.open()?;
    let mut source = LineSource::open(input.as_deref())?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut yes = 0u64;
    // One line at a time: each answer is out before the next line is read.
    let tally = number_lines(
        "has",
        &mut source,
        1,
        &catalogue,
        &mut out,
        |out, line_number, number| {
            let answer = bitmap.answer(number).map_err(usage)?;
            yes += (answer == Answer::Yes) as u64;
            Ok(writeln!(out, "{line_number}\t{number}\t{}", answer.word())?)
        },
    )?;
    out.flush()?;
    if !quiet {
        let info = bitmap.info();
        eprintln!(
            "s17 catalogue has: {yes} of {} yes (flag: {}; {} bitmap, {} set)",
            counted(tally.grids, "grid"),
            info.describe(),
            if info.complete {
                "a complete"
            } else {
                "a partial"
            },
            counted(info.set, "bit")
        );
    }
    tally.outcome(&source.name)
}

/// Writes `NUMBER<TAB>GRID`.
fn write_grid(out: &mut impl Write, n: u64, grid: &[u8; 81]) -> std::io::Result<()> {
    let mut line = [0u8; 82];
    for (c, d) in line.iter_mut().zip(grid) {
        *c = b'0' + d;
    }
    line[81] = b'\n';
    write!(out, "{n}\t")?;
    out.write_all(&line)
}

/// The grids of numbers and ranges, in the order given: runs of single
/// numbers in batches, ranges streamed.
struct GridWriter<'a, W: Write> {
    catalogue: &'a Catalogue,
    out: W,
    batch: usize,
    /// Single numbers waiting, with where they come from (for errors).
    pending: Vec<(u64, String)>,
    failed: u64,
}

impl<W: Write> GridWriter<'_, W> {
    fn single(&mut self, n: u64, place: String) -> anyhow::Result<()> {
        self.pending.push((n, place));
        if self.pending.len() >= self.batch {
            self.flush_singles()?;
        }
        Ok(())
    }

    fn flush_singles(&mut self) -> anyhow::Result<()> {
        let numbers: Vec<u64> = self.pending.iter().map(|&(n, _)| n).collect();
        let grids = self.catalogue.grids_each(&numbers);
        for ((n, place), grid) in self.pending.drain(..).zip(grids) {
            match grid {
                Ok(grid) => write_grid(&mut self.out, n, grid.digits())?,
                Err(e) if e.is_file_error() => {
                    self.out.flush()?;
                    return Err(file_error(e));
                }
                Err(e) => {
                    self.out.flush()?;
                    eprintln!("s17 catalogue grid: {place}: {e}");
                    self.failed += 1;
                }
            }
        }
        Ok(())
    }

    fn range(&mut self, first: u64, last: u64) -> anyhow::Result<()> {
        self.flush_singles()?;
        let mut failed = None;
        let out = &mut self.out;
        self.catalogue.stream(first, last, |n, grid| {
            if let Err(e) = write_grid(out, n, grid) {
                failed = Some(e);
                return Flow::Stop;
            }
            Flow::Continue
        })?;
        if let Some(e) = failed {
            return Err(e.into());
        }
        Ok(())
    }
}

fn grid(numbers: &[String], file: Option<PathBuf>, batch: &Batch, tables: &TablesDir) -> Outcome {
    let mut given = Vec::new();
    for text in numbers {
        given.push(parse_range(text, ED_GRIDS, "catalogue number")?);
    }
    init_threads(batch.threads)?;
    let catalogue = tables.open()?;
    let mut writer = GridWriter {
        catalogue: &catalogue,
        out: BufWriter::new(std::io::stdout().lock()),
        batch: batch.batch.min(usize::MAX as u64) as usize,
        pending: Vec::new(),
        failed: 0,
    };
    for (i, (first, last)) in given.into_iter().enumerate() {
        if first == last {
            writer.single(first, format!("argument {}", i + 1))?;
        } else {
            writer.range(first, last)?;
        }
    }
    let mut malformed = 0u64;
    let mut name = String::new();
    if let Some(path) = &file {
        let mut source = LineSource::open(Some(path))?;
        name.clone_from(&source.name);
        while let Some((line_number, line)) = source.next_line()? {
            if is_skippable_bytes(line) {
                continue;
            }
            let text = String::from_utf8_lossy(line);
            match parse_range(text.trim(), ED_GRIDS, "catalogue number") {
                Ok((first, last)) if first == last => {
                    writer.single(first, format!("{}: line {line_number}", source.name))?
                }
                Ok((first, last)) => writer.range(first, last)?,
                Err(Usage(reason)) => {
                    writer.flush_singles()?;
                    writer.out.flush()?;
                    eprintln!(
                        "s17 catalogue grid: {}: line {line_number}: {reason}",
                        source.name
                    );
                    malformed += 1;
                }
            }
        }
    }
    writer.flush_singles()?;
    writer.out.flush()?;
    if malformed > 0 {
        return Err(Usage(format!(
            "{name}: {} not a catalogue number or range",
            counted(malformed, "line")
        ))
        .into());
    }
    Ok(writer.failed == 0)
}

/// `--dir` (made if missing, in a directory that exists: no missing
/// parent is made), or the user's cache (made with its parents).
fn build_dir(dir: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    Ok(match dir {
        Some(dir) => {
            let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
            if let Some(parent) = parent.filter(|p| !dir.exists() && !p.is_dir()) {
                return Err(s17::output::UnsafeOutput::NoDirectory {
                    output: dir.clone(),
                    dir: parent.to_path_buf(),
                }
                .into());
            }
            dir
        }
        None => dirs::cache_dir()
            .context("no cache directory: give --dir")?
            .join("s17")
            .join("catalogue"),
    })
}

/// Whether first band `band`'s file at `path` is already built (kept, and
/// said so unless `quiet`): a stopped build resumes after it.
fn kept(path: &Path, band: usize, quiet: bool) -> bool {
    if !path.exists() {
        return false;
    }
    if !quiet {
        eprintln!(
            "s17 catalogue build: first band {:03}: kept {}",
            band + 1,
            path.display()
        );
    }
    true
}

fn build(bands: &str, dir: Option<PathBuf>, threads: usize, quiet: bool) -> Outcome {
    let (first, last) = parse_range(bands, BANDS as u64, "first band")?;
    let dir = build_dir(dir)?;
    init_threads(threads)?;
    let walker = Walker::new();
    for band in first as usize - 1..last as usize {
        // A table of the text format (an older build's) is kept too.
        let text = dir.join(BandTable::text_file_name(band));
        let path = dir.join(BandTable::file_name(band));
        if kept(&path, band, quiet) || kept(&text, band, quiet) {
            continue;
        }
        let start = Instant::now();
        let table = BandTable::build(&walker, band);
        let path = table.write(&walker, &dir)?;
        if !quiet {
            eprintln!(
                "s17 catalogue build: first band {:03}: {} in {} prefixes, {:.1} s -> {}",
                band + 1,
                counted(table.total(), "grid"),
                table.rows4.len(),
                start.elapsed().as_secs_f64(),
                path.display()
            );
        }
    }
    Ok(true)
}

/// `catalogue build --checkpoints` (`every` given), `--band2s` or
/// `--rows5`: band by band, bands whose file is in `dir` kept (so a
/// stopped build resumes), each from its table.
fn build_checkpoints(
    bands: &str,
    dir: Option<PathBuf>,
    threads: usize,
    every: Option<u64>,
    rows5: bool,
    quiet: bool,
) -> Outcome {
    let (first, last) = parse_range(bands, BANDS as u64, "first band")?;
    let dir = build_dir(dir)?;
    init_threads(threads)?;
    let catalogue = open_catalogue(Some(&dir))?;
    for band in first as usize - 1..last as usize {
        let path = dir.join(match (every, rows5) {
            (Some(_), _) => BandCheckpoints::file_name(band),
            (None, false) => BandBand2s::file_name(band),
            (None, true) => BandRows5::file_name(band),
        });
        if kept(&path, band, quiet) {
            continue;
        }
        let Some((table, table_path)) = catalogue.table(band) else {
            return Err(Usage(format!(
                "first band {:03} has no table: run `s17 catalogue build --bands {}` first",
                band + 1,
                band + 1
            ))
            .into());
        };
        let start = Instant::now();
        let walker = catalogue.walker();
        let (path, what) = match (every, rows5) {
            (Some(every), _) => (
                BandCheckpoints::build(walker, table, every, table_path)?
                    .write(walker, table, &dir)?,
                format!("checkpoints every {every} grids"),
            ),
            (None, false) => {
                let band2s = BandBand2s::build(walker, table, table_path)?;
                let what = format!("{} band 2s with grids", band2s.len());
                (band2s.write(walker, table, &dir)?, what)
            }
            (None, true) => {
                let list = BandRows5::build(walker, table, table_path)?;
                let what = format!("{} of {} rows 5 marked", list.marked_count(), list.len());
                (list.write(walker, table, &dir)?, what)
            }
        };
        if !quiet {
            eprintln!(
                "s17 catalogue build: first band {:03}: {what}, {} bytes, {:.1} s -> {}",
                band + 1,
                std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0),
                start.elapsed().as_secs_f64(),
                path.display()
            );
        }
    }
    Ok(true)
}

/// `catalogue install`: every table, checkpoint, band 2 and rows-5 list file of
/// `from`, read and checked first (a bad file is bad input: nothing is
/// copied), then written through a temporary file and a rename: the
/// tables as counts files (`NNN.cnt`, from a text table too), the others
/// copied.
fn install(from: Option<PathBuf>, dir: Option<PathBuf>, quiet: bool) -> Outcome {
    let from = match from {
        Some(from) => from,
        None => {
            let committed = s17::catalogue::committed_dir();
            if !committed.is_dir() {
                return Err(Usage(format!(
                    "the source's tables are not at {}: give --from DIR (a checkout's \
                     data/catalogue)",
                    committed.display()
                ))
                .into());
            }
            committed
        }
    };
    if !from.is_dir() {
        return Err(Usage(format!("{}: not a directory", from.display())).into());
    }
    let dir = build_dir(dir)?;
    let catalogue =
        Catalogue::open(std::slice::from_ref(&from)).map_err(|e| Usage(e.to_string()))?;
    // Band files are otherwise read on first use: every one checked now.
    catalogue
        .check_band_files()
        .map_err(|e| Usage(e.to_string()))?;
    let mut files = Vec::new();
    for band in 0..BANDS {
        files.extend(catalogue.checkpoint_file(band).map(Path::to_path_buf));
        files.extend(catalogue.band2s_file(band).map(Path::to_path_buf));
        files.extend(catalogue.rows5_file(band).map(Path::to_path_buf));
    }
    if (0..BANDS).all(|b| catalogue.table(b).is_none()) {
        return Err(Usage(format!(
            "{}: no catalogue table (NNN.cnt, or NNN.tsv) there",
            from.display()
        ))
        .into());
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut bytes = 0u64;
    // Tables are written in the counts format whatever they were read from
    // (an older checkout's `NNN.tsv` too), so what is installed is what is
    // read there: a directory's `.cnt` wins over its `.tsv`.
    for band in 0..BANDS {
        if let Some((table, _)) = catalogue.table(band) {
            let path = table.write(catalogue.walker(), &dir)?;
            bytes += std::fs::metadata(&path)
                .with_context(|| format!("reading {}", path.display()))?
                .len();
        }
    }
    for path in &files {
        let target = dir.join(path.file_name().expect("a file name"));
        let content = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        s17::disk::write_atomically(&target, &content)
            .with_context(|| format!("writing {}", target.display()))?;
        bytes += content.len() as u64;
    }
    if !quiet {
        let lists = |has: &dyn Fn(usize) -> bool, what| match (0..BANDS).filter(|&b| has(b)).count()
        {
            0 => String::new(),
            n => format!(", {n} {what} lists"),
        };
        eprintln!(
            "s17 catalogue install: {} tables and {} checkpoint files{}{} ({bytes} bytes) -> {} \
             (first bands 001 to {:03} numbered)",
            (0..BANDS).filter(|&b| catalogue.table(b).is_some()).count(),
            (0..BANDS)
                .filter(|&b| catalogue.checkpoint_file(b).is_some())
                .count(),
            lists(&|b| catalogue.band2s_file(b).is_some(), "band 2"),
            lists(&|b| catalogue.rows5_file(b).is_some(), "rows-5"),
            dir.display(),
            catalogue.bands_numbered()
        );
    }
    Ok(true)
}

fn status(band: Option<u64>, tables: &TablesDir) -> Outcome {
    let catalogue = tables.open()?;
    let mut out = std::io::stdout().lock();
    if let Some(band) = band {
        let Some((table, _)) = catalogue.table(band as usize - 1) else {
            return Err(Usage(format!(
                "first band {band:03} has no table (see `s17 catalogue status`)"
            ))
            .into());
        };
        out.write_all(table.to_text(catalogue.walker()).as_bytes())?;
        return Ok(true);
    }
    let built: Vec<usize> = (0..BANDS)
        .filter(|&b| catalogue.table(b).is_some())
        .collect();
    writeln!(
        out,
        "first bands numbered: 001 to {:03} (numbers 1 to {} of {ED_GRIDS})",
        catalogue.bands_numbered(),
        catalogue.numbered()
    )?;
    writeln!(out, "tables found: {} of {BANDS}", built.len())?;
    for b in built {
        let (table, path) = catalogue.table(b).expect("built");
        writeln!(
            out,
            "{:03}\t{}\t{}\t{}",
            b + 1,
            table.total(),
            table.rows4.len(),
            path.display()
        )?;
    }
    Ok(true)
}
