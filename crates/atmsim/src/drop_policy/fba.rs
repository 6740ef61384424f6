//! Fair Buffer Allocation, Heinanen and Kilkki (seed 001, slide "UBR+: Per-VC Accounting";
//! spec section 4).
//!
//! Drop the complete frame of VC i if X > R and Y_i * N_a / X > Z * (K - R) / (X - R).
//! The right-hand side falls from infinity at X = R to Z at X = K, so the per-VC limit
//! tightens as the buffer fills. Seed 001's best values: Z = 0.8, R = 0.5 K.

use super::{load_ratio_limit, threshold_cells, Buffer, BufferView, DropPolicy};
use crate::config::{err, ConfigError};
use crate::registry::{Build, Resolve};
use crate::units::Threshold;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// FBA with threshold `r` cells and parameter `z`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fba {
    /// R, cells.
    pub r: f64,
    /// Z.
    pub z: f64,
}

/// `kind = "fba"`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FbaSpec {
    /// R, as a share of the buffer (`"50 %"`) or in cells.
    pub threshold: Threshold,
    /// Z (dimensionless).
    pub z: f64,
}

impl Resolve<Buffer> for FbaSpec {
    type Cfg = Fba;
    fn resolve(&self, path: &str, buffer: &Buffer) -> Result<Fba, ConfigError> {
        let r = threshold_cells(path, &self.threshold, *buffer)?;
        if let Some(k) = buffer.filter(|&k| k == r as u32) {
            return err(
                format!("{path}.threshold"),
                format!(
                    "{r} cells (R) is not below the buffer of {k} cells (K); allowed: below {k} \
                     cells (FBA's limit divides by K - R)"
                ),
            );
        }
        Ok(Fba {
            r,
            z: load_ratio_limit(path, self.z)?,
        })
    }
}

impl Build<Fba, ()> for Fba {
    fn build(cfg: &Fba, _: &()) -> Self {
        *cfg
    }
}

impl DropPolicy for Fba {
    #[inline]
    fn admit_frame(&self, b: &BufferView) -> bool {
        let x = b.occupancy as f64;
        if x <= self.r || b.occupancy == 0 {
            return true;
        }
        let k = b.capacity as f64;
        let load_ratio = b.vc_cells as f64 * b.active_vcs as f64 / x;
        load_ratio <= self.z * (k - self.r) / (x - self.r)
    }
    fn partial_discard(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::view;
    use super::*;

    #[test]
    fn limit_tightens_as_buffer_fills() {
        let p = Fba { r: 500.0, z: 0.8 };
        // X = 600: limit = 0.8*500/100 = 4; 5 VCs, fair 120; a VC at 400 cells has ratio 3.33.
        assert!(p.admit_frame(&view(600, 1000, 5, 400)));
        // X = 1000: limit = 0.8; ratio of a VC with 200 cells is 1.0 > 0.8.
        assert!(!p.admit_frame(&view(1000, 1000, 5, 200)));
        // ... and one with 150 cells (0.75) is admitted.
        assert!(p.admit_frame(&view(1000, 1000, 5, 150)));
        // At or below R everything is admitted.
        assert!(p.admit_frame(&view(500, 1000, 1, 500)));
    }
}
