//! The GUA bits of an X slice for one band 3 ([`SliceBits`]): each GUA
//! with a socket that the X pair misses gets a bit (up to the limit), its
//! bits grouped by socket, with per cell of bands 1+2 the bits whose S the
//! cell hits; so the sockets an XY leaves open are the groups of the bits
//! none of its cells hits ([`SliceBits::sockets_of`]).

use crate::bits::sockets::groups_hit;
use crate::bits::{Mask27, Mask54, cells};
use crate::search::harvest::Gua;
use crate::search::hitting::{Sockets, all_bits};
use crate::search::sets::XSlice;

use super::{MAX_GUA_WORDS, MAX_SOCKETS};

/// The GUA bits of the current X slice.
pub(super) struct SliceBits {
    /// The X slice (its pair and live cells).
    pub(super) x: XSlice,
    /// Sockets of the band 3's bitted GUAs open for every XY of this X
    /// slice.
    pub(super) forced_x: Sockets,
    /// GUAs with a bit in this X slice: bands-1+2 part, socket; grouped
    /// by socket.
    guas_x: Vec<(Mask54, u8)>,
    /// Scratch list for sorting `guas_x`.
    guas_sorted: Vec<(Mask54, u8)>,
    /// GUAs with a socket that the X slice's pair misses but that got no
    /// GUA bit (past the limit): bands-1+2 part, socket. The GUA index
    /// reads them for band 3 on every GUA.
    pub(super) guas_unbitted: Vec<(Mask54, u32)>,
    /// Per word of GUA bits: the top bit of each socket's group (its part
    /// in the word), and the other bits of the groups.
    gtop: [u64; MAX_GUA_WORDS],
    glow: [u64; MAX_GUA_WORDS],
    /// The socket of each GUA bit.
    gsocket: Vec<u8>,
    /// Per word of GUA bits: the top bits of the groups in socket order
    /// (all groups of the slice's start; a fresh GUA's group comes after),
    /// and their sockets (one each, in the same order).
    gtop_sorted: [u64; MAX_GUA_WORDS],
    gtop_sockets: [u64; MAX_GUA_WORDS],
    /// Words of GUA bits in this X slice.
    gwords: usize,
    /// Per cell of bands 1+2: the GUA bits whose set the cell hits.
    ghit: Vec<[u64; MAX_GUA_WORDS]>,
    /// The GUA bits every X of the slice misses.
    gx_all: [u64; MAX_GUA_WORDS],
    /// The number of GUA bits of the slice and the mask of them all (it
    /// grows when fresh GUAs join the slice).
    bits: (usize, [u64; MAX_GUA_WORDS]),
}

impl SliceBits {
    /// No slice yet.
    pub(super) fn new() -> Self {
        SliceBits {
            x: XSlice::default(),
            forced_x: 0,
            guas_x: Vec::new(),
            guas_sorted: Vec::new(),
            guas_unbitted: Vec::new(),
            gtop: [0; MAX_GUA_WORDS],
            glow: [0; MAX_GUA_WORDS],
            gsocket: Vec::new(),
            gtop_sorted: [0; MAX_GUA_WORDS],
            gtop_sockets: [0; MAX_GUA_WORDS],
            gwords: 1,
            ghit: Vec::new(),
            gx_all: [0; MAX_GUA_WORDS],
            bits: (0, [0; MAX_GUA_WORDS]),
        }
    }

    /// Prepares the bits of an X slice with pair `a` and live cells `live`
    /// (band 1): each GUA of `guas` (socket `gua_socket[k]`) that the pair
    /// misses gets a GUA bit for the slice (up to `limit` bits), or forces
    /// its socket when no cell of the slice can hit it; the others go to
    /// `guas_unbitted`.
    pub(super) fn prepare(
        &mut self,
        a: Mask27,
        live: Mask27,
        guas: &[Gua],
        gua_socket: &[u8],
        gua_limit: usize,
    ) {
        self.x = XSlice::start(a, live);
        let (a, live, xlive) = (self.x.pair, self.x.live(), self.x.xlive);
        self.guas_x.clear();
        self.guas_unbitted.clear();
        self.forced_x = 0;
        for (g, &socket) in guas.iter().zip(gua_socket) {
            if g.s & a == 0 && self.forced_x & (1 << socket) == 0 {
                let v = g.s & live;
                if v == 0 {
                    self.forced_x |= 1 << socket;
                } else if self.guas_x.len() < gua_limit {
                    self.guas_x.push((v, socket));
                } else {
                    self.guas_unbitted.push((g.s, socket as u32));
                }
            }
        }
        // Grouped by socket, so that finding the open sockets takes one
        // step per socket (see `sockets_of`).
        // A counting sort (stable, sockets < 64) into the scratch list.
        let mut start = [0u16; MAX_SOCKETS + 1];
        for &(_, socket) in &self.guas_x {
            start[socket as usize + 1] += 1;
        }
        for k in 0..MAX_SOCKETS {
            start[k + 1] += start[k];
        }
        self.guas_sorted.clear();
        self.guas_sorted.resize(self.guas_x.len(), (0, 0));
        for &(v, socket) in &self.guas_x {
            let at = &mut start[socket as usize];
            self.guas_sorted[*at as usize] = (v, socket);
            *at += 1;
        }
        std::mem::swap(&mut self.guas_x, &mut self.guas_sorted);
        self.gsocket.clear();
        self.gsocket
            .extend(self.guas_x.iter().map(|&(_, socket)| socket));
        let all = all_bits::<MAX_GUA_WORDS>(self.guas_x.len());
        self.gtop = [0; MAX_GUA_WORDS];
        for (k, pair) in self.gsocket.windows(2).enumerate() {
            // The last bit of a group, or of a word.
            if pair[0] != pair[1] || k % 64 == 63 {
                self.gtop[k / 64] |= 1 << (k % 64);
            }
        }
        if let Some(k) = self.gsocket.len().checked_sub(1) {
            self.gtop[k / 64] |= 1 << (k % 64);
        }
        self.glow = std::array::from_fn(|w| all[w] & !self.gtop[w]);
        // Each group's socket comes after the one before (counting sort),
        // and a socket has at most one group per word.
        self.gtop_sorted = self.gtop;
        self.gtop_sockets = [0; MAX_GUA_WORDS];
        for (w, &tops) in self.gtop.iter().enumerate() {
            for k in cells(tops) {
                self.gtop_sockets[w] |= 1 << self.gsocket[64 * w + k];
            }
            // `sockets_of` moves the k-th top to the k-th socket.
            assert_eq!(tops.count_ones(), self.gtop_sockets[w].count_ones());
        }
        self.gwords = self.guas_x.len().div_ceil(64);
        self.ghit.clear();
        self.ghit.resize(54, [0; MAX_GUA_WORDS]);
        for (k, &(s, _)) in self.guas_x.iter().enumerate() {
            let mut cells = s;
            while cells != 0 {
                let c = cells.trailing_zeros() as usize;
                self.ghit[c][k / 64] |= 1 << (k % 64);
                cells &= cells - 1;
            }
        }
        let hit = hit_bits(&self.ghit, xlive, MAX_GUA_WORDS);
        self.gx_all = std::array::from_fn(|w| all[w] & !hit[w]);
        self.bits = (self.guas_x.len(), all);
    }

    /// A fresh GUA with a socket joins the current X slice: its socket is
    /// forced when no cell of the slice can hit it, else it gets the next
    /// GUA bit (a group of its own) while there are fewer than `limit`;
    /// else it joins `guas_unbitted`, and the result is true (band 3 on
    /// every GUA must read it).
    pub(super) fn add(&mut self, s: Mask54, socket: usize, limit: usize) -> bool {
        if self.forced_x & (1 << socket) != 0 {
            return false;
        }
        let Some(v) = self.x.cut(s) else {
            return false;
        };
        if v == 0 {
            self.forced_x |= 1 << socket;
            return false;
        }
        let k = self.guas_x.len();
        if k >= limit {
            self.guas_unbitted.push((s, socket as u32));
            return true;
        }
        let (w, bit) = (k / 64, 1 << (k % 64));
        self.guas_x.push((v, socket as u8));
        self.gsocket.push(socket as u8);
        self.gtop[w] |= bit;
        for c in cells(v) {
            self.ghit[c][w] |= bit;
        }
        if v & self.x.xlive == 0 {
            self.gx_all[w] |= bit;
        }
        self.gwords = w + 1;
        false
    }

    /// The sockets open for every XY of a step whose Y cells (pair and
    /// live cells) are `ycells`: those forced for the slice, and those of
    /// the bits that every X and `ycells` miss.
    #[inline]
    pub(super) fn step_open(&self, ycells: Mask54) -> Sockets {
        let mut forced = self.forced_x;
        if self.gwords > 0 {
            let yhit = hit_bits(&self.ghit, ycells, self.gwords);
            let missed: [u64; MAX_GUA_WORDS] = std::array::from_fn(|w| self.gx_all[w] & !yhit[w]);
            forced |= self.sockets_of(&missed[..self.gwords]);
        }
        forced
    }

    /// The sockets open for a survivor with cells `cells` (but the X
    /// pair): those forced for the slice, and those of the bits its cells
    /// miss.
    #[inline]
    pub(super) fn survivor_open(&mut self, cells: Mask54) -> Sockets {
        let mut open = self.forced_x;
        if self.gwords > 0 {
            // Fresh GUAs may have joined the slice (bits, forced sockets).
            if self.guas_x.len() != self.bits.0 {
                self.bits = (
                    self.guas_x.len(),
                    all_bits::<MAX_GUA_WORDS>(self.guas_x.len()),
                );
            }
            let all = self.bits.1;
            let hit = hit_bits(&self.ghit, cells, self.gwords);
            let missed: [u64; MAX_GUA_WORDS] = std::array::from_fn(|w| all[w] & !hit[w]);
            open |= self.sockets_of(&missed[..self.gwords]);
        }
        open
    }

    /// The sockets of the GUA bits set in `missed`.
    #[inline]
    pub(super) fn sockets_of(&self, missed: &[u64]) -> Sockets {
        let mut tops = [0; MAX_GUA_WORDS];
        let mut fresh = 0;
        for (w, &bits) in missed.iter().enumerate() {
            tops[w] = groups_hit(bits, self.gtop[w], self.glow[w]);
            fresh |= tops[w] & !self.gtop_sorted[w];
        }
        // The groups in socket order: their bits move to their sockets.
        let n = missed.len();
        let mut open =
            crate::bits::move_bits(&tops[..n], &self.gtop_sorted[..n], &self.gtop_sockets[..n]);
        // Fresh GUAs' groups (rare) one by one.
        if fresh != 0 {
            for (w, &tops) in tops[..n].iter().enumerate() {
                for k in cells(tops & !self.gtop_sorted[w]) {
                    open |= 1 << self.gsocket[64 * w + k];
                }
            }
        }
        open
    }
}

/// The OR of the rows of `table` (one per cell) over the cells of `cells`.
#[inline]
pub(super) fn hit_bits(
    table: &[[u64; MAX_GUA_WORDS]],
    cells: Mask54,
    words: usize,
) -> [u64; MAX_GUA_WORDS] {
    /// The first `W` words (the others are 0).
    #[inline]
    fn first<const W: usize>(
        table: &[[u64; MAX_GUA_WORDS]],
        cells: Mask54,
    ) -> [u64; MAX_GUA_WORDS] {
        let mut out = [0u64; MAX_GUA_WORDS];
        let mut cells = cells;
        while cells != 0 {
            let row = &table[cells.trailing_zeros() as usize];
            for w in 0..W {
                out[w] |= row[w];
            }
            cells &= cells - 1;
        }
        out
    }
    match words {
        0 => [0; MAX_GUA_WORDS],
        1 => first::<1>(table, cells),
        2 => first::<2>(table, cells),
        3 | 4 => first::<4>(table, cells),
        _ => first::<MAX_GUA_WORDS>(table, cells),
    }
}
