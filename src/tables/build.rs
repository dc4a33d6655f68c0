//! Building the band table file: each band's data computed (in parallel),
//! encoded in the format of [`super::format`] with its checksums, and
//! written atomically.

use std::fs;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::TableError;
use super::format::{
    BAND_LEN, BandRecord, Checksum, ChecksumWriter, HEADER_LEN, Header, Layout, MAX_STORED_SIZE,
    MIN_STORED_SIZE, RECORD_SUMMED, STORED_SIZES, band_section_checksum, le_bytes,
};
use crate::band::{Band, BandCatalogue, SetList, band_uas, minimum_size, valid_sets_unsorted};
use crate::disk::write_atomically_with;

/// Everything the file stores for one band, computed in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BandData {
    pub catalogue_index: usize,
    pub band: Band,
    pub min_size: usize,
    pub uas: Vec<u32>,
    /// Lists of sizes 2..=6.
    pub lists: Vec<SetList<'static>>,
}

impl BandData {
    /// Computes the UAs and valid sets of catalogue band `catalogue_index`.
    pub fn compute(catalogue_index: usize, band: &Band) -> BandData {
        let uas = band_uas(band);
        let min_size = minimum_size(&uas);
        assert!(min_size >= MIN_STORED_SIZE, "a band needs at least 2 clues");
        let lists = (MIN_STORED_SIZE..=MAX_STORED_SIZE)
            .map(|size| SetList::from_sets(size, valid_sets_unsorted(&uas, size)))
            .collect();
        BandData {
            catalogue_index,
            band: *band,
            min_size,
            uas,
            lists,
        }
    }
}

/// How far a build is, reported after each band computed: `done` of
/// `total` bands. The reports of one build come in order, one at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildProgress {
    pub done: usize,
    pub total: usize,
}

/// Computes the data of the given bands of the band catalogue in parallel (rayon),
/// reporting to `progress` after each band.
pub fn compute_tables(
    catalogue: &BandCatalogue,
    indices: &[usize],
    progress: &mut (dyn FnMut(BuildProgress) + Send),
) -> Vec<BandData> {
    let total = indices.len();
    // The count and the callback under one lock: reports come in order.
    let reporter = Mutex::new((0, progress));
    indices
        .par_iter()
        .with_max_len(1)
        .map(|&i| {
            let d = BandData::compute(i, catalogue.band(i));
            let mut guard = reporter.lock().expect("no panic while reporting");
            let (done, progress) = &mut *guard;
            *done += 1;
            progress(BuildProgress { done: *done, total });
            d
        })
        .collect()
}

/// Writes tables for `data` (in that order) to `out`, checksumming the
/// payload as it is written, then seeking back to write the header.
pub fn encode<W: Write + Seek>(data: &[BandData], out: W) -> io::Result<()> {
    let uas_len: usize = data.iter().map(|d| d.uas.len()).sum();
    let sets_len: usize = data.iter().flat_map(|d| &d.lists).map(|l| l.len()).sum();
    if sets_len > u32::MAX as usize || uas_len > u32::MAX as usize {
        return Err(io::Error::other("too many sets for the table format"));
    }
    let layout = Layout::new(data.len() as u64, uas_len as u64, sets_len as u64)
        .ok_or_else(|| io::Error::other("table layout overflows"))?;
    let mut out = BufWriter::with_capacity(1 << 20, out);
    out.write_all(&[0u8; HEADER_LEN])?;
    let mut w = ChecksumWriter {
        inner: &mut out,
        sum: Checksum::new(),
    };
    let mut at = HEADER_LEN;
    pad_to(&mut w, &mut at, layout.bands.start)?;
    for d in data {
        w.write_all(&d.band)?;
        w.write_all(&[0])?;
    }
    at = layout.bands.end;
    pad_to(&mut w, &mut at, layout.records.start)?;
    let (mut ua_start, mut set_start) = (0u32, 0u32);
    for d in data {
        let mut record = BandRecord {
            catalogue_index: d.catalogue_index as u32,
            min_size: d.min_size as u32,
            ua_start,
            ua_len: d.uas.len() as u32,
            lists: [[0; 2]; STORED_SIZES],
            checksum: 0,
        };
        ua_start += d.uas.len() as u32;
        for (slot, list) in record.lists.iter_mut().zip(&d.lists) {
            *slot = [set_start, list.len() as u32];
            set_start += list.len() as u32;
        }
        let mut words = vec![
            record.catalogue_index,
            record.min_size,
            record.ua_start,
            record.ua_len,
        ];
        words.extend(record.lists.iter().flatten());
        let record_bytes = le_bytes(&words);
        debug_assert_eq!(record_bytes.len(), RECORD_SUMMED);
        let mut band = [0u8; BAND_LEN];
        band[..27].copy_from_slice(&d.band);
        let index: Vec<u32> = d
            .lists
            .iter()
            .flat_map(|l| l.slice_index())
            .copied()
            .collect();
        let (uas, index) = (le_bytes(&d.uas), le_bytes(&index));
        let lists: Vec<Vec<u8>> = d.lists.iter().map(|l| le_bytes(l.sets())).collect();
        let mut parts: Vec<&[u8]> = vec![&band, &record_bytes, &uas, &index];
        parts.extend(lists.iter().map(Vec::as_slice));
        record.checksum = band_section_checksum(&parts);
        w.write_all(&record_bytes)?;
        w.write_all(&record.checksum.to_le_bytes())?;
    }
    at = layout.records.end;
    pad_to(&mut w, &mut at, layout.uas.start)?;
    for d in data {
        write_words(&mut w, &d.uas)?;
    }
    at = layout.uas.end;
    pad_to(&mut w, &mut at, layout.index.start)?;
    for list in data.iter().flat_map(|d| &d.lists) {
        write_words(&mut w, list.slice_index())?;
    }
    at = layout.index.end;
    pad_to(&mut w, &mut at, layout.sets.start)?;
    for list in data.iter().flat_map(|d| &d.lists) {
        write_words(&mut w, list.sets())?;
    }
    at = layout.sets.end;
    pad_to(&mut w, &mut at, layout.file_len)?;
    let header = Header {
        band_count: data.len() as u64,
        uas_len: uas_len as u64,
        sets_len: sets_len as u64,
        file_len: layout.file_len as u64,
        checksum: w.sum.finish(),
    };
    out.seek(SeekFrom::Start(0))?;
    out.write_all(&layout.encode_header(&header))?;
    out.flush()
}

/// The encoded tables for `data` as bytes.
pub fn encode_to_vec(data: &[BandData]) -> Vec<u8> {
    let mut cursor = io::Cursor::new(Vec::new());
    encode(data, &mut cursor).expect("writing to memory cannot fail");
    cursor.into_inner()
}

/// Writes the zero bytes from `*at` up to section start `start`.
fn pad_to<W: Write>(w: &mut W, at: &mut usize, start: usize) -> io::Result<()> {
    debug_assert!(*at <= start && start - *at < 8);
    w.write_all(&[0u8; 8][..start - *at])?;
    *at = start;
    Ok(())
}

fn write_words<W: Write>(w: &mut W, words: &[u32]) -> io::Result<()> {
    let mut buffer = Vec::with_capacity(4 * words.len().min(1 << 14));
    for chunk in words.chunks(1 << 14) {
        buffer.clear();
        buffer.extend(chunk.iter().flat_map(|x| x.to_le_bytes()));
        w.write_all(&buffer)?;
    }
    Ok(())
}

/// Writes tables to `path` atomically
/// ([`crate::disk::write_atomically_with`]), creating its directory if
/// needed.
pub fn write_file(path: impl AsRef<Path>, data: &[BandData]) -> Result<(), TableError> {
    let path = path.as_ref();
    let io_error = |source| TableError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(io_error)?;
    }
    write_atomically_with(path, |file| encode(data, file)).map_err(io_error)
}

/// What [`build`] did.
#[derive(Clone, Debug)]
pub struct BuildSummary {
    pub bands: usize,
    pub file_len: u64,
    pub elapsed: Duration,
}

/// Builds the complete tables (every band of the band catalogue) and
/// writes them to `path`, reporting to `progress` after each band.
pub fn build(
    path: impl AsRef<Path>,
    progress: &mut (dyn FnMut(BuildProgress) + Send),
) -> Result<BuildSummary, TableError> {
    let path = path.as_ref();
    let start = Instant::now();
    let catalogue = BandCatalogue::new();
    let indices: Vec<usize> = (0..catalogue.len()).collect();
    let data = compute_tables(&catalogue, &indices, progress);
    write_file(path, &data)?;
    let file_len = fs::metadata(path)
        .map_err(|source| TableError::Io {
            path: path.to_path_buf(),
            source,
        })?
        .len();
    tracing::info!(
        "band tables: {} bands, {} bytes, {:.1} s",
        data.len(),
        file_len,
        start.elapsed().as_secs_f64()
    );
    Ok(BuildSummary {
        bands: data.len(),
        file_len,
        elapsed: start.elapsed(),
    })
}
