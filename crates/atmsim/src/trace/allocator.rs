//! What the `allocator` trace reads from a port's allocator: each algorithm's natural
//! quantities, mapped onto the trace's shared columns (NaN where an algorithm has no such
//! quantity). Each algorithm maps its own, in its file
//! ([`crate::allocator::RateAllocator::trace_view`]): a new allocator adds no line here.
//! Read only: tracing never changes an allocator.

use crate::allocator::{AnyAllocator, RateAllocator};

/// Bits per cell: cells/s to Mb/s.
const MBPS_PER_CELL_RATE: f64 = 424.0 / 1e6;

/// An allocator's state as the trace shows it. Rates in Mb/s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AllocatorView {
    /// ERICA family: z; GW: the overload factor of the excess.
    pub z: f64,
    /// ERICA: FairShare; KVR: B_eq.
    pub fair_share: f64,
    /// ERICA: MaxAllocPrevious; KVR: MaxAllocation; GW: WtMaxAllocPrevious.
    pub max_alloc_previous: f64,
    /// ERICA/GW: the target ABR capacity; KVR: B.
    pub abr_capacity: f64,
    /// ERICA: active VCs; KVR: N.
    pub active_vcs: f64,
    /// ERICA+: f(Tq).
    pub queue_factor: f64,
    /// KVR: N_b.
    pub bottlenecked_vcs: f64,
    /// KVR: B_f.
    pub free: f64,
    /// GW: the sum of the active VCs' MCRs.
    pub mcr_sum: f64,
}

impl AllocatorView {
    /// Every quantity unknown (NaN): an allocator's [`RateAllocator::trace_view`] sets
    /// those it has.
    pub fn unknown() -> AllocatorView {
        let nan = f64::NAN;
        AllocatorView {
            z: nan,
            fair_share: nan,
            max_alloc_previous: nan,
            abr_capacity: nan,
            active_vcs: nan,
            queue_factor: nan,
            bottlenecked_vcs: nan,
            free: nan,
            mcr_sum: nan,
        }
    }

    /// The view of `a` (None for an allocator with no rate state: none, EFCI), as its
    /// algorithm gives it ([`RateAllocator::trace_view`], in the algorithm's own file).
    pub fn of(a: &AnyAllocator) -> Option<AllocatorView> {
        a.trace_view()
    }

    /// Whether the allocator gives its feedback on forward RM cells (KVR) rather than
    /// backward ones ([`RateAllocator::feedback_on_forward_rm`]).
    pub fn on_forward_rm(a: &AnyAllocator) -> bool {
        a.feedback_on_forward_rm()
    }
}

/// Cells/s to Mb/s.
#[inline]
pub fn mbps(cells_per_s: f64) -> f64 {
    cells_per_s * MBPS_PER_CELL_RATE
}
