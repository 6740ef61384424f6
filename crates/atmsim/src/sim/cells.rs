//! Cell-level applications and the ABR end systems in the event loop.
//!
//! Each direction of a cell-level connection has an application backlog and a
//! transmitter at its source host. Under ABR the transmitter is the TM 4.0 source end
//! system ([`crate::abr::AbrSource`]: pacing at ACR, forward RM cells every Nrm cells,
//! rules 5/6 before each forward RM cell); otherwise it sends the backlog at its fixed
//! peak rate (the access link rate). Destinations turn forward RM cells around at once
//! (spec 9.9) and hand backward RM cells to the source of the opposite direction
//! (rules 8-9). Request/response exchanges and rate-limited, on/off and CBR
//! applications are driven by `Gen` and `Think` events (seed 003 sections 5.6-5.7).

use super::{Ev, Sim, SIG_CLOSE, SIG_OPEN};
use crate::abr::source::cell_interval;
use crate::abr::NextCell;
use crate::cell::{flag, Cell};
use crate::network::UNBOUNDED;
use crate::scenario::{CellApp, VideoParams};
use atmsim_kernel::Time;

impl Sim<'_> {
    /// The application of connection `c` starts.
    pub(super) fn start_cells(&mut self, now: Time, c: usize) {
        let warmup = self.sc.warmup;
        let cc = self.net.conns[c].cells_mut();
        for d in &mut cc.dirs {
            d.acr_since = now.max(warmup);
        }
        let f = 2 * c;
        match cc.app {
            CellApp::Persistent { cap: None } => {
                cc.dirs[0].backlog = UNBOUNDED;
                self.kick(now, f);
            }
            CellApp::Persistent { cap: Some(_) } | CellApp::Cbr { .. } => {
                self.q.schedule(now, Ev::Gen(f as u32));
            }
            CellApp::RequestResponse { request, .. } => {
                cc.dirs[0].add_backlog(request as u64);
                self.kick(now, f);
            }
            CellApp::OnOff { on, phase, .. } => {
                cc.dirs[0].on_end = now + phase + on;
                self.q.schedule(now + phase, Ev::Gen(f as u32));
            }
            CellApp::Sessions { .. } => self.session_toggle(now, c),
            CellApp::Video(VideoParams { frame_time, .. }) => {
                // The first frame starts at a random phase (spec 7: avoid frame alignment).
                let phase = cc.rng.below(frame_time);
                self.q.schedule(now + phase, Ev::Gen(f as u32));
            }
        }
    }

    /// The application of connection `c` stops handing cells (a session in progress
    /// closes).
    pub(super) fn stop_cells(&mut self, now: Time, c: usize) {
        let open = self.net.conns[c].cells_mut().dirs[0].session_open;
        for d in &mut self.net.conns[c].cells_mut().dirs {
            d.stopped = true;
            d.backlog = 0;
            d.session_open = false;
        }
        let abr = self.net.conns[c].cells_mut().dirs[0].abr.is_some();
        if open && abr {
            self.signal(now, 2 * c, 0, SIG_CLOSE);
        }
    }

    /// Sessions traffic (seed 004 section 6): the connection opens (signalled; the ABR
    /// source starts again from ICR; greedy) or closes (signalled; nothing more is sent),
    /// and the next change is drawn.
    pub(super) fn session_toggle(&mut self, now: Time, c: usize) {
        let warmup = self.sc.warmup;
        let cc = self.net.conns[c].cells_mut();
        let CellApp::Sessions {
            on,
            off,
            exponential,
        } = cc.app
        else {
            return;
        };
        if cc.dirs[0].stopped {
            return;
        }
        let opening = !cc.dirs[0].session_open;
        let mean = if opening { on } else { off };
        let len = if exponential {
            (cc.rng.exponential(mean as f64).round() as Time).max(1)
        } else {
            mean
        };
        let dir = &mut cc.dirs[0];
        let abr = dir.abr.is_some();
        dir.session_open = opening;
        if opening {
            dir.integrate_acr(now, warmup);
            if let Some(src) = dir.abr.as_mut() {
                src.reopen();
            }
            dir.backlog = UNBOUNDED;
            if abr {
                self.signal(now, 2 * c, 0, SIG_OPEN);
            }
            self.kick(now, 2 * c);
        } else {
            dir.backlog = 0;
            if abr {
                self.signal(now, 2 * c, 0, SIG_CLOSE);
            }
        }
        self.q.schedule(now + len, Ev::Session(c as u32));
    }

    /// The application of flow `f` hands one more cell.
    pub(super) fn on_gen(&mut self, now: Time, f: usize) {
        let cc = self.net.conns[f >> 1].cells_mut();
        let dir = &mut cc.dirs[f & 1];
        if dir.stopped {
            return;
        }
        let next = match cc.app {
            CellApp::Persistent {
                cap: Some((rate, until)),
            } => {
                if until.is_some_and(|u| now >= u) {
                    dir.backlog = UNBOUNDED;
                    None
                } else {
                    dir.add_backlog(1);
                    let n = now + cell_interval(rate);
                    Some(until.map_or(n, |u| n.min(u)))
                }
            }
            CellApp::OnOff { peak, on, off, .. } => {
                dir.add_backlog(1);
                let mut n = now + cell_interval(peak);
                if n >= dir.on_end {
                    n = dir.on_end + off;
                    dir.on_end = n + on;
                }
                Some(n)
            }
            CellApp::Cbr { rate } => {
                dir.add_backlog(1);
                Some(now + cell_interval(rate))
            }
            CellApp::Video(VideoParams {
                frame_time,
                spread: false,
                ..
            }) => {
                // Heyman video, frames as bursts: the whole frame enters the shaper at once.
                let vs = cc.video.as_mut().expect("video state");
                let x = vs.sizes.next_frame();
                dir.add_backlog(x as u64);
                Some(now + frame_time)
            }
            CellApp::Video(VideoParams { frame_time, .. }) => {
                // Heyman video: a new frame's cells are spread evenly over the frame time.
                let vs = cc.video.as_mut().expect("video state");
                if vs.left == 0 {
                    let x = vs.sizes.next_frame();
                    vs.next_frame = now + frame_time;
                    vs.left = x;
                    vs.spacing = frame_time / x.max(1) as Time;
                }
                if vs.left > 0 {
                    dir.add_backlog(1);
                    vs.left -= 1;
                }
                Some(if vs.left > 0 {
                    now + vs.spacing
                } else {
                    vs.next_frame
                })
            }
            _ => None,
        };
        if let Some(n) = next {
            self.q.schedule(n, Ev::Gen(f as u32));
        }
        self.kick(now, f);
    }

    /// A request/response client's think time ended: it sends the next request.
    pub(super) fn on_think(&mut self, now: Time, c: usize) {
        let cc = self.net.conns[c].cells_mut();
        if cc.dirs[0].stopped {
            return;
        }
        if let CellApp::RequestResponse { request, .. } = cc.app {
            cc.dirs[0].add_backlog(request as u64);
        }
        self.kick(now, 2 * c);
    }

    /// Makes sure flow `f`'s transmitter has a send event at the right time.
    pub(super) fn kick(&mut self, now: Time, f: usize) {
        let dir = self.net.conns[f >> 1].dir_mut(f & 1);
        if dir.backlog == 0 {
            return;
        }
        let want = match &dir.abr {
            Some(src) => match (src.next_opportunity(now), src.next_out_of_rate(now)) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            None => {
                let t = match dir.last_send {
                    None => now,
                    Some(t) => now.max(t + cell_interval(dir.line_rate)),
                };
                Some(dir.shaper.as_ref().map_or(t, |b| b.ready(t)))
            }
        };
        if let Some(w) = want {
            if dir.send_at != Some(w) {
                dir.send_gen = dir.send_gen.wrapping_add(1);
                dir.send_at = Some(w);
                self.q.schedule(w, Ev::Send(f as u32, dir.send_gen));
            }
        }
    }

    /// A transmit opportunity of flow `f`'s source.
    pub(super) fn on_send(&mut self, now: Time, f: usize, gen: u32) {
        let warmup = self.sc.warmup;
        let dir = self.net.conns[f >> 1].dir_mut(f & 1);
        if gen != dir.send_gen {
            return;
        }
        dir.send_at = None;
        let data = dir.backlog > 0;
        if dir.abr.is_some() {
            dir.integrate_acr(now, warmup);
            let src = dir.abr.as_mut().expect("abr");
            if src.next_opportunity(now) == Some(now) {
                match src.choose(now, data, false) {
                    NextCell::Frm => {
                        let ccr = src.send_frm(now);
                        let (pcr, mw) = (src.p.pcr, (src.p.mcr, src.p.weight));
                        self.emit_rm(now, f, pcr, ccr, mw, false);
                    }
                    NextCell::Data => {
                        src.sent_data(now);
                        self.emit_data(now, f);
                        self.unblock_tcp(now, f);
                    }
                    NextCell::Brm | NextCell::Idle => {}
                }
            } else if src.next_out_of_rate(now) == Some(now) && data {
                let ccr = src.send_out_of_rate_frm(now);
                let (pcr, mw) = (src.p.pcr, (src.p.mcr, src.p.weight));
                self.emit_rm(now, f, pcr, ccr, mw, true);
            }
        } else if data {
            dir.last_send = Some(now);
            if let Some(b) = dir.shaper.as_mut() {
                b.take(now);
            }
            self.emit_data(now, f);
        }
        self.kick(now, f);
    }

    /// TCP over ABR: a data cell left flow `f`'s source queue; if TCP was waiting for
    /// room (bounded source queue), it may send again.
    fn unblock_tcp(&mut self, now: Time, f: usize) {
        if f & 1 == 0 {
            let c = f >> 1;
            let cells = self.net.flows[f].cells_per_frame;
            let dir = self.net.conns[c].dir_mut(0);
            if dir.blocked && dir.has_room(cells) {
                dir.blocked = false;
                self.pump(now, c);
            }
        }
    }

    /// Sends the next data cell of flow `f` from its backlog. The cell's tag is the
    /// queued TCP frame's (segment or ACK number) or, for cell-level traffic, the message
    /// number; its frame number counts the frames this source has sent.
    fn emit_data(&mut self, now: Time, f: usize) {
        let dir = self.net.conns[f >> 1].dir_mut(f & 1);
        dir.frame_pos += 1;
        let eom = dir.frame_pos >= dir.frame_cells;
        let frame = dir.frame_no;
        let tag = dir.tags.front().copied().unwrap_or(frame);
        if eom {
            dir.frame_pos = 0;
            dir.frame_no = dir.frame_no.wrapping_add(1);
            dir.tags.pop_front();
        }
        if dir.backlog != UNBOUNDED {
            dir.backlog -= 1;
        }
        dir.data_sent += 1;
        let cell = self.net.new_cell(f, tag, frame, eom);
        let flow = &mut self.net.flows[f];
        flow.cells_sent += 1;
        if eom {
            flow.frames_sent += 1;
        }
        self.totals.cells_sent += 1;
        let p = self.net.route_port(f, 0);
        self.offer(now, p, cell);
    }

    /// Sends a forward RM cell of flow `f` (out of rate: CLP = 1), carrying the source's
    /// (MCR, weight) `mw`.
    fn emit_rm(
        &mut self,
        now: Time,
        f: usize,
        er: f64,
        ccr: f64,
        mw: (f64, f64),
        out_of_rate: bool,
    ) {
        let mut cell = self.net.new_cell(f, 0, 0, false);
        cell.flags |= flag::RM;
        cell.set_rm_mcr(mw.0);
        cell.set_rm_weight(mw.1);
        if out_of_rate {
            cell.flags |= flag::CLP;
        }
        cell.er = er as f32;
        cell.ccr = ccr as f32;
        self.net.flows[f].cells_sent += 1;
        self.totals.cells_sent += 1;
        let p = self.net.route_port(f, 0);
        self.offer(now, p, cell);
    }

    /// An RM cell reaches the end of its route (cell-level traffic or TCP over ABR):
    /// destinations turn forward RM cells around (destination rule 2), sources take
    /// backward RM cells (source rules 8-9).
    pub(super) fn deliver_rm(&mut self, now: Time, cell: Cell) {
        let f = cell.flow as usize;
        let c = f >> 1;
        {
            if cell.flags & flag::DIR != 0 {
                // A backward RM cell returns to the source of the opposite flow.
                let g = f ^ 1;
                let warmup = self.sc.warmup;
                let dir = self.net.conns[c].dir_mut(g & 1);
                dir.integrate_acr(now, warmup);
                if let Some(src) = dir.abr.as_mut() {
                    src.on_brm(
                        cell.flags & flag::CI != 0,
                        cell.flags & flag::NI != 0,
                        cell.flags & flag::BN != 0,
                        cell.er as f64,
                    );
                    // Rule 1 pacing follows the new ACR from the last cell sent.
                    let d = self.net.conns[c].dir_mut(g & 1);
                    d.send_at = None;
                    d.send_gen = d.send_gen.wrapping_add(1);
                    self.kick(now, g);
                }
            } else {
                // Destination rule 2: turn the forward RM cell around at once.
                let back = (f ^ 1) as u32;
                let b = self.net.conns[c]
                    .dir_mut(f & 1)
                    .dest
                    .turn_around(&cell, back);
                self.net.flows[f ^ 1].cells_sent += 1;
                self.totals.cells_sent += 1;
                let p = self.net.route_port(f ^ 1, 0);
                self.offer(now, p, b);
            }
        }
    }

    /// A data cell of a TCP connection over ABR reaches its destination end system:
    /// EFCI state (destination rule 1) and counts; reassembly is the caller's.
    pub(super) fn deliver_abr_data(&mut self, now: Time, cell: &Cell) {
        let f = cell.flow as usize;
        let warm = now >= self.sc.warmup;
        let dir = self.net.conns[f >> 1].dir_mut(f & 1);
        dir.dest.on_data(cell);
        dir.data_received += 1;
        if warm {
            dir.data_received_warm += 1;
        }
    }

    /// A cell of a cell-level connection reaches the end of its route.
    pub(super) fn deliver_cell_level(&mut self, now: Time, cell: Cell) {
        let f = cell.flow as usize;
        let c = f >> 1;
        if cell.is_rm() {
            self.deliver_rm(now, cell);
            return;
        }
        let warm = now >= self.sc.warmup;
        self.net.flows[f].reassemble(&cell);
        let cc = self.net.conns[c].cells_mut();
        let dir = &mut cc.dirs[f & 1];
        dir.dest.on_data(&cell);
        dir.data_received += 1;
        if warm {
            dir.data_received_warm += 1;
        }
        if cell.is_eom() {
            dir.messages_received += 1;
            if let CellApp::RequestResponse {
                response, think, ..
            } = cc.app
            {
                if f & 1 == 0 {
                    // The request arrived: the server answers.
                    if !cc.dirs[1].stopped {
                        cc.dirs[1].add_backlog(response as u64);
                        self.kick(now, f ^ 1);
                    }
                } else {
                    // The response arrived: the client thinks, then asks again.
                    self.q.schedule(now + think, Ev::Think(c as u32));
                }
            }
        }
    }
}
