//! Per-event traces (issue 16, item 2): opt-in records of what the engine does, event by
//! event, streamed out in bounded memory.
//!
//! The kinds ([`KINDS`], the one list the scenario layer, the Python API and the docs
//! read):
//! - `drop`: a cell lost at a port, with the rule that dropped it;
//! - `tcp`: a TCP sender's congestion state after an ACK, a timeout or a fast retransmit;
//! - `acr`: an ABR source's allowed cell rate after a backward RM cell (or a source rule);
//! - `allocator`: a port allocator's state at the end of each averaging interval, and the
//!   explicit rate it writes into each RM cell it gives feedback on;
//! - `queue`: a port's queue per `queue_interval` (last, largest and time-weighted mean);
//! - `load`: per averaging interval of a port's allocator and per connection, the cells of
//!   the connection that arrived at the port (its forward load) and its backward RM cells
//!   the port gave feedback on (seed 000, slide 'Out-Of Phase Effect'; seed 003 5.7.1).
//!
//! A scenario asks for traces with its `[trace]` table ([`TraceSpec`], resolved to a
//! [`TraceCfg`]); the engine records rows only when a [`TraceSink`] is attached
//! ([`crate::sim::Sim::attach_trace`]). Rows are buffered per kind, [`CHUNK_ROWS`] at a time,
//! and handed to the sink when a buffer is full and at the end of the run: memory stays
//! bounded however long the run. With no sink the hooks cost one predictable branch on a
//! `bool` and allocate nothing; tracing only reads the simulation's state, so a traced run
//! gives the same results as an untraced one (tested).

mod allocator;
mod spec;
mod tracer;

pub use allocator::{mbps, AllocatorView};
pub use spec::{resolve, TraceCfg, TraceSpec};
pub use tracer::{TcpTrack, Tracer};

/// What a column holds. Every value travels as an `f64` (exact for the integers and codes
/// used here); the type tells a reader how to decode it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// A floating-point quantity (its unit is in the column's name).
    Float,
    /// A whole number.
    Int,
    /// A port index, decoded to the port's name (`"sw1->sw2"`).
    Port,
    /// A connection index, decoded to its name (-1: none).
    Connection,
    /// A code, decoded to one of these labels.
    Label(&'static [&'static str]),
}

/// One column of a trace kind.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    /// Name, with its unit (`_s`, `_mbps`, `_cells`, `_bytes`).
    pub name: &'static str,
    /// What it holds.
    pub ty: ColumnType,
    /// One line of documentation.
    pub doc: &'static str,
}

/// A trace kind: its name in `trace.events`, what it records, and its columns.
#[derive(Clone, Copy, Debug)]
pub struct KindInfo {
    /// The name, as `trace.events` lists it.
    pub name: &'static str,
    /// What one row is.
    pub doc: &'static str,
    /// The columns, in row order.
    pub columns: &'static [Column],
}

/// The trace kinds, in the order of [`Kind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `drop`.
    Drop = 0,
    /// `tcp`.
    Tcp = 1,
    /// `acr`.
    Acr = 2,
    /// `allocator`.
    Allocator = 3,
    /// `queue`.
    Queue = 4,
    /// `load`.
    Load = 5,
}

impl Kind {
    /// Every kind, in order.
    pub const ALL: [Kind; N_KINDS] = [
        Kind::Drop,
        Kind::Tcp,
        Kind::Acr,
        Kind::Allocator,
        Kind::Queue,
        Kind::Load,
    ];

    /// The kind's bit in a mask of kinds.
    #[inline]
    pub const fn bit(self) -> u8 {
        1 << self as u8
    }

    /// Its name and columns.
    pub fn info(self) -> &'static KindInfo {
        &KINDS[self as usize]
    }
}

/// How many trace kinds there are.
pub const N_KINDS: usize = 6;

/// Rows buffered per kind before they are handed to the sink (bounded memory: at most
/// this many rows of each kind are held).
pub const CHUNK_ROWS: usize = 8192;

/// Why a cell was dropped, as the `drop` trace names it: the rule that refused it. A frame
/// refused on its first cell is labelled with its policy's registered name, so every drop
/// policy of the registry that can refuse a frame has its label here (tested).
pub const DROP_REASONS: &[&str] = &[
    "buffer_full",
    "epd",
    "ppd",
    "selective_drop",
    "fba",
    "fault",
];
/// Directions of a connection.
pub const DIRECTIONS: &[&str] = &["forward", "reverse"];
/// What kind of cell.
pub const CELL_KINDS: &[&str] = &["data", "eom", "rm"];
/// TCP trace events.
pub const TCP_EVENTS: &[&str] = &[
    "ack",
    "dup_ack",
    "fast_retransmit",
    "partial_ack",
    "recovery_exit",
    "timeout",
];
/// TCP congestion states.
pub const TCP_STATES: &[&str] = &["slow_start", "congestion_avoidance", "fast_recovery"];
/// ACR trace events.
pub const ACR_EVENTS: &[&str] = &["brm", "frm"];
/// Allocator trace events.
pub const ALLOCATOR_EVENTS: &[&str] = &["interval", "feedback"];

const fn col(name: &'static str, ty: ColumnType, doc: &'static str) -> Column {
    Column { name, ty, doc }
}

use ColumnType::{Connection, Float, Int, Label, Port};

const TIME: Column = col("time_s", Float, "simulated time, s");

/// Every trace kind, with its columns: the one list the scenario layer validates
/// `trace.events` against, `atmsim._core.trace_kinds()` exports to Python and
/// `docs/traces.md` documents.
pub const KINDS: [KindInfo; N_KINDS] = [
    KindInfo {
        name: "drop",
        doc: "a cell lost at a port (or to an injected fault)",
        columns: &[
            TIME,
            col("port", Port, "the port that dropped it"),
            col("connection", Connection, "the cell's connection (VC)"),
            col("direction", Label(DIRECTIONS), "forward (data) or reverse (ACKs, responses)"),
            col("cell", Label(CELL_KINDS), "data, eom (the last cell of an AAL5 frame) or rm"),
            col("reason", Label(DROP_REASONS), "the rule: buffer_full (no room), epd / selective_drop / fba (the policy refused the frame on its first cell), ppd (the rest of a frame that lost a cell), fault (injected)"),
            col("queue_cells", Int, "cells in the port's buffer when the cell arrived"),
        ],
    },
    KindInfo {
        name: "tcp",
        doc: "a TCP sender's state after an event that changed it",
        columns: &[
            TIME,
            col("connection", Connection, "the connection"),
            col("event", Label(TCP_EVENTS), "ack (new data acknowledged), dup_ack, fast_retransmit (recovery starts for reno/newreno/sack), partial_ack (newreno/sack, still in recovery), recovery_exit, timeout"),
            col("state", Label(TCP_STATES), "after the event: slow_start (cwnd < ssthresh), congestion_avoidance, fast_recovery"),
            col("cwnd_bytes", Int, "congestion window"),
            col("ssthresh_bytes", Int, "slow-start threshold"),
            col("rto_s", Float, "retransmission timeout (with back-off)"),
            col("srtt_s", Float, "smoothed RTT (NaN before the first sample)"),
            col("snd_una", Int, "oldest unacknowledged segment"),
            col("outstanding_segments", Int, "segments sent and not acknowledged"),
        ],
    },
    KindInfo {
        name: "acr",
        doc: "an ABR source's allowed cell rate after a backward RM cell (or a change by source rules 5-6 when it sends a forward RM cell)",
        columns: &[
            TIME,
            col("connection", Connection, "the connection"),
            col("direction", Label(DIRECTIONS), "which direction's source"),
            col("event", Label(ACR_EVENTS), "brm (rules 8-9 on a backward RM cell), frm (rules 5-6 at a forward RM cell)"),
            col("acr_mbps", Float, "ACR after the event, Mb/s (cells/s x 424 bits)"),
            col("er_mbps", Float, "the backward RM cell's ER, Mb/s (NaN for frm)"),
            col("ci", Int, "its CI bit (0/1; 0 for frm)"),
            col("ni", Int, "its NI bit (0/1; 0 for frm)"),
        ],
    },
    KindInfo {
        name: "allocator",
        doc: "a port allocator's state at the end of an averaging interval (event interval), and the ER it writes into an RM cell (event feedback: backward RM cells for ERICA/ERICA+/GW, forward RM cells for KVR)",
        columns: &[
            TIME,
            col("port", Port, "the port"),
            col("event", Label(ALLOCATOR_EVENTS), "interval or feedback"),
            col("connection", Connection, "feedback: the RM cell's connection (none for interval rows)"),
            col("z", Float, "load factor z = input rate / ABR capacity (ERICA family; GW: overload of the excess; NaN for KVR)"),
            col("fair_share_mbps", Float, "ERICA: FairShare = ABR capacity / active VCs; KVR: B_eq = B / N; NaN for GW"),
            col("max_alloc_previous_mbps", Float, "ERICA: MaxAllocPrevious; KVR: MaxAllocation; GW: WtMaxAllocPrevious (per unit weight)"),
            col("abr_capacity_mbps", Float, "ERICA/GW: target ABR capacity; KVR: B (bandwidth ABR may use)"),
            col("active_vcs", Float, "ERICA: active VCs counted for FairShare; KVR: N (open connections)"),
            col("queue_factor", Float, "ERICA+: f(Tq), the queue control factor (1 for ERICA)"),
            col("bottlenecked_vcs", Float, "KVR: N_b (NaN for the others)"),
            col("free_mbps", Float, "KVR: B_f, the free bandwidth (NaN for the others)"),
            col("mcr_sum_mbps", Float, "GW: sum of the active VCs' MCRs (NaN for the others)"),
            col("abr_queue_cells", Int, "ABR queue at the port"),
            col("ccr_mbps", Float, "feedback: the RM cell's CCR (NaN for interval rows)"),
            col("er_in_mbps", Float, "feedback: the RM cell's ER on arrival (NaN for interval rows)"),
            col("er_mbps", Float, "feedback: the ER after this port (a switch only lowers it)"),
        ],
    },
    KindInfo {
        name: "queue",
        doc: "a port's buffer over one queue_interval (rows start at trace.from; the interval is trace.queue_interval, default 1 ms)",
        columns: &[
            col("time_s", Float, "start of the interval, s"),
            col("port", Port, "the port"),
            col("queue_cells", Int, "cells in the buffer at the end of the interval"),
            col("max_queue_cells", Int, "largest occupancy in the interval"),
            col("mean_queue_cells", Float, "time-weighted mean occupancy in the interval"),
        ],
    },
    KindInfo {
        name: "load",
        doc: "per averaging interval of a port's allocator and per connection seen at the port: its cells that arrived (the load the allocator measures) and its backward RM cells the port gave feedback on (one row per connection at each interval end)",
        columns: &[
            col("time_s", Float, "end of the averaging interval, s"),
            col("port", Port, "the port"),
            col("connection", Connection, "the connection (VC)"),
            col("interval_s", Float, "length of the interval, s (from the previous interval end at this port, or the start of the run)"),
            col("cells", Int, "its cells that arrived at the port in the interval: data and forward RM cells, the load the allocator counts"),
            col("brm_cells", Int, "its backward RM cells that passed the node in the interval, on which this port's allocator gave feedback"),
        ],
    },
];

/// Where trace rows go, a chunk at a time (a file writer, Python, a test's memory).
pub trait TraceSink {
    /// Once, before any rows: the names that `Port` and `Connection` columns index.
    fn begin(&mut self, _ports: &[String], _connections: &[String]) {}
    /// Rows of `kind`, row-major: `rows.len()` is a multiple of its column count. An error
    /// stops the tracing (not the run); the run reports it at the end.
    fn write(&mut self, kind: Kind, rows: &[f64]) -> Result<(), String>;
}

impl<T: TraceSink + ?Sized> TraceSink for &mut T {
    fn begin(&mut self, ports: &[String], connections: &[String]) {
        (**self).begin(ports, connections)
    }
    fn write(&mut self, kind: Kind, rows: &[f64]) -> Result<(), String> {
        (**self).write(kind, rows)
    }
}

/// A sink that keeps every row in memory (tests, small runs).
#[derive(Clone, Debug, Default)]
pub struct MemorySink {
    /// Rows per kind, row-major.
    pub rows: [Vec<f64>; N_KINDS],
    /// Port names.
    pub ports: Vec<String>,
    /// Connection names.
    pub connections: Vec<String>,
}

impl MemorySink {
    /// The rows of `kind`, one slice per row.
    pub fn rows(&self, kind: Kind) -> impl Iterator<Item = &[f64]> {
        self.rows[kind as usize].chunks(kind.info().columns.len())
    }

    /// The index of column `name` of `kind`.
    pub fn column(kind: Kind, name: &str) -> usize {
        kind.info()
            .columns
            .iter()
            .position(|c| c.name == name)
            .unwrap_or_else(|| panic!("no column {name} in {}", kind.info().name))
    }
}

impl TraceSink for MemorySink {
    fn begin(&mut self, ports: &[String], connections: &[String]) {
        self.ports = ports.to_vec();
        self.connections = connections.to_vec();
    }
    fn write(&mut self, kind: Kind, rows: &[f64]) -> Result<(), String> {
        self.rows[kind as usize].extend_from_slice(rows);
        Ok(())
    }
}

/// The index of `label` in `labels` (a code of a `Label` column).
pub fn code(labels: &[&str], label: &str) -> f64 {
    labels
        .iter()
        .position(|l| *l == label)
        .map_or(-1.0, |i| i as f64)
}
