//! The frame the catalogue's binary band files share (counts `NNN.cnt`,
//! checkpoints `NNN.ckp`, band 2 lists `NNN.b2s`, rows-5 lists
//! `NNN.r5s`): one text header line
//!
//! ```text
//! # s17 catalogue WHAT: first band NNN BAND, FIELD, ..., L bytes, fnv1a64 H
//! ```
//!
//! then L bytes whose FNV-1a 64 is H. [`frame`] makes a file's bytes,
//! [`unframe`] reads them back (the header's start and its last two
//! fields; [`Unframed::body`] the body's length and hash; what the file's
//! own fields say is left to its reader), [`write_band_file`] writes a file through a
//! temporary file and a rename, so a stopped build leaves no half file.

use std::path::{Path, PathBuf};

use super::CatalogueError;
use super::walk::Walker;
use crate::band::band_to_string;

/// FNV-1a, 64 bits (the hash of a band file's body).
pub(super) fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// What follows `# s17 catalogue WHAT: first band NNN BAND, ` in a band
/// file's header (the text table's too), or why it does not start so.
pub(super) fn header_rest<'a>(
    header: &'a str,
    what: &str,
    walker: &Walker,
    band: usize,
) -> Result<&'a str, String> {
    let expected = format!(
        "# s17 catalogue {what}: first band {:03} {}, ",
        band + 1,
        band_to_string(walker.catalogue().band(band))
    );
    header
        .strip_prefix(&expected)
        .ok_or_else(|| format!("the header does not start with `{}`", expected.trim_end()))
}

/// A band file's bytes: the header with `fields`, then `body`.
pub(super) fn frame(
    what: &str,
    walker: &Walker,
    band: usize,
    fields: &[String],
    body: &[u8],
) -> Vec<u8> {
    let mut bytes = format!(
        "# s17 catalogue {what}: first band {:03} {}, {}, {} bytes, fnv1a64 {:016x}\n",
        band + 1,
        band_to_string(walker.catalogue().band(band)),
        fields.join(", "),
        body.len(),
        fnv1a64(body)
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// An error of file `path` at `line` (1 the header, 2 the body).
pub(super) fn format_error(path: &Path) -> impl Fn(usize, String) -> CatalogueError + '_ {
    move |line, reason| CatalogueError::Format {
        path: path.to_path_buf(),
        line,
        reason,
    }
}

/// A band file read by [`unframe`]: its header's own fields and its body,
/// whose length and hash [`Unframed::body`] checks (after the reader's own
/// checks of the fields, which name the header's faults first).
pub(super) struct Unframed<'b, 'p> {
    pub fields: Vec<&'b str>,
    body: &'b [u8],
    length: u64,
    hash: u64,
    path: &'p Path,
}

impl<'b> Unframed<'b, '_> {
    /// Field `i`, `BEFORE N AFTER`, as a number.
    pub fn number(&self, i: usize, before: &str, after: &str) -> Result<u64, CatalogueError> {
        self.fields
            .get(i)
            .and_then(|f| f.strip_prefix(before))
            .and_then(|f| f.strip_suffix(after))
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| self.error(1, format!("the header has no `{before}N{after}`")))
    }

    /// Checks field 0, `N grids`, against `grids`, the total of the table
    /// the file is read with: a file made for another count is refused.
    pub fn check_grids(&self, grids: u64) -> Result<(), CatalogueError> {
        let total = self.number(0, "", " grids")?;
        if total != grids {
            return Err(self.error(
                1,
                format!("made for {total} grids, the band's table has {grids}"),
            ));
        }
        Ok(())
    }

    /// The bytes after the header, once they have the header's length
    /// and hash.
    pub fn body(&self) -> Result<&'b [u8], CatalogueError> {
        let body = self.body;
        if self.length != body.len() as u64 {
            return Err(self.error(
                2,
                format!(
                    "{} bytes after the header, it says {}",
                    body.len(),
                    self.length
                ),
            ));
        }
        if fnv1a64(body) != self.hash {
            return Err(self.error(2, "the bytes do not match the header's hash".into()));
        }
        Ok(body)
    }

    /// An error of the file at `line` (1 the header, 2 the body).
    pub fn error(&self, line: usize, reason: String) -> CatalogueError {
        format_error(self.path)(line, reason)
    }
}

/// The file `bytes` of band `band`, once its header names `what` and the
/// band and has `fields` fields of its own before `L bytes, fnv1a64 H`
/// (the body is checked against them by [`Unframed::body`]). Errors name
/// `path` and the line.
pub(super) fn unframe<'b, 'p>(
    bytes: &'b [u8],
    what: &str,
    walker: &Walker,
    band: usize,
    fields: usize,
    path: &'p Path,
) -> Result<Unframed<'b, 'p>, CatalogueError> {
    let bad = format_error(path);
    let end = bytes
        .iter()
        .position(|&c| c == b'\n')
        .ok_or_else(|| bad(1, "no header line".into()))?;
    let header =
        std::str::from_utf8(&bytes[..end]).map_err(|_| bad(1, "the header is not text".into()))?;
    let body = &bytes[end + 1..];
    let rest = header_rest(header, what, walker, band).map_err(|r| bad(1, r))?;
    let mut all: Vec<&str> = rest.split(", ").collect();
    let length = all
        .get(fields)
        .and_then(|f| f.strip_suffix(" bytes"))
        .and_then(|f| f.parse::<u64>().ok())
        .ok_or_else(|| bad(1, "the header has no `N bytes`".into()))?;
    let hash = all
        .get(fields + 1)
        .and_then(|f| f.strip_prefix("fnv1a64 "))
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .ok_or_else(|| bad(1, "the header has no `fnv1a64 HASH`".into()))?;
    if all.len() != fields + 2 {
        return Err(bad(1, "the header has fields after the hash".into()));
    }
    all.truncate(fields);
    Ok(Unframed {
        fields: all,
        body,
        length,
        hash,
        path,
    })
}

/// Writes `bytes` as `dir/name` through a temporary file and a rename
/// (`disk::write_atomically`; `dir` made if missing).
pub(super) fn write_band_file(
    dir: &Path,
    name: &str,
    bytes: &[u8],
) -> Result<PathBuf, CatalogueError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| CatalogueError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let path = dir.join(name);
    crate::disk::write_atomically(&path, bytes).map_err(io(&path))?;
    Ok(path)
}
