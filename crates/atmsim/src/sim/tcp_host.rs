//! TCP end systems in the event loop: segments out (window permitting), segments and
//! ACKs in, the delayed-ACK and retransmit timers, and seed 002's periodic writer.

use super::{first_edge, Ev, Sim};
use crate::aal5::Reassembled;
use crate::cell::{Cell, FlowId};
use crate::scenario::TcpApp;
use crate::tcp::AckAction;
use atmsim_kernel::{MaybeTime, Time};

impl Sim<'_> {
    /// A cell of a TCP connection reaches its destination end system: over ABR,
    /// RM cells go to the ABR end systems and data cells are counted there; a complete
    /// frame is a segment (forward) or an ACK (reverse).
    pub(super) fn deliver_tcp(&mut self, now: Time, cell: Cell) {
        let f = cell.flow_id();
        if let Some(t) = self.net.conns.tcp_ref(f.conn()) {
            if t.dirs.is_some() {
                if cell.is_rm() {
                    self.deliver_rm(now, cell);
                    return;
                }
                self.deliver_abr_data(now, &cell);
            }
        }
        if let Reassembled::Frame(tag) = self.net.reassemble(f, &cell) {
            let c = f.conn();
            if !f.is_reverse() {
                self.on_segment(now, c, tag);
            } else {
                let t = self.net.conns.tcp(c);
                if let Some((ack, blocks)) = t.rcv.read_ack(tag) {
                    t.snd.on_ack_sack(ack, blocks, now);
                }
                self.pump(now, c);
            }
        }
    }

    /// The next tick of tick ring `r` ([`super::ticks`]): the sender's clock of the
    /// connection at its head ticks; its next tick is armed one period on.
    pub(super) fn on_tick(&mut self, now: Time, r: usize) {
        let c = self.ticks.head(r, now);
        if self.net.conns.tcp(c).snd.on_tick() {
            self.pump(now, c);
        }
        self.ticks.rearm(r, now, &mut self.q);
        if self.ticks.hints {
            self.hint_ticks(r);
        }
    }

    /// The delayed-ACK timer of connection `c`'s receiver fires.
    pub(super) fn on_delack(&mut self, now: Time, c: usize) {
        self.net.conns.tcp(c).delack_pending = false;
        if let Some(ack) = self.net.conns.tcp(c).rcv.on_delack_timer() {
            self.send_ack(now, c, ack);
        }
    }

    pub(super) fn on_segment(&mut self, now: Time, c: usize, seg: u32) {
        let conn = self.net.conns.tcp(c);
        let (action, _) = conn.rcv.on_segment(seg);
        if now < self.sc.warmup {
            // The segments delivered so far do not count as goodput ([`TcpConn::goodput_bytes`]).
            conn.warm_from = conn.rcv.rcv_nxt;
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

    /// The ACK frame's tag is the cumulative ACK, or with SACK the receiver's record of the
    /// ACK and its blocks (`tcp::receiver::AckRing`).
    pub(super) fn send_ack(&mut self, now: Time, c: usize, ack: u32) {
        let tag = self.net.conns.tcp(c).rcv.ack_tag(ack);
        self.emit_frame(now, FlowId::reverse(c), tag);
    }

    /// Segments a frame into cells and offers them to the flow's first port; over ABR,
    /// queues them at the flow's ABR source, which sends them paced at ACR.
    pub(super) fn emit_frame(&mut self, now: Time, f: FlowId, tag: u32) {
        if let Some(t) = self.net.conns.tcp_mut(f.conn()) {
            if let Some(dirs) = t.dirs.as_mut() {
                let n = self.net.flows[f.index()].cells_per_frame;
                dirs[f.dir()].push_frame(tag, n);
                self.kick(now, f);
                return;
            }
        }
        let p = self.net.source_port(f);
        let flow = self.net.flow_mut(f);
        let n = flow.cells_per_frame;
        let frame = flow.next_frame;
        flow.next_frame = flow.next_frame.wrapping_add(1);
        flow.frames_sent += 1;
        flow.cells_sent += n as u64;
        self.totals.cells_sent += n as u64;
        if self.net.ports[p].buf.holds_frames() {
            self.offer_frame(now, p, (tag, frame), n);
            return;
        }
        for i in 0..n {
            let cell = self.net.new_cell(f, tag, frame, i + 1 == n);
            self.offer_at_host(now, p, cell, 0);
        }
    }

    /// Lets connection `c` send all the segments its window allows (over ABR with a
    /// bounded source queue, as many as the queue has room for: back-pressure). Every
    /// event that changes a sender (an ACK, a timeout, a write) ends here, so the TCP trace
    /// looks at the sender here.
    pub(super) fn pump(&mut self, now: Time, c: usize) {
        if !self.net.conns.tcp(c).started {
            return;
        }
        let cells = self.net.flow(FlowId::forward(c)).cells_per_frame;
        loop {
            let conn = self.net.conns.tcp(c);
            if let Some(d) = conn.dirs.as_mut() {
                if !d[0].has_room(cells) {
                    d[0].block();
                    break;
                }
            }
            let Some(seg) = conn.snd.next_segment(now) else {
                break;
            };
            self.emit_frame(now, FlowId::forward(c), seg);
        }
        self.sync_exact_timer(c);
        if self.trace.on {
            self.trace_tcp(now, c);
        }
    }

    /// A TCP connection starts: its ABR end systems begin integrating ACR, a periodic
    /// application schedules its first write, and the sender sends what it may.
    pub(super) fn start_tcp(&mut self, now: Time, c: usize) {
        let warmup = self.sc.warmup;
        let conn = self.net.conns.tcp(c);
        // Set here, not in the start event's dispatch, whose code every other event shares:
        // signalling the connection's opening, just before, sends nothing.
        conn.started = true;
        if let Some(d) = conn.dirs.as_mut() {
            for dir in d.iter_mut() {
                dir.start(now, warmup);
            }
        }
        if let TcpApp::Periodic {
            segments, burst_at, ..
        } = self.sc.connections[c].tcp().app
        {
            if segments > 0 {
                self.q.schedule(now, Ev::Write(c as u32));
            }
            self.q.schedule(burst_at.max(now), Ev::Burst(c as u32));
        }
        self.pump(now, c);
    }

    /// The periodic application of TCP connection `c` writes into the socket (seed 002's
    /// generator): a single segment every interval ([`Ev::Write`]), or its final burst
    /// ([`Ev::Burst`]).
    pub(super) fn on_tcp_write(&mut self, now: Time, c: usize, burst: bool) {
        let TcpApp::Periodic {
            interval,
            segments,
            burst_segments,
            ..
        } = self.sc.connections[c].tcp().app
        else {
            return;
        };
        let conn = self.net.conns.tcp(c);
        if burst {
            conn.snd.app_write(burst_segments);
        } else {
            conn.writes += 1;
            conn.snd.app_write(1);
            if conn.writes < segments {
                self.q.schedule(now + interval, Ev::Write(c as u32));
            }
        }
        self.pump(now, c);
    }

    /// Exact timers: keep one pending event no later than the sender's deadline.
    pub(super) fn sync_exact_timer(&mut self, c: usize) {
        let conn = self.net.conns.tcp(c);
        let Some(d) = conn.snd.deadline() else {
            return;
        };
        match conn.timer_at.get() {
            Some(t) if t <= d => {} // the pending event will re-check and re-arm
            _ => {
                conn.timer_gen = conn.timer_gen.wrapping_add(1);
                conn.timer_at = MaybeTime::some(d);
                self.q.schedule(d, Ev::Rexmt(c as u32, conn.timer_gen));
            }
        }
    }

    pub(super) fn rexmt_timer(&mut self, now: Time, c: usize, gen: u32) {
        let conn = self.net.conns.tcp(c);
        if gen != conn.timer_gen {
            return;
        }
        conn.timer_at = MaybeTime::NONE;
        if conn.snd.on_deadline(now) {
            self.pump(now, c);
        } else {
            self.sync_exact_timer(c);
        }
    }
}
