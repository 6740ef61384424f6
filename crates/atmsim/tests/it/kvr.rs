//! Seed 004 (Kalampoukas, Varma, Ramakrishnan, UCSC-CRL-95-54) end to end: the KVR O(1)
//! allocator on every switch port with UCSC sources (spec ALGORITHMS.md 5 and 5.1),
//! connection open/close signalling (in band or pre-established), VBR/CBR reservations,
//! sessions traffic, Heyman video behind a token bucket (spec 7), and fault injection.
//!
//! Rates: the oracle ([`atmsim::maxmin`]), KVR's B and the sources' ACR all count every
//! cell on the wire (data and RM cells) in 53-byte cells: the link rate in cells/s is
//! rate_bps / 424. So converged ACRs are compared with `fair_share_bps` directly, and data
//! throughput with `fair_share_bps x (Nrm - 1) / Nrm` (one cell in Nrm is an RM cell).

use crate::support::{self, conn, fingerprint, port, run};
use atmsim::allocator::kvr::VcState;
use atmsim::allocator::{Kvr, KvrCfg};
use atmsim::RunResult;

/// Seed 004's 155 Mbps links, in bit/s and in 53-byte cells/s (PCR = 365,566 cells/s).
const LINK_BPS: f64 = 155e6;
const LINK: f64 = LINK_BPS / 424.0;
/// UCSC defaults: ICR = PCR / 50; each backward RM cell adds Nrm x AIR = 32 x 180 cells/s.
const ICR: f64 = LINK / 50.0;
const INC: f64 = 32.0 * 180.0;
/// Data cells per cell on the wire with Nrm = 32.
const DATA_SHARE: f64 = 31.0 / 32.0;

/// `[defaults]` of every scenario here: seed 004's links, UCSC sources, KVR everywhere.
const UCSC_KVR: &str =
    "link_rate = \"155 Mbps\"\nabr = { policy = \"ucsc\" }\nallocator = { kind = \"kvr\" }";

/// |a / b - 1|.
fn rel(a: f64, b: f64) -> f64 {
    (a / b - 1.0).abs()
}

/// Index of the sample at `t` seconds.
fn sample(r: &RunResult, t: f64) -> usize {
    r.timeseries
        .time_s
        .iter()
        .position(|x| (x - t).abs() < 1e-9)
        .unwrap_or_else(|| panic!("no sample at {t} s"))
}

/// ACR of ABR source `name` at the sample at `t` seconds, in cells/s.
fn acr_at(r: &RunResult, name: &str, t: f64) -> f64 {
    let ts = &r.timeseries;
    let k = ts
        .abr_names
        .iter()
        .position(|n| n == name)
        .unwrap_or_else(|| panic!("no ABR source {name}: {:?}", ts.abr_names));
    ts.acr_mbps[k][sample(r, t)] as f64 * 1e6 / 424.0
}

/// Data cells received so far at the destination of ABR source `name`, per sample.
fn abr_received<'a>(r: &'a RunResult, name: &str) -> &'a [u64] {
    let ts = &r.timeseries;
    let k = ts.abr_names.iter().position(|n| n == name).unwrap();
    &ts.abr_cells_received[k]
}

/// Index of port `name` in the time series.
fn series_port(r: &RunResult, name: &str) -> usize {
    let ts = &r.timeseries;
    ts.port_names
        .iter()
        .position(|n| n == name)
        .unwrap_or_else(|| panic!("no port series {name}: {:?}", ts.port_names))
}

/// Mean of a port series over the samples with time in (from, to].
fn mean_between(r: &RunResult, series: &[f32], from: f64, to: f64) -> f64 {
    let v: Vec<f64> = r
        .timeseries
        .time_s
        .iter()
        .zip(series)
        .filter(|(t, _)| **t > from + 1e-12 && **t <= to + 1e-12)
        .map(|(_, u)| *u as f64)
        .collect();
    assert!(!v.is_empty(), "no samples in ({from}, {to}]");
    v.iter().sum::<f64>() / v.len() as f64
}

/// A dumbbell: every connection `(name, access delay, table body)` has its own source host
/// `{name}_s` (access link of that delay to `sw1`) and destination `{name}_d` (10 us from
/// `sw2`); `sw1 -> sw2` is the shared link (10 us). `measurement` holds the lines of
/// `[measurement]`, `extra` goes at the end (e.g. `[[fault]]` tables).
fn dumbbell(
    defaults: &str,
    conns: &[(&str, &str, String)],
    measurement: &str,
    extra: &str,
) -> String {
    let mut s = format!(
        "seed = 1\n[measurement]\n{measurement}\n[defaults]\n{defaults}\n\
         [[node]]\nname = \"sw1\"\nkind = \"switch\"\n[[node]]\nname = \"sw2\"\nkind = \"switch\"\n\
         [[link]]\nbetween = [\"sw1\", \"sw2\"]\ndelay = \"10 us\"\n"
    );
    for (name, access, body) in conns {
        s += &format!(
            "[[node]]\nname = \"{name}_s\"\nkind = \"host\"\n[[node]]\nname = \"{name}_d\"\nkind = \"host\"\n\
             [[link]]\nbetween = [\"{name}_s\", \"sw1\"]\ndelay = \"{access}\"\n\
             [[link]]\nbetween = [\"sw2\", \"{name}_d\"]\ndelay = \"10 us\"\n\
             [[connection]]\nname = \"{name}\"\nfrom = \"{name}_s\"\nto = \"{name}_d\"\n{body}\n"
        );
    }
    s + extra
}

/// A greedy ABR cell source (optionally with more keys, one per line).
fn greedy(extra: &str) -> String {
    format!("service = \"abr\"\ntraffic = {{ kind = \"persistent\" }}\n{extra}")
}

// ------------------------------------------------------------------ a. the oracle

/// A parking lot seed 004 does not use, with unequal links: sw1 -(150 Mbps, 0.5 ms)-> sw2
/// -(100 Mbps, 0.3 ms)-> sw3 -(60 Mbps, 0.2 ms)-> sw4, and six greedy UCSC sources:
///
/// ```text
/// c1: sw1 sw2 sw3 sw4    c2: sw1 sw2    c3: sw2 sw3    c4: sw3 sw4
/// c5: sw2 sw3 sw4        c6: sw1 sw2 sw3
/// ```
///
/// Max-min by hand: the 60 Mbps link splits 3 ways (c1, c4, c5: 20 each); the 100 Mbps
/// link leaves 60 for c3 and c6 (30 each); the 150 Mbps link leaves 100 for c2.
fn parking_lot(allocator: &str) -> String {
    let mut s = format!(
        "seed = 1\n[measurement]\nduration = \"0.3 s\"\nwarmup = \"0.1 s\"\nsample_interval = \"5 ms\"\n\
         [defaults]\nlink_rate = \"155 Mbps\"\nabr = {{ policy = \"ucsc\", nrm = 32, air = \"180 cells/s\" }}\n\
         allocator = {allocator}\n"
    );
    for i in 1..=4 {
        s += &format!("[[node]]\nname = \"sw{i}\"\nkind = \"switch\"\n");
    }
    for (a, b, rate, delay) in [
        ("sw1", "sw2", "150 Mbps", "0.5 ms"),
        ("sw2", "sw3", "100 Mbps", "0.3 ms"),
        ("sw3", "sw4", "60 Mbps", "0.2 ms"),
    ] {
        s += &format!(
            "[[link]]\nbetween = [\"{a}\", \"{b}\"]\nrate = \"{rate}\"\ndelay = \"{delay}\"\n"
        );
    }
    let routes: [&[&str]; 6] = [
        &["sw1", "sw2", "sw3", "sw4"],
        &["sw1", "sw2"],
        &["sw2", "sw3"],
        &["sw3", "sw4"],
        &["sw2", "sw3", "sw4"],
        &["sw1", "sw2", "sw3"],
    ];
    for (i, r) in routes.iter().enumerate() {
        let i = i + 1;
        let (first, last) = (r[0], r[r.len() - 1]);
        let hops: Vec<String> = r.iter().map(|n| format!("\"{n}\"")).collect();
        s += &format!(
            "[[node]]\nname = \"s{i}\"\nkind = \"host\"\n[[node]]\nname = \"d{i}\"\nkind = \"host\"\n\
             [[link]]\nbetween = [\"s{i}\", \"{first}\"]\ndelay = \"{}0 us\"\n\
             [[link]]\nbetween = [\"{last}\", \"d{i}\"]\ndelay = \"10 us\"\n\
             [[connection]]\nname = \"c{i}\"\nfrom = \"s{i}\"\nto = \"d{i}\"\nroute = [\"s{i}\", {}, \"d{i}\"]\n\
             service = \"abr\"\ntraffic = {{ kind = \"persistent\" }}\n",
            i,
            hops.join(", ")
        );
    }
    s
}

/// Spec 5, "Validation: converged allocations must equal the max-min fair rates computed
/// offline (water-filling)": on the unequal-rate parking lot every final ACR is its
/// oracle share within 0.5 %, with and without the optional backward-RM update (seed 004
/// 4.1). The oracle itself gives the hand-computed shares; data throughput after warm-up
/// is (Nrm - 1) / Nrm of the share; no link is allocated beyond its rate.
#[test]
fn parking_lot_with_unequal_links_converges_to_the_max_min_oracle() {
    let by_hand = [
        ("c1", 20e6),
        ("c2", 100e6),
        ("c3", 30e6),
        ("c4", 20e6),
        ("c5", 20e6),
        ("c6", 30e6),
    ];
    for alloc in [
        "{ kind = \"kvr\" }",
        "{ kind = \"kvr\", update_backward_rm = true }",
    ] {
        let r = run(&parking_lot(alloc));
        support::check_conservation(&r, alloc);
        assert_eq!(r.summary.cells_dropped, 0, "{alloc}: unlimited buffers");
        for (name, want) in by_hand {
            let c = conn(&r, name);
            let share = c.fair_share_bps.expect("ABR connections have a share");
            assert!(
                rel(share, want) < 1e-9,
                "oracle gives {name} {share}, by hand {want}"
            );
            let acr = c.acr_final_bps.unwrap();
            assert!(
                rel(acr, share) < 0.005,
                "{alloc}: {name} final ACR {acr} vs max-min share {share}"
            );
            // After warm-up (0.1 s) the rate is steady: data cells are 31 of every 32.
            assert!(
                rel(c.throughput_bps, share * DATA_SHARE) < 0.01,
                "{alloc}: {name} throughput {} vs {}",
                c.throughput_bps,
                share * DATA_SHARE
            );
        }
        // Per link, the converged ACRs fill the link and never exceed it.
        for (link, members, rate) in [
            ("sw1->sw2", &["c1", "c2", "c6"][..], 150e6),
            ("sw2->sw3", &["c1", "c3", "c5", "c6"][..], 100e6),
            ("sw3->sw4", &["c1", "c4", "c5"][..], 60e6),
        ] {
            let sum: f64 = members
                .iter()
                .map(|m| conn(&r, m).acr_final_bps.unwrap())
                .sum();
            assert!(
                sum <= rate * (1.0 + 1e-6) && sum >= rate * 0.995,
                "{alloc}: {link} allocated {sum} of {rate}"
            );
            assert!(port(&r, link).utilization > 0.95, "{alloc}: {link}");
        }
        let fm = r.summary.fairness_maxmin.unwrap();
        assert!(fm > 0.9999, "{alloc}: fairness_maxmin {fm}");
    }
}

// ------------------------------------------------------------------ b. R1

/// R1's geometry (seed 004 4.1; spec 11): long sources 8.034267 ms from sw1, the short
/// one and every other link 1.866667 us, so RTTs are 16.076 ms and 11.2 us.
fn r1(defaults: &str, duration: &str) -> String {
    let mut s = format!(
        "seed = 1\n[measurement]\nduration = \"{duration}\"\nsample_interval = \"1 ms\"\n\
         [defaults]\n{defaults}\n\
         [[node]]\nname = \"sw1\"\nkind = \"switch\"\n[[node]]\nname = \"sw2\"\nkind = \"switch\"\n\
         [[link]]\nbetween = [\"sw1\", \"sw2\"]\ndelay = \"1.866667 us\"\n"
    );
    for (g, access) in [
        ("L1", "8.034267 ms"),
        ("L2", "8.034267 ms"),
        ("S1", "1.866667 us"),
    ] {
        s += &format!(
            "[[node]]\nname = \"{g}_src\"\nkind = \"host\"\n[[node]]\nname = \"{g}_dst\"\nkind = \"host\"\n\
             [[link]]\nbetween = [\"{g}_src\", \"sw1\"]\ndelay = \"{access}\"\n\
             [[link]]\nbetween = [\"sw2\", \"{g}_dst\"]\ndelay = \"1.866667 us\"\n\
             [[connection]]\nname = \"{g}\"\nfrom = \"{g}_src\"\nto = \"{g}_dst\"\nservice = \"abr\"\n\
             traffic = {{ kind = \"persistent\" }}\n"
        );
    }
    s
}

/// Seed 004 4.1: R1's three greedy connections converge to a third of D4 each (51.67
/// Mbps, "about 51.5" in the seed) despite RTTs three orders of magnitude apart; D4 is
/// then fully busy and carries data at the RM-limited maximum (Nrm - 1) / Nrm ("about
/// 97 %"). With target_utilization = 0.9 everything scales by 0.9.
#[test]
fn r1_three_connections_converge_to_a_third_of_the_bottleneck() {
    for u in [1.0, 0.9] {
        let d = format!(
            "link_rate = \"155 Mbps\"\nabr = {{ policy = \"ucsc\" }}\n\
             allocator = {{ kind = \"kvr\", target_utilization = {u} }}"
        );
        let r = run(&r1(&d, "0.3 s"));
        support::check_conservation(&r, "R1");
        assert_eq!(r.summary.cells_dropped, 0);
        for name in ["L1", "L2", "S1"] {
            let c = conn(&r, name);
            let acr = c.acr_final_bps.unwrap();
            assert!(
                rel(acr, u * LINK_BPS / 3.0) < 0.005,
                "U = {u}: {name} final ACR {acr}"
            );
            if u == 1.0 {
                assert!(rel(c.fair_share_bps.unwrap(), LINK_BPS / 3.0) < 1e-9);
            }
        }
        let ts = &r.timeseries;
        let d4 = series_port(&r, "sw1->sw2");
        let util = mean_between(&r, &ts.utilization[d4], 0.2, 0.3);
        let data = mean_between(&r, &ts.data_utilization[d4], 0.2, 0.3);
        assert!(rel(util, u) < 0.005, "U = {u}: D4 utilization {util}");
        assert!(
            rel(data, u * DATA_SHARE) < 0.005,
            "U = {u}: D4 data utilization {data}, RM overhead is 1/32"
        );
    }
}

// ------------------------------------------------------------------ c. signalling

/// Two greedy sources `a`, `b` near sw1, and `late`, 8 ms away, opening at 50 ms.
fn late_opener(setup: &str, late_access: &str, others: usize, duration: &str) -> String {
    let setup = format!("setup = \"{setup}\"");
    let mut conns: Vec<(String, &str, String)> = (0..others)
        .map(|i| (format!("a{i}"), "10 us", greedy(&setup)))
        .collect();
    conns.push((
        "late".into(),
        late_access,
        greedy(&format!("{setup}\nstart = \"50 ms\"")),
    ));
    let conns: Vec<(&str, &str, String)> = conns
        .iter()
        .map(|(n, a, b)| (n.as_str(), *a, b.clone()))
        .collect();
    dumbbell(
        UCSC_KVR,
        &conns,
        &format!("duration = \"{duration}\"\nsample_interval = \"0.5 ms\""),
        "",
    )
}

/// Seed 004 2.2 (after eq. 2.6) and 5.2: a switch learns of a connection by a signalling
/// message. In band, it travels the 8 ms access link first: until it reaches sw1 the
/// running connections keep half the link; pre-established, sw1 knows at the start and
/// their rates fall at once (N grows before the first RM cell). Either way all three end
/// at a third.
#[test]
fn in_band_opening_reaches_the_switch_after_the_access_delay() {
    let half = LINK / 2.0;
    let third = LINK / 3.0;
    let inb = run(&late_opener("in_band", "8 ms", 2, "200 ms"));
    let pre = run(&late_opener("pre_established", "8 ms", 2, "200 ms"));
    for (what, r) in [("in_band", &inb), ("pre_established", &pre)] {
        support::check_conservation(r, what);
        assert!(rel(acr_at(r, "a0", 0.0495), half) < 0.005, "{what}");
        for n in ["a0", "a1", "late"] {
            let acr = conn(r, n).acr_final_bps.unwrap() / 424.0;
            assert!(rel(acr, third) < 0.005, "{what}: {n} ends at {acr}");
        }
    }
    // Pre-established: 5 ms after the start, the others are down to about a third.
    for n in ["a0", "a1"] {
        let a = acr_at(&pre, n, 0.055);
        assert!(
            a < 1.01 * third,
            "pre-established: {n} still at {a} at 55 ms"
        );
    }
    // In band: the message is still on the 8 ms access link at 57.5 ms.
    for n in ["a0", "a1"] {
        let a = acr_at(&inb, n, 0.0575);
        assert!(rel(a, half) < 0.005, "in band: {n} at {a} at 57.5 ms");
    }
}

/// A connection opening into a converged link gets its share (regression). Figure 2.1
/// read literally (line 18 only when A_i > MaxAllocation) let the MaxVC turn satisfied
/// when its request fell a rounding error below A_max; then every connection could be
/// satisfied, holding all of B, and a newcomer got A_max = B - sum = 0: its UCSC source
/// went to ACR = 0 and never sent again (ACR 0.0 instead of 51.67 Mbps here, for in-band
/// and pre-established openings alike).
#[test]
fn connection_opening_into_a_converged_link_gets_its_share() {
    for (setup, access, others) in [
        ("in_band", "10 us", 2),
        ("in_band", "10 us", 3),
        ("in_band", "1 ms", 1),
        ("in_band", "8 ms", 2),
        ("pre_established", "10 us", 2),
    ] {
        let r = run(&late_opener(setup, access, others, "200 ms"));
        let share = LINK / (others as f64 + 1.0);
        for c in &r.connections {
            let acr = c.acr_final_bps.unwrap() / 424.0;
            assert!(
                rel(acr, share) < 0.005,
                "{setup}, access {access}, {others} others: {} ends at {acr} cells/s, share {share}",
                c.name
            );
        }
    }
}

/// The same at the allocator alone (spec 5: "MaxAllocation keeps the connection with the
/// largest allocation bottlenecked"): two VCs at the equal share whose CCRs come back a
/// hair below it must not both end satisfied, and a third VC opening then gets a real
/// allocation.
#[test]
fn kvr_keeps_the_max_vc_bottlenecked_when_its_request_dips() {
    let mut k = Kvr::new(
        KvrCfg {
            target_utilization: 1.0,
            update_backward_rm: false,
            measured_rate: false,
        },
        1000.0,
        6,
    );
    k.open(0);
    k.open(2);
    k.on_forward_rm(0, 1000.0, 500.0); // MaxVC
    k.on_forward_rm(2, 1000.0, 500.0);
    k.on_forward_rm(0, 1000.0, 499.99); // the MaxVC's request dips below A_max = 500
    assert_eq!(
        k.vc(0).0,
        VcState::Bottlenecked,
        "the MaxVC stays bottlenecked"
    );
    k.on_forward_rm(2, 1000.0, 499.98);
    assert!(k.counts().1 >= 1, "N_b = {}: all satisfied", k.counts().1);
    k.open(4);
    let er = k.on_forward_rm(4, 1000.0, 20.0).unwrap();
    assert!(er > 200.0, "the newcomer is offered {er} (B = 1000, N = 3)");
}

/// Seed 004 2.2 ("the variables ... must be updated when ... an existing connection
/// closes"): when one of three greedy connections stops, its close travels to the
/// switches and the other two rise from a third to half of the link; the closed one
/// sends nothing more.
#[test]
fn closing_gives_the_bandwidth_back() {
    let conns = [
        ("a", "10 us", greedy("")),
        ("b", "10 us", greedy("")),
        ("c", "10 us", greedy("stop = \"60 ms\"")),
    ];
    let r = run(&dumbbell(
        UCSC_KVR,
        &conns,
        "duration = \"150 ms\"\nsample_interval = \"1 ms\"",
        "",
    ));
    support::check_conservation(&r, "close");
    for n in ["a", "b", "c"] {
        assert!(
            rel(acr_at(&r, n, 0.059), LINK / 3.0) < 0.005,
            "{n} at 59 ms"
        );
    }
    for n in ["a", "b"] {
        let acr = conn(&r, n).acr_final_bps.unwrap() / 424.0;
        assert!(rel(acr, LINK / 2.0) < 0.005, "{n} ends at {acr}");
    }
    let c = abr_received(&r, "c");
    assert!(c[sample(&r, 0.059)] > 0);
    assert_eq!(
        c[sample(&r, 0.061)],
        *c.last().unwrap(),
        "c received cells after its close"
    );
}

// ------------------------------------------------------------------ d. reservations

/// Seed 004 5.2: a VBR/CBR connection's reservation lowers B at every KVR port on its
/// route while it is open (start..stop): two greedy ABR sources share 155 - 15 Mbps
/// while a 5 Mbps CBR connection reserving 15 Mbps is open (30-100 ms), and half the
/// link before and after. The allocation follows the reservation, not the CBR rate.
#[test]
fn a_reservation_lowers_the_abr_share_while_it_is_open() {
    let conns = [
        ("a", "10 us", greedy("")),
        ("b", "10 us", greedy("")),
        (
            "v",
            "10 us",
            "service = \"cbr\"\nreserve = \"15 Mbps\"\nstart = \"30 ms\"\nstop = \"100 ms\"\n\
             traffic = { kind = \"cbr\", rate = \"5 Mbps\" }"
                .to_string(),
        ),
    ];
    let r = run(&dumbbell(
        UCSC_KVR,
        &conns,
        "duration = \"200 ms\"\nsample_interval = \"1 ms\"",
        "",
    ));
    support::check_conservation(&r, "reserve");
    let reserved = (LINK - 15e6 / 424.0) / 2.0;
    for n in ["a", "b"] {
        assert!(rel(acr_at(&r, n, 0.029), LINK / 2.0) < 0.005, "{n} before");
        assert!(
            rel(acr_at(&r, n, 0.099), reserved) < 0.005,
            "{n} while reserved: {}",
            acr_at(&r, n, 0.099)
        );
        let acr = conn(&r, n).acr_final_bps.unwrap() / 424.0;
        assert!(rel(acr, LINK / 2.0) < 0.005, "{n} after the release: {acr}");
    }
    assert!(conn(&r, "v").cells_delivered > 0);
}

/// Seed 004 5.2 with a Heyman video connection reserving 1.9 Mbps: each of two ABR
/// sources ends at (155 - 1.9) / 2 Mbps.
#[test]
fn a_video_reservation_lowers_the_abr_share() {
    let conns = [
        ("a", "10 us", greedy("")),
        ("b", "10 us", greedy("")),
        (
            "v",
            "10 us",
            "service = \"vbr\"\nreserve = \"1.9 Mbps\"\ntraffic = { kind = \"video\" }".to_string(),
        ),
    ];
    let r = run(&dumbbell(
        UCSC_KVR,
        &conns,
        "duration = \"150 ms\"\nsample_interval = \"1 ms\"",
        "",
    ));
    support::check_conservation(&r, "video reserve");
    let want = (LINK_BPS - 1.9e6) / 2.0;
    for n in ["a", "b"] {
        let acr = conn(&r, n).acr_final_bps.unwrap();
        assert!(rel(acr, want) < 0.005, "{n}: {acr} vs {want}");
    }
    assert_eq!(conn(&r, "v").traffic, "video");
    assert_eq!(conn(&r, "v").service, "vbr");
}

/// Known problem, not fixed here: a reservation that leaves less than the satisfied
/// connections hold makes A_max negative for the next bottlenecked connection; KVR
/// writes ER = 0, the UCSC source (MCR = 0, no out-of-rate RM cells) goes to ACR = 0 and
/// never sends again, even after the reservation ends: `a` ends at 0 bit/s and `b` at
/// 77.5 Mbps on an otherwise idle 155 Mbps link. Run with `--ignored`.
#[test]
#[ignore = "known problem: ER = 0 stops a UCSC source for good (see the doc comment)"]
fn a_large_reservation_does_not_stop_a_source_for_good() {
    let conns = [
        ("a", "10 us", greedy("")),
        ("b", "10 us", greedy("")),
        (
            "v",
            "10 us",
            "service = \"cbr\"\nreserve = \"100 Mbps\"\nstart = \"30 ms\"\nstop = \"100 ms\"\n\
             traffic = { kind = \"cbr\", rate = \"20 Mbps\" }"
                .to_string(),
        ),
    ];
    let r = run(&dumbbell(
        UCSC_KVR,
        &conns,
        "duration = \"200 ms\"\nsample_interval = \"1 ms\"",
        "",
    ));
    for n in ["a", "b"] {
        let acr = conn(&r, n).acr_final_bps.unwrap() / 424.0;
        assert!(rel(acr, LINK / 2.0) < 0.005, "{n} ends at {acr} cells/s");
    }
}

// ------------------------------------------------------------------ e. sessions

/// A sessions source `s` (with `traffic` keys) and a greedy partner `p` on a dumbbell.
fn sessions(traffic: &str, duration: &str, seed: u64) -> String {
    let conns = [
        (
            "s",
            "10 us",
            format!("service = \"abr\"\ntraffic = {{ kind = \"sessions\", {traffic} }}"),
        ),
        ("p", "10 us", greedy("")),
    ];
    dumbbell(
        UCSC_KVR,
        &conns,
        &format!("duration = \"{duration}\"\nsample_interval = \"1 ms\""),
        "",
    )
    .replacen("seed = 1", &format!("seed = {seed}"), 1)
}

/// Seed 004 section 6 with fixed 40 ms periods: the connection is open in [0, 40),
/// [80, 120), [160, 200) ms. Its destination receives nothing while it is closed; every
/// opening starts the source again from ICR (ACR at most ICR + Nrm x AIR 1 ms later);
/// the switch learns each open and close, so the partner gets the whole link while `s` is
/// closed and half of it while it is open.
#[test]
fn fixed_sessions_send_only_while_open_and_restart_from_icr() {
    let r = run(&sessions(
        "on = \"40 ms\", off = \"40 ms\", distribution = \"fixed\"",
        "240 ms",
        1,
    ));
    support::check_conservation(&r, "sessions");
    assert_eq!(conn(&r, "s").traffic, "sessions");
    assert_eq!(conn(&r, "s").rule5_resets, Some(0));
    let rx = abr_received(&r, "s");
    let ts = &r.timeseries.time_s;
    for i in 1..ts.len() {
        let ms = (ts[i] * 1000.0).round() as u64;
        let phase = ms % 80; // the interval (ms - 1, ms] lies in one period
        let got = rx[i] - rx[i - 1];
        if (42..=80).contains(&phase) || phase == 0 {
            assert_eq!(
                got, 0,
                "s closed, yet {got} cells arrived in the ms before {ms} ms"
            );
        } else if (2..=40).contains(&phase) {
            assert!(
                got > 0,
                "s open, yet nothing arrived in the ms before {ms} ms"
            );
        }
    }
    for open_ms in [0u32, 80, 160] {
        let t = (open_ms + 1) as f64 / 1000.0;
        let a = acr_at(&r, "s", t);
        assert!(
            a <= ICR + INC + 1.0,
            "1 ms after the opening at {open_ms} ms ACR is {a}, ICR {ICR}"
        );
        let before_close = (open_ms + 39) as f64 / 1000.0;
        assert!(
            rel(acr_at(&r, "p", before_close), LINK / 2.0) < 0.005,
            "p shares the link while s is open ({before_close} s)"
        );
        let closed = (open_ms + 79) as f64 / 1000.0;
        if closed < 0.24 {
            assert!(
                rel(acr_at(&r, "p", closed), LINK) < 0.005,
                "p has the link while s is closed ({closed} s)"
            );
        }
    }
}

/// Lengths of the runs of 1 ms samples in which `rx` did not grow (closed periods), ms.
fn closed_runs(rx: &[u64]) -> Vec<usize> {
    let mut runs = Vec::new();
    let mut n = 0;
    for w in rx.windows(2) {
        if w[1] == w[0] {
            n += 1;
        } else if n > 0 {
            runs.push(n);
            n = 0;
        }
    }
    runs
}

/// Exponential periods (the default distribution) come from the run's seed: the same seed
/// gives the same run bit for bit (sessions and video included), another seed another
/// pattern. Their lengths vary (exponential: coefficient of variation about 1), fixed
/// ones do not, and the source is closed about half the time with equal means.
#[test]
fn exponential_sessions_are_random_but_reproducible() {
    let with_video = |seed: u64| {
        let text = sessions("on = \"20 ms\", off = \"20 ms\"", "1 s", seed);
        text + "[[node]]\nname = \"v_s\"\nkind = \"host\"\n[[link]]\nbetween = [\"v_s\", \"sw1\"]\n\
                [[connection]]\nname = \"v\"\nfrom = \"v_s\"\nto = \"p_d\"\nservice = \"vbr\"\n\
                reserve = \"1.9 Mbps\"\ntraffic = { kind = \"video\" }\n"
    };
    let a = run(&with_video(7));
    let b = run(&with_video(7));
    let c = run(&with_video(8));
    support::check_conservation(&a, "seed 7");
    assert_eq!(
        fingerprint(&a),
        fingerprint(&b),
        "same seed, different runs"
    );
    assert_ne!(
        conn(&a, "s").cells_sent,
        conn(&c, "s").cells_sent,
        "seeds 7 and 8 gave the same sessions"
    );
    assert_ne!(
        conn(&a, "v").cells_sent,
        conn(&c, "v").cells_sent,
        "seeds 7 and 8 gave the same video"
    );
    let runs = closed_runs(abr_received(&a, "s"));
    assert!(
        runs.len() >= 10,
        "only {} closed periods in 1 s",
        runs.len()
    );
    let mean = runs.iter().sum::<usize>() as f64 / runs.len() as f64;
    let sd =
        (runs.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / runs.len() as f64).sqrt();
    assert!(sd > 0.4 * mean, "closed periods {runs:?} hardly vary");
    let closed: usize = runs.iter().sum();
    let share = closed as f64 / (a.timeseries.time_s.len() - 1) as f64;
    assert!(
        (0.3..=0.7).contains(&share),
        "closed {share} of the time with equal means"
    );
    let fixed = run(&sessions(
        "on = \"20 ms\", off = \"20 ms\", distribution = \"fixed\"",
        "1 s",
        7,
    ));
    let runs = closed_runs(abr_received(&fixed, "s"));
    let (lo, hi) = (runs.iter().min().unwrap(), runs.iter().max().unwrap());
    assert!(hi - lo <= 1, "fixed periods vary: {runs:?}");
}

// ------------------------------------------------------------------ f. video

/// One video connection `v` over sw1 -> sw2 to its own host (nothing else on the link).
fn video(keys: &str, duration: &str, sample_interval: &str) -> String {
    let conns = [(
        "v",
        "10 us",
        format!("service = \"vbr\"\ntraffic = {{ kind = \"video\"{keys} }}"),
    )];
    dumbbell(
        UCSC_KVR,
        &conns,
        &format!("duration = \"{duration}\"\nsample_interval = \"{sample_interval}\""),
        "",
    )
}

/// Spec 7 / seed 004 5.2: the long-run rate of the Heyman source is frame_rate x
/// mean_cells cells/s (PAL 25 x 130 = 3250 cells/s, about 1.4 Mbps; and 50 x 60), within
/// 3 % over 40 s (uncorrelated frames, so 1000-2000 independent sizes). Every cell sent
/// arrives (no contention, unlimited buffers).
#[test]
fn video_mean_rate_is_frame_rate_times_mean_cells() {
    for (keys, want) in [
        (", correlation = 0.0", 3250.0),
        (
            ", frame_rate = 50, mean_cells = 60, sd_cells = 15, correlation = 0.0",
            3000.0,
        ),
    ] {
        let r = run(&video(keys, "40 s", "100 ms"));
        support::check_conservation(&r, keys);
        let v = conn(&r, "v");
        let rate = v.cells_delivered as f64 / 40.0;
        assert!(
            rel(rate, want) < 0.03,
            "{keys}: {rate} cells/s, want {want}"
        );
        assert!(v.cells_sent >= v.cells_delivered && v.cells_sent - v.cells_delivered < 10);
        assert!(rel(v.throughput_bps, want * 424.0) < 0.03, "{keys}");
        assert_eq!(v.acr_final_bps, None, "video is not ABR");
    }
}

/// Spec 7: the token bucket (50 cells, 4500 cells/s) bounds what leaves: in every window
/// at most 50 + 4500 x t cells (+1 for sampling), checked over all pairs of 1 ms samples
/// of the cells received (constant delay, so windows map one to one). The source asks
/// for 10,000 cells/s, so the bound is tight: the full bucket goes at the start, then
/// exactly the token rate.
#[test]
fn token_bucket_bounds_every_window() {
    let r = run(&video(
        ", mean_cells = 400, sd_cells = 40, correlation = 0.0",
        "2 s",
        "1 ms",
    ));
    support::check_conservation(&r, "bucket");
    let ts = &r.timeseries;
    let k = ts.connection_names.iter().position(|n| n == "v").unwrap();
    let rx = &ts.cells_received[k];
    let t = &ts.time_s;
    let mut worst = f64::MIN;
    for i in 0..rx.len() {
        for j in i + 1..rx.len() {
            let excess = (rx[j] - rx[i]) as f64 - 4500.0 * (t[j] - t[i]);
            worst = worst.max(excess);
        }
    }
    assert!(worst <= 51.0, "a window holds {worst} cells above 4500 x t");
    assert!(worst >= 40.0, "the bucket was hardly used: {worst}");
    let late = (rx[sample(&r, 2.0)] - rx[sample(&r, 0.5)]) as f64 / 1.5;
    assert!(rel(late, 4500.0) < 0.01, "shaped rate {late} cells/s");
}

/// Seed 004 figure 5.6: the VBR utilization series counts VBR cells only. A video source
/// and a greedy ABR source share sw1 -> sw2: the VBR series adds up to the video cells,
/// the total to all cells; data utilization leaves out the RM cells (and is above the
/// VBR part); on a port carrying only video the three series coincide.
#[test]
fn vbr_and_data_utilization_series() {
    let conns = [
        (
            "v",
            "10 us",
            "service = \"vbr\"\nreserve = \"1.9 Mbps\"\ntraffic = { kind = \"video\", correlation = 0.5 }"
                .to_string(),
        ),
        ("a", "10 us", greedy("")),
    ];
    let r = run(&dumbbell(
        UCSC_KVR,
        &conns,
        "duration = \"1 s\"\nsample_interval = \"5 ms\"",
        "",
    ));
    support::check_conservation(&r, "utilization");
    let ts = &r.timeseries;
    let si = 0.005;
    let cells = |series: &[f32]| series.iter().map(|&u| u as f64 * si * LINK).sum::<f64>();
    let shared = series_port(&r, "sw1->sw2");
    let vbr = cells(&ts.vbr_utilization[shared]);
    let total = cells(&ts.utilization[shared]);
    let data = cells(&ts.data_utilization[shared]);
    let v = conn(&r, "v");
    let a = conn(&r, "a");
    assert!(
        (vbr - v.cells_sent as f64).abs() < 0.002 * v.cells_sent as f64 + 5.0,
        "VBR series {vbr} vs video cells {}",
        v.cells_sent
    );
    let all = port(&r, "sw1->sw2").sent as f64;
    assert!((total - all).abs() < 0.002 * all, "total {total} vs {all}");
    let rm = a.rm_cells_sent.unwrap() as f64;
    assert!(
        (data - (all - rm)).abs() < 0.002 * all + 50.0,
        "data {data} vs {all} - {rm} RM cells"
    );
    for i in 0..ts.time_s.len() {
        let (u, d, b) = (
            ts.utilization[shared][i],
            ts.data_utilization[shared][i],
            ts.vbr_utilization[shared][i],
        );
        assert!(b <= d + 1e-6 && d <= u + 1e-6, "sample {i}: {b} {d} {u}");
    }
    let only_video = series_port(&r, "sw2->v_d");
    assert_eq!(ts.vbr_utilization[only_video], ts.utilization[only_video]);
    assert_eq!(ts.data_utilization[only_video], ts.utilization[only_video]);
    // About 3250 cells/s of a 365,566 cells/s link.
    let mean = mean_between(&r, &ts.vbr_utilization[shared], 0.0, 1.0);
    assert!((0.004..0.015).contains(&mean), "VBR utilization {mean}");
}

// ------------------------------------------------------------------ g. faults

/// Seed 004 4.2 on two TCP Reno connections over ABR (9180-byte segments, 150 KB window,
/// exact timers): one data cell of c1 lost at 100 ms corrupts exactly one frame (AAL5),
/// which Reno repairs by one fast retransmit without a timeout; c2 is untouched. The loss
/// is counted as a fault, inside cells_dropped.
#[test]
fn one_lost_cell_is_one_corrupted_frame_and_one_fast_retransmit() {
    let tcp = "service = \"abr\"\ntraffic = { kind = \"tcp\" }".to_string();
    let defaults = format!(
        "{UCSC_KVR}\ntcp = {{ mss = \"9180 B\", window = \"150 KB\", congestion = \"reno\", \
         timer_granularity = \"exact\", rto_min = \"1 ms\" }}"
    );
    let conns = [("c1", "1 ms", tcp.clone()), ("c2", "1 ms", tcp)];
    let m = "duration = \"200 ms\"\nsample_interval = \"1 ms\"";
    let fault = "[[fault]]\nconnection = \"c1\"\nat = \"100 ms\"\n";
    let r = run(&dumbbell(&defaults, &conns, m, fault));
    support::check_conservation(&r, "fault");
    let s = &r.summary;
    assert_eq!(s.cells_dropped_by_faults, 1);
    assert_eq!(s.cells_dropped, 1, "the fault is the only loss");
    let c1 = conn(&r, "c1");
    assert_eq!(c1.cells_dropped, 1);
    assert_eq!(c1.frames_corrupted, 1);
    assert_eq!(c1.retransmissions, 1);
    assert_eq!(c1.fast_retransmits, 1);
    assert_eq!(c1.timeouts, 0);
    let c2 = conn(&r, "c2");
    assert_eq!(
        (
            c2.cells_dropped,
            c2.frames_corrupted,
            c2.retransmissions,
            c2.timeouts
        ),
        (0, 0, 0, 0)
    );
    // Without the fault nothing is lost or resent, and c1 delivers more.
    let clean = run(&dumbbell(&defaults, &conns, m, ""));
    assert_eq!(clean.summary.cells_dropped_by_faults, 0);
    assert_eq!(conn(&clean, "c1").retransmissions, 0);
    assert!(conn(&clean, "c1").goodput_bytes > c1.goodput_bytes);
}

/// A single greedy cell source c1 stopping at 50 ms and a run to 80 ms, so that every
/// cell has arrived by the end and the counters balance exactly.
fn drained(fault: &str) -> RunResult {
    let conns = [("c1", "1 ms", greedy("stop = \"50 ms\""))];
    let r = run(&dumbbell(
        UCSC_KVR,
        &conns,
        "duration = \"80 ms\"\nsample_interval = \"1 ms\"",
        fault,
    ));
    support::check_conservation(&r, fault);
    assert_eq!(r.summary.cells_in_flight, 0, "{fault}");
    r
}

/// Cells received by each port on c1's forward (data, FRM) and reverse (BRM) routes.
fn received(r: &RunResult) -> [u64; 6] {
    [
        "c1_s->sw1",
        "sw1->sw2",
        "sw2->c1_d",
        "c1_d->sw2",
        "sw2->sw1",
        "sw1->c1_s",
    ]
    .map(|p| port(r, p).received)
}

/// `[[fault]]` keys: `count` cells of the chosen kind (`data`, `rm`, `any`) are lost at
/// the output port of `node` (default the source host) on the chosen direction's route,
/// the first ones offered at or after `at`. Each loss shows as exactly one cell missing
/// at the next port, in cells_dropped_by_faults and in the connection's drops.
#[test]
fn faults_take_the_kind_count_place_and_direction_asked() {
    let header = "[[fault]]\nconnection = \"c1\"\nat = \"20 ms\"\n";
    let base = drained("");
    let c = conn(&base, "c1");
    assert_eq!(base.summary.cells_dropped, 0);
    assert_eq!(
        c.rm_cells_sent, c.brm_received,
        "no fault: every FRM returns"
    );

    // 5 data cells at the source host: its own port never sees them.
    let r = drained(&format!("{header}count = 5\n"));
    let c = conn(&r, "c1");
    assert_eq!(r.summary.cells_dropped_by_faults, 5);
    assert_eq!((c.cells_dropped, c.ack_cells_dropped), (5, 0));
    assert_eq!(c.cells_delivered, c.cells_sent - 5);
    let p = received(&r);
    assert_eq!(p[0], c.cells_sent - 5);
    assert_eq!(
        c.rm_cells_sent, c.brm_received,
        "data faults spare RM cells"
    );

    // 3 cells at sw1's output port: the host port carried them, sw1 -> sw2 did not.
    let r = drained(&format!("{header}count = 3\nnode = \"sw1\"\n"));
    let c = conn(&r, "c1");
    let p = received(&r);
    assert_eq!(r.summary.cells_dropped_by_faults, 3);
    assert_eq!(p[0], c.cells_sent);
    assert_eq!(p[1], c.cells_sent - 3);
    assert_eq!(p[2], p[1]);

    // 2 forward RM cells: two backward RM cells never come back.
    let r = drained(&format!("{header}count = 2\ncell = \"rm\"\n"));
    let c = conn(&r, "c1");
    assert_eq!(r.summary.cells_dropped_by_faults, 2);
    assert_eq!(c.cells_dropped, 2);
    assert_eq!(c.brm_received.unwrap(), c.rm_cells_sent.unwrap() - 2);
    assert_eq!(c.cells_delivered, c.cells_sent - 2);

    // One backward RM cell at sw2, on the reverse route: an "ACK-direction" loss.
    let r = drained(&format!(
        "{header}cell = \"rm\"\ndirection = \"reverse\"\nnode = \"sw2\"\n"
    ));
    let c = conn(&r, "c1");
    let p = received(&r);
    assert_eq!(r.summary.cells_dropped_by_faults, 1);
    assert_eq!((c.cells_dropped, c.ack_cells_dropped), (0, 1));
    assert_eq!(p[3], p[4] + 1, "d -> sw2 saw it, sw2 -> sw1 did not");
    assert_eq!(p[4], p[5]);
    assert_eq!(c.brm_received.unwrap(), c.rm_cells_sent.unwrap() - 1);

    // 64 cells of any kind in a row: data and RM cells alike.
    let r = drained(&format!("{header}count = 64\ncell = \"any\"\n"));
    let c = conn(&r, "c1");
    assert_eq!(r.summary.cells_dropped_by_faults, 64);
    assert_eq!(r.summary.cells_dropped, 64);
    assert_eq!(c.cells_delivered, c.cells_sent - 64);
    // 64 consecutive cells include 2 FRMs (one per 32 cells).
    assert_eq!(c.brm_received.unwrap(), c.rm_cells_sent.unwrap() - 2);
}

/// A fault waits for `at`: nothing is lost before, and a fault whose cells never come
/// (the connection has stopped) takes nothing.
#[test]
fn faults_wait_for_their_time() {
    let r = drained("[[fault]]\nconnection = \"c1\"\nat = \"60 ms\"\n");
    assert_eq!(r.summary.cells_dropped_by_faults, 0);
    assert_eq!(r.summary.cells_dropped, 0);
    // At 10 ms the source is ramping; the cell lost is the first data cell after 10 ms,
    // so everything sent before arrived.
    let r = drained("[[fault]]\nconnection = \"c1\"\nat = \"10 ms\"\n");
    assert_eq!(r.summary.cells_dropped_by_faults, 1);
    let rx = abr_received(&r, "c1");
    let sent_by_9 = abr_received(&drained(""), "c1")[sample(&r, 0.009)];
    assert_eq!(rx[sample(&r, 0.009)], sent_by_9, "a loss before 10 ms");
}

// ------------------------------------------------------------------ h. the UCSC source

/// One UCSC source on an otherwise empty 155 Mbps path, 1 ms from sw1.
fn lone(abr: &str, traffic: &str, duration: &str) -> RunResult {
    let d =
        format!("link_rate = \"155 Mbps\"\nabr = {{ {abr} }}\nallocator = {{ kind = \"kvr\" }}");
    let conns = [(
        "c",
        "1 ms",
        format!("service = \"abr\"\ntraffic = {traffic}"),
    )];
    run(&dumbbell(
        &d,
        &conns,
        &format!("duration = \"{duration}\"\nsample_interval = \"1 ms\""),
        "",
    ))
}

/// Seed 004 2.1: r(t+) = min(r(t) + Nrm x AIR, ER). Alone on the path the switch offers
/// the whole link, so after k backward RM cells ACR is exactly ICR + k x 32 x 180 cells/s
/// (ICR = PCR / 50, PCR = the access link), until it reaches PCR and stays there.
#[test]
fn ucsc_adds_nrm_times_air_per_backward_rm_cell() {
    let mut seen = Vec::new();
    for d in ["1 ms", "3 ms", "10 ms", "20 ms"] {
        let r = lone("policy = \"ucsc\"", "{ kind = \"persistent\" }", d);
        let c = conn(&r, "c");
        let k = c.brm_received.unwrap() as f64;
        let acr = c.acr_final_bps.unwrap() / 424.0;
        let want = ICR + k * INC;
        assert!(
            rel(acr, want) < 1e-6,
            "{d}: ACR {acr} after {k} BRMs, want {want}"
        );
        assert_eq!(c.rule5_resets, Some(0));
        assert_eq!(c.rule6_cuts, Some(0));
        seen.push(k);
    }
    assert_eq!(seen[0], 0.0, "nothing returns within 1 ms: ACR = ICR");
    assert!(seen[3] > seen[2] && seen[2] > 0.0, "{seen:?}");
    let r = lone("policy = \"ucsc\"", "{ kind = \"persistent\" }", "60 ms");
    let acr = conn(&r, "c").acr_final_bps.unwrap() / 424.0;
    assert!(rel(acr, LINK) < 1e-6, "capped at PCR: {acr}");
    // A different AIR and Nrm: the step is their product.
    let r = lone(
        "policy = \"ucsc\", air = \"100 cells/s\", nrm = 16",
        "{ kind = \"persistent\" }",
        "10 ms",
    );
    let c = conn(&r, "c");
    let k = c.brm_received.unwrap() as f64;
    assert!(k > 0.0);
    let acr = c.acr_final_bps.unwrap() / 424.0;
    assert!(
        rel(acr, ICR + k * 1600.0) < 1e-6,
        "ACR {acr} after {k} BRMs"
    );
}

/// Seed 004 3: ICR = PCR / 50 by default (PCR is the access link unless set); an
/// explicit ICR wins.
#[test]
fn ucsc_icr_defaults_to_pcr_over_50() {
    for (abr, want) in [
        ("policy = \"ucsc\"", LINK / 50.0),
        (
            "policy = \"ucsc\", pcr = \"100 Mbps\"",
            100e6 / 424.0 / 50.0,
        ),
        ("policy = \"ucsc\", icr = \"10 Mbps\"", 10e6 / 424.0),
    ] {
        let r = lone(abr, "{ kind = \"persistent\" }", "1 ms");
        let c = conn(&r, "c");
        assert_eq!(c.brm_received, Some(0), "{abr}");
        let acr = c.acr_final_bps.unwrap() / 424.0;
        assert!(rel(acr, want) < 1e-6, "{abr}: ICR {acr}, want {want}");
        assert!(
            c.rm_cells_sent.unwrap() >= 1,
            "{abr}: the first cell is an FRM"
        );
    }
}

/// Seed 004 2.1 / spec 5.1: no use-it-or-lose-it. A TCP connection sends 5 segments, is
/// idle until 600 ms (longer than TM 4.0's ADTF of 500 ms), then bursts: the UCSC source
/// keeps its ACR through the pause (no rule 5 reset), where a TM 4.0 source with the same
/// ICR resets once.
#[test]
fn ucsc_keeps_its_rate_after_idling() {
    let tcp =
        "{ kind = \"tcp\", application = { kind = \"periodic\", segment_interval = \"1 ms\", \
               segments = 5, burst = \"5120 B\", burst_at = \"600 ms\" } }";
    let u = lone("policy = \"ucsc\"", tcp, "700 ms");
    let c = conn(&u, "c");
    assert_eq!(c.segments_sent, 15);
    assert_eq!(c.rule5_resets, Some(0), "UCSC has no rule 5");
    let before = acr_at(&u, "c", 0.599);
    assert!(before > ICR * 1.5, "ACR {before} had risen above ICR");
    assert!(
        acr_at(&u, "c", 0.7) >= before,
        "the burst started from the kept ACR"
    );
    let t = lone("icr = \"3.1 Mbps\"", tcp, "700 ms");
    assert!(
        conn(&t, "c").rule5_resets.unwrap() >= 1,
        "the TM 4.0 control case should reset"
    );
}
