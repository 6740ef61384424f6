//! Parameters shared between connections: the same as each one resolved alone.

use crate::scenario::{from_json_str, resolve::resolve, Scenario};
use std::sync::Arc;

/// Hosts h0..h3 on switch s, the link of h3 at a lower rate; `connections` as JSON.
fn scenario(connections: &str) -> Scenario {
    let text = format!(
        r#"{{"measurement": {{"duration": "1 s"}},
            "defaults": {{"tcp": {{"mss": "1024 B"}}, "abr": {{"rif": 0.0625}}}},
            "node": [{{"name": "s", "kind": "switch"}}, {{"name": "h0", "kind": "host"}},
                     {{"name": "h1", "kind": "host"}}, {{"name": "h2", "kind": "host"}},
                     {{"name": "h3", "kind": "host"}}],
            "link": [{{"between": ["h0", "s"]}}, {{"between": ["h1", "s"]}},
                     {{"between": ["h2", "s"]}}, {{"between": ["h3", "s"], "rate": "10 Mbps"}}],
            "connection": [{connections}]}}"#
    );
    resolve(&from_json_str(&text).expect("parses")).expect("resolves")
}

fn conn(name: &str, from: &str, rest: &str) -> String {
    format!(r#"{{"name": "{name}", "from": "{from}", "to": "h2"{rest}}}"#)
}

/// Every connection's parameters equal those it gets as the only connection; those that
/// set nothing of their own and share start, class and access rate share one copy.
#[test]
fn shared_parameters_are_each_connections_own() {
    let tcp = r#", "service": "ubr", "traffic": {"kind": "tcp"}"#;
    let abr = r#", "service": "abr", "traffic": {"kind": "persistent"}"#;
    let list = [
        conn("a", "h0", tcp),
        conn(
            "own",
            "h0",
            r#", "service": "ubr", "traffic": {"kind": "tcp", "tcp": {"mss": "512 B"}}"#,
        ),
        conn("b", "h1", tcp),
        conn("late", "h1", &format!(r#"{tcp}, "start": "5 ms""#)),
        conn("slow", "h3", tcp),
        conn("x", "h0", abr),
        conn("y", "h1", abr),
        conn(
            "w",
            "h1",
            r#", "service": "abr", "traffic": {"kind": "persistent"}, "abr": {"rif": 0.5}"#,
        ),
        conn("z", "h3", abr),
        conn(
            "cbr",
            "h0",
            r#", "service": "ubr", "traffic": {"kind": "cbr", "rate": "1 Mbps"}, "stop": "20 ms""#,
        ),
    ];
    let all = scenario(&list.join(","));
    for (i, one) in list.iter().enumerate() {
        let alone = scenario(one);
        let (c, a) = (&all.connections[i], &alone.connections[0]);
        assert_eq!(c.tcp, a.tcp, "{}", all.connection_name(i));
        assert_eq!(c.abr, a.abr, "{}", all.connection_name(i));
        assert_eq!(format!("{:?}", c.tcp), format!("{:?}", a.tcp));
        assert_eq!(format!("{:?}", c.abr), format!("{:?}", a.abr));
        assert_eq!(format!("{:?}", c.app), format!("{:?}", a.app));
        let (cp, ap) = (all.path(i), alone.path(0));
        assert_eq!(
            (cp.from(), cp.to(), c.stop()),
            (ap.from(), ap.to(), a.stop())
        );
    }
    let c = &all.connections;
    let same_tcp =
        |i: usize, j: usize| Arc::ptr_eq(c[i].tcp.as_ref().unwrap(), c[j].tcp.as_ref().unwrap());
    let same_abr =
        |i: usize, j: usize| Arc::ptr_eq(c[i].abr.as_ref().unwrap(), c[j].abr.as_ref().unwrap());
    let same_app =
        |i: usize, j: usize| Arc::ptr_eq(c[i].app.as_ref().unwrap(), c[j].app.as_ref().unwrap());
    assert!(same_tcp(0, 2));
    assert!(same_abr(5, 6));
    assert!(
        same_app(5, 8) && same_app(5, 7),
        "one persistent application"
    );
    assert!(!same_app(5, 9), "another rate");
    assert!(c.iter().take(5).all(|t| t.app.is_none()), "TCP");
    assert_eq!(c[9].stop(), Some(20_000_000_000), "20 ms");
    assert_eq!(c[5].stop(), None);
    assert!(!same_abr(5, 8), "h3's access link is slower: another PCR");
    assert!(!same_abr(6, 7), "w sets its own RIF");
    assert_ne!(
        c[1].tcp.as_ref().unwrap().mss,
        c[0].tcp.as_ref().unwrap().mss,
        "own sets its MSS"
    );
}

/// The LLC/SNAP setting is part of what shared parameters depend on: a source queue of 11
/// cells holds a 480-byte segment without LLC/SNAP (11 cells) but not with it (12), so the
/// second connection, identical but for LLC/SNAP, is refused although the first was not.
#[test]
fn llc_snap_is_part_of_what_parameters_depend_on() {
    let text = r#"{"measurement": {"duration": "1 s"},
        "defaults": {"tcp": {"mss": "480 B"}, "abr": {"source_queue": "11 cells"}},
        "node": [{"name": "s", "kind": "switch"}, {"name": "h0", "kind": "host"},
                 {"name": "h1", "kind": "host"}],
        "link": [{"between": ["h0", "s"]}, {"between": ["h1", "s"]}],
        "connection": [
            {"name": "a", "from": "h0", "to": "h1", "service": "abr", "llc_snap": false,
             "traffic": {"kind": "tcp"}},
            {"name": "b", "from": "h0", "to": "h1", "service": "abr",
             "traffic": {"kind": "tcp"}}]}"#;
    let e = resolve(&from_json_str(text).expect("parses")).expect_err("b's segment does not fit");
    let e = e.to_string();
    assert!(
        e.contains("connection[1].abr.source_queue") && e.contains("12 cells"),
        "{e}"
    );
}

#[test]
fn an_error_names_the_connection_by_its_index() {
    let text = r#"{"measurement": {"duration": "1 s"},
        "node": [{"name": "s", "kind": "switch"}, {"name": "h0", "kind": "host"},
                 {"name": "h1", "kind": "host"}],
        "link": [{"between": ["h0", "s"]}, {"between": ["h1", "s"]}],
        "connection": [
            {"name": "a", "from": "h0", "to": "h1", "traffic": {"kind": "tcp"}},
            {"name": "b", "from": "h0", "to": "h1", "traffic": {"kind": "tcp"}},
            {"name": "c", "from": "h0", "to": "nowhere", "traffic": {"kind": "tcp"}}]}"#;
    let e = resolve(&from_json_str(text).expect("parses"))
        .expect_err("an unknown host is refused")
        .to_string();
    assert!(e.contains("connection[2].to"), "{e}");
}

/// A connection's end at a switch, and an end that is not a node, are refused with these
/// messages (the names printed as the file gives them, quoted).
#[test]
fn ends_at_a_switch_or_an_unknown_node_are_refused_by_name() {
    let text = |to: &str| {
        format!(
            r#"{{"measurement": {{"duration": "1 s"}},
                "node": [{{"name": "s", "kind": "switch"}}, {{"name": "h0", "kind": "host"}}],
                "link": [{{"between": ["h0", "s"]}}],
                "connection": [{{"name": "c", "from": "h0", "to": "{to}",
                                 "traffic": {{"kind": "tcp"}}}}]}}"#
        )
    };
    let refused = |to: &str| {
        resolve(&from_json_str(&text(to)).expect("parses"))
            .expect_err("refused")
            .to_string()
    };
    assert_eq!(
        refused("s"),
        "connection[0].to: \"s\" is a switch; connections start and end at hosts"
    );
    assert_eq!(
        refused("h9"),
        "connection[0].to: node \"h9\" is not defined; defined nodes are \"s\", \"h0\""
    );
}
