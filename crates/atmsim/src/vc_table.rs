//! A port's per-VC table with its first VC held inline.
//!
//! Most ports carry one VC (a host's port, a switch's port toward a host), and with one host
//! pair per VC a separate heap block per port was a cache miss on every cell at 10 000 VCs,
//! the largest single cost of admission (issue 14, docs/performance-journal.md). So the entry of a
//! table of one VC is inline: it allocates nothing, and a cell at its port needs no slot
//! lookup (its slot can only be 0). A table of more VCs has them all on the heap, in slot
//! order, so that a lookup tests the table's shape (the same answer at every cell of a port)
//! and not the slot. The buffer's table (`port`) and ERICA's (`allocator::erica`) are such
//! tables.

/// Per-VC entries: one inline, or more on the heap (see the module doc).
#[derive(Clone, Debug)]
pub struct VcTable<T> {
    /// The entry of a table of one VC (unused in a table of more).
    first: T,
    /// The entries of a table of more than one VC (empty in a table of one).
    many: Box<[T]>,
}

impl<T: Clone + Default> VcTable<T> {
    /// A table of `vcs` default entries (one, inline, when `vcs` is 0: a port no VC crosses
    /// never looks it up).
    pub fn new(vcs: usize) -> Self {
        let many = if vcs > 1 {
            vec![T::default(); vcs]
        } else {
            Vec::new()
        };
        VcTable {
            first: T::default(),
            many: many.into_boxed_slice(),
        }
    }
}

impl<T> VcTable<T> {
    /// True when the table holds one VC: its slot is 0.
    #[inline(always)]
    pub fn one(&self) -> bool {
        self.many.is_empty()
    }

    /// Entries held (at least one).
    #[inline]
    pub fn len(&self) -> usize {
        self.many.len().max(1)
    }

    /// Never empty (an entry is always held).
    #[inline]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The slot of a VC in this table: 0 in a table of one VC, without `lookup` (the shared
    /// slot table, which only ever gives 0 there: checked in debug builds).
    #[inline(always)]
    pub fn slot(&self, lookup: impl FnOnce() -> usize) -> usize {
        if self.one() {
            debug_assert_eq!(lookup(), 0, "a VC of this table");
            0
        } else {
            lookup()
        }
    }

    /// The entry of slot `slot`.
    #[inline(always)]
    pub fn get(&self, slot: usize) -> &T {
        if self.one() {
            debug_assert_eq!(slot, 0, "the one VC's slot");
            &self.first
        } else {
            &self.many[slot]
        }
    }

    /// The entry of slot `slot`, to change.
    #[inline(always)]
    pub fn get_mut(&mut self, slot: usize) -> &mut T {
        if self.one() {
            debug_assert_eq!(slot, 0, "the one VC's slot");
            &mut self.first
        } else {
            &mut self.many[slot]
        }
    }

    /// The entry of a table of one VC, to change.
    #[inline(always)]
    pub fn only_mut(&mut self) -> &mut T {
        debug_assert!(self.one(), "a table of one VC");
        &mut self.first
    }

    /// Every entry, in slot order.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        if self.one() {
            std::slice::from_mut(&mut self.first)
        } else {
            &mut self.many
        }
    }

    /// Bytes on the heap.
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.many)
    }
}

#[cfg(test)]
mod tests {
    use super::VcTable;

    #[test]
    fn slots_reach_their_own_entries_and_one_vc_allocates_nothing() {
        let mut t: VcTable<u32> = VcTable::new(4);
        assert_eq!((t.len(), t.one(), t.heap_bytes()), (4, false, 16));
        for s in 0..4 {
            *t.get_mut(s) = 10 + s as u32;
        }
        let got: Vec<u32> = (0..4).map(|s| *t.get(s)).collect();
        assert_eq!(got, [10, 11, 12, 13]);
        assert_eq!(t.as_mut_slice(), [10, 11, 12, 13]);
        for vcs in [0, 1] {
            let mut one: VcTable<u32> = VcTable::new(vcs);
            *one.only_mut() = 7;
            assert_eq!(one.as_mut_slice(), [7]);
            let seen = (one.len(), one.one(), one.heap_bytes(), *one.get(0));
            assert_eq!(seen, (1, true, 0, 7));
        }
    }
}
