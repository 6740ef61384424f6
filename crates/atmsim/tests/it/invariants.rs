//! Invariants every run must keep: cell conservation, port counter identities,
//! determinism (same scenario and seed = bit-identical results), and physical sanity.

use crate::support::scenario::n_source;
use crate::support::{self, fingerprint, run};

const POLICIES: [&str; 5] = [
    "{ kind = \"tail_drop\" }",
    "{ kind = \"ppd\" }",
    "{ kind = \"epd\", threshold = \"80 %\" }",
    "{ kind = \"selective_drop\", threshold = \"90 %\", z = 0.8 }",
    "{ kind = \"fba\", threshold = \"50 %\", z = 0.8 }",
];

#[test]
fn conservation_and_port_identities_hold_under_every_policy() {
    for pol in POLICIES {
        let r = run(&n_source(4, "300 cells", pol, "0.3 s", 3));
        let s = &r.summary;
        assert!(s.conservation_ok, "{pol}");
        assert_eq!(
            s.cells_sent,
            s.cells_delivered + s.cells_dropped + s.cells_in_flight,
            "{pol}"
        );
        assert!(
            s.cells_dropped > 0,
            "a 300-cell buffer with 4 greedy sources must drop ({pol})"
        );
        for p in &r.ports {
            assert_eq!(
                p.enqueued,
                p.sent + p.final_queue_cells as u64,
                "{pol} {}",
                p.name
            );
            assert_eq!(p.drops.values().sum::<u64>(), p.dropped, "{pol} {}", p.name);
            if let Some(b) = p.buffer_cells {
                assert!(
                    p.max_queue_cells <= b,
                    "{pol} {}: queue above the buffer",
                    p.name
                );
            }
        }
        let per_conn: u64 = r
            .connections
            .iter()
            .map(|c| c.cells_dropped + c.ack_cells_dropped)
            .sum();
        assert_eq!(
            per_conn, s.cells_dropped,
            "{pol}: drops attributed to connections"
        );
    }
}

#[test]
fn frame_policies_do_not_drop_whole_frames_under_tail_drop() {
    let r = run(&n_source(4, "300 cells", POLICIES[0], "0.3 s", 3));
    for p in &r.ports {
        assert_eq!(p.drops["frame_discard"], 0);
        assert_eq!(p.drops["partial_discard"], 0);
    }
    let r = run(&n_source(4, "300 cells", POLICIES[2], "0.3 s", 3));
    let sw = r.ports.iter().find(|p| p.name == "sw1->sw2").unwrap();
    assert!(
        sw.drops["frame_discard"] > 0,
        "EPD must discard whole frames"
    );
}

#[test]
fn same_seed_same_bits() {
    let t = n_source(3, "400 cells", POLICIES[4], "0.3 s", 11);
    assert_eq!(fingerprint(&run(&t)), fingerprint(&run(&t)));
    let small = support::small_toml();
    assert_eq!(fingerprint(&run(&small)), fingerprint(&run(&small)));
}

#[test]
fn seed_moves_random_tick_phases() {
    let a = run(&n_source(3, "400 cells", POLICIES[0], "0.5 s", 1));
    let b = run(&n_source(3, "400 cells", POLICIES[0], "0.5 s", 2));
    assert_ne!(fingerprint(&a), fingerprint(&b));
}

#[test]
fn unlimited_buffers_lose_nothing_and_fill_the_link() {
    let r = run(&n_source(2, "unlimited", POLICIES[0], "1 s", 1));
    assert_eq!(r.summary.cells_dropped, 0);
    assert!(
        r.summary.efficiency > 0.95 && r.summary.efficiency <= 1.0,
        "{}",
        r.summary.efficiency
    );
    assert!(r
        .connections
        .iter()
        .all(|c| c.retransmissions == 0 && c.timeouts == 0));
}

#[test]
fn goodput_never_exceeds_the_bottleneck() {
    for pol in POLICIES {
        let r = run(&n_source(5, "500 cells", pol, "0.5 s", 5));
        assert!(
            r.summary.efficiency <= 1.0 + 1e-9,
            "{pol}: {}",
            r.summary.efficiency
        );
        for p in &r.ports {
            assert!(p.utilization <= 1.0 + 1e-9);
        }
    }
}

#[test]
fn start_times_are_honoured() {
    let r = run(&support::small_toml());
    let c = r.connections.iter().find(|c| c.name == "c").unwrap();
    assert!(c.goodput_bytes > 0);
    // Connection c starts at 50 ms: its first delivery cannot precede that.
    let ts = &r.timeseries;
    let k = ts.connection_names.iter().position(|n| n == "c").unwrap();
    for (t, cells) in ts.time_s.iter().zip(&ts.cells_received[k]) {
        if *t < 0.05 {
            assert_eq!(*cells, 0);
        }
    }
}

#[test]
fn a_run_without_samples_reports_the_series_layout_of_a_sampled_one() {
    // The recorder keeps nothing during an unsampled run (issue 14, memory per VC) and
    // builds the empty series, with their names, at the end.
    let sampled = run(&support::small_toml());
    let text =
        support::small_toml().replace("sample_interval = \"5 ms\"", "sample_interval = \"0 s\"");
    let unsampled = run(&text);
    let (a, b) = (&sampled.timeseries, &unsampled.timeseries);
    assert!(!a.time_s.is_empty() && b.time_s.is_empty());
    assert!(!b.port_names.is_empty() && !b.connection_names.is_empty());
    assert_eq!(a.port_names, b.port_names);
    assert_eq!(a.connection_names, b.connection_names);
    assert_eq!(a.abr_names, b.abr_names);
    for (cols, n) in [
        (&b.queue_cells, b.port_names.len()),
        (&b.max_queue_cells, b.port_names.len()),
    ] {
        assert_eq!(cols.len(), n);
        assert!(cols.iter().all(|c| c.is_empty()));
    }
    assert_eq!(b.utilization.len(), b.port_names.len());
    assert_eq!(b.cwnd_bytes.len(), b.connection_names.len());
    assert_eq!(b.delivered_bytes.len(), b.connection_names.len());
    assert_eq!(b.acr_mbps.len(), b.abr_names.len());
}

/// Runs `text` twice, once as built (a TCP sender's host port holds its frames and cuts
/// cells as they leave) and once with every port holding cells; returns both results and
/// the number of ports that held frames.
fn frames_and_cells(text: &str) -> (atmsim::RunResult, atmsim::RunResult, usize) {
    let sc = atmsim::scenario::load_toml(text).unwrap_or_else(|e| panic!("{e}"));
    let mut held = atmsim::sim::Sim::new(&sc);
    let holding = held
        .net
        .ports
        .iter()
        .filter(|p| p.buf.holds_frames())
        .count();
    held.run();
    let mut cells = atmsim::sim::Sim::new(&sc);
    for p in &mut cells.net.ports {
        p.buf.hold_cells();
    }
    cells.run();
    (
        atmsim::RunResult::collect(held, &sc, 0.0),
        atmsim::RunResult::collect(cells, &sc, 0.0),
        holding,
    )
}

/// TCP scenarios for the tests of host ports that hold frames, each with the number of
/// its ports that hold them: shared and private hosts (ubr_small's three senders reach one
/// host, whose port carries three ACK flows and holds cells), every policy at the switches
/// with drops and retransmissions, a periodic writer (frames handed one at a time to an
/// idle port), and a host port with a finite buffer set by a [[port]] table (it holds
/// cells).
fn frame_cases() -> Vec<(String, usize)> {
    let periodic = "traffic = { kind = \"tcp\", application = { kind = \"periodic\", \
                    segment_interval = \"1 ms\", segments = 20, burst = \"5120 B\" } }";
    let mut cases = vec![(support::small_toml(), 3)];
    for (i, policy) in POLICIES.iter().enumerate() {
        cases.push((n_source(4, "300 cells", policy, "0.1 s", i as u64), 8));
    }
    let mut p = n_source(2, "1000 cells", POLICIES[0], "60 ms", 5);
    p = p.replace("traffic = { kind = \"tcp\" }", periodic);
    cases.push((p, 4));
    let capped = n_source(3, "300 cells", POLICIES[2], "0.1 s", 9)
        + "[[port]]\nnode = \"s1\"\ntoward = \"sw1\"\nbuffer = \"20 cells\"\n";
    cases.push((capped, 5));
    cases
}

#[test]
fn host_ports_holding_frames_change_no_result() {
    // Issue 14: the same results, time series included, whether a TCP sender's host port
    // holds frames or cells ([`frame_cases`]).
    for (text, ports) in frame_cases() {
        let (held, cells, holding) = frames_and_cells(&text);
        assert_eq!(holding, ports, "host ports holding frames\n{text}");
        assert!(held.summary.cells_dropped > 0 || text.contains("periodic"));
        assert_eq!(fingerprint(&held), fingerprint(&cells), "\n{text}");
    }
}

/// Runs `sc` with the host lines keeping runs, in slices; returns the results and how many
/// slices ended with a run of one-cell frames on a line.
/// Runs `sc` with runs on at every host line; returns the result and in how many of 50
/// slices some line held a run of one-cell frames, and one with RM cells.
fn run_with_line_runs(sc: &atmsim::scenario::Scenario) -> (atmsim::RunResult, usize, usize) {
    let mut runs = atmsim::sim::Sim::new(sc);
    runs.net.set_line_runs(true);
    let (mut step_slices, mut rm_slices) = (0, 0);
    for k in 1..=50 {
        runs.run_until(sc.duration / 50 * k);
        step_slices += usize::from(runs.net.ports.iter().any(|p| p.line.step_runs() > 0));
        rm_slices += usize::from(runs.net.ports.iter().any(|p| p.line.rm_runs() > 0));
    }
    runs.run();
    (
        atmsim::RunResult::collect(runs, sc, 0.0),
        step_slices,
        rm_slices,
    )
}

#[test]
fn lines_of_cell_level_sources_keeping_runs_change_no_result() {
    // Issue 14: the same results, time series included, whether the host lines of ABR
    // sources keep their back-to-back cells as runs (a greedy source's one-cell frames at
    // the line rate; on by itself in networks whose host lines could hold
    // `RUNS_FROM_BYTES`) or cell by cell: every rate allocator on the ABR grid's
    // topologies (greedy, request/response, parking lot, two bottlenecks, TCP over ABR),
    // with access links of 1 ms so that many cells are in flight, and a lone greedy source
    // starting at the line rate, which holds runs until the allocator's feedback slows it.
    use crate::grid::abr::{
        allocators, bursty, parking_lot, tcp_over_abr, two_bottlenecks, two_sources,
    };
    let topologies: [fn(&str) -> String; 5] = [
        two_sources,
        bursty,
        parking_lot,
        two_bottlenecks,
        tcp_over_abr,
    ];
    let mut cases = Vec::new();
    for (_, allocator) in allocators() {
        for build in topologies {
            cases.push(build(&allocator).replace("length = \"1 km\"", "delay = \"1 ms\""));
        }
    }
    let ms = "delay = \"1 ms\"";
    let lone = crate::support::scenario::Net::new(
        "lone greedy source at the line rate",
        3,
        "duration = \"20 ms\"\nsample_interval = \"1 ms\"",
        "allocator = { kind = \"erica\" }\nabr = { icr = \"155.52 Mbps\" }",
    )
    .switches(&["sw1", "sw2"])
    .link("sw1", "sw2", ms)
    .connection(
        "c1",
        "sw1",
        "sw2",
        ms,
        "service = \"abr\"\ntraffic = { kind = \"persistent\" }",
    )
    .text();
    cases.push(lone);
    let mut step_slices = 0;
    for text in &cases {
        let sc = atmsim::scenario::load_toml(text).unwrap_or_else(|e| panic!("{e}"));
        let (with_runs, slices, _) = run_with_line_runs(&sc);
        step_slices += slices;
        let mut cells = atmsim::sim::Sim::new(&sc);
        assert!(cells.net.ports.iter().all(|p| !p.line_runs), "small: off");
        cells.run();
        let plain = atmsim::RunResult::collect(cells, &sc, 0.0);
        assert_eq!(fingerprint(&with_runs), fingerprint(&plain), "\n{text}");
    }
    let (_, lone_slices, lone_rm_slices) = run_with_line_runs(
        &atmsim::scenario::load_toml(cases.last().expect("the lone source")).expect("valid"),
    );
    // At the line rate until ERICA's feedback (a 0.95 target) comes back: 17 of the 50.
    assert!(
        lone_slices >= 10,
        "the lone greedy source held runs in {lone_slices} of 50 slices"
    );
    // Its RM cells join its runs: a run with RM cells in each of those slices.
    assert_eq!(
        lone_rm_slices, lone_slices,
        "slices holding runs with RM cells"
    );
    assert!(
        step_slices > cases.len(),
        "runs of one-cell frames in {step_slices} slices"
    );
}

#[test]
fn lines_keeping_runs_change_no_result() {
    // Issue 14: the same results, time series included, whether the lines of the ports
    // that hold frames keep a frame's back-to-back cells as runs (on by itself only in
    // networks whose lines could hold `RUNS_FROM_BYTES`) or cell by cell ([`frame_cases`]).
    for (text, _) in frame_cases() {
        // Links of 1 ms hold whole frames in flight (of 5 us, about two cells).
        let text = text.replace("delay = \"5 us\"", "delay = \"1 ms\"");
        let sc = atmsim::scenario::load_toml(&text).unwrap_or_else(|e| panic!("{e}"));
        let mut runs = atmsim::sim::Sim::new(&sc);
        assert!(runs.net.ports.iter().all(|p| !p.line_runs), "small: off");
        runs.net.set_line_runs(true);
        let with_runs = runs.net.ports.iter().filter(|p| p.line_runs).count();
        assert!(with_runs > 0, "no line keeps runs\n{text}");
        // In slices, to see runs on the lines (a run is two slots for its cells).
        let mut held_runs = false;
        for k in 1..=50 {
            runs.run_until(sc.duration / 50 * k);
            held_runs |= runs.net.ports.iter().any(|p| p.line.slots() < p.line.len());
        }
        assert!(held_runs, "no line held a run\n{text}");
        runs.run();
        let mut cells = atmsim::sim::Sim::new(&sc);
        cells.run();
        let (a, b) = (
            atmsim::RunResult::collect(runs, &sc, 0.0),
            atmsim::RunResult::collect(cells, &sc, 0.0),
        );
        assert_eq!(fingerprint(&a), fingerprint(&b), "\n{text}");
    }
}

/// A CBR source above its link's rate: the cells its application hands and its end system
/// cannot send yet are reported as its source queue, so that offered = sent + queued (a
/// review found about half of them in no counter).
#[test]
fn a_cbr_source_above_its_link_reports_its_queue() {
    let text = "[measurement]\nduration = \"0.1 s\"\n\
        [[node]]\nname = \"h1\"\nkind = \"host\"\n[[node]]\nname = \"sw\"\nkind = \"switch\"\n\
        [[node]]\nname = \"h2\"\nkind = \"host\"\n\
        [[link]]\nbetween = [\"h1\", \"sw\"]\n[[link]]\nbetween = [\"sw\", \"h2\"]\n\
        [[connection]]\nname = \"c\"\nfrom = \"h1\"\nto = \"h2\"\nservice = \"cbr\"\n\
        traffic = { kind = \"cbr\", rate = \"300 Mbps\" }\n";
    let r = run(text);
    let c = &r.connections[0];
    let offered = 300e6 * 0.1 / 424.0;
    let queued = c
        .source_queue_cells
        .expect("a CBR source reports its queue") as f64;
    assert!(
        ((c.cells_sent as f64 + queued) / offered - 1.0).abs() < 0.001,
        "sent {} + queued {queued} against {offered} offered",
        c.cells_sent
    );
    assert!(c.source_queue_max_cells.unwrap() as f64 >= queued);
    // A greedy source's queue is never empty: not reported.
    let greedy = run(&support::small_toml());
    assert!(greedy
        .connections
        .iter()
        .all(|c| c.source_queue_cells.is_none()));
}
