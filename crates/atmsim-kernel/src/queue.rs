//! The event queue: a timing wheel (calendar queue) on integer time with an overflow heap,
//! popping in exactly `(time, sequence)` order.
//!
//! Every push takes the next value of a 64-bit insertion counter, so two events at the
//! same time always run in the order they were scheduled. The event payload is any
//! `Copy` type; models use a small closed enum so that dispatch is static.
//!
//! Time is cut into slots of `2^SLOT_SHIFT` ps. Three places hold the pending events, by
//! their slot `s = time >> SLOT_SHIFT` relative to the current slot `cur`:
//!
//! * `near`, a vector sorted by `(time, seq)` with a read cursor (`near[head..]` are
//!   pending, the next is `near[head]`): every event with `s <= cur`;
//! * the wheel, `SLOTS` unsorted buckets: events with `cur < s < cur + SLOTS`, bucket
//!   `s mod SLOTS` (a bitmap of non-empty buckets finds the next one). A bucket is a
//!   singly linked list of nodes in one shared vector (`nodes`, with a free list), so the
//!   wheel's pending events stay in a few dense cache lines whatever the bucket count;
//! * `overflow`, a binary heap: events with `s >= cur + SLOTS` (timers, far arrivals).
//!
//! Any event in `near` is earlier than any in the wheel, which is earlier than any in
//! `overflow`, and equal times always share a slot, hence a place. So the minimum of
//! `near` is the global `(time, seq)` minimum: the pop order is exactly that of one
//! binary heap (checked against one by a randomized differential test below). When `near`
//! runs dry, `cur` moves to the next non-empty slot, that bucket's list moves into `near`
//! (newest first, then reversed; sorted only if the bucket's times and scheduling order
//! disagree, a long bucket by sub-slots first; the nodes go back to the free list: no
//! allocation once warm), and overflow events that now fall inside the wheel's span move
//! into it. A pop from `near` is O(1); a push into the current slot is a binary search and a
//! short move (a slot holds a few events).
//!
//! Measured on `atmsim bench` (issue 13/14, docs/performance.md): the slot narrower than a
//! 155.52 Mbit/s cell time keeps a port's next transmission out of `near` (no sorted
//! insert), and the shared node vector keeps the D1 misses at the binary heap's level.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// log2 of the slot width in picoseconds: 2^21 ps = 2.1 us, under one cell time at
/// 155.52 Mbit/s (2.73 us), so a port's next transmission lands in a later bucket.
const SLOT_SHIFT: u32 = 21;
/// Buckets in the wheel (a power of two): the wheel spans 2^33 ps = 8.6 ms, more than a
/// WAN link's 5 ms delay, so cell events rarely reach the overflow heap; the bucket
/// heads are 16 KB of `u32`.
const SLOTS: usize = 1 << 12;
const MASK: u64 = SLOTS as u64 - 1;
const WORDS: usize = SLOTS / 64;

#[derive(Clone, Copy, Debug)]
struct Entry<E> {
    time: Time,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed, so that std's max-heap pops the earliest (time, seq) first.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .time
            .cmp(&self.time)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// A wheel event and the next node of its bucket (or of the free list).
#[derive(Clone, Copy, Debug)]
struct Node<E> {
    entry: Entry<E>,
    next: u32,
}

/// The end of a node list.
const NIL: u32 = u32::MAX;

#[inline]
fn slot_of(t: Time) -> u64 {
    t >> SLOT_SHIFT
}

/// A priority queue of events, earliest first, FIFO among equal times.
#[derive(Debug)]
pub struct EventQueue<E: Copy> {
    /// Sorted by `(time, seq)`; the pending ones are `near[head..]`.
    near: Vec<Entry<E>>,
    /// The read cursor of `near`.
    head: usize,
    /// The wheel's events, one node each; a bucket is a singly linked list through
    /// `next`, so all pending wheel events share one dense, cache-resident vector.
    nodes: Vec<Node<E>>,
    /// Head of the list of free nodes (`NIL` if none).
    free: u32,
    /// Head node of each bucket's list (`NIL` if empty).
    heads: Box<[u32; SLOTS]>,
    occupied: [u64; WORDS],
    in_wheel: usize,
    overflow: BinaryHeap<Entry<E>>,
    /// Scratch space of [`EventQueue::sort_bucket`] (kept: no allocation once warm).
    scratch: Vec<Entry<E>>,
    cur: u64,
    next_seq: u64,
    now: Time,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::with_capacity(64)
    }
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue with room for `cap` pending far-future events before it reallocates
    /// (the wheel's buckets grow on demand).
    pub fn with_capacity(cap: usize) -> Self {
        EventQueue {
            near: Vec::with_capacity(64),
            head: 0,
            nodes: Vec::new(),
            free: NIL,
            heads: Box::new([NIL; SLOTS]),
            occupied: [0; WORDS],
            in_wheel: 0,
            overflow: BinaryHeap::with_capacity(cap),
            scratch: Vec::new(),
            cur: 0,
            next_seq: 0,
            now: 0,
            popped: 0,
        }
    }

    /// Schedules `event` at absolute time `time`. Scheduling in the past is a model bug.
    #[inline]
    pub fn schedule(&mut self, time: Time, event: E) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        self.place(Entry { time, seq, event });
    }

    /// Puts an entry where its slot says (see the module doc).
    #[inline(always)]
    fn place(&mut self, e: Entry<E>) {
        let s = slot_of(e.time);
        if s <= self.cur {
            // Usually the latest so far: it goes at the back (no move). A slot may hold
            // thousands of events (10 000 sources in step), so this must stay O(1) then.
            let key = (e.time, e.seq);
            let i = self.head + self.near[self.head..].partition_point(|x| (x.time, x.seq) < key);
            self.near.insert(i, e);
        } else if s - self.cur < SLOTS as u64 {
            let b = (s & MASK) as usize;
            let node = Node {
                entry: e,
                next: self.heads[b],
            };
            self.heads[b] = if self.free != NIL {
                let i = self.free;
                self.free = self.nodes[i as usize].next;
                self.nodes[i as usize] = node;
                i
            } else {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            };
            self.occupied[b / 64] |= 1 << (b % 64);
            self.in_wheel += 1;
        } else {
            self.overflow.push(e);
        }
    }

    /// Schedules `event` at `now + delay`.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now + delay, event);
    }

    /// Removes and returns the earliest event, advancing the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        if self.head == self.near.len() && !self.advance() {
            return None;
        }
        let e = *self.near.get(self.head)?;
        self.head += 1;
        self.now = e.time;
        self.popped += 1;
        Some((e.time, e.event))
    }

    /// Removes and returns the earliest event if its time is at most `limit` (the loop of
    /// a run up to a time: one look at the queue per event instead of a peek and a pop).
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, E)> {
        if self.head == self.near.len() && !self.advance() {
            return None;
        }
        let e = *self.near.get(self.head)?;
        if e.time > limit {
            return None;
        }
        self.head += 1;
        self.now = e.time;
        self.popped += 1;
        Some((e.time, e.event))
    }

    /// The slot of the first non-empty wheel bucket after `cur`, if any.
    fn next_wheel_slot(&self) -> Option<u64> {
        if self.in_wheel == 0 {
            return None;
        }
        let start = ((self.cur + 1) & MASK) as usize;
        // Scan the bitmap circularly from `start`, one word at a time.
        let (w0, b0) = (start / 64, start % 64);
        for k in 0..=WORDS {
            let w = (w0 + k) % WORDS;
            let mut bits = self.occupied[w];
            if k == 0 {
                bits &= !0u64 << b0;
            }
            if bits != 0 {
                let b = w * 64 + bits.trailing_zeros() as usize;
                let dist = (b as u64).wrapping_sub(start as u64) & MASK;
                return Some(self.cur + 1 + dist);
            }
        }
        // The bits of the first word below `start` (reached again at k = WORDS).
        unreachable!("in_wheel > 0 but no occupied bucket")
    }

    /// `near` is empty: moves `cur` to the next non-empty slot and fills `near` from it.
    /// Returns false if nothing is pending.
    #[cold]
    fn advance(&mut self) -> bool {
        let next = match (self.next_wheel_slot(), self.overflow.peek()) {
            (Some(s), _) => s,
            (None, Some(e)) => slot_of(e.time),
            (None, None) => return false,
        };
        self.cur = next;
        let b = (next & MASK) as usize;
        if self.occupied[b / 64] & (1 << (b % 64)) != 0 {
            self.occupied[b / 64] &= !(1 << (b % 64));
            self.near.clear();
            self.head = 0;
            let mut i = std::mem::replace(&mut self.heads[b], NIL);
            // The list is newest first. Each entry goes in place among those taken before
            // it (latest first; usually no step is needed: scheduling order is time order),
            // then the whole is reversed. Past a few steps (a long bucket far out of order)
            // the rest is appended and the bucket sorted once, so it stays O(n log n).
            let mut in_order = true;
            while i != NIL {
                let node = self.nodes[i as usize];
                in_order = in_order && self.insert_oldest(node.entry);
                if !in_order {
                    self.near.push(node.entry);
                }
                self.nodes[i as usize].next = self.free;
                self.free = i;
                i = node.next;
                self.in_wheel -= 1;
            }
            self.near.reverse();
            if !in_order {
                self.sort_bucket();
            }
        }
        // Overflow events that now fall inside the wheel's span move in (slots >= cur).
        while let Some(e) = self.overflow.peek() {
            if slot_of(e.time) - self.cur >= SLOTS as u64 {
                break;
            }
            let e = self.overflow.pop().expect("peeked");
            self.place(e);
        }
        true
    }

    /// Sorts `near`, which holds one bucket's events (all in slot `cur`), by `(time, seq)`.
    /// A long bucket (thousands of sources in step) is first spread by the top bits of
    /// its times' offsets in the slot into `SUB` sub-slots, keeping their order, and then
    /// each sub-slot is sorted: about linear, where one sort of the whole was a fifth of
    /// the instructions of a 10 000-VC ABR run (issue 14).
    #[cold]
    fn sort_bucket(&mut self) {
        const SUB_BITS: u32 = 8;
        const SUB: usize = 1 << SUB_BITS;
        let n = self.near.len();
        if n <= SUB / 2 {
            self.near.sort_unstable_by_key(|e| (e.time, e.seq));
            return;
        }
        let sub = |t: Time| ((t >> (SLOT_SHIFT - SUB_BITS)) as usize) & (SUB - 1);
        let mut start = [0usize; SUB + 1];
        for e in &self.near {
            start[sub(e.time) + 1] += 1;
        }
        for k in 0..SUB {
            start[k + 1] += start[k];
        }
        let mut next = start;
        self.scratch.clear();
        self.scratch.resize(n, self.near[0]);
        for e in &self.near {
            let k = sub(e.time);
            self.scratch[next[k]] = *e;
            next[k] += 1;
        }
        for k in 0..SUB {
            self.scratch[start[k]..start[k + 1]].sort_unstable_by_key(|e| (e.time, e.seq));
        }
        std::mem::swap(&mut self.near, &mut self.scratch);
    }

    /// Puts `e`, scheduled before every event in `near` (latest first while a bucket is
    /// taken in), in its place with at most 8 insertion steps; returns false, leaving `near`
    /// unchanged, if it needs more.
    #[inline(always)]
    fn insert_oldest(&mut self, e: Entry<E>) -> bool {
        let key = (e.time, e.seq);
        let n = self.near.len();
        let mut j = n;
        while j > 0 && (self.near[j - 1].time, self.near[j - 1].seq) < key {
            j -= 1;
            if n - j > 8 {
                return false;
            }
        }
        self.near.insert(j, e);
        true
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        if let Some(e) = self.near.get(self.head) {
            return Some(e.time);
        }
        match self.next_wheel_slot() {
            Some(s) => {
                let mut i = self.heads[(s & MASK) as usize];
                let mut min = Time::MAX;
                while i != NIL {
                    min = min.min(self.nodes[i as usize].entry.time);
                    i = self.nodes[i as usize].next;
                }
                Some(min)
            }
            None => self.overflow.peek().map(|e| e.time),
        }
    }

    /// The current simulation time (time of the last popped event).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of events popped so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.near.len() - self.head + self.in_wheel + self.overflow.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held by the queue's storage (pending events and spare capacity), for the
    /// memory estimate of a run.
    pub fn heap_bytes(&self) -> usize {
        let entry = std::mem::size_of::<Entry<E>>();
        self.nodes.capacity() * std::mem::size_of::<Node<E>>()
            + (self.near.capacity() + self.overflow.capacity() + self.scratch.capacity()) * entry
            + SLOTS * std::mem::size_of::<u32>()
    }
}

#[cfg(test)]
#[path = "queue_tests.rs"]
mod tests;
