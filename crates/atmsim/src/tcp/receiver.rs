//! The TCP receiver: cumulative ACKs, out-of-order segments kept (BSD reassembly queue),
//! an application that consumes at once (so the advertised window stays at its maximum),
//! and optional delayed ACKs (ACK every second segment, or when the delayed-ACK timer
//! fires; out-of-order segments are acknowledged at once).

/// What the receiver wants done after a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckAction {
    /// Send an ACK for everything below this segment number now.
    Now(u32),
    /// An ACK is owed; send it when the delayed-ACK timer fires.
    Delay,
}

/// A TCP receiver.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    /// Next segment expected in order.
    pub rcv_nxt: u32,
    ooo: Vec<bool>,
    mask: u32,
    delayed_ack: bool,
    keep_out_of_order: bool,
    ack_owed: bool,
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
        let cap = (window_segments as usize + 2).next_power_of_two();
        TcpReceiver {
            rcv_nxt: 0,
            ooo: vec![false; cap],
            mask: cap as u32 - 1,
            delayed_ack,
            keep_out_of_order,
            ack_owed: false,
            segments_received: 0,
            duplicates: 0,
        }
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
            if self.keep_out_of_order && seg - self.rcv_nxt <= self.mask {
                self.ooo[(seg & self.mask) as usize] = true;
            }
            self.ack_owed = false;
            return (AckAction::Now(self.rcv_nxt), 0);
        }
        let before = self.rcv_nxt;
        self.rcv_nxt += 1;
        let mut filled_hole = false;
        while self.ooo[(self.rcv_nxt & self.mask) as usize] {
            self.ooo[(self.rcv_nxt & self.mask) as usize] = false;
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
}
