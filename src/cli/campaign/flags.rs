//! `campaign flags` (print flag files, with catalogue numbers if asked)
//! and `campaign bitmap` (a flag campaign's answer by catalogue number).

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context;

use s17::campaign::bitmap::{ExportError, flag_files, numbers_of_minlex};
use s17::campaign::flags::for_each_flagged;
use s17::canon::minlex_grid;
use s17::catalogue::Catalogue;
use s17::ed::Ed;
use s17::flags::FlagRecord;
use s17::grid::{Grid, Puzzle};

use crate::cli::catalogue::open_catalogue;
use crate::cli::common::counted;
use crate::cli::{Outcome, Usage};

use super::{BitmapArgs, FlagsArgs};

/// Grids numbered at once by `campaign flags --numbers`.
const CHUNK: usize = 4096;

/// `FILE`, or the flag files of `DIR` by slice.
fn files_of(path: &std::path::Path) -> anyhow::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let files = flag_files(path)?;
    if files.is_empty() {
        anyhow::bail!("{}: no flag file (slice-K.s17f) in it", path.display());
    }
    Ok(files.into_iter().map(|(_, p)| p).collect())
}

/// `s17 campaign flags FILE|DIR`: the flagged grids as `MINLEX_GRID<TAB>PUZZLE`
/// (the example puzzle mapped with the grid's minlex transform), with
/// `--numbers` `NUMBER<TAB>MINLEX_GRID<TAB>PUZZLE`; or the header's counts
/// and provenance. A directory: its files by slice.
pub(super) fn print_flags(args: FlagsArgs, quiet: bool) -> Outcome {
    let catalogue = match args.numbers {
        true => Some(open_catalogue(args.catalogue.as_deref())?),
        false => None,
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut ed = None;
    let mut printed = 0u64;
    for path in files_of(&args.file)? {
        let bytes = std::fs::read(&path).with_context(|| format!("{}", path.display()))?;
        let file = s17::flags::FlagFile::open(bytes, &path.display().to_string())?;
        let h = *file.header();
        if args.count {
            writeln!(
                out,
                "slice {}: {} grids, {} searched, {} covered, {} flagged ({}; flag: {})",
                h.slice,
                h.grids,
                h.searched,
                h.covered,
                h.flagged,
                path.display(),
                h.describe()
            )?;
            match file.provenance() {
                Some(p) => writeln!(out, "provenance: {}", p.describe())?,
                None => writeln!(out, "provenance: none (a format version 1 file)")?,
            }
            continue;
        }
        let range = args.entries.clone().unwrap_or(0..u64::MAX);
        let records: Vec<FlagRecord> = file
            .records()
            .filter(|r| range.contains(&(r.entry as u64)))
            .collect();
        drop(file);
        let ed = ed.get_or_insert_with(Ed::new);
        let mut chunk: Vec<(Grid, Puzzle)> = Vec::new();
        for_each_flagged(ed, h.slice as usize, &records, |r, grid| {
            let (form, t) = minlex_grid(grid);
            let puzzle = t.apply_puzzle(&Puzzle::from_grid(grid, r.mask));
            match &catalogue {
                None => writeln!(out, "{form}\t{puzzle}")?,
                Some(catalogue) => {
                    chunk.push((form, puzzle));
                    if chunk.len() >= CHUNK {
                        print_numbered(&mut out, catalogue, &mut chunk)?;
                    }
                }
            }
            printed += 1;
            Ok::<(), anyhow::Error>(())
        })
        .with_context(|| format!("{}", path.display()))?;
        if let Some(catalogue) = &catalogue {
            print_numbered(&mut out, catalogue, &mut chunk)?;
        }
    }
    out.flush()?;
    if !quiet && !args.count {
        eprintln!("s17 campaign flags: {}", counted(printed, "flagged grid"));
    }
    Ok(true)
}

/// `NUMBER<TAB>MINLEX_GRID<TAB>PUZZLE` for each of `chunk` (emptied).
fn print_numbered(
    out: &mut impl std::io::Write,
    catalogue: &Catalogue,
    chunk: &mut Vec<(Grid, Puzzle)>,
) -> anyhow::Result<()> {
    let grids: Vec<Grid> = chunk.iter().map(|(g, _)| *g).collect();
    let numbers = numbers_of_minlex(catalogue, &grids)?;
    for ((grid, puzzle), number) in chunk.drain(..).zip(numbers) {
        writeln!(out, "{number}\t{grid}\t{puzzle}")?;
    }
    Ok(())
}

/// `s17 campaign bitmap DIR -o FILE`: see [`s17::campaign::bitmap`].
pub(super) fn export_bitmap(args: BitmapArgs, quiet: bool) -> Outcome {
    // The output rule: in a directory that exists, no campaign's file, no
    // directory, not another run's output.
    crate::cli::resumable::refuse_output_as_input(&args.output, &[])?;
    if args.output.exists() && !args.force {
        return Err(Usage(format!(
            "{} exists; pass --force to replace it",
            args.output.display()
        ))
        .into());
    }
    let catalogue = open_catalogue(args.catalogue.as_deref())?;
    let ed = Ed::new();
    let mut name = args.output.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".spill{}", std::process::id()));
    let spill = s17::campaign::flags::SpillDir(args.output.with_file_name(name));
    let start = std::time::Instant::now();
    let mut say = |line: String| {
        if !quiet {
            eprintln!("s17 campaign bitmap: {line}");
        }
    };
    let export = s17::campaign::bitmap::export_bitmap(
        &args.dir,
        &ed,
        &catalogue,
        &args.output,
        args.partial,
        &spill.0,
        &mut say,
    );
    let export = match export {
        Ok(e) => e,
        Err(e @ (ExportError::Incomplete { .. } | ExportError::Mismatch { .. })) => {
            return Err(Usage(e.to_string()).into());
        }
        Err(e) => return Err(e.into()),
    };
    if !quiet {
        let info = &export.info;
        eprintln!(
            "s17 campaign bitmap: {} set (flag: {}) from {} flag files, {} first bands, {}, in {:.1} s -> {}",
            counted(info.set, "bit"),
            info.describe(),
            info.files,
            export.bands,
            if info.complete {
                "a complete campaign"
            } else {
                "PARTIAL (--partial: a clear bit is no answer)"
            },
            start.elapsed().as_secs_f64(),
            args.output.display()
        );
    }
    Ok(true)
}
