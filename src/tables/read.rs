//! The band table file read in place: [`BandTables`] over any bytes (a
//! memory map in the program), with the cheap checks of `open` and the
//! per-band check of a band's first read, and [`BandTable`], one band
//! borrowed from the file.

use std::fs::File;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use memmap2::Mmap;

use super::build::build;
use super::format::{
    BAND_LEN, BandRecord, CATALOGUE_LEN, Header, Layout, MAX_STORED_SIZE, MIN_STORED_SIZE,
    RECORD_SUMMED, STORED_SIZES, band_section_checksum, read_header,
};
use super::{BandProblem, TableError, malformed};
use crate::band::valid::{INDEX_LEN, slice_of, slices_of};
use crate::band::{Band, SetList, Slice, band_to_string, is_valid_band, valid_sets_unsorted};

/// Band tables over any bytes: a memory map in the program, a `Vec<u8>` in
/// tests. Indices are positions in the file, which in a complete file are
/// catalogue indices.
pub struct BandTables<B: AsRef<[u8]>> {
    data: B,
    header: Header,
    layout: Layout,
    /// The file, for messages ("(in memory)" for tables over bytes).
    path: PathBuf,
    /// Per band: its section was checked and is good. Set once, read on
    /// every [`BandTables::try_band`] (one relaxed load).
    checked: Box<[AtomicBool]>,
}

impl BandTables<Mmap> {
    /// Maps the file at `path` and checks its header and sizes (cheap: no
    /// parsing, no copying). A file that is not complete (every band of the band catalogue) is
    /// refused.
    pub fn open(path: impl AsRef<Path>) -> Result<BandTables<Mmap>, TableError> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|source| match source.kind() {
            io::ErrorKind::NotFound => TableError::NotFound {
                path: path.to_path_buf(),
            },
            _ => TableError::Io {
                path: path.to_path_buf(),
                source,
            },
        })?;
        // SAFETY: the map is read-only and this program never writes a
        // table file in place (it writes a temporary file and renames it),
        // so the mapped bytes do not change while the map lives unless
        // another program modifies the file, which we document as
        // unsupported.
        let map = unsafe { Mmap::map(&file) }.map_err(|source| TableError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut tables = BandTables::from_bytes(map)?;
        tables.path = path.to_path_buf();
        if tables.len() != CATALOGUE_LEN {
            return Err(TableError::Incomplete {
                expected: CATALOGUE_LEN,
                found: tables.len(),
            });
        }
        Ok(tables)
    }

    /// Opens the tables, building them first (silently: the command line
    /// builds with a progress bar of its own) when the file is missing or
    /// was written by another format version. Any other problem (wrong
    /// magic, truncated, incomplete) is refused rather than overwritten.
    pub fn open_or_build(path: impl AsRef<Path>) -> Result<BandTables<Mmap>, TableError> {
        let path = path.as_ref();
        match BandTables::open(path) {
            Err(e) if e.is_rebuilt() => {
                tracing::info!("building band tables at {}", path.display());
                build(path, &mut |_| {})?;
                BandTables::open(path)
            }
            other => other,
        }
    }
}

impl<B: AsRef<[u8]>> BandTables<B> {
    /// Tables over `data`, after the cheap header and size checks.
    pub fn from_bytes(data: B) -> Result<BandTables<B>, TableError> {
        if cfg!(target_endian = "big") {
            return Err(TableError::BigEndianHost);
        }
        let bytes = data.as_ref();
        let (header, layout) = read_header(bytes)?;
        if bytes.as_ptr().align_offset(8) != 0 {
            return Err(TableError::Misaligned);
        }
        let checked = (0..header.band_count)
            .map(|_| AtomicBool::new(false))
            .collect();
        Ok(BandTables {
            data,
            header,
            layout,
            path: PathBuf::from("(in memory)"),
            checked,
        })
    }

    pub(super) fn bytes(&self) -> &[u8] {
        self.data.as_ref()
    }

    fn words(&self, range: &Range<usize>) -> &[u32] {
        bytemuck::cast_slice(&self.bytes()[range.clone()])
    }

    fn records(&self) -> &[BandRecord] {
        bytemuck::cast_slice(&self.bytes()[self.layout.records.clone()])
    }

    /// Number of bands in the file.
    pub fn len(&self) -> usize {
        self.header.band_count as usize
    }

    /// True for a file with no bands.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file the tables were opened from ("(in memory)" for bytes).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// File length in bytes.
    pub fn file_len(&self) -> usize {
        self.layout.file_len
    }

    /// The checksum stored in the header.
    pub fn stored_checksum(&self) -> u64 {
        self.header.checksum
    }

    /// Total number of minimal UAs stored.
    pub fn total_uas(&self) -> usize {
        self.header.uas_len as usize
    }

    /// Total number of sets stored, all bands and sizes.
    pub fn total_sets(&self) -> usize {
        self.header.sets_len as usize
    }

    /// Band `position` (its catalogue index in a complete file); the first
    /// call for a band checks its section (see [`BandTables::try_band`]).
    ///
    /// # Panics
    /// If the position is out of range or the band's section is corrupt
    /// (the message names the file and band and says how to rebuild).
    pub fn band(&self, position: usize) -> BandTable<'_> {
        self.try_band(position).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Band `position`, or why its section is corrupt. The first call for a
    /// band in this process checks its record, slice indices and section
    /// checksum (a fraction of a millisecond: the bytes are read once); later
    /// calls only look the band up.
    pub fn try_band(&self, position: usize) -> Result<BandTable<'_>, TableError> {
        if position >= self.len() {
            return Err(malformed(format!(
                "band {position} asked of a file with {} bands",
                self.len()
            )));
        }
        if self.checked[position].load(Ordering::Relaxed) {
            return Ok(self.band_unchecked(position));
        }
        let (stored, computed) = self.section_checksums(position)?;
        if stored != computed {
            return Err(TableError::Band {
                path: self.path.clone(),
                band: position,
                problem: BandProblem::Checksum { stored, computed },
            });
        }
        self.checked[position].store(true, Ordering::Relaxed);
        Ok(self.band_unchecked(position))
    }

    /// The checksum band `position`'s record stores and the one its section
    /// has now (computed every call), after the cheap checks of its record.
    /// [`Self::try_band`] compares them the first time it reads the band.
    pub fn section_checksums(&self, position: usize) -> Result<(u64, u64), TableError> {
        self.check_record(position)
            .map_err(|problem| TableError::Band {
                path: self.path.clone(),
                band: position,
                problem,
            })?;
        let record = &self.records()[position];
        let table = self.band_unchecked(position);
        let band_bytes = &self.bytes()[self.layout.bands.start + BAND_LEN * position..][..BAND_LEN];
        // On this (little-endian) host, the words are the file's bytes.
        let mut parts: Vec<&[u8]> = vec![
            band_bytes,
            &bytemuck::bytes_of(record)[..RECORD_SUMMED],
            bytemuck::cast_slice(table.uas),
            bytemuck::cast_slice(table.index),
        ];
        parts.extend(
            (MIN_STORED_SIZE..=MAX_STORED_SIZE).map(|k| bytemuck::cast_slice(table.sets(k))),
        );
        Ok((record.checksum, band_section_checksum(&parts)))
    }

    /// The cheap checks of band `position`'s record: a valid band, ranges
    /// in bounds, list sizes against the minimum, monotone slice indices.
    fn check_record(&self, position: usize) -> Result<(), BandProblem> {
        let record = &self.records()[position];
        let band_bytes = &self.bytes()[self.layout.bands.start + BAND_LEN * position..][..BAND_LEN];
        let band: &Band = band_bytes[..27].try_into().expect("27 bytes");
        if !is_valid_band(band) || band_bytes[27] != 0 {
            return Err(BandProblem::NotABand);
        }
        if record.catalogue_index as usize >= CATALOGUE_LEN {
            return Err(BandProblem::CatalogueIndex(record.catalogue_index));
        }
        let min_size = record.min_size as usize;
        if !(MIN_STORED_SIZE..=27).contains(&min_size) {
            return Err(BandProblem::MinimumSize(min_size));
        }
        let uas_len = self.header.uas_len;
        if record.ua_start as u64 + record.ua_len as u64 > uas_len || record.ua_len == 0 {
            return Err(BandProblem::UaRange);
        }
        let index = self.index_of(position);
        for (k, &[start, len]) in record.lists.iter().enumerate() {
            let size = k + MIN_STORED_SIZE;
            if start as u64 + len as u64 > self.header.sets_len {
                return Err(BandProblem::SetsOutOfBounds { size });
            }
            if (len == 0) != (size < min_size) {
                return Err(BandProblem::SetCount {
                    size,
                    len,
                    min_size,
                });
            }
            let list_index = &index[k * INDEX_LEN..][..INDEX_LEN];
            let monotone = list_index.windows(2).all(|w| w[0] <= w[1]);
            if list_index[0] != 0 || list_index[INDEX_LEN - 1] != len || !monotone {
                return Err(BandProblem::SliceIndex { size });
            }
        }
        Ok(())
    }

    /// Band `position`'s 5 slice indices.
    fn index_of(&self, position: usize) -> &[u32] {
        let index_all = self.words(&self.layout.index);
        &index_all[STORED_SIZES * INDEX_LEN * position..][..STORED_SIZES * INDEX_LEN]
    }

    /// Band `position` without checks (its record must be in bounds).
    fn band_unchecked(&self, position: usize) -> BandTable<'_> {
        let record = &self.records()[position];
        let band_bytes = &self.bytes()[self.layout.bands.start + BAND_LEN * position..][..BAND_LEN];
        let uas = self.words(&self.layout.uas);
        let ua_start = record.ua_start as usize;
        BandTable {
            position,
            band: band_bytes[..27].try_into().expect("27 bytes"),
            record,
            uas: &uas[ua_start..ua_start + record.ua_len as usize],
            index: self.index_of(position),
            sets: self.words(&self.layout.sets),
        }
    }

    /// The bands, in file order.
    pub fn iter(&self) -> impl Iterator<Item = BandTable<'_>> {
        (0..self.len()).map(|i| self.band(i))
    }
}

/// One band of the tables, borrowed from the file.
#[derive(Clone, Copy, Debug)]
pub struct BandTable<'a> {
    position: usize,
    band: &'a Band,
    record: &'a BandRecord,
    uas: &'a [u32],
    /// The band's 5 slice indices.
    index: &'a [u32],
    /// The whole sets section.
    sets: &'a [u32],
}

impl<'a> BandTable<'a> {
    /// Position in the file.
    pub fn position(&self) -> usize {
        self.position
    }

    /// Index in the band catalogue.
    pub fn catalogue_index(&self) -> usize {
        self.record.catalogue_index as usize
    }

    /// The band of the band catalogue (minlex form).
    pub fn band(&self) -> &'a Band {
        self.band
    }

    /// The size of the smallest valid clue set.
    pub fn min_size(&self) -> usize {
        self.record.min_size as usize
    }

    /// The band's minimal UAs in catalogue coordinates, by size then value.
    pub fn uas(&self) -> &'a [u32] {
        self.uas
    }

    /// All valid sets of `size` cells, in slice order; empty below the
    /// minimum size.
    ///
    /// # Panics
    /// For sizes above 6, which are not stored: use [`BandTable::set_list`].
    pub fn sets(&self, size: usize) -> &'a [u32] {
        if size < MIN_STORED_SIZE {
            return &[];
        }
        assert!(
            size <= MAX_STORED_SIZE,
            "sets of size {size} are not stored; use set_list"
        );
        let [start, len] = self.record.lists[size - MIN_STORED_SIZE];
        &self.sets[start as usize..(start + len) as usize]
    }

    /// The slice index of the stored size `size` (2..=6).
    pub fn slice_index(&self, size: usize) -> &'a [u32] {
        assert!(
            (MIN_STORED_SIZE..=MAX_STORED_SIZE).contains(&size),
            "size {size} is not stored"
        );
        &self.index[(size - MIN_STORED_SIZE) * INDEX_LEN..][..INDEX_LEN]
    }

    /// The sets of `size` cells (2..=6) whose two lowest cells are
    /// `first` < `second`.
    pub fn slice(&self, size: usize, first: usize, second: usize) -> &'a [u32] {
        slice_of(self.sets(size), self.slice_index(size), first, second)
    }

    /// The non-empty slices of size `size` (2..=6), in (first, second) order.
    pub fn slices(&self, size: usize) -> impl Iterator<Item = Slice<'a>> + 'a {
        slices_of(self.sets(size), self.slice_index(size))
    }

    /// The sets of any size ≥ 2 as a [`SetList`]: borrowed from the file for
    /// sizes 2..=6, generated (owned) for larger sizes.
    pub fn set_list(&self, size: usize) -> SetList<'a> {
        if (MIN_STORED_SIZE..=MAX_STORED_SIZE).contains(&size) {
            SetList::borrowed(size, self.sets(size), self.slice_index(size))
        } else {
            SetList::from_sets(size, valid_sets_unsorted(self.uas, size))
        }
    }
}

/// The `stats --counts` line of a band: `BAND27 MIN N5 N6`.
pub fn counts_line(table: &BandTable<'_>) -> String {
    format!(
        "{} {} {} {}",
        band_to_string(table.band()),
        table.min_size(),
        table.sets(5).len(),
        table.sets(6).len()
    )
}
