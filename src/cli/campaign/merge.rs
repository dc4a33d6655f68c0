//! `campaign merge` (the 17s of all units, or a `--first` campaign's flag
//! files) and `campaign flags` (print a flag file).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use s17::campaign::{self, Status, merge_into};
use s17::ed::Ed;
use s17::flags;
use s17::output::{OutputLock, new_path, write_atomically, write_atomically_with};

use crate::cli::Outcome;
use crate::cli::common::{counted, read_known};

use super::MergeArgs;

/// Before anything is written: `-o FILE` (or `FILE.new` with a known
/// list) that exists is refused without `--force`, and one that is the
/// known list, a campaign's file or another run's locked output is refused
/// always (the output rule); `-o -` (standard output) takes no known list.
/// Then the output's lock is taken (`FILE.lock`, as `scan` does), held
/// until the merge ends; `None` for standard output.
fn check_merge_output(args: &MergeArgs) -> anyhow::Result<Option<OutputLock>> {
    if to_stdout(args) {
        if args.known.is_some() {
            return Err(crate::cli::Usage(
                "-o - with --known: the 17s not in the list go to FILE.new, beside a file; give -o a file name"
                    .to_string(),
            )
            .into());
        }
        return Ok(None);
    }
    let mut written = vec![args.output.clone()];
    let inputs: Vec<(&str, &Path)> = args
        .known
        .iter()
        .map(|known| ("known list", known.as_path()))
        .collect();
    crate::cli::resumable::refuse_output_as_input(&args.output, &inputs)?;
    if args.known.is_some() {
        written.push(new_path(&args.output));
    }
    if let Some(path) = written.iter().find(|p| p.exists()).filter(|_| !args.force) {
        anyhow::bail!(
            "{} already exists; pass --force to overwrite it",
            path.display()
        );
    }
    Ok(Some(OutputLock::acquire(&args.output)?))
}

/// `-o -`: the merged puzzles go to standard output.
fn to_stdout(args: &MergeArgs) -> bool {
    args.output == Path::new("-")
}

pub(super) fn merge_units(args: MergeArgs, quiet: bool) -> Outcome {
    let status = Status::read_counts(&args.dir)?;
    if status.goal.first {
        return merge_flags(&args, &status, quiet);
    }
    let lock = check_merge_output(&args)?;
    if args.known.is_some() && !status.goal.seeks_17s() {
        anyhow::bail!(
            "--known lists 17s; this campaign searches for {}",
            status.goal.description()
        );
    }
    let known = read_known(args.known.as_deref())?;
    campaign::status::check_mergeable(&args.dir, &status, args.partial)?;
    let slices = chosen_slices(args.slices.as_deref())?;
    let spill = if lock.is_some() {
        spill_dir(&args.output)
    } else {
        spill_dir(&args.dir.join("merge"))
    };
    let mut failure: Option<campaign::CampaignError> = None;
    let mut merged = campaign::Merged::default();
    let mut run = |out: &mut dyn std::io::Write, new: Option<&mut std::fs::File>| {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
        let mut new = new.map(|f| std::io::BufWriter::with_capacity(1 << 16, f));
        let result = merge_into(
            &args.dir,
            &status,
            known.as_ref(),
            args.partial,
            slices.as_ref(),
            &spill,
            &mut out,
            new.as_mut().map(|w| w as &mut dyn std::io::Write),
        );
        let _ = std::fs::remove_dir_all(&spill);
        match result {
            Ok(m) => merged = m,
            Err(e) => {
                failure = Some(e);
                return Err(std::io::Error::other("merge failed"));
            }
        }
        out.flush()?;
        if let Some(w) = new.as_mut() {
            w.flush()?;
        }
        Ok(())
    };
    let written = if lock.is_none() {
        run(&mut std::io::stdout().lock(), None)
    } else if args.known.is_some() {
        let new = new_path(&args.output);
        write_atomically_with(&args.output, |out| {
            write_atomically_with(&new, |n| run(out, Some(n)))
        })
    } else {
        write_atomically_with(&args.output, |out| run(out, None))
    };
    if let Some(e) = failure {
        return Err(e.into());
    }
    let into = if lock.is_some() {
        args.output.display().to_string()
    } else {
        "standard output".to_string()
    };
    written.with_context(|| format!("cannot write {into}"))?;
    drop(lock);
    if !quiet {
        say_units_merged(&merged, &status, &args, &into);
    }
    Ok(true)
}

/// The summary of a units merge (stderr): the puzzles per slice, then in
/// all, into `into`, with those not in the known list.
fn say_units_merged(merged: &campaign::Merged, status: &Status, args: &MergeArgs, into: &str) {
    let noun = status.goal.clues.to_string();
    for (k, count) in &merged.per_slice {
        eprintln!("s17 campaign merge: slice {k}: {}", counted(*count, &noun));
    }
    let mut summary = format!(
        "s17 campaign merge: {} ({}) into {}",
        counted(merged.puzzles, &noun),
        status.goal.description(),
        into
    );
    if let Some(path) = &args.known {
        let _ = write!(
            summary,
            "; {} not in {} (in {})",
            merged.new,
            path.display(),
            new_path(&args.output).display()
        );
    }
    summary += &partial_note(status);
    eprintln!("{summary}");
}

/// The slices of `--slices LIST` (`None`: all).
fn chosen_slices(list: Option<&str>) -> anyhow::Result<Option<std::collections::BTreeSet<usize>>> {
    let Some(list) = list else {
        return Ok(None);
    };
    let mut out = std::collections::BTreeSet::new();
    for item in list.split(',').map(str::trim) {
        let bad = || anyhow::anyhow!("--slices: {item:?} is no slice nor run of slices (0..416)");
        match item.split_once("..") {
            Some((a, b)) => {
                let (a, b): (usize, usize) =
                    (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
                if a >= b || b > campaign::SLICES {
                    return Err(bad());
                }
                out.extend(a..b);
            }
            None => {
                let k: usize = item.parse().map_err(|_| bad())?;
                if k >= campaign::SLICES {
                    return Err(bad());
                }
                out.insert(k);
            }
        }
    }
    Ok(Some(out))
}

/// The spill directory of a merge into `output`: beside it, per process.
fn spill_dir(output: &Path) -> PathBuf {
    let mut name = output.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".spill{}", std::process::id()));
    output.with_file_name(name)
}

/// What a merge of an incomplete campaign (`--partial`) says of it.
fn partial_note(status: &Status) -> String {
    if status.complete() {
        String::new()
    } else {
        format!(
            "; partial: {} of {} entries checkpointed",
            status.checkpointed(),
            status.planned()
        )
    }
}

/// `merge` of a `--first` campaign: a flag file per slice searched into
/// the directory `args.output`, and the counts per slice on stderr.
fn merge_flags(args: &MergeArgs, status: &Status, quiet: bool) -> Outcome {
    if args.known.is_some() {
        anyhow::bail!("--known does not apply to a --first campaign (it writes flag files)");
    }
    let ed = Ed::new();
    campaign::status::check_mergeable(&args.dir, status, args.partial)?;
    let slices = chosen_slices(args.slices.as_deref())?;
    let dir = &args.output;
    check_flags_output(args, status, slices.as_ref())?;
    s17::output::make_dir("-o", dir, true).map_err(crate::cli::resumable::into_error)?;
    // One merge at a time into DIR (`DIR.lock`, beside it).
    let lock = OutputLock::acquire(dir)?;
    let spill = campaign::flags::SpillDir(spill_dir(&dir.join("flags")));
    let write = |slice: &campaign::flags::SliceFlags| -> Result<(), campaign::CampaignError> {
        let h = &slice.header;
        let path = dir.join(flags::file_name(h.slice as usize));
        let bytes = flags::to_bytes_with(*h, &slice.provenance, &slice.records).map_err(|e| {
            campaign::CampaignError::Io {
                path: path.clone(),
                source: std::io::Error::other(e),
            }
        })?;
        write_atomically(&path, &bytes).map_err(|source| campaign::CampaignError::Io {
            path: path.clone(),
            source,
        })
    };
    let merged = campaign::flags::merge_flags(
        &args.dir,
        status,
        &ed,
        args.partial,
        slices.as_ref(),
        &spill.0,
        &write,
    )?;
    drop(spill);
    let mut lower_bound = false;
    for h in &merged.slices {
        let path = dir.join(flags::file_name(h.slice as usize));
        lower_bound |= h.covered < h.searched;
        if !quiet {
            say_slice_flagged(h, &path);
        }
    }
    for e in merged.errors.iter().take(20) {
        eprintln!("s17 campaign merge: error: {e}");
    }
    if !quiet {
        say_flags_merged(&merged, status, (&args.dir, dir), lower_bound);
    }
    drop(lock);
    Ok(merged.errors.is_empty())
}

/// Refused before anything is written: `-o DIR` that is a campaign
/// directory, or (without `--force`) a flag file of this merge that exists.
fn check_flags_output(
    args: &MergeArgs,
    status: &Status,
    slices: Option<&std::collections::BTreeSet<usize>>,
) -> anyhow::Result<()> {
    let dir = &args.output;
    // Flag files go into a directory of their own, never among a
    // campaign's units (this one's or another's).
    if dir.join("units.tsv").is_file() {
        return Err(crate::cli::Usage(format!(
            "-o {}: a campaign directory; give the flag files a directory of their own \
             (for instance `-o {}-flags`)",
            dir.display(),
            args.dir.display()
        ))
        .into());
    }
    let mut searched: Vec<usize> = status
        .units
        .iter()
        .map(|u| u.unit.k)
        .filter(|k| slices.is_none_or(|s| s.contains(k)))
        .collect();
    searched.sort_unstable();
    searched.dedup();
    if !args.force
        && let Some(old) = searched
            .iter()
            .map(|&k| dir.join(flags::file_name(k)))
            .find(|path| path.exists())
    {
        anyhow::bail!(
            "{} already exists; pass --force to overwrite it",
            old.display()
        );
    }
    Ok(())
}

/// One slice's line of a flags merge (stderr): grids covered and flagged,
/// its file, and how many have a visit outside the campaign.
fn say_slice_flagged(h: &flags::FlagHeader, path: &Path) {
    eprintln!(
        "s17 campaign merge: slice {}: {} covered, {} flagged, into {}{}",
        h.slice,
        counted(h.covered, "grid"),
        h.flagged,
        path.display(),
        if h.covered < h.searched {
            format!(
                " ({} whose hi visit is here {} a visit outside the campaign: their flag is a lower bound)",
                counted(h.searched - h.covered, "grid"),
                if h.searched - h.covered == 1 {
                    "has"
                } else {
                    "have"
                }
            )
        } else {
            String::new()
        }
    );
}

/// The summary of a flags merge (stderr): the grids flagged and covered
/// in the files of `dir`, and what makes them partial or a lower bound.
fn say_flags_merged(
    merged: &campaign::flags::FlagMerge,
    status: &Status,
    (campaign, dir): (&Path, &Path),
    lower_bound: bool,
) {
    let what = status.goal.description();
    let flagged: u64 = merged.slices.iter().map(|s| s.flagged).sum();
    let covered: u64 = merged.slices.iter().map(|s| s.covered).sum();
    let mut summary = format!(
        "s17 campaign merge: {what}: {} flagged, {covered} covered (all three visits searched: \
         the flag exact), in {} in {}",
        counted(flagged, "grid"),
        counted(merged.slices.len() as u64, "flag file"),
        dir.display()
    );
    if merged.outside > 0 {
        let _ = write!(
            summary,
            "; also {} flagged by a mid or lo visit whose hi visit (the visit that lists and \
             files an ED grid) is outside the campaign: in no flag file, the puzzle only in \
             {}; plan the entry of the hi visit to file it (COMMANDS.md, \"The words of that \
             output\")",
            counted(merged.outside, "grid"),
            campaign.join("out").display()
        );
    }
    if lower_bound {
        summary += "; some grids' visits lie outside the campaign: where a grid is not covered, no flag is only a lower bound";
    }
    summary += &partial_note(status);
    eprintln!("{summary}");
}
