//! Running the `s17` binary from the integration tests.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use s17::tables::BandTables;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_s17");

/// A file of the repository's `data/`.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(name)
}

/// The band tables shared by the tests of this checkout (never the user's
/// cache), built once.
pub fn shared_tables() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let path = PathBuf::from(concat!(env!("CARGO_TARGET_TMPDIR"), "/bands.s17t"));
        BandTables::open_or_build(&path).unwrap();
        path
    })
}

/// `s17 ARGS` with `$S17_TABLES` at `tables` and `RUST_LOG` unset.
pub fn s17_with_tables(args: &[&str], tables: &Path) -> Command {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .env("S17_TABLES", tables)
        .env_remove("RUST_LOG");
    command
}

/// `s17 ARGS` on the shared tables.
pub fn s17(args: &[&str]) -> Command {
    s17_with_tables(args, shared_tables())
}

/// `s17 ARGS` run with the band tables at a path that is never built
/// (commands that must not need them).
pub fn s17_without_tables(args: &[&str]) -> Output {
    s17_with_tables(args, Path::new("/nonexistent/bands.s17t"))
        .output()
        .expect("run s17")
}

/// `s17 ARGS --tables SHARED` in `dir`.
pub fn s17_in(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    command
        .current_dir(dir)
        .args(args)
        .arg("--tables")
        .arg(shared_tables());
    command
}

/// `s17 ARGS` in `dir`, the shared tables through `$S17_TABLES` (no
/// `--tables` flag: for commands that refuse one, such as `campaign plan`).
pub fn s17_at(dir: &Path, args: &[&str]) -> Command {
    let mut command = s17(args);
    command.current_dir(dir);
    command
}

/// Runs [`s17_at`].
pub fn run_at(dir: &Path, args: &[&str]) -> Output {
    s17_at(dir, args).output().expect("run s17")
}

/// Runs `command` with `input` on its stdin, stdout and stderr captured.
pub fn run_with_stdin(command: &mut Command, input: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that refuses at once (a bad file named on its command line)
    // may exit before it reads its input: a broken pipe is its answer, not
    // the test's failure.
    match child.stdin.take().unwrap().write_all(input.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        written => written.unwrap(),
    }
    child.wait_with_output().unwrap()
}

/// The lines of a run's stdout.
pub fn stdout_lines(output: &Output) -> Vec<String> {
    String::from_utf8(output.stdout.clone())
        .expect("utf-8 stdout")
        .lines()
        .map(str::to_string)
        .collect()
}

/// The stdout of a run that must have exited with 0 (its stderr in the
/// message otherwise).
pub fn stdout_of_success(output: &Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs `s17 ARGS --tables SHARED` in `dir`.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    s17_in(dir, args).output().unwrap()
}

/// A run's stderr, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A run's stdout then stderr, as text.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A fresh path `NAME` under the test directory `GROUP` of the target's
/// temporary directory (removed if a run before left it; its parent made).
pub fn temp(group: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    dir
}

/// The lines of the file at `path`, sorted.
pub fn sorted_lines(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines.sort();
    lines
}

/// The names of the files in `dir`, sorted.
pub fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `campaign merge DIR -o DIR/17s.txt --force MORE` (the tests merge
/// again into the same file; the refusal without --force is
/// tests/it/refusals_and_answers.rs').
pub fn campaign_merge(dir: &Path, more: &[&str]) -> (Output, PathBuf) {
    let file = dir.join("17s.txt");
    let out = s17(&["campaign", "merge"])
        .arg(dir)
        .arg("-o")
        .arg(&file)
        .arg("--force")
        .args(more)
        .output()
        .unwrap();
    (out, file)
}

/// README's one-entry campaign: slice 331, entry 1683769 (it holds one
/// known 17; a second's search).
pub const DEMO_ENTRY: &str = "331:1683769..1683770";

/// README's exhaust example: the demo entry searched into `e.txt`.
pub const DEMO_EXHAUST: [&str; 7] = [
    "exhaust",
    "--band",
    "331",
    "--entries",
    "1683769..1683770",
    "-o",
    "e.txt",
];

/// `s17 campaign plan --slices LIST --unit-hours 1 MORE -o NAME` in
/// `dir`, asserted to succeed.
pub fn plan_in(dir: &Path, name: &str, list: &str, more: &[&str]) {
    let mut args = vec!["campaign", "plan", "--slices", list, "--unit-hours", "1"];
    args.extend_from_slice(more);
    args.extend(["-o", name]);
    let out = s17(&args).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
}
