//! `s17 exhaust` against oracles that share none of its search code: the
//! known list (complete) placed by `which`, and the one-grid search of every
//! grid of an entry; and as users run it: a kill -9 in the middle, then
//! `--resume`, gives the uninterrupted output.
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): an
//! entry's 17s lost by the sharing or by a kill
//! (`entries_find_exactly_the_known_17s_which_assigns_them`: entries holding
//! known 17s, a seeded sample, give exactly the known 17s that `which` assigns
//! to them, among all the known 17s of all their grids;
//! `a_grids_three_entries_together_give_all_its_17s`: two of them give what
//! the one-grid search finds on each of their grids and `which` assigns to
//! them; `resume_after_a_kill_gives_the_uninterrupted_output`: a run killed
//! with SIGKILL and resumed). By hand: `tools/check-exhaust.sh` (200 entries
//! of seed 17, 2,000 of seed 25, 2,000 of seed 31).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use s17::band::Band;
use s17::canon::minlex_puzzle;
use s17::ed::{Ed, Entry};
use s17::exhaust::Exhauster;
use s17::grid::{Grid, Puzzle};
use s17::search::{SearchConfig, Searcher};

use crate::common::bin::s17;
use crate::common::bin::sorted_lines;
use crate::common::fixture;

/// Where `which` places each 17: (slice, entry), one walk per slice.
fn place(ed: &Ed, puzzles: &[Puzzle]) -> Vec<(usize, u64)> {
    let visits: Vec<_> = puzzles
        .iter()
        .map(|p| ed.which_puzzle(p).expect("a 17").1)
        .collect();
    let mut by_slice: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, v) in visits.iter().enumerate() {
        by_slice.entry(v.class).or_default().push(i);
    }
    let mut out = vec![(0, 0); puzzles.len()];
    for (k, items) in by_slice {
        let bands2: Vec<Band> = items
            .iter()
            .map(|&i| visits[i].key[..27].try_into().unwrap())
            .collect();
        for (&i, number) in items.iter().zip(ed.entry_numbers(k, &bands2)) {
            out[i] = (k, number.expect("a visit's band 2 is an entry"));
        }
    }
    out
}

/// The entry numbered `number` of slice `k`.
fn entry(ed: &Ed, k: usize, number: u64) -> Entry {
    let mut found = None;
    ed.for_each_entry(k, number..number + 1, |e| found = Some(*e));
    found.expect("the entry exists")
}

/// The grids of an entry's visits.
fn visit_grids<B: AsRef<[u8]> + Sync>(ex: &Exhauster<'_, B>, k: usize, e: &Entry) -> Vec<Grid> {
    ex.visits(k, e)
        .iter()
        .map(|v| ex.visit_grid(k, e, &v.band3))
        .collect()
}

/// Of `puzzles`, the minlex forms of those `which` places at (k, number).
fn assigned(ed: &Ed, puzzles: &[Puzzle], k: usize, number: u64) -> BTreeSet<Puzzle> {
    puzzles
        .iter()
        .zip(place(ed, puzzles))
        .filter(|(_, at)| *at == (k, number))
        .map(|(p, _)| minlex_puzzle(p).0)
        .collect()
}

/// Entries holding known 17s (seeded sample of the list, two of each
/// band-3 choice): `exhaust` finds exactly the known 17s that `which`
/// assigns to the entry, among all the known 17s of all its grids (the list
/// is complete, so nothing else).
/// Two of them also against the one-grid search of every grid they visit.
#[test]
fn entries_find_exactly_the_known_17s_which_assigns_them() {
    let f = fixture();
    let ed = Ed::new();
    let ex = Exhauster::new(&ed, &f.tables, SearchConfig::default());
    let searcher = Searcher::new(&f.catalogue, &f.tables, SearchConfig::default());
    let root = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!("{root}/data/known17.txt")).unwrap();
    let known: Vec<Puzzle> = text.lines().map(|l| Puzzle::parse(l).unwrap()).collect();
    // Two known 17s of each band-3 choice (hi, mid, lo), drawn with a seed.
    let mut rng = fastrand::Rng::with_seed(17);
    let mut sample = Vec::new();
    let mut per_choice = BTreeMap::new();
    while sample.len() < 6 {
        let p = known[rng.usize(..known.len())];
        let choice = ed.which_puzzle(&p).unwrap().1.choice;
        let n = per_choice.entry(choice).or_insert(0);
        if *n < 2 {
            *n += 1;
            sample.push(p);
        }
    }
    let mut one_grid_checks = 0;
    for (p, (k, number)) in sample.iter().zip(place(&ed, &sample)) {
        let e = entry(&ed, k, number);
        let got: BTreeSet<Puzzle> = ex
            .search_entry(k, &e)
            .unwrap()
            .puzzles
            .into_iter()
            .collect();
        assert!(
            got.contains(&minlex_puzzle(p).0),
            "{p} not found at {k}/{number}"
        );
        let grids = visit_grids(&ex, k, &e);
        let predicted: Vec<Puzzle> = grids.iter().flat_map(|g| f.known.expected(g)).collect();
        let expected = assigned(&ed, &predicted, k, number);
        assert_eq!(got, expected, "slice {k}, entry {number}");
        // The one-grid search of each grid of the entry, kept where
        // `which` places its 17s here.
        if grids.len() <= 8 && one_grid_checks < 2 {
            one_grid_checks += 1;
            let found: Vec<Puzzle> = grids
                .iter()
                .flat_map(|g| searcher.search(g).unwrap().puzzles)
                .collect();
            assert_eq!(
                assigned(&ed, &found, k, number),
                got,
                "slice {k}, entry {number}"
            );
        }
    }
    assert!(one_grid_checks > 0, "no sampled entry small enough");
}

/// `s17 exhaust` on entries `range` of slice 331 into `output`.
fn exhaust_331(range: &str, output: &Path, more: &[&str]) -> Command {
    let mut cmd = s17(&["exhaust", "--band", "331", "--entries", range]);
    cmd.args(more).arg("-o").arg(output);
    cmd
}

/// The summary of entries that hold no ED grid of their own (their grids
/// are another entry's) gives their search time, not a rate per grid.
#[test]
fn an_entry_with_no_ed_grid_of_its_own_reports_its_time() {
    fixture(); // the tables exist before the binary runs
    let dir = PathBuf::from(concat!(env!("CARGO_TARGET_TMPDIR"), "/exhaust-no-grid"));
    std::fs::create_dir_all(&dir).unwrap();
    let out = s17(&["exhaust", "--band", "78", "--entries", "1900000..1900001"])
        .args(["--threads", "1", "--force", "-o"])
        .arg(dir.join("out.txt"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(": 1 entry searched ("), "{text}");
    assert!(text.contains(", 0 ED grids listed there), "), "{text}");
    assert!(
        text.contains(" s CPU, ") && text.contains("no ED grid"),
        "{text}"
    );
    assert!(!text.contains("per grid"), "{text}");
}

/// A run killed with SIGKILL once a few entries are done, then resumed,
/// gives the same output as a run that was never stopped; a resume with
/// another range is refused.
#[test]
fn resume_after_a_kill_gives_the_uninterrupted_output() {
    fixture(); // the tables exist before the binary runs
    let dir = PathBuf::from(concat!(env!("CARGO_TARGET_TMPDIR"), "/exhaust-kill"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Entries of slice 331 around one that holds a known 17.
    let range = "1683760..1683772";
    let whole = dir.join("whole.txt");
    let status = exhaust_331(range, &whole, &["--threads", "2", "-q"])
        .status()
        .unwrap();
    assert!(status.success());
    let expected = sorted_lines(&whole);
    assert!(!expected.is_empty(), "the range holds a 17");

    let cut = dir.join("cut.txt");
    let done = dir.join("cut.txt.done");
    let mut child = exhaust_331(range, &cut, &["--threads", "1", "-q"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill once two entries are checkpointed (the header is line 1), and
    // before the run ends: otherwise the test proves nothing.
    let start = Instant::now();
    loop {
        let lines = std::fs::read_to_string(&done).map_or(0, |t| t.lines().count());
        if lines >= 3 {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before the kill"
        );
        assert!(
            start.elapsed() < crate::common::progress_limit(600),
            "no progress"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let checkpointed = std::fs::read_to_string(&done).unwrap().lines().count() - 1;
    assert!(checkpointed < 12, "the kill landed after the last entry");

    let other = exhaust_331("1683760..1683770", &cut, &["--resume", "-q"])
        .output()
        .unwrap();
    assert!(
        !other.status.success(),
        "a resume with another range must be refused"
    );
    let status = exhaust_331(range, &cut, &["--resume", "-q"])
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(sorted_lines(&cut), expected);

    // A resume of the finished run searches nothing, says so without
    // rates (nothing to divide) and keeps the output.
    let again = exhaust_331(range, &cut, &["--resume"]).output().unwrap();
    let text = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{text}");
    assert!(
        text.contains(": 0 entries searched (0 bands 3 visited, 0 ED grids listed there)"),
        "{text}"
    );
    assert!(!text.contains("per grid"), "{text}");
    assert_eq!(sorted_lines(&cut), expected);
}

/// The three entries that `which` names for the grid with 29 known 17s
/// (one per band-3 choice) give, together, exactly its known 17s.
#[test]
fn a_grids_three_entries_together_give_all_its_17s() {
    let f = fixture();
    let ed = Ed::new();
    let ex = Exhauster::new(&ed, &f.tables, SearchConfig::default());
    let grid = Grid::parse(crate::common::GRID29).unwrap();
    let expected: BTreeSet<Puzzle> = f
        .known
        .expected(&grid)
        .iter()
        .map(|p| minlex_puzzle(p).0)
        .collect();
    assert_eq!(expected.len(), 29);
    let visits = ed.visits(grid.digits());
    let mut union = BTreeSet::new();
    for v in &visits {
        let band2: Band = v.key[..27].try_into().unwrap();
        let number = ed.entry_numbers(v.class, &[band2])[0].expect("an entry");
        let e = entry(&ed, v.class, number);
        union.extend(ex.search_entry(v.class, &e).unwrap().puzzles);
    }
    assert_eq!(union, expected);
}

/// `--estimate` as users run it: one line per slice whose counts are
/// those of `data/ed-counts.tsv`, each slice's estimate is its sampled
/// seconds scaled by its entries, and the summary is their sum over the
/// slices' grids (the last slices, where walks to an entry are short).
#[test]
fn estimate_lines_add_up_to_the_estimate() {
    fixture();
    let out = s17(&["exhaust", "--estimate", "1", "--bands", "412..416"])
        .args(["--threads", "1"])
        .env("S17_PROGRESS_SECS", "0")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let counts: BTreeMap<u64, (u64, u64)> = include_str!("../../data/ed-counts.tsv")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<u64> = l.split('\t').take(3).map(|x| x.parse().unwrap()).collect();
            (f[0], (f[1], f[2]))
        })
        .collect();
    let mut lines = stdout.lines();
    assert!(
        lines.next().unwrap().starts_with("# K\tENTRIES\tGRIDS"),
        "{stdout}"
    );
    let (mut total, mut grids, mut hi_grids, mut slices) = (0.0, 0u64, 0u64, Vec::new());
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        let k: u64 = f[0].parse().unwrap();
        let (entries, slice_grids) = (f[1].parse::<u64>().unwrap(), f[2].parse::<u64>().unwrap());
        assert_eq!(counts[&k], (entries, slice_grids), "{line}");
        assert_eq!(f[3], "1", "one entry sampled: {line}");
        let secs: f64 = f[6].parse().unwrap();
        let slice_secs: f64 = f[7].parse().unwrap();
        assert!(secs > 0.0, "{line}");
        // SECONDS is printed to the millisecond, SLICE_SECONDS to the second.
        let scaled = secs * entries as f64;
        assert!(
            (slice_secs - scaled).abs() <= 0.0005 * entries as f64 + 1.0,
            "{line}"
        );
        (total, grids) = (total + slice_secs, grids + slice_grids);
        hi_grids += f[5].parse::<u64>().unwrap();
        slices.push(k);
    }
    assert_eq!(slices, [412, 413, 414, 415]);
    let summary = stderr
        .lines()
        .find(|l| l.contains("entries sampled"))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        summary.contains("over slices 412..416: 4 entries sampled"),
        "{summary}"
    );
    assert!(
        summary.contains(&format!(" {hi_grids} ED grids in them)")),
        "{summary}"
    );
    let per_grid: f64 = summary
        .split(&format!(" s for {grids} ED grids = "))
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("{summary}"))
        .parse()
        .unwrap();
    assert!(
        (per_grid - total / grids as f64).abs() < 1e-3,
        "{summary}, {total} / {grids}"
    );
    assert!(
        !stderr.contains("s17: "),
        "S17_PROGRESS_SECS=0: no progress lines"
    );
}
