//! Constant bit rate source (seed 003 section 5.7): one cell every `1 / rate`.

use super::{Start, TrafficCfg, TrafficModel};
use crate::abr::source::cell_interval;
use crate::network::CellDir;
use atmsim_kernel::{RngStream, Time};

/// Resolved configuration of a CBR source.
#[derive(Clone, Debug, PartialEq)]
pub struct CbrCfg {
    /// Cells/s.
    pub rate: f64,
}

/// A running CBR source.
#[derive(Clone, Debug)]
pub struct Cbr {
    rate: f64,
}

impl TrafficCfg for CbrCfg {
    type Model = Cbr;

    fn build(&self, _seed: u64, _conn: &str) -> Cbr {
        Cbr { rate: self.rate }
    }

    fn demand(&self) -> Option<f64> {
        Some(self.rate)
    }
}

impl TrafficModel for Cbr {
    fn start(&mut self, now: Time, _fwd: &mut CellDir, _rng: &mut RngStream) -> Start {
        Start::GenAt(now)
    }

    #[inline]
    fn on_gen(&mut self, now: Time, dir: &mut CellDir) -> Option<Time> {
        dir.add_backlog(1);
        Some(now + cell_interval(self.rate))
    }
}
