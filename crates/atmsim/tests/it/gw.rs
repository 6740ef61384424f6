//! The `gw` allocator (ATMF 98-0408, general weighted fairness with MCR guarantees) end to
//! end, on the paper's stated expectations: MCR (10, 30, 50) Mb/s on a 149.76 Mb/s link
//! gives (29.92, 49.92, 69.92) Mb/s; the three-source transient (S2 active 0.4-0.8 s)
//! gives 74.88 Mb/s to S1 and S3, then 49.92 each. Within 1 %.

use atmsim::RunResult;

fn run(text: &str) -> RunResult {
    atmsim::run_toml(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Three sources s_i -> sw1 -> sw2 -> d_i; every link 149.76 Mbps, the trunk 1000 km.
/// `extra[i]` is appended to connection i's table (abr keys, start, stop).
fn three_sources(allocator: &str, extra: [&str; 3], duration: &str) -> String {
    let mut s = format!(
        "name = \"gw\"\nseed = 1\n[measurement]\nduration = \"{duration}\"\nsample_interval = \"10 ms\"\n\
         [defaults]\nlink_rate = \"149.76 Mbps\"\nallocator = {allocator}\n\
         [[node]]\nname = \"sw1\"\nkind = \"switch\"\n[[node]]\nname = \"sw2\"\nkind = \"switch\"\n\
         [[link]]\nbetween = [\"sw1\", \"sw2\"]\nlength = \"1000 km\"\n"
    );
    for (i, e) in extra.iter().enumerate() {
        let i = i + 1;
        s += &format!(
            "[[node]]\nname = \"s{i}\"\nkind = \"host\"\n[[node]]\nname = \"d{i}\"\nkind = \"host\"\n\
             [[link]]\nbetween = [\"s{i}\", \"sw1\"]\nlength = \"1 km\"\n\
             [[link]]\nbetween = [\"sw2\", \"d{i}\"]\nlength = \"1 km\"\n\
             [[connection]]\nname = \"c{i}\"\nfrom = \"s{i}\"\nto = \"d{i}\"\nservice = \"abr\"\n\
             traffic = {{ kind = \"persistent\" }}\n{e}\n"
        );
    }
    s
}

fn acr_mbps(r: &RunResult, name: &str) -> f64 {
    let c = r.connections.iter().find(|c| c.name == name).unwrap();
    c.acr_final_bps.unwrap() / 1e6
}

fn within_1pct(got: f64, want: f64, what: &str) {
    assert!(
        (got / want - 1.0).abs() <= 0.01,
        "{what}: {got:.3} Mb/s, expected {want} Mb/s"
    );
}

const GW: &str = "{ kind = \"gw\" }";

#[test]
fn gw_mcr_guarantees_of_98_0408() {
    // Scheme b (ExcessFairShare / z) is not held to 1 % here: it settles 2.5 % off on
    // c1 (docs/models/gw.md).
    for scheme in ["a", "d"] {
        let alloc = format!("{{ kind = \"gw\", scheme = \"{scheme}\" }}");
        let t = three_sources(
            &alloc,
            [
                "abr = { mcr = \"10 Mbps\" }",
                "abr = { mcr = \"30 Mbps\" }",
                "abr = { mcr = \"50 Mbps\" }",
            ],
            "400 ms",
        );
        let r = run(&t);
        eprintln!(
            "scheme {scheme}: {:.3} {:.3} {:.3}",
            acr_mbps(&r, "c1"),
            acr_mbps(&r, "c2"),
            acr_mbps(&r, "c3")
        );
        for (c, want) in [("c1", 29.92), ("c2", 49.92), ("c3", 69.92)] {
            within_1pct(acr_mbps(&r, c), want, &format!("scheme {scheme}, {c}"));
        }
        // The oracle agrees (fair_share_bps is max-min; the GW share is checked in maxmin).
    }
}

#[test]
fn gw_three_source_transient_of_98_0408() {
    let s2 = "start = \"400 ms\"\nstop = \"800 ms\"";
    for (until, want) in [
        ("390 ms", [74.88, 74.88]),
        ("790 ms", [49.92, 49.92]),
        ("1190 ms", [74.88, 74.88]),
    ] {
        let r = run(&three_sources(GW, ["", s2, ""], until));
        // S2 opens at 400 ms: in the run cut at 390 ms it has no ACR (a late connection).
        let c2 = r.connections.iter().find(|c| c.name == "c2").unwrap();
        assert_eq!(c2.acr_final_bps.is_none(), until == "390 ms");
        eprintln!(
            "{until}: {:.3} {:?} {:.3}",
            acr_mbps(&r, "c1"),
            c2.acr_final_bps.map(|a| a / 1e6),
            acr_mbps(&r, "c3")
        );
        within_1pct(acr_mbps(&r, "c1"), want[0], &format!("S1 at {until}"));
        within_1pct(acr_mbps(&r, "c3"), want[1], &format!("S3 at {until}"));
        if until == "790 ms" {
            within_1pct(acr_mbps(&r, "c2"), 49.92, "S2 at 790 ms");
        }
    }
}

#[test]
fn gw_weights_split_the_link() {
    // Weights 1, 1, 2, no MCR: 37.44, 37.44, 74.88 Mb/s.
    let t = three_sources(GW, ["", "", "abr = { weight = 2.0 }"], "400 ms");
    let r = run(&t);
    for (c, want) in [("c1", 37.44), ("c2", 37.44), ("c3", 74.88)] {
        within_1pct(acr_mbps(&r, c), want, c);
    }
}

#[test]
fn gw_weight_must_be_positive() {
    let t = three_sources(GW, ["abr = { weight = 0.0 }", "", ""], "10 ms");
    let e = atmsim::run_toml(&t).unwrap_err().to_string();
    assert!(e.contains("weight") && e.contains("above 0"), "{e}");
}
