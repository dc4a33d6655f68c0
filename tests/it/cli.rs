//! The `s17` binary as users run it: `solve` and `canon` against the data
//! files and the library, bad input (one clear error per bad line, the run
//! goes on, exit 1), usage errors (exit 2), a closed stdout (exit 0), and
//! the help of every subcommand. Each test runs in a few seconds on a
//! release build (`cargo test --release`).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use s17::canon::{Transform, minlex_grid, minlex_puzzle};
use s17::generate::random_grid;
use s17::grid::{Grid, Puzzle};

use crate::common::bin::{BIN, data, run_with_stdin, s17_without_tables, stdout_lines};

fn read_data(name: &str) -> String {
    std::fs::read_to_string(data(name)).expect("data file")
}

fn stderr_text(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Writes `text` to `name` in a fresh temporary directory.
fn temp_file(name: &str, text: impl AsRef<[u8]>) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write temp file");
    (dir, path)
}

/// The `puzzle:count:solution` lines of data/solver_cases.txt.
fn solver_cases() -> Vec<(String, u64, String)> {
    read_data("solver_cases.txt")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            (
                fields[0].to_string(),
                fields[1].parse().expect("count"),
                fields.get(2).unwrap_or(&"").to_string(),
            )
        })
        .collect()
}

#[test]
fn solve_count_matches_solver_cases() {
    let cases = solver_cases();
    assert_eq!(cases.len(), 43);
    let cases_file = data("solver_cases.txt");
    let count_to = |limit| {
        s17_without_tables(&[
            "solve",
            "--count",
            cases_file.to_str().unwrap(),
            "--limit",
            limit,
        ])
    };
    let output = count_to("1000");
    assert!(output.status.success(), "{}", stderr_text(&output));
    let counts = stdout_lines(&output);
    assert_eq!(counts.len(), cases.len());
    for ((puzzle, expected, _), got) in cases.iter().zip(&counts) {
        assert_eq!(got.parse::<u64>().unwrap(), *expected, "{puzzle}");
    }
    // A limit below the count stops there.
    let output = count_to("5");
    for ((puzzle, expected, _), got) in cases.iter().zip(stdout_lines(&output)) {
        assert_eq!(got.parse::<u64>().unwrap(), (*expected).min(5), "{puzzle}");
    }
}

#[test]
fn solve_prints_the_solution_of_unique_puzzles() {
    let cases = solver_cases();
    let output = s17_without_tables(&["solve", data("solver_cases.txt").to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr_text(&output));
    let lines = stdout_lines(&output);
    assert_eq!(lines.len(), cases.len());
    for ((puzzle, count, solution), got) in cases.iter().zip(&lines) {
        match count {
            0 => assert_eq!(got, "no solution", "{puzzle}"),
            1 => assert_eq!(got, solution, "{puzzle}"),
            _ => assert_eq!(got, "not unique", "{puzzle}"),
        }
    }
}

#[test]
fn solve_count_known17_all_unique() {
    let output = s17_without_tables(&["solve", "--count", data("known17.txt").to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr_text(&output));
    let lines = stdout_lines(&output);
    assert_eq!(lines.len(), 49_158);
    assert!(lines.iter().all(|l| l == "1"));
    assert!(stderr_text(&output).contains("49158 puzzles"));
}

#[test]
fn solve_reads_stdin() {
    let cases = solver_cases();
    let input: String = cases
        .iter()
        .take(5)
        .map(|(p, _, _)| format!("{p}\n"))
        .collect();
    let output = run_with_stdin(Command::new(BIN).args(["solve", "--count", "-"]), &input);
    assert!(output.status.success());
    let expected: Vec<String> = cases
        .iter()
        .take(5)
        .map(|c| c.1.min(2).to_string())
        .collect();
    assert_eq!(stdout_lines(&output), expected);
}

/// 10,000 known 17s with `bad` in place of line 5,000.
fn with_bad_line(bad: &[u8]) -> Vec<u8> {
    let known = read_data("known17.txt");
    let mut text = Vec::new();
    for (i, line) in known.lines().take(10_000).enumerate() {
        if i + 1 == 5_000 {
            text.extend_from_slice(bad);
        } else {
            text.extend_from_slice(line.as_bytes());
        }
        text.push(b'\n');
    }
    text
}

/// The lines of stderr that report a bad line.
fn error_lines(output: &Output) -> Vec<String> {
    stderr_text(output)
        .lines()
        .filter(|l| l.contains(": line "))
        .map(str::to_string)
        .collect()
}

#[test]
fn one_bad_line_in_ten_thousand() {
    let known = read_data("known17.txt");
    let line5000 = known.lines().nth(4_999).unwrap();
    let cases: [(Vec<u8>, &str); 5] = [
        (
            format!("{}x{}", &line5000[..40], &line5000[41..]).into_bytes(),
            "bad character 'x' at position 41",
        ),
        (
            line5000.as_bytes()[..80].to_vec(),
            "expected 81 cells, found 80",
        ),
        (
            format!("11{}", &".".repeat(79)).into_bytes(),
            "digit 1 appears twice in row 1",
        ),
        (
            format!("{}\u{e9}{}", &line5000[..9], &line5000[10..]).into_bytes(),
            "bad character 'é' at position 10",
        ),
        (
            [
                &line5000.as_bytes()[..20],
                b"\xff",
                &line5000.as_bytes()[21..],
            ]
            .concat(),
            "bad character '\u{fffd}' at position 21",
        ),
    ];
    for (bad, reason) in cases {
        let (_dir, path) = temp_file("big.txt", with_bad_line(&bad));
        let output = s17_without_tables(&["solve", "--count", path.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(1), "{reason}");
        let errors = error_lines(&output);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains(path.to_str().unwrap()), "{}", errors[0]);
        assert!(errors[0].contains("line 5000: "), "{}", errors[0]);
        assert!(errors[0].contains(reason), "{} lacks {reason}", errors[0]);
        let lines = stdout_lines(&output);
        assert_eq!(lines.len(), 9_999);
        assert!(lines.iter().all(|l| l == "1"));
    }
}

#[test]
fn canon_bad_line_goes_on() {
    let grids: Vec<String> = solved(
        &read_data("known17.txt")
            .lines()
            .take(300)
            .collect::<Vec<_>>(),
    );
    let mut text: String = grids.iter().map(|g| format!("{g}\n")).collect();
    text.insert_str(82 * 150, "not a grid\n# a comment\n\n");
    let (_dir, path) = temp_file("grids.txt", text);
    let output = s17_without_tables(&["canon", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let errors = error_lines(&output);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("line 151: expected 81 cells, found 3"),
        "{}",
        errors[0]
    );
    assert_eq!(stdout_lines(&output).len(), 300);
}

#[test]
fn all_good_exits_zero_and_comments_are_skipped() {
    let cases = solver_cases();
    let text = format!(
        "# header\n\n{}\r\n  {}  trailing words\n",
        cases[0].0, cases[1].0
    );
    let (_dir, path) = temp_file("ok.txt", text);
    let output = s17_without_tables(&["solve", "--count", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_text(&output));
    assert_eq!(stdout_lines(&output).len(), 2);
    assert!(error_lines(&output).is_empty());
}

#[test]
fn usage_errors_exit_two() {
    for args in [
        &["solve", "--bogus"][..],
        &["canon", "--bogus"],
        &["tables", "frobnicate"],
        &["search", "--bogus"],
        &["nosuchcommand"],
        &["solve", "--limit", "0"],
        &[],
    ] {
        let output = s17_without_tables(args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr_text(&output)
        );
        assert!(output.stdout.is_empty());
    }
}

/// A tuning value out of its range in `TUNING_OPTIONS` is a usage error
/// (exit 2, clap's message naming the flag and the range), found before
/// any grid or table is read.
#[test]
fn tuning_values_out_of_range_exit_two() {
    use s17::search::TUNING_OPTIONS;
    let grid = "836491752724835961591672438982314576653789124417256893245167389178923645369548217";
    for option in &TUNING_OPTIONS {
        let flag = format!("--{}", option.name);
        let mut bad = vec![option.max + 1];
        if option.min > 0 {
            bad.push(option.min - 1);
        }
        for value in bad {
            let value = value.to_string();
            let output = s17_without_tables(&["search", &flag, &value, grid]);
            let text = stderr_text(&output);
            assert_eq!(output.status.code(), Some(2), "{flag} {value}: {text}");
            assert!(output.stdout.is_empty());
            let message = format!(
                "s17 search: error: invalid value '{value}' for '{flag} <N>': {value} is not in \
                 the range {} to {}",
                option.min, option.max
            );
            assert!(text.starts_with(&message), "{flag} {value}: {text}");
        }
    }
    for args in [
        &[
            "scan",
            "grids.txt",
            "--output",
            "out.txt",
            "--ua-limit",
            "0",
        ][..],
        &["validate", "--chunk", "8"],
        &["exhaust", "--band", "1", "--fillings", "0"],
    ] {
        let output = s17_without_tables(args);
        let text = stderr_text(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {text}");
        assert!(text.contains("is not in"), "{args:?}: {text}");
    }
}

#[test]
fn missing_file_exits_one_naming_it_and_the_subcommand() {
    let output = s17_without_tables(&["solve", "/nonexistent/puzzles.txt"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr_text(&output).starts_with("s17 solve: error: cannot open /nonexistent/puzzles.txt"),
        "{}",
        stderr_text(&output)
    );
    let out = tempfile::tempdir().unwrap();
    let out = out.path().join("out.txt");
    let out = out.to_str().unwrap();
    for args in [
        &["canon", "/nonexistent/in.txt"][..],
        &["search", "-i", "/nonexistent/in.txt"],
        &["scan", "/nonexistent/in.txt", "-o", out],
        &["validate", "/nonexistent/in.txt"],
    ] {
        let output = s17_without_tables(args);
        let text = stderr_text(&output);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {text}");
        assert!(
            text.starts_with(&format!("s17 {}: error: ", args[0]))
                && text.contains("/nonexistent/in.txt"),
            "{args:?}: {text}"
        );
    }
}

#[test]
fn closed_stdout_exits_zero_quietly() {
    for command in ["solve", "canon"] {
        let input = if command == "solve" {
            data("known17.txt")
        } else {
            data("solver_cases.txt")
        };
        // Canon of 43 puzzles writes too little to fill a pipe; repeat them.
        let path_holder;
        let input = if command == "canon" {
            let text = read_data("solver_cases.txt").repeat(60);
            path_holder = temp_file("many.txt", text);
            path_holder.1.clone()
        } else {
            input
        };
        let mut child = Command::new(BIN)
            .arg(command)
            .arg(&input)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert_eq!(first.trim_end().len(), 81, "{command}: {first:?}");
        // stdout is dropped here: the next write fails with a broken pipe.
        let output = child.wait_with_output().unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "{command}: {}",
            stderr_text(&output)
        );
        assert!(
            stderr_text(&output).is_empty(),
            "{command}: {}",
            stderr_text(&output)
        );
    }
}

/// The solutions of `puzzles` (each has one).
fn solved(puzzles: &[&str]) -> Vec<String> {
    puzzles
        .iter()
        .map(|p| {
            s17::solver::solve(&Puzzle::parse(p).unwrap(), 1)
                .first
                .unwrap()
                .to_string()
        })
        .collect()
}

/// `s17 canon` on a file of each list of `inputs` (one per line) prints
/// `expected`, line by line.
fn assert_canon_prints<T: std::fmt::Display>(inputs: [&[T]; 2], expected: &[String]) {
    for input in inputs {
        let text: String = input.iter().map(|x| format!("{x}\n")).collect();
        let (_dir, path) = temp_file("input.txt", text);
        let output = s17_without_tables(&["canon", path.to_str().unwrap()]);
        assert!(output.status.success(), "{}", stderr_text(&output));
        assert_eq!(stdout_lines(&output), expected);
    }
}

#[test]
fn canon_grids_match_library_and_are_invariant() {
    let mut rng = fastrand::Rng::with_seed(2017);
    let mut grids: Vec<Grid> = (0..500).map(|_| random_grid(&mut rng)).collect();
    let known = read_data("known17.txt");
    let first: Vec<&str> = known.lines().take(500).collect();
    grids.extend(solved(&first).iter().map(|g| Grid::parse(g).unwrap()));
    let moved: Vec<Grid> = grids
        .iter()
        .map(|g| Transform::random(&mut rng).apply_grid(g))
        .collect();
    let expected: Vec<String> = grids.iter().map(|g| minlex_grid(g).0.to_string()).collect();
    assert_canon_prints([&grids, &moved], &expected);
}

#[test]
fn canon_puzzles_match_library_and_are_invariant() {
    let mut rng = fastrand::Rng::with_seed(17);
    let known = read_data("known17.txt");
    let puzzles: Vec<Puzzle> = known
        .lines()
        .step_by(200)
        .map(|l| Puzzle::parse(l).unwrap())
        .collect();
    let moved: Vec<Puzzle> = puzzles
        .iter()
        .map(|p| Transform::random(&mut rng).apply_puzzle(p))
        .collect();
    let expected: Vec<String> = puzzles
        .iter()
        .map(|p| minlex_puzzle(p).0.to_string())
        .collect();
    assert_canon_prints([&puzzles, &moved], &expected);
}

#[test]
fn canon_automorphisms() {
    const MOST_SYMMETRIC: &str =
        "123456789456789123789123456231564897564897231897231564312645978645978312978312645";
    let (_dir, path) = temp_file("g.txt", format!("{MOST_SYMMETRIC}\n"));
    let output = s17_without_tables(&["canon", "--automorphisms", path.to_str().unwrap()]);
    assert!(output.status.success());
    let line = &stdout_lines(&output)[0];
    assert!(line.ends_with("\t648"), "{line}");
}

#[test]
fn help_of_every_subcommand() {
    for args in [
        &["--help"][..],
        &["--version"],
        &["solve", "--help"],
        &["canon", "--help"],
        &["search", "--help"],
        &["tables", "--help"],
        &["tables", "build", "--help"],
        &["tables", "verify", "--help"],
        &["tables", "stats", "--help"],
        &["help", "solve"],
    ] {
        let output = s17_without_tables(args);
        assert!(
            output.status.success(),
            "{args:?}: {}",
            stderr_text(&output)
        );
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(text.contains("s17"), "{args:?}: {text}");
    }
}

/// `solve` and `canon` end with a summary line on stderr, and `-q` hides it.
#[test]
fn quiet_hides_the_summary_of_solve_and_canon() {
    let (_dir, file) = temp_file(
        "two.txt",
        read_data("known17.txt")
            .lines()
            .take(2)
            .collect::<Vec<_>>()
            .join("\n"),
    );
    let path = file.to_str().unwrap();
    for command in ["solve", "canon"] {
        let loud = s17_without_tables(&[command, path]);
        assert!(loud.status.success());
        assert!(
            stderr_text(&loud).contains(&format!("s17 {command}: ")),
            "{command}"
        );
        let quiet = s17_without_tables(&["-q", command, path]);
        assert!(quiet.status.success());
        assert_eq!(stderr_text(&quiet), "", "{command} -q");
        assert_eq!(stdout_lines(&quiet), stdout_lines(&loud), "{command}");
    }
}
