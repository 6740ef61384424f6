//! Constant bit rate source (seed 003 section 5.7): one cell every `1 / rate`.

use super::{positive_rate, EventLoad, SourceEnv, Start, TrafficCfg, TrafficModel};
use crate::abr::source::cell_interval;
use crate::cell::ServiceClass;
use crate::config::ConfigError;
use crate::network::CellDir;
use crate::registry::{Build, Resolve};
use crate::units::Rate;
use atmsim_kernel::Time;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `kind = "cbr"`: constant bit rate, one cell every 1/rate.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CbrSpec {
    /// Cell rate.
    pub rate: Rate,
}

impl Resolve<Time> for CbrSpec {
    type Cfg = CbrCfg;
    fn resolve(&self, path: &str, _start: &Time) -> Result<CbrCfg, ConfigError> {
        Ok(CbrCfg {
            rate: positive_rate(&format!("{path}.rate"), self.rate, "the rate")?,
        })
    }
}

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

impl Build<CbrCfg, SourceEnv<'_>> for Cbr {
    fn build(cfg: &CbrCfg, _: &SourceEnv<'_>) -> Self {
        Cbr { rate: cfg.rate }
    }
}

impl TrafficCfg for CbrCfg {
    fn demand(&self) -> Option<f64> {
        Some(self.rate)
    }

    /// Reserved-rate traffic (CBR, VBR) or best effort.
    fn classes(&self) -> &'static [ServiceClass] {
        &[ServiceClass::Cbr, ServiceClass::Vbr, ServiceClass::Ubr]
    }

    fn event_loads(&self, _hops: usize) -> Vec<EventLoad> {
        vec![EventLoad::cells("traffic.rate", self.rate)]
    }

    fn peak_rate(&self) -> Option<(&'static str, f64)> {
        Some(("traffic.rate", self.rate))
    }
}

impl TrafficModel for Cbr {
    fn start(&mut self, now: Time, _fwd: &mut CellDir) -> Start {
        Start::GenAt(now)
    }

    #[inline]
    fn on_gen(&mut self, now: Time, dir: &mut CellDir) -> Option<Time> {
        dir.add_backlog(1);
        Some(now + cell_interval(self.rate))
    }
}
