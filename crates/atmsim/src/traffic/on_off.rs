//! Deterministic on/off source (seed 003 section 5.7): cells at the peak rate during
//! each on period, nothing during the off periods; the first on period starts after
//! `phase`.

use super::{Start, TrafficCfg, TrafficModel};
use crate::abr::source::cell_interval;
use crate::network::CellDir;
use atmsim_kernel::{RngStream, Time};

/// Resolved configuration of an on/off source.
#[derive(Clone, Debug, PartialEq)]
pub struct OnOffCfg {
    /// Cells/s while on.
    pub peak: f64,
    /// On period.
    pub on: Time,
    /// Off period.
    pub off: Time,
    /// Offset of the first on period.
    pub phase: Time,
}

/// A running on/off source.
#[derive(Clone, Debug)]
pub struct OnOff {
    cfg: OnOffCfg,
    /// End of the current on period.
    on_end: Time,
}

impl TrafficCfg for OnOffCfg {
    type Model = OnOff;

    fn build(&self, _seed: u64, _conn: &str) -> OnOff {
        OnOff {
            cfg: self.clone(),
            on_end: 0,
        }
    }

    fn demand(&self) -> Option<f64> {
        Some(self.peak * self.on as f64 / (self.on + self.off) as f64)
    }
}

impl TrafficModel for OnOff {
    fn start(&mut self, now: Time, _fwd: &mut CellDir, _rng: &mut RngStream) -> Start {
        self.on_end = now + self.cfg.phase + self.cfg.on;
        Start::GenAt(now + self.cfg.phase)
    }

    #[inline]
    fn on_gen(&mut self, now: Time, dir: &mut CellDir) -> Option<Time> {
        dir.add_backlog(1);
        let mut n = now + cell_interval(self.cfg.peak);
        if n >= self.on_end {
            n = self.on_end + self.cfg.off;
            self.on_end = n + self.cfg.on;
        }
        Some(n)
    }
}
