//! A connection's route: the nodes it crosses, given or the fewest hops through switches.

use super::nodes::Nodes;
use super::ports::Ports;
use super::schema::ConnectionSpec;
use crate::config::{err, ConfigError};
use std::collections::VecDeque;

/// The route of connection `c` (key path `p`) from node `from` to node `to`; `finder`
/// finds the routes the file leaves out (made once per scenario).
pub fn resolve(
    p: &str,
    c: &ConnectionSpec,
    (from, to): (usize, usize),
    nodes: &Nodes,
    ports: &Ports,
    finder: &mut Finder,
) -> Result<Vec<usize>, ConfigError> {
    match &c.route {
        Some(r) => explicit(p, c, r, from, to, nodes, ports),
        None => finder.shortest(from, to, nodes, ports).ok_or_else(|| {
            ConfigError::new(
                format!("{p}.to"),
                format!(
                    "no path of links leads from {:?} to {:?} through switches",
                    c.from, c.to
                ),
            )
        }),
    }
}

/// A given route: from `from` to `to`, over links, crossing only switches, no loops.
fn explicit(
    p: &str,
    c: &ConnectionSpec,
    r: &[super::schema::Name],
    from: usize,
    to: usize,
    nodes: &Nodes,
    ports: &Ports,
) -> Result<Vec<usize>, ConfigError> {
    let mut idx = Vec::with_capacity(r.len());
    for (k, name) in r.iter().enumerate() {
        idx.push(nodes.find(|| format!("{p}.route[{k}]"), name)?);
    }
    if idx.first() != Some(&from) || idx.last() != Some(&to) {
        return err(
            format!("{p}.route"),
            format!(
                "must start at from = {:?} and end at to = {:?}; got {:?}",
                c.from, c.to, r
            ),
        );
    }
    for k in 1..idx.len() {
        if ports.port(idx[k - 1], idx[k]).is_none() {
            return err(
                format!("{p}.route[{k}]"),
                format!(
                    "no link joins {:?} to {:?}; add a [[link]] between them or change the route",
                    r[k - 1],
                    r[k]
                ),
            );
        }
        if k + 1 < idx.len() && !nodes.is_switch(idx[k]) {
            return err(
                format!("{p}.route[{k}]"),
                format!("{:?} is a host; only switches can be crossed", r[k]),
            );
        }
    }
    if let Some(k) = first_repeat(&idx) {
        return err(
            format!("{p}.route[{k}]"),
            format!("{:?} appears twice; a route may not loop", r[k]),
        );
    }
    Ok(idx)
}

/// The first place of route `idx` whose node is also at an earlier place, if any: a scan
/// for the usual routes of a few nodes (an ordered set for each of 10 000 routes was a
/// fifth of resolving them, issue 14), a hashed set for long ones.
fn first_repeat(idx: &[usize]) -> Option<usize> {
    if idx.len() <= 32 {
        return (1..idx.len()).find(|&k| idx[..k].contains(&idx[k]));
    }
    let mut seen = rustc_hash::FxHashSet::default();
    idx.iter().position(|n| !seen.insert(*n))
}

/// Finds the routes with the fewest hops crossing only switches: breadth first, each
/// node's neighbours in the order of the nodes (of `[[node]]`, [`Ports::neighbours`]).
///
/// A breadth-first search from a host `from` crosses only switches, so every host but
/// `from` is a leaf of its tree, and the tree (the predecessor of each node) depends only
/// on `from`'s neighbours: hosts on the same switch share it. The finder keeps the trees of
/// the last few neighbour lists, and the adjacency lists, built once: a scenario with
/// 10 000 connections and no routes given used to search the whole network, and rebuild
/// its adjacency, for each one (15 s; issue 14, set-up of large scenarios). The routes are
/// the same: each tree is that of the search from `from`, which visits `from` first
/// instead of as a leaf, and a leaf is never expanded.
#[derive(Default)]
pub struct Finder {
    /// Each node's neighbours, in node order; built on first use.
    adj: Vec<Vec<usize>>,
    /// `(neighbours of the root, predecessor of every node)`, the most recently used last.
    trees: Vec<(Vec<usize>, Vec<usize>)>,
}

/// The predecessor of a node the search did not reach.
const UNSEEN: usize = usize::MAX;
/// The predecessor of the root's neighbours (the root, `from`, is not a node of the tree).
const ROOT: usize = usize::MAX - 1;
/// Trees kept: one per distinct neighbour list of the connections' sources, the least
/// recently used dropped first.
const TREES: usize = 8;

impl Finder {
    /// The fewest-hop route from `from` to `to`, if any.
    pub fn shortest(
        &mut self,
        from: usize,
        to: usize,
        nodes: &Nodes,
        ports: &Ports,
    ) -> Option<Vec<usize>> {
        if self.adj.is_empty() {
            self.adj = ports.neighbours(nodes.cfg.len());
        }
        let prev = self.tree(from, nodes);
        if prev[to] == UNSEEN {
            return None;
        }
        let mut r = vec![to];
        let mut last = to;
        while prev[last] != ROOT {
            last = prev[last];
            r.push(last);
        }
        r.push(from);
        r.reverse();
        Some(r)
    }

    /// The search tree from a host with `from`'s neighbours (made if not kept; the tree
    /// used becomes the most recent).
    fn tree(&mut self, from: usize, nodes: &Nodes) -> &[usize] {
        let first = &self.adj[from];
        match self.trees.iter().position(|(n, _)| n == first) {
            Some(i) => {
                let t = self.trees.remove(i);
                self.trees.push(t);
            }
            None => {
                let prev = search(&self.adj, first, nodes);
                if self.trees.len() == TREES {
                    self.trees.remove(0);
                }
                self.trees.push((first.clone(), prev));
            }
        }
        &self.trees[self.trees.len() - 1].1
    }
}

/// Breadth first from a root with neighbours `first` (in order), expanding only switches.
fn search(adj: &[Vec<usize>], first: &[usize], nodes: &Nodes) -> Vec<usize> {
    let mut prev = vec![UNSEEN; adj.len()];
    let mut q = VecDeque::new();
    for &m in first {
        if prev[m] == UNSEEN {
            prev[m] = ROOT;
            q.push_back(m);
        }
    }
    while let Some(x) = q.pop_front() {
        if !nodes.is_switch(x) {
            continue;
        }
        for &m in &adj[x] {
            if prev[m] == UNSEEN {
                prev[m] = x;
                q.push_back(m);
            }
        }
    }
    prev
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{from_json_str, ports};
    use atmsim_kernel::RngStream;

    /// The search the finder replaced: one breadth-first search per connection from
    /// `from`, over adjacency rebuilt each time, stopping at `to`.
    fn one_search(from: usize, to: usize, nodes: &Nodes, ports: &Ports) -> Option<Vec<usize>> {
        let n = nodes.cfg.len();
        let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut links: Vec<(usize, usize)> = ports.links().collect();
        links.sort();
        for (a, b) in links {
            adj[a].push(b);
        }
        let mut prev = vec![usize::MAX; n];
        let mut q = VecDeque::from([from]);
        prev[from] = from;
        while let Some(x) = q.pop_front() {
            if x == to {
                break;
            }
            if x != from && !nodes.is_switch(x) {
                continue;
            }
            for &m in &adj[x] {
                if prev[m] == usize::MAX {
                    prev[m] = x;
                    q.push_back(m);
                }
            }
        }
        if prev[to] == usize::MAX {
            return None;
        }
        let mut r = vec![to];
        while let Some(&last) = r.last() {
            if last == from {
                break;
            }
            r.push(prev[last]);
        }
        r.reverse();
        Some(r)
    }

    /// The first repeated place of a route, by a scan (up to 32 nodes) and by a set
    /// (longer routes), against the definition.
    #[test]
    fn first_repeat_finds_the_first_place_seen_before() {
        let naive = |idx: &[usize]| (0..idx.len()).find(|&k| idx[..k].contains(&idx[k]));
        let mut rng = RngStream::new(7, "route/first_repeat");
        for len in [0, 1, 2, 5, 31, 32, 33, 40, 200] {
            for _ in 0..50 {
                let nodes = 1 + rng.below(2 * len as u64 + 1);
                let idx: Vec<usize> = (0..len).map(|_| rng.below(nodes) as usize).collect();
                assert_eq!(first_repeat(&idx), naive(&idx), "{idx:?}");
            }
            let distinct: Vec<usize> = (0..len).collect();
            assert_eq!(first_repeat(&distinct), None);
        }
    }

    /// Random networks (switches meshed at random, hosts on one to three switches, some
    /// host-to-host links, some parts unreachable): the finder's route between every two
    /// hosts, asked in random order so that kept trees are reused, is the one search's.
    #[test]
    fn routes_are_those_of_one_search_per_connection() {
        for seed in 0..30u64 {
            let mut rng = RngStream::new(seed, "route/finder");
            let (sw, hosts) = (2 + rng.below(6) as usize, 3 + rng.below(12) as usize);
            let mut node = Vec::new();
            for i in 0..sw {
                node.push(format!(r#"{{"name": "s{i}", "kind": "switch"}}"#));
            }
            for i in 0..hosts {
                node.push(format!(r#"{{"name": "h{i}", "kind": "host"}}"#));
            }
            let mut pairs = std::collections::BTreeSet::new();
            for a in 0..sw {
                for b in a + 1..sw {
                    if rng.below(3) == 0 {
                        pairs.insert((format!("s{a}"), format!("s{b}")));
                    }
                }
            }
            for h in 0..hosts {
                for _ in 0..1 + rng.below(3) {
                    pairs.insert((format!("h{h}"), format!("s{}", rng.below(sw as u64))));
                }
                if rng.below(6) == 0 {
                    let o = rng.below(hosts as u64) as usize;
                    if o != h {
                        pairs.insert((format!("h{}", h.min(o)), format!("h{}", h.max(o))));
                    }
                }
            }
            let link: Vec<String> = pairs
                .iter()
                .map(|(a, b)| format!(r#"{{"between": ["{a}", "{b}"]}}"#))
                .collect();
            let text = format!(
                r#"{{"measurement": {{"duration": "1 s"}}, "node": [{}], "link": [{}], "connection": []}}"#,
                node.join(","),
                link.join(",")
            );
            let f = from_json_str(&text).expect("a valid file");
            let nodes = Nodes::resolve(&f.node).expect("valid nodes");
            let ports = ports::resolve(&f, &nodes).expect("valid links");
            let mut finder = Finder::default();
            let mut asked = 0;
            for _ in 0..hosts * hosts {
                let from = sw + rng.below(hosts as u64) as usize;
                let to = sw + rng.below(hosts as u64) as usize;
                if from != to {
                    let want = one_search(from, to, &nodes, &ports);
                    assert_eq!(
                        finder.shortest(from, to, &nodes, &ports),
                        want,
                        "seed {seed}"
                    );
                    asked += want.is_some() as usize;
                }
            }
            assert!(asked > 0, "seed {seed}: no host pair was connected");
        }
    }
}
