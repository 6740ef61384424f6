//! The run's memory guard (issue 14: "do not let the OS kill the run"): a run whose queues
//! and delay lines outgrow the memory limit as it goes stops with an error naming the place
//! that holds the most; a guarded run that stays within its room gives the same results as
//! an unguarded one.

use crate::support::fingerprint;
use atmsim::footprint;
use atmsim::result::RunResult;
use atmsim::sim::Sim;

/// A CBR source at 150 Mbit/s into a 1.5 Mbit/s link: the switch's queue toward `dst`
/// grows by about 350 000 cells a second unless `buffer` bounds it.
fn cbr_into_slow_link(buffer: &str, duration: &str) -> atmsim::Scenario {
    let text = format!(
        r#"
name = "open-loop CBR into a slow link"
[measurement]
duration = "{duration}"
[defaults]
switch_buffer = "{buffer}"
[[node]]
name = "src"
kind = "host"
[[node]]
name = "sw"
kind = "switch"
[[node]]
name = "dst"
kind = "host"
[[link]]
between = ["src", "sw"]
delay = "1 ms"
[[link]]
between = ["sw", "dst"]
delay = "1 ms"
rate = "1.5 Mbps"
[[connection]]
name = "c"
from = "src"
to = "dst"
service = "cbr"
traffic = {{ kind = "cbr", rate = "150 Mbps" }}
"#
    );
    atmsim::scenario::load_toml(&text).expect("valid scenario")
}

/// The guard of `sc` with `room` bytes of growth above its estimate's fixed part.
fn guard_with_room(sc: &atmsim::Scenario, room: u64) -> Option<footprint::Guard> {
    let fixed = footprint::estimate(sc).fixed();
    footprint::guard(sc, Some(fixed + room)).expect("fits")
}

/// Runs `sc` held to `room` bytes of growth above its estimate's fixed part.
fn run_with_room(sc: &atmsim::Scenario, room: u64) -> Result<RunResult, atmsim::RunError> {
    let guard = guard_with_room(sc, room); // counts from before the network is built, as a run does
    let mut sim = Sim::new(sc);
    sim.set_memory_guard(guard);
    sim.run_guarded()?;
    Ok(RunResult::collect(sim, sc, 0.0))
}

#[test]
fn an_unbounded_queue_stops_the_run_naming_its_port_and_the_limit() {
    let sc = cbr_into_slow_link("unlimited", "5 s");
    // 5 s would queue about 1.7 million cells (a 48 MiB ring, 96 MiB counted with the
    // smaller rings it grew from); 16 MiB of room stops it.
    let err = run_with_room(&sc, 16 << 20)
        .expect_err("stopped")
        .to_string();
    for part in [
        "the run outgrew its memory limit at ",
        " of 5 s simulated",
        "queues, delay lines and event queue allocated ",
        "(their cells were estimated before the run at up to ",
        "the most is queued at port sw->dst",
        "its buffer is unlimited: set defaults.switch_buffer",
        "node = \"sw\", toward = \"dst\"",
        "16.0 MiB left for them",
        "(the limit given)",
        "measurement.duration",
        footprint::LIMIT_VARIABLE,
    ] {
        assert!(err.contains(part), "{part:?} not in: {err}");
    }
}

#[test]
fn a_bounded_queue_runs_to_its_end_with_the_results_of_an_unguarded_run() {
    let sc = cbr_into_slow_link("1000 cells", "2 s");
    let guarded = run_with_room(&sc, 16 << 20).expect("within its room");
    let mut sim = Sim::new(&sc);
    sim.run();
    let unguarded = RunResult::collect(sim, &sc, 0.0);
    assert!(guarded.summary.cells_dropped > 0, "the buffer overflows");
    assert_eq!(fingerprint(&guarded), fingerprint(&unguarded));
}

#[test]
fn a_run_with_a_budget_stops_at_the_guard_too() {
    // The budgeted path (issue 18) looks at the guard every 4096 events.
    let sc = cbr_into_slow_link("unlimited", "5 s");
    let guard = guard_with_room(&sc, 16 << 20);
    let mut sim = Sim::new(&sc);
    sim.set_memory_guard(guard);
    let stopped = sim.run_bounded(u64::MAX, None).expect("stopped early");
    assert!(stopped > 0 && stopped < sc.duration);
    let err = sim
        .check_memory(stopped)
        .expect_err("by the guard")
        .to_string();
    assert!(err.contains("port sw->dst"), "{err}");
}

/// The number before `unit` in `text` after `after` (e.g. "allocated 48.0 MiB").
fn number_after(text: &str, after: &str) -> f64 {
    let rest = &text[text.find(after).expect(after) + after.len()..];
    let end = rest.find(' ').unwrap_or(rest.len());
    rest[..end].parse().expect("a number")
}

#[test]
fn a_long_run_is_looked_at_often_enough_to_stop_near_its_room() {
    // With a look every 1/1024 of the duration (here 19.5 s), a long run went past its room by
    // hundreds of MiB before its first look (review of the guard). Looks are at most 1 ms of
    // simulated time apart, so the run stops within a ring doubling or two of the room.
    let sc = cbr_into_slow_link("unlimited", "20000 s");
    let err = run_with_room(&sc, 16 << 20)
        .expect_err("stopped")
        .to_string();
    let at = number_after(&err, "outgrew its memory limit at ");
    let mib = number_after(&err, "event queue allocated ");
    assert!(at < 5.0, "stopped at {at} s: {err}");
    assert!(mib <= 64.0, "allocated {mib} MiB for 16 MiB of room: {err}");
}
