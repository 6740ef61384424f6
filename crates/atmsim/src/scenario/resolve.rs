//! Validation: from a parsed [`ScenarioFile`] to a resolved, consistent [`Scenario`].
//!
//! Every check that can fail names the key path, the value given and what is allowed.
//! After this step the engine can trust its input; it never panics on user data.

use super::error::ScenarioError;
use super::resolve_abr::{resolve_abr, resolve_allocator, resolve_cell_app, CellApp};
use super::schema::*;
use crate::units::{BufferSize, Granularity, Threshold, TickPhase};
use crate::abr::AbrParams;
use crate::allocator::AllocatorCfg;
use atmsim_kernel::{Time, PS_PER_MS, PS_PER_S};
use std::collections::{BTreeMap, VecDeque};

/// Propagation delay of fibre: 5 us per km (seeds 000-003).
pub const PS_PER_KM: f64 = 5.0e6;
/// Default link rate: raw OC-3, 155.52 Mbit/s (seeds 000, 001).
pub const DEFAULT_LINK_RATE_BPS: f64 = 155.52e6;

/// ATM service class; also the strict-priority order at a port (lower = served first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ServiceClass {
    /// Constant bit rate.
    Cbr = 0,
    /// Variable bit rate.
    Vbr = 1,
    /// Available bit rate.
    Abr = 2,
    /// Unspecified bit rate.
    Ubr = 3,
}

/// A resolved node.
#[derive(Clone, Debug)]
pub struct NodeCfg {
    /// Name.
    pub name: String,
    /// Host or switch.
    pub kind: NodeKind,
}

/// A resolved drop policy with its threshold in cells.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PolicyCfg {
    /// Tail drop.
    TailDrop,
    /// Partial packet discard.
    Ppd,
    /// Early packet discard with threshold R (cells).
    Epd {
        /// R in cells.
        r: f64,
    },
    /// Selective drop.
    SelectiveDrop {
        /// R in cells.
        r: f64,
        /// Z.
        z: f64,
    },
    /// Fair buffer allocation.
    Fba {
        /// R in cells.
        r: f64,
        /// Z.
        z: f64,
    },
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

/// Resolved TCP parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpParams {
    /// MSS, bytes.
    pub mss: u32,
    /// Max window, bytes.
    pub window: u64,
    /// Congestion control with its parameters.
    pub congestion: crate::tcp::CongestionConfig,
    /// Tick length, or None for exact timers.
    pub tick: Option<Time>,
    /// Initial RTO.
    pub rto_initial: Time,
    /// Minimum RTO.
    pub rto_min: Time,
    /// Maximum RTO.
    pub rto_max: Time,
    /// Delayed ACKs on.
    pub delayed_ack: bool,
    /// Delayed ACK timeout.
    pub delayed_ack_timeout: Time,
    /// Initial ssthresh, bytes.
    pub initial_ssthresh: u64,
    /// Receiver keeps out-of-order segments.
    pub keep_out_of_order: bool,
    /// Tick phase offset (None = random, drawn at build time from the run seed).
    pub tick_phase: Option<Time>,
    /// The application writing into the socket.
    pub app: TcpApp,
}

/// The application above a TCP sender (resolved from `traffic.application`).
#[derive(Clone, Debug, PartialEq)]
pub enum TcpApp {
    /// Infinite bulk transfer.
    Bulk,
    /// Seed 002's worst-case generator: one segment every `interval` from the start,
    /// `segments` of them, then `burst_segments` at once at `burst_at` (absolute time).
    Periodic {
        /// Time between single-segment writes.
        interval: Time,
        /// Number of single-segment writes.
        segments: u32,
        /// Segments of the final write.
        burst_segments: u32,
        /// Time of the final write.
        burst_at: Time,
    },
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

fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(path, msg))
}

fn list(names: &[&str]) -> String {
    const MAX: usize = 12;
    let mut s = names
        .iter()
        .take(MAX)
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > MAX {
        s.push_str(&format!(", ... ({} in all)", names.len()));
    }
    s
}

/// Validates and resolves a parsed scenario.
pub fn resolve(f: &ScenarioFile) -> Result<Scenario, ScenarioError> {
    // Measurement.
    let duration = f.measurement.duration.ps();
    if duration == 0 {
        return err("measurement.duration", "must be longer than 0 s");
    }
    let warmup = f.measurement.warmup.map(|d| d.ps()).unwrap_or(0);
    if warmup >= duration {
        return err(
            "measurement.warmup",
            format!(
                "{} is not shorter than measurement.duration = {}",
                f.measurement.warmup.unwrap(),
                f.measurement.duration
            ),
        );
    }
    let sample_interval = match f.measurement.sample_interval {
        None => Some((duration / 1000).max(1)),
        Some(d) if d.ps() == 0 => None,
        Some(d) if d.ps() > duration => {
            return err(
                "measurement.sample_interval",
                format!(
                    "{d} is longer than measurement.duration = {}",
                    f.measurement.duration
                ),
            )
        }
        Some(d) => Some(d.ps()),
    };
    if let Some(si) = sample_interval {
        if duration / si > 10_000_000 {
            return err(
                "measurement.sample_interval",
                format!(
                    "{} gives more than 10 million samples; choose a longer interval",
                    f.measurement.sample_interval.unwrap()
                ),
            );
        }
    }

    // Nodes.
    if f.node.is_empty() {
        return err("node", "no nodes are defined; add [[node]] tables with a name and kind = \"host\" or \"switch\"");
    }
    let mut node_index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut nodes = Vec::with_capacity(f.node.len());
    for (i, n) in f.node.iter().enumerate() {
        if n.name.trim().is_empty() {
            return err(format!("node[{i}].name"), "must not be empty");
        }
        if node_index.insert(n.name.as_str(), i).is_some() {
            return err(
                format!("node[{i}].name"),
                format!("{:?} is defined twice; node names must be unique", n.name),
            );
        }
        nodes.push(NodeCfg {
            name: n.name.clone(),
            kind: n.kind,
        });
    }
    let node_names: Vec<&str> = f.node.iter().map(|n| n.name.as_str()).collect();
    let find_node = |path: String, name: &str| -> Result<usize, ScenarioError> {
        node_index.get(name).copied().ok_or_else(|| {
            ScenarioError::new(
                path,
                format!(
                    "node {name:?} is not defined; defined nodes are {}",
                    list(&node_names)
                ),
            )
        })
    };

    // Links -> ports.
    let default_rate = f
        .defaults
        .link_rate
        .map(|r| r.bps())
        .unwrap_or(DEFAULT_LINK_RATE_BPS);
    if default_rate <= 0.0 {
        return err("defaults.link_rate", "must be above 0 bps");
    }
    let default_buffer = f.defaults.switch_buffer.unwrap_or(BufferSize::Unlimited);
    let default_policy = f.defaults.policy.clone().unwrap_or(PolicySpec::TailDrop);
    let default_allocator = match &f.defaults.allocator {
        Some(a) => resolve_allocator("defaults.allocator", a)?,
        None => AllocatorCfg::None,
    };
    let mut ports: Vec<PortCfg> = Vec::new();
    let mut port_index: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let mut port_spec_path: Vec<Option<String>> = Vec::new();
    for (i, l) in f.link.iter().enumerate() {
        let a = find_node(format!("link[{i}].between[0]"), &l.between[0])?;
        let b = find_node(format!("link[{i}].between[1]"), &l.between[1])?;
        if a == b {
            return err(
                format!("link[{i}].between"),
                format!(
                    "joins {:?} to itself; a link needs two different nodes",
                    l.between[0]
                ),
            );
        }
        let rate = l.rate.map(|r| r.bps()).unwrap_or(default_rate);
        if rate < 424.0 {
            return err(
                format!("link[{i}].rate"),
                format!(
                    "{} is below one cell per second; allowed: at least 424 bps",
                    l.rate.unwrap()
                ),
            );
        }
        let prop = match (l.length, l.delay) {
            (Some(_), Some(_)) => {
                return err(
                    format!("link[{i}]"),
                    "sets both length and delay; give one of them (length implies 5 us per km)",
                )
            }
            (Some(len), None) => (len.0 / 1000.0 * PS_PER_KM).round() as Time,
            (None, Some(d)) => d.ps(),
            (None, None) => 0,
        };
        for (from, to) in [(a, b), (b, a)] {
            if port_index.contains_key(&(from, to)) {
                return err(
                    format!("link[{i}].between"),
                    format!(
                        "{:?} and {:?} are already linked; at most one link joins two nodes",
                        l.between[0], l.between[1]
                    ),
                );
            }
            let is_switch = nodes[from].kind == NodeKind::Switch;
            port_index.insert((from, to), ports.len());
            ports.push(PortCfg {
                name: format!("{}->{}", nodes[from].name, nodes[to].name),
                node: from,
                toward: to,
                rate_bps: rate.round() as u64,
                prop,
                buffer: None,
                policy: PolicyCfg::TailDrop,
                allocator: AllocatorCfg::None,
            });
            port_spec_path.push(None);
            let (buf, pol) = if is_switch {
                (default_buffer, default_policy.clone())
            } else {
                (BufferSize::Unlimited, PolicySpec::TailDrop)
            };
            let p = ports.last_mut().unwrap();
            if is_switch {
                p.allocator = default_allocator.clone();
            }
            p.buffer = match buf {
                BufferSize::Cells(n) => Some(n),
                BufferSize::Unlimited => None,
            };
            // Policies are resolved after the [[port]] overrides (a port may set the
            // finite buffer that a default threshold policy needs).
            let _ = pol;
        }
    }

    // Port overrides.
    for (i, ps) in f.port.iter().enumerate() {
        let a = find_node(format!("port[{i}].node"), &ps.node)?;
        let b = find_node(format!("port[{i}].toward"), &ps.toward)?;
        let Some(&pi) = port_index.get(&(a, b)) else {
            return err(
                format!("port[{i}].toward"),
                format!(
                    "no link joins {:?} to {:?}; add a [[link]] between them first",
                    ps.node, ps.toward
                ),
            );
        };
        if let Some(prev) = &port_spec_path[pi] {
            return err(
                format!("port[{i}]"),
                format!(
                    "port {} is already set by {prev}; set each port once",
                    ports[pi].name
                ),
            );
        }
        port_spec_path[pi] = Some(format!("port[{i}]"));
        if let Some(al) = &ps.allocator {
            let cfg = resolve_allocator(&format!("port[{i}].allocator"), al)?;
            if nodes[a].kind != NodeKind::Switch && cfg != AllocatorCfg::None {
                return err(
                    format!("port[{i}].allocator"),
                    format!(
                        "{:?} is a host; rate allocators run at switch ports",
                        ps.node
                    ),
                );
            }
            ports[pi].allocator = cfg;
        }
        if let Some(b) = ps.buffer {
            if b == BufferSize::Cells(0) {
                return err(
                    format!("port[{i}].buffer"),
                    "0 cells would drop every cell; allowed: at least 1 cell, or \"unlimited\"",
                );
            }
            ports[pi].buffer = match b {
                BufferSize::Cells(n) => Some(n),
                BufferSize::Unlimited => None,
            };
        }
        ports[pi].policy = match &ps.policy {
            Some(pol) => resolve_policy(&format!("port[{i}].policy"), pol, ports[pi].buffer)?,
            None if nodes[a].kind == NodeKind::Switch => {
                resolve_policy("defaults.policy", &default_policy, ports[pi].buffer).map_err(
                    |e| {
                        ScenarioError::new(
                            e.path,
                            format!("{} (at port[{i}], {})", e.message, ports[pi].name),
                        )
                    },
                )?
            }
            None => PolicyCfg::TailDrop,
        };
    }
    // Switch ports without a [[port]] table take the default policy.
    for (pi, port) in ports.iter_mut().enumerate() {
        if port_spec_path[pi].is_none() && nodes[port.node].kind == NodeKind::Switch {
            port.policy =
                resolve_policy("defaults.policy", &default_policy, port.buffer).map_err(|e| {
                    ScenarioError::new(e.path, format!("{} (at port {})", e.message, port.name))
                })?;
        }
    }
    if let BufferSize::Cells(0) = default_buffer {
        return err(
            "defaults.switch_buffer",
            "0 cells would drop every cell; allowed: at least 1 cell, or \"unlimited\"",
        );
    }

    // Connections.
    if f.connection.is_empty() {
        return err(
            "connection",
            "no connections are defined; add [[connection]] tables",
        );
    }
    let default_tcp = f.defaults.tcp.clone().unwrap_or_default();
    let default_abr = f.defaults.abr.clone().unwrap_or_default();
    let mut conn_names: BTreeMap<&str, usize> = BTreeMap::new();
    let mut connections = Vec::with_capacity(f.connection.len());
    for (i, c) in f.connection.iter().enumerate() {
        let p = format!("connection[{i}]");
        if c.name.trim().is_empty() {
            return err(format!("{p}.name"), "must not be empty");
        }
        if conn_names.insert(c.name.as_str(), i).is_some() {
            return err(
                format!("{p}.name"),
                format!(
                    "{:?} is used twice; connection names must be unique",
                    c.name
                ),
            );
        }
        let from = find_node(format!("{p}.from"), &c.from)?;
        let to = find_node(format!("{p}.to"), &c.to)?;
        for (key, n) in [("from", from), ("to", to)] {
            if nodes[n].kind != NodeKind::Host {
                return err(
                    format!("{p}.{key}"),
                    format!(
                        "{:?} is a switch; connections start and end at hosts",
                        nodes[n].name
                    ),
                );
            }
        }
        if from == to {
            return err(
                format!("{p}.to"),
                format!(
                    "{:?} is also the source; a connection needs two different hosts",
                    c.to
                ),
            );
        }
        let route: Vec<usize> = match &c.route {
            Some(r) => {
                let mut idx = Vec::with_capacity(r.len());
                for (k, name) in r.iter().enumerate() {
                    idx.push(find_node(format!("{p}.route[{k}]"), name)?);
                }
                if idx.first() != Some(&from) || idx.last() != Some(&to) {
                    return err(
                        format!("{p}.route"),
                        format!(
                            "must start at from = {:?} and end at to = {:?}; got {:?}",
                            c.from, c.to, r
                        ),
                    );
                }
                for k in 1..idx.len() {
                    if !port_index.contains_key(&(idx[k - 1], idx[k])) {
                        return err(
                            format!("{p}.route[{k}]"),
                            format!("no link joins {:?} to {:?}; add a [[link]] between them or change the route", r[k - 1], r[k]),
                        );
                    }
                    if k + 1 < idx.len() && nodes[idx[k]].kind != NodeKind::Switch {
                        return err(
                            format!("{p}.route[{k}]"),
                            format!("{:?} is a host; only switches can be crossed", r[k]),
                        );
                    }
                }
                let mut seen = std::collections::BTreeSet::new();
                for (k, n) in idx.iter().enumerate() {
                    if !seen.insert(*n) {
                        return err(
                            format!("{p}.route[{k}]"),
                            format!("{:?} appears twice; a route may not loop", r[k]),
                        );
                    }
                }
                idx
            }
            None => shortest_route(from, to, &nodes, &port_index).ok_or_else(|| {
                ScenarioError::new(
                    format!("{p}.to"),
                    format!(
                        "no path of links leads from {:?} to {:?} through switches",
                        c.from, c.to
                    ),
                )
            })?,
        };
        let fwd_ports: Vec<usize> = route
            .windows(2)
            .map(|w| port_index[&(w[0], w[1])])
            .collect();
        let bwd_ports: Vec<usize> = route
            .windows(2)
            .rev()
            .map(|w| port_index[&(w[1], w[0])])
            .collect();
        let start = c.start.map(|d| d.ps()).unwrap_or(0);
        let stop = c.stop.map(|d| d.ps());
        if let Some(st) = stop {
            if st <= start {
                return err(
                    format!("{p}.stop"),
                    format!(
                        "{} is not after start = {}",
                        c.stop.unwrap(),
                        c.start.map(|d| d.to_string()).unwrap_or("0 s".into())
                    ),
                );
            }
        }
        let class = match c.service {
            ServiceSpec::Cbr => ServiceClass::Cbr,
            ServiceSpec::Vbr => ServiceClass::Vbr,
            ServiceSpec::Abr => ServiceClass::Abr,
            ServiceSpec::Ubr => ServiceClass::Ubr,
        };
        let kind = match &c.traffic {
            TrafficSpec::Tcp { .. } => "tcp",
            TrafficSpec::Persistent { .. } => "persistent",
            TrafficSpec::RequestResponse { .. } => "request_response",
            TrafficSpec::OnOff { .. } => "on_off",
            TrafficSpec::Cbr { .. } => "cbr",
            TrafficSpec::Sessions { .. } => "sessions",
            TrafficSpec::Video { .. } => "video",
        };
        let allowed: &[ServiceClass] = match kind {
            "tcp" => &[ServiceClass::Abr, ServiceClass::Ubr],
            "persistent" | "request_response" | "sessions" => {
                &[ServiceClass::Abr, ServiceClass::Ubr]
            }
            "on_off" => &[
                ServiceClass::Vbr,
                ServiceClass::Cbr,
                ServiceClass::Abr,
                ServiceClass::Ubr,
            ],
            _ => &[ServiceClass::Cbr, ServiceClass::Vbr, ServiceClass::Ubr],
        };
        if !allowed.contains(&class) {
            let names: Vec<String> = allowed
                .iter()
                .map(|c| format!("{:?}", format!("{c:?}").to_lowercase()))
                .collect();
            let extra = "";
            return err(
                format!("{p}.service"),
                format!(
                    "{:?} is not available for {kind} traffic{extra}; allowed: {}",
                    format!("{class:?}").to_lowercase(),
                    names.join(", ")
                ),
            );
        }
        let app = resolve_cell_app(&format!("{p}.traffic"), &c.traffic, start)?;
        let reserve = match c.reserve {
            None => 0.0,
            Some(r) if !matches!(class, ServiceClass::Vbr | ServiceClass::Cbr) => {
                return err(
                    format!("{p}.reserve"),
                    format!(
                    "{r} is set but service = {:?}; only vbr and cbr connections reserve bandwidth",
                    format!("{class:?}").to_lowercase()
                ),
                )
            }
            Some(r) if !(r.bps() > 0.0 && r.bps().is_finite()) => {
                return err(
                    format!("{p}.reserve"),
                    format!("{r} is not allowed; a reservation must be above 0 bps"),
                )
            }
            Some(r) => r.cells_per_sec(),
        };
        let mut abr = if class == ServiceClass::Abr {
            let access = ports[fwd_ports[0]].rate_bps as f64 / 424.0;
            Some(resolve_abr(
                &format!("{p}.abr"),
                c.abr.as_ref().unwrap_or(&AbrSpec::default()),
                &default_abr,
                access,
            )?)
        } else {
            if c.abr.is_some() {
                return err(
                    format!("{p}.abr"),
                    format!(
                        "ABR parameters are set but service = {:?}; use service = \"abr\" or remove the abr table",
                        format!("{class:?}").to_lowercase()
                    ),
                );
            }
            None
        };
        let tcp = match &c.traffic {
            TrafficSpec::Tcp { tcp, application } => {
                let tcp_spec = tcp.clone().unwrap_or_default();
                let mut t = resolve_tcp(&format!("{p}.traffic.tcp"), &tcp_spec, &default_tcp)?;
                t.app = resolve_tcp_app(
                    &format!("{p}.traffic.application"),
                    application.as_ref(),
                    start,
                    t.mss,
                )?;
                if let Some(q) = abr.as_ref().and_then(|a| a.source_queue) {
                    let seg = crate::aal5::cells_for_segment(t.mss, c.llc_snap.unwrap_or(true));
                    if q < seg as u64 {
                        return err(
                            format!("{p}.abr.source_queue"),
                            format!(
                                "{q} cells is below one segment ({seg} cells for MSS {} B); allowed: {seg} cells or more, or omit it for unlimited",
                                t.mss
                            ),
                        );
                    }
                }
                Some(t)
            }
            _ => {
                if let Some(a) = abr.as_mut() {
                    a.source_queue = None;
                }
                // A connection's own key is an error; defaults.abr.source_queue applies to the
                // TCP connections only.
                if c.abr.as_ref().is_some_and(|a| a.source_queue.is_some()) {
                    return err(
                        format!("{p}.abr.source_queue"),
                        "is only for tcp traffic (cell-level applications keep their own backlog); remove it",
                    );
                }
                None
            }
        };
        connections.push(ConnectionCfg {
            name: c.name.clone(),
            from,
            to,
            route,
            fwd_ports,
            bwd_ports,
            class,
            start,
            stop,
            llc_snap: c.llc_snap.unwrap_or(true),
            tcp,
            app,
            abr,
            reserve,
            pre_established: c.setup == Some(super::schema::SetupSpec::PreEstablished),
        });
    }

    // Faults.
    let mut faults = Vec::with_capacity(f.fault.len());
    for (i, ft) in f.fault.iter().enumerate() {
        let p = format!("fault[{i}]");
        let Some(&c) = conn_names.get(ft.connection.as_str()) else {
            let names: Vec<&str> = conn_names.keys().copied().collect();
            return err(
                format!("{p}.connection"),
                format!(
                    "{:?} is not a connection; connections: {}",
                    ft.connection,
                    list(&names)
                ),
            );
        };
        let conn = &connections[c];
        let reverse = ft.direction == Some(super::schema::DirectionSpec::Reverse);
        let (flow, ports_of) = if reverse {
            (2 * c + 1, &conn.bwd_ports)
        } else {
            (2 * c, &conn.fwd_ports)
        };
        let port = match &ft.node {
            None => ports_of[0],
            Some(name) => {
                let n = find_node(format!("{p}.node"), name)?;
                match ports_of.iter().find(|&&q| ports[q].node == n) {
                    Some(&q) => q,
                    None => {
                        let on: Vec<&str> = ports_of
                            .iter()
                            .map(|&q| nodes[ports[q].node].name.as_str())
                            .collect();
                        return err(
                            format!("{p}.node"),
                            format!(
                                "{name:?} sends no cells of connection {:?} in that direction; allowed: {}",
                                ft.connection,
                                list(&on)
                            ),
                        );
                    }
                }
            }
        };
        let count = ft.count.unwrap_or(1);
        if count == 0 {
            return err(format!("{p}.count"), "0 is not allowed; at least 1 cell");
        }
        if ft.at.ps() > duration {
            return err(
                format!("{p}.at"),
                format!(
                    "{} is after the end of the run ({})",
                    ft.at, f.measurement.duration
                ),
            );
        }
        faults.push(FaultCfg {
            flow,
            port,
            at: ft.at.ps(),
            cell: match ft.cell.unwrap_or_default() {
                super::schema::FaultCellSpec::Data => FaultCell::Data,
                super::schema::FaultCellSpec::Rm => FaultCell::Rm,
                super::schema::FaultCellSpec::Any => FaultCell::Any,
            },
            count,
        });
    }

    let efficiency_rate_bps = match f.measurement.efficiency_rate {
        Some(r) if r.bps() <= 0.0 => {
            return err("measurement.efficiency_rate", "must be above 0 bps")
        }
        Some(r) => r.bps(),
        None => connections
            .iter()
            .flat_map(|c| c.fwd_ports.iter())
            .map(|&p| ports[p].rate_bps as f64)
            .fold(f64::INFINITY, f64::min),
    };

    Ok(Scenario {
        name: f.name.clone().unwrap_or_else(|| "unnamed".into()),
        seed: f.seed,
        duration,
        warmup,
        sample_interval,
        efficiency_rate_bps,
        nodes,
        ports,
        connections,
        faults,
    })
}

fn shortest_route(
    from: usize,
    to: usize,
    nodes: &[NodeCfg],
    ports: &BTreeMap<(usize, usize), usize>,
) -> Option<Vec<usize>> {
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for &(a, b) in ports.keys() {
        adj[a].push(b);
    }
    let mut prev = vec![usize::MAX; nodes.len()];
    let mut q = VecDeque::from([from]);
    prev[from] = from;
    while let Some(n) = q.pop_front() {
        if n == to {
            break;
        }
        if n != from && nodes[n].kind != NodeKind::Switch {
            continue;
        }
        for &m in &adj[n] {
            if prev[m] == usize::MAX {
                prev[m] = n;
                q.push_back(m);
            }
        }
    }
    if prev[to] == usize::MAX {
        return None;
    }
    let mut r = vec![to];
    while *r.last().unwrap() != from {
        r.push(prev[*r.last().unwrap()]);
    }
    r.reverse();
    Some(r)
}

fn resolve_policy(
    path: &str,
    p: &PolicySpec,
    buffer: Option<u32>,
) -> Result<PolicyCfg, ScenarioError> {
    let threshold = |t: &Threshold, key: &str| -> Result<f64, ScenarioError> {
        let Some(k) = buffer else {
            return err(
                format!("{path}.{key}"),
                "a threshold needs a finite buffer; set the port's buffer to a number of cells, or use kind = \"tail_drop\"",
            );
        };
        match t {
            Threshold::Percent(v) if *v > 100.0 => err(
                format!("{path}.{key}"),
                format!("{t} is above 100 %; allowed: 0 % to 100 % of the buffer"),
            ),
            Threshold::Cells(c) if *c > k => err(
                format!("{path}.{key}"),
                format!("{t} exceeds the buffer of {k} cells"),
            ),
            _ => Ok(t.cells(k)),
        }
    };
    let zcheck = |z: f64| -> Result<f64, ScenarioError> {
        if !(z > 0.0 && z.is_finite()) {
            return err(
                format!("{path}.z"),
                format!(
                    "{z} is not allowed; Z must be a positive number (the papers use 0.5 to 1.0)"
                ),
            );
        }
        Ok(z)
    };
    Ok(match p {
        PolicySpec::TailDrop => PolicyCfg::TailDrop,
        PolicySpec::Ppd => PolicyCfg::Ppd,
        PolicySpec::Epd { threshold: t } => PolicyCfg::Epd {
            r: threshold(t, "threshold")?,
        },
        PolicySpec::SelectiveDrop { threshold: t, z } => PolicyCfg::SelectiveDrop {
            r: threshold(t, "threshold")?,
            z: zcheck(*z)?,
        },
        PolicySpec::Fba { threshold: t, z } => {
            let r = threshold(t, "threshold")?;
            if Some(r as u32) == buffer {
                return err(
                    format!("{path}.threshold"),
                    "FBA needs R below the buffer size K (its limit divides by K - R)",
                );
            }
            PolicyCfg::Fba { r, z: zcheck(*z)? }
        }
    })
}

fn resolve_tcp(path: &str, c: &TcpSpec, d: &TcpSpec) -> Result<TcpParams, ScenarioError> {
    // A field comes from the connection, then defaults.tcp, then the built-in default;
    // the error path names where the value came from.
    macro_rules! pick {
        ($f:ident) => {
            match (c.$f.clone(), d.$f.clone()) {
                (Some(v), _) => (Some(v), format!("{path}.{}", stringify!($f))),
                (None, Some(v)) => (Some(v), format!("defaults.tcp.{}", stringify!($f))),
                (None, None) => (None, format!("{path}.{}", stringify!($f))),
            }
        };
    }
    let (mss, mss_p) = pick!(mss);
    let mss = mss.map(|b| b.0).unwrap_or(512);
    if !(1..=65495).contains(&mss) {
        return err(
            mss_p,
            format!("{mss} B is not allowed; MSS must be 1 B to 65495 B"),
        );
    }
    let (win, win_p) = pick!(window);
    let window = win.map(|b| b.0).unwrap_or(65536);
    let (ws, _) = pick!(window_scaling);
    let scaling = ws.unwrap_or(true);
    if window < mss {
        return err(win_p, format!("{window} B is smaller than the MSS ({mss} B); the window must hold at least one segment"));
    }
    if window > 65535 && !scaling {
        return err(win_p, format!("{window} B needs window_scaling = true; without it a TCP window is at most 65535 B"));
    }
    if window > (1u64 << 30) {
        return err(
            win_p,
            format!("{window} B exceeds the largest scaled TCP window, 2^30 B"),
        );
    }
    let (cg, cg_p) = pick!(congestion);
    let (dt, dt_p) = pick!(dupthresh);
    let (sb, sb_p) = pick!(sack_blocks);
    let (koo, koo_p) = pick!(keep_out_of_order);
    let congestion = resolve_congestion(cg, (dt, &dt_p), (sb, &sb_p), (koo, &koo_p), &cg_p)?;
    let (g, _) = pick!(timer_granularity);
    let tick = match g.unwrap_or(Granularity::Tick(100 * PS_PER_MS)) {
        Granularity::Tick(t) => Some(t),
        Granularity::Exact => None,
    };
    let (ri, ri_p) = pick!(rto_initial);
    let rto_initial = ri.map(|d| d.ps()).unwrap_or(3 * PS_PER_S);
    let (rmin, rmin_p) = pick!(rto_min);
    let rto_min = rmin
        .map(|d| d.ps())
        .unwrap_or(tick.map(|t| 2 * t).unwrap_or(200 * PS_PER_MS));
    let (rmax, rmax_p) = pick!(rto_max);
    let rto_max = rmax.map(|d| d.ps()).unwrap_or(64 * PS_PER_S);
    if rto_min == 0 {
        return err(rmin_p, "must be above 0 s");
    }
    if rto_max < rto_min {
        return err(
            rmax_p,
            format!("is below rto_min ({})", crate::units::Duration(rto_min)),
        );
    }
    if rto_initial == 0 {
        return err(ri_p, "must be above 0 s");
    }
    let (da, _) = pick!(delayed_ack);
    let (dat, dat_p) = pick!(delayed_ack_timeout);
    let delayed_ack_timeout = dat.map(|d| d.ps()).unwrap_or(200 * PS_PER_MS);
    if delayed_ack_timeout == 0 {
        return err(dat_p, "must be above 0 s");
    }
    let (iss, iss_p) = pick!(initial_ssthresh);
    let initial_ssthresh = iss.map(|b| b.0).unwrap_or(window);
    if initial_ssthresh < mss {
        return err(
            iss_p,
            format!("{initial_ssthresh} B is below the MSS ({mss} B)"),
        );
    }
    let (ph, _) = pick!(tick_phase);
    Ok(TcpParams {
        app: TcpApp::Bulk,
        mss: mss as u32,
        window,
        congestion,
        tick,
        rto_initial,
        rto_min,
        rto_max,
        delayed_ack: da.unwrap_or(false),
        delayed_ack_timeout,
        initial_ssthresh,
        keep_out_of_order: koo.unwrap_or(true),
        tick_phase: match ph.unwrap_or(TickPhase::Random) {
            TickPhase::Random => None,
            TickPhase::Fixed(t) => Some(t),
        },
    })
}

/// The congestion control and its parameters (`tcp.congestion`, `tcp.dupthresh`,
/// `tcp.sack_blocks`). A parameter of another algorithm is refused, naming the key.
fn resolve_congestion(
    cg: Option<CongestionSpec>,
    (dupthresh, dt_p): (Option<u32>, &str),
    (blocks, sb_p): (Option<u32>, &str),
    (keep, koo_p): (Option<bool>, &str),
    cg_p: &str,
) -> Result<crate::tcp::CongestionConfig, ScenarioError> {
    use crate::tcp::{congestion::NoControlConfig, newreno::NewRenoConfig, reno::RenoConfig};
    use crate::tcp::{sack::SackConfig, tahoe::TahoeConfig, CongestionConfig as C};
    let cg = cg.unwrap_or(CongestionSpec::Tahoe);
    let name = |c: &C| c.name();
    let mut out = match cg {
        CongestionSpec::Tahoe => C::Tahoe(TahoeConfig),
        CongestionSpec::Reno => C::Reno(RenoConfig::default()),
        CongestionSpec::NewReno => C::NewReno(NewRenoConfig::default()),
        CongestionSpec::Sack => C::Sack(SackConfig::default()),
        CongestionSpec::None => C::NoControl(NoControlConfig),
    };
    if let Some(d) = dupthresh {
        if d == 0 {
            return err(dt_p, "0 is not allowed; dupthresh must be at least 1");
        }
        match &mut out {
            C::Reno(c) => c.dupthresh = d,
            C::NewReno(c) => c.dupthresh = d,
            C::Sack(c) => c.dupthresh = d,
            other => return err(dt_p, format!("is not a parameter of congestion = \"{}\"; dupthresh applies to \"reno\", \"newreno\" and \"sack\"", name(other))),
        }
    }
    if let Some(b) = blocks {
        match &mut out {
            C::Sack(c) if (1..=4).contains(&b) => c.blocks = b as usize,
            C::Sack(_) => return err(sb_p, format!("{b} is not allowed; sack_blocks must be 1 to 4 (RFC 2018: at most 4 fit the TCP options)")),
            other => return err(sb_p, format!("is not a parameter of congestion = \"{}\"; sack_blocks applies to \"sack\" only", name(other))),
        }
    }
    if matches!(out, C::Sack(_)) && keep == Some(false) {
        return err(koo_p, format!("false does not go with congestion = \"sack\" (set at {cg_p}): a receiver that discards out-of-order segments has no blocks to report"));
    }
    Ok(out)
}

/// Resolves the application above a TCP sender.
fn resolve_tcp_app(
    path: &str,
    a: Option<&super::schema::TcpAppSpec>,
    start: Time,
    mss: u32,
) -> Result<TcpApp, ScenarioError> {
    use super::schema::TcpAppSpec;
    Ok(match a {
        None | Some(TcpAppSpec::Bulk) => TcpApp::Bulk,
        Some(TcpAppSpec::Periodic {
            segment_interval,
            segments,
            burst,
            burst_at,
        }) => {
            let interval = segment_interval.ps();
            if interval == 0 && *segments > 0 {
                return err(
                    format!("{path}.segment_interval"),
                    "0 s is not allowed; the time between segments must be above 0",
                );
            }
            let burst_segments = burst.map_or(0, |b| b.0.div_ceil(mss as u64));
            if burst_segments > u32::MAX as u64 / 2 {
                return err(format!("{path}.burst"), "is too large");
            }
            let default_at = start + interval * *segments as Time;
            let burst_at = burst_at.map_or(default_at, |d| d.ps());
            TcpApp::Periodic {
                interval,
                segments: *segments,
                burst_segments: burst_segments as u32,
                burst_at,
            }
        }
    })
}
