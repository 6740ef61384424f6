//! The port's layout and the line timings its ports share (issue 14).

use super::*;

/// Three host pairs through one switch: links of 1 ms at the default rate from `s1`, `s2`
/// and toward `d1`; toward `d2` 2 ms at 1.5 Mbit/s; from `s3` 2 ms at the default rate and
/// toward `d3` 1 ms at 1.5 Mbit/s (a timing is one rate and one delay, neither alone).
fn two_pairs(sample_interval: &str) -> Scenario {
    let text = format!(
        r#"
name = "two pairs"
[measurement]
duration = "10 ms"
sample_interval = "{sample_interval}"
[[node]]
name = "s1"
kind = "host"
[[node]]
name = "s2"
kind = "host"
[[node]]
name = "sw"
kind = "switch"
[[node]]
name = "d1"
kind = "host"
[[node]]
name = "d2"
kind = "host"
[[node]]
name = "s3"
kind = "host"
[[node]]
name = "d3"
kind = "host"
[[link]]
between = ["s1", "sw"]
delay = "1 ms"
[[link]]
between = ["s2", "sw"]
delay = "1 ms"
[[link]]
between = ["sw", "d1"]
delay = "1 ms"
[[link]]
between = ["sw", "d2"]
delay = "2 ms"
rate = "1.5 Mbps"
[[link]]
between = ["s3", "sw"]
delay = "2 ms"
[[link]]
between = ["sw", "d3"]
delay = "1 ms"
rate = "1.5 Mbps"
[[connection]]
name = "a"
from = "s1"
to = "d1"
service = "cbr"
traffic = {{ kind = "cbr", rate = "1 Mbps" }}
[[connection]]
name = "b"
from = "s2"
to = "d2"
service = "cbr"
traffic = {{ kind = "cbr", rate = "1 Mbps" }}
"#
    );
    crate::scenario::load_toml(&text).expect("valid scenario")
}

#[test]
fn a_port_is_three_whole_cache_lines() {
    // A cell's admission and transmission touch most of its port: on line bounds, 192
    // bytes are three lines, where 312 bytes at any offset straddled five or six. The
    // transmitter, the allocator and the delay line are the first line; the buffer's
    // two lines follow (its own layout: `port::tests::buffer_lines`).
    use std::mem::offset_of;
    assert_eq!(std::mem::size_of::<Port>(), 192);
    assert_eq!(std::mem::align_of::<Port>(), 64);
    for end in [
        offset_of!(Port, alloc) + std::mem::size_of::<AnyAllocator>(),
        offset_of!(Port, busy_until) + 8,
        offset_of!(Port, clock_acc) + 8,
        offset_of!(Port, tx_pending) + 1,
        offset_of!(Port, line) + std::mem::size_of::<DelayLine>(),
    ] {
        assert!(end <= 64, "a transmitter field ends at byte {end}");
    }
    assert_eq!(offset_of!(Port, buf), 64);
}

#[test]
fn a_sources_per_cell_state_is_two_whole_lines() {
    // A transmit opportunity of a cell-level or ABR source reads and writes the first line
    // of its direction and the first line of its ABR source, the second line (issue 14).
    use crate::abr::source::{AbrSource, SourceCounters};
    use std::mem::offset_of;
    assert_eq!(std::mem::align_of::<CellConn>(), 64);
    assert_eq!(offset_of!(CellConn, dirs), 0);
    assert_eq!(offset_of!(CellDir, abr), 64);
    for end in [
        offset_of!(CellDir, send_at) + 8,
        offset_of!(CellDir, backlog) + 8,
        offset_of!(CellDir, acr_since) + 8,
        offset_of!(CellDir, acr_area) + 8,
        offset_of!(CellDir, data_sent) + 8,
        offset_of!(CellDir, frame_no) + 4,
        offset_of!(CellDir, blocked) + 1,
        offset_of!(CellDir, stopped) + 1,
        offset_of!(CellDir, tagged) + 1,
    ] {
        assert!(
            end <= 64,
            "a send-path field of the direction ends at byte {end}"
        );
    }
    let data_sent = offset_of!(AbrSource, counters) + offset_of!(SourceCounters, data_sent);
    assert_eq!(
        data_sent + 8,
        64,
        "the source's data-cell count closes its first line"
    );
}

#[test]
fn a_flow_is_one_whole_cache_line() {
    // A cell sent, arriving, dropped or delivered touches its flow's counts, route and
    // reassembly: one line (issue 14; 88 bytes at any offset straddled two).
    assert_eq!(std::mem::size_of::<crate::network::Flow>(), 64);
    assert_eq!(std::mem::align_of::<crate::network::Flow>(), 64);
}

#[test]
fn ports_of_one_rate_and_delay_share_one_timing() {
    let sc = two_pairs("1 ms");
    let net = Network::build(&sc);
    // 1 ms at 155.52 Mbit/s (six ports), 2 ms at 1.5 Mbit/s, 2 ms at 155.52 Mbit/s and 1 ms
    // at 1.5 Mbit/s (two each).
    assert_eq!(net.timings.len(), 4);
    for (p, cfg) in sc.ports.iter().enumerate() {
        let t = net.timing(p);
        assert_eq!(t.prop, cfg.settings.prop);
        assert_eq!(t.unit, UnitTime::new(cfg.settings.rate_bps, CELL_BITS));
    }
    let shared = (0..sc.ports.len())
        .filter(|&p| net.ports[p].timing == net.ports[0].timing)
        .count();
    assert_eq!(shared, 6);
}

#[test]
fn rm_and_vbr_counts_are_kept_only_for_samples() {
    let mut rm = Cell::data(0, 0, false);
    rm.flags |= crate::cell::flag::RM;
    let data = Cell::data(0, 0, false);
    let mut vbr = Cell::data(0, 0, false);
    vbr.flags |= crate::cell::ServiceClass::Vbr.flag_bits();

    let sampled = two_pairs("1 ms");
    let mut net = Network::build(&sampled);
    assert_eq!(net.special_sent.len(), net.ports.len());
    net.count_special_sent(3, &rm);
    net.count_special_sent(3, &data);
    net.count_special_sent(3, &vbr);
    net.count_special_sent(3, &vbr);
    assert_eq!((net.special_sent[3].rm, net.special_sent[3].vbr), (1, 2));
    assert_eq!((net.special_sent[2].rm, net.special_sent[2].vbr), (0, 0));

    let unsampled = two_pairs("0 s");
    let mut net = Network::build(&unsampled);
    assert!(net.special_sent.is_empty());
    net.count_special_sent(3, &rm); // nothing to count into, and no panic
}

/// [`LineTiming::in_flight_after`] never says more than a burst of `k` cells sent back to
/// back puts on the line at once (its ring reserves that much: more would be memory the
/// doubling never takes), and at a long line it is the whole burst.
#[test]
fn in_flight_after_is_a_floor_of_a_back_to_back_burst() {
    use atmsim_kernel::UnitTime;
    use std::collections::VecDeque;
    let ms = 1_000_000_000;
    for (rate, prop) in [
        (155_520_000, ms),
        (155_520_000, 0),
        (155_520_000, 1),
        (155_520_000, 2_726_337),
        (155_520_000, 2_726_338),
        (155_520_000, 10 * 2_726_337 + 5),
        (1_000_000_000, 424_000),
        (1_500_000, 2 * ms),
        (424, 5 * ms),
    ] {
        let line = LineTiming {
            unit: UnitTime::new(rate, crate::cell::CELL_BITS),
            prop,
        };
        for k in [1u32, 2, 3, 11, 12, 100, 367, 400] {
            let (mut acc, mut now, mut on_line) = (0, 0, VecDeque::new());
            for _ in 0..k {
                while on_line.front().is_some_and(|&a| a <= now) {
                    on_line.pop_front();
                }
                let d = line.unit.next_duration(&mut acc);
                on_line.push_back(now + d + prop);
                now += d;
            }
            let floor = line.in_flight_after(k);
            assert!(
                (1..=k).contains(&floor) && floor as usize <= on_line.len(),
                "rate {rate}, prop {prop}, k {k}: {floor} > {} on the line",
                on_line.len()
            );
        }
    }
    let oc3_ms = LineTiming {
        unit: UnitTime::new(155_520_000, crate::cell::CELL_BITS),
        prop: ms,
    };
    assert_eq!(oc3_ms.in_flight_after(12), 12, "a segment fits a 1 ms line");
    assert_eq!(oc3_ms.in_flight_after(10_000), 366, "1 ms / 2.73 us");
}
