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
fn a_port_is_two_whole_cache_lines() {
    // A cell's admission and transmission touch its whole port: 96 bytes on 32-byte
    // bounds always span two lines (a port starts at byte 0 or 32 of a line), where 312
    // bytes at any offset straddled five or six. The transmitter and the delay line come
    // first, the buffer last (its own layout: `port::tests::buffer_lines`); the allocator
    // is named, not held.
    use std::mem::{offset_of, size_of};
    assert_eq!(size_of::<Port>(), 96);
    assert_eq!(std::mem::align_of::<Port>(), 32);
    for start in [0, 32] {
        let last_byte = start + size_of::<Port>() - 1;
        assert_eq!(last_byte / 64, 1, "a port at byte {start} of a line");
    }
    assert_eq!(offset_of!(Port, busy_until), 0);
    assert_eq!(offset_of!(Port, line), 32);
    assert_eq!(offset_of!(Port, buf), 56);
}

#[test]
fn a_sources_per_cell_state_is_two_whole_lines() {
    // A transmit opportunity of a cell-level or ABR source reads and writes the first line
    // of its direction and the first line of its ABR source, the second line (issue 14).
    use crate::abr::source::{AbrSource, SourceCounters};
    use std::mem::offset_of;
    assert_eq!(std::mem::align_of::<CellConn>(), 64);
    assert_eq!(offset_of!(CellConn, fwd), 0);
    assert_eq!(offset_of!(CellDir, tx), 64);
    for end in [
        offset_of!(CellDir, send_at) + 8,
        offset_of!(CellDir, backlog) + 8,
        offset_of!(CellDir, acr_since) + 8,
        offset_of!(CellDir, acr_area) + 8,
        offset_of!(CellDir, send_gen) + 4,
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
    net.count_special_sent(3, Network::special(&rm));
    net.count_special_sent(3, Network::special(&data));
    net.count_special_sent(3, Network::special(&vbr));
    net.count_special_sent(3, Network::special(&vbr));
    assert_eq!((net.special_sent[3].rm, net.special_sent[3].vbr), (1, 2));
    assert_eq!((net.special_sent[2].rm, net.special_sent[2].vbr), (0, 0));

    let unsampled = two_pairs("0 s");
    let mut net = Network::build(&unsampled);
    assert!(net.special_sent.is_empty());
    net.count_special_sent(3, Network::special(&rm)); // nothing to count into, and no panic
}

/// One TCP connection over host links of `delay`.
fn one_tcp_pair(delay: &str) -> Scenario {
    let text = one_tcp_pair_text(delay, "duration = \"10 ms\"", "ubr");
    crate::scenario::load_toml(&text).expect("valid scenario")
}

/// The scenario of [`one_tcp_pair`] with the `[measurement]` keys `measurement` and the
/// connection's `service`.
fn one_tcp_pair_text(delay: &str, measurement: &str, service: &str) -> String {
    format!(
        r#"
[measurement]
{measurement}
[[node]]
name = "s"
kind = "host"
[[node]]
name = "sw"
kind = "switch"
[[node]]
name = "d"
kind = "host"
[[link]]
between = ["s", "sw"]
delay = "{delay}"
[[link]]
between = ["sw", "d"]
delay = "{delay}"
[[connection]]
name = "c"
from = "s"
to = "d"
service = "{service}"
traffic = {{ kind = "tcp" }}
"#
    )
}

#[test]
fn lines_keep_runs_where_they_could_outgrow_the_caches() {
    // The two host ports hold frames (the sender's data, the receiver's ACKs). Lines of
    // 1 ms at 155.52 Mbit/s could hold 367 cells each, 17.6 KB together: runs stay off. Lines of
    // 1 s could hold 366 800 cells each, 17.6 MB together: on, at the host ports only.
    let (short_sc, long_sc) = (one_tcp_pair("1 ms"), one_tcp_pair("1 s"));
    let short = Network::build(&short_sc);
    let held: Vec<usize> = (0..short.ports.len())
        .filter(|&p| short.ports[p].buf.holds_frames())
        .collect();
    assert_eq!(held.len(), 2);
    assert_eq!(line_bytes_at_most(&short_sc, held[0]), 367 * 24);
    assert!(short.ports.iter().all(|p| !p.line_runs));
    let long = Network::build(&long_sc);
    let on: Vec<bool> = long.ports.iter().map(|p| p.line_runs).collect();
    let hosts: Vec<bool> = long.ports.iter().map(|p| !p.is_switch).collect();
    assert_eq!(on, hosts);
    assert_eq!(hosts.iter().filter(|&&h| h).count(), 2);
    let could_hold: u64 = held.iter().map(|&p| line_bytes_at_most(&long_sc, p)).sum();
    assert!(could_hold >= RUNS_FROM_BYTES as u64);
}

/// Two greedy ABR connections, each from its own host, over host links of 1 s, their
/// sources starting at `icr` (None: TM 4.0's default, PCR = the line rate).
fn two_greedy_abr_pairs(icr: Option<&str>) -> Scenario {
    two_greedy_abr_pairs_with(icr, r#"{ kind = "persistent" }"#)
}

/// [`two_greedy_abr_pairs`] with the connections' `traffic`.
fn two_greedy_abr_pairs_with(icr: Option<&str>, traffic: &str) -> Scenario {
    let abr = icr.map_or(String::new(), |r| {
        format!("[defaults.abr]\nicr = \"{r}\"\n")
    });
    let mut text = format!("[measurement]\nduration = \"10 ms\"\n{abr}");
    text += "[[node]]\nname = \"sw\"\nkind = \"switch\"\n";
    for i in 0..2 {
        text += &format!(
            r#"
[[node]]
name = "s{i}"
kind = "host"
[[node]]
name = "d{i}"
kind = "host"
[[link]]
between = ["s{i}", "sw"]
delay = "1 s"
[[link]]
between = ["sw", "d{i}"]
delay = "1 s"
[[connection]]
name = "c{i}"
from = "s{i}"
to = "d{i}"
service = "abr"
traffic = {traffic}
"#
        );
    }
    crate::scenario::load_toml(&text).expect("valid scenario")
}

#[test]
fn each_connection_finds_its_own_end_systems_in_a_mixed_network() {
    // Issue 14, memory per VC: TCP connections keep boxes and cell-level connections lie in
    // one table (`end_systems`); interleaved, each connection still finds its own ends, and
    // the cell-level ones lie on cache-line bounds.
    let mut text = String::from("[measurement]\nduration = \"1 ms\"\n");
    text += "[[node]]\nname = \"sw\"\nkind = \"switch\"\n";
    let kinds = ["tcp", "cbr", "tcp", "tcp", "cbr", "cbr"];
    for (i, kind) in kinds.iter().enumerate() {
        let traffic = match *kind {
            "tcp" => r#"{ kind = "tcp" }"#,
            _ => r#"{ kind = "cbr", rate = "1 Mbps" }"#,
        };
        text += &format!(
            "[[node]]\nname = \"s{i}\"\nkind = \"host\"\n[[node]]\nname = \"d{i}\"\nkind = \"host\"\n\
             [[link]]\nbetween = [\"s{i}\", \"sw\"]\n[[link]]\nbetween = [\"sw\", \"d{i}\"]\n\
             [[connection]]\nname = \"c{i}\"\nfrom = \"s{i}\"\nto = \"d{i}\"\ntraffic = {traffic}\n"
        );
    }
    let s = crate::scenario::load_toml(&text).expect("valid scenario");
    let mut net = Network::build(&s);
    assert_eq!(net.conns.len(), kinds.len());
    let mut phases = Vec::new();
    for (c, kind) in kinds.iter().enumerate() {
        let ends = net.conns.get(c);
        assert_eq!(ends.tcp_ref().is_some(), *kind == "tcp", "connection {c}");
        assert_eq!(ends.cells().is_some(), *kind == "cbr", "connection {c}");
        if *kind == "tcp" {
            // Each TCP connection its own: its tick phase is drawn from its own stream.
            let read = ends.tcp_ref().expect("tcp") as *const TcpConn as usize;
            let t = net.conns.tcp(c);
            assert_eq!(t as *const TcpConn as usize, read);
            phases.push(t.tick_phase);
        } else {
            let cc = net.conns.cells_mut(c) as *const CellConn as usize;
            assert_eq!(cc % 64, 0, "connection {c} on a cache-line bound");
            let fwd = net.conns.dir_mut(c, 0) as *const CellDir as usize;
            assert_eq!(fwd, cc, "connection {c}'s forward direction");
        }
    }
    phases.sort_unstable();
    phases.dedup();
    assert_eq!(phases.len(), 3, "three TCP connections, three ends");
}

#[test]
fn only_a_connection_that_sends_back_has_a_reverse_direction() {
    // Issue 14: a one-way connection's reverse flow carries only the backward RM cells of
    // its forward direction, so it keeps no direction state of its own (280 bytes).
    let one_way = two_greedy_abr_pairs(None);
    let rr = r#"{ kind = "request_response", request = "16 cells", response = "128 cells" }"#;
    let net = Network::build(&one_way);
    for conn in net.conns.iter() {
        let cc = conn.cells().expect("cell-level");
        assert!(cc.rev.is_none() && conn.dir(1).is_none());
        assert!(conn.dir(0).and_then(CellDir::abr).is_some());
    }
    let two_way = two_greedy_abr_pairs_with(None, rr);
    let net = Network::build(&two_way);
    for conn in net.conns.iter() {
        let rev = conn
            .dir(1)
            .expect("a request/response connection's reverse direction");
        assert!(rev.abr().is_some(), "the server's ABR source");
    }
}

#[test]
fn a_line_rate_transmitters_state_is_in_the_directions_second_line() {
    // A non-ABR transmitter's cell reads and writes its gap, its last cell's time and its
    // shaper: beside the ABR source's pointer, in the line an ABR source's per-cell state
    // takes, within the ABR source's 112 bytes.
    let dir = CellDir::at_line_rate(1e5, None, 1);
    let Transmitter::Line(line) = &dir.tx else {
        panic!("a line-rate transmitter")
    };
    let base = std::ptr::from_ref(&dir) as usize;
    for (field, end) in [
        (std::ptr::from_ref(&line.gap) as usize, 8),
        (std::ptr::from_ref(&line.last_send) as usize, 8),
        (std::ptr::from_ref(&line.shaper) as usize, 8),
    ] {
        let (start, end) = (field - base, field - base + end);
        assert!(
            (64..128).contains(&start) && end <= 128,
            "at bytes {start}..{end}"
        );
    }
    assert_eq!(
        std::mem::size_of::<Transmitter>(),
        std::mem::size_of::<crate::abr::AbrSource>()
    );
}

#[test]
fn a_cell_level_connection_is_four_lines() {
    // Issue 14: since the thirty-fourth session the source queue of TCP over ABR (32
    // bytes) is boxed in the directions that have one, and the running source's kinds
    // above 16 bytes are boxed (the source 96 -> 24 bytes): 448 -> 320 bytes. Since the
    // fiftieth, the application's random stream is its kind's (sessions, video), a
    // line-rate transmitter's fields share the ABR source's place, and two counts nothing
    // read are gone: 320 -> 256 bytes.
    assert_eq!(std::mem::size_of::<CellDir>(), 208);
    assert_eq!(std::mem::size_of::<crate::traffic::AnyTraffic>(), 24);
    assert_eq!(std::mem::size_of::<CellConn>(), 256);
}

#[test]
fn erica_ports_of_the_same_settings_share_one_configuration() {
    // Issue 14: an `Erica` holds a pointer to its configuration (120 bytes), not a copy of
    // it, at every port.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/abr_two_sources.toml"
    ))
    .expect("the example");
    let sc = crate::scenario::load_toml(&text).expect("valid scenario");
    let net = Network::build(&sc);
    let cfgs: Vec<*const crate::allocator::EricaCfg> = (0..net.ports.len())
        .filter_map(|p| match net.alloc(p) {
            AnyAllocator::Erica(e) => Some(std::ptr::from_ref(e.cfg())),
            _ => None,
        })
        .collect();
    // The three switch ports the forward flows cross (the ports toward the sources, and
    // the trunk back, carry only backward RM cells: no allocator there).
    assert_eq!(cfgs.len(), 3, "{} ERICA ports", cfgs.len());
    assert!(cfgs.iter().all(|&c| std::ptr::eq(c, cfgs[0])));
    // The first VC's entry inline (32 bytes, and 16 for the others' slice) since the
    // thirty-third session: a port of one VC allocates nothing more (232 bytes); the load
    // average of `LoadAvg::Counts` boxed since the thirty-fourth (208 bytes, a heap block
    // of 224 instead of 240); the interval timer's record since the thirty-seventh (216
    // bytes, the same heap block of 224: glibc's block is the size plus 8, rounded up to 16);
    // the list of touched VCs, which only a port of several VCs keeps, behind a thin
    // pointer since the forty-eighth (200 bytes, a block of 208).
    assert!(std::mem::size_of::<crate::allocator::Erica>() <= 200);
}

#[test]
fn a_kvr_port_of_one_vc_allocates_nothing_beyond_its_record() {
    // Issue 14: two of a VC's switch ports are its own with one host pair per VC. Since the
    // thirty-fourth session their KVR record is 144 bytes (176 before, with a configuration
    // copy and an optional meter inline) and holds its one VC inline (two heap blocks
    // before: the VC table and the list of flows); since the forty-seventh 136 bytes, the
    // list of flows of a port of several VCs behind a thin pointer (a 144-byte heap block
    // instead of 160); since the forty-ninth 128 bytes, the VC table of a port of several
    // VCs behind a thin pointer too (the same 144-byte block).
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/abr_two_sources.toml"
    ))
    .expect("the example");
    let line = text
        .lines()
        .find(|l| l.starts_with("allocator = { kind = \"erica\""))
        .expect("the example's allocator");
    let text = text.replace(line, "allocator = { kind = \"kvr\" }");
    let sc = crate::scenario::load_toml(&text).expect("valid scenario");
    let net = Network::build(&sc);
    let heaps: Vec<(usize, usize)> = (0..net.ports.len())
        .filter_map(|p| match net.alloc(p) {
            AnyAllocator::Kvr(k) => Some((net.ports[p].buf.vcs_held(), k.heap_bytes())),
            _ => None,
        })
        .collect();
    assert!(heaps.iter().any(|&(vcs, _)| vcs == 1), "{heaps:?}");
    assert!(heaps.iter().any(|&(vcs, _)| vcs > 1), "{heaps:?}");
    for (vcs, heap) in heaps {
        if vcs == 1 {
            assert_eq!(heap, 0, "a KVR port of one VC");
        } else {
            // The entries and their header (the count beside them), and the flows' list.
            assert_eq!(heap, vcs * (16 + 4) + 24 + 24, "a KVR port of {vcs} VCs");
        }
    }
    assert_eq!(std::mem::size_of::<crate::allocator::Kvr>(), 128);
}

#[test]
fn lines_keep_runs_where_sources_start_at_the_line_rate() {
    // The four host lines could hold 35.2 MB. The sources starting at the line rate send
    // back to back: their two lines keep runs. The destinations' lines (backward RM cells
    // only) and the switch's do not; nor any line when the sources start below the line
    // rate.
    let net = Network::build(&two_greedy_abr_pairs(None));
    let sources: Vec<bool> = (0..net.ports.len())
        .map(|p| {
            !net.ports[p].is_switch
                && net
                    .conns
                    .iter()
                    .enumerate()
                    .any(|(c, _)| net.source_port(crate::cell::FlowId::forward(c)) == p)
        })
        .collect();
    let on: Vec<bool> = net.ports.iter().map(|p| p.line_runs).collect();
    assert_eq!(on, sources);
    assert_eq!(on.iter().filter(|&&x| x).count(), 2);
    let slow = Network::build(&two_greedy_abr_pairs(Some("100 Mbps")));
    assert!(slow.ports.iter().all(|p| !p.line_runs));
}

#[test]
#[should_panic(expected = "line runs are set before the port sends")]
fn line_runs_are_not_switched_under_a_sending_port() {
    let sc = one_tcp_pair("1 ms");
    let mut sim = crate::sim::Sim::new(&sc);
    sim.run_until(sc.duration / 2);
    sim.net.set_line_runs(true);
}

#[test]
fn a_peer_port_is_the_opposite_flows_port_leaving_the_same_node() {
    // A parking lot of three switches: connections over one, two and three of them, each
    // way (hosts a and d at sw1, c at sw2, b at sw3). The peer port, read from the mirrored route, is the one a search by node finds.
    let text = r#"
[measurement]
duration = "1 ms"
[[node]]
name = "a"
kind = "host"
[[node]]
name = "b"
kind = "host"
[[node]]
name = "c"
kind = "host"
[[node]]
name = "d"
kind = "host"
[[node]]
name = "sw1"
kind = "switch"
[[node]]
name = "sw2"
kind = "switch"
[[node]]
name = "sw3"
kind = "switch"
[[link]]
between = ["a", "sw1"]
[[link]]
between = ["sw1", "sw2"]
[[link]]
between = ["sw2", "sw3"]
[[link]]
between = ["sw3", "b"]
[[link]]
between = ["c", "sw2"]
[[link]]
between = ["sw1", "d"]
[[connection]]
name = "long"
from = "a"
to = "b"
service = "abr"
traffic = { kind = "persistent" }
[[connection]]
name = "back"
from = "b"
to = "a"
service = "abr"
traffic = { kind = "persistent" }
[[connection]]
name = "one switch"
from = "a"
to = "d"
traffic = { kind = "cbr", rate = "1 Mbps" }
[[connection]]
name = "two switches"
from = "c"
to = "d"
traffic = { kind = "cbr", rate = "1 Mbps" }
"#;
    let s = crate::scenario::load_toml(text).expect("valid scenario");
    let net = Network::build(&s);
    let node = |p: u32| s.ports.node(p as usize);
    let mut hops = 0;
    for f in 0..net.flows.len() {
        let flow = FlowId::from_index(f);
        let route = |g: FlowId| {
            let r = net.flow(g);
            &net.route_ports[r.route_start as usize..][..r.route_len as usize]
        };
        for (h, &p) in route(flow).iter().enumerate() {
            let searched = route(flow.opposite())
                .iter()
                .copied()
                .find(|&q| node(q) == node(p))
                .unwrap_or(NO_PORT);
            assert_eq!(net.peer_port(flow, h), searched, "flow {f} hop {h}");
            hops += 1;
        }
    }
    assert_eq!(hops, 2 * (4 + 4 + 2 + 3));
    // The scenario's paths, not a copy (issue 14).
    assert!(Arc::ptr_eq(&net.route_ports, &s.paths.shared_ids()));
}

#[test]
fn tcp_senders_of_the_same_timers_share_one_record_of_bounds() {
    // Issue 14: the tick and the RTO bounds were 40 bytes of every sender (344 bytes with
    // them shared; 304 since SACK's scoreboard and recovery state are boxed, forty-fourth
    // session: `a_tcp_connection_holds_no_sack_state_inline`; 280 since the RTT timing, the
    // application's limit and the exact estimator's first sample are flags and sentinels
    // beside their values, forty-sixth session: `a_tcp_sender_is_168_bytes`; 296 since the
    // out-of-order bits of a window up to 254 segments are in the receiver, forty-seventh
    // session: `a_tcp_connection_holds_its_out_of_order_bits`; 280 since the delivered
    // and goodput bytes are read from the receiver, forty-eighth session).
    assert!(std::mem::size_of::<TcpConn>() <= 280);
    let text = r#"
[measurement]
duration = "1 ms"
[[node]]
name = "s"
kind = "host"
[[node]]
name = "d"
kind = "host"
[[link]]
between = ["s", "d"]
[[connection]]
name = "a"
from = "s"
to = "d"
traffic = { kind = "tcp" }
[[connection]]
name = "b"
from = "d"
to = "s"
traffic = { kind = "tcp", tcp = { mss = "1024 B" } }
[[connection]]
name = "c"
from = "s"
to = "d"
traffic = { kind = "tcp", tcp = { rto_min = "1 s" } }
"#;
    let s = crate::scenario::load_toml(text).expect("valid scenario");
    let net = Network::build(&s);
    let bounds: Vec<_> = net
        .conns
        .iter()
        .map(|c| match c {
            EndsRef::Tcp(t) => t.snd.rto_bounds().clone(),
            EndsRef::Cells(_) => unreachable!("TCP connections"),
        })
        .collect();
    assert!(
        Arc::ptr_eq(&bounds[0], &bounds[1]),
        "another MSS, the same timers"
    );
    assert!(!Arc::ptr_eq(&bounds[0], &bounds[2]), "another minimum RTO");
    for (b, c) in bounds.iter().zip(&s.connections) {
        assert_eq!(**b, RtoBounds::of(c.tcp()));
    }
}

#[test]
fn a_tcp_connection_holds_no_sack_state_inline() {
    // Issue 14, memory per VC: SACK's scoreboard and recovery state (56 bytes) are boxed,
    // so a sender of any other congestion control carries 16 bytes of it, not 56; and a
    // connection's record names its end systems alone (the TCP start flag is in them): a
    // TCP connection's box, or a cell-level connection's place in its table (`end_systems`).
    use crate::tcp::congestion::AnyCongestion;
    assert_eq!(std::mem::size_of::<AnyCongestion>(), 16);
    assert_eq!(std::mem::size_of::<crate::network::Ends>(), 16);
}

#[test]
fn a_tcp_sender_is_160_bytes() {
    // Issue 14, memory per VC: the segment timed and its ticks or start time were an
    // `Option<(u32, u64)>` (24 bytes), the application's limit an `Option<u32>` (8), and
    // the exact RTO estimator's smoothed RTT an `Option<f64>` (the estimator 32 bytes). As
    // values with a sentinel or a flag beside them, a sender is 168 bytes instead of 192
    // (forty-sixth session). The retransmit timer, an enum of ticks or a deadline (16
    // bytes), is one value with a sentinel and the mode a flag: 160 (forty-seventh).
    assert_eq!(std::mem::size_of::<crate::tcp::rto::RtoEstimator>(), 24);
    assert_eq!(std::mem::size_of::<crate::tcp::TcpSender>(), 160);
}

#[test]
fn a_tcp_connection_holds_its_out_of_order_bits() {
    // Issue 14, memory per VC: the receiver's out-of-order ring (256 bits for a window of
    // 127 segments) was a 32-byte box, a 48-byte block of the allocator beside the
    // connection's 288-byte one. Held in the receiver (80 bytes instead of 56), with the
    // sender 8 bytes smaller, a TCP connection is 296 bytes: one block of 304, not 336.
    // Since the forty-eighth session 280 (a block of 288): the bytes delivered and the
    // goodput are read from the receiver's next expected segment, not counted beside it
    // (`delivered_and_goodput_bytes_are_read_from_the_receiver`).
    assert_eq!(std::mem::size_of::<TcpConn>(), 280);
}

#[test]
fn delivered_and_goodput_bytes_are_read_from_the_receiver() {
    // Issue 14: a TCP connection's bytes delivered in order, in all and after warm-up, are
    // its receiver's segments delivered in order times the segment size. Run to its
    // warm-up, then to its end: the goodput is what arrived after the warm-up (all of it
    // with none; a warm-up may not reach the end), over UBR and over ABR alike.
    for service in ["ubr", "abr"] {
        for warmup in ["5 ms", "0 s", "19 ms"] {
            let measurement = format!("duration = \"20 ms\"\nwarmup = \"{warmup}\"");
            let text = one_tcp_pair_text("100 us", &measurement, service);
            let s = crate::scenario::load_toml(&text).expect("valid scenario");
            let mut sim = crate::sim::Sim::new(&s);
            sim.run_until(s.warmup);
            let before = sim.net.conns.tcp_ref(0).expect("tcp").rcv.rcv_nxt;
            sim.run_until(s.duration);
            let t = sim.net.conns.tcp_ref(0).expect("tcp");
            let all = t.rcv.rcv_nxt;
            let at = format!("{service}, warm-up {warmup}: {before} segments before, {all} in all");
            assert!(all > before, "{at}");
            match warmup {
                "0 s" => assert_eq!(t.goodput_bytes(), t.delivered_bytes(), "{at}"),
                _ => assert!(before > 0, "{at}"),
            }
            let mss = 512; // the default segment size
            assert_eq!(t.delivered_bytes(), u64::from(all) * mss, "{at}");
            assert_eq!(t.goodput_bytes(), u64::from(all - before) * mss, "{at}");
        }
    }
}

#[test]
fn only_forward_flows_keep_a_frame_tally() {
    // The results report the frames of each connection's forward flow; the reverse flow's
    // (the ACKs of a TCP connection) were counted and never read: one tally per
    // connection, by connection index (issue 14, memory per VC). Two connections of
    // different segment sizes: each tally counts its own connection's segments, no ACKs.
    let text = r#"
[measurement]
duration = "20 ms"
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
[[link]]
between = ["s2", "sw"]
[[link]]
between = ["sw", "d1"]
[[link]]
between = ["sw", "d2"]
[[connection]]
name = "a"
from = "s1"
to = "d1"
traffic = { kind = "tcp" }
[[connection]]
name = "b"
from = "s2"
to = "d2"
traffic = { kind = "tcp", tcp = { mss = "1024 B" } }
"#;
    let sc = crate::scenario::load_toml(text).expect("valid scenario");
    let mut sim = crate::sim::Sim::new(&sc);
    sim.run();
    assert_eq!(sim.net.frame_tallies.len(), sc.connections.len());
    let mut segments = Vec::new();
    for c in 0..2 {
        let t = sim.net.frame_tallies[c];
        let received = sim.net.conns.tcp(c).rcv.segments_received;
        assert!(received > 0, "connection {c} received segments");
        assert_eq!(
            t.good, received,
            "connection {c}: one good frame per segment"
        );
        assert_eq!(t.corrupted, 0);
        let acks = sim.net.flow(crate::cell::FlowId::reverse(c));
        assert!(
            acks.cells_delivered > 0,
            "connection {c}'s ACKs were reassembled"
        );
        segments.push(received);
    }
    assert_ne!(segments[0], segments[1], "two segment sizes, two counts");
}
