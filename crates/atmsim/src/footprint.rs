//! A resolved scenario's memory, estimated from its size before it runs; the refusal of a
//! scenario that would not fit, and the guard that stops a run that outgrows the memory as
//! it goes (issue 14: "a scenario that will not fit is refused before it starts"; the OS
//! must not kill the run).
//!
//! The estimate adds, from the sizes of the engine's own structures (`size_of`):
//! * **ports**: every port's transmitter, buffer and allocator, and its per-VC tables,
//!   which hold only the VCs routed through the port (so the sum is over route hops);
//! * **connections**: end systems (TCP sender and receiver, ABR source and destination),
//!   flows and reassembly, and each connection's share of the results;
//! * **queued cells**: the cells that can wait in buffers at once: at each port, the smaller
//!   of its buffer and what the flows crossing it can have outstanding (TCP: a window of
//!   segments, or of ACKs; other traffic: [`NON_TCP_CELLS`] per direction, an allowance:
//!   rate control keeps a greedy ABR source to about a round trip of cells);
//! * **cells in flight**: at each port, the cells its link can hold in flight (line rate x
//!   propagation delay), capped by what the flows crossing it can have outstanding; a delay
//!   line keeps the capacity of its fullest moment;
//! * **time series**: samples (duration / sample interval) x the values of a sample
//!   (per switch port, per connection, per ABR direction), in memory and as JSON text.
//!
//! The first two and the series are built before the run and do not grow: with a fixed base
//! they are [`Footprint::fixed`], and a scenario whose fixed part exceeds the limit is
//! refused before it starts, naming the estimate, the limit and the keys that drive it. The
//! cells are the uncertain part ([`Footprint::growing`]): the estimate above is an upper one
//! for TCP (every window queued at every port of its route, and on every link, at once: 24
//! GiB for 100 000 one-pair UBR VCs that hold 0.4 GB) and only an allowance for sources
//! without a window. So they do not refuse a scenario; the run's [`Guard`] watches what its
//! queues, delay lines and pending events take as they grow, and stops the run with an
//! error naming the port or the link that holds the most once that passes what the limit
//! leaves after the fixed part.
//!
//! The limit is the memory available now (`MemAvailable`), or the environment variable
//! [`LIMIT_VARIABLE`] when it is set (a size such as `"48 GiB"`, or `"off"` for no check
//! and no guard), for a user who wants runs held to less than the machine has, or to more.

use crate::cell::Cell;
use crate::network::{Ends, Flow, Port, SpecialSent, TcpConn};
use crate::scenario::Scenario;
use std::fmt;

/// The environment variable that sets the memory limit (see the module doc).
pub const LIMIT_VARIABLE: &str = "ATMSIM_MEMORY_LIMIT";

/// Allowance of outstanding cells per direction of a non-TCP connection (see the module doc).
pub const NON_TCP_CELLS: u64 = 512;
/// Fixed memory of a run besides its size-driven parts: the event queue's wheel, the
/// process's allocator arenas and the code (bytes).
pub const BASE_BYTES: u64 = 8 << 20;
/// Bytes of JSON text per number of a time series (digits, separator) on top of the value.
const JSON_BYTES_PER_VALUE: u64 = 12;
/// Bytes of results per port and per connection (the per-port and per-connection tables,
/// as structures and as JSON text).
const RESULT_BYTES_PER_PORT: u64 = 600;
const RESULT_BYTES_PER_CONNECTION: u64 = 1200;

/// One part of the estimate: what drives it (scenario keys), and its bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// What it is.
    pub what: &'static str,
    /// The scenario keys that drive it.
    pub keys: &'static str,
    /// Bytes.
    pub bytes: u64,
    /// True for the parts the run's cells make as it goes (queued cells, cells in flight):
    /// an upper estimate, watched during the run by its [`Guard`]; false for what is built
    /// before the run and does not grow.
    pub grows: bool,
}

/// A scenario's estimated memory, by part.
#[derive(Clone, Debug, PartialEq)]
pub struct Footprint {
    /// The parts, in a fixed order.
    pub parts: Vec<Part>,
}

impl Footprint {
    /// The whole estimate, bytes.
    pub fn total(&self) -> u64 {
        BASE_BYTES + self.parts.iter().map(|p| p.bytes).sum::<u64>()
    }

    /// What the run holds before any cell moves: the fixed base and the parts that do not
    /// grow (ports, per-VC tables, end systems, time series), bytes.
    pub fn fixed(&self) -> u64 {
        BASE_BYTES
            + self
                .parts
                .iter()
                .filter(|p| !p.grows)
                .map(|p| p.bytes)
                .sum::<u64>()
    }

    /// The most the run's cells may add as it goes (queued cells, cells in flight), bytes.
    pub fn growing(&self) -> u64 {
        self.parts.iter().filter(|p| p.grows).map(|p| p.bytes).sum()
    }

    /// The parts, largest first.
    pub fn largest_first(&self) -> Vec<&Part> {
        let mut v: Vec<&Part> = self.parts.iter().collect();
        v.sort_by_key(|p| std::cmp::Reverse(p.bytes));
        v
    }
}

fn mib(b: u64) -> String {
    if b >= 10 << 30 {
        format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
    } else {
        format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64)
    }
}

/// A scenario refused because its estimate exceeds the memory limit.
#[derive(Clone, Debug, PartialEq)]
pub struct TooLarge {
    /// The estimate.
    pub footprint: Footprint,
    /// The limit, bytes.
    pub limit: u64,
    /// Where the limit came from.
    pub limit_source: String,
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "scenario needs an estimated {} of memory before any cell moves, more than the {} \
             available ({}); it is driven by ",
            mib(self.footprint.fixed()),
            mib(self.limit),
            self.limit_source
        )?;
        let parts = self.footprint.largest_first();
        let fixed = parts.iter().filter(|p| !p.grows);
        for (i, p) in fixed.take(3).enumerate() {
            let sep = if i == 0 { "" } else { "; " };
            write!(f, "{sep}{} {} ({})", p.what, mib(p.bytes), p.keys)?;
        }
        write!(
            f,
            "; on top of a fixed {} of every run (the event queue's wheel, the allocator's \
             arenas, the code)",
            mib(BASE_BYTES)
        )?;
        if self.limit <= BASE_BYTES {
            return write!(
                f,
                ". The limit is below that fixed part, so no scenario fits: set the environment \
                 variable {LIMIT_VARIABLE} to a larger size (e.g. \"64 GiB\") or to \"off\""
            );
        }
        write!(
            f,
            ". Reduce those keys, or set the environment variable {LIMIT_VARIABLE} to a larger \
             size (e.g. \"64 GiB\") or to \"off\""
        )
    }
}

impl std::error::Error for TooLarge {}

fn size<T>() -> u64 {
    std::mem::size_of::<T>() as u64
}

/// Per-VC bytes a port's allocator keeps ([`RateAllocator::BYTES_PER_VC`] of its type).
fn allocator_bytes_per_vc(cfg: &crate::allocator::AllocatorCfg) -> u64 {
    cfg.bytes_per_vc()
}

/// Cells a port's link can hold in flight: line rate x propagation delay, plus one.
pub(crate) fn link_cells(p: &crate::scenario::model::PortSettings) -> u64 {
    let bits = p.rate_bps as u128 * p.prop as u128 / atmsim_kernel::time::PS_PER_S as u128;
    (bits / (crate::cell::CELL_BITS as u128)).min(u64::MAX as u128) as u64 + 1
}

/// Estimates the memory of running `sc` (see the module doc).
pub fn estimate(sc: &Scenario) -> Footprint {
    sc.assert_connection_lists();
    let nports = sc.ports.len() as u64;
    let nconns = sc.connections.len() as u64;
    // VCs crossing each port (route hops), and the longest route (slot-table stride).
    let mut vcs_at = vec![0u64; sc.ports.len()];
    // Whether a cell crossing each port may ask its allocator for feedback: else the port
    // has none (`network::carries_only_feedback`).
    let mut asked = vec![false; sc.ports.len()];
    let mut stride = 1u64;
    for (c, path) in sc.connections.iter().zip(sc.paths.iter()) {
        let feedback_only = [false, crate::network::carries_only_feedback(c)];
        for (r, only) in [path.fwd_ports(), path.bwd_ports()]
            .into_iter()
            .zip(feedback_only)
        {
            stride = stride.max(r.len() as u64);
            for &p in r {
                vcs_at[p as usize] += 1;
                asked[p as usize] |= !only;
            }
        }
    }
    // + boxed allocator and queue headers, and the port's RM and VBR counts for the samples
    let sampled = if sc.sample_interval.is_some() {
        size::<SpecialSent>()
    } else {
        0
    };
    let per_port = size::<Port>() + sampled + 512;
    let mut port_tables = 0u64;
    for (p, cfg) in sc.ports.iter().enumerate() {
        let allocator = match asked[p] {
            true => allocator_bytes_per_vc(&cfg.settings.allocator),
            false => 0,
        };
        port_tables += vcs_at[p] * (12 + allocator + 4);
    }
    // Slot table and route lengths; the routes' ports are the scenario's paths, which the
    // network shares.
    port_tables += nconns * 2 * (stride * 4 + 2);
    let ports = nports * (per_port + RESULT_BYTES_PER_PORT);

    let flows = 2 * size::<Flow>() + size::<crate::network::FrameTally>();
    let mut conns = nconns * (size::<Ends>() + flows + RESULT_BYTES_PER_CONNECTION);
    let mut outstanding = vec![0u64; sc.ports.len()];
    for (c, path) in sc.connections.iter().zip(sc.paths.iter()) {
        let (fwd, bwd) = match &c.tcp {
            Some(t) => {
                let segs = t.window / t.mss.max(1) as u64 + 1;
                conns += size::<TcpConn>() + segs + 512; // receiver table, sender, RTO
                conns += t.congestion.out_of_line_bytes(); // boxed state (SACK's)
                let cells_per_seg = crate::aal5::cells_for_segment(t.mss, c.llc_snap) as u64;
                (segs * cells_per_seg, segs * 2)
            }
            None => {
                conns += 1024; // two cell-level directions with their ABR end systems
                (NON_TCP_CELLS, NON_TCP_CELLS)
            }
        };
        if c.abr.is_some() && c.tcp.is_some() {
            conns += 1024; // TCP over ABR: two ABR directions and source queues
        }
        for (route, cells) in [(path.fwd_ports(), fwd), (path.bwd_ports(), bwd)] {
            for &p in route {
                let p = p as usize;
                outstanding[p] = outstanding[p].saturating_add(cells);
            }
        }
    }
    let queued_cells: u64 = sc
        .ports
        .iter()
        .zip(&outstanding)
        .map(|(p, &o)| p.settings.buffer.map_or(o, |b| o.min(b as u64)))
        .fold(0u64, |a, b| a.saturating_add(b));
    let queued = queued_cells.saturating_mul(size::<Cell>() * 2); // queues grow by doubling
    let in_flight_cells: u64 = sc
        .ports
        .iter()
        .zip(&outstanding)
        .map(|(p, &o)| link_cells(p.settings).min(o))
        .fold(0u64, |a, b| a.saturating_add(b));
    // A delay line holds (arrival time, cell) and grows by doubling.
    let in_flight = in_flight_cells.saturating_mul((size::<Cell>() + 8) * 2);

    let series = match sc.sample_interval {
        Some(si) if si > 0 => {
            let samples = sc.duration / si + 1;
            let used = sc.used_ports();
            let switch_ports = sc
                .ports
                .iter()
                .enumerate()
                .filter(|(p, cfg)| used[*p] && sc.nodes.is_switch(cfg.node()))
                .count() as u64;
            let abr_dirs = sc.connections.iter().filter(|c| c.abr.is_some()).count() as u64 * 2;
            let values = 5 * switch_ports + 3 * nconns + 2 * abr_dirs + 1;
            samples
                .saturating_mul(values)
                .saturating_mul(8 + JSON_BYTES_PER_VALUE)
        }
        _ => 0,
    };
    Footprint {
        parts: vec![
            Part {
                what: "ports",
                keys: "link (two ports each)",
                bytes: ports,
                grows: false,
            },
            Part {
                what: "per-VC port state",
                keys: "connection x route length",
                bytes: port_tables,
                grows: false,
            },
            Part {
                what: "connections",
                keys: "connection, tcp.window",
                bytes: conns,
                grows: false,
            },
            Part {
                what: "queued cells (estimate)",
                keys: "switch_buffer / buffer, tcp.window",
                bytes: queued,
                grows: true,
            },
            Part {
                what: "cells in flight on links (estimate)",
                keys: "link delay / length, link_rate",
                bytes: in_flight,
                grows: true,
            },
            Part {
                what: "time series",
                keys: "measurement.sample_interval, measurement.duration",
                bytes: series,
                grows: false,
            },
        ],
    }
}

/// The memory available to a run: `MemAvailable` of `/proc/meminfo`, bytes (None where
/// there is no such file).
pub fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_mem_available(&text)
}

fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Bytes that every node of a connection's route adds to a run, besides what the connection
/// holds: the node and the two ports after it in the scenario's paths (3 x 4), the VC's
/// entries in the tables of the ports it leaves by, one each way (2 x 16, as in
/// [`estimate`]), and its places in the two flows' slot tables (2 x 4).
pub const ROUTE_NODE_BYTES: u64 = 52;

/// Route nodes counted before the limit is read at all: routes this long in all
/// ([`ROUTE_NODE_BYTES`] each, 64 MiB) fit any machine the engine runs on, so a scenario of
/// usual size reads no `/proc/meminfo` while it is resolved.
const ROUTE_NODES_UNCHECKED: u64 = (64 << 20) / ROUTE_NODE_BYTES;

/// The routes' memory, counted as the connections' routes are resolved one by one, held
/// to the limit of [`check`] (issue 14: "a scenario that will not fit is refused before it
/// starts"): routes found through a long line of switches can take more memory than the
/// machine has before the scenario is whole and its estimate can be made (a newcomer's
/// review: 10 000 connections across 100 000 switches took 23.7 GB while being validated).
/// The limit is read once, when the routes first pass [`ROUTE_NODES_UNCHECKED`] nodes; a
/// limit variable that is not a size counts as none here (the run's own check names it).
#[derive(Debug, Default)]
pub struct RouteBudget {
    nodes: u64,
    limit: Option<Option<(u64, String)>>,
}

impl RouteBudget {
    /// Held to `limit` bytes (None: no limit) instead of the environment's (tests).
    pub fn with_limit(limit: Option<u64>) -> Self {
        RouteBudget {
            nodes: 0,
            limit: Some(limit.map(|l| (l, "the limit given".to_string()))),
        }
    }

    /// Counts the route of connection `index` (of `connections`), `nodes` nodes long; an
    /// error message (for the route's key) if the routes so far take more than the limit.
    pub fn add(&mut self, nodes: usize, index: usize, connections: usize) -> Result<(), String> {
        self.nodes = self.nodes.saturating_add(nodes as u64);
        if self.nodes <= ROUTE_NODES_UNCHECKED && self.limit.is_none() {
            return Ok(());
        }
        let limit = self
            .limit
            .get_or_insert_with(|| limit(false).ok().flatten());
        let bytes = self.nodes.saturating_mul(ROUTE_NODE_BYTES);
        match limit {
            Some((limit, source)) if bytes > *limit => Err(format!(
                "the routes of the first {} of {connections} connections cross {} nodes in all, \
                 about {} of paths and per-VC port state ({ROUTE_NODE_BYTES} bytes a node), more \
                 than the {} available ({source}); allowed: routes that fit in memory: give \
                 shorter routes (`route`), fewer connections, or set the environment variable \
                 {LIMIT_VARIABLE} to a larger size",
                index + 1,
                self.nodes,
                mib(bytes),
                mib(*limit),
            )),
            _ => Ok(()),
        }
    }
}

/// Bytes the TOML reader holds per byte of text while it reads a scenario (the `toml`
/// crate's document tree, with every key's and value's place in the text): a 40 MB TOML
/// file of 100 000 one-pair VCs peaked at 1.2 GB (30 bytes per byte) in the fifty-fifth
/// session, where the same scenario as JSON takes about 2.5 bytes per byte.
pub const TOML_READ_BYTES_PER_BYTE: u64 = 32;

/// TOML texts up to this long are read without looking at the limit: their reading takes
/// at most 64 MiB, which fits any machine the engine runs on.
const TOML_UNCHECKED_BYTES: usize = (64 << 20) / TOML_READ_BYTES_PER_BYTE as usize;

/// Refuses a TOML text whose reading would take more than the memory limit of [`check`]
/// (issue 14: "do not let the OS kill the run"; the estimate of a scenario needs it read):
/// about [`TOML_READ_BYTES_PER_BYTE`] times its length. A limit variable that is not a
/// size counts as none here (the run's own check names it).
pub fn check_toml_text(len: usize) -> Result<(), String> {
    if len <= TOML_UNCHECKED_BYTES {
        return Ok(());
    }
    toml_text_within(len, limit(false).ok().flatten())
}

/// [`check_toml_text`] held to `limit` (bytes, and where it came from; None: no limit).
fn toml_text_within(len: usize, limit: Option<(u64, String)>) -> Result<(), String> {
    let need = (len as u64).saturating_mul(TOML_READ_BYTES_PER_BYTE);
    match limit {
        Some((limit, source)) if need > limit => Err(format!(
            "the scenario's TOML text is {}; reading it takes about {} (the TOML reader holds \
             about {TOML_READ_BYTES_PER_BYTE} bytes per byte of text), more than the {} \
             available ({source}); allowed: a TOML text that fits: write a scenario this \
             large as JSON (the same layout, about 2.5 bytes per byte while read) or pass it \
             from Python as a dict, or set the environment variable {LIMIT_VARIABLE} to a \
             larger size",
            mib(len as u64),
            mib(need),
            mib(limit),
        )),
        _ => Ok(()),
    }
}

/// Why a scenario may not run: its estimate exceeds the limit, or the limit variable
/// ([`LIMIT_VARIABLE`]) is not a size.
#[derive(Clone, Debug, PartialEq)]
pub enum MemoryError {
    /// The estimate exceeds the limit.
    TooLarge(TooLarge),
    /// The environment variable holds something that is not a size nor `off`.
    BadLimit(String),
}

impl fmt::Display for MemoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemoryError::TooLarge(t) => t.fmt(f),
            MemoryError::BadLimit(v) => write!(
                f,
                "environment variable {LIMIT_VARIABLE} = {v:?}: expected a size of at least \
                 1 B with its unit (B, KiB, MiB, GiB, TiB, kB, MB, GB, TB; e.g. \"48 GiB\") or \
                 \"off\""
            ),
        }
    }
}

impl std::error::Error for MemoryError {}

/// A size such as `"48 GiB"`, bytes; `Ok(None)` for `"off"`.
fn parse_limit(text: &str) -> Result<Option<u64>, MemoryError> {
    let bad = || MemoryError::BadLimit(text.to_string());
    let t = text.trim();
    if t.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let v: f64 = t[..split].trim().parse().map_err(|_| bad())?;
    let unit: u64 = match t[split..].trim() {
        "B" => 1,
        "kB" => 1_000,
        "KiB" | "KB" => 1 << 10,
        "MB" => 1_000_000,
        "MiB" => 1 << 20,
        "GB" => 1_000_000_000,
        "GiB" => 1 << 30,
        "TB" => 1_000_000_000_000,
        "TiB" => 1 << 40,
        _ => return Err(bad()),
    };
    let b = v * unit as f64;
    if !b.is_finite() || b < 1.0 || b > u64::MAX as f64 {
        return Err(bad());
    }
    Ok(Some(b as u64))
}

/// Checks [`LIMIT_VARIABLE`] alone, without a scenario: a size, `"off"`, or unset. For a
/// batch of runs, so that a bad value stops it before the first run instead of failing
/// each one ([`crate::check_environment`]).
pub fn check_limit_variable() -> Result<(), MemoryError> {
    limit_from(std::env::var(LIMIT_VARIABLE).ok(), || None).map(|_| ())
}

/// The memory limit here and where it came from: [`LIMIT_VARIABLE`] if set (None for
/// "off"), else the memory available now (None where it cannot be read). A variable that is
/// not a size is an error, or, with `available_if_bad`, read as unset (for a check that
/// leaves the variable to the run's own message).
pub fn limit(available_if_bad: bool) -> Result<Option<(u64, String)>, MemoryError> {
    match limit_from(std::env::var(LIMIT_VARIABLE).ok(), mem_available) {
        Err(_) if available_if_bad => limit_from(None, mem_available),
        other => other,
    }
}

/// The limit to hold a run to, and where it came from: [`LIMIT_VARIABLE`] if set (None:
/// "off"), else the available memory read by `available` (None: no check).
fn limit_from(
    variable: Option<String>,
    available: impl FnOnce() -> Option<u64>,
) -> Result<Option<(u64, String)>, MemoryError> {
    match variable {
        Some(v) => Ok(parse_limit(&v)?.map(|b| (b, format!("{LIMIT_VARIABLE} = {v:?}")))),
        None => Ok(available().map(|b| (b, "MemAvailable in /proc/meminfo".to_string()))),
    }
}

/// Refuses `sc` if its estimate exceeds `limit` bytes, or, with no limit given, the limit of
/// the environment variable [`LIMIT_VARIABLE`] or else the memory available now (no check
/// where that cannot be read). Returns the estimate.
pub fn check(sc: &Scenario, limit: Option<u64>) -> Result<Footprint, MemoryError> {
    checked(sc, limit).map(|(fp, _)| fp)
}

/// [`check`], and the limit it held the estimate to with where that came from (None: no
/// limit).
fn checked(
    sc: &Scenario,
    limit: Option<u64>,
) -> Result<(Footprint, Option<(u64, String)>), MemoryError> {
    let fp = estimate(sc);
    let limit = match limit {
        Some(l) => Some((l, "the limit given".to_string())),
        None => limit_from(std::env::var(LIMIT_VARIABLE).ok(), mem_available)?,
    };
    match limit {
        Some((limit, source)) if fp.fixed() > limit => Err(MemoryError::TooLarge(TooLarge {
            footprint: fp,
            limit,
            limit_source: source,
        })),
        _ => Ok((fp, limit)),
    }
}

/// Refuses `sc` as [`check`] does, and gives the guard of its run: what the run's queues
/// and delay lines may grow by before it is stopped (None: no limit).
pub fn guard(sc: &Scenario, limit: Option<u64>) -> Result<Option<Guard>, MemoryError> {
    let (fp, limit) = checked(sc, limit)?;
    Ok(limit.map(|(limit, limit_source)| Guard::new(&fp, limit, limit_source)))
}

/// What a run's cells may take as it goes (issue 14: "do not let the OS kill the run").
///
/// The estimate made before the run ([`estimate`]) bounds the cells a TCP window can queue
/// or put on a link, but only allows [`NON_TCP_CELLS`] per direction of other traffic: an
/// open-loop source (CBR, on/off, a greedy cell source) faster than its bottleneck, into an
/// unlimited buffer, grows its queue for as long as it runs. So the run watches what its
/// rings (queues and delay lines) have grown by ([`atmsim_kernel::memory`]) between slices
/// of its events, and stops with an error naming the place that grew once the growth
/// passes its room: the limit less the estimate's parts that do not grow.
#[derive(Clone, Debug)]
pub struct Guard {
    /// The thread whose growth it counts (the count is per thread): the one that made it.
    thread: std::thread::ThreadId,
    start: u64,
    room: u64,
    estimated: u64,
    limit: u64,
    limit_source: String,
}

impl Guard {
    /// The guard of a run whose estimate is `fp`, held to `limit` bytes (from
    /// `limit_source`); the growth counts from now, on this thread (make it on the thread
    /// that runs the simulation).
    pub fn new(fp: &Footprint, limit: u64, limit_source: String) -> Self {
        Guard {
            thread: std::thread::current().id(),
            start: atmsim_kernel::memory::grown(),
            room: limit.saturating_sub(fp.fixed()),
            estimated: fp.growing(),
            limit,
            limit_source,
        }
    }

    /// Bytes the run's queues, delay lines and pending events have allocated to grow so far
    /// (each new buffer in full: [`atmsim_kernel::memory`]).
    pub fn grown(&self) -> u64 {
        debug_assert_eq!(
            std::thread::current().id(),
            self.thread,
            "a memory guard counts the growth of the thread that made it"
        );
        atmsim_kernel::memory::grown().saturating_sub(self.start)
    }

    /// True once the growth has passed the room.
    pub fn exceeded(&self) -> bool {
        self.grown() > self.room
    }

    /// Bytes the queues and delay lines may grow by.
    pub fn room(&self) -> u64 {
        self.room
    }

    /// The limit, and where it came from.
    pub fn limit(&self) -> (u64, &str) {
        (self.limit, &self.limit_source)
    }

    /// How the guard stopped a run, for its error message: `reached` of `duration` seconds
    /// simulated, and what held the most (`holder`: a sentence naming a port or a link and
    /// the key that bounds it).
    pub fn outgrown_message(&self, reached: f64, duration: f64, holder: &str) -> String {
        format!(
            "the run outgrew its memory limit at {reached} s of {duration} s simulated: its \
             queues, delay lines and event queue allocated {} as they grew (their cells were \
             estimated before the run at up to {}), past the {} left for them under the limit \
             of {} ({}); {holder}. Or shorten measurement.duration, or raise the environment \
             variable {LIMIT_VARIABLE} (e.g. \"64 GiB\", or \"off\")",
            mib(self.grown()),
            mib(self.estimated),
            mib(self.room),
            mib(self.limit),
            self.limit_source,
        )
    }
}

#[cfg(test)]
mod tests {
    /// A TOML text is refused when about 32 bytes per byte of it pass the limit, with a
    /// message naming its size, the need, the limit and JSON; short texts never look.
    #[test]
    fn toml_texts_are_held_to_the_memory_limit() {
        let limit = |b: u64| Some((b, "the limit given".to_string()));
        assert_eq!(toml_text_within(1 << 20, limit(32 << 20)), Ok(()));
        let msg = toml_text_within((1 << 20) + 1, limit(32 << 20)).unwrap_err();
        for part in [
            "TOML text is 1.0 MiB",
            "about 32.0 MiB",
            "32.0 MiB available",
            "as JSON",
        ] {
            assert!(msg.contains(part), "{part:?} not in {msg}");
        }
        assert_eq!(toml_text_within(usize::MAX, None), Ok(()));
        assert_eq!(check_toml_text(TOML_UNCHECKED_BYTES), Ok(()));
    }

    use super::*;

    /// The routes' budget lets routes through until their nodes' bytes pass the limit, then
    /// names the connection count, the nodes, the bytes and the limit; without a limit it
    /// never refuses.
    #[test]
    fn route_budget_refuses_routes_past_the_limit() {
        let mut b = RouteBudget::with_limit(Some(10 * ROUTE_NODE_BYTES));
        assert_eq!(b.add(4, 0, 5), Ok(()));
        assert_eq!(b.add(6, 1, 5), Ok(()), "exactly the limit fits");
        let e = b.add(4, 2, 5).expect_err("14 nodes pass a limit of 10");
        assert!(
            e.contains("the first 3 of 5 connections cross 14 nodes"),
            "{e}"
        );
        assert!(
            e.contains("52 bytes a node") && e.contains("the limit given"),
            "{e}"
        );
        assert!(
            e.contains(LIMIT_VARIABLE) && e.contains("shorter routes"),
            "{e}"
        );
        let mut none = RouteBudget::with_limit(None);
        assert_eq!(none.add(usize::MAX, 0, 1), Ok(()));
        assert_eq!(none.add(usize::MAX, 1, 2), Ok(()), "the count saturates");
    }

    /// `n` TCP connections, one host pair each, over a 2-switch bottleneck.
    fn pairs(n: usize, sample: &str) -> Scenario {
        let mut nodes = vec![
            r#"{"name":"sw1","kind":"switch"}"#.to_string(),
            r#"{"name":"sw2","kind":"switch"}"#.to_string(),
        ];
        let mut links = vec![r#"{"between":["sw1","sw2"],"delay":"1 ms"}"#.to_string()];
        let mut conns = Vec::new();
        for i in 0..n {
            nodes.push(format!(r#"{{"name":"s{i}","kind":"host"}}"#));
            nodes.push(format!(r#"{{"name":"d{i}","kind":"host"}}"#));
            links.push(format!(r#"{{"between":["s{i}","sw1"],"delay":"1 ms"}}"#));
            links.push(format!(r#"{{"between":["sw2","d{i}"],"delay":"1 ms"}}"#));
            conns.push(format!(
                r#"{{"name":"c{i}","from":"s{i}","to":"d{i}","route":["s{i}","sw1","sw2","d{i}"],"traffic":{{"kind":"tcp"}}}}"#
            ));
        }
        let text = format!(
            r#"{{"name":"t","measurement":{{"duration":"10 s","sample_interval":"{sample}"}},"defaults":{{"switch_buffer":"1000 cells"}},"node":[{}],"link":[{}],"connection":[{}]}}"#,
            nodes.join(","),
            links.join(","),
            conns.join(",")
        );
        let f = crate::scenario::from_json_str(&text).expect("parses");
        crate::scenario::resolve::resolve_unchecked(&f).expect("resolves")
    }

    #[test]
    fn grows_with_connections_and_series() {
        let small = estimate(&pairs(10, "0 s")).total();
        let large = estimate(&pairs(1000, "0 s")).total();
        let per_vc = (large - small) / 990;
        // Mostly the window a TCP source can queue at its unlimited host port.
        assert!(per_vc > 500 && per_vc < 1_000_000, "per VC {per_vc} B");
        let with_series = estimate(&pairs(1000, "1 ms"));
        let series = with_series
            .parts
            .iter()
            .find(|p| p.what == "time series")
            .unwrap();
        // 10 001 samples x (3 values x 1000 connections + ...) x 20 B.
        assert!(series.bytes > 10_001 * 3000 * 20, "{}", series.bytes);
        assert_eq!(with_series.largest_first()[0].what, "time series");
    }

    #[test]
    fn refuses_above_the_limit_naming_estimate_limit_and_keys() {
        let sc = pairs(100, "1 ms");
        let fp = check(&sc, Some(u64::MAX)).expect("fits");
        let err = check(&sc, Some(fp.fixed() - 1)).expect_err("refused");
        let msg = err.to_string();
        assert!(msg.contains(&mib(fp.fixed())), "{msg}");
        assert!(msg.contains(&mib(fp.fixed() - 1)), "{msg}");
        assert!(msg.contains("before any cell moves"), "{msg}");
        assert!(
            !msg.contains("(estimate)"),
            "the cells do not refuse: {msg}"
        );
        assert!(msg.contains("measurement.sample_interval"), "{msg}");
        assert!(msg.contains("the limit given"), "{msg}");
        assert!(msg.contains(LIMIT_VARIABLE), "{msg}");
    }

    #[test]
    fn the_limit_variable_takes_a_size_or_off() {
        let avail = || Some(7u64);
        assert_eq!(
            limit_from(None, avail).unwrap(),
            Some((7, "MemAvailable in /proc/meminfo".into()))
        );
        let (b, src) = limit_from(Some("48 GiB".into()), avail).unwrap().unwrap();
        assert_eq!(b, 48 << 30);
        assert!(
            src.contains(LIMIT_VARIABLE) && src.contains("48 GiB"),
            "{src}"
        );
        assert_eq!(
            limit_from(Some("1.5MB".into()), avail).unwrap().unwrap().0,
            1_500_000
        );
        assert_eq!(limit_from(Some("off".into()), avail).unwrap(), None);
        for bad in ["", "48", "lots", "-1 GiB", "0 B", "4 gigs"] {
            let e = limit_from(Some(bad.into()), avail).unwrap_err().to_string();
            assert!(
                e.contains(LIMIT_VARIABLE) && e.contains("GiB") && e.contains("off"),
                "{e}"
            );
        }
    }

    #[test]
    fn counts_the_cells_a_link_holds_in_flight() {
        // 1 ms links at the default 155.52 Mbit/s hold 366 cells (+1); a TCP window of 64
        // KB at 512 B segments is more, so the link bounds it.
        let sc = pairs(10, "0 s");
        let part = |sc: &Scenario| {
            estimate(sc)
                .parts
                .iter()
                .find(|p| p.what.starts_with("cells in flight"))
                .unwrap()
                .bytes
        };
        let per_port = (155_520_000u64 / 1000 / 424 + 1) * 24 * 2;
        assert!(
            part(&sc) >= per_port * 10,
            "{} < {}",
            part(&sc),
            per_port * 10
        );
        assert!(part(&pairs(20, "0 s")) > part(&sc));
    }

    #[test]
    fn every_allocator_with_per_vc_tables_reports_their_size() {
        use crate::allocator::{AllocatorCfg, EricaCfg, GwCfg, KvrCfg};
        assert!(AllocatorCfg::Erica(EricaCfg::default().into()).bytes_per_vc() >= 32);
        assert!(AllocatorCfg::Gw(GwCfg::default()).bytes_per_vc() >= 16);
        assert!(AllocatorCfg::Kvr(KvrCfg::default()).bytes_per_vc() >= 16);
        assert_eq!(AllocatorCfg::None(Default::default()).bytes_per_vc(), 0);
    }

    #[test]
    fn reads_mem_available() {
        let text = "MemTotal: 100 kB\nMemFree: 50 kB\nMemAvailable:   24000000 kB\n";
        assert_eq!(parse_mem_available(text), Some(24_000_000 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn cells_do_not_refuse_a_scenario_but_set_its_guard() {
        // 1000 TCP VCs: the cells' upper estimate is most of the whole; a limit between the
        // fixed part and the whole lets the scenario run, watched, with the rest as room.
        let sc = pairs(1000, "0 s");
        let fp = estimate(&sc);
        assert!(
            fp.growing() > fp.fixed(),
            "{} vs {}",
            fp.growing(),
            fp.fixed()
        );
        assert_eq!(fp.total(), fp.fixed() + fp.growing());
        let limit = fp.fixed() + fp.growing() / 2;
        check(&sc, Some(limit)).expect("the fixed part fits");
        let g = guard(&sc, Some(limit)).expect("fits").expect("a limit");
        assert_eq!(g.room(), limit - fp.fixed());
        assert_eq!(g.limit(), (limit, "the limit given"));
        assert!(!g.exceeded() && g.grown() == 0);
        check(&sc, Some(fp.fixed() - 1)).expect_err("the fixed part does not fit");
    }
}
