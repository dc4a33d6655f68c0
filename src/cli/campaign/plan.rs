//! `campaign plan`: cut the slices into units and write the plan and the
//! Slurm scripts.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

use s17::campaign::plan::Replanned;
use s17::campaign::{self, CostTable, Plan, PlanSpec};
use s17::ed::Ed;
use s17::output::write_atomically;
use s17::search::Goal;

use crate::cli::Outcome;
use crate::cli::common::counted;

use super::{PlanArgs, hours, usage};

pub(super) fn plan(args: PlanArgs) -> Outcome {
    let dir = &args.output;
    let units = campaign::units_path(dir);
    let old = if args.replan {
        Some(super::read_plan(dir)?)
    } else {
        None
    };
    let goal = old.as_ref().map_or_else(|| args.goal.goal(), |p| p.goal);
    let costs = match &args.costs {
        Some(path) => CostTable::read(path)?,
        None => CostTable::for_goal(&goal).map_err(super::usage)?,
    };
    let unit_hours = args
        .unit_hours
        .or_else(|| {
            old.as_ref()
                .and_then(|p| p.unit_seconds())
                .map(|s| s / 3600.0)
        })
        .context("the plan names no unit-hours=; give --unit-hours")?;
    let ed = args.per_entry.then(s17::ed::Ed::new);
    let (plan, replanned) = match &old {
        Some(old) => {
            let r = campaign::plan::replan_with(dir, old, &costs, unit_hours, ed.as_ref())
                .map_err(usage)?;
            (r.plan.clone(), Some(r))
        }
        None => {
            let plan = new_plan(&args, &costs, goal, unit_hours, ed.as_ref())?;
            if units.exists() && !args.force {
                return Err(campaign::CampaignError::PlanExists(dir.clone()).into());
            }
            (plan, None)
        }
    };
    let (abs, job, workers) = write_plan_files(&args, &plan, unit_hours)?;
    let mut out = std::io::stdout().lock();
    if let Some(r) = &replanned {
        say_replanned(&mut out, r)?;
    }
    let largest = plan.largest().expect("a plan has a unit");
    writeln!(
        out,
        "s17 campaign plan: {}: {}, {} core-hours estimated for {}; largest unit {} (slice \
         {}, entries {}..{}): {} core-hours",
        goal.description(),
        counted(plan.units.len() as u64, "unit"),
        hours(plan.seconds()),
        counted(plan.entries(), "entry"),
        largest.number,
        largest.k,
        largest.entries.start,
        largest.entries.end,
        hours(largest.est_seconds),
    )?;
    writeln!(
        out,
        "wrote {} and {}; build the band tables once (`s17 tables build`), then submit:",
        units.display(),
        campaign::sbatch_path(dir).display()
    )?;
    for cmd in plan.submit_commands(&campaign::sbatch_path(&abs)) {
        writeln!(out, "  {cmd}")?;
    }
    writeln!(
        out,
        "or start {} pulling units (jobs of {}, each requeued by itself while units are \
         left; about {} hours of wall time by the estimate):\n  sbatch {}",
        counted(workers as u64, "worker"),
        campaign::plan::slurm_time(job),
        hours(plan.seconds() / workers as f64),
        campaign::work_sbatch_path(&abs).display()
    )?;
    Ok(true)
}

/// A new plan of `--slices` (`--per-entry` when `ed` is given).
fn new_plan(
    args: &PlanArgs,
    costs: &CostTable,
    goal: Goal,
    unit_hours: f64,
    ed: Option<&Ed>,
) -> anyhow::Result<Plan> {
    let list = args.slices.as_deref().expect("clap requires --slices");
    let spec = PlanSpec::parse(list, costs).map_err(usage)?;
    let plan = match ed {
        Some(ed) => {
            campaign::plan::check_unit_hours(unit_hours).map_err(usage)?;
            warn_per_entry_size(&spec);
            let bands3 =
                campaign::plan::pieces_bands3(ed, &spec.pieces, campaign::plan::hi_weight(&goal));
            Plan::per_entry(&spec, unit_hours, costs, goal, &bands3)
        }
        None => Plan::for_goal(&spec, unit_hours, costs, goal),
    }
    .map_err(usage)?;
    Ok(plan)
}

/// Makes the campaign directory and writes the two Slurm scripts
/// (executable) and `units.tsv` into it: the directory made absolute, the
/// job time and the number of workers the scripts name.
fn write_plan_files(
    args: &PlanArgs,
    plan: &Plan,
    unit_hours: f64,
) -> anyhow::Result<(PathBuf, Duration, usize)> {
    let dir = &args.output;
    s17::output::make_dir("-o", dir, true).map_err(crate::cli::resumable::into_error)?;
    for sub in [campaign::out_dir(dir), dir.join("logs")] {
        std::fs::create_dir_all(&sub).with_context(|| format!("{}", sub.display()))?;
    }
    // The script names the directory and binary absolutely: the tasks may
    // start anywhere.
    let abs = std::fs::canonicalize(dir).with_context(|| format!("{}", dir.display()))?;
    let s17 = std::env::current_exe().context("the path of this s17 binary")?;
    let job = args
        .job_time
        .unwrap_or_else(|| campaign::plan::default_job_time(unit_hours));
    let workers = args
        .workers
        .map_or_else(|| plan.workers(job), |w| w as usize);
    let script = campaign::sbatch_path(dir);
    write_atomically(&script, plan.sbatch(&abs, &s17, job).as_bytes())
        .with_context(|| format!("cannot write {}", script.display()))?;
    set_executable(&script)?;
    let work_script = campaign::work_sbatch_path(dir);
    write_atomically(
        &work_script,
        plan.work_sbatch(&abs, &s17, workers, job).as_bytes(),
    )
    .with_context(|| format!("cannot write {}", work_script.display()))?;
    set_executable(&work_script)?;
    let units = campaign::units_path(dir);
    write_atomically(&units, plan.to_tsv().as_bytes())
        .with_context(|| format!("cannot write {}", units.display()))?;
    Ok((abs, job, workers))
}

/// What `--replan` kept, cut again and measured, slice by slice.
fn say_replanned(out: &mut impl std::io::Write, r: &Replanned) -> std::io::Result<()> {
    let lines: u64 = r.measured.iter().map(|m| m.entries).sum();
    writeln!(
        out,
        "s17 campaign plan --replan: {} kept (started), {} cut again from the units not \
         started; {} measured in {}, {:.3} times their plan",
        counted(r.kept as u64, "unit"),
        counted(r.new as u64, "unit"),
        counted(lines, "cost line"),
        counted(r.measured.len() as u64, "slice"),
        r.ratio,
    )?;
    for m in &r.measured {
        writeln!(
            out,
            "  slice {}: {} entries, {:.1} s measured against {:.1} s planned ({:.3}); its \
             cost now {:.3} times the table's",
            m.k,
            m.entries,
            m.seconds,
            m.planned,
            m.seconds / m.planned.max(f64::MIN_POSITIVE),
            m.ratio
        )?;
    }
    Ok(())
}

#[cfg(unix)]
fn set_executable(path: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("{}", path.display()))
}

#[cfg(not(unix))]
fn set_executable(_: &Path) -> anyhow::Result<()> {
    Ok(())
}

/// `--per-entry` holds each planned entry's bands 3 and cost: said on
/// stderr before a plan of more than a gigabyte of them (the whole
/// catalogue: about 12 GB and a few core-hours).
fn warn_per_entry_size(spec: &PlanSpec) {
    let entries: u64 = spec.pieces.iter().map(|(_, r)| r.end - r.start).sum();
    let bytes = entries * campaign::plan::PER_ENTRY_BYTES;
    if bytes > 1 << 30 {
        eprintln!(
            "s17 campaign plan: warning: --per-entry over {entries} entries needs about {:.1} GB of memory ({} bytes an entry) and about {:.1} core-hours to count their bands 3; plan fewer slices at a time on a smaller machine",
            bytes as f64 / 1e9,
            campaign::plan::PER_ENTRY_BYTES,
            entries as f64 * campaign::plan::BANDS3_SECONDS_PER_ENTRY / 3600.0,
        );
    }
}
