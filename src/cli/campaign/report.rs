//! `campaign report`: the campaign's answer from the flag files of `merge`.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context;

use crate::flags;

use crate::cli::Outcome;

use super::ReportArgs;

/// `s17 campaign report DIR`: one TSV line per flag file of DIR and a
/// line `all`; every file checked whole, its grids against
/// data/ed-counts.tsv. A slice is complete when every one of its ED grids
/// is covered (all three visits searched); the total of flagged grids is
/// the catalogue's answer only when all 416 slices are, else a lower bound.
pub(super) fn report_flags(args: ReportArgs) -> Outcome {
    let counts = crate::ed::counts::committed();
    let mut files: Vec<(usize, PathBuf)> = Vec::new();
    for item in std::fs::read_dir(&args.dir).with_context(|| format!("{}", args.dir.display()))? {
        let path = item
            .with_context(|| format!("{}", args.dir.display()))?
            .path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if let Some(k) = name
            .strip_prefix("slice-")
            .and_then(|n| n.strip_suffix(".s17f"))
            .and_then(|n| n.parse::<usize>().ok())
        {
            files.push((k, path));
        }
    }
    files.sort();
    if files.is_empty() {
        anyhow::bail!("{}: no flag file (slice-K.s17f) in it", args.dir.display());
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(out, "slice\ted_grids\tsearched\tcovered\tflagged\tcomplete")?;
    let (mut grids, mut searched, mut covered, mut flagged, mut complete) =
        (0u64, 0u64, 0u64, 0u64, 0usize);
    let mut describe = None;
    for (k, path) in &files {
        let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
        let file = flags::FlagFile::open(bytes, &path.display().to_string())?;
        let h = *file.header();
        if h.slice as usize != *k {
            anyhow::bail!("{}: holds slice {}, not {k}", path.display(), h.slice);
        }
        let ed_grids = counts[*k].grids;
        if h.grids != ed_grids {
            anyhow::bail!(
                "{}: {} grids in its header, but slice {k} has {ed_grids} ED grids (data/ed-counts.tsv)",
                path.display(),
                h.grids
            );
        }
        let what = h.describe();
        if describe.get_or_insert_with(|| what.clone()) != &what {
            anyhow::bail!(
                "{}: its flag is \"{what}\", the other files' \"{}\"",
                path.display(),
                describe.as_deref().unwrap_or_default()
            );
        }
        let done = h.covered == ed_grids;
        writeln!(
            out,
            "{k}\t{ed_grids}\t{}\t{}\t{}\t{}",
            h.searched,
            h.covered,
            h.flagged,
            if done { "yes" } else { "no" }
        )?;
        grids += ed_grids;
        searched += h.searched;
        covered += h.covered;
        flagged += h.flagged;
        complete += done as usize;
    }
    let all_done = complete == crate::campaign::SLICES;
    writeln!(
        out,
        "all\t{grids}\t{searched}\t{covered}\t{flagged}\t{}",
        if all_done { "yes" } else { "no" }
    )?;
    out.flush()?;
    let what = describe.unwrap_or_default();
    if all_done {
        eprintln!("s17 campaign report: ED grids that {what}: {flagged} of {grids}");
    } else {
        eprintln!(
            "s17 campaign report: ED grids that {what}: at least {flagged} (a lower bound: {complete} of {} slices complete, {} files)",
            crate::campaign::SLICES,
            files.len()
        );
    }
    Ok(true)
}
