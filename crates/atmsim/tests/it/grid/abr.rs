//! ABR grid: rate allocator x topology, mostly greedy sources, TM 4.0 source defaults,
//! 4000-cell tail-drop switch buffers, short runs (the allocators' transients, not their
//! steady states). The allocators take their built-in defaults where they have them, so
//! the snapshots also pin those defaults.

use super::{play, registered_tables, table};
use crate::support::scenario::Net;
use crate::support::snapshot;

/// Keys an allocator needs beyond its built-in defaults, by registered name (EFCI marking has
/// no default threshold).
const REQUIRED_KEYS: [(&str, &str); 1] = [("efci", ", threshold = \"50 cells\"")];

/// Rate allocators at every switch port: every allocator of the registry with its defaults
/// (and [`REQUIRED_KEYS`]).
pub(crate) fn allocators() -> Vec<(&'static str, String)> {
    registered_tables(atmsim::allocator::ALLOCATORS, &REQUIRED_KEYS)
}

/// A topology: the scenario text for an allocator table.
type Build = fn(&str) -> String;

/// Topologies: name and builder (the look-ahead and send-ahead tests run them all too).
pub(crate) const TOPOLOGIES: [(&str, Build); 5] = [
    ("two_sources", two_sources),
    ("bursty", bursty),
    ("parking_lot", parking_lot),
    ("two_bottlenecks", two_bottlenecks),
    ("tcp_over_abr", tcp_over_abr),
];

const LAN: &str = "length = \"1 km\"";
const GREEDY: &str = "service = \"abr\"\ntraffic = { kind = \"persistent\" }";

fn net(name: &str, allocator: &str, duration: &str) -> Net {
    Net::new(
        name,
        3,
        &format!("duration = \"{duration}\"\nsample_interval = \"1 ms\""),
        &format!("switch_buffer = \"4000 cells\"\nallocator = {allocator}"),
    )
}

/// Two greedy ABR sources sharing sw1 -> sw2 (LAN).
pub(crate) fn two_sources(allocator: &str) -> String {
    net("grid abr two sources", allocator, "40 ms")
        .switches(&["sw1", "sw2"])
        .link("sw1", "sw2", LAN)
        .connection("c1", "sw1", "sw2", LAN, GREEDY)
        .connection("c2", "sw1", "sw2", LAN, GREEDY)
        .text()
}

/// One greedy ABR source and two bursty ones (request/response, both directions ABR)
/// sharing sw1 -> sw2: the case modified ERICA's bidirectional counting and immediate
/// fair share are for (seed 003 4.4).
pub(crate) fn bursty(allocator: &str) -> String {
    let rr = "service = \"abr\"\ntraffic = { kind = \"request_response\", request = \"16 cells\", \
              response = \"256 cells\", think_time = \"2 ms\" }";
    net("grid abr bursty", allocator, "40 ms")
        .switches(&["sw1", "sw2"])
        .link("sw1", "sw2", LAN)
        .connection("c1", "sw1", "sw2", LAN, GREEDY)
        .connection("c2", "sw1", "sw2", LAN, rr)
        .connection("c3", "sw1", "sw2", LAN, rr)
        .text()
}

/// A parking lot of four switches and 1 ms links: c1 crosses all three links, c2 the
/// last two, c3 the last one, c4 (from 20 ms) only the first. Max-min: a third of the
/// last link for c1, c2, c3; the rest of the first link for c4.
pub(crate) fn parking_lot(allocator: &str) -> String {
    let hop = "delay = \"1 ms\"";
    net("grid abr parking lot", allocator, "60 ms")
        .switches(&["sw1", "sw2", "sw3", "sw4"])
        .link("sw1", "sw2", hop)
        .link("sw2", "sw3", hop)
        .link("sw3", "sw4", hop)
        .connection("c1", "sw1", "sw4", LAN, GREEDY)
        .connection("c2", "sw2", "sw4", LAN, GREEDY)
        .connection("c3", "sw3", "sw4", LAN, GREEDY)
        .connection(
            "c4",
            "sw1",
            "sw2",
            LAN,
            &format!("{GREEDY}\nstart = \"20 ms\""),
        )
        .text()
}

/// Two bottlenecks in a row: sw1 -> sw2 at the link rate, sw2 -> sw3 at 50 Mbps. c1
/// crosses both and is held by the second (upstream of it, sw1 -> sw2 must give its
/// unused share to c2 and c3); c4 shares only the second.
pub(crate) fn two_bottlenecks(allocator: &str) -> String {
    net("grid abr two bottlenecks", allocator, "40 ms")
        .switches(&["sw1", "sw2", "sw3"])
        .link("sw1", "sw2", LAN)
        .link("sw2", "sw3", "length = \"1 km\"\nrate = \"50 Mbps\"")
        .connection("c1", "sw1", "sw3", LAN, GREEDY)
        .connection("c2", "sw1", "sw2", LAN, GREEDY)
        .connection("c3", "sw1", "sw2", LAN, GREEDY)
        .connection("c4", "sw2", "sw3", LAN, GREEDY)
        .text()
}

/// Three bulk TCP transfers over ABR sharing a 10 km sw1 -> sw2, the third from 20 ms.
pub(crate) fn tcp_over_abr(allocator: &str) -> String {
    let tcp = "service = \"abr\"\ntraffic = { kind = \"tcp\" }";
    net("grid abr tcp", allocator, "60 ms")
        .switches(&["sw1", "sw2"])
        .link("sw1", "sw2", "length = \"10 km\"")
        .connection("c1", "sw1", "sw2", LAN, tcp)
        .connection("c2", "sw1", "sw2", LAN, tcp)
        .connection(
            "c3",
            "sw1",
            "sw2",
            LAN,
            &format!("{tcp}\nstart = \"20 ms\""),
        )
        .text()
}

#[test]
fn abr_allocator_x_topology_matches_snapshots() {
    let mut cells = Vec::new();
    let mut rows = Vec::new();
    for (tname, build) in TOPOLOGIES {
        let mut entries = Vec::new();
        for (aname, allocator) in &allocators() {
            let cell = format!("{tname}-{aname}");
            let text = build(allocator);
            let outcome = play(&cell, &text);
            entries.push(
                outcome.entry(|r| (r.summary.total_goodput_bps / 1e6, r.summary.fairness_maxmin)),
            );
            cells.push((cell.clone(), outcome.snapshot("abr", &cell)));
        }
        rows.push((tname.to_string(), entries));
    }
    let names: Vec<&str> = allocators().iter().map(|a| a.0).collect();
    let title =
        "ABR grid: total goodput (Mbit/s)/max-min fairness; rows topology, columns allocator";
    cells.push(("_table".into(), table(title, "topology", &names, &rows)));
    snapshot::assert_grid("grid::abr", "grid_abr", &cells);
}
