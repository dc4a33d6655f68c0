//! What a new user trips on (issue 38), on the real binary in temporary
//! directories: a closed stderr, byte-order marks, files left behind by
//! refused runs, exit codes and empty input, and the lines that read
//! wrong. Each test takes a few seconds on a release build.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use crate::common::bin::BIN;
use crate::common::bin::{DEMO_EXHAUST, files_in, stderr};
use crate::common::fixture;
use crate::common::{FIRST_KNOWN17, QUICK_GRID};

/// The UTF-8 byte-order mark.
const BOM: &str = "\u{feff}";

/// The test band tables (built by the fixture if missing).
fn tables() -> &'static str {
    fixture();
    concat!(env!("CARGO_TARGET_TMPDIR"), "/bands.s17t")
}

/// `s17 ARGS` in `dir`, with the test band tables and no colour, log or
/// progress settings of the caller.
fn command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command
        .current_dir(dir)
        .args(args)
        .env("S17_TABLES", tables())
        .env_remove("RUST_LOG")
        .env_remove("NO_COLOR")
        .env_remove("S17_PROGRESS_SECS");
    command
}

/// [`command`] started with its stdin and stderr on pipes, its stdout on
/// a pipe too when `stdout` is set.
fn spawn(dir: &Path, args: &[&str], stdout: bool) -> Child {
    command(dir, args)
        .stdin(Stdio::piped())
        .stdout(if stdout {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::piped())
        .spawn()
        .expect("run s17")
}

/// [`command`] run with `stdin` as its standard input.
fn s17_with(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = spawn(dir, args, true);
    let mut input = child.stdin.take().expect("stdin");
    // A command that does not read its stdin may have ended already.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("wait for s17")
}

fn s17(dir: &Path, args: &[&str]) -> Output {
    s17_with(dir, args, b"")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

// ---------------------------------------------------------------------------
// 1. A closed stderr

/// Runs `s17 ARGS` with stderr on a pipe that is closed after its first
/// line, and `stdin` written after that (so the run writes to the closed
/// pipe): the run must end as it would otherwise, with no panic.
fn with_stderr_closed(dir: &Path, args: &[&str], stdin: &[u8]) -> std::process::ExitStatus {
    let mut child = spawn(dir, args, false);
    let mut input = child.stdin.take().expect("stdin");
    let mut errors = BufReader::new(child.stderr.take().expect("stderr"));
    // One bad line first, to be read, then the stream is closed.
    input.write_all(b"bad line\n").expect("write stdin");
    input.flush().expect("flush stdin");
    let mut first = String::new();
    errors.read_line(&mut first).expect("read stderr");
    assert!(first.contains("line 1"), "{args:?}: {first}");
    drop(errors);
    let _ = input.write_all(stdin);
    drop(input);
    child.wait().expect("wait for s17")
}

#[test]
fn a_closed_stderr_ends_the_run_quietly_with_its_own_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let bad: String = (0..200).map(|i| format!("bad {i}\n")).collect();
    for command in ["solve", "canon"] {
        let status = with_stderr_closed(dir.path(), &[command, "-"], bad.as_bytes());
        // Bad lines: exit 1, as with stderr open; never a panic (101).
        assert_eq!(status.code(), Some(1), "{command}");
    }
    // A scan's summary comes after its search, long after the closed
    // stderr's first line (a bad grid line).
    std::fs::write(dir.path().join("grids.txt"), format!("x\n{QUICK_GRID}\n")).unwrap();
    let mut child = command(dir.path(), &["-v", "scan", "grids.txt", "-o", "out.txt"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut errors = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    errors.read_line(&mut first).unwrap();
    assert!(first.contains("grids.txt: line 1"), "{first}");
    drop(errors);
    assert_eq!(child.wait().unwrap().code(), Some(1));
    assert!(dir.path().join("out.txt.done").exists());
}

// ---------------------------------------------------------------------------
// 2. Byte-order marks

#[test]
fn a_byte_order_mark_is_skipped_in_every_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The mark, then a comment: neither makes a bad line.
    let with_bom = |item: &str| format!("{BOM}# written by a Windows editor\r\n{item}\r\n");
    std::fs::write(d.join("puzzles.txt"), with_bom(FIRST_KNOWN17)).unwrap();
    std::fs::write(d.join("grids.txt"), with_bom(QUICK_GRID)).unwrap();
    std::fs::write(d.join("first.txt"), format!("{BOM}{FIRST_KNOWN17}\n")).unwrap();
    let grid_in = with_bom(QUICK_GRID).into_bytes();
    let puzzle_in = with_bom(FIRST_KNOWN17).into_bytes();
    // (arguments, standard input, whether stdout has lines)
    let runs: [(&[&str], &[u8], bool); 12] = [
        (&["solve", "puzzles.txt"], b"", true),
        (&["solve", "first.txt"], b"", true),
        (&["solve"], &puzzle_in, true),
        (&["canon", "grids.txt"], b"", true),
        (&["search", "--input", "grids.txt"], b"", false),
        (&["search"], &grid_in, false),
        (&["scan", "grids.txt", "-o", "out.txt"], b"", false),
        (
            &[
                "scan",
                "grids.txt",
                "-o",
                "new.txt",
                "--known",
                "puzzles.txt",
            ],
            b"",
            false,
        ),
        (&["validate", "puzzles.txt"], b"", false),
        (&["validate", "first.txt"], b"", false),
        (&["tune", "--input", "grids.txt"], b"", true),
        (&["enumerate", "--which", "puzzles.txt"], b"", true),
    ];
    for (args, stdin, prints) in runs {
        let out = s17_with(d, args, stdin);
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {text}");
        assert!(!text.contains("line 1"), "{args:?}: {text}");
        assert_eq!(!out.stdout.is_empty(), prints, "{args:?}: {text}");
    }
    // The puzzle was read as itself: its solution; validate found its 17s.
    let puzzle = s17::grid::Puzzle::parse(FIRST_KNOWN17).unwrap();
    let solution = s17::solver::solve(&puzzle, 2).first.unwrap();
    let solved = s17(d, &["solve", "first.txt"]);
    assert_eq!(stdout(&solved), format!("{solution}\n"));
    let validated = s17(d, &["validate", "first.txt"]);
    assert!(
        stderr(&validated).contains("1 puzzle (0 bad lines) on 1 grid"),
        "{}",
        stderr(&validated)
    );
    let which = s17(d, &["enumerate", "--which", "puzzles.txt"]);
    assert!(stdout(&which).starts_with("2\t"), "{}", stdout(&which));
}

// ---------------------------------------------------------------------------
// 3. Files left behind

/// Asserts that `out` failed (exit 1) with `message` on stderr.
fn assert_refused(out: &Output, message: &str) {
    let text = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(message), "{message}: {text}");
}

#[test]
fn refused_and_failed_runs_leave_no_file_behind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("g.txt"), format!("{QUICK_GRID}\n")).unwrap();
    std::fs::write(d.join("list.txt"), format!("{FIRST_KNOWN17}\n")).unwrap();
    std::fs::create_dir(d.join("D")).unwrap();
    let before = files_in(d);
    // An output that is a directory, however the run is asked to open it.
    for mode in [None, Some("--force"), Some("--resume")] {
        let runs: [Vec<&str>; 3] = [
            vec!["scan", "g.txt", "-o", "D"],
            vec!["exhaust", "--band", "331", "--entries", "0..1", "-o", "D"],
            vec!["validate", "list.txt", "--checkpoint", "D"],
        ];
        for mut args in runs {
            if let Some(flag) = mode.filter(|_| args[0] != "validate") {
                args.push(flag);
            }
            let out = s17(d, &args);
            assert_refused(&out, "D is a directory; give the output a file name");
            assert_eq!(files_in(d), before, "{args:?}");
            assert!(files_in(&d.join("D")).is_empty(), "{args:?}");
        }
    }
    // An existing output without --resume or --force: no lock file made.
    std::fs::write(d.join("out.txt"), "").unwrap();
    let before = files_in(d);
    let out = s17(d, &["scan", "g.txt", "-o", "out.txt"]);
    assert_refused(&out, "out.txt already exists; pass --resume");
    assert_eq!(files_in(d), before);
    // A resume of a file that is no output of s17 (no checkpoint).
    let out = s17(d, &["scan", "g.txt", "-o", "out.txt", "--resume"]);
    assert_refused(&out, "out.txt exists but has no checkpoint");
    assert_eq!(files_in(d), before);
    // Band tables that cannot be read: the run stops before its output.
    let tables = std::fs::read(tables()).unwrap();
    std::fs::write(d.join("cut.s17t"), &tables[..4096]).unwrap();
    let before = files_in(d);
    for args in [
        &["scan", "g.txt", "-o", "new.txt", "--tables", "cut.s17t"][..],
        &[
            "validate",
            "list.txt",
            "--checkpoint",
            "ck.txt",
            "--tables",
            "cut.s17t",
        ],
        &[
            "exhaust",
            "--band",
            "331",
            "--entries",
            "0..1",
            "-o",
            "e.txt",
            "--tables",
            "cut.s17t",
        ],
    ] {
        let out = s17(d, args);
        assert_refused(&out, "band table file truncated");
        assert_eq!(files_in(d), before, "{args:?}");
    }
}

#[test]
fn table_files_go_only_to_existing_directories_and_hints_name_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for args in [
        &["tables", "build", "--path", "missing/dir/b.s17t"][..],
        &["search", QUICK_GRID, "--tables", "missing/b.s17t"],
    ] {
        let out = s17(d, args);
        assert_refused(&out, "cannot write the band tables missing/");
        assert!(stderr(&out).contains("(make it first"), "{}", stderr(&out));
        assert!(!stderr(&out).contains("building"), "{}", stderr(&out));
        assert!(files_in(d).is_empty(), "{args:?}");
    }
    // The hint to rebuild a bad file names it when it is not the default.
    let tables = std::fs::read(tables()).unwrap();
    std::fs::write(d.join("cut.s17t"), &tables[..4096]).unwrap();
    let out = s17(d, &["search", QUICK_GRID, "--tables", "cut.s17t"]);
    assert_refused(&out, "rebuild with `s17 tables build --path cut.s17t`");
    let out = command(d, &["search", QUICK_GRID])
        .env("S17_TABLES", "cut.s17t")
        .output()
        .unwrap();
    assert_refused(&out, "rebuild with `s17 tables build`");
}

// ---------------------------------------------------------------------------
// 4. Exit codes, empty input, ranges past the end

#[test]
fn usage_errors_exit_two_with_clap_messages() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("g.txt"), format!("{QUICK_GRID}\n")).unwrap();
    for (args, message) in [
        (
            &["search", "--chunk", "5000", QUICK_GRID][..],
            "s17 search: error: invalid value '5000' for '--chunk <N>': 5000 is not in the range 16 to 4096",
        ),
        (
            &["search", "--ua-limit", "0", QUICK_GRID],
            "s17 search: error: invalid value '0' for '--ua-limit <N>': 0 is not in the range 1 to 256",
        ),
        (
            &["tune", "--random", "1", "--chunk", "5000"],
            "s17 tune: error: invalid value '5000' for '--chunk <LIST>': 5000 is not in the range 16 to 4096",
        ),
        (
            &["tune", "--random", "1", "--fillings", "5,0"],
            "s17 tune: error: invalid value '0' for '--fillings <LIST>': 0 is not in the range 1 to 1000000",
        ),
        (
            &["enumerate"],
            "s17 enumerate: error: the following required arguments were not provided:\n  \
             <--band <K>|--all|--bands <A..B>|--which <FILE>>",
        ),
        (
            &["enumerate", "--bands", "0..999", "-o", "c.tsv"],
            "s17 enumerate: error: invalid value '0..999' for '--bands <A..B>': slices are 0 to 415, got 0..999",
        ),
        (
            &["exhaust", "--estimate", "1", "--bands", "400..417"],
            "s17 exhaust: error: invalid value '400..417' for '--bands <A..B>': slices are 0 to 415, got 400..417",
        ),
    ] {
        let out = s17(d, args);
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {text}");
        assert!(text.starts_with(message), "{args:?}: {text}");
        assert!(out.stdout.is_empty());
    }
    assert_eq!(files_in(d), ["g.txt"]);
}

/// One rule for an input with no item (empty, or only blank and `#`
/// lines): one line naming it, exit 1, no file made.
#[test]
fn empty_input_is_one_error_line_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, text) in [("empty.txt", ""), ("comments.txt", "# nothing\n\n  \n")] {
        std::fs::write(d.join(name), text).unwrap();
        for (args, what) in [
            (&["solve", name][..], "puzzle"),
            (&["canon", name], "grid or puzzle"),
            (&["validate", name, "--checkpoint", "ck.txt"], "puzzle"),
            (&["scan", name, "-o", "out.txt"], "grid"),
            (&["tune", "--input", name], "grid"),
        ] {
            let out = s17(d, args);
            let message = format!(
                "s17 {}: error: no {what} in {name} (it is empty, or holds only blank and '#' lines)\n",
                args[0]
            );
            assert_eq!(out.status.code(), Some(1), "{args:?}");
            assert_eq!(stderr(&out), message, "{args:?}");
            assert!(out.stdout.is_empty());
        }
        let out = s17_with(d, &["solve"], text.as_bytes());
        assert_eq!(out.status.code(), Some(1));
        assert!(
            stderr(&out).contains("no puzzle in <stdin>"),
            "{}",
            stderr(&out)
        );
        // The input is named (issue 43: "no grid given" named none).
        for (args, source) in [
            (&["search", "--input", name][..], name),
            (&["search"], "<stdin>"),
        ] {
            let out = s17_with(d, args, text.as_bytes());
            assert_eq!(out.status.code(), Some(1));
            let message = format!(
                "s17 search: error: no grid in {source} (it is empty, or holds only blank and '#' lines)\n"
            );
            assert_eq!(stderr(&out), message, "{args:?}");
        }
    }
    assert_eq!(files_in(d), ["comments.txt", "empty.txt"]);
}

/// Asserts that `out` succeeded with stderr containing each of `texts`.
fn assert_says(out: &Output, texts: &[&str]) {
    let text = stderr(out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    for expected in texts {
        assert!(text.contains(expected), "{expected}: {text}");
    }
}

#[test]
fn ranges_past_the_end_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Slice 28 has 80 entries, none holding an ED grid of its own.
    let exhaust = |entries: &str, output: &str| {
        s17(
            d,
            &[
                "exhaust",
                "--band",
                "28",
                "--entries",
                entries,
                "-o",
                output,
            ],
        )
    };
    // A range past the slice's end is a usage error, in the slice's own
    // numbers, and leaves no file (issue 43: it warned and exited 0).
    for (entries, given) in [
        ("79..500", "79..500"),
        ("80..81", "80..81"),
        ("80..", "80.."),
    ] {
        let out = exhaust(entries, "a.txt");
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert_eq!(
            stderr(&out),
            format!(
                "s17 exhaust: error: --entries {given}: slice 28 has 80 entries, numbered 0 to \
                 79 (give A..B with B at most 80)\n"
            )
        );
        assert!(files_in(d).is_empty(), "{:?}", files_in(d));
    }
    // No warning for a range inside the slice, or open-ended.
    let out = exhaust("79..", "c.txt");
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("slice 28: 1 entry searched"),
        "{}",
        stderr(&out)
    );
    // A sample larger than the list: the whole list, said so.
    std::fs::write(d.join("list.txt"), format!("{FIRST_KNOWN17}\n")).unwrap();
    assert_says(
        &s17(d, &["validate", "list.txt", "--sample", "5"]),
        &[
            "s17 validate: warning: --sample 5 is more than the 1 grid of list.txt: the \
           whole list is searched (in random orientations)",
        ],
    );
    let out = s17(d, &["validate", "list.txt", "--sample", "1"]);
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
}

// ---------------------------------------------------------------------------
// 5. Lines that read wrong

#[test]
fn bad_lines_are_capped_and_a_bad_known_list_is_named_apart() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bad: String = (1..=30).map(|i| format!("bad {i}\n")).collect();
    std::fs::write(d.join("bad.txt"), &bad).unwrap();
    for args in [
        &["solve", "bad.txt"][..],
        &["scan", "bad.txt", "-o", "out.txt"],
    ] {
        let out = s17(d, args);
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{text}");
        let shown: Vec<&str> = text.lines().filter(|l| l.contains(": line ")).collect();
        assert_eq!(shown.len(), 20, "{text}");
        assert!(shown[19].contains("bad.txt: line 20: "), "{text}");
        assert!(
            text.contains(&format!("s17 {}: ... and 10 more bad lines\n", args[0])),
            "{text}"
        );
        assert!(text.contains("30 bad lines"), "{text}");
    }
    // The known list's bad lines are not the grid file's.
    std::fs::write(d.join("g.txt"), format!("{QUICK_GRID}\n")).unwrap();
    std::fs::write(d.join("list.txt"), format!("x\n{FIRST_KNOWN17}\ny\n")).unwrap();
    let out = s17(d, &["scan", "g.txt", "-o", "k.txt", "--known", "list.txt"]);
    for expected in [
        "s17 scan: list.txt: line 1: ",
        "s17 scan: list.txt: line 3: ",
        "s17 scan: 2 bad lines in the known list list.txt (--known): those puzzles count as not known",
        "s17 scan: 1 grid searched, 0 bad lines, ",
    ] {
        assert_refused(&out, expected);
    }
}

#[test]
fn progress_settings_colour_and_summaries_say_what_they_mean() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("g.txt"), format!("{QUICK_GRID}\n")).unwrap();
    let out = command(d, &["scan", "g.txt", "-o", "out.txt"])
        .env("S17_PROGRESS_SECS", "abc")
        .output()
        .unwrap();
    assert_says(
        &out,
        &[
            "s17: warning: S17_PROGRESS_SECS=\"abc\" is not a number of seconds (0 or more); \
           a progress line every 60 s",
        ],
    );
    // Log lines on a pipe: no colour codes.
    let out = s17(d, &["-v", "scan", "g.txt", "-o", "v.txt"]);
    assert_says(&out, &[" INFO scan{grids=g.txt part=1/1}: grid file read "]);
    assert!(!stderr(&out).contains('\u{1b}'), "{:?}", stderr(&out));
    // README's exhaust example: its entry lists no ED grid but finds a 17
    // of a grid listed by another entry, and the summary says which is which.
    let out = s17(d, &DEMO_EXHAUST);
    assert_says(
        &out,
        &[
            "slice 331: 1 entry searched (1 band 3 visited, 0 ED grids listed there), 1 17 \
             found in ",
            "no ED grid listed here to divide by",
        ],
    );
}

// ---------------------------------------------------------------------------
// 6. Docs

#[test]
fn help_and_readme_read_right() {
    let dir = tempfile::tempdir().unwrap();
    let help = stdout(&s17(dir.path(), &["enumerate", "--help"]));
    assert!(
        help.contains("`LINE<TAB>CHOICE<TAB>K<TAB>ENTRY<TAB>GRID`"),
        "{help}"
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    // The quick start writes under target/, which git ignores.
    let quick = readme
        .lines()
        .find(|l| l.starts_with("cargo build --release && ./target/release/s17 scan"))
        .unwrap();
    assert!(quick.contains("--output target/"), "{quick}");
    // README and .cargo/config.toml give the same baseline and gain.
    let config = std::fs::read_to_string(root.join(".cargo/config.toml")).unwrap();
    for text in [&readme, &config] {
        assert!(text.contains("RUSTFLAGS=\"-C target-cpu=x86-64-v2\" cargo build --release"));
        assert!(text.contains("about 6 % faster than a"));
    }
}
