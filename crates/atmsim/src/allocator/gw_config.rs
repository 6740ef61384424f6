//! Keys, defaults and checks of the `gw` allocator (ATMF 98-0408, Vandalore, Fahmy, Jain,
//! Goyal, Goyal, "Overload based explicit rate switch schemes with MCR guarantees",
//! section 3). [`GwCfg`]'s `impl Default` holds the defaults.

use super::erica_config::EricaSpec;
use super::erica_plus::QueueControl;
use super::gw::Gw;
use super::PortEnv;
use crate::config::{err, unit_fraction, ConfigError};
use crate::registry::{Build, Resolve};
use crate::units::{CellCount, Duration};
use atmsim_kernel::{Time, PS_PER_MS};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which of the paper's four ways of computing Excess_ER (98-0408 section 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GwScheme {
    /// Algorithm A: Excess_ER = max(ExcessFairShare(i), (SourceRate(i) - MCR_i) / z)
    /// with activity levels (eqs 20-23).
    A,
    /// Algorithm B: Excess_ER = ExcessFairShare(i) / z (eq 24).
    B,
    /// Algorithm D: Excess_ER = VCShare if z > 1 + delta, else
    /// max(w_i WtMaxAllocPrevious, VCShare) (eqs 29-32).
    D,
}

/// `kind = "gw"`: general weighted fairness with MCR guarantees (ATMF 98-0408).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GwSpec {
    /// `"a"` (default), `"b"` or `"d"`: the paper's algorithm.
    #[serde(default)]
    pub scheme: Option<GwScheme>,
    /// Averaging interval: ends after this many ABR cells... (default `"100 cells"`)
    #[serde(default)]
    pub interval_cells: Option<CellCount>,
    /// ...or after this time (default `"1 ms"`).
    #[serde(default)]
    pub interval_time: Option<Duration>,
    /// Algorithm D's band: above z = 1 + delta only VCShare counts (default 0.1).
    #[serde(default)]
    pub delta: Option<f64>,
    /// Measure each VC's source rate over the interval instead of reading CCR from
    /// forward RM cells (98-0408 figure 7; default false).
    #[serde(default)]
    pub per_vc_ccr: Option<bool>,
    /// Weight of the newest interval in the exponential averaging of the overload z and
    /// of the weighted number of active VCs sum_j w_j AL(j), 0 < alpha <= 1 (98-0408
    /// section 4.4, "decay factor"; default 1: no averaging).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Algorithms A and B: weigh each VC by its activity level AL (eqs 20-21; default true).
    /// `false` takes AL = 1, the paper's ExcessFairShare before that extension: it avoids the
    /// ExcessFairShare wind-up on WAN links (docs/models/gw.md).
    #[serde(default)]
    pub activity_level: Option<bool>,
    /// Queue control hyperbola parameter a, queues above T0 (default 1.15).
    #[serde(default)]
    pub a: Option<f64>,
    /// Queue control parameter b = f(0) (default 1.05).
    #[serde(default)]
    pub b: Option<f64>,
    /// Target queueing delay T0 (default `"500 us"`).
    #[serde(default)]
    pub t0: Option<Duration>,
    /// Queue drain limit factor, 0 < QDLF <= 1 (default 0.5).
    #[serde(default)]
    pub qdlf: Option<f64>,
}

/// The resolved `gw` configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct GwCfg {
    /// The algorithm.
    pub scheme: GwScheme,
    /// Interval length in ABR cells.
    pub interval_cells: u32,
    /// Interval length in time.
    pub interval_time: Time,
    /// Algorithm D's band.
    pub delta: f64,
    /// Per-VC rate measurement.
    pub per_vc_ccr: bool,
    /// Weight of the newest interval in averaging z and sum_j w_j AL(j) (1: none).
    pub alpha: f64,
    /// Activity levels in ExcessFairShare (eqs 20-21); false: AL = 1.
    pub activity_level: bool,
    /// The dynamic queue control (98-0408 section 2: the ERICA+ function of seed 003 4.4).
    pub queue: QueueControl,
}

impl Default for GwCfg {
    /// 98-0408: algorithm A, ERICA's 100-cell / 1 ms interval, delta 0.1, CCR from forward
    /// RM cells, and ERICA+'s queue control (a 1.15, b 1.05, T0 500 us, QDLF 0.5).
    fn default() -> Self {
        GwCfg {
            scheme: GwScheme::A,
            interval_cells: 100,
            interval_time: PS_PER_MS,
            delta: 0.1,
            per_vc_ccr: false,
            alpha: 1.0,
            activity_level: true,
            queue: QueueControl::default(),
        }
    }
}

impl Resolve<()> for GwSpec {
    type Cfg = GwCfg;
    fn resolve(&self, path: &str, _: &()) -> Result<GwCfg, ConfigError> {
        let d = GwCfg::default();
        let interval_cells = self.interval_cells.map(|c| c.0).unwrap_or(d.interval_cells);
        if interval_cells == 0 {
            return err(
                format!("{path}.interval_cells"),
                "0 cells is not allowed; at least 1 cell",
            );
        }
        let interval_time = self
            .interval_time
            .map(|t| t.ps())
            .unwrap_or(d.interval_time);
        if interval_time == 0 {
            return err(format!("{path}.interval_time"), "must be longer than 0 s");
        }
        let delta = self.delta.unwrap_or(d.delta);
        if !(delta.is_finite() && delta >= 0.0) {
            return err(
                format!("{path}.delta"),
                format!("{delta} is not allowed; delta must be 0 or more (default 0.1)"),
            );
        }
        let q = EricaSpec {
            a: self.a,
            b: self.b,
            t0: self.t0,
            qdlf: self.qdlf,
            ..EricaSpec::default()
        };
        Ok(GwCfg {
            scheme: self.scheme.unwrap_or(d.scheme),
            interval_cells,
            interval_time,
            delta,
            per_vc_ccr: self.per_vc_ccr.unwrap_or(d.per_vc_ccr),
            alpha: unit_fraction(path, "alpha", self.alpha, d.alpha, false)?,
            activity_level: self.activity_level.unwrap_or(d.activity_level),
            queue: q.queue_control(path)?,
        })
    }
}

impl Build<GwCfg, PortEnv<'_>> for Gw {
    fn build(cfg: &GwCfg, env: &PortEnv) -> Self {
        let mut gw = Gw::with_slots(cfg.clone(), env.link_rate, env.vcs.len(), env.slots.clone());
        for (slot, &f) in env.vcs.iter().enumerate() {
            gw.set_source(slot, env.rm_fields[f as usize]);
        }
        gw
    }
}
