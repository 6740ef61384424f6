//! Buffer (drop) policies for an output port (seed 001; spec section 4).
//!
//! **Algorithms decide, ports count.** A policy only answers two questions; the port
//! ([`crate::port`]) owns the buffer, the per-VC accounting and the frame state machine:
//!
//! 1. [`DropPolicy::admit_frame`]: on the *first cell* of an AAL5 frame, accept the frame
//!    or discard it whole (EOM included, which is safe: the previous EOM closed the boundary).
//! 2. [`DropPolicy::partial_discard`]: once a cell of an accepted frame is lost to overflow,
//!    whether the rest of the frame is discarded too (PPD). The EOM is then still queued if it
//!    fits, so the receiver can delimit the damaged frame ("never drop the EOM cell", seed 000).
//!
//! Adding a policy: one file here implementing [`DropPolicy`] (the algorithm), its spec
//! with [`Resolve`] and [`Build`], and one line in the registry below; then a test and a
//! doc page (CONTRIBUTING.md). Names, the scenario schema, `atmsim list` and the docs index
//! all come from the registry line.

mod epd;
mod fba;
mod ppd;
mod selective_drop;
mod tail_drop;

pub use epd::{Epd, EpdSpec};
pub use fba::{Fba, FbaSpec};
pub use ppd::{Ppd, PpdSpec};
pub use selective_drop::{SelectiveDrop, SelectiveDropSpec};
pub use tail_drop::{TailDrop, TailDropSpec};

use crate::config::{err, ConfigError};
use crate::registry::registry;
#[cfg(doc)]
use crate::registry::{Build, Resolve};
use crate::units::Threshold;

/// What a policy's spec is resolved against: the port's buffer size in cells (None:
/// unlimited).
pub type Buffer = Option<u32>;

/// The buffer as a policy sees it when a frame's first cell arrives.
#[derive(Clone, Copy, Debug)]
pub struct BufferView {
    /// X: cells in the buffer now.
    pub occupancy: u32,
    /// K: the buffer size in cells (u32::MAX when unlimited).
    pub capacity: u32,
    /// N_a: VCs with at least one cell in the buffer.
    pub active_vcs: u32,
    /// Y_i: cells of the arriving cell's VC in the buffer.
    pub vc_cells: u32,
}

/// A buffer policy. Both hooks have defaults that give plain tail drop.
pub trait DropPolicy {
    /// Whether a new frame is accepted, decided on its first cell.
    fn admit_frame(&self, _b: &BufferView) -> bool {
        true
    }
    /// Whether the rest of a frame is discarded after one of its cells is lost.
    fn partial_discard(&self) -> bool {
        false
    }
}

registry! { $
    /// The drop policies, as scenario files name them (`policy = { kind = ... }`).
    names: POLICIES;
    /// A buffer (drop) policy, chosen by `kind`. Seed 001; spec section 4.
    spec: PolicySpec;
    /// A resolved drop policy, thresholds in cells.
    cfg: PolicyCfg;
    /// All policies, for static dispatch on the per-cell path.
    #[derive(Clone, Copy, Debug)]
    any: AnyPolicy;
    context: Buffer; environment: (); dispatch: dispatch_policy;
    entries: [
        TailDrop = "tail_drop", "drop a cell when the buffer is full":
            TailDropSpec => TailDrop as TailDrop;
        Ppd = "ppd", "partial packet discard: after a loss, drop the rest of the frame but its EOM":
            PpdSpec => Ppd as Ppd;
        Epd = "epd", "early packet discard: drop whole new frames when X >= R (threshold)":
            EpdSpec => Epd as Epd;
        SelectiveDrop = "selective_drop", "drop a new frame of VC i when X > R and Y_i*N_a/X > Z (per-VC accounting)":
            SelectiveDropSpec => SelectiveDrop as SelectiveDrop;
        Fba = "fba", "fair buffer allocation: drop when X > R and Y_i*N_a/X > Z*(K-R)/(X-R)":
            FbaSpec => Fba as Fba;
    ]
}

impl Default for PolicySpec {
    fn default() -> Self {
        PolicySpec::TailDrop(TailDropSpec {})
    }
}

impl Default for PolicyCfg {
    fn default() -> Self {
        PolicyCfg::TailDrop(TailDrop)
    }
}

impl DropPolicy for AnyPolicy {
    #[inline]
    fn admit_frame(&self, b: &BufferView) -> bool {
        dispatch_policy!(self, p => p.admit_frame(b))
    }
    #[inline]
    fn partial_discard(&self) -> bool {
        dispatch_policy!(self, p => p.partial_discard())
    }
}

/// A threshold R at `path.threshold` in cells of a finite buffer (seed 001: a share of K).
pub fn threshold_cells(path: &str, t: &Threshold, buffer: Buffer) -> Result<f64, ConfigError> {
    let Some(k) = buffer else {
        return err(
            format!("{path}.threshold"),
            "a threshold needs a finite buffer; set the port's buffer to a number of cells, or use kind = \"tail_drop\"",
        );
    };
    match t {
        Threshold::Percent(v) if *v > 100.0 => err(
            format!("{path}.threshold"),
            format!("{t} is above 100 %; allowed: 0 % to 100 % of the buffer"),
        ),
        Threshold::Cells(c) if *c > k => err(
            format!("{path}.threshold"),
            format!("{t} exceeds the buffer of {k} cells"),
        ),
        _ => Ok(t.cells(k)),
    }
}

/// Z at `path.z`: a positive load-ratio limit (seed 001 uses 0.5 to 1.0).
pub fn load_ratio_limit(path: &str, z: f64) -> Result<f64, ConfigError> {
    if !(z > 0.0 && z.is_finite()) {
        return err(
            format!("{path}.z"),
            format!("{z} is not allowed; Z must be a positive number (the papers use 0.5 to 1.0)"),
        );
    }
    Ok(z)
}

#[cfg(test)]
pub(crate) fn view(x: u32, k: u32, na: u32, y: u32) -> BufferView {
    BufferView {
        occupancy: x,
        capacity: k,
        active_vcs: na,
        vc_cells: y,
    }
}
