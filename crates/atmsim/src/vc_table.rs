//! A port's per-VC table with its first VC held inline.
//!
//! Most ports carry one VC (a host's port, a switch's port toward a host), and with one host
//! pair per VC a separate heap block per port was a cache miss on every cell at 10 000 VCs,
//! the largest single cost of admission (issue 14, docs/performance.md). So the first VC's
//! entry is inline and the others are on the heap, in slot order; a table of one VC allocates
//! nothing, and a cell at its port needs no slot lookup: its slot can only be 0. The buffer's
//! table (`port`) and ERICA's (`allocator::erica`) are such tables.

/// Per-VC entries, slot 0 inline (see the module doc).
#[derive(Clone, Debug)]
pub struct VcTable<T> {
    first: T,
    rest: Box<[T]>,
}

impl<T: Clone + Default> VcTable<T> {
    /// A table of `vcs` default entries (one, inline, when `vcs` is 0: a port no VC crosses
    /// never looks it up).
    pub fn new(vcs: usize) -> Self {
        VcTable {
            first: T::default(),
            rest: vec![T::default(); vcs.saturating_sub(1)].into_boxed_slice(),
        }
    }
}

impl<T> VcTable<T> {
    /// True when the table holds one VC: its slot is 0.
    #[inline(always)]
    pub fn one(&self) -> bool {
        self.rest.is_empty()
    }

    /// Entries held (at least one).
    #[inline]
    pub fn len(&self) -> usize {
        1 + self.rest.len()
    }

    /// Never empty (an entry is always held).
    #[inline]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The entry of slot `slot`.
    #[inline(always)]
    pub fn get(&self, slot: usize) -> &T {
        match slot {
            0 => &self.first,
            _ => &self.rest[slot - 1],
        }
    }

    /// The entry of slot `slot`, to change.
    #[inline(always)]
    pub fn get_mut(&mut self, slot: usize) -> &mut T {
        match slot {
            0 => &mut self.first,
            _ => &mut self.rest[slot - 1],
        }
    }

    /// The first entry (slot 0), to change.
    #[inline(always)]
    pub fn first_mut(&mut self) -> &mut T {
        &mut self.first
    }

    /// Every entry, in slot order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        std::iter::once(&mut self.first).chain(self.rest.iter_mut())
    }

    /// Bytes on the heap.
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.rest)
    }
}

#[cfg(test)]
mod tests {
    use super::VcTable;

    #[test]
    fn slots_reach_their_own_entries_and_one_vc_allocates_nothing() {
        let mut t: VcTable<u32> = VcTable::new(4);
        assert_eq!((t.len(), t.one(), t.heap_bytes()), (4, false, 12));
        for s in 0..4 {
            *t.get_mut(s) = 10 + s as u32;
        }
        assert_eq!(
            (0..4).map(|s| *t.get(s)).collect::<Vec<_>>(),
            [10, 11, 12, 13]
        );
        assert_eq!(
            t.iter_mut().map(|v| *v).collect::<Vec<_>>(),
            [10, 11, 12, 13]
        );
        for vcs in [0, 1] {
            let mut one: VcTable<u32> = VcTable::new(vcs);
            *one.first_mut() = 7;
            assert_eq!(
                (one.len(), one.one(), one.heap_bytes(), *one.get(0)),
                (1, true, 0, 7)
            );
        }
    }
}
