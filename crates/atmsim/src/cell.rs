//! The ATM cell as the simulator carries it.
//!
//! A cell is 53 bytes on the wire (5-byte header, 48-byte payload). The simulator does not
//! carry payload bytes: a [`Cell`] holds the fields the models read: the flow it belongs
//! to (a connection and direction), the AAL5 frame it is part of (`tag`), the hop it is on,
//! the header bits (EOM = AAL5 "AUU" bit of PTI, EFCI, CLP), and for RM cells the fields
//! of TM 4.0 section 5.10 (DIR, BN, CI, NI, ER, CCR). It is 16 bytes and `Copy`: an RM
//! cell carries no AAL5 frame, so its ER and CCR fields use the frame's two words
//! ([`Cell::er`], [`Cell::ccr`]), and the fields that are constant per VC (MCR, and the
//! weight of general weighted fairness) are handed to the ports when the network is built
//! ([`crate::allocator::RmFields`]). At 16 bytes a cell is passed in two registers, and a
//! cell in flight takes 24 bytes on a line and 16 in a queue instead of 32 and 24
//! (issue 14: memory per VC).

/// Bytes in a cell on the wire.
pub const CELL_BYTES: u32 = 53;
/// Payload bytes in a cell.
pub const CELL_PAYLOAD: u32 = 48;
/// Bits in a cell on the wire.
pub const CELL_BITS: u64 = 424;
/// Bits in a cell, as a float (rates: bits/s = cells/s x `CELL_BITS_F64`).
pub const CELL_BITS_F64: f64 = CELL_BITS as f64;
/// Megabits in a cell (Mb/s = cells/s x `CELL_MBITS`). Written as the literal `424e-6`
/// (not `CELL_BITS_F64 * 1e-6`, which rounds differently) so results stay byte-identical.
pub const CELL_MBITS: f64 = 424e-6;

/// ATM service class of a connection, carried on each of its cells; also the
/// strict-priority order at a port (lower = served first) and the port's queue index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ServiceClass {
    /// Constant bit rate.
    Cbr = 0,
    /// Variable bit rate.
    Vbr = 1,
    /// Available bit rate.
    Abr = 2,
    /// Unspecified bit rate.
    Ubr = 3,
}

impl ServiceClass {
    /// All classes in priority order (the port's queue order).
    pub const ALL: [ServiceClass; 4] = [
        ServiceClass::Cbr,
        ServiceClass::Vbr,
        ServiceClass::Abr,
        ServiceClass::Ubr,
    ];

    /// The port's queue index of the class (0 CBR, 1 VBR, 2 ABR, 3 UBR).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The class's bits, shifted into place in a cell's flags.
    #[inline]
    pub const fn flag_bits(self) -> u16 {
        (self as u16) << flag::CLASS_SHIFT
    }

    /// The class held in a cell's flags.
    #[inline]
    pub const fn from_flags(flags: u16) -> ServiceClass {
        match (flags >> flag::CLASS_SHIFT) & 3 {
            0 => ServiceClass::Cbr,
            1 => ServiceClass::Vbr,
            2 => ServiceClass::Abr,
            _ => ServiceClass::Ubr,
        }
    }
}

/// A flow: one direction of a connection. Connection `c` has the forward flow `2c`
/// (source to destination: data, requests) and the reverse flow `2c + 1` (ACKs,
/// responses, backward RM cells of the forward direction's VC). The index is also the
/// flow's position in [`crate::network::Network::flows`] and in per-VC tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(u32);

impl FlowId {
    /// The forward flow of connection `conn`.
    #[inline]
    pub const fn forward(conn: usize) -> FlowId {
        FlowId(2 * conn as u32)
    }

    /// The reverse flow of connection `conn`.
    #[inline]
    pub const fn reverse(conn: usize) -> FlowId {
        FlowId(2 * conn as u32 + 1)
    }

    /// The flow of connection `conn` in direction `dir` (0 forward, 1 reverse).
    #[inline]
    pub const fn of(conn: usize, dir: usize) -> FlowId {
        FlowId(2 * conn as u32 + (dir as u32 & 1))
    }

    /// The flow with index `i` (as stored in [`Cell::flow`]).
    #[inline]
    pub const fn from_index(i: usize) -> FlowId {
        FlowId(i as u32)
    }

    /// The flow's index (in the network's flow table and per-VC tables).
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The flow's index as a cell carries it.
    #[inline]
    pub const fn raw(self) -> u32 {
        self.0
    }

    /// The connection the flow belongs to.
    #[inline]
    pub const fn conn(self) -> usize {
        (self.0 >> 1) as usize
    }

    /// The direction: 0 forward, 1 reverse (the index into a connection's two
    /// directions).
    #[inline]
    pub const fn dir(self) -> usize {
        (self.0 & 1) as usize
    }

    /// True for the reverse flow of its connection.
    #[inline]
    pub const fn is_reverse(self) -> bool {
        self.0 & 1 == 1
    }

    /// The flow of the opposite direction of the same connection.
    #[inline]
    pub const fn opposite(self) -> FlowId {
        FlowId(self.0 ^ 1)
    }
}

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
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cell {
    /// Flow index ([`FlowId::raw`]): connection `c` has flows `2c` (forward) and
    /// `2c + 1` (reverse); [`Cell::flow_id`] gives it typed.
    pub flow: u32,
    /// What the AAL5 frame carries: the TCP segment number, or the ACK number. An RM cell's
    /// holds the bits of its ER field ([`Cell::er`]).
    pub tag: u32,
    /// Emission number of the frame within its flow (wraps); lets the receiver count
    /// frames lost entirely. An RM cell's holds the bits of its CCR field ([`Cell::ccr`]).
    pub frame: u32,
    /// Index of the port on the flow's route that the cell is at or heading to.
    pub hop: u16,
    /// Header and RM bits ([`flag`]).
    pub flags: u16,
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

    /// The service class of the cell's connection.
    #[inline]
    pub fn class(&self) -> ServiceClass {
        ServiceClass::from_flags(self.flags)
    }

    /// The cell's flow.
    #[inline]
    pub fn flow_id(&self) -> FlowId {
        FlowId(self.flow)
    }

    /// RM: the explicit rate, cells/s (TM 4.0 section 5.10.3.1). An RM cell carries no
    /// AAL5 frame, so the field's f32 bits are in `tag`; read it only from RM cells.
    #[inline]
    pub fn er(&self) -> f32 {
        f32::from_bits(self.tag)
    }

    /// RM: sets the explicit rate (see [`Cell::er`]).
    #[inline]
    pub fn set_er(&mut self, er: f32) {
        self.tag = er.to_bits();
    }

    /// RM: the current cell rate, cells/s (TM 4.0 section 5.10.3.1), held in `frame` as
    /// [`Cell::er`] is in `tag`; read it only from RM cells.
    #[inline]
    pub fn ccr(&self) -> f32 {
        f32::from_bits(self.frame)
    }

    /// RM: sets the current cell rate (see [`Cell::ccr`]).
    #[inline]
    pub fn set_ccr(&mut self, ccr: f32) {
        self.frame = ccr.to_bits();
    }

    /// The connection index of the cell's flow.
    #[inline]
    pub fn connection(&self) -> usize {
        self.flow_id().conn()
    }

    /// True for a backward RM cell (RM with DIR = 1).
    #[inline]
    pub fn is_backward_rm(&self) -> bool {
        self.flags & (flag::RM | flag::DIR) == (flag::RM | flag::DIR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_is_sixteen_bytes() {
        // Two registers when passed by value; 24 bytes with its arrival time on a line.
        assert_eq!(std::mem::size_of::<Cell>(), 16);
        assert_eq!(std::mem::size_of::<(atmsim_kernel::Time, Cell)>(), 24);
    }

    #[test]
    fn flags() {
        let c = Cell::data(5, 7, true);
        assert!(c.is_eom());
        assert!(!c.is_rm());
        assert_eq!(c.connection(), 2);
        assert_eq!(c.class(), ServiceClass::Cbr);
    }

    #[test]
    fn flow_ids() {
        let f = FlowId::forward(3);
        assert_eq!(f.index(), 6);
        assert_eq!(f.conn(), 3);
        assert!(!f.is_reverse());
        assert_eq!(f.opposite(), FlowId::reverse(3));
        assert_eq!(FlowId::reverse(3).index(), 7);
        assert_eq!(FlowId::reverse(3).dir(), 1);
        assert_eq!(FlowId::of(3, 1), FlowId::reverse(3));
        assert_eq!(FlowId::reverse(3).opposite(), f);
    }

    #[test]
    fn classes_round_trip_through_flags() {
        for k in ServiceClass::ALL {
            assert_eq!(ServiceClass::from_flags(k.flag_bits() | flag::EOM), k);
        }
        assert_eq!(CELL_BITS_F64, 424.0);
        assert!((CELL_MBITS - CELL_BITS_F64 * 1e-6).abs() < 1e-18);
    }

    #[test]
    fn rm_rates_round_trip_through_the_frame_words() {
        let mut c = Cell::data(4, 0, false);
        assert_eq!((c.er(), c.ccr()), (0.0, 0.0));
        c.set_er(353_207.5);
        c.set_ccr(23_584.9);
        assert_eq!(c.er(), 353_207.5);
        assert_eq!(c.ccr(), 23_584.9_f32);
        assert_eq!(
            (c.tag, c.frame),
            (353_207.5_f32.to_bits(), 23_584.9_f32.to_bits())
        );
        c.set_er(f32::INFINITY);
        assert_eq!(c.er(), f32::INFINITY);
    }
}
