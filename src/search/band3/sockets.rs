//! The sockets of a band 3 ([`BandSockets`]): the distinct band-3 parts
//! T of its GUAs with a socket number (the mini-row sockets 0 to 35 first,
//! numbered by class; then fresh T's up to 64), which T's lie inside
//! which, and the bounds on the clues band 3 needs to hit the T's of a set
//! of open sockets (the mini-row bound, pairwise disjoint T's).

use crate::bits::sockets::mini_row_clues;
use crate::bits::{Mask27, cells};
use crate::search::hitting::{MiniRowBound, Sockets, disjoint_sets_exceed};
use crate::search::signatures::{CLASS_SOCKETS, CLASS_WORDS, CLASSES, ClassMask, socket_classes};

/// No socket of a class in a band 3.
const NO_SOCKET: u8 = u8::MAX;

/// The socket geometry of one band 3 (it grows as fresh GUAs bring new
/// T's).
pub(super) struct BandSockets {
    /// The mini-row sockets (0 to 35): class and T of each.
    pub(super) class_sockets: [(u8, Mask27); CLASS_SOCKETS],
    /// The socket of each class (`NO_SOCKET`: none in this band 3).
    socket_of_class: [u8; CLASSES],
    /// The classes of the mini-row sockets, and their socket bits, for
    /// [`crate::bits::move_bits`] (socket numbers follow the classes).
    class_from: ClassMask,
    class_to: ClassMask,
    /// The band-3 part of each socket.
    pub(super) socket_t: Vec<Mask27>,
    /// For each socket, the other sockets whose T lies inside its T.
    socket_dom: Vec<Sockets>,
    /// For each UA inside band 3 (kept in the GUA index, in the same
    /// order), the sockets whose T lies inside it: with one of them open the
    /// UA is hit anyway.
    pub(super) band3_holds: Vec<Sockets>,
    /// Per stack, for the mini-row bound ([`Self::mini_row_clues`]): the
    /// sockets of the stack's pairs of columns 2 and 3, in the row order
    /// of its other mini-row sockets (3 bits for each of the 8 values of
    /// the 3 sockets' bits).
    pairs12_rows: [u32; 3],
    /// Per band-3 cell: the sockets whose T holds it.
    pub(super) cell_sockets: [Sockets; 27],
}

impl BandSockets {
    /// No socket yet.
    pub(super) fn new() -> Self {
        BandSockets {
            class_sockets: [(0, 0); CLASS_SOCKETS],
            socket_of_class: [NO_SOCKET; CLASSES],
            class_from: [0; CLASS_WORDS],
            class_to: [0; CLASS_WORDS],
            socket_t: Vec::new(),
            socket_dom: Vec::new(),
            band3_holds: Vec::new(),
            pairs12_rows: [0; 3],
            cell_sockets: [0; 27],
        }
    }

    /// The 36 mini-row sockets of `band3` (the digits of band 3), by
    /// class; `part_id` gives each T its id in the GUA index, which must be
    /// its socket number. `band3_uas` (none yet) as for [`Self::add`].
    pub(super) fn add_mini_rows(
        &mut self,
        band3: &[u8; 27],
        mut part_id: impl FnMut(Mask27) -> u32,
    ) {
        self.class_sockets = socket_classes(band3);
        for (k, (class, t)) in socket_classes(band3).into_iter().enumerate() {
            let id = part_id(t) as usize;
            debug_assert_eq!(id, k);
            self.add(t, std::iter::empty());
            let c = class as usize;
            self.socket_of_class[c] = k as u8;
            self.class_from[c / 64] |= 1 << (c % 64);
            self.class_to[c / 64] |= 1 << k;
        }
        self.pairs12_rows = pairs12_rows(&self.socket_t);
    }

    /// A new socket with band-3 part `t` (the next socket number), given
    /// the UAs inside band 3 so far (in the order of `band3_holds`).
    pub(super) fn add(&mut self, t: Mask27, band3_uas: impl Iterator<Item = Mask27>) {
        let socket = self.socket_t.len();
        let mut dom = 0;
        for (r, &u) in self.socket_t.iter().enumerate() {
            if u & !t == 0 {
                dom |= 1 << r;
            } else if t & !u == 0 {
                self.socket_dom[r] |= 1 << socket;
            }
        }
        // A T inside one mini-row is a mini-row socket's: the mini-row
        // bound reads only those.
        debug_assert!(socket < CLASS_SOCKETS || MiniRowBound::bit(t) == 0);
        self.socket_t.push(t);
        self.socket_dom.push(dom);
        for c in cells(t) {
            self.cell_sockets[c] |= 1 << socket;
        }
        for (holds, u) in self.band3_holds.iter_mut().zip(band3_uas) {
            if t & !u == 0 {
                *holds |= 1 << socket;
            }
        }
    }

    /// A new UA `t` inside band 3: the sockets whose T lies inside it.
    pub(super) fn add_band3_ua(&mut self, t: Mask27) {
        let holds = (0..self.socket_t.len())
            .filter(|&k| self.socket_t[k] & !t == 0)
            .fold(0, |m, k| m | 1 << k);
        self.band3_holds.push(holds);
    }

    /// This band 3's socket of `class`, if it has one.
    pub(super) fn class_socket(&self, class: u8) -> Option<u32> {
        match self.socket_of_class[class as usize] {
            NO_SOCKET => None,
            k => Some(k as u32),
        }
    }

    /// The mini-row sockets of the classes `classes`.
    #[inline]
    pub(super) fn class_sockets_of(&self, classes: &ClassMask) -> Sockets {
        crate::bits::move_bits(classes, &self.class_from, &self.class_to)
    }

    /// The [`MiniRowBound`] of the T's of the sockets `open`: the clues
    /// needed in the mini-rows with an open socket, one, or two where all
    /// three pairs are open. Only the mini-row sockets (0 to 35, numbered
    /// by class) lie inside a mini-row; in each stack, the groups of three
    /// sockets (pairs of columns 1+2, 1+3, 2+3, then whole mini-rows) come
    /// in the row order of the first column's digits, but the pairs of
    /// columns 2+3 in that of the second column's (`pairs12_rows` moves
    /// them into the first's).
    #[inline]
    pub(super) fn mini_row_clues(&self, open: Sockets) -> usize {
        mini_row_clues(&self.pairs12_rows, open)
    }

    /// What the mini-row bound of a survivor needs from this band 3, for
    /// all bands 3 at once in part 1 (class mode): its classes (their bits
    /// packed in order are its mini-row sockets' bits,
    /// [`crate::bits::extract_each`]) and its `pairs12_rows` (for
    /// [`mini_row_clues`]).
    pub(super) fn bound_view(&self) -> (ClassMask, [u32; 3]) {
        (self.class_from, self.pairs12_rows)
    }

    /// Whether the bounds allow `z` clues to hit the T of every open
    /// socket, as [`Self::bounds_allow`] tells, but quicker: with only
    /// mini-row sockets open, pairwise disjoint T's lie in distinct
    /// mini-rows (two T's of one mini-row meet), so the mini-row bound is
    /// at least their number and settles it alone.
    #[inline]
    pub(super) fn bounds_pass(&self, open: Sockets, z: usize) -> bool {
        if open >> CLASS_SOCKETS == 0 {
            self.mini_row_clues(open) <= z
        } else {
            self.bounds_allow(open, z).is_some()
        }
    }

    /// Whether the bounds allow `z` clues to hit the T of every open
    /// socket: the mini-row bound, then pairwise disjoint T's. If so, the
    /// open sockets whose T holds no other open socket's T (the others are
    /// hit with those); `None` when a bound exceeds `z`.
    #[inline]
    pub(super) fn bounds_allow(&self, open: Sockets, z: usize) -> Option<Sockets> {
        // The mini-row bound first: it settles most calls.
        if self.mini_row_clues(open) > z {
            return None;
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
        (!disjoint_sets_exceed(&self.socket_t, needed, z)).then_some(needed)
    }
}

/// The `pairs12_rows` of a band 3 whose sockets 0 to 35 have the T's
/// `socket_t` (see [`BandSockets::mini_row_clues`]).
///
/// # Panics
/// If the mini-row sockets do not come in the order that bound reads.
fn pairs12_rows(socket_t: &[Mask27]) -> [u32; 3] {
    // The row (0 to 2) of each socket of a group of three.
    let rows = |first: usize| -> [u32; 3] {
        std::array::from_fn(|k| socket_t[first + k].trailing_zeros() / 9)
    };
    std::array::from_fn(|stack| {
        let order = rows(9 * stack);
        assert!(
            rows(9 * stack + 3) == order && rows(27 + 3 * stack) == order,
            "the mini-row sockets of stack {stack} are not in one row order"
        );
        let from = rows(9 * stack + 6);
        // Where each of the three sockets of pairs 2+3 goes.
        let to = from.map(|r| order.iter().position(|&q| q == r).expect("a row") as u32);
        (0..8u32).fold(0, |packed, g| {
            let moved = (0..3)
                .filter(|&k| g >> k & 1 != 0)
                .fold(0, |m, k| m | 1 << to[k]);
            packed | moved << (3 * g)
        })
    })
}
