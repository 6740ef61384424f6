//! What the `allocator` trace reads from a port's allocator: each algorithm's natural
//! quantities, mapped onto the trace's shared columns (NaN where an algorithm has no such
//! quantity). Read only: tracing never changes an allocator.

use crate::allocator::AnyAllocator;

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
    /// The view of `a` (None for an allocator with no rate state: none, EFCI).
    pub fn of(a: &AnyAllocator) -> Option<AllocatorView> {
        let nan = f64::NAN;
        let m = MBPS_PER_CELL_RATE;
        let mut v = AllocatorView {
            z: nan,
            fair_share: nan,
            max_alloc_previous: nan,
            abr_capacity: nan,
            active_vcs: nan,
            queue_factor: nan,
            bottlenecked_vcs: nan,
            free: nan,
            mcr_sum: nan,
        };
        match a {
            AnyAllocator::Erica(e)
            | AnyAllocator::ModifiedErica(e)
            | AnyAllocator::EricaPlus(e) => {
                let s = &e.st;
                v.z = s.z;
                v.fair_share = s.fair_share * m;
                v.max_alloc_previous = s.max_alloc_previous * m;
                v.abr_capacity = s.abr_cap * m;
                v.active_vcs = s.n_active;
                v.queue_factor = s.queue_factor;
            }
            AnyAllocator::Kvr(k) => {
                let (n, nb) = k.counts();
                v.fair_share = k.equal_share() * m;
                v.max_alloc_previous = k.max_allocation() * m;
                v.abr_capacity = k.available() * m;
                v.active_vcs = n as f64;
                v.bottlenecked_vcs = nb as f64;
                v.free = k.free_bandwidth() * m;
            }
            AnyAllocator::Gw(g) => {
                let s = &g.st;
                v.z = s.z;
                v.max_alloc_previous = s.wt_max_prev * m;
                v.abr_capacity = s.abr_cap * m;
                v.mcr_sum = s.mu * m;
            }
            AnyAllocator::None(_) | AnyAllocator::Efci(_) => return None,
        }
        Some(v)
    }

    /// Whether the allocator gives its feedback on forward RM cells (KVR) rather than
    /// backward ones.
    pub fn on_forward_rm(a: &AnyAllocator) -> bool {
        matches!(a, AnyAllocator::Kvr(_))
    }
}

/// Cells/s to Mb/s.
#[inline]
pub fn mbps(cells_per_s: f64) -> f64 {
    cells_per_s * MBPS_PER_CELL_RATE
}
