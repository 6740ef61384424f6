//! A lone source's port sends a cell ahead of its transmit-done event (issue 14,
//! `sim::fabric`, `Sim::send_at`): a cell its source offers while the transmitter ends
//! the one before goes onto the line at once, as of that end. Only the run's `events` count
//! may move: with it on, every scenario gives the same results as with it off, whole, in
//! slices of the run that end inside the waits, and under a budget that is not reached; a run
//! that a budget stops sends nothing ahead (the same partial results and events).

use crate::grid::abr::{allocators, TOPOLOGIES};
use crate::support::scenario::Net;
use crate::support::small_toml;
use atmsim::result::RunResult;
use atmsim::sim::Sim;

/// How a scenario is run.
#[derive(Clone, Copy, Debug)]
enum How {
    /// [`Sim::run`].
    Whole,
    /// [`Sim::run_until`] in steps of this many ps.
    Slices(u64),
    /// [`Sim::run_bounded`] with no limit.
    Bounded,
    /// [`Sim::run_bounded`] stopped after this many events (partial results).
    Budget(u64),
}

/// The results of `text` without its event counts, and its event count, with sending ahead
/// `on` or off.
fn run(text: &str, on: bool, how: How) -> (String, u64) {
    let sc = atmsim::scenario::load_toml(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut sim = Sim::new(&sc);
    sim.set_send_ahead(on);
    match how {
        How::Whole => sim.run(),
        How::Slices(step) => {
            let mut t = 0;
            while t < sc.duration {
                t += step;
                sim.run_until(t);
            }
        }
        How::Bounded => assert_eq!(sim.run_bounded(u64::MAX, None), None),
        How::Budget(n) => assert!(sim.run_bounded(n, None).is_some(), "stopped early"),
    }
    results(sim, &sc)
}

/// The results of a run `sim` of `sc` without its event counts (as JSON), and its event
/// count.
pub(crate) fn results(sim: Sim<'_>, sc: &atmsim::Scenario) -> (String, u64) {
    let r = RunResult::collect(sim, sc, 0.0);
    let events = r.summary.events;
    let mut v = serde_json::to_value(&r).unwrap();
    let s = v["summary"].as_object_mut().unwrap();
    for k in [
        "wall_seconds",
        "cell_hops_per_second",
        "events_per_second",
        "events",
    ] {
        s.remove(k);
    }
    (serde_json::to_string(&v).unwrap(), events)
}

/// Cell-level sources of several kinds on one bottleneck with 1 ms access links, sampled
/// every 7.3 us: greedy ABR at the line rate (the case sending ahead is for), a capped ABR
/// source, one on access links without delay (not a lone source: the cell before leaves
/// the line as the transmitter ends), one whose peak rate is above its line's (its cells queue at its host, and the
/// next comes before the one waiting could go), CBR and on/off sources at the line rate, sessions and request/response (whose
/// ports are not lone sources: never ahead), and a greedy ABR source sharing its host with
/// a CBR one, whose cells go first (not lone either: sent ahead, the ABR cells would pass
/// CBR cells that arrive while they wait). The CBR source starts 20 ps after the ABR
/// source's 101st cell, while it waits about 45 ps for the 100th to end (the ABR source
/// paces at 2 726 337 ps, the line's serial clock at 2 726 337.45 on average).
pub(crate) fn cell_sources(allocator: &str) -> String {
    let ms = "delay = \"1 ms\"";
    Net::new(
        "lone sources",
        11,
        "duration = \"30 ms\"\nsample_interval = \"7.3 us\"",
        &format!("switch_buffer = \"2000 cells\"\nallocator = {allocator}"),
    )
    .switches(&["sw1", "sw2"])
    .link("sw1", "sw2", ms)
    .connection("greedy", "sw1", "sw2", ms, "service = \"abr\"\ntraffic = { kind = \"persistent\" }")
    .connection(
        "capped",
        "sw1",
        "sw2",
        ms,
        "service = \"abr\"\ntraffic = { kind = \"persistent\", rate_cap = \"20 Mbps\", cap_until = \"10 ms\" }",
    )
    .connection(
        "no_delay",
        "sw1",
        "sw2",
        "delay = \"0 s\"",
        "service = \"abr\"\ntraffic = { kind = \"persistent\" }",
    )
    .connection(
        "no_delay_too",
        "sw1",
        "sw2",
        "delay = \"0 s\"",
        "service = \"abr\"\ntraffic = { kind = \"persistent\" }",
    )
    .connection(
        "faster_than_its_line",
        "sw1",
        "sw2",
        ms,
        "service = \"abr\"\nabr = { pcr = \"400 Mbps\", icr = \"400 Mbps\" }\n\
         traffic = { kind = \"persistent\", rate_cap = \"300 Mbps\", cap_until = \"1 ms\" }",
    )
    .connection(
        "line_rate_cbr",
        "sw1",
        "sw2",
        ms,
        "service = \"cbr\"\ntraffic = { kind = \"cbr\", rate = \"155.52 Mbps\" }",
    )
    .connection(
        "on_off",
        "sw1",
        "sw2",
        ms,
        "service = \"ubr\"\ntraffic = { kind = \"on_off\", peak_rate = \"155.52 Mbps\", on = \"1 ms\", off = \"0.5 ms\" }",
    )
    .connection(
        "sessions",
        "sw1",
        "sw2",
        ms,
        "service = \"abr\"\ntraffic = { kind = \"sessions\", on = \"0.2 ms\", off = \"0.1 ms\" }",
    )
    .connection(
        "rr",
        "sw1",
        "sw2",
        ms,
        "service = \"abr\"\ntraffic = { kind = \"request_response\", response = \"64 cells\", think_time = \"0.1 ms\" }",
    )
    .hosts(&["shared_s", "shared_d"])
    .link("shared_s", "sw1", ms)
    .link("sw2", "shared_d", ms)
    .raw(
        "[[connection]]\nname = \"shared1\"\nfrom = \"shared_s\"\nto = \"shared_d\"\n\
         service = \"abr\"\ntraffic = { kind = \"persistent\" }\n\
         [[connection]]\nname = \"shared2\"\nfrom = \"shared_s\"\nto = \"shared_d\"\n\
         service = \"cbr\"\ntraffic = { kind = \"cbr\", rate = \"100 Mbps\" }\n\
         start = \"272633720 ps\"\n",
    )
    .text()
}

/// Every ABR grid topology under every allocator, the cell sources above under three of
/// them, and the small TCP example.
pub(crate) fn scenarios() -> Vec<String> {
    let mut all = vec![small_toml()];
    for (name, allocator) in allocators() {
        for (_, topology) in TOPOLOGIES {
            all.push(topology(&allocator));
        }
        if ["none", "erica", "kvr"].contains(&name) {
            all.push(cell_sources(&allocator));
        }
    }
    all
}

/// Fails naming where two runs' results first differ (the results are long).
pub(crate) fn assert_same(a: &str, b: &str, what: &str) {
    if a != b {
        let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
        let from = at.saturating_sub(200);
        let near = |s: &str| {
            s.get(from..(at + 200).min(s.len()))
                .unwrap_or("")
                .to_string()
        };
        panic!(
            "{what}: results differ at byte {at}:\n{}\n{}",
            near(a),
            near(b)
        );
    }
}

#[test]
fn sending_ahead_changes_only_the_events_count() {
    let (mut fewer, mut total) = (0, 0);
    for text in scenarios() {
        let (off, events_off) = run(&text, false, How::Whole);
        let (on, events_on) = run(&text, true, How::Whole);
        assert_same(&on, &off, &text);
        assert!(
            events_on <= events_off,
            "{events_on} > {events_off}: {text}"
        );
        fewer += u64::from(events_on < events_off);
        total += 1;
        assert_eq!(
            run(&text, true, How::Bounded),
            (on, events_on),
            "bounded: {text}"
        );
    }
    // Not a test that cannot fail: the greedy sources' cells do go ahead.
    assert!(
        fewer * 2 > total,
        "only {fewer} of {total} scenarios sent ahead"
    );
}

#[test]
fn slices_ending_inside_the_waits_give_the_same_run() {
    // Steps of about one cell time at 155.52 Mbit/s. The first is a greedy source's pacing
    // interval at that rate (1/PCR rounded: 2 726 337 ps, 0.45 ps short of the line's serial
    // clock), so slices end just as the greedy sources offer a cell that must then wait past
    // the slice's end: more events than the whole run. The second is not a multiple of it.
    let text = cell_sources("{ kind = \"erica\" }");
    let (whole, events) = run(&text, true, How::Whole);
    for (step, ends_in_waits) in [(2_726_337, true), (2_726_417, false)] {
        let (sliced, sliced_events) = run(&text, true, How::Slices(step));
        assert_same(&sliced, &whole, &format!("step {step} ps"));
        // Nothing is sent ahead past a slice's end.
        assert!(sliced_events >= events, "step {step} ps");
        assert_eq!(sliced_events > events, ends_in_waits, "step {step} ps");
    }
    assert_same(&run(&text, false, How::Whole).0, &whole, "off");
}

#[test]
fn a_run_that_may_stop_early_sends_nothing_ahead() {
    // Stopped after any event, its partial results are the state at the time reached, and
    // its budget counts the events it did before sending ahead.
    let text = cell_sources("{ kind = \"erica\" }");
    let (whole, _) = run(&text, true, How::Whole);
    for n in [1_000, 33_333, 100_000] {
        let on = run(&text, true, How::Budget(n));
        let off = run(&text, false, How::Budget(n));
        assert_same(&on.0, &off.0, &format!("{n} events"));
        assert_eq!(on.1, off.1, "{n} events");
        assert_ne!(on.0, whole);
    }
}

#[test]
fn only_the_lone_sources_ports_send_ahead() {
    let text = cell_sources("{ kind = \"erica\" }");
    let sc = atmsim::scenario::load_toml(&text).unwrap();
    let sim = Sim::new(&sc);
    let mut lone: Vec<String> = (0..sc.ports.len())
        .filter(|&p| sim.net.ports[p].lone_source)
        .map(|p| sc.port_name(p).to_string())
        .collect();
    lone.sort();
    // One-way cell-level connections alone at their hosts; not sessions (its source
    // restarts), request/response (both directions send), the shared host, any switch.
    let want = [
        "capped_s->sw1",
        "faster_than_its_line_s->sw1",
        "greedy_s->sw1",
        "line_rate_cbr_s->sw1",
        "on_off_s->sw1",
    ];
    assert_eq!(lone, want);
}
