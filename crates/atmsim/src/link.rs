//! The propagation part of a link direction: a FIFO delay line.
//!
//! Cells leave a port one after another, and all take the same propagation delay, so they
//! arrive in the order they left. The line therefore needs only one pending event: the
//! arrival of its head cell (docs/adr/0001-workspace-layout.md).
//!
//! **Runs.** The cells of one AAL5 frame that a port sends back to back differ only in the
//! last one's end-of-message bit, and their arrivals are as far apart as their
//! transmissions, which the port's serial clock gives ([`UnitTime::next_duration`]). The
//! line holds such cells as one run of two slots: the first cell and its arrival, then the
//! run's count, whether its last cell ends the frame, and the serial clock's remainder,
//! from which the arrival of each next cell is worked out again, to the picosecond, as the
//! run is taken ([`DelayLine::pop`]). A TCP segment of 12 cells on a host's line takes two
//! slots instead of twelve (sixteen, in a ring of a power of two): at 10 000 VCs with one
//! host pair each, the lines' rings were 384 bytes per VC of the UBR row's 2.4 KB (issue
//! 14, docs/performance-journal.md). The cells taken, their order and their arrival times are
//! those put on the line; a cell that does not follow the one before it back to back, or
//! belongs to another frame, takes a slot of its own, as before.
//!
//! **Runs of one-cell frames.** A cell-level source whose frames are one cell each (a
//! greedy ABR source: every cell ends its frame) sends cells that differ only in their tag
//! and frame number, each one more than the cell before it. Sent back to back, such cells
//! are a run too, of the other kind: its count slot says that each next cell steps the tag
//! and the frame number by one ([`STEP`]). In the ABR + ERICA rows at 10 000 VCs every
//! source sends at the line rate and a 1 ms host line holds 367 cells: 31 data cells
//! between two RM cells take two slots instead of 31 (issue 14, docs/performance-journal.md).
//!
//! **RM cells in a run of one-cell frames.** Such a source also sends a forward RM cell
//! every Nrm cells (seed 003, TM 4.0 source rule 3), and while its ACR stays where it is
//! every one of them is the same cell (the same ER and CCR). An RM cell that follows a run
//! of one-cell frames back to back, where that run began right after the same RM cell (a
//! slot of its own), joins it as a third slot, the RM slot, which holds the RM cell and the
//! run's period: the run's frames, plus one. From then on the run takes that RM cell again
//! every period, with the one-cell frames between (the frames after an RM cell keep
//! counting the tag and frame number from the frame before it), and anything else starts a
//! slot of its own. A run that began elsewhere (after a late cell) leaves the RM cell a slot
//! of its own, and the run after it takes the next one. A 1 ms host line of such a source at
//! 155.52 Mbit/s is then one run of three slots behind its first RM cell, where it was about
//! 35 slots (issue 14, docs/performance-journal.md).

use crate::cell::{flag, Cell};
use atmsim_kernel::{Fifo, Time, UnitTime};

/// Marks the first slot of a run (a flag bit no cell carries: `cell::flag` uses 0-9).
const RUN: u16 = 1 << 15;
/// Marks the last slot of a run, its count: its time field is the serial clock's
/// remainder after the first cell's transmission, its cell's `flow` the cells left in the
/// run and `tag` the run's kind: [`LAST_EOM`], [`STEP`] and [`WITH_RM`] bits. Both marks
/// together make the RM slot of a run of one-cell frames with RM cells, between the first
/// slot and the count.
const COUNT: u16 = 1 << 14;
/// In a run's count: the run's last cell ends its frame (a frame's run).
const LAST_EOM: u32 = 1;
/// In a run's count: a run of one-cell frames, each cell's tag and frame number one more
/// than the cell's before it (every cell ends its frame).
const STEP: u32 = 2;
/// In a run's count, with [`STEP`]: the run takes the cell of its RM slot every period.
/// The count's `frame` is then the one-cell frames left in the run, and its `hop` the
/// frames to come before the next RM cell at the run's back. The RM slot's time field is
/// the period (high 32 bits) and the frames before the next RM cell at the run's front
/// (low 32 bits).
const WITH_RM: u32 = 4;
/// A run of one-cell frames with RM cells: [`STEP`] and [`WITH_RM`].
const STEP_RM: u32 = STEP | WITH_RM;
const _: () = assert!(
    flag::CLASS_SHIFT + 2 <= 14,
    "cell flags must leave bits 14-15 free"
);

/// A FIFO delay line holding cells with their arrival times, back-to-back cells of one
/// frame as a run (see the module's doc).
#[derive(Debug, Default)]
pub struct DelayLine {
    cells: Fifo<(Time, Cell)>,
}

/// True if `cell` is the next cell of the frame whose run starts with `first` (the same
/// cell, but for the first's run mark and the end-of-message bit). Without branches: on a
/// busy port's line most cells follow one of another frame.
#[inline(always)]
fn same_frame(first: &Cell, cell: &Cell) -> bool {
    same_fields(
        first,
        cell,
        0,
        (first.flags ^ cell.flags) & !(RUN | flag::EOM),
    )
}

/// True if `b` has `a`'s flow and hop, and its tag and frame number `step` more (wrapping),
/// and `flags`, the two cells' flags' difference as the caller masks it, is 0. Without
/// branches.
#[inline(always)]
fn same_fields(a: &Cell, b: &Cell, step: u32, flags: u16) -> bool {
    (a.flow ^ b.flow)
        | (a.tag.wrapping_add(step) ^ b.tag)
        | (a.frame.wrapping_add(step) ^ b.frame)
        | u32::from(a.hop ^ b.hop)
        | u32::from(flags)
        == 0
}

/// True if `cell` is the cell after `prev` in a run of one-cell frames: both end their
/// frames, and `cell` is `prev` with the tag and the frame number one more (but for
/// `prev`'s run mark).
#[inline(always)]
fn next_step(prev: &Cell, cell: &Cell) -> bool {
    prev.is_eom() & same_fields(prev, cell, 1, (prev.flags ^ cell.flags) & !RUN)
}

/// True if `cell` is the RM cell of a run's RM slot `rm` (the same cell, but for the slot's
/// marks).
#[inline(always)]
fn same_rm(rm: &Cell, cell: &Cell) -> bool {
    same_fields(rm, cell, 0, (rm.flags & !(RUN | COUNT)) ^ cell.flags)
}

/// True if RM cell `rm`, following back to back a run of `frames` one-cell frames whose first
/// cell is `first` and whose slot before is `before`, joins the run as its RM slot with the
/// period `frames + 1`: the run began right after the same RM cell (`before`, a slot of its
/// own), so that period is the source's, and the cells are of one flow and hop (a run's front
/// cell names them for cache hints). A run that began elsewhere (after a late cell, or with
/// its first cells already taken) would learn a wrong period and break at every RM cell; the
/// RM cell then takes a slot of its own, and the run after it, which began right after it,
/// takes the next one (from the review). The count slot's `hop` holds up to `frames`.
#[inline(always)]
fn starts_period(before: &Cell, first: &Cell, rm: &Cell, frames: u32) -> bool {
    rm.is_rm()
        && *before == *rm
        && rm.flow == first.flow
        && rm.hop == first.hop
        && frames <= u32::from(u16::MAX)
}

/// The time field of an RM slot: the run's period and the one-cell frames before the next
/// RM cell at the run's front.
#[inline(always)]
fn rm_slot_time(period: u32, ahead: u32) -> u64 {
    (u64::from(period) << 32) | u64::from(ahead)
}

/// The `k`-th cell after `first` in a run of one-cell frames.
#[inline(always)]
fn stepped(first: &Cell, k: u32) -> Cell {
    Cell {
        tag: first.tag.wrapping_add(k),
        frame: first.frame.wrapping_add(k),
        ..*first
    }
}

impl DelayLine {
    /// Puts a cell on the line, arriving at `arrival`. Returns true if the line was empty
    /// (the caller must then schedule the arrival event).
    #[inline(always)]
    pub fn push(&mut self, arrival: Time, cell: Cell) -> bool {
        debug_assert!(cell.flags & (RUN | COUNT) == 0);
        // (A run's count slot holds the serial clock's remainder, not an arrival.)
        debug_assert!(self
            .cells
            .back()
            .is_none_or(|(t, c)| c.flags & COUNT != 0 || *t <= arrival));
        self.cells.push_back((arrival, cell));
        self.cells.len() == 1
    }

    /// Puts on a line that keeps runs a cell whose transmission began as the previous one
    /// ended (back to back): it joins the run of its frame or of one-cell frames (and their
    /// RM cells), or starts one with the previous cell, or takes a slot of its own
    /// ([`DelayLine::push`]). `acc` is the port's
    /// serial-clock remainder before this cell's transmission. Returns what `push` returns.
    /// Only a line taken with [`DelayLine::pop_runs`] may be given cells this way.
    #[inline(always)]
    pub fn push_following(&mut self, arrival: Time, cell: Cell, acc: u64) -> bool {
        debug_assert!(cell.flags & (RUN | COUNT) == 0);
        if self.extend(cell, acc) {
            return false;
        }
        self.push(arrival, cell)
    }

    /// Adds `cell`, sent back to back after the line's last cell, to that cell's run, or
    /// makes a run of the two; false (nothing done) if it is not the next cell of the same
    /// frame, or of the same run of one-cell frames (its next frame, or the RM cell its
    /// period puts next, or an RM cell that starts a period: [`starts_period`]). `acc` is the
    /// serial clock's remainder before `cell`'s transmission.
    #[inline(always)]
    fn extend(&mut self, cell: Cell, acc: u64) -> bool {
        let (slots, front, len) = self.cells.slots_mut();
        if len == 0 {
            return false;
        }
        let mask = slots.len() - 1;
        let b = (front + len - 1) & mask;
        let back = slots[b].1;
        if back.flags & COUNT == 0 {
            let kind = if !back.is_eom() && same_frame(&back, &cell) {
                u32::from(cell.is_eom())
            } else if next_step(&back, &cell) {
                STEP
            } else {
                return false;
            };
            slots[b].1.flags |= RUN;
            self.start_run(kind, acc);
            return true;
        }
        // A run holds at most `u32::MAX` cells (a run of one-cell frames has no frame to end
        // it: 2^32 cells back to back on one line would wrap its count; from the review).
        if back.flow == u32::MAX {
            return false;
        }
        let first = slots[b.wrapping_sub(1) & mask].1;
        let count = &mut slots[b].1;
        match back.tag {
            0 if same_frame(&first, &cell) => count.tag = u32::from(cell.is_eom()),
            STEP if next_step(&stepped(&first, back.flow - 1), &cell) => {}
            STEP_RM => return Self::extend_rm_run(slots, b, mask, cell),
            STEP if len >= 3
                && starts_period(&slots[b.wrapping_sub(2) & mask].1, &first, &cell, back.flow) =>
            {
                self.take_rm_into_run(cell);
                return true;
            }
            _ => return false,
        }
        count.flow += 1;
        true
    }

    /// Adds `cell` to the run of one-cell frames with RM cells whose count is in slot `b`:
    /// the RM cell, where the period puts one, or else the next one-cell frame. False
    /// (nothing done) for any other cell.
    #[inline(always)]
    fn extend_rm_run(slots: &mut [(Time, Cell)], b: usize, mask: usize, cell: Cell) -> bool {
        let (period_ahead, rm) = slots[b.wrapping_sub(1) & mask];
        let first = slots[b.wrapping_sub(2) & mask].1;
        let count = &mut slots[b].1;
        if count.hop == 0 {
            if !same_rm(&rm, &cell) {
                return false;
            }
            count.hop = ((period_ahead >> 32) - 1) as u16;
        } else {
            let last = stepped(&first, count.frame.wrapping_sub(1));
            if !next_step(&last, &cell) {
                return false;
            }
            count.hop -= 1;
            count.frame += 1;
        }
        count.flow += 1;
        true
    }

    /// An RM cell follows a run of one-cell frames back to back: the run takes it into an
    /// RM slot before its count, with the period of the cells it holds, plus one (out of
    /// line: once a run).
    #[cold]
    #[inline(never)]
    fn take_rm_into_run(&mut self, cell: Cell) {
        let (acc, count) = *self.cells.back().expect("a run's count");
        let frames = count.flow;
        let rm = Cell {
            flags: cell.flags | RUN | COUNT,
            ..cell
        };
        *self.cells.back_mut().expect("a run's count") = (rm_slot_time(frames + 1, frames), rm);
        let count = Cell {
            flow: frames + 1,
            tag: STEP_RM,
            frame: frames,
            hop: frames as u16,
            flags: COUNT,
        };
        self.cells.push_back((acc, count));
    }

    /// Puts the count of a new run of two, of `kind` ([`LAST_EOM`], [`STEP`] or neither),
    /// after its first cell (out of line: once a run).
    #[cold]
    #[inline(never)]
    fn start_run(&mut self, kind: u32, acc: u64) {
        let count = Cell {
            flow: 2,
            tag: kind,
            frame: 0,
            hop: 0,
            flags: COUNT,
        };
        self.cells.push_back((acc, count));
    }

    /// The head cell, if any (read by cache hints; [`DelayLine::pop`] takes it). Of a run,
    /// its flow and hop are right; its flags may carry the run's mark, and where a run's RM
    /// cell is due next, the rest is the run's next one-cell frame.
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

    /// Takes the head cell; returns it and the arrival time of the next one, if any. For
    /// a line that holds no run (the engine takes a line that may with
    /// [`DelayLine::pop_runs`], by events of their own: `sim::Sim::start_tx`).
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Cell, Option<Time>)> {
        let (_, c) = self.cells.pop_front()?;
        debug_assert!(c.flags & RUN == 0, "a run on a line taken cell by cell");
        Some((c, self.cells.front().map(|(t, _)| *t)))
    }

    /// Takes the head cell of a line that keeps runs, like [`DelayLine::pop`]. `unit`
    /// gives the line's cell time (the port's serial clock: a run's next arrival).
    #[inline(always)]
    pub fn pop_runs(&mut self, unit: impl FnOnce() -> UnitTime) -> Option<(Cell, Option<Time>)> {
        let (arrival, c) = self.cells.pop_front()?;
        if c.flags & RUN != 0 {
            return Some(self.pop_from_run(arrival, c, unit()));
        }
        Some((c, self.cells.front().map(|(t, _)| *t)))
    }

    /// Takes the head cell of the run whose first slot, (`arrival`, `first`), was just
    /// taken: the run's last cell goes with its count; any other puts the first slot back
    /// for the run's next cell, arriving one cell time later (of a run of one-cell frames,
    /// with the next tag and frame number).
    #[inline]
    fn pop_from_run(&mut self, arrival: Time, first: Cell, unit: UnitTime) -> (Cell, Option<Time>) {
        let mut cell = Cell {
            flags: first.flags & !RUN,
            ..first
        };
        let (acc, count) = self.cells.front_mut().expect("a run's count");
        if count.flags & RUN != 0 {
            return self.pop_from_rm_run(arrival, first, unit);
        }
        if count.flow > 1 {
            count.flow -= 1;
            let next = arrival + unit.next_duration(acc);
            let step = u32::from(count.tag == STEP);
            self.cells.push_front((next, stepped(&first, step)));
            return (cell, Some(next));
        }
        if count.tag == LAST_EOM {
            cell.flags |= flag::EOM;
        }
        self.cells.pop_front();
        (cell, self.cells.front().map(|(t, _)| *t))
    }

    /// [`DelayLine::pop_from_run`] of a run of one-cell frames with RM cells, whose RM slot
    /// is now at the front: its RM cell, if the period puts one next, or else the one-cell
    /// frame of the first slot. The first slot goes back with the next frame (the same, after
    /// an RM cell), arriving one cell time later.
    #[inline]
    fn pop_from_rm_run(
        &mut self,
        arrival: Time,
        first: Cell,
        unit: UnitTime,
    ) -> (Cell, Option<Time>) {
        let (slots, front, _) = self.cells.slots_mut();
        let mask = slots.len() - 1;
        let (period_ahead, rm) = slots[front];
        let (period, ahead) = ((period_ahead >> 32) as u32, period_ahead as u32);
        let takes_rm = ahead == 0;
        let (cell, ahead, next_first) = if takes_rm {
            let rm = Cell {
                flags: rm.flags & !(RUN | COUNT),
                ..rm
            };
            (rm, period - 1, first)
        } else {
            let cell = Cell {
                flags: first.flags & !RUN,
                ..first
            };
            (cell, ahead - 1, stepped(&first, 1))
        };
        let (acc, count) = &mut slots[(front + 1) & mask];
        if count.flow > 1 {
            count.flow -= 1;
            count.frame -= u32::from(!takes_rm);
            let next = arrival + unit.next_duration(acc);
            slots[front].0 = rm_slot_time(period, ahead);
            self.cells.push_front((next, next_first));
            return (cell, Some(next));
        }
        self.cells.pop_front();
        self.cells.pop_front();
        (cell, self.cells.front().map(|(t, _)| *t))
    }

    /// Cells on the line.
    pub fn len(&self) -> usize {
        let count = |(_, c): &(Time, Cell)| match c.flags & (RUN | COUNT) {
            0 => 1,
            COUNT => c.flow as usize,
            _ => 0,
        };
        (0..self.cells.len())
            .filter_map(|i| self.cells.get(i))
            .map(count)
            .sum()
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

    /// Runs of one-cell frames on the line, with RM cells or without.
    pub fn step_runs(&self) -> usize {
        self.runs_of(|kind| kind & STEP != 0)
    }

    /// Runs of one-cell frames with RM cells on the line.
    pub fn rm_runs(&self) -> usize {
        self.runs_of(|kind| kind == STEP_RM)
    }

    /// Runs on the line whose kind passes `is`.
    fn runs_of(&self, is: impl Fn(u32) -> bool) -> usize {
        (0..self.cells.len())
            .filter_map(|i| self.cells.get(i))
            .filter(|(_, c)| c.flags & (RUN | COUNT) == COUNT && is(c.tag))
            .count()
    }

    /// Slots of the ring in use (a cell of its own takes one, a run two, a run with RM cells
    /// three).
    pub fn slots(&self) -> usize {
        self.cells.len()
    }
}

#[cfg(test)]
#[path = "link_tests.rs"]
mod tests;
