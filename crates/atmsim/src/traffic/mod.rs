//! Traffic sources (seed 003 sections 5.2-5.7; seed 004 sections 5.2 and 6).
//!
//! Each cell-level kind is one file: its spec (the keys a scenario writes, with
//! [`Resolve`] against the connection's start: the only place its defaults and ranges are
//! checked), its resolved configuration (`...Cfg`, implementing [`TrafficCfg`]), and its
//! running state behind [`TrafficModel`] (hooks with defaults; [`Build`] from the cfg).
//! One line per kind in the [`registry!`](crate::registry) call below generates:
//! - [`TrafficSpec`], the tagged spec enum (`traffic = { kind = ... }`, in the JSON Schema);
//! - [`CellApp`], the resolved configuration enum (what a connection carries);
//! - [`AnyTraffic`], the running source with static dispatch (no `dyn`);
//! - [`TRAFFIC_KINDS`], the names with their one-line docs, and `name()` on all three.
//!
//! `tcp` is a spec-only kind of the same registry: listed and accepted here, resolved by
//! `tcp::config` and run by `sim::tcp_host`.
//!
//! A source fills the backlog of a connection direction ([`CellDir`]); the end system's
//! transmitter drains it (`sim::abr_host`). The engine (`sim::cell_host`) calls the
//! hooks on `Start`, `Gen`, `Think` and message-delivery events.
//!
//! Adding a kind: a new file with its spec, `...Cfg` and model, and one registry line (see
//! CONTRIBUTING.md).

mod cbr;
mod on_off;
mod persistent;
mod request_response;
mod sessions;
mod video;

pub use cbr::{Cbr, CbrCfg, CbrSpec};
pub use on_off::{OnOff, OnOffCfg, OnOffSpec};
pub use persistent::{Persistent, PersistentCfg, PersistentSpec};
pub use request_response::{RequestResponse, RequestResponseCfg, RequestResponseSpec};
pub use sessions::{PeriodDistribution, Sessions, SessionsCfg, SessionsSpec};
pub use video::{FrameArrival, Video, VideoParams, VideoSpec};

use crate::cell::ServiceClass;
use crate::config::{err, ConfigError};
use crate::network::CellDir;
use crate::registry::registry;
#[cfg(doc)]
use crate::registry::{Build, Resolve};
use crate::tcp::config::TcpTrafficSpec;
use crate::units::{Duration, Rate};
use atmsim_kernel::Time;

/// Where a source is built: the run seed and the connection's name (its random streams
/// are named after it).
#[derive(Clone, Copy, Debug)]
pub struct SourceEnv<'a> {
    /// The run seed.
    pub seed: u64,
    /// The connection's name.
    pub conn: &'a str,
}

/// What a source does when its connection starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Start {
    /// It handed cells (or became greedy): the forward transmitter is kicked.
    Kick,
    /// Its first `Gen` event is at this time.
    GenAt(Time),
    /// It opens its first session (signalled; see [`Sessions`]).
    Session,
}

/// What a source does when a message's last cell reaches its destination.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OnMessage {
    /// Nothing.
    Nothing,
    /// The reverse direction has cells to send (a server answers).
    KickReverse,
    /// The client thinks; a `Think` event at this time.
    ThinkUntil(Time),
}

/// One contribution of a source to its run's event rate, for the heavy-run guard
/// (`scenario::budget`, issue 18): the key under `connection[i].` that sets it, its value in
/// readable units, and the events per simulated second it asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct EventLoad {
    /// Key path under the connection (`traffic.rate`).
    pub key: &'static str,
    /// The value as a reader would write it.
    pub value: String,
    /// Estimated events per simulated second.
    pub events_per_s: f64,
}

impl EventLoad {
    /// A stream of `cells_per_s` cells per second (one event per cell), set by `key`.
    pub fn cells(key: &'static str, cells_per_s: f64) -> Self {
        let value = format!("{} bps", cells_per_s * crate::cell::CELL_BITS_F64);
        EventLoad {
            key,
            value,
            events_per_s: cells_per_s,
        }
    }

    /// `events` events every `period` picoseconds, set by `key`.
    pub fn every(key: &'static str, period: Time, events: f64) -> Self {
        let value = Duration(period).to_string();
        EventLoad {
            key,
            value,
            events_per_s: events * per_second(period),
        }
    }
}

/// How many times a period of `period` picoseconds fits in a simulated second.
pub fn per_second(period: Time) -> f64 {
    atmsim_kernel::PS_PER_S as f64 / period.max(1) as f64
}

/// The resolved configuration of a traffic kind: what the engine needs to know before
/// the run (sizes, demand, shaping, service classes, the events it asks for).
pub trait TrafficCfg {
    /// Long-run demand of the forward direction in cells/s (None: unbounded), used by
    /// the max-min oracle.
    fn demand(&self) -> Option<f64>;

    /// Cells per message in the forward and reverse directions (1: a cell stream).
    fn message_cells(&self) -> [u32; 2] {
        [1, 1]
    }

    /// Whether the reverse direction sends data too (needs its own ABR source).
    fn reverse_sends(&self) -> bool {
        false
    }

    /// Whether the connection signals per session (not once at start and stop). True for a
    /// source whose `start` gives [`Start::Session`]: each session's opening restarts its ABR
    /// source, free to send at once, so its host port is never a lone source's
    /// (`Network::mark_lone_sources`).
    fn signals_per_session(&self) -> bool {
        false
    }

    /// The token-bucket shaper of the forward transmitter, if any.
    fn shaper(&self) -> Option<crate::video::TokenBucket> {
        None
    }

    /// The service classes the kind may use (`connection.service`), in the order the
    /// error message lists them. Default: ABR and UBR (sources that need feedback or
    /// best effort).
    fn classes(&self) -> &'static [ServiceClass] {
        &[ServiceClass::Abr, ServiceClass::Ubr]
    }

    /// The events per simulated second the source asks for by itself (cells it hands,
    /// its own timers), each with its key, for the heavy-run guard; `hops` is the number of
    /// ports on the connection's routes, both ways. Default: none (a source that only
    /// follows its transmitter costs what the ports cost).
    fn event_loads(&self, _hops: usize) -> Vec<EventLoad> {
        Vec::new()
    }

    /// The most cells per second it can hand its first port, with the key that sets it,
    /// for the guard against sources far above their host's link. Default: none.
    fn peak_rate(&self) -> Option<(&'static str, f64)> {
        None
    }

    /// Whether an ABR source carrying it is greedy, so that its ACR may reach its PCR
    /// (the guard then counts the PCR as its peak). Default: no.
    fn greedy_under_abr(&self) -> bool {
        false
    }
}

/// A running cell-level source. Hooks have defaults: a source overrides what it uses.
pub trait TrafficModel {
    /// The connection starts at `now`: the source may hand the forward direction cells.
    fn start(&mut self, now: Time, fwd: &mut CellDir) -> Start;

    /// A `Gen` event of the source's direction `dir`: hand more cells; the next `Gen`
    /// event's time, if any.
    fn on_gen(&mut self, _now: Time, _dir: &mut CellDir) -> Option<Time> {
        None
    }

    /// A `Think` event: the client's think time ended.
    fn on_think(&mut self, _fwd: &mut CellDir) {}

    /// The last cell of a message of direction `reverse` reached its destination. `rev` is
    /// the reverse direction, which a connection has only if its traffic sends on it
    /// ([`TrafficCfg::reverse_sends`]).
    fn on_message(&mut self, _now: Time, _reverse: bool, _rev: Option<&mut CellDir>) -> OnMessage {
        OnMessage::Nothing
    }

    /// Sessions: the length of the period that starts now (open if `opening`).
    fn next_period(&mut self, _opening: bool) -> Time {
        Time::MAX
    }
}

registry! { $
    /// The traffic kinds, as scenario files name them (`traffic = { kind = ... }`).
    names: TRAFFIC_KINDS;
    /// The traffic of a connection, chosen by `kind`.
    spec: TrafficSpec;
    /// A resolved cell-level application: its kind and configuration.
    cfg: CellApp;
    /// A running cell-level source (static dispatch to its kind's model). Every
    /// cell-level connection holds one, as large as the largest kind held inline, so the
    /// kinds above 16 bytes are boxed (issue 14: 96 -> 24 bytes per connection).
    #[derive(Debug)]
    any: AnyTraffic;
    context: Time; environment: SourceEnv<'_>; dispatch: dispatch_traffic;
    spec_only: [
        Tcp = "tcp", "TCP over UBR or ABR: bulk transfer, or application = periodic (seed 002)":
            TcpTrafficSpec;
    ]
    entries: [
        Persistent = "persistent", "always has cells; with a cap, at most a given rate until a given time (seed 003 5.7.2)":
            PersistentSpec => Persistent as Persistent;
        RequestResponse = "request_response", "request/response exchanges with a think time between them (seed 003 5.7.1)":
            RequestResponseSpec => RequestResponse as RequestResponse;
        OnOff = "on_off", "deterministic on/off at a peak rate (seed 003 5.6)":
            OnOffSpec => Box<OnOff> as OnOff;
        Cbr = "cbr", "constant bit rate: one cell every 1/rate":
            CbrSpec => Cbr as Cbr;
        Sessions = "sessions", "greedy while open; the connection opens and closes (seed 004 section 6)":
            SessionsSpec => Box<Sessions> as Sessions;
        Video = "video", "Heyman DAR(1) video through a token bucket (seed 004 section 5.2)":
            VideoSpec => Box<Video> as Video;
    ]
}

impl CellApp {
    /// See [`TrafficCfg::demand`].
    pub fn demand(&self) -> Option<f64> {
        dispatch_traffic!(@cfg self, c => c.demand())
    }
    /// See [`TrafficCfg::message_cells`].
    pub fn message_cells(&self) -> [u32; 2] {
        dispatch_traffic!(@cfg self, c => c.message_cells())
    }
    /// See [`TrafficCfg::reverse_sends`].
    pub fn reverse_sends(&self) -> bool {
        dispatch_traffic!(@cfg self, c => c.reverse_sends())
    }
    /// See [`TrafficCfg::signals_per_session`].
    pub fn signals_per_session(&self) -> bool {
        dispatch_traffic!(@cfg self, c => c.signals_per_session())
    }
    /// See [`TrafficCfg::shaper`].
    pub fn shaper(&self) -> Option<crate::video::TokenBucket> {
        dispatch_traffic!(@cfg self, c => c.shaper())
    }
    /// See [`TrafficCfg::classes`].
    pub fn classes(&self) -> &'static [ServiceClass] {
        dispatch_traffic!(@cfg self, c => c.classes())
    }
    /// See [`TrafficCfg::event_loads`].
    pub fn event_loads(&self, hops: usize) -> Vec<EventLoad> {
        dispatch_traffic!(@cfg self, c => c.event_loads(hops))
    }
    /// See [`TrafficCfg::peak_rate`].
    pub fn peak_rate(&self) -> Option<(&'static str, f64)> {
        dispatch_traffic!(@cfg self, c => c.peak_rate())
    }
    /// See [`TrafficCfg::greedy_under_abr`].
    pub fn greedy_under_abr(&self) -> bool {
        dispatch_traffic!(@cfg self, c => c.greedy_under_abr())
    }
    /// The running source of connection `conn` in a run with seed `seed`.
    pub fn build(&self, seed: u64, conn: &str) -> AnyTraffic {
        AnyTraffic::build(self, &SourceEnv { seed, conn })
    }
}

impl TrafficModel for AnyTraffic {
    #[inline]
    fn start(&mut self, now: Time, fwd: &mut CellDir) -> Start {
        dispatch_traffic!(self, m => m.start(now, fwd))
    }
    #[inline]
    fn on_gen(&mut self, now: Time, dir: &mut CellDir) -> Option<Time> {
        dispatch_traffic!(self, m => m.on_gen(now, dir))
    }
    #[inline]
    fn on_think(&mut self, fwd: &mut CellDir) {
        dispatch_traffic!(self, m => m.on_think(fwd))
    }
    #[inline]
    fn on_message(&mut self, now: Time, reverse: bool, rev: Option<&mut CellDir>) -> OnMessage {
        dispatch_traffic!(self, m => m.on_message(now, reverse, rev))
    }
    #[inline]
    fn next_period(&mut self, opening: bool) -> Time {
        dispatch_traffic!(self, m => m.next_period(opening))
    }
}

/// A rate above 0 (and finite) at key path `key`, in cells/s. NaN is refused too.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
pub fn positive_rate(key: &str, r: Rate, what: &str) -> Result<f64, ConfigError> {
    if !(r.cells_per_sec() > 0.0) || !r.bps().is_finite() {
        return err(
            key,
            format!("{r} is not allowed; {what} must be above 0 bps"),
        );
    }
    Ok(r.cells_per_sec())
}

/// A period longer than 0 s at key path `key`.
pub fn positive_time(key: &str, d: Duration) -> Result<Time, ConfigError> {
    if d.ps() == 0 {
        return err(key, "must be longer than 0 s");
    }
    Ok(d.ps())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_listed_once_with_a_doc() {
        let mut names: Vec<&str> = TRAFFIC_KINDS.iter().map(|r| r.name).collect();
        assert_eq!(names[0], "tcp", "the spec-only kind is listed first");
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
        assert!(TRAFFIC_KINDS.iter().all(|r| !r.doc.trim().is_empty()));
    }

    #[test]
    fn name_matches_the_registry() {
        let app = CellApp::Cbr(CbrCfg { rate: 10.0 });
        assert_eq!(app.name(), "cbr");
        assert_eq!(app.demand(), Some(10.0));
        assert_eq!(app.build(1, "c").name(), "cbr");
    }

    #[test]
    fn tcp_is_accepted_but_resolved_elsewhere() {
        let t: TrafficSpec = serde_json::from_str(r#"{"kind": "tcp"}"#).unwrap();
        assert_eq!(t.name(), "tcp");
        assert_eq!(t.resolve("connection[0].traffic", &0), Ok(None));
        let c: TrafficSpec = serde_json::from_str(r#"{"kind": "cbr", "rate": "1 Mbps"}"#).unwrap();
        let app = c.resolve("connection[0].traffic", &0).unwrap().unwrap();
        assert_eq!(app.name(), c.name());
    }
}
