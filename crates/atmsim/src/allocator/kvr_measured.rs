//! KVR with measured rates (`measured_rate = true`; issue 17, not in seed 004): the demand
//! test that decides when a VC's measured arrival rate replaces its CCR.
//!
//! Seed 004's allocator trusts the CCR of forward RM cells (Figure 2.1 lines 1-3,
//! rho = min(ER, CCR)). A TM 4.0 source reports CCR = ACR even when it sends less (a
//! demand-limited application, a rate cap), so KVR keeps booking its whole share and the
//! capacity is lost. The port therefore measures each VC's arrival rate, as ERICA's
//! per-VC CCR option does (seed 003 section 4.4), but it uses the measurement **only when
//! the VC is clearly demand-limited**:
//!
//! ```text
//! window  = the VC's last W = WINDOW_RM_INTERVALS forward-RM intervals at this port
//! rate    = forward ABR cells of the VC in the window / the window's duration
//! floor   = min of the CCRs of the forward RM cells bounding the window
//! rho     = rate  if rate < (1 - DEMAND_MARGIN) * floor   (demand-limited)
//!           CCR   otherwise                                (seed 004)
//! ```
//!
//! Why not min(CCR, rate) on every RM cell (the first version of this option): the arrival
//! rate of a greedy VC at a port scatters around its CCR (upstream queues change between
//! two of its RM cells), and the minimum keeps every downward error. KVR books a satisfied
//! VC at rho, so each such error leaves B_f > 0, and eq. 2.9 hands all of B_f to the few
//! VCs bottlenecked at that moment (B_f / N_b, N_b often 1): on the scorecard's `r2-capped`
//! a greedy VC got ER 15.1 Mbps for a 9.69 Mbps share, queues grew, the measurements
//! downstream of them fell further, and ACRs swung by 112 % (docs/models/kvr.md).
//!
//! The two constants are set from what they must absorb, not from a result:
//! * [`DEMAND_MARGIN`] 5 %: a greedy TM 4.0 source may put one in-rate backward RM cell
//!   of the reverse direction among the Nrm cells of each forward-RM interval (TM 4.0
//!   rule 3b; not counted here, they belong to the other flow), 1/Nrm = 3.1 % at the
//!   default Nrm = 32; the rest covers arrival jitter (0.7 % at the 0.1 % quantile over a
//!   single interval, 0.16 % over four, on `r2-capped` with the seed's CCR). Its cost: a
//!   source sending within 5 % of its ACR keeps its CCR booked, at most 5 % of its rate
//!   lost.
//! * [`WINDOW_RM_INTERVALS`] 4: averages the jitter of a demand-limited VC's own rate (its
//!   booking moves B_f, so its noise reaches the others' ER) over 4 Nrm cells; the price
//!   is that a demand-limited source that turns greedy is booked below its rate for at
//!   most 4 of its RM intervals.
//!
//! The floor is the smallest CCR in the window because a source whose ACR just rose sent
//! most of the window at its old, lower ACR: compared with its new CCR it would look
//! demand-limited, compared with the floor it does not.
//!
//! Meters are indexed by the port's VC slots (only VCs routed through the port have one)
//! and are cleared when the VC opens or closes here.

use crate::cell::{flag, Cell, ServiceClass};
use atmsim_kernel::{time, Time};

/// Forward-RM intervals a VC's rate is measured over.
pub const WINDOW_RM_INTERVALS: usize = 4;
/// A VC counts as demand-limited when its measured rate is below (1 - this) x the smallest
/// CCR of the window.
pub const DEMAND_MARGIN: f64 = 0.05;

/// A forward RM cell of the VC as the meter saw it.
#[derive(Clone, Copy, Debug, Default)]
struct Mark {
    at: Time,
    /// The VC's cell count after this RM cell.
    cells: u64,
    ccr: f64,
}

/// The meter of one VC: its cell count and its last W forward RM cells (a ring).
#[derive(Clone, Copy, Debug, Default)]
struct VcMeter {
    cells: u64,
    marks: [Mark; WINDOW_RM_INTERVALS],
    /// Index of the oldest mark.
    head: u8,
    len: u8,
}

/// What the meter concluded at a forward RM cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Demand {
    /// No window yet (the VC's first RM cell here), or not below the margin: use CCR.
    Ccr,
    /// Clearly below its CCR: use this rate (cells/s).
    Limited(f64),
}

impl VcMeter {
    /// A forward RM cell with `ccr` at `now` (the cell already counted).
    fn on_frm(&mut self, now: Time, ccr: f64) -> Demand {
        let cap = self.marks.len();
        let out = if self.len == 0 {
            Demand::Ccr
        } else {
            let oldest = self.marks[self.head as usize];
            let floor = (0..self.len as usize)
                .map(|i| self.marks[(self.head as usize + i) % cap].ccr)
                .fold(ccr, f64::min);
            let rate = if now > oldest.at {
                (self.cells - oldest.cells) as f64 / time::to_secs_f64(now - oldest.at)
            } else {
                f64::INFINITY
            };
            if rate < (1.0 - DEMAND_MARGIN) * floor {
                Demand::Limited(rate)
            } else {
                Demand::Ccr
            }
        };
        // Keep the last W marks: with the next RM cell they bound W intervals.
        let mark = Mark {
            at: now,
            cells: self.cells,
            ccr,
        };
        if (self.len as usize) < cap {
            self.marks[(self.head as usize + self.len as usize) % cap] = mark;
            self.len += 1;
        } else {
            self.marks[self.head as usize] = mark;
            self.head = ((self.head as usize + 1) % cap) as u8;
        }
        out
    }
}

/// Per-VC arrival-rate meters of one port, indexed by the port's VC slots.
#[derive(Clone, Debug)]
pub struct RateMeter {
    vcs: Vec<VcMeter>,
}

/// Bytes of one VC's meter (the memory estimate counts it for every KVR port: a
/// configuration-independent upper bound).
pub const METER_BYTES_PER_VC: usize = std::mem::size_of::<VcMeter>();

impl RateMeter {
    /// Meters for `slots` VC slots.
    pub fn new(slots: usize) -> RateMeter {
        RateMeter {
            vcs: vec![VcMeter::default(); slots],
        }
    }

    /// True for the cells a VC's meter counts: its forward ABR cells (data and forward RM;
    /// backward RM cells belong to the other direction).
    #[inline]
    pub fn counts(cell: &Cell) -> bool {
        cell.class() == ServiceClass::Abr
            && cell.flags & (flag::RM | flag::DIR) != (flag::RM | flag::DIR)
    }

    /// Counts a forward ABR cell of the VC in `slot`. At a forward RM cell reporting `ccr`
    /// returns the VC's measured rate (cells/s) if it is demand-limited, else None (use CCR).
    #[inline]
    pub fn observe(&mut self, slot: usize, now: Time, is_rm: bool, ccr: f64) -> Option<f64> {
        let m = &mut self.vcs[slot];
        m.cells += 1;
        if !is_rm {
            return None;
        }
        match m.on_frm(now, ccr) {
            Demand::Ccr => None,
            Demand::Limited(rate) => Some(rate),
        }
    }

    /// Forgets the VC in `slot` (it opened or closed here).
    pub fn reset(&mut self, slot: usize) {
        self.vcs[slot] = VcMeter::default();
    }

    /// Bytes held (for the memory estimate).
    pub fn heap_bytes(&self) -> usize {
        self.vcs.capacity() * std::mem::size_of::<VcMeter>()
    }
}

#[cfg(test)]
#[path = "kvr_measured_tests.rs"]
mod tests;
