//! AAL5 segmentation and reassembly (spec section 6.2; RFC 1483 for LLC/SNAP).
//!
//! A CPCS-PDU is [LLC/SNAP 8 B, optional] + IP datagram + pad (0-47 B) + 8-byte trailer,
//! padded to a multiple of 48 B and carried in that many cells; the last cell has the
//! AUU bit (EOM) set. So a 512-byte TCP segment (552-byte IP datagram) takes 12 cells with
//! LLC/SNAP, and a 40-byte ACK takes 2 cells (1 without LLC/SNAP).
//!
//! Reassembly collects cells up to an EOM. The frame is good only if every cell of one
//! frame arrived: a lost cell makes the length/CRC check fail, and a lost EOM merges two
//! frames, both of which fail, exactly as the CRC-32 would make them.

use crate::cell::{Cell, CELL_PAYLOAD};

/// Bytes of IP + TCP headers (no options).
pub const TCPIP_HEADERS: u32 = 40;
/// Bytes of the LLC/SNAP header (RFC 1483).
pub const LLC_SNAP: u32 = 8;
/// Bytes of the AAL5 CPCS trailer.
pub const AAL5_TRAILER: u32 = 8;

/// Cells needed for an IP datagram of `ip_bytes`.
pub fn cells_for_ip(ip_bytes: u32, llc_snap: bool) -> u32 {
    let pdu = ip_bytes + AAL5_TRAILER + if llc_snap { LLC_SNAP } else { 0 };
    pdu.div_ceil(CELL_PAYLOAD)
}

/// Cells of a TCP segment with `payload` bytes of data.
pub fn cells_for_segment(payload: u32, llc_snap: bool) -> u32 {
    cells_for_ip(payload + TCPIP_HEADERS, llc_snap)
}

/// Per-flow reassembly state at the receiving end system.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reassembly {
    count: u32,
    tag: u32,
    corrupt: bool,
}

/// What a cell did to the frame under reassembly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reassembled {
    /// The frame is not complete yet.
    Partial,
    /// A good frame with this tag is complete.
    Frame(u32),
    /// The EOM closed a damaged frame; it is discarded (CRC failure).
    Failed,
}

impl Reassembly {
    /// Takes one cell; `expected` is the number of cells a frame of this flow has.
    #[inline]
    pub fn push(&mut self, cell: &Cell, expected: u32) -> Reassembled {
        if self.count == 0 {
            self.tag = cell.tag;
        } else if cell.tag != self.tag {
            self.corrupt = true;
        }
        self.count += 1;
        if !cell.is_eom() {
            return Reassembled::Partial;
        }
        let ok = !self.corrupt && self.count == expected;
        let tag = self.tag;
        *self = Reassembly::default();
        if ok {
            Reassembled::Frame(tag)
        } else {
            Reassembled::Failed
        }
    }

    /// Cells held for a frame not yet closed.
    pub fn pending(&self) -> u32 {
        self.count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_counts_of_the_spec_table() {
        assert_eq!(cells_for_segment(512, true), 12);
        assert_eq!(cells_for_ip(40, true), 2);
        assert_eq!(cells_for_ip(40, false), 1);
        assert_eq!(cells_for_ip(9180, true), 192);
        assert_eq!(cells_for_ip(1500, true), 32);
        assert_eq!(cells_for_segment(9140, false), 192);
    }

    fn frame(tag: u32, n: u32) -> Vec<Cell> {
        (0..n).map(|i| Cell::data(0, tag, i + 1 == n)).collect()
    }

    #[test]
    fn good_frame() {
        let mut r = Reassembly::default();
        let f = frame(3, 12);
        for c in &f[..11] {
            assert_eq!(r.push(c, 12), Reassembled::Partial);
        }
        assert_eq!(r.push(&f[11], 12), Reassembled::Frame(3));
    }

    #[test]
    fn lost_middle_cell_fails() {
        let mut r = Reassembly::default();
        let f = frame(3, 12);
        for (i, c) in f.iter().enumerate() {
            if i == 5 {
                continue;
            }
            let out = r.push(c, 12);
            if i == 11 {
                assert_eq!(out, Reassembled::Failed);
            }
        }
        // The next frame is fine again.
        for (i, c) in frame(4, 12).iter().enumerate() {
            let out = r.push(c, 12);
            if i == 11 {
                assert_eq!(out, Reassembled::Frame(4));
            }
        }
    }

    #[test]
    fn lost_eom_merges_two_frames_and_both_fail() {
        let mut r = Reassembly::default();
        for c in &frame(1, 12)[..11] {
            r.push(c, 12);
        }
        let f2 = frame(2, 12);
        for c in &f2[..11] {
            assert_eq!(r.push(c, 12), Reassembled::Partial);
        }
        assert_eq!(r.push(&f2[11], 12), Reassembled::Failed);
    }
}
