//! No congestion control (as smoltcp's `NoControl`): the sender is limited by the receiver's
//! window only, and a timeout only goes back N. The "no algorithm" entry of the
//! congestion-control registry (`congestion.rs`), and a baseline for the others.

use super::congestion::{AckTimer, CongestionControl, CongestionKeys, Seq, Window};
use crate::config::ConfigError;
use crate::registry::ResolveNamed;

/// No congestion control: cwnd is the whole window from the start.
#[derive(Clone, Debug, Default)]
pub struct NoControl;

/// Configuration of [`NoControl`] (none).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NoControlConfig;

impl ResolveNamed<CongestionKeys> for NoControlConfig {
    const KEYS: &'static [&'static str] = &[];

    fn resolve_named(_path: &str, _keys: &CongestionKeys) -> Result<Self, ConfigError> {
        Ok(NoControlConfig)
    }
}

impl CongestionControl for NoControl {
    type Config = NoControlConfig;

    fn new(_cfg: &NoControlConfig) -> Self {
        NoControl
    }

    fn init(&mut self, w: &mut Window) {
        w.cwnd = w.max;
        w.ssthresh = w.max;
    }

    #[inline]
    fn on_new_ack(&mut self, _w: &mut Window, _seq: Seq, _ack: u32) -> AckTimer {
        AckTimer::Restart
    }

    #[inline]
    fn on_timeout(&mut self, _w: &mut Window, _seq: Seq) {}
}
