//! TCP (spec section 6.1; BSD 4.3/4.4 behaviour as the OSU and UCSC simulators used it).
//!
//! * [`sender`]: infinite bulk sender with timeouts with go-back-N, Karn's rule and
//!   exponential back-off. Windows and segments are counted in whole MSS-sized segments, as a
//!   bulk sender with sender-side silly-window avoidance only ever sends full segments.
//! * [`congestion`]: the congestion-control seam (trait, registry, static dispatch) and the
//!   algorithms, one file each: [`tahoe`], [`reno`], [`newreno`] (RFC 6582), [`sack`]
//!   (RFC 2018 / RFC 6675, with its [`scoreboard`]), and [`none`] (no congestion control).
//! * [`receiver`]: cumulative ACKs, out-of-order segments kept, optional delayed ACKs, SACK
//!   blocks (RFC 2018) carried to the sender through a per-connection record ring.
//! * [`rto`]: the Jacobson/Karels retransmission-timeout estimator, on coarse ticks
//!   (100 ms in the seeds, 500 ms in BSD) or with exact timers.

pub mod config;
pub mod congestion;
pub mod newreno;
pub mod none;
pub mod receiver;
pub mod reno;
pub mod rto;
pub mod sack;
pub mod scoreboard;
pub mod sender;
pub mod tahoe;

#[cfg(test)]
mod scripted;

pub use congestion::{AnyCongestion, CongestionConfig, CongestionControl, SackBlock};
pub use receiver::{AckAction, TcpReceiver};
pub use rto::RtoEstimator;
pub use sender::{TcpSender, TcpStats};
