//! ERICA, the Explicit Rate Indication for Congestion Avoidance switch algorithm, with
//! every option of seed 003 section 4 (spec ALGORITHMS.md section 2; DISS appendix C),
//! and ERICA+ (seed 003 4.4, spec 3) when [`EricaCfg::plus`] is set.
//!
//! Per output port. Over an averaging interval (ends after `interval_cells` ABR cells or
//! `interval_time`, whichever comes first; spec 2.3) it counts the ABR cells entering the
//! port, the VBR/CBR cells, and the active VCs. At the end of the interval (spec 2.5):
//!
//! ```text
//! ABRCap    = max(U * LinkRate * dt - VBRCBRCells, 0) / dt     (ERICA+: f(Tq) * (LinkRate*dt - VBRCBRCells) / dt)
//! z         = ABRInputRate / ABRCap                             (load factor, optionally averaged)
//! FairShare = ABRCap / NActive
//! MaxAllocPrevious = MaxAllocCurrent; MaxAllocCurrent = FairShare
//! ```
//!
//! On each backward RM cell of VC i (spec 2.6; seed 003 4.1-4.3):
//!
//! ```text
//! VCShare = CCR_i / z
//! ER = max(FairShare, VCShare)                                  if z > 1 + delta or max-min off
//! ER = max(FairShare, VCShare, MaxAllocPrevious)                otherwise (max-min enhancement, 4.2)
//! MaxAllocCurrent = max(MaxAllocCurrent, ER)
//! if CCR_i < FairShare and ER > FairShare: ER = FairShare       (fair share first, 4.3)
//! ER = min(ER, ABRCap); ER field = min(ER field, ER)
//! ```
//!
//! Options: bidirectional counting (a VC counts as active when its backward RM cell
//! passes), averaging of the number of sources (decayed contributions), immediate
//! fair-share update, per-VC CCR measurement (count cells per VC instead of reading CCR
//! from forward RM cells), load-factor averaging (of z, or of the counts), one ER per VC
//! per interval (repeat the last one), counting backward RM cells as input.
//! Rates are cells/s.

use super::erica_plus::QueueControl;
use super::{AllocatorView, RateAllocator};
use crate::cell::{flag, Cell, ServiceClass};
use crate::port::VcSlots;
use crate::trace::mbps;
use crate::vc_table::VcTable;
use atmsim_kernel::{time, LatestTimer, Time};
use std::sync::Arc;

/// How the load factor is averaged across intervals (spec 2.5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoadAvg {
    /// z of the last interval only.
    None,
    /// z <- (1 - alpha) z + alpha z_new ("method 1").
    Ratio(f64),
    /// Average ABR cells, capacity and interval length separately ("method 2").
    Counts(f64),
}

/// ERICA / ERICA+ configuration (resolved; see the scenario schema for the defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct EricaCfg {
    /// Target utilization U (ERICA; ignored by ERICA+).
    pub target_utilization: f64,
    /// Interval ends after this many ABR cells...
    pub interval_cells: u32,
    /// ...or this much time.
    pub interval_time: Time,
    /// Max-min enhancement band delta (None: enhancement off).
    pub max_min_delta: Option<f64>,
    /// Fair share first.
    pub fair_share_first: bool,
    /// Bidirectional counting of active VCs.
    pub bidirectional_counting: bool,
    /// Decay factor of source averaging (None: off).
    pub source_averaging: Option<f64>,
    /// Immediate fair-share update when a new VC appears.
    pub immediate_fair_share: bool,
    /// Per-VC CCR measurement.
    pub per_vc_ccr: bool,
    /// Load-factor averaging.
    pub load_averaging: LoadAvg,
    /// One ER per VC per interval.
    pub one_er_per_interval: bool,
    /// Count backward RM cells entering the port as ABR input.
    pub count_backward_rm: bool,
    /// ERICA+ queue control (None: plain ERICA).
    pub plus: Option<QueueControl>,
}

impl EricaCfg {
    /// Plain ERICA with the spec's defaults ([`EricaCfg::default`], the one place they are
    /// written) and target utilization `u`.
    pub fn erica(u: f64) -> EricaCfg {
        EricaCfg {
            target_utilization: u,
            ..EricaCfg::default()
        }
    }
}

/// Relative tolerance of the fair-share-first test "CCR < FairShare". CCR travels in the
/// RM cell as an f32 (relative precision 6e-8): a VC sent exactly FairShare comes back
/// with a CCR a rounding step below it and must not count as "below FairShare", or it is
/// held at FairShare for ever.
pub const CCR_TOLERANCE: f64 = 1e-6;

#[derive(Clone, Copy, Debug, Default)]
struct Vc {
    seen_this: bool,
    seen_last: bool,
    contribution: f64,
    seen_brm_this: bool,
    last_er: f64,
    ccr: f64,
    cell_count: u32,
    /// To be visited at the next interval end (in [`Erica::touched`] where there is one).
    listed: bool,
}

impl Vc {
    /// What the end of an interval does to a VC (spec 2.5), all but source averaging.
    #[inline]
    fn end_interval(&mut self, per_vc_ccr: bool, dt: f64) {
        if per_vc_ccr {
            self.ccr = self.cell_count as f64 / dt;
            self.cell_count = 0;
        }
        self.seen_last = self.seen_this;
        self.seen_this = false;
        self.seen_brm_this = false;
    }

    /// True if the end of an interval leaves the VC as it is (it was not seen in this
    /// interval nor the last, and has no measured CCR): the interval need not visit it.
    #[inline]
    fn idle(&self, per_vc_ccr: bool) -> bool {
        !self.seen_this
            && !self.seen_last
            && !self.seen_brm_this
            && (!per_vc_ccr || (self.cell_count == 0 && self.ccr == 0.0))
    }
}

/// Values of the last completed interval, for inspection and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EricaState {
    /// Load factor z.
    pub z: f64,
    /// ABR capacity, cells/s (target ABR capacity).
    pub abr_cap: f64,
    /// Fair share, cells/s.
    pub fair_share: f64,
    /// Number of active VCs used for the fair share.
    pub n_active: f64,
    /// Largest allocation of the previous interval, cells/s.
    pub max_alloc_previous: f64,
    /// Largest allocation of the current interval so far, cells/s.
    pub max_alloc_current: f64,
    /// ERICA+ factor f(Tq) of the last interval (1 for ERICA).
    pub queue_factor: f64,
    /// Intervals completed.
    pub intervals: u64,
}

/// The list of touched slots ([`Erica::touched`]), boxed so that its absence takes 8 bytes.
type TouchedList = Box<Vec<u32>>;

/// ERICA (and ERICA+) at one output port.
#[derive(Debug)]
pub struct Erica {
    /// The configuration, shared by the ports of the same settings.
    cfg: Arc<EricaCfg>,
    link_rate: f64,
    slots: VcSlots,
    /// The VCs routed through the port, the first inline ([`VcTable`]: at a port of one VC,
    /// most switch ports of a network with one host pair per VC, no heap block and no slot
    /// lookup).
    vcs: VcTable<Vc>,
    /// Slots of the VCs the next interval end must visit: those touched in this interval
    /// or the last (all of them with source averaging, whose decay visits every VC). Only
    /// at a port of more than one VC (at a port of one, its `listed` says alone), behind a
    /// thin pointer: most switch ports of a network with one host pair per VC have one VC,
    /// and the vector's 24 bytes took the record past a heap block's size (224 bytes
    /// instead of 208; issue 14, memory per VC).
    touched: Option<TouchedList>,
    start: Time,
    gen: u32,
    /// The engine's record of the interval timer ([`RateAllocator::interval_timer`]).
    timer: LatestTimer,
    abr_cells: u32,
    vbr_cells: u32,
    n_seen_this: u32,
    n_active_this: f64,
    /// The active-VC count of the last interval before the floor of 1 (used by the
    /// immediate fair-share update, so a first VC after an empty interval counts once).
    n_active_raw: f64,
    /// The averaged ABR cells, capacity and length of the intervals (`LoadAvg::Counts`
    /// only), boxed: most ports of a large network never average this way (issue 14).
    avg: Option<Box<(f64, f64, f64)>>,
    /// The current state.
    pub st: EricaState,
}

impl Erica {
    /// ERICA for a port of `link_rate` cells/s and `flows` flows, numbered by their flow
    /// index.
    pub fn new(cfg: impl Into<Arc<EricaCfg>>, link_rate: f64, flows: usize) -> Erica {
        Self::with_slots(cfg, link_rate, flows, VcSlots::Identity)
    }

    /// ERICA for a port of `link_rate` cells/s holding state for the `vcs` VCs routed
    /// through it, numbered by `slots`.
    pub fn with_slots(
        cfg: impl Into<Arc<EricaCfg>>,
        link_rate: f64,
        vcs: usize,
        slots: VcSlots,
    ) -> Erica {
        let cfg = cfg.into();
        let u = if cfg.plus.is_some() {
            1.0
        } else {
            cfg.target_utilization
        };
        let abr_cap = u * link_rate;
        // Before the first interval: as if an empty interval had been measured
        // (z = 0, one active VC), so the first feedback offers the whole ABR capacity.
        let st = EricaState {
            z: 0.0,
            abr_cap,
            fair_share: abr_cap,
            n_active: 1.0,
            max_alloc_previous: 0.0,
            max_alloc_current: abr_cap,
            queue_factor: 1.0,
            intervals: 0,
        };
        let vcs = VcTable::new(vcs);
        Erica {
            cfg,
            link_rate,
            slots,
            touched: (!vcs.one()).then(TouchedList::default),
            vcs,
            start: 0,
            gen: 0,
            timer: LatestTimer::default(),
            abr_cells: 0,
            vbr_cells: 0,
            n_seen_this: 0,
            n_active_this: 0.0,
            n_active_raw: 0.0,
            avg: None,
            st,
        }
    }

    /// The configuration.
    pub fn cfg(&self) -> &EricaCfg {
        &self.cfg
    }

    /// The CCR the algorithm uses for the VC in slot `vc` (from forward RM cells, or
    /// measured; the flow index for an allocator made by [`Erica::new`]).
    pub fn ccr(&self, vc: usize) -> f64 {
        self.vcs.get(vc).ccr
    }

    /// Bytes held by the per-VC tables (for the memory estimate).
    pub fn heap_bytes(&self) -> usize {
        self.vcs.heap_bytes()
            + self
                .touched
                .as_ref()
                .map_or(0, |t| std::mem::size_of::<Vec<u32>>() + t.capacity() * 4)
            + self
                .avg
                .as_ref()
                .map_or(0, |_| std::mem::size_of::<(f64, f64, f64)>())
    }

    /// Lists VC `v`, of slot `vc`, for the next interval end (once; at a port of one VC,
    /// which keeps no list, by its flag alone).
    #[inline(always)]
    fn touch(touched: &mut Option<TouchedList>, v: &mut Vc, vc: usize) {
        if !v.listed {
            v.listed = true;
            if let Some(list) = touched {
                list.push(vc as u32);
            }
        }
    }

    /// Marks VC `vc` as active in this interval (forward cell, or a backward RM cell
    /// with bidirectional counting); gives back its entry (one lookup per cell). Inlined
    /// into its callers: in the build without the profile it was a call of its own per ABR
    /// cell, and inlining it took 2.2 % off the 10-VC ERICA row's instructions (the
    /// profile-guided build inlined it already; issue 14, docs/performance-journal.md).
    #[inline(always)]
    fn mark_seen(&mut self, vc: usize) -> &mut Vc {
        let v = self.vcs.get_mut(vc);
        Self::touch(&mut self.touched, v, vc);
        if let Some(decay) = self.cfg.source_averaging {
            if v.contribution < 1.0 {
                if self.cfg.immediate_fair_share && v.contribution < decay {
                    self.n_active_raw = (self.n_active_raw - v.contribution / decay + 1.0).max(0.0);
                    self.st.n_active = self.n_active_raw.max(1.0);
                    self.st.fair_share = self.st.abr_cap / self.st.n_active;
                }
                self.n_active_this += 1.0 - v.contribution;
                v.contribution = 1.0;
            }
        } else if !v.seen_this {
            v.seen_this = true;
            self.n_seen_this += 1;
            if self.cfg.immediate_fair_share && !v.seen_last {
                self.n_active_raw += 1.0;
                self.st.n_active = self.n_active_raw.max(1.0);
                self.st.fair_share = self.st.abr_cap / self.st.n_active;
            }
        }
        v
    }

    /// Ends the averaging interval at `now` (spec 2.5).
    fn end_interval(&mut self, now: Time, abr_queue: u32) {
        let dt = time::to_secs_f64(now.saturating_sub(self.start)).max(1e-12);
        let (cap_cells, qf) = match self.cfg.plus {
            None => (
                (self.cfg.target_utilization * self.link_rate * dt - self.vbr_cells as f64)
                    .max(0.0),
                1.0,
            ),
            Some(qc) => {
                let total = (self.link_rate * dt - self.vbr_cells as f64).max(0.0);
                let tq = if total > 0.0 {
                    abr_queue as f64 / (total / dt)
                } else {
                    f64::INFINITY
                };
                let f = qc.factor(tq);
                (f * total, f)
            }
        };
        let abr_cap = cap_cells / dt;
        let abr = self.abr_cells as f64;
        let ratio = |a: f64, c: f64| if c > 0.0 { a / c } else { f64::INFINITY };
        let z = match self.cfg.load_averaging {
            LoadAvg::None => ratio(abr, cap_cells),
            LoadAvg::Ratio(alpha) => {
                let zn = ratio(abr, cap_cells);
                if self.st.intervals == 0 || !self.st.z.is_finite() || !zn.is_finite() {
                    zn
                } else {
                    (1.0 - alpha) * self.st.z + alpha * zn
                }
            }
            LoadAvg::Counts(alpha) => {
                let (a, c, t) = match self.avg.as_deref() {
                    None => (abr, cap_cells, dt),
                    Some(&(a, c, t)) => (
                        (1.0 - alpha) * a + alpha * abr,
                        (1.0 - alpha) * c + alpha * cap_cells,
                        (1.0 - alpha) * t + alpha * dt,
                    ),
                };
                **self.avg.get_or_insert_with(Box::default) = (a, c, t);
                ratio(a / t, c / t)
            }
        };
        let per_vc = self.cfg.per_vc_ccr;
        let raw = match self.cfg.source_averaging {
            None => {
                self.end_touched(per_vc, dt);
                self.n_seen_this as f64
            }
            Some(decay) => {
                // Contributions decay at every VC, summed in slot order (which is flow
                // order, so the sum is the one over every flow of the network).
                let n = self.n_active_this;
                let mut sum = 0.0;
                for v in self.vcs.as_mut_slice() {
                    v.contribution *= decay;
                    sum += v.contribution;
                    v.end_interval(per_vc, dt);
                }
                self.n_active_this = sum;
                n
            }
        };
        self.st.z = z;
        self.st.abr_cap = abr_cap;
        self.n_active_raw = raw;
        let n_active = raw.max(1.0);
        self.st.n_active = n_active;
        self.st.fair_share = abr_cap / n_active;
        self.st.max_alloc_previous = self.st.max_alloc_current;
        self.st.max_alloc_current = self.st.fair_share;
        self.st.queue_factor = qf;
        self.st.intervals += 1;
        self.abr_cells = 0;
        self.vbr_cells = 0;
        self.n_seen_this = 0;
        self.start = now;
        self.gen = self.gen.wrapping_add(1);
    }

    /// Ends the interval at the VCs touched in it or the last one (O(active VCs)); the
    /// others are idle and the end of an interval leaves them as they are.
    fn end_touched(&mut self, per_vc: bool, dt: f64) {
        let end = |v: &mut Vc| {
            v.end_interval(per_vc, dt);
            v.listed = !v.idle(per_vc);
            v.listed
        };
        if self.vcs.one() {
            let v = self.vcs.only_mut();
            if v.listed {
                end(v);
            }
            return;
        }
        let vcs = self.vcs.as_mut_slice();
        if let Some(list) = &mut self.touched {
            list.retain(|&s| end(&mut vcs[s as usize]));
        }
    }

    /// The explicit rate ERICA computes for VC `vc` now (spec 2.6), updating the
    /// per-interval state.
    pub fn explicit_rate(&mut self, vc: usize) -> f64 {
        let v = self.vcs.get_mut(vc);
        if self.cfg.one_er_per_interval && v.seen_brm_this {
            return v.last_er;
        }
        let st = &mut self.st;
        let ccr = v.ccr;
        let vc_share = if st.z > 0.0 {
            ccr / st.z
        } else {
            f64::INFINITY
        };
        let mut er = st.fair_share.max(vc_share);
        if let Some(delta) = self.cfg.max_min_delta {
            if st.z <= 1.0 + delta {
                er = er.max(st.max_alloc_previous);
            }
        }
        st.max_alloc_current = st.max_alloc_current.max(er.min(st.abr_cap));
        if self.cfg.fair_share_first
            && ccr < st.fair_share * (1.0 - CCR_TOLERANCE)
            && er > st.fair_share
        {
            er = st.fair_share;
        }
        er = er.min(st.abr_cap);
        Self::touch(&mut self.touched, v, vc);
        v.last_er = er;
        v.seen_brm_this = true;
        er
    }
}

impl RateAllocator for Erica {
    /// Its per-VC entry, and the VC's place in the list of VCs touched in an interval.
    const BYTES_PER_VC: u64 = (std::mem::size_of::<Vc>() + std::mem::size_of::<u32>()) as u64;

    #[inline]
    fn on_arrival(&mut self, now: Time, cell: &mut Cell, abr_queue: u32) -> bool {
        match cell.class() {
            ServiceClass::Cbr | ServiceClass::Vbr => {
                self.vbr_cells += 1;
                false
            }
            ServiceClass::Abr => {
                let backward = cell.flags & (flag::RM | flag::DIR) == (flag::RM | flag::DIR);
                if backward {
                    if !self.cfg.count_backward_rm {
                        return false;
                    }
                } else {
                    let vc = self.vcs.slot(|| self.slots.at_port(cell.flow, cell.hop));
                    let per_vc_ccr = self.cfg.per_vc_ccr;
                    let v = self.mark_seen(vc);
                    if per_vc_ccr {
                        v.cell_count += 1;
                    } else if cell.is_rm() {
                        v.ccr = cell.ccr() as f64;
                    }
                }
                self.abr_cells += 1;
                if self.abr_cells >= self.cfg.interval_cells {
                    self.end_interval(now, abr_queue);
                    return true;
                }
                false
            }
            _ => false,
        }
    }

    #[inline]
    fn on_backward_rm(&mut self, _now: Time, cell: &mut Cell) {
        let vc = self.vcs.slot(|| self.slots.at_peer(cell.flow, cell.hop));
        if self.cfg.bidirectional_counting {
            self.mark_seen(vc);
        }
        let er = self.explicit_rate(vc);
        if (er as f32) < cell.er() {
            cell.set_er(er as f32);
        }
    }

    fn on_timer(&mut self, now: Time, abr_queue: u32) {
        self.end_interval(now, abr_queue);
    }

    fn interval_deadline(&self) -> Option<Time> {
        Some(self.start + self.cfg.interval_time)
    }

    fn generation(&self) -> u32 {
        self.gen
    }

    fn interval_timer(&mut self) -> Option<&mut LatestTimer> {
        Some(&mut self.timer)
    }

    /// z, FairShare, MaxAllocPrevious, the ABR capacity, the active VCs and, for ERICA+,
    /// f(Tq).
    fn trace_view(&self) -> Option<AllocatorView> {
        let s = &self.st;
        Some(AllocatorView {
            z: s.z,
            fair_share: mbps(s.fair_share),
            max_alloc_previous: mbps(s.max_alloc_previous),
            abr_capacity: mbps(s.abr_cap),
            active_vcs: s.n_active,
            queue_factor: s.queue_factor,
            ..AllocatorView::unknown()
        })
    }
}

#[cfg(test)]
#[path = "erica_tests.rs"]
mod tests;
