//! The event queue: a timing wheel (calendar queue) on integer time with an overflow heap,
//! popping in exactly `(time, sequence)` order.
//!
//! Every push takes the next value of a 64-bit insertion counter, so two events at the
//! same time always run in the order they were scheduled. The event payload is any
//! `Copy` type; models use a small closed enum so that dispatch is static.
//!
//! Time is cut into slots of `2^SLOT_SHIFT` ps. Four places hold the pending events, by
//! their slot `s = time >> SLOT_SHIFT` relative to the current slot `cur`:
//!
//! * the current slot's events (`s <= cur`), in one of two forms, never both at once:
//!   - the run, usually: the current slot's bucket list relinked in place in `(time, seq)`
//!     order (no copy), popped by following `next` from `run`;
//!   - `near`, a vector sorted by `(time, seq)` with a read cursor (`near[head..]` are
//!     pending): when events scheduled into the current slot far out of order used up the
//!     slot's budget for walking the run;
//! * the wheel, `SLOTS` unsorted buckets: events with `cur < s < cur + SLOTS`, bucket
//!   `s mod SLOTS` (a bitmap of non-empty buckets finds the next one). A bucket is a
//!   singly linked list of nodes (newest first) in one shared vector (`nodes`, with a free
//!   list), so the wheel's pending events stay in a few dense cache lines whatever the
//!   bucket count;
//! * `overflow`, a binary heap: events with `s >= cur + SLOTS` (timers, far arrivals); the
//!   slot of its earliest event is kept in `overflow_slot`.
//!
//! Any event of the current slot is earlier than any in the wheel, which is earlier than
//! any in `overflow`, and equal times always share a slot, hence a place. So the head of
//! the run (or `near[head]`) is the global `(time, seq)` minimum: the pop order is exactly
//! that of one binary heap (checked against one by randomized differential tests). When the
//! current slot runs dry, `cur` moves to the next non-empty slot and its bucket's list
//! becomes the run: taken newest first, each node goes in front of the run (scheduling
//! order is usually time order), after the last node, right before the node that went
//! after the last one, or after the last earlier node, at most `MAX_STEPS` steps on; up to
//! `MAX_STRAGGLERS` nodes needing more are merged in at the end, and a bucket with more (far
//! out of order) is sorted by sub-slots in `near` and written back into its own nodes.
//! Then overflow events that now fall inside the wheel's span move into it. An
//! event scheduled into the current slot goes after the run's last node, before its first
//! (an event at `now`: the first node takes it and a new node what it held), or after the
//! last earlier node, looked for from the node linked in last (usually right before it) or
//! from the first, a few steps on or, within a budget of steps per slot linear in its
//! events, farther; past the budget the run moves to `near` first. A node popped from the
//! run goes back to the free list at once, so the next event scheduled reuses it while it
//! is in cache: no allocation once warm. A pop is O(1); a push into the run O(1) when
//! events come in time order, and linear in a slot's events in all; a push into `near` is
//! a binary search and a move of the later events.
//!
//! Measured on `atmsim bench` (issue 13/14, docs/performance-journal.md): the slot narrower than a
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
/// The most steps a node may take into a sorted list (see [`EventQueue::take_bucket`]).
const MAX_STEPS: usize = 8;
/// The most nodes of a bucket that may miss their place by more than [`MAX_STEPS`] and be
/// merged into its run afterwards (see [`EventQueue::take_bucket`]). Merging them costs a
/// sort of the stragglers and one pass over the run; the bucket's sort in `near`, two walks
/// of its list and a sort of all its events. Issue 14: with 8, the ERICA bottleneck row at
/// 10 000 VCs sorted 11 860 buckets (85 M events, 9 % of its time) in its 0.5 s, each with
/// about 100 of the trunk port's interval timers among the switch ports' ones; with 128,
/// 393 (`queue::tests::old_events_of_one_time_among_ones_of_rising_times_are_merged_not_sorted`).
/// Measured before the thirty-seventh session, since which a port's stale interval timers
/// wait outside the queue ([`crate::LatestTimer`]); other events of one time among ones of
/// rising times (sources in step) still straggle.
const MAX_STRAGGLERS: usize = 128;
/// Steps a slot may spend walking its run to place events scheduled into it, beyond one per
/// event its bucket held (see [`EventQueue::place_in_run`]).
const WALK_SLACK: usize = 64;

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

/// A wheel event and the next node of its list (a bucket, the current slot's run or the
/// free list): an [`Entry`]'s fields and the link, flat, so that the link fills the
/// entry's padding: 32 bytes for the simulator's 12-byte events, where an `Entry` and a
/// link were 40. On 8-byte bounds half of the nodes still straddle two cache lines (the
/// vector starts 16 bytes into a line); `align(32)`, so that none does, measured slower
/// on the ERICA rows at 10 000 VCs (issue 14, docs/performance-journal.md), so it is not used.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Node<E> {
    time: Time,
    seq: u64,
    event: E,
    next: u32,
}

impl<E: Copy> Node<E> {
    #[inline(always)]
    fn new(e: Entry<E>, next: u32) -> Self {
        Node {
            time: e.time,
            seq: e.seq,
            event: e.event,
            next,
        }
    }

    #[inline(always)]
    fn entry(&self) -> Entry<E> {
        Entry {
            time: self.time,
            seq: self.seq,
            event: self.event,
        }
    }
}

/// The end of a node list.
const NIL: u32 = u32::MAX;

/// The `(time, seq)` order as one number.
#[inline(always)]
fn key(time: Time, seq: u64) -> u128 {
    (u128::from(time) << 64) | u128::from(seq)
}

/// The nodes of the list that starts at node `from`, with their times.
fn list_of<E: Copy>(nodes: &[Node<E>], from: u32) -> impl Iterator<Item = (u32, Time)> + '_ {
    std::iter::successors((from != NIL).then_some(from), move |&i| {
        let next = nodes[i as usize].next;
        (next != NIL).then_some(next)
    })
    .map(move |i| (i, nodes[i as usize].time))
}

#[inline]
fn slot_of(t: Time) -> u64 {
    t >> SLOT_SHIFT
}

/// A priority queue of events, earliest first, FIFO among equal times.
#[derive(Debug)]
pub struct EventQueue<E: Copy> {
    /// The next node of the current slot's run (`NIL` if none is pending). While it is
    /// not `NIL`, `near[head..]` is empty.
    run: u32,
    /// The last node of the run's list (meaningful while `run` is not `NIL`). A node popped
    /// from the run goes back to the free list at once, so that the next event scheduled,
    /// usually by the handler of the one just popped, reuses it while it is still in cache
    /// (issue 14: with a run's nodes given back together once it was done, the ABR + ERICA
    /// row at 10 000 VCs, 40 000 pending events, took 1.7x the CPU).
    run_last: u32,
    /// The node last linked into the middle of the run (`NIL` if none this slot): where the
    /// next such event usually goes, right after it. Checked before use: popped since, it
    /// has a key below the run's first or is in the wheel ([`EventQueue::pending_hint`]).
    run_hint: u32,
    /// Steps left to this slot for walking the run to an event's place (see
    /// [`EventQueue::place_in_run`]).
    walk_budget: usize,
    /// Sorted by `(time, seq)`; the pending ones are `near[head..]`.
    near: Vec<Entry<E>>,
    /// The nodes of a long bucket in sorted order ([`EventQueue::sort_bucket_list`]; empty
    /// between calls, kept: no allocation once warm).
    order: Vec<u32>,
    /// The read cursor of `near`.
    head: usize,
    /// The wheel's events, one node each; a bucket is a singly linked list through
    /// `next`, so all pending wheel events share one dense, cache-resident vector.
    nodes: Vec<Node<E>>,
    /// Head of the list of free nodes (`NIL` if none).
    free: u32,
    /// Head node of each bucket's list, newest first (`NIL` if empty).
    heads: Box<[u32; SLOTS]>,
    occupied: [u64; WORDS],
    /// Events in the wheel's buckets (not counting the run).
    in_wheel: usize,
    overflow: BinaryHeap<Entry<E>>,
    /// The slot of the overflow heap's earliest event (`u64::MAX` if it is empty).
    overflow_slot: u64,
    /// The nodes of the bucket being taken that [`EventQueue::take_bucket`] merges into its
    /// run at the end (empty between calls; kept: no allocation once warm).
    stragglers: Vec<u32>,
    cur: u64,
    next_seq: u64,
    now: Time,
    popped: u64,
    /// Reserved numbers given up without being scheduled ([`EventQueue::forgo_reserved`]).
    forgone: u64,
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
            run: NIL,
            run_last: NIL,
            run_hint: NIL,
            walk_budget: 0,
            near: Vec::with_capacity(64),
            order: Vec::new(),
            head: 0,
            nodes: Vec::new(),
            free: NIL,
            heads: Box::new([NIL; SLOTS]),
            occupied: [0; WORDS],
            in_wheel: 0,
            overflow: BinaryHeap::with_capacity(cap),
            overflow_slot: u64::MAX,
            stragglers: Vec::with_capacity(MAX_STRAGGLERS),
            cur: 0,
            next_seq: 0,
            now: 0,
            popped: 0,
            forgone: 0,
        }
    }

    /// Schedules `event` at absolute time `time`. Scheduling in the past is a model bug.
    #[inline]
    pub fn schedule(&mut self, time: Time, event: E) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        let seq = self.next_seq;
        self.next_seq += 1;
        self.place(time, seq, event);
    }

    /// Takes the next scheduling number, as [`EventQueue::schedule`] would, without
    /// scheduling anything yet: a model that keeps some of its events outside the queue
    /// (periodic timers in a fixed cyclic order) reserves each one's number at the moment it
    /// would have scheduled it, and later hands the queue only the earliest of them with
    /// [`EventQueue::schedule_reserved`]. The pop order is then exactly the one of
    /// scheduling them all (the tick rings of tick-mode TCP timers; [`crate::LatestTimer`]).
    /// A reserved number counts as pending in [`EventQueue::len`] until it is scheduled and
    /// popped, or given up ([`EventQueue::forgo_reserved`]).
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Gives up a number from [`EventQueue::reserve_seq`] that will never be scheduled (a
    /// timer superseded before it entered the queue): it no longer counts as pending.
    #[inline]
    pub fn forgo_reserved(&mut self) {
        self.forgone += 1;
        debug_assert!(self.forgone + self.popped <= self.next_seq);
    }

    /// Schedules `event` at `time` with a number from [`EventQueue::reserve_seq`]: it pops
    /// in `(time, seq)` order among the others as if it had been scheduled when the number
    /// was reserved. Each reserved number is to be scheduled at most once, at a time not
    /// before the last popped event's.
    #[inline]
    pub fn schedule_reserved(&mut self, time: Time, seq: u64, event: E) {
        debug_assert!(time >= self.now, "event scheduled in the past");
        debug_assert!(seq < self.next_seq, "sequence number not reserved");
        self.place(time, seq, event);
    }

    /// Puts the event `(time, seq, event)` where its slot says (see the module doc). The
    /// wheel's path writes the node from the values themselves, never from an entry made
    /// first: an entry is made in memory, and copying its event out (in wider loads than the
    /// stores that wrote it) waits for those stores to reach the cache (issue 14: the hottest
    /// instructions of `atmsim bench`; docs/performance-journal.md, "Events and cells kept whole,
    /// thirty-sixth session").
    #[inline(always)]
    fn place(&mut self, time: Time, seq: u64, event: E) {
        let s = slot_of(time);
        if s <= self.cur {
            self.place_near(Entry { time, seq, event });
        } else if s - self.cur < SLOTS as u64 {
            let b = (s & MASK) as usize;
            self.heads[b] = self.new_node(time, seq, event, self.heads[b]);
            self.occupied[b / 64] |= 1 << (b % 64);
            self.in_wheel += 1;
        } else {
            self.overflow_slot = self.overflow_slot.min(s);
            self.overflow.push(Entry { time, seq, event });
        }
    }

    /// Puts an entry of the current slot (or an earlier one) in its place: in the run if
    /// there is one, else in `near` if it holds pending events, else as a new run.
    #[inline(always)]
    fn place_near(&mut self, e: Entry<E>) {
        if self.run != NIL {
            self.insert_into_run(e);
        } else if self.head < self.near.len() {
            self.insert_near(e);
        } else {
            self.start_run_with(e);
        }
    }

    /// Makes `e` the whole run (nothing of the current slot is pending).
    #[inline(always)]
    fn start_run_with(&mut self, e: Entry<E>) {
        let i = self.new_node(e.time, e.seq, e.event, NIL);
        (self.run, self.run_last, self.run_hint) = (i, i, NIL);
        self.walk_budget = WALK_SLACK;
    }

    /// Puts an entry of the current slot in its place in `near` (the run is empty).
    #[inline(always)]
    fn insert_near(&mut self, e: Entry<E>) {
        // Usually the latest so far: it goes at the back (no move). A slot may hold
        // thousands of events (10 000 sources in step), so this must stay O(1) then.
        let key = (e.time, e.seq);
        let i = self.head + self.near[self.head..].partition_point(|x| (x.time, x.seq) < key);
        self.near.insert(i, e);
    }

    /// Schedules `event` at `now + delay`.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now + delay, event);
    }

    /// Removes and returns the earliest event, advancing the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let (time, event) = self.front()?;
        self.take_front(time);
        Some((time, event))
    }

    /// Removes and returns the earliest event if its time is at most `limit` (the loop of
    /// a run up to a time: one look at the queue per event instead of a peek and a pop).
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, E)> {
        let (time, event) = self.front()?;
        if time > limit {
            return None;
        }
        self.take_front(time);
        Some((time, event))
    }

    /// The earliest pending event (the run's next node, else `near[head]`), after moving to
    /// the next slot if the current one is done; None if nothing is pending.
    #[inline(always)]
    fn front(&mut self) -> Option<(Time, E)> {
        loop {
            if self.run != NIL {
                let n = &self.nodes[self.run as usize];
                return Some((n.time, n.event));
            }
            if let Some(e) = self.near.get(self.head) {
                return Some((e.time, e.event));
            }
            if !self.advance() {
                return None;
            }
        }
    }

    /// Removes the event [`EventQueue::front`] returned, at `time`.
    #[inline(always)]
    fn take_front(&mut self, time: Time) {
        if self.run != NIL {
            let r = self.run as usize;
            self.run = self.nodes[r].next;
            self.nodes[r].next = self.free;
            self.free = r as u32;
        } else {
            self.head += 1;
        }
        self.now = time;
        self.popped += 1;
    }

    /// The slot of the first non-empty wheel bucket after `cur`, if any.
    #[inline(always)]
    fn next_wheel_slot(&self) -> Option<u64> {
        if self.in_wheel == 0 {
            return None;
        }
        let start = ((self.cur + 1) & MASK) as usize;
        // Usually in the same word of the bitmap as `start`.
        let bits = self.occupied[start / 64] >> (start % 64);
        if bits != 0 {
            return Some(self.cur + 1 + u64::from(bits.trailing_zeros()));
        }
        Some(self.next_wheel_slot_far(start))
    }

    /// [`EventQueue::next_wheel_slot`] past the first word: scans the bitmap circularly
    /// from the word after `start`'s, one word at a time (the wheel is not empty).
    #[cold]
    fn next_wheel_slot_far(&self, start: usize) -> u64 {
        let w0 = start / 64;
        // At k = WORDS the first word again, for its bits below `start`.
        for k in 1..=WORDS {
            let w = (w0 + k) % WORDS;
            let bits = self.occupied[w];
            if bits != 0 {
                let b = w * 64 + bits.trailing_zeros() as usize;
                let dist = (b as u64).wrapping_sub(start as u64) & MASK;
                return self.cur + 1 + dist;
            }
        }
        unreachable!("in_wheel > 0 but no occupied bucket")
    }

    /// The current slot is done: moves `cur` to the next non-empty slot and takes its
    /// events in (see the module doc). Returns false if nothing is pending.
    #[cold]
    fn advance(&mut self) -> bool {
        self.run_last = NIL;
        self.near.clear();
        self.head = 0;
        let next = match self.next_wheel_slot() {
            Some(s) => s,
            None if self.overflow_slot != u64::MAX => self.overflow_slot,
            None => return false,
        };
        self.cur = next;
        let b = (next & MASK) as usize;
        if self.occupied[b / 64] & (1 << (b % 64)) != 0 {
            self.occupied[b / 64] &= !(1 << (b % 64));
            let list = std::mem::replace(&mut self.heads[b], NIL);
            self.take_bucket(list);
        }
        // Overflow events that now fall inside the wheel's span move in (slots >= cur).
        while self.overflow_slot < self.cur + SLOTS as u64 {
            let e = self.overflow.pop().expect("overflow_slot is set");
            self.overflow_slot = self.overflow.peek().map_or(u64::MAX, |e| slot_of(e.time));
            self.place(e.time, e.seq, e.event);
        }
        true
    }

    /// Makes the bucket list `newest` (newest first) the current slot's run, relinked in
    /// `(time, seq)` order: each node, taken newest first, goes in front of the run (usual:
    /// scheduling order is time order), after its last node, right before the node that went
    /// there last ([`EventQueue::goes_right_after`]), or after the last earlier one at most
    /// [`MAX_STEPS`] steps in. Up to [`MAX_STRAGGLERS`] nodes that would need more
    /// steps are merged in at the end, in one pass over the run; a bucket with more (far out
    /// of order) goes to `near` whole, sorted there once, so it stays O(n log n).
    ///
    /// Issue 14: 10 000 ABR sources in step fill a slot with events of one time, in
    /// scheduling order, behind a few older events later than them (timers and arrivals
    /// scheduled long before); with only the front and a few steps in, such buckets went to
    /// `near` and were copied and sorted, 16 % of a 10 000-VC KVR run's instructions.
    #[inline(always)]
    fn take_bucket(&mut self, newest: u32) {
        let (mut first, mut last) = (newest, newest);
        let mut first_key = self.key(newest);
        let mut last_key = first_key;
        let mut i = std::mem::replace(&mut self.nodes[newest as usize].next, NIL);
        // Where the last event that went after the run's back, or right before such an
        // event, was linked: the node before it.
        let mut back_hint = NIL;
        let mut n = 1;
        while i != NIL {
            let next = self.nodes[i as usize].next;
            let key = self.key(i);
            if key < first_key {
                self.nodes[i as usize].next = first;
                (first, first_key) = (i, key);
            } else if key > last_key {
                self.nodes[i as usize].next = NIL;
                self.nodes[last as usize].next = i;
                back_hint = last;
                (last, last_key) = (i, key);
            } else if self.goes_right_after(back_hint, key) {
                self.link_after(back_hint, i);
            } else if let Some(p) = self.last_before(first, key) {
                self.link_after(p, i);
            } else if self.stragglers.len() < MAX_STRAGGLERS {
                self.stragglers.push(i);
            } else {
                let rest = self.stragglers_onto(i);
                let (first, last, n) = self.sort_bucket_list(first, rest);
                self.start_run(first, last, n);
                return;
            }
            i = next;
            n += 1;
        }
        if !self.stragglers.is_empty() {
            self.merge_stragglers(first);
        }
        self.start_run(first, last, n);
    }

    /// Makes the sorted list from `first` to `last`, the `n` events of the bucket just
    /// taken, the current slot's run.
    #[inline(always)]
    fn start_run(&mut self, first: u32, last: u32, n: usize) {
        self.in_wheel -= n;
        (self.run, self.run_last, self.run_hint) = (first, last, NIL);
        self.walk_budget = n + WALK_SLACK;
    }

    /// Links the stragglers in front of the list `rest` (for `near`, which sorts them).
    #[cold]
    fn stragglers_onto(&mut self, mut rest: u32) -> u32 {
        for k in 0..self.stragglers.len() {
            let s = self.stragglers[k];
            self.nodes[s as usize].next = rest;
            rest = s;
        }
        self.stragglers.clear();
        rest
    }

    /// Merges the stragglers into the sorted list from `first`: each has a key between the
    /// list's first and last ones, so each goes after some node of it; taken in ascending
    /// order, one pass over the list places them all.
    #[cold]
    fn merge_stragglers(&mut self, first: u32) {
        let mut s = std::mem::take(&mut self.stragglers);
        s.sort_unstable_by_key(|&i| self.key(i));
        let mut p = first;
        for &i in &s {
            let key = self.key(i);
            loop {
                let q = self.nodes[p as usize].next;
                debug_assert!(q != NIL, "a straggler is before the list's last node");
                if self.key(q) > key {
                    break;
                }
                p = q;
            }
            self.link_after(p, i);
            p = i;
        }
        s.clear();
        self.stragglers = s;
    }

    /// The `(time, seq)` key of node `i`, as one number (one comparison).
    #[inline(always)]
    fn key(&self, i: u32) -> u128 {
        let n = &self.nodes[i as usize];
        key(n.time, n.seq)
    }

    /// In the sorted list from `start`, whose first key is below `key`, the last node with
    /// a key below `key`, if it is at most [`MAX_STEPS`] steps on.
    #[inline(always)]
    fn last_before(&self, start: u32, key: u128) -> Option<u32> {
        let mut p = start;
        for _ in 0..=MAX_STEPS {
            let q = self.nodes[p as usize].next;
            if q == NIL || self.key(q) > key {
                return Some(p);
            }
            p = q;
        }
        None
    }

    /// True if an event of `key` goes right after node `p` of a sorted list (`p` is earlier,
    /// the node after it, which must exist, later); false if `p` is `NIL`. In
    /// [`EventQueue::take_bucket`], `p` is the node after which the last node linked at the
    /// back, or just before it, went: old events later than the rest of their bucket, taken
    /// newest first, each go right before the one taken before them. Issue 14: at 10 000 VCs
    /// the ERICA row's buckets of 10 000 sources in step had 100 such events behind them,
    /// more than the 8 stragglers then allowed, and each was copied and sorted, every slot
    /// from 2 ms on.
    #[inline(always)]
    fn goes_right_after(&self, p: u32, key: u128) -> bool {
        p != NIL && self.key(p) < key && key < self.key(self.nodes[p as usize].next)
    }

    /// Links node `i` into a list right after node `p`.
    #[inline(always)]
    fn link_after(&mut self, p: u32, i: u32) {
        self.nodes[i as usize].next = self.nodes[p as usize].next;
        self.nodes[p as usize].next = i;
    }

    /// A node holding `event` at `(time, seq)` and linked to `next`, from the free list if it
    /// has one.
    #[inline(always)]
    fn new_node(&mut self, time: Time, seq: u64, event: E, next: u32) -> u32 {
        let node = Node {
            time,
            seq,
            event,
            next,
        };
        if self.free != NIL {
            let i = self.free;
            self.free = self.nodes[i as usize].next;
            self.nodes[i as usize] = node;
            i
        } else {
            let cap = self.nodes.capacity();
            self.nodes.push(node);
            if self.nodes.capacity() != cap {
                let bytes = self.nodes.capacity() * std::mem::size_of::<Node<E>>();
                crate::memory::count_growth(bytes as u64);
            }
            (self.nodes.len() - 1) as u32
        }
    }

    /// Puts `e`, of the current slot, in its place in the run (not empty): after its last
    /// node, before its first (an event at `now`), after the last earlier one a few steps
    /// on, or farther in within the slot's walk budget; else the run moves to `near` first.
    #[inline(never)]
    fn insert_into_run(&mut self, e: Entry<E>) {
        let key = key(e.time, e.seq);
        if key > self.key(self.run_last) {
            let i = self.new_node(e.time, e.seq, e.event, NIL);
            self.nodes[self.run_last as usize].next = i;
            self.run_last = i;
        } else if key < self.key(self.run) {
            self.insert_first(e);
        } else if let Some(p) = self.place_in_run(key) {
            let i = self.new_node(e.time, e.seq, e.event, NIL);
            self.link_after(p, i);
            self.run_hint = i;
        } else {
            self.run_to_near();
            self.insert_near(e);
        }
    }

    /// The last node of the run with a key below `key` (which is above the run's first),
    /// looked for from the run's hint if that is pending and earlier, else from the run's
    /// first node: [`MAX_STEPS`] on, then farther within the slot's walk budget (None if
    /// that is not enough).
    ///
    /// Issue 14: at 10 000 ABR sources in step, each source's cell waits a few ps for its
    /// host port, so each of the thousands of events at one time schedules one a little
    /// later in the same slot, right after the one scheduled before it: behind the events
    /// still pending at that time, which `last_before` does not reach. The first of them
    /// walks past those once; the rest start at the hint, one step. In `near` each was a
    /// move of the events after it (740 M moved in the first 5 ms of the ERICA row). The
    /// budget, the bucket's length and [`WALK_SLACK`] a slot, keeps a slot's walking linear
    /// in its events whatever their order; past it, `near` takes them as before.
    #[inline(always)]
    fn place_in_run(&mut self, key: u128) -> Option<u32> {
        let h = self.run_hint;
        let start = if self.pending_hint(h) && self.key(h) < key {
            h
        } else {
            self.run
        };
        self.last_before(start, key)
            .or_else(|| self.walk_to_place(start, key))
    }

    /// [`EventQueue::place_in_run`] past [`MAX_STEPS`]: the walk from `start`, charged to
    /// the slot's budget.
    #[cold]
    #[inline(never)]
    fn walk_to_place(&mut self, mut p: u32, key: u128) -> Option<u32> {
        loop {
            let q = self.nodes[p as usize].next;
            if q == NIL || self.key(q) > key {
                return Some(p);
            }
            if self.walk_budget == 0 {
                return None;
            }
            self.walk_budget -= 1;
            p = q;
        }
    }

    /// True if node `h`, the hint, holds a pending event of the run: not `NIL`, not in the
    /// wheel (slot up to the current one) and not popped (a key from the run's first on).
    /// A popped node is free, or holds a newer event: one of the wheel, or one linked into
    /// the run since, which is then where it seems. When the hint was popped it was the
    /// earliest pending event, so a free one's key stays below the run's first unless an
    /// event with a key below a popped one comes in: a reserved number, or an event in the
    /// past (a model bug that only a debug build catches). Such an event goes in front of
    /// the run, and [`EventQueue::insert_first`] then clears the hint (an independent review
    /// found an event in the past lost before it did, issue 14). Nodes of the current slot
    /// leave the run otherwise only all at once ([`EventQueue::run_to_near`], which clears
    /// it too).
    #[inline(always)]
    fn pending_hint(&self, h: u32) -> bool {
        h != NIL
            && slot_of(self.nodes[h as usize].time) <= self.cur
            && self.key(h) >= self.key(self.run)
    }

    /// Puts `e` in front of the run: the run's first node takes `e`, and a new node after it
    /// what it held. Unless `e` is the newest event, at `now` or later, its key may be below
    /// popped ones, so the hint is cleared ([`EventQueue::pending_hint`]).
    fn insert_first(&mut self, e: Entry<E>) {
        if e.time < self.now || e.seq + 1 != self.next_seq {
            self.run_hint = NIL;
        }
        let r = self.run;
        let old = self.nodes[r as usize];
        let j = self.new_node(old.time, old.seq, old.event, old.next);
        self.nodes[r as usize] = Node::new(e, j);
        if r == self.run_last {
            self.run_last = j;
        }
    }

    /// Sorts the events of a bucket being taken, the sorted list from `first` (the newest)
    /// and the list `rest` (not empty: the nodes not yet taken, the bucket's
    /// oldest, newest first), into one list; returns its first and last nodes and its
    /// length. The nodes are put in order in `order` and relinked in that order, so the
    /// slot is a run that events scheduled into it join in place (issue 14: in `near` each
    /// such event moved the ones after it). `order` gets `rest` reversed, oldest first, then
    /// the sorted list, so that it is in scheduling order: events of one time, which
    /// scheduling order already sorts (thousands of ABR sources in step), then form one
    /// ascending run, which the sort only checks (issue 14: in the reverse order it sorted
    /// them in full, 5 % of a 10 000-VC KVR run).
    ///
    /// A long bucket is spread by the top bits of its times' offsets in the slot into `SUB`
    /// sub-slots, keeping that order in each, and each sub-slot is sorted: about linear,
    /// where one sort of the whole was a fifth of the instructions of a 10 000-VC ABR run.
    /// Only the nodes' indices are sorted, 4 bytes each: copies of the events, 32 bytes
    /// each, in `near` and a second vector of them were about 300 bytes per VC of the ERICA
    /// rows' memory at 10 000 VCs (docs/performance-journal.md, thirty-seventh session).
    #[cold]
    fn sort_bucket_list(&mut self, first: u32, rest: u32) -> (u32, u32, usize) {
        const SUB_BITS: u32 = 8;
        const SUB: usize = 1 << SUB_BITS;
        let sub = |t: Time| ((t >> (SLOT_SHIFT - SUB_BITS)) as usize) & (SUB - 1);
        // Per sub-slot: nodes of `rest`, of the sorted list.
        let nodes = &self.nodes;
        let mut counts = [[0usize; 2]; SUB];
        for (list, from) in [(0, rest), (1, first)] {
            for (_, t) in list_of(nodes, from) {
                counts[sub(t)][list] += 1;
            }
        }
        let totals = counts.iter().fold([0, 0], |[r, l], c| [r + c[0], l + c[1]]);
        let n = totals[0] + totals[1];
        // A short bucket is one sub-slot.
        let long = n > SUB / 2;
        if !long {
            counts = [[0; 2]; SUB];
            counts[0] = totals;
        }
        let slot = |t: Time| if long { sub(t) } else { 0 };
        // Sub-slot k is order[bounds[k]..bounds[k + 1]]: `rest`'s nodes from the back of
        // their part (oldest first), then the sorted list's.
        let mut bounds = [0usize; SUB + 1];
        let (mut rest_at, mut list_at) = ([0usize; SUB], [0usize; SUB]);
        for k in 0..SUB {
            rest_at[k] = bounds[k] + counts[k][0];
            list_at[k] = rest_at[k];
            bounds[k + 1] = rest_at[k] + counts[k][1];
        }
        self.order.clear();
        self.order.resize(n, NIL);
        for (i, t) in list_of(nodes, rest) {
            let k = slot(t);
            rest_at[k] -= 1;
            self.order[rest_at[k]] = i;
        }
        for (i, t) in list_of(nodes, first) {
            let k = slot(t);
            self.order[list_at[k]] = i;
            list_at[k] += 1;
        }
        for k in 0..if long { SUB } else { 1 } {
            self.order[bounds[k]..bounds[k + 1]].sort_unstable_by_key(|&i| {
                let node = &nodes[i as usize];
                key(node.time, node.seq)
            });
        }
        for w in self.order.windows(2) {
            self.nodes[w[0] as usize].next = w[1];
        }
        let (head, tail) = (self.order[0], self.order[n - 1]);
        self.nodes[tail as usize].next = NIL;
        self.order.clear();
        (head, tail, n)
    }

    /// Appends the events of the list from `i` to `near`; returns its last node.
    fn copy_to_near(&mut self, mut i: u32) -> u32 {
        let mut last = NIL;
        while i != NIL {
            let node = &self.nodes[i as usize];
            self.near.push(node.entry());
            last = i;
            i = node.next;
        }
        last
    }

    /// Moves the run's pending events into `near` (which then holds nothing else), in
    /// order, and gives its nodes back.
    #[cold]
    fn run_to_near(&mut self) {
        self.near.clear();
        self.head = 0;
        self.run_hint = NIL;
        let first = self.run;
        self.copy_to_near(first);
        self.nodes[self.run_last as usize].next = self.free;
        self.free = first;
        self.run = NIL;
        self.run_last = NIL;
    }

    /// Calls `f(k, event)` for the `k`-th earliest pending event, `k < K`, as far as they
    /// are in the current slot, without moving to the next slot: after a pop, usually the
    /// events that will run next (a handler may schedule one before them). For cache hints
    /// only ([`crate::prefetch`]): it says nothing certain about the queue. Also names the
    /// node after them to the cache, so that the next look ahead does not wait for memory.
    #[inline(always)]
    pub fn peek_near<const K: usize>(&self, mut f: impl FnMut(usize, E)) {
        if self.run != NIL {
            let mut i = self.run as usize;
            for k in 0..K {
                let Some(n) = self.nodes.get(i) else { return };
                f(k, n.event);
                i = n.next as usize;
            }
            if i != NIL as usize {
                crate::prefetch::prefetch(self.nodes.as_ptr().wrapping_add(i));
            }
            return;
        }
        for (k, e) in self.near.iter().skip(self.head).take(K).enumerate() {
            f(k, e.event);
        }
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        if self.run != NIL {
            return Some(self.nodes[self.run as usize].time);
        }
        if let Some(e) = self.near.get(self.head) {
            return Some(e.time);
        }
        match self.next_wheel_slot() {
            Some(s) => {
                let mut i = self.heads[(s & MASK) as usize];
                let mut min = Time::MAX;
                while i != NIL {
                    min = min.min(self.nodes[i as usize].time);
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

    /// Number of pending events (every scheduled one is popped once; a reserved number
    /// counts until it is scheduled and popped, or given up).
    pub fn len(&self) -> usize {
        (self.next_seq - self.popped - self.forgone) as usize
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
            + (self.near.capacity() + self.overflow.capacity()) * entry
            + self.order.capacity() * std::mem::size_of::<u32>()
            + (SLOTS + self.stragglers.capacity()) * std::mem::size_of::<u32>()
    }
}

#[cfg(test)]
#[path = "queue_tests.rs"]
mod tests;
