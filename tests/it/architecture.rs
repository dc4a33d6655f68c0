//! ARCHITECTURE.md kept true against the source, as its "Invariants" table
//! promises: its code map names every module of `src/` (a `.rs` file by its
//! path, a module directory by `src/dir/` for its `mod.rs`) and every path
//! it names exists; it stays under [`MAX_LINES`] lines; the modules allowed
//! `unsafe_code` are exactly the ones it lists; only `src/bits/` names
//! `std::arch`; no source file is over [`MAX_FILE_LINES`] lines; every link
//! to one of its headings (`ARCHITECTURE.md#…` in the docs, `(#…)` in it)
//! names a heading it has. A module added without its code-map line fails
//! here. Reads files only; a fraction of a second.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 450;
const MAX_FILE_LINES: usize = 800;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn architecture() -> String {
    fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md is readable")
}

/// Every `.rs` file under `src/`, as `src/…` with `/` separators.
fn source_files() -> Vec<String> {
    let mut files = Vec::new();
    let mut dirs = vec![root().join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(relative(&path));
            }
        }
    }
    files.sort();
    files
}

fn relative(path: &Path) -> String {
    let rel = path.strip_prefix(root()).unwrap();
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The text between the heading `## NAME` and the next `## ` heading.
fn section<'a>(text: &'a str, name: &str) -> &'a str {
    let start = text
        .find(&format!("\n## {name}\n"))
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has no section `## {name}`"));
    let rest = &text[start + 1..];
    let body = &rest[rest.find('\n').unwrap()..];
    match body.find("\n## ") {
        Some(end) => &body[..end],
        None => body,
    }
}

/// The `…` spans of a text.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The code spans that are repository paths (`src/…`, `tests/…`, …).
fn paths_in(text: &str) -> BTreeSet<String> {
    const ROOTS: [&str; 6] = ["src/", "tests/", "tools/", "benches/", "data/", ".ci/"];
    code_spans(text)
        .into_iter()
        .filter(|s| ROOTS.iter().any(|r| s.starts_with(r)))
        .filter(|s| !s.contains(|c: char| c.is_whitespace() || c == '*'))
        .map(str::to_string)
        .collect()
}

/// What names a source file in the code map: its path, or for `mod.rs`
/// its directory with a trailing `/`.
fn code_map_name(file: &str) -> String {
    match file.strip_suffix("mod.rs") {
        Some(dir) if dir.ends_with('/') => dir.to_string(),
        _ => file.to_string(),
    }
}

#[test]
fn the_code_map_names_every_module() {
    let text = architecture();
    let named = paths_in(section(&text, "Code map"));
    let missing: Vec<String> = source_files()
        .iter()
        .map(|f| code_map_name(f))
        .filter(|name| !named.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "modules with no line in ARCHITECTURE.md's code map: {missing:?}\n\
         (add `src/path.rs` — what it holds, in its layer's group or under \"New modules\")"
    );
}

#[test]
fn every_path_named_in_architecture_exists() {
    let text = architecture();
    let gone: Vec<String> = paths_in(&text)
        .into_iter()
        .filter(|p| {
            let path = root().join(p);
            if p.starts_with("src/") && p.ends_with('/') && p != "src/" {
                !path.join("mod.rs").is_file()
            } else {
                !path.exists()
            }
        })
        .collect();
    assert!(
        gone.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {gone:?}"
    );
}

#[test]
fn architecture_stays_short() {
    let lines = architecture().lines().count();
    assert!(
        lines < MAX_LINES,
        "ARCHITECTURE.md has {lines} lines, the bound is {MAX_LINES}: move detail to the module notes"
    );
}

#[test]
fn unsafe_code_is_allowed_exactly_where_architecture_says() {
    for crate_root in ["src/lib.rs", "src/main.rs"] {
        let text = fs::read_to_string(root().join(crate_root)).unwrap();
        assert!(
            text.contains("#![deny(unsafe_code)]"),
            "{crate_root} must deny unsafe_code"
        );
    }
    // The modules with `#[allow(unsafe_code)]` on their `mod` line.
    let mut allowed = BTreeSet::new();
    for file in source_files() {
        let text = fs::read_to_string(root().join(&file)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if !line.trim_start().starts_with("#[allow(unsafe_code)]") {
                continue;
            }
            let item = lines[i..]
                .iter()
                .map(|l| l.split("//").next().unwrap())
                .find(|l| l.contains("mod "))
                .unwrap_or_else(|| panic!("{file}:{}: allow(unsafe_code) on no module", i + 1));
            let name: String = item
                .split("mod ")
                .nth(1)
                .unwrap()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let dir = match file.rsplit_once('/') {
                Some((dir, base)) if base == "mod.rs" || base == "lib.rs" => dir.to_string(),
                Some((dir, base)) => format!("{dir}/{}", base.trim_end_matches(".rs")),
                None => unreachable!(),
            };
            let as_file = format!("{dir}/{name}.rs");
            allowed.insert(if root().join(&as_file).is_file() {
                as_file
            } else {
                format!("{dir}/{name}/")
            });
        }
    }
    let text = architecture();
    let line = text
        .lines()
        .find(|l| l.starts_with("`unsafe_code` allowed in:"))
        .expect("ARCHITECTURE.md has a line starting \"`unsafe_code` allowed in:\"");
    let listed = paths_in(line);
    assert_eq!(
        allowed, listed,
        "the modules with #[allow(unsafe_code)] (left) and ARCHITECTURE.md's list (right) differ"
    );
}

#[test]
fn only_bits_names_std_arch() {
    let outside: Vec<String> = source_files()
        .into_iter()
        .filter(|f| !f.starts_with("src/bits/"))
        .filter(|f| {
            let text = fs::read_to_string(root().join(f)).unwrap();
            text.contains("std::arch") || text.contains("core::arch")
        })
        .collect();
    assert!(
        outside.is_empty(),
        "std::arch outside src/bits/: {outside:?}"
    );
}

#[test]
fn no_source_file_is_over_the_bound() {
    let long: Vec<String> = source_files()
        .into_iter()
        .filter_map(|f| {
            let n = fs::read_to_string(root().join(&f)).unwrap().lines().count();
            (n > MAX_FILE_LINES).then(|| format!("{f}: {n} lines"))
        })
        .collect();
    assert!(
        long.is_empty(),
        "source files over {MAX_FILE_LINES} lines: {long:?}"
    );
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces
/// to hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors after `prefix` in a text, up to `)`.
fn links_after<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.match_indices(prefix)
        .map(|(at, _)| {
            let rest = &text[at + prefix.len()..];
            &rest[..rest.find(')').unwrap_or(rest.len())]
        })
        .collect()
}

#[test]
fn links_to_architecture_name_its_headings() {
    let text = architecture();
    let anchors: BTreeSet<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|l| anchor(l.trim_start_matches('#')))
        .collect();
    let mut docs = vec![root().join("README.md"), root().join("COMMANDS.md")];
    for dir in ["benches", "data", "tools"] {
        for entry in fs::read_dir(root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                docs.push(path);
            }
        }
    }
    let mut broken = Vec::new();
    for doc in &docs {
        let body = fs::read_to_string(doc).unwrap();
        for link in links_after(&body, "ARCHITECTURE.md#") {
            if !anchors.contains(link) {
                broken.push(format!("{}: #{link}", relative(doc)));
            }
        }
    }
    for link in links_after(&text, "](#") {
        if !anchors.contains(link) {
            broken.push(format!("ARCHITECTURE.md: #{link}"));
        }
    }
    assert!(
        broken.is_empty(),
        "links to headings ARCHITECTURE.md lacks: {broken:?}"
    );
}

#[test]
fn the_helpers_read_what_they_should() {
    assert_eq!(code_map_name("src/bits/mod.rs"), "src/bits/");
    assert_eq!(code_map_name("src/disk.rs"), "src/disk.rs");
    assert_eq!(
        anchor(" The catalogue of essentially different grids (enumerate, exhaust)"),
        "the-catalogue-of-essentially-different-grids-enumerate-exhaust"
    );
    let text = "- `src/a.rs` — x; `src/b/`, `data/ed-costs*.tsv`, `s17 scan`";
    assert_eq!(
        paths_in(text),
        BTreeSet::from(["src/a.rs".to_string(), "src/b/".to_string()])
    );
}
