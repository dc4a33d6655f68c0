//! Checkpoints inside the prefixes of one first band: where a walk of a
//! prefix can restart, so that a number or a grid walks a few thousand
//! grids at most instead of up to half a prefix (62,887 grids the largest).
//!
//! # What a checkpoint is
//!
//! The walk visits a prefix's grids band 2 (rows 5-6) by band 2, in
//! increasing order ([`Walker::band2s_between`], [`Walker::walk_band2`]).
//! With a spacing `K`, a prefix of `count` grids has `(count - 1) / K`
//! checkpoints; checkpoint `i` (from 1) is the band 2 holding the grid of
//! rank `i K` (0-based in the prefix), with the number of the prefix's
//! grids before that band 2. So the number of checkpoints of each prefix
//! follows from the band's table, and a checkpoint is exact by the same
//! walk the table counts with: starting the walk at its band 2, the grid
//! of rank `r` is the `r - before`-th visited. A lookup of rank `r` takes
//! the checkpoints around it (the prefix's start and end count as
//! checkpoints), lists the band 2s between them, and walks that run from
//! its nearer end ([`Walker::nth_in_band2s`], [`Walker::rank_in_band2s`]).
//!
//! # File format (`NNN.ckp`, beside the table `NNN.cnt`)
//!
//! ```text
//! # s17 catalogue checkpoints v2: first band 001 123456789456789123789123456, 1007170 grids, every 1800 grids, 512 checkpoints, 1512 bytes, fnv1a64 0123456789abcdef
//! <binary body>
//! ```
//!
//! One text header line (the kind and its version, the band, its total as
//! in its table, the spacing, the number of checkpoints and bytes after
//! the line, and the FNV-1a 64 hash of those bytes), then the checkpoints
//! of each prefix in table order, as bits (most significant first; each
//! prefix's padded with 0s to a whole byte). A checkpoint is its offset
//! `i K - before` (less than the band 2's grids; 0 to 63 for 99.5 % of
//! them) in a Rice code: `offset / 8` ones, a zero and the offset's 3 low
//! bits, or from 128 on, 16 ones and the offset in 16 bits; then rows 5-6
//! coded cell by cell as the index of the digit among those the cell
//! allows given the cells before it (as the walk fills them), in as few
//! bits as that number of choices needs (none when there is one): about
//! 2.3 bytes a checkpoint in all. Reading checks the header, the hash,
//! that every code is a filling of rows 5-6, that the checkpoints of a
//! prefix increase, and that the body ends with the last one.
//!
//! Version 1 (`# s17 catalogue checkpoints: ...`, before 2026-11-29) wrote
//! each offset in 7 bits (127, then 16 bits, from 127 on): 14 % larger.
//! It is refused with a note to install the tables again.

use std::path::Path;

use rayon::prelude::*;

use super::CatalogueError;
use super::band_file::BandFile;
pub(super) use super::frame::format_error;
use super::frame::{frame, unframe};
use super::table::BandTable;
use super::walk::{Band2, Flow, Walker};

/// The spacing that `s17 catalogue build --checkpoints` uses by default.
pub const DEFAULT_SPACING: u64 = 1800;

/// The checkpoints of one first band, as read from its file (codes kept
/// packed; a prefix's are decoded when asked).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BandCheckpoints {
    /// Catalogue index, 0-based.
    pub band: usize,
    /// The spacing `K` in grids.
    pub spacing: u64,
    /// The body of the file.
    body: Vec<u8>,
    /// Per prefix, where its checkpoints start in `body` (one more entry:
    /// the body's length).
    starts: Vec<u32>,
}

/// One checkpoint: the band 2 where the walk restarts and the prefix's
/// grids before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    pub rows56: [u8; 18],
    pub before: u64,
}

impl BandCheckpoints {
    /// How many checkpoints a prefix of `count` grids has.
    pub fn per_prefix(count: u64, spacing: u64) -> u64 {
        count.saturating_sub(1) / spacing
    }

    /// The checkpoints of prefix `prefix` of the band's table, in order.
    pub fn of_prefix(&self, walker: &Walker, table: &BandTable, prefix: usize) -> Vec<Checkpoint> {
        let n = Self::per_prefix(table.count(prefix), self.spacing);
        let mut at = 8 * self.starts[prefix] as usize;
        let mut out = Vec::with_capacity(n as usize);
        for i in 1..=n {
            let (checkpoint, next) = decode(
                &self.body,
                at,
                walker,
                table.band,
                &table.rows4[prefix],
                i * self.spacing,
            )
            .expect("checked when read");
            out.push(checkpoint);
            at = next;
        }
        out
    }

    /// The checkpoints from the walk itself: every prefix with some walked
    /// once (prefixes in parallel, rayon's pool). Fails when a prefix's
    /// walk does not give the table's count.
    pub fn build(
        walker: &Walker,
        table: &BandTable,
        spacing: u64,
        path: &Path,
    ) -> Result<BandCheckpoints, CatalogueError> {
        let band = table.band;
        let built: Vec<Option<Vec<u8>>> = (0..table.rows4.len())
            .into_par_iter()
            .map(|prefix| {
                let count = table.count(prefix);
                let n = Self::per_prefix(count, spacing);
                let row4 = &table.rows4[prefix];
                let mut out = Bits::default();
                if n == 0 {
                    return Some(out.bytes);
                }
                let (mut seen, mut next) = (0u64, spacing);
                for band2 in walker.band2s(band, row4) {
                    let mut grids = 0u64;
                    walker.walk_band2(band, row4, &band2, false, &mut |_| {
                        grids += 1;
                        Flow::Continue
                    });
                    while next < seen + grids && next / spacing <= n {
                        encode(&mut out, walker, band, row4, &band2.rows, next - seen);
                        next += spacing;
                    }
                    seen += grids;
                }
                (seen == count).then_some(out.bytes)
            })
            .collect();
        let mut checkpoints = BandCheckpoints {
            band,
            spacing,
            body: Vec::new(),
            starts: vec![0],
        };
        for bytes in built {
            let bytes = bytes.ok_or_else(|| CatalogueError::Inconsistent {
                band: band + 1,
                path: path.to_path_buf(),
            })?;
            checkpoints.body.extend_from_slice(&bytes);
            checkpoints.starts.push(checkpoints.body.len() as u32);
        }
        Ok(checkpoints)
    }

    /// The number of checkpoints (from the table).
    fn count(table: &BandTable, spacing: u64) -> u64 {
        (0..table.rows4.len())
            .map(|p| Self::per_prefix(table.count(p), spacing))
            .sum()
    }

    /// The spacing a checkpoint file's header gives, and the bytes after
    /// it, once the header is that of the band of `table` and agrees with
    /// the table (grids, checkpoints) and with those bytes (length, hash).
    fn check_header<'b>(
        bytes: &'b [u8],
        table: &BandTable,
        walker: &Walker,
        path: &Path,
    ) -> Result<(u64, &'b [u8]), CatalogueError> {
        if bytes.starts_with(b"# s17 catalogue checkpoints: ") {
            return Err(format_error(path)(
                1,
                "checkpoints of version 1, which this s17 no longer reads: install the \
                 tables again (`s17 catalogue install`, `--from` a checkout's \
                 data/catalogue) or build them again (`s17 catalogue build --checkpoints`)"
                    .into(),
            ));
        }
        let file = unframe(bytes, KIND, walker, table.band, 3, path)?;
        let bad = |line, reason| file.error(line, reason);
        file.check_grids(table.total())?;
        let spacing = file.number(1, "every ", " grids")?;
        let count = file.number(2, "", " checkpoints")?;
        if spacing == 0 {
            return Err(bad(1, "a spacing of 0 grids".into()));
        }
        if count != Self::count(table, spacing) {
            return Err(bad(
                1,
                format!(
                    "{count} checkpoints, the table's prefixes need {}",
                    Self::count(table, spacing)
                ),
            ));
        }
        let body = file.body()?;
        Ok((spacing, body))
    }

    /// The byte at which each prefix's checkpoints start (and the end of
    /// the last), once every checkpoint of `body` decodes, lies above the
    /// one before in its prefix, each prefix ends in 0 bits and nothing
    /// follows the last.
    fn check_body(
        body: &[u8],
        table: &BandTable,
        walker: &Walker,
        spacing: u64,
        path: &Path,
    ) -> Result<Vec<u32>, CatalogueError> {
        let (band, bad) = (table.band, format_error(path));
        let mut starts = vec![0u32];
        let mut at = 0usize;
        for (prefix, row4) in table.rows4.iter().enumerate() {
            // Each prefix's checkpoints start at a byte.
            let mut previous = Checkpoint {
                rows56: [0; 18],
                before: 0,
            };
            for i in 1..=Self::per_prefix(table.count(prefix), spacing) {
                let (checkpoint, next) = decode(body, at, walker, band, row4, i * spacing)
                    .ok_or_else(|| {
                        bad(
                            2,
                            format!(
                                "byte {}: prefix {} checkpoint {i} is not a checkpoint",
                                at / 8,
                                prefix + 1
                            ),
                        )
                    })?;
                if i > 1
                    && (checkpoint.rows56 < previous.rows56
                        || (checkpoint.rows56 == previous.rows56)
                            != (checkpoint.before == previous.before)
                        || checkpoint.before < previous.before)
                {
                    return Err(bad(
                        2,
                        format!(
                            "byte {}: prefix {} checkpoint {i} is below the one before",
                            at / 8,
                            prefix + 1
                        ),
                    ));
                }
                previous = checkpoint;
                at = next;
            }
            let end = at.div_ceil(8);
            if !at.is_multiple_of(8) && body[at / 8] & (0xff >> (at % 8)) != 0 {
                return Err(bad(
                    2,
                    format!(
                        "byte {}: prefix {} ends in bits that are not 0",
                        at / 8,
                        prefix + 1
                    ),
                ));
            }
            at = 8 * end;
            starts.push(end as u32);
        }
        if at / 8 != body.len() {
            return Err(bad(
                2,
                format!(
                    "{} bytes left after the last checkpoint",
                    body.len() - at / 8
                ),
            ));
        }
        Ok(starts)
    }
}

impl BandFile for BandCheckpoints {
    const EXTENSION: &'static str = "ckp";

    /// The file's bytes.
    fn to_bytes(&self, walker: &Walker, table: &BandTable) -> Vec<u8> {
        let fields = [
            format!("{} grids", table.total()),
            format!("every {} grids", self.spacing),
            format!("{} checkpoints", Self::count(table, self.spacing)),
        ];
        frame(KIND, walker, self.band, &fields, &self.body)
    }

    /// Parses a checkpoint file of the band of `table`, checked as the
    /// module note says: its header (`check_header`), then its
    /// checkpoints (`check_body`).
    fn parse(
        bytes: &[u8],
        table: &BandTable,
        walker: &Walker,
        path: &Path,
    ) -> Result<Self, CatalogueError> {
        let (spacing, body) = Self::check_header(bytes, table, walker, path)?;
        let starts = Self::check_body(body, table, walker, spacing, path)?;
        Ok(BandCheckpoints {
            band: table.band,
            spacing,
            body: body.to_vec(),
            starts,
        })
    }
}

/// The run of band 2s around a place in a prefix, from the last
/// checkpoint at or before it (`at_or_before`) to the next, with the
/// prefix's grids before the run and up to its end. With no checkpoints,
/// the whole prefix.
fn run(
    walker: &Walker,
    table: &BandTable,
    checkpoints: Option<&BandCheckpoints>,
    prefix: usize,
    at_or_before: impl Fn(&Checkpoint) -> bool,
) -> (Vec<Band2>, (u64, u64)) {
    let (band, row4, count) = (table.band, &table.rows4[prefix], table.count(prefix));
    let Some(checkpoints) = checkpoints else {
        return (walker.band2s(band, row4), (0, count));
    };
    let cps = checkpoints.of_prefix(walker, table, prefix);
    let j = cps.partition_point(at_or_before);
    let from = j.checked_sub(1).map(|i| &cps[i]);
    let to = cps.get(j);
    let band2s = walker.band2s_between(band, row4, from.map(|c| &c.rows56), to.map(|c| &c.rows56));
    let span = (from.map_or(0, |c| c.before), to.map_or(count, |c| c.before));
    (band2s, span)
}

/// The grid of rank `rank` (0-based) in prefix `prefix` of `table`: walked
/// from the nearer end of its run between checkpoints (of the whole
/// prefix without).
pub fn nth(
    walker: &Walker,
    table: &BandTable,
    checkpoints: Option<&BandCheckpoints>,
    prefix: usize,
    rank: u64,
) -> Option<[u8; 81]> {
    let (band2s, span) = run(walker, table, checkpoints, prefix, |c| c.before <= rank);
    walker.nth_in_band2s(table.band, &table.rows4[prefix], &band2s, span, rank)
}

/// The rank (0-based) of the minlex grid `form` in prefix `prefix` of
/// `table` (its row 4), or `None` when the walk does not visit it: walked
/// from the nearer end of its run between checkpoints.
pub fn rank(
    walker: &Walker,
    table: &BandTable,
    checkpoints: Option<&BandCheckpoints>,
    prefix: usize,
    form: &[u8; 81],
) -> Option<u64> {
    let rows56: &[u8; 18] = form[36..54].try_into().expect("18 digits");
    let (band2s, span) = run(walker, table, checkpoints, prefix, |c| c.rows56 <= *rows56);
    walker.rank_in_band2s(table.band, form, &band2s, span)
}

/// The digits that each cell of rows 5-6 allows, cell by cell as the walk
/// fills them: `place(cell, allowed)` returns the digit placed (`None`
/// when `place` or a digit not allowed stops it).
pub(super) fn for_each_cell56(
    walker: &Walker,
    band: usize,
    row4: &[u8; 9],
    mut place: impl FnMut(usize, u16) -> Option<u8>,
) -> Option<()> {
    let mut columns = [0u16; 9];
    let mut boxes = [0u16; 3];
    for (cell, &d) in walker.catalogue().band(band).iter().enumerate() {
        columns[cell % 9] |= 1 << d;
    }
    for (c, &d) in row4.iter().enumerate() {
        columns[c] |= 1 << d;
        boxes[c / 3] |= 1 << d;
    }
    let mut rows = [0u16; 2];
    let mut first = row4[0];
    for cell in 0..18 {
        let (r, col) = (cell / 9, cell % 9);
        let mut allowed = 0x3fe & !(rows[r] | boxes[col / 3] | columns[col]);
        if col == 0 {
            // Normal order: first digits increase down the band.
            allowed &= !((2u16 << first) - 1);
        }
        let d = place(cell, allowed)?;
        if !(1..=9).contains(&d) || allowed >> d & 1 == 0 {
            return None;
        }
        if col == 0 {
            first = d;
        }
        rows[r] |= 1 << d;
        columns[col] |= 1 << d;
        boxes[col / 3] |= 1 << d;
    }
    Some(())
}

/// Bits appended to bytes, most significant first.
#[derive(Default)]
pub(super) struct Bits {
    pub(super) bytes: Vec<u8>,
    len: usize,
}

impl Bits {
    /// The number of bits pushed.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn push(&mut self, value: u64, width: u32) {
        for k in (0..width).rev() {
            if self.len.is_multiple_of(8) {
                self.bytes.push(0);
            }
            let bit = (value >> k & 1) as u8;
            *self.bytes.last_mut().expect("a byte") |= bit << (7 - self.len % 8);
            self.len += 1;
        }
    }
}

/// Reads `width` bits at bit `at` of `bytes`.
pub(super) fn read_bits(bytes: &[u8], at: &mut usize, width: u32) -> Option<u64> {
    let mut value = 0u64;
    for _ in 0..width {
        let byte = *bytes.get(*at / 8)?;
        value = value << 1 | (byte >> (7 - *at % 8) & 1) as u64;
        *at += 1;
    }
    Some(value)
}

/// The kind of file in the header (version 2: offsets in a Rice code).
const KIND: &str = "checkpoints v2";

/// The low bits of an offset written as they are; the ones before them
/// count the rest (`offset >> RICE_BITS`).
const RICE_BITS: u32 = 3;

/// From `RICE_ESCAPE << RICE_BITS` (128) on, an offset is written as
/// `RICE_ESCAPE` ones then its 16 bits.
const RICE_ESCAPE: u64 = 16;

/// Appends a checkpoint: `offset` (`i K - before`) and the code of rows
/// 5-6.
fn encode(
    out: &mut Bits,
    walker: &Walker,
    band: usize,
    row4: &[u8; 9],
    rows56: &[u8; 18],
    offset: u64,
) {
    let ones = offset >> RICE_BITS;
    if ones < RICE_ESCAPE {
        out.push((1 << ones) - 1, ones as u32);
        out.push(offset & ((1 << RICE_BITS) - 1), RICE_BITS + 1);
    } else {
        assert!(
            offset < 1 << 16,
            "an offset of {offset} grids in one band 2"
        );
        out.push((1 << RICE_ESCAPE) - 1, RICE_ESCAPE as u32);
        out.push(offset, 16);
    }
    encode_rows56(out, walker, band, row4, rows56);
}

/// The checkpoint at bit `at` of `body` for the multiple `target` (`i K`)
/// of the spacing, and the bit where the next starts; `None` when the
/// bits are not one.
fn decode(
    body: &[u8],
    mut at: usize,
    walker: &Walker,
    band: usize,
    row4: &[u8; 9],
    target: u64,
) -> Option<(Checkpoint, usize)> {
    let mut ones = 0u64;
    while ones < RICE_ESCAPE && read_bits(body, &mut at, 1)? == 1 {
        ones += 1;
    }
    let offset = if ones < RICE_ESCAPE {
        ones << RICE_BITS | read_bits(body, &mut at, RICE_BITS)?
    } else {
        read_bits(body, &mut at, 16)?
    };
    let rows56 = decode_rows56(body, &mut at, walker, band, row4)?;
    let before = target.checked_sub(offset)?;
    Some((Checkpoint { rows56, before }, at))
}

/// The bits that an index below `choices` needs.
pub(super) fn width(choices: u32) -> u32 {
    32 - choices.saturating_sub(1).leading_zeros()
}

/// Appends the code of rows 5-6: each cell's digit as its index among the
/// digits the cell allows.
pub(super) fn encode_rows56(
    out: &mut Bits,
    walker: &Walker,
    band: usize,
    row4: &[u8; 9],
    rows56: &[u8; 18],
) {
    for_each_cell56(walker, band, row4, |cell, allowed| {
        let d = rows56[cell];
        let index = (allowed & ((1u16 << d) - 1)).count_ones() as u64;
        out.push(index, width(allowed.count_ones()));
        Some(d)
    })
    .expect("a filling of rows 5-6");
}

/// The rows 5-6 coded at bit `at` ([`encode_rows56`]).
pub(super) fn decode_rows56(
    body: &[u8],
    at: &mut usize,
    walker: &Walker,
    band: usize,
    row4: &[u8; 9],
) -> Option<[u8; 18]> {
    let mut rows56 = [0u8; 18];
    for_each_cell56(walker, band, row4, |cell, allowed| {
        let choices = allowed.count_ones();
        let index = read_bits(body, at, width(choices))?;
        if index >= choices as u64 {
            return None;
        }
        let mut rest = allowed;
        for _ in 0..index {
            rest &= rest - 1;
        }
        let d = rest.trailing_zeros() as u8;
        rows56[cell] = d;
        Some(d)
    })?;
    Some(rows56)
}

#[cfg(test)]
mod tests;
