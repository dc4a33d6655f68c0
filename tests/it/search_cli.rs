//! `s17 search` on the real binary as a new user meets it, from outside the
//! repository: where the band tables go (the user's cache directory, with
//! `$S17_TABLES` and `--tables` winning; never the current directory), and
//! grids read from stdin. Each test sets `HOME` and `XDG_CACHE_HOME` itself
//! (temporary directories), so no test reads or writes the user's cache.
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): a corrupt
//! band read by a search
//! (`a_corrupt_band_is_refused_when_a_search_first_reads_it`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use s17::tables::BandTables;

use crate::common::bin::stderr;
use crate::common::bin::{BIN, run_with_stdin, shared_tables};

/// The solution of the first puzzle of data/known17.txt.
const KNOWN1: &str =
    "953168742862734951417952836746893125281645397395271468138529674574386219629417583";

/// A random grid (`s17 generate -n 1 --seed 2`): no known 17.
fn random_grid() -> String {
    s17::generate::random_grid(&mut fastrand::Rng::with_seed(2)).to_string()
}

/// A user's world in a temporary directory: `home/`, `cache/` (for
/// `XDG_CACHE_HOME`) and `work/` (the current directory of the runs).
struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["home", "cache", "work"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        World { dir }
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// `s17 ARGS` run in `work/` with `HOME=home/`, `XDG_CACHE_HOME` as
    /// given (`None`: unset) and `$S17_TABLES` unset.
    fn command(&self, args: &[&str], xdg: Option<&Path>) -> Command {
        let mut command = Command::new(BIN);
        command
            .args(args)
            .current_dir(self.path("work"))
            .env("HOME", self.path("home"))
            .env_remove("S17_TABLES")
            .env_remove("RUST_LOG");
        match xdg {
            Some(dir) => command.env("XDG_CACHE_HOME", dir),
            None => command.env_remove("XDG_CACHE_HOME"),
        };
        command
    }

    fn run(&self, args: &[&str], xdg: Option<&Path>) -> Output {
        self.command(args, xdg).output().unwrap()
    }
}

/// Every file under `dir`, relative to it, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn first_search_builds_the_tables_in_the_xdg_cache_and_says_where() {
    let world = World::new();
    let cache = world.path("cache");
    let grid = random_grid();
    let first = world.run(&["search", &grid], Some(&cache));
    let text = stderr(&first);
    assert_eq!(first.status.code(), Some(0), "{text}");
    let built = cache.join("s17/bands.s17t");
    assert!(
        text.contains(&format!(
            "s17: building the band tables at {} (126 MiB, a few seconds, once)",
            built.display()
        )),
        "{text}"
    );
    assert_eq!(files_under(&cache), vec![PathBuf::from("s17/bands.s17t")]);
    assert_eq!(files_under(&world.path("work")), Vec::<PathBuf>::new());
    assert_eq!(files_under(&world.path("home")), Vec::<PathBuf>::new());
    BandTables::open(&built).unwrap().verify().unwrap();

    // The second run uses them and says nothing about tables.
    let second = world.run(&["search", &grid], Some(&cache));
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    assert!(
        !stderr(&second).contains("band tables"),
        "{}",
        stderr(&second)
    );
    assert_eq!(second.stdout, first.stdout);
}

#[test]
fn without_xdg_the_tables_are_in_home_cache_and_the_variable_and_flag_win() {
    let world = World::new();
    let in_home = world.path("home/.cache/s17/bands.s17t");
    std::fs::create_dir_all(in_home.parent().unwrap()).unwrap();
    std::fs::copy(shared_tables(), &in_home).unwrap();
    let verify = world.run(&["tables", "verify"], None);
    assert_eq!(verify.status.code(), Some(0), "{}", stderr(&verify));
    assert!(
        stderr(&verify).contains(&format!("{} is good", in_home.display())),
        "{}",
        stderr(&verify)
    );

    // $S17_TABLES wins over the cache directory...
    let elsewhere = world.path("elsewhere.s17t");
    std::fs::copy(shared_tables(), &elsewhere).unwrap();
    let verify = world
        .command(&["tables", "verify"], Some(&world.path("cache")))
        .env("S17_TABLES", &elsewhere)
        .output()
        .unwrap();
    assert!(
        stderr(&verify).contains(&format!("{} is good", elsewhere.display())),
        "{}",
        stderr(&verify)
    );
    // ...and --tables over $S17_TABLES (a path that cannot be built).
    let search = world
        .command(
            &[
                "search",
                &random_grid(),
                "--tables",
                elsewhere.to_str().unwrap(),
            ],
            Some(&world.path("cache")),
        )
        .env("S17_TABLES", "/nonexistent/dir/bands.s17t")
        .output()
        .unwrap();
    assert_eq!(search.status.code(), Some(0), "{}", stderr(&search));
    assert!(!stderr(&search).contains("building"), "{}", stderr(&search));
    assert_eq!(files_under(&world.path("cache")), Vec::<PathBuf>::new());
    assert_eq!(files_under(&world.path("work")), Vec::<PathBuf>::new());
}

#[test]
fn search_reads_grids_from_stdin() {
    let world = World::new();
    let tables = shared_tables().to_str().unwrap();
    let known1 = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/known17.txt"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    let input = format!("# two grids\n{}\n{KNOWN1}\n", random_grid());
    let piped = run_with_stdin(
        &mut world.command(&["search", "--tables", tables], Some(&world.path("cache"))),
        &input,
    );
    assert_eq!(piped.status.code(), Some(0), "{}", stderr(&piped));
    let lines: Vec<String> = String::from_utf8(piped.stdout.clone())
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    // Grid 2 holds the first known 17; grid 1 none.
    assert!(lines.contains(&format!("2\t{known1}")), "{lines:?}");
    assert!(lines.iter().all(|l| l.starts_with("2\t")), "{lines:?}");

    // The same grids from a file give the same lines.
    std::fs::write(world.path("work/grids.txt"), &input).unwrap();
    let from_file = world.run(
        &["search", "--tables", tables, "--input", "grids.txt"],
        Some(&world.path("cache")),
    );
    assert_eq!(from_file.stdout, piped.stdout);

    // Nothing on stdin and no grid: the empty input named, as for every
    // command (issue 43; it was "no grid given").
    let empty = world
        .command(&["search", "--tables", tables], Some(&world.path("cache")))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(empty.status.code(), Some(1));
    assert!(
        stderr(&empty)
            .contains("no grid in <stdin> (it is empty, or holds only blank and '#' lines)"),
        "{}",
        stderr(&empty)
    );
}

/// The catalogue indices of the six bands a search of `grid` reads: its
/// three bands and the three bands of its transpose (its stacks).
fn bands_read(grid: &s17::grid::Grid) -> Vec<usize> {
    let catalogue = s17::band::BandCatalogue::new();
    let mut ids = Vec::new();
    for g in [*grid, grid.transposed()] {
        for b in 0..3 {
            ids.push(catalogue.identify(&s17::search::band_digits(&g, b)).index);
        }
    }
    ids
}

/// Flips three bytes in the middle of band `band`'s list of valid 6-clue
/// sets, found as the format documents it (header: records at byte 56,
/// sets at byte 88; records of 64 bytes, the size-6 `[start, len]` pair at
/// record byte 48).
fn flip_six_clue_sets(bytes: &mut [u8], band: usize) {
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let (records, sets) = (u64_at(bytes, 56) as usize, u64_at(bytes, 88) as usize);
    let record = records + 64 * band;
    let (start, len) = (
        u32_at(bytes, record + 48) as usize,
        u32_at(bytes, record + 52) as usize,
    );
    assert!(len > 100, "band {band} has {len} six-clue sets");
    let at = sets + 4 * (start + len / 2);
    for byte in &mut bytes[at..at + 3] {
        *byte ^= 0x5a;
    }
}

#[test]
fn a_corrupt_band_is_refused_when_a_search_first_reads_it() {
    let world = World::new();
    let grid = s17::generate::random_grid(&mut fastrand::Rng::with_seed(2));
    let band = bands_read(&grid)[0];
    let corrupt = world.path("corrupt.s17t");
    let mut bytes = std::fs::read(shared_tables()).unwrap();
    flip_six_clue_sets(&mut bytes, band);
    std::fs::write(&corrupt, &bytes).unwrap();
    let tables = corrupt.to_str().unwrap();
    // The header and the other bands are intact: the file opens.
    BandTables::open(&corrupt).unwrap();

    let expected = format!(
        "s17 search: error: band tables {tables}: band {band} is corrupt (checksum mismatch: stored "
    );
    let rebuild = format!("rebuild them with `s17 tables build --path {tables}`");
    let search = world.run(
        &["search", &grid.to_string(), "--tables", tables],
        Some(&world.path("cache")),
    );
    let text = stderr(&search);
    assert_eq!(search.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&expected) && text.contains(&rebuild),
        "{text}"
    );
    assert!(search.stdout.is_empty());

    // A scan stops at that grid the same way, and keeps what it did.
    std::fs::write(world.path("work/cat.txt"), format!("{grid}\n")).unwrap();
    let scan = world.run(
        &["scan", "cat.txt", "-o", "out.txt", "--tables", tables],
        Some(&world.path("cache")),
    );
    let text = stderr(&scan);
    assert_eq!(scan.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&expected.replace("s17 search: error: ", "")) && text.contains(&rebuild),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(world.path("work/out.txt.done"))
            .unwrap()
            .lines()
            .count(),
        1,
        "the checkpoint holds its header and no finished grid"
    );

    // A grid none of whose bands is the corrupt one is searched as usual.
    let mut rng = fastrand::Rng::with_seed(3);
    let other = loop {
        let g = s17::generate::random_grid(&mut rng);
        if !bands_read(&g).contains(&band) {
            break g;
        }
    };
    let search = world.run(
        &["search", &other.to_string(), "--tables", tables],
        Some(&world.path("cache")),
    );
    assert_eq!(search.status.code(), Some(0), "{}", stderr(&search));
}
