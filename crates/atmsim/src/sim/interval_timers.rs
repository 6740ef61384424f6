//! The allocators' interval timers, at most one per port in the event queue (issue 14:
//! "stale events are cancelled in place"; the same for the interval timers as the ABR send
//! events).
//!
//! An averaging interval of ERICA or GW ends after N ABR cells or T time, whichever comes
//! first (spec ALGORITHMS.md 2.3; seed 000's "min{100 cells, 1000 us}"). Each interval that starts arms a timer for its end by
//! time; one that ends by count leaves that timer stale. At a busy port the intervals end
//! by count many times per interval length: with 10 000 VCs at the trunk port, about 36 000
//! of the 86 000 events pending at 2 ms were stale timers of one port, each one a node in
//! the queue's wheel and one event popped for nothing.
//!
//! Here a port keeps at most one timer in the queue. A timer armed while an older one of
//! the port is still queued takes its scheduling number at that moment
//! ([`EventQueue::reserve_seq`]), as it would have if scheduled, and waits; when the older
//! one pops (stale), the newest waiting timer enters the queue with its reserved number
//! ([`EventQueue::schedule_reserved`]), and the ones in between, stale too, are given up
//! ([`EventQueue::forgo_reserved`]). Every live timer therefore pops at its `(time, seq)`
//! place among the other events, ties included, and the run is the same; only the stale
//! timers that were popped and ignored are no longer counted in `events`.

use super::Ev;
use atmsim_kernel::{EventQueue, Time};

/// An event of the port is in the queue.
const QUEUED: u64 = 1 << 63;

/// Per port: whether one of its timers is in the queue, and the scheduling number (plus
/// one; 0 for none) of its newest timer waiting for that one to pop. Empty in networks
/// without timed intervals (8 bytes per port otherwise).
#[derive(Debug, Default)]
pub struct IntervalTimers {
    ports: Vec<u64>,
}

impl IntervalTimers {
    /// Timers for `ports` ports, if any of them has timed intervals.
    pub fn new(ports: usize, timed: bool) -> Self {
        IntervalTimers {
            ports: if timed { vec![0; ports] } else { Vec::new() },
        }
    }

    /// Port `p`'s allocator started an interval that ends by time at `deadline` (its
    /// generation `gen`): the timer enters the queue, or waits for the port's queued one.
    #[inline]
    pub fn arm(&mut self, q: &mut EventQueue<Ev>, p: usize, deadline: Time, gen: u32) {
        let seq = q.reserve_seq();
        let t = &mut self.ports[p];
        if *t & QUEUED == 0 {
            q.schedule_reserved(deadline, seq, Ev::Interval(p as u32, gen));
            *t = QUEUED;
        } else {
            if *t != QUEUED {
                q.forgo_reserved(); // the timer waiting so far is stale
            }
            *t = QUEUED | (seq + 1);
        }
    }

    /// A timer of port `p` popped: none of the port's is in the queue now. Returns the
    /// scheduling number of the timer that was waiting for it (if any: the popped one is
    /// then stale), to enter the queue with [`IntervalTimers::place_waiting`].
    #[inline]
    pub fn popped(&mut self, p: usize) -> Option<u64> {
        let waiting = std::mem::take(&mut self.ports[p]) & !QUEUED;
        waiting.checked_sub(1)
    }

    /// The waiting timer of port `p` (number `seq`, from [`IntervalTimers::popped`]) enters
    /// the queue at its interval's `deadline`.
    pub fn place_waiting(
        &mut self,
        q: &mut EventQueue<Ev>,
        p: usize,
        seq: u64,
        deadline: Time,
        gen: u32,
    ) {
        q.schedule_reserved(deadline, seq, Ev::Interval(p as u32, gen));
        self.ports[p] = QUEUED;
    }
}
