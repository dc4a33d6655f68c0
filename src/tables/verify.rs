//! The full check of a band table file (`s17 tables verify`): every
//! band's section, every set, and the checksum of the whole file.

use super::format::{Checksum, HEADER_LEN, MAX_STORED_SIZE, MIN_STORED_SIZE};
use super::read::BandTables;
use super::{TableError, malformed};
use crate::band::valid::{build_index, sort_key};

impl<B: AsRef<[u8]>> BandTables<B> {
    /// Checks every band's section (as [`Self::try_band`] does) and every
    /// set (size, order, slice), then the checksum of the whole file. Takes
    /// a fraction of a second.
    pub fn verify(&self) -> Result<(), TableError> {
        for position in 0..self.len() {
            let table = self.try_band(position)?;
            for size in MIN_STORED_SIZE..=MAX_STORED_SIZE {
                let sets = table.sets(size);
                let well_formed = sets
                    .iter()
                    .all(|s| s.count_ones() as usize == size && s >> 27 == 0)
                    && sets.windows(2).all(|w| sort_key(w[0]) < sort_key(w[1]))
                    && build_index(sets) == table.slice_index(size);
                if !well_formed {
                    return Err(malformed(format!(
                        "band {position}: size {size} sets out of order"
                    )));
                }
            }
        }
        let computed = Checksum::of(&self.bytes()[HEADER_LEN..self.file_len()]);
        if computed != self.stored_checksum() {
            return Err(TableError::Checksum {
                stored: self.stored_checksum(),
                computed,
            });
        }
        Ok(())
    }
}
