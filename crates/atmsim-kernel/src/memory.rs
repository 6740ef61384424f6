//! How much memory the growable storage of this thread has taken as it grew: what a run
//! takes as it goes (cells waiting in queues and flying on links, pending events), which no
//! estimate made before the run can bound for every scenario (an open-loop source into an
//! unlimited buffer grows without end). [`Fifo`](crate::Fifo) and the event queue's node
//! vector count each new buffer they allocate to grow, in full; a run reads the count when it
//! starts and between slices of its events, and stops cleanly once the growth passes what
//! it was given (atmsim's `footprint` module, issue 14: "do not let the OS kill the run").
//!
//! Counting each new buffer in full (not the difference with the old one) makes the count
//! up to twice what the storage holds at the end (1 + 1/2 + 1/4 + ... of each final size),
//! which covers the moment a growing ring holds both its old and its new storage (1.5 times
//! its new size). The count is per thread (a run runs on one thread) and only grows, so
//! the growth during a run is its difference over the run. Counting costs nothing on the
//! per-cell path: storage counts only when it grows.

use std::cell::Cell;

thread_local! {
    static GROWN: Cell<u64> = const { Cell::new(0) };
}

/// Bytes of the buffers the growable storage on this thread has allocated to grow, since the
/// thread started.
pub fn grown() -> u64 {
    GROWN.with(Cell::get)
}

/// Counts a buffer of `bytes` allocated on this thread to grow some storage.
pub(crate) fn count_growth(bytes: u64) {
    GROWN.with(|g| g.set(g.get().saturating_add(bytes)));
}
