//! The ATM cell as the simulator carries it.
//!
//! A cell is 53 bytes on the wire (5-byte header, 48-byte payload). The simulator does not
//! carry payload bytes: a [`Cell`] holds the fields the models read: the flow it belongs
//! to (a connection and direction), the AAL5 frame it is part of (`tag`), the hop it is on,
//! the header bits (EOM = AAL5 "AUU" bit of PTI, EFCI, CLP), and for RM cells the fields
//! of TM 4.0 section 5.10 (DIR, BN, CI, NI, ER, CCR). It is 24 bytes and `Copy`.

/// Bytes in a cell on the wire.
pub const CELL_BYTES: u32 = 53;
/// Payload bytes in a cell.
pub const CELL_PAYLOAD: u32 = 48;
/// Bits in a cell on the wire.
pub const CELL_BITS: u64 = 424;

/// Header and RM bits of a [`Cell`].
pub mod flag {
    /// End of an AAL5 frame (PTI AUU = 1).
    pub const EOM: u16 = 1 << 0;
    /// Explicit forward congestion indication (PTI middle bit).
    pub const EFCI: u16 = 1 << 1;
    /// Cell loss priority.
    pub const CLP: u16 = 1 << 2;
    /// Resource management cell (PTI = 110).
    pub const RM: u16 = 1 << 3;
    /// RM: backward direction (DIR = 1).
    pub const DIR: u16 = 1 << 4;
    /// RM: backward explicit congestion notification (BN = 1).
    pub const BN: u16 = 1 << 5;
    /// RM: congestion indication.
    pub const CI: u16 = 1 << 6;
    /// RM: no increase.
    pub const NI: u16 = 1 << 7;
    /// Bits 8-9 hold the service class (0 CBR, 1 VBR, 2 ABR, 3 UBR).
    pub const CLASS_SHIFT: u16 = 8;
}

/// One ATM cell in flight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    /// Flow index: connection `c` has flows `2c` (forward) and `2c + 1` (backward).
    pub flow: u32,
    /// What the AAL5 frame carries: the TCP segment number, or the ACK number.
    pub tag: u32,
    /// Emission number of the frame within its flow (wraps); lets the receiver count
    /// frames lost entirely.
    pub frame: u32,
    /// Index of the port on the flow's route that the cell is at or heading to.
    pub hop: u16,
    /// Header and RM bits ([`flag`]).
    pub flags: u16,
    /// RM: explicit rate, cells/s.
    pub er: f32,
    /// RM: current cell rate, cells/s.
    pub ccr: f32,
}

impl Cell {
    /// A data cell of `flow`, frame `tag`.
    #[inline]
    pub fn data(flow: u32, tag: u32, eom: bool) -> Cell {
        Cell {
            flow,
            tag,
            frame: 0,
            hop: 0,
            flags: if eom { flag::EOM } else { 0 },
            er: 0.0,
            ccr: 0.0,
        }
    }

    /// True for the last cell of an AAL5 frame.
    #[inline]
    pub fn is_eom(&self) -> bool {
        self.flags & flag::EOM != 0
    }

    /// True for an RM cell.
    #[inline]
    pub fn is_rm(&self) -> bool {
        self.flags & flag::RM != 0
    }

    /// The service class (0 CBR, 1 VBR, 2 ABR, 3 UBR), the port's queue index.
    #[inline]
    pub fn class(&self) -> usize {
        ((self.flags >> flag::CLASS_SHIFT) & 3) as usize
    }

    /// RM: the source's MCR, cells/s (TM 4.0 section 5.10.3.1 carries MCR in every RM
    /// cell). An RM cell carries no AAL5 frame, so its `tag` holds the f32 bits.
    #[inline]
    pub fn rm_mcr(&self) -> f64 {
        f32::from_bits(self.tag) as f64
    }

    /// RM: sets the MCR field (see [`Cell::rm_mcr`]).
    #[inline]
    pub fn set_rm_mcr(&mut self, mcr: f64) {
        self.tag = (mcr as f32).to_bits();
    }

    /// RM: the VC's general-weighted-fairness weight (ATMF 98-0408), which a switch
    /// learns at connection set-up; the simulator carries it in the RM cell's `frame`
    /// (unused by RM cells). 0 bits read as weight 1.
    #[inline]
    pub fn rm_weight(&self) -> f64 {
        if self.frame == 0 {
            1.0
        } else {
            f32::from_bits(self.frame) as f64
        }
    }

    /// RM: sets the weight (see [`Cell::rm_weight`]).
    #[inline]
    pub fn set_rm_weight(&mut self, w: f64) {
        self.frame = (w as f32).to_bits();
    }

    /// The connection index of the cell's flow.
    #[inline]
    pub fn connection(&self) -> usize {
        (self.flow >> 1) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_is_small() {
        assert!(std::mem::size_of::<Cell>() <= 24);
    }

    #[test]
    fn flags() {
        let c = Cell::data(5, 7, true);
        assert!(c.is_eom());
        assert!(!c.is_rm());
        assert_eq!(c.connection(), 2);
    }

    #[test]
    fn rm_mcr_and_weight_round_trip() {
        let mut c = Cell::data(4, 0, false);
        assert_eq!((c.rm_mcr(), c.rm_weight()), (0.0, 1.0));
        c.set_rm_mcr(23584.9);
        c.set_rm_weight(2.5);
        assert!((c.rm_mcr() - 23584.9).abs() < 0.01);
        assert_eq!(c.rm_weight(), 2.5);
    }
}
