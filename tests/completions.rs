//! `s17 completions SHELL` and `s17 man [COMMAND...]` (issue 43): the bash
//! script loads in bash, every shell gets a script, the man pages are roff
//! with the right title, and a closed stdout ends them quietly. Neither
//! needs the band tables. A second or two on a release build.

use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_s17");

fn s17(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("S17_TABLES", "/nonexistent/bands.s17t")
        .output()
        .expect("run s17")
}

fn stdout_of_success(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

/// The `.TH` line of a page, which must come before its first section.
fn title(page: &str) -> &str {
    page.lines()
        .take_while(|line| !line.starts_with(".SH"))
        .find(|line| line.starts_with(".TH "))
        .unwrap_or_else(|| panic!("no .TH before the first .SH:\n{page}"))
}

#[test]
fn the_bash_script_loads_in_bash() {
    if Command::new("bash").arg("--version").output().is_err() {
        eprintln!("skipped: no bash on this machine");
        return;
    }
    let out = Command::new("bash")
        .args([
            "-c",
            "source <(\"$S17\" completions bash) && complete -p s17",
        ])
        .env("S17", BIN)
        .output()
        .expect("run bash");
    let text = stdout_of_success(&out);
    assert!(text.contains(" -F _s17 s17"), "{text}");
    // The completion function offers the subcommands, these two included.
    let out = Command::new("bash")
        .args([
            "-c",
            "source <(\"$S17\" completions bash) && COMP_WORDS=(s17 c) COMP_CWORD=1 && \
             _s17 s17 c s17 && printf '%s\\n' \"${COMPREPLY[@]}\"",
        ])
        .env("S17", BIN)
        .output()
        .expect("run bash");
    let words = stdout_of_success(&out);
    for word in ["canon", "campaign", "completions"] {
        assert!(words.lines().any(|w| w == word), "{word} in {words}");
    }
}

#[test]
fn every_shell_gets_a_script() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout_of_success(&s17(&["completions", shell]));
        assert!(script.contains("s17"), "{shell}");
        assert!(script.contains("exhaust"), "{shell}: the subcommands");
    }
    let out = s17(&["completions", "tcsh"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}

#[test]
fn man_pages_are_roff_with_their_titles() {
    let page = stdout_of_success(&s17(&["man"]));
    assert!(page.starts_with('.'), "roff: {page}");
    assert!(title(&page).starts_with(".TH s17 1 "), "{}", title(&page));
    for command in [
        "search",
        "scan",
        "exhaust",
        "campaign",
        "completions",
        "man",
    ] {
        assert!(page.contains(command), "the page of s17 names {command}");
    }
    let page = stdout_of_success(&s17(&["man", "exhaust"]));
    assert!(
        title(&page).starts_with(".TH s17-exhaust 1 "),
        "{}",
        title(&page)
    );
    let version = concat!("\"s17 ", env!("CARGO_PKG_VERSION"), "\"");
    assert!(title(&page).contains(version), "{}", title(&page));
    assert!(page.contains("estimate"), "exhaust's flags");
    let page = stdout_of_success(&s17(&["man", "campaign", "plan"]));
    assert!(
        title(&page).starts_with(".TH s17-campaign-plan 1 "),
        "{}",
        title(&page)
    );
    // An unknown subcommand: exit 1, naming the ones there are.
    let out = s17(&["man", "campaign", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("s17 man: error: `s17-campaign` has no subcommand `nope` (it has: plan, run"),
        "{err}"
    );
}

#[test]
fn man_dir_writes_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let out = s17(&["man", "--dir", dir.path().to_str().unwrap()]);
    stdout_of_success(&out);
    for name in [
        "s17.1",
        "s17-search.1",
        "s17-scan.1",
        "s17-campaign.1",
        "s17-campaign-plan.1",
        "s17-man.1",
    ] {
        let page = std::fs::read_to_string(dir.path().join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(title(&page).starts_with(".TH s17"), "{name}");
    }
    assert!(
        !dir.path().join("s17-help.1").exists(),
        "no page of clap's help"
    );
    let out = s17(&["man", "--dir", "/nonexistent/man1"]);
    assert_eq!(out.status.code(), Some(1));
}

/// `s17 man | head -1`, `s17 completions bash | head -1`: stdout closed
/// before or while they print, they end quietly with 0 (no panic).
#[test]
fn a_closed_stdout_ends_them_quietly() {
    for args in [&["man"][..], &["man", "search"], &["completions", "bash"]] {
        let mut child = Command::new(BIN)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run s17");
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    }
    if Command::new("sh").arg("-c").arg("true").output().is_ok() {
        let out = Command::new("sh")
            .args(["-c", "\"$S17\" man | head -1"])
            .env("S17", BIN)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
        assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), 1);
    }
}
