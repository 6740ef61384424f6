//! The propagation part of a link direction: a FIFO delay line.
//!
//! Cells leave a port one after another, and all take the same propagation delay, so they
//! arrive in the order they left. The line therefore needs only one pending event: the
//! arrival of its head cell (docs/adr/0001-workspace-layout.md).

use crate::cell::Cell;
use atmsim_kernel::{Fifo, Time};

/// A FIFO delay line holding cells with their arrival times.
#[derive(Debug, Default)]
pub struct DelayLine {
    cells: Fifo<(Time, Cell)>,
}

impl DelayLine {
    /// Puts a cell on the line, arriving at `arrival`. Returns true if the line was empty
    /// (the caller must then schedule the arrival event).
    #[inline]
    pub fn push(&mut self, arrival: Time, cell: Cell) -> bool {
        debug_assert!(self.cells.back().is_none_or(|(t, _)| *t <= arrival));
        self.cells.push_back((arrival, cell));
        self.cells.len() == 1
    }

    /// The head cell, if any (read by cache hints; [`DelayLine::pop`] takes it).
    #[inline(always)]
    pub fn front(&self) -> Option<&Cell> {
        self.cells.front().map(|(_, c)| c)
    }

    /// Where the head cell is, for a cache hint ([`atmsim_kernel::prefetch`]).
    #[inline(always)]
    pub fn head_ptr(&self) -> *const (Time, Cell) {
        self.cells.front_ptr()
    }

    /// Where the next cell put on the line goes, for a cache hint
    /// ([`atmsim_kernel::prefetch`]).
    #[inline(always)]
    pub fn tail_ptr(&self) -> *const (Time, Cell) {
        self.cells.back_slot_ptr()
    }

    /// Takes the head cell; returns it and the arrival time of the next one, if any.
    #[inline]
    pub fn pop(&mut self) -> Option<(Cell, Option<Time>)> {
        let (_, c) = self.cells.pop_front()?;
        Some((c, self.cells.front().map(|(t, _)| *t)))
    }

    /// Makes room for `cells` cells on the line in all ([`Fifo::reserve`]): for a burst
    /// known to put that many on it at once.
    pub fn reserve(&mut self, cells: usize) {
        self.cells.reserve(cells);
    }

    /// Cells on the line.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// True when no cell is on the line.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Bytes the line's ring holds (its capacity: a ring keeps the size of its fullest
    /// moment).
    pub fn heap_bytes(&self) -> usize {
        self.cells.capacity() * std::mem::size_of::<(Time, Cell)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_with_next_time() {
        let mut l = DelayLine::default();
        assert!(l.push(10, Cell::data(0, 1, false)));
        assert!(!l.push(12, Cell::data(0, 2, true)));
        let (c, next) = l.pop().unwrap();
        assert_eq!((c.tag, next), (1, Some(12)));
        let (c, next) = l.pop().unwrap();
        assert_eq!((c.tag, next), (2, None));
        assert!(l.pop().is_none());
    }
}
