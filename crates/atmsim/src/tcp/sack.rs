//! SACK: a sender with the conservative SACK-based loss recovery of RFC 6675, fed by a SACK
//! receiver (RFC 2018, `receiver.rs`). Whole segments throughout; DupThresh = `dupthresh`.
//!
//! * Every ACK updates the [`Scoreboard`] (`Update()`, section 4). A duplicate ACK counts
//!   towards DupAcks only if it SACKs new data (the definition of section 2); an ACK of new
//!   data resets DupAcks.
//! * Entering loss recovery (section 5): when DupAcks reaches DupThresh, or `IsLost(HighACK + 1)`
//!   (step 2), and snd_una is at or past RecoveryPoint (no new recovery before the last one's
//!   data is acknowledged): RecoveryPoint = snd_max, ssthresh = cwnd = max(min(cwnd,
//!   window)/2, 2 MSS) (as Reno; RFC 6675's FlightSize/2 for a window-limited sender),
//!   retransmit snd_una, HighRxt = RescueRxt = snd_una.
//! * In recovery, on every transmission opportunity (step C): while pipe (`SetPipe()`) is
//!   below cwnd, send `NextSeg()`: (1) the lowest lost hole above HighRxt, (2) new data if the
//!   receiver's window allows, (3) the lowest un-SACKed hole above HighRxt below the highest
//!   SACKed segment, (4) once per recovery, a rescue retransmission of the highest un-SACKed
//!   segment. cwnd does not grow in recovery.
//! * An ACK at or past RecoveryPoint ends recovery (step A); cwnd stays at ssthresh.
//! * Timeout (section 5.1): RecoveryPoint = snd_max, recovery ends, cwnd = 1 MSS, go-back-N.
//!   The scoreboard is kept (this receiver never reneges) and, until snd_una passes
//!   RecoveryPoint, the go-back-N slow start skips the segments the receiver holds and does
//!   not count them in flight (the "filling in" RFC 6675 section 5.1 suggests).
//!
//! Not implemented: limited transmit (RFC 6675 step 3, optional; Reno and NewReno here have
//! none either), D-SACK (RFC 2883) generation.

use super::congestion::{
    standard_send, AckTimer, CongestionControl, CongestionKeys, DupAck, Recovery, SackBlock, Send,
    Seq, Window, MAX_SACK_BLOCKS,
};
use super::scoreboard::Scoreboard;
use crate::config::{err, ConfigError};
use crate::registry::ResolveNamed;

/// SACK's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct SackConfig {
    /// DupThresh (RFC 6675: 3).
    pub dupthresh: u32,
    /// Most SACK blocks per ACK, 1 to 4 (RFC 2018: 4 fit without timestamps, 3 with; default 3).
    pub blocks: usize,
}

impl Default for SackConfig {
    fn default() -> Self {
        SackConfig {
            dupthresh: 3,
            blocks: 3,
        }
    }
}

impl ResolveNamed<CongestionKeys> for SackConfig {
    const KEYS: &'static [&'static str] = &["dupthresh", "sack_blocks"];

    /// `sack_blocks` 1 to 4; a receiver that discards out-of-order segments is refused.
    fn resolve_named(path: &str, keys: &CongestionKeys) -> Result<Self, ConfigError> {
        let def = Self::default();
        let blocks = match keys.sack_blocks.0 {
            None => def.blocks,
            Some(b) if (1..=MAX_SACK_BLOCKS as u32).contains(&b) => b as usize,
            Some(b) => return err(&keys.sack_blocks.1, format!("{b} is not allowed; sack_blocks must be 1 to 4 (RFC 2018: at most 4 fit the TCP options)")),
        };
        if keys.keep_out_of_order.0 == Some(false) {
            return err(&keys.keep_out_of_order.1, format!("false does not go with congestion = \"sack\" (set at {path}): a receiver that discards out-of-order segments has no blocks to report"));
        }
        Ok(SackConfig {
            dupthresh: keys.dupthresh_or(def.dupthresh)?,
            blocks,
        })
    }
}

/// A SACK sender's scoreboard and recovery state.
#[derive(Clone, Debug)]
pub struct Sack {
    dupthresh: u32,
    dupacks: u32,
    board: Scoreboard,
    /// Segments the last ACK SACKed for the first time.
    newly_sacked: u32,
    in_recovery: bool,
    /// One past the highest segment sent when recovery (or the last timeout) started.
    recovery_point: u32,
    /// One past the highest segment retransmitted (RFC 6675 HighRxt + 1).
    rxt_end: u32,
    /// RescueRxt: a rescue retransmission may go once snd_una is above it.
    rescue: u32,
    fast_due: bool,
    /// After a timeout, until snd_una reaches `recovery_point`.
    after_timeout: bool,
}

impl Sack {
    /// The scoreboard.
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.board
    }

    /// In loss recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// RFC 6675 `SetPipe()`.
    pub fn pipe(&self, seq: Seq) -> u32 {
        self.board
            .pipe(seq.una, seq.max, self.rxt_end, self.dupthresh)
    }

    fn enter_recovery(&mut self, w: &mut Window, seq: Seq) {
        self.recovery_point = seq.max;
        self.in_recovery = true;
        self.after_timeout = false;
        w.halve();
        w.cwnd = w.ssthresh;
        self.rxt_end = seq.una + 1;
        self.rescue = seq.una;
        self.fast_due = true;
    }

    /// RFC 6675 `NextSeg()` under the pipe < cwnd gate (step C).
    fn next_seg(&mut self, w: &Window, seq: Seq) -> Send {
        if !w.fits(self.pipe(seq)) {
            return Send::Hold;
        }
        let from = self.rxt_end.max(seq.una);
        if let Some(seg) = self.board.next_hole(seq.una, from, Some(self.dupthresh)) {
            self.rxt_end = seg + 1;
            return Send::Retransmit { seg, fast: false };
        }
        if seq.has_data(seq.nxt) && w.receiver_allows(seq.una, seq.nxt) {
            return Send::New { at: seq.nxt };
        }
        if let Some(seg) = self.board.next_hole(seq.una, from, None) {
            self.rxt_end = seg + 1;
            return Send::Retransmit { seg, fast: false };
        }
        if seq.una > self.rescue {
            if let Some(seg) = self.board.highest_hole(seq.una, seq.max) {
                self.rescue = self.recovery_point - 1;
                return Send::Retransmit { seg, fast: false };
            }
        }
        Send::Hold
    }

    /// Go-back-N after a timeout, skipping what the receiver holds.
    fn fill_in(&self, w: &Window, seq: Seq) -> Send {
        let at = self.board.skip_sacked(seq.nxt);
        let flight = (at - seq.una) - self.board.sacked_in(seq.una, at);
        if seq.has_data(at) && w.fits(flight) {
            Send::New { at }
        } else {
            Send::Hold
        }
    }
}

impl CongestionControl for Sack {
    type Config = SackConfig;

    fn recovery(&self) -> Recovery {
        Recovery::RecoverPoint
    }

    fn new(cfg: &SackConfig) -> Self {
        Sack {
            dupthresh: cfg.dupthresh,
            dupacks: 0,
            board: Scoreboard::with_capacity(8),
            newly_sacked: 0,
            in_recovery: false,
            recovery_point: 0,
            rxt_end: 0,
            rescue: 0,
            fast_due: false,
            after_timeout: false,
        }
    }

    fn receiver_sack_blocks(cfg: &SackConfig) -> usize {
        cfg.blocks
    }

    fn on_sack(&mut self, seq: Seq, ack: u32, blocks: &[SackBlock]) {
        let una = ack.max(seq.una);
        self.board.advance(una);
        self.newly_sacked = self.board.update(una, seq.max, blocks);
    }

    fn on_new_ack(&mut self, w: &mut Window, _seq: Seq, ack: u32) -> AckTimer {
        self.dupacks = 0;
        if self.in_recovery {
            self.in_recovery = ack < self.recovery_point;
            return AckTimer::Restart;
        }
        if self.after_timeout && ack >= self.recovery_point {
            self.after_timeout = false;
        }
        w.open();
        AckTimer::Restart
    }

    fn on_dup_ack(&mut self, w: &mut Window, seq: Seq, _timer_running: bool) -> DupAck {
        if self.in_recovery || self.newly_sacked == 0 {
            return DupAck::Counted;
        }
        self.dupacks += 1;
        let lost = self.dupacks >= self.dupthresh || self.board.is_lost(seq.una, self.dupthresh);
        if !lost || seq.una < self.recovery_point {
            return DupAck::Counted;
        }
        self.enter_recovery(w, seq);
        DupAck::FastRetransmit
    }

    fn on_timeout(&mut self, w: &mut Window, seq: Seq) {
        w.collapse();
        self.recovery_point = seq.max;
        self.in_recovery = false;
        self.after_timeout = true;
        self.dupacks = 0;
        self.fast_due = false;
        self.rxt_end = seq.una;
    }

    fn next_send(&mut self, w: &mut Window, seq: Seq) -> Send {
        if self.fast_due {
            self.fast_due = false;
            return Send::Retransmit {
                seg: seq.una,
                fast: true,
            };
        }
        if self.in_recovery {
            return self.next_seg(w, seq);
        }
        if self.after_timeout {
            return self.fill_in(w, seq);
        }
        standard_send(w, seq)
    }
}
