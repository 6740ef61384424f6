//! Persistent source (seed 003 section 5.6): always has cells; with a cap it hands cells
//! at no more than the cap's rate until the cap ends (an ACR-retaining source), then is
//! greedy.

use super::{positive_rate, SourceEnv, Start, TrafficCfg, TrafficModel};
use crate::abr::source::cell_interval;
use crate::config::err;
use crate::config::ConfigError;
use crate::network::CellDir;
use crate::registry::{Build, Resolve};
use crate::units::{Duration, Rate};
use atmsim_kernel::{MaybeTime, Time};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `kind = "persistent"`: a persistent (greedy) cell source: always has cells to send (seed
/// 003, section 3). With `rate_cap` it is an ACR-retaining source: its application hands
/// cells no faster than `rate_cap` until `cap_until`, then as fast as it is allowed (seed
/// 003, 5.7.2).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PersistentSpec {
    /// Application rate limit (default: none).
    #[serde(default)]
    pub rate_cap: Option<Rate>,
    /// When the limit ends (default: never, if `rate_cap` is set).
    #[serde(default)]
    pub cap_until: Option<Duration>,
}

impl Resolve<Time> for PersistentSpec {
    type Cfg = PersistentCfg;
    /// The cap: a rate above 0, until an optional time after the connection's start.
    fn resolve(&self, path: &str, start: &Time) -> Result<PersistentCfg, ConfigError> {
        let cap = match (self.rate_cap, self.cap_until) {
            (None, None) => None,
            (None, Some(_)) => {
                return err(
                    format!("{path}.cap_until"),
                    "is set without rate_cap; give the application's rate limit too",
                )
            }
            (Some(r), u) => {
                let rate = positive_rate(&format!("{path}.rate_cap"), r, "a rate cap")?;
                if let Some(u) = u {
                    if u.ps() <= *start {
                        return err(
                            format!("{path}.cap_until"),
                            format!("{u} is not after the connection's start"),
                        );
                    }
                }
                Some((rate, u.map(|d| d.ps())))
            }
        };
        Ok(PersistentCfg { cap })
    }
}

/// Resolved configuration of a persistent source.
#[derive(Clone, Debug, PartialEq)]
pub struct PersistentCfg {
    /// Rate cap, cells/s, and when it ends (None: never).
    pub cap: Option<(f64, Option<Time>)>,
}

/// A running persistent source: the cap's rate (0: no cap; a cap is above 0) and when it
/// ends, in 16 bytes (the running source of every cell-level connection is as large as
/// its largest kind: issue 14, memory per VC).
#[derive(Clone, Debug)]
pub struct Persistent {
    cap_rate: f64,
    cap_until: MaybeTime,
}

impl Build<PersistentCfg, SourceEnv<'_>> for Persistent {
    fn build(cfg: &PersistentCfg, _: &SourceEnv<'_>) -> Self {
        let (cap_rate, until) = cfg.cap.unwrap_or((0.0, None));
        Persistent {
            cap_rate,
            cap_until: until.map_or(MaybeTime::NONE, MaybeTime::some),
        }
    }
}

impl Persistent {
    /// The cap's rate, cells/s, and when it ends (None: never); None without a cap.
    #[inline]
    fn cap(&self) -> Option<(f64, Option<Time>)> {
        (self.cap_rate > 0.0).then(|| (self.cap_rate, self.cap_until.get()))
    }
}

impl TrafficCfg for PersistentCfg {
    /// A cap counts only if it never ends.
    fn demand(&self) -> Option<f64> {
        match self.cap {
            Some((r, None)) => Some(r),
            _ => None,
        }
    }

    /// Greedy: under ABR its ACR may reach the PCR.
    fn greedy_under_abr(&self) -> bool {
        true
    }
}

impl TrafficModel for Persistent {
    fn start(&mut self, now: Time, fwd: &mut CellDir) -> Start {
        match self.cap() {
            None => {
                fwd.set_greedy();
                Start::Kick
            }
            Some(_) => Start::GenAt(now),
        }
    }

    #[inline]
    fn on_gen(&mut self, now: Time, dir: &mut CellDir) -> Option<Time> {
        let (rate, until) = self.cap()?;
        if until.is_some_and(|u| now >= u) {
            dir.set_greedy();
            return None;
        }
        dir.add_backlog(1);
        let n = now + cell_interval(rate);
        Some(until.map_or(n, |u| n.min(u)))
    }
}
