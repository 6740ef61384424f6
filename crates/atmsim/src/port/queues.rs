//! What a port holds only once a cell waits in it or is dropped there: its class queues,
//! the frame runs of a port that holds frames, and its drop counts, in one box made on
//! first use.
//!
//! Issue 14 (memory per VC, docs/performance.md): with one host pair per VC, three of a
//! VC's four ports never queue a cell nor drop one (a cell reaching them finds the
//! transmitter free: [`super::PortBuffer::arrive_to_send`]). Held inline, these were the
//! fourth cache line of every port, 64 bytes of each; boxed, a port is three lines, and
//! the ports that queue (trunks, a TCP sender's host port) pay one box.

use super::classes::ClassQueues;
use super::frames::FrameRuns;

/// A port's queues and drop counts (see the module doc).
#[derive(Debug)]
pub(super) struct PortQueues {
    /// One FIFO per service class.
    pub(super) classes: ClassQueues,
    /// The waiting frames of a port that holds frames instead of cells
    /// ([`super::PortBuffer::hold_frames`]); its class queues then stay empty.
    pub(super) frames: Option<FrameRuns>,
    /// Cells dropped, per [`super::DropReason`].
    pub(super) dropped: [u64; 3],
}

impl PortQueues {
    pub(super) fn new() -> Self {
        PortQueues {
            classes: ClassQueues::new(),
            frames: None,
            dropped: [0; 3],
        }
    }

    /// A new box of empty queues (out of line: made once per port, off the cell's path).
    #[cold]
    #[inline(never)]
    pub(super) fn boxed() -> Box<PortQueues> {
        Box::new(PortQueues::new())
    }

    /// Bytes held: the box and what its queues hold.
    pub(super) fn heap_bytes(&self) -> usize {
        std::mem::size_of::<PortQueues>() + self.cell_bytes()
    }

    /// Bytes its cells take: the class rings, or the runs of a port that holds frames.
    pub(super) fn cell_bytes(&self) -> usize {
        self.classes.heap_bytes() + self.frames.as_ref().map_or(0, FrameRuns::heap_bytes)
    }
}
