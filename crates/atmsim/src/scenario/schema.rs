//! The scenario file schema: what a user writes in TOML (or passes from Python as a dict).
//!
//! Every table refuses unknown keys. Quantities carry their units (see [`super::units`]).
//! Defaults are the values of the UBR+ study (seed 001) unless a field says otherwise.
//! A JSON Schema for editors and docs is generated from these types (`atmsim schema`).

pub use crate::abr::config::{AbrSpec, SourcePolicySpec};
pub use crate::allocator::{AllocatorSpec, EricaSpec, KvrSpec, LoadAveraging};
pub use crate::drop_policy::PolicySpec;
pub use crate::tcp::config::{CongestionSpec, TcpAppSpec, TcpSpec, TcpTrafficSpec};
pub use crate::traffic::{FrameArrival, PeriodDistribution, TrafficSpec};
use crate::units::{BufferSize, Duration, Length, Rate};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A node's or a connection's name as the scenario gives it. A name of up to 23 bytes is held
/// inline, without an allocation of its own (issue 14: at 10 000 one-pair VCs the file's
/// names were 130 000 allocations, and the resolved nodes' and connections' another 30 000).
/// It reads as a `&str` (`Deref`), and prints, compares and hashes as one.
pub type Name = smol_str::SmolStr;

/// The largest seed: 2^63 - 1, the largest integer a TOML file can hold, so that every
/// scenario that runs can be written as TOML and read back (a result's `scenario.toml`).
pub const MAX_SEED: u64 = i64::MAX as u64;

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
    /// At most [`MAX_SEED`] (2^63 - 1), the largest integer a TOML file can hold.
    #[serde(default, deserialize_with = "seed")]
    #[schemars(range(max = 9_223_372_036_854_775_807u64))]
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
    /// Per-event traces to record (drops, TCP, ACR, allocator, queue, load): `docs/traces.md`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<crate::trace::TraceSpec>,
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
    /// Order in which cells reaching a switch at the same instant from several inputs
    /// enter an output queue: `"event_order"` (default), `"input_order"`,
    /// `"round_robin"` or `"random"` (docs/scenario-format.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival_order: Option<String>,
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
    pub name: Name,
    /// `host` or `switch`.
    pub kind: NodeKind,
}

/// A full-duplex point-to-point link: one output port and one delay line per direction.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// The two nodes it joins.
    #[serde(deserialize_with = "two_names")]
    pub between: [Name; 2],
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

/// What a seed may be, for messages.
pub const SEED_RANGE: &str =
    "allowed: a whole number from 0 to 9223372036854775807 (2^63 - 1, the largest TOML integer)";

/// Reads the seed: a whole number of at most [`MAX_SEED`]. A negative, fractional or larger
/// number gets one message saying what is allowed (serde's own said "expected u64").
fn seed<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    struct Seed;
    impl serde::de::Visitor<'_> for Seed {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a whole number from 0 to 9223372036854775807 (2^63 - 1)")
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u64, E> {
            match v <= MAX_SEED {
                true => Ok(v),
                false => Err(E::custom(format!("{v} is too large; {SEED_RANGE}"))),
            }
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::custom(format!("{v} is negative; {SEED_RANGE}")))
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<u64, E> {
            Err(E::custom(format!(
                "{v:?} is not a whole number in range; {SEED_RANGE}"
            )))
        }
    }
    d.deserialize_any(Seed)
}

/// Reads a link's `between`: exactly two names. The TOML reader took the first two of a
/// longer list and dropped the rest without a word (the JSON reader refused it as
/// "trailing characters").
fn two_names<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[Name; 2], D::Error> {
    let names = Vec::<Name>::deserialize(d)?;
    <[Name; 2]>::try_from(names).map_err(|names| {
        serde::de::Error::custom(format!(
            "{} names; a link joins exactly two nodes: between = [\"a\", \"b\"]",
            names.len()
        ))
    })
}

/// Settings of the output port of `node` on its link toward `toward`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PortSpec {
    /// The node that owns the port.
    pub node: Name,
    /// The neighbour the port transmits to.
    pub toward: Name,
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
    pub name: Name,
    /// Source host.
    pub from: Name,
    /// Destination host.
    pub to: Name,
    /// The nodes crossed, from `from` to `to` inclusive. Default: the path with the fewest hops.
    #[serde(default)]
    pub route: Option<Vec<Name>>,
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
    /// Boxed: most connections take the defaults, and the table is 240 bytes of every
    /// parsed connection otherwise (issue 14, set-up of large scenarios).
    #[serde(default)]
    pub abr: Option<Box<AbrSpec>>,
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

/// A number of cells, written `"16 cells"`.
pub type Cells = crate::units::CellCount;

use crate::registry::Registered;

/// Service categories (`connection.service`), in priority order.
pub const SERVICES: &[Registered] = &[
    Registered {
        name: "cbr",
        doc: "constant bit rate: highest priority (cbr and on_off cell traffic)",
    },
    Registered {
        name: "vbr",
        doc: "variable bit rate: second priority (on_off, video; reserve signalled to KVR)",
    },
    Registered {
        name: "abr",
        doc: "available bit rate: TM 4.0 or UCSC end systems, RM cells, the ports' allocators",
    },
    Registered {
        name: "ubr",
        doc: "unspecified bit rate: lowest priority, the buffer policies decide (default)",
    },
];

#[cfg(test)]
mod registry_tests {
    use super::*;

    #[test]
    fn listed_names_are_exactly_the_accepted_ones() {
        for r in SERVICES {
            let v: ServiceSpec = serde_json::from_str(&format!("{:?}", r.name)).unwrap();
            assert_eq!(format!("{v:?}").to_lowercase(), r.name);
        }
        let e = serde_json::from_str::<ServiceSpec>("\"x\"")
            .unwrap_err()
            .to_string();
        assert_eq!(e.matches('`').count() / 2 - 1, SERVICES.len(), "{e}");
        let names = crate::tcp::congestion::CONGESTION_CONTROLS;
        for r in names {
            serde_json::from_str::<CongestionSpec>(&format!("{:?}", r.name)).unwrap();
        }
        let e = serde_json::from_str::<CongestionSpec>("\"x\"")
            .unwrap_err()
            .to_string();
        assert_eq!(e.matches('`').count() / 2 - 1, names.len(), "{e}");
        let e = serde_json::from_str::<TrafficSpec>(r#"{"kind":"x"}"#)
            .unwrap_err()
            .to_string();
        let kinds: Vec<&str> = crate::traffic::TRAFFIC_KINDS
            .iter()
            .map(|k| k.name)
            .collect();
        assert_eq!(e.matches('`').count() / 2 - 1, kinds.len(), "{e}");
        for k in kinds {
            assert!(e.contains(&format!("`{k}`")), "{e}");
        }
    }
}
