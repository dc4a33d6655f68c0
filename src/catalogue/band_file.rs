//! What the three kinds of per-band file beside a count table share
//! (checkpoints `NNN.ckp`, band 2 lists `NNN.b2s`, rows-5 lists
//! `NNN.r5s`): a name from the band, bytes made against the band's table,
//! written through a temporary file and a rename, and read back checked
//! against the table.

use std::path::{Path, PathBuf};

use super::CatalogueError;
use super::frame::write_band_file;
use super::table::BandTable;
use super::walk::Walker;

/// A file of one first band, made and checked against its count table.
pub trait BandFile: Sized {
    /// The file name's extension: `NNN.EXTENSION`.
    const EXTENSION: &'static str;

    /// The file's bytes (header line and body).
    fn to_bytes(&self, walker: &Walker, table: &BandTable) -> Vec<u8>;

    /// Reads a file of the band of `table`, every check passed, or the
    /// first that fails with `path`, the line and why.
    fn parse(
        bytes: &[u8],
        table: &BandTable,
        walker: &Walker,
        path: &Path,
    ) -> Result<Self, CatalogueError>;

    /// The file name of band `band` (0-based): `001.ckp` for the first
    /// checkpoints.
    fn file_name(band: usize) -> String {
        format!("{:03}.{}", band + 1, Self::EXTENSION)
    }

    /// Writes the file of `table`'s band into `dir` (through a temporary
    /// file and a rename).
    fn write(
        &self,
        walker: &Walker,
        table: &BandTable,
        dir: &Path,
    ) -> Result<PathBuf, CatalogueError> {
        write_band_file(
            dir,
            &Self::file_name(table.band),
            &self.to_bytes(walker, table),
        )
    }
}
