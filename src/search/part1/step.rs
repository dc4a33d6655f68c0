//! The 2X2Y step (ARCHITECTURE.md, stage 5): the four slice cells fixed,
//! the UA12 filed by where an XY of the step can still hit them ([`StepSets`]),
//! the X and Y of the step that hit the sets of their own band, and the
//! vectors of the XY loop ([`build_vectors`]).

use crate::bits::{Mask27, Mask54};
use crate::search::band3::Band3State;
use crate::search::hitting::{all_bits, low_bits};
use crate::search::sets::BAND1;

use super::mode::StepBands3;
use super::{Bands12, Mode};

/// Most 64-bit words of UA bits in a step vector.
pub(super) const MAX_UA_WORDS: usize = 4;

/// Words of the survivors' index of the sets beyond the vector limit.
const EXTRA_WORDS: usize = 8;

impl Bands12 {
    /// One 2X2Y step: the X slice (pair, sets minus the pair, their
    /// [`cell_bits`]) and the Y slice (pair, live cells, sets, bits), for
    /// the band-3 states `active`.
    pub(super) fn step<M: Mode>(
        &mut self,
        mode: &mut M,
        bands3: &mut [Band3State],
        active: &[usize],
        (xpair, xrest, xbits): (Mask27, &[Mask27], &[u64]),
        (ypair, ylive, yrest, ybits): (Mask27, Mask27, &[Mask27], &[u64]),
        z: usize,
    ) {
        self.stats.steps += 1;
        let b = (ypair as u64) << 27;
        let live = ((ylive as u64) << 27) | BAND1;
        let ua_limit = self.config.ua_limit.min(64 * MAX_UA_WORDS);
        // Sets without band-1 cells first: one the Y pair misses and no Y
        // can hit kills the step.
        self.must.ymust.clear();
        for &u in &self.slice.uas_b2 {
            if u & b == 0 {
                let v = (u & live) >> 27;
                if v == 0 {
                    self.stats.dead_steps += 1;
                    return;
                }
                self.must.ymust.push(v as Mask27);
            }
        }
        self.must.file(&self.slice.uas_x, b, live, ua_limit);
        // Per band 3, the sockets open for every XY of the step (GUAs no
        // cell of the step hits): a band 3 that cannot take them is dead
        // for the step, and so is the step when every band 3 is.
        let ycells = (ypair as u64 | ylive as u64) << 27;
        let classes = mode.step_classes(ycells);
        let mut step_live = std::mem::take(&mut self.buf.step_live);
        step_live.clear();
        for &k in active {
            if bands3[k].finished() {
                continue;
            }
            if let Some(forced) = bands3[k].step_forced(ycells, z, classes.as_ref()) {
                step_live.push((k, forced));
            }
        }
        if step_live.is_empty() {
            self.stats.dead_steps += 1;
            self.buf.step_live = step_live;
            return;
        }
        mode.prepare_step(bands3, &step_live);
        let step = StepBands3 {
            all: bands3,
            live: &step_live,
            z,
        };
        self.xy_loop(mode, step, (xpair, xrest, xbits), (ypair, yrest, ybits));
        self.buf.step_live = step_live;
    }
}

/// The sets XY must hit in one step, filed by where they can be hit.
#[derive(Default)]
pub(super) struct StepSets {
    /// Sets with cells in both bands, in `kbuf[..nk]`: the first `limit`
    /// get a vector bit.
    kbuf: Vec<Mask54>,
    nk: usize,
    limit: usize,
    /// Such sets beyond the vector limit (and fresh UA12 found during the
    /// step), checked on survivors.
    pub(super) extra: Vec<Mask54>,
    /// The first `extra_indexed` of `extra` by cell, for the survivors:
    /// row c has bit k set when cell c misses extra set k (`extra_all`,
    /// every bit, for the cells outside `extra_cells`, which a survivor
    /// has only in its pairs, which the sets miss).
    extra_rows: Vec<[u64; EXTRA_WORDS]>,
    extra_all: [u64; EXTRA_WORDS],
    extra_indexed: usize,
    extra_cells: Mask54,
    /// Sets left with band-1 cells only (`xbuf[..nx]`), band-2 cells only
    /// (`ymust`): filters of the X (Y) list.
    xbuf: Vec<Mask27>,
    nx: usize,
    pub(super) ymust: Vec<Mask27>,
}

impl StepSets {
    /// Makes room for filing `n` sets.
    pub(super) fn reserve(&mut self, n: usize) {
        let room = n + crate::bits::FILE_SLACK;
        if self.kbuf.len() < room {
            self.kbuf.resize(room, 0);
            self.xbuf.resize(room, 0);
        }
    }

    /// Files the sets of `uas` (each with band-1 cells) that miss `b`, cut
    /// to `live`: into the X filters when no band-2 cell is left, else
    /// into the kept sets.
    #[inline]
    pub(super) fn file(&mut self, uas: &[Mask54], b: Mask54, live: Mask54, limit: usize) {
        let (nk, nx) = crate::bits::file_sets(uas, (b, live), (&mut self.kbuf, &mut self.xbuf));
        (self.nk, self.nx, self.limit) = (nk, nx, limit);
        self.extra.clear();
        if nk > limit {
            self.extra.extend_from_slice(&self.kbuf[limit..nk]);
        }
    }

    /// Indexes the sets beyond the vector limit (the first
    /// `64 * EXTRA_WORDS`) by the cells `used` (every cell of the step's
    /// survivors but the pairs); false when one of them misses `used`, so
    /// that every survivor misses it.
    pub(super) fn index_extra(&mut self, used: Mask54) -> bool {
        let indexed = self.extra.len().min(64 * EXTRA_WORDS);
        let all = all_bits::<EXTRA_WORDS>(indexed);
        if indexed == 0 {
            // No set: no row is read (no cell is indexed).
            (self.extra_all, self.extra_indexed, self.extra_cells) = (all, 0, 0);
            return true;
        }
        self.extra_rows.clear();
        self.extra_rows.resize(54, all);
        (self.extra_all, self.extra_indexed, self.extra_cells) = (all, indexed, used);
        for (w, group) in self.extra[..indexed].chunks(64).enumerate() {
            let mut m = [0u64; 64];
            for (row, &u) in m.iter_mut().zip(group) {
                *row = u & used;
                if *row == 0 {
                    return false;
                }
            }
            crate::bits::transpose64(&mut m);
            for (row, &holders) in self.extra_rows.iter_mut().zip(&m) {
                row[w] &= !holders;
            }
        }
        self.extra[indexed..].iter().all(|&u| u & used != 0)
    }

    /// Whether XY (a survivor of the step) hits every set beyond the vector
    /// limit, [`StepSets::index_extra`] done.
    #[inline]
    pub(super) fn extra_hit(&self, xy: Mask54) -> bool {
        let mut missed = self.extra_all;
        let mut cells = xy & self.extra_cells;
        while cells != 0 {
            let row = &self.extra_rows[cells.trailing_zeros() as usize];
            for w in 0..EXTRA_WORDS {
                missed[w] &= row[w];
            }
            cells &= cells - 1;
        }
        missed.iter().all(|&m| m == 0)
            && self.extra[self.extra_indexed..]
                .iter()
                .all(|&u| u & xy != 0)
    }

    pub(super) fn kept(&self) -> &[Mask54] {
        &self.kbuf[..self.nk.min(self.limit)]
    }

    pub(super) fn xmust(&self) -> &[Mask27] {
        &self.xbuf[..self.nx]
    }
}

/// Builds the `W`-word step vectors of `sets` (at most 64 `W` of them;
/// bits = sets, a cell's vector has bit i set when the cell misses set i)
/// for every X and Y; only the cells of `used` (every cell of the X and Y)
/// get their rows right.
pub(super) fn build_vectors<const W: usize>(
    sets: &[Mask54],
    used: Mask54,
    xrest: impl ExactSizeIterator<Item = Mask27>,
    yrest: impl ExactSizeIterator<Item = Mask27>,
    vx: &mut Vec<u64>,
    vy: &mut Vec<u64>,
) {
    debug_assert!(sets.len() <= 64 * W);
    let all = all_bits::<W>(sets.len());
    let mut not_hit = [all; 54];
    // 64 sets at a time: the transpose of their cell masks gives, per cell,
    // the sets that hold it.
    for (w, group) in sets.chunks(64).enumerate() {
        let mut m = [0u64; 64];
        for (row, &u) in m.iter_mut().zip(group) {
            *row = u & used;
        }
        crate::bits::transpose64(&mut m);
        for (row, &holders) in not_hit.iter_mut().zip(&m) {
            row[w] &= !holders;
        }
    }
    crate::bits::and_rows(&not_hit[..27], all, xrest, vx);
    crate::bits::and_rows(&not_hit[27..], all, yrest, vy);
}

/// Appends, for each of the 27 cells of a band, a row of
/// `rest.len().div_ceil(64)` words (at least one) with bit i set when set
/// i of `rest` holds the cell.
pub(super) fn cell_bits(rest: &[Mask27], out: &mut Vec<u64>) {
    let words = rest.len().div_ceil(64).max(1);
    let base = out.len();
    out.resize(base + 27 * words, 0);
    for (i, &r) in rest.iter().enumerate() {
        let mut cells = r;
        while cells != 0 {
            let c = cells.trailing_zeros() as usize;
            out[base + c * words + i / 64] |= 1 << (i % 64);
            cells &= cells - 1;
        }
    }
}

/// The indices of the `n` sets (given by their [`cell_bits`]) that hit
/// every set of `must`.
pub(super) fn select_hitting(bits: &[u64], n: usize, must: &[Mask27], out: &mut Vec<u32>) {
    out.clear();
    let words = bits.len() / 27;
    // Four words at a time (each cell's row read once for the four): done
    // as soon as none of their sets is left.
    let mut w = 0;
    while w < words {
        match words - w {
            1 => select_words::<1>(bits, words, w, n, must, out),
            2 => select_words::<2>(bits, words, w, n, must, out),
            3 => select_words::<3>(bits, words, w, n, must, out),
            _ => select_words::<4>(bits, words, w, n, must, out),
        }
        w += 4;
    }
}

/// [`select_hitting`] on words `w..w + K` of the rows.
#[inline]
fn select_words<const K: usize>(
    bits: &[u64],
    words: usize,
    w: usize,
    n: usize,
    must: &[Mask27],
    out: &mut Vec<u32>,
) {
    let mut alive: [u64; K] = std::array::from_fn(|k| low_bits(n, w + k));
    for &m in must {
        // The sets that hit m: the OR of the rows of its cells.
        let mut hit = [0u64; K];
        let mut cells = m;
        while cells != 0 {
            let row = &bits[cells.trailing_zeros() as usize * words + w..][..K];
            for k in 0..K {
                hit[k] |= row[k];
            }
            cells &= cells - 1;
        }
        let mut any = 0;
        for k in 0..K {
            alive[k] &= hit[k];
            any |= alive[k];
        }
        if any == 0 {
            return;
        }
    }
    for (k, &a) in alive.iter().enumerate() {
        let mut a = a;
        while a != 0 {
            out.push((64 * (w + k)) as u32 + a.trailing_zeros());
            a &= a - 1;
        }
    }
}
