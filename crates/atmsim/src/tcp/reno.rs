//! Reno: Tahoe plus fast retransmit and fast recovery (4.3BSD-Reno as in 4.4BSD-Lite
//! `tcp_input`; RFC 5681 section 3.2; spec section 6.1).
//!
//! On the `dupthresh`-th duplicate ACK while the retransmit timer runs: ssthresh =
//! max(min(cwnd, window)/2, 2 MSS), the first unacknowledged segment is resent, cwnd =
//! ssthresh + dupthresh MSS. Each further duplicate adds 1 MSS. The next new ACK deflates cwnd
//! to ssthresh and then opens it as usual (BSD: cwnd == ssthresh counts as slow start).
//! A duplicate ACK while the timer is off resets the count (BSD). A partial ACK ends the
//! recovery (no NewReno).

use super::congestion::{
    standard_send, AckTimer, CongestionControl, CongestionKeys, DupAck, Recovery, Send, Seq, Window,
};
use crate::config::ConfigError;
use crate::registry::ResolveNamed;

/// Reno's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct RenoConfig {
    /// Duplicate ACKs that trigger a fast retransmit (BSD `tcprexmtthresh`, RFC 5681: 3).
    pub dupthresh: u32,
}

impl Default for RenoConfig {
    fn default() -> Self {
        RenoConfig { dupthresh: 3 }
    }
}

impl ResolveNamed<CongestionKeys> for RenoConfig {
    const KEYS: &'static [&'static str] = &["dupthresh"];

    fn resolve_named(_path: &str, keys: &CongestionKeys) -> Result<Self, ConfigError> {
        Ok(RenoConfig {
            dupthresh: keys.dupthresh_or(Self::default().dupthresh)?,
        })
    }
}

/// A Reno sender's fast-recovery state.
#[derive(Clone, Debug)]
pub struct Reno {
    dupthresh: u32,
    dupacks: u32,
    /// A fast retransmit is due at the next transmission opportunity.
    rexmit_due: bool,
}

impl CongestionControl for Reno {
    type Config = RenoConfig;

    fn recovery(&self) -> Recovery {
        Recovery::NextNewAck
    }

    fn new(cfg: &RenoConfig) -> Self {
        Reno {
            dupthresh: cfg.dupthresh,
            dupacks: 0,
            rexmit_due: false,
        }
    }

    #[inline]
    fn on_new_ack(&mut self, w: &mut Window, _seq: Seq, _ack: u32) -> AckTimer {
        if self.dupacks >= self.dupthresh && w.cwnd > w.ssthresh {
            w.cwnd = w.ssthresh; // leave fast recovery
        }
        self.dupacks = 0;
        w.open();
        AckTimer::Restart
    }

    #[inline]
    fn on_dup_ack(&mut self, w: &mut Window, _seq: Seq, timer_running: bool) -> DupAck {
        if !timer_running {
            self.dupacks = 0;
            return DupAck::Counted;
        }
        self.dupacks += 1;
        if self.dupacks == self.dupthresh {
            w.halve();
            self.rexmit_due = true;
            return DupAck::FastRetransmit;
        }
        if self.dupacks > self.dupthresh {
            w.inflate(1);
        }
        DupAck::Counted
    }

    #[inline]
    fn on_timeout(&mut self, w: &mut Window, _seq: Seq) {
        w.collapse();
        self.dupacks = 0;
        self.rexmit_due = false;
    }

    #[inline]
    fn next_send(&mut self, w: &mut Window, seq: Seq) -> Send {
        if self.rexmit_due {
            self.rexmit_due = false;
            w.cwnd = w.ssthresh + self.dupthresh as u64 * w.mss;
            return Send::Retransmit {
                seg: seq.una,
                fast: true,
            };
        }
        standard_send(w, seq)
    }
}
