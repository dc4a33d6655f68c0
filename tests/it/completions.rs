//! `s17 completions SHELL` and `s17 man [COMMAND...]` (issue 43): the bash
//! script loads in bash, every shell gets a script, the man pages are roff
//! with the right title, and a closed stdout ends them quietly. Neither
//! needs the band tables. A second or two on a release build.

use crate::common::bin::BIN;
use crate::common::bin::stdout_of_success;
use std::process::{Command, Output, Stdio};

fn s17(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("S17_TABLES", "/nonexistent/bands.s17t")
        .output()
        .expect("run s17")
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
        // Exactly what --help shows: `man --markdown` is hidden there (h56:
        // every shell offered it).
        // (fish writes `-l markdown`, the others `--markdown`.)
        assert!(!script.contains("markdown"), "{shell}: a hidden option");
        assert!(script.contains("--dir"), "{shell}: man's --dir");
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

/// A page's text without roff's fonts and escapes (`\fB--band\fR` as
/// `--band`, `\-` as `-`).
fn plain(page: &str) -> String {
    page.replace("\\fB", "")
        .replace("\\fI", "")
        .replace("\\fR", "")
        .replace("\\fP", "")
        .replace("\\-", "-")
        .replace("\\*(Aq", "'")
}

/// The lines of section `name` of a page (up to the next `.SH`), plain.
fn section(page: &str, name: &str) -> String {
    let page = plain(page);
    // roff quotes a heading of several words (`.SH "EXIT STATUS"`).
    let (bare, quoted) = (format!(".SH {name}\n"), format!(".SH \"{name}\"\n"));
    let (at, head) = [bare, quoted]
        .into_iter()
        .find_map(|head| Some((page.find(&head)?, head)))
        .unwrap_or_else(|| panic!("no section {name}:\n{page}"));
    let start = at + head.len();
    let end = page[start..]
        .find("\n.SH ")
        .map_or(page.len(), |e| start + e);
    page[start..end].to_string()
}

/// The synopsis names every option's value: `[--part <K/N>]`, never
/// `[--part]`; a required option bare (`-o|--output <FILE>`); a required
/// group as `<A|B>`; positionals by their value names.
#[test]
fn man_synopses_name_the_values() {
    let scan = section(&stdout_of_success(&s17(&["man", "scan"])), "SYNOPSIS");
    for part in [
        "s17 scan ",
        "[--part <K/N>]",
        "[--clues <",
        "[--first]",
        "[--tables <",
        " -o|--output <FILE> ",
        "[-v|--verbose...]",
        "[GRID_FILE]",
    ] {
        assert!(scan.contains(part), "{part:?} in {scan}");
    }
    assert!(!scan.contains("[--part]"), "{scan}");
    let enumerate = section(&stdout_of_success(&s17(&["man", "enumerate"])), "SYNOPSIS");
    assert!(
        enumerate.contains("<--band <K>|--all|--bands <"),
        "{enumerate}"
    );
    let exhaust = section(&stdout_of_success(&s17(&["man", "exhaust"])), "SYNOPSIS");
    assert!(exhaust.contains("[--band <K>]"), "{exhaust}");
    assert!(exhaust.contains("[--entries <"), "{exhaust}");
    // Every option of every page's synopsis that takes a value says which.
    let dir = tempfile::tempdir().unwrap();
    stdout_of_success(&s17(&["man", "--dir", dir.path().to_str().unwrap()]));
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let page = std::fs::read_to_string(&path).unwrap();
        let synopsis = section(&page, "SYNOPSIS");
        for flag in ["--threads", "--tables", "--output", "--band", "--clues"] {
            assert!(
                !synopsis.contains(&format!("{flag}]")),
                "{}: {flag} without its value: {synopsis}",
                path.display()
            );
        }
    }
}

/// Every page has EXIT STATUS (the codes `s17` returns), ENVIRONMENT
/// (every variable the source reads) and FILES (the tables and each
/// companion of an output); the pages of the README's commands have
/// EXAMPLES, each line a command of the README's common tasks verbatim.
#[test]
fn man_pages_have_examples_exit_status_environment_and_files() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    // The table of commands, its cells' escaped pipes as typed.
    let table = readme.replace("\\|", "|");
    // The variables the source reads by name (`var("X")`, `var_os("X")`),
    // RUST_LOG (tracing's filter) and S17_PORTABLE (a constant).
    let mut variables = vec![
        "RUST_LOG".to_string(),
        "S17_PORTABLE".to_string(),
        "XDG_CACHE_HOME".to_string(),
    ];
    let mut dirs = vec![root.join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                // a unit-test module's knobs are the tests', not the program's
                && path.file_name().is_none_or(|n| n != "tests.rs")
            {
                let text = std::fs::read_to_string(&path).unwrap();
                for call in ["env::var(\"", "env::var_os(\""] {
                    for piece in text.split(call).skip(1) {
                        variables.push(piece[..piece.find('"').unwrap()].to_string());
                    }
                }
            }
        }
    }
    assert!(variables.iter().any(|v| v == "S17_TABLES"), "{variables:?}");
    let dir = tempfile::tempdir().unwrap();
    stdout_of_success(&s17(&["man", "--dir", dir.path().to_str().unwrap()]));
    let mut examples = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let page = std::fs::read_to_string(&path).unwrap();
        let status = section(&page, "EXIT STATUS");
        for code in ["\n0\n", "\n1\n", "\n2\n", "\n75\n", "\n130, 143, 129\n"] {
            assert!(status.contains(code), "{name}: exit {code:?} in {status}");
        }
        let environment = section(&page, "ENVIRONMENT");
        for variable in &variables {
            assert!(
                environment.contains(variable.as_str()),
                "{name}: {variable} in {environment}"
            );
        }
        let files = section(&page, "FILES");
        for file in [
            "bands.s17t",
            "FILE.lock",
            "FILE.done",
            "FILE.new",
            "FILE.times",
            "FILE.cost",
        ] {
            assert!(files.contains(file), "{name}: {file} in {files}");
        }
        if page.contains("\n.SH EXAMPLES\n") {
            for line in section(&page, "EXAMPLES")
                .lines()
                .filter(|l| l.contains("s17 "))
            {
                assert!(
                    readme
                        .lines()
                        .any(|r| r.split("   #").next().unwrap().trim() == line)
                        || table.contains(&format!("| `{line}` |")),
                    "{name}: example {line:?} is no line of README's common tasks, nor \
                     the example of its table of commands"
                );
                examples += 1;
            }
        }
    }
    let page = stdout_of_success(&s17(&["man"]));
    let all = section(&page, "EXAMPLES");
    for command in [
        "s17 search ",
        "s17 scan ",
        "s17 campaign plan ",
        "s17 campaign merge ",
    ] {
        assert!(all.contains(command), "{command} in {all}");
    }
    for name in [
        "s17-search.1",
        "s17-scan.1",
        "s17-campaign-plan.1",
        "s17-validate.1",
        "s17-exhaust.1",
        "s17-man.1",
    ] {
        let page = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert!(page.contains("\n.SH EXAMPLES\n"), "{name} has examples");
    }
    assert!(examples > 20, "{examples} example lines");
    // groff reads every page (UTF-8 through preconv) with no warning but
    // a line it cannot break (an 81-digit grid), where it is installed.
    if Command::new("groff").arg("--version").output().is_ok() {
        for entry in std::fs::read_dir(dir.path()).unwrap() {
            let path = entry.unwrap().path();
            let out = Command::new("groff")
                .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
                .arg(&path)
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", path.display());
            let said = String::from_utf8_lossy(&out.stderr);
            for line in said.lines() {
                assert!(
                    line.contains("break line") || line.contains("adjust line"),
                    "{}: {line}",
                    path.display()
                );
            }
        }
    }
}

const GENERATED_START: &str = "<!-- generated by `s17 man --markdown`: do not edit by hand -->\n";
const GENERATED_END: &str = "<!-- end of the generated options -->\n";

/// COMMANDS.md's option reference is `s17 man --markdown`, from the clap
/// definitions: one source for every option's text. After a change to the
/// options, `S17_UPDATE_COMMANDS=1 cargo test --release --test it
/// completions::commands` rewrites it.
#[test]
fn commands_md_lists_the_options_clap_has() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("COMMANDS.md");
    let text = std::fs::read_to_string(&path).expect("COMMANDS.md");
    let start = text
        .find(GENERATED_START)
        .expect("the generated section's start")
        + GENERATED_START.len();
    let end = start
        + text[start..]
            .find(GENERATED_END)
            .expect("the generated section's end");
    let generated = stdout_of_success(&s17(&["man", "--markdown"]));
    assert!(
        generated.contains("\n### `s17 campaign plan`\n"),
        "{generated}"
    );
    assert!(generated.contains("- `--clues <N>`: "), "{generated}");
    if text[start..end] != generated && std::env::var_os("S17_UPDATE_COMMANDS").is_some() {
        let updated = format!("{}{generated}{}", &text[..start], &text[end..]);
        std::fs::write(&path, updated).expect("rewrite COMMANDS.md");
        return;
    }
    assert!(
        text[start..end] == generated,
        "COMMANDS.md's generated options differ from `s17 man --markdown`: \
         S17_UPDATE_COMMANDS=1 cargo test --release --test it completions::commands"
    );
}
