//! Sessions (seed 004 section 6): an ABR connection that opens (greedy while open) and
//! closes, with fixed or exponential open and closed periods. Opening and closing are
//! signalled to the ports on the route (`sim::cell_host`).

use super::{Start, TrafficCfg, TrafficModel};
use crate::network::CellDir;
use atmsim_kernel::{RngStream, Time};

/// Resolved configuration of a sessions source.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionsCfg {
    /// Mean (or fixed) open period.
    pub on: Time,
    /// Mean (or fixed) closed period.
    pub off: Time,
    /// Exponential periods (else fixed).
    pub exponential: bool,
}

/// A running sessions source.
#[derive(Clone, Debug)]
pub struct Sessions {
    cfg: SessionsCfg,
}

impl TrafficCfg for SessionsCfg {
    type Model = Sessions;

    fn build(&self, _seed: u64, _conn: &str) -> Sessions {
        Sessions { cfg: self.clone() }
    }

    fn demand(&self) -> Option<f64> {
        None
    }

    fn signals_per_session(&self) -> bool {
        true
    }
}

impl TrafficModel for Sessions {
    fn start(&mut self, _now: Time, _fwd: &mut CellDir, _rng: &mut RngStream) -> Start {
        Start::Session
    }

    /// Exponential periods are rounded to the picosecond and at least 1 ps.
    fn next_period(&mut self, opening: bool, rng: &mut RngStream) -> Time {
        let mean = if opening { self.cfg.on } else { self.cfg.off };
        if self.cfg.exponential {
            (rng.exponential(mean as f64).round() as Time).max(1)
        } else {
            mean
        }
    }
}
