//! A port's class queues, one FIFO per service class, with the first class's queue inline.
//!
//! A port serves its classes by strict priority (CBR, VBR, ABR, UBR), each from its own
//! FIFO. Most ports only ever carry one class (a host's port, a switch's port toward a
//! host, every port of a UBR-only or ABR-only network), so four rings inline in every
//! port were 72 bytes of empty ring headers per port, 4 ports per VC with one host pair
//! per VC (issue 14, memory per VC; docs/performance-journal.md). Here the queue of the first
//! class a port sees is inline and the other three are boxed together on the first cell
//! of a second class. Which class is inline changes no order: each class keeps its own
//! FIFO, and the buffer serves the lowest non-empty class. The rings are bounded
//! ([`BoundedFifo`]): one grows to the buffer's size at most, since no class can hold more
//! cells than the buffer (`PortBuffer::enqueue`).

use crate::cell::Cell;
use crate::port::CLASSES;
use atmsim_kernel::BoundedFifo;

/// No class has claimed the inline queue yet.
const NONE: u8 = u8::MAX;

/// The class queues of a port (see the module doc).
#[derive(Debug)]
pub(super) struct ClassQueues {
    /// The queue of class `main`.
    main: BoundedFifo<Cell>,
    /// The queues of the other classes (index = class; `main`'s stays empty), once a
    /// second class has arrived.
    others: Option<Box<[BoundedFifo<Cell>; CLASSES]>>,
    /// The class whose queue is inline (`NONE` before the first cell).
    main_class: u8,
}

impl ClassQueues {
    /// No queue allocated.
    pub(super) fn new() -> Self {
        ClassQueues {
            main: BoundedFifo::new(),
            others: None,
            main_class: NONE,
        }
    }

    /// The queue of `class` (`< CLASSES`), made on first use.
    #[inline(always)]
    pub(super) fn queue_mut(&mut self, class: usize) -> &mut BoundedFifo<Cell> {
        if class == self.main_class as usize {
            &mut self.main
        } else {
            self.other_mut(class)
        }
    }

    /// The queue of a class other than the inline one: the inline one if no class has
    /// claimed it yet, else the boxed one (the box made on first use).
    #[inline(never)]
    fn other_mut(&mut self, class: usize) -> &mut BoundedFifo<Cell> {
        debug_assert!(class < CLASSES);
        if self.main_class == NONE {
            self.main_class = class as u8;
            return &mut self.main;
        }
        &mut self
            .others
            .get_or_insert_with(|| Box::new(std::array::from_fn(|_| BoundedFifo::new())))[class]
    }

    /// Cells in the queue of `class`.
    #[inline]
    pub(super) fn len(&self, class: usize) -> usize {
        if class == self.main_class as usize {
            self.main.len()
        } else {
            self.others
                .as_ref()
                .map_or(0, |o| o.get(class).map_or(0, BoundedFifo::len))
        }
    }

    /// Cells the queues hold before they grow (all classes).
    pub(super) fn capacity(&self) -> usize {
        self.main.capacity()
            + self
                .others
                .as_ref()
                .map_or(0, |o| o.iter().map(BoundedFifo::capacity).sum())
    }

    /// Bytes held on the heap: the rings and the box of the other classes' queues.
    pub(super) fn heap_bytes(&self) -> usize {
        self.capacity() * std::mem::size_of::<Cell>()
            + self
                .others
                .as_ref()
                .map_or(0, |_| std::mem::size_of::<[BoundedFifo<Cell>; CLASSES]>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn one_class_allocates_no_box_and_many_classes_keep_their_own_order() {
        // Scripted pushes and pops over the classes, checked against four VecDeques: the
        // first class seen is inline, the box appears with the second class only.
        let mut q = ClassQueues::new();
        let mut model: [VecDeque<u32>; CLASSES] = Default::default();
        assert_eq!((q.len(3), q.capacity(), q.heap_bytes()), (0, 0, 0));
        for tag in 0..5 {
            q.queue_mut(3).push_back(Cell::data(0, tag, false));
            model[3].push_back(tag);
        }
        assert!(q.others.is_none(), "one class needs no box");
        assert_eq!(q.main_class, 3);
        let script: [(usize, bool); 12] = [
            (1, true),
            (3, false),
            (1, true),
            (0, true),
            (2, true),
            (1, false),
            (3, true),
            (0, false),
            (2, false),
            (3, false),
            (1, false),
            (1, true),
        ];
        for (k, (class, push)) in script.into_iter().enumerate() {
            let tag = 100 + k as u32;
            if push {
                q.queue_mut(class).push_back(Cell::data(0, tag, false));
                model[class].push_back(tag);
            } else {
                let got = q.queue_mut(class).pop_front().map(|c| c.tag);
                assert_eq!(got, model[class].pop_front(), "step {k}");
            }
            for (c, m) in model.iter().enumerate() {
                assert_eq!(q.len(c), m.len(), "class {c} after step {k}");
            }
        }
        assert!(q.others.is_some());
        assert!(q.heap_bytes() >= q.capacity() * std::mem::size_of::<Cell>());
    }
}
