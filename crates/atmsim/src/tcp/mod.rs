//! TCP (spec section 6.1; BSD 4.3/4.4 behaviour as the OSU and UCSC simulators used it).
//!
//! * [`sender`]: infinite bulk sender with slow start, congestion avoidance, timeouts with
//!   go-back-N, Karn's rule and exponential back-off, and optional Reno fast retransmit
//!   and recovery. Windows and segments are counted in whole MSS-sized segments, as a bulk
//!   sender with sender-side silly-window avoidance only ever sends full segments.
//! * [`receiver`]: cumulative ACKs, out-of-order segments kept, optional delayed ACKs.
//! * [`rto`]: the Jacobson/Karels retransmission-timeout estimator, on coarse ticks
//!   (100 ms in the seeds, 500 ms in BSD) or with exact timers.

pub mod config;
pub mod receiver;
pub mod rto;
pub mod sender;

pub use receiver::{AckAction, TcpReceiver};
pub use rto::RtoEstimator;
pub use sender::{TcpSender, TcpStats};
