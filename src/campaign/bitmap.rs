//! A flag campaign's answer keyed by the field's catalogue number: the flag
//! files of a directory (`merge`'s output) to one bitmap of 5,472,730,538
//! bits ([`crate::catalogue::bitmap`], its layout), bit `k - 1` set when
//! the grid of catalogue number `k` is flagged.
//!
//! Refused unless the campaign is complete (a file for every slice, every
//! ED grid covered, every file from one complete campaign's plan) or
//! `partial` is asked, which the header records: a clear bit of a partial
//! bitmap is no answer. Files of different goals, or whose slice or grid
//! count is not their own, are refused either way.
//!
//! The export is two passes, so memory does not grow with the flagged
//! grids of the whole catalogue:
//!
//! 1. every flag file in turn (one file's records in memory): each
//!    flagged grid's hi-visit grid to its minlex form (in parallel, in
//!    batches), spilled by first band as rows 4-9 (6 × u32, 24 bytes) to
//!    one file per first band;
//! 2. first band by first band, in catalogue order: its grids sorted (a
//!    grid flagged twice is an error), numbered in sorted chunks (so the
//!    grids of one prefix come together, [`numbers_of_minlex`]), their bits
//!    set; every 1 MiB block below the chunk's last number is written and
//!    freed, so the bitmap holds a block or two in memory.
//!
//! Peak memory: 24 bytes per flagged grid of the largest first band, one
//! flag file's bytes (24 per record), a chunk, a few blocks.

use std::collections::BTreeSet;
use std::fs;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::band::BANDS;
use crate::canon::minlex_grid;
use crate::catalogue::bitmap::{BitmapError, BitmapInfo, BitmapWriter};
use crate::catalogue::{Catalogue, CatalogueError};
use crate::ed::Ed;
use crate::flags::{FlagError, FlagFile, FlagHeader, FlagRecord, Provenance, THIS_BUILD};
use crate::grid::Grid;

use super::flags::{NoSuchGrid, for_each_flagged};

/// Why a bitmap was not made.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Flag(#[from] FlagError),
    #[error(transparent)]
    Catalogue(#[from] CatalogueError),
    #[error(transparent)]
    Bitmap(#[from] BitmapError),
    #[error("{}: {grid}", path.display())]
    Grid { grid: NoSuchGrid, path: PathBuf },
    /// Files that do not make one campaign's answer.
    #[error("{}: {why}", dir.display())]
    Mismatch { dir: PathBuf, why: String },
    /// A partial campaign without `--partial`.
    #[error(
        "{}: not a complete campaign, so a clear bit would not mean \"no\" ({why}); \
         pass --partial to export it anyway (the bitmap says so)",
        dir.display()
    )]
    Incomplete { dir: PathBuf, why: String },
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> ExportError + '_ {
    move |source| ExportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The flag files (`slice-K.s17f`) of `dir`, by slice.
pub fn flag_files(dir: &Path) -> Result<Vec<(usize, PathBuf)>, ExportError> {
    let mut files = Vec::new();
    for item in fs::read_dir(dir).map_err(io_error(dir))? {
        let path = item.map_err(io_error(dir))?.path();
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
    Ok(files)
}

/// A flag file read and checked whole.
pub fn read_flag_file(path: &Path) -> Result<FlagFile<Vec<u8>>, ExportError> {
    let bytes = fs::read(path).map_err(io_error(path))?;
    Ok(FlagFile::open(bytes, &path.display().to_string())?)
}

/// The catalogue numbers of grids in minlex form: the one place the export
/// numbers grids: one walk of each prefix for all the grids of `grids` in
/// it (`Catalogue::numbers_of_minlex`), so large batches are cheap.
pub fn numbers_of_minlex(
    catalogue: &Catalogue,
    grids: &[Grid],
) -> Result<Vec<u64>, CatalogueError> {
    catalogue.numbers_of_minlex(grids)
}

/// What an export did.
#[derive(Clone, Debug)]
pub struct Export {
    /// The header written (with the bits set).
    pub info: BitmapInfo,
    /// The flag files' flagged grids (= the bits set).
    pub flagged: u64,
    /// First bands whose grids were numbered.
    pub bands: usize,
}

/// Grids numbered at once.
const CHUNK: usize = 1 << 16;
/// Flagged grids put in minlex form at once.
const BATCH: usize = 1 << 14;

/// Rows 4-9 of a grid as six 9-digit numbers (their order is the rows').
fn pack(form: &[u8; 81]) -> [u32; 6] {
    let mut rows = [0u32; 6];
    for (r, row) in rows.iter_mut().enumerate() {
        *row = form[27 + 9 * r..36 + 9 * r]
            .iter()
            .fold(0, |a, &d| a * 10 + d as u32);
    }
    rows
}

fn unpack(band: &[u8; 27], rows: &[u32; 6]) -> Grid {
    let mut cells = [0u8; 81];
    cells[..27].copy_from_slice(band);
    for (r, &row) in rows.iter().enumerate() {
        let mut v = row;
        for c in (0..9).rev() {
            cells[27 + 9 * r + c] = (v % 10) as u8;
            v /= 10;
        }
    }
    Grid::from_digits_unchecked(cells)
}

/// Checks the flag files of `dir` make one goal's answer and says whether
/// the campaign is complete (else why not): the header of the bitmap.
fn survey(dir: &Path, files: &[(usize, PathBuf)]) -> Result<(BitmapInfo, String), ExportError> {
    let counts = crate::ed::counts::committed();
    let mismatch = |why: String| ExportError::Mismatch {
        dir: dir.to_path_buf(),
        why,
    };
    let mut first: Option<(FlagHeader, PathBuf)> = None;
    let (mut covered, mut plans, mut short) = (0u64, BTreeSet::new(), Vec::new());
    let mut partial_merges = Vec::new();
    for (k, path) in files {
        let file = read_flag_file(path)?;
        let h = *file.header();
        if h.slice as usize != *k || h.grids != counts[*k].grids {
            return Err(mismatch(format!(
                "{}: slice {} of {} grids, not slice {k} of {} (data/ed-counts.tsv)",
                path.display(),
                h.slice,
                h.grids,
                counts[*k].grids
            )));
        }
        if let Some((f, fpath)) = &first
            && (f.clues, f.kind) != (h.clues, h.kind)
        {
            return Err(mismatch(format!(
                "{}: its flag is \"{}\", that of {} \"{}\"",
                path.display(),
                h.describe(),
                fpath.display(),
                f.describe()
            )));
        }
        first.get_or_insert((h, path.clone()));
        covered += h.covered;
        if h.covered < h.grids {
            short.push(*k);
        }
        match file.provenance() {
            Some(Provenance {
                plan,
                complete: true,
                ..
            }) => {
                plans.insert(Some(*plan));
            }
            Some(p) => {
                plans.insert(Some(p.plan));
                partial_merges.push(*k);
            }
            None => {
                plans.insert(None);
            }
        }
    }
    let Some((h, _)) = first else {
        return Err(mismatch("no flag file (slice-K.s17f) in it".to_string()));
    };
    let why = why_incomplete(files.len(), &short, &partial_merges, &plans);
    let plan = match (plans.len(), plans.first()) {
        (1, Some(Some(p))) => *p,
        _ => 0,
    };
    let info = BitmapInfo {
        clues: h.clues,
        kind: h.kind,
        complete: why.is_empty(),
        files: files.len() as u32,
        plan,
        set: 0,
        covered,
        build: THIS_BUILD.to_string(),
    };
    Ok((info, why.join("; ")))
}

/// Why the answer of `files` flag files is not complete (empty: it is):
/// slices missing or `short` of cover, `--partial` merges, and plans.
fn why_incomplete(
    files: usize,
    short: &[usize],
    partial_merges: &[usize],
    plans: &BTreeSet<Option<u64>>,
) -> Vec<String> {
    let mut why = Vec::new();
    if files < BANDS {
        why.push(format!("flag files of {files} of {BANDS} slices"));
    }
    if !short.is_empty() {
        why.push(format!(
            "{} slices not covered whole (slice {} first)",
            short.len(),
            short[0]
        ));
    }
    if !partial_merges.is_empty() {
        why.push(format!(
            "{} files merged --partial (slice {} first)",
            partial_merges.len(),
            partial_merges[0]
        ));
    }
    if plans.contains(&None) {
        why.push("files of no provenance (format version 1)".to_string());
    }
    if plans.len() > 1 {
        why.push(format!("files of {} different plans", plans.len()));
    }
    why
}

/// The bitmap of the flag files of `dir` into `out` (replaced only when
/// done). `spill` (created, and removed after) holds pass 1's grids.
/// `say` gets a line per file and per first band.
pub fn export_bitmap(
    dir: &Path,
    ed: &Ed,
    catalogue: &Catalogue,
    out: &Path,
    partial: bool,
    spill: &Path,
    say: &mut dyn FnMut(String),
) -> Result<Export, ExportError> {
    let files = flag_files(dir)?;
    let (info, why) = survey(dir, &files)?;
    if !info.complete && !partial {
        return Err(ExportError::Incomplete {
            dir: dir.to_path_buf(),
            why,
        });
    }
    if info.complete && catalogue.bands_numbered() < BANDS {
        // A complete campaign's grids may lie under any first band.
        return Err(CatalogueError::NotBuilt {
            what: "the bitmap of a complete campaign".to_string(),
            missing: catalogue.bands_numbered() + 1,
            needed: BANDS,
        }
        .into());
    }
    // Pass 1: the flagged grids in minlex form, spilled by first band.
    let mut spilled = Spill::create(dir, spill)?;
    let mut flagged = 0u64;
    for (k, path) in &files {
        let file = read_flag_file(path)?;
        let records: Vec<FlagRecord> = file.records().collect();
        drop(file);
        let mut batch: Vec<Grid> = Vec::with_capacity(BATCH);
        for_each_flagged(ed, *k, &records, |_, grid| {
            batch.push(*grid);
            if batch.len() >= BATCH {
                spilled
                    .write(catalogue, &mut batch)
                    .map_err(Wrapped::from)?;
            }
            Ok::<(), Wrapped>(())
        })
        .map_err(|w| w.into_export(path))?;
        spilled.write(catalogue, &mut batch)?;
        flagged += records.len() as u64;
        say(format!(
            "{}: {} flagged grids in minlex form",
            path.display(),
            records.len()
        ));
    }
    let bands = spilled.finish()?;
    // Pass 2: band by band in number order.
    let mut writer = BitmapWriter::create(out, &info)?;
    let numbered_bands = number_spilled(dir, catalogue, spill, &bands, &mut writer, say)?;
    let set = writer.count();
    if set != flagged {
        return Err(ExportError::Mismatch {
            dir: dir.to_path_buf(),
            why: format!("{flagged} grids flagged in the files but {set} numbers set"),
        });
    }
    let set = writer.finish(&info)?;
    Ok(Export {
        info: BitmapInfo { set, ..info },
        flagged,
        bands: numbered_bands,
    })
}

/// Pass 1's spill directory: each flagged grid's minlex rows 4 to 9 in the
/// file of its first band, and each first band's rows 1 to 3.
struct Spill<'a> {
    /// The campaign directory, for the errors.
    dir: &'a Path,
    spill: &'a Path,
    writers: Vec<Option<BufWriter<fs::File>>>,
    bands: Vec<Option<[u8; 27]>>,
}

/// The spill file of first band `b` (counted from 0).
fn spill_file(spill: &Path, b: usize) -> PathBuf {
    spill.join(format!("{:03}.rows", b + 1))
}

impl<'a> Spill<'a> {
    fn create(dir: &'a Path, spill: &'a Path) -> Result<Spill<'a>, ExportError> {
        fs::create_dir_all(spill).map_err(io_error(spill))?;
        Ok(Spill {
            dir,
            spill,
            writers: (0..BANDS).map(|_| None).collect(),
            bands: vec![None; BANDS],
        })
    }

    /// The grids of `batch` in minlex form (in parallel) into their first
    /// band's file; `batch` is emptied.
    fn write(&mut self, catalogue: &Catalogue, batch: &mut Vec<Grid>) -> Result<(), ExportError> {
        let forms: Vec<(usize, [u8; 27], [u32; 6])> = batch
            .par_iter()
            .map(|g| {
                let form = minlex_grid(g).0;
                let band1: [u8; 27] = form.digits()[..27].try_into().expect("27 digits");
                (
                    catalogue.walker().class_of(&band1),
                    band1,
                    pack(form.digits()),
                )
            })
            .collect();
        batch.clear();
        for (b, band1, rows) in forms {
            if *self.bands[b].get_or_insert(band1) != band1 {
                return Err(ExportError::Mismatch {
                    dir: self.dir.to_path_buf(),
                    why: format!(
                        "two minlex grids of first band {:03} differ in rows 1-3",
                        b + 1
                    ),
                });
            }
            let path = spill_file(self.spill, b);
            let w = match &mut self.writers[b] {
                Some(w) => w,
                slot => slot.insert(BufWriter::with_capacity(
                    1 << 13,
                    fs::File::create(&path).map_err(io_error(&path))?,
                )),
            };
            let bytes: Vec<u8> = rows.iter().flat_map(|r| r.to_le_bytes()).collect();
            w.write_all(&bytes).map_err(io_error(&path))?;
        }
        Ok(())
    }

    /// Flushes and closes the files: each first band's rows 1 to 3, `None`
    /// for a band with no flagged grid.
    fn finish(mut self) -> Result<Vec<Option<[u8; 27]>>, ExportError> {
        for (b, w) in self.writers.iter_mut().enumerate() {
            if let Some(w) = w {
                w.flush().map_err(io_error(&spill_file(self.spill, b)))?;
            }
        }
        Ok(self.bands)
    }
}

/// Pass 2: each first band's spilled grids sorted, numbered in the
/// catalogue and set in `writer`, band by band in number order (each spill
/// file removed once read). The number of first bands numbered.
fn number_spilled(
    dir: &Path,
    catalogue: &Catalogue,
    spill: &Path,
    bands: &[Option<[u8; 27]>],
    writer: &mut BitmapWriter,
    say: &mut dyn FnMut(String),
) -> Result<usize, ExportError> {
    let mut numbered_bands = 0;
    for (b, band1) in bands.iter().enumerate() {
        let Some(band1) = band1 else { continue };
        let path = spill_file(spill, b);
        let mut rows = read_rows(&path)?;
        let _ = fs::remove_file(&path);
        rows.sort_unstable();
        if let Some(pair) = rows.windows(2).find(|p| p[0] == p[1]) {
            return Err(ExportError::Mismatch {
                dir: dir.to_path_buf(),
                why: format!(
                    "the grid {} is flagged twice (two records name one ED grid)",
                    unpack(band1, &pair[0])
                ),
            });
        }
        for chunk in rows.chunks(CHUNK) {
            let grids: Vec<Grid> = chunk.iter().map(|r| unpack(band1, r)).collect();
            let numbers = numbers_of_minlex(catalogue, &grids)?;
            for &n in &numbers {
                writer.set(n);
            }
            writer.flush_below(*numbers.last().expect("a chunk"))?;
        }
        numbered_bands += 1;
        say(format!(
            "first band {:03}: {} flagged grids numbered",
            b + 1,
            rows.len()
        ));
    }
    Ok(numbered_bands)
}

/// A spill file's rows.
fn read_rows(path: &Path) -> Result<Vec<[u32; 6]>, ExportError> {
    let mut reader = BufReader::new(fs::File::open(path).map_err(io_error(path))?);
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).map_err(io_error(path))?;
    Ok(bytes
        .chunks_exact(24)
        .map(|c| {
            let mut rows = [0u32; 6];
            for (r, w) in rows.iter_mut().zip(c.chunks_exact(4)) {
                *r = u32::from_le_bytes(w.try_into().expect("4 bytes"));
            }
            rows
        })
        .collect())
}

/// An error of pass 1's callback, or a record naming no grid.
struct Wrapped(ExportErrorOrGrid);

enum ExportErrorOrGrid {
    Export(Box<ExportError>),
    Grid(NoSuchGrid),
}

impl From<ExportError> for Wrapped {
    fn from(e: ExportError) -> Wrapped {
        Wrapped(ExportErrorOrGrid::Export(Box::new(e)))
    }
}

impl From<NoSuchGrid> for Wrapped {
    fn from(e: NoSuchGrid) -> Wrapped {
        Wrapped(ExportErrorOrGrid::Grid(e))
    }
}

impl Wrapped {
    fn into_export(self, path: &Path) -> ExportError {
        match self.0 {
            ExportErrorOrGrid::Export(e) => *e,
            ExportErrorOrGrid::Grid(grid) => ExportError::Grid {
                grid,
                path: path.to_path_buf(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_pack_in_order_and_back() {
        let g = Grid::parse(
            "123456789456789123789123456214365897365897214897214365531642978642978531978531642",
        )
        .unwrap();
        let band: [u8; 27] = g.digits()[..27].try_into().unwrap();
        assert_eq!(unpack(&band, &pack(g.digits())), g);
        // Their order is the digits' order.
        for (a, b) in [(79, 80), (30, 31), (27, 80)] {
            let mut h = *g.digits();
            h.swap(a, b);
            assert_eq!(
                pack(g.digits()).cmp(&pack(&h)),
                g.digits()[27..].cmp(&h[27..])
            );
        }
    }
}
