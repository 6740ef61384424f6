//! A first-in first-out ring of `Copy` values.
//!
//! The per-cell queues of the engine (a port's class queues, a link's delay line) push at
//! the back and pop at the front once per cell-hop. The ring doubles its capacity when full
//! (out of line), so it is a power of two and an index wraps with a mask. A bounded ring
//! ([`BoundedFifo`], `Fifo<T, true>`) may stop growing below the next power of two
//! ([`Fifo::push_back_within`]: a port's class queue never holds more cells than its buffer
//! does, so a buffer of 36 000 cells needs a ring of 36 000, not 65 536; issue 14, memory
//! per VC, docs/performance-journal.md, "Heap blocks that fit, and queues no larger than
//! their buffer, forty-seventh session"), and its index wraps with a
//! compare: 1.3 % more instructions on `atmsim bench` when every ring did, so only the
//! class queues do. Like `VecDeque`, the ring keeps its capacity: no allocation per cell
//! once it has held its largest backlog; and like it, it grows by reallocating its storage
//! (a bounded ring past [`JUMP_TO_BOUND_BYTES`] to its bound at once), so that a grown
//! ring seldom leaves a freed block behind in the heap. It is 24 bytes (a boxed slice and two 32-bit
//! indices; `VecDeque` is 32), which counts at one delay line and four class queues per
//! port (issue 14, memory per VC).

/// The storage past which a bounded ring ([`Fifo::push_back_within`]) grows to its bound in
/// one step instead of doubling. Each step's old block is freed where it lay in the heap,
/// where the allocator seldom reuses a block that large: a port's class queue doubling from
/// 4 096 to its 36 000-cell bound freed 960 KB, resident to the end of the run, and three
/// trunks of the UBR parking-lot row at 10 000 VCs held 870 KB free at its end even grown by
/// reallocation (issue 14, memory per VC; docs/performance-journal.md, fifty-third session).
/// A queue that grows past this (64 KB: 4 096 cells) is a bottleneck's, whose buffer fills.
/// Only bounds of at most [`JUMP_BOUNDS_UP_TO_BYTES`] are taken at once (an unlimited
/// buffer's bound is 2^32 - 1 cells).
pub const JUMP_TO_BOUND_BYTES: usize = 64 << 10;

/// The largest bound a ring takes in one step ([`JUMP_TO_BOUND_BYTES`]): 1 MiB, a buffer of
/// 65 536 cells; a larger one doubles as before.
pub const JUMP_BOUNDS_UP_TO_BYTES: usize = 1 << 20;

/// A FIFO ring. Slots not holding a value hold `T::default()` or a value popped. `BOUNDED`:
/// its capacity may be any size ([`Fifo::push_back_within`]), else a power of two.
#[derive(Clone, Debug)]
pub struct Fifo<T, const BOUNDED: bool = false> {
    buf: Box<[T]>,
    head: u32,
    len: u32,
}

/// A ring whose growth may stop at a bound ([`Fifo::push_back_within`]; its `push_back`,
/// `push_front` and `reserve` grow as a ring that is not bounded does, to a power of two).
pub type BoundedFifo<T> = Fifo<T, true>;

impl<T: Copy + Default, const BOUNDED: bool> Default for Fifo<T, BOUNDED> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + Default, const BOUNDED: bool> Fifo<T, BOUNDED> {
    /// An empty ring (allocates on the first push).
    pub fn new() -> Self {
        Fifo {
            buf: Box::new([]),
            head: 0,
            len: 0,
        }
    }

    /// Values held.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when nothing is held.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Values the ring holds before it grows.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Slot `i` of the storage, for `i` below twice its length: an index past the end
    /// wraps to the front (with a mask unless `BOUNDED`).
    #[inline(always)]
    fn wrap(&self, i: usize) -> usize {
        let cap = self.buf.len();
        if !BOUNDED {
            i & cap.wrapping_sub(1)
        } else if i >= cap {
            i - cap
        } else {
            i
        }
    }

    /// Appends `x` at the back.
    #[inline(always)]
    pub fn push_back(&mut self, x: T) {
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        self.put_back(x);
    }

    /// Appends `x` at the back; when full, a bounded ring grows to at most `bound` values
    /// (at least one more than it holds): for a queue that never holds more than `bound`.
    /// (A ring that is not bounded doubles, as [`Fifo::push_back`].)
    #[inline(always)]
    pub fn push_back_within(&mut self, x: T, bound: u32) {
        if self.len as usize == self.buf.len() {
            self.grow_within(bound);
        }
        self.put_back(x);
    }

    /// Writes `x` after the back value (there is room).
    #[inline(always)]
    fn put_back(&mut self, x: T) {
        let i = self.wrap(self.head as usize + self.len as usize);
        self.buf[i] = x;
        self.len += 1;
    }

    /// Removes and returns the front value.
    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let x = self.buf[self.head as usize];
        self.head = self.wrap(self.head as usize + 1) as u32;
        self.len -= 1;
        Some(x)
    }

    /// Where the front element is or would be, for a cache hint ([`crate::prefetch`]);
    /// never read through.
    #[inline(always)]
    pub fn front_ptr(&self) -> *const T {
        self.buf.as_ptr().wrapping_add(self.head as usize)
    }

    /// Where the next element pushed goes, if it fits without growing, for a cache hint
    /// ([`crate::prefetch`]); never read through.
    #[inline(always)]
    pub fn back_slot_ptr(&self) -> *const T {
        self.buf
            .as_ptr()
            .wrapping_add(self.wrap(self.head as usize + self.len as usize))
    }

    /// The front value.
    #[inline]
    pub fn front(&self) -> Option<&T> {
        if self.len == 0 {
            return None;
        }
        Some(&self.buf[self.head as usize])
    }

    /// The back value.
    #[inline]
    pub fn back(&self) -> Option<&T> {
        if self.len == 0 {
            return None;
        }
        Some(&self.buf[self.wrap(self.head as usize + self.len as usize - 1)])
    }

    /// The front value, to change in place.
    #[inline]
    pub fn front_mut(&mut self) -> Option<&mut T> {
        if self.len == 0 {
            return None;
        }
        Some(&mut self.buf[self.head as usize])
    }

    /// The back value, to change in place.
    #[inline]
    pub fn back_mut(&mut self) -> Option<&mut T> {
        if self.len == 0 {
            return None;
        }
        let i = self.wrap(self.head as usize + self.len as usize - 1);
        Some(&mut self.buf[i])
    }

    /// Puts `x` at the front.
    #[inline(always)]
    pub fn push_front(&mut self, x: T) {
        if self.len as usize == self.buf.len() {
            self.grow();
        }
        self.head = self.wrap(self.head as usize + self.buf.len() - 1) as u32;
        self.buf[self.head as usize] = x;
        self.len += 1;
    }

    /// The storage, the slot of the front value and the number of values held: for a
    /// caller that keeps records of several slots in place (a link's delay line holds a run
    /// of cells in two). The `i`-th value from the front is in slot `(front + i) &
    /// (storage.len() - 1)` (a ring that is not bounded); the storage is empty until the
    /// first push.
    #[inline(always)]
    pub fn slots_mut(&mut self) -> (&mut [T], usize, usize) {
        debug_assert!(!BOUNDED, "slots_mut needs a power-of-two capacity");
        (&mut self.buf, self.head as usize, self.len as usize)
    }

    /// The `i`-th value from the front.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        if i >= self.len as usize {
            return None;
        }
        Some(&self.buf[self.wrap(self.head as usize + i)])
    }

    /// The values, front to back.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len as usize).map(move |i| &self.buf[self.wrap(self.head as usize + i)])
    }

    /// Doubles the capacity (from 1: a ring that only ever holds one value, like the
    /// queue of a port carrying ACKs one at a time, keeps one slot; issue 14, memory per
    /// VC), moving the values to the front of the new storage.
    /// A ring holds at most 2^31 values (48 GiB of cells, far beyond what a run's memory
    /// estimate lets start).
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        self.grow_to((self.buf.len() * 2).max(1));
    }

    /// Doubles the capacity as [`Fifo::grow`] does, but to at most `bound` values (and at
    /// least one more than it holds); a ring past [`JUMP_TO_BOUND_BYTES`] goes to its bound
    /// at once if that is at most [`JUMP_BOUNDS_UP_TO_BYTES`].
    #[cold]
    #[inline(never)]
    fn grow_within(&mut self, bound: u32) {
        if !BOUNDED {
            return self.grow();
        }
        let doubled = (self.buf.len() * 2).max(1);
        let most = (bound as usize).max(self.len as usize + 1);
        let size = std::mem::size_of::<T>();
        if doubled * size > JUMP_TO_BOUND_BYTES && most * size <= JUMP_BOUNDS_UP_TO_BYTES {
            self.grow_to(most);
        } else {
            self.grow_to(doubled.min(most));
        }
    }

    /// Makes room for `total` values in all, if the ring has less: its capacity becomes the
    /// power of two at or above `total` in one step, the capacity the doubling of
    /// [`Fifo::push_back`] reaches once the ring holds `total` values, without the steps
    /// between (issue 14: at 10 000 VCs each host's line grew 1, 2, 4, 8, 16 with the first
    /// segment, an allocation and a copy each).
    pub fn reserve(&mut self, total: usize) {
        if total > self.buf.len() {
            self.grow_to(total.next_power_of_two());
        }
    }

    /// Gives the ring `cap` slots (at least the length; a power of two unless `BOUNDED`),
    /// its storage grown where it lies if the allocator can (a reallocation, as `VecDeque`
    /// grows: a block of its own mapping or at the heap's end extends without a copy), the
    /// values that had wrapped past the old end moved after it (or, past the new end, to the
    /// front). A new block and a copy, as before, left each old block free inside the heap:
    /// a 36 000-cell class queue grown from 4 096 cells left 960 KB there, resident to the
    /// end of the run (issue 14, memory per VC: about 100 bytes per VC of the UBR row at
    /// 10 000 VCs; docs/performance-journal.md, fifty-third session).
    fn grow_to(&mut self, cap: usize) {
        debug_assert!(cap >= self.len as usize && (BOUNDED || cap.is_power_of_two()));
        assert!(
            cap <= 1 << 31,
            "a FIFO ring cannot hold more than 2^31 values"
        );
        let old = self.buf.len();
        let (head, len) = (self.head as usize, self.len as usize);
        let mut buf = std::mem::take(&mut self.buf).into_vec();
        buf.reserve_exact(cap - old);
        buf.resize(cap, T::default());
        // The values at [0, wrapped) follow those at [head, old): the first `room` of them go
        // to [old, cap), the rest to the front; the slots they leave hold the default.
        let wrapped = (head + len).saturating_sub(old);
        let moved = wrapped.min(cap - old);
        buf.copy_within(0..moved, old);
        buf.copy_within(moved..wrapped, 0);
        buf[wrapped - moved..wrapped].fill(T::default());
        crate::memory::count_growth((cap * std::mem::size_of::<T>()) as u64);
        self.buf = buf.into_boxed_slice();
    }
}

#[cfg(test)]
mod tests {
    use super::{BoundedFifo, Fifo};
    use std::collections::VecDeque;

    /// `push_front`, `get` and `slots_mut` do what `VecDeque` does, wrapped or not.
    #[test]
    fn slots_and_get_match_a_deque() {
        let (mut a, mut b) = (Fifo::<_>::new(), VecDeque::new());
        for i in 0..200u32 {
            match i % 4 {
                0 | 3 => {
                    a.push_back(i);
                    b.push_back(i);
                }
                1 => assert_eq!(a.pop_front(), b.pop_front()),
                2 if i % 8 == 2 => {
                    a.push_front(i);
                    b.push_front(i);
                }
                _ => {
                    let (slots, front, len) = a.slots_mut();
                    assert_eq!(len, b.len());
                    if len > 0 {
                        let mask = slots.len() - 1;
                        slots[(front + len - 1) & mask] += 1000;
                        slots[front] += 10_000;
                        *b.back_mut().unwrap() += 1000;
                        *b.front_mut().unwrap() += 10_000;
                    }
                }
            }
            assert_eq!(a.len(), b.len());
            for k in 0..=b.len() {
                assert_eq!(a.get(k), b.get(k));
            }
        }
    }

    /// A ring grown within a bound stops there (a capacity that is not a power of two) and
    /// still does what `VecDeque` does, wrapped or not, at the back and at the front; past
    /// the bound it grows by one at least.
    #[test]
    fn a_bounded_ring_stops_at_its_bound_and_wraps() {
        for bound in [1u32, 3, 5, 6, 7, 12, 36] {
            let (mut a, mut b) = (BoundedFifo::new(), VecDeque::new());
            let mut x = 0u32;
            for step in 0..400u32 {
                if b.len() < bound as usize && step % 5 != 4 {
                    a.push_back_within(x, bound);
                    b.push_back(x);
                } else if step % 7 == 3 && b.len() < bound as usize {
                    a.push_front(x);
                    b.push_front(x);
                } else {
                    assert_eq!(a.pop_front(), b.pop_front());
                }
                x += 1;
                assert!(
                    a.capacity() <= bound as usize,
                    "bound {bound}: {}",
                    a.capacity()
                );
                assert_eq!(a.len(), b.len());
                assert_eq!(a.front(), b.front());
                assert_eq!(a.back(), b.back());
                assert_eq!(a.iter().collect::<Vec<_>>(), b.iter().collect::<Vec<_>>());
            }
            assert!(a.capacity() >= b.len());
            // Full at the bound, one more value grows the ring by at least one.
            while b.len() < bound as usize {
                a.push_back_within(x, bound);
                b.push_back(x);
                x += 1;
            }
            a.push_back_within(x, bound);
            b.push_back(x);
            assert!(a.capacity() > bound as usize);
            assert_eq!(a.iter().collect::<Vec<_>>(), b.iter().collect::<Vec<_>>());
        }
        // Doubling up to the bound: 1, 2, 4, 8, 16, 32, then 36 (not 64); a ring that is
        // not bounded goes on to 64.
        let (mut a, mut p) = (BoundedFifo::new(), Fifo::<_>::new());
        let mut caps = vec![];
        for i in 0..36u32 {
            a.push_back_within(i, 36);
            p.push_back_within(i, 36);
            if caps.last() != Some(&a.capacity()) {
                caps.push(a.capacity());
            }
        }
        assert_eq!(caps, [1, 2, 4, 8, 16, 32, 36]);
        assert_eq!(p.capacity(), 64);
    }

    /// A bounded ring of 16-byte values doubles to 4 096 (64 KB), then takes its bound in
    /// one step; its values stay in order across the steps, wrapped or not.
    #[test]
    fn a_large_bounded_ring_goes_to_its_bound_in_one_step() {
        let (mut a, mut b) = (BoundedFifo::<u128>::new(), VecDeque::new());
        let mut caps = vec![];
        let mut x = 0u128;
        while b.len() < 36_000 {
            a.push_back_within(x, 36_000);
            b.push_back(x);
            if x % 3 == 2 {
                assert_eq!(a.pop_front(), b.pop_front());
            }
            x += 1;
            if caps.last() != Some(&a.capacity()) {
                caps.push(a.capacity());
                assert_eq!(a.iter().collect::<Vec<_>>(), b.iter().collect::<Vec<_>>());
            }
        }
        let doubling: Vec<usize> = (0..=12).map(|k| 1 << k).collect();
        assert_eq!(caps, [doubling, vec![36_000]].concat());
        assert_eq!(a.iter().collect::<Vec<_>>(), b.iter().collect::<Vec<_>>());
        // A bound past JUMP_BOUNDS_UP_TO_BYTES (an unlimited buffer's) is not taken at once.
        let mut u = BoundedFifo::<u128>::new();
        for i in 0..5000u128 {
            u.push_back_within(i, u32::MAX);
        }
        assert_eq!(u.capacity(), 8192);
        // Full at its bound, one more value grows it by one, as a small ring does.
        a.push_back_within(x, 36_000);
        b.push_back(x);
        assert_eq!(a.capacity(), 36_001);
        assert_eq!(a.iter().collect::<Vec<_>>(), b.iter().collect::<Vec<_>>());
    }

    /// `reserve` takes the capacity the doubling would reach, in one step, and keeps the
    /// values and their order, wrapped or not.
    #[test]
    fn reserve_is_the_doubling_in_one_step() {
        for (held, popped, total) in [
            (0, 0, 0),
            (0, 0, 1),
            (0, 0, 12),
            (3, 0, 12),
            (5, 3, 9),
            (6, 2, 4),
        ] {
            let (mut a, mut b) = (Fifo::<_>::new(), Fifo::<_>::new());
            for i in 0..held {
                a.push_back(i);
                b.push_back(i);
            }
            for _ in 0..popped {
                a.pop_front();
                b.pop_front();
                a.push_back(99);
                b.push_back(99);
            }
            a.reserve(total);
            let before = a.capacity();
            for i in 0..total.saturating_sub(held) {
                b.push_back(100 + i);
                a.push_back(100 + i);
            }
            assert_eq!(a.capacity(), before, "no growth after reserving");
            assert_eq!(a.capacity(), b.capacity().max(before));
            assert_eq!(a.iter().collect::<Vec<_>>(), b.iter().collect::<Vec<_>>());
        }
    }

    /// The hints' addresses are those of the front element and of the next push (when it
    /// does not grow the ring), through wrap-around.
    #[test]
    fn hint_pointers_name_the_front_and_the_next_slot() {
        let mut f = Fifo::<_>::new();
        for i in 0..100u32 {
            let slot = f.back_slot_ptr();
            let grows = f.len() == f.capacity();
            f.push_back(i);
            if !grows {
                assert!(std::ptr::eq(slot, f.back().unwrap()), "push {i}");
            }
            if i % 3 == 0 {
                f.pop_front();
            }
            if let Some(front) = f.front() {
                assert!(std::ptr::eq(f.front_ptr(), front));
            }
        }
    }

    #[test]
    fn empty_ring_pops_nothing() {
        let mut f: Fifo<u32> = Fifo::<_>::new();
        assert_eq!(f.pop_front(), None);
        assert_eq!(
            (f.front(), f.back(), f.len(), f.capacity()),
            (None, None, 0, 0)
        );
    }

    #[test]
    fn same_order_as_vecdeque_across_wraps_and_growth() {
        // A scripted mix of pushes and pops that wraps the ring and makes it grow while
        // wrapped; every pop, front, back and length equals VecDeque's.
        let mut f: Fifo<u64> = Fifo::<_>::new();
        let mut v: VecDeque<u64> = VecDeque::new();
        let mut x: u64 = 88172645463325252;
        for step in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let push = x % 5 < if step < 10_000 { 3 } else { 2 };
            if push {
                f.push_back(step);
                v.push_back(step);
            } else {
                assert_eq!(f.pop_front(), v.pop_front());
            }
            assert_eq!(f.len(), v.len());
            assert_eq!(f.front(), v.front());
            assert_eq!(f.back(), v.back());
            assert_eq!(f.front_mut(), v.front_mut());
            assert_eq!(f.back_mut(), v.back_mut());
            if step % 7 == 0 {
                if let (Some(a), Some(b)) = (f.back_mut(), v.back_mut()) {
                    *a += 1_000_000;
                    *b += 1_000_000;
                }
            }
            assert!(f.capacity().is_power_of_two());
        }
        assert!(f.iter().eq(v.iter()));
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn is_24_bytes() {
        assert_eq!(std::mem::size_of::<Fifo<(u64, [u8; 24])>>(), 24);
    }

    #[test]
    fn keeps_its_capacity() {
        let mut f: Fifo<u8> = Fifo::<_>::new();
        for i in 0..100 {
            f.push_back(i);
        }
        let cap = f.capacity();
        assert_eq!(cap, 128);
        while f.pop_front().is_some() {}
        for i in 0..100 {
            f.push_back(i);
        }
        assert_eq!(f.capacity(), cap);
    }

    #[test]
    fn counts_the_bytes_its_growth_takes() {
        let before = crate::memory::grown();
        let mut f: Fifo<u64> = Fifo::<_>::new();
        for i in 0..100 {
            f.push_back(i);
        }
        // Rings of 1, 2, 4, ..., 128 slots of 8 bytes, each counted in full: 255 x 8 bytes.
        assert_eq!(crate::memory::grown() - before, 255 * 8);
        while f.pop_front().is_some() {}
        for i in 0..100 {
            f.push_back(i);
        }
        assert_eq!(
            crate::memory::grown() - before,
            255 * 8,
            "no growth, no count"
        );
    }
}
