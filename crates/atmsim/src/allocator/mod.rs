//! ABR rate allocators ("switch algorithms"), run per output port.
//!
//! An allocator watches the cells that enter its port (to measure load, capacity and the
//! active VCs) and writes feedback into RM cells: ERICA and ERICA+ lower the ER field of
//! backward RM cells of the VCs whose *forward* path leaves through the port (spec 2.1);
//! EFCI marking sets the EFCI bit of forward data cells. A switch only ever lowers ER.
//!
//! One file per algorithm: [`none`] (no feedback), [`erica`] (ERICA with every option of
//! seed 003 section 4; its keys in [`erica_config`]), [`erica_plus`] (its queue-control
//! function, seed 003 4.4 and spec 3), [`modified_erica`] (seed 000's option preset),
//! [`efci`], [`kvr`] (the O(1) allocator of seed 004, which works on forward RM cells
//! and uses connection open/close signalling and VBR reservations:
//! [`RateAllocator::on_open`], [`RateAllocator::on_close`], [`RateAllocator::on_reserve`]),
//! and [`gw`] (general weighted fairness with MCR guarantees, ATMF 98-0408). The registry
//! below is the list of what exists: `atmsim list` and the docs read it.
//! Every hook has a default, so an algorithm implements only what it uses.
//!
//! Adding an allocator: one file implementing [`RateAllocator`], its spec with
//! [`crate::registry::Resolve`] and its state with [`crate::registry::Build`], and one line
//! in the registry below (CONTRIBUTING.md). The engine holds an [`AnyAllocator`] per port
//! and dispatches statically.

pub mod efci;
pub mod erica;
pub mod erica_config;
pub mod erica_plus;
pub mod gw;
pub mod gw_config;
pub mod kvr;
pub mod kvr_config;
pub mod kvr_measured;
pub mod modified_erica;
pub mod none;

pub use efci::{Efci, EfciCfg, EfciSpec};
pub use erica::{Erica, EricaCfg, LoadAvg};
pub use erica_config::{EricaSpec, LoadAveraging};
pub use erica_plus::{EricaPlusSpec, QueueControl};
pub use gw::Gw;
pub use gw_config::{GwCfg, GwScheme, GwSpec};
pub use kvr::{Kvr, KvrCfg};
pub use kvr_config::KvrSpec;
pub use modified_erica::ModifiedEricaSpec;
pub use none::{NoAllocator, NoAllocatorSpec};

use crate::cell::{flag, Cell};
use crate::port::VcSlots;
use crate::registry::registry;
pub use crate::trace::AllocatorView;
use atmsim_kernel::{LatestTimer, Time};

/// What an allocator is built for: its output port.
#[derive(Clone, Debug)]
pub struct PortEnv<'a> {
    /// The port's link rate, cells/s.
    pub link_rate: f64,
    /// Flows in the network.
    pub flows: usize,
    /// The flows routed through this port, ascending (its per-VC tables hold only these).
    pub vcs: &'a [u32],
    /// Where each (flow, hop) finds its slot in this port's tables.
    pub slots: VcSlots,
    /// The RM-cell fields of each flow's ABR source that do not change during a run (MCR,
    /// weight), which a cell does not carry, indexed by flow (see [`RmFields`]).
    pub rm_fields: &'a [RmFields],
}

/// The fields of a VC's forward RM cells that stay the same for the whole connection:
/// the source's MCR (TM 4.0 section 5.10.3.1 carries it in every RM cell) and its weight
/// for general weighted fairness (ATMF 98-0408, which a switch learns at connection
/// set-up). A cell carries only what changes, ER and CCR, so that it stays 16 bytes
/// ([`Cell`]; issue 14, memory per VC); an allocator reads these instead, at the forward RM
/// cells where it would read the cell's fields. Both are rounded to 32 bits, as in a cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RmFields {
    /// Minimum cell rate, cells/s.
    pub mcr: f64,
    /// General-weighted-fairness weight (1 when the source gives none).
    pub weight: f64,
}

impl Default for RmFields {
    fn default() -> Self {
        RmFields {
            mcr: 0.0,
            weight: 1.0,
        }
    }
}

impl RmFields {
    /// The fields as the source `(mcr, weight)` writes them: each rounded to 32 bits, and a
    /// weight whose 32 bits are zero read as 1.
    pub fn of_source(mcr: f64, weight: f64) -> RmFields {
        let w = weight as f32;
        RmFields {
            mcr: mcr as f32 as f64,
            weight: if w.to_bits() == 0 { 1.0 } else { w as f64 },
        }
    }
}

/// The cells an allocator's [`RateAllocator::on_arrival`] can act on
/// ([`RateAllocator::cells_taken`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellsTaken {
    /// None (no allocator: [`NoAllocator`]).
    None,
    /// Forward RM cells only.
    ForwardRm,
    /// Every cell.
    All,
}

impl CellsTaken {
    /// True if `cell` is one of them.
    #[inline]
    pub fn takes(self, cell: &Cell) -> bool {
        self.rule().takes(cell)
    }

    /// The test a port applies to each arriving cell ([`TakeRule`]).
    pub fn rule(self) -> TakeRule {
        match self {
            CellsTaken::None => TakeRule { mask: 0, want: 1 },
            CellsTaken::ForwardRm => TakeRule {
                mask: flag::RM | flag::DIR,
                want: flag::RM,
            },
            CellsTaken::All => TakeRule { mask: 0, want: 0 },
        }
    }
}

/// Which arriving cells a port hands its allocator, as one test of the cell's flags: taken
/// when `flags & mask == want` ([`CellsTaken::rule`]). Kept in the port, so that a cell the
/// allocator does not take costs neither a branch on the allocator's kind nor a read of
/// its record (issue 14).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TakeRule {
    mask: u16,
    want: u16,
}

impl TakeRule {
    /// True if a port with this rule hands `cell` to its allocator.
    #[inline(always)]
    pub fn takes(self, cell: &Cell) -> bool {
        cell.flags & self.mask == self.want
    }
}

/// What a rate allocator does, at one output port. Every hook has a default that gives no
/// feedback, so an algorithm implements only what it uses.
pub trait RateAllocator {
    /// Bytes of state the allocator keeps per VC routed through its port (its per-VC
    /// table): the memory estimate of [`crate::footprint`] reads it, so a new allocator's
    /// tables are counted without a list kept elsewhere.
    const BYTES_PER_VC: u64 = 0;
    /// Whether the port must call [`RateAllocator::on_arrival`] (false only for
    /// [`NoAllocator`], which saves the call on the per-cell path).
    #[inline]
    fn is_active(&self) -> bool {
        true
    }
    /// Which cells [`RateAllocator::on_arrival`] of an active allocator can do anything with
    /// (mark them, count them, end an interval), the same for the whole run: the port keeps
    /// the answer ([`CellsTaken::rule`]) and calls it only for those. Default: every cell.
    /// An allocator that acts on some cells only (KVR: forward RM cells, unless it measures
    /// rates) says so here, which saves the call for the others on the per-cell path (issue
    /// 14: 4 % of the instructions of a 10-VC KVR run), and the read of its record (a cache
    /// miss at a port of one VC). It must leave out only cells whose `on_arrival` would
    /// change nothing and return false.
    fn cells_taken(&self) -> CellsTaken {
        CellsTaken::All
    }
    /// A cell arrives at the port (any class, before admission). `abr_queue` is the ABR
    /// queue length before it. May mark the cell. Returns true if this arrival ended the
    /// averaging interval (the engine then re-arms the interval timer).
    #[inline]
    fn on_arrival(&mut self, _now: Time, _cell: &mut Cell, _abr_queue: u32) -> bool {
        false
    }
    /// A backward RM cell of a VC whose forward path leaves through this port passes the
    /// switch. The allocator may lower its ER (and set CI or NI).
    #[inline]
    fn on_backward_rm(&mut self, _now: Time, _cell: &mut Cell) {}
    /// The interval timer fired: end the averaging interval at `now`.
    fn on_timer(&mut self, _now: Time, _abr_queue: u32) {}
    /// When the current averaging interval ends by time (None: no timed intervals).
    fn interval_deadline(&self) -> Option<Time> {
        None
    }
    /// A counter that changes whenever a new interval starts (stale timers are ignored).
    fn generation(&self) -> u32 {
        0
    }
    /// Where the engine keeps this allocator's interval timer in the event queue, for an
    /// allocator with timed intervals: a [`LatestTimer`] field of its own, returned here,
    /// keeps at most one event queued however often intervals end early by count (issue
    /// 14: at a trunk port of 10 000 VCs, thousands of stale timers were pending). The
    /// default, none, has every arming scheduled and the stale ones popped and ignored:
    /// the same run, with more events. The engine rebuilds a waiting timer's event from
    /// [`RateAllocator::interval_deadline`] and [`RateAllocator::generation`] when the stale
    /// one pops, so an allocator that returns one must keep both unchanged between the
    /// starts of its intervals, change the generation at each start, and never move a
    /// deadline earlier than the one before (ERICA and GW: the start plus a fixed length).
    fn interval_timer(&mut self) -> Option<&mut LatestTimer> {
        None
    }
    /// What the `allocator` trace shows of the allocator's state, mapped onto the trace's
    /// shared columns (an [`AllocatorView`] from [`AllocatorView::unknown`], with the
    /// quantities the algorithm has). Default: None, no rate state to show (the trace then
    /// has no row for the port). Read only: tracing never changes an allocator.
    fn trace_view(&self) -> Option<AllocatorView> {
        None
    }
    /// Whether the allocator writes its feedback into forward RM cells (KVR) rather than
    /// backward ones: the `allocator` trace records its decisions at those cells. Default:
    /// backward RM cells.
    fn feedback_on_forward_rm(&self) -> bool {
        false
    }
    /// Signalling: ABR connection `vc` (its forward flow index) opens at this port.
    fn on_open(&mut self, _vc: usize) {}
    /// Signalling: ABR connection `vc` closes at this port.
    fn on_close(&mut self, _vc: usize) {}
    /// Signalling: a VBR connection reserving `rate` cells/s opens (positive) or closes
    /// (negative) through this port.
    fn on_reserve(&mut self, _rate: f64) {}
}

registry! { $
    /// The rate allocators, as scenario files name them (`allocator = { kind = ... }`).
    names: ALLOCATORS;
    /// An ABR rate allocator (switch algorithm), chosen by `kind`.
    spec: AllocatorSpec;
    /// A resolved allocator configuration.
    cfg: AllocatorCfg;
    /// The allocator of a port, dispatched statically.
    #[derive(Debug)]
    any: AnyAllocator;
    context: (); environment: PortEnv<'_>; dispatch: dispatch_allocator;
    entries: [
        None = "none", "no ABR feedback from this port (the default)":
            NoAllocatorSpec => NoAllocator as NoAllocator;
        Erica = "erica", "ERICA with every option of seed 003 section 4 (spec section 2)":
            EricaSpec => Box<Erica> as Erica;
        ModifiedErica = "modified_erica", "ERICA with seed 000's option defaults (ATMF 96-0517; spec 2.7)":
            ModifiedEricaSpec => Box<Erica> as Erica;
        EricaPlus = "erica_plus", "ERICA+: a queueing-delay target T0 with a, b and QDLF (seed 003 4.4; spec 3)":
            EricaPlusSpec => Box<Erica> as Erica;
        Efci = "efci", "binary feedback: EFCI set on ABR data cells at a queue threshold (TM 4.0)":
            EfciSpec => Box<Efci> as Efci;
        Kvr = "kvr", "the Kalampoukas-Varma-Ramakrishnan O(1) allocator on forward RM cells (seed 004 Fig 2.1)":
            KvrSpec => Box<Kvr> as Kvr;
        Gw = "gw", "general weighted fairness with MCR guarantees, overload based (ATMF 98-0408)":
            GwSpec => Box<Gw> as Gw;
    ]
}

impl Default for AllocatorSpec {
    fn default() -> Self {
        AllocatorSpec::None(NoAllocatorSpec {})
    }
}

impl AllocatorCfg {
    /// The ERICA configuration when the allocator runs ERICA (erica, modified_erica,
    /// erica_plus), for checks that look at its averaging interval.
    pub fn erica(&self) -> Option<&EricaCfg> {
        match self {
            AllocatorCfg::Erica(e)
            | AllocatorCfg::ModifiedErica(e)
            | AllocatorCfg::EricaPlus(e) => Some(e),
            _ => None,
        }
    }
}

impl Default for AllocatorCfg {
    fn default() -> Self {
        AllocatorCfg::None(NoAllocator)
    }
}

impl AllocatorCfg {
    /// Bytes of per-VC state the configured allocator keeps at a port
    /// ([`RateAllocator::BYTES_PER_VC`] of its type).
    pub fn bytes_per_vc(&self) -> u64 {
        dispatch_allocator!(@cfg self, _c: T => <T as RateAllocator>::BYTES_PER_VC)
    }
}

impl AnyAllocator {
    /// Bytes of the allocator's record outside its port (its box; not the per-VC tables
    /// it points to): what [`crate::network::Network::state_bytes`] counts of it.
    pub fn record_bytes(&self) -> usize {
        dispatch_allocator!(self, a => OutOfLine::bytes(a))
    }
}

/// The bytes of a running allocator kept outside its port: the boxed record of an
/// algorithm with state, nothing for [`NoAllocator`].
trait OutOfLine {
    fn bytes(&self) -> usize;
}

impl<T> OutOfLine for Box<T> {
    fn bytes(&self) -> usize {
        std::mem::size_of::<T>()
    }
}

impl OutOfLine for NoAllocator {
    fn bytes(&self) -> usize {
        0
    }
}

impl RateAllocator for AnyAllocator {
    #[inline]
    fn is_active(&self) -> bool {
        dispatch_allocator!(self, a => a.is_active())
    }
    fn cells_taken(&self) -> CellsTaken {
        dispatch_allocator!(self, a => a.cells_taken())
    }
    #[inline]
    fn on_arrival(&mut self, now: Time, cell: &mut Cell, abr_queue: u32) -> bool {
        dispatch_allocator!(self, a => a.on_arrival(now, cell, abr_queue))
    }
    #[inline]
    fn on_backward_rm(&mut self, now: Time, cell: &mut Cell) {
        dispatch_allocator!(self, a => a.on_backward_rm(now, cell))
    }
    fn on_timer(&mut self, now: Time, abr_queue: u32) {
        dispatch_allocator!(self, a => a.on_timer(now, abr_queue))
    }
    fn interval_deadline(&self) -> Option<Time> {
        dispatch_allocator!(self, a => a.interval_deadline())
    }
    fn generation(&self) -> u32 {
        dispatch_allocator!(self, a => a.generation())
    }
    fn interval_timer(&mut self) -> Option<&mut LatestTimer> {
        dispatch_allocator!(self, a => a.interval_timer())
    }
    fn trace_view(&self) -> Option<AllocatorView> {
        dispatch_allocator!(self, a => a.trace_view())
    }
    fn feedback_on_forward_rm(&self) -> bool {
        dispatch_allocator!(self, a => a.feedback_on_forward_rm())
    }
    fn on_open(&mut self, vc: usize) {
        dispatch_allocator!(self, a => a.on_open(vc))
    }
    fn on_close(&mut self, vc: usize) {
        dispatch_allocator!(self, a => a.on_close(vc))
    }
    fn on_reserve(&mut self, rate: f64) {
        dispatch_allocator!(self, a => a.on_reserve(rate))
    }
}
