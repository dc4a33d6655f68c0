//! What the resumable drivers (`scan`, `exhaust`, `validate --checkpoint`,
//! `campaign`'s units through `exhaust`'s files) share around their
//! search: an output that is none of the run's inputs, the result files
//! opened (created, overwritten or resumed), `FILE.new` for a known list,
//! the line of a resume, Ctrl-C and the progress bar, and the end of an
//! interrupted run. Each driver then does only its own search.

use std::path::Path;
use std::sync::Arc;

use indicatif::ProgressBar;

use s17::known::KnownSet;
use s17::output::{OpenMode, Reconciled, Repair, ResultFiles};

use super::common::{counted, counted_as, progress_bar, warn_untracked_new};
use super::{Usage, interrupt};

/// A resumable run's output and how it stops.
pub struct Resumable<'a> {
    pub stop: interrupt::Stop,
    pub output: &'a Path,
    pub quiet: bool,
}

/// The result files of a run, open.
pub struct Opened {
    pub files: ResultFiles,
    pub state: Reconciled,
    /// Lines of `FILE.new` when opened (0 without a known list).
    pub new_before: u64,
}

/// The one output rule ([`s17::output::check_output`]) for `-o FILE`
/// of a run that reads `inputs`: not `-`, in a directory that exists, and
/// neither FILE nor a companion (`FILE.lock`, `.done`, `.new`, `.times`,
/// `.cost`) an input, a campaign's own file or locked by another run.
/// Called before anything is written; exit 2 for an output the command
/// line should not have named.
pub fn refuse_output_as_input(output: &Path, inputs: &[(&str, &Path)]) -> anyhow::Result<()> {
    s17::output::check_output("-o", output, inputs).map_err(into_error)
}

/// An [`UnsafeOutput`](s17::output::UnsafeOutput) as the command
/// line's error: a usage error (exit 2) where the output should not
/// have been named.
pub fn into_error(err: s17::output::UnsafeOutput) -> anyhow::Error {
    if err.is_usage() {
        Usage(err.to_string()).into()
    } else {
        err.into()
    }
}

impl Resumable<'_> {
    /// Before anything is read or written: the output's directory exists,
    /// and the output is none of the run's `inputs`
    /// ([`refuse_output_as_input`]).
    pub fn check(&self, inputs: &[(&str, &Path)]) -> anyhow::Result<()> {
        let flag = match self.stop.command {
            "validate" => "--checkpoint",
            _ => "-o",
        };
        s17::output::check_output(flag, self.output, inputs).map_err(into_error)
    }

    /// Opens the result files under `header` in `mode`; with a `known`
    /// list, `FILE.new` is kept up to date (without, a warning if one
    /// exists).
    pub fn open(
        &self,
        header: &str,
        mode: OpenMode,
        known: Option<&Arc<KnownSet>>,
    ) -> anyhow::Result<Opened> {
        let (mut files, state) = ResultFiles::open(self.output, header, mode)?;
        let new_before = match known {
            Some(set) => files.track_new(Arc::clone(set), &state.found)?,
            None => {
                warn_untracked_new(self.stop.command, &files, self.quiet);
                0
            }
        };
        Ok(Opened {
            files,
            state,
            new_before,
        })
    }

    /// The line of a resume (unless quiet), naming the output: see
    /// [`say_resuming`].
    pub fn say_resuming(&self, state: &Reconciled, todo: usize, what: &str) {
        if !self.quiet {
            say_resuming(
                self.stop,
                &self.output.display().to_string(),
                &state.repair,
                todo,
                what,
            );
        }
    }

    /// Installs the Ctrl-C handler, then shows the progress bar of `todo`
    /// pieces with `message` (what was found so far).
    pub fn start(&self, todo: usize, message: &str) -> anyhow::Result<ProgressBar> {
        interrupt::install(self.stop, self.quiet)?;
        let bar = progress_bar(todo as u64, self.quiet, self.stop.unit, message);
        interrupt::show_on(&bar);
        Ok(bar)
    }

    /// After the search: the interrupted run's end (`before` pieces done
    /// by earlier runs, `done` of this run's `todo`), else the bar
    /// cleared.
    pub fn end(
        &self,
        bar: &ProgressBar,
        before: usize,
        done: u64,
        todo: usize,
    ) -> anyhow::Result<()> {
        interrupt::check(self.stop, before, done, todo, self.output)?;
        bar.finish_and_clear();
        Ok(())
    }
}

/// The line of a resume of `name` (an output, or `campaign run`'s unit):
/// the pieces done and kept, the `todo` pieces left, and what the repair
/// dropped; `what` names one puzzle ("17").
pub fn say_resuming(stop: interrupt::Stop, name: &str, r: &Repair, todo: usize, what: &str) {
    let unit = stop.unit;
    eprintln!(
        "s17 {}: resuming {name}: {} done ({} kept), {} to go; dropped {} of unfinished \
         {unit}{}{}",
        stop.command,
        counted_as(r.kept_grids as u64, stop.one, unit),
        counted(r.kept_lines as u64, what),
        todo,
        counted(r.dropped_lines as u64, "line"),
        if r.partial_output {
            ", a partial last line"
        } else {
            ""
        },
        if r.dropped_entries > 0 {
            format!(
                ", {}",
                counted(r.dropped_entries as u64, "checkpoint entry")
            )
        } else {
            String::new()
        },
    );
}
