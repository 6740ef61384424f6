//! Tahoe as the seeds use the name: slow start, congestion avoidance and timeouts with
//! go-back-N, and **no** fast retransmit or recovery (seed 001, "TCP Parameters": "TCP Fast
//! Retransmit and Recovery disabled"; spec section 6.1). Duplicate ACKs are only counted.
//! Every hook is the default of [`CongestionControl`].

use super::congestion::{CongestionControl, CongestionKeys};
use crate::config::ConfigError;
use crate::registry::ResolveNamed;

/// The "vanilla" TCP of the OSU studies (seeds 000-002).
#[derive(Clone, Debug, Default)]
pub struct Tahoe;

/// Tahoe has no parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TahoeConfig;

impl ResolveNamed<CongestionKeys> for TahoeConfig {
    const KEYS: &'static [&'static str] = &[];

    fn resolve_named(_path: &str, _keys: &CongestionKeys) -> Result<Self, ConfigError> {
        Ok(TahoeConfig)
    }
}

impl CongestionControl for Tahoe {
    type Config = TahoeConfig;

    fn new(_cfg: &TahoeConfig) -> Self {
        Tahoe
    }
}
