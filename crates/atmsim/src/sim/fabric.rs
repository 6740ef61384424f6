//! The fabric: cells offered to ports, transmitted onto links, arriving at the far end
//! and delivered to the destination end system, and the ports' allocator timers.
//!
//! Per cell-hop there are two events when a port is busy (transmit-done, and the head
//! arrival on the delay line); nothing allocates per cell (queues keep their capacity).

use super::{Ev, Sim, Totals};
use crate::allocator::{AnyAllocator, RateAllocator};
use crate::cell::{Cell, FlowId, ServiceClass};
use crate::network::{Ends, LineTiming, Network, Port, NO_PORT};
use crate::port::Admission;
use atmsim_kernel::{EventQueue, LatestTimer, Time};

impl Sim<'_> {
    /// Offers a cell to port `p` and starts the transmitter if it is idle. With tracing on,
    /// [`Sim::offer_traced`] does the same and records what happened; the untraced path
    /// pays one branch. `gap`: the shortest time from `now` to the next cell offered to the
    /// port, where its lone source says so, else 0 ([`Sim::admit`]).
    #[inline(never)]
    pub(super) fn offer(&mut self, now: Time, p: usize, cell: Cell, gap: Time) {
        self.offer_inline::<false>(now, p, cell, gap);
    }

    /// An end system offers a cell to its host port `p`: [`Sim::offer`], or at a port
    /// whose line keeps runs ([`Port::line_runs`]) the same with the runs' events
    /// ([`Sim::start_tx`]). The test is the caller's and the two paths are separate
    /// functions: one `offer` holding both cost every cell of a cell-level source 26 more
    /// instructions, runs on or off (KVR, 10 VCs: 1.3 % of the run).
    /// `gap` as for [`Sim::offer`].
    #[inline(always)]
    pub(super) fn offer_at_host(&mut self, now: Time, p: usize, cell: Cell, gap: Time) {
        if self.net.ports[p].line_runs {
            self.offer_runs(now, p, cell, gap);
        } else {
            self.offer(now, p, cell, gap);
        }
    }

    /// [`Sim::offer`] at a host port whose line keeps runs.
    #[inline(never)]
    fn offer_runs(&mut self, now: Time, p: usize, cell: Cell, gap: Time) {
        self.offer_inline::<true>(now, p, cell, gap);
    }

    /// [`Sim::offer`], inlined in its caller with the whole admission: the arrival of a
    /// cell at its next port ([`Sim::arrive`]) calls it, the rarer callers go through the
    /// one out-of-line copy, [`Sim::offer`]. Left to the compiler, `admit` was a call of
    /// its own per cell-hop (registers saved, the cell passed through memory, the port
    /// indexed again); inlined, with the buffer's admission, the frame policy and the
    /// rings forced inline too (else the compiler outlines them from the larger
    /// function), cachegrind counted 4.9 % fewer instructions on the bench scenario
    /// (UBR + FBA, 2 s), 2.5 % fewer on abr-buffers-3 and 0.6 % fewer on erica-testing-3,
    /// together with the smaller changes of the same commit.
    /// `RUNS`: the port's line keeps runs ([`Sim::start_tx`]).
    #[inline(always)]
    fn offer_inline<const RUNS: bool>(&mut self, now: Time, p: usize, mut cell: Cell, gap: Time) {
        if self.trace.on {
            return self.offer_traced(now, p, cell);
        }
        if !self.faults.is_empty() && self.fault_takes(now, p, cell) {
            return;
        }
        if self.net.ports[p].takes.takes(&cell) {
            self.allocate(now, p, &mut cell);
        }
        self.admit::<RUNS>(now, p, cell, gap);
    }

    /// Offers the `n` cells of a frame (`(tag, emission number)`) at once to port `p`, which
    /// holds frames ([`PortBuffer::hold_frames`]: a TCP sender's host port). The same
    /// counts, events and order as offering its cells one by one ([`Sim::admit`]): a cell
    /// reaching a free transmitter is sent at once, the next one arms the transmit-done
    /// event, and once that is pending the others only join the queue, all in one step.
    ///
    /// The frame's cells leave back to back, so its line holds them as one run of two
    /// slots (`link`'s doc; issue 14).
    ///
    /// [`PortBuffer::hold_frames`]: crate::port::PortBuffer::hold_frames
    pub(super) fn offer_frame(&mut self, now: Time, p: usize, (tag, frame): (u32, u32), n: u32) {
        for from in 0..n {
            let port = &mut self.net.ports[p];
            if port.tx_pending {
                port.buf.arrive_frame(tag, frame, (from, n), n);
                return;
            }
            port.buf.arrive_frame(tag, frame, (from, from + 1), n);
            if port.line_runs {
                self.serve_queue::<true>(now, p);
            } else {
                self.serve_queue::<false>(now, p);
            }
        }
    }

    /// A cell joined port `p`'s queue: unless a transmit-done is already pending, the
    /// transmitter starts now if it is free, else its transmit-done is armed for when it is.
    /// `RUNS`: the port's line keeps runs ([`Port::line_runs`]; see [`Sim::start_tx`]).
    #[inline(always)]
    fn serve_queue<const RUNS: bool>(&mut self, now: Time, p: usize) {
        let port = &mut self.net.ports[p];
        if port.tx_pending {
            return;
        }
        if now >= port.busy_until {
            self.start_tx::<RUNS>(now, p);
        } else {
            port.tx_pending = true;
            let at = port.busy_until;
            self.q.schedule(at, Ev::tx_done::<RUNS>(p));
        }
    }

    /// Port `p`'s allocator sees the arriving cell (and may mark it); returns true if this
    /// arrival ended its averaging interval (the timer is then re-armed). [`Sim::offer`]
    /// calls it only for a cell the port's allocator takes (the port's
    /// [`crate::network::Port::takes`], from [`RateAllocator::cells_taken`]: none without an
    /// active allocator; KVR without rate measurement takes forward RM cells only). That
    /// test, inline, costs about two instructions an arrival (0.4 % of the UBR benchmark's);
    /// made here instead, out of line, it saved KVR a third as much (issue 14,
    /// docs/performance-journal.md, forty-second session; since the forty-ninth it reads the
    /// port alone, not the allocator). It takes the cell by
    /// reference: taking and giving it back by value measured slower on the ABR rows (issue
    /// 14, "Events and cells kept whole, thirty-sixth session").
    #[inline(never)]
    pub(super) fn allocate(&mut self, now: Time, p: usize, cell: &mut Cell) -> bool {
        let port = &self.net.ports[p];
        let q = port.buf.class_queued(ServiceClass::Abr);
        let alloc = &mut self.net.allocators[port.alloc as usize];
        if alloc.on_arrival(now, cell, q) {
            arm_interval(&mut self.q, p, alloc);
            return true;
        }
        false
    }

    /// The buffer of port `p` takes the cell (the transmitter starts if idle) or drops it.
    /// A cell reaching an empty port whose transmitter is free is sent at once, without
    /// passing through the queue's memory ([`PortBuffer::arrive_to_send`]): the same
    /// counts, events and order as queueing it and taking it back out.
    ///
    /// A cell its lone source offers while the transmitter ends the one before, the queue
    /// empty, goes onto the line at once as of that end ([`Sim::send_at`]) if nothing can
    /// look at the port before then: `gap` is the shortest time from `now` to the source's
    /// next cell (0 from every other caller: never ahead).
    ///
    /// [`PortBuffer::arrive_to_send`]: crate::port::PortBuffer::arrive_to_send
    /// `RUNS`: the port's line keeps runs ([`Sim::start_tx`]).
    #[inline(always)]
    pub(super) fn admit<const RUNS: bool>(
        &mut self,
        now: Time,
        p: usize,
        cell: Cell,
        gap: Time,
    ) -> Admission {
        let port = &mut self.net.ports[p];
        // Its plain events would meet the runs of a line that keeps them (`Sim::start_tx`).
        debug_assert!(
            RUNS || !port.line_runs,
            "a port whose line keeps runs takes cells through offer or offer_frame"
        );
        let free = !port.tx_pending && now >= port.busy_until && port.buf.queued() == 0;
        if free {
            return self.send_at::<RUNS>(now, p, cell);
        }
        // The same two tests again: sharing them measured 0.36 % more instructions on the
        // benchmark (the free path's code laid out worse).
        if port.lone_source && !port.tx_pending && port.buf.queued() == 0 {
            let end = port.busy_until;
            // The port is busy: `end > now`, so `end - now` cannot wrap.
            if end - now < gap && end <= self.slice_end {
                // Sent ahead: see [`Sim::send_at`].
                return self.send_at::<RUNS>(end, p, cell);
            }
        }
        let outcome = port.buf.arrive(cell, cell.class(), &self.net.buffers);
        match outcome {
            Admission::Enqueued => self.serve_queue::<RUNS>(now, p),
            Admission::Dropped(_) => self.count_drop(cell),
        }
        outcome
    }

    /// Port `p`, whose buffer is empty, takes `cell` and, if admitted, sends it at `at`: now,
    /// at a free transmitter; or, sent ahead, at a lone source's port ([`Port::lone_source`])
    /// at `at` = the end of the cell before, what its transmit-done would have done then, done
    /// now, and no event (issue 14: at 10 000 greedy ABR sources nearly every cell found its
    /// port busy for a few picoseconds, one event per cell more). Sent ahead, the same
    /// results as queueing it until then, because nothing can look at the port in between
    /// (the caller's conditions): its source offers no cell before `at`, no other flow
    /// crosses the port, no allocator is there, the run's slice does not end first (its
    /// caller may look at the network between slices; a time-series sample looks only at
    /// switch ports and connections), and the cell before stays on the line past `at` (a
    /// propagation delay), so the line holds the same cells with the same arrival times and
    /// events as it would (how they are laid out in runs may differ: an RM cell may join a
    /// run whose period-starting RM cell would have left the line by `at`, `link`). The
    /// queue's numbering of later events keeps their order (one number fewer taken, for the
    /// event not made).
    #[inline(always)]
    fn send_at<const RUNS: bool>(&mut self, at: Time, p: usize, cell: Cell) -> Admission {
        let port = &mut self.net.ports[p];
        let outcome = port.buf.arrive_to_send(&cell, &self.net.buffers);
        match outcome {
            Admission::Enqueued => {
                let timing = &self.net.timings[port.timing as usize];
                transmit::<RUNS>(port, timing, &mut self.q, &mut self.totals, at, p, cell);
                self.after_transmit(at, p, cell);
            }
            Admission::Dropped(_) => self.count_drop(cell),
        }
        outcome
    }

    /// A cell dropped at a port: its flow's and the run's counts.
    #[inline]
    fn count_drop(&mut self, cell: Cell) {
        self.net.flow_mut(cell.flow_id()).cells_dropped += 1;
        self.totals.cells_dropped += 1;
    }

    /// Port `p` sends the next cell of its queue, if any. `RUNS` is true where the port's
    /// line keeps runs ([`Port::line_runs`]): its cells sent back to back may join a run,
    /// and its events are the runs' own ([`Ev::TxDoneRuns`], [`Ev::ArriveRuns`]), so that
    /// every other port's per-cell code is what it was without runs (a test of the port's
    /// flag there cost 3.5 % more instructions on `atmsim bench`). Only a host port keeps
    /// runs, and its cells come through [`Sim::offer_frame`] or [`Sim::offer`], never
    /// from a line; a trace attached mid-run turns its runs off (`trace_hooks`), and a
    /// transmit-done of the runs' kind pending then goes the plain way.
    #[inline]
    pub(super) fn start_tx<const RUNS: bool>(&mut self, now: Time, p: usize) {
        if RUNS && !self.net.ports[p].line_runs {
            return self.start_tx::<false>(now, p);
        }
        let port = &mut self.net.ports[p];
        let Some(cell) = port.buf.dequeue(&self.net.buffers.slots) else {
            port.tx_pending = false;
            return;
        };
        let timing = &self.net.timings[port.timing as usize];
        transmit::<RUNS>(port, timing, &mut self.q, &mut self.totals, now, p, cell);
        self.after_transmit(now, p, cell);
    }

    /// What follows the transmission of `cell` at port `p`: an RM or VBR cell is counted
    /// for the time series, and the queue traced, with tracing on.
    #[inline(always)]
    fn after_transmit(&mut self, now: Time, p: usize, cell: Cell) {
        if cell.is_rm() || cell.class() == ServiceClass::Vbr {
            self.net.count_special_sent(p, Network::special(&cell));
        }
        if self.trace.on {
            self.trace_queue(now, p);
        }
    }

    /// The end of port `p`'s transmission: the next cell goes, if any. [`Sim::start_tx`]
    /// sets `tx_pending` on every path (cleared with none left, else from the cell it
    /// sends), so nothing clears it here first.
    #[inline]
    pub(super) fn tx_done<const RUNS: bool>(&mut self, now: Time, p: usize) {
        self.start_tx::<RUNS>(now, p);
    }

    /// The head cell of port `p`'s line arrives. `RUNS`: the line may hold runs (an event
    /// [`Ev::ArriveRuns`]; see [`Sim::start_tx`]).
    #[inline]
    pub(super) fn arrive<const RUNS: bool>(&mut self, now: Time, p: usize) {
        let port = &mut self.net.ports[p];
        let popped = if RUNS {
            let timings = &self.net.timings;
            port.line.pop_runs(|| timings[port.timing as usize].unit)
        } else {
            port.line.pop()
        };
        let Some((mut cell, next)) = popped else {
            return;
        };
        if let Some(t) = next {
            self.q.schedule(t, Ev::arrival::<RUNS>(p));
        }
        let f = cell.flow_id();
        let hop = cell.hop as usize + 1;
        let flow = self.net.flow(f);
        let (route_start, route_len) = (flow.route_start as usize, flow.route_len as usize);
        if hop < route_len {
            cell.hop = hop as u16;
            if cell.is_backward_rm() {
                cell = self.feedback_at(now, f, hop, cell);
            }
            let np = self.net.route_ports[route_start + hop] as usize;
            if self.staging.is_none() {
                self.offer_inline::<false>(now, np, cell, 0);
            } else {
                self.hold(now, np, p, cell);
            }
        } else {
            self.deliver(now, cell);
        }
    }

    /// A backward RM cell of flow `f` passes the switch of its hop `hop`: the allocator of
    /// the forward port of its VC at this node gives feedback (spec 2.1). Out of line and
    /// by value, so that [`Sim::arrive`] keeps its cell in registers: a cell written field
    /// by field to memory and read back whole waits for every store before it to reach the
    /// cache (issue 14, docs/performance-journal.md).
    #[inline(never)]
    fn feedback_at(&mut self, now: Time, f: FlowId, hop: usize, mut cell: Cell) -> Cell {
        let peer = self.net.peer_port(f, hop);
        if peer != NO_PORT {
            let er_in = cell.er();
            self.net
                .alloc_mut(peer as usize)
                .on_backward_rm(now, &mut cell);
            if self.trace.on {
                let (c, ccr, er) = (cell.connection(), cell.ccr(), cell.er());
                self.trace_feedback(now, peer as usize, c, [ccr, er_in, er], true);
            }
        }
        cell
    }

    /// Holds a cell that reached output port `np` from port `from` at `now`, to enter it
    /// with the others of this instant (`defaults.arrival_order` set; off the default path).
    #[cold]
    #[inline(never)]
    fn hold(&mut self, now: Time, np: usize, from: usize, cell: Cell) {
        if let Some(s) = self.staging.as_mut() {
            if s.hold(np, from, cell) {
                self.q.schedule(now, Ev::Admit(np as u32));
            }
        }
    }

    /// The cells that reached output port `p` at `now` enter it in the order of
    /// `defaults.arrival_order` (issue 15 section 4).
    pub(super) fn admit_held(&mut self, now: Time, p: usize) {
        let Some(s) = self.staging.as_mut() else {
            return;
        };
        let held = s.take_ordered(p);
        for &(_, cell) in &held {
            self.offer(now, p, cell, 0);
        }
        if let Some(s) = self.staging.as_mut() {
            s.give_back(p, held);
        }
    }

    /// A cell reaches the end of its route: the destination end system takes it.
    #[inline(never)]
    pub(super) fn deliver(&mut self, now: Time, cell: Cell) {
        self.totals.cells_delivered += 1;
        let f = cell.flow_id();
        self.net.flow_mut(f).cells_delivered += 1;
        match self.net.conns.ends(f.conn()) {
            Ends::Cells(_) => self.deliver_cell_level(now, cell),
            Ends::Tcp(_) => self.deliver_tcp(now, cell),
        }
    }

    /// End of port `p`'s allocator averaging interval (if generation `gen` is current).
    /// A stale timer hands its place in the queue to the latest one armed
    /// ([`RateAllocator::interval_timer`]).
    pub(super) fn on_interval(&mut self, now: Time, p: usize, gen: u32) {
        let port = &self.net.ports[p];
        let q = port.buf.class_queued(ServiceClass::Abr);
        let alloc = &mut self.net.allocators[port.alloc as usize];
        let waiting = alloc.interval_timer().and_then(LatestTimer::popped);
        if gen == alloc.generation() {
            debug_assert!(waiting.is_none(), "a live timer has none waiting");
            alloc.on_timer(now, q);
            arm_interval(&mut self.q, p, alloc);
            if self.trace.on {
                self.trace_interval(now, p);
            }
        } else if let Some(seq) = waiting {
            match alloc.interval_deadline() {
                Some(d) => {
                    let ev = Ev::Interval(p as u32, alloc.generation());
                    if let Some(timer) = alloc.interval_timer() {
                        timer.place(&mut self.q, seq, d, ev);
                    }
                }
                // Intervals no longer end by time: the waiting timer will never fire.
                None => self.q.forgo_reserved(),
            }
        }
    }
}

/// Arms the timer of allocator `a` (port `p`'s) for the interval now running, if its
/// intervals end by time: at most one event queued if it keeps a [`LatestTimer`], else a
/// new event at each arming (the stale ones are popped and ignored).
pub(super) fn arm_interval(q: &mut EventQueue<Ev>, p: usize, a: &mut AnyAllocator) {
    if let Some(d) = a.interval_deadline() {
        let ev = Ev::Interval(p as u32, a.generation());
        match a.interval_timer() {
            Some(timer) => timer.arm(q, d, ev),
            None => q.schedule(d, ev),
        }
    }
}

/// Port `p` puts `cell` on its line now (the buffer has counted it sent) and, if more
/// cells wait, schedules the end of this transmission. Takes the port its caller already
/// holds (not `p` to index again) and the port's line timing. RM and VBR cells are counted
/// for the time series by the caller ([`Network::count_special_sent`]).
///
/// [`Network::count_special_sent`]: crate::network::Network::count_special_sent
#[inline(always)]
fn transmit<const RUNS: bool>(
    port: &mut Port,
    timing: &LineTiming,
    q: &mut EventQueue<Ev>,
    totals: &mut Totals,
    now: Time,
    p: usize,
    cell: Cell,
) {
    let acc = port.clock_acc;
    let d = timing.unit.next_duration(&mut port.clock_acc);
    let arrival = now + d + timing.prop;
    // Back to back on a line that keeps runs: the cell may join its frame's (`link`).
    let first = if RUNS && now == port.busy_until {
        port.line.push_following(arrival, cell, acc)
    } else {
        port.line.push(arrival, cell)
    };
    if first {
        q.schedule(arrival, Ev::arrival::<RUNS>(p));
    }
    port.busy_until = now + d;
    totals.cell_hops += 1;
    if port.buf.queued() > 0 {
        port.tx_pending = true;
        q.schedule(now + d, Ev::tx_done::<RUNS>(p));
    } else {
        port.tx_pending = false;
    }
}
