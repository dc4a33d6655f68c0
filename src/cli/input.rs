//! Reading line-oriented input from a file or stdin (`-` or no path).

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use anyhow::Context;

/// A named line source: a file, or standard input.
pub struct LineSource {
    pub name: String,
    reader: Box<dyn BufRead + Send>,
}

impl LineSource {
    /// Opens `path`, or stdin when it is `None` or `-`.
    pub fn open(path: Option<&Path>) -> anyhow::Result<LineSource> {
        match path {
            None => Ok(LineSource::stdin()),
            Some(p) if p == Path::new("-") => Ok(LineSource::stdin()),
            Some(p) => {
                let file = File::open(p).with_context(|| format!("cannot open {}", p.display()))?;
                Ok(LineSource {
                    name: p.display().to_string(),
                    reader: Box::new(BufReader::new(file)),
                })
            }
        }
    }

    fn stdin() -> LineSource {
        LineSource {
            name: "<stdin>".to_string(),
            reader: Box::new(BufReader::new(io::stdin())),
        }
    }

    /// Numbered lines (1-based); an I/O error names the source and line.
    pub fn numbered_lines(self) -> impl Iterator<Item = anyhow::Result<(usize, String)>> {
        let name = self.name;
        self.reader.lines().enumerate().map(move |(i, line)| {
            line.map(|l| (i + 1, l))
                .with_context(|| format!("{name}: line {}: read failed", i + 1))
        })
    }
}

/// True for lines that carry no item: blank, or a `#` comment.
pub fn is_skippable(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}
