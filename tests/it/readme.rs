//! README's common tasks, run as written (issue 43): every line of every
//! ```` ```sh ```` block of its "## Common tasks" section is run with `sh -c`
//! in a temporary directory holding a copy of `data/`, with the `s17` under
//! test first on `PATH` and the test band tables in `$S17_TABLES`, and its
//! exit code and output are checked here. A line whose comment starts with
//! `slow:` is shown in the README, not run (the reason follows). Each README
//! line must have a check below and each check a README line, so that the
//! README and the behaviour cannot drift apart. About 15 s on a
//! release build.

use std::path::Path;
use std::process::{Command, Output};

// The grid of the README's search example: 29 known 17s.
use crate::common::GRID29;
use crate::common::bin::stderr;
use crate::common::bin::{BIN, data, shared_tables};

/// Line 7 of `data/sample-grids.txt` (one known 17): the "is there an 18"
/// example.
const GRID7: &str =
    "836491752724835961591672438982314576653789124417256893245167389178923645369548217";

/// What `cat found.txt` prints after the scan: the known 17s of lines 7
/// and 8 of `data/sample-grids.txt`.
const SAMPLE_17S: [&str; 3] = [
    "7\t.................1.....2.3......45.6..3.......17...8.....16......8....4..6.5..2..",
    "8\t.................1.....2.3.....1...4..3.5.....26....7.14...8...5........7....6.2.",
    "8\t3................1.....2.3..7..1...4....5.....26....7.14...8...5.............6.2.",
];

/// The minlex form of the one grid of the flag example (grid 4 of `s17
/// generate -n 6 --seed 44`: its visits are 324:1464944 (hi), 324:304187
/// (mid) and 328:264978 (lo)); it has a minimal 18 (`search --clues 18
/// --first` and sk_is18 agree).
const FLAG_GRID: &str =
    "123456789456789123798132564237594618569813247841627395314278956675941832982365471";

/// The 17 of catalogue entry 1,683,769 of slice 331, in minlex form.
const ENTRY_17: &str =
    "........1.......23..4..5.........6...1.37....8..2........1........83....5.6...4..";

type Check = fn(&Output, &Path);

/// Each README line and what its run must give.
const CHECKS: &[(&str, Check)] = &[
    (
        "s17 search 123456789456789123798231564234675918815943276967812435379164852582397641641528397",
        |out, _| {
            let lines = stdout_lines(out);
            assert_eq!(lines.len(), 29, "{lines:?}");
            let mut distinct = lines.clone();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), 29);
            for puzzle in &lines {
                assert_puzzle_of(puzzle, GRID29, 17);
            }
        },
    ),
    (
        "s17 scan data/sample-grids.txt --output found.txt --known data/known17.txt --resume",
        |out, dir| {
            let err = stderr(out);
            assert!(
                err.contains("5 grids searched, 0 bad lines, 3 17s found"),
                "{err}"
            );
            assert!(err.contains("0 new 17s"), "{err}");
            assert_eq!(read(&dir.join("found.txt.new")), "");
        },
    ),
    ("cat found.txt", |out, _| {
        assert_eq!(stdout_lines(out), SAMPLE_17S);
    }),
    (
        "s17 search --clues 18 --first 836491752724835961591672438982314576653789124417256893245167389178923645369548217",
        |out, _| {
            let lines = stdout_lines(out);
            assert_eq!(lines.len(), 1, "one 18: {lines:?}");
            assert_puzzle_of(&lines[0], GRID7, 18);
            // A puzzle of the grid: its one solution is the grid.
            let solved = Command::new(BIN)
                .args(["-q", "solve", "-"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .and_then(|mut child| {
                    use std::io::Write;
                    child.stdin.take().unwrap().write_all(lines[0].as_bytes())?;
                    child.wait_with_output()
                })
                .unwrap();
            assert_eq!(stdout_lines(&solved), [GRID7]);
        },
    ),
    (
        "s17 validate data/known17.txt --sample 3 --seed 1",
        |out, _| {
            let err = stderr(out);
            assert!(
                err.contains("3 known 17s expected, 3 found, 0 missed, 0 new, 0 invalid"),
                "{err}"
            );
        },
    ),
    (
        "s17 campaign plan --slices 331:1683769..1683770 --unit-hours 12 -o demo",
        |out, dir| {
            assert!(
                stdout(out).contains("s17 campaign plan: 17s, all: 1 unit, "),
                "{}",
                stdout(out)
            );
            assert!(dir.join("demo/units.tsv").is_file());
            assert!(dir.join("demo/campaign.sbatch").is_file());
        },
    ),
    ("s17 campaign run demo 0 --threads 1", |out, _| {
        let err = stderr(out);
        assert!(
            err.contains("1 entry searched") && err.contains(", 1 puzzle (17s, all), "),
            "{err}"
        );
    }),
    ("s17 campaign status demo", |out, _| {
        assert!(
            stdout(out).contains("complete: every planned entry is checkpointed exactly once"),
            "{}",
            stdout(out)
        );
    }),
    (
        "s17 campaign merge demo -o 17s.txt --known data/known17.txt",
        |_, dir| {
            assert_eq!(read(&dir.join("17s.txt")), format!("{ENTRY_17}\n"));
            assert_eq!(read(&dir.join("17s.txt.new")), "");
        },
    ),
    (
        "s17 campaign plan --slices all --unit-hours 12 -o cat",
        |out, dir| {
            assert!(
                stdout(out).starts_with(
                    "s17 campaign plan: 17s, all: 12635 units, 149000 core-hours estimated for \
                     986727817 entries"
                ),
                "{}",
                stdout(out)
            );
            assert_eq!(read(&dir.join("cat/units.tsv")).lines().count(), 2 + 12_635);
        },
    ),
    (
        "s17 campaign plan --slices 324:1464944..1464945,324:304187..304188,328:264978..264979 --clues 18 --first --unit-hours 12 -o is18",
        |out, dir| {
            assert!(
                stdout(out).contains("18s (minimal), first per visit: 3 units, "),
                "{}",
                stdout(out)
            );
            assert!(read(&dir.join("is18/units.tsv")).contains(" clues=18 first "));
        },
    ),
    (
        "for unit in 0 1 2; do s17 campaign run is18 $unit --threads 1; done",
        |out, _| {
            let err = stderr(out);
            assert_eq!(err.matches("1 of 1 entries done").count(), 3, "{err}");
        },
    ),
    ("s17 campaign merge is18 -o is18-flags", |out, dir| {
        let err = stderr(out);
        assert!(
            err.contains("slice 324: 1 grid covered, 1 flagged"),
            "{err}"
        );
        assert!(dir.join("is18-flags/slice-324.s17f").is_file());
    }),
    ("s17 campaign flags is18-flags/slice-324.s17f", |out, _| {
        let lines = stdout_lines(out);
        assert_eq!(lines.len(), 1, "{lines:?}");
        let (grid, puzzle) = lines[0].split_once('\t').expect("GRID<TAB>PUZZLE");
        assert_eq!(grid, FLAG_GRID);
        assert_puzzle_of(puzzle, FLAG_GRID, 18);
    }),
    ("s17 campaign flags is18-flags --numbers", |out, _| {
        // FLAG_GRID's catalogue number (numbered by the committed tables).
        let lines = stdout_lines(out);
        assert_eq!(lines.len(), 1, "{lines:?}");
        let f: Vec<&str> = lines[0].split('\t').collect();
        assert_eq!(f[..2], ["294640364", FLAG_GRID], "{lines:?}");
        assert_puzzle_of(f[2], FLAG_GRID, 18);
    }),
    (
        "s17 campaign bitmap is18-flags -o is18.bits --partial",
        |out, dir| {
            assert!(stderr(out).contains("1 bit set"), "{}", stderr(out));
            let len = std::fs::metadata(dir.join("is18.bits")).unwrap().len();
            assert_eq!(len, 4096 * 2 + 684_091_318);
        },
    ),
    (
        "echo 123456789456789123798132564237594618569813247841627395314278956675941832982365471 | tr 12 21 | s17 catalogue has --bitmap is18.bits",
        |out, _| assert_eq!(stdout_lines(out), ["1\t294640364\tyes"]),
    ),
    (
        "echo 123456789456789123789123456214365897365897214897214365531642978642978531978531642 | s17 catalogue number",
        |out, _| assert_eq!(stdout_lines(out), ["1\t1"]),
    ),
    ("s17 catalogue grid 1..3", |out, _| {
        let lines = stdout_lines(out);
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(
            lines[0],
            "1\t123456789456789123789123456214365897365897214897214365531642978642978531978531642"
        );
        assert!(lines[1].starts_with("2\t") && lines[2].starts_with("3\t"));
    }),
    (
        "s17 campaign plan --slices all --clues 18 --first --unit-hours 12 -o is18-all",
        |out, dir| {
            assert!(
                stdout(out).starts_with(
                    "s17 campaign plan: 18s (minimal), first per visit: 156037 units, 1869894 \
                     core-hours estimated for 986727817 entries"
                ),
                "{}",
                stdout(out)
            );
            assert_eq!(
                read(&dir.join("is18-all/units.tsv")).lines().count(),
                2 + 156_037
            );
        },
    ),
    ("s17 enumerate --band 0 | head -2 > slice0.txt", |_, dir| {
        let grids = read(&dir.join("slice0.txt"));
        assert_eq!(grids.lines().count(), 2, "{grids}");
        // The first is the grid of 648 automorphisms, which has no 18
        // (its fewest clues are 19).
        assert!(grids.starts_with(
            "123456789456789123789123456214365897365897214897214365531642978642978531978531642\n"
        ));
    }),
    (
        "s17 scan slice0.txt -o has18.txt --clues 18 --first",
        |out, dir| {
            let err = stderr(out);
            assert!(
                err.contains("2 grids searched, 0 bad lines, 0 18s found"),
                "{err}"
            );
            assert!(
                !err.contains("stages:"),
                "the stage line only with --stats: {err}"
            );
            assert_eq!(read(&dir.join("has18.txt")), "");
        },
    ),
    ("cut -f1 has18.txt", |out, _| {
        assert_eq!(stdout(out), "");
    }),
];

/// README's, COMMANDS.md's and benches/README.md's figures of the whole
/// catalogue's campaigns agree with what `campaign plan` says: units, and
/// core-years from its core-hours (a year of 8,766 hours).
#[test]
fn the_docs_figures_agree_with_the_plans() {
    let root = env!("CARGO_MANIFEST_DIR");
    let flat = |name: &str| {
        std::fs::read_to_string(format!("{root}/{name}"))
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (readme, commands, benches) = (
        flat("README.md"),
        flat("COMMANDS.md"),
        flat("benches/README.md"),
    );
    let dir = tempfile::tempdir().unwrap();
    let plan = |goal: &[&str]| -> (u64, f64) {
        let out = Command::new(BIN)
            .args([
                "campaign",
                "plan",
                "--slices",
                "all",
                "--unit-hours",
                "12",
                "-o",
                "p",
            ])
            .args(goal)
            .arg("--force")
            .current_dir(dir.path())
            .output()
            .unwrap();
        let text = stdout(&out);
        // `s17 campaign plan: GOAL: N units, H core-hours estimated ...`
        let words: Vec<&str> = text.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "units,").expect(&text);
        let units = words[at - 1].parse().unwrap();
        let hours: f64 = words[at + 1].parse().unwrap();
        (units, hours / 8766.0)
    };
    let thousands = |n: u64| {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    let (units17, years17) = plan(&[]);
    let years17 = format!("{years17:.1}");
    assert!(
        readme.contains(&format!("(about {years17} ± ")),
        "README: {years17}"
    );
    assert!(
        commands.contains(&format!("({years17} core-years)")),
        "COMMANDS.md: {years17}"
    );
    assert!(
        benches.contains(&format!("about {years17} core-years")),
        "benches: {years17}"
    );
    assert!(
        commands.contains(&format!("{} units", thousands(units17))),
        "COMMANDS.md: {units17}"
    );

    let (units, years) = plan(&["--clues", "18", "--first"]);
    let years = format!("{years:.0}");
    let said = format!("{} units, about {years} core-years", thousands(units));
    assert!(readme.contains(&said), "README: {said}");
    assert!(
        readme.contains(&format!("(about {years} ± ")),
        "README's table: {years}"
    );
    assert!(commands.contains(&format!("{} units, {years} core-years", thousands(units))));
    assert!(
        commands.contains(&format!("**{years} core-years**")),
        "COMMANDS.md: {years}"
    );
    assert!(
        benches.contains(&format!("about {years} core-years**")),
        "benches: {years}"
    );

    let (units, years) = plan(&["--clues", "18"]);
    let years = format!("{years:.0}");
    assert!(
        readme.contains(&format!("(about {years} ± ")),
        "README's table: {years}"
    );
    assert!(commands.contains(&format!("{} units, {years} core-years", thousands(units))));
    assert!(
        benches.contains(&format!("about {years} core-years**")),
        "benches: {years}"
    );
}

/// The shell blocks of README's "## Common tasks": their lines, each with
/// `Some(reason)` when it is marked `# slow: reason`.
fn common_tasks() -> Vec<Vec<(String, Option<String>)>> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("Common tasks\n"))
        .expect("README.md has a \"## Common tasks\" section");
    let mut blocks = Vec::new();
    let mut block: Option<Vec<(String, Option<String>)>> = None;
    for line in section.lines() {
        match (&mut block, line.trim_end()) {
            (None, "```sh") => block = Some(Vec::new()),
            (Some(_), "```") => blocks.push(block.take().unwrap()),
            (Some(lines), text) if !text.is_empty() && !text.starts_with('#') => {
                let (command, slow) = match text.split_once("# slow:") {
                    Some((command, reason)) => (command, Some(reason.trim().to_string())),
                    None => (text, None),
                };
                lines.push((command.trim().to_string(), slow));
            }
            _ => {}
        }
    }
    assert!(block.is_none(), "an unclosed ```sh block in Common tasks");
    blocks
}

#[test]
fn the_common_tasks_run_as_the_readme_says() {
    let blocks = common_tasks();
    assert!(blocks.len() >= 5, "{blocks:?}");
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut seen = Vec::new();
    for block in &blocks {
        // Each block in a directory of its own, with a copy of data/.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("data")).unwrap();
        for name in ["sample-grids.txt", "known17.txt"] {
            std::fs::copy(data(name), dir.path().join("data").join(name)).unwrap();
        }
        for (line, slow) in block {
            if let Some(reason) = slow {
                assert!(line.starts_with("s17 "), "{line}");
                eprintln!("not run (slow: {reason}): {line}");
                continue;
            }
            let check = CHECKS
                .iter()
                .find(|(text, _)| text == line)
                .unwrap_or_else(|| {
                    panic!("README's common task `{line}` has no check in tests/it/readme.rs")
                })
                .1;
            let out = Command::new("sh")
                .arg("-c")
                .arg(line)
                .current_dir(dir.path())
                .env("PATH", &path)
                .env("S17_TABLES", shared_tables())
                .env_remove("RUST_LOG")
                .env_remove("S17_PROGRESS_SECS")
                .output()
                .expect("run sh");
            assert_eq!(
                out.status.code(),
                Some(0),
                "`{line}`:\n{}{}",
                stdout(&out),
                stderr(&out)
            );
            check(&out, dir.path());
            seen.push(line.as_str());
        }
    }
    for (text, _) in CHECKS {
        assert!(
            seen.contains(text),
            "tests/it/readme.rs checks `{text}`, which README's common tasks no longer run"
        );
    }
}

/// `puzzle` has `clues` clues, each the grid's digit in its cell.
fn assert_puzzle_of(puzzle: &str, grid: &str, clues: usize) {
    assert_eq!(puzzle.len(), 81, "{puzzle}");
    let mut count = 0;
    for (p, g) in puzzle.chars().zip(grid.chars()) {
        if p != '.' {
            assert_eq!(p, g, "{puzzle} is no puzzle of {grid}");
            count += 1;
        }
    }
    assert_eq!(count, clues, "{puzzle}");
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stdout_lines(out: &Output) -> Vec<String> {
    stdout(out).lines().map(str::to_string).collect()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
