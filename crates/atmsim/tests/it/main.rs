//! The integration tests of atmsim, one binary, modules by topic. Shared helpers
//! (running scenarios, builders, conservation checks, snapshots) are in [`support`].
//! See CONTRIBUTING.md, "Tests".

mod grid;
mod support;
