//! ERICA+'s queue-control function (seed 003 section 4.4, figure 3; spec ALGORITHMS.md
//! section 3, pitfall 7). ERICA+ targets a *queueing delay* T0 instead of a fixed
//! utilization: the target ABR capacity is f(Tq) x (link rate - VBR/CBR use), where Tq is
//! the ABR queue's drain time (queue / total ABR capacity) at the end of the interval.
//!
//! f(q) = b T0 / ((b - 1) q + T0) for q <= T0 (from b at q = 0 down to 1 at T0),
//! f(q) = a T0 / ((a - 1) q + T0) for q > T0 (from 1 toward 0), then f = max(f, QDLF).

use super::erica::EricaCfg;
use super::erica_config::EricaSpec;
use crate::config::{err, ConfigError};
use crate::registry::Resolve;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Parameters of the queue-control function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueueControl {
    /// Hyperbola parameter above T0 (seed 003: 1.15).
    pub a: f64,
    /// Hyperbola parameter below T0, f(0) = b (seed 003: 1.05).
    pub b: f64,
    /// Target queueing delay, seconds (seed 003: 100 us LAN, 500 us WAN).
    pub t0: f64,
    /// Queue drain limit factor, the floor of f (seed 003: 0.5).
    pub qdlf: f64,
}

impl QueueControl {
    /// f(Tq) for a queueing delay of `tq` seconds (infinite gives QDLF).
    #[inline]
    pub fn factor(&self, tq: f64) -> f64 {
        let f = if !tq.is_finite() {
            0.0
        } else if tq <= self.t0 {
            self.b * self.t0 / ((self.b - 1.0) * tq + self.t0)
        } else {
            self.a * self.t0 / ((self.a - 1.0) * tq + self.t0)
        };
        f.max(self.qdlf)
    }
}

impl Default for QueueControl {
    /// Seed 003 section 4.4: a = 1.15, b = 1.05, QDLF = 0.5; T0 = 500 us (the WAN value).
    fn default() -> Self {
        QueueControl {
            a: 1.15,
            b: 1.05,
            t0: atmsim_kernel::time::to_secs_f64(500 * atmsim_kernel::PS_PER_US),
            qdlf: 0.5,
        }
    }
}

/// `kind = "erica_plus"`: every ERICA key but `target_utilization`, plus `a`, `b`, `t0`
/// and `qdlf` (seed 003 section 4.4; spec section 3).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct EricaPlusSpec(pub EricaSpec);

impl Resolve<()> for EricaPlusSpec {
    type Cfg = std::sync::Arc<EricaCfg>;
    fn resolve(&self, path: &str, _: &()) -> Result<Self::Cfg, ConfigError> {
        let e = &self.0;
        if e.target_utilization.is_some() {
            return err(
                format!("{path}.target_utilization"),
                "ERICA+ targets a queueing delay (t0), not a utilization; remove target_utilization or use kind = \"erica\"",
            );
        }
        let mut cfg = e.resolve_common(path)?;
        cfg.target_utilization = 1.0;
        cfg.plus = Some(e.queue_control(path)?);
        Ok(cfg.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: QueueControl = QueueControl {
        a: 1.15,
        b: 1.05,
        t0: 100e-6,
        qdlf: 0.5,
    };

    #[test]
    fn shape() {
        assert!((Q.factor(0.0) - 1.05).abs() < 1e-12, "f(0) = b");
        assert!((Q.factor(100e-6) - 1.0).abs() < 1e-12, "f(T0) = 1");
        assert!(Q.factor(50e-6) < 1.05 && Q.factor(50e-6) > 1.0);
        assert!(Q.factor(200e-6) < 1.0);
        // Both branches meet at T0 continuously.
        assert!((Q.factor(100e-6 * (1.0 + 1e-9)) - 1.0).abs() < 1e-6);
        // Floor.
        assert_eq!(Q.factor(1.0), 0.5);
        assert_eq!(Q.factor(f64::INFINITY), 0.5);
        // Monotone decreasing.
        let mut prev = f64::INFINITY;
        for k in 0..100 {
            let f = Q.factor(k as f64 * 20e-6);
            assert!(f <= prev);
            prev = f;
        }
    }
}
