//! Cache hints for the events ahead (issue 14). At 10 000 VCs the state an event touches
//! (a port, the cell on its delay line, the cell's flow, the next port; a source and its
//! port) was last touched thousands of events ago and is rarely in cache: each is a miss,
//! and each address is known only once the one before it is loaded. So the run loop looks
//! at the next [`AHEAD`] events in the queue and, for the event `k` places ahead, names the
//! lines of stage `AHEAD - 1 - k` of its chain: the event four ahead its first line, the
//! next event its last. Every stage reads only lines an earlier stage named one event
//! before, so the hints themselves rarely wait for memory.
//!
//! Hints only: they read state and name lines to the processor
//! ([`atmsim_kernel::prefetch`]), never write; a wrong guess (a handler scheduled an
//! event before the ones seen) costs a few instructions. Results cannot depend on them.
//! Whether they pay is found out while the run goes, window by window of events
//! ([`super::look_ahead`]).
//!
//! A second, cheaper kind lives here too: a tick of the tick-mode TCP timers names the
//! sender that ticks next ([`Sim::hint_ticks`]), at every size.

use super::{Ev, LookAhead, Sim};
use crate::network::Network;
use atmsim_kernel::prefetch::prefetch;

/// The size of a network's state ([`Network::state_bytes`]) from which the run loop gives
/// cache hints (since the fortieth session: chooses them while the run goes). Below it the
/// hints cost more than they save (at 1 000 and 3 000 VCs 3-10 % more time, at 10 VCs
/// 12 %); above it, at 10 000 VCs with one host pair each, the
/// ABR rows took 0.73-0.97 of the time (docs/performance-journal.md). Measured as 16 MiB, half the
/// 32 MiB last-level cache of the machine the scale table was measured on, with 256-byte
/// ports; the ports are 192 bytes since the twenty-eighth session, and 14 MiB leaves the
/// same networks on each side (the ABR rows at 10 000 VCs 16.0 MB, 18.6 MB before; the UBR
/// row, whose hints did not pay, 12.7 MB, 15.3 MB before). Since the thirty-second session a
/// one-way connection keeps no reverse direction and the state counts the allocators'
/// records, which every cell their ports take reads: the ABR rows 17.6 MB (ERICA) and 17.0
/// MB (KVR), the UBR row the same. Since the thirty-third session a port is 128 bytes: the
/// ABR rows 15.5 MB (ERICA) and 14.4 MB (KVR), the UBR row 10.2 MB, and 12 MiB leaves every
/// row of the scale table on the side it was. Since the thirty-fourth session a KVR record
/// is 144 bytes and a cell-level connection 320: the ABR rows 13.8 MB (ERICA) and 12.5 MB
/// (KVR), and 11 MiB (11.5 MB) keeps them on. Measured then, hints on against off at 10 000
/// VCs (six pairs): the KVR parking-lot row 0.67 of the CPU, the KVR bottleneck row 1.27
/// (the one row that loses; no size of state tells the two apart). Since the thirty-ninth
/// session a port that only backward RM cells cross has no allocator: the KVR rows 11.04 MB,
/// the ERICA rows 11.76 MB, the UBR rows 9.84 MB, and 10 MiB (10.49 MB) keeps every row on
/// the side it was (at 11 MiB the KVR parking-lot row lost its hints: 1.52 of the CPU, paired,
/// 0.5 s). Since the fortieth session a network this large does not get the hints at every
/// event but has them chosen while the run goes ([`super::look_ahead`]: the KVR bottleneck row
/// and the ERICA rows' start-up lose with them, the other rows gain); below it they stay off
/// (the UBR rows at 10 000 VCs, on against off, 1.01 of the time). Since the forty-eighth
/// session a TCP connection and an ERICA record are 16 bytes smaller: the UBR rows 9.2 MB, the
/// ERICA rows 11.6 MB, the KVR rows 11.0 MB, each on the side it was. Since the forty-ninth
/// session a port is 96 bytes and only the ports with an allocator hold one: the UBR rows
/// 7.9 MB, the KVR rows 9.8 MB, the ERICA rows 10.4 MB, and 8.5 MiB (8.9 MB), halfway
/// between the UBR and the KVR rows, keeps each on the side it was. Only time depends on it.
pub const LOOK_AHEAD_BYTES: usize = 17 << 19;

/// Whether cache hints may pay for `net`: its state is larger than [`LOOK_AHEAD_BYTES`].
pub(super) fn worth_it(net: &Network) -> bool {
    net.state_bytes() >= LOOK_AHEAD_BYTES
}

/// The environment variable that overrides when the run loop gives cache hints
/// ([`CacheHints`]): `auto` (or unset), `on` or `off`. The look-ahead's threshold
/// [`LOOK_AHEAD_BYTES`] was measured on one machine; a user whose caches differ can
/// force it either way (`auto` leaves the tick-mode TCP timers' hints on at every size,
/// `off` turns both kinds off). Only the time a run takes depends on it.
pub const HINTS_VARIABLE: &str = "ATMSIM_CACHE_HINTS";

/// When the run loop gives cache hints: the setting of [`HINTS_VARIABLE`]. There are two
/// kinds: the look-ahead at the events in the queue (this module), and the tick-mode TCP
/// timers' hint for the connection that ticks next (`Sim::hint_ticks`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CacheHints {
    /// The look-ahead chosen while the run goes ([`super::look_ahead`]) when the network's
    /// state is at least [`LOOK_AHEAD_BYTES`], else off; the timers' hint always (the
    /// default).
    #[default]
    Auto,
    /// Both always on.
    On,
    /// Both off.
    Off,
}

impl CacheHints {
    /// The setting named `value` (`auto`, `on` or `off`, in any case, blanks around it
    /// ignored); an error naming the variable, the value and what it takes otherwise (an
    /// empty value too, as for `ATMSIM_MEMORY_LIMIT`: unset the variable for the default).
    pub fn parse(value: &str) -> Result<CacheHints, String> {
        match value.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(CacheHints::Auto),
            "on" => Ok(CacheHints::On),
            "off" => Ok(CacheHints::Off),
            _ => Err(format!(
                "environment variable {HINTS_VARIABLE} = {value:?}: expected \"auto\" (the default: the look-ahead \
                 chosen while the run goes, by timing both, when the network's state is {} MiB or more, the TCP \
                 timers' hints always), \"on\" or \"off\" (both kinds, at every event)",
                LOOK_AHEAD_BYTES as f64 / f64::from(1u32 << 20)
            )),
        }
    }

    /// The setting of [`HINTS_VARIABLE`] in this process's environment ([`CacheHints::Auto`]
    /// when it is unset).
    pub fn from_env() -> Result<CacheHints, String> {
        match std::env::var(HINTS_VARIABLE) {
            Ok(v) => CacheHints::parse(&v),
            Err(std::env::VarError::NotPresent) => Ok(CacheHints::Auto),
            Err(std::env::VarError::NotUnicode(v)) => Err(format!(
                "environment variable {HINTS_VARIABLE} = {v:?}: not text; expected \"auto\", \"on\" or \"off\""
            )),
        }
    }

    /// How the run loop decides on its look-ahead for `net` under this setting: chosen
    /// while the run goes ([`super::look_ahead`]) for a network of [`LOOK_AHEAD_BYTES`] of
    /// state or more, else off, unless forced.
    pub(super) fn look_ahead_for(self, net: &Network) -> LookAhead {
        match self {
            CacheHints::Auto if worth_it(net) => LookAhead::Chosen,
            CacheHints::Auto | CacheHints::Off => LookAhead::Off,
            CacheHints::On => LookAhead::On,
        }
    }
}

/// How many events ahead the loop looks (the stages of the longest chain: an arrival's
/// port, delay line, flow and next port).
const AHEAD: usize = 4;

impl Sim<'_> {
    /// Names the lines of the next [`AHEAD`] events, each at its stage.
    #[inline(always)]
    pub(super) fn hint_ahead(&self) {
        self.q
            .peek_near::<AHEAD>(|k, ev| self.hint(ev, AHEAD - 1 - k));
    }

    /// Stage `stage` (0 first) of event `ev`'s chain of lines.
    #[inline(always)]
    fn hint(&self, ev: Ev, stage: usize) {
        match ev {
            Ev::Arrive(p) | Ev::ArriveRuns(p) => self.hint_arrival(p as usize, stage),
            Ev::Send(f, _) => self.hint_send(f, stage),
            _ => {}
        }
    }

    /// An arrival at the far end of port `p`'s line: the port, the cell at the line's head,
    /// its flow, then the port it goes to next (or its connection, at its destination).
    #[inline(always)]
    fn hint_arrival(&self, p: usize, stage: usize) {
        let ports = &self.net.ports;
        if stage == 0 {
            prefetch(ports.as_ptr().wrapping_add(p));
            return;
        }
        let Some(port) = ports.get(p) else { return };
        if stage == 1 {
            prefetch(port.line.head_ptr());
            return;
        }
        let Some(cell) = port.line.front() else {
            return;
        };
        let f = cell.flow_id();
        if stage == 2 {
            prefetch(self.net.flows.as_ptr().wrapping_add(f.index()));
            return;
        }
        let Some(flow) = self.net.flows.get(f.index()) else {
            return;
        };
        let hop = cell.hop as usize + 1;
        if hop >= flow.route_len as usize {
            prefetch(self.net.conns.entry_ptr(f.conn()));
            return;
        }
        let Some(&np) = self.net.route_ports.get(flow.route_start as usize + hop) else {
            return;
        };
        let next = ports.as_ptr().wrapping_add(np as usize).cast::<u8>();
        prefetch(next);
        prefetch(next.wrapping_add(64));
    }

    /// A transmit opportunity of flow `f`'s source: its connection and flow, then the
    /// source's state and its port, then where its port puts the cell on the line and the
    /// port's queues.
    #[inline(always)]
    fn hint_send(&self, f: crate::cell::FlowId, stage: usize) {
        match stage {
            0 => {
                prefetch(self.net.conns.entry_ptr(f.conn()));
                prefetch(self.net.flows.as_ptr().wrapping_add(f.index()));
            }
            1 => {
                if let Some(dir) = self.net.conns.dir_ptr(f.conn(), f.dir()) {
                    prefetch(dir);
                    prefetch(dir.wrapping_add(64));
                }
                if let Some(flow) = self.net.flows.get(f.index()) {
                    let port = self
                        .net
                        .ports
                        .as_ptr()
                        .wrapping_add(flow.first_port as usize);
                    prefetch(port);
                    prefetch(port.cast::<u8>().wrapping_add(64));
                }
            }
            2 => {
                let flow = self.net.flows.get(f.index());
                if let Some(port) = flow.and_then(|fl| self.net.ports.get(fl.first_port as usize)) {
                    prefetch(port.line.tail_ptr());
                    // A source's cell often waits a moment for its port (its pacing and the
                    // port's clock round differently): the port's queues, boxed.
                    if let Some(queues) = port.buf.queues_ptr() {
                        prefetch(queues);
                    }
                }
            }
            _ => {}
        }
    }

    /// Names to the cache what the next ticks of ring `r` read (issue 14): the sender's
    /// timer and round-trip timing of the connection that ticks next (whose slot in the
    /// connections was named one tick before), and the slot of the one after it. With
    /// thousands of connections a tick of a ring is the only event that touches its sender
    /// between two of its own, every one a miss without the hint (the UBR row at 10 000
    /// VCs: 7 % of the run's time on that one load, docs/performance-journal.md). Hints only: the
    /// results cannot depend on them. On at every size (a tick is rare beside the cells:
    /// at 10 VCs the hint's few instructions cost nothing measurable) unless the cache
    /// hints are off ([`super::CacheHints::Off`]).
    #[inline]
    pub(super) fn hint_ticks(&self, r: usize) {
        if let Some(tcp) = self
            .ticks
            .ahead(r, 0)
            .and_then(|c| self.net.conns.try_get(c))
            .and_then(|c| c.tcp_ref())
        {
            for line in tcp.snd.tick_state() {
                prefetch(line);
            }
        }
        if let Some(c) = self.ticks.ahead(r, 1) {
            prefetch(self.net.conns.entry_ptr(c));
        }
    }
}
