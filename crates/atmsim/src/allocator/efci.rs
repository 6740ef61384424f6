//! EFCI marking: the binary-feedback baseline (TM 4.0 switch behaviour; spec 1.4).
//!
//! A forward ABR data cell that arrives while the port's ABR queue holds at least
//! `threshold` cells leaves with EFCI = 1. The destination stores the bit and sets CI in
//! the next turned-around RM cell; the source then decreases ACR by RDF (rule 8).
//! No averaging interval, no ER.

use super::{PortEnv, RateAllocator};
use crate::cell::{flag, Cell, ServiceClass};
use crate::config::ConfigError;
use crate::registry::{Build, Resolve};
use crate::units::CellCount;
use atmsim_kernel::Time;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `kind = "efci"`: set EFCI on ABR data cells while the ABR queue is at or above
/// `threshold` (the destination turns it into CI).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EfciSpec {
    /// Queue threshold, e.g. `"50 cells"`.
    pub threshold: CellCount,
}

/// A resolved EFCI configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EfciCfg {
    /// Queue threshold, cells.
    pub threshold: u32,
}

impl Resolve<()> for EfciSpec {
    type Cfg = EfciCfg;
    fn resolve(&self, _path: &str, _: &()) -> Result<EfciCfg, ConfigError> {
        Ok(EfciCfg {
            threshold: self.threshold.0,
        })
    }
}

impl Build<EfciCfg, PortEnv<'_>> for Efci {
    fn build(cfg: &EfciCfg, _: &PortEnv) -> Self {
        Efci::new(cfg.threshold)
    }
}

/// EFCI marking at a queue threshold.
#[derive(Clone, Debug)]
pub struct Efci {
    /// Queue threshold, cells.
    pub threshold: u32,
    /// Cells marked.
    pub marked: u64,
}

impl Efci {
    /// Marks at `threshold` cells.
    pub fn new(threshold: u32) -> Efci {
        Efci {
            threshold,
            marked: 0,
        }
    }
}

impl RateAllocator for Efci {
    #[inline]
    fn on_arrival(&mut self, _now: Time, cell: &mut Cell, abr_queue: u32) -> bool {
        if cell.class() == ServiceClass::Abr && !cell.is_rm() && abr_queue >= self.threshold {
            cell.flags |= flag::EFCI;
            self.marked += 1;
        }
        false
    }
    fn on_backward_rm(&mut self, _now: Time, _cell: &mut Cell) {}
    fn on_timer(&mut self, _now: Time, _abr_queue: u32) {}
    fn interval_deadline(&self) -> Option<Time> {
        None
    }
    fn generation(&self) -> u32 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn abr_data() -> Cell {
        let mut c = Cell::data(0, 0, false);
        c.flags |= 2 << flag::CLASS_SHIFT;
        c
    }

    #[test]
    fn marks_at_and_above_threshold_only_abr_data() {
        let mut e = Efci::new(10);
        let mut c = abr_data();
        e.on_arrival(0, &mut c, 9);
        assert_eq!(c.flags & flag::EFCI, 0);
        e.on_arrival(0, &mut c, 10);
        assert_ne!(c.flags & flag::EFCI, 0);
        let mut rm = abr_data();
        rm.flags |= flag::RM;
        e.on_arrival(0, &mut rm, 100);
        assert_eq!(rm.flags & flag::EFCI, 0, "RM cells are not marked");
        let mut ubr = Cell::data(0, 0, false);
        ubr.flags |= 3 << flag::CLASS_SHIFT;
        e.on_arrival(0, &mut ubr, 100);
        assert_eq!(ubr.flags & flag::EFCI, 0, "only ABR cells are marked");
        assert_eq!(e.marked, 1);
    }
}
