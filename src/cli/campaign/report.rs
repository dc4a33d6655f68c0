//! `campaign report`: the campaign's answer from the flag files of `merge`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use s17::flags;

use crate::cli::Outcome;

use super::ReportArgs;

/// `s17 campaign report DIR`: one TSV line per flag file of DIR and a
/// line `all`; every file checked whole, its grids against
/// data/ed-counts.tsv. A slice is complete when every one of its ED grids
/// is covered (all three visits searched); the total of flagged grids is
/// the catalogue's answer only when all 416 slices are, else a lower bound.
/// Files of different goals are refused; files of different plans (their
/// fingerprints), of partial merges or of no provenance (version 1) are
/// named on stderr.
pub(super) fn report_flags(args: ReportArgs) -> Outcome {
    if let Some(dir17) = &args.with_17 {
        return survey(&args.dir, dir17);
    }
    let counts = s17::ed::counts::committed();
    let files = flag_files(&args.dir)?;
    check_svg(&args)?;
    let mut rows: Vec<Row> = Vec::new();
    // The TSV is printed once every file is read and checked: a refused
    // directory leaves nothing half written on standard output.
    let mut out = Vec::new();
    writeln!(out, "slice\ted_grids\tsearched\tcovered\tflagged\tcomplete")?;
    let (mut grids, mut searched, mut covered, mut flagged, mut complete) =
        (0u64, 0u64, 0u64, 0u64, 0usize);
    let mut describe = None;
    // Files by plan fingerprint (None: version 1, no provenance), and the
    // files of partial merges.
    let mut plans: std::collections::BTreeMap<Option<u64>, Vec<usize>> = Default::default();
    let mut partial: Vec<usize> = Vec::new();
    for (k, path) in &files {
        let ed_grids = counts[*k].grids;
        let (h, plan, partial_merge) = read_flag_file(*k, path, ed_grids, &mut describe)?;
        plans.entry(plan).or_default().push(*k);
        if partial_merge {
            partial.push(*k);
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
        rows.push(Row {
            slice: *k,
            grids: ed_grids,
            covered: h.covered,
            flagged: h.flagged,
        });
        grids += ed_grids;
        searched += h.searched;
        covered += h.covered;
        flagged += h.flagged;
        complete += done as usize;
    }
    let all_done = complete == s17::campaign::SLICES;
    writeln!(
        out,
        "all\t{grids}\t{searched}\t{covered}\t{flagged}\t{}",
        if all_done { "yes" } else { "no" }
    )?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    say_provenance(&plans, &partial);
    let what = describe.unwrap_or_default();
    let title = if all_done {
        format!("ED grids flagged ({what}): {flagged} of {grids}")
    } else {
        format!(
            "ED grids flagged ({what}): at least {flagged} (lower bound: {complete} of {} slices complete, {covered} of {grids} grids covered)",
            s17::campaign::SLICES
        )
    };
    if let Some(svg) = &args.svg {
        draw(svg, &title, &rows).with_context(|| format!("{}", svg.display()))?;
    }
    say_answer(&what, flagged, grids, complete, files.len());
    Ok(true)
}

/// Refuses `--svg -` (standard output takes the TSV) and an existing
/// `--svg` file without `--force`.
fn check_svg(args: &ReportArgs) -> anyhow::Result<()> {
    if let Some(svg) = &args.svg {
        if svg.as_os_str() == "-" {
            return Err(crate::cli::Usage(
                "--svg -: the report's TSV goes to standard output; name a file".into(),
            )
            .into());
        }
        if svg.exists() && !args.force {
            anyhow::bail!("{}: exists (--force to overwrite)", svg.display());
        }
    }
    Ok(())
}

/// Slice `k`'s flag file at `path`, checked whole and against its slice
/// (`ed_grids` ED grids) and the flag of the files before (`describe`,
/// set by the first): its header, its plan's fingerprint (`None`: no
/// provenance, version 1) and whether it is of a partial merge.
fn read_flag_file(
    k: usize,
    path: &Path,
    ed_grids: u64,
    describe: &mut Option<String>,
) -> anyhow::Result<(flags::FlagHeader, Option<u64>, bool)> {
    let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
    let file = flags::FlagFile::open(bytes, &path.display().to_string())?;
    let h = *file.header();
    if h.slice as usize != k {
        anyhow::bail!("{}: holds slice {}, not {k}", path.display(), h.slice);
    }
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
    Ok((
        h,
        file.provenance().map(|p| p.plan),
        file.provenance().is_some_and(|p| !p.complete),
    ))
}

/// The answer on stderr: the grids that have the flag `what` (of one grid,
/// "has …"), all of them or a lower bound while slices are not complete.
fn say_answer(what: &str, flagged: u64, grids: u64, complete: usize, files: usize) {
    // "has a minimal 18 (…)" of one grid, said of many.
    let what = match what.strip_prefix("has ") {
        Some(rest) => format!("have {rest}"),
        None => what.to_string(),
    };
    if complete == s17::campaign::SLICES {
        eprintln!("s17 campaign report: ED grids that {what}: {flagged} of {grids}");
    } else {
        eprintln!(
            "s17 campaign report: ED grids that {what}: at least {flagged} (a lower bound: {complete} of {} slices complete, {files} files)",
            s17::campaign::SLICES,
        );
    }
}

/// The slices as a short list: `28, 331` (at most 20, then a count).
fn slice_list(slices: &[usize]) -> String {
    let mut s: Vec<String> = slices.iter().take(20).map(usize::to_string).collect();
    if slices.len() > 20 {
        s.push(format!("and {} more", slices.len() - 20));
    }
    s.join(", ")
}

/// Notes on stderr when the files disagree in their plan, come from partial
/// merges, or carry no provenance.
fn say_provenance(plans: &std::collections::BTreeMap<Option<u64>, Vec<usize>>, partial: &[usize]) {
    if plans.len() > 1 {
        let parts: Vec<String> = plans
            .iter()
            .map(|(plan, slices)| match plan {
                Some(p) => format!("plan {p:016x}: slices {}", slice_list(slices)),
                None => format!("no provenance (version 1): slices {}", slice_list(slices)),
            })
            .collect();
        eprintln!(
            "s17 campaign report: note: the flag files come from {} different plans ({})",
            plans.len(),
            parts.join("; ")
        );
    }
    if !partial.is_empty() {
        eprintln!(
            "s17 campaign report: note: merged from a campaign not yet complete (merge --partial): slices {}",
            slice_list(partial)
        );
    }
}

/// The flag files (slice-K.s17f) of `dir`, by slice; at least one.
fn flag_files(dir: &Path) -> anyhow::Result<Vec<(usize, PathBuf)>> {
    let files = s17::campaign::bitmap::flag_files(dir)?;
    if files.is_empty() {
        anyhow::bail!("{}: no flag file (slice-K.s17f) in it", dir.display());
    }
    Ok(files)
}

/// One slice's flag file of a survey, checked: minimal `clues`, its slice,
/// its grids those of data/ed-counts.tsv. `None` when the directory has
/// none for the slice (that campaign did not search it).
fn survey_file(
    dir: &Path,
    k: usize,
    clues: u32,
) -> anyhow::Result<Option<flags::FlagFile<Vec<u8>>>> {
    let path = dir.join(flags::file_name(k));
    if !path.exists() {
        return Ok(None);
    }
    let bytes = std::fs::read(&path).with_context(|| format!("{}", path.display()))?;
    let file = flags::FlagFile::open(bytes, &path.display().to_string())?;
    let h = *file.header();
    if h.clues != clues || h.kind & flags::KIND_NON_MINIMAL != 0 {
        anyhow::bail!(
            "{}: its flag is \"{}\", the survey wants minimal {clues}s here",
            path.display(),
            h.describe()
        );
    }
    let ed_grids = s17::ed::counts::committed()[k].grids;
    if h.slice as usize != k || h.grids != ed_grids {
        anyhow::bail!(
            "{}: slice {} of {} grids, not slice {k} of {ed_grids} (data/ed-counts.tsv)",
            path.display(),
            h.slice,
            h.grids
        );
    }
    Ok(Some(file))
}

/// `s17 campaign report DIR18 --with-17 DIR17`: the survey's question,
/// each grid's lowest clue count, from the flag files of an 18 campaign
/// (DIR18) and of a 17 campaign (DIR17), per slice and in all (TSV):
///
/// - `lowest_17`: grids flagged with a 17;
/// - `also_18`: of those, grids flagged with a minimal 18 too;
/// - `lowest_18`: grids flagged with a minimal 18 and not with a 17;
/// - `lowest_19_or_more`: the other grids (no 17 and no minimal 18, so no
///   18 at all: an 18 that is not minimal holds a 17), only when the slice
///   is complete in both campaigns, else `-`;
/// - `complete`: every ED grid of the slice covered by both.
///
/// While not complete, `lowest_17` and `lowest_17 + lowest_18` are lower
/// bounds (an unsearched visit may hold a 17 or 18).
fn survey(dir18: &Path, dir17: &Path) -> Outcome {
    let counts = s17::ed::counts::committed();
    let slices: BTreeSet<usize> = flag_files(dir18)?
        .into_iter()
        .chain(flag_files(dir17)?)
        .map(|(k, _)| k)
        .collect();
    // Printed once every file is read and checked, as `report_flags`.
    let mut out = Vec::new();
    writeln!(
        out,
        "slice\ted_grids\tcovered_17\tcovered_18\tlowest_17\talso_18\tlowest_18\tlowest_19_or_more\tcomplete"
    )?;
    let mut all = [0u64; 6];
    let mut complete = 0usize;
    let mut plans: BTreeMap<(u32, Option<u64>), Vec<usize>> = BTreeMap::new();
    for &k in &slices {
        let f17 = survey_file(dir17, k, 17)?;
        let f18 = survey_file(dir18, k, 18)?;
        for (clues, f) in [(17, &f17), (18, &f18)] {
            if let Some(f) = f {
                plans
                    .entry((clues, f.provenance().map(|p| p.plan)))
                    .or_default()
                    .push(k);
            }
        }
        let ed_grids = counts[k].grids;
        let row = survey_counts(&f17, &f18, ed_grids);
        let [_, c17, c18, lowest_17, also_18, lowest_18] = row;
        let done = c17 == ed_grids && c18 == ed_grids;
        let rest = ed_grids - lowest_17 - lowest_18;
        writeln!(
            out,
            "{k}\t{ed_grids}\t{c17}\t{c18}\t{lowest_17}\t{also_18}\t{lowest_18}\t{}\t{}",
            if done {
                rest.to_string()
            } else {
                "-".to_string()
            },
            if done { "yes" } else { "no" }
        )?;
        for (a, v) in all.iter_mut().zip(row) {
            *a += v;
        }
        complete += done as usize;
    }
    let all_done = complete == s17::campaign::SLICES;
    let [grids, c17, c18, lowest_17, also_18, lowest_18] = all;
    writeln!(
        out,
        "all\t{grids}\t{c17}\t{c18}\t{lowest_17}\t{also_18}\t{lowest_18}\t{}\t{}",
        if all_done {
            (grids - lowest_17 - lowest_18).to_string()
        } else {
            "-".to_string()
        },
        if all_done { "yes" } else { "no" }
    )?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    say_survey(&plans, all, complete);
    Ok(true)
}

/// One slice's counts of the survey: `[ed_grids, covered_17, covered_18,
/// lowest_17, also_18, lowest_18]` from its 17 and 18 flag files.
fn survey_counts(
    f17: &Option<flags::FlagFile<Vec<u8>>>,
    f18: &Option<flags::FlagFile<Vec<u8>>>,
    ed_grids: u64,
) -> [u64; 6] {
    let with_17: BTreeSet<(u32, u32)> = f17
        .iter()
        .flat_map(|f| f.records().map(|r| (r.entry, r.grid)))
        .collect();
    let (mut also_18, mut lowest_18) = (0u64, 0u64);
    for r in f18.iter().flat_map(|f| f.records()) {
        if with_17.contains(&(r.entry, r.grid)) {
            also_18 += 1;
        } else {
            lowest_18 += 1;
        }
    }
    let covered =
        |f: &Option<flags::FlagFile<Vec<u8>>>| f.as_ref().map_or(0, |f| f.header().covered);
    let lowest_17 = with_17.len() as u64;
    [
        ed_grids,
        covered(f17),
        covered(f18),
        lowest_17,
        also_18,
        lowest_18,
    ]
}

/// The survey's stderr: a note where flag files come from different
/// plans, then the lowest clue counts in all (lower bounds if incomplete).
fn say_survey(plans: &BTreeMap<(u32, Option<u64>), Vec<usize>>, all: [u64; 6], complete: usize) {
    let all_done = complete == s17::campaign::SLICES;
    let [grids, _, _, lowest_17, _, lowest_18] = all;
    for clues in [17, 18] {
        let of: Vec<_> = plans.iter().filter(|((c, _), _)| *c == clues).collect();
        if of.len() > 1 {
            eprintln!(
                "s17 campaign report: note: the {clues} flag files come from {} different plans",
                of.len()
            );
        }
    }
    if all_done {
        eprintln!(
            "s17 campaign report: lowest clue count of the ED grids: 17 for {lowest_17}, 18 for {lowest_18}, 19 or more for {}",
            grids - lowest_17 - lowest_18
        );
    } else {
        eprintln!(
            "s17 campaign report: lowest clue count of the ED grids: 17 for at least {lowest_17}, 17 or 18 for at least {} (lower bounds: {complete} of {} slices complete in both campaigns)",
            lowest_17 + lowest_18,
            s17::campaign::SLICES
        );
    }
}

/// One slice of the report, for the picture.
struct Row {
    slice: usize,
    grids: u64,
    covered: u64,
    flagged: u64,
}

/// The report as an SVG picture (plotters' SVG backend, no fonts needed:
/// the text is SVG text, laid out by the browser): slices 0 to 415 on the
/// x axis; a bar per slice for the share of its ED grids covered (all
/// three visits searched), a dot per slice for the share of the covered
/// grids flagged; `title` (the totals) above.
fn draw(path: &Path, title: &str, rows: &[Row]) -> anyhow::Result<()> {
    use plotters::prelude::*;
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (1400, 600)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..s17::campaign::SLICES as f64, 0f64..1.05)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        chart
            .configure_mesh()
            .x_desc("slice (catalogue index of band 1)")
            .y_desc("share")
            .disable_x_mesh()
            .draw()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let share = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let blue = RGBColor(70, 130, 180);
        chart
            .draw_series(rows.iter().map(|r| {
                let x = r.slice as f64;
                // A slice of no ED grids counts as covered.
                let c = if r.grids == 0 {
                    1.0
                } else {
                    share(r.covered, r.grids)
                };
                Rectangle::new([(x + 0.1, 0.0), (x + 0.9, c)], blue.mix(0.6).filled())
            }))
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .label("covered / ED grids")
            .legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 10, y + 5)], blue.mix(0.6).filled())
            });
        chart
            .draw_series(rows.iter().map(|r| {
                let x = r.slice as f64 + 0.5;
                Circle::new((x, share(r.flagged, r.covered)), 3, RED.filled())
            }))
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .label("flagged / covered")
            .legend(|(x, y)| Circle::new((x + 5, y), 3, RED.filled()));
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    s17::disk::write_atomically(path, text.as_bytes())?;
    Ok(())
}
