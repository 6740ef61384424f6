//! The end systems' transmitters and receivers: ABR source and destination behaviour
//! in the event loop.
//!
//! Each direction of a cell-level connection (and of a TCP connection over ABR) has a
//! transmitter at its source host. Under ABR it is the TM 4.0 source end system
//! ([`crate::abr::AbrSource`]: pacing at ACR, forward RM cells every Nrm cells, rules
//! 5/6 before each forward RM cell); otherwise it sends the backlog at its fixed peak
//! rate (the access link rate). Destinations turn forward RM cells around at once
//! (spec 9.9) and hand backward RM cells to the source of the opposite direction
//! (rules 8-9).

use super::{Ev, Sim};
use crate::abr::NextCell;
use crate::cell::{flag, Cell, FlowId};
use atmsim_kernel::Time;

impl Sim<'_> {
    /// Makes sure flow `f`'s transmitter has a send event at the right time.
    pub(super) fn kick(&mut self, now: Time, f: FlowId) {
        if let Some((at, gen)) = self.net.dir_mut(f).arm_send(now) {
            self.q.schedule(at, Ev::Send(f, gen));
        }
    }

    /// A transmit opportunity of flow `f`'s source.
    pub(super) fn on_send(&mut self, now: Time, f: FlowId, gen: u32) {
        let warmup = self.sc.warmup;
        let dir = self.net.dir_mut(f);
        if !dir.take_send(gen) {
            return;
        }
        let data = dir.has_backlog();
        if dir.abr().is_some() {
            dir.integrate_acr(now, warmup);
            let src = dir.abr_mut().expect("abr");
            if src.next_opportunity(now) == Some(now) {
                // An in-rate cell: the next cell, in rate or out of rate, is at least the
                // shortest pacing interval later (rules 1 and 11 count from this one).
                let gap = src.shortest_interval();
                match src.choose(now, data, false) {
                    NextCell::Frm => {
                        let ccr = src.send_frm(now);
                        let pcr = src.p.pcr;
                        self.emit_rm(now, f, (pcr, ccr), false, gap);
                        if self.trace.on {
                            self.trace_acr(now, f, None);
                        }
                    }
                    NextCell::Data => {
                        src.sent_data(now);
                        self.emit_data(now, f, gap);
                        self.unblock_tcp(now, f);
                    }
                    NextCell::Brm | NextCell::Idle => {}
                }
            } else if src.next_out_of_rate(now) == Some(now) && data {
                let ccr = src.send_out_of_rate_frm(now);
                let pcr = src.p.pcr;
                // The next in-rate cell counts from the last in-rate one, maybe sooner.
                self.emit_rm(now, f, (pcr, ccr), true, 0);
            }
        } else if data {
            let gap = dir.sent_at_line_rate(now);
            self.emit_data(now, f, gap);
        }
        self.kick(now, f);
    }

    /// TCP over ABR: a data cell left flow `f`'s source queue; if TCP was waiting for
    /// room (bounded source queue), it may send again.
    fn unblock_tcp(&mut self, now: Time, f: FlowId) {
        if !f.is_reverse() {
            let c = f.conn();
            let cells = self.net.flow(f).cells_per_frame;
            if self.net.dir_mut(f).unblock_if_room(cells) {
                self.pump(now, c);
            }
        }
    }

    /// Sends the next data cell of flow `f` from its backlog. The cell's tag is the
    /// queued TCP frame's (segment or ACK number) or, for cell-level traffic, the message
    /// number; its frame number counts the frames this source has sent. `gap`: the shortest
    /// time to the source's next cell ([`Sim::offer`]).
    fn emit_data(&mut self, now: Time, f: FlowId, gap: Time) {
        let (tag, frame, eom) = self.net.dir_mut(f).next_data_cell();
        let cell = self.net.new_cell(f, tag, frame, eom);
        let flow = self.net.flow_mut(f);
        flow.cells_sent += 1;
        if eom {
            flow.frames_sent += 1;
        }
        self.totals.cells_sent += 1;
        let p = self.net.source_port(f);
        self.offer_at_host(now, p, cell, gap);
    }

    /// Sends a forward RM cell of flow `f` (out of rate: CLP = 1). Its source's MCR and
    /// weight, the same in every RM cell of the VC, are not carried: the ports were given
    /// them when the network was built ([`crate::allocator::RmFields`]). `gap` as for
    /// [`Sim::offer`].
    fn emit_rm(
        &mut self,
        now: Time,
        f: FlowId,
        (er, ccr): (f64, f64),
        out_of_rate: bool,
        gap: Time,
    ) {
        let mut cell = self.net.new_cell(f, 0, 0, false);
        cell.flags |= flag::RM;
        if out_of_rate {
            cell.flags |= flag::CLP;
        }
        cell.set_er(er as f32);
        cell.set_ccr(ccr as f32);
        self.net.flow_mut(f).cells_sent += 1;
        self.totals.cells_sent += 1;
        let p = self.net.source_port(f);
        self.offer_at_host(now, p, cell, gap);
    }

    /// An RM cell reaches the end of its route (cell-level traffic or TCP over ABR):
    /// destinations turn forward RM cells around (destination rule 2), sources take
    /// backward RM cells (source rules 8-9).
    pub(super) fn deliver_rm(&mut self, now: Time, cell: Cell) {
        let f = cell.flow_id();
        if cell.flags & flag::DIR != 0 {
            // A backward RM cell returns to the source of the opposite flow.
            let g = f.opposite();
            let warmup = self.sc.warmup;
            let dir = self.net.dir_mut(g);
            dir.integrate_acr(now, warmup);
            if let Some(src) = dir.abr_mut() {
                src.on_brm(
                    cell.flags & flag::CI != 0,
                    cell.flags & flag::NI != 0,
                    cell.flags & flag::BN != 0,
                    cell.er() as f64,
                );
                // Rule 1 pacing follows the new ACR from the last cell sent.
                self.net.dir_mut(g).reset_pacing();
                self.kick(now, g);
                if self.trace.on {
                    self.trace_acr(now, g, Some(&cell));
                }
            }
        } else {
            // Destination rule 2: turn the forward RM cell around at once.
            let back = f.opposite();
            let b = self.net.dir_mut(f).turn_around(&cell, back.raw());
            self.net.flow_mut(back).cells_sent += 1;
            self.totals.cells_sent += 1;
            let p = self.net.source_port(back);
            self.offer_at_host(now, p, b, 0);
        }
    }

    /// A data cell of a TCP connection over ABR reaches its destination end system:
    /// EFCI state (destination rule 1) and counts; reassembly is the caller's.
    pub(super) fn deliver_abr_data(&mut self, now: Time, cell: &Cell) {
        let warm = now >= self.sc.warmup;
        self.net.dir_mut(cell.flow_id()).receive_data(cell, warm);
    }
}
