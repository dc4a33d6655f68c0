//! The result files through kills, power losses and resumes, on the
//! writes a run makes (grid by grid, as the drivers call
//! [`ResultFiles::record`]).

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use super::checkpoint::{parse_entry, parse_result};
use super::*;
use crate::generate::random_grid;
use crate::grid::{Grid, Puzzle};
use crate::known::KnownSet;

/// A cheap deterministic stand-in for a grid's 17s: 0 to 3 "puzzles" per
/// grid (17-cell patterns of the grid; not real 17s, the files do not care).
pub(crate) fn fake_puzzles(grid: &Grid) -> Vec<Puzzle> {
    let k = (grid.digit(0) as usize + grid.digit(10) as usize) % 4;
    let mut puzzles: Vec<Puzzle> = (0..k)
        .map(|j| Puzzle::from_grid(grid, ((1u128 << 17) - 1) << (5 * j)))
        .collect();
    puzzles.sort();
    puzzles
}

/// Records the fake 17s of `grids` in `files`, as a run does.
fn record_all(files: &mut ResultFiles, grids: &[(usize, Grid)]) {
    for (index, grid) in grids {
        files.record(*index, &fake_puzzles(grid)).unwrap();
    }
    files.sync().unwrap();
}

pub(crate) fn grids(n: usize, seed: u64) -> Vec<(usize, Grid)> {
    let mut rng = fastrand::Rng::with_seed(seed);
    // Indices with gaps, as line numbers with comments in between.
    (0..n).map(|i| (3 * i + 2, random_grid(&mut rng))).collect()
}

pub(crate) fn expected_lines(grids: &[(usize, Grid)]) -> Vec<String> {
    let mut lines: Vec<String> = grids
        .iter()
        .flat_map(|(i, g)| {
            fake_puzzles(g)
                .into_iter()
                .map(move |p| format!("{i}\t{p}"))
        })
        .collect();
    lines.sort();
    lines
}

pub(crate) fn sorted_lines(bytes: &[u8]) -> Vec<String> {
    let mut lines: Vec<String> = String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    lines.sort();
    lines
}

pub(crate) const HEADER: &str = "# s17 scan checkpoint v1 input=0123456789abcdef slice=1/1";

/// The bytes of a run's output and checkpoint files.
fn both_files(out: &Path) -> (Vec<u8>, Vec<u8>) {
    (
        fs::read(out).unwrap(),
        fs::read(checkpoint_path(out)).unwrap(),
    )
}

/// New result files at `out`, nothing done yet.
fn create(out: &Path) -> ResultFiles {
    let (files, state) = ResultFiles::open(out, HEADER, OpenMode::Create).unwrap();
    assert!(state.done.is_empty());
    files
}

/// The grids a resumed run still has to search.
fn not_done(grids: &[(usize, Grid)], done: &BTreeSet<usize>) -> Vec<(usize, Grid)> {
    grids
        .iter()
        .filter(|(i, _)| !done.contains(i))
        .copied()
        .collect()
}

/// A complete run of `n` grids, in a directory of its own.
struct FullRun {
    dir: tempfile::TempDir,
    grids: Vec<(usize, Grid)>,
    output: Vec<u8>,
    checkpoint: Vec<u8>,
    /// The output's lines, sorted, as the grids' fake 17s give them.
    full: Vec<String>,
}

fn full_run(n: usize, seed: u64) -> FullRun {
    let dir = tempfile::tempdir().unwrap();
    let grids = grids(n, seed);
    let out = dir.path().join("full.txt");
    let mut files = create(&out);
    record_all(&mut files, &grids);
    drop(files);
    let (output, checkpoint) = both_files(&out);
    let full = expected_lines(&grids);
    FullRun {
        dir,
        grids,
        output,
        checkpoint,
        full,
    }
}

/// Completes a reconciled state as a resumed scan would, in memory: the
/// kept lines plus the fake results of every grid not done.
fn completed(state: &Reconciled, grids: &[(usize, Grid)]) -> Vec<String> {
    let mut lines = sorted_lines(&state.output);
    lines.extend(expected_lines(&not_done(grids, &state.done)));
    lines.sort();
    lines
}

/// The writes of a run in the order they happened: the checkpoint header,
/// then per grid its output lines and its checkpoint entry.
fn write_log(output: &[u8], checkpoint: &[u8]) -> Vec<(bool, Vec<u8>, Option<usize>)> {
    let mut log = vec![(false, format!("{HEADER}\n").into_bytes(), None)];
    let mut out_lines = output.split_inclusive(|&b| b == b'\n');
    for entry in checkpoint.split_inclusive(|&b| b == b'\n').skip(1) {
        let (index, count) = parse_entry(&entry[..entry.len() - 1]).unwrap();
        let mut chunk = Vec::new();
        for _ in 0..count {
            let line = out_lines.next().unwrap();
            assert_eq!(
                parse_result(&line[..line.len() - 1]).unwrap().0,
                index,
                "output grouped by grid"
            );
            chunk.extend_from_slice(line);
        }
        log.push((true, chunk, None));
        log.push((false, entry.to_vec(), Some(index)));
    }
    assert!(out_lines.next().is_none());
    log
}

#[test]
fn a_kill_at_any_byte_loses_and_repeats_nothing() {
    let FullRun {
        grids: gs,
        output,
        checkpoint,
        full,
        ..
    } = full_run(40, 2);
    assert_eq!(sorted_lines(&output), full);
    let log = write_log(&output, &checkpoint);
    let total: usize = log.iter().map(|(_, bytes, _)| bytes.len()).sum();
    for cut in 0..=total {
        // The files as they are when the process dies after `cut` bytes.
        let (mut out, mut done, mut finished) = (Vec::new(), Vec::new(), BTreeSet::new());
        let mut left = cut;
        for (is_output, bytes, index) in &log {
            let n = left.min(bytes.len());
            if *is_output { &mut out } else { &mut done }.extend_from_slice(&bytes[..n]);
            if n == bytes.len()
                && let Some(i) = index
            {
                finished.insert(*i);
            }
            left -= n;
        }
        let state = reconcile(HEADER, &out, &done).unwrap();
        assert_eq!(
            state.done, finished,
            "cut at {cut}: finished grids are kept, others rerun"
        );
        assert_eq!(completed(&state, &gs), full, "cut at {cut}");
        // Reconciling the repaired files changes nothing.
        let again = reconcile(HEADER, &state.output, &state.checkpoint).unwrap();
        assert_eq!(
            (again.output, again.checkpoint),
            (state.output.clone(), state.checkpoint.clone())
        );
        assert_eq!(again.repair.dropped_lines + again.repair.dropped_entries, 0);
    }
}

#[test]
fn a_power_loss_at_any_offsets_loses_and_repeats_nothing() {
    // Each file may keep any prefix, independently, and may end in zeros.
    let FullRun {
        grids: gs,
        output,
        checkpoint,
        full,
        ..
    } = full_run(30, 3);
    for out_len in (0..=output.len()).step_by(13).chain([output.len()]) {
        for done_len in 0..=checkpoint.len() {
            for zeros in [0, 5] {
                let mut out = output[..out_len].to_vec();
                let mut done = checkpoint[..done_len].to_vec();
                out.extend(std::iter::repeat_n(0u8, zeros));
                done.extend(std::iter::repeat_n(0u8, zeros));
                let state = match reconcile(HEADER, &out, &done) {
                    Ok(s) => s,
                    // Zeros after a header cut short make a complete
                    // line only with a newline, which zeros never add.
                    Err(foreign) => {
                        panic!("{out_len}/{done_len}/{zeros}: header {:?}", foreign.found)
                    }
                };
                assert_eq!(
                    completed(&state, &gs),
                    full,
                    "output {out_len} bytes, checkpoint {done_len}"
                );
            }
        }
    }
}

#[test]
fn resume_on_disk_after_truncation_gives_the_full_result() {
    let FullRun {
        dir,
        grids: gs,
        output,
        checkpoint,
        full,
    } = full_run(25, 4);
    let out = dir.path().join("out.txt");
    for (k, out_len) in (0..=output.len()).step_by(output.len() / 7 + 1).enumerate() {
        let done_len = checkpoint.len() * k / 8;
        fs::write(&out, &output[..out_len]).unwrap();
        fs::write(
            checkpoint_path(&out),
            &checkpoint[..done_len.max(HEADER.len() + 1)],
        )
        .unwrap();
        let (mut files, state) = ResultFiles::open(&out, HEADER, OpenMode::Resume).unwrap();
        record_all(&mut files, &not_done(&gs, &state.done));
        drop(files);
        assert_eq!(
            sorted_lines(&fs::read(&out).unwrap()),
            full,
            "cut {out_len}/{done_len}"
        );
        // A second resume finds everything done and changes nothing.
        let before = both_files(&out);
        let (_, state) = ResultFiles::open(&out, HEADER, OpenMode::Resume).unwrap();
        assert_eq!(state.done.len(), gs.len());
        assert_eq!(before, both_files(&out));
    }
}

#[test]
fn opening_refuses_what_it_must() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.txt");
    fs::write(&out, "precious\n").unwrap();
    assert!(matches!(
        ResultFiles::open(&out, HEADER, OpenMode::Create),
        Err(OutputError::OutputExists(_))
    ));
    assert!(matches!(
        ResultFiles::open(&out, HEADER, OpenMode::Resume),
        Err(OutputError::NoCheckpoint { .. })
    ));
    assert_eq!(fs::read_to_string(&out).unwrap(), "precious\n");
    fs::write(
        checkpoint_path(&out),
        "# s17 scan checkpoint v1 input=ffffffffffffffff slice=1/1\n",
    )
    .unwrap();
    assert!(matches!(
        ResultFiles::open(&out, HEADER, OpenMode::Resume),
        Err(OutputError::Mismatch { .. })
    ));
    assert_eq!(fs::read_to_string(&out).unwrap(), "precious\n");
    let (_, state) = ResultFiles::open(&out, HEADER, OpenMode::Overwrite).unwrap();
    assert!(state.done.is_empty());
    assert_eq!(fs::read(&out).unwrap(), b"");
    assert_eq!(
        fs::read_to_string(checkpoint_path(&out)).unwrap(),
        format!("{HEADER}\n")
    );
    // Resume with no files at all starts a new scan.
    let other = dir.path().join("new.txt");
    assert!(ResultFiles::open(&other, HEADER, OpenMode::Resume).is_ok());
    assert!(other.exists());
}

#[test]
fn a_second_open_of_the_same_output_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let gs = grids(3, 6);
    let out = dir.path().join("o.txt");
    let mut files = create(&out);
    files.record(gs[0].0, &fake_puzzles(&gs[0].1)).unwrap();
    let before = both_files(&out);
    for mode in [OpenMode::Create, OpenMode::Overwrite, OpenMode::Resume] {
        let err = ResultFiles::open(&out, HEADER, mode).err().unwrap();
        assert!(
            matches!(err, OutputError::Locked(LockError::Busy { .. })),
            "{mode:?}: {err}"
        );
        assert_eq!(both_files(&out), before, "{mode:?}");
    }
    drop(files);
    let (_, state) = ResultFiles::open(&out, HEADER, OpenMode::Resume).unwrap();
    assert_eq!(state.done, BTreeSet::from([gs[0].0]));
}

#[test]
fn output_new_follows_the_output_through_a_crash_and_resume() {
    // The fake 17s are not valid puzzles, so none is in any known list:
    // FILE.new must hold exactly the output's lines at every stage.
    let dir = tempfile::tempdir().unwrap();
    let gs = grids(20, 7);
    let known = Arc::new(KnownSet::default());
    let out = dir.path().join("o.txt");
    let new = new_path(&out);
    let (mut files, state) = ResultFiles::open(&out, HEADER, OpenMode::Create).unwrap();
    assert_eq!(
        files.track_new(Arc::clone(&known), &state.found).unwrap(),
        0
    );
    record_all(&mut files, &gs[..12]);
    let lines = files.new_lines();
    drop(files);
    let output = fs::read(&out).unwrap();
    assert_eq!(fs::read(&new).unwrap(), output);
    assert_eq!(lines as usize, sorted_lines(&output).len());
    assert!(lines > 0);
    // A crash: the output cut in its last line, the checkpoint intact
    // (so the last grids are dropped and searched again).
    fs::write(&out, &output[..output.len() - 30]).unwrap();
    let (mut files, state) = ResultFiles::open(&out, HEADER, OpenMode::Resume).unwrap();
    let kept = files.track_new(Arc::clone(&known), &state.found).unwrap();
    assert_eq!(kept as usize, state.found.len());
    assert_eq!(fs::read(&new).unwrap(), fs::read(&out).unwrap());
    record_all(&mut files, &not_done(&gs, &state.done));
    drop(files);
    assert_eq!(sorted_lines(&fs::read(&new).unwrap()), expected_lines(&gs));
    assert_eq!(fs::read(&new).unwrap(), fs::read(&out).unwrap());
}

#[test]
fn reconcile_rejects_bad_entries_and_foreign_lines() {
    let gs = grids(2, 5);
    let p = Puzzle::from_grid(&gs[0].1, (1 << 17) - 1);
    let output = format!("7\t{p}\n7\t{p}\n9\t{p}\ngarbage\n8\t{p}\n");
    let checkpoint = format!("{HEADER}\n7\t2\n8\t1\n8\t1\n9\t2\nx\t1\n10\t0\n");
    let state = reconcile(HEADER, output.as_bytes(), checkpoint.as_bytes()).unwrap();
    // 7 complete; 8 duplicated entry; 9 short of lines; 10 has no 17.
    assert_eq!(state.done, BTreeSet::from([7, 10]));
    assert_eq!(state.output, format!("7\t{p}\n7\t{p}\n").into_bytes());
    assert_eq!(state.repair.dropped_lines, 3);
    assert_eq!(state.repair.dropped_entries, 3);
}
