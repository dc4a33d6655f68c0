//! Workers that pull units (`s17 campaign work DIR`): a fixed number of
//! Slurm tasks runs a campaign of any number of units. Each worker claims
//! the next unit that is neither done nor claimed, runs it with its
//! checkpoint ([`super::run`]), marks it done, and goes on until no unit is
//! left or its time is nearly up.
//!
//! # Claims
//!
//! A claim is the file `DIR/claims/UNIT.claim`, made with an exclusive
//! create (`O_CREAT|O_EXCL`, atomic on local file systems, NFSv3 and later
//! and Lustre; `flock` is not relied on, since NFS and Lustre mounts often
//! do not carry it between nodes). It holds one line naming its holder
//! ([`Holder`]: host, process id and start time, Slurm job, task and
//! restart count, and a nonce that no other claim shares). Its holder
//! refreshes the file's modification time every [`REFRESH`] (the
//! heartbeat) while it runs the unit. A finished unit gets the marker
//! `DIR/claims/UNIT.done`, and is never claimed again; its claim is then
//! removed.
//!
//! A claim is **stale**, and taken again, when its holder is gone:
//!
//! - on the same host, its process is not running (no such process id, or
//!   one started at another time: a reused id);
//! - it is the claim of this same Slurm job and task from an earlier run of
//!   it (a requeued job starts again with the same job id and a higher
//!   restart count; Slurm ended the earlier run first);
//! - otherwise (another host): its heartbeat is older than the stale bound
//!   (`--stale-after`, default [`STALE`]); so the nodes' clocks must agree
//!   to well within that bound (NTP), and a worker that is stopped (not
//!   killed) for longer than the bound may find its unit taken.
//!
//! Taking a stale claim: rename it to a name of our own (of two takers,
//! only one rename succeeds), check that the file moved is the stale claim
//! judged (its nonce), remove it, then claim as usual with an exclusive
//! create. If the file moved was a fresh claim made meanwhile by another
//! worker, it is put back with a hard link, which fails rather than replace
//! a claim made since. A holder checks at every heartbeat that its claim
//! is still its own and stops starting entries if not. Behind the claims,
//! a unit's result files are locked while a run writes them
//! ([`crate::output::OutputLock`]): where `flock` works, two runs of one
//! unit cannot both write it whatever the claims say; a worker refused
//! that lock leaves the unit to its holder and goes on.
//!
//! A worker that stops for time, or on a signal, between entries removes
//! its claim, so another worker can take the unit at once; one that is
//! killed leaves its claim, which becomes stale as above. Units are
//! scanned in order from where the worker last claimed; done markers make
//! the scan skip finished units without reading their checkpoints.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::{CampaignError, io_error};

/// How often a holder refreshes its claim's heartbeat.
pub const REFRESH: Duration = Duration::from_secs(60);

/// The default age of a heartbeat after which a claim of another host is
/// stale: ten refreshes missed.
pub const STALE: Duration = Duration::from_secs(600);

/// The directory of the claims and done markers: `DIR/claims`.
pub fn claims_dir(dir: &Path) -> PathBuf {
    dir.join("claims")
}

/// Unit `unit`'s claim file: `DIR/claims/UNIT.claim`.
pub fn claim_path(dir: &Path, unit: usize) -> PathBuf {
    claims_dir(dir).join(format!("{unit}.claim"))
}

/// Unit `unit`'s done marker: `DIR/claims/UNIT.done`.
pub fn done_path(dir: &Path, unit: usize) -> PathBuf {
    claims_dir(dir).join(format!("{unit}.done"))
}

/// Who holds a claim: the one line of a claim file,
/// `host=H pid=P start=S job=J task=T restart=R nonce=N` (`-` for a value
/// not known).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    pub host: String,
    pub pid: u32,
    /// The process's start time (clock ticks after boot, from
    /// `/proc/PID/stat`), to tell a reused process id; 0 if not known.
    pub start: u64,
    /// `SLURM_JOB_ID`, `SLURM_PROCID` (the task in the job),
    /// `SLURM_RESTART_COUNT`.
    pub job: String,
    pub task: String,
    pub restart: u64,
    /// Unique to this claim.
    pub nonce: String,
}

impl Holder {
    /// This process, from its host name, `/proc` and the Slurm environment.
    pub fn this_process() -> Holder {
        let var = |name: &str| {
            std::env::var(name)
                .ok()
                .filter(|v| !v.is_empty() && !v.contains(char::is_whitespace))
                .unwrap_or_else(|| "-".to_string())
        };
        let pid = std::process::id();
        Holder {
            host: host_name(),
            pid,
            start: process_start(pid).unwrap_or(0),
            job: var("SLURM_JOB_ID"),
            task: var("SLURM_PROCID"),
            restart: var("SLURM_RESTART_COUNT").parse().unwrap_or(0),
            nonce: String::new(),
        }
    }

    /// A holder not known (a claim file with no complete line).
    fn unknown() -> Holder {
        Holder {
            host: "?".to_string(),
            pid: 0,
            start: 0,
            job: "-".to_string(),
            task: "-".to_string(),
            restart: 0,
            nonce: String::new(),
        }
    }

    /// A copy with a fresh nonce, for one claim.
    fn with_nonce(&self) -> Holder {
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default();
        Holder {
            nonce: format!(
                "{}.{}.{:x}",
                now.as_secs(),
                now.subsec_nanos(),
                fastrand::u64(..)
            ),
            ..self.clone()
        }
    }

    /// The claim file's line.
    pub fn to_line(&self) -> String {
        format!(
            "host={} pid={} start={} job={} task={} restart={} nonce={}\n",
            self.host, self.pid, self.start, self.job, self.task, self.restart, self.nonce
        )
    }

    /// Reads a claim file's line; `None` if it is not one (a claim cut by
    /// a kill during its creation, or not ours).
    pub fn parse(text: &str) -> Option<Holder> {
        let line = text.strip_suffix('\n')?;
        let mut h = Holder {
            host: String::new(),
            pid: 0,
            start: 0,
            job: String::new(),
            task: String::new(),
            restart: 0,
            nonce: String::new(),
        };
        for word in line.split(' ') {
            let (key, value) = word.split_once('=')?;
            match key {
                "host" => h.host = value.to_string(),
                "pid" => h.pid = value.parse().ok()?,
                "start" => h.start = value.parse().ok()?,
                "job" => h.job = value.to_string(),
                "task" => h.task = value.to_string(),
                "restart" => h.restart = value.parse().ok()?,
                "nonce" => h.nonce = value.to_string(),
                _ => {}
            }
        }
        (!h.host.is_empty() && !h.nonce.is_empty()).then_some(h)
    }

    /// For people: `host:pid` and the Slurm job if any.
    pub fn describe(&self) -> String {
        let mut text = format!("{}:{}", self.host, self.pid);
        if self.job != "-" {
            text += &format!(" (job {}, task {})", self.job, self.task);
        }
        text
    }
}

/// The host's name (`/proc/sys/kernel/hostname`, `$HOSTNAME`, or `-`).
fn host_name() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().replace(char::is_whitespace, "_"))
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "-".to_string())
}

/// The start time of process `pid` (field 22 of `/proc/PID/stat`), if it
/// runs and `/proc` tells.
fn process_start(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split(' ').nth(19)?.parse().ok()
}

/// Whether a claim's holder is gone (module note), judged by `me` at
/// `now`, the claim's heartbeat being `beat`.
pub fn is_stale(
    holder: &Holder,
    beat: SystemTime,
    me: &Holder,
    now: SystemTime,
    stale_after: Duration,
) -> bool {
    if holder.host == me.host && holder.host != "-" {
        if holder.pid == me.pid && holder.start == me.start {
            // Ours: never stale to ourselves.
            return false;
        }
        if Path::new("/proc/self").exists() {
            return process_start(holder.pid)
                .is_none_or(|s| holder.start != 0 && s != holder.start);
        }
    }
    if holder.job != "-" && holder.job == me.job && holder.task == me.task {
        return holder.restart < me.restart;
    }
    now.duration_since(beat).unwrap_or_default() > stale_after
}

/// A claim this worker holds: removed on drop unless the unit is marked
/// done first (which removes it too).
#[derive(Debug)]
pub struct Claim {
    pub unit: usize,
    path: PathBuf,
    done: PathBuf,
    holder: Holder,
    /// The claim file, open: its heartbeat is refreshed through it.
    file: File,
    released: bool,
}

/// What a try to claim a unit found.
#[derive(Debug)]
pub enum Claimed {
    /// The unit is ours.
    Won(Claim),
    /// The unit has a done marker.
    Done,
    /// Another worker holds it (and is not gone).
    Held(Holder),
}

/// The claims of a campaign, as one worker sees them.
pub struct Claims {
    dir: PathBuf,
    me: Holder,
    stale_after: Duration,
}

impl Claims {
    /// The claims of the campaign in `dir` (its `claims/` made if
    /// missing), for this process.
    pub fn new(dir: &Path, stale_after: Duration) -> Result<Claims, CampaignError> {
        Claims::with_holder(dir, stale_after, Holder::this_process())
    }

    /// As [`Claims::new`], claiming as `me` (tests play several workers).
    pub fn with_holder(
        dir: &Path,
        stale_after: Duration,
        me: Holder,
    ) -> Result<Claims, CampaignError> {
        let claims = claims_dir(dir);
        fs::create_dir_all(&claims).map_err(io_error(&claims))?;
        Ok(Claims {
            dir: dir.to_path_buf(),
            me,
            stale_after,
        })
    }

    pub fn me(&self) -> &Holder {
        &self.me
    }

    /// True if `unit` has its done marker.
    pub fn is_done(&self, unit: usize) -> bool {
        done_path(&self.dir, unit).exists()
    }

    /// Tries to claim `unit` (module note).
    pub fn try_claim(&self, unit: usize) -> Result<Claimed, CampaignError> {
        let path = claim_path(&self.dir, unit);
        // A few rounds: each lost race is another worker's progress.
        for _ in 0..8 {
            if self.is_done(unit) {
                return Ok(Claimed::Done);
            }
            let holder = self.me.with_nonce();
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    let written = file
                        .write_all(holder.to_line().as_bytes())
                        .and_then(|()| file.sync_all());
                    if let Err(e) = written {
                        let _ = fs::remove_file(&path);
                        return Err(io_error(&path)(e));
                    }
                    let claim = Claim {
                        unit,
                        path,
                        done: done_path(&self.dir, unit),
                        holder,
                        file,
                        released: false,
                    };
                    // Done between our check and our claim: give it back.
                    if claim.done.exists() {
                        drop(claim);
                        return Ok(Claimed::Done);
                    }
                    return Ok(Claimed::Won(claim));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(io_error(&path)(e)),
            }
            let Some((text, beat)) = read_claim(&path).map_err(io_error(&path))? else {
                continue; // removed meanwhile: try again
            };
            let old = Holder::parse(&text);
            let stale = match &old {
                Some(h) => is_stale(h, beat, &self.me, SystemTime::now(), self.stale_after),
                // Cut by a kill while it was made, or garbage: stale once
                // its heartbeat is (its maker may be writing it now).
                None => {
                    SystemTime::now().duration_since(beat).unwrap_or_default() > self.stale_after
                }
            };
            if !stale {
                // A claim being written now has no line yet: held all the same.
                return Ok(Claimed::Held(old.unwrap_or_else(Holder::unknown)));
            }
            self.break_claim(&path, &text)?;
        }
        // Still contended: leave it to the others.
        let held = read_claim(&path)
            .ok()
            .flatten()
            .and_then(|(t, _)| Holder::parse(&t));
        Ok(Claimed::Held(held.unwrap_or_else(Holder::unknown)))
    }

    /// Removes the stale claim at `path` whose text is `judged`, unless it
    /// changed meanwhile (module note).
    fn break_claim(&self, path: &Path, judged: &str) -> Result<(), CampaignError> {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".broken.{}", self.me.with_nonce().nonce));
        let moved = PathBuf::from(name);
        match fs::rename(path, &moved) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io_error(path)(e)),
        }
        let text = fs::read_to_string(&moved).unwrap_or_default();
        if text != judged {
            // A fresh claim made since we judged: put it back, unless
            // another was made since (that holder's heartbeat check sees
            // it lost its claim).
            let _ = fs::hard_link(&moved, path);
        }
        fs::remove_file(&moved).map_err(io_error(&moved))
    }
}

/// A claim file's text and modification time; `None` if it is gone.
fn read_claim(path: &Path) -> io::Result<Option<(String, SystemTime)>> {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let beat = file.metadata()?.modified()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(Some((String::from_utf8_lossy(&bytes).into_owned(), beat)))
}

impl Claim {
    pub fn holder(&self) -> &Holder {
        &self.holder
    }

    /// Whether the claim file still names this holder (not taken as stale
    /// by another worker).
    fn is_ours(&self) -> bool {
        read_claim(&self.path)
            .ok()
            .flatten()
            .and_then(|(t, _)| Holder::parse(&t))
            .is_some_and(|h| h.nonce == self.holder.nonce)
    }

    /// Refreshes the heartbeat; false if the claim is no longer ours
    /// (taken as stale by another worker).
    pub fn refresh(&self) -> bool {
        let ours = self.is_ours();
        if ours {
            let _ = self.file.set_modified(SystemTime::now());
        }
        ours
    }

    /// Marks the unit done (its marker made, then the claim removed).
    pub fn finish(mut self) -> Result<(), CampaignError> {
        let done = File::create(&self.done).and_then(|f| f.sync_all());
        done.map_err(io_error(&self.done))?;
        self.release();
        Ok(())
    }

    /// Gives the unit back (the claim removed if it is still ours).
    pub fn release(&mut self) {
        if !self.released {
            self.released = true;
            if self.is_ours() {
                let _ = fs::remove_file(&self.path);
            }
        }
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        self.release();
    }
}

/// A duration for people and scripts: seconds (`90`, `90s`), minutes
/// (`45m`), hours (`2h`), days (`1d`), or Slurm's `[D-]HH:MM:SS`, `MM:SS`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad =
        || format!("{text:?} is not a duration (give 90s, 45m, 2h, 1d or Slurm's [D-]HH:MM:SS)");
    let t = text.trim();
    if t.contains(':') {
        let (days, clock) = match t.split_once('-') {
            Some((d, c)) => (d.parse::<u64>().map_err(|_| bad())?, c),
            None => (0, t),
        };
        let parts: Vec<u64> = clock
            .split(':')
            .map(|p| p.parse::<u64>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        let secs = match parts[..] {
            [m, s] => m * 60 + s,
            [h, m, s] => h * 3600 + m * 60 + s,
            _ => return Err(bad()),
        };
        return Ok(Duration::from_secs(days * 86_400 + secs));
    }
    let (number, unit) = match t.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let n: f64 = number.parse().map_err(|_| bad())?;
    let scale = match unit {
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        _ => return Err(bad()),
    };
    let secs = n * scale;
    if !secs.is_finite() || secs < 0.0 {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worker(host: &str, pid: u32, job: &str) -> Holder {
        Holder {
            host: host.into(),
            pid,
            start: 1,
            job: job.into(),
            task: "0".into(),
            restart: 0,
            nonce: String::new(),
        }
    }

    #[test]
    fn two_claimers_never_both_win() {
        let dir = tempfile::tempdir().unwrap();
        // Threads racing for the same units, as workers on other hosts
        // (no process check, fresh heartbeats): one winner per unit.
        let wins: Vec<Vec<usize>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|w| {
                    let d = dir.path();
                    s.spawn(move || {
                        let claims =
                            Claims::with_holder(d, STALE, worker(&format!("h{w}"), 10 + w, "-"))
                                .unwrap();
                        let mut won = Vec::new();
                        for unit in 0..50 {
                            if let Claimed::Won(c) = claims.try_claim(unit).unwrap() {
                                won.push(unit);
                                std::mem::forget(c); // keep the claim file
                            }
                        }
                        won
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut all: Vec<usize> = wins.concat();
        all.sort();
        assert_eq!(
            all,
            (0..50).collect::<Vec<_>>(),
            "each unit won exactly once"
        );
    }

    #[test]
    fn a_stale_claim_is_taken_again_and_a_fresh_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let a = Claims::with_holder(dir.path(), STALE, worker("ha", 1, "-")).unwrap();
        let b = Claims::with_holder(dir.path(), STALE, worker("hb", 2, "-")).unwrap();
        let Claimed::Won(claim) = a.try_claim(3).unwrap() else {
            panic!("a claims unit 3")
        };
        assert!(matches!(b.try_claim(3).unwrap(), Claimed::Held(h) if h.host == "ha"));
        assert!(claim.refresh(), "the claim is a's");
        // a is killed: its claim stays, its heartbeat ages past the bound.
        let old = SystemTime::now() - STALE - Duration::from_secs(5);
        claim.file.set_modified(old).unwrap();
        std::mem::forget(claim);
        let Claimed::Won(taken) = b.try_claim(3).unwrap() else {
            panic!("b takes the stale claim")
        };
        assert_eq!(taken.holder().host, "hb");
        // A cut claim (a kill while it was written) with an old heartbeat.
        let cut = claim_path(dir.path(), 4);
        fs::write(&cut, "host=hc pid=").unwrap();
        File::options()
            .write(true)
            .open(&cut)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert!(matches!(a.try_claim(4).unwrap(), Claimed::Won(_)));
    }

    #[test]
    fn a_claim_of_a_dead_process_on_this_host_or_an_earlier_run_of_the_job_is_stale() {
        let me = Holder::this_process();
        let now = SystemTime::now();
        // Same host, a process id that does not run (above pid_max).
        let dead = Holder {
            pid: 4_999_999,
            ..me.clone()
        };
        assert!(is_stale(&dead, now, &me, now, STALE));
        // Same host, this very process: alive.
        let alive = Holder {
            pid: me.pid,
            start: me.start,
            nonce: "x".into(),
            ..me.clone()
        };
        assert!(!is_stale(&alive, now, &me, now, STALE));
        // Another host, same Slurm job and task, earlier restart.
        let me_slurm = Holder {
            host: "n2".into(),
            job: "77".into(),
            task: "0".into(),
            restart: 1,
            ..me.clone()
        };
        let earlier = Holder {
            host: "n1".into(),
            restart: 0,
            ..me_slurm.clone()
        };
        assert!(is_stale(&earlier, now, &me_slurm, now, STALE));
        let other_job = Holder {
            job: "78".into(),
            ..earlier
        };
        assert!(!is_stale(&other_job, now, &me_slurm, now, STALE));
    }

    #[test]
    fn a_done_unit_is_never_claimed() {
        let dir = tempfile::tempdir().unwrap();
        let a = Claims::with_holder(dir.path(), STALE, worker("ha", 1, "-")).unwrap();
        let b = Claims::with_holder(dir.path(), STALE, worker("hb", 2, "-")).unwrap();
        let Claimed::Won(claim) = a.try_claim(0).unwrap() else {
            panic!()
        };
        claim.finish().unwrap();
        assert!(!claim_path(dir.path(), 0).exists(), "the claim is removed");
        assert!(matches!(b.try_claim(0).unwrap(), Claimed::Done));
        assert!(matches!(a.try_claim(0).unwrap(), Claimed::Done));
        // A released claim (stopped for time) is free at once.
        let Claimed::Won(mut claim) = a.try_claim(1).unwrap() else {
            panic!()
        };
        claim.release();
        assert!(matches!(b.try_claim(1).unwrap(), Claimed::Won(_)));
    }

    #[test]
    fn a_holder_whose_claim_was_taken_knows_it() {
        let dir = tempfile::tempdir().unwrap();
        let a = Claims::with_holder(dir.path(), Duration::ZERO, worker("ha", 1, "-")).unwrap();
        let b = Claims::with_holder(dir.path(), Duration::ZERO, worker("hb", 2, "-")).unwrap();
        let Claimed::Won(claim) = a.try_claim(0).unwrap() else {
            panic!()
        };
        std::thread::sleep(Duration::from_millis(20));
        let Claimed::Won(_taken) = b.try_claim(0).unwrap() else {
            panic!("a zero bound makes a's claim stale")
        };
        assert!(!claim.refresh());
        drop(claim); // does not remove b's claim
        assert!(claim_path(dir.path(), 0).exists());
    }

    #[test]
    fn durations_parse() {
        let s = |t: &str| parse_duration(t).unwrap().as_secs();
        assert_eq!(s("90"), 90);
        assert_eq!(s("90s"), 90);
        assert_eq!(s("45m"), 2700);
        assert_eq!(s("2h"), 7200);
        assert_eq!(s("1d"), 86_400);
        assert_eq!(s("1-02:03:04"), 93_784);
        assert_eq!(s("02:03:04"), 7384);
        assert_eq!(s("03:04"), 184);
        for bad in ["", "x", "5w", "1:2:3:4", "-5s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
