//! A timer of which only the latest arming counts, kept as at most one event in an
//! [`EventQueue`].
//!
//! A model whose timer restarts before it runs out (an averaging interval that ends early
//! and starts the next one) would schedule a new event at every restart and ignore the
//! earlier ones when they pop. With thousands of restarts per timer period, the queue then
//! holds thousands of events that do nothing. A [`LatestTimer`] keeps one: an arming while
//! one of its events is still queued takes its scheduling number at that moment
//! ([`EventQueue::reserve_seq`]), as scheduling would have, and waits; when the queued
//! (now stale) event pops, the latest waiting arming enters the queue with its reserved
//! number ([`LatestTimer::place`]), and the armings in between, stale as well, are given up
//! ([`EventQueue::forgo_reserved`]). The live event therefore pops at its `(time, seq)`
//! place among the others, ties included: exactly where it would have if every arming had
//! been scheduled. Only the stale events are no longer popped.
//!
//! The model keeps telling live events from stale ones itself (a generation in the event);
//! a [`LatestTimer`] only decides which of them wait outside the queue. It relies on two
//! things the model guarantees: an arming's time is never before the time of the arming
//! before it (so the queued event, stale, pops before the waiting one is due), and the
//! model can rebuild the latest arming's time and event when the stale one pops (they do
//! not change between armings).

use crate::queue::EventQueue;
use crate::time::Time;

/// An event of the timer is in the queue.
const QUEUED: u64 = 1 << 63;

/// Whether one of the timer's events is in the queue (the top bit), and the scheduling
/// number, plus one, of the latest arming waiting for that event to pop (0: none). Eight
/// bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LatestTimer(u64);

impl LatestTimer {
    /// Arms the timer for `time`: `event` enters the queue if none of the timer's is
    /// there, else the arming waits with its number reserved now (and a waiting one is
    /// given up: this arming supersedes it).
    #[inline]
    pub fn arm<E: Copy>(&mut self, q: &mut EventQueue<E>, time: Time, event: E) {
        let seq = q.reserve_seq();
        if self.0 & QUEUED == 0 {
            q.schedule_reserved(time, seq, event);
            self.0 = QUEUED;
        } else {
            if self.0 != QUEUED {
                q.forgo_reserved();
            }
            self.0 = QUEUED | (seq + 1);
        }
    }

    /// One of the timer's events popped: none is in the queue now. Returns the number of
    /// the arming that was waiting for it, if any (the popped event is then stale): the
    /// caller hands it to [`LatestTimer::place`] with that arming's time and event.
    #[inline]
    pub fn popped(&mut self) -> Option<u64> {
        let waiting = std::mem::take(&mut self.0) & !QUEUED;
        waiting.checked_sub(1)
    }

    /// The waiting arming of number `seq` (from [`LatestTimer::popped`]) enters the queue.
    #[inline]
    pub fn place<E: Copy>(&mut self, q: &mut EventQueue<E>, seq: u64, time: Time, event: E) {
        q.schedule_reserved(time, seq, event);
        self.0 = QUEUED;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_event_hands_its_place_to_the_latest_arming_with_its_number() {
        let mut q: EventQueue<&str> = EventQueue::default();
        let mut t = LatestTimer::default();
        t.arm(&mut q, 10, "first"); // queued (number 0)
        q.schedule(30, "other"); // number 1
        t.arm(&mut q, 20, "second"); // waits (number 2)
        t.arm(&mut q, 30, "third"); // supersedes "second" (number 3), which is given up
        assert_eq!(q.len(), 3, "first, other, and the third waiting");
        assert_eq!(q.pop(), Some((10, "first")));
        let seq = t.popped().expect("the third waits");
        t.place(&mut q, seq, 30, "third");
        // "third" was armed after "other" was scheduled: at the same time, it pops after.
        assert_eq!(q.pop(), Some((30, "other")));
        assert_eq!(q.pop(), Some((30, "third")));
        assert_eq!(t.popped(), None, "the live event had none waiting");
        assert!(q.is_empty());
    }
}
