//! What a port holds only once a cell waits in it or is dropped there: its class queues, or
//! the frame runs of a port that holds frames, its drop counts and its high-water marks, in
//! one box made on first use.
//!
//! Issue 14 (memory per VC, docs/performance-journal.md): with one host pair per VC, most of a
//! VC's four ports never queue a cell nor drop one (a cell reaching them finds the
//! transmitter free: [`super::PortBuffer::arrive_to_send`]). Held inline, these were the
//! fourth cache line of every port, 64 bytes of each; boxed, a port is three lines, and a
//! port where cells wait (a trunk, a TCP sender's host port, a host port sending frames of
//! two cells or more) pays one box of 64 bytes. A port holds cells or frames, never both,
//! and drops are rarer still (a buffer limit, a policy), so the box holds one of the two
//! and the drop counts are a box of their own. The high-water marks moved here from the
//! buffer in the thirty-third session, so that a port is two lines: only a cell that waits
//! raises them above one (docs/performance-journal.md, "Ports in two lines").

use super::classes::ClassQueues;
use super::frames::FrameRuns;
use super::DropReason;

/// A port's queues and drop counts (see the module doc).
#[derive(Debug)]
pub(super) struct PortQueues {
    /// The cells or frames waiting.
    pub(super) waiting: Waiting,
    /// Cells dropped, per [`DropReason`] (made on the first drop).
    dropped: Option<Box<[u64; 3]>>,
    /// The high-water marks of the cells that waited.
    pub(super) marks: Marks,
}

/// The largest occupancies of a port's buffer (cells), as cells waiting raise them.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Marks {
    /// Over the whole run.
    pub(super) max_queue: u32,
    /// Since the interval's start (the time series' interval maximum).
    pub(super) interval_max: u32,
}

impl Marks {
    /// The buffer holds `occupancy` cells.
    #[inline(always)]
    pub(super) fn rise_to(&mut self, occupancy: u32) {
        self.max_queue = self.max_queue.max(occupancy);
        self.interval_max = self.interval_max.max(occupancy);
    }
}

/// What waits in a port: cells in their class queues, or the frames of the one flow of a
/// port that holds frames ([`super::PortBuffer::hold_frames`]).
#[derive(Debug)]
pub(super) enum Waiting {
    /// One FIFO per service class.
    Cells(ClassQueues),
    /// Whole frames of one flow.
    Frames(FrameRuns),
}

impl PortQueues {
    /// A new box of empty class queues (out of line: made once per port, off the cell's
    /// path).
    #[cold]
    #[inline(never)]
    pub(super) fn boxed() -> Box<PortQueues> {
        Box::new(PortQueues {
            waiting: Waiting::Cells(ClassQueues::new()),
            dropped: None,
            marks: Marks::default(),
        })
    }

    /// The waiting frames, if the port holds frames.
    #[inline]
    pub(super) fn frames(&self) -> Option<&FrameRuns> {
        match &self.waiting {
            Waiting::Frames(runs) => Some(runs),
            Waiting::Cells(_) => None,
        }
    }

    /// The class queues; a port that held frames holds cells from now on, its frames'
    /// cells queued in order ([`PortQueues::hold_cells`]).
    #[inline(always)]
    pub(super) fn classes_mut(&mut self) -> &mut ClassQueues {
        if let Waiting::Frames(_) = self.waiting {
            self.hold_cells();
        }
        match &mut self.waiting {
            Waiting::Cells(classes) => classes,
            Waiting::Frames(_) => unreachable!("frames were turned into cells above"),
        }
    }

    /// Cells waiting in class `class`'s queue (0 where the port holds frames).
    #[inline]
    pub(super) fn class_len(&self, class: usize) -> usize {
        match &self.waiting {
            Waiting::Cells(classes) => classes.len(class),
            Waiting::Frames(_) => 0,
        }
    }

    /// The cells of the frames waiting, if any, go into their class's queue in order, and
    /// the port holds cells from then on.
    #[cold]
    pub(super) fn hold_cells(&mut self) {
        if let Waiting::Frames(runs) = &mut self.waiting {
            let class = runs.class();
            let mut classes = ClassQueues::new();
            while let Some(c) = runs.pop() {
                classes.queue_mut(class).push_back(c);
            }
            self.waiting = Waiting::Cells(classes);
        }
    }

    /// Counts a cell dropped for `reason`.
    #[inline]
    pub(super) fn count_drop(&mut self, reason: DropReason) {
        self.dropped.get_or_insert_with(Default::default)[reason as usize] += 1;
    }

    /// Cells dropped, per [`DropReason`].
    pub(super) fn dropped(&self) -> [u64; 3] {
        self.dropped.as_deref().copied().unwrap_or_default()
    }

    /// Bytes held: the boxes and what their queues hold.
    pub(super) fn heap_bytes(&self) -> usize {
        std::mem::size_of::<PortQueues>()
            + self
                .dropped
                .as_ref()
                .map_or(0, |_| std::mem::size_of::<[u64; 3]>())
            + self.cell_bytes()
    }

    /// Bytes its cells take: the class rings, or the runs of a port that holds frames.
    pub(super) fn cell_bytes(&self) -> usize {
        match &self.waiting {
            Waiting::Cells(classes) => classes.heap_bytes(),
            Waiting::Frames(runs) => runs.heap_bytes(),
        }
    }
}
