//! The tick-mode TCP timers of all connections, kept out of the global event queue
//! (issue 14: "per-connection timers come out of the global queue (one global tick, or
//! timer wheels)").
//!
//! In tick mode every connection's sender has a clock that ticks every `tick` (seed 001's
//! 100 ms or 500 ms BSD timer), at its own phase (`tick_phase`, docs/models/tcp.md), from
//! the start of the run to its end. Connections with the same period therefore tick in a
//! fixed cyclic order: sorted once by their first tick, each one that ticks goes to the
//! back, one period on. A [`TickRing`] holds them in that order, and the global queue
//! holds only each ring's next tick: one pending event per distinct period instead of one
//! per connection (at 10 000 connections, 10 000 entries of the queue's far-future heap,
//! each tick a push and a pop there).
//!
//! The order of events is exactly the one of scheduling every tick: each tick takes its
//! scheduling number ([`EventQueue::reserve_seq`]) at the moment the engine scheduled it
//! before, and the ring's head enters the queue with that number
//! ([`EventQueue::schedule_reserved`]), so it pops at its `(time, seq)` place among the
//! other events, ties included.

use super::Ev;
use atmsim_kernel::{EventQueue, Time};
use std::collections::VecDeque;

/// A connection's next tick: when, and its scheduling number.
#[derive(Clone, Copy, Debug)]
struct Due {
    conn: u32,
    at: Time,
    seq: u64,
}

/// The connections that tick every `period`, in the order of their next ticks.
#[derive(Debug)]
struct TickRing {
    period: Time,
    due: VecDeque<Due>,
}

/// The tick rings of a run, one per distinct tick period (usually one).
#[derive(Debug)]
pub struct TickRings {
    rings: Vec<TickRing>,
    /// A tick names to the cache what the ring's next ticks read
    /// ([`super::Sim::hint_ticks`]; on unless the cache hints are off).
    pub(super) hints: bool,
}

impl Default for TickRings {
    fn default() -> Self {
        TickRings {
            rings: Vec::new(),
            hints: true,
        }
    }
}

impl TickRings {
    /// Adds connection `conn`, ticking every `period` from `first`, with the scheduling
    /// number `seq` reserved for its first tick. Call [`TickRings::arm`] once all are added.
    pub fn add(&mut self, conn: u32, period: Time, first: Time, seq: u64) {
        let due = Due {
            conn,
            at: first,
            seq,
        };
        match self.rings.iter_mut().find(|r| r.period == period) {
            Some(r) => r.due.push_back(due),
            None => self.rings.push(TickRing {
                period,
                due: VecDeque::from([due]),
            }),
        }
    }

    /// Sorts each ring by first tick, fits its storage to its connections and puts each
    /// ring's head in the queue. A ring keeps its length for the whole run and its head
    /// goes round all of its storage, so the room left by growing it one connection at a
    /// time would be written, resident, for nothing: at 10 000 connections 16 384 places of
    /// 24 bytes for 10 000 (issue 14, memory per VC).
    pub fn arm(&mut self, q: &mut EventQueue<Ev>) {
        for (r, ring) in self.rings.iter_mut().enumerate() {
            ring.due
                .make_contiguous()
                .sort_unstable_by_key(|d| (d.at, d.seq));
            ring.due.shrink_to_fit();
            schedule_head(ring, r, q);
        }
    }

    /// The connection that ticks at ring `r`'s event at `now` (the ring's head).
    #[inline]
    pub fn head(&self, r: usize, now: Time) -> usize {
        let head = self.rings[r]
            .due
            .front()
            .expect("a tick ring is never empty");
        debug_assert_eq!(head.at, now, "a ring's event is its head's tick");
        head.conn as usize
    }

    /// The connection `k` places after ring `r`'s head (0: the head), if the ring is that
    /// long: the ones to tick next, in order.
    #[inline]
    pub fn ahead(&self, r: usize, k: usize) -> Option<usize> {
        Some(self.rings.get(r)?.due.get(k)?.conn as usize)
    }

    /// Ring `r`'s head has ticked at `now`: its next tick, one period on, takes its
    /// scheduling number now (where the engine scheduled it before) and goes to the back,
    /// which keeps the ring sorted (every other pending tick is at most one period after
    /// its last one, hence not after this one, and an equal time has an earlier number);
    /// the new head enters the queue.
    pub fn rearm(&mut self, r: usize, now: Time, q: &mut EventQueue<Ev>) {
        let seq = q.reserve_seq();
        let ring = &mut self.rings[r];
        let mut head = ring.due.pop_front().expect("a tick ring is never empty");
        head.at = now + ring.period;
        head.seq = seq;
        ring.due.push_back(head);
        schedule_head(ring, r, q);
    }
}

/// Puts ring `r`'s next tick in the queue, with its reserved number.
fn schedule_head(ring: &TickRing, r: usize, q: &mut EventQueue<Ev>) {
    let head = ring.due.front().expect("a tick ring is never empty");
    q.schedule_reserved(head.at, head.seq, Ev::Tick(r as u32));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three connections on one period and one on another: the ticks pop in time order,
    /// each one period after its last, and the queue holds one event per ring.
    #[test]
    fn rings_tick_every_connection_in_time_order() {
        let mut q = EventQueue::default();
        let mut rings = TickRings::default();
        for (conn, period, first) in [(0, 100, 70), (1, 100, 20), (2, 100, 20), (3, 30, 5)] {
            let seq = q.reserve_seq();
            rings.add(conn, period, first, seq);
        }
        rings.arm(&mut q);
        let mut got = Vec::new();
        while let Some((now, Ev::Tick(r))) = q.pop_until(230) {
            let c = rings.head(r as usize, now);
            got.push((now, c));
            rings.rearm(r as usize, now, &mut q);
        }
        let want = [
            (5, 3),
            (20, 1),
            (20, 2),
            (35, 3),
            (65, 3),
            (70, 0),
            (95, 3),
            (120, 1),
            (120, 2),
            (125, 3),
            (155, 3),
            (170, 0),
            (185, 3),
            (215, 3),
            (220, 1),
            (220, 2),
        ];
        assert_eq!(got, want);
    }

    /// A ring armed holds no more room than its connections (grown one at a time it had
    /// 2 048 places for 1 025), and still ticks each of them in turn.
    #[test]
    fn an_armed_ring_is_as_long_as_its_connections() {
        let mut q = EventQueue::default();
        let mut rings = TickRings::default();
        for conn in 0..1025u32 {
            let seq = q.reserve_seq();
            rings.add(conn, 2000, 1 + u64::from(conn), seq);
        }
        assert!(rings.rings[0].due.capacity() >= 2048);
        rings.arm(&mut q);
        assert_eq!(rings.rings[0].due.capacity(), 1025);
        for want in (0..1025).chain(0..3) {
            let (now, ev) = q.pop().expect("a tick");
            assert!(matches!(ev, Ev::Tick(0)));
            assert_eq!(rings.head(0, now), want);
            rings.rearm(0, now, &mut q);
        }
    }

    /// `ahead` names a ring's connections in the order they tick next, the head first,
    /// and nothing past the ring's end or for a ring that does not exist.
    #[test]
    fn ahead_names_the_next_to_tick_in_order() {
        let mut q = EventQueue::default();
        let mut rings = TickRings::default();
        for (conn, first) in [(0, 70), (1, 20), (2, 45)] {
            let seq = q.reserve_seq();
            rings.add(conn, 100, first, seq);
        }
        rings.arm(&mut q);
        let next = |rings: &TickRings| (0..4).map(|k| rings.ahead(0, k)).collect::<Vec<_>>();
        assert_eq!(next(&rings), [Some(1), Some(2), Some(0), None]);
        let (now, _) = q.pop().expect("the ring's head");
        rings.rearm(0, now, &mut q);
        assert_eq!(next(&rings), [Some(2), Some(0), Some(1), None]);
        assert_eq!(rings.ahead(1, 0), None);
    }
}
