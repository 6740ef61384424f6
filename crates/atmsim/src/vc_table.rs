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
///
/// 16 bytes beside an entry of 8: a table of more VCs is one thin pointer to its entries and
/// to a count its owner keeps of them ([`VcTable::count`]: the buffer's VCs with cells
/// queued), so that a port is 96 bytes (issue 14: a fat pointer to the entries and the count
/// in the buffer took 12 bytes more of every port, most of them ports of one VC, where the
/// count is read off the one entry).
#[derive(Clone, Debug)]
pub struct VcTable<T> {
    /// The entry of a table of one VC (unused in a table of more).
    first: T,
    /// The entries of a table of more than one VC (None in a table of one).
    many: Option<Box<Many<T>>>,
}

/// The entries of a table of more than one VC, and the count its owner keeps of them.
#[derive(Clone, Debug)]
struct Many<T> {
    count: u32,
    entries: Box<[T]>,
}

impl<T: Clone + Default> VcTable<T> {
    /// A table of `vcs` default entries (one, inline, when `vcs` is 0: a port no VC crosses
    /// never looks it up), its count 0.
    pub fn new(vcs: usize) -> Self {
        let many = (vcs > 1).then(|| {
            Box::new(Many {
                count: 0,
                entries: vec![T::default(); vcs].into_boxed_slice(),
            })
        });
        VcTable {
            first: T::default(),
            many,
        }
    }
}

impl<T> VcTable<T> {
    /// True when the table holds one VC: its slot is 0.
    #[inline(always)]
    pub fn one(&self) -> bool {
        self.many.is_none()
    }

    /// Entries held (at least one).
    #[inline]
    pub fn len(&self) -> usize {
        self.many.as_ref().map_or(1, |m| m.entries.len())
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
        match &self.many {
            None => {
                debug_assert_eq!(slot, 0, "the one VC's slot");
                &self.first
            }
            Some(m) => &m.entries[slot],
        }
    }

    /// The entry of slot `slot`, to change.
    #[inline(always)]
    pub fn get_mut(&mut self, slot: usize) -> &mut T {
        self.entry_and_count(slot).0
    }

    /// The entry of slot `slot` and, in a table of more than one VC, the count its owner
    /// keeps ([`VcTable::count`]), both to change.
    #[inline(always)]
    pub fn entry_and_count(&mut self, slot: usize) -> (&mut T, Option<&mut u32>) {
        match &mut self.many {
            None => {
                debug_assert_eq!(slot, 0, "the one VC's slot");
                (&mut self.first, None)
            }
            Some(m) => (&mut m.entries[slot], Some(&mut m.count)),
        }
    }

    /// The count the owner keeps of a table of more than one VC (None in a table of one,
    /// whose owner reads what it counts off the one entry).
    #[inline(always)]
    pub fn count(&self) -> Option<u32> {
        self.many.as_ref().map(|m| m.count)
    }

    /// The entry of a table of one VC, to change.
    #[inline(always)]
    pub fn only_mut(&mut self) -> &mut T {
        debug_assert!(self.one(), "a table of one VC");
        &mut self.first
    }

    /// Every entry, in slot order.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match &mut self.many {
            None => std::slice::from_mut(&mut self.first),
            Some(m) => &mut m.entries,
        }
    }

    /// Bytes on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.many.as_ref().map_or(0, |m| {
            std::mem::size_of::<Many<T>>() + std::mem::size_of_val(&*m.entries)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::VcTable;

    #[test]
    fn slots_reach_their_own_entries_and_one_vc_allocates_nothing() {
        // A table is 8 bytes beside its inline entry: one thin pointer.
        assert_eq!(std::mem::size_of::<VcTable<u64>>(), 16);
        let mut t: VcTable<u32> = VcTable::new(4);
        let header = std::mem::size_of::<super::Many<u32>>();
        assert_eq!((t.len(), t.one(), t.heap_bytes()), (4, false, header + 16));
        assert_eq!(t.count(), Some(0));
        *t.entry_and_count(2).1.unwrap() += 3;
        assert_eq!(t.count(), Some(3));
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
            assert!(one.count().is_none() && one.entry_and_count(0).1.is_none());
        }
    }
}
