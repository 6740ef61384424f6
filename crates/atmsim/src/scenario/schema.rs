//! The scenario file schema: what a user writes in TOML (or passes from Python as a dict).
//!
//! Every table refuses unknown keys. Quantities carry their units (see [`super::units`]).
//! Defaults are the values of the UBR+ study (seed 001) unless a field says otherwise.
//! A JSON Schema for editors and docs is generated from these types (`atmsim schema`).

use crate::units::{BufferSize, Bytes, Duration, Granularity, Length, Rate, Threshold, TickPhase};
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
    /// Faults to inject: cells lost on purpose at a given time (seed 004 section 4.2).
    #[serde(default)]
    pub fault: Vec<FaultSpec>,
}

/// A fault: cells of one connection lost on purpose. The first `count` cells of the
/// chosen kind that the connection offers to the output port of `node` at or after `at`
/// are lost there (counted as dropped by a fault, not by the port).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FaultSpec {
    /// The connection whose cells are lost.
    pub connection: String,
    /// From when, e.g. `"0.5 s"`.
    pub at: Duration,
    /// `forward` (default: the data direction) or `reverse` (ACKs, responses).
    #[serde(default)]
    pub direction: Option<DirectionSpec>,
    /// Which cells: `data` (default; any data cell, so the AAL5 frame it belongs to fails
    /// its CRC), `rm` (RM cells) or `any`.
    #[serde(default)]
    pub cell: Option<FaultCellSpec>,
    /// How many consecutive cells of that kind (default 1).
    #[serde(default)]
    pub count: Option<u32>,
    /// The node whose output port on the route loses them (default: the source host,
    /// i.e. the cell is lost on the first link).
    #[serde(default)]
    pub node: Option<String>,
}

/// A direction of a connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DirectionSpec {
    /// From `from` to `to`.
    #[default]
    Forward,
    /// From `to` back to `from`.
    Reverse,
}

/// Which cells a fault hits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FaultCellSpec {
    /// Data cells (not RM cells).
    #[default]
    Data,
    /// RM cells.
    Rm,
    /// Any cell.
    Any,
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
    /// ABR source parameters of ABR connections that set none (TM 4.0 section 5.10).
    #[serde(default)]
    pub abr: Option<AbrSpec>,
    /// Rate allocator of switch output ports that set none (default `none`).
    #[serde(default)]
    pub allocator: Option<AllocatorSpec>,
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
    /// The ABR rate allocator (switch algorithm) run at this port.
    #[serde(default)]
    pub allocator: Option<AllocatorSpec>,
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
    /// Available bit rate: TM 4.0 source and destination end systems, RM cells, and the
    /// ports' rate allocators.
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
    /// ABR source parameters (service `abr` only); unset fields come from `defaults.abr`.
    #[serde(default)]
    pub abr: Option<AbrSpec>,
    /// VBR or CBR only: bandwidth reserved on every link of the route while the connection
    /// is open (from `start` to `stop`), signalled hop by hop; KVR ports subtract it from
    /// what they allocate to ABR (seed 004 section 5.2: 1.9 Mbps per video connection).
    #[serde(default)]
    pub reserve: Option<Rate>,
    /// How the switches learn that the connection opens (ABR, and VBR/CBR with
    /// `reserve`): `in_band` (default: a signalling message leaves the source at `start`
    /// and travels the route hop by hop at the links' propagation delay, ahead of the
    /// data; seed 004 5.2's "special cell through the path") or `pre_established` (the
    /// connection was set up before `start`: every switch on the route knows it from
    /// `start` on). Closing always travels in band.
    #[serde(default)]
    pub setup: Option<SetupSpec>,
    /// The traffic the connection carries.
    pub traffic: TrafficSpec,
}

/// The traffic of a connection, chosen by `kind`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TrafficSpec {
    /// A TCP connection. Its application is an infinite bulk transfer unless
    /// `application` says otherwise. Under service `abr` its segments go through AAL5 into
    /// the connection's ABR source queue and leave paced at ACR (seeds 000 and 002).
    Tcp {
        /// TCP parameters; unset fields come from `defaults.tcp`, then the built-in defaults.
        #[serde(default)]
        tcp: Option<TcpSpec>,
        /// The application writing into the TCP socket (default: infinite bulk transfer).
        #[serde(default)]
        application: Option<TcpAppSpec>,
    },
    /// A persistent (greedy) cell source: always has cells to send (seed 003, section 3).
    /// With `rate_cap` it is an ACR-retaining source: its application hands cells no faster
    /// than `rate_cap` until `cap_until`, then as fast as it is allowed (seed 003, 5.7.2).
    Persistent {
        /// Application rate limit (default: none).
        #[serde(default)]
        rate_cap: Option<Rate>,
        /// When the limit ends (default: never, if `rate_cap` is set).
        #[serde(default)]
        cap_until: Option<Duration>,
    },
    /// Request/response: the source sends a request of `request` cells; when the destination
    /// has received it, it answers with `response` cells on the reverse direction; when the
    /// whole response has arrived the source waits `think_time` and asks again
    /// (seed 003, section 5.7.1). Both directions are sources and destinations.
    RequestResponse {
        /// Request size (default `"16 cells"`).
        #[serde(default)]
        request: Option<Cells>,
        /// Response size, e.g. `"128 cells"`.
        response: Cells,
        /// Pause between the end of a response and the next request (default `"0 s"`).
        #[serde(default)]
        think_time: Option<Duration>,
    },
    /// Deterministic on/off source: cells at `peak_rate` during `on`, silence during `off`,
    /// the first on period starting at `phase` after the connection's start (seed 003 5.6).
    OnOff {
        /// Cell rate while on.
        peak_rate: Rate,
        /// On period.
        on: Duration,
        /// Off period.
        off: Duration,
        /// Offset of the first on period (default `"0 s"`).
        #[serde(default)]
        phase: Option<Duration>,
    },
    /// Constant bit rate: one cell every 1/rate.
    Cbr {
        /// Cell rate.
        rate: Rate,
    },
    /// A greedy cell source whose connection opens and closes (seed 004 section 6): open
    /// and sending as fast as it is allowed for an on period, closed (signalled to the
    /// switches, sending nothing) for an off period, alternately from its start. Each
    /// opening starts the ABR source again from ICR.
    Sessions {
        /// Mean (or fixed) on period, e.g. `"100 ms"`.
        on: Duration,
        /// Mean (or fixed) off period.
        off: Duration,
        /// `exponential` (default) or `fixed` periods.
        #[serde(default)]
        distribution: Option<PeriodDistribution>,
    },
    /// Variable-rate video, Heyman et al.'s teleconference model (seed 004 section 5.2;
    /// spec section 7): one frame per 1/`frame_rate`; frame sizes in cells follow a
    /// negative binomial marginal with geometrically decaying correlation (DAR(1): keep the
    /// last size with probability `correlation`, else draw afresh); each frame's cells
    /// enter a token bucket (`bucket` cells deep, filled at `bucket_rate`) at once or spread
    /// over the frame time (`frame_arrival`) and leave at most at the access link rate. The first frame
    /// starts at a random phase within one frame time.
    Video {
        /// Frames per second (default 25, PAL).
        #[serde(default)]
        frame_rate: Option<f64>,
        /// Mean frame size, cells (default 130, Heyman's teleconference sequence).
        #[serde(default)]
        mean_cells: Option<f64>,
        /// Standard deviation of the frame size, cells (default 30).
        #[serde(default)]
        sd_cells: Option<f64>,
        /// Lag-1 autocorrelation rho of frame sizes, 0 <= rho < 1 (default 0.98).
        #[serde(default)]
        correlation: Option<f64>,
        /// How a frame's cells reach the token bucket: `burst` (default: all at the frame's
        /// start, so up to a bucket of cells leaves at the link rate, as seed 004 5.2
        /// describes: "cells may be transmitted at peak rate when there are tokens") or
        /// `spread` (evenly over the frame time, spec section 7).
        #[serde(default)]
        frame_arrival: Option<FrameArrival>,
        /// Token bucket depth (default `"50 cells"`, seed 004).
        #[serde(default)]
        bucket: Option<Cells>,
        /// Token rate (default `"4500 cells/s"`, seed 004; about 1.9 Mbps).
        #[serde(default)]
        bucket_rate: Option<Rate>,
    },
}

/// How a connection's opening reaches the switches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SetupSpec {
    /// A signalling message travels the route at propagation speed, ahead of the data.
    #[default]
    InBand,
    /// Every switch on the route knows the connection from its start.
    PreEstablished,
}

/// How a video frame's cells reach the shaper.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FrameArrival {
    /// All at the frame's start.
    #[default]
    Burst,
    /// Evenly over the frame time.
    Spread,
}

/// How on and off periods are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PeriodDistribution {
    /// Exponential with the given mean.
    #[default]
    Exponential,
    /// Exactly the given length.
    Fixed,
}

/// The application above a TCP sender.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TcpAppSpec {
    /// Infinite bulk transfer: the socket always has data (the default).
    Bulk,
    /// The worst-case generator of seed 002, section 3: one segment every
    /// `segment_interval` from the connection's start, `segments` of them; then, at
    /// `burst_at` (absolute simulation time), a write of `burst` bytes at once.
    Periodic {
        /// Time between segments written, e.g. `"1 ms"` (seed 002's t).
        segment_interval: Duration,
        /// Number of segments written one at a time (seed 002: 1000).
        segments: u32,
        /// Size of the final write (default `"0 B"`: none); seed 002 uses the maximum
        /// window, 65536 B. Rounded up to whole segments.
        #[serde(default)]
        burst: Option<Bytes>,
        /// When the final write happens (default: start + segments x segment_interval).
        #[serde(default)]
        burst_at: Option<Duration>,
    },
}

/// A number of cells, written `"16 cells"`.
pub type Cells = crate::units::CellCount;

/// The rate policy of an ABR source end system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SourcePolicySpec {
    /// ATM Forum TM 4.0 section 5.10.4, rules 1-13 (the default).
    #[default]
    Tm40,
    /// The UCSC source of seed 004 section 2.1 (spec 5.1): a forward RM cell after every
    /// Nrm - 1 data cells; on a backward RM cell ACR <- min(ACR + Nrm x AIR, ER)
    /// (additive increase, immediate decrease); no use-it-or-lose-it, no CRM/CDF, no Trm,
    /// CI/NI ignored. Defaults: ICR = PCR / 50, AIR = 180 cells/s.
    Ucsc,
}

/// ABR source end-system parameters (TM 4.0 section 5.10; spec ALGORITHMS.md 1.2).
/// Every field is optional; defaults are the TM 4.0 ones.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AbrSpec {
    /// Source rate policy: `"tm40"` (default) or `"ucsc"` (seed 004).
    #[serde(default)]
    pub policy: Option<SourcePolicySpec>,
    /// UCSC policy: additive increase rate per cell sent; each backward RM cell raises
    /// ACR by Nrm x AIR (default `"180 cells/s"`, seed 004 section 3).
    #[serde(default)]
    pub air: Option<Rate>,
    /// Peak cell rate (default: the rate of the source's access link).
    #[serde(default)]
    pub pcr: Option<Rate>,
    /// Minimum cell rate (default `"0 bps"`).
    #[serde(default)]
    pub mcr: Option<Rate>,
    /// Initial cell rate (default: PCR).
    #[serde(default)]
    pub icr: Option<Rate>,
    /// Rate increase factor, 0 < RIF <= 1 (default 1/16).
    #[serde(default)]
    pub rif: Option<f64>,
    /// Rate decrease factor, 0 < RDF <= 1 (default 1/16).
    #[serde(default)]
    pub rdf: Option<f64>,
    /// Cells per forward RM cell, 2 to 256 (default 32).
    #[serde(default)]
    pub nrm: Option<u32>,
    /// Minimum in-rate cells between forward RM cells, at least 1 (default 2).
    #[serde(default)]
    pub mrm: Option<u32>,
    /// Upper bound on the time between forward RM cells (default `"100 ms"`).
    #[serde(default)]
    pub trm: Option<Duration>,
    /// Transient buffer exposure, cells (default 16777215).
    #[serde(default)]
    pub tbe: Option<u32>,
    /// Forward RM cells allowed without a returning one (default ceil(TBE / Nrm)).
    #[serde(default)]
    pub crm: Option<u32>,
    /// Cutoff decrease factor, 0 (rule 6 off) to 1 (default 1/16).
    #[serde(default)]
    pub cdf: Option<f64>,
    /// ACR decrease time factor: rule 5's idle timeout (default `"500 ms"`).
    #[serde(default)]
    pub adtf: Option<Duration>,
    /// Tagged cell rate: the rate of out-of-rate forward RM cells (default `"10 cells/s"`).
    #[serde(default)]
    pub tcr: Option<Rate>,
    /// Fixed round-trip time; ICR is limited to TBE / FRTT (default `"0 s"`: no limit).
    #[serde(default)]
    pub frtt: Option<Duration>,
    /// TCP traffic only: the most cells the source's AAL5 queue holds before TCP must
    /// wait (back-pressure; the segment stays in the socket). Default: unlimited, as in
    /// seeds 000 and 002 (no loss at the source). ACKs are never held back.
    #[serde(default)]
    pub source_queue: Option<Cells>,
}

/// An ABR rate allocator (switch algorithm), chosen by `kind`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AllocatorSpec {
    /// No ABR feedback from this port.
    None,
    /// ERICA (seed 003 section 4; spec section 2).
    Erica(EricaSpec),
    /// ERICA+ (seed 003 section 4.4; spec section 3): ERICA with a queue-control target.
    EricaPlus(EricaSpec),
    /// The "modified ERICA" of the TCP-over-ABR buffer studies (seed 000; spec 2.7):
    /// ERICA whose option defaults are the three changes of ATMF 96-0517: no unneeded
    /// spikes (fair share first, one ER per VC per interval), bursty sources counted
    /// correctly (bidirectional counting, immediate fair-share update) and max-min
    /// fairness (delta step). Every key of `erica` may still be set.
    ModifiedErica(EricaSpec),
    /// The Kalampoukas-Varma-Ramakrishnan O(1) allocator (seed 004 section 2.2, Figure
    /// 2.1; spec section 5): runs on every forward RM cell, max-min fair at steady state,
    /// needs no averaging interval. Connections open and close by signalling; VBR
    /// connections with a `reserve` rate lower the bandwidth it allocates.
    Kvr(KvrSpec),
    /// Binary feedback: set EFCI on ABR data cells while the ABR queue is at or above
    /// `threshold` (the destination turns it into CI).
    Efci {
        /// Queue threshold, e.g. `"50 cells"`.
        threshold: Cells,
    },
}

/// Options of the KVR allocator (seed 004 section 2.2; spec section 5).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KvrSpec {
    /// Share of the link rate ABR may be allocated, 0 < U <= 1 (default 1.0: seed 004's
    /// "target link utilization is set at 100 %"). VBR reservations are subtracted.
    #[serde(default)]
    pub target_utilization: Option<f64>,
    /// Also lower the ER of backward RM cells to the allocation the VC could get now
    /// (seed 004 section 4.1's suggested improvement; default false).
    #[serde(default)]
    pub update_backward_rm: Option<bool>,
}

/// ERICA and ERICA+ options (seed 003 sections 4.1-4.4; spec sections 2 and 3).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EricaSpec {
    /// Target utilization U, 0 < U <= 1 (ERICA; default 0.9). ERICA+ targets a queueing
    /// delay instead and refuses this key.
    #[serde(default)]
    pub target_utilization: Option<f64>,
    /// Averaging interval: ends after this many ABR cells... (default `"100 cells"`)
    #[serde(default)]
    pub interval_cells: Option<Cells>,
    /// ...or after this time, whichever comes first (default `"1 ms"`).
    #[serde(default)]
    pub interval_time: Option<Duration>,
    /// Max-min enhancement (seed 003 4.2): under load z <= 1 + delta, allocate at least
    /// the largest allocation of the previous interval (default true).
    #[serde(default)]
    pub max_min: Option<bool>,
    /// delta of the max-min enhancement (default 0.1).
    #[serde(default)]
    pub delta: Option<f64>,
    /// Fair share first (seed 003 4.3): a VC below FairShare rises to FairShare only
    /// (default true).
    #[serde(default)]
    pub fair_share_first: Option<bool>,
    /// Count a VC as active when its backward RM cell passes (seed 003 4.4; default false).
    #[serde(default)]
    pub bidirectional_counting: Option<bool>,
    /// Decay factor for averaging the number of active sources, 0 < d < 1
    /// (seed 003 4.4; default: no averaging).
    #[serde(default)]
    pub source_averaging: Option<f64>,
    /// A newly seen VC updates FairShare at once (spec 2.4; default false).
    #[serde(default)]
    pub immediate_fair_share: Option<bool>,
    /// Measure each VC's rate over the interval instead of reading CCR from forward RM
    /// cells (seed 003 4.4; default false).
    #[serde(default)]
    pub per_vc_ccr: Option<bool>,
    /// Load-factor averaging: `"none"` (default), `"ratio"` (EWMA of z) or `"counts"`
    /// (EWMA of cells and time, then divide; spec 2.5).
    #[serde(default)]
    pub load_averaging: Option<LoadAveraging>,
    /// Weight of the newest interval in load averaging, 0 < alpha <= 1 (default 0.8).
    #[serde(default)]
    pub alpha: Option<f64>,
    /// Give one ER per VC per averaging interval (spec 2.6; default true).
    #[serde(default)]
    pub one_er_per_interval: Option<bool>,
    /// Count backward RM cells entering the port as ABR input (spec 9.2; default true).
    #[serde(default)]
    pub count_backward_rm: Option<bool>,
    /// ERICA+ hyperbola parameter a, for queues above T0 (default 1.15).
    #[serde(default)]
    pub a: Option<f64>,
    /// ERICA+ hyperbola parameter b, for queues below T0 (default 1.05).
    #[serde(default)]
    pub b: Option<f64>,
    /// ERICA+ target queueing delay T0 (default `"500 us"`).
    #[serde(default)]
    pub t0: Option<Duration>,
    /// ERICA+ queue drain limit factor, 0 < QDLF <= 1 (default 0.5).
    #[serde(default)]
    pub qdlf: Option<f64>,
}

/// How ERICA averages its load factor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoadAveraging {
    /// z of the last interval only.
    None,
    /// z <- (1 - alpha) z + alpha z_new.
    Ratio,
    /// Average ABR cells, capacity cells and interval length separately, then divide.
    Counts,
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
    /// Reno that stays in fast recovery over partial ACKs (RFC 6582).
    #[serde(rename = "newreno")]
    NewReno,
    /// SACK receiver (RFC 2018) and conservative SACK loss recovery (RFC 6675).
    Sack,
    /// No congestion control: limited by the receiver's window only.
    None,
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
    /// `tahoe` (default), `reno`, `newreno`, `sack` or `none`.
    #[serde(default)]
    pub congestion: Option<CongestionSpec>,
    /// Duplicate ACKs that trigger a fast retransmit (reno, newreno, sack; default 3).
    #[serde(default)]
    pub dupthresh: Option<u32>,
    /// Most SACK blocks per ACK, 1-4 (sack only; default 3).
    #[serde(default)]
    pub sack_blocks: Option<u32>,
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
