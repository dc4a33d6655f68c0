//! Reading line-oriented input from a file or stdin (`-` or no path).
//!
//! Lines are read as bytes into one reused buffer ([`LineSource::next_line`]),
//! so a 10-million-line file costs no allocation per line, and a line that is
//! not UTF-8 is the parser's business (one bad line, reported with its
//! number), not a read error that would end the run.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};

use std::path::Path;

use anyhow::Context;

use s17::grid::{BYTE_ORDER_MARK, Grid, Puzzle};
use s17::scan::{GridFile, Part};

/// A named line source: a file, or standard input.
pub struct LineSource {
    pub name: String,
    reader: Box<dyn BufRead + Send>,
    buffer: Vec<u8>,
    number: usize,
}

impl LineSource {
    /// Opens `path`, or stdin when it is `None` or `-`.
    pub fn open(path: Option<&Path>) -> anyhow::Result<LineSource> {
        match path {
            None => Ok(LineSource::stdin()),
            Some(p) if p == Path::new("-") => Ok(LineSource::stdin()),
            Some(p) => {
                let file = File::open(p).with_context(|| format!("cannot open {}", p.display()))?;
                Ok(LineSource::new(
                    p.display().to_string(),
                    Box::new(BufReader::with_capacity(1 << 16, file)),
                ))
            }
        }
    }

    fn stdin() -> LineSource {
        LineSource::new("<stdin>".to_string(), Box::new(BufReader::new(io::stdin())))
    }

    fn new(name: String, reader: Box<dyn BufRead + Send>) -> LineSource {
        LineSource {
            name,
            reader,
            buffer: Vec::with_capacity(128),
            number: 0,
        }
    }

    /// The next line (1-based number, bytes without the `\n`, and without
    /// a byte-order mark for the first), or `None` at the end; an I/O error
    /// names the source and line.
    pub fn next_line(&mut self) -> anyhow::Result<Option<(usize, &[u8])>> {
        self.buffer.clear();
        let read = self
            .reader
            .read_until(b'\n', &mut self.buffer)
            .with_context(|| format!("{}: line {}: read failed", self.name, self.number + 1))?;
        if read == 0 {
            return Ok(None);
        }
        self.number += 1;
        if self.number == 1 && self.buffer.starts_with(BYTE_ORDER_MARK) {
            self.buffer.drain(..BYTE_ORDER_MARK.len());
        }
        if self.buffer.last() == Some(&b'\n') {
            self.buffer.pop();
        }
        Ok(Some((self.number, &self.buffer)))
    }

    /// The next puzzle, blank and `#` lines skipped, or `None` at the end.
    /// A line that is no puzzle goes to `bad` (`s17 COMMAND: SOURCE: line
    /// N: ERROR`), after `out` is flushed (so that a report follows the
    /// output of the lines before it).
    pub fn next_puzzle(
        &mut self,
        out: &mut impl Write,
        bad: &mut BadLines,
    ) -> anyhow::Result<Option<Puzzle>> {
        while let Some((number, line)) = self.next_line()? {
            if is_skippable_bytes(line) {
                continue;
            }
            match Puzzle::parse_bytes(line) {
                Ok(puzzle) => return Ok(Some(puzzle)),
                Err(e) => {
                    out.flush()?;
                    bad.report(format_args!("{}: line {number}: {e}", self.name));
                }
            }
        }
        Ok(None)
    }

    /// Numbered lines (1-based) as text; bytes that are not UTF-8 become
    /// U+FFFD, so the parser reports them. An I/O error names the source and
    /// line.
    pub fn numbered_lines(mut self) -> impl Iterator<Item = anyhow::Result<(usize, String)>> {
        std::iter::from_fn(move || match self.next_line() {
            Ok(Some((number, line))) => {
                Some(Ok((number, String::from_utf8_lossy(line).into_owned())))
            }
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        })
    }
}

/// The bad lines of a run's input: the first [`BadLines::SHOWN`] reported
/// on stderr, the rest counted and summed up in one line at the end
/// ([`BadLines::finish`]), so that a wrong file (the 17s given as a grid
/// file: 49,158 bad lines) does not flood the terminal.
pub struct BadLines {
    command: &'static str,
    count: u64,
}

impl BadLines {
    /// Bad-line messages shown before the rest are only counted.
    pub const SHOWN: u64 = 20;

    /// No bad line yet, for `s17 COMMAND`.
    pub fn new(command: &'static str) -> BadLines {
        BadLines { command, count: 0 }
    }

    /// Counts a bad line, and reports it as `s17 COMMAND: MESSAGE` (the
    /// message names the source and line) if it is among the first.
    pub fn report(&mut self, message: impl std::fmt::Display) {
        self.count += 1;
        if self.count <= Self::SHOWN {
            eprintln!("s17 {}: {message}", self.command);
        }
    }

    /// Bad lines so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The line for the bad lines not reported, if any.
    pub fn finish(&self) {
        if self.count > Self::SHOWN {
            eprintln!(
                "s17 {}: ... and {} more bad lines",
                self.command,
                self.count - Self::SHOWN
            );
        }
    }
}

/// The error of an input with no item at all (no line but blank and `#`
/// lines): `what` names the item (`puzzle`, `grid`), `source` the input.
/// Every command treats it the same way: one line, exit 1.
pub fn no_items(what: &str, source: &str) -> anyhow::Error {
    anyhow::anyhow!("no {what} in {source} (it is empty, or holds only blank and '#' lines)")
}

/// True for lines that carry no item: blank, or a `#` comment.
pub fn is_skippable(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// [`is_skippable`] for a line of bytes.
pub fn is_skippable_bytes(line: &[u8]) -> bool {
    match line.iter().find(|&&b| !matches!(b, b' ' | b'\t'..=b'\r')) {
        None => true,
        Some(b'#') => true,
        Some(b) if b.is_ascii() => false,
        Some(_) => is_skippable(&String::from_utf8_lossy(line)),
    }
}

/// The outcome of a command that read no grid: an error if none was given
/// at all, else exit 1 (every grid given was bad, and said so).
pub fn no_grid_given(good: bool) -> super::Outcome {
    anyhow::ensure!(
        !good,
        "no grid given (pass grids as arguments, --input FILE, or on stdin)"
    );
    Ok(false)
}

/// The grids given as arguments, then those of `input` (a file, or `-` for
/// stdin), numbered from 1 in that order; each bad one reported under
/// `command` (an argument by its position, a line by file and number).
/// Returns the grids and whether every one was good. An input with no grid
/// line, and no grid argument, is an error naming it.
pub fn read_grids<S: AsRef<str>>(
    command: &'static str,
    given: &[S],
    input: Option<&Path>,
) -> anyhow::Result<(Vec<(usize, Grid)>, bool)> {
    let mut grids = Vec::new();
    let mut good = true;
    for (i, text) in given.iter().enumerate() {
        match Grid::parse(text.as_ref()) {
            Ok(g) => grids.push((i + 1, g)),
            Err(e) => {
                eprintln!("s17 {command}: argument {}: {e}", i + 1);
                good = false;
            }
        }
    }
    if let Some(path) = input {
        let source = LineSource::open(Some(path))?;
        let name = source.name.clone();
        let mut index = given.len();
        let mut bad = BadLines::new(command);
        for item in source.numbered_lines() {
            let (number, line) = item?;
            if is_skippable(&line) {
                continue;
            }
            index += 1;
            match Grid::parse(&line) {
                Ok(g) => grids.push((index, g)),
                Err(e) => bad.report(format_args!("{name}: line {number}: {e}")),
            }
        }
        bad.finish();
        if index == given.len() && given.is_empty() {
            return Err(no_items("grid", &name));
        }
        good &= bad.count() == 0;
    }
    Ok((grids, good))
}

/// The grid file of a run (`-`: stdin), part `part` of it, with the name
/// its messages give; refused when it holds no line at all.
pub fn read_grid_file(grids: &Path, part: Part) -> anyhow::Result<(String, GridFile)> {
    let (name, grid_file) = if grids == Path::new("-") {
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut io::stdin(), &mut bytes)
            .context("cannot read the grid file <stdin>")?;
        ("<stdin>".to_string(), GridFile::from_bytes(&bytes, part))
    } else {
        let file = GridFile::read(grids, part).context("cannot read the grid file")?;
        (grids.display().to_string(), file)
    };
    if grid_file.total_entries == 0 {
        return Err(no_items("grid", &name));
    }
    Ok((name, grid_file))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &'static [u8]) -> LineSource {
        LineSource::new("test".to_string(), Box::new(text))
    }

    #[test]
    fn lines_are_numbered_and_keep_bad_bytes() {
        let mut s = source(b"one\r\n\n\xff two\nlast");
        let mut seen = Vec::new();
        while let Some((n, line)) = s.next_line().unwrap() {
            seen.push((n, line.to_vec()));
        }
        let expected: Vec<(usize, Vec<u8>)> = vec![
            (1, b"one\r".to_vec()),
            (2, b"".to_vec()),
            (3, b"\xff two".to_vec()),
            (4, b"last".to_vec()),
        ];
        assert_eq!(seen, expected);
        let mut s = source(b"\xef\xbb\xbf# note\n\xef\xbb\xbfx\n");
        assert_eq!(s.next_line().unwrap(), Some((1, &b"# note"[..])));
        // Only the file's first bytes can be its byte-order mark.
        assert_eq!(s.next_line().unwrap(), Some((2, &b"\xef\xbb\xbfx"[..])));
        let text: Vec<_> = source(b"a\n\xffb\n")
            .numbered_lines()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(
            text,
            vec![(1, "a".to_string()), (2, "\u{fffd}b".to_string())]
        );
    }

    #[test]
    fn skippable_lines() {
        for line in ["", "   ", "\t\r", "# comment", "  # indented", "\u{a0}"] {
            assert!(is_skippable_bytes(line.as_bytes()), "{line:?}");
            assert!(is_skippable(line), "{line:?}");
        }
        for line in ["1.2", " x", "\u{e9}"] {
            assert!(!is_skippable_bytes(line.as_bytes()), "{line:?}");
        }
    }
}
