//! The engine's trace hooks ([`crate::trace`]): each reads the state an event left and
//! records one row. The event loop calls them only behind `if self.trace.on`, so an
//! untraced run pays one branch per call site; they never change the simulation.

use super::Sim;
use crate::allocator::RateAllocator;
use crate::cell::{Cell, FlowId};
use crate::port::{Admission, DropReason};
use crate::tcp::congestion::Recovery;
use crate::trace::{self, mbps, AllocatorView, Kind, TcpTrack, TraceSink, Tracer};
use atmsim_kernel::{time, Time};

impl<'a> Sim<'a> {
    /// Attaches a trace sink: the scenario's `[trace]` table is recorded into it (nothing
    /// happens for a scenario without one). Call before running.
    pub fn attach_trace(&mut self, sink: Box<dyn TraceSink + 'a>) {
        let Some(cfg) = self.sc.trace.as_ref() else {
            return;
        };
        let mut t = Tracer::new(cfg, sink);
        let ports: Vec<String> = (0..self.sc.ports.len())
            .map(|p| self.sc.port_name(p).to_string())
            .collect();
        let conns: Vec<String> = self
            .sc
            .connection_names
            .iter()
            .map(str::to_string)
            .collect();
        if let Some(s) = t.sink_mut() {
            s.begin(&ports, &conns);
        }
        self.trace = t;
        // Traces see each cell offered to a port: host ports hold cells, not frames (the
        // frames waiting, if the trace comes mid-run, become cells).
        for port in self.net.ports.iter_mut() {
            if port.buf.holds_frames() {
                port.buf.hold_cells();
            }
            // Cells now come one by one through the traced path (`Sim::admit` of a plain
            // line): the line keeps no new run (the runs on it, mid-run, are taken by its
            // pending `Ev::ArriveRuns`).
            port.line_runs = false;
        }
        // What the TCP and ACR traces compare with: the state at the start.
        for c in 0..self.net.conns.len() {
            if self.net.conns.tcp_ref(c).is_some() {
                self.trace.tcp[c] = self.tcp_seen(c);
            }
            for f in [FlowId::forward(c), FlowId::reverse(c)] {
                let dir = self.net.conns.dir(c, f.dir());
                if let Some(acr) = dir.and_then(|d| d.abr()).map(|s| s.acr()) {
                    self.trace.acr[f.index()] = acr;
                }
            }
        }
    }

    /// Ends the trace at the time the run reached: the last rows go to the sink. Returns
    /// the sink's error, if it failed.
    pub fn finish_trace(&mut self, end: Time) -> Result<(), String> {
        self.trace.finish(end)
    }

    /// [`Sim::offer`] with tracing on: the same steps, each recorded (an injected fault's
    /// drop, the cell as load of its connection, the allocator's interval end and
    /// forward-RM feedback, the queue, a drop).
    #[cold]
    #[inline(never)]
    pub(super) fn offer_traced(&mut self, now: Time, p: usize, mut cell: Cell) {
        if !self.faults.is_empty() && self.fault_takes(now, p, cell) {
            self.trace_drop(now, p, &cell, None);
            return;
        }
        let er_in = cell.er();
        if self.trace.records(Kind::Load)
            && cell.class() == crate::cell::ServiceClass::Abr
            && !cell.is_backward_rm()
            && self.net.alloc(p).is_active()
        {
            // Counted before the allocator sees it: the cell that ends an interval is in it.
            self.trace.count_load(p, cell.connection());
        }
        if self.allocate(now, p, &mut cell) {
            self.trace_interval(now, p);
        }
        if cell.is_rm() && !cell.is_backward_rm() && self.net.alloc(p).is_active() {
            let rates = [cell.ccr(), er_in, cell.er()];
            self.trace_feedback(now, p, cell.connection(), rates, false);
        }
        match self.admit::<false>(now, p, cell, 0) {
            Admission::Enqueued => self.trace_queue(now, p),
            Admission::Dropped(reason) => self.trace_drop(now, p, &cell, Some(reason)),
        }
    }

    /// A cell of port `p` was dropped (`reason` None: by an injected fault).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_drop(
        &mut self,
        now: Time,
        p: usize,
        cell: &Cell,
        reason: Option<DropReason>,
    ) {
        let c = cell.connection();
        if !self.trace.wants(Kind::Drop, now) || !self.trace.port(p) || !self.trace.conn(c) {
            return;
        }
        let rule = match reason {
            None => "fault",
            Some(DropReason::BufferFull) => "buffer_full",
            Some(DropReason::PartialDiscard) => "ppd",
            // The policy that refused the frame, by its registered name (a label of
            // `DROP_REASONS`: a test keeps every registered policy among them).
            Some(DropReason::FrameDiscard) => self.sc.ports.settings(p).policy.name(),
        };
        let kind = if cell.is_rm() {
            "rm"
        } else if cell.is_eom() {
            "eom"
        } else {
            "data"
        };
        let q = self.net.ports[p].buf.queued();
        self.trace.push(
            Kind::Drop,
            &[
                time::to_secs_f64(now),
                p as f64,
                c as f64,
                cell.flow_id().is_reverse() as u8 as f64,
                trace::code(trace::CELL_KINDS, kind),
                trace::code(trace::DROP_REASONS, rule),
                q as f64,
            ],
        );
    }

    /// Port `p`'s buffer changed (a cell in or out).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_queue(&mut self, now: Time, p: usize) {
        if self.trace.records(Kind::Queue) && self.trace.port(p) {
            let q = self.net.ports[p].buf.queued();
            self.trace.queue_changed(now, p, q);
        }
    }

    /// Port `p`'s allocator ended an averaging interval (its `allocator` row, and the
    /// `load` rows of the connections seen at the port).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_interval(&mut self, now: Time, p: usize) {
        if self.trace.records(Kind::Load) {
            self.trace.load_interval(now, p);
        }
        if !self.trace.wants(Kind::Allocator, now) || !self.trace.port(p) {
            return;
        }
        let Some(v) = AllocatorView::of(self.net.alloc(p)) else {
            return;
        };
        let q = self.net.ports[p]
            .buf
            .class_queued(crate::cell::ServiceClass::Abr);
        self.push_allocator(now, p, "interval", -1.0, &v, q, [f64::NAN; 3]);
    }

    /// Port `p`'s allocator saw an RM cell of connection `c` carrying `[CCR, ER on
    /// arrival, ER after the allocator]` (cells/s). Recorded where the algorithm gives its
    /// feedback: backward RM cells (`backward`), or forward RM cells for KVR.
    #[cold]
    #[inline(never)]
    pub(super) fn trace_feedback(
        &mut self,
        now: Time,
        p: usize,
        c: usize,
        rates: [f32; 3],
        backward: bool,
    ) {
        if backward && self.trace.records(Kind::Load) {
            self.trace.count_brm(p, c);
        }
        if !self.trace.wants(Kind::Allocator, now) || !self.trace.port(p) || !self.trace.conn(c) {
            return;
        }
        let alloc = self.net.alloc(p);
        let [ccr, er_in, er] = rates;
        if backward == AllocatorView::on_forward_rm(alloc) && !(backward && er != er_in) {
            return;
        }
        let Some(v) = AllocatorView::of(alloc) else {
            return;
        };
        let q = self.net.ports[p]
            .buf
            .class_queued(crate::cell::ServiceClass::Abr);
        let rates = [mbps(ccr as f64), mbps(er_in as f64), mbps(er as f64)];
        self.push_allocator(now, p, "feedback", c as f64, &v, q, rates);
    }

    #[allow(clippy::too_many_arguments)]
    fn push_allocator(
        &mut self,
        now: Time,
        p: usize,
        event: &str,
        conn: f64,
        v: &AllocatorView,
        q: u32,
        rates: [f64; 3],
    ) {
        self.trace.push(
            Kind::Allocator,
            &[
                time::to_secs_f64(now),
                p as f64,
                trace::code(trace::ALLOCATOR_EVENTS, event),
                conn,
                v.z,
                v.fair_share,
                v.max_alloc_previous,
                v.abr_capacity,
                v.active_vcs,
                v.queue_factor,
                v.bottlenecked_vcs,
                v.free,
                v.mcr_sum,
                q as f64,
                rates[0],
                rates[1],
                rates[2],
            ],
        );
    }

    /// The ABR source of flow `f` took a backward RM cell (`brm`), or sent a forward RM
    /// cell (`brm` None: a row only if source rules 5-6 changed its ACR).
    #[cold]
    #[inline(never)]
    pub(super) fn trace_acr(&mut self, now: Time, f: FlowId, brm: Option<&Cell>) {
        let c = f.conn();
        let dir = self.net.conns.dir(c, f.dir());
        let Some(acr) = dir.and_then(|d| d.abr()).map(|s| s.acr()) else {
            return;
        };
        let last = std::mem::replace(&mut self.trace.acr[f.index()], acr);
        if !self.trace.wants(Kind::Acr, now)
            || !self.trace.conn(c)
            || (brm.is_none() && acr == last)
        {
            return;
        }
        let (event, er, ci, ni) = match brm {
            Some(b) => (
                "brm",
                mbps(b.er() as f64),
                (b.flags & crate::cell::flag::CI != 0) as u8 as f64,
                (b.flags & crate::cell::flag::NI != 0) as u8 as f64,
            ),
            None => ("frm", f64::NAN, 0.0, 0.0),
        };
        self.trace.push(
            Kind::Acr,
            &[
                time::to_secs_f64(now),
                c as f64,
                f.is_reverse() as u8 as f64,
                trace::code(trace::ACR_EVENTS, event),
                mbps(acr),
                er,
                ci,
                ni,
            ],
        );
    }

    /// The state the TCP trace compares a sender with: what it was at the last look.
    fn tcp_seen(&self, c: usize) -> TcpTrack {
        let s = &self.net.conns.tcp_ref(c).expect("tcp").snd;
        TcpTrack {
            cwnd: s.win.cwnd,
            ssthresh: s.win.ssthresh,
            rto: s.rto_secs(),
            timeouts: s.stats.timeouts,
            fast_retransmits: s.stats.fast_retransmits,
            dup_acks: s.stats.dup_acks,
            una: s.snd_una,
            ..self.trace.tcp[c]
        }
    }

    /// TCP connection `c`'s sender after an event (an ACK, a timer, a write, and the sends
    /// they allowed): one row if its state changed since the last look. Fast recovery
    /// follows the algorithm's own rule ([`CongestionControl::recovery`]: reno, the next new
    /// ACK ends it; newreno and sack, an ACK at or past the `recover` point, RFC 6582 /
    /// RFC 6675; tahoe and none have none).
    ///
    /// [`CongestionControl::recovery`]: crate::tcp::congestion::CongestionControl::recovery
    #[cold]
    #[inline(never)]
    pub(super) fn trace_tcp(&mut self, now: Time, c: usize) {
        if !self.trace.records(Kind::Tcp) || !self.trace.conn(c) {
            return;
        }
        let b = self.trace.tcp[c];
        let mut track = self.tcp_seen(c);
        self.trace.tcp[c] = track;
        if !self.trace.wants(Kind::Tcp, now) {
            return;
        }
        let s = &self.net.conns.tcp_ref(c).expect("tcp").snd;
        let rule = s.cc.recovery();
        let event = if track.timeouts > b.timeouts {
            track.in_recovery = false;
            "timeout"
        } else if track.fast_retransmits > b.fast_retransmits {
            track.in_recovery = rule != Recovery::None;
            track.recover = s.snd_max;
            "fast_retransmit"
        } else if track.una > b.una {
            if track.in_recovery && (rule == Recovery::NextNewAck || track.una >= track.recover) {
                track.in_recovery = false;
                "recovery_exit"
            } else if track.in_recovery {
                "partial_ack"
            } else if track.cwnd != b.cwnd || track.ssthresh != b.ssthresh || track.rto != b.rto {
                "ack"
            } else {
                return;
            }
        } else if track.dup_acks > b.dup_acks
            && (track.cwnd != b.cwnd || track.ssthresh != b.ssthresh)
        {
            "dup_ack"
        } else {
            return;
        };
        let state = if track.in_recovery {
            "fast_recovery"
        } else if track.cwnd < track.ssthresh {
            "slow_start"
        } else {
            "congestion_avoidance"
        };
        let row = [
            time::to_secs_f64(now),
            c as f64,
            trace::code(trace::TCP_EVENTS, event),
            trace::code(trace::TCP_STATES, state),
            track.cwnd as f64,
            track.ssthresh as f64,
            track.rto,
            s.srtt_secs().unwrap_or(f64::NAN),
            track.una as f64,
            s.outstanding() as f64,
        ];
        self.trace.tcp[c] = track;
        self.trace.push(Kind::Tcp, &row);
    }
}
