//! The per-line checks of a campaign's files: splitting `ENTRY<TAB>REST`
//! lines, checking an output line's puzzle and a checkpoint line, and
//! collecting the bad lines of a file as [`Problem`]s (the problems
//! `status` reports are defined here, below every reader of them). Streaming helpers
//! read a file line by line; a last line without its newline is skipped.

use std::fmt;
use std::fs;
use std::io::{self, BufRead, BufReader};
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::{CampaignError, io_error};
use crate::grid::{CELLS, Puzzle};

/// Bad lines named per unit file; the rest are counted.
pub const NAMED_LINES: usize = 20;

/// Something in a campaign's files that must not be there.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// An entry with two or more checkpoint lines in its unit.
    Twice { unit: usize, entry: u64 },
    /// A checkpointed entry outside its unit's range.
    Outside {
        unit: usize,
        entry: u64,
        entries: Range<u64>,
    },
    /// A unit's checkpoint names another slice or range.
    OtherWork {
        unit: usize,
        found: String,
        expected: String,
    },
    /// A checkpoint file of no unit of the plan.
    Stray { path: PathBuf },
    /// A unit's checkpoint was written searching for another goal.
    OtherGoal {
        unit: usize,
        found: String,
        expected: String,
    },
    /// A bad line in a unit's output or checkpoint (line from 1).
    BadLine {
        unit: usize,
        path: PathBuf,
        line: u64,
        why: String,
    },
    /// More bad lines in a file than are named.
    MoreBadLines {
        unit: usize,
        path: PathBuf,
        count: u64,
    },
}

impl Problem {
    /// A damaged or foreign line: a merge refuses the campaign even with
    /// `--partial`.
    pub fn is_fault(&self) -> bool {
        matches!(self, Problem::BadLine { .. } | Problem::MoreBadLines { .. })
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Twice { unit, entry } => {
                write!(f, "unit {unit}: entry {entry} is checkpointed twice")
            }
            Problem::Outside {
                unit,
                entry,
                entries,
            } => write!(
                f,
                "unit {unit}: entry {entry} is checkpointed outside the unit's entries {}..{}",
                entries.start, entries.end
            ),
            Problem::OtherWork {
                unit,
                found,
                expected,
            } => write!(
                f,
                "unit {unit}: its checkpoint is for other work ({found:?}; the unit is {expected:?})"
            ),
            Problem::OtherGoal {
                unit,
                found,
                expected,
            } => write!(
                f,
                "unit {unit}: its checkpoint was written searching for {found}, but this campaign searches for {expected}"
            ),
            Problem::Stray { path } => {
                write!(f, "{}: a checkpoint of no unit of the plan", path.display())
            }
            Problem::BadLine {
                unit,
                path,
                line,
                why,
            } => write!(f, "unit {unit}: {} line {line}: {why}", path.display()),
            Problem::MoreBadLines { unit, path, count } => {
                write!(f, "unit {unit}: {}: {count} more bad lines", path.display())
            }
        }
    }
}

/// The part of an exhaust checkpoint header after its fingerprint.
pub(super) fn work_of(header: &str) -> &str {
    header.find(" band=").map_or(header, |i| &header[i + 1..])
}

/// `ENTRY<TAB>REST` with a decimal entry of at most 18 digits (the
/// checkpoint's rule, [`crate::output::reconcile`]).
pub(super) fn split_entry(line: &[u8]) -> Option<(u64, &[u8])> {
    let tab = line.iter().position(|&b| b == b'\t')?;
    let (digits, rest) = (&line[..tab], &line[tab + 1..]);
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some((std::str::from_utf8(digits).ok()?.parse().ok()?, rest))
}

/// A checkpoint line `ENTRY<TAB>COUNT`.
pub(super) fn parse_checkpoint_line(line: &[u8]) -> Option<(u64, u64)> {
    let (entry, count) = split_entry(line)?;
    if count.is_empty() || count.len() > 6 || !count.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some((entry, std::str::from_utf8(count).ok()?.parse().ok()?))
}

/// Complete lines `ENTRY<TAB>COUNT` of a checkpoint after its header.
#[cfg(test)]
fn checkpoint_entries(bytes: &[u8]) -> Vec<u64> {
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    lines.pop(); // the part after the last newline: empty or partial
    lines
        .iter()
        .skip(1)
        .filter_map(|line| parse_checkpoint_line(line).map(|(e, _)| e))
        .collect()
}

/// Opens `path` for reading, `None` when it does not exist.
pub(super) fn open_or_none(path: &Path) -> Result<Option<BufReader<fs::File>>, CampaignError> {
    match fs::File::open(path) {
        Ok(file) => Ok(Some(BufReader::with_capacity(1 << 16, file))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(path)(e)),
    }
}

/// Calls `f` with each complete line (without its newline) of `reader`
/// and its number (from 1); a last line without a newline is skipped.
pub(super) fn for_each_line(
    reader: &mut impl BufRead,
    path: &Path,
    mut f: impl FnMut(u64, &[u8]),
) -> Result<(), CampaignError> {
    let mut buf = Vec::with_capacity(128);
    let mut number = 0u64;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(io_error(path))?;
        if n == 0 || buf.last() != Some(&b'\n') {
            return Ok(());
        }
        number += 1;
        buf.pop();
        f(number, &buf);
    }
}

/// An output line's puzzle, checked: 81 cells, a well-formed puzzle of
/// `clues` clues.
pub(super) fn check_puzzle(rest: &[u8], clues: usize) -> Result<Puzzle, String> {
    if rest.len() != CELLS {
        return Err(format!(
            "{} characters after the entry, not a puzzle of 81 (a cut or foreign line)",
            rest.len()
        ));
    }
    let p = Puzzle::parse_bytes(rest).map_err(|e| format!("not a puzzle: {e}"))?;
    if p.clue_count() != clues {
        return Err(format!(
            "a puzzle of {} clues; the campaign searches for {clues}",
            p.clue_count()
        ));
    }
    Ok(p)
}

/// Bad lines of one file: the first [`NAMED_LINES`] named, the rest counted.
pub(super) struct BadLines<'a> {
    unit: usize,
    path: &'a Path,
    named: Vec<Problem>,
    more: u64,
}

impl<'a> BadLines<'a> {
    pub(super) fn new(unit: usize, path: &'a Path) -> Self {
        BadLines {
            unit,
            path,
            named: Vec::new(),
            more: 0,
        }
    }

    pub(super) fn push(&mut self, line: u64, why: String) {
        if self.named.len() < NAMED_LINES {
            self.named.push(Problem::BadLine {
                unit: self.unit,
                path: self.path.to_path_buf(),
                line,
                why,
            });
        } else {
            self.more += 1;
        }
    }

    pub(super) fn into_problems(self, problems: &mut Vec<Problem>) {
        problems.extend(self.named);
        if self.more > 0 {
            problems.push(Problem::MoreBadLines {
                unit: self.unit,
                path: self.path.to_path_buf(),
                count: self.more,
            });
        }
    }
}

pub(super) fn read_or_empty(path: &Path) -> Result<Option<Vec<u8>>, CampaignError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(path)(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_lines_are_checked_for_shape_and_clue_count() {
        let p17 =
            "........1.......23..4..5.........6...1.37....8..2........1........83....5.6...4..";
        assert!(check_puzzle(p17.as_bytes(), 17).is_ok());
        assert!(
            check_puzzle(p17.as_bytes(), 18)
                .unwrap_err()
                .contains("17 clues")
        );
        assert!(
            check_puzzle(&p17.as_bytes()[..40], 17)
                .unwrap_err()
                .contains("40 characters")
        );
        let mut twice = p17.as_bytes().to_vec();
        twice[0] = b'1'; // a second 1 in row 1
        assert!(
            check_puzzle(&twice, 18)
                .unwrap_err()
                .starts_with("not a puzzle")
        );
        let mut bad = p17.as_bytes().to_vec();
        bad[3] = 0xff;
        assert!(check_puzzle(&bad, 17).is_err());
        assert_eq!(split_entry(b"12\tx"), Some((12, &b"x"[..])));
        assert_eq!(split_entry(b"1a\tx"), None);
        assert_eq!(parse_checkpoint_line(b"7\t3"), Some((7, 3)));
        assert_eq!(parse_checkpoint_line(b"7\t"), None);
    }

    #[test]
    fn raw_checkpoint_lines_and_the_work_they_name() {
        let bytes = b"# s17 exhaust checkpoint v1 input=00 band=3 entries=0..5\n0\t0\n4\t1\n4\t1\nx\t1\n2\t";
        assert_eq!(checkpoint_entries(bytes), vec![0, 4, 4]);
        assert_eq!(
            work_of("# s17 exhaust checkpoint v1 input=0123 band=3 entries=0..5"),
            "band=3 entries=0..5"
        );
    }
}
