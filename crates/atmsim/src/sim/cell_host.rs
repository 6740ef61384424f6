//! Cell-level applications in the event loop (seed 003 sections 5.6-5.7, seed 004
//! section 6): what each direction's application hands its transmitter, and when.
//!
//! Persistent (greedy or rate-capped), request/response, on/off, CBR, sessions and
//! video sources fill the backlog of a direction ([`crate::network::CellDir`]); `Gen`,
//! `Think` and `Session` events drive them. The transmitter that drains the backlog is
//! the end system's ([`super::abr_host`]).

use super::{Ev, Sim, SIG_CLOSE, SIG_OPEN};
use crate::abr::source::cell_interval;
use crate::cell::{Cell, FlowId};
use crate::scenario::{CellApp, VideoParams};
use atmsim_kernel::Time;

impl Sim<'_> {
    /// The application of connection `c` starts.
    pub(super) fn start_cells(&mut self, now: Time, c: usize) {
        let warmup = self.sc.warmup;
        let cc = self.net.conns[c].cells_mut();
        for d in &mut cc.dirs {
            d.start(now, warmup);
        }
        let f = FlowId::forward(c);
        match cc.app {
            CellApp::Persistent { cap: None } => {
                cc.dirs[0].set_greedy();
                self.kick(now, f);
            }
            CellApp::Persistent { cap: Some(_) } | CellApp::Cbr { .. } => {
                self.q.schedule(now, Ev::Gen(f));
            }
            CellApp::RequestResponse { request, .. } => {
                cc.dirs[0].add_backlog(request as u64);
                self.kick(now, f);
            }
            CellApp::OnOff { on, phase, .. } => {
                cc.dirs[0].set_on_end(now + phase + on);
                self.q.schedule(now + phase, Ev::Gen(f));
            }
            CellApp::Sessions { .. } => self.session_toggle(now, c),
            CellApp::Video(VideoParams { frame_time, .. }) => {
                // The first frame starts at a random phase (spec 7: avoid frame alignment).
                let phase = cc.rng.below(frame_time);
                self.q.schedule(now + phase, Ev::Gen(f));
            }
        }
    }

    /// The application of connection `c` stops handing cells (a session in progress
    /// closes).
    pub(super) fn stop_cells(&mut self, now: Time, c: usize) {
        let open = self.net.conns[c].cells_mut().dirs[0].is_session_open();
        for d in &mut self.net.conns[c].cells_mut().dirs {
            d.stop();
        }
        let abr = self.net.conns[c].cells_mut().dirs[0].abr().is_some();
        if open && abr {
            self.signal(now, FlowId::forward(c), 0, SIG_CLOSE);
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
        if cc.dirs[0].is_stopped() {
            return;
        }
        let opening = !cc.dirs[0].is_session_open();
        let mean = if opening { on } else { off };
        let len = if exponential {
            (cc.rng.exponential(mean as f64).round() as Time).max(1)
        } else {
            mean
        };
        let dir = &mut cc.dirs[0];
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

    /// The application of flow `f` hands one more cell.
    pub(super) fn on_gen(&mut self, now: Time, f: FlowId) {
        let cc = self.net.conns[f.conn()].cells_mut();
        let dir = &mut cc.dirs[f.dir()];
        if dir.is_stopped() {
            return;
        }
        let next = match cc.app {
            CellApp::Persistent {
                cap: Some((rate, until)),
            } => {
                if until.is_some_and(|u| now >= u) {
                    dir.set_greedy();
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
                if n >= dir.on_end() {
                    n = dir.on_end() + off;
                    dir.set_on_end(n + on);
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
            self.q.schedule(n, Ev::Gen(f));
        }
        self.kick(now, f);
    }

    /// A request/response client's think time ended: it sends the next request.
    pub(super) fn on_think(&mut self, now: Time, c: usize) {
        let cc = self.net.conns[c].cells_mut();
        if cc.dirs[0].is_stopped() {
            return;
        }
        if let CellApp::RequestResponse { request, .. } = cc.app {
            cc.dirs[0].add_backlog(request as u64);
        }
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
        self.net.flow_mut(f).reassemble(&cell);
        let cc = self.net.conns[c].cells_mut();
        let dir = &mut cc.dirs[f.dir()];
        dir.receive_data(&cell, warm);
        if cell.is_eom() {
            dir.message_received();
            if let CellApp::RequestResponse {
                response, think, ..
            } = cc.app
            {
                if !f.is_reverse() {
                    // The request arrived: the server answers.
                    if !cc.dirs[1].is_stopped() {
                        cc.dirs[1].add_backlog(response as u64);
                        self.kick(now, f.opposite());
                    }
                } else {
                    // The response arrived: the client thinks, then asks again.
                    self.q.schedule(now + think, Ev::Think(c as u32));
                }
            }
        }
    }
}
