//! UBR grid: drop policy x switch buffer x TCP congestion control (seed 001's
//! dimensions), five greedy TCP sources sharing sw1 -> sw2 on the N-source topology.
//! Threshold policies need a finite buffer: with `unlimited` those cells are refused, and
//! the snapshot keeps the error message.

use super::{play, registered_tables, table, Outcome};
use crate::support::scenario::Net;
use crate::support::snapshot;

/// The keys a drop policy takes in this grid beyond `kind`, by registered name: the
/// thresholds of the invariants tests.
const POLICY_KEYS: [(&str, &str); 3] = [
    ("epd", ", threshold = \"80 %\""),
    ("selective_drop", ", threshold = \"90 %\", z = 0.8"),
    ("fba", ", threshold = \"50 %\", z = 0.8"),
];

/// Drop policies: every policy of the registry, with [`POLICY_KEYS`].
fn policies() -> Vec<(&'static str, String)> {
    registered_tables(atmsim::drop_policy::POLICIES, &POLICY_KEYS)
}

/// Switch buffers (every switch port).
const BUFFERS: [(&str, &str); 3] = [
    ("1000", "1000 cells"),
    ("3000", "3000 cells"),
    ("unlimited", "unlimited"),
];

/// TCP congestion control of every source: every algorithm of the registry, in its order.
fn congestion_controls() -> impl Iterator<Item = &'static str> {
    atmsim::tcp::congestion::CONGESTION_CONTROLS
        .iter()
        .map(|r| r.name)
}

/// Five TCP sources, 1 km access links, a 200 km (1 ms) shared link sw1 -> sw2, 0.4 s.
fn scenario(policy: &str, buffer: &str, congestion: &str) -> String {
    let defaults = format!(
        "switch_buffer = \"{buffer}\"\npolicy = {policy}\ntcp = {{ congestion = \"{congestion}\" }}"
    );
    let mut net = Net::new(
        "grid ubr",
        1,
        "duration = \"0.4 s\"\nsample_interval = \"10 ms\"",
        &defaults,
    )
    .switches(&["sw1", "sw2"])
    .link("sw1", "sw2", "length = \"200 km\"");
    for i in 1..=5 {
        net = net.connection(
            &format!("c{i}"),
            "sw1",
            "sw2",
            "length = \"1 km\"",
            "traffic = { kind = \"tcp\" }",
        );
    }
    net.text()
}

#[test]
fn ubr_policy_x_buffer_x_congestion_matches_snapshots() {
    let mut cells = Vec::new();
    let mut rows = Vec::new();
    for (bname, buffer) in BUFFERS {
        for congestion in congestion_controls() {
            let mut entries = Vec::new();
            for (pname, policy) in &policies() {
                let cell = format!("{pname}-{bname}-{congestion}");
                let text = scenario(policy, buffer, congestion);
                let outcome = play(&cell, &text);
                entries.push(outcome.entry(|r| (r.summary.efficiency, Some(r.summary.fairness))));
                cells.push((cell.clone(), outcome.snapshot("ubr", &cell)));
            }
            rows.push((format!("{bname} {congestion}"), entries));
        }
    }
    let names: Vec<&str> = policies().iter().map(|p| p.0).collect();
    let title = "UBR grid: efficiency/fairness; rows buffer (cells) and TCP, columns drop policy";
    cells.push(("_table".into(), table(title, "buffer tcp", &names, &rows)));
    snapshot::assert_grid("grid::ubr", "grid_ubr", &cells);
}

/// The grid is not vacuous: frame policies discard whole frames, tail drop does not, and
/// the unlimited buffer drops nothing.
#[test]
fn ubr_grid_cells_differ_as_the_policies_say() {
    let frame_drops = |policy: &str, buffer: &str| {
        let Outcome::Ran(r) = play("check", &scenario(policy, buffer, "reno")) else {
            panic!("{policy} {buffer} refused")
        };
        let p = crate::support::port(&r, "sw1->sw2");
        (
            p.dropped,
            p.drops["frame_discard"] + p.drops["partial_discard"],
        )
    };
    let policy = |name: &str| {
        let all = policies();
        all.into_iter().find(|p| p.0 == name).expect("registered").1
    };
    let (dropped, whole) = frame_drops(&policy("tail_drop"), "1000 cells");
    assert!(dropped > 0 && whole == 0, "tail drop: {dropped} {whole}");
    let (dropped, whole) = frame_drops(&policy("epd"), "1000 cells");
    assert!(dropped > 0 && whole > 0, "epd: {dropped} {whole}");
    assert_eq!(frame_drops(&policy("tail_drop"), "unlimited").0, 0);
}
