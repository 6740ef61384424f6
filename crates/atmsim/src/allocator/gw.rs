//! General weighted (GW) fairness with MCR guarantees: the overload-based explicit rate
//! schemes of ATMF 98-0408 (Vandalore, Fahmy, Jain, Goyal, Goyal; arXiv cs/9809040).
//!
//! The GW fair share of VC i on a link is `g_i = MCR_i + w_i (A - sum MCR) / sum w`, where
//! A is the ABR capacity left by the VCs bottlenecked elsewhere (98-0408 section 2). Per
//! output port, over an averaging interval (ERICA's: `interval_cells` ABR cells or
//! `interval_time`), the common structure of section 3 (eqs 14-19) is
//!
//! ```text
//! mu     = sum over the VCs active in the interval of min(SourceRate(i), MCR_i)
//! Target = f(Tq) (LinkRate - VBR/CBR rate - mu)         (eq 14; f: ERICA+ queue control)
//! z      = (ABRInputRate - mu) / Target                 (eq 15, the overload of the excess)
//! on a backward RM cell of VC i: ER = min(MCR_i + Excess_ER(i), Target + mu)   (eqs 17-19)
//! ```
//!
//! and Excess_ER is one of (see [`GwScheme`]): A, max(ExcessFairShare(i), VCShare) with
//! `VCShare = (SourceRate(i) - MCR_i) / z` and `ExcessFairShare(i) = (ABRCap - mu) w_i /
//! sum_j w_j AL(j)`, `AL(j) = min(1, (SourceRate(j) - MCR_j) / ExcessFairShare(j))` (eqs
//! 20-23); B, ExcessFairShare(i) / z (eq 24); D, VCShare above z = 1 + delta, else
//! max(w_i WtMaxAllocPrevious, VCShare), WtMaxAllocCurrent = max(.., Excess_ER / w_i)
//! (eqs 29-32). MCR_i and w_i are learnt at the VC's first forward RM cell: TM 4.0 carries
//! MCR in every RM cell and 98-0408 has the switch learn w_i at set-up; both stay the same
//! for the whole connection, so the simulator hands them to the port when the network is
//! built ([`RmFields`]) instead of carrying them in each cell. SourceRate is the CCR of
//! forward RM cells, or the measured rate
//! with `per_vc_ccr` (the paper's figure 7). With `alpha` < 1, z and sum_j w_j AL(j) are
//! averaged exponentially (section 4.4). Rates are cells/s.

use super::gw_config::{GwCfg, GwScheme};
use super::{AllocatorView, RateAllocator, RmFields};
use crate::cell::{flag, Cell, ServiceClass};
use crate::port::VcSlots;
use crate::trace::mbps;
use atmsim_kernel::{time, LatestTimer, Time};

#[derive(Clone, Copy, Debug)]
struct Vc {
    seen: bool,
    mcr: f64,
    weight: f64,
    rate: f64,
    cells: u32,
    /// ExcessFairShare(i), cells/s.
    efs: f64,
    /// What the VC's forward RM cells say of MCR and weight (`mcr` and `weight` take
    /// them at the first one).
    source: RmFields,
}

/// The values of the last completed interval, for inspection and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GwState {
    /// Target ABR capacity plus mu: the most a VC is offered, cells/s.
    pub abr_cap: f64,
    /// sum_i min(SourceRate(i), MCR_i) over the active VCs, cells/s.
    pub mu: f64,
    /// Overload factor of the excess, z.
    pub z: f64,
    /// Algorithms A and B: sum_j w_j AL(j), averaged with `alpha` (eq 21's denominator).
    pub sum_wal: f64,
    /// Algorithm D: WtMaxAllocPrevious, cells/s per unit weight.
    pub wt_max_prev: f64,
    /// Algorithm D: WtMaxAllocCurrent so far.
    pub wt_max_cur: f64,
    /// Intervals completed.
    pub intervals: u64,
}

/// The GW allocator at one output port.
#[derive(Debug)]
pub struct Gw {
    cfg: GwCfg,
    link_rate: f64,
    vcs: Vec<Vc>,
    /// Where a (flow, hop) finds its entry in `vcs` (the port's own VCs, issue 14).
    slots: VcSlots,
    start: Time,
    gen: u32,
    /// The engine's record of the interval timer ([`RateAllocator::interval_timer`]).
    timer: LatestTimer,
    abr_cells: u32,
    vbr_cells: u32,
    /// The current state.
    pub st: GwState,
}

impl Gw {
    /// The allocator of a port of `link_rate` cells/s with `flows` flows. Before the first
    /// interval every VC is offered the whole link (as ERICA does).
    pub fn new(cfg: GwCfg, link_rate: f64, flows: usize) -> Gw {
        Self::with_slots(cfg, link_rate, flows, VcSlots::Identity)
    }

    /// GW for a port of `link_rate` cells/s holding state for the `vcs` VCs routed through
    /// it, numbered by `slots` (as ERICA's and KVR's tables are).
    pub fn with_slots(cfg: GwCfg, link_rate: f64, vcs: usize, slots: VcSlots) -> Gw {
        let vc = Vc {
            seen: false,
            mcr: 0.0,
            weight: 1.0,
            rate: 0.0,
            cells: 0,
            efs: link_rate,
            source: RmFields::default(),
        };
        Gw {
            cfg,
            link_rate,
            vcs: vec![vc; vcs],
            slots,
            start: 0,
            gen: 0,
            timer: LatestTimer::default(),
            abr_cells: 0,
            vbr_cells: 0,
            st: GwState {
                abr_cap: link_rate,
                mu: 0.0,
                z: 0.0,
                sum_wal: 0.0,
                wt_max_prev: link_rate,
                wt_max_cur: 0.0,
                intervals: 0,
            },
        }
    }

    /// Tells the allocator what the forward RM cells of the VC in `slot` carry as MCR and
    /// weight; it learns them at the VC's first forward RM cell.
    pub fn set_source(&mut self, slot: usize, fields: RmFields) {
        self.vcs[slot].source = fields;
    }

    /// ExcessFairShare(i) of VC `vc` (cells/s), as of the last interval.
    pub fn excess_fair_share(&self, vc: usize) -> f64 {
        self.vcs[vc].efs
    }

    /// Ends the averaging interval (98-0408 eqs 14-16 and End_of_Interval_Accounting).
    ///
    /// Eq 14: Total ABR Capacity = LinkRate - VBR - sum_i min(SourceRate(i), MCR_i), and
    /// the queue control's Fraction f(Tq) applies to it (Target ABR Capacity, the excess
    /// the VCs share); eq 15: z = (ABR input - sum_i min(SourceRate(i), MCR_i)) / Target.
    /// With `alpha` < 1, z and sum_j w_j AL(j) are averaged (section 4.4).
    fn end_interval(&mut self, now: Time, abr_queue: u32) {
        let dt = time::to_secs_f64(now.saturating_sub(self.start)).max(1e-12);
        let capacity = (self.link_rate * dt - self.vbr_cells as f64).max(0.0) / dt;
        let tq = if capacity > 0.0 {
            abr_queue as f64 / capacity
        } else {
            f64::INFINITY
        };
        if self.cfg.per_vc_ccr {
            for v in &mut self.vcs {
                v.rate = v.cells as f64 / dt;
                v.cells = 0;
            }
        }
        let mu: f64 = self
            .vcs
            .iter()
            .filter(|v| v.seen)
            .map(|v| v.rate.min(v.mcr))
            .sum();
        let excess = self.cfg.queue.factor(tq) * (capacity - mu).max(0.0);
        let input = self.abr_cells as f64 / dt;
        let z = if excess > 0.0 {
            (input - mu).max(0.0) / excess
        } else {
            f64::INFINITY
        };
        self.st.z = self.average(self.st.z, z);
        self.st.abr_cap = excess + mu;
        self.st.mu = mu;
        match self.cfg.scheme {
            GwScheme::A | GwScheme::B => self.account_activity(excess),
            GwScheme::D => {
                if self.st.wt_max_cur > 0.0 {
                    self.st.wt_max_prev = self.st.wt_max_cur;
                }
                self.st.wt_max_cur = 0.0;
            }
        }
        for v in &mut self.vcs {
            v.seen = false;
        }
        self.st.intervals += 1;
        self.abr_cells = 0;
        self.vbr_cells = 0;
        self.start = now;
        self.gen = self.gen.wrapping_add(1);
    }

    /// `old` averaged with `new` (weight `alpha` on the newest, section 4.4); an infinite
    /// value, or the first interval, is taken as it is.
    fn average(&self, old: f64, new: f64) -> f64 {
        let a = self.cfg.alpha;
        if a >= 1.0 || self.st.intervals == 0 || !old.is_finite() || !new.is_finite() {
            new
        } else {
            (1.0 - a) * old + a * new
        }
    }

    /// Activity levels and ExcessFairShare (98-0408 eqs 20-21), over the active VCs; with
    /// `activity_level = false`, AL = 1: the paper's ExcessFairShare before its extension,
    /// w_i (A - mu) / sum_j w_j (section 3, algorithm A).
    fn account_activity(&mut self, excess: f64) {
        let mut sum_wal = 0.0;
        let mut sum_w = 0.0;
        for v in self.vcs.iter().filter(|v| v.seen) {
            let al = if !self.cfg.activity_level {
                1.0
            } else if v.efs > 0.0 {
                ((v.rate - v.mcr).max(0.0) / v.efs).min(1.0)
            } else {
                1.0
            };
            sum_wal += v.weight * al;
            sum_w += v.weight;
        }
        let sum_wal = if self.st.sum_wal > 0.0 && sum_wal > 0.0 {
            self.average(self.st.sum_wal, sum_wal)
        } else {
            sum_wal
        };
        self.st.sum_wal = sum_wal;
        let denom = if sum_wal > 0.0 {
            sum_wal
        } else {
            sum_w.max(1.0)
        };
        for v in &mut self.vcs {
            v.efs = excess * v.weight / denom;
        }
    }

    /// Excess_ER of VC `vc` (98-0408 eqs 22-24, 29-32).
    fn excess_er(&mut self, vc: usize) -> f64 {
        let v = self.vcs[vc];
        let z = self.st.z;
        let vc_share = if z > 0.0 {
            (v.rate - v.mcr).max(0.0) / z
        } else {
            f64::INFINITY
        };
        match self.cfg.scheme {
            GwScheme::A => v.efs.max(vc_share),
            GwScheme::B => {
                if z > 0.0 {
                    v.efs / z
                } else {
                    f64::INFINITY
                }
            }
            GwScheme::D => {
                let e = if z > 1.0 + self.cfg.delta {
                    vc_share
                } else {
                    (v.weight * self.st.wt_max_prev).max(vc_share)
                };
                let e = e.min(self.st.abr_cap);
                self.st.wt_max_cur = self.st.wt_max_cur.max(e / v.weight);
                e
            }
        }
    }

    /// The explicit rate of VC `vc` now: MCR plus its excess (eqs 17-18), at most Target +
    /// mu. Eq 19 as printed caps at Target ABR Capacity, the excess alone; that would hold
    /// the paper's own three-source case (MCR 50 + 19.92 Mb/s, Target 59.76) below its
    /// stated 69.92 Mb/s, so the cap is the whole ABR capacity the VCs may use.
    pub fn explicit_rate(&mut self, vc: usize) -> f64 {
        let mcr = self.vcs[vc].mcr;
        (mcr + self.excess_er(vc)).min(self.st.abr_cap.max(mcr))
    }
}

impl RateAllocator for Gw {
    const BYTES_PER_VC: u64 = std::mem::size_of::<Vc>() as u64;

    #[inline]
    fn on_arrival(&mut self, now: Time, cell: &mut Cell, abr_queue: u32) -> bool {
        match cell.class() {
            ServiceClass::Cbr | ServiceClass::Vbr => {
                self.vbr_cells += 1;
                false
            }
            ServiceClass::Abr => {
                if cell.flags & (flag::RM | flag::DIR) != (flag::RM | flag::DIR) {
                    let v = &mut self.vcs[self.slots.at_port(cell.flow, cell.hop)];
                    v.seen = true;
                    if self.cfg.per_vc_ccr {
                        v.cells += 1;
                    }
                    if cell.is_rm() {
                        v.mcr = v.source.mcr;
                        v.weight = v.source.weight;
                        if !self.cfg.per_vc_ccr {
                            v.rate = cell.ccr() as f64;
                        }
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
        let vc = self.slots.at_peer(cell.flow, cell.hop);
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

    /// The overload factor of the excess, WtMaxAllocPrevious, the ABR capacity and the sum
    /// of the active VCs' MCRs.
    fn trace_view(&self) -> Option<AllocatorView> {
        let s = &self.st;
        Some(AllocatorView {
            z: s.z,
            max_alloc_previous: mbps(s.wt_max_prev),
            abr_capacity: mbps(s.abr_cap),
            mcr_sum: mbps(s.mu),
            ..AllocatorView::unknown()
        })
    }

    fn interval_timer(&mut self) -> Option<&mut LatestTimer> {
        Some(&mut self.timer)
    }
}

#[cfg(test)]
#[path = "gw_tests.rs"]
mod tests;
