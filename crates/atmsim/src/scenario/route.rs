//! A connection's route: the nodes it crosses, given or the fewest hops through switches.

use super::nodes::Nodes;
use super::ports::Ports;
use super::schema::ConnectionSpec;
use crate::config::{err, ConfigError};
use std::collections::{BTreeSet, VecDeque};

/// The route of connection `c` (key path `p`) from node `from` to node `to`.
pub fn resolve(
    p: &str,
    c: &ConnectionSpec,
    from: usize,
    to: usize,
    nodes: &Nodes,
    ports: &Ports,
) -> Result<Vec<usize>, ConfigError> {
    match &c.route {
        Some(r) => explicit(p, c, r, from, to, nodes, ports),
        None => shortest(from, to, nodes, ports).ok_or_else(|| {
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
    r: &[String],
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
        if !ports.index.contains_key(&(idx[k - 1], idx[k])) {
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
    let mut seen = BTreeSet::new();
    for (k, n) in idx.iter().enumerate() {
        if !seen.insert(*n) {
            return err(
                format!("{p}.route[{k}]"),
                format!("{:?} appears twice; a route may not loop", r[k]),
            );
        }
    }
    Ok(idx)
}

/// The route with the fewest hops (breadth first, in link order) crossing only switches.
fn shortest(from: usize, to: usize, nodes: &Nodes, ports: &Ports) -> Option<Vec<usize>> {
    let n = nodes.cfg.len();
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in ports.index.keys() {
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
