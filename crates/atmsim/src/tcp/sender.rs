//! The TCP sender of an infinite bulk-transfer application (spec section 6.1).
//!
//! Sequence numbers count whole segments (segment `s` carries bytes `s*MSS .. (s+1)*MSS`);
//! cwnd and ssthresh are in bytes, as in BSD. The send window is `min(cwnd, window)`, and a
//! segment goes only when it fits whole (sender silly-window avoidance).
//!
//! The sender keeps sequence numbers, the retransmit timer, RTT timing and the application;
//! what cwnd does and what goes next is its [`AnyCongestion`] (`congestion.rs`: Tahoe, Reno,
//! NewReno, SACK). Common to all:
//!
//! * Timeout: the algorithm's `on_timeout` (by default ssthresh = max(min(cwnd, window)/2,
//!   2 MSS), cwnd = 1 MSS), then go back to the first unacknowledged segment, back off the
//!   RTO, stop timing (Karn).
//! * RTT: one segment timed at a time, only new data (never a retransmission; Karn).
//! * Timers: in tick mode the retransmit timer counts ticks (it fires on a tick edge, so
//!   a timeout of n ticks takes between n-1 and n tick periods, as in BSD); in exact mode
//!   it is a deadline.

use super::config::TcpParams;
use super::congestion::{AckTimer, AnyCongestion, DupAck, SackBlock, Send, Seq, Window};
use super::rto::{RtoBounds, RtoEstimator};
use atmsim_kernel::{time, Time};
use std::sync::Arc;

/// Counters of a sender.
#[derive(Clone, Debug, Default)]
pub struct TcpStats {
    /// Segments transmitted (new and retransmitted).
    pub segments_sent: u64,
    /// Retransmitted segments.
    pub retransmissions: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmits (Reno).
    pub fast_retransmits: u64,
    /// Duplicate ACKs received.
    pub dup_acks: u64,
}

/// [`TcpSender::timer`] when the retransmit timer is off (ticks left and deadlines never
/// reach it: both are bounded by the maximum RTO and the run's end).
const TIMER_OFF: u64 = u64::MAX;

/// A TCP sender.
#[derive(Clone, Debug)]
pub struct TcpSender {
    /// The timer unit and RTO bounds, shared by the senders of the same timer settings.
    bounds: Arc<RtoBounds>,
    /// Oldest unacknowledged segment.
    pub snd_una: u32,
    /// Next segment to send.
    pub snd_nxt: u32,
    /// One past the highest segment sent.
    pub snd_max: u32,
    /// Congestion window and slow-start threshold.
    pub win: Window,
    /// The congestion-control algorithm.
    pub cc: AnyCongestion,
    /// The retransmit timer: the ticks left (tick mode, [`TcpSender::ticking`]) or the
    /// deadline in ps (exact mode); [`TIMER_OFF`] when off. (One value and the mode beside
    /// the sender's flags, not an enum with its 8-byte tag: issue 14, memory per VC.)
    timer: u64,
    rto: RtoEstimator,
    /// The segment being timed, if [`TcpSender::timing_at`] is not [`NOT_TIMING`].
    timing_seg: u32,
    /// The timed segment's t_rtt ticks, or its start time in ps; [`NOT_TIMING`] when no
    /// segment is timed. (Two fields, not an `Option<(u32, u64)>`: 12 bytes instead of 24,
    /// the segment beside the sender's other 32-bit fields; issue 14.)
    timing_at: u64,
    closed: bool,
    /// The timer counts ticks (the RTO bounds have a tick), else it holds a deadline.
    ticking: bool,
    /// The application writes its data as it goes
    /// ([`crate::tcp::config::TcpApp::Periodic`]): `app_limit`
    /// bounds what may be sent. Otherwise it is an infinite bulk transfer.
    limited: bool,
    /// Segments the application has written (read only when `limited`).
    app_limit: u32,
    /// Counters.
    pub stats: TcpStats,
}

/// [`TcpSender::timing_at`] when no segment is timed (a tick count starts at 1 and a start
/// time is before the end of the run, so neither reaches it).
const NOT_TIMING: u64 = u64::MAX;

impl TcpSender {
    /// A sender with the resolved parameters.
    pub fn new(p: &TcpParams) -> Self {
        Self::with_bounds(p, Arc::new(RtoBounds::of(p)))
    }

    /// A sender of parameters `p` whose timer unit and RTO bounds are `bounds`
    /// ([`RtoBounds::of`]`(p)`), shared with the other senders of a network that have the
    /// same tick and RTO settings.
    pub fn with_bounds(p: &TcpParams, bounds: Arc<RtoBounds>) -> Self {
        debug_assert_eq!(*bounds, RtoBounds::of(p));
        let rto = RtoEstimator::new(&bounds);
        let mut win = Window::new(p.mss as u64, p.window, p.initial_ssthresh);
        let mut cc = AnyCongestion::new(&p.congestion);
        cc.init(&mut win);
        let ticking = bounds.tick().is_some();
        TcpSender {
            bounds,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            win,
            cc,
            timer: TIMER_OFF,
            rto,
            timing_seg: 0,
            timing_at: NOT_TIMING,
            closed: false,
            ticking,
            limited: match p.app {
                crate::tcp::config::TcpApp::Bulk => false,
                crate::tcp::config::TcpApp::Periodic { .. } => true,
            },
            app_limit: 0,
            stats: TcpStats::default(),
        }
    }

    /// The application stops handing new data; only retransmissions go out from now on.
    pub fn close(&mut self) {
        self.closed = true;
    }

    /// The application writes `n` more segments (no effect for a bulk transfer).
    pub fn app_write(&mut self, n: u32) {
        if self.limited {
            self.app_limit = self.app_limit.saturating_add(n);
        }
    }

    /// Segments written by the application and not yet sent for the first time
    /// (None: infinite bulk transfer).
    pub fn unsent(&self) -> Option<u32> {
        self.limited
            .then(|| self.app_limit.saturating_sub(self.snd_max))
    }

    /// Congestion window, bytes.
    pub fn cwnd(&self) -> u64 {
        self.win.cwnd
    }

    /// The sequence state as the congestion control sees it.
    #[inline]
    fn seq(&self) -> Seq {
        Seq {
            una: self.snd_una,
            nxt: self.snd_nxt,
            max: self.snd_max,
            new_ok: !self.closed && (!self.limited || self.snd_max < self.app_limit),
        }
    }

    /// The next segment to transmit now, if the window allows one.
    pub fn next_segment(&mut self, now: Time) -> Option<u32> {
        let seq = self.seq();
        match self.cc.next_send(&mut self.win, seq) {
            Send::Hold => None,
            Send::Retransmit { seg, fast } => Some(self.retransmit(seg, fast, now)),
            Send::New { at } => self.send_from(at, seq, now),
        }
    }

    /// Sends segment `at` (new data, or go-back-N after a timeout) and moves snd_nxt past it.
    #[inline]
    fn send_from(&mut self, at: u32, seq: Seq, now: Time) -> Option<u32> {
        if !seq.has_data(at) {
            return None;
        }
        let seg = at;
        self.snd_nxt = at + 1;
        self.stats.segments_sent += 1;
        if self.snd_nxt > self.snd_max {
            self.snd_max = self.snd_nxt;
            if self.timing_at == NOT_TIMING {
                let start = if self.bounds.tick().is_some() { 1 } else { now };
                debug_assert_ne!(start, NOT_TIMING, "a start time before the end of the run");
                (self.timing_seg, self.timing_at) = (seg, start);
            }
        } else {
            self.stats.retransmissions += 1;
        }
        self.arm_if_idle(now);
        Some(seg)
    }

    /// Resends `seg` out of order; snd_nxt moves past it if it was below (4.4BSD fast
    /// retransmit: snd_nxt = max(onxt, seg + 1)).
    fn retransmit(&mut self, seg: u32, fast: bool, now: Time) -> u32 {
        self.snd_nxt = self.snd_nxt.max(seg + 1);
        self.stats.segments_sent += 1;
        self.stats.retransmissions += 1;
        if fast {
            self.stats.fast_retransmits += 1;
        }
        if self.timing_at != NOT_TIMING && self.timing_seg == seg {
            self.timing_at = NOT_TIMING; // Karn: never time a retransmitted segment
        }
        self.arm_if_idle(now);
        seg
    }

    fn arm_if_idle(&mut self, now: Time) {
        if self.timer == TIMER_OFF && self.snd_nxt != self.snd_una {
            self.restart_timer(now);
        }
    }

    fn restart_timer(&mut self, now: Time) {
        let v = self.rto.current(&self.bounds);
        // A tick count below the sentinel (a count that large never runs out in a run: the
        // same as counting down from it).
        self.timer = if self.ticking {
            (v as u64).min(TIMER_OFF - 1)
        } else {
            now + time::from_secs_f64(v)
        };
        debug_assert_ne!(self.timer, TIMER_OFF);
    }

    /// An ACK arrived acknowledging all segments below `ack` (no SACK option).
    pub fn on_ack(&mut self, ack: u32, now: Time) {
        self.on_ack_sack(ack, &[], now);
    }

    /// An ACK arrived acknowledging all segments below `ack`, with the SACK blocks it carries.
    pub fn on_ack_sack(&mut self, ack: u32, blocks: &[SackBlock], now: Time) {
        if ack > self.snd_max {
            return; // acknowledges data never sent: ignore
        }
        let seq = self.seq();
        self.cc.on_sack(seq, ack, blocks);
        if ack <= self.snd_una {
            if ack == self.snd_una && self.snd_max > self.snd_una {
                self.stats.dup_acks += 1;
                let running = self.timer != TIMER_OFF;
                if self.cc.on_dup_ack(&mut self.win, seq, running) == DupAck::FastRetransmit {
                    self.timer = TIMER_OFF;
                    self.timing_at = NOT_TIMING;
                }
            }
            return;
        }
        // New data acknowledged.
        if self.timing_at != NOT_TIMING && ack > self.timing_seg {
            let start = self.timing_at;
            let m = match self.bounds.tick() {
                Some(_) => start as f64,
                None => time::to_secs_f64(now - start),
            };
            self.rto.sample(m);
            self.timing_at = NOT_TIMING;
        }
        let timer = self.cc.on_new_ack(&mut self.win, seq, ack);
        if ack == self.snd_max {
            self.timer = TIMER_OFF;
        } else if timer == AckTimer::Restart {
            self.restart_timer(now);
        }
        self.snd_una = ack;
        if self.snd_nxt < self.snd_una {
            self.snd_nxt = self.snd_una;
        }
    }

    /// Where [`TcpSender::on_tick`] reads and writes when the timer does not fire: the
    /// retransmit timer and the round-trip timing (cache hints, issue 14).
    #[inline(always)]
    pub fn tick_state(&self) -> [*const u8; 2] {
        [
            (&self.timer as *const u64).cast(),
            (&self.timing_at as *const u64).cast(),
        ]
    }

    /// A timer tick (tick mode). Returns true if the retransmit timer fired.
    pub fn on_tick(&mut self) -> bool {
        let mut fired = false;
        if self.ticking && self.timer != TIMER_OFF {
            self.timer = self.timer.saturating_sub(1);
            if self.timer == 0 {
                self.timer = TIMER_OFF;
                self.timeout();
                fired = true;
            }
        }
        if self.timing_at != NOT_TIMING {
            self.timing_at += 1;
        }
        fired
    }

    /// The deadline of the retransmit timer (exact mode), if armed.
    pub fn deadline(&self) -> Option<Time> {
        (!self.ticking && self.timer != TIMER_OFF).then_some(self.timer)
    }

    /// Exact mode: fire the retransmit timer if its deadline is `now`. Returns true if fired.
    pub fn on_deadline(&mut self, now: Time) -> bool {
        if !self.ticking && self.timer != TIMER_OFF && self.timer <= now {
            self.timer = TIMER_OFF;
            self.timeout();
            true
        } else {
            false
        }
    }

    fn timeout(&mut self) {
        self.stats.timeouts += 1;
        self.rto.back_off();
        let seq = self.seq();
        self.cc.on_timeout(&mut self.win, seq);
        self.snd_nxt = self.snd_una;
        self.timing_at = NOT_TIMING;
    }

    /// Segments in flight (sent, not acknowledged).
    pub fn outstanding(&self) -> u32 {
        self.snd_max - self.snd_una
    }

    /// Smoothed RTT in seconds, if sampled.
    pub fn srtt_secs(&self) -> Option<f64> {
        let s = self.rto.srtt()?;
        Some(match self.bounds.tick() {
            Some(t) => s * time::to_secs_f64(t),
            None => s,
        })
    }

    /// The timer unit and RTO bounds, shared with the senders of the same timer settings.
    pub fn rto_bounds(&self) -> &Arc<RtoBounds> {
        &self.bounds
    }

    /// Current RTO in seconds.
    pub fn rto_secs(&self) -> f64 {
        let v = self.rto.current(&self.bounds);
        match self.bounds.tick() {
            Some(t) => v * time::to_secs_f64(t),
            None => v,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::congestion::CongestionConfig;
    use crate::tcp::tahoe::TahoeConfig;
    use atmsim_kernel::PS_PER_MS;

    fn params(reno: bool) -> TcpParams {
        TcpParams {
            mss: 512,
            window: 65536,
            congestion: if reno {
                CongestionConfig::Reno(Default::default())
            } else {
                CongestionConfig::Tahoe(TahoeConfig)
            },
            tick: Some(100 * PS_PER_MS),
            rto_initial: 3_000 * PS_PER_MS,
            rto_min: 200 * PS_PER_MS,
            rto_max: 64_000 * PS_PER_MS,
            delayed_ack: false,
            delayed_ack_timeout: 200 * PS_PER_MS,
            initial_ssthresh: 65536,
            keep_out_of_order: true,
            tick_phase: Some(0),
            app: crate::tcp::config::TcpApp::Bulk,
        }
    }

    #[test]
    fn periodic_application_limits_what_goes() {
        // Seed 002's generator: the sender sends only what the application wrote, while
        // cwnd still grows by one MSS per ACK in slow start.
        let mut p = params(false);
        p.app = crate::tcp::config::TcpApp::Periodic {
            interval: PS_PER_MS,
            segments: 3,
            burst_segments: 0,
            burst_at: 0,
        };
        let mut s = TcpSender::new(&p);
        assert_eq!(drain(&mut s), Vec::<u32>::new());
        assert_eq!(s.unsent(), Some(0));
        s.app_write(1);
        assert_eq!(drain(&mut s), vec![0]);
        s.on_ack(1, 0);
        assert_eq!(s.win.cwnd, 1024);
        assert_eq!(drain(&mut s), Vec::<u32>::new());
        s.app_write(5);
        assert_eq!(s.unsent(), Some(5));
        assert_eq!(drain(&mut s), vec![1, 2]);
        assert_eq!(s.unsent(), Some(3));
    }

    fn drain(s: &mut TcpSender) -> Vec<u32> {
        std::iter::from_fn(|| s.next_segment(0)).collect()
    }

    #[test]
    fn slow_start_doubles_per_round_trip() {
        let mut s = TcpSender::new(&params(false));
        assert_eq!(drain(&mut s), vec![0]);
        s.on_ack(1, 0);
        assert_eq!(drain(&mut s), vec![1, 2]);
        s.on_ack(2, 0);
        s.on_ack(3, 0);
        assert_eq!(drain(&mut s), vec![3, 4, 5, 6]);
        assert_eq!(s.win.cwnd, 4 * 512);
    }

    #[test]
    fn cwnd_stops_at_the_window() {
        let mut s = TcpSender::new(&params(false));
        for a in 1..=400u32 {
            while s.next_segment(0).is_some() {}
            s.on_ack(a, 0);
        }
        assert_eq!(s.win.cwnd, 65536);
    }

    #[test]
    fn window_caps_flight() {
        let mut s = TcpSender::new(&params(false));
        s.win.cwnd = 1 << 20;
        assert_eq!(drain(&mut s).len(), 128); // 65536 / 512
    }

    #[test]
    fn congestion_avoidance_adds_about_one_mss_per_window() {
        let mut p = params(false);
        p.initial_ssthresh = 4 * 512;
        let mut s = TcpSender::new(&p);
        s.win.cwnd = 8 * 512;
        drain(&mut s);
        for a in 1..=8 {
            s.on_ack(a, 0);
        }
        // 8 ACKs of +512*512/cwnd each: a bit less than one MSS in all.
        assert!(
            s.win.cwnd > 8 * 512 + 400 && s.win.cwnd < 9 * 512,
            "cwnd {}",
            s.win.cwnd
        );
    }

    #[test]
    fn timeout_goes_back_n_and_halves() {
        let mut s = TcpSender::new(&params(false));
        s.win.cwnd = 16 * 512;
        s.win.ssthresh = 1 << 20;
        assert_eq!(drain(&mut s).len(), 16);
        // Initial RTO is 3 s = 30 ticks; nothing fires before the 30th tick.
        for _ in 0..29 {
            assert!(!s.on_tick());
        }
        assert!(s.on_tick());
        assert_eq!(s.stats.timeouts, 1);
        assert_eq!(s.win.cwnd, 512);
        assert_eq!(s.win.ssthresh, 8 * 512);
        assert_eq!(s.snd_nxt, 0);
        assert_eq!(drain(&mut s), vec![0]); // go-back-N, one segment
        assert_eq!(s.stats.retransmissions, 1);
        // The receiver had 1..15 buffered: one ACK covers them all.
        s.on_ack(16, 0);
        assert_eq!(s.snd_nxt, 16);
        assert_eq!(drain(&mut s), vec![16, 17]);
    }

    #[test]
    fn karn_no_sample_from_retransmission_and_backoff_kept() {
        let mut s = TcpSender::new(&params(false));
        drain(&mut s);
        for _ in 0..30 {
            s.on_tick();
        }
        assert_eq!(s.stats.timeouts, 1);
        drain(&mut s); // retransmit segment 0
        s.on_ack(1, 0);
        assert!(
            s.srtt_secs().is_none(),
            "no RTT sample from a retransmitted segment"
        );
        assert!(
            (s.rto_secs() - 6.0).abs() < 1e-9,
            "backed-off RTO kept: {}",
            s.rto_secs()
        );
    }

    #[test]
    fn rtt_measured_in_ticks() {
        let mut s = TcpSender::new(&params(false));
        drain(&mut s);
        s.on_tick();
        s.on_tick(); // t_rtt = 3
        s.on_ack(1, 0);
        // srtt = 3 ticks, rttvar = 1.5 -> RTO = 3 + 6 = 9 ticks
        assert!((s.srtt_secs().unwrap() - 0.3).abs() < 1e-9);
        assert!((s.rto_secs() - 0.9).abs() < 1e-9);
    }

    #[test]
    fn tahoe_ignores_duplicate_acks() {
        let mut s = TcpSender::new(&params(false));
        s.win.cwnd = 8 * 512;
        drain(&mut s);
        for _ in 0..5 {
            s.on_ack(0, 0);
        }
        assert_eq!(s.stats.dup_acks, 5);
        assert_eq!(s.stats.fast_retransmits, 0);
        assert!(drain(&mut s).is_empty());
    }

    #[test]
    fn reno_fast_retransmit_and_recovery() {
        let mut s = TcpSender::new(&params(true));
        s.win.cwnd = 8 * 512;
        s.win.ssthresh = 1 << 20;
        assert_eq!(drain(&mut s).len(), 8);
        s.on_ack(1, 0); // segment 1 lost; 2..7 arrive -> dup ACKs of 1
        assert_eq!(drain(&mut s), vec![8, 9]); // cwnd 9: flight 7 -> two more
        s.on_ack(1, 0);
        s.on_ack(1, 0);
        assert!(drain(&mut s).is_empty());
        s.on_ack(1, 0); // third duplicate
        assert_eq!(drain(&mut s), vec![1]); // fast retransmit
        assert_eq!(s.win.ssthresh, 4 * 512); // flight min(cwnd 9, wnd)/2 = 4
        assert_eq!(s.win.cwnd, 4 * 512 + 3 * 512);
        assert_eq!(s.snd_nxt, 10);
        s.on_ack(1, 0); // 4th dup: inflate
        assert_eq!(s.win.cwnd, 8 * 512);
        s.on_ack(10, 0); // new ACK: deflate to ssthresh, then the usual increment
        assert_eq!(s.win.cwnd, 5 * 512); // cwnd == ssthresh still counts as slow start (BSD)
        assert_eq!(s.stats.fast_retransmits, 1);
    }

    #[test]
    fn exact_timer_deadline() {
        let mut p = params(false);
        p.tick = None;
        let mut s = TcpSender::new(&p);
        assert_eq!(s.next_segment(1000), Some(0));
        assert_eq!(s.deadline(), Some(1000 + 3_000 * PS_PER_MS));
        assert!(!s.on_deadline(1000));
        assert!(s.on_deadline(1000 + 3_000 * PS_PER_MS));
        assert_eq!(s.stats.timeouts, 1);
    }

    #[test]
    fn closed_sender_sends_only_retransmissions() {
        let mut s = TcpSender::new(&params(false));
        s.win.cwnd = 4 * 512;
        drain(&mut s);
        s.close();
        s.on_ack(4, 0);
        assert!(drain(&mut s).is_empty());
    }
}
