//! The scenario file schema: what a user writes in TOML (or passes from Python as a dict).
//!
//! Every table refuses unknown keys. Quantities carry their units (see [`super::units`]).
//! Defaults are the values of the UBR+ study (seed 001) unless a field says otherwise.
//! A JSON Schema for editors and docs is generated from these types (`atmsim schema`).

use super::units::{BufferSize, Bytes, Duration, Granularity, Length, Rate, Threshold, TickPhase};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A whole scenario: topology, traffic, port settings, measurement and seed.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// A short name, used in reports.
    #[serde(default)]
    pub name: Option<String>,
    /// Free text describing the scenario.
    #[serde(default)]
    pub description: Option<String>,
    /// The run seed. Every random stream is derived from it and a component's name.
    #[serde(default)]
    pub seed: u64,
    /// How long to run and what to record.
    pub measurement: Measurement,
    /// Values used wherever a link, port or connection does not set its own.
    #[serde(default)]
    pub defaults: Defaults,
    /// The nodes: end systems (`host`) and switches (`switch`).
    pub node: Vec<NodeSpec>,
    /// Full-duplex links between two nodes.
    pub link: Vec<LinkSpec>,
    /// Settings of individual output ports (buffer size, drop policy).
    #[serde(default)]
    pub port: Vec<PortSpec>,
    /// The connections (virtual circuits) and their traffic.
    pub connection: Vec<ConnectionSpec>,
}

/// Run length and recording.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Measurement {
    /// Simulated time to run, e.g. `"20 s"`.
    pub duration: Duration,
    /// Throughput and goodput are counted from this time on (default `"0 s"`).
    #[serde(default)]
    pub warmup: Option<Duration>,
    /// Interval of the time series (queue lengths, utilization, cwnd, cells received).
    /// Default: duration / 1000. Use `"0 s"` to record no time series.
    #[serde(default)]
    pub sample_interval: Option<Duration>,
    /// The link rate that "maximum possible throughput" refers to when computing efficiency.
    /// Default: the slowest link that any connection crosses.
    #[serde(default)]
    pub efficiency_rate: Option<Rate>,
}

/// Defaults for links, ports and TCP.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// Rate of links that set none (default `"155.52 Mbps"`).
    #[serde(default)]
    pub link_rate: Option<Rate>,
    /// Buffer of switch output ports that set none (default `"unlimited"`).
    #[serde(default)]
    pub switch_buffer: Option<BufferSize>,
    /// Drop policy of switch output ports that set none (default tail drop).
    #[serde(default)]
    pub policy: Option<PolicySpec>,
    /// TCP parameters of connections that set none.
    #[serde(default)]
    pub tcp: Option<TcpSpec>,
}

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// An end system: connections start and end here.
    Host,
    /// An output-buffered ATM switch.
    Switch,
}

/// A node of the network.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Unique name, used by links, ports and routes.
    pub name: String,
    /// `host` or `switch`.
    pub kind: NodeKind,
}

/// A full-duplex point-to-point link: one output port and one delay line per direction.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// The two nodes it joins.
    pub between: [String; 2],
    /// Cell transmission rate of each direction (default `defaults.link_rate`).
    /// 155.52 Mbps is the raw OC-3 rate; 149.76 Mbps its SONET payload.
    #[serde(default)]
    pub rate: Option<Rate>,
    /// Fibre length; propagation takes 5 us per km. Give `length` or `delay`, not both.
    #[serde(default)]
    pub length: Option<Length>,
    /// One-way propagation delay. Give `length` or `delay`, not both (default `"0 s"`).
    #[serde(default)]
    pub delay: Option<Duration>,
}

/// Settings of the output port of `node` on its link toward `toward`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PortSpec {
    /// The node that owns the port.
    pub node: String,
    /// The neighbour the port transmits to.
    pub toward: String,
    /// Buffer size shared by all classes at this port (`"N cells"` or `"unlimited"`).
    #[serde(default)]
    pub buffer: Option<BufferSize>,
    /// The drop policy applied to arriving cells.
    #[serde(default)]
    pub policy: Option<PolicySpec>,
}

/// A buffer (drop) policy, chosen by `kind`. Seed 001; spec section 4.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PolicySpec {
    /// Drop a cell only when the buffer is full.
    TailDrop,
    /// Partial Packet Discard: after a cell of a frame is lost, drop the rest of the frame
    /// except its end-of-message cell.
    Ppd,
    /// Early Packet Discard: drop a whole new frame when occupancy X >= threshold R.
    Epd {
        /// R, as a share of the buffer (`"80 %"`) or in cells.
        threshold: Threshold,
    },
    /// Selective Drop: drop a new frame of VC i when X > R and Y_i * N_a / X > Z.
    SelectiveDrop {
        /// R, as a share of the buffer (`"90 %"`) or in cells.
        threshold: Threshold,
        /// Z, the load-ratio limit (dimensionless).
        z: f64,
    },
    /// Fair Buffer Allocation: drop a new frame of VC i when X > R and
    /// Y_i * N_a / X > Z * (K - R) / (X - R).
    Fba {
        /// R, as a share of the buffer (`"50 %"`) or in cells.
        threshold: Threshold,
        /// Z (dimensionless).
        z: f64,
    },
}

/// ATM service category of a connection; output ports serve classes by strict priority
/// in the order CBR, VBR, ABR, UBR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ServiceSpec {
    /// Constant bit rate.
    Cbr,
    /// Variable bit rate.
    Vbr,
    /// Available bit rate (rate-controlled; see the ABR issue).
    Abr,
    /// Unspecified bit rate.
    #[default]
    Ubr,
}

/// A connection: a virtual circuit from `from` to `to` with its traffic.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConnectionSpec {
    /// Unique name, used in results.
    pub name: String,
    /// Source host.
    pub from: String,
    /// Destination host.
    pub to: String,
    /// The nodes crossed, from `from` to `to` inclusive. Default: the path with the fewest hops.
    #[serde(default)]
    pub route: Option<Vec<String>>,
    /// Service category (default `ubr`).
    #[serde(default)]
    pub service: ServiceSpec,
    /// When the application starts sending (default `"0 s"`).
    #[serde(default)]
    pub start: Option<Duration>,
    /// When the application stops handing new data (default: never).
    #[serde(default)]
    pub stop: Option<Duration>,
    /// Whether AAL5 frames carry the 8-byte LLC/SNAP header (RFC 1483; default true).
    #[serde(default)]
    pub llc_snap: Option<bool>,
    /// The traffic the connection carries.
    pub traffic: TrafficSpec,
}

/// The traffic of a connection, chosen by `kind`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TrafficSpec {
    /// A TCP connection with an infinite bulk-transfer application.
    Tcp {
        /// TCP parameters; unset fields come from `defaults.tcp`, then the built-in defaults.
        #[serde(default)]
        tcp: Option<TcpSpec>,
    },
}

/// TCP congestion control variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CongestionSpec {
    /// Slow start, congestion avoidance and timeouts; no fast retransmit or recovery
    /// (the "vanilla" TCP of the OSU studies, seeds 000-002).
    Tahoe,
    /// Tahoe plus fast retransmit and fast recovery (4.3BSD-Reno).
    Reno,
}

/// TCP parameters (spec section 6.1). Every field is optional; see the defaults.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Maximum segment size (TCP payload), default `"512 B"`.
    #[serde(default)]
    pub mss: Option<Bytes>,
    /// Maximum window: receiver's advertised window and cap on cwnd, default `"64 KB"` (65536 B).
    #[serde(default)]
    pub window: Option<Bytes>,
    /// Window scaling (RFC 1323). Windows above 65535 B need it (default true).
    #[serde(default)]
    pub window_scaling: Option<bool>,
    /// `tahoe` (default) or `reno`.
    #[serde(default)]
    pub congestion: Option<CongestionSpec>,
    /// Timer tick, e.g. `"100 ms"` (default, as in the seeds) or `"500 ms"`, or `"exact"`.
    #[serde(default)]
    pub timer_granularity: Option<Granularity>,
    /// Retransmission timeout before any RTT sample (default `"3 s"`).
    #[serde(default)]
    pub rto_initial: Option<Duration>,
    /// Smallest retransmission timeout (default: two timer ticks; 200 ms with exact timers).
    #[serde(default)]
    pub rto_min: Option<Duration>,
    /// Largest retransmission timeout (default `"64 s"`).
    #[serde(default)]
    pub rto_max: Option<Duration>,
    /// Delayed acknowledgements (default false, as in the seeds).
    #[serde(default)]
    pub delayed_ack: Option<bool>,
    /// Delayed-ACK timer (default `"200 ms"`).
    #[serde(default)]
    pub delayed_ack_timeout: Option<Duration>,
    /// Whether the receiver keeps segments that arrive out of order (BSD reassembly queue;
    /// default true). With false it discards them, so every loss costs a go-back-N.
    #[serde(default)]
    pub keep_out_of_order: Option<bool>,
    /// Initial slow-start threshold (default: the maximum window).
    #[serde(default)]
    pub initial_ssthresh: Option<Bytes>,
    /// Phase of the connection's timer ticks (its retransmit timer, and the delayed-ACK
    /// timer of its receiver): `"random"` (default: uniform over one tick, from the run seed
    /// and the connection's name, as independent hosts would have; the seeds' topologies
    /// have one connection per host), or a fixed offset such as `"0 s"`, which aligns them.
    #[serde(default)]
    pub tick_phase: Option<TickPhase>,
}
