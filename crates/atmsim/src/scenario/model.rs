//! The resolved scenario: what the engine builds from, every value checked and every
//! default filled (see [`super::resolve`]).

pub use crate::drop_policy::PolicyCfg;
pub use crate::tcp::config::{TcpApp, TcpParams};
use super::schema::NodeKind;
use super::traffic::CellApp;
use crate::abr::AbrParams;
use crate::allocator::AllocatorCfg;
use atmsim_kernel::Time;

/// Propagation delay of fibre: 5 us per km (seeds 000-003).
pub const PS_PER_KM: f64 = 5.0e6;
/// Default link rate: raw OC-3, 155.52 Mbit/s (seeds 000, 001).
pub const DEFAULT_LINK_RATE_BPS: f64 = 155.52e6;

pub use crate::cell::ServiceClass;

/// A resolved node.
#[derive(Clone, Debug)]
pub struct NodeCfg {
    /// Name.
    pub name: String,
    /// Host or switch.
    pub kind: NodeKind,
}

/// A resolved output port (one direction of a link).
#[derive(Clone, Debug)]
pub struct PortCfg {
    /// `"sw1->sw2"`.
    pub name: String,
    /// Owning node index.
    pub node: usize,
    /// Neighbour node index.
    pub toward: usize,
    /// Line rate, bit/s (integer, for exact cell timing).
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub prop: Time,
    /// Buffer limit in cells (None = unlimited).
    pub buffer: Option<u32>,
    /// Drop policy.
    pub policy: PolicyCfg,
    /// ABR rate allocator.
    pub allocator: AllocatorCfg,
}

/// A resolved connection.
#[derive(Clone, Debug)]
pub struct ConnectionCfg {
    /// Name.
    pub name: String,
    /// Source node index.
    pub from: usize,
    /// Destination node index.
    pub to: usize,
    /// Node indices crossed, source to destination.
    pub route: Vec<usize>,
    /// Ports crossed by the forward (data) direction.
    pub fwd_ports: Vec<usize>,
    /// Ports crossed by the backward (ACK) direction.
    pub bwd_ports: Vec<usize>,
    /// Service class.
    pub class: ServiceClass,
    /// Start time.
    pub start: Time,
    /// Stop time (no new data after it).
    pub stop: Option<Time>,
    /// LLC/SNAP encapsulation.
    pub llc_snap: bool,
    /// TCP parameters (TCP traffic only).
    pub tcp: Option<TcpParams>,
    /// Cell-level application (all traffic but TCP).
    pub app: Option<CellApp>,
    /// ABR source parameters of both directions (service ABR only).
    pub abr: Option<AbrParams>,
    /// Bandwidth reserved along the route while open, cells/s (VBR/CBR; 0: none).
    pub reserve: f64,
    /// Openings reach every switch at once (the connection was set up before its start).
    pub pre_established: bool,
}

impl ConnectionCfg {
    /// TCP parameters; panics for a cell-level connection (an engine invariant).
    #[inline]
    pub fn tcp(&self) -> &TcpParams {
        self.tcp.as_ref().expect("a TCP connection")
    }
}

/// A validated scenario, ready to build.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Name.
    pub name: String,
    /// Seed.
    pub seed: u64,
    /// Duration.
    pub duration: Time,
    /// Warm-up.
    pub warmup: Time,
    /// Sample interval (None = no time series).
    pub sample_interval: Option<Time>,
    /// Reference rate for efficiency, bit/s.
    pub efficiency_rate_bps: f64,
    /// Nodes.
    pub nodes: Vec<NodeCfg>,
    /// Ports.
    pub ports: Vec<PortCfg>,
    /// Connections.
    pub connections: Vec<ConnectionCfg>,
    /// Faults to inject.
    pub faults: Vec<FaultCfg>,
    /// Per-event traces to record (`[trace]`; recorded only when a sink is attached).
    pub trace: Option<crate::trace::TraceCfg>,
}

/// Which cells a fault hits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultCell {
    /// Data cells.
    Data,
    /// RM cells.
    Rm,
    /// Any cell.
    Any,
}

impl FaultCell {
    /// Whether `cell` is of this kind.
    #[inline]
    pub fn matches(self, cell: &crate::cell::Cell) -> bool {
        match self {
            FaultCell::Data => !cell.is_rm(),
            FaultCell::Rm => cell.is_rm(),
            FaultCell::Any => true,
        }
    }
}

/// A resolved fault: the next `count` cells of `kind` of flow `flow` offered to port
/// `port` at or after `at` are lost.
#[derive(Clone, Debug, PartialEq)]
pub struct FaultCfg {
    /// Flow index (2c forward, 2c + 1 reverse).
    pub flow: usize,
    /// Port index.
    pub port: usize,
    /// From when.
    pub at: Time,
    /// Which cells.
    pub cell: FaultCell,
    /// How many.
    pub count: u32,
}

impl Scenario {
    /// For every port, whether any connection's route (either direction) crosses it.
    pub fn used_ports(&self) -> Vec<bool> {
        let mut used = vec![false; self.ports.len()];
        for c in &self.connections {
            for &p in c.fwd_ports.iter().chain(c.bwd_ports.iter()) {
                used[p] = true;
            }
        }
        used
    }
}

