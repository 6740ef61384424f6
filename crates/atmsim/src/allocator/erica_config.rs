//! ERICA's keys, defaults and checks (seed 003 sections 4.1-4.4; spec sections 2 and 3).
//!
//! [`EricaSpec`] is what a scenario writes for `kind = "erica"` (and, wrapped, for
//! `"erica_plus"` and `"modified_erica"`); [`EricaCfg`]'s `impl Default` holds the
//! defaults, the only place they are written.

use super::erica::{EricaCfg, LoadAvg};
use super::erica_plus::QueueControl;
use super::{Erica, PortEnv};
use crate::config::{err, unit_fraction, ConfigError};
use crate::registry::{Build, Resolve};
use crate::units::{CellCount, Duration};
use atmsim_kernel::{time, PS_PER_MS};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// ERICA and ERICA+ options (seed 003 sections 4.1-4.4; spec sections 2 and 3).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EricaSpec {
    /// Target utilization U, 0 < U <= 1 (ERICA; default 0.9). ERICA+ targets a queueing
    /// delay instead and refuses this key.
    #[serde(default, deserialize_with = "crate::scenario::plain::share")]
    pub target_utilization: Option<f64>,
    /// Averaging interval: ends after this many ABR cells... (default `"100 cells"`)
    #[serde(default)]
    pub interval_cells: Option<CellCount>,
    /// ...or after this time, whichever comes first (default `"1 ms"`).
    #[serde(default)]
    pub interval_time: Option<Duration>,
    /// Max-min enhancement (seed 003 4.2): under load z <= 1 + delta, allocate at least
    /// the largest allocation of the previous interval (default true).
    #[serde(default)]
    pub max_min: Option<bool>,
    /// delta of the max-min enhancement (default 0.1).
    #[serde(default)]
    pub delta: Option<f64>,
    /// Fair share first (seed 003 4.3): a VC below FairShare rises to FairShare only
    /// (default true).
    #[serde(default)]
    pub fair_share_first: Option<bool>,
    /// Count a VC as active when its backward RM cell passes (seed 003 4.4; default false).
    #[serde(default)]
    pub bidirectional_counting: Option<bool>,
    /// Decay factor for averaging the number of active sources, 0 < d < 1
    /// (seed 003 4.4; default: no averaging).
    #[serde(default)]
    pub source_averaging: Option<f64>,
    /// A newly seen VC updates FairShare at once (spec 2.4; default false).
    #[serde(default)]
    pub immediate_fair_share: Option<bool>,
    /// Measure each VC's rate over the interval instead of reading CCR from forward RM
    /// cells (seed 003 4.4; default false).
    #[serde(default)]
    pub per_vc_ccr: Option<bool>,
    /// Load-factor averaging: `"none"` (default), `"ratio"` (EWMA of z) or `"counts"`
    /// (EWMA of cells and time, then divide; spec 2.5).
    #[serde(default)]
    pub load_averaging: Option<LoadAveraging>,
    /// Weight of the newest interval in load averaging, 0 < alpha <= 1 (default 0.8).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Give one ER per VC per averaging interval (spec 2.6; default true).
    #[serde(default)]
    pub one_er_per_interval: Option<bool>,
    /// Count backward RM cells entering the port as ABR input (spec 9.2; default true).
    #[serde(default)]
    pub count_backward_rm: Option<bool>,
    /// ERICA+ hyperbola parameter a, for queues above T0 (default 1.15).
    #[serde(default)]
    pub a: Option<f64>,
    /// ERICA+ hyperbola parameter b, for queues below T0 (default 1.05).
    #[serde(default)]
    pub b: Option<f64>,
    /// ERICA+ target queueing delay T0 (default `"500 us"`).
    #[serde(default)]
    pub t0: Option<Duration>,
    /// ERICA+ queue drain limit factor, 0 < QDLF <= 1 (default 0.5).
    #[serde(default)]
    pub qdlf: Option<f64>,
}

/// How ERICA averages its load factor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoadAveraging {
    /// z of the last interval only.
    None,
    /// z <- (1 - alpha) z + alpha z_new.
    Ratio,
    /// Average ABR cells, capacity cells and interval length separately, then divide.
    Counts,
}

/// Weight of the newest interval in load averaging (spec 2.5).
pub const DEFAULT_ALPHA: f64 = 0.8;

impl Default for EricaCfg {
    /// Seed 003 section 4 and spec section 2: U = 0.9, intervals of 100 ABR cells or
    /// 1 ms, the max-min enhancement with delta = 0.1 (seed 003: "a small fraction"),
    /// fair share first, one ER per VC per interval, backward RM cells counted as input.
    fn default() -> Self {
        EricaCfg {
            target_utilization: 0.9,
            interval_cells: 100,
            interval_time: PS_PER_MS,
            max_min_delta: Some(0.1),
            fair_share_first: true,
            bidirectional_counting: false,
            source_averaging: None,
            immediate_fair_share: false,
            per_vc_ccr: false,
            load_averaging: LoadAvg::None,
            one_er_per_interval: true,
            count_backward_rm: true,
            plus: None,
        }
    }
}

impl Resolve<()> for EricaSpec {
    /// Shared by every port of the same settings (each `Erica` holds the pointer, not a
    /// copy: issue 14, memory per VC).
    type Cfg = Arc<EricaCfg>;
    fn resolve(&self, path: &str, _: &()) -> Result<Arc<EricaCfg>, ConfigError> {
        refuse_plus_keys(path, self)?;
        self.resolve_common(path).map(Arc::new)
    }
}

impl Build<Arc<EricaCfg>, PortEnv<'_>> for Erica {
    fn build(cfg: &Arc<EricaCfg>, env: &PortEnv) -> Self {
        Erica::with_slots(
            Arc::clone(cfg),
            env.link_rate,
            env.vcs.len(),
            env.slots.clone(),
        )
    }
}

/// ERICA+ keys on plain ERICA are refused, naming the key.
fn refuse_plus_keys(path: &str, e: &EricaSpec) -> Result<(), ConfigError> {
    for (k, set) in [
        ("a", e.a.is_some()),
        ("b", e.b.is_some()),
        ("t0", e.t0.is_some()),
        ("qdlf", e.qdlf.is_some()),
    ] {
        if set {
            return err(
                format!("{path}.{k}"),
                format!("{k} is an ERICA+ parameter; use kind = \"erica_plus\" or remove it"),
            );
        }
    }
    Ok(())
}

impl EricaSpec {
    /// The keys ERICA and ERICA+ share, checked in the order a user reads them.
    pub(crate) fn resolve_common(&self, path: &str) -> Result<EricaCfg, ConfigError> {
        let d = EricaCfg::default();
        let target_utilization = unit_fraction(
            path,
            "target_utilization",
            self.target_utilization,
            d.target_utilization,
            false,
        )?;
        let (interval_cells, interval_time) = self.interval(path, &d)?;
        let max_min_delta = self.max_min_delta(path, &d)?;
        let source_averaging = self.source_averaging(path)?;
        let load_averaging = self.load_averaging(path)?;
        Ok(EricaCfg {
            target_utilization,
            interval_cells,
            interval_time,
            max_min_delta,
            fair_share_first: self.fair_share_first.unwrap_or(d.fair_share_first),
            bidirectional_counting: self
                .bidirectional_counting
                .unwrap_or(d.bidirectional_counting),
            source_averaging,
            immediate_fair_share: self.immediate_fair_share.unwrap_or(d.immediate_fair_share),
            per_vc_ccr: self.per_vc_ccr.unwrap_or(d.per_vc_ccr),
            load_averaging,
            one_er_per_interval: self.one_er_per_interval.unwrap_or(d.one_er_per_interval),
            count_backward_rm: self.count_backward_rm.unwrap_or(d.count_backward_rm),
            plus: None,
        })
    }

    fn interval(&self, path: &str, d: &EricaCfg) -> Result<(u32, u64), ConfigError> {
        let cells = self.interval_cells.map(|c| c.0).unwrap_or(d.interval_cells);
        if cells == 0 {
            return err(
                format!("{path}.interval_cells"),
                "0 cells is not allowed; at least 1 cell",
            );
        }
        let itime = self
            .interval_time
            .map(|t| t.ps())
            .unwrap_or(d.interval_time);
        if itime == 0 {
            return err(format!("{path}.interval_time"), "must be longer than 0 s");
        }
        Ok((cells, itime))
    }

    fn max_min_delta(&self, path: &str, d: &EricaCfg) -> Result<Option<f64>, ConfigError> {
        let delta = self.delta.unwrap_or(d.max_min_delta.unwrap_or(0.1));
        if !(delta.is_finite() && delta >= 0.0) {
            return err(
                format!("{path}.delta"),
                format!("{delta} is not allowed; delta must be 0 or more"),
            );
        }
        let max_min = self.max_min.unwrap_or(d.max_min_delta.is_some());
        if !max_min && self.delta.is_some() {
            return err(
                format!("{path}.delta"),
                "is set but max_min = false; delta only matters with the max-min enhancement",
            );
        }
        Ok(max_min.then_some(delta))
    }

    fn source_averaging(&self, path: &str) -> Result<Option<f64>, ConfigError> {
        match self.source_averaging {
            None => Ok(None),
            Some(d) if d > 0.0 && d < 1.0 => Ok(Some(d)),
            Some(d) => err(
                format!("{path}.source_averaging"),
                format!(
                    "{d} is not allowed; the decay factor must be strictly between 0 and 1 (e.g. 0.9)"
                ),
            ),
        }
    }

    fn load_averaging(&self, path: &str) -> Result<LoadAvg, ConfigError> {
        let alpha = unit_fraction(path, "alpha", self.alpha, DEFAULT_ALPHA, false)?;
        Ok(match self.load_averaging.unwrap_or(LoadAveraging::None) {
            LoadAveraging::None => {
                if self.alpha.is_some() {
                    return err(
                        format!("{path}.alpha"),
                        "is set but load_averaging = \"none\"; choose \"ratio\" or \"counts\"",
                    );
                }
                LoadAvg::None
            }
            LoadAveraging::Ratio => LoadAvg::Ratio(alpha),
            LoadAveraging::Counts => LoadAvg::Counts(alpha),
        })
    }

    /// ERICA+'s queue-control keys (seed 003 4.4): a, b, T0, QDLF.
    pub(crate) fn queue_control(&self, path: &str) -> Result<QueueControl, ConfigError> {
        let d = QueueControl::default();
        let a = self.a.unwrap_or(d.a);
        let b = self.b.unwrap_or(d.b);
        for (k, v) in [("a", a), ("b", b)] {
            if !(v.is_finite() && v > 1.0) {
                return err(
                    format!("{path}.{k}"),
                    format!(
                        "{v} is not allowed; {k} must be above 1 (seed 003: a = 1.15, b = 1.05)"
                    ),
                );
            }
        }
        let t0 = match self.t0 {
            Some(t) if t.ps() == 0 => {
                return err(format!("{path}.t0"), "must be longer than 0 s");
            }
            Some(t) => time::to_secs_f64(t.ps()),
            None => d.t0,
        };
        let qdlf = unit_fraction(path, "qdlf", self.qdlf, d.qdlf, false)?;
        Ok(QueueControl { a, b, t0, qdlf })
    }
}
