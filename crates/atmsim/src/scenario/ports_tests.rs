//! Tests of `scenario::ports`.

use crate::scenario::{load_toml, PortRef, Scenario};

#[test]
fn ports_are_found_alike_from_a_node_of_one_link_and_from_the_index() {
    // Issue 14: a port leaving or entering a node of one link is found from that node's
    // only port; the others from the index, which holds the ports between nodes of
    // several links only. Every (node, neighbour) lookup must give the port a search of
    // the table gives. Links in an order where nodes gain their second link late: h1's
    // after its first link's other end has several, s3's before.
    let mut text = String::from("[measurement]\nduration = \"1 ms\"\n");
    for (n, kind) in [
        ("s1", "switch"),
        ("s2", "switch"),
        ("s3", "switch"),
        ("h1", "host"),
        ("h2", "host"),
        ("h3", "host"),
        ("lone", "host"),
    ] {
        text += &format!("[[node]]\nname = \"{n}\"\nkind = \"{kind}\"\n");
    }
    for (a, b) in [
        ("h1", "s1"),
        ("s1", "s2"),
        ("h2", "s2"),
        ("s3", "h3"),
        ("s2", "s3"),
        ("h1", "s3"),
        ("s1", "s3"),
    ] {
        text += &format!("[[link]]\nbetween = [\"{a}\", \"{b}\"]\n");
    }
    text +=
        "[[connection]]\nname = \"c\"\nfrom = \"h2\"\nto = \"h3\"\ntraffic = { kind = \"tcp\" }\n";
    let file = crate::scenario::from_toml_str(&text).expect("a valid file");
    let nodes = super::Nodes::resolve(&file.node).expect("valid nodes");
    let ports = super::resolve(&file, &nodes).expect("valid links");
    let n = nodes.cfg.len();
    for a in 0..n {
        for b in 0..n {
            let searched =
                (0..ports.cfg.len()).find(|&p| ports.cfg.node(p) == a && ports.cfg.toward(p) == b);
            assert_eq!(
                ports.port(a, b),
                searched,
                "{} -> {}",
                nodes.cfg.name(a),
                nodes.cfg.name(b)
            );
        }
    }
    // Hosts of one link (h2, h3) and the node without any are not in the index; the
    // ports between nodes of several links (s1, s2, s3, h1) are, both ways.
    let indexed = ports.index.len();
    assert_eq!(
        indexed,
        2 * 5,
        "h1-s1, s1-s2, s2-s3, h1-s3 and s1-s3, both ways"
    );
    // A second link between two nodes is refused, whichever way a lookup finds the first.
    for (a, b) in [("s1", "s2"), ("h2", "s2"), ("s3", "h3")] {
        let again = format!("{text}[[link]]\nbetween = [\"{b}\", \"{a}\"]\n");
        let file = crate::scenario::from_toml_str(&again).expect("a valid file");
        let nodes = super::Nodes::resolve(&file.node).expect("valid nodes");
        let e = super::resolve(&file, &nodes).err().expect("refused");
        assert!(e.message.contains("already linked"), "{e:?}");
    }
}

#[test]
fn ports_are_found_alike_in_random_networks_as_their_links_are_added() {
    // Every prefix of a random list of links (duplicates included) over a few hosts and
    // switches: a duplicate is refused, and otherwise every (node, neighbour) look-up,
    // nodes that do not exist included, gives the port a search of the table gives.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    for _ in 0..400 {
        let nodes = 2 + rnd(7) as usize;
        let switch: Vec<bool> = (0..nodes).map(|_| rnd(2) == 0).collect();
        let links: Vec<(usize, usize)> = (0..rnd(14))
            .map(|_| {
                let a = rnd(nodes as u64) as usize;
                let b = rnd(nodes as u64) as usize;
                (a, if a == b { (a + 1) % nodes } else { b })
            })
            .collect();
        for k in 1..=links.len() {
            let mut text = String::from("[measurement]\nduration = \"1 ms\"\n");
            for (i, &sw) in switch.iter().enumerate() {
                let kind = if sw { "switch" } else { "host" };
                text += &format!("[[node]]\nname = \"n{i}\"\nkind = \"{kind}\"\n");
            }
            for &(a, b) in &links[..k] {
                text += &format!("[[link]]\nbetween = [\"n{a}\", \"n{b}\"]\n");
            }
            text += "[[connection]]\nname = \"c\"\nfrom = \"n0\"\nto = \"n1\"\ntraffic = { kind = \"tcp\" }\n";
            let file = crate::scenario::from_toml_str(&text).expect("a valid file");
            let names = super::Nodes::resolve(&file.node).expect("valid nodes");
            let mut seen = std::collections::HashSet::new();
            let dup = links[..k]
                .iter()
                .any(|&(a, b)| !seen.insert((a.min(b), a.max(b))));
            match super::resolve(&file, &names) {
                Err(e) => assert!(dup && e.message.contains("already linked"), "{e:?}"),
                Ok(ports) => {
                    assert!(!dup, "{:?} resolved", &links[..k]);
                    for a in 0..nodes + 2 {
                        for b in 0..nodes + 2 {
                            let searched = (0..ports.cfg.len())
                                .find(|&p| ports.cfg.node(p) == a && ports.cfg.toward(p) == b);
                            assert_eq!(ports.port(a, b), searched, "{a} -> {b}: {:?}", &links[..k]);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn links_whose_ports_a_u32_cannot_number_are_refused() {
    assert!(super::numbered_links(0).is_ok());
    let most = (super::ONE_OF_MANY / 2 - 1) as usize;
    assert!(super::numbered_links(most).is_ok());
    let e = super::numbered_links(most + 1).unwrap_err();
    assert_eq!(e.path, "link");
    assert!(
        e.message.contains(&format!("allowed: at most {most}")),
        "{}",
        e.message
    );
    assert!(super::numbered_links(usize::MAX).is_err());
}

const SMALL: &str = include_str!("../../../../examples/ubr_small.toml");

fn index(sc: &Scenario, name: &str) -> usize {
    (0..sc.ports.len())
        .find(|&p| sc.port_name(p) == name)
        .expect("a port of the example")
}

fn port<'s>(sc: &'s Scenario, name: &str) -> PortRef<'s> {
    sc.ports.at(index(sc, name))
}

/// Ports with equal settings hold one shared copy; a port set apart by its link or its
/// `[[port]]` table has its own, with what it was given.
#[test]
fn ports_with_equal_settings_share_one_copy() {
    let sc = load_toml(SMALL).expect("the example resolves");
    let same = |a: &str, b: &str| {
        sc.ports.settings_index(index(&sc, a)) == sc.ports.settings_index(index(&sc, b))
    };
    assert!(same("src1->sw1", "src2->sw1"));
    assert!(same("sw1->src1", "sw1->src2"));
    assert!(!same("src1->sw1", "src3->sw1"), "2 km, not 1 km");
    assert!(
        !same("src1->sw1", "sw1->src1"),
        "a switch port has a buffer and a policy"
    );
    let (host, sw) = (
        port(&sc, "src1->sw1").settings,
        port(&sc, "sw1->src1").settings,
    );
    assert_eq!((host.buffer, host.policy.name()), (None, "tail_drop"));
    assert_eq!((sw.buffer, sw.policy.name()), (Some(600), "epd"));
    assert_eq!(host.prop, sw.prop);
    let dst = port(&sc, "sw2->dst").settings;
    assert_eq!((dst.buffer, dst.policy.name()), (Some(5000), "tail_drop"));
    let ports = &sc.ports;
    for a in 0..ports.len() {
        for b in 0..ports.len() {
            assert_eq!(
                ports.settings(a) == ports.settings(b),
                ports.settings_index(a) == ports.settings_index(b)
            );
        }
    }
}

/// A port set by two `[[port]]` tables is refused, naming both tables; ports set by
/// one keep what it gave.
#[test]
fn a_port_set_twice_names_both_tables() {
    let once =
        format!("{SMALL}\n[[port]]\nnode = \"sw1\"\ntoward = \"src1\"\nbuffer = \"700 cells\"\n");
    let sc = load_toml(&once).expect("one more table resolves");
    assert_eq!(port(&sc, "sw1->src1").settings.buffer, Some(700));
    assert_eq!(port(&sc, "sw1->src2").settings.buffer, Some(600));
    let twice =
        format!("{once}\n[[port]]\nnode = \"sw1\"\ntoward = \"src1\"\nbuffer = \"800 cells\"\n");
    let tables = twice.matches("[[port]]").count();
    let e = load_toml(&twice).expect_err("set twice").to_string();
    let (first, last) = (tables - 2, tables - 1);
    assert!(
        e.contains(&format!("port[{last}]"))
            && e.contains(&format!("port sw1->src1 is already set by port[{first}]")),
        "{e}"
    );
}

/// A network may have as many distinct kinds of buffer (drop policy and size) as a buffer
/// can name, no more: the example's ports have three (tail drop unlimited at the hosts and
/// at 5 000 cells; EPD at 600 cells), so a limit of two refuses them.
#[test]
fn more_distinct_buffers_than_a_buffer_can_name_are_refused() {
    let sc = load_toml(SMALL).expect("the example resolves");
    assert!(super::at_most_distinct_buffers(&sc.ports, 3).is_ok());
    let e = super::at_most_distinct_buffers(&sc.ports, 2).expect_err("three kinds");
    let text = e.to_string();
    assert!(
        text.contains("port.policy") && text.contains("3 distinct buffers"),
        "{text}"
    );
    assert!(text.contains("at most 2"), "{text}");
}
