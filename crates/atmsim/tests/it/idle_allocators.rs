//! A port whose cells never ask its allocator for feedback has none (issue 14,
//! `network::asks_no_feedback`): the ports that carry only the backward RM cells of
//! one-way cell-level connections, whose feedback is the forward ports'. Every scenario
//! gives the same results as with the configured allocator at every port; only the
//! `events` count of the allocators with averaging intervals (ERICA's, GW's) moves, their
//! intervals at those ports no longer being events.

use crate::send_ahead::{assert_same, cell_sources, results, scenarios};
use atmsim::allocator::RateAllocator;
use atmsim::network::Network;
use atmsim::sim::Sim;

/// The results of `text` without its event counts, and its event count, with no allocator
/// at the ports that carry only backward RM cells (`spare`) or the configured one at
/// every port.
fn run(text: &str, spare: bool) -> (String, u64) {
    let sc = atmsim::scenario::load_toml(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let net = match spare {
        true => Network::build(&sc),
        false => Network::build_with_every_allocator(&sc),
    };
    let mut sim = Sim::with_network(&sc, net);
    sim.run();
    results(sim, &sc)
}

#[test]
fn ports_without_an_allocator_change_only_the_events_count() {
    let (mut fewer, mut total) = (0, 0);
    for text in scenarios() {
        let (spared, events_spared) = run(&text, true);
        let (every, events_every) = run(&text, false);
        assert_same(&spared, &every, &text);
        assert!(events_spared <= events_every, "{text}");
        fewer += u64::from(events_spared < events_every);
        total += 1;
    }
    // Not a test that cannot fail: the ERICA and GW ports toward the sources did keep
    // averaging intervals.
    assert!(
        fewer >= 4,
        "only {fewer} of {total} scenarios had fewer events"
    );
}

#[test]
fn only_ports_of_backward_rm_cells_alone_have_no_allocator() {
    let text = cell_sources("{ kind = \"erica\" }");
    let sc = atmsim::scenario::load_toml(&text).unwrap();
    let (net, every) = (
        Network::build(&sc),
        Network::build_with_every_allocator(&sc),
    );
    let used = sc.used_ports();
    let spared: Vec<String> = (0..sc.ports.len())
        .filter(|&p| used[p] && every.alloc(p).is_active() && !net.alloc(p).is_active())
        .map(|p| sc.port_name(p).to_string())
        .collect();
    // The switch ports toward the one-way connections' sources (`sw1->greedy_s`, ...),
    // but not toward request/response's (both directions send), nor the trunk back
    // (`sw2->sw1`: request/response's responses), nor toward the shared host (its
    // connections are one-way: spared too).
    let want = [
        "sw1->capped_s",
        "sw1->faster_than_its_line_s",
        "sw1->greedy_s",
        "sw1->line_rate_cbr_s",
        "sw1->no_delay_s",
        "sw1->no_delay_too_s",
        "sw1->on_off_s",
        "sw1->sessions_s",
        "sw1->shared_s",
    ];
    let mut spared = spared;
    spared.sort();
    assert_eq!(spared, want);
}
