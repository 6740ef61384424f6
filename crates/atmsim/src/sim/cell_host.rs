//! Cell-level applications in the event loop: the engine side of the traffic sources of
//! [`crate::traffic`] (seed 003 sections 5.6-5.7, seed 004 sections 5.2 and 6).
//!
//! A source fills the backlog of a direction ([`crate::network::CellDir`]) through its
//! hooks; `Start`, `Gen`, `Think`, `Session` and message-delivery events call them here.
//! The transmitter that drains the backlog is the end system's ([`super::abr_host`]).

use super::{Ev, Sim, SIG_CLOSE, SIG_OPEN};
use crate::cell::{Cell, FlowId};
use crate::traffic::{OnMessage, Start, TrafficModel};
use atmsim_kernel::Time;

impl Sim<'_> {
    /// The application of connection `c` starts.
    pub(super) fn start_cells(&mut self, now: Time, c: usize) {
        let warmup = self.sc.warmup;
        let cc = self.net.conns.cells_mut(c);
        for d in cc.dirs_mut() {
            d.start(now, warmup);
        }
        let f = FlowId::forward(c);
        match cc.source.start(now, &mut cc.fwd) {
            Start::Kick => self.kick(now, f),
            Start::GenAt(t) => self.q.schedule(t, Ev::Gen(f)),
            Start::Session => {
                let app = self.sc.connections[c].app.as_deref();
                debug_assert!(
                    app.is_some_and(|a| a.signals_per_session()),
                    "a source run by sessions says so (TrafficCfg::signals_per_session)"
                );
                self.session_toggle(now, c)
            }
        }
    }

    /// The application of connection `c` stops handing cells (a session in progress
    /// closes).
    pub(super) fn stop_cells(&mut self, now: Time, c: usize) {
        let cc = self.net.conns.cells_mut(c);
        let (open, abr) = (cc.fwd.is_session_open(), cc.fwd.abr().is_some());
        for d in cc.dirs_mut() {
            d.stop();
        }
        if open && abr {
            self.signal(now, FlowId::forward(c), 0, SIG_CLOSE);
        }
    }

    /// Sessions traffic (seed 004 section 6): the connection opens (signalled; the ABR
    /// source starts again from ICR; greedy) or closes (signalled; nothing more is sent),
    /// and the next change is drawn.
    pub(super) fn session_toggle(&mut self, now: Time, c: usize) {
        let warmup = self.sc.warmup;
        let cc = self.net.conns.cells_mut(c);
        if cc.fwd.is_stopped() {
            return;
        }
        let opening = !cc.fwd.is_session_open();
        let len = cc.source.next_period(opening);
        let dir = &mut cc.fwd;
        let abr = dir.abr().is_some();
        dir.set_session_open(opening);
        if opening {
            dir.integrate_acr(now, warmup);
            if let Some(src) = dir.abr_mut() {
                src.reopen();
            }
            dir.set_greedy();
            if abr {
                self.signal(now, FlowId::forward(c), 0, SIG_OPEN);
            }
            self.kick(now, FlowId::forward(c));
        } else {
            dir.clear_backlog();
            if abr {
                self.signal(now, FlowId::forward(c), 0, SIG_CLOSE);
            }
        }
        self.q.schedule(now + len, Ev::Session(c as u32));
    }

    /// The application of flow `f` hands more cells (its `Gen` event).
    pub(super) fn on_gen(&mut self, now: Time, f: FlowId) {
        let (dir, source) = self.net.conns.cells_mut(f.conn()).dir_and_source(f.dir());
        if dir.is_stopped() {
            return;
        }
        if let Some(n) = source.on_gen(now, dir) {
            self.q.schedule(n, Ev::Gen(f));
        }
        self.kick(now, f);
    }

    /// A request/response client's think time ended: it sends the next request.
    pub(super) fn on_think(&mut self, now: Time, c: usize) {
        let cc = self.net.conns.cells_mut(c);
        if cc.fwd.is_stopped() {
            return;
        }
        cc.source.on_think(&mut cc.fwd);
        self.kick(now, FlowId::forward(c));
    }

    /// A cell of a cell-level connection reaches the end of its route.
    pub(super) fn deliver_cell_level(&mut self, now: Time, cell: Cell) {
        let f = cell.flow_id();
        let c = f.conn();
        if cell.is_rm() {
            self.deliver_rm(now, cell);
            return;
        }
        let warm = now >= self.sc.warmup;
        self.net.reassemble(f, &cell);
        let cc = self.net.conns.cells_mut(c);
        let dir = cc.dir_mut(f.dir());
        dir.receive_data(&cell, warm);
        if cell.is_eom() {
            dir.message_received();
            match cc
                .source
                .on_message(now, f.is_reverse(), cc.rev.as_deref_mut())
            {
                OnMessage::Nothing => {}
                OnMessage::KickReverse => self.kick(now, f.opposite()),
                OnMessage::ThinkUntil(t) => self.q.schedule(t, Ev::Think(c as u32)),
            }
        }
    }
}
