//! A `--clues 17 --first` campaign's flag files by catalogue number:
//! `campaign flags DIR --numbers`, the bitmap (`campaign bitmap`) and its
//! lookup from any image of a grid (`catalogue has`), with the real binary.
//!
//! The campaign: the three visits of a grid with a known 17 (hi: slice 96
//! entry 82026, 3 grids; mid: slice 96 entry 1382392; lo: slice 319 entry
//! 63201), a few seconds of CPU. Its flagged grid lies under first band 020
//! of the minlex catalogue: the slices are chosen so that the flagged
//! grids are numbered by the catalogue tables committed with the source
//! (first bands 001-044 and 250-416; numbers 1 to 1,934,499,067), and the
//! other grids looked up are drawn from those numbers.
//!
//! Oracles that share no code with the export: the one-grid search on the
//! flagged grids, `catalogue grid` of each number printed (the streaming
//! walk, back to the grid), and the bitmap's payload read here from the
//! documented layout, bit by bit.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;
use std::process::Output;

use s17::canon::{Transform, minlex_grid};
use s17::grid::{Grid, Puzzle};

use crate::common::bin::{run_with_stdin, s17, temp, text};
use crate::common::grids_with_a_17;

const LIST: &str = "96:82026..82027,96:1382392..1382393,319:63201..63202";
/// Catalogue numbers the committed tables reach (first bands 001-044).
const NUMBERED: u64 = 1_934_499_067;
/// The number of the campaign's one flagged grid (checked below against
/// `catalogue grid`).
const FLAGGED: u64 = 625_847_260;

fn ok(out: Output) -> String {
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn committed() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/catalogue")
        .display()
        .to_string()
}

/// The set bits of a bitmap file, read from its layout: the payload at the
/// offset of bytes 12..16, bit k-1 (LSB first) for number k.
fn set_bits(path: &Path) -> BTreeSet<u64> {
    let mut f = std::fs::File::open(path).unwrap();
    let mut head = [0u8; 24];
    f.read_exact(&mut head).unwrap();
    assert_eq!(&head[..8], b"S17CATBM");
    let payload_at = u32::from_le_bytes(head[12..16].try_into().unwrap()) as u64;
    let bits = u64::from_le_bytes(head[16..24].try_into().unwrap());
    assert_eq!(bits, 5_472_730_538);
    let len = std::fs::metadata(path).unwrap().len();
    assert_eq!(len, payload_at + bits.div_ceil(8));
    let mut rest = vec![0u8; payload_at as usize - 24];
    f.read_exact(&mut rest).unwrap();
    let mut set = BTreeSet::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut at = 0u64;
    loop {
        let n = f.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        for (i, &b) in buf[..n].iter().enumerate() {
            for bit in 0..8 {
                if b >> bit & 1 == 1 {
                    set.insert((at + i as u64) * 8 + bit + 1);
                }
            }
        }
        at += n as u64;
    }
    set
}

#[test]
fn a_flag_campaign_by_catalogue_number_its_bitmap_and_lookups_from_any_image() {
    let dir = temp("campaign-bitmap", "c17");
    let run = |args: &[&str]| s17(args).env_remove("S17_CATALOGUE").output().unwrap();
    let d = dir.to_str().unwrap();
    let tables = committed();
    ok(run(&[
        "campaign",
        "plan",
        "--slices",
        LIST,
        "--unit-hours",
        "0.0005",
        "--clues",
        "17",
        "--first",
        "-o",
        d,
    ]));
    let units = std::fs::read_to_string(dir.join("units.tsv")).unwrap();
    for unit in 0..units.lines().filter(|l| !l.starts_with('#')).count() {
        ok(run(&[
            "campaign",
            "run",
            d,
            &unit.to_string(),
            "--threads",
            "2",
        ]));
    }
    let flags = dir.join("flags");
    let f = flags.to_str().unwrap();
    ok(run(&["campaign", "merge", d, "-o", f]));

    // The flagged grids with their numbers, from the directory.
    let printed = ok(run(&[
        "campaign",
        "flags",
        f,
        "--numbers",
        "--catalogue",
        &tables,
    ]));
    let mut flagged: Vec<(u64, Grid)> = Vec::new();
    for line in printed.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let [number, grid, puzzle] = f[..] else {
            panic!("{line}");
        };
        let (grid, puzzle) = (Grid::parse(grid).unwrap(), Puzzle::parse(puzzle).unwrap());
        assert_eq!(minlex_grid(&grid).0, grid, "minlex form: {line}");
        let solved = s17::solver::solve(&puzzle, 2);
        assert_eq!((solved.count, solved.first), (1, Some(grid)), "{line}");
        assert_eq!(puzzle.clue_count(), 17);
        flagged.push((number.parse().unwrap(), grid));
    }
    // Without --numbers: the same grids, the same order.
    let plain = ok(run(&["campaign", "flags", f]));
    let plain: Vec<&str> = plain
        .lines()
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    let grids: Vec<String> = flagged.iter().map(|(_, g)| g.to_string()).collect();
    assert_eq!(plain, grids);
    assert_eq!(
        flagged.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        [FLAGGED],
        "the campaign flags one grid (the known 17's)"
    );
    // Each number's grid, by the catalogue's walk from the number.
    for (n, g) in &flagged {
        let out = ok(run(&[
            "catalogue",
            "grid",
            &n.to_string(),
            "--tables",
            &tables,
        ]));
        assert_eq!(out.trim(), format!("{n}\t{g}"));
    }
    // The one-grid search: each flagged grid has a 17.
    let list = dir.join("flagged.txt");
    std::fs::write(
        &list,
        grids.iter().map(|g| format!("{g}\n")).collect::<String>(),
    )
    .unwrap();
    let with_17 = grids_with_a_17(&list);
    assert_eq!(with_17, flagged.iter().map(|(_, g)| *g).collect());

    // The bitmap: refused for a partial campaign, made with --partial.
    let bitmap = dir.join("c17.bits");
    let b = bitmap.to_str().unwrap();
    let out = run(&["campaign", "bitmap", f, "-o", b, "--catalogue", &tables]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("not a complete campaign"),
        "{}",
        text(&out)
    );
    assert!(
        text(&out).contains("flag files of 2 of 416 slices"),
        "{}",
        text(&out)
    );
    assert!(!bitmap.exists());
    let said = text(&run(&[
        "campaign",
        "bitmap",
        f,
        "-o",
        b,
        "--partial",
        "--catalogue",
        &tables,
    ]));
    assert!(said.contains("1 bit set"), "{said}");
    let numbers: BTreeSet<u64> = flagged.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        set_bits(&bitmap),
        numbers,
        "exactly the flagged grids' numbers"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let used = std::fs::metadata(&bitmap).unwrap().blocks() * 512;
        assert!(used < 8 << 20, "sparse: {used} bytes on disk");
    }
    let out = run(&[
        "campaign",
        "bitmap",
        f,
        "-o",
        b,
        "--partial",
        "--catalogue",
        &tables,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains("exists; pass --force"),
        "{}",
        text(&out)
    );

    // Lookups from random images: the flagged grid, the grids of numbers
    // beside it and of random numbers the committed tables reach.
    let mut rng = fastrand::Rng::with_seed(53);
    let mut asked: Vec<(u64, Grid)> = Vec::new();
    let mut others: Vec<u64> = vec![1, FLAGGED - 1, FLAGGED + 1];
    others.extend((0..4).map(|_| rng.u64(1..=NUMBERED)));
    for n in others {
        let out = ok(run(&[
            "catalogue",
            "grid",
            &n.to_string(),
            "--tables",
            &tables,
        ]));
        let grid = Grid::parse(out.trim().split('\t').nth(1).unwrap()).unwrap();
        asked.push((n, grid));
    }
    asked.extend(flagged.iter().copied());
    let mut input = String::new();
    let mut expected = Vec::new();
    for (i, (n, g)) in asked.iter().enumerate() {
        for j in 0..3 {
            let image = Transform::random(&mut rng).apply_grid(g);
            input += &format!("{image}\n");
            let answer = if numbers.contains(n) {
                "yes"
            } else {
                "unknown"
            };
            expected.push(format!("{}\t{n}\t{answer}", 3 * i + j + 1));
        }
    }
    let out = run_with_stdin(
        s17(&["catalogue", "has", "--bitmap", b, "--tables", &tables]).env_remove("S17_CATALOGUE"),
        &input,
    );
    let got = ok(out.clone());
    assert_eq!(got.lines().collect::<Vec<_>>(), expected);
    assert!(
        text(&out).contains("3 of 24 grids yes (flag: has a minimal 17 (first per visit); a partial bitmap, 1 bit set)"),
        "{}",
        text(&out)
    );

    // Damaged bitmaps: refused by name, exit 2.
    let one = format!("{}\n", flagged[0].1);
    let damaged = |name: &str, damage: &dyn Fn(&Path)| {
        let copy = dir.join(name);
        std::fs::copy(&bitmap, &copy).unwrap();
        damage(&copy);
        let out = run_with_stdin(
            &mut s17(&[
                "catalogue",
                "has",
                "--bitmap",
                copy.to_str().unwrap(),
                "--tables",
                &tables,
            ]),
            &one,
        );
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(
            text(&out).contains(copy.to_str().unwrap()),
            "{}",
            text(&out)
        );
        text(&out)
    };
    let patch = |at: u64, byte: u8| {
        move |p: &Path| {
            use std::io::{Seek, SeekFrom, Write};
            let mut f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
            f.seek(SeekFrom::Start(at)).unwrap();
            f.write_all(&[byte]).unwrap();
        }
    };
    let len = std::fs::metadata(&bitmap).unwrap().len();
    let payload_at = len - 5_472_730_538u64.div_ceil(8);
    let byte = payload_at + (FLAGGED - 1) / 8;
    assert!(damaged("magic.bits", &patch(0, b'X')).contains("not a catalogue bitmap"));
    assert!(damaged("payload.bits", &patch(byte, 0)).contains("checksum mismatch in block"));
    assert!(damaged("header.bits", &patch(60, 9)).contains("checksum mismatch in the header"));
    let said = damaged("short.bits", &|p: &Path| {
        let f = std::fs::OpenOptions::new().write(true).open(p).unwrap();
        f.set_len(len - 1).unwrap();
    });
    assert!(said.contains("truncated or overlong"), "{said}");
}
