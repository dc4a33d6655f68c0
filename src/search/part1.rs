//! Part 1, the 2X2Y loop (ARCHITECTURE.md, stage 5), and the bands-1+2
//! check (stage 6).
//!
//! X runs over the slices of band 1's valid sets, Y over band 2's. For a
//! pair of slices (a *step*) the four slice cells are fixed: UAs they hit are
//! dropped, the others lose the cells no set of the step can add, and an
//! emptied UA kills the step. The first `ua_limit` UAs left get one bit each;
//! every live cell has a vector with bit i set when the cell does NOT hit
//! UA i. A set's vector is the AND over its cells, and XY hits every kept UA
//! exactly when `vX & vY` is all zero.
//!
//! GUAs get bits the same way (up to `gua_limit`): for a survivor, the GUA
//! bits of `vX & vY` are the GUAs whose bands-1+2 part XY misses, so their
//! sockets are *open* and band 3 must hit their T. If band 3 cannot hit all
//! open T's and its own UAs with the clues it has left, the survivor dies.
//! The others are checked against the UAs beyond the limit, then by the
//! solver with band 3 given in full (exactly the bands-1+2 problem under band
//! 3's gangster); a failure gives a fresh UA12 for the later steps.

use crate::bits::{BANDS12_FULL, GRID_FULL, Mask27, Mask54, Mask81, cells27, cells54};
use crate::grid::Grid;
use crate::solver::other_solution;

use super::harvest::Gua;
use super::sets::{BAND1, BandSets};
use super::{SearchConfig, Stats};

/// Band 3 cells of the search grid.
const BAND3_CELLS: Mask81 = GRID_FULL & !(BANDS12_FULL as u128);

/// A set of sockets, by id.
type Sockets = u64;
/// Most sockets (distinct band-3 parts of GUAs with bits in the step).
const MAX_SOCKETS: usize = Sockets::BITS as usize;
// The GUA index leaves the parts with sockets to the caller.
const _: () = assert!(MAX_SOCKETS == super::band3::SOCKET_PARTS as usize);

/// Most 64-bit words of UA bits in a step vector.
const MAX_UA_WORDS: usize = 4;
/// Most 64-bit words of GUA bits in a step vector.
const MAX_GUA_WORDS: usize = 8;

/// The state of one band-3 choice: its UAs (growing as checks fail), the
/// 17s found, counters, and reusable buffers.
pub struct ChoiceState {
    pub grid: Grid,
    /// UA12 spanning bands 1 and 2, sorted by size.
    pub ua12: Vec<Mask54>,
    /// Harvested GUAs (bands-1+2 part non-empty) and the socket of each.
    pub guas: Vec<Gua>,
    gua_socket: Vec<u8>,
    /// The band-3 part of each socket.
    socket_t: Vec<Mask27>,
    /// The [`MiniRowBound::bit`] of each socket's T.
    socket_bit: Vec<u64>,
    /// For each socket, the other sockets whose T lies inside its T.
    socket_dom: Vec<Sockets>,
    /// For each UA inside band 3 (kept in the GUA index, in the same
    /// order), the sockets whose T lies inside it: with one of them open the
    /// UA is hit anyway.
    band3_holds: Vec<Sockets>,
    /// Every GUA, indexed by cell for part 2.
    pub(super) gua_index: super::band3::GuaIndex,
    pub config: SearchConfig,
    pub stats: Stats,
    pub found: Vec<Mask81>,
    /// When set, valid XY are recorded here instead of going to band 3
    /// (used by the cross-check tests).
    pub record_valid_xy: Option<Vec<Mask54>>,
    /// When set, keeps the X and Y vectors of the 4-word step with the most
    /// pairs (for the benches).
    pub record_step: Option<(usize, Vec<u64>, Vec<u64>)>,
    // Buffers reused across steps.
    /// UAs of bands 1+2 that the X pair misses, cut to the slice's live
    /// cells: those with band-1 cells left, then those without.
    uas_x: Vec<Mask54>,
    uas_b2: Vec<Mask54>,
    /// GUAs with a bit in this X slice: bands-1+2 part, socket; grouped
    /// by socket.
    guas_x: Vec<(Mask54, u8)>,
    /// Scratch list for sorting `guas_x`.
    guas_sorted: Vec<(Mask54, u8)>,
    /// GUAs with a socket that the X slice's pair misses but that got no
    /// GUA bit (past the limit): bands-1+2 part, socket. The GUA index
    /// reads them for band 3 on every GUA.
    guas_unbitted: Vec<(Mask54, u32)>,
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
    /// The OR of the [`MiniRowBound`] bits of the sockets in each byte
    /// value of each byte of a [`Sockets`] mask.
    family_table: Box<[[u64; 256]; 8]>,
    /// Per band-3 cell: the sockets whose T holds it.
    cell_sockets: [Sockets; 27],
    /// The last [`WITNESSES`] band-3 clue sets found by the feasibility
    /// check (each hits band 3's UAs): the sockets each hits and its size.
    witnesses: Vec<(Sockets, u8)>,
    /// Where the next witness goes once the list is full.
    witness_next: usize,
    /// The X pair and the live cells of both bands of this X slice.
    slice_cells: (Mask54, Mask54),
    /// The live cells of the X slice's sets (band 1).
    slice_xlive: Mask54,
    /// Set while an X slice is searched: fresh sets join its lists.
    slice_active: bool,
    /// Set when a fresh UA12 has no cell the slice can take.
    slice_dead: bool,
    /// Sockets open for every XY of this X slice, and the
    /// [`MiniRowBound`] family of their T's.
    forced_x: Sockets,
    forced_x_family: u64,
    /// Words of GUA bits in this X slice.
    gwords: usize,
    /// Per cell of bands 1+2: the GUA bits whose set the cell hits.
    ghit: Vec<[u64; MAX_GUA_WORDS]>,
    /// The GUA bits every X of the slice misses.
    gx_all: [u64; MAX_GUA_WORDS],
    /// The sets XY must hit in the current step.
    must: StepSets,
    /// Indices of the X (Y) of the step that hit every `xmust` (`ymust`).
    xsel: Vec<u32>,
    ysel: Vec<u32>,
    /// [`cell_bits`] of the current X slice, and of every Y slice of the row.
    xbits: Vec<u64>,
    ybits: Vec<u64>,
    vx: Vec<u64>,
    vy: Vec<u64>,
    survivors: Vec<(u32, u32)>,
    pub(super) band3: super::band3::Band3Buffers,
}

impl ChoiceState {
    pub fn new(
        grid: Grid,
        ua12: Vec<Mask54>,
        guas: Vec<Gua>,
        band3_uas: Vec<Mask27>,
        config: SearchConfig,
    ) -> Self {
        let mut state = ChoiceState {
            grid,
            ua12,
            guas: Vec::new(),
            gua_socket: Vec::new(),
            socket_t: Vec::new(),
            socket_bit: Vec::new(),
            socket_dom: Vec::new(),
            band3_holds: Vec::new(),
            gua_index: Default::default(),
            config,
            stats: Stats::default(),
            found: Vec::new(),
            record_valid_xy: None,
            record_step: None,
            uas_x: Vec::new(),
            uas_b2: Vec::new(),
            guas_x: Vec::new(),
            guas_sorted: Vec::new(),
            guas_unbitted: Vec::new(),
            gtop: [0; MAX_GUA_WORDS],
            glow: [0; MAX_GUA_WORDS],
            gsocket: Vec::new(),
            gtop_sorted: [0; MAX_GUA_WORDS],
            gtop_sockets: [0; MAX_GUA_WORDS],
            family_table: Box::new([[0; 256]; 8]),
            slice_cells: (0, 0),
            forced_x: 0,
            forced_x_family: 0,
            cell_sockets: [0; 27],
            witnesses: Vec::new(),
            witness_next: 0,
            slice_xlive: 0,
            slice_active: false,
            slice_dead: false,
            gwords: 1,
            ghit: Vec::new(),
            gx_all: [0; MAX_GUA_WORDS],
            must: StepSets::default(),
            xsel: Vec::new(),
            ysel: Vec::new(),
            xbits: Vec::new(),
            ybits: Vec::new(),
            vx: Vec::new(),
            vy: Vec::new(),
            survivors: Vec::new(),
            band3: Default::default(),
        };
        for u in band3_uas {
            state.add_band3_ua(u);
        }
        for g in guas {
            state.add_gua(g);
        }
        state
    }

    /// Adds a GUA to the index band 3 reads, and to the socketed list when
    /// its T is one of the first 64 distinct T's (socket = the index's id
    /// of the T).
    pub(super) fn add_gua(&mut self, g: Gua) {
        let socket = self.gua_index.push(g) as usize;
        if socket >= MAX_SOCKETS {
            self.gua_index.slice_push(g.s, socket as u32);
            return;
        }
        if socket == self.socket_t.len() {
            let mut dom = 0;
            for (r, &t) in self.socket_t.iter().enumerate() {
                if t & !g.t == 0 {
                    dom |= 1 << r;
                } else if g.t & !t == 0 {
                    self.socket_dom[r] |= 1 << socket;
                }
            }
            let family_bit = MiniRowBound::bit(g.t);
            self.socket_t.push(g.t);
            self.socket_bit.push(family_bit);
            let (byte, bit) = (socket / 8, socket % 8);
            for (v, family) in self.family_table[byte].iter_mut().enumerate() {
                if v >> bit & 1 != 0 {
                    *family |= family_bit;
                }
            }
            self.socket_dom.push(dom);
            for c in cells27(g.t) {
                self.cell_sockets[c] |= 1 << socket;
            }
            for (holds, u) in self.band3_holds.iter_mut().zip(self.gua_index.band3_uas()) {
                if g.t & !u == 0 {
                    *holds |= 1 << socket;
                }
            }
        }
        // Smallest bands-1+2 part first: those are missed most often, so
        // they take the step's bits first.
        let size = g.s.count_ones();
        let at = self.guas.partition_point(|h| h.s.count_ones() <= size);
        self.guas.insert(at, g);
        self.gua_socket.insert(at, socket as u8);
        self.slice_add_gua(g.s, socket);
    }

    /// A fresh GUA with a socket joins the current X slice: its socket is
    /// forced when no cell of the slice can hit it, else it gets the next
    /// GUA bit (a group of its own) while there is room, else it joins the
    /// GUAs band 3 on every GUA reads.
    fn slice_add_gua(&mut self, s: Mask54, socket: usize) {
        if self.forced_x & (1 << socket) != 0 {
            return;
        }
        let Some(v) = self.slice_cut(s) else {
            return;
        };
        if v == 0 {
            self.forced_x |= 1 << socket;
            self.forced_x_family |= self.socket_bit[socket];
            return;
        }
        let k = self.guas_x.len();
        if k >= self.config.gua_limit.min(64 * MAX_GUA_WORDS) {
            self.guas_unbitted.push((s, socket as u32));
            self.gua_index.slice_push(s, socket as u32);
            return;
        }
        let (w, bit) = (k / 64, 1 << (k % 64));
        self.guas_x.push((v, socket as u8));
        self.gsocket.push(socket as u8);
        self.gtop[w] |= bit;
        for c in cells54(v) {
            self.ghit[c][w] |= bit;
        }
        if v & self.slice_xlive == 0 {
            self.gx_all[w] |= bit;
        }
        self.gwords = w + 1;
    }

    /// A fresh set of bands 1+2 as the current X slice sees it: `None` when
    /// no slice is searched or the slice's X pair hits it, else its cells
    /// that the slice's sets can still take (as `prepare_x_slice` cuts).
    fn slice_cut(&self, s: Mask54) -> Option<Mask54> {
        let (pair, cells) = self.slice_cells;
        (self.slice_active && s & pair == 0).then_some(s & cells & !pair)
    }

    /// Adds a UA inside band 3.
    pub(super) fn add_band3_ua(&mut self, t: Mask27) {
        let holds = (0..self.socket_t.len())
            .filter(|&k| self.socket_t[k] & !t == 0)
            .fold(0, |m, k| m | 1 << k);
        self.band3_holds.push(holds);
        self.gua_index.push_band3_ua(t);
    }

    /// Searches one row of the plan: X of `xsets.size` clues in band 1, Y of
    /// `ysets.size` in band 2, and `z` clues in band 3.
    pub fn run_row(&mut self, xsets: &BandSets, ysets: &BandSets, z: usize) {
        let span = tracing::debug_span!("row", x = xsets.size, y = ysets.size, z);
        let _enter = span.enter();
        let before = self.stats;
        let start = std::time::Instant::now();
        // Per Y slice (and per X slice below), which of its sets hold each
        // cell: the sets that hit a given set are the OR of its cells' rows.
        let mut ybits = std::mem::take(&mut self.ybits);
        let mut xbits = std::mem::take(&mut self.xbits);
        ybits.clear();
        let yrange: Vec<_> = ysets
            .slices
            .iter()
            .map(|ys| {
                let start = ybits.len();
                cell_bits(&ysets.rest[ys.start as usize..ys.end as usize], &mut ybits);
                start..ybits.len()
            })
            .collect();
        for xs in &xsets.slices {
            let xrest = &xsets.rest[xs.start as usize..xs.end as usize];
            xbits.clear();
            cell_bits(xrest, &mut xbits);
            if !self.prepare_x_slice(xs.pair, xs.live) {
                self.stats.dead_steps += ysets.slices.len() as u64;
                continue;
            }
            for (k, ys) in ysets.slices.iter().enumerate() {
                // Fresh sets found by the checks join the slice's lists
                // as they come; one that no set of the slice can hit
                // ends it.
                if self.slice_dead {
                    self.stats.dead_steps += (ysets.slices.len() - k) as u64;
                    break;
                }
                let yrest = &ysets.rest[ys.start as usize..ys.end as usize];
                let ybits = &ybits[yrange[k].clone()];
                self.step(
                    (xs.pair, xrest, &xbits),
                    (ys.pair, ys.live, yrest, ybits),
                    z,
                );
            }
        }
        (self.xbits, self.ybits) = (xbits, ybits);
        self.slice_active = false;
        tracing::debug!(
            xsets = xsets.len(),
            ysets = ysets.len(),
            ua12 = self.ua12.len(),
            steps = self.stats.steps - before.steps,
            dead = self.stats.dead_steps - before.dead_steps,
            xy = self.stats.xy_tested - before.xy_tested,
            survivors = self.stats.survivors - before.survivors,
            band3_dead = self.stats.band3_dead - before.band3_dead,
            b12 = self.stats.bands12_checks - before.bands12_checks,
            valid_xy = self.stats.valid_xy - before.valid_xy,
            final_checks = self.stats.final_checks - before.final_checks,
            secs = start.elapsed().as_secs_f64(),
            "row done"
        );
    }

    /// Filters the UAs and GUAs for an X slice with cells `a` and live cells
    /// `live`, and gives the GUAs their bits for the slice; false when a UA
    /// cannot be hit by any X of the slice nor any Y.
    fn prepare_x_slice(&mut self, a: Mask27, live: Mask27) -> bool {
        let xlive = live as u64;
        let (a, live) = (a as u64, xlive | !BAND1);
        (self.slice_active, self.slice_dead) = (true, false);
        self.slice_cells = (a, (a | live) & BANDS12_FULL);
        self.slice_xlive = xlive;
        self.uas_x.clear();
        self.uas_b2.clear();
        for &u in &self.ua12 {
            if u & a == 0 {
                let v = u & live;
                if v == 0 {
                    return false;
                }
                if v & BAND1 == 0 {
                    self.uas_b2.push(v);
                } else {
                    self.uas_x.push(v);
                }
            }
        }
        self.must.reserve(self.uas_x.len());
        let gua_limit = self.config.gua_limit.min(64 * MAX_GUA_WORDS);
        self.guas_x.clear();
        self.guas_unbitted.clear();
        self.gua_index.forget_slice();
        self.forced_x = 0;
        for (g, &socket) in self.guas.iter().zip(&self.gua_socket) {
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
        self.forced_x_family = cells54(self.forced_x).fold(0, |f, k| f | self.socket_bit[k]);
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
            for k in cells54(tops) {
                self.gtop_sockets[w] |= 1 << self.gsocket[64 * w + k];
            }
            // `sockets_of` moves the k-th top to the k-th socket.
            assert_eq!(tops.count_ones(), self.gtop_sockets[w].count_ones());
        }
        let gwords = self.guas_x.len().div_ceil(64).max(1);
        self.gwords = gwords;
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
        let hit = hit_bits(&self.ghit, xlive);
        self.gx_all = std::array::from_fn(|w| all[w] & !hit[w]);
        true
    }

    /// The sockets of the GUA bits set in `missed`, and the
    /// [`MiniRowBound`] family of their T's.
    #[inline]
    fn sockets_of(&self, missed: &[u64]) -> (Sockets, u64) {
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
                for k in cells54(tops & !self.gtop_sorted[w]) {
                    open |= 1 << self.gsocket[64 * w + k];
                }
            }
        }
        (open, self.family_of(open))
    }

    /// The [`MiniRowBound`] family of the T's of the sockets `open`.
    #[inline]
    fn family_of(&self, open: Sockets) -> u64 {
        (0..8).fold(0, |f, b| {
            f | self.family_table[b][(open >> (8 * b)) as usize & 255]
        })
    }

    /// One 2X2Y step: the X slice (pair, sets minus the pair, their
    /// [`cell_bits`]) and the Y slice (pair, live cells, sets, bits).
    fn step(
        &mut self,
        (xpair, xrest, xbits): (Mask27, &[Mask27], &[u64]),
        (ypair, ylive, yrest, ybits): (Mask27, Mask27, &[Mask27], &[u64]),
        z: usize,
    ) {
        self.stats.steps += 1;
        let ylive_band = ylive as u64;
        let b = (ypair as u64) << 27;
        let live = ((ylive as u64) << 27) | BAND1;
        let ua_limit = self.config.ua_limit.min(64 * MAX_UA_WORDS);
        // Sets without band-1 cells first: one the Y pair misses and no Y
        // can hit kills the step.
        self.must.ymust.clear();
        for &u in &self.uas_b2 {
            if u & b == 0 {
                let v = (u & live) >> 27;
                if v == 0 {
                    self.stats.dead_steps += 1;
                    return;
                }
                self.must.ymust.push(v as Mask27);
            }
        }
        self.must.file(&self.uas_x, b, live, ua_limit);
        // Sockets open for every XY of the step: GUAs no cell of the step hits.
        let ycells = (ypair as u64 | ylive_band) << 27;
        let yhit = hit_bits(&self.ghit, ycells);
        let missed: [u64; MAX_GUA_WORDS] = std::array::from_fn(|w| self.gx_all[w] & !yhit[w]);
        let (open, family) = self.sockets_of(&missed[..self.gwords]);
        let (forced, forced_family) = (self.forced_x | open, self.forced_x_family | family);
        if !self.band3_can_take(forced, forced_family, z) {
            self.stats.dead_steps += 1;
            return;
        }
        select_hitting(xbits, xrest.len(), self.must.xmust(), &mut self.xsel);
        select_hitting(ybits, yrest.len(), &self.must.ymust, &mut self.ysel);
        if self.xsel.is_empty() || self.ysel.is_empty() {
            self.stats.dead_steps += 1;
            return;
        }
        // Only the cells of the chosen X and Y can hit anything: the kept
        // sets shrink to them (fewer cells to scatter), and one left empty
        // kills the step.
        let xused = self.xsel.iter().fold(0, |m, &i| m | xrest[i as usize]);
        let yused = self.ysel.iter().fold(0, |m, &j| m | yrest[j as usize]);
        let used = xused as u64 | (yused as u64) << 27;
        if self.must.kept().iter().any(|&u| u & used == 0) {
            self.stats.dead_steps += 1;
            return;
        }
        let words = self.must.kept().len().div_ceil(64).max(1);
        self.vx.clear();
        self.vy.clear();
        let tested = match words {
            1 => self.collect_survivors::<1>(xrest, yrest, used),
            2 => self.collect_survivors::<2>(xrest, yrest, used),
            // Three words go in four: the 256-bit test is cheaper.
            _ => self.collect_survivors::<4>(xrest, yrest, used),
        };
        self.stats.xy_tested += tested;
        self.stats.survivors += self.survivors.len() as u64;
        if self.survivors.is_empty() {
            return;
        }
        let survivors = std::mem::take(&mut self.survivors);
        let mut bits = self.guas_x.len();
        let mut all = all_bits::<MAX_GUA_WORDS>(bits);
        for &(i, j) in &survivors {
            let (i, j) = (
                self.xsel[i as usize] as usize,
                self.ysel[j as usize] as usize,
            );
            // Fresh GUAs may have joined the slice (bits, forced sockets):
            // band 3 on every GUA reads their sockets here.
            if self.guas_x.len() != bits {
                bits = self.guas_x.len();
                all = all_bits::<MAX_GUA_WORDS>(bits);
            }
            // The GUA bits XY misses (those of the X pair are not in the
            // slice's list).
            let cells = xrest[i] as u64 | ((ypair | yrest[j]) as u64) << 27;
            let hit = hit_bits(&self.ghit, cells);
            let missed: [u64; MAX_GUA_WORDS] = std::array::from_fn(|w| all[w] & !hit[w]);
            let (open, family) = self.sockets_of(&missed[..self.gwords]);
            let (open, family) = (
                forced | self.forced_x | open,
                forced_family | self.forced_x_family | family,
            );
            if !self.band3_can_take(open, family, z) {
                self.stats.band3_dead += 1;
                continue;
            }
            let xy = (xpair | xrest[i]) as u64 | ((ypair | yrest[j]) as u64) << 27;
            if self.must.extra.iter().any(|&u| u & xy == 0) {
                self.stats.extra_dead += 1;
                continue;
            }
            // Band 3 against every GUA (the open sockets for those with a
            // GUA bit, the index's slice view for the others): far cheaper
            // than the solver, and it kills most XY.
            let (pair, live) = self.slice_cells;
            self.gua_index
                .prepare_slice(pair, live, &self.guas_unbitted);
            if !self.band3_required(xy, open, z) {
                self.stats.gua_dead += 1;
                continue;
            }
            if self.check_bands12(xy) {
                match &mut self.record_valid_xy {
                    Some(list) => list.push(xy),
                    None => self.enumerate_band3(xy, z),
                }
            }
        }
        self.survivors = survivors;
    }

    /// The XY inner loop of one step with `W`-word UA vectors: fills
    /// `survivors` with every (x, y) index pair whose vectors AND to zero,
    /// and returns the number of pairs tested.
    fn collect_survivors<const W: usize>(
        &mut self,
        xrest: &[Mask27],
        yrest: &[Mask27],
        used: Mask54,
    ) -> u64 {
        let xs = self.xsel.iter().map(|&i| xrest[i as usize]);
        let ys = self.ysel.iter().map(|&j| yrest[j as usize]);
        build_vectors::<W>(self.must.kept(), used, xs, ys, &mut self.vx, &mut self.vy);
        self.survivors.clear();
        let vx: &[[u64; W]] = self.vx.as_chunks::<W>().0;
        let vy: &[[u64; W]] = self.vy.as_chunks::<W>().0;
        crate::bits::zero_and_pairs(vx, vy, self.config.chunk, &mut self.survivors);
        if let Some((pairs, rx, ry)) = &mut self.record_step
            && W == 4
            && vx.len() * vy.len() > *pairs
        {
            *pairs = vx.len() * vy.len();
            *rx = self.vx.clone();
            *ry = self.vy.clone();
        }
        (vx.len() * vy.len()) as u64
    }

    /// Whether band 3 can hit its own UAs and the T of every open socket
    /// with `z` clues; `family` is the [`MiniRowBound`] family of the open
    /// sockets' T's. (Not memoized: on slow grids a memo of the answers
    /// grows past the caches and costs more than the searches it saves.)
    fn band3_can_take(&mut self, open: Sockets, family: u64, z: usize) -> bool {
        // The mini-row bound first: it settles most calls.
        if (MiniRowBound { family }).clues() > z {
            return false;
        }
        // A socket whose T holds another open socket's T is hit with it:
        // leave it out.
        let mut needed = open;
        let mut sockets = open;
        while sockets != 0 {
            let s = sockets.trailing_zeros() as usize;
            sockets &= sockets - 1;
            if open & self.socket_dom[s] != 0 {
                needed &= !(1 << s);
            }
        }
        let open = needed;
        if disjoint_sets_exceed(&self.socket_t, open, z) {
            return false;
        }
        // A band-3 clue set that worked before and hits every open T (and
        // is small enough) answers yes: a short scan, cheaper than a search.
        if self
            .witnesses
            .iter()
            .any(|&(hit, size)| open & !hit == 0 && size as usize <= z)
        {
            return true;
        }
        // Socket T's first (2 or 3 cells: the strongest branching), then
        // band 3's own UAs.
        let mut required = std::mem::take(&mut self.band3.scratch);
        required.clear();
        let mut sockets = open;
        while sockets != 0 {
            required.push(self.socket_t[sockets.trailing_zeros() as usize]);
            sockets &= sockets - 1;
        }
        required.extend(
            self.gua_index
                .band3_uas()
                .zip(&self.band3_holds)
                .filter(|&(_, &holds)| holds & open == 0)
                .map(|(u, _)| u),
        );
        let found = hitting_set(&required, 0, 0, z, &mut self.band3.arena);
        self.band3.scratch = required;
        let Some(clues) = found else {
            return false;
        };
        let hit = cells27(clues).fold(0, |m, c| m | self.cell_sockets[c]);
        let size = clues.count_ones() as u8;
        if self.witnesses.len() < WITNESSES {
            self.witnesses.push((hit, size));
        } else {
            self.witnesses[self.witness_next] = (hit, size);
            self.witness_next = (self.witness_next + 1) % WITNESSES;
        }
        true
    }

    /// True when XY has a unique bands-1+2 filling under band 3's gangster;
    /// otherwise records the fresh UA12.
    fn check_bands12(&mut self, xy: Mask54) -> bool {
        self.stats.bands12_checks += 1;
        match other_solution(&self.grid, xy as u128 | BAND3_CELLS) {
            None => {
                self.stats.valid_xy += 1;
                true
            }
            Some(other) => {
                let diff = self.grid.difference(&other);
                let fresh = super::harvest::minimal_ua(&self.grid, diff) as u64 & BANDS12_FULL;
                debug_assert!(fresh != 0 && fresh & xy == 0);
                self.stats.fresh_ua12 += 1;
                self.add_ua12(fresh);
                self.must.extra.push(fresh);
                false
            }
        }
    }

    /// Inserts a fresh UA12 in size order, unless a known one is inside it.
    fn add_ua12(&mut self, ua: Mask54) {
        let size = ua.count_ones();
        let at = self.ua12.partition_point(|u| u.count_ones() <= size);
        if self.ua12[..at].iter().any(|&u| u & !ua == 0) {
            return;
        }
        self.ua12.insert(at, ua);
        // It joins the current X slice's lists.
        let Some(v) = self.slice_cut(ua) else {
            return;
        };
        if v == 0 {
            self.slice_dead = true;
        } else if v & BAND1 == 0 {
            self.uas_b2.push(v);
        } else {
            self.uas_x.push(v);
            self.must.reserve(self.uas_x.len());
        }
    }
}

/// Band-3 clue sets remembered as witnesses of feasibility.
const WITNESSES: usize = 32;

/// The sets XY must hit in one step, filed by where they can be hit.
#[derive(Default)]
struct StepSets {
    /// Sets with cells in both bands, in `kbuf[..nk]`: the first `limit`
    /// get a vector bit.
    kbuf: Vec<Mask54>,
    nk: usize,
    limit: usize,
    /// Such sets beyond the vector limit (and fresh UA12 found during the
    /// step), checked on survivors.
    extra: Vec<Mask54>,
    /// Sets left with band-1 cells only (`xbuf[..nx]`), band-2 cells only
    /// (`ymust`): filters of the X (Y) list.
    xbuf: Vec<Mask27>,
    nx: usize,
    ymust: Vec<Mask27>,
}

impl StepSets {
    /// Makes room for filing `n` sets.
    fn reserve(&mut self, n: usize) {
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
    fn file(&mut self, uas: &[Mask54], b: Mask54, live: Mask54, limit: usize) {
        let (nk, nx) = crate::bits::file_sets(uas, b, live, &mut self.kbuf, &mut self.xbuf);
        (self.nk, self.nx, self.limit) = (nk, nx, limit);
        self.extra.clear();
        if nk > limit {
            self.extra.extend_from_slice(&self.kbuf[limit..nk]);
        }
    }

    fn kept(&self) -> &[Mask54] {
        &self.kbuf[..self.nk.min(self.limit)]
    }

    fn xmust(&self) -> &[Mask27] {
        &self.xbuf[..self.nx]
    }
}

/// A lower bound on the clues band 3 needs to hit a family of sets: the
/// exact count for the sets that lie inside one mini-row (three cells of a
/// row and a box), the others left out. Mini-rows are disjoint, so their
/// needs add up; the need of one mini-row comes from [`MIN_HIT`].
#[derive(Default)]
pub(super) struct MiniRowBound {
    /// Seven bits per mini-row r (bits 7r..7r + 7): bit s - 1 set when
    /// the 3-bit cell subset s occurs.
    family: u64,
}

impl MiniRowBound {
    /// The family bit of `t` if it lies inside one mini-row, else 0.
    #[inline]
    pub(super) fn bit(t: Mask27) -> u64 {
        crate::bits::mini_row_bit(t)
    }

    /// Counts `t` if it lies inside one mini-row (empty sets are ignored).
    #[cfg(test)]
    pub(super) fn add(&mut self, t: Mask27) {
        self.family |= Self::bit(t);
    }

    /// The cells of the mini-rows that hold a counted set.
    #[inline]
    pub(super) fn cells(&self) -> Mask27 {
        let mut cells = 0;
        for r in 0..9 {
            let used = (self.family >> (7 * r)) & 0x7f != 0;
            cells |= if used { 0b111 << (3 * r) } else { 0 };
        }
        cells
    }

    #[inline]
    pub(super) fn clues(&self) -> usize {
        (0..9)
            .map(|r| MIN_HIT[(self.family >> (7 * r)) as usize & 0x7f] as usize)
            .sum()
    }
}

/// The top bits of the groups of a word that hold a bit of `bits`: a
/// group is a run of bits, `top` holds the top bit of each group and `low`
/// the others. Adding a group's low bits to its bits of `bits` carries into
/// its top bit exactly when one of those is set, and never past it.
#[inline]
fn groups_hit(bits: u64, top: u64, low: u64) -> u64 {
    (((bits & low) + low) | bits) & top
}

/// A mask with the low `n` bits set, over `W` words.
fn all_bits<const W: usize>(n: usize) -> [u64; W] {
    std::array::from_fn(|w| low_bits(n, w))
}

/// Word `w` of a mask with the low `n` bits set.
#[inline]
pub(super) fn low_bits(n: usize, w: usize) -> u64 {
    match n.saturating_sub(64 * w) {
        0 => 0,
        k if k >= 64 => !0,
        k => (1 << k) - 1,
    }
}

/// The OR of the rows of `table` (one per cell) over the cells of `cells`.
#[inline]
fn hit_bits(table: &[[u64; MAX_GUA_WORDS]], cells: Mask54) -> [u64; MAX_GUA_WORDS] {
    let mut out = [0u64; MAX_GUA_WORDS];
    let mut cells = cells;
    while cells != 0 {
        let row = &table[cells.trailing_zeros() as usize];
        for w in 0..MAX_GUA_WORDS {
            out[w] |= row[w];
        }
        cells &= cells - 1;
    }
    out
}

/// Builds the `W`-word step vectors of `sets` (at most 64 `W` of them;
/// bits = sets, a cell's vector has bit i set when the cell misses set i)
/// for every X and Y; only the cells of `used` (every cell of the X and Y)
/// get their rows right.
fn build_vectors<const W: usize>(
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
fn cell_bits(rest: &[Mask27], out: &mut Vec<u64>) {
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
fn select_hitting(bits: &[u64], n: usize, must: &[Mask27], out: &mut Vec<u32>) {
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

/// True when more than `z` of the open sockets' T's are pairwise disjoint
/// (greedily): then no `z` cells hit them all.
#[inline]
fn disjoint_sets_exceed(socket_t: &[Mask27], open: Sockets, z: usize) -> bool {
    if (open.count_ones() as usize) <= z {
        return false;
    }
    let (mut union, mut disjoint, mut sockets) = (0u32, 0usize, open);
    while sockets != 0 {
        let t = socket_t[sockets.trailing_zeros() as usize];
        sockets &= sockets - 1;
        if t & union == 0 {
            union |= t;
            disjoint += 1;
            if disjoint > z {
                return true;
            }
        }
    }
    false
}

/// Whether some set of at most `left` more cells, added to `clues` and
/// avoiding `excluded`, hits every set of `required` (`arena` is scratch
/// space).
///
/// Branches on the unhit set with the fewest cells left, and gives up as
/// soon as a lower bound on the clues still needed exceeds `left`: the
/// larger of the number of pairwise disjoint unhit sets (greedy) and the
/// exact need of the unhit sets that lie inside one mini-row each (the
/// mini-rows are disjoint, so their needs add up). When either bound
/// equals `left`, the clues must all lie in the cells it counts (the
/// mini-rows, or the disjoint sets), and every set is cut to them.
pub(super) fn can_hit(
    required: &[Mask27],
    clues: Mask27,
    excluded: Mask27,
    left: usize,
    arena: &mut Vec<Mask27>,
) -> bool {
    hitting_set(required, clues, excluded, left, arena).is_some()
}

/// [`can_hit`] with the set found: `clues` and at most `left` more cells
/// that hit every set of `required`.
pub(super) fn hitting_set(
    required: &[Mask27],
    clues: Mask27,
    excluded: Mask27,
    left: usize,
    arena: &mut Vec<Mask27>,
) -> Option<Mask27> {
    // The unhit sets, cut to the cells still allowed; each node of the
    // search writes its children's (shorter) lists after its own.
    // (Only grown: every node writes a list before reading it.)
    let room = (required.len() + crate::bits::CUT_SLACK) * (left + 1);
    if arena.len() < room {
        arena.resize(room, 0);
    }
    let mut len = 0;
    for &t in required {
        if t & clues == 0 {
            let avail = t & !excluded;
            if avail == 0 {
                return None;
            }
            arena[len] = avail;
            len += 1;
        }
    }
    hit_node(arena, len, clues, left)
}

/// One node of [`hitting_set`]: `arena[..len]` holds the unhit sets (cut to
/// the cells allowed, none empty), the rest is room for the children.
fn hit_node(arena: &mut [Mask27], len: usize, clues: Mask27, left: usize) -> Option<Mask27> {
    let (list, rest) = arena.split_at_mut(len);
    if list.is_empty() {
        return Some(clues);
    }
    if left <= 1 {
        // One cell left (or none): it must lie in every unhit set.
        let common = list.iter().fold(!0, |m, &t| m & t);
        return (left == 1 && common != 0).then(|| clues | (common & common.wrapping_neg()));
    }
    let scan = crate::bits::node_scan(list, left)?;
    let (mut best, union, disjoint) = (scan.best, scan.union, scan.disjoint);
    let bound = MiniRowBound {
        family: scan.family,
    };
    let need = bound.clues();
    if need > left {
        return None;
    }
    // Critical cuts: when the mini-rows that need clues take them all, only
    // their cells can be clues; when the disjoint sets take them all (one
    // each), only their cells can be. A set left without such cells is dead.
    let mut field = if need == left { bound.cells() } else { !0 };
    if disjoint == left {
        field &= union;
    }
    if field != !0 {
        best = crate::bits::cut_scan(list, field)?;
    }
    let mut excluded = 0;
    let mut branch = best;
    while branch != 0 {
        let cell = branch & branch.wrapping_neg();
        branch &= branch - 1;
        if left == 2 {
            // One cell left after this one: it must lie in every set this
            // cell misses (no list for the child).
            let (mut common, mut unhit, mut empty) = (!0, false, false);
            for &t in list.iter() {
                let missed = t & cell == 0;
                let avail = t & !excluded;
                common &= if missed { avail } else { !0 };
                unhit |= missed;
                empty |= missed & (avail == 0);
            }
            if empty {
                return None;
            }
            if !unhit {
                return Some(clues | cell);
            }
            if common != 0 {
                return Some(clues | cell | (common & common.wrapping_neg()));
            }
            excluded |= cell;
            continue;
        }
        // None: a set unhit here and in every later branch.
        let n = crate::bits::unhit_cut(list, cell, excluded, rest)?;
        if let Some(found) = hit_node(rest, n, clues | cell, left - 1) {
            return Some(found);
        }
        excluded |= cell;
    }
    None
}

/// For a family of non-empty subsets of 3 cells (bit s - 1 set when subset
/// s, a 3-bit mask, is in it): the fewest cells that hit them all.
const MIN_HIT: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut family = 0;
    while family < 128 {
        let mut best = 3u8;
        let mut cells = 0;
        while cells < 8 {
            let mut hits_all = true;
            let mut s = 1;
            while s < 8 {
                if family & (1 << (s - 1)) != 0 && s & cells == 0 {
                    hits_all = false;
                }
                s += 1;
            }
            let n = (cells & 1) + (cells >> 1 & 1) + (cells >> 2 & 1);
            if hits_all && (n as u8) < best {
                best = n as u8;
            }
            cells += 1;
        }
        t[family] = best;
        family += 1;
    }
    t
};

#[cfg(test)]
mod can_hit_tests {
    use super::*;

    /// Every set of at most `k` cells of `allowed`, by brute force.
    fn brute(required: &[Mask27], clues: Mask27, allowed: Mask27, k: usize) -> bool {
        fn go(required: &[Mask27], chosen: Mask27, allowed: Mask27, k: usize) -> bool {
            if required.iter().all(|&t| t & chosen != 0) {
                return true;
            }
            if k == 0 {
                return false;
            }
            let mut cells = allowed;
            while cells != 0 {
                let cell = cells & cells.wrapping_neg();
                cells &= cells - 1;
                // Cells in increasing order: each set tried once.
                if go(required, chosen | cell, cells, k - 1) {
                    return true;
                }
            }
            false
        }
        go(required, clues, allowed, k)
    }

    #[test]
    fn can_hit_agrees_with_brute_force() {
        let mut rng = fastrand::Rng::with_seed(5);
        let (mut yes, mut no, mut critical, mut packed) = (0, 0, 0, 0);
        for _ in 0..3000 {
            let mut required = Vec::new();
            for _ in 0..rng.usize(1..14) {
                let t = if rng.bool() {
                    // Inside one mini-row: 2 or 3 of its cells.
                    let (row, stack) = (rng.u32(0..3), rng.u32(0..3));
                    let local = [0b011, 0b101, 0b110, 0b111][rng.usize(0..4)];
                    local << (9 * row + 3 * stack)
                } else {
                    (0..rng.u32(2..7)).fold(0, |m, _| m | 1 << rng.u32(0..27))
                };
                required.push(t);
            }
            let clues = if rng.u8(..) < 40 {
                1 << rng.u32(0..27)
            } else {
                0
            };
            let excluded = (0..rng.u32(0..4)).fold(0, |m, _| m | 1 << rng.u32(0..27)) & !clues;
            let left = rng.usize(0..5);
            let expected = brute(
                &required,
                clues,
                crate::bits::BAND_FULL & !excluded & !clues,
                left,
            );
            assert_eq!(
                can_hit(&required, clues, excluded, left, &mut Vec::new()),
                expected,
                "{required:x?} clues {clues:#x} excluded {excluded:#x} left {left}"
            );
            if let Some(set) = hitting_set(&required, clues, excluded, left, &mut Vec::new()) {
                assert!(required.iter().all(|&t| t & set != 0));
                assert_eq!(set & clues, clues);
                assert_eq!(set & excluded, 0);
                assert!((set & !clues).count_ones() as usize <= left);
            }
            if expected {
                yes += 1
            } else {
                no += 1
            }
            // Cases where the mini-rows need every clue left, or the
            // disjoint sets take them all (the critical cuts of
            // `hit_node`), must come up.
            let mut bound = MiniRowBound::default();
            let (mut union, mut disjoint) = (0, 0);
            for &t in required.iter().filter(|&&t| t & clues == 0) {
                bound.add(t & !excluded);
                if t & !excluded & union == 0 {
                    union |= t & !excluded;
                    disjoint += 1;
                }
            }
            critical += (left >= 2 && bound.clues() == left) as usize;
            packed += (left >= 2 && disjoint == left) as usize;
        }
        assert!(yes > 300 && no > 300, "{yes} feasible, {no} not");
        assert!(critical > 100, "only {critical} critical cases");
        assert!(
            packed > 100,
            "only {packed} cases with as many disjoint sets as clues"
        );
    }

    #[test]
    fn mini_row_bound_is_exact_on_mini_row_sets() {
        let mut rng = fastrand::Rng::with_seed(13);
        for _ in 0..2000 {
            let sets: Vec<Mask27> = (0..rng.usize(0..8))
                .map(|_| (0..rng.u32(1..5)).fold(0, |m, _| m | 1 << rng.u32(0..27)))
                .collect();
            let mut bound = MiniRowBound::default();
            let (mut inside, mut rows) = (Vec::new(), 0);
            for &t in &sets {
                bound.add(t);
                // Inside one mini-row: every cell has the same c / 3.
                let r = t.trailing_zeros() / 3;
                let is_inside = cells27(t).all(|c| c as u32 / 3 == r);
                assert_eq!(MiniRowBound::bit(t) != 0, is_inside, "{t:#x}");
                if is_inside {
                    inside.push(t);
                    rows |= 0b111 << (3 * r);
                }
            }
            assert_eq!(bound.cells(), rows);
            let need = bound.clues();
            assert!(brute(&inside, 0, crate::bits::BAND_FULL, need));
            assert!(need == 0 || !brute(&inside, 0, crate::bits::BAND_FULL, need - 1));
        }
    }

    #[test]
    fn groups_hit_marks_exactly_the_groups_with_a_bit() {
        let mut rng = fastrand::Rng::with_seed(11);
        for _ in 0..2000 {
            // Random runs over the low `used` bits of a word.
            let used = rng.usize(1..=64);
            let (mut top, mut start, mut groups) = (0u64, 0, Vec::new());
            while start < used {
                let end = (start + rng.usize(1..=9)).min(used);
                top |= 1 << (end - 1);
                groups.push(start..end);
                start = end;
            }
            let low = low_bits(used, 0) & !top;
            let bits = rng.u64(..) & rng.u64(..) & rng.u64(..) & low_bits(used, 0);
            let expected = groups
                .iter()
                .filter(|g| (g.start..g.end).any(|b| bits >> b & 1 != 0))
                .fold(0, |m, g| m | 1 << (g.end - 1));
            assert_eq!(groups_hit(bits, top, low), expected, "{bits:x} {top:x}");
        }
    }

    #[test]
    fn select_hitting_keeps_exactly_the_sets_that_hit_everything() {
        let mut rng = fastrand::Rng::with_seed(8);
        let mut out = Vec::new();
        for _ in 0..500 {
            let set =
                |rng: &mut fastrand::Rng, k: u32| (0..k).fold(0, |m, _| m | 1 << rng.u32(0..27));
            let rest: Vec<Mask27> = (0..rng.usize(0..200)).map(|_| set(&mut rng, 6)).collect();
            let must: Vec<Mask27> = (0..rng.usize(0..6)).map(|_| set(&mut rng, 5)).collect();
            let mut bits = vec![7]; // cell_bits appends
            cell_bits(&rest, &mut bits);
            select_hitting(&bits[1..], rest.len(), &must, &mut out);
            let expected: Vec<u32> = (0..rest.len() as u32)
                .filter(|&i| must.iter().all(|&m| m & rest[i as usize] != 0))
                .collect();
            assert_eq!(out, expected, "rest {rest:x?} must {must:x?}");
        }
    }

    #[test]
    fn min_hit_table_by_hand() {
        assert_eq!(MIN_HIT[0], 0);
        // {a, b} alone: one cell.
        assert_eq!(MIN_HIT[1 << (0b011 - 1)], 1);
        // The three pairs of a mini-row: two cells.
        assert_eq!(MIN_HIT[(1 << 2) | (1 << 4) | (1 << 5)], 2);
        // Three single cells: three.
        assert_eq!(MIN_HIT[(1 << 0) | (1 << 1) | (1 << 3)], 3);
        // {a} and {b, c}: two.
        assert_eq!(MIN_HIT[(1 << 0) | (1 << 5)], 2);
    }
}
