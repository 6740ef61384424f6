//! A TCP sender's frames waiting at its host port, held as runs of cells and cut into
//! cells as they leave (issue 14: less work and memory per cell at the first hop).
//!
//! A host port that only one flow crosses, with an unlimited buffer and tail drop, admits
//! every cell offered to it and sends them in the order they came. A TCP sender hands it
//! whole frames (a segment, or an ACK) at once, so its queue is always some frames of that
//! flow, the first perhaps partly sent. [`FrameRuns`] holds each as a run
//! (frame, first cell not yet sent, cells queued) of 20 bytes, not as one 16-byte cell per
//! cell (an 11-cell segment: 20 bytes instead of 176), and makes each cell as it leaves, the same cell the sender's segmentation made
//! before ([`crate::network::Network::new_cell`]). The buffer keeps every count as if the
//! cells were queued one by one (`PortBuffer::arrive_frame`), so results do not change.

use crate::cell::{flag, Cell};
use atmsim_kernel::Fifo;

/// Cells `next..end` of one frame, waiting.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Run {
    /// What the frame carries (the segment or ACK number).
    tag: u32,
    /// The frame's emission number in its flow.
    frame: u32,
    /// The next cell to leave (0 = the frame's first).
    next: u32,
    /// One past the last cell queued so far.
    end: u32,
    /// Cells in the whole frame (the last carries the end-of-message bit).
    cells: u32,
}

/// The frames of one flow waiting at its host port, first to leave at the front.
///
/// 32 bytes: the cells' template keeps only the fields that every cell of the flow has
/// alike (a cell's tag and frame number are its run's), so that a port's box of queues
/// holding these or class queues is 56 bytes, a 64-byte block of the allocator instead of
/// an 80-byte one (issue 14, memory per VC: two a VC in a network of TCP sources, one host
/// pair each; docs/performance-journal.md, "Heap blocks that fit, and queues no larger than
/// their buffer, forty-seventh session").
#[derive(Debug)]
pub struct FrameRuns {
    runs: Fifo<Run>,
    /// The flow of the cells.
    flow: u32,
    /// The cells' hop (the first of the flow's route).
    hop: u16,
    /// The cells' class and header bits, as the template has them (its end-of-message bit
    /// clear: `hold_frames`' template is a frame's first cell).
    flags: u16,
}

impl FrameRuns {
    /// No frames yet, for the flow whose cells look like `template` (its flow, hop and
    /// flags; tag and frame number are set per cell, the template's not kept, and the
    /// end-of-message bit on a frame's last cell).
    pub fn new(template: Cell) -> Self {
        FrameRuns {
            runs: Fifo::new(),
            flow: template.flow,
            hop: template.hop,
            flags: template.flags,
        }
    }

    /// The service class index of the flow's cells.
    #[inline]
    pub fn class(&self) -> usize {
        let cell = Cell {
            flags: self.flags,
            ..Cell::default()
        };
        cell.class().index()
    }

    /// Cells `from..to` (`from < to <= cells`) of the frame tagged `tag`, emission number
    /// `frame`, `cells` cells long, join the back: they extend the last run if they follow
    /// on from it.
    #[inline]
    pub fn push(&mut self, tag: u32, frame: u32, (from, to): (u32, u32), cells: u32) {
        debug_assert!(from < to && to <= cells);
        if let Some(last) = self.runs.back_mut() {
            if last.end == from && last.tag == tag && last.frame == frame && last.cells == cells {
                last.end = to;
                return;
            }
        }
        self.runs.push_back(Run {
            tag,
            frame,
            next: from,
            end: to,
            cells,
        });
    }

    /// The next cell to leave, taken off the front (None if no cell waits).
    #[inline]
    pub fn pop(&mut self) -> Option<Cell> {
        let (flow, hop, flags) = (self.flow, self.hop, self.flags);
        let run = self.runs.front_mut()?;
        let mut cell = Cell {
            flow,
            tag: run.tag,
            frame: run.frame,
            hop,
            flags,
        };
        run.next += 1;
        if run.next == run.cells {
            cell.flags |= flag::EOM;
        }
        if run.next == run.end {
            self.runs.pop_front();
        }
        Some(cell)
    }

    /// True when no cell waits.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Bytes its runs' ring holds on the heap (for the memory estimate).
    pub fn heap_bytes(&self) -> usize {
        self.runs.capacity() * std::mem::size_of::<Run>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::ServiceClass;

    fn cell(flow: u32, tag: u32, frame: u32, eom: bool, class_flags: u16) -> Cell {
        let mut c = Cell::data(flow, tag, eom);
        c.frame = frame;
        c.flags |= class_flags;
        c
    }

    #[test]
    fn cells_leave_as_segmentation_made_them() {
        // Frames handed whole, in parts, and one after another come out as the cells of
        // each frame in order, the last of each with the end-of-message bit.
        let ubr = ServiceClass::Ubr.flag_bits();
        let mut r = FrameRuns::new(cell(6, 0, 0, false, ubr));
        assert_eq!(r.class(), ServiceClass::Ubr.index());
        r.push(10, 0, (0, 3), 3);
        r.push(11, 1, (0, 1), 2);
        r.push(11, 1, (1, 2), 2);
        r.push(12, 2, (0, 1), 1);
        let mut want = vec![];
        for (tag, frame, n) in [(10, 0, 3), (11, 1, 2), (12, 2, 1)] {
            for i in 0..n {
                want.push(cell(6, tag, frame, i + 1 == n, ubr));
            }
        }
        let got: Vec<Cell> = std::iter::from_fn(|| r.pop()).collect();
        assert_eq!(got, want);
        assert!(r.is_empty());
        // The second frame's two parts made one run.
        assert!(r.runs.capacity() <= 4);
    }

    #[test]
    fn a_frame_partly_sent_goes_on_where_it_stopped() {
        // The first cell of a frame leaves before the rest of it is queued: the rest make
        // a new run that starts at the second cell.
        let mut r = FrameRuns::new(cell(1, 0, 0, false, 0));
        r.push(7, 3, (0, 1), 4);
        assert_eq!(r.pop(), Some(cell(1, 7, 3, false, 0)));
        assert!(r.is_empty());
        r.push(7, 3, (1, 4), 4);
        let got: Vec<Cell> = std::iter::from_fn(|| r.pop()).collect();
        assert_eq!(
            got,
            vec![
                cell(1, 7, 3, false, 0),
                cell(1, 7, 3, false, 0),
                cell(1, 7, 3, true, 0)
            ]
        );
        assert_eq!(r.pop(), None);
    }
}
