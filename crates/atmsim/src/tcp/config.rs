//! TCP's keys, defaults and checks (spec section 6.1; the seeds' BSD TCP).
//!
//! [`TcpSpec`] is what a scenario writes in `defaults.tcp` and a connection's
//! `traffic.tcp`; [`TcpParams`] is the resolved configuration, and its `impl Default` holds
//! the defaults (seed 001: MSS 512 B, 64 KB window, Tahoe with 100 ms timers).

use crate::config::{err, ConfigError, KeyPath, Pick};
use crate::units::{Bytes, Duration, Granularity, TickPhase};
use atmsim_kernel::{Time, PS_PER_MS, PS_PER_S};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use super::congestion::CongestionSpec;

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
    /// Congestion control: a registered name (`atmsim list`), default `tahoe`.
    #[serde(default)]
    pub congestion: Option<CongestionSpec>,
    /// Duplicate ACKs that trigger a fast retransmit (default 3); only for algorithms with fast
    /// retransmit (refused on the others, naming them).
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

/// `kind = "tcp"`: a TCP connection. Its application is an infinite bulk transfer unless
/// `application` says otherwise. Under service `abr` its segments go through AAL5 into
/// the connection's ABR source queue and leave paced at ACR (seeds 000 and 002). A
/// spec-only kind of the traffic registry (`crate::traffic`): `sim::tcp_host` runs it.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpTrafficSpec {
    /// TCP parameters; unset fields come from `defaults.tcp`, then the built-in defaults.
    // Boxed: most connections take the defaults, and inline the table made every parsed
    // connection 160 bytes larger (issue 14, set-up of large scenarios).
    #[serde(default)]
    pub tcp: Option<Box<TcpSpec>>,
    /// The application writing into the TCP socket (default: infinite bulk transfer).
    #[serde(default)]
    pub application: Option<TcpAppSpec>,
}

/// The application above a TCP sender.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TcpAppSpec {
    /// Infinite bulk transfer: the socket always has data (the default). No keys: an
    /// empty struct variant, so that the enum's `deny_unknown_fields` refuses one (a unit
    /// variant of a tagged enum took `size = "1 MB"` and ignored it; found by review).
    Bulk {},
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

/// Resolved TCP parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpParams {
    /// MSS, bytes.
    pub mss: u32,
    /// Max window, bytes.
    pub window: u64,
    /// Congestion control with its parameters.
    pub congestion: super::CongestionConfig,
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

impl Default for TcpParams {
    /// Seed 001's TCP: MSS 512 B, a 64 KB window (scaled windows allowed), Tahoe, 100 ms
    /// timer ticks (BSD's coarse timers as the OSU simulator used them), RTO initial 3 s,
    /// minimum two ticks, maximum 64 s (4.4BSD), no delayed ACKs (200 ms when on),
    /// ssthresh = window, out-of-order segments kept, tick phase drawn from the run seed.
    fn default() -> Self {
        TcpParams {
            mss: 512,
            window: 65536,
            congestion: super::CongestionConfig::Tahoe(super::tahoe::TahoeConfig),
            tick: Some(100 * PS_PER_MS),
            rto_initial: 3 * PS_PER_S,
            rto_min: 200 * PS_PER_MS,
            rto_max: 64 * PS_PER_S,
            delayed_ack: false,
            delayed_ack_timeout: 200 * PS_PER_MS,
            initial_ssthresh: 65536,
            keep_out_of_order: true,
            tick_phase: None,
            app: TcpApp::Bulk,
        }
    }
}

/// The minimum RTO when none is given: two ticks, or 200 ms with exact timers.
fn default_rto_min(tick: Option<Time>) -> Time {
    tick.map(|t| 2 * t).unwrap_or(TcpParams::default().rto_min)
}

/// Resolves a connection's TCP spec `c` over `defaults.tcp` = `d`; errors name where a
/// value came from (`path.key` or `defaults.tcp.key`).
pub fn resolve_tcp(path: &str, c: &TcpSpec, d: &TcpSpec) -> Result<TcpParams, ConfigError> {
    let pick = Pick {
        own_path: path,
        default_path: "defaults.tcp",
        own: c,
        default: d,
    };
    let def = TcpParams::default();
    let (mss, window) = segment_and_window(&pick, &def)?;
    let congestion = resolve_congestion(&pick)?;
    let tick = match pick.get("timer_granularity", |t| &t.timer_granularity).0 {
        None => def.tick,
        Some(Granularity::Tick(t)) => Some(t),
        Some(Granularity::Exact) => None,
    };
    let (rto_initial, rto_min, rto_max) = rto_bounds(&pick, &def, tick)?;
    let (dat, dat_p) = pick.get("delayed_ack_timeout", |t| &t.delayed_ack_timeout);
    let delayed_ack_timeout = dat.map(|d| d.ps()).unwrap_or(def.delayed_ack_timeout);
    if delayed_ack_timeout == 0 {
        return err(dat_p, "must be above 0 s");
    }
    let (iss, iss_p) = pick.get("initial_ssthresh", |t| &t.initial_ssthresh);
    let initial_ssthresh = iss.map(|b| b.0).unwrap_or(window);
    if initial_ssthresh < mss as u64 {
        return err(
            iss_p,
            format!("{initial_ssthresh} B is below the MSS ({mss} B)"),
        );
    }
    Ok(TcpParams {
        mss,
        window,
        congestion,
        tick,
        rto_initial,
        rto_min,
        rto_max,
        delayed_ack: pick
            .get("delayed_ack", |t| &t.delayed_ack)
            .0
            .unwrap_or(def.delayed_ack),
        delayed_ack_timeout,
        initial_ssthresh,
        keep_out_of_order: pick
            .get("keep_out_of_order", |t| &t.keep_out_of_order)
            .0
            .unwrap_or(def.keep_out_of_order),
        tick_phase: match pick.get("tick_phase", |t| &t.tick_phase).0 {
            None | Some(TickPhase::Random) => def.tick_phase,
            Some(TickPhase::Fixed(t)) => Some(t),
        },
        app: TcpApp::Bulk,
    })
}

/// MSS (1 B to 65495 B) and window (at least one segment; above 65535 B only with
/// window scaling; at most 2^30 B, RFC 1323).
fn segment_and_window(pick: &Pick<TcpSpec>, def: &TcpParams) -> Result<(u32, u64), ConfigError> {
    let (mss, mss_p) = pick.get("mss", |t| &t.mss);
    let mss = mss.map(|b| b.0).unwrap_or(def.mss as u64);
    if !(1..=65495).contains(&mss) {
        return err(
            mss_p,
            format!("{mss} B is not allowed; MSS must be 1 B to 65495 B"),
        );
    }
    let (win, win_p) = pick.get("window", |t| &t.window);
    let window = win.map(|b| b.0).unwrap_or(def.window);
    let scaling = pick
        .get("window_scaling", |t| &t.window_scaling)
        .0
        .unwrap_or(true);
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
    Ok((mss as u32, window))
}

/// RTO initial, minimum and maximum (each above 0 s, maximum not below minimum).
fn rto_bounds(
    pick: &Pick<TcpSpec>,
    def: &TcpParams,
    tick: Option<Time>,
) -> Result<(Time, Time, Time), ConfigError> {
    let (ri, ri_p) = pick.get("rto_initial", |t| &t.rto_initial);
    let rto_initial = ri.map(|d| d.ps()).unwrap_or(def.rto_initial);
    let (rmin, rmin_p) = pick.get("rto_min", |t| &t.rto_min);
    let rto_min = rmin.map(|d| d.ps()).unwrap_or(default_rto_min(tick));
    let (rmax, rmax_p) = pick.get("rto_max", |t| &t.rto_max);
    let rto_max = rmax.map(|d| d.ps()).unwrap_or(def.rto_max);
    if rto_min == 0 {
        return err(rmin_p, "must be above 0 s");
    }
    if rto_max < rto_min {
        return err(rmax_p, format!("is below rto_min ({})", Duration(rto_min)));
    }
    if rto_initial == 0 {
        return err(ri_p, "must be above 0 s");
    }
    Ok((rto_initial, rto_min, rto_max))
}

/// The congestion control and its parameters (`tcp.congestion`, and the keys the
/// algorithms read: `tcp.dupthresh`, `tcp.sack_blocks`); see [`super::congestion`].
fn resolve_congestion(pick: &Pick<TcpSpec>) -> Result<super::CongestionConfig, ConfigError> {
    let (cg, cg_p) = pick.get("congestion", |t| &t.congestion);
    let keys = super::congestion::CongestionKeys {
        dupthresh: keyed(pick.get("dupthresh", |t| &t.dupthresh)),
        sack_blocks: keyed(pick.get("sack_blocks", |t| &t.sack_blocks)),
        keep_out_of_order: keyed(pick.get("keep_out_of_order", |t| &t.keep_out_of_order)),
    };
    super::congestion::resolve_congestion(cg.unwrap_or_default(), &cg_p.to_string(), &keys)
}

/// A key as the congestion controls take it ([`super::congestion::Keyed`]).
fn keyed<T>((v, p): (Option<T>, KeyPath<'_>)) -> (Option<T>, String) {
    (v, p.into())
}

/// Resolves the application above a TCP sender.
pub fn resolve_tcp_app(
    path: &str,
    a: Option<&TcpAppSpec>,
    start: Time,
    mss: u32,
) -> Result<TcpApp, ConfigError> {
    Ok(match a {
        None | Some(TcpAppSpec::Bulk {}) => TcpApp::Bulk,
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
