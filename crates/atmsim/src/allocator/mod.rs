//! ABR rate allocators ("switch algorithms"), run per output port.
//!
//! An allocator watches the cells that enter its port (to measure load, capacity and the
//! active VCs) and writes feedback into RM cells: ERICA and ERICA+ lower the ER field of
//! backward RM cells of the VCs whose *forward* path leaves through the port (spec 2.1);
//! EFCI marking sets the EFCI bit of forward data cells. A switch only ever lowers ER.
//!
//! One file per algorithm: [`erica`] (ERICA with every option of seed 003 section 4),
//! [`erica_plus`] (its queue-control function, seed 003 4.4 and spec 3), [`efci`], and
//! [`kvr`] (the O(1) allocator of seed 004, which works on forward RM cells and needs
//! connection open/close signalling and VBR reservations: [`RateAllocator::on_open`],
//! [`RateAllocator::on_close`], [`RateAllocator::on_reserve`]).
//! The engine holds an [`AnyAllocator`] per port and dispatches statically.

pub mod efci;
pub mod erica;
pub mod erica_plus;
pub mod kvr;

pub use efci::Efci;
pub use erica::{Erica, EricaCfg, LoadAvg};
pub use erica_plus::QueueControl;
pub use kvr::{Kvr, KvrCfg};

use crate::cell::Cell;
use atmsim_kernel::Time;

/// What a rate allocator does, at one output port.
pub trait RateAllocator {
    /// A cell arrives at the port (any class, before admission). `abr_queue` is the ABR
    /// queue length before it. May mark the cell. Returns true if this arrival ended the
    /// averaging interval (the engine then re-arms the interval timer).
    fn on_arrival(&mut self, now: Time, cell: &mut Cell, abr_queue: u32) -> bool;
    /// A backward RM cell of a VC whose forward path leaves through this port passes the
    /// switch. The allocator may lower its ER (and set CI or NI).
    fn on_backward_rm(&mut self, now: Time, cell: &mut Cell);
    /// The interval timer fired: end the averaging interval at `now`.
    fn on_timer(&mut self, now: Time, abr_queue: u32);
    /// When the current averaging interval ends by time (None: no timed intervals).
    fn interval_deadline(&self) -> Option<Time>;
    /// A counter that changes whenever a new interval starts (stale timers are ignored).
    fn generation(&self) -> u32;
    /// Signalling: ABR connection `vc` (its forward flow index) opens at this port.
    fn on_open(&mut self, _vc: usize) {}
    /// Signalling: ABR connection `vc` closes at this port.
    fn on_close(&mut self, _vc: usize) {}
    /// Signalling: a VBR connection reserving `rate` cells/s opens (positive) or closes
    /// (negative) through this port.
    fn on_reserve(&mut self, _rate: f64) {}
}

/// The allocator of a port; `None` gives no feedback.
#[derive(Debug)]
pub enum AnyAllocator {
    /// No ABR feedback.
    None,
    /// ERICA or ERICA+.
    Erica(Box<Erica>),
    /// EFCI marking.
    Efci(Efci),
    /// The KVR O(1) allocator (seed 004).
    Kvr(Box<Kvr>),
}

/// A resolved allocator configuration.
#[derive(Clone, Debug, PartialEq)]
pub enum AllocatorCfg {
    /// No feedback.
    None,
    /// ERICA (with `plus` set: ERICA+).
    Erica(EricaCfg),
    /// EFCI marking at this ABR queue threshold (cells).
    Efci {
        /// Threshold, cells.
        threshold: u32,
    },
    /// The KVR allocator.
    Kvr(KvrCfg),
}

/// Names of the allocator kinds, as written in scenario files.
pub const ALLOCATOR_NAMES: [&str; 6] = [
    "none",
    "erica",
    "modified_erica",
    "erica_plus",
    "efci",
    "kvr",
];

impl AnyAllocator {
    /// Builds an allocator for a port of `link_rate` cells/s carrying `flows` flows.
    pub fn from_cfg(cfg: &AllocatorCfg, link_rate: f64, flows: usize) -> AnyAllocator {
        match cfg {
            AllocatorCfg::None => AnyAllocator::None,
            AllocatorCfg::Erica(c) => {
                AnyAllocator::Erica(Box::new(Erica::new(c.clone(), link_rate, flows)))
            }
            AllocatorCfg::Efci { threshold } => AnyAllocator::Efci(Efci::new(*threshold)),
            AllocatorCfg::Kvr(c) => {
                AnyAllocator::Kvr(Box::new(Kvr::new(c.clone(), link_rate, flows)))
            }
        }
    }

    /// True unless this is [`AnyAllocator::None`].
    #[inline]
    pub fn is_active(&self) -> bool {
        !matches!(self, AnyAllocator::None)
    }
}

impl RateAllocator for AnyAllocator {
    #[inline]
    fn on_arrival(&mut self, now: Time, cell: &mut Cell, abr_queue: u32) -> bool {
        match self {
            AnyAllocator::None => false,
            AnyAllocator::Erica(e) => e.on_arrival(now, cell, abr_queue),
            AnyAllocator::Efci(e) => e.on_arrival(now, cell, abr_queue),
            AnyAllocator::Kvr(k) => k.on_arrival(now, cell, abr_queue),
        }
    }
    #[inline]
    fn on_backward_rm(&mut self, now: Time, cell: &mut Cell) {
        match self {
            AnyAllocator::None => {}
            AnyAllocator::Erica(e) => e.on_backward_rm(now, cell),
            AnyAllocator::Efci(e) => e.on_backward_rm(now, cell),
            AnyAllocator::Kvr(k) => k.on_backward_rm(now, cell),
        }
    }
    fn on_timer(&mut self, now: Time, abr_queue: u32) {
        match self {
            AnyAllocator::None => {}
            AnyAllocator::Erica(e) => e.on_timer(now, abr_queue),
            AnyAllocator::Efci(e) => e.on_timer(now, abr_queue),
            AnyAllocator::Kvr(k) => k.on_timer(now, abr_queue),
        }
    }
    fn interval_deadline(&self) -> Option<Time> {
        match self {
            AnyAllocator::None => None,
            AnyAllocator::Erica(e) => e.interval_deadline(),
            AnyAllocator::Efci(e) => e.interval_deadline(),
            AnyAllocator::Kvr(k) => k.interval_deadline(),
        }
    }
    fn generation(&self) -> u32 {
        match self {
            AnyAllocator::None => 0,
            AnyAllocator::Erica(e) => e.generation(),
            AnyAllocator::Efci(e) => e.generation(),
            AnyAllocator::Kvr(k) => k.generation(),
        }
    }
    fn on_open(&mut self, vc: usize) {
        if let AnyAllocator::Kvr(k) = self {
            k.open(vc);
        }
    }
    fn on_close(&mut self, vc: usize) {
        if let AnyAllocator::Kvr(k) = self {
            k.close(vc);
        }
    }
    fn on_reserve(&mut self, rate: f64) {
        if let AnyAllocator::Kvr(k) = self {
            k.reserve(rate);
        }
    }
}
