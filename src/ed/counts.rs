//! The counts file of the ED catalogue: per slice, its entries, its ED
//! grids and their split by automorphism count, one line each,
//!
//! ```text
//! # K<TAB>ENTRIES<TAB>GRIDS<TAB>AUTOMORPHISMS (s17 enumerate --count)
//! K<TAB>ENTRIES<TAB>GRIDS<TAB>1:N,2:N,…
//! ```
//!
//! as `s17 enumerate --all` writes it (appended slice by slice, resumable,
//! sorted at the end) and as committed in `data/ed-counts.tsv` (the whole
//! count, [`committed`]). Read and written here only.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::num::ParseIntError;
use std::path::{Path, PathBuf};

use super::SliceCount;
use crate::band::BANDS;
use crate::output::write_atomically;

/// The header line of a counts file (without newline).
pub const HEADER: &str = "# K\tENTRIES\tGRIDS\tAUTOMORPHISMS (s17 enumerate --count)";

/// The committed whole count (`s17 enumerate --all`).
const COMMITTED: &str = include_str!("../../data/ed-counts.tsv");

/// Why a counts file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CountsError {
    #[error("cannot {action} {}", path.display())]
    Io {
        /// What failed: "read", "repair", "create", "append to", "write",
        /// "rewrite".
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: line {line}: {text:?}: {reason}", path.display())]
    BadLine {
        path: PathBuf,
        line: usize,
        text: String,
        reason: LineProblem,
    },
    #[error("{}: line {line}: slice {slice} twice", path.display())]
    Twice {
        path: PathBuf,
        line: usize,
        slice: usize,
    },
}

fn io_error<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(io::Error) -> CountsError + 'a {
    move |source| CountsError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// The line (without newline) of slice `k`.
pub fn line(k: usize, count: &SliceCount) -> String {
    format!(
        "{k}\t{}\t{}\t{}",
        count.entries,
        count.grids,
        count.split_text()
    )
}

/// The slices of a counts file's text; `path` names it in errors. Comment
/// and blank lines are skipped; a slice given twice is an error.
pub fn parse(text: &str, path: &Path) -> Result<BTreeMap<usize, SliceCount>, CountsError> {
    let mut counts = BTreeMap::new();
    for (number, text) in text.lines().enumerate() {
        if text.starts_with('#') || text.trim().is_empty() {
            continue;
        }
        let (k, count) = parse_line(text).map_err(|reason| CountsError::BadLine {
            path: path.to_path_buf(),
            line: number + 1,
            text: text.to_string(),
            reason,
        })?;
        if counts.insert(k, count).is_some() {
            return Err(CountsError::Twice {
                path: path.to_path_buf(),
                line: number + 1,
                slice: k,
            });
        }
    }
    Ok(counts)
}

/// What is wrong with one line of a counts file ([`CountsError::BadLine`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineProblem {
    #[error("expected K, ENTRIES, GRIDS and AUTOMORPHISMS separated by tabs")]
    Fields,
    #[error("bad slice: {0}")]
    Slice(ParseIntError),
    #[error("slice {0} out of 0..{BANDS}")]
    SliceRange(usize),
    #[error("bad entry count: {0}")]
    Entries(ParseIntError),
    #[error("bad grid count: {0}")]
    Grids(ParseIntError),
    #[error("bad automorphism split")]
    Split,
    #[error("{0}")]
    SplitNumber(ParseIntError),
    #[error("the automorphism split sums to {sum}, not {grids}")]
    SplitSum { sum: u64, grids: u64 },
}

/// One line: the slice and its count, or what is wrong with it.
fn parse_line(line: &str) -> Result<(usize, SliceCount), LineProblem> {
    let fields: Vec<&str> = line.split('\t').collect();
    if fields.len() != 4 {
        return Err(LineProblem::Fields);
    }
    let k: usize = fields[0].parse().map_err(LineProblem::Slice)?;
    if k >= BANDS {
        return Err(LineProblem::SliceRange(k));
    }
    let mut count = SliceCount {
        entries: fields[1].parse().map_err(LineProblem::Entries)?,
        ..SliceCount::default()
    };
    let grids: u64 = fields[2].parse().map_err(LineProblem::Grids)?;
    for part in fields[3].split(',').filter(|p| !p.is_empty()) {
        let (a, n) = part.split_once(':').ok_or(LineProblem::Split)?;
        let a: u32 = a.parse().map_err(LineProblem::SplitNumber)?;
        let n: u64 = n.parse().map_err(LineProblem::SplitNumber)?;
        count.by_automorphisms.push((a, n));
        count.grids += n;
    }
    if count.grids != grids {
        return Err(LineProblem::SplitSum {
            sum: count.grids,
            grids,
        });
    }
    Ok((k, count))
}

/// The slices already in the counts file at `path`. A last line cut short
/// by a kill is dropped from the file (it is truncated); any other bad line
/// is an error naming it.
pub fn read(path: &Path) -> Result<BTreeMap<usize, SliceCount>, CountsError> {
    let mut text = std::fs::read_to_string(path).map_err(io_error("read", path))?;
    if !text.is_empty() && !text.ends_with('\n') {
        let keep = text.rfind('\n').map_or(0, |i| i + 1);
        OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(keep as u64))
            .map_err(io_error("repair", path))?;
        text.truncate(keep);
    }
    parse(&text, path)
}

/// Rewrites the counts file at `path` with `counts`, in slice order, with
/// [`write_atomically`].
pub fn write(path: &Path, counts: &BTreeMap<usize, SliceCount>) -> Result<(), CountsError> {
    let mut text = format!("{HEADER}\n");
    for (&k, count) in counts {
        text.push_str(&line(k, count));
        text.push('\n');
    }
    write_atomically(path, text.as_bytes()).map_err(io_error("rewrite", path))
}

/// A counts file open for appending, one slice at a time.
pub struct Appender {
    file: File,
    path: PathBuf,
}

impl Appender {
    /// A new counts file at `path` (replacing any), holding the header.
    pub fn create(path: &Path) -> Result<Appender, CountsError> {
        let mut file = File::create(path).map_err(io_error("create", path))?;
        writeln!(file, "{HEADER}").map_err(io_error("write", path))?;
        Ok(Appender {
            file,
            path: path.to_path_buf(),
        })
    }

    /// The counts file at `path`, to go on with.
    pub fn append_to(path: &Path) -> Result<Appender, CountsError> {
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(io_error("append to", path))?;
        Ok(Appender {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Appends slice `k`'s line and forces it to disk.
    pub fn push(&mut self, k: usize, count: &SliceCount) -> Result<(), CountsError> {
        writeln!(self.file, "{}", line(k, count))
            .and_then(|()| self.file.flush())
            .and_then(|()| self.file.sync_data())
            .map_err(io_error("write", &self.path))
    }
}

/// The committed whole count, `data/ed-counts.tsv`: slice K's count at
/// index K, for every slice.
pub fn committed() -> Vec<SliceCount> {
    let counts = parse(COMMITTED, Path::new("data/ed-counts.tsv"))
        .unwrap_or_else(|e| panic!("the committed counts: {e}"));
    assert!(
        counts.keys().copied().eq(0..BANDS),
        "data/ed-counts.tsv holds every slice once"
    );
    counts.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_bad_ones_are_named() {
        let committed = committed();
        assert_eq!(committed.len(), BANDS);
        let text: String = committed
            .iter()
            .enumerate()
            .map(|(k, c)| line(k, c) + "\n")
            .collect();
        assert_eq!(
            format!("{HEADER}\n{text}"),
            COMMITTED,
            "the committed file is in the written form"
        );
        let path = Path::new("counts.tsv");
        let err = parse("# c\n3\t1\t2\t1:1\n", path).unwrap_err();
        assert_eq!(
            err.to_string(),
            "counts.tsv: line 2: \"3\\t1\\t2\\t1:1\": the automorphism split sums to 1, not 2"
        );
        let err = parse("3\t1\t1\t1:1\n3\t1\t1\t1:1\n", path).unwrap_err();
        assert_eq!(err.to_string(), "counts.tsv: line 2: slice 3 twice");
        let err = parse("416\t1\t1\t1:1\n", path).unwrap_err();
        assert!(
            err.to_string().ends_with("slice 416 out of 0..416"),
            "{err}"
        );
    }
}
