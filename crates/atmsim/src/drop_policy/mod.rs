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
//! Adding a policy: one file here implementing [`DropPolicy`], one arm in [`AnyPolicy`],
//! one name in [`POLICY_NAMES`], a test, and a doc page.

mod epd;
mod fba;
mod ppd;
mod selective_drop;
mod tail_drop;

pub use epd::Epd;
pub use fba::Fba;
pub use ppd::Ppd;
pub use selective_drop::SelectiveDrop;
pub use tail_drop::TailDrop;

use crate::scenario::PolicyCfg;

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

/// All policies, for static dispatch on the per-cell path.
#[derive(Clone, Copy, Debug)]
pub enum AnyPolicy {
    /// See [`TailDrop`].
    TailDrop(TailDrop),
    /// See [`Ppd`].
    Ppd(Ppd),
    /// See [`Epd`].
    Epd(Epd),
    /// See [`SelectiveDrop`].
    SelectiveDrop(SelectiveDrop),
    /// See [`Fba`].
    Fba(Fba),
}

/// Registry names of the policies, as scenario files spell them.
pub const POLICY_NAMES: &[(&str, &str)] = &[
    ("tail_drop", "drop a cell when the buffer is full"),
    (
        "ppd",
        "partial packet discard: after a loss, drop the rest of the frame but its EOM",
    ),
    (
        "epd",
        "early packet discard: drop whole new frames when X >= R (threshold)",
    ),
    (
        "selective_drop",
        "drop a new frame of VC i when X > R and Y_i*N_a/X > Z (per-VC accounting)",
    ),
    (
        "fba",
        "fair buffer allocation: drop when X > R and Y_i*N_a/X > Z*(K-R)/(X-R)",
    ),
];

impl AnyPolicy {
    /// Builds the policy a resolved scenario asks for.
    pub fn from_cfg(c: &PolicyCfg) -> AnyPolicy {
        match *c {
            PolicyCfg::TailDrop => AnyPolicy::TailDrop(TailDrop),
            PolicyCfg::Ppd => AnyPolicy::Ppd(Ppd),
            PolicyCfg::Epd { r } => AnyPolicy::Epd(Epd { r }),
            PolicyCfg::SelectiveDrop { r, z } => AnyPolicy::SelectiveDrop(SelectiveDrop { r, z }),
            PolicyCfg::Fba { r, z } => AnyPolicy::Fba(Fba { r, z }),
        }
    }
}

impl DropPolicy for AnyPolicy {
    #[inline]
    fn admit_frame(&self, b: &BufferView) -> bool {
        match self {
            AnyPolicy::TailDrop(p) => p.admit_frame(b),
            AnyPolicy::Ppd(p) => p.admit_frame(b),
            AnyPolicy::Epd(p) => p.admit_frame(b),
            AnyPolicy::SelectiveDrop(p) => p.admit_frame(b),
            AnyPolicy::Fba(p) => p.admit_frame(b),
        }
    }
    #[inline]
    fn partial_discard(&self) -> bool {
        match self {
            AnyPolicy::TailDrop(p) => p.partial_discard(),
            AnyPolicy::Ppd(p) => p.partial_discard(),
            AnyPolicy::Epd(p) => p.partial_discard(),
            AnyPolicy::SelectiveDrop(p) => p.partial_discard(),
            AnyPolicy::Fba(p) => p.partial_discard(),
        }
    }
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
