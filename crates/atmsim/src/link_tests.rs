use super::*;
use atmsim_kernel::RngStream;
use std::collections::VecDeque;

const OC3: u64 = 155_520_000;

fn unit(rate: u64) -> UnitTime {
    UnitTime::new(rate, crate::cell::CELL_BITS)
}

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

/// A port's transmitter, as `sim::fabric::transmit` drives it: each cell's duration from
/// the serial clock, its arrival one propagation delay after its transmission ends.
struct Transmitter {
    unit: UnitTime,
    acc: u64,
    busy_until: Time,
    prop: Time,
}

impl Transmitter {
    fn new(rate: u64, prop: Time) -> Self {
        Transmitter {
            unit: unit(rate),
            acc: 0,
            busy_until: 0,
            prop,
        }
    }

    /// Sends `cell` at `now` (not before the transmitter is free) onto `line`; returns its
    /// arrival and what `push` returned.
    fn send(&mut self, line: &mut DelayLine, now: Time, cell: Cell) -> (Time, bool) {
        assert!(now >= self.busy_until);
        let (follows, acc) = (now == self.busy_until, self.acc);
        let d = self.unit.next_duration(&mut self.acc);
        let arrival = now + d + self.prop;
        self.busy_until = now + d;
        let first = if follows {
            line.push_following(arrival, cell, acc)
        } else {
            line.push(arrival, cell)
        };
        (arrival, first)
    }

    /// Sends `cell` back to back after the last one onto `line`; returns its arrival and it.
    fn follow(&mut self, line: &mut DelayLine, cell: Cell) -> (Time, Cell) {
        let now = self.busy_until;
        (self.send(line, now, cell).0, cell)
    }
}

/// Takes every cell of `line`, which holds the cells `sent` (with their arrivals), checking
/// each comes off as it went on, with the next one's arrival; the line is then empty.
fn comes_off_as_sent(line: &mut DelayLine, sent: &[(Time, Cell)], unit: UnitTime) {
    for (i, &(_, cell)) in sent.iter().enumerate() {
        let next = sent.get(i + 1).map(|(t, _)| *t);
        assert_eq!(line.pop_runs(|| unit), Some((cell, next)), "cell {i}");
    }
    assert!(line.is_empty());
}

#[test]
fn a_frame_sent_back_to_back_is_one_run() {
    // A 12-cell segment sent back to back takes two slots, and comes off the line cell by
    // cell at the times it went on, the last with its end-of-message bit.
    let mut tx = Transmitter::new(OC3, 1_000_000_000);
    let mut line = DelayLine::default();
    let mut sent = Vec::new();
    for i in 0..12 {
        let cell = Cell::data(3, 7, i == 11);
        let now = tx.busy_until;
        let (arrival, first) = tx.send(&mut line, now, cell);
        assert_eq!(first, i == 0);
        sent.push((arrival, cell));
    }
    assert_eq!((line.slots(), line.len()), (2, 12));
    assert_eq!(line.heap_bytes(), 2 * 24);
    for (i, &(_, cell)) in sent.iter().enumerate() {
        let next = sent.get(i + 1).map(|(t, _)| *t);
        assert_eq!(line.pop_runs(|| tx.unit), Some((cell, next)), "cell {i}");
        assert_eq!(line.len(), 11 - i);
    }
    assert!(line.is_empty());
}

#[test]
fn a_gap_another_frame_or_an_rm_cell_starts_a_new_slot() {
    let mut tx = Transmitter::new(OC3, 10_000_000);
    let mut line = DelayLine::default();
    let now = tx.busy_until;
    tx.send(&mut line, now, Cell::data(1, 1, false));
    let now = tx.busy_until + 1; // one picosecond late: not back to back
    tx.send(&mut line, now, Cell::data(1, 1, false));
    assert_eq!(line.slots(), 2);
    let now = tx.busy_until;
    tx.send(&mut line, now, Cell::data(1, 1, true)); // joins the second: a run
    assert_eq!(line.slots(), 3);
    let now = tx.busy_until;
    tx.send(&mut line, now, Cell::data(1, 1, false)); // the run ended its frame
    let mut rm = Cell::data(1, 1, false);
    rm.flags |= flag::RM;
    let now = tx.busy_until;
    tx.send(&mut line, now, rm);
    let now = tx.busy_until;
    tx.send(&mut line, now, Cell::data(2, 1, false)); // another flow
    assert_eq!((line.slots(), line.len()), (6, 6));
}

#[test]
fn one_cell_frames_sent_back_to_back_are_one_run() {
    // A greedy source's cells, each its own frame, tag and frame number counting up (and
    // wrapping): two slots, each cell off the line as it went on. An RM cell after them, with
    // no RM cell before the run to say where a period starts, takes a slot of its own and the
    // cells after it start a new run; a tag that skips one, or a cell of a frame not ended,
    // starts a new slot.
    let mut tx = Transmitter::new(OC3, 1_000_000_000);
    let mut line = DelayLine::default();
    let mut sent = Vec::new();
    let mut send = |line: &mut DelayLine, cell: Cell| sent.push(tx.follow(line, cell));
    let one = |n: u32| frame_cell(5, n);
    for n in u32::MAX - 3..=u32::MAX {
        send(&mut line, one(n));
    }
    for n in 0..6 {
        send(&mut line, one(n));
    }
    assert_eq!((line.slots(), line.len(), line.step_runs()), (2, 10, 1));
    let mut rm = one(6);
    rm.flags |= flag::RM;
    send(&mut line, rm);
    send(&mut line, one(6));
    send(&mut line, one(7));
    assert_eq!((line.slots(), line.len(), line.step_runs()), (5, 13, 2));
    send(&mut line, one(9)); // a step off
    send(&mut line, Cell::data(5, 10, false)); // a frame not ended
    send(&mut line, Cell::data(5, 10, true)); // its frame's run, ended
    assert_eq!((line.slots(), line.len(), line.step_runs()), (8, 16, 2));
    comes_off_as_sent(&mut line, &sent, tx.unit);
}

/// A one-cell frame of flow `flow` whose tag and frame number are `n`.
fn frame_cell(flow: u32, n: u32) -> Cell {
    Cell {
        frame: n,
        ..Cell::data(flow, n, true)
    }
}

/// A greedy ABR source's cells: `rm` first (TM 4.0 source rule 3a), then again after every
/// `gap` one-cell frames, which count up from `start` (and wrap).
fn greedy(flow: u32, start: u32, gap: u32, rm: Cell, cells: u32) -> Vec<Cell> {
    let mut out = Vec::new();
    let mut n = start;
    for i in 0..cells {
        if i % (gap + 1) == 0 {
            out.push(rm);
        } else {
            out.push(frame_cell(flow, n));
            n = n.wrapping_add(1);
        }
    }
    out
}

/// An RM cell of flow `flow` with ER and CCR fields `er` and `ccr`.
fn rm_cell(flow: u32, er: f32, ccr: f32) -> Cell {
    let mut rm = Cell::data(flow, 0, false);
    rm.flags |= flag::RM;
    rm.set_er(er);
    rm.set_ccr(ccr);
    rm
}

#[test]
fn a_greedy_sources_rm_cells_join_its_run() {
    // The RM cell, then 31 one-cell frames, again and again (Nrm = 32), back to back: the
    // first RM cell, then one run of three slots however long, each cell off the line as it
    // went on, at its time. Taking cells as they go on (a short line) keeps it one run.
    let rm = rm_cell(4, 353_207.5, 353_207.5);
    for (start, prop) in [
        (0, 1_000_000_000),
        (u32::MAX - 40, 1_000_000_000),
        (7, 3_000_000),
    ] {
        let mut tx = Transmitter::new(OC3, prop);
        let mut line = DelayLine::default();
        let mut sent: VecDeque<(Time, Cell)> = VecDeque::new();
        let unit = tx.unit;
        for cell in greedy(4, start, 31, rm, 367) {
            let now = tx.busy_until;
            while sent.front().is_some_and(|(t, _)| *t <= now) {
                let (_, c) = sent.pop_front().unwrap();
                let next = sent.front().map(|(t, _)| *t);
                assert_eq!(line.pop_runs(|| unit), Some((c, next)));
            }
            sent.push_back((tx.send(&mut line, now, cell).0, cell));
            assert_eq!(line.len(), sent.len());
        }
        assert!(line.slots() <= 4, "prop {prop}: {} slots", line.slots());
        assert!(prop < 1_000_000_000 || line.rm_runs() == 1);
        while let Some((_, c)) = sent.pop_front() {
            let next = sent.front().map(|(t, _)| *t);
            assert_eq!(line.pop_runs(|| unit), Some((c, next)));
            assert_eq!(line.len(), sent.len());
        }
        assert!(line.is_empty());
    }
}

#[test]
fn a_late_cell_costs_a_period_not_the_rest_of_the_run() {
    // One cell a picosecond late breaks the run; the run after it began after a late cell,
    // not after an RM cell, so the next RM cell takes a slot of its own, and the run after
    // that one takes the RM cells again, with the source's period (from the review: a run
    // that learned its period from where it began kept breaking at every RM cell, 36-39
    // slots for the rest of the line's life instead of 3).
    let rm = rm_cell(4, 353_207.5, 353_207.5);
    for late_at in [100, 1010] {
        let mut tx = Transmitter::new(OC3, 1_000_000_000);
        let mut line = DelayLine::default();
        let mut sent: VecDeque<(Time, Cell)> = VecDeque::new();
        let unit = tx.unit;
        let mut most_after = 0;
        for (i, cell) in greedy(4, 0, 31, rm, 20_000).into_iter().enumerate() {
            let now = tx.busy_until + u64::from(i == late_at);
            while sent.front().is_some_and(|(t, _)| *t <= now) {
                let (_, c) = sent.pop_front().unwrap();
                let next = sent.front().map(|(t, _)| *t);
                assert_eq!(line.pop_runs(|| unit), Some((c, next)));
            }
            sent.push_back((tx.send(&mut line, now, cell).0, cell));
            if i > late_at + 64 + 400 {
                most_after = most_after.max(line.slots());
            }
        }
        assert!(most_after <= 4, "late at {late_at}: {most_after} slots");
        while let Some((_, c)) = sent.pop_front() {
            let next = sent.front().map(|(t, _)| *t);
            assert_eq!(line.pop_runs(|| unit), Some((c, next)));
        }
    }
}

#[test]
fn a_different_rm_cell_or_a_frame_out_of_place_ends_the_run() {
    // A run takes an RM cell into its RM slot only where a period starts: right after the
    // same RM cell. Then a frame where the RM cell is due, an RM cell of another CCR, or an
    // RM cell where a frame is due, takes a slot of its own (and what follows starts again);
    // every cell comes off as it went on.
    let rm = rm_cell(2, 1e5, 1e5);
    let other = rm_cell(2, 1e5, 9e4);
    let mut tx = Transmitter::new(OC3, 1_000_000_000);
    let mut line = DelayLine::default();
    let mut sent = Vec::new();
    let mut send = |line: &mut DelayLine, cell: Cell| sent.push(tx.follow(line, cell));
    let one = |n: u32| frame_cell(2, n);
    for cell in greedy(2, 0, 3, rm, 8) {
        send(&mut line, cell); // RM, 3 frames, RM, 3 frames
    }
    assert_eq!((line.slots(), line.len(), line.rm_runs()), (4, 8, 1));
    send(&mut line, one(6)); // the RM cell is due
    assert_eq!((line.slots(), line.len()), (5, 9));
    for cell in greedy(2, 7, 3, rm, 4) {
        send(&mut line, cell); // no run takes the RM cell: none began right after it
    }
    assert_eq!((line.slots(), line.len(), line.rm_runs()), (8, 13, 1));
    send(&mut line, other); // another CCR
    assert_eq!((line.slots(), line.len(), line.rm_runs()), (9, 14, 1));
    for cell in [one(10), one(11), other, one(12), one(13), other] {
        send(&mut line, cell); // period 3, after the RM cell before the run
    }
    assert_eq!((line.slots(), line.len(), line.rm_runs()), (12, 20, 2));
    send(&mut line, rm); // where a frame is due
    assert_eq!((line.slots(), line.len(), line.rm_runs()), (13, 21, 2));
    comes_off_as_sent(&mut line, &sent, tx.unit);
}

#[test]
fn a_run_stops_growing_at_the_largest_count() {
    // A run of one-cell frames has no frame to end it: at `u32::MAX` cells the next cell
    // starts a slot of its own instead of wrapping the count (a run that long is set up
    // here by hand).
    let mut tx = Transmitter::new(OC3, 1_000_000_000);
    let mut line = DelayLine::default();
    let one = |n: u32| frame_cell(5, n);
    for n in 0..2 {
        let now = tx.busy_until;
        tx.send(&mut line, now, one(n));
    }
    let big = u32::MAX - 1;
    line.cells.back_mut().expect("the count").1.flow = big;
    for n in big..=big + 1 {
        let now = tx.busy_until;
        tx.send(&mut line, now, one(n));
    }
    assert_eq!(line.slots(), 3, "the count joined one cell, then stopped");
    assert_eq!(line.cells.get(1).map(|(_, c)| c.flow), Some(u32::MAX));
    assert_eq!(line.len(), u32::MAX as usize + 1);
}

/// The line against a plain queue of (arrival, cell), under random frames, runs of
/// one-cell frames (with RM cells every few cells, or none), gaps, RM cells and takes: the same cells, in the same order, with the same next arrivals.
#[test]
fn a_line_of_runs_gives_what_a_plain_queue_gives() {
    for (case, (rate, prop)) in [
        (OC3, 1_000_000_000u64),
        (OC3, 0),
        (1_000_000_000, 424_000),
        (1_500_000, 2_000_000),
        (424_000_000, 5_000),
    ]
    .into_iter()
    .enumerate()
    {
        let mut rng = RngStream::named(7, &["link", &case.to_string()]);
        let mut tx = Transmitter::new(rate, prop);
        let mut line = DelayLine::default();
        let mut model: VecDeque<(Time, Cell)> = VecDeque::new();
        let mut frame_no = 0u32;
        let mut runs_held = false;
        let mut steps_held = false;
        let mut rms_held = false;
        for i in 0..20_000 {
            if rng.below(6) == 0 {
                // One-cell frames of 1-40 cells, each tag and frame number one more than
                // the last (a greedy cell-level source), some late, some an RM cell, some
                // a step off.
                let flow = rng.below(3) as u32;
                let n = 1 + rng.below(40) as u32;
                for _ in 0..n {
                    let mut cell = Cell::data(flow, 0, true);
                    frame_no = frame_no.wrapping_add(1 + u32::from(rng.below(12) == 0));
                    cell.frame = frame_no;
                    cell.tag = if rng.below(4) == 0 {
                        frame_no ^ 1
                    } else {
                        frame_no
                    };
                    cell.hop = rng.below(2) as u16;
                    if rng.below(16) == 0 {
                        cell.flags |= flag::RM;
                    }
                    let late = if rng.below(10) == 0 { rng.below(5) } else { 0 };
                    let now = tx.busy_until + late;
                    let (arrival, first) = tx.send(&mut line, now, cell);
                    assert_eq!(first, model.is_empty());
                    model.push_back((arrival, cell));
                }
            } else if rng.below(5) == 0 {
                // A greedy source's one-cell frames with its RM cell every 2-9 cells, 1-60
                // cells, some late, some a step off, some RM cells of another CCR or out
                // of place.
                let flow = rng.below(3) as u32;
                let gap = 1 + rng.below(8) as u32;
                let ccr = 1e5 + rng.below(2) as f32;
                let n = 1 + rng.below(60) as u32;
                let mut phase = rng.below(u64::from(gap) + 1) as u32;
                for _ in 0..n {
                    let rm_due = phase == gap || rng.below(40) == 0;
                    phase = if phase == gap { 0 } else { phase + 1 };
                    let cell = if rm_due {
                        rm_cell(flow, 3e5, ccr + (rng.below(30) == 0) as u32 as f32)
                    } else {
                        frame_no = frame_no.wrapping_add(1 + u32::from(rng.below(30) == 0));
                        Cell {
                            frame: frame_no,
                            ..Cell::data(flow, frame_no, true)
                        }
                    };
                    let late = if rng.below(30) == 0 { rng.below(5) } else { 0 };
                    let now = tx.busy_until + late;
                    let (arrival, first) = tx.send(&mut line, now, cell);
                    assert_eq!(first, model.is_empty());
                    model.push_back((arrival, cell));
                }
            } else if rng.below(3) == 0 {
                // A frame of 1-20 cells, some of them late or preceded by an RM cell.
                let flow = rng.below(3) as u32;
                let tag = rng.below(2) as u32;
                let n = 1 + rng.below(20) as u32;
                frame_no = frame_no.wrapping_add(1);
                for i in 0..n {
                    let mut cell = Cell::data(flow, tag, i + 1 == n);
                    cell.frame = frame_no;
                    cell.hop = rng.below(2) as u16;
                    cell.flags |= (rng.below(4) as u16) << flag::CLASS_SHIFT;
                    if rng.below(10) == 0 {
                        cell.flags |= flag::RM;
                    }
                    let late = if rng.below(8) == 0 { rng.below(5) } else { 0 };
                    let now = tx.busy_until + late;
                    let (arrival, first) = tx.send(&mut line, now, cell);
                    assert_eq!(first, model.is_empty());
                    model.push_back((arrival, cell));
                }
            } else {
                for _ in 0..rng.below(56) {
                    let want = model
                        .pop_front()
                        .map(|(_, c)| (c, model.front().map(|(t, _)| *t)));
                    assert_eq!(line.pop_runs(|| tx.unit), want);
                }
            }
            assert_eq!(line.len(), model.len());
            runs_held |= line.slots() < line.len();
            if i % 8 == 0 {
                steps_held |= line.step_runs() > 0;
                rms_held |= line.rm_runs() > 0;
            }
        }
        while let Some((_, c)) = model.pop_front() {
            let want = Some((c, model.front().map(|(t, _)| *t)));
            assert_eq!(line.pop_runs(|| tx.unit), want);
        }
        assert!(line.pop_runs(|| tx.unit).is_none() && line.is_empty());
        assert!(runs_held, "the case held no run: it tested nothing of them");
        assert!(steps_held, "the case held no run of one-cell frames");
        assert!(
            rms_held,
            "the case held no run of one-cell frames with RM cells"
        );
    }
}
