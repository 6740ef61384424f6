//! Deterministic on/off source (seed 003 section 5.7): cells at the peak rate during
//! each on period, nothing during the off periods; the first on period starts after
//! `phase`.

use super::{positive_rate, positive_time, EventLoad, SourceEnv, Start, TrafficCfg, TrafficModel};
use crate::abr::source::cell_interval;
use crate::cell::ServiceClass;
use crate::config::ConfigError;
use crate::network::CellDir;
use crate::registry::{Build, Resolve};
use crate::units::{Duration, Rate};
use atmsim_kernel::Time;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `kind = "on_off"`: deterministic on/off source: cells at `peak_rate` during `on`,
/// silence during `off`, the first on period starting at `phase` after the connection's
/// start (seed 003 5.6).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpec {
    /// Cell rate while on.
    pub peak_rate: Rate,
    /// On period.
    pub on: Duration,
    /// Off period.
    pub off: Duration,
    /// Offset of the first on period (default `"0 s"`).
    #[serde(default)]
    pub phase: Option<Duration>,
}

impl Resolve<Time> for OnOffSpec {
    type Cfg = OnOffCfg;
    fn resolve(&self, path: &str, _start: &Time) -> Result<OnOffCfg, ConfigError> {
        Ok(OnOffCfg {
            peak: positive_rate(
                &format!("{path}.peak_rate"),
                self.peak_rate,
                "the peak rate",
            )?,
            on: positive_time(&format!("{path}.on"), self.on)?,
            off: self.off.ps(),
            phase: self.phase.map(|d| d.ps()).unwrap_or(0),
        })
    }
}

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

impl Build<OnOffCfg, SourceEnv<'_>> for OnOff {
    fn build(cfg: &OnOffCfg, _: &SourceEnv<'_>) -> Self {
        OnOff {
            cfg: cfg.clone(),
            on_end: 0,
        }
    }
}

impl TrafficCfg for OnOffCfg {
    fn demand(&self) -> Option<f64> {
        Some(self.peak * self.on as f64 / (self.on + self.off) as f64)
    }

    /// Any class.
    fn classes(&self) -> &'static [ServiceClass] {
        &[
            ServiceClass::Vbr,
            ServiceClass::Cbr,
            ServiceClass::Abr,
            ServiceClass::Ubr,
        ]
    }

    /// The cells of its on periods, and two events per cycle (on, off).
    fn event_loads(&self, _hops: usize) -> Vec<EventLoad> {
        let cycle = self.on.saturating_add(self.off).max(1);
        let duty = self.on as f64 / cycle as f64;
        let mut peak = EventLoad::cells("traffic.peak_rate", self.peak);
        peak.events_per_s *= duty;
        let value = format!("on {} + off {}", Duration(self.on), Duration(self.off));
        let periods = EventLoad::every("traffic.on/off", cycle, 2.0);
        vec![peak, EventLoad { value, ..periods }]
    }

    fn peak_rate(&self) -> Option<(&'static str, f64)> {
        Some(("traffic.peak_rate", self.peak))
    }
}

impl TrafficModel for OnOff {
    fn start(&mut self, now: Time, _fwd: &mut CellDir) -> Start {
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
