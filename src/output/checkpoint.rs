//! The checkpoint of a run's result files: its header line and path, the
//! [`Fingerprint`] that names the run's input in the header, and
//! [`reconcile`], which works out from interrupted files what is finished
//! and what the repaired files hold (the design is in the note of
//! [`crate::output`]).

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::grid::Puzzle;

/// 64-bit FNV-1a.
#[derive(Clone, Copy, Debug)]
pub struct Fingerprint(u64);

impl Fingerprint {
    pub fn new() -> Fingerprint {
        Fingerprint(0xcbf2_9ce4_8422_2325)
    }

    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }

    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fingerprint {
    fn default() -> Self {
        Fingerprint::new()
    }
}

/// The checkpoint header line (without newline) of a run: `kind` names
/// the command, `detail` the part of the input (see the callers).
pub fn checkpoint_header(kind: &str, fingerprint: u64, detail: &str) -> String {
    format!("# s17 {kind} checkpoint v1 input={fingerprint:016x} {detail}")
}

/// The checkpoint file of an output file: `FILE.done`.
pub fn checkpoint_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".done");
    PathBuf::from(name)
}

// ---------------------------------------------------------------------------
// Reconciling interrupted files

/// What a resume found and repaired.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Repair {
    /// Grids finished before the interruption (kept).
    pub kept_grids: usize,
    /// Output lines kept (the 17s of the kept grids).
    pub kept_lines: usize,
    /// Complete output lines dropped (17s of unfinished grids, or malformed).
    pub dropped_lines: usize,
    /// Checkpoint entries dropped (malformed, duplicated, or whose output
    /// lines were not all there).
    pub dropped_entries: usize,
    /// The output ended in a partial line (dropped).
    pub partial_output: bool,
    /// The checkpoint ended in a partial line (dropped).
    pub partial_checkpoint: bool,
}

/// The state to resume from: the repaired file contents and what is done.
#[derive(Clone, Debug, Default)]
pub struct Reconciled {
    /// The finished grids (their indices).
    pub done: BTreeSet<usize>,
    /// The 17s of the finished grids, in file order.
    pub found: Vec<(usize, Puzzle)>,
    /// The repaired output file.
    pub output: Vec<u8>,
    /// The repaired checkpoint file (header included).
    pub checkpoint: Vec<u8>,
    pub repair: Repair,
}

/// Complete lines (without their newline) and whether a partial one followed.
fn complete_lines(bytes: &[u8]) -> (Vec<&[u8]>, bool) {
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let tail = lines.pop().unwrap_or_default();
    (lines, !tail.is_empty())
}

/// `INDEX<TAB>REST` with a decimal index (scan's lines count from 1,
/// exhaust's entries from 0).
fn split_index(line: &[u8]) -> Option<(usize, &[u8])> {
    let tab = line.iter().position(|&b| b == b'\t')?;
    let (digits, rest) = (&line[..tab], &line[tab + 1..]);
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let index = std::str::from_utf8(digits).ok()?.parse().ok()?;
    Some((index, rest))
}

pub(super) fn parse_entry(line: &[u8]) -> Option<(usize, usize)> {
    let (index, count) = split_index(line)?;
    if count.is_empty() || count.len() > 6 || !count.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some((index, std::str::from_utf8(count).ok()?.parse().ok()?))
}

pub(super) fn parse_result(line: &[u8]) -> Option<(usize, Puzzle)> {
    let (index, puzzle) = split_index(line)?;
    if puzzle.len() != 81 {
        return None;
    }
    Some((
        index,
        Puzzle::parse(std::str::from_utf8(puzzle).ok()?).ok()?,
    ))
}

/// A checkpoint whose header names another run ([`reconcile`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the checkpoint belongs to another run: its header is {found:?}")]
pub struct ForeignHeader {
    /// The header line found (lossily decoded).
    pub found: String,
}

/// Works out, from the bytes of an interrupted output and checkpoint, which
/// grids are finished and what the repaired files hold (see the module
/// note). An empty checkpoint, or one without a complete header line, means
/// nothing is done; a complete header other than `header` is an error
/// naming the header found.
pub fn reconcile(
    header: &str,
    output: &[u8],
    checkpoint: &[u8],
) -> Result<Reconciled, ForeignHeader> {
    let mut repair = Repair::default();
    let (entry_lines, partial) = complete_lines(checkpoint);
    repair.partial_checkpoint = partial;
    let mut entry_lines = entry_lines.into_iter();
    if let Some(first) = entry_lines.next()
        && first != header.as_bytes()
    {
        return Err(ForeignHeader {
            found: String::from_utf8_lossy(first).into_owned(),
        });
    }
    // Index -> promised count; None once the entry is known to be unusable.
    let mut promised: HashMap<usize, Option<usize>> = HashMap::new();
    let mut order = Vec::new();
    for line in entry_lines {
        match parse_entry(line) {
            Some((index, count)) => match promised.get_mut(&index) {
                Some(seen) => *seen = None,
                None => {
                    promised.insert(index, Some(count));
                    order.push(index);
                }
            },
            None => repair.dropped_entries += 1,
        }
    }

    let (result_lines, partial) = complete_lines(output);
    repair.partial_output = partial;
    let mut parsed = Vec::with_capacity(result_lines.len());
    let mut present: HashMap<usize, usize> = HashMap::new();
    for line in result_lines {
        let item = parse_result(line);
        if let Some((index, _)) = item {
            *present.entry(index).or_default() += 1;
        }
        parsed.push((line, item));
    }

    let mut done = BTreeSet::new();
    let mut new_checkpoint = Vec::with_capacity(checkpoint.len());
    new_checkpoint.extend_from_slice(header.as_bytes());
    new_checkpoint.push(b'\n');
    for index in order {
        let count = promised[&index];
        if count.is_some() && count == Some(present.get(&index).copied().unwrap_or(0)) {
            done.insert(index);
            writeln!(new_checkpoint, "{index}\t{}", count.unwrap_or(0)).expect("write to a Vec");
        } else {
            repair.dropped_entries += 1;
        }
    }

    let mut new_output = Vec::with_capacity(output.len());
    let mut found = Vec::new();
    for (line, item) in parsed {
        match item {
            Some((index, puzzle)) if done.contains(&index) => {
                new_output.extend_from_slice(line);
                new_output.push(b'\n');
                found.push((index, puzzle));
            }
            _ => repair.dropped_lines += 1,
        }
    }
    repair.kept_grids = done.len();
    repair.kept_lines = found.len();
    Ok(Reconciled {
        done,
        found,
        output: new_output,
        checkpoint: new_checkpoint,
        repair,
    })
}
