//! The port's layout and the line timings its ports share (issue 14).

use super::*;

/// Two host pairs through one switch: four host links of 1 ms at the default rate, and one
/// slower link of 2 ms toward `d2`.
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
fn a_port_is_four_whole_cache_lines() {
    // A cell's admission and transmission touch most of its port: on line bounds, 256
    // bytes are four lines, where 312 bytes at any offset straddled five or six.
    assert_eq!(std::mem::size_of::<Port>(), 256);
    assert_eq!(std::mem::align_of::<Port>(), 64);
}

#[test]
fn ports_of_one_rate_and_delay_share_one_timing() {
    let sc = two_pairs("1 ms");
    let net = Network::build(&sc);
    // 1 ms at 155.52 Mbit/s (eight ports), and 2 ms at 1.5 Mbit/s (two).
    assert_eq!(net.timings.len(), 2);
    for (p, cfg) in sc.ports.iter().enumerate() {
        let t = net.timing(p);
        assert_eq!(t.prop, cfg.settings.prop);
        assert_eq!(t.unit, UnitTime::new(cfg.settings.rate_bps, CELL_BITS));
    }
    let slow = net.timings.iter().filter(|t| t.unit.rate_bps() == 1_500_000).count();
    assert_eq!(slow, 1);
}

#[test]
fn rm_and_vbr_counts_are_kept_only_for_samples() {
    let mut rm = Cell::data(0, 0, false);
    rm.flags |= crate::cell::flag::RM;
    let data = Cell::data(0, 0, false);

    let sampled = two_pairs("1 ms");
    let mut net = Network::build(&sampled);
    assert_eq!(net.special_sent.len(), net.ports.len());
    net.count_special_sent(3, &rm);
    net.count_special_sent(3, &data);
    assert_eq!((net.special_sent[3].rm, net.special_sent[3].vbr), (1, 0));

    let unsampled = two_pairs("0 s");
    let mut net = Network::build(&unsampled);
    assert!(net.special_sent.is_empty());
    net.count_special_sent(3, &rm); // nothing to count into, and no panic
}
