//! The Kalampoukas-Varma-Ramakrishnan (KVR) O(1) explicit-rate allocator: seed 004
//! (UCSC-CRL-95-54) section 2.2, implemented line by line from its Figure 2.1, with the
//! gaps filled as spec ALGORITHMS.md section 5 says.
//!
//! Per output port it keeps B (the bandwidth ABR may use), N (open ABR connections),
//! N_b (bottlenecked ones), the sum of the allocations of the satisfied connections,
//! MaxVC / MaxAllocation, and per VC its state (satisfied | bottlenecked), its last
//! allocation A_i and its booking A'_i (A_i if satisfied, B_eq = B / N if bottlenecked).
//! On every **forward** RM cell of VC i (Figure 2.1):
//!
//! ```text
//!  3. rho_i = min(ER_i, CCR_i)
//!  4. B_eq = B / N
//!  5-8.   A_max = B_eq + B_f / N_b                               if i is bottlenecked
//!         A_max = B_eq + (B_f + A'_i - B_eq) / (N_b + 1)         if i is satisfied
//!  9-12.  satisfied -> bottlenecked if A_max < rho_i; bottlenecked -> satisfied if A_max > rho_i
//! 13-14.  A_i = rho_i if satisfied, else A_max
//! 15.     ER(cell) = min(A_max, ER_i)
//! 16-22.  MaxVC / MaxAllocation: the VC with the largest allocation is kept bottlenecked
//! 23-27.  A'_i = A_i if satisfied, else B_eq;  B_f += A'_old - A'_i
//! ```
//!
//! **B_f** (eq. 2.5: B_f = B - sum over satisfied A_i - N_b * B / N) is not kept as a
//! running number: the allocator keeps the sum of the satisfied allocations and derives
//! B_f from its definition each time (O(1)). Lines 23-27 then become "take the VC's old
//! booking out of the satisfied sum if it was satisfied, put the new allocation in if it
//! is satisfied now"; for a fixed B and N this is exactly line 27 (all four state
//! transitions are checked in the tests), and when B or N changes (a VBR reservation, a
//! connection opening or closing) the bookings B_eq of the bottlenecked connections
//! follow at once, so B_f never drifts (spec 5, "the first cannot drift").
//!
//! Connection **open** (signalling, before its first RM cell): N += 1 and the connection
//! starts bottlenecked (N_b += 1), which lowers B_f and so the allocations of the others
//! (seed 004, after eq. 2.6). **Close**: its booking is removed (N_b -= 1 if bottlenecked,
//! else its allocation leaves the satisfied sum), N -= 1; if it was MaxVC, MaxAllocation
//! restarts from 0 and the next RM cell re-establishes it. A **VBR reservation** lowers B
//! by the reserved rate while the VBR connection is open (seed 004 section 5.2).
//!
//! Optional (seed 004 section 4.1, "might improve the convergence"): lower the ER of
//! **backward** RM cells to the A_max the VC would get now (eq. 2.9 with the current state),
//! off by default.
//!
//! Optional (not in seed 004; issue 17): `measured_rate`, the demand test of
//! [`super::kvr_measured`]: a VC whose measured arrival rate is clearly below its CCR is
//! booked at that rate (rho) and its ER is not raised above its CCR; default off.
//!
//! Rates are cells/s. A_max can be negative for a moment after B shrinks below what the
//! satisfied connections hold; the ER written into a cell is never below 0.

use super::kvr_measured::RateMeter;
use super::{AllocatorView, CellsTaken, RateAllocator};
use crate::cell::{flag, Cell};
use crate::port::VcSlots;
use crate::trace::mbps;
use crate::vc_table::VcTable;
use atmsim_kernel::Time;

/// KVR configuration (resolved).
#[derive(Clone, Debug, PartialEq)]
pub struct KvrCfg {
    /// Share of the link rate that ABR may be allocated (seed 004: 1.0, "target link
    /// utilization ... 100 %").
    pub target_utilization: f64,
    /// Also lower ER in backward RM cells to the current A_max (seed 004 4.1; default off).
    pub update_backward_rm: bool,
    /// Book a VC the demand test finds demand-limited at its measured arrival rate, with
    /// ER <= CCR ([`super::kvr_measured`]; not in seed 004; default off).
    pub measured_rate: bool,
}

/// The state of a VC at a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VcState {
    /// Not open at this port (never opened, or closed).
    Closed,
    /// Its last request was met in full.
    Satisfied,
    /// Its last allocation was below its request (or it holds MaxAllocation).
    Bottlenecked,
}

#[derive(Clone, Copy, Debug)]
struct Vc {
    state: VcState,
    /// A_i: the allocation computed at its last forward RM cell.
    alloc: f64,
}

/// Counters of what the allocator did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KvrCounters {
    /// Forward RM cells processed.
    pub rm_cells: u64,
    /// Forward RM cells of VCs not open here (sent before a close), ignored.
    pub stale_rm_cells: u64,
    /// Connections opened.
    pub opens: u64,
    /// Connections closed.
    pub closes: u64,
}

const CLOSED: Vc = Vc {
    state: VcState::Closed,
    alloc: 0.0,
};

impl Default for Vc {
    /// A VC not open at the port.
    fn default() -> Self {
        CLOSED
    }
}

/// No MaxVC (none yet, or it closed).
const NO_VC: u32 = u32::MAX;

/// A list of flows behind a thin pointer: 8 bytes of every KVR record (a boxed slice is 16,
/// a vector 24), for a second allocation at the few ports of several VCs.
type FlowList = Box<Vec<u32>>;

/// The KVR allocator of one output port.
///
/// Two of a VC's switch ports are its own at 10 000 VCs with one host pair per VC, so
/// the record is kept small (issue 14, docs/performance-journal.md "KVR records and
/// cell-level connections, thirty-fourth session"): of the configuration it keeps only what it reads, the table
/// of a port of one VC is inline ([`VcTable`]), and the meters are boxed.
#[derive(Clone, Debug)]
pub struct Kvr {
    /// The share of the link rate ABR may be allocated, cells/s: the configuration's
    /// target utilization times the link rate (B before VBR reservations).
    abr_rate: f64,
    /// Bandwidth reserved by open VBR connections, cells/s.
    reserved: f64,
    /// Sum of A_i over the satisfied connections.
    sum_satisfied: f64,
    /// MaxAllocation.
    max_alloc: f64,
    /// N: open ABR connections.
    n: u32,
    /// N_b: bottlenecked connections.
    nb: u32,
    /// MaxVC's slot ([`NO_VC`]: none yet, or it closed).
    max_vc: u32,
    /// Also lower ER in backward RM cells ([`KvrCfg::update_backward_rm`]).
    update_backward_rm: bool,
    /// Slot of a cell's VC (see [`VcSlots`]).
    slots: VcSlots,
    /// The flows routed through the port, in slot order (ascending), to find a signalled
    /// connection's slot; none at a port of one VC or made by [`Kvr::new`] (slots are flow
    /// indices; a port of several VCs whose slots are flow indices keeps it unread). Behind a
    /// thin pointer, 8 bytes: a record is 136 bytes, a 144-byte block of the allocator
    /// instead of 160, one for each port toward a host in a network of one host pair per VC
    /// (issue 14, memory per VC; docs/performance-journal.md, "Heap blocks that fit, and
    /// queues no larger than their buffer, forty-seventh session").
    flows: Option<FlowList>,
    vcs: VcTable<Vc>,
    /// Counters.
    pub counters: KvrCounters,
    /// Per-VC arrival-rate meters, indexed by slot like `vcs` (`measured_rate` only).
    meter: Option<Box<RateMeter>>,
}

impl Kvr {
    /// A KVR allocator for a port of `link_rate` cells/s whose VCs are numbered below
    /// `flows` (the engine's flow indices).
    pub fn new(cfg: KvrCfg, link_rate: f64, flows: usize) -> Kvr {
        Self::with_table(&cfg, link_rate, None, flows, VcSlots::Identity)
    }

    /// A KVR allocator for a port of `link_rate` cells/s holding state for the VCs routed
    /// through it: `flows` (ascending) are their flow indices, in slot order of `slots`.
    pub fn with_slots(cfg: KvrCfg, link_rate: f64, mut flows: Vec<u32>, slots: VcSlots) -> Kvr {
        debug_assert!(flows.windows(2).all(|w| w[0] < w[1]));
        let vcs = flows.len();
        // A port of one VC finds its slot without the list: it is 0.
        let flows = (vcs > 1).then(|| {
            flows.shrink_to_fit();
            Box::new(flows)
        });
        Self::with_table(&cfg, link_rate, flows, vcs, slots)
    }

    /// An allocator of `vcs` VC slots, signalled flows found in `flows` (see the field).
    fn with_table(
        cfg: &KvrCfg,
        link_rate: f64,
        flows: Option<FlowList>,
        vcs: usize,
        slots: VcSlots,
    ) -> Kvr {
        // One meter per VC slot, like the VC table (measured_rate only).
        let meter = cfg
            .measured_rate
            .then(|| Box::new(RateMeter::new(vcs.max(1))));
        Kvr {
            abr_rate: cfg.target_utilization * link_rate,
            reserved: 0.0,
            sum_satisfied: 0.0,
            max_alloc: 0.0,
            n: 0,
            nb: 0,
            max_vc: NO_VC,
            update_backward_rm: cfg.update_backward_rm,
            slots,
            flows,
            vcs: VcTable::new(vcs),
            counters: KvrCounters::default(),
            meter,
        }
    }

    /// B: the bandwidth available to ABR, cells/s.
    #[inline]
    pub fn available(&self) -> f64 {
        (self.abr_rate - self.reserved).max(0.0)
    }

    /// B_eq = B / N (0 with no connection).
    #[inline]
    pub fn equal_share(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.available() / self.n as f64
        }
    }

    /// B_f = B - sum over satisfied A_i - N_b * B_eq (eq. 2.5).
    #[inline]
    pub fn free_bandwidth(&self) -> f64 {
        self.available() - self.sum_satisfied - self.nb as f64 * self.equal_share()
    }

    /// N, N_b.
    pub fn counts(&self) -> (u32, u32) {
        (self.n, self.nb)
    }

    /// MaxAllocation, cells/s.
    pub fn max_allocation(&self) -> f64 {
        self.max_alloc
    }

    /// The state and last allocation A_i (cells/s) of VC `vc`.
    pub fn vc(&self, vc: usize) -> (VcState, f64) {
        let v = self.vcs.get(vc);
        (v.state, v.alloc)
    }

    /// A'_i: what the port books for VC `vc` (A_i if satisfied, B_eq if bottlenecked).
    pub fn booking(&self, vc: usize) -> f64 {
        let v = self.vcs.get(vc);
        match v.state {
            VcState::Closed => 0.0,
            VcState::Satisfied => v.alloc,
            VcState::Bottlenecked => self.equal_share(),
        }
    }

    /// A_max for VC `vc` in its current state (eq. 2.9).
    #[inline]
    fn a_max(&self, vc: usize) -> f64 {
        let beq = self.equal_share();
        let bf = self.free_bandwidth();
        match self.vcs.get(vc).state {
            VcState::Bottlenecked => beq + bf / self.nb as f64,
            _ => beq + (bf + self.booking(vc) - beq) / (self.nb + 1) as f64,
        }
    }

    /// The slot of signalled flow `flow` (the flow itself when slots are flow indices).
    fn slot_of_flow(&self, flow: usize) -> usize {
        if matches!(self.slots, VcSlots::Identity) {
            return flow;
        }
        if self.vcs.one() {
            return 0;
        }
        self.flows
            .as_deref()
            .expect("a port of more than one VC keeps its flows")
            .binary_search(&(flow as u32))
            .expect("signalling reaches only the ports on the connection's route")
    }

    /// Bytes held by the per-VC tables (for the memory estimate).
    pub fn heap_bytes(&self) -> usize {
        self.vcs.heap_bytes()
            + self
                .flows
                .as_deref()
                .map_or(0, |f| std::mem::size_of::<Vec<u32>>() + f.capacity() * 4)
            + self
                .meter
                .as_ref()
                .map_or(0, |m| std::mem::size_of::<RateMeter>() + m.heap_bytes())
    }

    /// Flow `flow` opens at this port (signalling): N += 1, it starts bottlenecked.
    pub fn open(&mut self, flow: usize) {
        let vc = self.slot_of_flow(flow);
        if self.vcs.get(vc).state != VcState::Closed {
            return;
        }
        self.counters.opens += 1;
        if let Some(m) = self.meter.as_mut() {
            m.reset(vc);
        }
        self.n += 1;
        self.nb += 1;
        *self.vcs.get_mut(vc) = Vc {
            state: VcState::Bottlenecked,
            alloc: 0.0,
        };
    }

    /// Flow `flow` closes at this port: its booking is removed, N -= 1.
    pub fn close(&mut self, flow: usize) {
        let vc = self.slot_of_flow(flow);
        let v = *self.vcs.get(vc);
        match v.state {
            VcState::Closed => return,
            VcState::Satisfied => self.sum_satisfied -= v.alloc,
            VcState::Bottlenecked => self.nb -= 1,
        }
        self.counters.closes += 1;
        if let Some(m) = self.meter.as_mut() {
            m.reset(vc);
        }
        self.n -= 1;
        self.vcs.get_mut(vc).state = VcState::Closed;
        if self.max_vc == vc as u32 {
            self.max_vc = NO_VC;
            self.max_alloc = 0.0;
        }
        self.renormalize();
    }

    /// A VBR connection reserving `rate` cells/s opens (positive) or closes (negative).
    pub fn reserve(&mut self, rate: f64) {
        self.reserved += rate;
        if self.reserved < 1e-6 {
            self.reserved = 0.0;
        }
    }

    /// With no satisfied connection the satisfied sum is exactly 0 (no rounding carried).
    #[inline]
    fn renormalize(&mut self) {
        if self.nb == self.n {
            self.sum_satisfied = 0.0;
        }
    }

    /// Figure 2.1: a forward RM cell of VC `vc` with fields `er` and `ccr` (cells/s).
    /// Returns the ER to write into the cell (line 15), or None if the VC is not open here.
    pub fn on_forward_rm(&mut self, vc: usize, er: f64, ccr: f64) -> Option<f64> {
        let entry = *self.vcs.get(vc);
        if entry.state == VcState::Closed {
            self.counters.stale_rm_cells += 1;
            return None;
        }
        self.counters.rm_cells += 1;
        // Lines 1-3.
        let rho = er.min(ccr);
        // Lines 4-8 (A'_i of a bottlenecked VC is B_eq, so the satisfied branch is eq. 2.8).
        let booked_old = self.booking(vc);
        let a_max = self.a_max(vc);
        let mut state = entry.state;
        // Lines 9-12 (strict comparisons: A_max == rho changes nothing).
        if a_max < rho && state == VcState::Satisfied {
            state = VcState::Bottlenecked;
            self.nb += 1;
        }
        if a_max > rho && state == VcState::Bottlenecked {
            state = VcState::Satisfied;
            self.nb -= 1;
        }
        // Lines 13-14.
        let a_i = if state == VcState::Satisfied {
            rho
        } else {
            a_max
        };
        // Line 15.
        let new_er = a_max.min(er).max(0.0);
        // Lines 16-19. The MaxVC itself is kept bottlenecked too (seed 004 2.2: "marking
        // its state as bottlenecked even if it is receiving all its requested bandwidth"):
        // read literally, line 18 only runs when A_i exceeds MaxAllocation, so a MaxVC
        // whose request fell just below A_max (lines 11-12) stayed satisfied, every VC could
        // end up satisfied (N_b = 0) holding all of B, and a connection opening then got
        // A_max = B - sum of the satisfied allocations = 0.
        let is_max_vc = self.max_vc == vc as u32;
        if a_i > self.max_alloc || is_max_vc {
            if a_i > self.max_alloc {
                self.max_vc = vc as u32;
                self.max_alloc = a_i;
            }
            if state == VcState::Satisfied {
                state = VcState::Bottlenecked;
                self.nb += 1;
            }
        }
        // Lines 20-22.
        if self.max_vc == vc as u32 && a_i < self.max_alloc {
            self.max_alloc = a_i;
        }
        // Lines 23-27: the old booking leaves, the new one enters (B_f follows from eq. 2.5).
        if entry.state == VcState::Satisfied {
            self.sum_satisfied -= booked_old;
        }
        if state == VcState::Satisfied {
            self.sum_satisfied += a_i;
        }
        *self.vcs.get_mut(vc) = Vc { state, alloc: a_i };
        self.renormalize();
        Some(new_er)
    }
}

impl RateAllocator for Kvr {
    /// Its per-VC entry, its place in the port's flow list and (`measured_rate`) its meter.
    const BYTES_PER_VC: u64 = (std::mem::size_of::<Vc>()
        + std::mem::size_of::<u32>()
        + super::kvr_measured::METER_BYTES_PER_VC) as u64;

    /// Forward RM cells, or with `measured_rate` every cell (its meter counts them): the
    /// others change nothing here.
    fn cells_taken(&self) -> CellsTaken {
        match self.meter {
            Some(_) => CellsTaken::All,
            None => CellsTaken::ForwardRm,
        }
    }

    #[inline]
    fn on_arrival(&mut self, now: Time, cell: &mut Cell, _abr_queue: u32) -> bool {
        let (mut er, mut ccr) = (cell.er() as f64, cell.ccr() as f64);
        if let Some(m) = self.meter.as_mut() {
            if RateMeter::counts(cell) {
                let slot = self.vcs.slot(|| self.slots.at_port(cell.flow, cell.hop));
                if let Some(rate) = m.observe(slot, now, cell.is_rm(), ccr) {
                    // Demand-limited (kvr_measured): booked at its measured rate, and
                    // asks for no more than the ACR it already does not use.
                    er = er.min(ccr);
                    ccr = rate;
                }
            }
        }
        if cell.flags & (flag::RM | flag::DIR) == flag::RM {
            let vc = self.vcs.slot(|| self.slots.at_port(cell.flow, cell.hop));
            if let Some(er) = self.on_forward_rm(vc, er, ccr) {
                cell.set_er(er as f32);
            }
        }
        false
    }

    #[inline]
    fn on_backward_rm(&mut self, _now: Time, cell: &mut Cell) {
        if !self.update_backward_rm {
            return;
        }
        let vc = self.vcs.slot(|| self.slots.at_peer(cell.flow, cell.hop));
        if self.vcs.get(vc).state == VcState::Closed {
            return;
        }
        let a_max = self.a_max(vc).max(0.0) as f32;
        if a_max < cell.er() {
            cell.set_er(a_max);
        }
    }

    fn on_timer(&mut self, _now: Time, _abr_queue: u32) {}

    fn interval_deadline(&self) -> Option<Time> {
        None
    }

    fn generation(&self) -> u32 {
        0
    }

    fn on_open(&mut self, vc: usize) {
        self.open(vc);
    }

    fn on_close(&mut self, vc: usize) {
        self.close(vc);
    }

    /// B_eq, MaxAllocation, B, N, N_b and B_f.
    fn trace_view(&self) -> Option<AllocatorView> {
        let (n, nb) = self.counts();
        Some(AllocatorView {
            fair_share: mbps(self.equal_share()),
            max_alloc_previous: mbps(self.max_allocation()),
            abr_capacity: mbps(self.available()),
            active_vcs: n as f64,
            bottlenecked_vcs: nb as f64,
            free: mbps(self.free_bandwidth()),
            ..AllocatorView::unknown()
        })
    }

    /// KVR computes its allocation at forward RM cells (seed 004 Fig 2.1).
    fn feedback_on_forward_rm(&self) -> bool {
        true
    }

    fn on_reserve(&mut self, rate: f64) {
        self.reserve(rate);
    }
}

#[cfg(test)]
#[path = "kvr_tests.rs"]
mod tests;
