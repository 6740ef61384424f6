//! A hint to the processor that a line will be read soon (issue 14: at 10 000 VCs the state
//! an event touches is rarely in cache; the run loop names the lines of the next event while
//! the current one runs, so that their misses overlap with its work).
//!
//! A prefetch has no effect a program can observe but time: it never faults, whatever the
//! address (a dangling, misaligned or null one included), reads nothing into a register and
//! writes nothing. Results cannot depend on it.

/// Asks for the cache line holding `p` to be brought into the first-level cache. Any
/// pointer may be given; on processors other than x86-64 (with SSE) this does nothing.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    // SAFETY: PREFETCHT0 is a hint: it does not fault on any address and has no
    // architectural effect (Intel SDM vol. 2B, "PREFETCHh"; AMD APM vol. 3). SSE, which it
    // needs, is part of the x86-64 baseline.
    #[allow(unsafe_code)]
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::prefetch;

    #[test]
    fn any_address_is_a_harmless_hint() {
        let v = [7u64; 16];
        prefetch(v.as_ptr());
        prefetch(v.as_ptr().wrapping_add(1 << 40));
        prefetch(std::ptr::null::<u64>());
        assert_eq!(v, [7u64; 16]);
    }
}
