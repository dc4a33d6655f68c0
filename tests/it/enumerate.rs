//! `s17 enumerate` as users run it: `--which` names entries whose listing
//! holds the grid (checked by minlex forms, which share no code with the
//! catalogue's canonical forms), counts agree with listings, the counts file
//! resumes after a cut, bad lines are named.
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): `which`
//! naming the wrong entry (`which_names_entries_whose_visits_hold_the_grid`:
//! random grids and known 17s, the named entry's listing holds the grid for
//! that choice); the other ED catalogue guards are in `src/ed/tests.rs`.

use std::collections::HashSet;

use s17::band::BANDS;
use s17::canon::minlex_grid;
use s17::generate::random_grid;
use s17::grid::{Grid, Puzzle};

use crate::common::bin::{data, s17_without_tables, stdout_lines};

fn solution(puzzle: &Puzzle) -> Grid {
    let s = s17::solver::solve(puzzle, 2);
    assert_eq!(s.count, 1);
    s.first.unwrap()
}

#[test]
fn which_names_entries_whose_visits_hold_the_grid() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = fastrand::Rng::with_seed(31);
    let known: Vec<String> = std::fs::read_to_string(data("known17.txt"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let mut input = String::new();
    let mut expected = Vec::new();
    for _ in 0..4 {
        let grid = random_grid(&mut rng);
        input.push_str(&format!("{grid}\n"));
        expected.push((minlex_grid(&grid).0, 3));
    }
    for _ in 0..4 {
        let line = &known[rng.usize(0..known.len())];
        let puzzle = Puzzle::parse(line).unwrap();
        input.push_str(&format!("{line}\n"));
        expected.push((minlex_grid(&solution(&puzzle)).0, 1));
    }
    let path = dir.path().join("items.txt");
    std::fs::write(&path, &input).unwrap();
    let output = s17_without_tables(&["enumerate", "--which", path.to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    let answers = stdout_lines(&output);
    for (index, (form, visits)) in expected.iter().enumerate() {
        let mine: Vec<&String> = answers
            .iter()
            .filter(|l| l.split('\t').next() == Some(&(index + 1).to_string()))
            .collect();
        assert_eq!(mine.len(), *visits, "line {}: {mine:?}", index + 1);
        let mut choices = HashSet::new();
        for answer in mine {
            let fields: Vec<&str> = answer.split('\t').collect();
            let (choice, k, entry, grid) = (fields[1], fields[2], fields[3], fields[4]);
            choices.insert(choice.to_string());
            assert_eq!(minlex_grid(&Grid::parse(grid).unwrap()).0, *form);
            let next = (entry.parse::<u64>().unwrap() + 1).to_string();
            let listing = s17_without_tables(&[
                "enumerate",
                "--band",
                k,
                "--entries",
                &format!("{entry}..{next}"),
                "--visits",
            ]);
            assert!(listing.status.success());
            let held = stdout_lines(&listing).iter().any(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                f[0] == entry && f[1] == grid && f[2].split(',').any(|c| c == choice)
            });
            assert!(held, "slice {k} entry {entry} lists {grid} for {choice}");
        }
        assert_eq!(choices.len(), *visits);
    }
}

#[test]
fn a_slice_counts_what_it_lists_and_its_counts_file_resumes() {
    let dir = tempfile::tempdir().unwrap();
    // Slice 347: 26,748 entries, 59 ED grids with many automorphism counts.
    let listed = stdout_lines(&s17_without_tables(&["enumerate", "--band", "347"]));
    let forms: HashSet<Grid> = listed
        .iter()
        .map(|l| minlex_grid(&Grid::parse(l).unwrap()).0)
        .collect();
    assert_eq!(
        forms.len(),
        listed.len(),
        "the grids listed are not isomorphic"
    );
    let count = stdout_lines(&s17_without_tables(&[
        "enumerate",
        "--band",
        "347",
        "--count",
    ]));
    let fields: Vec<&str> = count[0].split('\t').collect();
    assert_eq!(fields[0], "347");
    assert_eq!(fields[2], listed.len().to_string());
    let split: u64 = fields[3]
        .split(',')
        .map(|p| p.split_once(':').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(split, listed.len() as u64);

    let file = dir.path().join("counts.tsv");
    let file_arg = file.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["enumerate", "--bands", "346..348", "-o", file_arg, "-q"];
        args.extend_from_slice(extra);
        s17_without_tables(&args)
    };
    assert!(run(&[]).status.success());
    let whole = std::fs::read_to_string(&file).unwrap();
    assert!(whole.lines().any(|l| l == count[0]), "{whole}");
    assert_eq!(whole.lines().filter(|l| !l.starts_with('#')).count(), 2);
    // A second run on the same file is refused.
    let again = run(&[]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
    // A kill in the middle of writing the last line: resume repairs it.
    std::fs::write(&file, &whole[..whole.len() - 7]).unwrap();
    assert!(run(&["--resume"]).status.success());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), whole);
}

#[test]
fn bad_lines_are_named_and_the_rest_placed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.txt");
    let mut rng = fastrand::Rng::with_seed(2);
    let grid = random_grid(&mut rng);
    let one_clue = format!("1{}", ".".repeat(80));
    std::fs::write(&path, format!("12x\n{grid}\n{one_clue}\n")).unwrap();
    let output = s17_without_tables(&["enumerate", "--which", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.txt: line 1:"), "{stderr}");
    assert!(
        stderr
            .contains("bad.txt: line 3: a puzzle must have 16 to 21 clues to be placed (it has 1)"),
        "{stderr}"
    );
    assert_eq!(
        stdout_lines(&output).len(),
        3,
        "the grid of line 2 is placed"
    );
    assert_eq!(
        s17_without_tables(&["enumerate", "--band", &BANDS.to_string()])
            .status
            .code(),
        Some(2)
    );
}

/// The committed whole count (`data/ed-counts.tsv`, written by
/// `s17 enumerate --all`): 416 slices whose sums are the published figures
/// (5,472,730,538 ED grids and their split by number of automorphisms), and
/// two of its lines recomputed by the binary now, so a change to the
/// enumeration that moves any slice shows up against the file.
#[test]
fn committed_counts_sum_to_the_published_figures() {
    let text = std::fs::read_to_string(data("ed-counts.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), BANDS);
    let mut grids = 0u64;
    let mut split = std::collections::BTreeMap::<u64, u64>::new();
    for (k, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), 4, "line of slice {k}");
        assert_eq!(row[0].parse::<usize>().unwrap(), k, "slices in order");
        let g: u64 = row[2].parse().unwrap();
        grids += g;
        let mut by_aut = 0;
        for part in row[3].split(',').filter(|p| !p.is_empty()) {
            let (a, n) = part.split_once(':').unwrap();
            let n: u64 = n.parse().unwrap();
            *split.entry(a.parse().unwrap()).or_default() += n;
            by_aut += n;
        }
        assert_eq!(by_aut, g, "slice {k}: split sums to its grids");
    }
    assert_eq!(grids, 5_472_730_538);
    let published: Vec<(u64, u64)> = vec![
        (1, 5_472_170_387),
        (2, 548_449),
        (3, 7_336),
        (4, 2_826),
        (6, 1_257),
        (8, 29),
        (9, 42),
        (12, 92),
        (18, 85),
        (27, 2),
        (36, 15),
        (54, 11),
        (72, 2),
        (108, 3),
        (162, 1),
        (648, 1),
    ];
    assert_eq!(split.into_iter().collect::<Vec<_>>(), published);
    for k in [347, 403] {
        let out = s17_without_tables(&["enumerate", "--band", &k.to_string(), "--count"]);
        assert!(out.status.success());
        assert_eq!(stdout_lines(&out), vec![rows[k].join("\t")], "slice {k}");
    }
}
