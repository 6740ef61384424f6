//! Sessions (seed 004 section 6): an ABR connection that opens (greedy while open) and
//! closes, with fixed or exponential open and closed periods. Opening and closing are
//! signalled to the ports on the route (`sim::cell_host`).

use super::{positive_time, EventLoad, SourceEnv, Start, TrafficCfg, TrafficModel};
use crate::config::ConfigError;
use crate::network::CellDir;
use crate::registry::{Build, Resolve};
use crate::units::Duration;
use atmsim_kernel::{RngStream, Time};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `kind = "sessions"`: a greedy cell source whose connection opens and closes (seed 004
/// section 6): open and sending as fast as it is allowed for an on period, closed
/// (signalled to the switches, sending nothing) for an off period, alternately from its
/// start. Each opening starts the ABR source again from ICR.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionsSpec {
    /// Mean (or fixed) on period, e.g. `"100 ms"`.
    pub on: Duration,
    /// Mean (or fixed) off period.
    pub off: Duration,
    /// `exponential` (default) or `fixed` periods.
    #[serde(default)]
    pub distribution: Option<PeriodDistribution>,
}

/// How on and off periods are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PeriodDistribution {
    /// Exponential with the given mean.
    #[default]
    Exponential,
    /// Exactly the given length.
    Fixed,
}

impl Resolve<Time> for SessionsSpec {
    type Cfg = SessionsCfg;
    fn resolve(&self, path: &str, _start: &Time) -> Result<SessionsCfg, ConfigError> {
        Ok(SessionsCfg {
            on: positive_time(&format!("{path}.on"), self.on)?,
            off: positive_time(&format!("{path}.off"), self.off)?,
            exponential: self.distribution.unwrap_or_default() == PeriodDistribution::Exponential,
        })
    }
}

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
    /// The periods' random stream: `app/<connection>` of the run seed.
    rng: RngStream,
}

impl Build<SessionsCfg, SourceEnv<'_>> for Sessions {
    fn build(cfg: &SessionsCfg, env: &SourceEnv<'_>) -> Self {
        Sessions {
            cfg: cfg.clone(),
            rng: RngStream::named(env.seed, &["app/", env.conn]),
        }
    }
}

impl TrafficCfg for SessionsCfg {
    fn demand(&self) -> Option<f64> {
        None
    }

    fn signals_per_session(&self) -> bool {
        true
    }

    /// Each opening and closing is signalled hop by hop and restarts the ABR source (ICR,
    /// RM cells): counted as 16 events per port of the route, both ways (the fuzzer found
    /// 1 ps on, 10 ns off taking 24 s for 0.05 s).
    fn event_loads(&self, hops: usize) -> Vec<EventLoad> {
        let cycle = self.on.saturating_add(self.off).max(1);
        let value = format!("on {} + off {}", Duration(self.on), Duration(self.off));
        let periods = EventLoad::every("traffic.on/off", cycle, 32.0 * hops.max(1) as f64);
        vec![EventLoad { value, ..periods }]
    }
}

impl TrafficModel for Sessions {
    fn start(&mut self, _now: Time, _fwd: &mut CellDir) -> Start {
        Start::Session
    }

    /// Exponential periods are rounded to the picosecond and at least 1 ps.
    fn next_period(&mut self, opening: bool) -> Time {
        let mean = if opening { self.cfg.on } else { self.cfg.off };
        if self.cfg.exponential {
            (self.rng.exponential(mean as f64).round() as Time).max(1)
        } else {
            mean
        }
    }
}
