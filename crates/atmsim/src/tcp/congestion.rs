//! The congestion-control seam of the TCP sender (issue 13, item 4).
//!
//! The sender ([`super::TcpSender`]) owns sequence numbers, timers, RTT timing (Karn) and the
//! application; a [`CongestionControl`] owns everything an algorithm decides: how cwnd and
//! ssthresh move on ACKs and timeouts, when a duplicate ACK starts a fast retransmit, and which
//! segment goes next (new data, or a retransmission chosen by the algorithm). Every hook has a
//! default, which is the behaviour shared by all algorithms (4.4BSD slow start and congestion
//! avoidance, the timeout collapse of spec section 6.1, a send gate of `min(cwnd, window)`).
//!
//! Sequence numbers count whole segments, as everywhere in this sender (see `tcp/mod.rs`).
//!
//! Adding an algorithm: one file with a type implementing [`CongestionControl`] and its
//! configuration implementing [`ResolveNamed`] (the `tcp` keys it reads, its defaults in its
//! `impl Default`), and one line in the [`registry!`](crate::registry) call below, which
//! generates the [`CongestionSpec`] (the names a scenario's `tcp.congestion` accepts, in the
//! JSON Schema), [`CongestionConfig`] and [`AnyCongestion`] enums, [`CONGESTION_CONTROLS`]
//! (names with their one-line docs) and the static dispatch. See CONTRIBUTING.md.

use super::newreno::{NewReno, NewRenoConfig};
pub use super::none::{NoControl, NoControlConfig};
use super::reno::{Reno, RenoConfig};
use super::sack::{Sack, SackConfig};
use super::tahoe::{Tahoe, TahoeConfig};
use crate::config::{err, ConfigError};
#[cfg(doc)]
use crate::registry::ResolveNamed;
use crate::registry::{registry, Build};

/// Largest cwnd, bytes (the largest scaled TCP window).
pub const CWND_MAX: u64 = 1 << 30;

/// Most SACK blocks an ACK carries: 4 fit the 40 option bytes without timestamps (RFC 2018,
/// section 3).
pub const MAX_SACK_BLOCKS: usize = 4;

/// A SACK block: the receiver holds segments `start..end` (RFC 2018 section 3, in segments:
/// left edge = first segment held, right edge = one past the last).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    /// First segment of the block.
    pub start: u32,
    /// One past the last segment of the block.
    pub end: u32,
}

/// The congestion window and slow-start threshold (bytes), with the constants they are
/// measured against. Owned by the sender, changed by the algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes.
    pub ssthresh: u64,
    /// Segment size, bytes.
    pub mss: u64,
    /// The receiver's (maximum) window, bytes.
    pub max: u64,
}

impl Window {
    /// cwnd = 1 MSS, ssthresh = `ssthresh` (spec section 6.1).
    pub fn new(mss: u64, max: u64, ssthresh: u64) -> Self {
        Window {
            cwnd: mss,
            ssthresh,
            mss,
            max,
        }
    }

    /// The increase on an ACK of new data (spec section 6.1, 4.4BSD-Lite `tcp_input`): +1 MSS
    /// in slow start (cwnd <= ssthresh), +MSS*MSS/cwnd (integer, at least 1) above it; cwnd
    /// opens up to the window and no further.
    #[inline]
    pub fn open(&mut self) {
        let incr = if self.cwnd > self.ssthresh {
            (self.mss * self.mss / self.cwnd).max(1)
        } else {
            self.mss
        };
        self.cwnd = (self.cwnd + incr)
            .min(self.max.max(self.cwnd))
            .min(CWND_MAX);
    }

    /// ssthresh = max(min(cwnd, window)/2, 2 MSS), in whole segments (4.4BSD; for a
    /// window-limited bulk sender this is RFC 5681's FlightSize/2).
    #[inline]
    pub fn halve(&mut self) {
        let win = (self.max.min(self.cwnd) / 2 / self.mss).max(2);
        self.ssthresh = win * self.mss;
    }

    /// A retransmission timeout: ssthresh halved ([`Window::halve`]), cwnd = 1 MSS.
    #[inline]
    pub fn collapse(&mut self) {
        self.halve();
        self.cwnd = self.mss;
    }

    /// cwnd += `segments` MSS (fast-recovery inflation).
    #[inline]
    pub fn inflate(&mut self, segments: u32) {
        self.cwnd = (self.cwnd + segments as u64 * self.mss).min(CWND_MAX);
    }

    /// True if one more segment fits when `flight` segments are out: (flight + 1) MSS <=
    /// min(cwnd, window) (sender silly-window avoidance: only whole segments go).
    #[inline]
    pub fn fits(&self, flight: u32) -> bool {
        (flight as u64 + 1) * self.mss <= self.cwnd.min(self.max)
    }

    /// True if the receiver's window has room for segment `seg` when `una` is the oldest
    /// unacknowledged one.
    #[inline]
    pub fn receiver_allows(&self, una: u32, seg: u32) -> bool {
        (seg - una + 1) as u64 * self.mss <= self.max
    }
}

/// The sender's sequence state, as the algorithm sees it (segments).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seq {
    /// Oldest unacknowledged segment.
    pub una: u32,
    /// Next segment to send (below `max` after a go-back-N timeout).
    pub nxt: u32,
    /// One past the highest segment sent.
    pub max: u32,
    /// The application has a new segment (`max`) ready and the connection is not closed.
    pub new_ok: bool,
}

impl Seq {
    /// Segment `seg` may go as far as the application is concerned: it was sent before, or it
    /// is new and written.
    #[inline]
    pub fn has_data(&self, seg: u32) -> bool {
        seg < self.max || self.new_ok
    }
}

/// What the retransmit timer does on an ACK of new data that leaves data outstanding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckTimer {
    /// Restart it (RFC 6298 rule 5.3; every algorithm by default).
    Restart,
    /// Leave it running (NewReno's "Impatient" partial ACKs, RFC 6582 section 4).
    Keep,
}

/// What the algorithm wants after a duplicate ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupAck {
    /// Only counted.
    Counted,
    /// Fast retransmit: the sender stops the retransmit timer and the RTT timing (Karn); the
    /// retransmission itself comes from the next [`CongestionControl::next_send`].
    FastRetransmit,
}

/// The next transmission the algorithm allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Send {
    /// Nothing may go now.
    Hold,
    /// Send segment `at` (>= snd_nxt; above it only to skip segments the receiver holds) and
    /// continue from there: new data, or go-back-N after a timeout.
    New {
        /// The segment.
        at: u32,
    },
    /// Retransmit segment `seg` (below snd_nxt or at snd_una) out of order.
    Retransmit {
        /// The segment.
        seg: u32,
        /// Counts as a fast retransmit (the one that starts a recovery).
        fast: bool,
    },
}

/// How an algorithm's fast recovery ends, as the `tcp` trace follows it (its
/// `fast_retransmit`, `partial_ack` and `recovery_exit` events; docs/traces.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// No fast recovery: a fast retransmit (if any) does not start one.
    None,
    /// The next ACK of new data ends it (Reno, RFC 5681).
    NextNewAck,
    /// An ACK at or past the highest segment sent when it started ends it; ACKs below are
    /// partial (NewReno, RFC 6582; SACK, RFC 6675).
    RecoverPoint,
}

/// A congestion-control algorithm. Every hook has the default shared by the algorithms here.
pub trait CongestionControl {
    /// The algorithm's resolved configuration (its defaults are its `impl Default`).
    type Config: Clone + std::fmt::Debug + Default + PartialEq;

    /// A new instance.
    fn new(cfg: &Self::Config) -> Self;

    /// SACK blocks the receiver must send for this algorithm (0: no SACK option).
    fn receiver_sack_blocks(_cfg: &Self::Config) -> usize {
        0
    }

    /// How its fast recovery ends (for the `tcp` trace); default: it has none.
    fn recovery(&self) -> Recovery {
        Recovery::None
    }

    /// Once, when the sender is built.
    fn init(&mut self, _w: &mut Window) {}

    /// Every valid ACK (`ack <= snd_max`), before [`Self::on_new_ack`] or [`Self::on_dup_ack`],
    /// with the SACK blocks it carries (empty without SACK).
    #[inline]
    fn on_sack(&mut self, _seq: Seq, _ack: u32, _blocks: &[SackBlock]) {}

    /// An ACK of new data: `ack > seq.una` (`seq` is the state before the ACK).
    #[inline]
    fn on_new_ack(&mut self, w: &mut Window, _seq: Seq, _ack: u32) -> AckTimer {
        w.open();
        AckTimer::Restart
    }

    /// A duplicate ACK (`ack == snd_una`, data outstanding). `timer_running`: the retransmit
    /// timer is armed.
    #[inline]
    fn on_dup_ack(&mut self, _w: &mut Window, _seq: Seq, _timer_running: bool) -> DupAck {
        DupAck::Counted
    }

    /// The retransmit timer fired; the sender then goes back to snd_una (go-back-N).
    #[inline]
    fn on_timeout(&mut self, w: &mut Window, _seq: Seq) {
        w.collapse();
    }

    /// What may go next.
    #[inline]
    fn next_send(&mut self, w: &mut Window, seq: Seq) -> Send {
        standard_send(w, seq)
    }
}

/// The send gate shared by the window-based algorithms: snd_nxt goes when the application
/// has it and `snd_nxt - snd_una + 1` segments fit in min(cwnd, window).
#[inline]
pub fn standard_send(w: &Window, seq: Seq) -> Send {
    if seq.has_data(seq.nxt) && w.fits(seq.nxt - seq.una) {
        Send::New { at: seq.nxt }
    } else {
        Send::Hold
    }
}

/// Builds an algorithm from its configuration through [`CongestionControl::new`] (the
/// registry's [`Build`] hook).
impl<C: CongestionControl> Build<C::Config, ()> for C {
    fn build(cfg: &C::Config, _: &()) -> Self {
        C::new(cfg)
    }
}

/// A key of the `tcp` table: its value if set, and the key path it was read from
/// (`connection[0].traffic.tcp.dupthresh`, or `defaults.tcp.dupthresh`).
pub type Keyed<T> = (Option<T>, String);

/// What a congestion control's name resolves against: the keys of the `tcp` table that
/// algorithms read (spec section 6.1), each with its key path. An algorithm lists the
/// parameters it takes in [`ResolveNamed::KEYS`]; [`resolve_congestion`] refuses the others.
#[derive(Clone, Debug, Default)]
pub struct CongestionKeys {
    /// `dupthresh`: duplicate ACKs that trigger a fast retransmit.
    pub dupthresh: Keyed<u32>,
    /// `sack_blocks`: most SACK blocks per ACK.
    pub sack_blocks: Keyed<u32>,
    /// `keep_out_of_order` (a receiver key, which an algorithm may depend on).
    pub keep_out_of_order: Keyed<bool>,
}

impl CongestionKeys {
    /// The algorithm parameters that are set, with their key paths.
    fn parameters_set(&self) -> Vec<(&'static str, &str)> {
        [
            ("dupthresh", self.dupthresh.0.is_some(), &self.dupthresh.1),
            (
                "sack_blocks",
                self.sack_blocks.0.is_some(),
                &self.sack_blocks.1,
            ),
        ]
        .into_iter()
        .filter(|&(_, set, _)| set)
        .map(|(key, _, path)| (key, path.as_str()))
        .collect()
    }

    /// DupThresh, at least 1 (`default` when unset).
    pub fn dupthresh_or(&self, default: u32) -> Result<u32, ConfigError> {
        match self.dupthresh.0 {
            Some(0) => err(
                &self.dupthresh.1,
                "0 is not allowed; dupthresh must be at least 1",
            ),
            d => Ok(d.unwrap_or(default)),
        }
    }
}

/// Resolves the congestion control `spec` (named at key path `path`) with its parameters
/// from `keys`. A parameter that `spec` does not take is refused, naming the key and the
/// registered algorithms that take it.
pub fn resolve_congestion(
    spec: CongestionSpec,
    path: &str,
    keys: &CongestionKeys,
) -> Result<CongestionConfig, ConfigError> {
    for (key, key_path) in keys.parameters_set() {
        if !spec.keys().contains(&key) {
            let takers: Vec<&str> = CongestionSpec::ALL
                .iter()
                .filter(|s| s.keys().contains(&key))
                .map(|s| s.name())
                .collect();
            return err(
                key_path,
                format!(
                    "is not a parameter of congestion = \"{}\"; {key} applies to {}",
                    spec.name(),
                    quoted_list(&takers)
                ),
            );
        }
    }
    spec.resolve(path, keys)
}

/// `"a", "b" and "c"`; `"a" only` for one name.
fn quoted_list(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    match q.as_slice() {
        [] => "no registered algorithm".into(),
        [one] => format!("{one} only"),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

registry! { $
    /// The TCP congestion controls, as scenario files name them (`tcp.congestion = ...`).
    names: CONGESTION_CONTROLS;
    /// TCP congestion control variant.
    spec: CongestionSpec by name;
    /// The congestion control of a connection with its parameters (resolved).
    cfg: CongestionConfig;
    /// One connection's algorithm, dispatched statically (no `dyn` on the per-ACK path).
    #[derive(Clone, Debug)]
    any: AnyCongestion;
    context: CongestionKeys; environment: (); dispatch: dispatch_congestion;
    entries: [
        Tahoe = "tahoe", "slow start, congestion avoidance, timeouts; no fast retransmit (seed 001's vanilla TCP)":
            TahoeConfig => Tahoe as Tahoe;
        Reno = "reno", "tahoe plus fast retransmit and fast recovery (4.3BSD-Reno, RFC 5681)":
            RenoConfig => Reno as Reno;
        NewReno = "newreno", "reno that stays in fast recovery over partial ACKs (RFC 6582)":
            NewRenoConfig => NewReno as NewReno;
        Sack = "sack", "SACK receiver (RFC 2018) and conservative SACK loss recovery (RFC 6675)":
            SackConfig => Box<Sack> as Sack;
        NoControl = "none", "no congestion control: limited by the receiver's window only":
            NoControlConfig => NoControl as NoControl;
    ]
}

impl CongestionConfig {
    /// SACK blocks the receiver sends (0: no SACK option).
    pub fn sack_blocks(&self) -> usize {
        dispatch_congestion!(@cfg self, c: T => T::receiver_sack_blocks(c))
    }

    /// Bytes a sender's algorithm keeps outside the sender: its state, if the registry
    /// holds it boxed. A state larger than [`AnyCongestion`] cannot be held in it, so
    /// it is boxed and counted here (SACK's scoreboard); a smaller one is counted in the
    /// sender's own size. The memory estimate ([`crate::footprint`]) reads it, so a new
    /// algorithm needs no line there.
    pub fn out_of_line_bytes(&self) -> u64 {
        dispatch_congestion!(@cfg self, _c: T => {
            let own = std::mem::size_of::<T>();
            match own > std::mem::size_of::<AnyCongestion>() {
                true => own as u64,
                false => 0,
            }
        })
    }
}

impl AnyCongestion {
    /// The algorithm `cfg` selects.
    pub fn new(cfg: &CongestionConfig) -> Self {
        Self::build(cfg, &())
    }

    /// See [`CongestionControl::recovery`].
    pub fn recovery(&self) -> Recovery {
        dispatch_congestion!(self, c => c.recovery())
    }

    /// See [`CongestionControl::init`].
    pub fn init(&mut self, w: &mut Window) {
        dispatch_congestion!(self, c => c.init(w))
    }

    /// See [`CongestionControl::on_sack`].
    #[inline]
    pub fn on_sack(&mut self, seq: Seq, ack: u32, blocks: &[SackBlock]) {
        dispatch_congestion!(self, c => c.on_sack(seq, ack, blocks))
    }

    /// See [`CongestionControl::on_new_ack`].
    #[inline]
    pub fn on_new_ack(&mut self, w: &mut Window, seq: Seq, ack: u32) -> AckTimer {
        dispatch_congestion!(self, c => c.on_new_ack(w, seq, ack))
    }

    /// See [`CongestionControl::on_dup_ack`].
    #[inline]
    pub fn on_dup_ack(&mut self, w: &mut Window, seq: Seq, timer_running: bool) -> DupAck {
        dispatch_congestion!(self, c => c.on_dup_ack(w, seq, timer_running))
    }

    /// See [`CongestionControl::on_timeout`].
    #[inline]
    pub fn on_timeout(&mut self, w: &mut Window, seq: Seq) {
        dispatch_congestion!(self, c => c.on_timeout(w, seq))
    }

    /// See [`CongestionControl::next_send`].
    #[inline]
    pub fn next_send(&mut self, w: &mut Window, seq: Seq) -> Send {
        dispatch_congestion!(self, c => c.next_send(w, seq))
    }
}

impl Default for CongestionSpec {
    /// Tahoe, seed 001's "TCP Fast Retransmit and Recovery disabled".
    fn default() -> Self {
        CongestionSpec::Tahoe
    }
}

impl Default for CongestionConfig {
    /// Tahoe, seed 001's "TCP Fast Retransmit and Recovery disabled".
    fn default() -> Self {
        CongestionConfig::Tahoe(TahoeConfig)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recovery rule each algorithm declares (the `tcp` trace follows it): Reno leaves
    /// on the next new ACK, NewReno and SACK at the recover point, Tahoe and none have none.
    #[test]
    fn every_algorithm_declares_how_its_fast_recovery_ends() {
        let rule = |name: &str| {
            let spec: CongestionSpec = serde_json::from_str(&format!("{name:?}")).expect("name");
            let cfg = resolve_congestion(spec, "tcp.congestion", &CongestionKeys::default())
                .expect("defaults resolve");
            AnyCongestion::new(&cfg).recovery()
        };
        assert_eq!(rule("tahoe"), Recovery::None);
        assert_eq!(rule("reno"), Recovery::NextNewAck);
        assert_eq!(rule("newreno"), Recovery::RecoverPoint);
        assert_eq!(rule("sack"), Recovery::RecoverPoint);
        assert_eq!(rule("none"), Recovery::None);
    }

    /// The state kept outside the sender, counted by the memory estimate: SACK's boxed
    /// scoreboard, nothing for the algorithms held in the sender.
    #[test]
    fn only_a_boxed_state_is_counted_out_of_the_sender() {
        for spec in CongestionSpec::ALL {
            let cfg = resolve_congestion(*spec, "tcp.congestion", &CongestionKeys::default())
                .expect("defaults resolve");
            let want = match cfg {
                CongestionConfig::Sack(_) => std::mem::size_of::<Sack>() as u64,
                _ => 0,
            };
            assert_eq!(cfg.out_of_line_bytes(), want, "{}", cfg.name());
        }
    }

    #[test]
    fn every_registered_algorithm_round_trips_through_its_name() {
        assert_eq!(CongestionSpec::ALL.len(), CONGESTION_CONTROLS.len());
        let mut sack = 0;
        for (spec, reg) in CongestionSpec::ALL.iter().zip(CONGESTION_CONTROLS) {
            let parsed: CongestionSpec = serde_json::from_str(&format!("{:?}", reg.name)).unwrap();
            assert_eq!(parsed, *spec);
            let cfg = resolve_congestion(*spec, "tcp.congestion", &CongestionKeys::default())
                .expect("defaults resolve");
            assert_eq!(cfg.name(), reg.name);
            assert_eq!(AnyCongestion::new(&cfg).name(), reg.name);
            assert!(!reg.doc.is_empty());
            sack += (cfg.sack_blocks() > 0) as usize;
        }
        assert_eq!(sack, 1, "only sack asks the receiver for SACK blocks");
        assert_eq!(
            CongestionSpec::default().name(),
            CongestionConfig::default().name()
        );
    }

    #[test]
    fn a_parameter_is_refused_by_the_algorithms_that_do_not_take_it() {
        let keys = CongestionKeys {
            dupthresh: (Some(2), "tcp.dupthresh".into()),
            ..Default::default()
        };
        let takes = |s: &CongestionSpec| s.keys().contains(&"dupthresh");
        assert!(CongestionSpec::ALL.iter().any(takes) && !CongestionSpec::ALL.iter().all(takes));
        for spec in CongestionSpec::ALL {
            let r = resolve_congestion(*spec, "tcp.congestion", &keys);
            if takes(spec) {
                assert!(r.is_ok(), "{}", spec.name());
                continue;
            }
            let e = r.unwrap_err().to_string();
            let (_, after) = e.split_once("applies to").expect(&e);
            assert!(
                e.contains("tcp.dupthresh") && e.contains(&format!("= \"{}\"", spec.name())),
                "{e}"
            );
            for other in CongestionSpec::ALL {
                let quoted = format!("\"{}\"", other.name());
                assert_eq!(after.contains(&quoted), takes(other), "{e}");
            }
        }
        assert_eq!(quoted_list(&["a", "b", "c"]), "\"a\", \"b\" and \"c\"");
        assert_eq!(quoted_list(&["sack"]), "\"sack\" only");
    }

    #[test]
    fn no_control_opens_the_whole_window_and_keeps_it() {
        let mut w = Window::new(512, 8 * 512, 8 * 512);
        let mut c = AnyCongestion::new(&CongestionConfig::NoControl(NoControlConfig));
        c.init(&mut w);
        let seq = Seq {
            una: 0,
            nxt: 0,
            max: 0,
            new_ok: true,
        };
        assert_eq!(c.next_send(&mut w, seq), Send::New { at: 0 });
        let full = Seq {
            una: 0,
            nxt: 8,
            max: 8,
            new_ok: true,
        };
        assert_eq!(c.next_send(&mut w, full), Send::Hold);
        c.on_timeout(&mut w, full);
        assert_eq!(w.cwnd, 8 * 512);
    }

    #[test]
    fn window_halving_and_growth() {
        let mut w = Window::new(512, 65536, 4 * 512);
        w.open();
        assert_eq!(w.cwnd, 1024);
        w.cwnd = 9 * 512;
        w.halve();
        assert_eq!(w.ssthresh, 4 * 512);
        w.cwnd = 512;
        w.halve();
        assert_eq!(w.ssthresh, 2 * 512, "at least two segments");
        assert!(w.fits(0) && !w.fits(1));
    }
}
