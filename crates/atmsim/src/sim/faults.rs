//! Injected faults: cells lost at a chosen port on purpose (a scenario's `[[fault]]`).

use super::Sim;
use crate::cell::Cell;
use crate::scenario::FaultCfg;
use atmsim_kernel::Time;

/// A fault being injected: how many cells it still has to take.
#[derive(Clone, Debug)]
pub struct FaultState {
    /// The fault.
    pub cfg: FaultCfg,
    /// Cells still to lose.
    pub left: u32,
}

impl Sim<'_> {
    /// Whether an injected fault takes `cell` as it is offered to port `p` (and counts it).
    #[cold]
    pub(super) fn fault_takes(&mut self, now: Time, p: usize, cell: Cell) -> bool {
        for f in &mut self.faults {
            if f.left > 0
                && f.cfg.flow == cell.flow_id().index()
                && f.cfg.port == p
                && now >= f.cfg.at
                && f.cfg.cell.matches(&cell)
            {
                f.left -= 1;
                self.net.flow_mut(cell.flow_id()).cells_dropped += 1;
                self.totals.cells_dropped += 1;
                self.totals.cells_dropped_by_faults += 1;
                return true;
            }
        }
        false
    }
}
