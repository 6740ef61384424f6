//! NewReno: Reno's fast recovery kept over partial ACKs (RFC 6582 section 3.2), in whole
//! segments.
//!
//! * `recover` is one past the highest segment sent when recovery started (RFC 6582's
//!   "highest sequence number transmitted"). Initially 0; after a timeout, snd_max.
//! * On the `dupthresh`-th duplicate ACK, if the ACK covers more than `recover` (`ack >=
//!   recover` in segments; step 2): recover = snd_max, ssthresh = max(min(cwnd, window)/2,
//!   2 MSS) (as Reno; RFC 5681's FlightSize/2 for a window-limited sender), retransmit
//!   snd_una, cwnd = ssthresh + dupthresh MSS. Otherwise no fast retransmit (this avoids a
//!   second reduction for losses of one window after a timeout).
//! * Each further duplicate ACK in recovery: cwnd += 1 MSS (RFC 5681 step 4).
//! * Full ACK (`ack >= recover`, step 3): cwnd = min(ssthresh, max(FlightSize, MSS) + MSS)
//!   (option 1, which avoids a burst), leave recovery; no further increase on this ACK.
//! * Partial ACK (step 4): retransmit the first unacknowledged segment, deflate cwnd by the
//!   data acknowledged and add back 1 MSS (every partial ACK acknowledges at least one whole
//!   segment here), stay in recovery. The retransmit timer restarts on every partial ACK (the
//!   sender restarts it on every ACK of new data: RFC 6582's "Slow-but-Steady" variant,
//!   section 4).
//! * Timeout: recover = snd_max, leave recovery (section 3.2 step 4 of the timeout rule).
//!
//! No timer-running condition on duplicate ACKs (that is a 4.4BSD detail of Reno).

use super::congestion::{
    standard_send, AckTimer, CongestionControl, CongestionKeys, DupAck, Recovery, Send, Seq, Window,
};
use crate::config::ConfigError;
use crate::registry::ResolveNamed;

/// NewReno's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct NewRenoConfig {
    /// Duplicate ACKs that trigger a fast retransmit (RFC 5681: 3).
    pub dupthresh: u32,
}

impl Default for NewRenoConfig {
    fn default() -> Self {
        NewRenoConfig { dupthresh: 3 }
    }
}

impl ResolveNamed<CongestionKeys> for NewRenoConfig {
    const KEYS: &'static [&'static str] = &["dupthresh"];

    fn resolve_named(_path: &str, keys: &CongestionKeys) -> Result<Self, ConfigError> {
        Ok(NewRenoConfig {
            dupthresh: keys.dupthresh_or(Self::default().dupthresh)?,
        })
    }
}

/// A NewReno sender's recovery state.
#[derive(Clone, Debug)]
pub struct NewReno {
    dupthresh: u32,
    dupacks: u32,
    /// One past the highest segment sent when recovery started (RFC 6582 `recover`).
    recover: u32,
    in_recovery: bool,
    /// The fast retransmit that starts a recovery is due.
    fast_due: bool,
    /// A partial ACK's retransmission of snd_una is due.
    partial_due: bool,
    /// A partial ACK arrived in this recovery.
    partial_seen: bool,
}

impl NewReno {
    /// In fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}

impl CongestionControl for NewReno {
    type Config = NewRenoConfig;

    fn recovery(&self) -> Recovery {
        Recovery::RecoverPoint
    }

    fn new(cfg: &NewRenoConfig) -> Self {
        NewReno {
            dupthresh: cfg.dupthresh,
            dupacks: 0,
            recover: 0,
            in_recovery: false,
            fast_due: false,
            partial_due: false,
            partial_seen: false,
        }
    }

    fn on_new_ack(&mut self, w: &mut Window, seq: Seq, ack: u32) -> AckTimer {
        if !self.in_recovery {
            self.dupacks = 0;
            w.open();
            return AckTimer::Restart;
        }
        if ack >= self.recover {
            let flight = (seq.max - ack) as u64 * w.mss;
            w.cwnd = w.ssthresh.min(flight.max(w.mss) + w.mss);
            self.in_recovery = false;
            self.dupacks = 0;
            return AckTimer::Restart;
        }
        let acked = (ack - seq.una) as u64 * w.mss;
        w.cwnd = w.cwnd.saturating_sub(acked) + w.mss;
        self.partial_due = true;
        // Impatient (section 4): only the first partial ACK restarts the timer.
        let first = !self.partial_seen;
        self.partial_seen = true;
        if first {
            AckTimer::Restart
        } else {
            AckTimer::Keep
        }
    }

    fn on_dup_ack(&mut self, w: &mut Window, seq: Seq, _timer_running: bool) -> DupAck {
        if self.in_recovery {
            w.inflate(1);
            return DupAck::Counted;
        }
        self.dupacks += 1;
        if self.dupacks != self.dupthresh || seq.una < self.recover {
            return DupAck::Counted;
        }
        self.recover = seq.max;
        self.in_recovery = true;
        self.partial_seen = false;
        w.halve();
        self.fast_due = true;
        DupAck::FastRetransmit
    }

    fn on_timeout(&mut self, w: &mut Window, seq: Seq) {
        w.collapse();
        self.recover = seq.max;
        self.in_recovery = false;
        self.dupacks = 0;
        self.fast_due = false;
        self.partial_due = false;
    }

    fn next_send(&mut self, w: &mut Window, seq: Seq) -> Send {
        if self.fast_due {
            self.fast_due = false;
            w.cwnd = w.ssthresh + self.dupthresh as u64 * w.mss;
            return Send::Retransmit {
                seg: seq.una,
                fast: true,
            };
        }
        if self.partial_due {
            self.partial_due = false;
            return Send::Retransmit {
                seg: seq.una,
                fast: false,
            };
        }
        standard_send(w, seq)
    }
}
