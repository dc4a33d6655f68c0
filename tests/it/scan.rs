//! `s17 scan` on the real binary: a tiny catalogue (grids of the known list
//! in random orientation, a random grid, comments, bad lines) whose expected
//! output comes from the known list, bad lines, resume after a crash (by
//! hand and by a real kill), slices, refusing to overwrite. The scan file
//! logic itself is tested at every byte in `src/scan.rs` with a fake search.
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): results
//! lost or repeated by a crash or a kill, two runs on one output
//! (`resume_after_a_real_kill_gives_the_uninterrupted_output`,
//! `parts_together_give_the_full_scan`,
//! `the_old_slice_spelling_gives_the_same_part`,
//! `a_second_scan_on_the_same_output_is_refused_at_once`).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Output;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use s17::canon::{Transform, minlex_puzzle};
use s17::generate::random_grid;
use s17::grid::{Grid, Puzzle};

use crate::common::bin::sorted_lines;
use crate::common::bin::{run_in, s17_in};

struct Fixture {
    catalogue: String,
    /// Sorted `LINE<TAB>PUZZLE` lines the known list predicts.
    expected: Vec<String>,
    /// Lines of the catalogue holding a grid.
    grid_lines: Vec<usize>,
}

const BAD_LINES: [usize; 2] = [4, 7];

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let known = &crate::common::fixture().known;
        let grids: Vec<Grid> = known.entries().into_iter().map(|(g, _)| *g).collect();
        let mut rng = fastrand::Rng::with_seed(5);
        let mut pick = || Transform::random(&mut rng).apply_grid(&grids[rng.usize(..grids.len())]);
        let (a, b) = (pick(), pick());
        let c = random_grid(&mut fastrand::Rng::with_seed(11));
        // A bad line: grid a with its first two cells swapped (repeats in a column).
        let mut broken = a.to_string().into_bytes();
        broken.swap(0, 1);
        let broken = String::from_utf8(broken).unwrap();
        let catalogue = format!("# tiny catalogue\n{a}\n\n{broken}\n{b}\n# comment\n12345\n{c}\n");
        let mut expected = Vec::new();
        for (line, grid) in [(2, a), (5, b), (8, c)] {
            expected.extend(known.expected(&grid).iter().map(|p| format!("{line}\t{p}")));
        }
        expected.sort();
        assert!(expected.len() >= 2, "the sample holds known 17s");
        Fixture {
            catalogue,
            expected,
            grid_lines: vec![2, 5, 8],
        }
    })
}

/// A temporary directory holding the catalogue as `cat.txt`.
fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cat.txt"), &fixture().catalogue).unwrap();
    dir
}

fn checkpoint_entries(path: &Path) -> BTreeSet<usize> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split('\t').next().unwrap().parse().unwrap())
        .collect()
}

/// The grids a checkpoint records as finished, reading only its complete
/// lines (it may be read while a scan writes it).
fn finished_entries(path: &Path) -> BTreeSet<usize> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return BTreeSet::new();
    };
    let complete = &text[..text.rfind('\n').map_or(0, |n| n + 1)];
    complete
        .lines()
        .skip(1)
        .map(|l| l.split('\t').next().unwrap().parse().unwrap())
        .collect()
}

struct FullScan {
    out: Output,
    /// The output's lines, sorted.
    lines: Vec<String>,
    /// The output and checkpoint files as written.
    output: Vec<u8>,
    checkpoint: Vec<u8>,
}

/// The uninterrupted scan of the tiny catalogue (run once).
fn full_scan() -> &'static FullScan {
    static FULL: OnceLock<FullScan> = OnceLock::new();
    FULL.get_or_init(|| {
        let dir = workdir();
        // Progress lines every 0.2 s (stderr is a pipe here, no terminal).
        let args = ["scan", "cat.txt", "--output", "out.txt", "--threads", "2"];
        let out = s17_in(dir.path(), &args)
            .env("S17_PROGRESS_SECS", "0.2")
            .output()
            .unwrap();
        let done = dir.path().join("out.txt.done");
        assert_eq!(
            checkpoint_entries(&done),
            fixture().grid_lines.iter().copied().collect()
        );
        FullScan {
            out,
            lines: sorted_lines(&dir.path().join("out.txt")),
            output: std::fs::read(dir.path().join("out.txt")).unwrap(),
            checkpoint: std::fs::read(done).unwrap(),
        }
    })
}

#[test]
fn scan_finds_the_known_17s_and_reports_bad_lines() {
    let FullScan { out, lines, .. } = full_scan();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "bad lines give exit 1: {stderr}"
    );
    for line in BAD_LINES {
        assert!(
            stderr.contains(&format!("cat.txt: line {line}: ")),
            "{stderr}"
        );
    }
    assert!(stderr.contains("3 grids searched, 2 bad lines"), "{stderr}");
    assert_eq!(*lines, fixture().expected);
    // With no terminal, plain progress lines (the search of a grid holding
    // 17s takes far longer than their 0.2 s interval).
    let progress: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("s17: ") && l.contains(" of 3 grids ("))
        .collect();
    assert!(!progress.is_empty(), "{stderr}");
    assert!(
        progress.iter().all(|l| l.contains(" elapsed, ETA ")),
        "{stderr}"
    );
}

#[test]
fn strict_stops_at_the_first_bad_line() {
    let dir = workdir();
    let out = run_in(
        dir.path(),
        &["scan", "cat.txt", "-o", "out.txt", "--strict"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains("line 4: ") && !stderr.contains("line 7: "),
        "{stderr}"
    );
    assert!(!dir.path().join("out.txt").exists());
}

#[test]
fn an_existing_output_is_not_overwritten() {
    let dir = workdir();
    std::fs::write(dir.path().join("out.txt"), "precious\n").unwrap();
    for extra in [&[][..], &["--resume"][..]] {
        let mut args = vec!["scan", "cat.txt", "-o", "out.txt"];
        args.extend_from_slice(extra);
        let out = run_in(dir.path(), &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1));
        assert!(stderr.contains("--force"), "{stderr}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
            "precious\n"
        );
    }
}

#[test]
fn resume_after_a_crash_gives_the_uninterrupted_output() {
    // The state a crash can leave: the last finished grid's checkpoint entry
    // missing, and the output cut in the middle of its last line.
    let scan = full_scan();
    let full = &scan.lines;
    let dir = workdir();
    let output = dir.path().join("out.txt");
    let done = dir.path().join("out.txt.done");
    std::fs::write(&output, &scan.output[..scan.output.len() - 40]).unwrap();
    let entries = String::from_utf8(scan.checkpoint.clone()).unwrap();
    let mut lines: Vec<&str> = entries.lines().collect();
    lines.pop();
    std::fs::write(&done, lines.join("\n") + "\n").unwrap();

    let out = run_in(
        dir.path(),
        &["scan", "cat.txt", "-o", "out.txt", "--resume"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("resuming"), "{stderr}");
    assert_eq!(sorted_lines(&output), *full);
    assert_eq!(
        checkpoint_entries(&done),
        fixture().grid_lines.iter().copied().collect()
    );

    // Resuming a finished scan searches nothing and changes nothing.
    let out = run_in(
        dir.path(),
        &["scan", "cat.txt", "-o", "out.txt", "--resume"],
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 grids searched"));
    assert_eq!(sorted_lines(&output), *full);
}

/// `s17 scan` of the catalogue into `out.txt` on one thread, started in
/// a directory of its own (stderr dropped).
fn scan_started() -> (tempfile::TempDir, std::process::Child) {
    let dir = workdir();
    let args = ["scan", "cat.txt", "-o", "out.txt", "--threads", "1"];
    let child = s17_in(dir.path(), &args)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    (dir, child)
}

#[test]
fn resume_after_a_real_kill_gives_the_uninterrupted_output() {
    let full = &full_scan().lines;
    let (dir, mut child) = scan_started();
    // Kill as soon as the first grid is recorded: the other two are then
    // still to come (one thread, a second or more each), so the kill lands
    // mid-scan, which the checkpoint shows afterwards.
    let done = dir.path().join("out.txt.done");
    let limit = crate::common::progress_limit(600);
    let deadline = Instant::now() + limit;
    while finished_entries(&done).is_empty() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the scan ended before a grid was recorded"
        );
        assert!(Instant::now() < deadline, "no grid recorded in {limit:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL: no clean-up runs
    child.wait().unwrap();
    let at_kill = finished_entries(&done);
    let grids: BTreeSet<usize> = fixture().grid_lines.iter().copied().collect();
    assert!(
        !at_kill.is_empty() && at_kill.is_subset(&grids) && at_kill.len() < grids.len(),
        "the kill did not land mid-scan: {at_kill:?} of {grids:?} done"
    );
    let out = run_in(
        dir.path(),
        &["scan", "cat.txt", "-o", "out.txt", "--resume"],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(sorted_lines(&dir.path().join("out.txt")), *full);
}

#[test]
fn parts_together_give_the_full_scan() {
    let full = &full_scan().lines;
    let dir = workdir();
    let mut union = Vec::new();
    let mut lines_seen = BTreeSet::new();
    for k in 1..=2 {
        let name = format!("part{k}.txt");
        let part = format!("{k}/2");
        let out = run_in(
            dir.path(),
            &["scan", "cat.txt", "-o", &name, "--part", &part],
        );
        assert!(out.status.code().is_some());
        let entries = checkpoint_entries(&dir.path().join(format!("{name}.done")));
        assert!(lines_seen.is_disjoint(&entries), "parts overlap");
        lines_seen.extend(entries);
        union.extend(sorted_lines(&dir.path().join(&name)));
    }
    union.sort();
    assert_eq!(union, *full);
    assert_eq!(lines_seen, fixture().grid_lines.iter().copied().collect());
}

/// `--slice K/N`, the old name of `--part K/N`, still works, the same way
/// (the same output and checkpoint, so either spelling resumes the other's
/// run), and is no longer shown in the help, which names the grid file.
#[test]
fn the_old_slice_spelling_gives_the_same_part() {
    let dir = workdir();
    let mut files = Vec::new();
    for (name, flag) in [("new.txt", "--part"), ("old.txt", "--slice")] {
        let out = run_in(dir.path(), &["scan", "cat.txt", "-o", name, flag, "2/2"]);
        assert!(out.status.code().is_some());
        // Threads finish grids in any order: compare the lines as sets.
        files.push((
            sorted_lines(&dir.path().join(name)),
            sorted_lines(&dir.path().join(format!("{name}.done"))),
        ));
    }
    assert_eq!(files[0], files[1]);
    assert!(files[0].1.len() > 1, "no grid recorded as finished");
    let help = run_in(dir.path(), &["scan", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("--part <K/N>") && !help.contains("--slice"),
        "{help}"
    );
    assert!(
        help.contains("GRID_FILE") && help.contains("grid file"),
        "{help}"
    );
}

#[test]
fn a_second_scan_on_the_same_output_is_refused_at_once() {
    let full = &full_scan().lines;
    let (dir, mut first) = scan_started();
    // The first run writes its process id into the lock file once it holds
    // the lock, before it searches anything.
    let lock = dir.path().join("out.txt.lock");
    let pid = first.id().to_string();
    while std::fs::read_to_string(&lock)
        .ok()
        .as_deref()
        .map(str::trim)
        != Some(pid.as_str())
    {
        assert!(
            first.try_wait().unwrap().is_none(),
            "the first scan ended early"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    for args in [
        &["scan", "cat.txt", "-o", "out.txt"][..],
        &["scan", "cat.txt", "-o", "out.txt", "--resume"][..],
        &["scan", "cat.txt", "-o", "out.txt", "--force"][..],
    ] {
        let out = run_in(dir.path(), args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "out.txt is in use by another run (process {pid}, lock out.txt.lock)"
            )),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("os error"), "{stderr}");
    }
    assert_eq!(first.wait().unwrap().code(), Some(1), "bad lines give 1");
    assert_eq!(sorted_lines(&dir.path().join("out.txt")), *full);
    assert_eq!(
        checkpoint_entries(&dir.path().join("out.txt.done")),
        fixture().grid_lines.iter().copied().collect()
    );
}

#[test]
fn with_a_known_list_the_17s_not_in_it_go_to_output_new() {
    let full = &full_scan().lines;
    let found: Vec<(String, Puzzle)> = full
        .iter()
        .map(|l| {
            let (line, p) = l.split_once('\t').unwrap();
            (line.to_string(), Puzzle::parse(p).unwrap())
        })
        .collect();
    // Leave out of the list a 17 whose minlex form no other 17 found has;
    // list the others each moved by a random symmetry and relabelling.
    let forms: Vec<Puzzle> = found.iter().map(|(_, p)| minlex_puzzle(p).0).collect();
    let left_out = (0..found.len())
        .find(|&i| forms.iter().filter(|&&f| f == forms[i]).count() == 1)
        .expect("a 17 with its own minlex form");
    let mut rng = fastrand::Rng::with_seed(19);
    let list: String = found
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != left_out)
        .map(|(_, (_, p))| format!("{}\n", Transform::random(&mut rng).apply_puzzle(p)))
        .collect();
    let dir = workdir();
    std::fs::write(dir.path().join("known.txt"), format!("# known\n{list}")).unwrap();
    let new = dir.path().join("out.txt.new");
    let args = ["scan", "cat.txt", "-o", "out.txt", "--known", "known.txt"];
    let out = run_in(dir.path(), &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "bad catalogue lines: {stderr}");
    assert_eq!(sorted_lines(&dir.path().join("out.txt")), *full);
    assert_eq!(sorted_lines(&new), vec![full[left_out].clone()]);
    assert!(
        stderr.contains("1 new 17 (not in known.txt) found in this run, 1 in all in out.txt.new"),
        "{stderr}"
    );

    // A resume of the finished scan rewrites the same file.
    let mut resume = args.to_vec();
    resume.push("--resume");
    let out = run_in(dir.path(), &resume);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("0 grids searched"), "{stderr}");
    assert!(
        !stderr.contains("per grid"),
        "no rates for 0 grids: {stderr}"
    );
    assert!(
        stderr.contains("0 new 17s (not in known.txt) found in this run, 1 in all"),
        "{stderr}"
    );
    assert_eq!(sorted_lines(&new), vec![full[left_out].clone()]);

    // A resume without the list says that the file is not kept up to
    // date, and leaves it as it is.
    let out = run_in(
        dir.path(),
        &["scan", "cat.txt", "-o", "out.txt", "--resume"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: out.txt.new is not kept up to date by a run without --known"),
        "{stderr}"
    );
    assert_eq!(sorted_lines(&new), vec![full[left_out].clone()]);
    // A run started over without the list drops the file of the run it
    // replaces.
    let out = run_in(dir.path(), &["scan", "cat.txt", "-o", "out.txt", "--force"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("warning: out.txt.new"), "{stderr}");
    assert!(!new.exists(), "out.txt.new of the replaced run is left");

    // With every 17 listed, nothing is new.
    let all: String = found.iter().map(|(_, p)| format!("{p}\n")).collect();
    std::fs::write(dir.path().join("all.txt"), all).unwrap();
    let out = run_in(
        dir.path(),
        &[
            "scan", "cat.txt", "-o", "out.txt", "--known", "all.txt", "--force",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("0 new 17s (not in all.txt) found in this run, 0 in all"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&new).unwrap(), "");
}
