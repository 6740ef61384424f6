//! # atmsim
//!
//! A cell-level simulator of TCP/IP over ATM networks: UBR and ABR (TM 4.0 and UCSC end
//! systems; ERICA, modified ERICA, ERICA+, EFCI, KVR and GW switch algorithms; the full list
//! of registered models is [`registry::extension_points`]), VBR video and faults.
//!
//! ```text
//! scenario (TOML / JSON) --parse--> ScenarioFile --resolve--> Scenario --run--> RunResult
//! ```
//!
//! Layout, by domain:
//! * [`cell`], [`aal5`]: the ATM cell and AAL5 segmentation and reassembly;
//! * [`link`], [`port`], [`drop_policy`]: delay lines, output ports with per-class queues,
//!   and the UBR buffer policies (tail drop, PPD, EPD, Selective Drop, FBA);
//! * [`tcp`]: the TCP sender, receiver and RTO estimator;
//! * [`network`], [`sim`]: the network built from a scenario, and the event loop;
//! * [`scenario`]: the file schema, units, validation; [`metrics`], [`result`]: outputs;
//!   [`trace`]: opt-in per-event traces streamed to a sink.
#![forbid(unsafe_code)]

pub mod aal5;
pub mod abr;
pub mod allocator;
pub mod cell;
pub mod config;
pub mod drop_policy;
pub mod end_systems;
pub mod footprint;
pub mod link;
pub mod maxmin;
pub mod metrics;
pub mod network;
pub mod port;
pub mod registry;
pub mod result;
pub mod result_tables;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod trace;
pub mod traffic;
pub mod units;
pub mod vc_table;
pub mod video;

pub use result::RunResult;
pub use scenario::{RunError, Scenario, ScenarioError, ScenarioFile};

/// The atmsim version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Runs a resolved scenario to its end and returns the results.
///
/// Refuses first a scenario that needs more than the memory available before any cell
/// moves ([`footprint::check`]), naming the estimate, the limit and the keys that drive it,
/// and stops a run whose queues and delay lines outgrow that limit as it goes
/// ([`footprint::Guard`]; an open-loop source into an unlimited buffer), naming the port
/// or link that holds the most: both are [`RunError::Memory`]. Checks cell conservation
/// (sent = delivered + dropped + in flight) and the ports' cells sent against the
/// transmissions at the end of the run; a violation is a bug and is returned as
/// [`RunError::Invariant`], never hidden.
pub fn run(sc: &Scenario) -> Result<RunResult, RunError> {
    let start = std::time::Instant::now();
    let mut sim = new_sim(sc)?;
    sim.run_guarded()?;
    let wall = start.elapsed().as_secs_f64();
    check_invariants(RunResult::collect(sim, sc, wall))
}

/// Runs like [`run`], but hands control to `observer` about every `period` of wall time,
/// with the simulated time reached (ps). The observer reports progress or checks for an
/// interruption; when it returns `false` the run stops and `Ok(None)` is returned.
///
/// The simulation advances in slices of simulated time ([`sim::Sim::run_until`]) sized
/// to take a fraction of `period` each, so the per-event path carries no check and the
/// results are the same as [`run`]'s.
pub fn run_observed(
    sc: &Scenario,
    period: std::time::Duration,
    observer: impl FnMut(u64) -> bool,
) -> Result<Option<RunResult>, RunError> {
    run_observed_traced(sc, period, observer, None)
}

/// Runs a resolved scenario to its end, recording its `[trace]` table into `sink`
/// ([`trace`]); the results are the same as [`run`]'s.
pub fn run_traced<'a>(
    sc: &'a Scenario,
    sink: Box<dyn trace::TraceSink + 'a>,
) -> Result<RunResult, RunError> {
    let start = std::time::Instant::now();
    let mut sim = new_sim(sc)?;
    sim.attach_trace(sink);
    sim.run_guarded()?;
    sim.finish_trace(sc.duration).map_err(RunError::Trace)?;
    let wall = start.elapsed().as_secs_f64();
    check_invariants(RunResult::collect(sim, sc, wall))
}

/// [`run_observed`], recording the scenario's `[trace]` table into `sink` if given (up
/// to the time reached when the observer stops the run).
pub fn run_observed_traced<'a>(
    sc: &'a Scenario,
    period: std::time::Duration,
    mut observer: impl FnMut(u64) -> bool,
    sink: Option<Box<dyn trace::TraceSink + 'a>>,
) -> Result<Option<RunResult>, RunError> {
    let start = std::time::Instant::now();
    let mut sim = new_sim(sc)?;
    if let Some(s) = sink {
        sim.attach_trace(s);
    }
    let end = sc.duration;
    let (lo, hi) = (period / 8, period / 2);
    let mut slice = (end / 100_000).max(MIN_SLICE);
    let mut reached = 0u64;
    let mut last_call = start;
    loop {
        let t0 = std::time::Instant::now();
        reached = reached.saturating_add(slice).min(end);
        sim.run_until(reached);
        sim.check_memory(reached)?;
        let took = t0.elapsed();
        if took < lo {
            slice = slice.saturating_mul(2);
        } else if took > hi {
            slice = (slice / 2).max(MIN_SLICE);
        }
        if reached >= end {
            break;
        }
        if last_call.elapsed() >= period {
            if !observer(reached) {
                sim.finish_trace(reached).map_err(RunError::Trace)?;
                return Ok(None);
            }
            last_call = std::time::Instant::now();
        }
    }
    sim.finish_trace(end).map_err(RunError::Trace)?;
    let wall = start.elapsed().as_secs_f64();
    check_invariants(RunResult::collect(sim, sc, wall)).map(Some)
}

/// Refuses `sc` if its memory estimate exceeds the limit ([`footprint::check`]), and gives
/// the guard that stops its run if its queues and delay lines outgrow the limit as it goes
/// ([`footprint::Guard`]).
pub fn memory_guard(sc: &Scenario) -> Result<Option<footprint::Guard>, RunError> {
    footprint::guard(sc, None).map_err(|e| RunError::Memory(e.to_string()))
}

/// Checks the environment variables that tune the engine ([`sim::HINTS_VARIABLE`],
/// [`footprint::LIMIT_VARIABLE`]) before anything runs: a batch of runs (a sweep, a
/// reproduction, the scale benchmark) then stops at once with one error naming the
/// variable, instead of failing every run. [`new_sim`] checks them again for each run.
pub fn check_environment() -> Result<(), RunError> {
    sim::CacheHints::from_env().map_err(RunError::Setting)?;
    footprint::check_limit_variable().map_err(|e| RunError::Memory(e.to_string()))
}

/// The simulation of `sc`, ready to run, as every `run` function starts it: the engine's
/// environment settings read ([`sim::HINTS_VARIABLE`], [`RunError::Setting`] if it holds
/// a value it does not take), the scenario refused if it does not fit ([`memory_guard`]),
/// then built, with the guard that watches its memory as it runs.
pub fn new_sim(sc: &Scenario) -> Result<sim::Sim<'_>, RunError> {
    let hints = sim::CacheHints::from_env().map_err(RunError::Setting)?;
    let guard = memory_guard(sc)?;
    let mut sim = sim::Sim::new(sc);
    sim.set_memory_guard(guard);
    sim.set_cache_hints(hints);
    Ok(sim)
}

/// The shortest slice of simulated time [`run_observed`] runs between looks (1 us, a
/// fraction of a cell time at 155 Mbit/s): a floor so that a slow host cannot make the
/// slices, and their overhead, arbitrarily small.
const MIN_SLICE: u64 = 1_000_000;

/// Limits on a run's cost (issue 18, run budgets). `None` means no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunBudget {
    /// Stop after this many events.
    pub max_events: Option<u64>,
    /// Stop after this many seconds of wall-clock time.
    pub max_wall_seconds: Option<f64>,
}

/// Runs a resolved scenario like [`run`], but stops cleanly when `budget` is used up.
/// A run stopped early returns the results up to the simulated time it reached, with
/// `summary.partial` naming the limit; the invariants are checked as for a full run.
pub fn run_with_budget(sc: &Scenario, budget: RunBudget) -> Result<RunResult, RunError> {
    if budget == RunBudget::default() {
        return run(sc);
    }
    let start = std::time::Instant::now();
    let mut sim = new_sim(sc)?;
    let deadline = budget
        .max_wall_seconds
        .map(|s| start + std::time::Duration::from_secs_f64(s.clamp(0.0, 1e9)));
    let stopped = sim.run_bounded(budget.max_events.unwrap_or(u64::MAX), deadline);
    if let Some(t) = stopped {
        sim.check_memory(t)?;
    }
    budgeted_result(sim, sc, budget, start, stopped)
}

/// Runs like [`run_with_budget`], and hands control to `observer` about every `period` of
/// wall time as [`run_observed`] does (so that Ctrl-C stops a bounded run at once too,
/// issue 18); when it returns `false` the run stops and `Ok(None)` is returned. The run
/// advances by [`sim::Sim::run_bounded`] in slices of wall time, which resume where the
/// last one stopped: the events, and so the results, are those of [`run_with_budget`].
pub fn run_observed_with_budget(
    sc: &Scenario,
    budget: RunBudget,
    period: std::time::Duration,
    mut observer: impl FnMut(u64) -> bool,
) -> Result<Option<RunResult>, RunError> {
    let start = std::time::Instant::now();
    let mut sim = new_sim(sc)?;
    let deadline = budget
        .max_wall_seconds
        .map(|s| start + std::time::Duration::from_secs_f64(s.clamp(0.0, 1e9)));
    let max_events = budget.max_events.unwrap_or(u64::MAX);
    let mut reached = 0;
    let stopped = loop {
        let look = std::time::Instant::now() + period;
        let slice_end = deadline.map_or(look, |d| d.min(look));
        let left = max_events.saturating_sub(sim.q.events_processed());
        match sim.run_bounded(left, Some(slice_end)) {
            None => break None,
            Some(t) => reached = reached.max(t),
        }
        sim.check_memory(reached)?;
        let now = std::time::Instant::now();
        if sim.q.events_processed() >= max_events || deadline.is_some_and(|d| now >= d) {
            break Some(reached);
        }
        if !observer(reached) {
            return Ok(None);
        }
    };
    budgeted_result(sim, sc, budget, start, stopped).map(Some)
}

/// The results of a bounded run: whole when it reached its end (`stopped` is `None`), else
/// cut at the simulated time reached, with `summary.partial` naming the bound.
fn budgeted_result(
    sim: sim::Sim<'_>,
    sc: &Scenario,
    budget: RunBudget,
    start: std::time::Instant,
    stopped: Option<atmsim_kernel::Time>,
) -> Result<RunResult, RunError> {
    let wall = start.elapsed().as_secs_f64();
    let Some(reached) = stopped else {
        return check_invariants(RunResult::collect(sim, sc, wall));
    };
    let reason = if budget
        .max_events
        .is_some_and(|m| sim.q.events_processed() >= m)
    {
        format!("stopped at max_events = {}", budget.max_events.unwrap_or(0))
    } else {
        format!(
            "stopped at max_wall = {} s",
            budget.max_wall_seconds.unwrap_or(0.0)
        )
    };
    let mut cut = sc.clone();
    cut.duration = reached;
    cut.warmup = cut.warmup.min(reached);
    let mut r = RunResult::collect(sim, &cut, wall);
    r.summary.partial = Some(format!(
        "{reason}, at {} s of {} s simulated",
        atmsim_kernel::time::to_secs_f64(reached),
        atmsim_kernel::time::to_secs_f64(sc.duration)
    ));
    check_invariants(r)
}

/// Cell conservation, and the ports' cells sent against the transmissions: a violation is
/// a bug. A port counts the cells that arrive and those it drops; its cells sent are the
/// rest less those still queued (`PortBuffer::sent`), so they are checked against the run's
/// own count of transmissions, `cell_hops`, which every port that sends a cell adds to: an
/// arrival neither queued, sent nor dropped breaks it. (A port's cells admitted are its
/// arrivals less its drops since the forty-ninth session, `PortBuffer::enqueued`, so
/// `received = enqueued + dropped` holds by construction and is no longer checked here.)
fn check_invariants(r: RunResult) -> Result<RunResult, RunError> {
    let sent: u64 = r.ports.iter().map(|p| p.sent).sum();
    if sent != r.summary.cell_hops {
        return Err(RunError::Invariant(format!(
            "the ports sent {sent} cells, but {} were transmitted (cell hops)",
            r.summary.cell_hops
        )));
    }
    if !r.summary.conservation_ok {
        let s = &r.summary;
        return Err(RunError::Invariant(format!(
            "cell conservation failed: sent {} != delivered {} + dropped {} + in flight {}",
            s.cells_sent, s.cells_delivered, s.cells_dropped, s.cells_in_flight
        )));
    }
    Ok(r)
}

/// Parses, validates and runs a TOML scenario.
/// Refuses a scenario the heavy-run guard ([`scenario::budget::check`]) refuses.
pub fn run_toml(text: &str) -> Result<RunResult, RunError> {
    let sc = scenario::load_toml(text)?;
    scenario::budget::check(&sc)?;
    run(&sc)
}

/// Parses, validates and runs a JSON scenario.
pub fn run_json(text: &str) -> Result<RunResult, RunError> {
    let sc = scenario::load_json(text)?;
    scenario::budget::check(&sc)?;
    run(&sc)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = include_str!("../../../examples/ubr_small.toml");

    /// The result without the fields that measure the host's speed.
    fn simulated(r: &RunResult) -> serde_json::Value {
        let mut v = serde_json::to_value(r).expect("result serializes");
        let s = v["summary"].as_object_mut().expect("summary");
        for k in ["wall_seconds", "events_per_second", "cell_hops_per_second"] {
            s.remove(k);
        }
        v
    }

    #[test]
    fn run_observed_gives_the_same_results_as_run() {
        let sc = scenario::load_toml(SMALL).expect("example is valid");
        let plain = run(&sc).expect("runs");
        // A short period: many slices and many calls.
        let mut calls = 0u64;
        let mut last = 0u64;
        let watched = run_observed(&sc, std::time::Duration::from_micros(200), |t| {
            assert!(
                t > last && t < sc.duration,
                "observer times increase within the run"
            );
            last = t;
            calls += 1;
            true
        })
        .expect("runs")
        .expect("not stopped");
        assert!(calls > 5, "observer called {calls} times");
        assert_eq!(simulated(&plain), simulated(&watched));
    }

    #[test]
    fn run_observed_stops_when_the_observer_says_so() {
        let sc = scenario::load_toml(SMALL).expect("example is valid");
        let mut calls = 0;
        let r = run_observed(&sc, std::time::Duration::ZERO, |_| {
            calls += 1;
            calls < 3
        })
        .expect("no error");
        assert!(r.is_none());
        assert_eq!(calls, 3);
    }

    #[test]
    fn each_invariant_check_refuses_counts_that_break_it() {
        let sc = scenario::load_toml(SMALL).expect("example is valid");
        let good = run(&sc).expect("runs");
        assert!(good.ports.iter().any(|p| p.sent > 0));
        // A cell sent that was never transmitted (or the other way round).
        let mut r = good.clone();
        let p = r
            .ports
            .iter_mut()
            .find(|p| p.sent > 0)
            .expect("a port sent");
        p.sent -= 1;
        let e = check_invariants(r)
            .expect_err("a lost transmission")
            .to_string();
        assert!(e.contains("transmitted"), "{e}");
        let mut r = good;
        r.summary.conservation_ok = false;
        assert!(check_invariants(r).is_err());
    }
}
