//! # atmsim-kernel
//!
//! The discrete-event kernel under atmsim. It knows nothing about ATM: it offers
//!
//! * [`time`]: integer time in picoseconds ([`Time`]) and [`SerialClock`], which spaces
//!   back-to-back transmissions of a fixed-size unit on a line of any rate without
//!   accumulating rounding error;
//! * [`queue`]: the event queue ([`EventQueue`]), a timing wheel with an overflow heap keyed by
//!   `(time, insertion sequence)`, so that events at equal times run in insertion order;
//! * [`latest_timer`]: [`LatestTimer`], a timer of which only the latest arming counts,
//!   kept as at most one queued event with the order of scheduling every arming;
//! * [`fifo`]: [`Fifo`], the first-in first-out ring of the per-cell queues, and
//!   [`BoundedFifo`], one whose growth stops at a bound (a port's class queues);
//! * [`memory`]: how much those rings and the event queue have grown on this thread (a
//!   run's memory guard);
//! * [`rng`]: seeded random streams ([`RngStream`]), one independent stream per component,
//!   derived from the run seed and the component's name.
//!
//! Same inputs and seed give bit-identical event orders and random draws on any machine:
//! nothing here depends on hashing order, addresses, threads or wall-clock time.
#![deny(unsafe_code)]

pub mod fifo;
pub mod latest_timer;
pub mod memory;
pub mod prefetch;
pub mod queue;
pub mod rng;
pub mod time;

pub use fifo::{BoundedFifo, Fifo};
pub use latest_timer::LatestTimer;
pub use queue::EventQueue;
pub use rng::RngStream;
pub use time::{MaybeTime, SerialClock, Time, UnitTime, PS_PER_MS, PS_PER_S, PS_PER_US};
