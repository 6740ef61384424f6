//! The event loop: cells through ports and links, end systems, timers, sampling.
//!
//! This file holds the cell path (ports, links, delivery) and the TCP end systems;
//! [`cells`] holds the cell-level applications and the ABR end systems.
//!
//! Events are a closed enum ([`Ev`]) dispatched by `match`. Per cell-hop there are two
//! events when a port is busy (transmit-done, and the head arrival on the delay line);
//! nothing allocates per cell (queues keep their capacity).

mod cells;

use crate::aal5::Reassembled;
use crate::allocator::RateAllocator;
use crate::cell::flag;
use crate::metrics::Recorder;
use crate::network::Network;
use crate::network::{Ends, NO_PORT};
use crate::port::Admission;
use crate::scenario::Scenario;
use crate::tcp::AckAction;
use atmsim_kernel::{EventQueue, Time};

/// Engine events.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// Port finished transmitting a cell.
    TxDone(u32),
    /// The head cell of a port's delay line arrives at the far end.
    Arrive(u32),
    /// A connection's application starts.
    Start(u32),
    /// A connection's application stops handing new data.
    Stop(u32),
    /// Timer tick of a connection's host (tick-mode TCP).
    Tick(u32),
    /// Exact-mode retransmit timer of a connection (with generation).
    Rexmt(u32, u32),
    /// Delayed-ACK timer of a connection's receiver.
    DelAck(u32),
    /// Record a time-series sample.
    Sample,
    /// Transmit opportunity of a cell-level flow's source (with generation).
    Send(u32, u32),
    /// The application of a cell-level flow hands one more cell (rate-capped, on/off, CBR).
    Gen(u32),
    /// A request/response connection's think time ended: the next request.
    Think(u32),
    /// End of a port's allocator averaging interval by time (with generation).
    Interval(u32, u32),
    /// A signalling message of flow `.0` reaches hop `.1 >> 2`; action `.1 & 3`
    /// ([`SIG_OPEN`], [`SIG_CLOSE`], [`SIG_RESERVE`], [`SIG_RELEASE`]).
    Signal(u32, u32),
    /// A sessions connection opens or closes.
    Session(u32),
}

/// Signalling: an ABR connection opens.
pub const SIG_OPEN: u32 = 0;
/// Signalling: an ABR connection closes.
pub const SIG_CLOSE: u32 = 1;
/// Signalling: a VBR/CBR connection's reservation starts.
pub const SIG_RESERVE: u32 = 2;
/// Signalling: a VBR/CBR connection's reservation ends.
pub const SIG_RELEASE: u32 = 3;

/// A fault being injected: how many cells it still has to take.
#[derive(Clone, Debug)]
pub struct FaultState {
    /// The fault.
    pub cfg: crate::scenario::FaultCfg,
    /// Cells still to lose.
    pub left: u32,
}

/// Totals the engine counts as it runs.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Cells created at sources.
    pub cells_sent: u64,
    /// Cells that reached their destination end system.
    pub cells_delivered: u64,
    /// Cells dropped at ports.
    pub cells_dropped: u64,
    /// Port transmissions (one cell crossing one port and its link).
    pub cell_hops: u64,
    /// Cells lost to injected faults (part of `cells_dropped`).
    pub cells_dropped_by_faults: u64,
}

/// A running simulation.
pub struct Sim<'a> {
    /// The scenario.
    pub sc: &'a Scenario,
    /// The network.
    pub net: Network,
    /// Pending events.
    pub q: EventQueue<Ev>,
    /// Totals.
    pub totals: Totals,
    /// Time-series recorder.
    pub rec: Recorder,
    /// Faults still to inject.
    pub faults: Vec<FaultState>,
}

impl<'a> Sim<'a> {
    /// Builds the simulation and schedules the initial events.
    pub fn new(sc: &'a Scenario) -> Self {
        let net = Network::build(sc);
        let mut q = EventQueue::with_capacity(4 * (net.ports.len() + net.conns.len()) + 16);
        for (i, c) in sc.connections.iter().enumerate() {
            q.schedule(c.start, Ev::Start(i as u32));
            if let Some(stop) = c.stop {
                q.schedule(stop, Ev::Stop(i as u32));
            }
            if let Some(t) = c.tcp.as_ref().and_then(|t| t.tick) {
                let phase = net.conns[i].tcp_ref().expect("tcp").tick_phase;
                q.schedule(first_edge(0, t, phase), Ev::Tick(i as u32));
            }
        }
        for (p, port) in net.ports.iter().enumerate() {
            if let Some(d) = port.alloc.interval_deadline() {
                q.schedule(d, Ev::Interval(p as u32, port.alloc.generation()));
            }
        }
        let rec = Recorder::new(sc, &net);
        if let Some(si) = sc.sample_interval {
            q.schedule(si, Ev::Sample);
        }
        let faults = sc
            .faults
            .iter()
            .map(|f| FaultState {
                cfg: f.clone(),
                left: f.count,
            })
            .collect();
        Sim {
            sc,
            net,
            q,
            totals: Totals::default(),
            rec,
            faults,
        }
    }

    /// Runs until the scenario's duration (events at exactly that time included).
    pub fn run(&mut self) {
        let end = self.sc.duration;
        while let Some(t) = self.q.peek_time() {
            if t > end {
                break;
            }
            let (now, ev) = self.q.pop().expect("peeked");
            self.dispatch(now, ev);
        }
    }

    /// Runs like [`Sim::run`], but stops early after `max_events` events, or once the
    /// wall clock passes `deadline` (looked at every 4096 events), whichever comes first
    /// (issue 18, run budgets). Returns the time reached when stopped early, else None.
    pub fn run_bounded(
        &mut self,
        max_events: u64,
        deadline: Option<std::time::Instant>,
    ) -> Option<Time> {
        let end = self.sc.duration;
        let mut done: u64 = 0;
        let mut now_reached = 0;
        while let Some(t) = self.q.peek_time() {
            if t > end {
                return None;
            }
            if done >= max_events {
                return Some(now_reached);
            }
            if done % 4096 == 0 && deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                return Some(now_reached);
            }
            let (now, ev) = self.q.pop().expect("peeked");
            self.dispatch(now, ev);
            now_reached = now;
            done += 1;
        }
        None
    }

    #[inline]
    fn dispatch(&mut self, now: Time, ev: Ev) {
        match ev {
            Ev::TxDone(p) => self.tx_done(now, p as usize),
            Ev::Arrive(p) => self.arrive(now, p as usize),
            Ev::Start(c) => {
                let ci = c as usize;
                self.net.conns[ci].started = true;
                self.signal_connection(now, ci, true);
                match self.net.conns[ci].ends {
                    Ends::Tcp(_) => self.start_tcp(now, ci),
                    Ends::Cells(_) => self.start_cells(now, ci),
                }
            }
            Ev::Stop(c) => {
                let ci = c as usize;
                match self.net.conns[ci].ends {
                    // The TCP connection's VC stays open: what is sent still drains.
                    Ends::Tcp(_) => self.net.conns[ci].tcp().snd.close(),
                    Ends::Cells(_) => {
                        self.stop_cells(now, ci);
                        self.signal_connection(now, ci, false);
                    }
                }
            }
            Ev::Signal(f, code) => self.signal(now, f as usize, (code >> 2) as usize, code & 3),
            Ev::Session(c) => self.session_toggle(now, c as usize),
            Ev::Tick(c) => {
                let ci = c as usize;
                let tick = self.sc.connections[ci].tcp().tick.expect("tick mode");
                if self.net.conns[ci].tcp().snd.on_tick() {
                    self.pump(now, ci);
                }
                self.q.schedule(now + tick, Ev::Tick(c));
            }
            Ev::Rexmt(c, gen) => self.rexmt_timer(now, c as usize, gen),
            Ev::DelAck(c) => {
                let ci = c as usize;
                self.net.conns[ci].tcp().delack_pending = false;
                if let Some(ack) = self.net.conns[ci].tcp().rcv.on_delack_timer() {
                    self.send_ack(now, ci, ack);
                }
            }
            Ev::Send(f, gen) => self.on_send(now, f as usize, gen),
            Ev::Gen(f) => match self.net.conns[f as usize >> 1].ends {
                Ends::Tcp(_) => self.on_tcp_write(now, f as usize),
                Ends::Cells(_) => self.on_gen(now, f as usize),
            },
            Ev::Think(c) => self.on_think(now, c as usize),
            Ev::Interval(p, gen) => {
                let pi = p as usize;
                let port = &mut self.net.ports[pi];
                if gen == port.alloc.generation() {
                    let q = port.buf.class_queued(2);
                    port.alloc.on_timer(now, q);
                    self.arm_interval(pi);
                }
            }
            Ev::Sample => {
                self.rec.sample(now, &mut self.net);
                if let Some(si) = self.sc.sample_interval {
                    self.q.schedule(now + si, Ev::Sample);
                }
            }
        }
    }

    /// Connection `c` opens (`open`) or closes: its ABR directions signal open/close to
    /// the ports on their routes (sessions traffic signals per session instead), and a
    /// VBR/CBR reservation starts or ends.
    fn signal_connection(&mut self, now: Time, c: usize, open: bool) {
        let cfg = &self.sc.connections[c];
        if cfg.reserve > 0.0 {
            let a = if open { SIG_RESERVE } else { SIG_RELEASE };
            self.signal(now, 2 * c, 0, a);
        }
        if matches!(cfg.app, Some(crate::scenario::CellApp::Sessions { .. })) {
            return;
        }
        for d in 0..2 {
            let has_abr = self.net.conns[c]
                .dirs()
                .is_some_and(|ds| ds[d].abr.is_some());
            if has_abr {
                self.signal(now, 2 * c + d, 0, if open { SIG_OPEN } else { SIG_CLOSE });
            }
        }
    }

    /// A signalling message of flow `f` reaches hop `hop` of its route: the port's
    /// allocator learns of it, and the message goes on to the next hop after the link's
    /// propagation delay (seed 004 5.2: "a special cell through the path of the
    /// connection"). It travels on a signalling channel of its own, ahead of the data:
    /// it never waits in a queue and is never lost. A pre-established connection's
    /// opening reaches every hop at once.
    fn signal(&mut self, now: Time, f: usize, hop: usize, action: u32) {
        let p = self.net.route_port(f, hop);
        let rate = self.sc.connections[f >> 1].reserve;
        let alloc = &mut self.net.ports[p].alloc;
        match action {
            SIG_OPEN => alloc.on_open(f),
            SIG_CLOSE => alloc.on_close(f),
            SIG_RESERVE => alloc.on_reserve(rate),
            _ => alloc.on_reserve(-rate),
        }
        if hop + 1 < self.net.flows[f].route_len as usize {
            let instant = self.sc.connections[f >> 1].pre_established
                && (action == SIG_OPEN || action == SIG_RESERVE);
            if instant {
                return self.signal(now, f, hop + 1, action);
            }
            let at = now + self.net.ports[p].prop;
            self.q
                .schedule(at, Ev::Signal(f as u32, ((hop as u32 + 1) << 2) | action));
        }
    }

    /// Whether an injected fault takes `cell` as it is offered to port `p` (and counts it).
    #[cold]
    fn fault_takes(&mut self, now: Time, p: usize, cell: &crate::cell::Cell) -> bool {
        for f in &mut self.faults {
            if f.left > 0
                && f.cfg.flow == cell.flow as usize
                && f.cfg.port == p
                && now >= f.cfg.at
                && f.cfg.cell.matches(cell)
            {
                f.left -= 1;
                self.net.flows[cell.flow as usize].cells_dropped += 1;
                self.totals.cells_dropped += 1;
                self.totals.cells_dropped_by_faults += 1;
                return true;
            }
        }
        false
    }

    /// Offers a cell to port `p` and starts the transmitter if it is idle.
    #[inline]
    fn offer(&mut self, now: Time, p: usize, mut cell: crate::cell::Cell) {
        if !self.faults.is_empty() && self.fault_takes(now, p, &cell) {
            return;
        }
        let port = &mut self.net.ports[p];
        if port.alloc.is_active() {
            let q = port.buf.class_queued(2);
            if port.alloc.on_arrival(now, &mut cell, q) {
                self.arm_interval(p);
            }
        }
        let port = &mut self.net.ports[p];
        match port.buf.arrive(cell, cell.class()) {
            Admission::Enqueued => {
                if !port.tx_pending {
                    if now >= port.busy_until {
                        self.start_tx(now, p);
                    } else {
                        port.tx_pending = true;
                        let at = port.busy_until;
                        self.q.schedule(at, Ev::TxDone(p as u32));
                    }
                }
            }
            Admission::Dropped(_) => {
                self.net.flows[cell.flow as usize].cells_dropped += 1;
                self.totals.cells_dropped += 1;
            }
        }
    }

    #[inline]
    fn start_tx(&mut self, now: Time, p: usize) {
        let port = &mut self.net.ports[p];
        let Some(cell) = port.buf.dequeue() else {
            port.tx_pending = false;
            return;
        };
        let d = port.clock.next_duration();
        let arrival = now + d + port.prop;
        if port.line.push(arrival, cell) {
            self.q.schedule(arrival, Ev::Arrive(p as u32));
        }
        port.busy_until = now + d;
        port.sent_in_interval += 1;
        port.sent_rm_in_interval += cell.is_rm() as u64;
        port.sent_vbr_in_interval += (cell.class() == 1) as u64;
        self.totals.cell_hops += 1;
        if port.buf.queued() > 0 {
            port.tx_pending = true;
            self.q.schedule(now + d, Ev::TxDone(p as u32));
        } else {
            port.tx_pending = false;
        }
    }

    #[inline]
    fn tx_done(&mut self, now: Time, p: usize) {
        self.net.ports[p].tx_pending = false;
        self.start_tx(now, p);
    }

    #[inline]
    fn arrive(&mut self, now: Time, p: usize) {
        let Some((mut cell, next)) = self.net.ports[p].line.pop() else {
            return;
        };
        if let Some(t) = next {
            self.q.schedule(t, Ev::Arrive(p as u32));
        }
        let f = cell.flow as usize;
        let hop = cell.hop as usize + 1;
        if hop < self.net.flows[f].route_len as usize {
            cell.hop = hop as u16;
            if cell.flags & (flag::RM | flag::DIR) == (flag::RM | flag::DIR) {
                // A backward RM cell passes a switch: the allocator of the forward port of
                // its VC at this node gives feedback (spec 2.1).
                let peer = self.net.peer_port(f, hop);
                if peer != NO_PORT {
                    self.net.ports[peer as usize]
                        .alloc
                        .on_backward_rm(now, &mut cell);
                }
            }
            let np = self.net.route_port(f, hop);
            self.offer(now, np, cell);
        } else {
            self.deliver(now, cell);
        }
    }

    fn deliver(&mut self, now: Time, cell: crate::cell::Cell) {
        self.totals.cells_delivered += 1;
        let f = cell.flow as usize;
        self.net.flows[f].cells_delivered += 1;
        match &self.net.conns[f >> 1].ends {
            Ends::Cells(_) => {
                self.deliver_cell_level(now, cell);
                return;
            }
            Ends::Tcp(t) if t.dirs.is_some() => {
                if cell.is_rm() {
                    self.deliver_rm(now, cell);
                    return;
                }
                self.deliver_abr_data(now, &cell);
            }
            Ends::Tcp(_) => {}
        }
        if let Reassembled::Frame(tag) = self.net.flows[f].reassemble(&cell) {
            let c = f >> 1;
            if f & 1 == 0 {
                self.on_segment(now, c, tag);
            } else {
                self.net.conns[c].tcp().snd.on_ack(tag, now);
                self.pump(now, c);
            }
        }
    }

    fn on_segment(&mut self, now: Time, c: usize, seg: u32) {
        let conn = self.net.conns[c].tcp();
        let (action, delivered) = conn.rcv.on_segment(seg);
        let bytes = delivered as u64 * conn.mss as u64;
        conn.delivered_bytes += bytes;
        if now >= self.sc.warmup {
            conn.goodput_bytes += bytes;
        }
        match action {
            AckAction::Now(ack) => self.send_ack(now, c, ack),
            AckAction::Delay => {
                if !conn.delack_pending {
                    conn.delack_pending = true;
                    let tcp = self.sc.connections[c].tcp();
                    let at = first_edge(now, tcp.delayed_ack_timeout, conn.tick_phase);
                    self.q.schedule(at, Ev::DelAck(c as u32));
                }
            }
        }
    }

    fn send_ack(&mut self, now: Time, c: usize, ack: u32) {
        self.emit_frame(now, 2 * c + 1, ack);
    }

    /// Segments a frame into cells and offers them to the flow's first port; over ABR,
    /// queues them at the flow's ABR source, which sends them paced at ACR.
    fn emit_frame(&mut self, now: Time, f: usize, tag: u32) {
        if let Ends::Tcp(t) = &mut self.net.conns[f >> 1].ends {
            if let Some(dirs) = t.dirs.as_mut() {
                let n = self.net.flows[f].cells_per_frame;
                dirs[f & 1].push_frame(tag, n);
                self.kick(now, f);
                return;
            }
        }
        let p = self.net.route_port(f, 0);
        let flow = &mut self.net.flows[f];
        let n = flow.cells_per_frame;
        let frame = flow.next_frame;
        flow.next_frame = flow.next_frame.wrapping_add(1);
        flow.frames_sent += 1;
        flow.cells_sent += n as u64;
        self.totals.cells_sent += n as u64;
        for i in 0..n {
            let cell = self.net.new_cell(f, tag, frame, i + 1 == n);
            self.offer(now, p, cell);
        }
    }

    /// Lets connection `c` send all the segments its window allows (over ABR with a
    /// bounded source queue, as many as the queue has room for: back-pressure).
    fn pump(&mut self, now: Time, c: usize) {
        if !self.net.conns[c].started {
            return;
        }
        let cells = self.net.flows[2 * c].cells_per_frame;
        loop {
            let conn = self.net.conns[c].tcp();
            if let Some(d) = conn.dirs.as_mut() {
                if !d[0].has_room(cells) {
                    d[0].blocked = true;
                    break;
                }
            }
            let Some(seg) = conn.snd.next_segment(now) else {
                break;
            };
            self.emit_frame(now, 2 * c, seg);
        }
        self.sync_exact_timer(c);
    }

    /// A TCP connection starts: its ABR end systems begin integrating ACR, a periodic
    /// application schedules its first write, and the sender sends what it may.
    fn start_tcp(&mut self, now: Time, c: usize) {
        let warmup = self.sc.warmup;
        let conn = self.net.conns[c].tcp();
        if let Some(d) = conn.dirs.as_mut() {
            for dir in d.iter_mut() {
                dir.acr_since = now.max(warmup);
            }
        }
        if let crate::scenario::TcpApp::Periodic {
            segments, burst_at, ..
        } = self.sc.connections[c].tcp().app
        {
            if segments > 0 {
                self.q.schedule(now, Ev::Gen(2 * c as u32));
            }
            self.q
                .schedule(burst_at.max(now), Ev::Gen(2 * c as u32 + 1));
        }
        self.pump(now, c);
    }

    /// The application of TCP connection `f >> 1` writes into the socket (seed 002's
    /// generator): `Gen(2c)` events are the single-segment writes every interval,
    /// `Gen(2c + 1)` is the final burst.
    fn on_tcp_write(&mut self, now: Time, f: usize) {
        let c = f >> 1;
        let crate::scenario::TcpApp::Periodic {
            interval,
            segments,
            burst_segments,
            ..
        } = self.sc.connections[c].tcp().app
        else {
            return;
        };
        let conn = self.net.conns[c].tcp();
        if f & 1 == 0 {
            conn.writes += 1;
            conn.snd.app_write(1);
            if conn.writes < segments {
                self.q.schedule(now + interval, Ev::Gen(f as u32));
            }
        } else {
            conn.snd.app_write(burst_segments);
        }
        self.pump(now, c);
    }

    /// Exact timers: keep one pending event no later than the sender's deadline.
    fn sync_exact_timer(&mut self, c: usize) {
        let conn = self.net.conns[c].tcp();
        let Some(d) = conn.snd.deadline() else {
            return;
        };
        match conn.timer_at {
            Some(t) if t <= d => {} // the pending event will re-check and re-arm
            _ => {
                conn.timer_gen = conn.timer_gen.wrapping_add(1);
                conn.timer_at = Some(d);
                self.q.schedule(d, Ev::Rexmt(c as u32, conn.timer_gen));
            }
        }
    }

    fn rexmt_timer(&mut self, now: Time, c: usize, gen: u32) {
        let conn = self.net.conns[c].tcp();
        if gen != conn.timer_gen {
            return;
        }
        conn.timer_at = None;
        if conn.snd.on_deadline(now) {
            self.pump(now, c);
        } else {
            self.sync_exact_timer(c);
        }
    }
}

impl Sim<'_> {
    /// Schedules the timer of port `p`'s allocator for the interval now running.
    fn arm_interval(&mut self, p: usize) {
        let a = &self.net.ports[p].alloc;
        if let Some(d) = a.interval_deadline() {
            self.q.schedule(d, Ev::Interval(p as u32, a.generation()));
        }
    }
}

/// The first time strictly after `now` on the grid `phase + k * period`.
pub fn first_edge(now: Time, period: Time, phase: Time) -> Time {
    let phase = phase % period;
    if now < phase {
        return phase;
    }
    let k = (now - phase) / period + 1;
    phase + k * period
}

#[cfg(test)]
mod tests {
    use super::first_edge;

    #[test]
    fn edges() {
        assert_eq!(first_edge(0, 100, 0), 100);
        assert_eq!(first_edge(99, 100, 0), 100);
        assert_eq!(first_edge(100, 100, 0), 200);
        assert_eq!(first_edge(0, 100, 30), 30);
        assert_eq!(first_edge(30, 100, 30), 130);
    }
}
