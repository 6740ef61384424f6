//! The resolved scenario: what the engine builds from, every value checked and every
//! default filled (see [`super::resolve`]).

use super::names::PackedNames;
use super::paths::{Path, Paths};
use super::schema::{Name, NodeKind};
use super::traffic::CellApp;
use crate::abr::AbrParams;
use crate::allocator::AllocatorCfg;
pub use crate::drop_policy::PolicyCfg;
pub use crate::tcp::config::{TcpApp, TcpParams};
use atmsim_kernel::{MaybeTime, Time};
use std::sync::Arc;

/// Propagation delay of fibre: 5 us per km (seeds 000-003).
pub const PS_PER_KM: f64 = 5.0e6;
/// Default link rate: raw OC-3, 155.52 Mbit/s (seeds 000, 001).
pub const DEFAULT_LINK_RATE_BPS: f64 = 155.52e6;

pub use crate::cell::ServiceClass;

/// The resolved nodes, by index: each node's name and kind ([`NodeTable::name`],
/// [`NodeTable::kind`]), the names back to back in one string.
///
/// Issue 14 (memory per VC): a node of its own held its name inline in 24 bytes and its
/// kind padded to 8, 32 bytes a node, 64 of every one-pair VC at 10 000 VCs; here a node
/// is its name's bytes, the 4-byte end of it and a byte of kind (about 12 bytes for names
/// like `src1234`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeTable {
    /// The names, back to back.
    names: PackedNames,
    /// Each node's kind.
    kinds: Vec<NodeKind>,
}

/// The most bytes the names of a scenario's nodes may take together (a [`NodeTable`] keeps
/// where each ends in 32 bits; checked when resolving: [`super::nodes`]).
pub const MAX_NODE_NAME_BYTES: usize = super::names::MAX_NAME_BYTES;

impl NodeTable {
    /// An empty table with room for `nodes` nodes whose names take `name_bytes` bytes.
    pub fn with_capacity(nodes: usize, name_bytes: usize) -> NodeTable {
        NodeTable {
            names: PackedNames::with_capacity(nodes, name_bytes),
            kinds: Vec::with_capacity(nodes),
        }
    }

    /// Adds node `name` of `kind`; its index is the count before.
    ///
    /// # Panics
    /// If the names would take more than [`MAX_NODE_NAME_BYTES`] (resolving refuses such a
    /// scenario first).
    pub fn push(&mut self, name: &str, kind: NodeKind) {
        self.names.push(name);
        self.kinds.push(kind);
    }

    /// How many nodes.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// Node `i`'s name.
    pub fn name(&self, i: usize) -> &str {
        self.names.get(i)
    }

    /// Node `i`'s kind.
    pub fn kind(&self, i: usize) -> NodeKind {
        self.kinds[i]
    }

    /// Whether node `i` is a switch.
    pub fn is_switch(&self, i: usize) -> bool {
        self.kinds[i] == NodeKind::Switch
    }

    /// The nodes' names, in index order.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.names.iter()
    }

    /// The bytes the table holds on the heap (its names, ends and kinds, with their spare
    /// room).
    pub fn heap_bytes(&self) -> usize {
        self.names.heap_bytes() + self.kinds.capacity() * std::mem::size_of::<NodeKind>()
    }
}

/// What a port takes from its link, `[defaults]` and its `[[port]]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct PortSettings {
    /// Line rate, bit/s (integer, for exact cell timing).
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub prop: Time,
    /// Buffer limit in cells (None = unlimited).
    pub buffer: Option<u32>,
    /// Drop policy.
    pub policy: PolicyCfg,
    /// ABR rate allocator (a configuration is 128 bytes).
    pub allocator: Arc<AllocatorCfg>,
}

/// A node index in 32 bits (resolved ports and connections hold them so: issue 14).
pub(super) fn node_id(i: usize) -> u32 {
    u32::try_from(i).expect("fewer than 2^32 nodes")
}

/// A resolved connection. Its name and its path are in the scenario's lists, at its index
/// ([`Scenario::connection_name`], [`Scenario::path`]; its ends are its route's first and
/// last nodes). Issue 14: with them, the stop time in 8 bytes and the application shared,
/// it was 168 bytes; it is 56.
#[derive(Clone, Debug)]
pub struct ConnectionCfg {
    /// Service class.
    pub class: ServiceClass,
    /// Start time.
    pub start: Time,
    /// Stop time (no new data after it): [`ConnectionCfg::stop`].
    pub(super) stop: MaybeTime,
    /// LLC/SNAP encapsulation.
    pub llc_snap: bool,
    /// TCP parameters (TCP traffic only), shared by the connections whose parameters are
    /// equal.
    pub tcp: Option<std::sync::Arc<TcpParams>>,
    /// Cell-level application (all traffic but TCP), shared by the connections whose
    /// applications are equal.
    pub app: Option<std::sync::Arc<CellApp>>,
    /// ABR source parameters of both directions (service ABR only), shared by the
    /// connections whose parameters are equal.
    pub abr: Option<std::sync::Arc<AbrParams>>,
    /// Bandwidth reserved along the route while open, cells/s (VBR/CBR; 0: none).
    pub reserve: f64,
    /// Openings reach every switch at once (the connection was set up before its start).
    pub pre_established: bool,
}

impl ConnectionCfg {
    /// Stop time (no new data after it).
    #[inline]
    pub fn stop(&self) -> Option<Time> {
        self.stop.get()
    }

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
    pub nodes: NodeTable,
    /// Ports.
    pub ports: super::port_table::PortTable,
    /// Connections: each one's configuration, equal ones sharing a record
    /// ([`super::ConnectionTable`]; issue 14: 56 bytes each, nearly all alike).
    pub connections: super::ConnectionTable,
    /// The connections' paths, in the same order ([`Scenario::path`]; issue 14: each boxed
    /// in its connection took 16 bytes and an allocation of its own).
    pub paths: Paths,
    /// The connections' names, in the same order ([`Scenario::connection_name`]; issue 14:
    /// each held inline in its connection took 24 bytes).
    pub connection_names: PackedNames,
    /// Faults to inject.
    pub faults: Vec<FaultCfg>,
    /// Order in which same-instant arrivals enter a switch output queue.
    pub arrival_order: ArrivalOrder,
    /// Per-event traces to record (`[trace]`; recorded only when a sink is attached).
    pub trace: Option<crate::trace::TraceCfg>,
}

impl Scenario {
    /// The name of port `p`, `"sw1->sw2"` ([`super::port_table::PortRef::name`]).
    pub fn port_name(&self, p: usize) -> Name {
        self.ports.at(p).name(&self.nodes)
    }

    /// The name of connection `c`.
    pub fn connection_name(&self, c: usize) -> &str {
        self.connection_names.get(c)
    }

    /// Panics unless every connection has a name and a path: the three lists are read by
    /// the same index (resolving makes them so; a scenario changed by hand must keep them
    /// so).
    pub fn assert_connection_lists(&self) {
        let n = self.connections.len();
        assert!(
            self.paths.len() == n && self.connection_names.len() == n,
            "{n} connections, {} paths and {} names: each connection needs its name and path",
            self.paths.len(),
            self.connection_names.len()
        );
    }

    /// The path of connection `c`: its route and the ports it crosses each way.
    #[inline]
    pub fn path(&self, c: usize) -> Path<'_> {
        self.paths.get(c)
    }
}

/// The order in which cells reaching a switch at the same instant from several inputs
/// enter an output port's queue (`defaults.arrival_order`; no seed states it, issue 15
/// section 4; `sim/arrival_order.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ArrivalOrder {
    /// Each cell enters when its arrival event runs (events of one instant in the order
    /// they were scheduled): the behaviour before the option existed.
    #[default]
    EventOrder,
    /// By input port, in the order the links are declared.
    InputOrder,
    /// The input after the one served first last time goes first.
    RoundRobin,
    /// A uniform shuffle (the run's random stream `"arrival_order"`).
    Random,
}

impl ArrivalOrder {
    /// The accepted names.
    pub const NAMES: [&'static str; 4] = ["event_order", "input_order", "round_robin", "random"];

    /// Reads `defaults.arrival_order` (unset: `event_order`).
    pub fn parse(v: Option<&str>) -> Result<Self, crate::config::ConfigError> {
        Ok(match v {
            None | Some("event_order") => ArrivalOrder::EventOrder,
            Some("input_order") => ArrivalOrder::InputOrder,
            Some("round_robin") => ArrivalOrder::RoundRobin,
            Some("random") => ArrivalOrder::Random,
            Some(other) => {
                return crate::config::err(
                    "defaults.arrival_order",
                    format!(
                        "{other:?} is not an arrival order; allowed: {}",
                        Self::NAMES.join(", ")
                    ),
                )
            }
        })
    }
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
        for c in self.paths.iter() {
            for &p in c.fwd_ports().iter().chain(c.bwd_ports()) {
                used[p as usize] = true;
            }
        }
        used
    }

    /// The connections whose `start` is at or after the run's end, by index: they open in
    /// no part of the run and send nothing in it (valid: a run cut short to see a
    /// transient, with later connections left in). Results leave them out of the fair
    /// shares and the fairness indices, and say so ([`crate::RunResult::late_connections`]).
    pub fn late_connections(&self) -> Vec<usize> {
        let mut late = Vec::new();
        for (k, c) in self.connections.iter().enumerate() {
            if c.start >= self.duration {
                late.push(k);
            }
        }
        late
    }
}

#[cfg(test)]
mod tests {
    use super::NodeTable;
    use crate::scenario::schema::NodeKind;

    #[test]
    fn a_node_table_gives_back_each_name_and_kind() {
        let given = [
            ("sw1", NodeKind::Switch),
            ("h\u{e9}te 2", NodeKind::Host),
            ("a name longer than twenty-three bytes", NodeKind::Host),
            ("x", NodeKind::Switch),
        ];
        let names: usize = given.iter().map(|g| g.0.len()).sum();
        let mut t = NodeTable::with_capacity(given.len(), names);
        assert!(t.is_empty());
        for (name, kind) in given {
            t.push(name, kind);
        }
        assert_eq!(t.len(), 4);
        for (i, (name, kind)) in given.iter().enumerate() {
            assert_eq!((t.name(i), t.kind(i)), (*name, *kind));
            assert_eq!(t.is_switch(i), *kind == NodeKind::Switch);
        }
        assert_eq!(t.names().collect::<Vec<_>>(), given.map(|g| g.0));
        // Made at its size, as resolving makes it: the names back to back and 5 bytes a
        // node besides (issue 14: 32 bytes each as a record of its own).
        assert_eq!(t.heap_bytes(), names + 5 * given.len());
    }

    #[test]
    fn a_resolved_connection_is_56_bytes() {
        // Its name and path in the scenario's lists, its ends read from its route, the stop
        // time in 8 bytes, the application shared: 10 000 one-pair VCs hold 1.1 MB less
        // than at 168 bytes (issue 14).
        assert_eq!(std::mem::size_of::<super::ConnectionCfg>(), 56);
    }
}
