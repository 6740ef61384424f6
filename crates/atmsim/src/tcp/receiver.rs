//! The TCP receiver: cumulative ACKs, out-of-order segments kept (BSD reassembly queue),
//! an application that consumes at once (so the advertised window stays at its maximum),
//! and optional delayed ACKs (ACK every second segment, or when the delayed-ACK timer
//! fires; out-of-order segments are acknowledged at once).
//!
//! With SACK (RFC 2018) the receiver also reports the blocks of out-of-order data it holds:
//! the first block contains the segment that triggered the ACK, the others repeat the most
//! recently reported blocks (section 4). An ACK is a frame whose only payload in the cell
//! engine is a `u32` tag: without SACK the tag is the cumulative ACK itself; with SACK it
//! names a record in the receiver's [`AckRing`], written when the ACK is sent and read by the
//! sender when the ACK frame arrives (the option bytes of the ACK, without allocating).

use super::congestion::{SackBlock, MAX_SACK_BLOCKS};

/// What the receiver wants done after a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckAction {
    /// Send an ACK for everything below this segment number now.
    Now(u32),
    /// An ACK is owed; send it when the delayed-ACK timer fires.
    Delay,
}

/// Out-of-order segments held: one bit per segment of a ring of `mask + 1` segments above
/// rcv_nxt (a power of two above the window), so 1 bit per segment of window.
#[derive(Clone, Debug)]
struct OutOfOrder {
    words: Words,
    mask: u32,
}

/// A ring of up to this many 64-bit words (256 bits) is held in the receiver, not on the heap:
/// every window of up to 254 segments (64 KB at an MSS of 512 bytes or more).
const INLINE_WORDS: usize = 4;

/// The ring's bits: in the receiver when they fit [`INLINE_WORDS`], else boxed. (Issue 14,
/// memory per VC: a box of 32 bytes was a 48-byte block of the allocator per TCP connection,
/// and a cache line of its own that every segment arriving in order read;
/// docs/performance-journal.md, "Heap blocks that fit, and queues no larger than their
/// buffer, forty-seventh session".)
#[derive(Clone, Debug)]
enum Words {
    Inline([u64; INLINE_WORDS]),
    Boxed(Box<[u64]>),
}

impl Words {
    #[inline(always)]
    fn get(&self) -> &[u64] {
        match self {
            Words::Inline(w) => w,
            Words::Boxed(w) => w,
        }
    }

    #[inline(always)]
    fn get_mut(&mut self) -> &mut [u64] {
        match self {
            Words::Inline(w) => w,
            Words::Boxed(w) => w,
        }
    }
}

impl OutOfOrder {
    fn new(window_segments: u32) -> Self {
        let cap = (window_segments as usize + 2).next_power_of_two();
        let n = cap.div_ceil(64);
        OutOfOrder {
            words: match n <= INLINE_WORDS {
                true => Words::Inline([0; INLINE_WORDS]),
                false => Words::Boxed(vec![0; n].into_boxed_slice()),
            },
            mask: cap as u32 - 1,
        }
    }

    #[inline]
    fn get(&self, seg: u32) -> bool {
        let i = (seg & self.mask) as usize;
        self.words.get()[i / 64] & (1 << (i % 64)) != 0
    }

    #[inline]
    fn set(&mut self, seg: u32) {
        let i = (seg & self.mask) as usize;
        self.words.get_mut()[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    fn clear(&mut self, seg: u32) {
        let i = (seg & self.mask) as usize;
        self.words.get_mut()[i / 64] &= !(1 << (i % 64));
    }

    /// The held block containing `seg` (held, above `rcv_nxt`).
    fn block(&self, rcv_nxt: u32, seg: u32) -> SackBlock {
        let mut start = seg;
        while start - 1 > rcv_nxt && self.get(start - 1) {
            start -= 1;
        }
        let mut end = seg + 1;
        while end - rcv_nxt <= self.mask && self.get(end) {
            end += 1;
        }
        SackBlock { start, end }
    }
}

/// One ACK's content: the cumulative ACK and its SACK blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckRecord {
    id: u32,
    ack: u32,
    len: u8,
    blocks: [SackBlock; MAX_SACK_BLOCKS],
}

impl AckRecord {
    /// The cumulative ACK.
    pub fn ack(&self) -> u32 {
        self.ack
    }

    /// The SACK blocks, most recent first.
    pub fn blocks(&self) -> &[SackBlock] {
        &self.blocks[..self.len as usize]
    }
}

/// The SACK state of a receiver: the most recently reported blocks (by one segment each,
/// most recent first) and the ring of ACK records in flight.
#[derive(Clone, Debug)]
pub struct AckRing {
    max_blocks: usize,
    recent: [u32; MAX_SACK_BLOCKS],
    n_recent: usize,
    ring: Box<[AckRecord]>,
    next_id: u32,
    /// ACKs whose record was overwritten before the sender read it (should stay 0: the ring
    /// holds twice the window's segments).
    pub overwritten: u64,
}

impl AckRing {
    fn new(max_blocks: usize, window_segments: u32) -> Self {
        let size = (2 * (window_segments as usize + 2)).next_power_of_two();
        AckRing {
            max_blocks: max_blocks.clamp(1, MAX_SACK_BLOCKS),
            recent: [0; MAX_SACK_BLOCKS],
            n_recent: 0,
            ring: vec![AckRecord::default(); size].into_boxed_slice(),
            next_id: 0,
            overwritten: 0,
        }
    }

    /// Segment `seg` (held out of order in `block`) triggered an ACK: it leads the next one,
    /// and reports of the same block are dropped.
    fn reported(&mut self, ooo: &OutOfOrder, rcv_nxt: u32, seg: u32, block: SackBlock) {
        let mut kept = [seg; MAX_SACK_BLOCKS];
        let mut n = 1;
        for &r in &self.recent[..self.n_recent] {
            let same = r >= block.start && r < block.end;
            if !same && r > rcv_nxt && ooo.get(r) && n < self.max_blocks {
                kept[n] = r;
                n += 1;
            }
        }
        self.recent = kept;
        self.n_recent = n;
    }

    fn write(&mut self, ooo: &OutOfOrder, rcv_nxt: u32, ack: u32) -> u32 {
        let id = self.next_id;
        self.next_id = id.wrapping_add(1);
        let mut rec = AckRecord {
            id,
            ack,
            ..AckRecord::default()
        };
        for &r in &self.recent[..self.n_recent] {
            if r > rcv_nxt && ooo.get(r) {
                let b = ooo.block(rcv_nxt, r);
                if !rec.blocks().contains(&b) {
                    rec.blocks[rec.len as usize] = b;
                    rec.len += 1;
                }
            }
        }
        let i = id as usize & (self.ring.len() - 1);
        self.ring[i] = rec;
        id
    }

    fn read(&mut self, tag: u32) -> Option<&AckRecord> {
        let i = tag as usize & (self.ring.len() - 1);
        if self.ring[i].id != tag {
            self.overwritten += 1;
            return None;
        }
        Some(&self.ring[i])
    }
}

/// A TCP receiver.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    /// Next segment expected in order.
    pub rcv_nxt: u32,
    ooo: OutOfOrder,
    delayed_ack: bool,
    keep_out_of_order: bool,
    ack_owed: bool,
    /// SACK option (RFC 2018): None without.
    pub sack: Option<Box<AckRing>>,
    /// Segments received (including duplicates).
    pub segments_received: u64,
    /// Segments received that were already delivered (duplicates).
    pub duplicates: u64,
}

impl TcpReceiver {
    /// A receiver for windows of up to `window_segments` segments.
    pub fn new(window_segments: u32, delayed_ack: bool) -> Self {
        Self::with_options(window_segments, delayed_ack, true)
    }

    /// A receiver that may discard out-of-order segments (`keep_out_of_order = false`).
    pub fn with_options(window_segments: u32, delayed_ack: bool, keep_out_of_order: bool) -> Self {
        TcpReceiver {
            rcv_nxt: 0,
            ooo: OutOfOrder::new(window_segments),
            delayed_ack,
            keep_out_of_order,
            ack_owed: false,
            sack: None,
            segments_received: 0,
            duplicates: 0,
        }
    }

    /// Sends up to `blocks` SACK blocks per ACK (0: no SACK option). `window_segments` sizes
    /// the ring of ACK records.
    pub fn with_sack(mut self, blocks: usize, window_segments: u32) -> Self {
        self.sack = (blocks > 0).then(|| Box::new(AckRing::new(blocks, window_segments)));
        self
    }

    /// A segment arrived. Returns the ACK to send (or to delay) and how many segments
    /// became deliverable in order.
    pub fn on_segment(&mut self, seg: u32) -> (AckAction, u32) {
        self.segments_received += 1;
        if seg < self.rcv_nxt {
            self.duplicates += 1;
            self.ack_owed = false;
            return (AckAction::Now(self.rcv_nxt), 0);
        }
        if seg > self.rcv_nxt {
            if self.keep_out_of_order && seg - self.rcv_nxt <= self.ooo.mask {
                self.ooo.set(seg);
                if let Some(ring) = self.sack.as_deref_mut() {
                    let block = self.ooo.block(self.rcv_nxt, seg);
                    ring.reported(&self.ooo, self.rcv_nxt, seg, block);
                }
            }
            self.ack_owed = false;
            return (AckAction::Now(self.rcv_nxt), 0);
        }
        let before = self.rcv_nxt;
        self.rcv_nxt += 1;
        let mut filled_hole = false;
        while self.ooo.get(self.rcv_nxt) {
            self.ooo.clear(self.rcv_nxt);
            self.rcv_nxt += 1;
            filled_hole = true;
        }
        let delivered = self.rcv_nxt - before;
        if !self.delayed_ack || filled_hole || self.ack_owed {
            self.ack_owed = false;
            (AckAction::Now(self.rcv_nxt), delivered)
        } else {
            self.ack_owed = true;
            (AckAction::Delay, delivered)
        }
    }

    /// The delayed-ACK timer fired: the ACK to send, if one is owed.
    pub fn on_delack_timer(&mut self) -> Option<u32> {
        if self.ack_owed {
            self.ack_owed = false;
            Some(self.rcv_nxt)
        } else {
            None
        }
    }

    /// The tag of the ACK frame acknowledging everything below `ack`, sent now: `ack` itself
    /// without SACK; with SACK, a record holding `ack` and the current blocks.
    pub fn ack_tag(&mut self, ack: u32) -> u32 {
        match self.sack.as_deref_mut() {
            None => ack,
            Some(ring) => ring.write(&self.ooo, self.rcv_nxt, ack),
        }
    }

    /// The content of the ACK frame tagged `tag` (see [`Self::ack_tag`]), as the sender reads
    /// it on arrival: the cumulative ACK and the SACK blocks. None if the record was lost.
    pub fn read_ack(&mut self, tag: u32) -> Option<(u32, &[SackBlock])> {
        match self.sack.as_deref_mut() {
            None => Some((tag, &[])),
            Some(ring) => ring.read(tag).map(|r| (r.ack(), r.blocks())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cumulative_acks_and_reassembly() {
        let mut r = TcpReceiver::new(128, false);
        assert_eq!(r.on_segment(0), (AckAction::Now(1), 1));
        assert_eq!(r.on_segment(2), (AckAction::Now(1), 0)); // hole at 1
        assert_eq!(r.on_segment(3), (AckAction::Now(1), 0));
        assert_eq!(r.on_segment(1), (AckAction::Now(4), 3)); // hole filled
        assert_eq!(r.on_segment(1), (AckAction::Now(4), 0)); // duplicate
        assert_eq!(r.duplicates, 1);
    }

    #[test]
    fn discarding_receiver_needs_every_segment_again() {
        let mut r = TcpReceiver::with_options(128, false, false);
        assert_eq!(r.on_segment(0), (AckAction::Now(1), 1));
        assert_eq!(r.on_segment(2), (AckAction::Now(1), 0));
        assert_eq!(r.on_segment(1), (AckAction::Now(2), 1)); // 2 was discarded
        assert_eq!(r.on_segment(2), (AckAction::Now(3), 1));
    }

    #[test]
    fn delayed_ack_every_second_segment() {
        let mut r = TcpReceiver::new(128, true);
        assert_eq!(r.on_segment(0), (AckAction::Delay, 1));
        assert_eq!(r.on_segment(1), (AckAction::Now(2), 1));
        assert_eq!(r.on_segment(2), (AckAction::Delay, 1));
        assert_eq!(r.on_delack_timer(), Some(3));
        assert_eq!(r.on_delack_timer(), None);
        // Out of order: immediate.
        assert_eq!(r.on_segment(5), (AckAction::Now(3), 0));
    }

    fn blocks(r: &mut TcpReceiver, ack: u32) -> Vec<(u32, u32)> {
        let tag = r.ack_tag(ack);
        let (a, b) = r.read_ack(tag).expect("record");
        assert_eq!(a, ack);
        b.iter().map(|b| (b.start, b.end)).collect()
    }

    #[test]
    fn sack_first_block_holds_the_trigger_then_the_most_recent() {
        let mut r = TcpReceiver::new(128, false).with_sack(3, 128);
        r.on_segment(0);
        assert_eq!(blocks(&mut r, 1), vec![], "nothing out of order");
        r.on_segment(2);
        assert_eq!(blocks(&mut r, 1), vec![(2, 3)]);
        r.on_segment(5);
        assert_eq!(blocks(&mut r, 1), vec![(5, 6), (2, 3)]);
        r.on_segment(8);
        r.on_segment(11);
        assert_eq!(
            blocks(&mut r, 1),
            vec![(11, 12), (8, 9), (5, 6)],
            "at most 3 blocks"
        );
        r.on_segment(3); // extends (2, 3), which returns to the front
        assert_eq!(blocks(&mut r, 1), vec![(2, 4), (11, 12), (8, 9)]);
        r.on_segment(4); // joins (2, 4) and (5, 6)
        assert_eq!(blocks(&mut r, 1), vec![(2, 6), (11, 12), (8, 9)]);
        assert_eq!(r.on_segment(1), (AckAction::Now(6), 5));
        assert_eq!(
            blocks(&mut r, 6),
            vec![(11, 12), (8, 9)],
            "delivered data is not SACKed"
        );
    }

    #[test]
    fn sack_duplicate_of_held_segment_reports_its_block() {
        let mut r = TcpReceiver::new(128, false).with_sack(4, 128);
        for s in [3, 4, 7] {
            r.on_segment(s);
        }
        r.on_segment(3);
        assert_eq!(blocks(&mut r, 0), vec![(3, 5), (7, 8)]);
    }

    #[test]
    fn ack_ring_detects_an_overwritten_record() {
        let mut r = TcpReceiver::new(2, false).with_sack(3, 2);
        let first = r.ack_tag(0);
        for _ in 0..64 {
            r.ack_tag(0);
        }
        assert!(r.read_ack(first).is_none());
        assert_eq!(r.sack.as_ref().map(|s| s.overwritten), Some(1));
    }

    #[test]
    fn without_sack_the_tag_is_the_ack() {
        let mut r = TcpReceiver::new(128, false);
        r.on_segment(2);
        assert_eq!(r.ack_tag(0), 0);
        assert_eq!(r.read_ack(17), Some((17, &[][..])));
    }

    #[test]
    fn out_of_order_state_is_one_bit_per_segment() {
        // 600000 B / 512 B = 1172 segments of window (seed 001 WAN): 2048 bits = 256 bytes,
        // boxed.
        let r = TcpReceiver::new(1173, false);
        assert!(matches!(r.ooo.words, Words::Boxed(_)));
        assert_eq!(r.ooo.words.get().len() * 8, 256);
        // 65535 B / 512 B = 127 segments: a ring of 256 bits, in the receiver.
        let r = TcpReceiver::new(127, false);
        assert!(matches!(r.ooo.words, Words::Inline(_)));
        assert_eq!(r.ooo.mask, 255);
        assert_eq!(std::mem::size_of::<TcpReceiver>(), 80);
    }

    #[test]
    fn a_ring_in_the_receiver_and_a_boxed_one_hold_the_same_segments() {
        // Windows at the edge: 254 segments is the largest ring of 256 bits (inline), 255 the
        // smallest of 512 (boxed). The same segments, in and out of order and past the ring's
        // wrap, give each the ACKs and deliveries they should, and the two the same ACKs and
        // SACK blocks, segment for segment.
        let transcript = |w: u32| {
            let mut r = TcpReceiver::new(w, false).with_sack(3, w);
            assert_eq!(matches!(r.ooo.words, Words::Inline(_)), w <= 254, "w {w}");
            let (mut next, mut seen) = (0u32, vec![]);
            for round in 0..60u32 {
                // A hole at `next`, then segments after it out of order, some twice.
                let span = 2 + (round * 7) % 40;
                for k in (1..span).rev().chain([span / 2]) {
                    let (a, d) = r.on_segment(next + k);
                    assert_eq!(
                        (a, d),
                        (AckAction::Now(next), 0),
                        "w {w} round {round} k {k}"
                    );
                    seen.push(blocks(&mut r, next));
                }
                let (a, d) = r.on_segment(next);
                assert_eq!(
                    (a, d),
                    (AckAction::Now(next + span), span),
                    "w {w} round {round}"
                );
                seen.push(blocks(&mut r, next + span));
                next += span;
            }
            assert_eq!(r.rcv_nxt, next);
            seen
        };
        assert_eq!(transcript(254), transcript(255));
        assert_eq!(transcript(127), transcript(1000));
    }
}
