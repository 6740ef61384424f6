//! The integration tests of atmsim: one binary, one module per topic. Shared helpers
//! (running scenarios, scenario builders, conservation checks, snapshots) are in
//! [`support`]; use them rather than copying them. See CONTRIBUTING.md, "Tests".
//!
//! Run one topic with a filter: `cargo test -p atmsim --release --test it kvr::`.

mod abr;
mod errors;
mod golden;

mod grid;
mod gw;
mod idle_allocators;
mod invariants;
mod kvr;
mod kvr_measured;
mod look_ahead;
mod memory_guard;
mod send_ahead;
mod support;
mod tcp_over_abr;
mod traces;
