//! The layer order of the library's top-level modules, read from the source.
//!
//! A top-level module is `src/NAME.rs` or `src/NAME/`. Every `crate::NAME`
//! it names (in code, tests included; comments are skipped), and every name
//! in a `crate::{…}` group, must be a module of a lower layer in [`LAYERS`],
//! unless the pair is in [`EXCEPTIONS`] with its reason. A module missing
//! from [`LAYERS`] fails the test: a new module gets its layer here and its
//! line in ARCHITECTURE.md's code map. An exception no longer used fails
//! too, so the list only shrinks. `src/lib.rs` and `src/main.rs` are not
//! layers; nor are the binary's modules ([`BINARY`]: `src/cli/`, declared
//! in `src/main.rs`), which see the library as `s17::` and name nothing of
//! the library crate as `crate::`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Bottom first. A module may use only modules of lower layers.
const LAYERS: &[&[&str]] = &[
    &["bits", "disk"],
    &["grid"],
    &["solver", "canon", "band", "generate"],
    &["known", "tables"],
    &["output"],
    &["search"],
    &["scan", "ed", "lowest"],
    &["exhaust", "flags", "catalogue"],
    &["campaign"],
    &["python"],
];

/// The binary's modules (`mod NAME;` in `src/main.rs`): above every layer.
const BINARY: &[&str] = &["cli"];

/// Today's known upward or same-layer uses: (from, to, why).
const EXCEPTIONS: &[(&str, &str, &str)] = &[];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The library's top-level modules: `src/NAME.rs` and `src/NAME/`, without
/// the roots and the binary's modules.
fn top_modules() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for entry in fs::read_dir(src()).expect("src/ is readable") {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if entry.path().is_dir() {
            names.insert(name);
        } else if let Some(stem) = name.strip_suffix(".rs")
            && stem != "lib"
            && stem != "main"
        {
            names.insert(stem.to_string());
        }
    }
    names.retain(|name| !BINARY.contains(&name.as_str()));
    names
}

/// Every `.rs` file of a top-level module.
fn files_of(module: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let file = src().join(format!("{module}.rs"));
    if file.is_file() {
        files.push(file);
    }
    let mut dirs = vec![src().join(module)];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The text of a source file with `//` comments (doc comments included) cut.
fn code_of(text: &str) -> String {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The top-level module names after each `crate::`: one name, or each
/// name of a `crate::{a::X, b}` group (nested groups skipped).
fn crate_refs(code: &str) -> Vec<String> {
    let mut refs = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(is_name_char) {
            continue; // `my_crate::`, not ours
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut item = String::new();
            let mut items = Vec::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => items.push(std::mem::take(&mut item)),
                    _ => {}
                }
                if depth == 1 && c != ',' {
                    item.push(c);
                }
            }
            items.push(item);
            for item in items {
                let name: String = item
                    .trim_start()
                    .chars()
                    .take_while(|&c| is_name_char(c))
                    .collect();
                if !name.is_empty() {
                    refs.push(name);
                }
            }
        } else {
            let name: String = rest.chars().take_while(|&c| is_name_char(c)).collect();
            if !name.is_empty() {
                refs.push(name);
            }
        }
    }
    refs
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// (from, to) → the files of `from` that name `to`.
fn uses() -> BTreeMap<(String, String), BTreeSet<String>> {
    let modules = top_modules();
    let mut uses: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for from in &modules {
        for file in files_of(from) {
            let code = code_of(&fs::read_to_string(&file).unwrap());
            for to in crate_refs(&code) {
                if &to != from && modules.contains(&to) {
                    let shown = file.strip_prefix(src().parent().unwrap()).unwrap();
                    uses.entry((from.clone(), to))
                        .or_default()
                        .insert(shown.display().to_string());
                }
            }
        }
    }
    uses
}

#[test]
fn the_reference_reader_sees_groups_and_paths() {
    let code = "use crate::{bits::{Mask27, cells}, grid::Grid};\nlet x = crate::search::plan::plan(g);\nuse my_crate::no;";
    assert_eq!(crate_refs(code), ["bits", "grid", "search"]);
    assert_eq!(code_of("a // crate::b\n//! crate::c\nd"), "a \n\nd");
}

#[test]
fn every_module_has_a_layer_and_every_layer_name_a_module() {
    let modules = top_modules();
    let missing: Vec<_> = modules.iter().filter(|m| layer_of(m).is_none()).collect();
    assert!(
        missing.is_empty(),
        "modules with no layer in tests/it/layers.rs: {missing:?} (give each its layer, and its line in ARCHITECTURE.md's code map)"
    );
    let gone: Vec<_> = LAYERS
        .iter()
        .flat_map(|l| l.iter())
        .filter(|m| !modules.contains(**m))
        .collect();
    assert!(
        gone.is_empty(),
        "layers name modules that are not in src/: {gone:?}"
    );
}

#[test]
fn every_module_uses_only_lower_layers() {
    let mut upward = Vec::new();
    for ((from, to), files) in uses() {
        let (Some(a), Some(b)) = (layer_of(&from), layer_of(&to)) else {
            continue;
        };
        let excepted = EXCEPTIONS.iter().any(|&(f, t, _)| f == from && t == to);
        if b >= a && !excepted {
            upward.push(format!(
                "{from} (layer {}) uses {to} (layer {}) in {files:?}",
                a + 1,
                b + 1
            ));
        }
    }
    assert!(
        upward.is_empty(),
        "uses that break the layer order (tests/it/layers.rs, ARCHITECTURE.md):\n{}",
        upward.join("\n")
    );
}

#[test]
fn every_exception_is_still_needed() {
    let uses = uses();
    for &(from, to, why) in EXCEPTIONS {
        assert!(
            uses.contains_key(&(from.to_string(), to.to_string())),
            "{from} no longer uses {to}: remove the exception ({why})"
        );
        let (a, b) = (layer_of(from).unwrap(), layer_of(to).unwrap());
        assert!(b >= a, "{from} → {to} is downward: it needs no exception");
    }
}

#[test]
fn the_command_line_is_a_module_of_the_binary() {
    let lib = code_of(&fs::read_to_string(src().join("lib.rs")).unwrap());
    let main = code_of(&fs::read_to_string(src().join("main.rs")).unwrap());
    for name in BINARY {
        assert!(
            main.contains(&format!("mod {name};")),
            "src/main.rs declares no `mod {name};`"
        );
        assert!(
            !lib.contains(&format!("mod {name}")),
            "src/lib.rs declares `{name}`: it belongs to the binary"
        );
        // In the binary `crate::` is the binary: its modules name only one
        // another that way, and the library as `s17::`.
        for file in files_of(name) {
            let code = code_of(&fs::read_to_string(&file).unwrap());
            let library: Vec<String> = crate_refs(&code)
                .into_iter()
                .filter(|to| !BINARY.contains(&to.as_str()))
                .collect();
            assert!(
                library.is_empty(),
                "{} names {library:?} as `crate::`: the library is `s17::` in the binary",
                file.display()
            );
        }
    }
}
