//! Band catalogue, band UAs and valid clue sets, checked against published
//! figures and against an independent brute force (the oracle below shares
//! no code with `s17::band`).
//!
//! What it guards (ARCHITECTURE.md, "Where a puzzle could be lost"): a band
//! class missing or a band mapped to the wrong class or cells
//! (`published_figures`,
//! `ten_thousand_random_bands_map_back_through_index_and_permutation`); a band
//! UA that is not one, or a valid set missing from a list
//! (`tables_agree_with_brute_force_on_22_bands`: brute force over every band
//! with the same gangster; `on_demand_size_7_agrees_with_brute_force`).

use s17::band::{
    Band, BandCatalogue, band_of_grid, band_to_string, band_uas, is_valid_band, minimum_size,
    parse_band, valid_sets,
};
use s17::grid::Grid;
use s17::tables::{BandTables, compute_tables, encode_to_vec};

const ALL_SIX: &str = "123456789456789123789123456";
const MOST_SETS: &str = "123456789456789231789231564";

#[test]
fn published_figures() {
    let catalogue = BandCatalogue::new();
    assert_eq!(catalogue.len(), 416);
    for (text, min, n5, n6) in [(ALL_SIX, 6, 0, 729), (MOST_SETS, 2, 51_516, 237_762)] {
        let band = parse_band(text).unwrap();
        assert!(catalogue.bands().contains(&band));
        let uas = band_uas(&band);
        assert_eq!(minimum_size(&uas), min, "{text}");
        assert_eq!(valid_sets(&band, &uas, 5).len(), n5, "{text}");
        assert_eq!(valid_sets(&band, &uas, 6).len(), n6, "{text}");
    }
}

/// A random band equivalent to `band`: rows, stacks, columns inside stacks
/// shuffled, digits relabelled.
fn shuffled(band: &Band, rng: &mut fastrand::Rng) -> Band {
    let mut rows = [0usize, 1, 2];
    rng.shuffle(&mut rows);
    let cols = s17::grid::random_line_order(rng);
    let mut relabel: Vec<u8> = (1..=9).collect();
    rng.shuffle(&mut relabel);
    let mut out = [0u8; 27];
    for r in 0..3 {
        for j in 0..9 {
            out[9 * r + j] = relabel[band[9 * rows[r] + cols[j] as usize] as usize - 1];
        }
    }
    out
}

fn assert_maps_back(catalogue: &BandCatalogue, band: &Band) -> usize {
    let id = catalogue.identify(band);
    let reference = catalogue.band(id.index);
    let mut cells_seen = 0u32;
    for i in 0..27 {
        cells_seen |= 1 << id.cells[i];
        assert_eq!(
            band[id.cells[i] as usize],
            id.digits[reference[i] as usize],
            "{} as {}",
            band_to_string(band),
            band_to_string(reference)
        );
    }
    assert_eq!(cells_seen, (1 << 27) - 1, "cells is a permutation");
    let mut digits = id.digits[1..].to_vec();
    digits.sort_unstable();
    assert_eq!(
        digits,
        (1..=9).collect::<Vec<u8>>(),
        "digits is a permutation"
    );
    assert_eq!(catalogue.minlex(band), *reference);
    id.index
}

#[test]
fn ten_thousand_random_bands_map_back_through_index_and_permutation() {
    let catalogue = BandCatalogue::new();
    let mut rng = fastrand::Rng::with_seed(17);
    let mut checked = 0;
    let cases = std::fs::read_to_string("data/solver_cases.txt").unwrap();
    for line in cases.lines() {
        let Some(solution) = line.split(':').nth(2).filter(|s| s.len() == 81) else {
            continue;
        };
        let grid = Grid::parse(solution).unwrap();
        for b in 0..3 {
            assert_maps_back(&catalogue, &band_of_grid(&grid, b));
            checked += 1;
        }
    }
    assert!(checked >= 50);
    while checked < 10_000 {
        let source = rng.usize(..catalogue.len());
        let band = shuffled(catalogue.band(source), &mut rng);
        assert!(is_valid_band(&band));
        assert_eq!(assert_maps_back(&catalogue, &band), source);
        checked += 1;
    }
}

#[test]
fn automorphisms_fix_their_band() {
    let catalogue = BandCatalogue::new();
    let mut nontrivial = 0;
    for i in 0..catalogue.len() {
        let band = catalogue.band(i);
        let autos = catalogue.automorphisms(i);
        assert_eq!(autos[0].cells, std::array::from_fn(|c| c as u8));
        nontrivial += (autos.len() > 1) as usize;
        for a in autos {
            for c in 0..27 {
                assert_eq!(band[a.cells[c] as usize], a.digits[band[c] as usize]);
            }
        }
    }
    assert!(nontrivial > 0);
}

/// The oracle: every band with the same column digit sets, by a plain
/// cell-by-cell backtracking fill.
mod oracle {
    pub fn same_gangster_bands(band: &[u8; 27]) -> Vec<[u8; 27]> {
        let mut out = Vec::new();
        let mut current = [0u8; 27];
        fill(band, 0, &mut current, &mut out);
        out
    }

    fn fill(band: &[u8; 27], cell: usize, current: &mut [u8; 27], out: &mut Vec<[u8; 27]>) {
        if cell == 27 {
            out.push(*current);
            return;
        }
        let (row, col) = (cell / 9, cell % 9);
        let column_digits = [band[col], band[9 + col], band[18 + col]];
        for d in column_digits {
            let clash = (0..cell).any(|other| {
                let (r, c) = (other / 9, other % 9);
                current[other] == d && (r == row || c == col || c / 3 == col / 3)
            });
            if !clash {
                current[cell] = d;
                fill(band, cell + 1, current, out);
            }
        }
    }

    /// Every clue subset of `size` cells that no other band of the same
    /// gangster agrees with, sorted by value.
    pub fn valid_sets(band: &[u8; 27], others: &[[u8; 27]], size: usize) -> Vec<u32> {
        let mut out = Vec::new();
        let mut cells = Vec::new();
        subsets(0, size, &mut cells, &mut |cells: &[usize]| {
            let agrees = |other: &[u8; 27]| cells.iter().all(|&c| other[c] == band[c]);
            if !others.iter().any(agrees) {
                out.push(cells.iter().map(|&c| 1u32 << c).sum());
            }
        });
        out.sort_unstable();
        out
    }

    fn subsets(from: usize, left: usize, cells: &mut Vec<usize>, visit: &mut impl FnMut(&[usize])) {
        if left == 0 {
            visit(cells);
            return;
        }
        for c in from..=27 - left {
            cells.push(c);
            subsets(c + 1, left - 1, cells, visit);
            cells.pop();
        }
    }

    /// The cell sets where another band differs that contain no other such
    /// set.
    pub fn minimal_differences(band: &[u8; 27], others: &[[u8; 27]]) -> Vec<u32> {
        let diffs: Vec<u32> = others
            .iter()
            .map(|o| {
                (0..27)
                    .filter(|&c| o[c] != band[c])
                    .map(|c| 1u32 << c)
                    .sum()
            })
            .collect();
        let mut minimal: Vec<u32> = diffs
            .iter()
            .copied()
            .filter(|&d| !diffs.iter().any(|&e| e != d && e & d == e))
            .collect();
        minimal.sort_unstable();
        minimal.dedup();
        minimal
    }
}

#[test]
fn tables_agree_with_brute_force_on_22_bands() {
    let catalogue = BandCatalogue::new();
    let mut indices: Vec<usize> = (0..20).map(|i| i * 21).collect();
    let all_six = catalogue
        .bands()
        .iter()
        .position(|b| *b == parse_band(ALL_SIX).unwrap());
    let most = catalogue
        .bands()
        .iter()
        .position(|b| *b == parse_band(MOST_SETS).unwrap());
    indices.extend([all_six.unwrap(), most.unwrap(), catalogue.len() - 1]);
    indices.sort_unstable();
    indices.dedup();
    assert!(indices.len() >= 22);
    let bytes = encode_to_vec(&compute_tables(&catalogue, &indices, &mut |_| {}));
    let tables = BandTables::from_bytes(bytes).unwrap();
    tables.verify().unwrap();
    for (position, &index) in indices.iter().enumerate() {
        let band = catalogue.band(index);
        let table = tables.band(position);
        assert_eq!(table.catalogue_index(), index);
        assert_eq!(table.band(), band);
        let mates = oracle::same_gangster_bands(band);
        assert!(mates.contains(band));
        let others: Vec<[u8; 27]> = mates.into_iter().filter(|m| m != band).collect();
        let mut uas = table.uas().to_vec();
        uas.sort_unstable();
        assert_eq!(
            uas,
            oracle::minimal_differences(band, &others),
            "band {index}"
        );
        let mut min_size = None;
        for size in 2..=6 {
            let expected = oracle::valid_sets(band, &others, size);
            if !expected.is_empty() && min_size.is_none() {
                min_size = Some(size);
            }
            let mut got = table.sets(size).to_vec();
            got.sort_unstable();
            assert_eq!(got, expected, "band {index} size {size}");
        }
        assert_eq!(Some(table.min_size()), min_size, "band {index}");
    }
}

#[test]
fn on_demand_size_7_agrees_with_brute_force() {
    let catalogue = BandCatalogue::new();
    for band in [parse_band(ALL_SIX).unwrap(), *catalogue.band(200)] {
        let text = band_to_string(&band);
        let others: Vec<[u8; 27]> = oracle::same_gangster_bands(&band)
            .into_iter()
            .filter(|m| *m != band)
            .collect();
        let list = valid_sets(&band, &band_uas(&band), 7);
        let mut got = list.sets().to_vec();
        got.sort_unstable();
        assert_eq!(got, oracle::valid_sets(&band, &others, 7), "{text}");
    }
}

#[test]
fn set_lists_are_sorted_and_sliced_by_their_two_lowest_cells() {
    let band = parse_band(MOST_SETS).unwrap();
    let uas = band_uas(&band);
    for size in [4, 7] {
        let list = valid_sets(&band, &uas, size);
        let mut total = 0;
        let mut last = (0, 0);
        for slice in list.slices() {
            assert!(!slice.sets.is_empty());
            assert!((slice.first, slice.second) > last || total == 0);
            last = (slice.first, slice.second);
            let below = (1u32 << slice.second) - 1;
            for &s in slice.sets {
                assert_eq!(s & below, 1 << slice.first);
                assert!(s >> slice.second & 1 == 1);
                assert_eq!(s.count_ones() as usize, size);
            }
            assert!(slice.sets.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(
                list.slice(slice.first as usize, slice.second as usize),
                slice.sets
            );
            total += slice.sets.len();
        }
        assert_eq!(total, list.len());
    }
}
