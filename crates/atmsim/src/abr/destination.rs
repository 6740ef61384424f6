//! The ABR destination end system (TM 4.0 section 5.10.5; spec ALGORITHMS.md 1.4).
//!
//! Rule 1: each data cell's EFCI bit is stored as the connection's EFCI state.
//! Rule 2: each forward RM cell is turned around: DIR = 1, BN = 0, ER, CCR, CI and NI kept,
//! except that a set EFCI state sets CI = 1 and is cleared. The engine sends the backward
//! RM cell at once (zero turnaround time, the spec's recommendation 9.9), so rules 3-4
//! (overwriting a waiting turned-around cell) never arise.

use crate::cell::{flag, Cell};

/// Per-direction destination state: one byte, the EFCI state (issue 14: a count of the
/// forward RM cells turned around, which nothing read, made it 16 bytes of every direction).
#[derive(Clone, Copy, Debug, Default)]
pub struct Destination {
    /// EFCI state: the last data cell carried EFCI = 1.
    pub efci: bool,
}

impl Destination {
    /// Rule 1: a data cell arrives.
    #[inline]
    pub fn on_data(&mut self, cell: &Cell) {
        self.efci = cell.flags & flag::EFCI != 0;
    }

    /// Rule 2: turns a forward RM cell into the backward RM cell of flow `back_flow`.
    #[inline]
    pub fn turn_around(&mut self, frm: &Cell, back_flow: u32) -> Cell {
        let mut b = *frm;
        b.flow = back_flow;
        b.hop = 0;
        b.flags &= !(flag::BN | flag::EFCI | flag::CLP);
        b.flags |= flag::DIR;
        if self.efci {
            b.flags |= flag::CI;
            self.efci = false;
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frm() -> Cell {
        let mut c = Cell::data(4, 0, false);
        c.flags = flag::RM | (2 << flag::CLASS_SHIFT);
        c.set_er(1000.0);
        c.set_ccr(500.0);
        c.hop = 3;
        c
    }

    #[test]
    fn turnaround_keeps_fields_and_sets_dir() {
        let mut d = Destination::default();
        let b = d.turn_around(&frm(), 5);
        assert_eq!(b.flow, 5);
        assert_eq!(b.hop, 0);
        assert!(b.flags & flag::DIR != 0);
        assert!(b.flags & flag::BN == 0);
        assert!(b.flags & flag::CI == 0);
        assert_eq!(b.er(), 1000.0);
        assert_eq!(b.ccr(), 500.0);
        assert_eq!(b.class(), crate::cell::ServiceClass::Abr);
    }

    #[test]
    fn efci_state_becomes_ci_once() {
        let mut d = Destination::default();
        let mut data = Cell::data(4, 0, false);
        data.flags |= flag::EFCI;
        d.on_data(&data);
        let b = d.turn_around(&frm(), 5);
        assert!(b.flags & flag::CI != 0);
        let b2 = d.turn_around(&frm(), 5);
        assert!(
            b2.flags & flag::CI == 0,
            "EFCI state is cleared by the turnaround"
        );
        // A later data cell without EFCI clears the state.
        d.on_data(&data);
        d.on_data(&Cell::data(4, 0, false));
        assert!(d.turn_around(&frm(), 5).flags & flag::CI == 0);
    }
}
