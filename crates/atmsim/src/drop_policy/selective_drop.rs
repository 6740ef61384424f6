//! Selective Drop (seed 001, slide "UBR+: Per-VC Accounting"; spec section 4).
//!
//! N_a = VCs with cells in the buffer, Y_i = cells of VC i, fair allocation = X / N_a,
//! load ratio = Y_i / (X / N_a). Drop the complete frame of VC i if X > R and the load ratio
//! exceeds Z. Seed 001's best values: Z = 0.8, R = 0.9 K.

use super::{load_ratio_limit, threshold_cells, Buffer, BufferView, DropPolicy};
use crate::config::ConfigError;
use crate::registry::{Build, Resolve};
use crate::units::Threshold;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Selective Drop with threshold `r` cells and load-ratio limit `z`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelectiveDrop {
    /// R, cells.
    pub r: f64,
    /// Z.
    pub z: f64,
}

/// `kind = "selective_drop"`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SelectiveDropSpec {
    /// R, as a share of the buffer (`"90 %"`) or in cells.
    pub threshold: Threshold,
    /// Z, the load-ratio limit (dimensionless).
    pub z: f64,
}

impl Resolve<Buffer> for SelectiveDropSpec {
    type Cfg = SelectiveDrop;
    fn resolve(&self, path: &str, buffer: &Buffer) -> Result<SelectiveDrop, ConfigError> {
        Ok(SelectiveDrop {
            r: threshold_cells(path, &self.threshold, *buffer)?,
            z: load_ratio_limit(path, self.z)?,
        })
    }
}

impl Build<SelectiveDrop, ()> for SelectiveDrop {
    fn build(cfg: &SelectiveDrop, _: &()) -> Self {
        *cfg
    }
}

impl DropPolicy for SelectiveDrop {
    #[inline]
    fn admit_frame(&self, b: &BufferView) -> bool {
        let x = b.occupancy as f64;
        if x <= self.r || b.occupancy == 0 {
            return true;
        }
        let load_ratio = b.vc_cells as f64 * b.active_vcs as f64 / x;
        load_ratio <= self.z
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
    fn drops_only_vcs_above_their_share_beyond_r() {
        let p = SelectiveDrop { r: 900.0, z: 0.8 };
        // Below R every frame goes in, however greedy the VC.
        assert!(p.admit_frame(&view(900, 1000, 2, 900)));
        // Above R: 5 VCs, X = 950, fair share 190; VC with 160 cells has ratio 0.84 > 0.8.
        assert!(!p.admit_frame(&view(950, 1000, 5, 160)));
        // A VC with 150 cells has ratio 0.789 <= 0.8.
        assert!(p.admit_frame(&view(950, 1000, 5, 150)));
        // A VC with nothing in the buffer is always admitted.
        assert!(p.admit_frame(&view(999, 1000, 5, 0)));
    }
}
