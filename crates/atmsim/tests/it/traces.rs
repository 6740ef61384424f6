//! Per-event traces (issue 16, item 2): one test per kind, each checking the rows against
//! the run's own counters; tracing never changes the results; filters and the window.

use crate::support::{self, fingerprint};
use atmsim::trace::{Kind, MemorySink, DROP_REASONS, TCP_EVENTS};
use atmsim::RunResult;

/// Runs `text` with `table` as its `[trace]` table into memory; also checks the results
/// equal those of the same scenario run without tracing.
fn traced(text: &str, table: &str) -> (RunResult, MemorySink) {
    let plain = support::run(text);
    let with = format!("{text}\n[trace]\n{table}\n");
    let sc = atmsim::scenario::load_toml(&with).unwrap_or_else(|e| panic!("{e}"));
    let mut sink = MemorySink::default();
    let r = atmsim::run_traced(&sc, Box::new(&mut sink)).expect("runs");
    assert_eq!(
        fingerprint(&plain),
        fingerprint(&r),
        "tracing changed the results"
    );
    (r, sink)
}

/// The index of connection `name` in the trace's connection labels.
fn conn_index(sink: &MemorySink, name: &str) -> usize {
    sink.connections.iter().position(|n| n == name).unwrap()
}

fn col(kind: Kind, name: &str) -> usize {
    MemorySink::column(kind, name)
}

fn label(labels: &[&str], code: f64) -> String {
    labels[code as usize].to_string()
}

fn abr_two() -> String {
    std::fs::read_to_string(support::repo().join("examples/abr_two_sources.toml")).expect("example")
}

#[test]
fn drop_rows_match_the_port_counters_and_policies() {
    let (r, sink) = traced(&support::small_toml(), "events = [\"drop\"]");
    let (port, reason) = (col(Kind::Drop, "port"), col(Kind::Drop, "reason"));
    let rows: Vec<&[f64]> = sink.rows(Kind::Drop).collect();
    assert_eq!(rows.len() as u64, r.summary.cells_dropped);
    for p in &r.ports {
        let mine: Vec<&&[f64]> = rows
            .iter()
            .filter(|w| sink.ports[w[port] as usize] == p.name)
            .collect();
        assert_eq!(mine.len() as u64, p.dropped, "port {}", p.name);
        for w in mine {
            let why = label(DROP_REASONS, w[reason]);
            match p.policy {
                "tail_drop" => assert_eq!(why, "buffer_full"),
                "epd" => assert!(
                    ["epd", "ppd", "buffer_full"].contains(&why.as_str()),
                    "{why}"
                ),
                other => panic!("unexpected policy {other}"),
            }
        }
    }
    assert!(
        rows.iter().any(|w| label(DROP_REASONS, w[reason]) == "epd"),
        "EPD refused frames"
    );
    let q = col(Kind::Drop, "queue_cells");
    assert!(rows.iter().all(|w| w[q] <= 5000.0));
}

#[test]
fn fault_drops_are_traced_with_their_reason() {
    let text = format!(
        "{}\n[[fault]]\nconnection = \"a\"\nat = \"0.1 s\"\ncount = 3\n",
        support::small_toml()
    );
    let (r, sink) = traced(&text, "events = [\"drop\"]\nconnections = [\"a\"]");
    let reason = col(Kind::Drop, "reason");
    let faults = sink
        .rows(Kind::Drop)
        .filter(|w| label(DROP_REASONS, w[reason]) == "fault")
        .count();
    assert_eq!(faults as u64, r.summary.cells_dropped_by_faults);
    assert_eq!(faults, 3);
}

#[test]
fn tcp_rows_count_the_senders_timeouts_and_fast_retransmits() {
    let (r, sink) = traced(&support::small_toml(), "events = [\"tcp\"]");
    let (c, ev) = (col(Kind::Tcp, "connection"), col(Kind::Tcp, "event"));
    for conn in &r.connections {
        let k = conn_index(&sink, &conn.name);
        let count = |e: &str| {
            sink.rows(Kind::Tcp)
                .filter(|w| w[c] as usize == k && label(TCP_EVENTS, w[ev]) == e)
                .count() as u64
        };
        assert_eq!(count("timeout"), conn.timeouts, "{}", conn.name);
        assert_eq!(
            count("fast_retransmit"),
            conn.fast_retransmits,
            "{}",
            conn.name
        );
    }
    let total: u64 = r.connections.iter().map(|c| c.timeouts).sum();
    assert!(total > 0, "the example has timeouts to trace");
    let (cwnd, ss, rto) = (
        col(Kind::Tcp, "cwnd_bytes"),
        col(Kind::Tcp, "ssthresh_bytes"),
        col(Kind::Tcp, "rto_s"),
    );
    for w in sink.rows(Kind::Tcp) {
        assert!(w[cwnd] >= 512.0 && w[ss] >= 512.0 && w[rto] > 0.0, "{w:?}");
    }
    // The last row of each connection carries its final window.
    for conn in &r.connections {
        let k = conn_index(&sink, &conn.name);
        if let Some(last) = sink.rows(Kind::Tcp).filter(|w| w[c] as usize == k).last() {
            assert_eq!(
                Some(last[cwnd] as u64),
                conn.final_cwnd_bytes,
                "{}",
                conn.name
            );
        }
    }
}

#[test]
fn reno_recovery_is_entered_and_left() {
    let text = support::small_toml().replace("congestion = \"tahoe\"", "congestion = \"reno\"");
    let (r, sink) = traced(&text, "events = [\"tcp\"]");
    let ev = col(Kind::Tcp, "event");
    let fast: u64 = r.connections.iter().map(|c| c.fast_retransmits).sum();
    let exits = sink
        .rows(Kind::Tcp)
        .filter(|w| label(TCP_EVENTS, w[ev]) == "recovery_exit")
        .count() as u64;
    assert!(fast > 0, "reno does fast retransmits here");
    // Each recovery ends once: by a new ACK, or by a timeout.
    assert!(
        exits <= fast && exits > 0,
        "exits {exits}, fast retransmits {fast}"
    );
}

#[test]
fn acr_rows_follow_the_backward_rm_cells() {
    let (r, sink) = traced(&abr_two(), "events = [\"acr\"]");
    let (acr, ev) = (col(Kind::Acr, "acr_mbps"), col(Kind::Acr, "event"));
    let brm = sink.rows(Kind::Acr).filter(|w| w[ev] == 0.0).count() as u64;
    let received: u64 = r.connections.iter().filter_map(|c| c.brm_received).sum();
    assert_eq!(brm, received, "one row per backward RM cell taken");
    for w in sink.rows(Kind::Acr) {
        assert!(w[acr] > 0.0 && w[acr] <= 155.52 + 1e-9, "{w:?}");
    }
    // The last row of each source is its final ACR.
    let c = col(Kind::Acr, "connection");
    for conn in &r.connections {
        let k = conn_index(&sink, &conn.name);
        let last = sink
            .rows(Kind::Acr)
            .filter(|w| w[c] as usize == k && w[2] == 0.0)
            .last()
            .unwrap();
        let want = conn.acr_final_bps.unwrap() / 1e6;
        assert!(
            (last[acr] - want).abs() < 1e-6 * want,
            "{} {} {}",
            conn.name,
            last[acr],
            want
        );
    }
}

#[test]
fn erica_intervals_show_z_fair_share_and_er() {
    let (_r, sink) = traced(
        &abr_two(),
        "events = [\"allocator\"]\nports = [\"sw1->sw2\"]",
    );
    let k = Kind::Allocator;
    let (ev, z, fs, cap, n) = (
        col(k, "event"),
        col(k, "z"),
        col(k, "fair_share_mbps"),
        col(k, "abr_capacity_mbps"),
        col(k, "active_vcs"),
    );
    let intervals: Vec<&[f64]> = sink.rows(k).filter(|w| w[ev] == 0.0).collect();
    assert!(
        intervals.len() > 40,
        "{} intervals in 50 ms of 1 ms or 50 cells",
        intervals.len()
    );
    for w in &intervals {
        assert!(w[z].is_finite() && w[z] >= 0.0);
        assert!(
            (w[fs] - w[cap] / w[n]).abs() < 1e-9 * w[cap],
            "FairShare = ABRCap / N: {w:?}"
        );
    }
    let (er_in, er) = (col(k, "er_in_mbps"), col(k, "er_mbps"));
    let fb: Vec<&[f64]> = sink.rows(k).filter(|w| w[ev] == 1.0).collect();
    assert!(!fb.is_empty());
    assert!(
        fb.iter().all(|w| w[er] <= w[er_in] + 1e-6),
        "a switch only lowers ER"
    );
    assert!(
        fb.iter().any(|w| w[er] < w[er_in]),
        "this port gives feedback"
    );
    let port = col(k, "port");
    assert!(
        sink.rows(k)
            .all(|w| sink.ports[w[port] as usize] == "sw1->sw2"),
        "port filter"
    );
}

#[test]
fn load_rows_are_the_allocators_intervals_its_cells_and_its_feedback() {
    let (_r, sink) = traced(
        &abr_two(),
        "events = [\"load\", \"allocator\"]\nports = [\"sw1->sw2\"]",
    );
    let (k, a) = (Kind::Load, Kind::Allocator);
    let (t, conn, len, cells, brm) = (
        col(k, "time_s"),
        col(k, "connection"),
        col(k, "interval_s"),
        col(k, "cells"),
        col(k, "brm_cells"),
    );
    let rows: Vec<&[f64]> = sink.rows(k).collect();
    let mut ends: Vec<f64> = rows.iter().map(|w| w[t]).collect();
    ends.dedup();
    // One set of rows per allocator interval, at the same instants.
    let ev = col(a, "event");
    let intervals: Vec<f64> = sink
        .rows(a)
        .filter(|w| w[ev] == 0.0)
        .map(|w| w[0])
        .collect();
    assert_eq!(
        ends, intervals,
        "load rows at the allocator's interval ends"
    );
    assert!(ends.len() > 40, "{} intervals", ends.len());
    for e in &ends {
        let at: Vec<&&[f64]> = rows.iter().filter(|w| w[t] == *e).collect();
        assert_eq!(
            at.len(),
            2,
            "a row per connection seen (zeros included) at {e}"
        );
        let n: f64 = at.iter().map(|w| w[cells]).sum();
        // ERICA ends an interval at its 50th ABR cell, or after 1 ms.
        if at[0][len] < 0.001 - 1e-12 {
            assert_eq!(n, 50.0, "an interval ended by its 50th cell at {e}");
        } else {
            assert!(n <= 50.0, "at most 50 cells in a timed interval at {e}");
        }
    }
    // Each BRM the port gave feedback on is counted once, in its interval.
    let last = *ends.last().expect("rows");
    let fconn = col(a, "connection");
    for c in 0..2 {
        let counted: f64 = rows
            .iter()
            .filter(|w| w[conn] == c as f64)
            .map(|w| w[brm])
            .sum();
        let fed = sink
            .rows(a)
            .filter(|w| w[ev] == 1.0 && w[fconn] == c as f64 && w[0] <= last)
            .count();
        assert!(counted > 0.0);
        assert_eq!(
            counted, fed as f64,
            "connection {c}: BRMs counted = feedback rows"
        );
    }
}

#[test]
fn kvr_feedback_rows_carry_its_quantities() {
    let text = abr_two().replace(
        "allocator = { kind = \"erica\", target_utilization = 0.95, interval_cells = \"50 cells\", interval_time = \"1 ms\" }",
        "allocator = { kind = \"kvr\" }",
    );
    assert!(text.contains("kind = \"kvr\""));
    let (_r, sink) = traced(&text, "events = [\"allocator\"]\nports = [\"sw1->sw2\"]");
    let k = Kind::Allocator;
    let rows: Vec<&[f64]> = sink.rows(k).collect();
    assert!(!rows.is_empty());
    let (ev, n, nb, fs, cap) = (
        col(k, "event"),
        col(k, "active_vcs"),
        col(k, "bottlenecked_vcs"),
        col(k, "fair_share_mbps"),
        col(k, "abr_capacity_mbps"),
    );
    for w in &rows {
        assert_eq!(w[ev], 1.0, "KVR has no intervals: feedback rows only");
        assert!(w[nb] <= w[n] && w[n] <= 2.0);
        if w[n] > 0.0 {
            assert!(
                (w[fs] - w[cap] / w[n]).abs() < 1e-9 * w[cap],
                "B_eq = B / N"
            );
        }
    }
}

#[test]
fn queue_intervals_agree_with_the_port_counters() {
    let (r, sink) = traced(
        &support::small_toml(),
        "events = [\"queue\"]\nqueue_interval = \"10 ms\"",
    );
    let (port, max, t) = (
        col(Kind::Queue, "port"),
        col(Kind::Queue, "max_queue_cells"),
        col(Kind::Queue, "time_s"),
    );
    for p in &r.ports {
        let k = sink.ports.iter().position(|n| *n == p.name).unwrap();
        let mine: Vec<&[f64]> = sink
            .rows(Kind::Queue)
            .filter(|w| w[port] as usize == k)
            .collect();
        assert_eq!(mine.len(), 50, "0.5 s in 10 ms intervals, port {}", p.name);
        let top = mine.iter().map(|w| w[max]).fold(0.0, f64::max);
        assert_eq!(top as u32, p.max_queue_cells, "port {}", p.name);
        assert!(mine
            .windows(2)
            .all(|w| (w[1][t] - w[0][t] - 0.01).abs() < 1e-12));
        let last = mine.last().unwrap();
        assert_eq!(last[2] as u32, p.final_queue_cells, "port {}", p.name);
    }
}

#[test]
fn every_kind_at_once_changes_nothing_and_respects_the_window() {
    let table = "events = [\"drop\", \"tcp\", \"acr\", \"allocator\", \"queue\"]\nfrom = \"10 ms\"\nto = \"30 ms\"";
    let (_r, sink) = traced(&abr_two(), table);
    for k in [
        Kind::Tcp,
        Kind::Acr,
        Kind::Allocator,
        Kind::Queue,
        Kind::Drop,
    ] {
        for w in sink.rows(k) {
            assert!(
                w[0] >= 0.010 - 1e-12 && w[0] < 0.030,
                "{:?} row at {}",
                k,
                w[0]
            );
        }
    }
    assert!(sink.rows(Kind::Acr).count() > 0 && sink.rows(Kind::Allocator).count() > 0);
    // TCP and drops: the UBR example, everything on.
    let table = "events = [\"drop\", \"tcp\", \"acr\", \"allocator\", \"queue\"]";
    let (_r, sink) = traced(&support::small_toml(), table);
    assert!(sink.rows(Kind::Drop).count() > 0 && sink.rows(Kind::Tcp).count() > 0);
}

#[test]
fn a_bad_trace_table_is_refused_with_key_value_and_allowed() {
    let e = support::run_err(&format!(
        "{}\n[trace]\nevents = [\"drops\"]\n",
        support::small_toml()
    ));
    assert!(
        e.contains("trace.events[0]") && e.contains("\"drops\"") && e.contains("\"queue\""),
        "{e}"
    );
    let e = support::run_err(&format!(
        "{}\n[trace]\nevents = [\"drop\"]\nports = [\"sw9->x\"]\n",
        support::small_toml()
    ));
    assert!(
        e.contains("trace.ports[0]") && e.contains("\"sw1->sw2\""),
        "{e}"
    );
    let e = support::run_err(&format!(
        "{}\n[trace]\nevents = [\"drop\"]\nfrom = \"1 s\"\n",
        support::small_toml()
    ));
    assert!(e.contains("trace.from"), "{e}");
    let e = support::run_err(&format!(
        "{}\n[trace]\nevent = [\"drop\"]\n",
        support::small_toml()
    ));
    assert!(e.contains("event"), "{e}");
}

#[test]
fn a_trace_attached_mid_run_turns_held_frames_into_cells_and_changes_nothing() {
    // A TCP sender's host port holds frames (issue 14) unless a trace looks at each cell:
    // attached while such a port has a backlog, the frames waiting become cells in order,
    // and the run ends with the results of a run without a trace.
    let text = support::small_toml();
    let plain = support::run(&text);
    let with = format!("{text}\n[trace]\nevents = [\"queue\"]\n");
    let sc = atmsim::scenario::load_toml(&with).unwrap_or_else(|e| panic!("{e}"));
    let mut sink = MemorySink::default();
    let mut sim = atmsim::sim::Sim::new(&sc);
    let backlog = |sim: &atmsim::sim::Sim| {
        sim.net
            .ports
            .iter()
            .any(|p| p.buf.holds_frames() && p.buf.queued() > 1)
    };
    let step = sc.duration / 5000;
    let mut t = 0;
    while !backlog(&sim) {
        t += step;
        assert!(
            t < sc.duration,
            "no host port ever held a backlog of frames"
        );
        sim.run_until(t);
    }
    sim.attach_trace(Box::new(&mut sink));
    assert!(sim.net.ports.iter().all(|p| !p.buf.holds_frames()));
    sim.run();
    sim.finish_trace(sc.duration).expect("trace");
    let r = atmsim::RunResult::collect(sim, &sc, 0.0);
    assert_eq!(fingerprint(&plain), fingerprint(&r));
    assert!(sink.rows(Kind::Queue).count() > 0);
}

#[test]
fn a_trace_attached_mid_run_over_lines_holding_runs_changes_nothing() {
    // Issue 14: with the lines of the frame-holding ports keeping runs, a trace attached
    // while runs are on a line turns those lines' runs off; the runs already on them
    // arrive by their own events, and the run ends with the results of a run without runs
    // and without a trace.
    let text = support::small_toml().replace("delay = \"5 us\"", "delay = \"2 ms\"");
    let plain = support::run(&text);
    let with = format!("{text}\n[trace]\nevents = [\"queue\"]\n");
    let sc = atmsim::scenario::load_toml(&with).unwrap_or_else(|e| panic!("{e}"));
    let mut sink = MemorySink::default();
    let mut sim = atmsim::sim::Sim::new(&sc);
    sim.net.set_line_runs(true);
    let runs_on_a_line =
        |sim: &atmsim::sim::Sim| sim.net.ports.iter().any(|p| p.line.slots() < p.line.len());
    let step = sc.duration / 5000;
    let mut t = 0;
    while !runs_on_a_line(&sim) {
        t += step;
        assert!(t < sc.duration, "no line ever held a run");
        sim.run_until(t);
    }
    sim.attach_trace(Box::new(&mut sink));
    assert!(sim.net.ports.iter().all(|p| !p.line_runs));
    assert!(runs_on_a_line(&sim));
    sim.run();
    sim.finish_trace(sc.duration).expect("trace");
    let r = atmsim::RunResult::collect(sim, &sc, 0.0);
    assert_eq!(fingerprint(&plain), fingerprint(&r));
}
