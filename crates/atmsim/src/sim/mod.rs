//! The event loop: the simulation state, its events and their dispatch.
//!
//! The engine is cut by concern:
//! - [`fabric`]: ports and links (offer, transmit, arrive, deliver) and the ports'
//!   allocator timers;
//! - [`signalling`]: connections opening and closing along their routes;
//! - [`tcp_host`]: the TCP end systems (segments, ACKs, timers, periodic writer);
//! - [`cell_host`]: the cell-level applications (what each source hands its transmitter);
//! - [`abr_host`]: the end systems' transmitters and receivers (ABR source and
//!   destination, or a fixed peak rate);
//! - [`faults`]: injected cell losses;
//! - [`sampling`]: the time-series samples;
//! - [`trace_hooks`]: the per-event traces ([`crate::trace`]), off unless a sink is attached.
//!
//! Events are a closed enum ([`Ev`]) dispatched by `match`. Nothing allocates per cell
//! (queues keep their capacity).

mod abr_host;
mod arrival_order;
mod cell_host;
mod fabric;
mod faults;
pub mod look_ahead;
mod memory_guard;
mod prefetch;
mod sampling;
mod signalling;
mod tcp_host;
mod ticks;
mod trace_hooks;

pub use faults::FaultState;
pub use look_ahead::LookAhead;
use look_ahead::WindowClock;
pub use prefetch::{CacheHints, HINTS_VARIABLE, LOOK_AHEAD_BYTES};
pub use signalling::{SIG_CLOSE, SIG_OPEN, SIG_RELEASE, SIG_RESERVE};

use crate::cell::FlowId;
use crate::metrics::Recorder;
use crate::network::Ends;
use crate::network::Network;
use crate::scenario::Scenario;
use crate::trace::Tracer;
use atmsim_kernel::{EventQueue, Time};

/// Engine events.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// Port finished transmitting a cell.
    TxDone(u32),
    /// The head cell of a port's delay line arrives at the far end.
    Arrive(u32),
    /// [`Ev::TxDone`] of a port whose line keeps runs ([`crate::network::Port::line_runs`]).
    TxDoneRuns(u32),
    /// [`Ev::Arrive`] of a line that may hold runs.
    ArriveRuns(u32),
    /// A connection's application starts.
    Start(u32),
    /// A connection's application stops handing new data.
    Stop(u32),
    /// The next timer tick of tick ring `.0` (tick-mode TCP: the connection at the ring's
    /// head ticks; [`ticks`]).
    Tick(u32),
    /// Exact-mode retransmit timer of a connection (with generation).
    Rexmt(u32, u32),
    /// Delayed-ACK timer of a connection's receiver.
    DelAck(u32),
    /// Record a time-series sample.
    Sample,
    /// Transmit opportunity of a flow's source end system (with generation).
    Send(FlowId, u32),
    /// The application of a cell-level flow hands more cells (rate-capped, on/off, CBR,
    /// video).
    Gen(FlowId),
    /// The periodic application of a TCP connection writes one segment (seed 002).
    Write(u32),
    /// The periodic application of a TCP connection writes its final burst (seed 002).
    Burst(u32),
    /// A request/response connection's think time ended: the next request.
    Think(u32),
    /// End of a port's allocator averaging interval by time (with generation).
    Interval(u32, u32),
    /// A signalling message of flow `.0` reaches hop `.1 >> 2`; action `.1 & 3`
    /// ([`SIG_OPEN`], [`SIG_CLOSE`], [`SIG_RESERVE`], [`SIG_RELEASE`]).
    Signal(FlowId, u32),
    /// A sessions connection opens or closes.
    Session(u32),
    /// The cells held for output port `.0` this instant enter its queue
    /// (`defaults.arrival_order` set; [`arrival_order`]).
    Admit(u32),
}

impl Ev {
    /// The transmit-done of port `p`, of the runs' kind if `RUNS` ([`Sim::start_tx`]).
    #[inline(always)]
    fn tx_done<const RUNS: bool>(p: usize) -> Ev {
        if RUNS {
            Ev::TxDoneRuns(p as u32)
        } else {
            Ev::TxDone(p as u32)
        }
    }

    /// The arrival at the far end of port `p`'s line, of the runs' kind if `RUNS`.
    #[inline(always)]
    fn arrival<const RUNS: bool>(p: usize) -> Ev {
        if RUNS {
            Ev::ArriveRuns(p as u32)
        } else {
            Ev::Arrive(p as u32)
        }
    }
}

/// Totals the engine counts as it runs.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Cells created at sources.
    pub cells_sent: u64,
    /// Cells that reached their destination end system.
    pub cells_delivered: u64,
    /// Cells dropped at ports.
    pub cells_dropped: u64,
    /// Port transmissions (one cell crossing one port and its link).
    pub cell_hops: u64,
    /// Cells lost to injected faults (part of `cells_dropped`).
    pub cells_dropped_by_faults: u64,
}

/// A running simulation.
pub struct Sim<'a> {
    /// The scenario.
    pub sc: &'a Scenario,
    /// The network.
    pub net: Network,
    /// Pending events.
    pub q: EventQueue<Ev>,
    /// Totals.
    pub totals: Totals,
    /// Time-series recorder.
    pub rec: Recorder,
    /// Faults still to inject.
    pub faults: Vec<FaultState>,
    /// Same-instant arrivals held per output port (None: `event_order`, the default).
    pub staging: Option<arrival_order::Staging>,
    /// The per-event trace recorder (off unless [`Sim::attach_trace`] is called).
    pub trace: Tracer<'a>,
    /// The tick-mode TCP timers, out of the queue but for each ring's next tick.
    pub ticks: ticks::TickRings,
    /// What the run's queues and delay lines may grow by ([`Sim::set_memory_guard`]).
    memory_guard: Option<crate::footprint::Guard>,
    /// Whether the run loop names the next events' lines to the cache ([`prefetch`]):
    /// chosen while the run goes for a network whose state is larger than a processor's
    /// caches ([`look_ahead`]), else off.
    look_ahead: LookAhead,
    /// Times windows of events with and without the hints ([`LookAhead::Chosen`]).
    chooser: look_ahead::Chooser,
    /// The end of the run's current slice ([`Sim::run_until`]): what happens up to it is
    /// settled, so a lone source's port may send a cell ahead of its transmit-done up to
    /// it (`fabric::Sim::admit`).
    slice_end: Time,
    /// Lone sources' ports send cells ahead of their transmit-done events (on by default;
    /// [`Sim::set_send_ahead`]).
    send_ahead: bool,
}

impl<'a> Sim<'a> {
    /// Builds the simulation and schedules the initial events.
    pub fn new(sc: &'a Scenario) -> Self {
        Self::with_network(sc, Network::build(sc))
    }

    /// The simulation of `sc` on `net`, a network built from `sc` ([`Network::build`], or
    /// for tests and measurements [`Network::build_with_every_allocator`]), with the
    /// initial events scheduled.
    pub fn with_network(sc: &'a Scenario, mut net: Network) -> Self {
        // No reservation for the worst case: the far-future heap holds only timers and grows
        // as they are scheduled (issue 14: 4 events per port and connection reserved up front
        // were 640 B per VC at 10 000 VCs).
        let mut q = EventQueue::default();
        let mut ticks = ticks::TickRings::default();
        for (i, c) in sc.connections.iter().enumerate() {
            q.schedule(c.start, Ev::Start(i as u32));
            if let Some(stop) = c.stop() {
                q.schedule(stop, Ev::Stop(i as u32));
            }
            if let Some(t) = c.tcp.as_ref().and_then(|t| t.tick) {
                let phase = net.conns.tcp_ref(i).expect("tcp").tick_phase;
                ticks.add(i as u32, t, first_edge(0, t, phase), q.reserve_seq());
            }
        }
        ticks.arm(&mut q);
        for p in 0..net.ports.len() {
            fabric::arm_interval(&mut q, p, net.alloc_mut(p));
        }
        let rec = match sc.sample_interval {
            Some(si) => {
                q.schedule(si, Ev::Sample);
                Recorder::new(sc, &net)
            }
            None => Recorder::off(),
        };
        let faults = sc
            .faults
            .iter()
            .map(|f| FaultState {
                cfg: f.clone(),
                left: f.count,
            })
            .collect();
        let staging = arrival_order::Staging::new(sc.arrival_order, net.ports.len(), sc.seed);
        let look_ahead = CacheHints::Auto.look_ahead_for(&net);
        Sim {
            sc,
            net,
            q,
            totals: Totals::default(),
            rec,
            faults,
            staging,
            trace: Tracer::off(),
            ticks,
            memory_guard: None,
            look_ahead,
            chooser: look_ahead::Chooser::default(),
            slice_end: 0,
            send_ahead: true,
        }
    }

    /// Runs until the scenario's duration (events at exactly that time included).
    pub fn run(&mut self) {
        self.run_until(self.sc.duration);
    }

    /// Runs the events up to `until` (included, capped at the scenario's duration); a
    /// later call continues from there, so running in slices gives the same events in
    /// the same order as one [`Sim::run`]. Lets a caller look up between slices
    /// (progress, interruption) without any check on the per-event path.
    pub fn run_until(&mut self, until: Time) {
        let end = until.min(self.sc.duration);
        self.slice_end = self.ahead_until(end);
        match self.look_ahead {
            LookAhead::Off => self.run_events::<false>(end),
            LookAhead::On => self.run_events::<true>(end),
            LookAhead::Chosen => self.run_chosen(end),
        }
    }

    /// The event loop, with or without cache hints for the events ahead (two copies, so
    /// that a small network's loop carries no test for them).
    #[inline(always)]
    fn run_events<const LOOK_AHEAD: bool>(&mut self, end: Time) {
        while let Some((now, ev)) = self.q.pop_until(end) {
            if LOOK_AHEAD {
                self.hint_ahead();
            }
            self.dispatch(now, ev);
        }
    }

    /// The event loop up to `end` in windows of events, each with or without cache hints
    /// as the chooser says, timed for it ([`look_ahead`]).
    fn run_chosen(&mut self, end: Time) {
        let mut window = WindowClock::start();
        loop {
            let (on, left) = (self.chooser.hints(), self.chooser.left());
            let done = if on {
                self.run_window::<true>(end, left)
            } else {
                self.run_window::<false>(end, left)
            };
            window.events = done;
            window.record(&mut self.chooser);
            if done < left {
                return;
            }
        }
    }

    /// At most `budget` events of the event loop up to `end`; returns how many ran.
    #[inline(always)]
    fn run_window<const LOOK_AHEAD: bool>(&mut self, end: Time, budget: u32) -> u32 {
        let mut done = 0;
        while done < budget {
            let Some((now, ev)) = self.q.pop_until(end) else {
                break;
            };
            if LOOK_AHEAD {
                self.hint_ahead();
            }
            self.dispatch(now, ev);
            done += 1;
        }
        done
    }

    /// Turns on or off the sending of a lone source's cell ahead of its port's transmit-done
    /// event (`fabric::Sim::send_at`; on by default, but in a run that may stop early:
    /// [`Sim::run_bounded`]). Changes only the run's `events` count, never its results: for
    /// tests and measurements. Takes effect at the next [`Sim::run_until`] or
    /// [`Sim::run_bounded`].
    pub fn set_send_ahead(&mut self, on: bool) {
        self.send_ahead = on;
    }

    /// The latest time a cell may be sent ahead to in a slice of the run ending at `end`
    /// (0, never, with sending ahead off).
    fn ahead_until(&self, end: Time) -> Time {
        if self.send_ahead {
            end
        } else {
            0
        }
    }

    /// Sets how the run loop decides on its look-ahead at the events in the queue (by
    /// default chosen while the run goes when the network's state is larger than a
    /// processor's caches, else off: [`prefetch`], [`look_ahead`]); the tick-mode TCP
    /// timers' hints are left as they are ([`Sim::set_cache_hints`] sets both). Hints
    /// change only the time a run takes, never its results: for tests and measurements.
    pub fn set_look_ahead(&mut self, mode: LookAhead) {
        self.look_ahead = mode;
    }

    /// How the run loop decides on its look-ahead ([`Sim::set_look_ahead`]).
    pub fn look_ahead(&self) -> LookAhead {
        self.look_ahead
    }

    /// Chooses the look-ahead in windows of `window` events from now on (for tests: with a
    /// few events a window, every scenario meets both sides many times).
    pub fn choose_look_ahead(&mut self, window: u32) {
        self.look_ahead = LookAhead::Chosen;
        self.chooser = look_ahead::Chooser::with_window(window);
    }

    /// The chooser's windows so far, with the hints and without (for measurements).
    pub fn look_ahead_windows(&self) -> (u64, u64) {
        self.chooser.windows()
    }

    /// Whether a tick of the tick-mode TCP timers names to the cache what the next ticks
    /// read (on unless the cache hints are off, [`Sim::set_cache_hints`]).
    pub fn tick_hints(&self) -> bool {
        self.ticks.hints
    }

    /// Sets the cache hints by a [`CacheHints`] setting: `Auto` is the default this
    /// simulation was built with (the look-ahead chosen while the run goes for a network of
    /// [`LOOK_AHEAD_BYTES`] of state or more, else off; the tick-mode TCP timers' hints at
    /// every size); `On` and `Off` force both at every event.
    pub fn set_cache_hints(&mut self, hints: CacheHints) {
        self.look_ahead = hints.look_ahead_for(&self.net);
        self.ticks.hints = hints != CacheHints::Off;
    }

    /// Runs like [`Sim::run`], but stops early after `max_events` events, or once the
    /// wall clock passes `deadline` or the run's memory its guard (both looked at every 4096
    /// events), whichever comes first (issue 18, run budgets; [`Sim::check_memory`] says
    /// whether it was the memory). Returns the time reached when stopped early, else None.
    ///
    /// A run that may stop early (a finite `max_events` or a deadline) sends no cell ahead of
    /// its port's transmit-done (`fabric::Sim::send_at`): it may stop after any event, and
    /// its partial results are the network's state at the time it reached. Its events are
    /// then those of the engine before sending ahead, so a `max_events` budget stops it where
    /// it did.
    pub fn run_bounded(
        &mut self,
        max_events: u64,
        deadline: Option<std::time::Instant>,
    ) -> Option<Time> {
        let end = self.sc.duration;
        let may_stop_early = max_events < u64::MAX || deadline.is_some();
        self.slice_end = if may_stop_early {
            0
        } else {
            self.ahead_until(end)
        };
        // The look-ahead as in `run_until`; chosen, the events are timed in the chooser's
        // windows here too (a window cut by a stop goes on at the next call).
        let chosen = self.look_ahead == LookAhead::Chosen;
        let mut hints = match self.look_ahead {
            LookAhead::Off => false,
            LookAhead::On => true,
            LookAhead::Chosen => self.chooser.hints(),
        };
        let mut window = WindowClock::start();
        let mut done: u64 = 0;
        let mut now_reached = 0;
        let stopped = loop {
            let Some(t) = self.q.peek_time() else {
                break None;
            };
            if t > end {
                break None;
            }
            if done >= max_events {
                break Some(now_reached);
            }
            if done.is_multiple_of(4096)
                && (deadline.is_some_and(|d| std::time::Instant::now() >= d)
                    || self.memory_exceeded())
            {
                break Some(now_reached);
            }
            let (now, ev) = self.q.pop().expect("peeked");
            if hints {
                self.hint_ahead();
            }
            self.dispatch(now, ev);
            now_reached = now;
            done += 1;
            if chosen {
                window.events += 1;
                if window.events == self.chooser.left() {
                    window.record(&mut self.chooser);
                    hints = self.chooser.hints();
                }
            }
        };
        if chosen {
            window.record(&mut self.chooser);
        }
        stopped
    }

    /// Runs one event. The two events of every cell-hop (transmit-done, arrival) are
    /// handled here, inlined in the loop; the rarer ones in [`Sim::dispatch_other`], out of
    /// line, so the hot loop keeps a small frame (measured: issue 14).
    #[inline(always)]
    fn dispatch(&mut self, now: Time, ev: Ev) {
        match ev {
            Ev::TxDone(p) => self.tx_done::<false>(now, p as usize),
            Ev::Arrive(p) => self.arrive::<false>(now, p as usize),
            _ => self.dispatch_other(now, ev),
        }
    }

    /// Runs any event (the hot two included, for a caller that reaches it directly).
    #[inline(never)]
    fn dispatch_other(&mut self, now: Time, ev: Ev) {
        match ev {
            Ev::TxDone(p) => self.tx_done::<false>(now, p as usize),
            Ev::Arrive(p) => self.arrive::<false>(now, p as usize),
            Ev::TxDoneRuns(p) => self.tx_done::<true>(now, p as usize),
            Ev::ArriveRuns(p) => self.arrive::<true>(now, p as usize),
            Ev::Start(c) => {
                let ci = c as usize;
                self.signal_connection(now, ci, true);
                match self.net.conns.ends(ci) {
                    Ends::Tcp(_) => self.start_tcp(now, ci),
                    Ends::Cells(_) => self.start_cells(now, ci),
                }
            }
            Ev::Stop(c) => {
                let ci = c as usize;
                match self.net.conns.ends(ci) {
                    // The TCP connection's VC stays open: what is sent still drains.
                    Ends::Tcp(_) => self.net.conns.tcp(ci).snd.close(),
                    Ends::Cells(_) => {
                        self.stop_cells(now, ci);
                        self.signal_connection(now, ci, false);
                    }
                }
            }
            Ev::Signal(f, code) => self.signal(now, f, (code >> 2) as usize, code & 3),
            Ev::Session(c) => self.session_toggle(now, c as usize),
            Ev::Tick(r) => self.on_tick(now, r as usize),
            Ev::Rexmt(c, gen) => self.rexmt_timer(now, c as usize, gen),
            Ev::DelAck(c) => self.on_delack(now, c as usize),
            Ev::Send(f, gen) => self.on_send(now, f, gen),
            Ev::Gen(f) => self.on_gen(now, f),
            Ev::Write(c) => self.on_tcp_write(now, c as usize, false),
            Ev::Burst(c) => self.on_tcp_write(now, c as usize, true),
            Ev::Think(c) => self.on_think(now, c as usize),
            Ev::Interval(p, gen) => self.on_interval(now, p as usize, gen),
            Ev::Sample => self.on_sample(now),
            Ev::Admit(p) => self.admit_held(now, p as usize),
        }
    }
}

/// The first time strictly after `now` on the grid `phase + k * period`.
pub fn first_edge(now: Time, period: Time, phase: Time) -> Time {
    let phase = phase % period;
    if now < phase {
        return phase;
    }
    let k = (now - phase) / period + 1;
    phase + k * period
}

#[cfg(test)]
mod tests {
    use super::first_edge;

    #[test]
    fn edges() {
        assert_eq!(first_edge(0, 100, 0), 100);
        assert_eq!(first_edge(99, 100, 0), 100);
        assert_eq!(first_edge(100, 100, 0), 200);
        assert_eq!(first_edge(0, 100, 30), 30);
        assert_eq!(first_edge(30, 100, 30), 130);
    }
}
