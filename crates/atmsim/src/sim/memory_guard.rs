//! The run's memory guard in the event loop ([`Guard`], issue 14: "do not let the OS kill
//! the run"). A guarded run goes in slices of simulated time and looks at the guard between
//! them: no check on the per-event path, and the same events in the same order as one
//! [`Sim::run`] (a slice ends where the next begins, [`Sim::run_until`]). Once the run's
//! queues and delay lines have grown past the guard's room, the run stops with an error
//! naming the port or the link that holds the most.

use super::Sim;
use crate::footprint::Guard;
use crate::RunError;
use atmsim_kernel::time::to_secs_f64;
use atmsim_kernel::Time;

/// Slices of a guarded run: the guard is looked at this many times over the run's duration,
/// but at least every [`MAX_SLICE`] and at most every [`MIN_SLICE`] of simulated time.
const SLICES: u64 = 1024;
/// The shortest slice (1 us of simulated time).
const MIN_SLICE: Time = 1_000_000;
/// The longest slice (1 ms of simulated time): what the queues can take between two looks
/// must not grow with the run's duration (a review found a 2 000 s run past its room by
/// 750 MiB at its first look with slices of duration / 1024). Within the event budget of
/// any scenario that runs (10^9 events per simulated second, `scenario::budget`), 1 ms is at
/// most a million events; a slice boundary costs one look at the queue's front.
const MAX_SLICE: Time = 1_000_000_000;

impl Sim<'_> {
    /// Watches the run's memory with `guard` (None: no watch).
    pub fn set_memory_guard(&mut self, guard: Option<Guard>) {
        self.memory_guard = guard;
    }

    /// Runs to the scenario's end like [`Sim::run`], in slices of simulated time with a look
    /// at the memory guard between them; stops with an error once the guard is exceeded.
    pub fn run_guarded(&mut self) -> Result<(), RunError> {
        let end = self.sc.duration;
        if self.memory_guard.is_none() {
            self.run();
            return Ok(());
        }
        let slice = (end / SLICES).clamp(MIN_SLICE, MAX_SLICE);
        let mut reached: Time = 0;
        loop {
            reached = reached.saturating_add(slice).min(end);
            self.run_until(reached);
            self.check_memory(reached)?;
            if reached >= end {
                return Ok(());
            }
        }
    }

    /// True once the run's queues and delay lines have grown past the guard's room.
    pub fn memory_exceeded(&self) -> bool {
        self.memory_guard.as_ref().is_some_and(Guard::exceeded)
    }

    /// An error if the guard is exceeded, at simulated time `reached`.
    pub fn check_memory(&self, reached: Time) -> Result<(), RunError> {
        match &self.memory_guard {
            Some(g) if g.exceeded() => Err(self.outgrown(g, reached)),
            _ => Ok(()),
        }
    }

    #[cold]
    fn outgrown(&self, g: &Guard, reached: Time) -> RunError {
        let msg = g.outgrown_message(
            to_secs_f64(reached),
            to_secs_f64(self.sc.duration),
            &self.largest_holder(),
        );
        RunError::Memory(msg)
    }

    /// A sentence naming the queue or delay line that holds the most bytes, and the key
    /// that bounds it.
    fn largest_holder(&self) -> String {
        let queue = (0..self.net.ports.len())
            .max_by_key(|&p| self.net.ports[p].buf.queue_bytes())
            .unwrap_or(0);
        let line = (0..self.net.ports.len())
            .max_by_key(|&p| self.net.ports[p].line.heap_bytes())
            .unwrap_or(0);
        let Some(port) = self.net.ports.get(queue) else {
            return "the network has no port".to_string();
        };
        let (q_bytes, l_bytes) = (
            port.buf.queue_bytes(),
            self.net.ports[line].line.heap_bytes(),
        );
        if l_bytes > q_bytes {
            return format!(
                "the most is on the link of port {}: {} cells in flight (its delay times its \
                 rate: a shorter or slower link holds fewer)",
                self.sc.port_name(line),
                self.net.ports[line].line.len()
            );
        }
        let cfg = self.sc.ports.at(queue);
        let (node, toward) = (
            self.sc.nodes.name(cfg.node()),
            self.sc.nodes.name(cfg.toward()),
        );
        let size = match cfg.settings.buffer {
            Some(b) => format!("its buffer is {b} cells: a smaller one holds fewer;"),
            None => "its buffer is unlimited:".to_string(),
        };
        let keys = if self.sc.nodes.is_switch(cfg.node()) {
            "defaults.switch_buffer, or buffer"
        } else {
            "buffer"
        };
        let bound = format!(
            "{size} set {keys} in a [[port]] table with node = \"{node}\", toward = \"{toward}\""
        );
        format!(
            "the most is queued at port {}: {} cells ({bound})",
            self.sc.port_name(queue),
            port.buf.queued()
        )
    }
}
