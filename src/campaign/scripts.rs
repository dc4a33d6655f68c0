//! The Slurm scripts of a campaign plan and the commands that submit
//! them: `campaign.sbatch`, an array of one task per unit submitted in
//! chunks of [`ARRAY_CHUNK`] ([`Plan::sbatch`], [`Plan::submit_commands`]),
//! and `work.sbatch`, an array of pulling workers ([`Plan::work_sbatch`]);
//! with the job time, Slurm's `--time` text and core-hours for people.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use super::plan::Plan;

/// Units per `sbatch` call: array indices 0 to 999, under Slurm's default
/// MaxArraySize (1001).
pub const ARRAY_CHUNK: usize = 1000;

impl Plan {
    /// The `sbatch` commands that submit every unit, in chunks of
    /// [`ARRAY_CHUNK`] (`script` is the path of `campaign.sbatch`).
    pub fn submit_commands(&self, script: &Path) -> Vec<String> {
        (0..self.units.len())
            .step_by(ARRAY_CHUNK)
            .map(|first| {
                let last = (first + ARRAY_CHUNK).min(self.units.len()) - first - 1;
                format!(
                    "sbatch --array=0-{last} {} {first}",
                    shell_quote(&script.display().to_string())
                )
            })
            .collect()
    }

    /// The Slurm array script for a campaign in `dir` (an absolute path),
    /// running `s17` (the binary's path, unless `$S17` is set), each task
    /// limited to `job` (a unit over it is killed, and continues where it
    /// stopped when run again).
    pub fn sbatch(&self, dir: &Path, s17: &Path, job: Duration) -> String {
        let d = dir.display().to_string();
        let q = shell_quote(&d);
        let script = super::sbatch_path(dir);
        let mut submit = String::new();
        for cmd in self.submit_commands(&script) {
            writeln!(submit, "#   {cmd}").expect("write to a String");
        }
        let largest = format_hours(self.largest().map_or(0.0, |u| u.est_seconds));
        // What merge writes: flag files for a --first campaign, else the
        // puzzles (17s with the known list beside them).
        let merged = if self.goal.first {
            "FLAG_DIR (a flag file per slice)".to_string()
        } else if self.goal.seeks_17s() {
            "17s.txt --known data/known17.txt".to_string()
        } else {
            format!("{}s.txt", self.goal.clues)
        };
        format!(
            r#"#!/usr/bin/env bash
#SBATCH --job-name=s17-campaign
#SBATCH --cpus-per-task=1
#SBATCH --time={time}
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --output={d}/logs/slurm-%A_%a.out
# {header}
#
# A Slurm job array over the {units} units of this campaign ({hours} core-hours
# estimated, the largest unit {largest}). Array task i of the chunk that starts
# at unit FIRST runs unit FIRST+i:
#
#   s17 campaign run {q} UNIT --threads $SLURM_CPUS_PER_TASK
#
# into {d}/out/UNIT.txt, resumable: a killed or requeued task continues
# where it stopped. Build the band tables once before submitting
# (`s17 tables build`; the tasks read them from $S17_TABLES or the cache
# directory). Submit every chunk (Slurm's default MaxArraySize is 1001; add
# %M to an --array to run at most M tasks at once):
#
{submit}#
# Then: `s17 campaign status {q}` (exit 0 once every entry is checkpointed
# exactly once), `s17 campaign merge {q} -o {merged}`.
# Each unit logs to {d}/logs/unit-UNIT.log (appended across requeues);
# Slurm's own notices go to {d}/logs/slurm-JOB_TASK.out.
#
# Environment: S17, the s17 binary (default: the one that wrote this plan).
set -euo pipefail

die() {{ echo "campaign.sbatch: error: $*" >&2; exit 2; }}
dir={q}
first=${{1:-0}}
[[ $first =~ ^[0-9]+$ ]] || die "the argument is the chunk's first unit, got '$first'"
task=${{SLURM_ARRAY_TASK_ID:-}}
[[ -n $task ]] || die "not an array task: submit with sbatch --array=0-N $0 FIRST"
unit=$((first + task))
s17=${{S17:-{s17}}}
[[ -x $s17 ]] || die "s17 binary '$s17' not found or not executable (set S17=/path/to/s17)"

mkdir -p "$dir/logs"
exec >> "$dir/logs/unit-$unit.log" 2>&1
echo "== $(date '+%F %T') unit $unit, job ${{SLURM_ARRAY_JOB_ID:-}}_$task (id ${{SLURM_JOB_ID:-}}) on $(hostname -s), restart ${{SLURM_RESTART_COUNT:-0}}"
status=0
"$s17" campaign run "$dir" "$unit" --threads "${{SLURM_CPUS_PER_TASK:-1}}" || status=$?
if ((status == 0)); then
    echo "== $(date '+%F %T') done: unit $unit"
else
    echo "== $(date '+%F %T') FAILED with exit status $status"
fi
exit "$status"
"#,
            header = self.header.trim_start_matches("# "),
            units = self.units.len(),
            hours = format_hours(self.seconds()),
            s17 = shell_quote(&s17.display().to_string()),
            time = slurm_time(job),
        )
    }

    /// The number of pulling workers to start for a campaign whose jobs
    /// last `job` each: enough to run it in about [`WORKER_ROUNDS`] rounds
    /// of jobs by the estimate, at most one per unit and at least one.
    pub fn workers(&self, job: Duration) -> usize {
        let rounds = self.seconds() / (WORKER_ROUNDS * job.as_secs_f64().max(1.0));
        (rounds.ceil() as usize).clamp(1, self.units.len().max(1))
    }

    /// The Slurm script of `workers` pulling workers (`s17 campaign work`;
    /// [`super::work`]) for a campaign in `dir` (an absolute path), each a
    /// job of at most `job`, requeued by itself while units are left.
    pub fn work_sbatch(&self, dir: &Path, s17: &Path, workers: usize, job: Duration) -> String {
        let d = dir.display().to_string();
        let q = shell_quote(&d);
        let script = shell_quote(&super::work_sbatch_path(dir).display().to_string());
        // No entry starts in the job's last tenth (at most ten minutes):
        // an entry in progress then has that long to finish.
        let margin = (job.as_secs() / 10).min(600);
        format!(
            r#"#!/usr/bin/env bash
#SBATCH --job-name=s17-work
#SBATCH --cpus-per-task=1
#SBATCH --time={time}
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --array=0-{last}
#SBATCH --output={d}/logs/work-%A_%a.out
# {header}
#
# {workers} pulling workers for the {units} units of this campaign ({hours}
# core-hours estimated). Each worker runs
#
#   s17 campaign work {q} --stop-after LEFT --threads $SLURM_CPUS_PER_TASK
#
# claiming one unit after another (DIR/claims/UNIT.claim, an exclusive
# create; a claim whose worker is gone is taken again), each resumable,
# until no unit is left; no entry starts in the job's last {margin} s
# (S17_MARGIN), and a worker stopped by its time requeues itself. Any
# number of workers may run: submit this script again, or with
# --array=0-N for N+1 of them. Build the band tables once first
# (`s17 tables build`). Submit:
#
#   sbatch {script}
#
# Then: `s17 campaign status {q}`, `s17 campaign merge {q} -o OUT`.
# Each worker logs to {d}/logs/worker-TASK.log (appended across requeues).
#
# Environment: S17, the s17 binary (default: the one that wrote this plan).
set -euo pipefail

die() {{ echo "work.sbatch: error: $*" >&2; exit 2; }}
dir={q}
s17=${{S17:-{s17}}}
[[ -x $s17 ]] || die "s17 binary '$s17' not found or not executable (set S17=/path/to/s17)"
margin=${{S17_MARGIN:-{margin}}}
task=${{SLURM_ARRAY_TASK_ID:-0}}
mkdir -p "$dir/logs"
exec >> "$dir/logs/worker-$task.log" 2>&1
# This task's own job (an array's first task shares its id with the array).
self=${{SLURM_JOB_ID:-0}}
[[ -n ${{SLURM_ARRAY_JOB_ID:-}} ]] && self=${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}}
# The job's time left, as Slurm says it ([D-]HH:MM:SS), less the margin.
left=$(squeue -h -j "$self" -o %L 2>/dev/null | head -n1 || true)
[[ $left =~ ^[0-9:-]+$ ]] || left={job_secs}s
echo "== $(date '+%F %T') worker $task, job ${{SLURM_JOB_ID:-}} on $(hostname -s), restart ${{SLURM_RESTART_COUNT:-0}}, time left $left"
status=0
"$s17" campaign work "$dir" --stop-after "$left" --margin "${{margin}}s" \
    --threads "${{SLURM_CPUS_PER_TASK:-1}}" || status=$?
if ((status == 75)) && [[ -n ${{SLURM_JOB_ID:-}} ]]; then
    echo "== $(date '+%F %T') time is up with units left: requeued"
    scontrol requeue "$self"
    exit 0
fi
echo "== $(date '+%F %T') worker $task ended with exit status $status"
exit "$status"
"#,
            time = slurm_time(job),
            last = workers.max(1) - 1,
            header = self.header.trim_start_matches("# "),
            units = self.units.len(),
            hours = format_hours(self.seconds()),
            s17 = shell_quote(&s17.display().to_string()),
            job_secs = job.as_secs(),
        )
    }
}

/// How many rounds of worker jobs [`Plan::workers`] aims a campaign at.
pub const WORKER_ROUNDS: f64 = 4.0;

/// The default job time for `unit_hours`: four times the unit's estimate
/// (the estimates are means of heavy-tailed costs), at least an hour.
pub fn default_job_time(unit_hours: f64) -> Duration {
    Duration::from_secs_f64((4.0 * unit_hours * 3600.0).max(3600.0).ceil())
}

/// A duration as Slurm's `--time` takes it: `D-HH:MM:SS`, rounded up to
/// whole minutes (Slurm's unit), at least one.
pub fn slurm_time(d: Duration) -> String {
    let minutes = d.as_secs().div_ceil(60).max(1);
    let (days, hours, mins) = (minutes / 1440, minutes / 60 % 24, minutes % 60);
    format!("{days}-{hours:02}:{mins:02}:00")
}

/// Core-hours for people: whole above 100, three decimals below 1.
pub fn format_hours(seconds: f64) -> String {
    let h = seconds / 3600.0;
    if h >= 100.0 {
        format!("{h:.0}")
    } else if h >= 1.0 {
        format!("{h:.1}")
    } else {
        format!("{h:.3}")
    }
}

/// `text` quoted for the shell (as is when it needs no quoting).
fn shell_quote(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:,=@%".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::plan::{MAGIC, PlanSpec, Unit};
    use crate::campaign::{CampaignError, CostTable};
    use crate::search::Goal;

    fn spec(list: &str) -> Result<PlanSpec, CampaignError> {
        PlanSpec::parse(list, &CostTable::committed())
    }

    #[test]
    fn scripts_set_a_time_and_the_workers() {
        let costs = CostTable::committed();
        let plan = Plan::new(&spec("28").unwrap(), 0.001, &costs).unwrap();
        let job = parse_job("1-02:03:30");
        assert_eq!(slurm_time(job), "1-02:04:00");
        assert_eq!(slurm_time(Duration::from_secs(1)), "0-00:01:00");
        let (dir, s17) = (Path::new("/c"), Path::new("/bin/s17"));
        let array = plan.sbatch(dir, s17, job);
        assert!(array.contains("#SBATCH --time=1-02:04:00\n"), "{array}");
        let work = plan.work_sbatch(dir, s17, 3, job);
        for line in [
            "#SBATCH --time=1-02:04:00\n",
            "#SBATCH --requeue\n",
            "#SBATCH --array=0-2\n",
            "campaign work \"$dir\" --stop-after \"$left\"",
            "scontrol requeue \"$self\"",
        ] {
            assert!(work.contains(line), "{line}: {work}");
        }
        // Four rounds of jobs by the estimate, at most a worker per unit.
        let w = plan.workers(Duration::from_secs(60));
        assert_eq!(
            w,
            ((plan.seconds() / 240.0).ceil() as usize).min(plan.units.len())
        );
        assert_eq!(plan.workers(Duration::from_secs(1 << 30)), 1);
    }

    fn parse_job(text: &str) -> Duration {
        crate::campaign::work::parse_duration(text).unwrap()
    }

    #[test]
    fn submit_commands_chunk_under_max_array_size() {
        let unit = |number| Unit {
            number,
            k: 0,
            entries: number as u64..number as u64 + 1,
            est_seconds: 1.0,
        };
        let plan = Plan {
            header: MAGIC.into(),
            units: (0..2345).map(unit).collect(),
            goal: Goal::default(),
        };
        assert_eq!(
            plan.submit_commands(Path::new("/c d/campaign.sbatch")),
            [
                "sbatch --array=0-999 '/c d/campaign.sbatch' 0",
                "sbatch --array=0-999 '/c d/campaign.sbatch' 1000",
                "sbatch --array=0-344 '/c d/campaign.sbatch' 2000",
            ]
        );
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
