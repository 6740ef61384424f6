//! KVR's keys, defaults and checks (seed 004 section 2.2; spec section 5).

use super::kvr::KvrCfg;
use super::{Kvr, PortEnv};
use crate::config::{err, ConfigError};
use crate::registry::{Build, Resolve};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Options of the KVR allocator (seed 004 section 2.2; spec section 5).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KvrSpec {
    /// Share of the link rate ABR may be allocated, 0 < U <= 1 (default 1.0: seed 004's
    /// "target link utilization is set at 100 %"). VBR reservations are subtracted.
    #[serde(default, deserialize_with = "crate::scenario::plain::share")]
    pub target_utilization: Option<f64>,
    /// Also lower the ER of backward RM cells to the allocation the VC could get now
    /// (seed 004 section 4.1's suggested improvement; default false).
    #[serde(default)]
    pub update_backward_rm: Option<bool>,
    /// Book a VC that clearly sends less than its CCR (its arrival rate at the port over 4
    /// RM intervals below 95 % of its CCR) at that rate, and do not raise it, so a source
    /// sending below its ACR frees its share (not in seed 004; default false).
    #[serde(default)]
    pub measured_rate: Option<bool>,
}

impl Default for KvrCfg {
    /// Seed 004: "target link utilization is set at 100 %"; backward RM cells untouched.
    fn default() -> Self {
        KvrCfg {
            target_utilization: 1.0,
            update_backward_rm: false,
            measured_rate: false,
        }
    }
}

impl Resolve<()> for KvrSpec {
    type Cfg = KvrCfg;
    fn resolve(&self, path: &str, _: &()) -> Result<KvrCfg, ConfigError> {
        let d = KvrCfg::default();
        let u = self.target_utilization.unwrap_or(d.target_utilization);
        if !(u.is_finite() && u > 0.0 && u <= 1.0) {
            return err(
                format!("{path}.target_utilization"),
                format!("{u} is not allowed; target_utilization must be in (0, 1] (seed 004: 1.0)"),
            );
        }
        Ok(KvrCfg {
            target_utilization: u,
            update_backward_rm: self.update_backward_rm.unwrap_or(d.update_backward_rm),
            measured_rate: self.measured_rate.unwrap_or(d.measured_rate),
        })
    }
}

impl Build<KvrCfg, PortEnv<'_>> for Kvr {
    fn build(cfg: &KvrCfg, env: &PortEnv) -> Self {
        Kvr::with_slots(
            cfg.clone(),
            env.link_rate,
            env.vcs.to_vec(),
            env.slots.clone(),
        )
    }
}
