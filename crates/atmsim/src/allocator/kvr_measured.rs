//! KVR with measured rates (`measured_rate = true`; issue 17, not in seed 004).
//!
//! Seed 004's allocator trusts the CCR of forward RM cells (Figure 2.1 lines 1-3,
//! rho = min(ER, CCR)). A TM 4.0 source reports CCR = ACR even when it sends less (a
//! demand-limited application, a rate cap), so KVR keeps booking its whole share and the
//! capacity is lost. With this option the port measures each VC's arrival rate, the
//! forward ABR cells of the VC between two of its forward RM cells divided by the time
//! between them (as ERICA's `per_vc_ccr`, seed 003 4.4), and uses min(CCR, measured).

use crate::cell::{flag, Cell, ServiceClass};
use atmsim_kernel::{time, Time};

#[derive(Clone, Copy, Debug, Default)]
struct Meter {
    cells: u32,
    last_rm: Option<Time>,
}

/// Per-VC arrival-rate meters of one port.
#[derive(Clone, Debug)]
pub struct RateMeter {
    vcs: Vec<Meter>,
}

impl RateMeter {
    /// Meters for flows numbered below `flows`.
    pub fn new(flows: usize) -> RateMeter {
        RateMeter {
            vcs: vec![Meter::default(); flows],
        }
    }

    /// Counts a cell entering the port; for a forward RM cell returns the rate KVR should
    /// use, min(CCR, the VC's measured rate since its previous forward RM cell), else `ccr`.
    #[inline]
    pub fn observe(&mut self, now: Time, cell: &Cell, ccr: f64) -> f64 {
        if cell.class() != ServiceClass::Abr
            || cell.flags & (flag::RM | flag::DIR) == (flag::RM | flag::DIR)
        {
            return ccr;
        }
        let m = &mut self.vcs[cell.flow as usize];
        m.cells += 1;
        if !cell.is_rm() {
            return ccr;
        }
        let rate = match m.last_rm {
            Some(t) if now > t => m.cells as f64 / time::to_secs_f64(now - t),
            _ => ccr,
        };
        m.cells = 0;
        m.last_rm = Some(now);
        ccr.min(rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atmsim_kernel::PS_PER_MS;

    fn cell(rm: bool) -> Cell {
        let mut c = Cell::data(2, 0, false);
        c.flags = (2 << flag::CLASS_SHIFT) | if rm { flag::RM } else { 0 };
        c
    }

    #[test]
    fn measures_cells_between_forward_rm_cells() {
        let mut m = RateMeter::new(4);
        assert_eq!(m.observe(0, &cell(true), 5000.0), 5000.0, "no history: CCR");
        for _ in 0..31 {
            m.observe(PS_PER_MS, &cell(false), 5000.0);
        }
        // 32 cells in 10 ms = 3200 cells/s, below the reported 5000.
        let r = m.observe(10 * PS_PER_MS, &cell(true), 5000.0);
        assert!((r - 3200.0).abs() < 1e-9, "{r}");
        // A source sending faster than its CCR claims: CCR stands.
        for _ in 0..31 {
            m.observe(11 * PS_PER_MS, &cell(false), 1000.0);
        }
        assert_eq!(m.observe(20 * PS_PER_MS, &cell(true), 1000.0), 1000.0);
    }
}
