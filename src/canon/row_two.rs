//! The best second rows: for every way π that a row can sit under another
//! row of its band, the smallest second row over all column orders σ and
//! every σ that reaches it. Built once, on first use (a few tens of milliseconds).
//!
//! If row `a` is relabelled to `123456789` by σ, the second row (row `b`)
//! reads `pos(π(σ(j))) + 1` at column j, where `π(c)` is the column of row `a`
//! holding the digit that row `b` has at column `c`, and `pos` = σ⁻¹. π never
//! maps a column into its own stack (the two rows share a band), which leaves
//! 216 × (1 + 27 + 27 + 1) = 12,096 possible π.
//!
//! # The search for one π
//!
//! σ is filled position by position, left to right. When the column at
//! position j is not yet placed it branches over the columns allowed there;
//! then the target column π(σ(j)), if not yet placed, takes the smallest free
//! position (the next one of its stack's new stack, or the first of the
//! first unused new stack) — the only choice that makes the value at j
//! minimal, so it needs no branching. Positions inside a new stack are thus
//! always filled in increasing order. A branch stops as soon as its prefix
//! exceeds the best found so far; when it is smaller, the best prefix is
//! overwritten in place (everything after it forgotten), so all branches
//! compare against one array. Every σ giving the minimal row is a leaf
//! (each greedy step is forced for it), so the leaves that tie are all of
//! them.

use std::sync::OnceLock;

const FREE: u8 = 0xff;
/// Larger than any digit: "no best value yet".
const UNSET: u8 = 0x0f;
/// Hash slots (a power of two, about 2.7 × the number of π).
const SLOT_BITS: u32 = 15;

/// The columns placed so far: a partial σ.
#[derive(Clone, Copy)]
struct Columns {
    /// Old column → new position, or FREE.
    pos: [u8; 9],
    /// New position → old column, or FREE.
    at: [u8; 9],
    /// Old stack → new stack, or FREE.
    new_stack: [u8; 3],
    /// New stack → old stack, or FREE.
    old_stack: [u8; 3],
    /// Positions already given out in each new stack.
    filled: [u8; 3],
}

impl Columns {
    const EMPTY: Columns = Columns {
        pos: [FREE; 9],
        at: [FREE; 9],
        new_stack: [FREE; 3],
        old_stack: [FREE; 3],
        filled: [0; 3],
    };

    fn bind_stack(&mut self, old: usize, new: usize) {
        self.new_stack[old] = new as u8;
        self.old_stack[new] = old as u8;
    }

    /// Puts old column `col` at the next free position of its new stack.
    fn place(&mut self, col: usize) -> u8 {
        let k = self.new_stack[col / 3] as usize;
        let p = (3 * k) as u8 + self.filled[k];
        self.filled[k] += 1;
        self.pos[col] = p;
        self.at[p as usize] = col as u8;
        p
    }
}

/// The minimal second row for one π and all the σ reaching it.
struct BestOrders<'a> {
    pi: &'a [u8; 9],
    best: [u8; 9],
    orders: Vec<[u8; 9]>,
}

impl BestOrders<'_> {
    fn step(&mut self, cols: Columns, j: usize) {
        if j == 9 {
            self.orders.push(cols.at);
            return;
        }
        if cols.at[j] != FREE {
            self.score(cols, j);
            return;
        }
        let k = j / 3;
        if cols.old_stack[k] == FREE {
            for old in 0..3 {
                if cols.new_stack[old] == FREE {
                    let mut next = cols;
                    next.bind_stack(old, k);
                    self.step(next, j);
                }
            }
            return;
        }
        let old = cols.old_stack[k] as usize;
        for col in 3 * old..3 * old + 3 {
            if cols.pos[col] == FREE {
                let mut next = cols;
                next.place(col);
                self.score(next, j);
            }
        }
    }

    fn score(&mut self, mut cols: Columns, j: usize) {
        let target = self.pi[cols.at[j] as usize] as usize;
        let mut p = cols.pos[target];
        if p == FREE {
            let old = target / 3;
            if cols.new_stack[old] == FREE {
                let k = (0..3)
                    .find(|&k| cols.old_stack[k] == FREE)
                    .expect("a free stack");
                cols.bind_stack(old, k);
            }
            p = cols.place(target);
        }
        let value = p + 1;
        if value > self.best[j] {
            return;
        }
        if value < self.best[j] {
            self.best[j] = value;
            self.best[j + 1..].fill(UNSET);
            self.orders.clear();
        }
        self.step(cols, j + 1);
    }
}

/// Packs nine values below 16 into a `u64`, first one most significant, so
/// integer order is lexicographic order.
pub(crate) fn pack(values: impl IntoIterator<Item = u8>) -> u64 {
    values
        .into_iter()
        .fold(0u64, |acc, v| (acc << 4) | v as u64)
}

/// For every π: the minimal second row (packed) and the σ reaching it.
pub(crate) struct RowTwoTable {
    /// Open addressing on the packed π: entry index + 1, 0 = empty.
    slots: Vec<u16>,
    keys: Vec<u64>,
    best: Vec<u64>,
    /// `orders[start[e]..start[e + 1]]` are the σ of entry e.
    start: Vec<u32>,
    orders: Vec<[u8; 9]>,
}

/// A row ordered relative to another of its band: the minimal second row
/// it can make, and the column orders σ (new position → old column) that
/// make it.
pub(crate) struct RowTwo<'a> {
    pub best: u64,
    pub orders: &'a [[u8; 9]],
}

#[inline]
fn slot_of(key: u64) -> usize {
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SLOT_BITS)) as usize
}

impl RowTwoTable {
    /// The table, built on first use (a few tens of milliseconds).
    pub(crate) fn get() -> &'static RowTwoTable {
        static TABLE: OnceLock<RowTwoTable> = OnceLock::new();
        TABLE.get_or_init(RowTwoTable::build)
    }

    fn build() -> RowTwoTable {
        let mut table = RowTwoTable {
            slots: vec![0; 1 << SLOT_BITS],
            keys: Vec::new(),
            best: Vec::new(),
            start: vec![0],
            orders: Vec::new(),
        };
        let mut pi = [0u8; 9];
        table.add_all(&mut pi, 0, 0);
        debug_assert_eq!(table.keys.len(), 12_096);
        table
    }

    /// Enumerates every π (no column mapped into its own stack).
    fn add_all(&mut self, pi: &mut [u8; 9], col: usize, used: u16) {
        if col == 9 {
            self.add(pi);
            return;
        }
        for target in 0..9u8 {
            if used & (1 << target) == 0 && target / 3 != col as u8 / 3 {
                pi[col] = target;
                self.add_all(pi, col + 1, used | 1 << target);
            }
        }
    }

    fn add(&mut self, pi: &[u8; 9]) {
        let mut search = BestOrders {
            pi,
            best: [UNSET; 9],
            orders: Vec::new(),
        };
        search.step(Columns::EMPTY, 0);
        let key = pack(*pi);
        let mut slot = slot_of(key);
        while self.slots[slot] != 0 {
            slot = (slot + 1) & ((1 << SLOT_BITS) - 1);
        }
        self.keys.push(key);
        self.slots[slot] = self.keys.len() as u16;
        self.best.push(pack(search.best));
        self.orders.extend_from_slice(&search.orders);
        self.start.push(self.orders.len() as u32);
    }

    /// The entry of π (which must be a valid π).
    #[inline]
    pub(crate) fn lookup(&self, pi: &[u8; 9]) -> RowTwo<'_> {
        let key = pack(*pi);
        let mut slot = slot_of(key);
        loop {
            let entry = self.slots[slot] as usize;
            debug_assert!(entry != 0, "not a valid π");
            if self.keys[entry - 1] == key {
                let e = entry - 1;
                return RowTwo {
                    best: self.best[e],
                    orders: &self.orders[self.start[e] as usize..self.start[e + 1] as usize],
                };
            }
            slot = (slot + 1) & ((1 << SLOT_BITS) - 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The minimal second row and its σ, by trying all 1,296 σ.
    fn brute(pi: &[u8; 9]) -> (u64, Vec<[u8; 9]>) {
        let mut best = u64::MAX;
        let mut orders = Vec::new();
        // A column order is a line order (stack order × order inside each
        // stack).
        for at in crate::grid::line_orders() {
            let mut pos = [0u8; 9];
            for (j, &c) in at.iter().enumerate() {
                pos[c as usize] = j as u8;
            }
            let row = pack(at.iter().map(|&c| pos[pi[c as usize] as usize] + 1));
            if row < best {
                best = row;
                orders.clear();
            }
            if row == best {
                orders.push(at);
            }
        }
        orders.sort_unstable();
        (best, orders)
    }

    #[test]
    fn table_matches_brute_force() {
        let table = RowTwoTable::get();
        assert_eq!(table.keys.len(), 12_096);
        for e in (0..table.keys.len()).step_by(97).chain([0, 12_095]) {
            let key = table.keys[e];
            let mut pi = [0u8; 9];
            for (c, p) in pi.iter_mut().enumerate() {
                *p = ((key >> (4 * (8 - c))) & 0xf) as u8;
            }
            let found = table.lookup(&pi);
            let mut orders = found.orders.to_vec();
            orders.sort_unstable();
            assert_eq!((found.best, orders), brute(&pi), "{pi:?}");
        }
    }
}
