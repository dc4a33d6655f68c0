//! The tuning options are declared once, in `s17::search::TUNING_OPTIONS`:
//! the README's table of options must say what the table says (name, help,
//! range, default; every option, in order), and every command that
//! searches must offer every option.

use std::process::Command;

use s17::search::TUNING_OPTIONS;

/// The README's table as `TUNING_OPTIONS` gives it: the lines to paste
/// when this test fails.
fn expected_table() -> Vec<String> {
    let mut lines = vec![
        "| option | what | range | default |".to_string(),
        "|---|---|---|---|".to_string(),
    ];
    for option in &TUNING_OPTIONS {
        lines.push(format!(
            "| `--{}` | {} | {}-{} | {} |",
            option.name, option.help, option.min, option.max, option.default
        ));
    }
    lines
}

#[test]
fn the_readme_table_is_the_options_table() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let lines: Vec<&str> = readme.lines().collect();
    let expected = expected_table();
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&k| lines[k] == expected[0])
        .collect();
    assert_eq!(
        starts.len(),
        1,
        "one table of the tuning options in README.md"
    );
    let table: Vec<&str> = lines[starts[0]..]
        .iter()
        .take_while(|line| line.starts_with('|'))
        .copied()
        .collect();
    assert_eq!(
        table,
        expected,
        "README.md's table of tuning options differs from TUNING_OPTIONS; it should read:\n{}",
        expected.join("\n")
    );
}

#[test]
fn every_searching_command_offers_every_option() {
    for command in ["search", "scan", "validate", "exhaust", "tune"] {
        let output = Command::new(env!("CARGO_BIN_EXE_s17"))
            .args([command, "--help"])
            .output()
            .expect("run s17");
        assert!(output.status.success(), "{command}");
        let help = String::from_utf8(output.stdout).unwrap();
        for option in &TUNING_OPTIONS {
            let flag = format!("--{} <", option.name);
            assert!(help.contains(&flag), "{command} --help has no {flag}");
            let range = format!("[range: {}-{}]", option.min, option.max);
            let default = format!("{range} [default: {}]", option.default);
            assert!(help.contains(&default), "{command} --help: {flag}");
        }
    }
}
