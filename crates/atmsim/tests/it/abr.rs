//! ABR end to end: cell conservation, port identities and determinism under every rate
//! allocator and cell-level traffic kind; ERICA's steady state on one source; backward
//! RM feedback across a three-switch route.

use crate::support::{self, conn, fingerprint, port, run};
use atmsim::RunResult;

/// One connection of [`dumbbell`]: its service and traffic (TOML inline table).
struct Conn<'a> {
    service: &'a str,
    traffic: &'a str,
}

const PERSISTENT: &str = "{ kind = \"persistent\" }";

fn abr(traffic: &str) -> Conn<'_> {
    Conn {
        service: "abr",
        traffic,
    }
}

/// Sources s_i -> sw1 -> sw2 -> d_i, every link 1 km (LAN) at 155.52 Mbps.
/// `defaults` is written under `[defaults]` (e.g. the allocator and ABR parameters).
fn dumbbell(defaults: &str, conns: &[Conn], duration: &str) -> String {
    let mut s = format!(
        "name = \"abr test\"\nseed = 7\n[measurement]\nduration = \"{duration}\"\nsample_interval = \"1 ms\"\n\
         [defaults]\n{defaults}\n\
         [[node]]\nname = \"sw1\"\nkind = \"switch\"\n[[node]]\nname = \"sw2\"\nkind = \"switch\"\n\
         [[link]]\nbetween = [\"sw1\", \"sw2\"]\nlength = \"1 km\"\n"
    );
    for (i, c) in conns.iter().enumerate() {
        let i = i + 1;
        s += &format!(
            "[[node]]\nname = \"s{i}\"\nkind = \"host\"\n[[node]]\nname = \"d{i}\"\nkind = \"host\"\n\
             [[link]]\nbetween = [\"s{i}\", \"sw1\"]\nlength = \"1 km\"\n\
             [[link]]\nbetween = [\"sw2\", \"d{i}\"]\nlength = \"1 km\"\n\
             [[connection]]\nname = \"c{i}\"\nfrom = \"s{i}\"\nto = \"d{i}\"\nservice = \"{}\"\ntraffic = {}\n",
            c.service, c.traffic
        );
    }
    s
}

const ERICA: &str = "allocator = { kind = \"erica\", target_utilization = 0.95, interval_cells = \"50 cells\", interval_time = \"1 ms\" }\n\
                     abr = { icr = \"10 Mbps\", rif = 1.0 }";

/// Conservation, the port counter identities, drop attribution and rate sanity.
fn check_invariants(r: &RunResult, what: &str) {
    support::check_conservation(r, what);
    for c in &r.connections {
        if c.service == "abr" && !r.late_connections.contains(&c.name) {
            let acr = c.acr_final_bps.expect("ABR connections report ACR");
            assert!(
                (0.0..=155.52e6 * (1.0 + 1e-9)).contains(&acr),
                "{what} {}: {acr}",
                c.name
            );
            let mean = c.acr_mean_bps.unwrap();
            assert!(
                (0.0..=155.52e6 * (1.0 + 1e-9)).contains(&mean),
                "{what} {}: {mean}",
                c.name
            );
            assert!(c.rm_cells_sent.unwrap() > 0, "{what} {}: no FRM", c.name);
            assert!(
                c.brm_received.unwrap() > 0,
                "{what} {}: no BRM back",
                c.name
            );
            assert!(c.cells_delivered > 0, "{what} {}", c.name);
        } else {
            assert!(c.acr_final_bps.is_none());
        }
    }
}

/// Runs twice; checks the invariants and that both runs are bit-identical.
fn run_checked(text: &str, what: &str) -> RunResult {
    let a = run(text);
    check_invariants(&a, what);
    let b = run(text);
    assert_eq!(
        fingerprint(&a),
        fingerprint(&b),
        "{what}: not deterministic"
    );
    a
}

#[test]
fn erica_two_sources_conserve_and_repeat() {
    let t = dumbbell(ERICA, &[abr(PERSISTENT), abr(PERSISTENT)], "50 ms");
    let r = run_checked(&t, "erica");
    // Both get close to half the target capacity, 0.95 * 155.52 / 2 = 73.9 Mbps.
    for c in &r.connections {
        let acr = c.acr_final_bps.unwrap();
        assert!(
            (acr / (0.95 * 155.52e6 / 2.0) - 1.0).abs() < 0.05,
            "{}: {acr}",
            c.name
        );
    }
    assert!(r.summary.fairness_maxmin.unwrap() > 0.99);
    // The example file in the repository runs too.
    let ex =
        std::fs::read_to_string(support::repo().join("examples/abr_two_sources.toml")).unwrap();
    run_checked(&ex, "example");
}

#[test]
fn erica_plus_conserves_and_repeats() {
    let d =
        "allocator = { kind = \"erica_plus\", t0 = \"100 us\", interval_cells = \"50 cells\" }\n\
             abr = { icr = \"10 Mbps\", rif = 1.0 }";
    let t = dumbbell(
        d,
        &[abr(PERSISTENT), abr(PERSISTENT), abr(PERSISTENT)],
        "50 ms",
    );
    let r = run_checked(&t, "erica_plus");
    // ERICA+ targets the full link with a small queue.
    let bott = port(&r, "sw1->sw2");
    assert!(bott.utilization > 0.9, "{}", bott.utilization);
}

#[test]
fn efci_conserves_and_repeats() {
    let d = "allocator = { kind = \"efci\", threshold = \"50 cells\" }\n\
             abr = { rif = 0.0625 }\nswitch_buffer = \"2000 cells\"";
    let t = dumbbell(d, &[abr(PERSISTENT), abr(PERSISTENT)], "50 ms");
    let r = run_checked(&t, "efci");
    // Both start at PCR = the link rate: the shared link congests, the EFCI marks come
    // back as CI and the sources slow down below PCR.
    for c in &r.connections {
        assert!(c.acr_mean_bps.unwrap() < 0.9 * 155.52e6, "{}", c.name);
    }
}

#[test]
fn vbr_background_conserves_and_repeats() {
    let vbr = "{ kind = \"on_off\", peak_rate = \"124.42 Mbps\", on = \"5 ms\", off = \"5 ms\" }";
    let t = dumbbell(
        ERICA,
        &[
            abr(PERSISTENT),
            abr(PERSISTENT),
            Conn {
                service: "vbr",
                traffic: vbr,
            },
        ],
        "60 ms",
    );
    let r = run_checked(&t, "vbr background");
    // ABR gets less than without the VBR load.
    let alone = run(&dumbbell(
        ERICA,
        &[abr(PERSISTENT), abr(PERSISTENT)],
        "60 ms",
    ));
    for name in ["c1", "c2"] {
        assert!(
            conn(&r, name).acr_mean_bps.unwrap() < conn(&alone, name).acr_mean_bps.unwrap(),
            "{name}"
        );
    }
    assert!(conn(&r, "c3").cells_delivered > 0);
}

#[test]
fn request_response_conserves_and_repeats() {
    let rr = "{ kind = \"request_response\", request = \"16 cells\", response = \"128 cells\", think_time = \"1 ms\" }";
    let t = dumbbell(ERICA, &[abr(PERSISTENT), abr(rr)], "50 ms");
    let r = run_checked(&t, "request_response");
    let c = conn(&r, "c2");
    assert_eq!(c.traffic, "request_response");
    assert!(c.reverse_throughput_bps.unwrap() > 0.0);
    assert!(c.reverse_acr_final_bps.is_some());
    // Responses (128 cells) outweigh requests (16 cells).
    assert!(c.reverse_throughput_bps.unwrap() > c.throughput_bps);
    // UBR request/response runs too (no RM cells).
    let t = dumbbell(
        ERICA,
        &[Conn {
            service: "ubr",
            traffic: rr,
        }],
        "20 ms",
    );
    run_checked(&t, "request_response over ubr");
}

#[test]
fn rate_capped_persistent_conserves_and_repeats() {
    let capped = "{ kind = \"persistent\", rate_cap = \"10 Mbps\", cap_until = \"20 ms\" }";
    let t = dumbbell(ERICA, &[abr(PERSISTENT), abr(capped)], "60 ms");
    let r = run_checked(&t, "rate capped");
    let c = conn(&r, "c2");
    // Capped at 10 Mbps for 20 ms, then free for 40 ms: well above 10 Mbps on average.
    assert!(c.throughput_bps > 20e6, "{}", c.throughput_bps);
    // ... and, while capped, below its share: the uncapped source took the rest.
    let a = conn(&r, "c1");
    assert!(a.throughput_bps > c.throughput_bps);
    // Until 20 ms the application hands at most 10 Mbps: 10e6 * 0.02 / 424 = 471.7 cells.
    let ts = &r.timeseries;
    let k = ts.abr_names.iter().position(|n| n == "c2").unwrap();
    let at20 = ts
        .time_s
        .iter()
        .position(|t| (*t - 0.020).abs() < 1e-9)
        .unwrap();
    let rx = ts.abr_cells_received[k][at20];
    assert!(rx > 400 && rx <= 472, "{rx} cells by 20 ms");
}

#[test]
fn one_source_lan_erica_converges_to_target_utilization() {
    let t = dumbbell(ERICA, &[abr(PERSISTENT)], "50 ms");
    let r = run_checked(&t, "one source");
    let c = conn(&r, "c1");
    let share = c.fair_share_bps.unwrap();
    assert!(
        (share - 155.52e6).abs() < 1.0,
        "the bottleneck is the whole link: {share}"
    );
    let want = share * 0.95;
    let acr = c.acr_final_bps.unwrap();
    assert!(
        (acr / want - 1.0).abs() < 0.01,
        "ACR {acr}, expected {want}"
    );
}

/// s1 -> sw1 -> sw2 -> sw3 -> d1; the sw2 -> sw3 link runs at `mid_rate`.
fn three_switches(defaults: &str, mid_rate: &str, ports: &str) -> String {
    let mut s = format!(
        "seed = 1\n[measurement]\nduration = \"60 ms\"\nsample_interval = \"1 ms\"\n[defaults]\n{defaults}\n"
    );
    for (n, k) in [
        ("s1", "host"),
        ("sw1", "switch"),
        ("sw2", "switch"),
        ("sw3", "switch"),
        ("d1", "host"),
    ] {
        s += &format!("[[node]]\nname = \"{n}\"\nkind = \"{k}\"\n");
    }
    for (a, b) in [("s1", "sw1"), ("sw1", "sw2"), ("sw3", "d1")] {
        s += &format!("[[link]]\nbetween = [\"{a}\", \"{b}\"]\nlength = \"1 km\"\n");
    }
    s += &format!(
        "[[link]]\nbetween = [\"sw2\", \"sw3\"]\nlength = \"1 km\"\nrate = \"{mid_rate}\"\n{ports}"
    );
    s += "[[connection]]\nname = \"c\"\nfrom = \"s1\"\nto = \"d1\"\nservice = \"abr\"\ntraffic = { kind = \"persistent\" }\n";
    s
}

#[test]
fn brm_feedback_crosses_a_three_switch_route() {
    let abr = "abr = { icr = \"10 Mbps\", rif = 1.0 }";
    // ERICA only at the middle switch's port toward sw3 (the 50 Mbps bottleneck): its ER
    // must travel back through sw2 and sw1 to the source.
    let only_mid = three_switches(
        abr,
        "50 Mbps",
        "[[port]]\nnode = \"sw2\"\ntoward = \"sw3\"\nallocator = { kind = \"erica\", target_utilization = 0.9 }\n",
    );
    let r = run_checked(&only_mid, "three switches, ERICA at sw2");
    let c = conn(&r, "c");
    let share = c.fair_share_bps.unwrap();
    assert!((share - 50e6).abs() < 1.0, "{share}");
    let acr = c.acr_final_bps.unwrap();
    assert!((acr / (0.9 * share) - 1.0).abs() < 0.01, "ACR {acr}");
    assert!(c.brm_received.unwrap() > 10);
    // ERICA at every switch port: the bottleneck's ER is still the one that sticks.
    let all = three_switches(
        &format!("{abr}\nallocator = {{ kind = \"erica\", target_utilization = 0.9 }}"),
        "50 Mbps",
        "",
    );
    let r = run_checked(&all, "three switches, ERICA everywhere");
    let acr = conn(&r, "c").acr_final_bps.unwrap();
    assert!((acr / (0.9 * 50e6) - 1.0).abs() < 0.01, "ACR {acr}");
    // No allocator anywhere: BRMs come back with ER = PCR and the source runs at PCR.
    let none = three_switches(abr, "50 Mbps", "");
    let r = run_checked(&none, "three switches, no allocator");
    let acr = conn(&r, "c").acr_final_bps.unwrap();
    // (ER travels as f32: ACR = PCR rounded to f32, within 1e-7.)
    assert!((acr / 155.52e6 - 1.0).abs() < 1e-6, "ACR {acr}");
}

#[test]
fn abr_rate_goes_to_zero_under_a_cbr_hog_and_recovers() {
    // A CBR connection takes 149.3 of 155.52 Mbps (96 %) of sw1 -> sw2 until 20 ms: with
    // U = 0.95 the ABR capacity is max(0.95 - 0.96, 0) = 0, ERICA sends ER = 0 and the ABR
    // source drops to ACR = MCR = 0, then sends out-of-rate FRMs at TCR (rule 11). After
    // the CBR stops it gets the whole target capacity back.
    let play = |tcr: &str| {
        let d = format!(
            "allocator = {{ kind = \"erica\", target_utilization = 0.95 }}\n\
             abr = {{ icr = \"10 Mbps\", rif = 1.0, tcr = \"{tcr}\" }}"
        );
        let cbr = "{ kind = \"cbr\", rate = \"149.3 Mbps\" }\nstop = \"20 ms\"";
        let t = dumbbell(
            &d,
            &[
                abr(PERSISTENT),
                Conn {
                    service: "cbr",
                    traffic: cbr,
                },
            ],
            "100 ms",
        );
        run_checked(&t, &format!("cbr hog, tcr {tcr}"))
    };
    let slow = play("10 cells/s");
    let fast = play("1000 cells/s");
    for r in [&slow, &fast] {
        let ts = &r.timeseries;
        let during: Vec<f32> = ts
            .time_s
            .iter()
            .zip(&ts.acr_mbps[0])
            .filter(|(t, _)| **t > 0.012 && **t < 0.020)
            .map(|(_, a)| *a)
            .collect();
        assert!(
            !during.is_empty() && during.iter().all(|a| *a == 0.0),
            "{during:?}"
        );
        let acr = conn(r, "c1").acr_final_bps.unwrap();
        assert!((acr / (0.95 * 155.52e6) - 1.0).abs() < 0.01, "{acr}");
    }
    // With TCR = 1000 cells/s about one out-of-rate FRM per ms went while ACR was 0.
    let extra = conn(&fast, "c1").rm_cells_sent.unwrap() as i64
        - conn(&slow, "c1").rm_cells_sent.unwrap() as i64;
    assert!(extra >= 8, "{extra} more RM cells with the faster TCR");
}

// Regression: the goodput of a request/response connection used to count both
// directions, which cross different links, so efficiency reached 1.145 here. It counts the
// forward direction only since commit 3de3f43; the reverse is in reverse_throughput_bps.
#[test]
fn efficiency_stays_at_most_one_with_request_response() {
    let rr = "{ kind = \"request_response\", request = \"16 cells\", response = \"128 cells\", think_time = \"1 ms\" }";
    let r = run(&dumbbell(ERICA, &[abr(PERSISTENT), abr(rr)], "50 ms"));
    assert!(
        r.summary.efficiency <= 1.0 + 1e-9,
        "{}",
        r.summary.efficiency
    );
    let c = conn(&r, "c2");
    assert!((c.goodput_bps / (c.throughput_bps * 48.0 / 53.0) - 1.0).abs() < 1e-9);
}

#[test]
fn a_source_whose_acr_collapses_runs_to_the_end() {
    // Found by fuzzing (issue 14's review): under the EFCI allocator a source's ACR, with
    // MCR 0, decreased until 1/ACR no longer fit a time, and its next opportunity wrapped
    // (a debug build's overflow; a release build aborted on a 4 GiB allocation).
    let text = r#"
seed = 81
[measurement]
duration = "23261 us"
sample_interval = "684 us"
[defaults]
link_rate = "1000000000 bps"
allocator = { kind = "efci", threshold = "50 cells" }
arrival_order = "random"
[[node]]
name = "sw0"
kind = "switch"
[[node]]
name = "h0"
kind = "host"
[[node]]
name = "h1"
kind = "host"
[[link]]
between = ["h0", "sw0"]
delay = "1 ms"
rate = "100000000 bps"
[[link]]
between = ["h1", "sw0"]
delay = "1 ms"
[[port]]
node = "h0"
toward = "sw0"
buffer = "9 cells"
[[connection]]
name = "c0"
from = "h1"
to = "h0"
service = "abr"
abr = { pcr = "3122883024 bps", icr = "3091654194 bps", nrm = 31 }
traffic = { kind = "request_response", request = "4 cells", response = "581 cells", think_time = "454 us" }
[[connection]]
name = "c1"
from = "h1"
to = "h0"
service = "abr"
setup = "pre_established"
abr = { pcr = "1842007866 bps", icr = "1842007865 bps", nrm = 2 }
traffic = { kind = "persistent" }
"#;
    let (a, b) = (run(text), run(text));
    support::check_conservation(&a, "ACR collapse under EFCI");
    assert_eq!(fingerprint(&a), fingerprint(&b));
    assert!(a.connections.iter().all(|c| c.rm_cells_sent.unwrap() > 0));
}

/// A connection that starts at or after the run's end sends nothing, has no ACR, claims no
/// fair share and is left out of the fairness indices; the result names it (a review found
/// it given its ICR as a mean ACR and a share taken off the others').
#[test]
fn a_connection_starting_after_the_end_is_left_out() {
    let ex =
        std::fs::read_to_string(support::repo().join("examples/abr_two_sources.toml")).unwrap();
    let late = ex.replacen("to = \"d2\"\n", "to = \"d2\"\nstart = \"60 ms\"\n", 1);
    let r = run_checked(&late, "late");
    assert_eq!(r.late_connections, ["b"]);
    let (a, b) = (conn(&r, "a"), conn(&r, "b"));
    assert_eq!(
        (b.cells_sent, b.acr_mean_bps, b.acr_final_bps),
        (0, None, None)
    );
    assert_eq!(b.fair_share_bps, None);
    assert!(a.acr_mean_bps.is_some());
    // Alone in the run, a's fair share is the whole bottleneck (its PCR caps it).
    let both = support::run(&ex);
    assert!(a.fair_share_bps.unwrap() > conn(&both, "a").fair_share_bps.unwrap() * 1.5);
    assert_eq!(r.summary.fairness, 1.0);
    assert!(both.late_connections.is_empty());
    assert_eq!(b.final_cwnd_bytes, None);
}
