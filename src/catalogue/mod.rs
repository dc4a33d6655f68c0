//! The field's minlex catalogue: every essentially different (ED) grid in
//! its minlex form, sorted as 81-digit strings and numbered from 1 to
//! 5,472,730,538. Any grid to its number ([`Catalogue::number`]), a number
//! to its grid ([`Catalogue::grid`]), and the grids of a range of numbers in
//! order ([`Catalogue::stream`]).
//!
//! # How a number is found
//!
//! A minlex grid's rows 1-3 are a catalogue band (`data/bands416.txt`, in
//! increasing order, so band order is number order) and its row 4 splits
//! the band's grids into *prefixes*. The [`walk`] visits the minlex grids of
//! one prefix in increasing order with no table at all. The tables
//! ([`table`], one file per first band) hold how many grids each prefix has.
//! The number of a grid is then
//!
//! ```text
//! (grids of the first bands before its own)
//!   + (grids of its band under a smaller row 4)
//!   + (grids of its prefix smaller than it, counted by the walk) + 1
//! ```
//!
//! and a number is turned into a grid the other way round (two binary
//! searches, then a walk of one prefix). A band's [`checkpoint`] file, when
//! there, lets that walk start at the nearer of the checkpoints kept every
//! few thousand grids of the prefix, with the same answers. Both are exact as long as the
//! tables are what the walk counts, which is how they are made
//! (`s17 catalogue build`) and what the tests check.
//!
//! # Tables built in pieces
//!
//! Building the table of a first band walks all its grids, so the whole
//! catalogue is hours of CPU; it is built band by band, each band one file,
//! and the numbers of a band need the tables of every band up to it.
//! [`Catalogue::open`] reads the tables of a list of directories (the first
//! holding a band's file wins) and knows the numbers of the longest run of
//! first bands from 001; anything beyond is refused with
//! [`CatalogueError::NotBuilt`], naming the command that builds what is
//! missing.

pub mod band2s;
mod band_file;
pub mod bitmap;
pub mod checkpoint;
mod frame;
pub mod rows5;
pub mod table;
pub mod walk;

use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rayon::prelude::*;

use crate::band::{BANDS, Band};
use crate::grid::Grid;

pub use band_file::BandFile;
pub use band2s::BandBand2s;
pub use checkpoint::BandCheckpoints;
pub use rows5::BandRows5;
pub use table::BandTable;
pub use walk::{Flow, Walker};

/// The number of ED grids: the catalogue's last number.
pub const ED_GRIDS: u64 = 5_472_730_538;

/// Errors of numbering and of the table files.
#[derive(Debug, thiserror::Error)]
pub enum CatalogueError {
    #[error("{0} is not a catalogue number (1 to 5472730538)")]
    OutOfRange(u64),
    #[error(
        "{what} needs the catalogue tables of first bands 001 to {needed:03}, and that of \
         first band {missing:03} is not built: run `s17 catalogue build --bands {}..{needed}` \
         (see `s17 catalogue status`)",
        missing
    )]
    NotBuilt {
        what: String,
        missing: usize,
        needed: usize,
    },
    #[error(
        "number {number} lies beyond the catalogue tables built (first bands 001 to {built:03}, \
         numbers 1 to {last}): run `s17 catalogue build --bands {}` (see `s17 catalogue status`)",
        built + 1
    )]
    BeyondTables {
        number: u64,
        built: usize,
        last: u64,
    },
    #[error(
        "{what}: no catalogue tables found (looked in $S17_CATALOGUE, the user's cache and \
         the source's data/catalogue): run `s17 catalogue install --from DIR` with DIR a \
         checkout's data/catalogue, or set S17_CATALOGUE to it"
    )]
    NoTables { what: String },
    #[error("{}: line {line}: {reason}", path.display())]
    Format {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the table of first band {band:03} ({}) does not agree with the walk: rebuild it",
        path.display()
    )]
    Inconsistent { band: usize, path: PathBuf },
}

/// The directories searched for table files, first match wins:
/// `$S17_CATALOGUE` if set, the user's cache (`~/.cache/s17/catalogue`),
/// then the tables committed with the source (`data/catalogue`).
pub fn default_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(dir) = std::env::var_os("S17_CATALOGUE").filter(|d| !d.is_empty()) {
        dirs.push(PathBuf::from(dir));
    }
    if let Some(cache) = dirs::cache_dir() {
        dirs.push(cache.join("s17").join("catalogue"));
    }
    dirs.push(committed_dir());
    dirs
}

/// The tables committed with the source.
pub fn committed_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/catalogue")
}

/// The walk and the tables found: number and grid, both ways.
pub struct Catalogue {
    walker: Walker,
    tables: Vec<Option<(BandTable, PathBuf)>>,
    /// The checkpoint files of the bands that have them (and a table),
    /// each read and checked on first use.
    checkpoints: Vec<Option<LazyFile<BandCheckpoints>>>,
    /// The band 2 files (the band 2s with grids) of the bands that have
    /// them, read on first use.
    band2s: Vec<Option<LazyFile<BandBand2s>>>,
    /// The rows-5 files (the rows 5 with grids) of the bands that have
    /// them, read on first use.
    rows5: Vec<Option<LazyFile<BandRows5>>>,
    /// `starts[b]`: the grids of first bands before `b`, for the bands from
    /// 0 whose tables are all present, plus one entry (their total).
    starts: Vec<u64>,
}

impl Catalogue {
    /// Reads every table file found in `dirs` (a band's first file wins;
    /// in one directory, its `NNN.cnt` before its `NNN.tsv`).
    pub fn open(dirs: &[PathBuf]) -> Result<Catalogue, CatalogueError> {
        Catalogue::with_walker(Walker::new(), dirs)
    }

    /// [`Self::open`] with a walker already built.
    pub fn with_walker(walker: Walker, dirs: &[PathBuf]) -> Result<Catalogue, CatalogueError> {
        let mut tables = Vec::with_capacity(BANDS);
        for band in 0..BANDS {
            let mut found = None;
            'dirs: for dir in dirs {
                // A directory's counts file wins over its text table.
                for text in [false, true] {
                    let path = dir.join(if text {
                        BandTable::text_file_name(band)
                    } else {
                        BandTable::file_name(band)
                    });
                    match std::fs::read(&path) {
                        Ok(bytes) => {
                            let table = if text {
                                let text = std::str::from_utf8(&bytes).map_err(|_| {
                                    CatalogueError::Format {
                                        path: path.clone(),
                                        line: 1,
                                        reason: "not UTF-8 text".into(),
                                    }
                                })?;
                                BandTable::parse_text(text, band, &walker, &path)?
                            } else {
                                BandTable::parse(&bytes, band, &walker, &path)?
                            };
                            found = Some((table, path));
                            break 'dirs;
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(source) => return Err(CatalogueError::Io { path, source }),
                    }
                }
            }
            tables.push(found);
        }
        // Checkpoint and band 2 files are only found here: each is read and
        // checked when its band is first used (most runs touch a few bands,
        // and reading all 416 is most of a second).
        let mut checkpoints = Vec::with_capacity(BANDS);
        let mut band2s = Vec::with_capacity(BANDS);
        let mut rows5 = Vec::with_capacity(BANDS);
        for entry in &tables {
            let (mut c, mut s, mut r) = (None, None, None);
            if let Some((table, _)) = entry {
                c = LazyFile::find(dirs, &BandCheckpoints::file_name(table.band))?;
                s = LazyFile::find(dirs, &BandBand2s::file_name(table.band))?;
                r = LazyFile::find(dirs, &BandRows5::file_name(table.band))?;
            }
            checkpoints.push(c);
            band2s.push(s);
            rows5.push(r);
        }
        let mut starts = vec![0];
        for entry in &tables {
            match entry {
                Some((table, _)) => starts.push(starts.last().unwrap() + table.total()),
                None => break,
            }
        }
        Ok(Catalogue {
            walker,
            tables,
            checkpoints,
            band2s,
            rows5,
            starts,
        })
    }

    /// The walker.
    pub fn walker(&self) -> &Walker {
        &self.walker
    }

    /// The table of a first band (0-based) and its file, if found.
    pub fn table(&self, band: usize) -> Option<&(BandTable, PathBuf)> {
        self.tables[band].as_ref()
    }

    /// The file of a first band's (0-based) checkpoints, if found (not
    /// read yet: see [`Self::checkpoints`]).
    pub fn checkpoint_file(&self, band: usize) -> Option<&Path> {
        self.checkpoints[band].as_ref().map(|c| c.path.as_path())
    }

    /// The checkpoints of a first band (0-based), if its file was found:
    /// read and checked on the first call (as [`BandCheckpoints::parse`]
    /// says), then kept. A file that fails gives its error on every call.
    pub fn checkpoints(&self, band: usize) -> Result<Option<&BandCheckpoints>, CatalogueError> {
        self.band_file(&self.checkpoints, band)
    }

    /// A first band's file of `files`, read and checked
    /// ([`BandFile::parse`], with the band's table) on the first call,
    /// then kept.
    fn band_file<'a, T: BandFile>(
        &'a self,
        files: &'a [Option<LazyFile<T>>],
        band: usize,
    ) -> Result<Option<&'a T>, CatalogueError> {
        let Some(lazy) = &files[band] else {
            return Ok(None);
        };
        let table = &self.tables[band]
            .as_ref()
            .expect("a band file has a table")
            .0;
        lazy.get(|bytes, path| T::parse(bytes, table, &self.walker, path))
            .map(Some)
    }

    /// The file of a first band's (0-based) band 2s with grids, if found.
    pub fn band2s_file(&self, band: usize) -> Option<&Path> {
        self.band2s[band].as_ref().map(|c| c.path.as_path())
    }

    /// The band 2s with grids of a first band (0-based), if its file was
    /// found: read and checked on the first call ([`BandBand2s::parse`]).
    pub fn band2s(&self, band: usize) -> Result<Option<&BandBand2s>, CatalogueError> {
        self.band_file(&self.band2s, band)
    }

    /// The file of a first band's (0-based) rows-5 list, if found.
    pub fn rows5_file(&self, band: usize) -> Option<&Path> {
        self.rows5[band].as_ref().map(|c| c.path.as_path())
    }

    /// The rows-5 list of a first band (0-based), if its file was found:
    /// read and checked on the first call ([`BandRows5::parse`]).
    pub fn rows5(&self, band: usize) -> Result<Option<&BandRows5>, CatalogueError> {
        self.band_file(&self.rows5, band)
    }

    /// Reads and checks every checkpoint, band 2 and rows-5 file found now
    /// (as `catalogue install` does before copying): the first that fails,
    /// in band order.
    pub fn check_band_files(&self) -> Result<(), CatalogueError> {
        (0..BANDS).try_for_each(|band| {
            self.checkpoints(band)?;
            self.band2s(band)?;
            self.rows5(band).map(|_| ())
        })
    }

    /// The grid of rank `rank` in a prefix ([`checkpoint::nth`]).
    fn nth(&self, band: usize, prefix: usize, rank: u64) -> Result<[u8; 81], CatalogueError> {
        let table = &self.tables[band].as_ref().expect("numbered").0;
        let checkpoints = self.checkpoints(band)?;
        checkpoint::nth(&self.walker, table, checkpoints, prefix, rank)
            .ok_or_else(|| self.inconsistent(band))
    }

    /// The rank of a minlex grid in its prefix ([`checkpoint::rank`]).
    fn rank(&self, band: usize, prefix: usize, form: &[u8; 81]) -> Result<u64, CatalogueError> {
        let table = &self.tables[band].as_ref().expect("numbered").0;
        let checkpoints = self.checkpoints(band)?;
        checkpoint::rank(&self.walker, table, checkpoints, prefix, form)
            .ok_or_else(|| self.inconsistent(band))
    }

    /// How many first bands, from 001, have their tables: their numbers are
    /// 1 to [`Self::numbered`].
    pub fn bands_numbered(&self) -> usize {
        self.starts.len() - 1
    }

    /// The last number the tables reach.
    pub fn numbered(&self) -> u64 {
        *self.starts.last().unwrap()
    }

    /// The catalogue number of any grid (any image of it).
    pub fn number(&self, grid: &Grid) -> Result<u64, CatalogueError> {
        let (form, _) = crate::canon::minlex_grid(grid);
        self.number_of_minlex(form.digits())
    }

    /// The first band (0-based) and the prefix (its index in the band's
    /// table) of a grid in minlex form.
    fn locate_minlex(&self, form: &[u8; 81]) -> Result<(usize, usize), CatalogueError> {
        let band1: &Band = form[..27].try_into().expect("27 digits");
        let band = self.walker.class_of(band1);
        let (table, _) = self.numbered_table(band, "this grid (first band)")?;
        let row4: &[u8; 9] = form[27..36].try_into().expect("9 digits");
        let prefix = table
            .rows4
            .binary_search(row4)
            .map_err(|_| self.inconsistent(band))?;
        Ok((band, prefix))
    }

    /// The error of a grid or number that the walk of its band does not
    /// find where the table says.
    fn inconsistent(&self, band: usize) -> CatalogueError {
        CatalogueError::Inconsistent {
            band: band + 1,
            path: self.tables[band]
                .as_ref()
                .map(|(_, path)| path.clone())
                .unwrap_or_default(),
        }
    }

    /// The catalogue number of a grid in minlex form (not checked): its
    /// rank in its prefix, walked from the nearer checkpoint ([`checkpoint`];
    /// with none, from the nearer end of the prefix).
    pub fn number_of_minlex(&self, form: &[u8; 81]) -> Result<u64, CatalogueError> {
        let (band, prefix) = self.locate_minlex(form)?;
        let table = &self.tables[band].as_ref().expect("numbered").0;
        let rank = self.rank(band, prefix, form)?;
        Ok(self.starts[band] + table.before[prefix] + rank + 1)
    }

    /// The catalogue numbers of many grids in minlex form (not checked), in
    /// input order; the first error fails the whole batch (see
    /// [`Self::numbers_of_minlex_each`] for one answer per grid).
    pub fn numbers_of_minlex(&self, forms: &[Grid]) -> Result<Vec<u64>, CatalogueError> {
        self.numbers_of_minlex_each(forms).into_iter().collect()
    }

    /// The catalogue number of each grid in minlex form (not checked), or
    /// why it has none, in input order. The grids are sorted by first band,
    /// prefix and grid, and each prefix holding some is walked once,
    /// answering every grid of it in the same pass and stopping at the
    /// last: a batch costs at most one walk of each prefix it touches
    /// (prefixes in parallel, rayon's pool). The answers are those of
    /// [`Self::number_of_minlex`], one grid at a time.
    pub fn numbers_of_minlex_each(&self, forms: &[Grid]) -> Vec<Result<u64, CatalogueError>> {
        let mut answers: Vec<Option<Result<u64, CatalogueError>>> =
            std::iter::repeat_with(|| None).take(forms.len()).collect();
        // (band, prefix, index of the grid), sorted by band, prefix, grid.
        let mut queries = Vec::with_capacity(forms.len());
        for (i, form) in forms.iter().enumerate() {
            match self.locate_minlex(form.digits()) {
                Ok((band, prefix)) => queries.push((band as u32, prefix as u32, i)),
                Err(e) => answers[i] = Some(Err(e)),
            }
        }
        queries.sort_unstable_by(|a, b| {
            (a.0, a.1, forms[a.2].digits()).cmp(&(b.0, b.1, forms[b.2].digits()))
        });
        let groups: Vec<&[(u32, u32, usize)]> =
            queries.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)).collect();
        let found: Vec<Vec<(usize, Result<u64, CatalogueError>)>> = groups
            .par_iter()
            .map(|group| {
                let (band, prefix) = (group[0].0 as usize, group[0].1 as usize);
                let table = &self.tables[band].as_ref().expect("numbered").0;
                let base = self.starts[band] + table.before[prefix];
                if let [(_, _, i)] = group {
                    // One grid: walked from the nearer end.
                    return vec![(*i, self.number_of_minlex(forms[*i].digits()))];
                }
                let mut out = Vec::with_capacity(group.len());
                let (mut next, mut rank) = (0, 0u64);
                self.walker
                    .walk_prefix(band, &table.rows4[prefix], &mut |grid| {
                        while let Some(&(_, _, i)) = group.get(next) {
                            match forms[i].digits().cmp(grid) {
                                Ordering::Equal => out.push((i, Ok(base + rank + 1))),
                                // Not a grid of the walk: not minlex, or a
                                // table that disagrees with the walk.
                                Ordering::Less => out.push((i, Err(self.inconsistent(band)))),
                                Ordering::Greater => break,
                            }
                            next += 1;
                        }
                        rank += 1;
                        if next == group.len() {
                            Flow::Stop
                        } else {
                            Flow::Continue
                        }
                    });
                for &(_, _, i) in &group[next..] {
                    out.push((i, Err(self.inconsistent(band))));
                }
                out
            })
            .collect();
        scatter(answers, found)
    }

    /// The catalogue numbers of many grids (any images), in input order:
    /// each grid's minlex form ([`crate::canon::minlex_grid`], in parallel),
    /// then [`Self::numbers_of_minlex_each`].
    pub fn numbers_each(&self, grids: &[Grid]) -> Vec<Result<u64, CatalogueError>> {
        let forms: Vec<Grid> = grids
            .par_iter()
            .map(|grid| crate::canon::minlex_grid(grid).0)
            .collect();
        self.numbers_of_minlex_each(&forms)
    }

    /// The minlex grids of many catalogue numbers, in input order; the
    /// first error fails the whole batch (see [`Self::grids_each`]).
    pub fn grids(&self, numbers: &[u64]) -> Result<Vec<Grid>, CatalogueError> {
        self.grids_each(numbers).into_iter().collect()
    }

    /// The minlex grid of each catalogue number, or why it has none, in
    /// input order: the numbers are sorted by first band, prefix and rank
    /// inside the prefix, and each prefix holding some is walked once, up
    /// to its largest rank asked (prefixes in parallel, rayon's pool).
    pub fn grids_each(&self, numbers: &[u64]) -> Vec<Result<Grid, CatalogueError>> {
        let mut answers: Vec<Option<Result<Grid, CatalogueError>>> =
            std::iter::repeat_with(|| None)
                .take(numbers.len())
                .collect();
        // (band, prefix, rank in the prefix, index of the number), sorted.
        let mut queries = Vec::with_capacity(numbers.len());
        for (i, &number) in numbers.iter().enumerate() {
            match self.locate_number(number) {
                Ok((band, prefix, rank)) => queries.push((band as u32, prefix as u32, rank, i)),
                Err(e) => answers[i] = Some(Err(e)),
            }
        }
        queries.sort_unstable();
        let groups: Vec<&[(u32, u32, u64, usize)]> =
            queries.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)).collect();
        let found: Vec<Vec<(usize, Result<Grid, CatalogueError>)>> = groups
            .par_iter()
            .map(|group| {
                let (band, prefix) = (group[0].0 as usize, group[0].1 as usize);
                let table = &self.tables[band].as_ref().expect("numbered").0;
                if group.iter().all(|q| q.2 == group[0].2) {
                    // One rank (asked once or more): walked from the nearer end.
                    let grid = self
                        .nth(band, prefix, group[0].2)
                        .map(Grid::from_digits_unchecked);
                    return group.iter().map(|q| (q.3, clone_answer(&grid))).collect();
                }
                let mut out = Vec::with_capacity(group.len());
                let (mut next, mut rank) = (0, 0u64);
                self.walker
                    .walk_prefix(band, &table.rows4[prefix], &mut |grid| {
                        while let Some(&(_, _, r, i)) = group.get(next) {
                            if r != rank {
                                break;
                            }
                            out.push((i, Ok(Grid::from_digits_unchecked(*grid))));
                            next += 1;
                        }
                        rank += 1;
                        if next == group.len() {
                            Flow::Stop
                        } else {
                            Flow::Continue
                        }
                    });
                for &(_, _, _, i) in &group[next..] {
                    out.push((i, Err(self.inconsistent(band))));
                }
                out
            })
            .collect();
        scatter(answers, found)
    }

    /// The minlex grid of a catalogue number (its prefix walked from the
    /// nearer checkpoint, [`checkpoint`]; with none, from the nearer end).
    pub fn grid(&self, number: u64) -> Result<Grid, CatalogueError> {
        let (band, prefix, rank) = self.locate_number(number)?;
        self.nth(band, prefix, rank)
            .map(Grid::from_digits_unchecked)
    }

    /// Visits the grids of numbers `first..=last` in order (`visit(number,
    /// grid)`), until `visit` says stop. Only `first` needs the tables: past
    /// them, the walk goes on from band to band on its own.
    pub fn stream(
        &self,
        first: u64,
        last: u64,
        mut visit: impl FnMut(u64, &[u8; 81]) -> Flow,
    ) -> Result<(), CatalogueError> {
        for n in [first, last] {
            if !(1..=ED_GRIDS).contains(&n) {
                return Err(CatalogueError::OutOfRange(n));
            }
        }
        if last < first {
            return Ok(());
        }
        let (band, prefix, mut skip) = self.locate_number(first)?;
        let mut number = first;
        let mut visit_one = |grid: &[u8; 81]| {
            if skip > 0 {
                skip -= 1;
                return Flow::Continue;
            }
            let flow = visit(number, grid);
            number += 1;
            if flow == Flow::Stop || number > last {
                Flow::Stop
            } else {
                Flow::Continue
            }
        };
        if self.stream_band(band, prefix, &mut visit_one)? == Flow::Stop {
            return Ok(());
        }
        for next in band + 1..BANDS {
            let flow = match &self.tables[next] {
                Some(_) => self.stream_band(next, 0, &mut visit_one)?,
                None => self.walker.walk_band(next, &mut visit_one),
            };
            if flow == Flow::Stop {
                return Ok(());
            }
        }
        Ok(())
    }

    /// The grids of a band (with its table) from prefix `from` on, in
    /// order: with its band 2 file, only the band 2s listed there are
    /// walked; else with its rows-5 file, only the band 2s under the rows
    /// 5 marked there (the same grids).
    fn stream_band(
        &self,
        band: usize,
        from: usize,
        visit: &mut impl FnMut(&[u8; 81]) -> Flow,
    ) -> Result<Flow, CatalogueError> {
        let table = &self.tables[band].as_ref().expect("a table").0;
        let band2s = self.band2s(band)?;
        let rows5 = match band2s {
            Some(_) => None,
            None => self.rows5(band)?,
        };
        for (prefix, row4) in table.rows4.iter().enumerate().skip(from) {
            let flow = match (band2s, rows5) {
                (None, Some(list)) => list.walk_prefix(&self.walker, prefix, row4, visit),
                (Some(list), _) => {
                    let mut flow = Flow::Continue;
                    for band2 in list.of_prefix(prefix) {
                        flow = self.walker.walk_band2(band, row4, band2, false, visit);
                        if flow == Flow::Stop {
                            break;
                        }
                    }
                    flow
                }
                (None, None) => self.walker.walk_prefix(band, row4, visit),
            };
            if flow == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Continue)
    }

    /// The first band (0-based), the prefix (its index in the band's table)
    /// and the rank in the prefix (0-based) of a number's grid.
    fn locate_number(&self, number: u64) -> Result<(usize, usize, u64), CatalogueError> {
        let band = self.band_of(number)?;
        let table = &self.tables[band].as_ref().expect("numbered").0;
        let offset = number - 1 - self.starts[band];
        let prefix = table.before.partition_point(|&b| b <= offset) - 1;
        Ok((band, prefix, offset - table.before[prefix]))
    }

    /// The first band (0-based) of a number's grid.
    fn band_of(&self, number: u64) -> Result<usize, CatalogueError> {
        if !(1..=ED_GRIDS).contains(&number) {
            return Err(CatalogueError::OutOfRange(number));
        }
        if self.tables.iter().all(Option::is_none) {
            return Err(CatalogueError::NoTables {
                what: format!("number {number}"),
            });
        }
        if number > self.numbered() {
            return Err(CatalogueError::BeyondTables {
                number,
                built: self.bands_numbered(),
                last: self.numbered(),
            });
        }
        Ok(self.starts.partition_point(|&s| s < number) - 1)
    }

    /// The table of `band` when its numbers are known (every band before
    /// it has its table too).
    fn numbered_table(
        &self,
        band: usize,
        what: &str,
    ) -> Result<&(BandTable, PathBuf), CatalogueError> {
        if band < self.bands_numbered() {
            return Ok(self.tables[band].as_ref().expect("numbered"));
        }
        if self.tables.iter().all(Option::is_none) {
            return Err(CatalogueError::NoTables {
                what: format!("{what} {:03})", band + 1),
            });
        }
        let missing = (0..=band)
            .find(|&b| self.tables[b].is_none())
            .expect("a band up to this one has no table");
        Err(CatalogueError::NotBuilt {
            what: format!("{what} {:03})", band + 1),
            missing: missing + 1,
            needed: band + 1,
        })
    }
}

/// The answers of a batch in input order: those known before the walks
/// (`answers`, the errors of locating) and those the walks found (`found`,
/// by index).
fn scatter<T>(
    mut answers: Vec<Option<Result<T, CatalogueError>>>,
    found: Vec<Vec<(usize, Result<T, CatalogueError>)>>,
) -> Vec<Result<T, CatalogueError>> {
    for (i, answer) in found.into_iter().flatten() {
        answers[i] = Some(answer);
    }
    answers
        .into_iter()
        .map(|a| a.expect("every query answered"))
        .collect()
}

/// A copy of an answer (errors do not clone: made again).
fn clone_answer<T: Clone>(answer: &Result<T, CatalogueError>) -> Result<T, CatalogueError> {
    match answer {
        Ok(t) => Ok(t.clone()),
        Err(e) => Err(e.again()),
    }
}

/// A band's checkpoint, band 2 or rows-5 file, found when the catalogue
/// was opened, read and checked on first use ([`Catalogue::checkpoints`],
/// [`Catalogue::band2s`], [`Catalogue::rows5`]).
struct LazyFile<T> {
    path: PathBuf,
    parsed: OnceLock<Result<T, CatalogueError>>,
}

impl<T> LazyFile<T> {
    /// The file of `name` in the first of `dirs` that holds one.
    fn find(dirs: &[PathBuf], name: &str) -> Result<Option<LazyFile<T>>, CatalogueError> {
        for dir in dirs {
            let path = dir.join(name);
            match std::fs::metadata(&path) {
                Ok(_) => {
                    return Ok(Some(LazyFile {
                        path,
                        parsed: OnceLock::new(),
                    }));
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(CatalogueError::Io { path, source }),
            }
        }
        Ok(None)
    }

    /// The file read and parsed by `parse` on the first call, then kept
    /// (an error given again on every call).
    fn get(
        &self,
        parse: impl FnOnce(&[u8], &Path) -> Result<T, CatalogueError>,
    ) -> Result<&T, CatalogueError> {
        let parsed = self.parsed.get_or_init(|| {
            let bytes = std::fs::read(&self.path).map_err(|source| CatalogueError::Io {
                path: self.path.clone(),
                source,
            })?;
            parse(&bytes, &self.path)
        });
        parsed.as_ref().map_err(CatalogueError::again)
    }
}

impl CatalogueError {
    /// The same error again (an I/O error keeps its kind and message).
    fn again(&self) -> CatalogueError {
        use CatalogueError::*;
        match self {
            OutOfRange(n) => OutOfRange(*n),
            NotBuilt {
                what,
                missing,
                needed,
            } => NotBuilt {
                what: what.clone(),
                missing: *missing,
                needed: *needed,
            },
            BeyondTables {
                number,
                built,
                last,
            } => BeyondTables {
                number: *number,
                built: *built,
                last: *last,
            },
            NoTables { what } => NoTables { what: what.clone() },
            Format { path, line, reason } => Format {
                path: path.clone(),
                line: *line,
                reason: reason.clone(),
            },
            Io { path, source } => Io {
                path: path.clone(),
                source: std::io::Error::new(source.kind(), source.to_string()),
            },
            Inconsistent { band, path } => Inconsistent {
                band: *band,
                path: path.clone(),
            },
        }
    }

    /// Whether this is the error of a table or checkpoint file that cannot
    /// be read or is not what it should be (rather than of one grid or
    /// number): a run should stop on it.
    pub fn is_file_error(&self) -> bool {
        matches!(
            self,
            CatalogueError::Format { .. } | CatalogueError::Io { .. }
        )
    }
}

#[cfg(test)]
mod tests;
