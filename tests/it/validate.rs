//! `s17 validate` on the real binary, with small lists cut from the known
//! list: a complete list of two grids passes (and its checkpoint makes a
//! rerun search nothing), a list missing one 17 reports it as new (checked
//! as the same puzzle up to symmetry), bad lines are named and give exit 1,
//! and a run paused mid-search records its CPU time, not the pause.
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): the whole
//! search on grids of the known list, as `s17 validate` runs it (also run by
//! hand on samples of 200 grids and on the whole known list:
//! benches/HISTORY.md).

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use s17::canon::{automorphism_count, minlex_puzzle};
use s17::grid::Puzzle;

use crate::common::bin::{run_in, s17_in};

struct Fixture {
    /// Known 17s of two grids without automorphisms, each list complete.
    grids: Vec<Vec<Puzzle>>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let known = &crate::common::fixture().known;
        // Seeded choice of grids with 2 or 3 known 17s and no automorphism.
        let entries = known.entries();
        let mut rng = fastrand::Rng::with_seed(8);
        let mut grids = Vec::new();
        while grids.len() < 2 {
            let (grid, puzzles) = entries[rng.usize(..entries.len())];
            if (2..=3).contains(&puzzles.len()) && automorphism_count(grid) == 1 {
                grids.push(puzzles.to_vec());
            }
        }
        Fixture { grids }
    })
}

fn write_list(dir: &Path, name: &str, puzzles: &[&Puzzle]) {
    let text: String = puzzles.iter().map(|p| format!("{p}\n")).collect();
    std::fs::write(dir.join(name), format!("# cut from known17.txt\n{text}")).unwrap();
}

#[test]
fn a_complete_list_passes_and_its_checkpoint_resumes() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let all: Vec<&Puzzle> = f.grids.iter().flatten().collect();
    write_list(dir.path(), "list.txt", &all);
    let args = [
        "validate",
        "list.txt",
        "--checkpoint",
        "ck.txt",
        "--threads",
        "2",
    ];
    let out = run_in(dir.path(), &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "",
        "nothing missed, nothing new"
    );
    let total = all.len();
    assert!(
        stderr.contains(&format!(
            "{total} known 17s expected, {total} found, 0 missed, 0 new"
        )),
        "{stderr}"
    );

    // Each grid's search time, after its checkpoint line.
    let times_path = dir.path().join("ck.txt.times");
    let times = std::fs::read_to_string(&times_path).unwrap();
    let mut timed: Vec<(usize, f64)> = times
        .lines()
        .map(|l| {
            let (grid, secs) = l.split_once('\t').unwrap();
            (grid.parse().unwrap(), secs.parse().unwrap())
        })
        .collect();
    timed.sort_by_key(|t| t.0);
    assert_eq!(timed.iter().map(|t| t.0).collect::<Vec<_>>(), [1, 2]);
    assert!(timed.iter().all(|t| t.1 > 0.0), "{times}");
    // A line of a grid not finished and a partial last line (a kill) are
    // left out of the report.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&times_path)
        .unwrap();
    std::io::Write::write_all(&mut file, b"7\t5.0\n1\t99.0").unwrap();
    drop(file);

    let again = run_in(dir.path(), &args);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("2 grids done before, 0 to go"), "{stderr}");
    assert!(
        stderr.contains(&format!("{total} found, 0 missed")),
        "{stderr}"
    );
    // The times of the earlier run are reported: both grids, the slowest
    // first.
    let total_secs = timed.iter().map(|t| t.1).sum::<f64>();
    assert!(
        stderr.contains(&format!(
            "2 grids timed (2 in earlier runs), {:.2} CPU hours of search in all; slowest:",
            total_secs / 3600.0
        )),
        "{stderr}"
    );
    let slowest = timed.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    assert!(
        stderr.contains(&format!("{:.3} s\tgrid {}\t", slowest.1, slowest.0)),
        "{stderr}"
    );
    assert!(!stderr.contains("99.000"), "{stderr}");
}

#[test]
fn a_17_missing_from_the_list_is_reported_new() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let (dropped, rest) = f.grids[0].split_first().unwrap();
    write_list(dir.path(), "list.txt", &rest.iter().collect::<Vec<_>>());
    // One grid, searched in a random orientation.
    let out = run_in(
        dir.path(),
        &["validate", "list.txt", "--sample", "1", "--seed", "3"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "new 17s are not a failure: {stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    let fields: Vec<&str> = lines[0].split('\t').collect();
    assert_eq!(fields[0], "new");
    let found = Puzzle::parse(fields[2]).unwrap();
    assert_eq!(minlex_puzzle(&found).0, minlex_puzzle(dropped).0);
    assert!(stderr.contains("0 missed, 1 new, 0 invalid"), "{stderr}");
}

#[test]
fn bad_lines_are_named_and_fail() {
    let dir = tempfile::tempdir().unwrap();
    let good = fixture().grids[0][0].to_string();
    let sixteen = good.replacen(|c: char| c.is_ascii_digit(), ".", 1);
    let text = format!(
        "{good}\n{sixteen}\nhello\n{}\n",
        ".".repeat(64) + &"123456789".repeat(2)[..17]
    );
    std::fs::write(dir.path().join("list.txt"), text).unwrap();
    // Only the bad lines matter here: search no grid.
    let out = run_in(dir.path(), &["validate", "list.txt", "--sample", "0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("line 2: 16 clues"), "{stderr}");
    assert!(stderr.contains("line 3: "), "{stderr}");
    assert!(stderr.contains("line 4: "), "{stderr}");
    assert!(!stderr.contains("line 1: "), "{stderr}");
}

#[test]
fn a_checkpoint_in_use_by_another_run_is_refused() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    write_list(dir.path(), "list.txt", &[&f.grids[0][0]]);
    // Another run holds the checkpoint's lock (this test process, as a
    // running validate would).
    let held = s17::output::OutputLock::acquire(&dir.path().join("ck.txt")).unwrap();
    let args = ["validate", "list.txt", "--checkpoint", "ck.txt"];
    let out = run_in(dir.path(), &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "ck.txt is in use by another run (process {}, lock ck.txt.lock)",
            std::process::id()
        )),
        "{stderr}"
    );
    assert!(!dir.path().join("ck.txt").exists(), "nothing written");
    drop(held);
    let out = run_in(dir.path(), &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A run paused in the middle of its search (SIGSTOP, as a loaded or
/// suspended machine would) records the grid's CPU time, not a wall time
/// that holds the pause: the recorded time fits in the run's wall time
/// less the pause.
#[test]
fn a_paused_run_records_cpu_time_not_the_pause() {
    use std::io::BufRead;
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let grid: Vec<&Puzzle> = f.grids[0].iter().collect();
    write_list(dir.path(), "list.txt", &grid);
    let start = std::time::Instant::now();
    let args = ["validate", "list.txt", "--checkpoint", "ck.txt"];
    let mut child = s17_in(dir.path(), &args)
        .args(["--threads", "1", "-vv"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The debug log says when the first choice's harvest is done: the
    // search is then under way (its rows take about a second), and the
    // pause lands in it.
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            if line.unwrap().contains("harvest done") {
                let _ = tx.send(());
            }
        }
    });
    rx.recv_timeout(crate::common::progress_limit(600))
        .expect("the search started");
    let pid = child.id().to_string();
    let signal = |name: &str| {
        let status = Command::new("sh")
            .args(["-c", &format!("kill -{name} {pid}")])
            .status()
            .unwrap();
        assert!(status.success());
    };
    let pause = std::time::Duration::from_secs(3);
    signal("STOP");
    std::thread::sleep(pause);
    signal("CONT");
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
    let wall = start.elapsed().as_secs_f64();
    let times = std::fs::read_to_string(dir.path().join("ck.txt.times")).unwrap();
    let (_, secs) = times.trim().split_once('\t').unwrap();
    let secs: f64 = secs.parse().unwrap();
    assert!(secs > 0.0, "{times}");
    assert!(
        secs < wall - pause.as_secs_f64(),
        "recorded {secs} s of a run of {wall:.3} s wall with a {pause:?} pause"
    );
}
