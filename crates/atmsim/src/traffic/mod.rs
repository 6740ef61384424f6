//! Cell-level traffic sources (seed 003 sections 5.2-5.7; seed 004 sections 5.2 and 6).
//!
//! Each kind is one file: its resolved configuration (`...Cfg`, what the scenario layer
//! builds), and its running state behind [`TrafficModel`], whose hooks have defaults.
//! One line per kind in the [`traffic_registry!`] list below generates:
//! - [`CellApp`], the resolved configuration enum (what a connection carries);
//! - [`AnyTraffic`], the running source with static dispatch (no `dyn`);
//! - [`TRAFFIC_KINDS`], the names with their one-line docs, and [`CellApp::name`].
//!
//! A source fills the backlog of a connection direction ([`CellDir`]); the end system's
//! transmitter drains it (`sim::abr_host`). The engine (`sim::cell_host`) calls the
//! hooks on `Start`, `Gen`, `Think` and message-delivery events.
//!
//! Adding a kind: a new file with its `...Cfg` (implementing [`TrafficCfg`]) and its
//! model (implementing [`TrafficModel`]), and one registry line.

mod cbr;
mod on_off;
mod persistent;
mod request_response;
mod sessions;
mod video;

pub use cbr::{Cbr, CbrCfg};
pub use on_off::{OnOff, OnOffCfg};
pub use persistent::{Persistent, PersistentCfg};
pub use request_response::{RequestResponse, RequestResponseCfg};
pub use sessions::{Sessions, SessionsCfg};
pub use video::{Video, VideoParams};

use crate::network::CellDir;
use atmsim_kernel::{RngStream, Time};

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

/// The resolved configuration of a traffic kind: what the engine needs to know before
/// the run (sizes, demand, shaping), and how to build the running source.
pub trait TrafficCfg {
    /// The running source.
    type Model: TrafficModel;

    /// The running source of connection `conn` (named for its random streams).
    fn build(&self, seed: u64, conn: &str) -> Self::Model;

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

    /// Whether the connection signals per session (not once at start and stop).
    fn signals_per_session(&self) -> bool {
        false
    }

    /// The token-bucket shaper of the forward transmitter, if any.
    fn shaper(&self) -> Option<crate::video::TokenBucket> {
        None
    }
}

/// A running cell-level source. Hooks have defaults: a source overrides what it uses.
pub trait TrafficModel {
    /// The connection starts at `now`: the source may hand the forward direction cells.
    fn start(&mut self, now: Time, fwd: &mut CellDir, rng: &mut RngStream) -> Start;

    /// A `Gen` event of the source's direction `dir`: hand more cells; the next `Gen`
    /// event's time, if any.
    fn on_gen(&mut self, _now: Time, _dir: &mut CellDir) -> Option<Time> {
        None
    }

    /// A `Think` event: the client's think time ended.
    fn on_think(&mut self, _fwd: &mut CellDir) {}

    /// The last cell of a message of direction `reverse` reached its destination.
    fn on_message(&mut self, _now: Time, _reverse: bool, _dirs: &mut [CellDir; 2]) -> OnMessage {
        OnMessage::Nothing
    }

    /// Sessions: the length of the period that starts now (open if `opening`).
    fn next_period(&mut self, _opening: bool, _rng: &mut RngStream) -> Time {
        Time::MAX
    }
}

/// Generates the configuration enum, the running-source enum with static dispatch, and
/// the list of names with their docs, from one line per kind.
macro_rules! traffic_registry {
    ($( $(#[doc = $doc:literal])+ $name:literal => $Variant:ident($Cfg:ty, $Model:ty); )+) => {
        /// A resolved cell-level application: its kind and configuration.
        #[derive(Clone, Debug, PartialEq)]
        pub enum CellApp {
            $( $(#[doc = $doc])+ $Variant($Cfg), )+
        }

        /// A running cell-level source (static dispatch to its kind's model).
        #[derive(Debug)]
        pub enum AnyTraffic {
            $( $(#[doc = $doc])+ $Variant($Model), )+
        }

        /// Registered traffic kinds: name as written in a scenario, one-line doc.
        pub const TRAFFIC_KINDS: &[(&str, &str)] = &[ $( ($name, concat!($($doc),+)), )+ ];

        impl CellApp {
            /// The kind's name (as written in a scenario and in results).
            pub fn name(&self) -> &'static str {
                match self { $( CellApp::$Variant(_) => $name, )+ }
            }
            /// See [`TrafficCfg::demand`].
            pub fn demand(&self) -> Option<f64> {
                match self { $( CellApp::$Variant(c) => c.demand(), )+ }
            }
            /// See [`TrafficCfg::message_cells`].
            pub fn message_cells(&self) -> [u32; 2] {
                match self { $( CellApp::$Variant(c) => c.message_cells(), )+ }
            }
            /// See [`TrafficCfg::reverse_sends`].
            pub fn reverse_sends(&self) -> bool {
                match self { $( CellApp::$Variant(c) => c.reverse_sends(), )+ }
            }
            /// See [`TrafficCfg::signals_per_session`].
            pub fn signals_per_session(&self) -> bool {
                match self { $( CellApp::$Variant(c) => c.signals_per_session(), )+ }
            }
            /// See [`TrafficCfg::shaper`].
            pub fn shaper(&self) -> Option<crate::video::TokenBucket> {
                match self { $( CellApp::$Variant(c) => c.shaper(), )+ }
            }
            /// The running source of connection `conn`.
            pub fn build(&self, seed: u64, conn: &str) -> AnyTraffic {
                match self { $( CellApp::$Variant(c) => AnyTraffic::$Variant(c.build(seed, conn)), )+ }
            }
        }

        impl TrafficModel for AnyTraffic {
            #[inline]
            fn start(&mut self, now: Time, fwd: &mut CellDir, rng: &mut RngStream) -> Start {
                match self { $( AnyTraffic::$Variant(m) => m.start(now, fwd, rng), )+ }
            }
            #[inline]
            fn on_gen(&mut self, now: Time, dir: &mut CellDir) -> Option<Time> {
                match self { $( AnyTraffic::$Variant(m) => m.on_gen(now, dir), )+ }
            }
            #[inline]
            fn on_think(&mut self, fwd: &mut CellDir) {
                match self { $( AnyTraffic::$Variant(m) => m.on_think(fwd), )+ }
            }
            #[inline]
            fn on_message(&mut self, now: Time, reverse: bool, dirs: &mut [CellDir; 2]) -> OnMessage {
                match self { $( AnyTraffic::$Variant(m) => m.on_message(now, reverse, dirs), )+ }
            }
            #[inline]
            fn next_period(&mut self, opening: bool, rng: &mut RngStream) -> Time {
                match self { $( AnyTraffic::$Variant(m) => m.next_period(opening, rng), )+ }
            }
        }
    };
}

traffic_registry! {
    /// Always has cells; with a cap, at most a given rate until a given time.
    "persistent" => Persistent(PersistentCfg, Persistent);
    /// Request/response exchanges with a think time between them.
    "request_response" => RequestResponse(RequestResponseCfg, RequestResponse);
    /// Deterministic on/off at a peak rate.
    "on_off" => OnOff(OnOffCfg, OnOff);
    /// Constant bit rate.
    "cbr" => Cbr(CbrCfg, Cbr);
    /// Greedy while open; the connection opens and closes (seed 004 section 6).
    "sessions" => Sessions(SessionsCfg, Sessions);
    /// Heyman DAR(1) video through a token bucket (seed 004 section 5.2).
    "video" => Video(VideoParams, Video);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_listed_once_with_a_doc() {
        let mut names: Vec<&str> = TRAFFIC_KINDS.iter().map(|(n, _)| *n).collect();
        assert_eq!(names.len(), 6);
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 6);
        assert!(TRAFFIC_KINDS.iter().all(|(_, d)| !d.trim().is_empty()));
    }

    #[test]
    fn name_matches_the_registry() {
        let app = CellApp::Cbr(CbrCfg { rate: 10.0 });
        assert_eq!(app.name(), "cbr");
        assert_eq!(app.demand(), Some(10.0));
    }
}
