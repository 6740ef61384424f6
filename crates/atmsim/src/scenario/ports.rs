//! `[[link]]` and `[[port]]`: every link gives one output port per direction; `[[port]]`
//! tables and `[defaults]` set their buffer, drop policy and rate allocator.

use super::model::{node_id, PortSettings, DEFAULT_LINK_RATE_BPS, PS_PER_KM};
use super::nodes::Nodes;
use super::port_table::PortTable;
use super::schema::{LinkSpec, PortSpec, ScenarioFile};
use crate::allocator::{AllocatorCfg, AllocatorSpec};
use crate::cell::CELL_BITS;
use crate::config::{err, ConfigError};
use crate::drop_policy::{PolicyCfg, PolicySpec};
use crate::port::MAX_BUFFER_KINDS;
use crate::units::BufferSize;
use atmsim_kernel::Time;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The resolved ports and an index by (node, neighbour).
pub struct Ports {
    /// The ports: link i gives ports 2i (first node to second) and 2i + 1.
    pub cfg: PortTable,
    /// Each node's only port, for a node of one link ([`ONE_OF_MANY`] for a node of several,
    /// [`NO_PORT_YET`] for one of none): a port leaving or entering such a node, a host's
    /// access link, is found from it alone ([`Ports::port`]; issue 14, set-up of large
    /// scenarios: at 100 000 one-pair VCs nearly every lookup and insert of `index` missed
    /// the processor's caches).
    only: Vec<u32>,
    /// (owning node, neighbour) -> port, for the ports both of whose nodes have several
    /// links, the others being found from [`Ports::only`] (hashed: as an ordered map its
    /// lookups and inserts were a third of resolving the links and routes of 10 000
    /// one-pair VCs, issue 14; in 32 bits, half the fresh memory of `usize`s). For lookups
    /// only: its order is the hasher's; [`Ports::neighbours`] lists the links in node
    /// order. (`FxHash` does not resist keys chosen to collide: a scenario built so would
    /// resolve slowly, in O(n^2) of its size, not wrongly.)
    index: FxHashMap<(u32, u32), u32>,
    /// The last distinct settings given out (at most [`RECENT_SETTINGS`]), most recent first,
    /// for ports to share ([`Ports::share`], [`Ports::share_ref`]): their indices in the table
    /// of settings.
    recent: Vec<usize>,
}

/// [`Ports::only`] of a node without a link.
const NO_PORT_YET: u32 = u32::MAX;
/// [`Ports::only`] of a node of several links.
const ONE_OF_MANY: u32 = u32::MAX - 1;

/// A port index in 32 bits (resolved paths hold them so).
fn port_id(i: usize) -> u32 {
    u32::try_from(i).expect("fewer than 2^32 ports")
}

/// How many distinct settings [`Ports::share`] looks back on: a network's ports usually have
/// one of a few (host ports, switch ports, a trunk), so a short list finds nearly every match
/// in O(1); a port it misses only holds its own copy.
const RECENT_SETTINGS: usize = 8;

/// What `[defaults]` gives every switch port.
struct PortDefaults {
    rate: f64,
    buffer: BufferSize,
    policy: PolicySpec,
    /// The switch ports' allocator and the host ports' (none), each built once and shared.
    allocator: Arc<AllocatorCfg>,
    no_allocator: Arc<AllocatorCfg>,
}

/// The settings a link gives its two ports before any `[[port]]` table or default policy:
/// the host's and the switch's kind, made once and changed in place for each link's rate
/// and delay, so that a port whose settings equal some already given takes their index
/// without a copy ([`Ports::share_ref`]; issue 14, set-up of large scenarios: a copy per
/// port cloned the allocator's `Arc`, an atomic instruction that waits for every store
/// before it, and at 100 000 one-pair VCs those waits on the index's cold slots were three
/// quarters of resolving the links).
struct LinkPorts {
    host: PortSettings,
    switch: PortSettings,
}

impl LinkPorts {
    fn of(d: &PortDefaults) -> LinkPorts {
        let kind = |buffer: Option<u32>, allocator: &Arc<AllocatorCfg>| PortSettings {
            rate_bps: 0,
            prop: 0,
            buffer,
            policy: PolicyCfg::default(),
            allocator: Arc::clone(allocator),
        };
        LinkPorts {
            host: kind(None, &d.no_allocator),
            switch: kind(cells(d.buffer), &d.allocator),
        }
    }
}

/// Resolves links into ports, applies the `[[port]]` tables, then gives every switch
/// port without one the default policy (policies come last: a port may set the finite
/// buffer that a threshold policy needs).
pub fn resolve(f: &ScenarioFile, nodes: &Nodes) -> Result<Ports, ConfigError> {
    let d = port_defaults(f)?;
    numbered_links(f.link.len())?;
    // Two ports per link, reserved exactly: grown by doubling, the table held up to 1.7x its
    // size for the whole run (6.3 MB for 3.8 MB of ports at 10 000 one-pair VCs; issue 14).
    let mut ports = Ports {
        cfg: PortTable::with_links(f.link.len()),
        only: vec![NO_PORT_YET; nodes.cfg.len()],
        index: FxHashMap::default(),
        recent: Vec::new(),
    };
    let mut made = LinkPorts::of(&d);
    for (i, l) in f.link.iter().enumerate() {
        add_link(&mut ports, i, l, nodes, (&d, &mut made))?;
    }
    // Port -> the `[[port]]` table that set it: as many entries as tables, not ports (issue
    // 14: a vector of one entry a port was a megabyte of fresh memory at 10 000 one-pair VCs).
    let mut set_by: FxHashMap<usize, usize> = FxHashMap::default();
    for (i, ps) in f.port.iter().enumerate() {
        apply_port(&mut ports, &mut set_by, i, ps, nodes, &d)?;
    }
    // Ports that shared settings before share them after (the default policy depends on
    // their buffer alone): each of the last few distinct settings is resolved once (set-up
    // of large networks).
    let mut defaulted: Vec<(usize, usize)> = Vec::new();
    for pi in 0..ports.cfg.len() {
        if set_by.contains_key(&pi) || !nodes.is_switch(ports.cfg.node(pi)) {
            continue;
        }
        let before = ports.cfg.settings_index(pi);
        if let Some(&(_, after)) = defaulted.iter().find(|&&(b, _)| b == before) {
            ports.cfg.set_settings(pi, after);
            continue;
        }
        let port = ports.cfg.at(pi);
        let mut s = PortSettings::clone(port.settings);
        s.policy = default_policy(&d, s.buffer, || format!("port {}", port.name(&nodes.cfg)))?;
        let after = ports.share(s);
        ports.cfg.set_settings(pi, after);
        defaulted.truncate(RECENT_SETTINGS - 1);
        defaulted.insert(0, (before, after));
    }
    if let BufferSize::Cells(0) = d.buffer {
        return err(
            "defaults.switch_buffer",
            "0 cells would drop every cell; allowed: at least 1 cell, or \"unlimited\"",
        );
    }
    // The settings ports had before a `[[port]]` table or the default policy gave them others
    // are no port's now (issue 14: kept, a network whose links differ would hold one more
    // copy per switch port).
    ports.cfg.drop_unused_settings();
    ports.recent.clear();
    at_most_distinct_buffers(&ports.cfg, MAX_BUFFER_KINDS)?;
    Ok(ports)
}

/// Refuses `links` links whose ports could not be numbered in 32 bits beside the two marks of
/// [`Ports::only`].
fn numbered_links(links: usize) -> Result<(), ConfigError> {
    if links.saturating_mul(2) < ONE_OF_MANY as usize {
        return Ok(());
    }
    err(
        "link",
        format!(
            "{links} links; allowed: at most {} (two ports each, numbered in 32 bits)",
            ONE_OF_MANY / 2 - 1
        ),
    )
}

/// Refuses ports with more than `most` distinct kinds of buffer, a drop policy with a size (a
/// port's buffer names its kind by a 16-bit index: `port::BufferTables`). Only a network of
/// more ports than that can have as many, so smaller ones are not looked at.
fn at_most_distinct_buffers(cfg: &PortTable, most: usize) -> Result<(), ConfigError> {
    if cfg.len() <= most {
        return Ok(());
    }
    let mut seen: FxHashMap<usize, ()> = FxHashMap::default();
    let mut kinds: FxHashMap<(String, Option<u32>), ()> = FxHashMap::default();
    for p in 0..cfg.len() {
        if seen.insert(cfg.settings_index(p), ()).is_none() {
            let settings = cfg.settings(p);
            kinds.insert((format!("{:?}", settings.policy), settings.buffer), ());
        }
    }
    if kinds.len() > most {
        return err(
            "port.policy",
            format!(
                "the ports have {} distinct buffers (a drop policy with its thresholds, and a \
                 buffer size); allowed: at most {most} in one network; give ports that differ \
                 only slightly the same thresholds and sizes",
                kinds.len()
            ),
        );
    }
    Ok(())
}

impl Ports {
    /// The port of node `node` toward node `toward`, if they are linked.
    pub fn port(&self, node: usize, toward: usize) -> Option<usize> {
        let (&at_node, &at_toward) = (self.only.get(node)?, self.only.get(toward)?);
        if at_node < ONE_OF_MANY {
            // `node`'s one link: its port, if it leads to `toward`.
            let p = at_node as usize;
            return (self.cfg.toward(p) == toward).then_some(p);
        }
        if at_toward < ONE_OF_MANY {
            // `toward`'s one link: the port entering it, its port's sibling, if from `node`.
            let p = at_toward as usize ^ 1;
            return (self.cfg.node(p) == node).then_some(p);
        }
        let key = (u32::try_from(node).ok()?, u32::try_from(toward).ok()?);
        self.index.get(&key).map(|&p| p as usize)
    }

    /// Adds link `a`-`b`, whose ports are `ab` (leaving `a`) and `ab + 1` (leaving `b`):
    /// counts its nodes' links, and keeps [`Ports::index`] holding the ports between nodes
    /// of several links (a node's first link enters it once the node has a second, if the
    /// other end has several too).
    fn link(&mut self, a: usize, b: usize, ab: usize) {
        for n in [a, b] {
            match self.only[n] {
                NO_PORT_YET => self.only[n] = port_id(if n == a { ab } else { ab + 1 }),
                ONE_OF_MANY => {}
                first => {
                    self.only[n] = ONE_OF_MANY;
                    let first = first as usize;
                    self.index_if_between_many(first);
                }
            }
        }
        self.index_if_between_many(ab);
    }

    /// Indexes port `p` and its sibling if both their nodes have several links (and they
    /// are not indexed yet: a node's first link is indexed when the later of its two ends
    /// gets its second link, and a new link when both ends already have several).
    fn index_if_between_many(&mut self, p: usize) {
        let (n, m) = (self.cfg.node(p), self.cfg.toward(p));
        if self.only[n] == ONE_OF_MANY && self.only[m] == ONE_OF_MANY {
            for q in [p, p ^ 1] {
                let key = (node_id(self.cfg.node(q)), node_id(self.cfg.toward(q)));
                self.index.entry(key).or_insert(port_id(q));
            }
        }
    }

    /// Every (node, neighbour) pair that a port joins (the route tests' reference search).
    #[cfg(test)]
    pub fn links(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.cfg.iter().map(|p| (p.node(), p.toward()))
    }

    /// The index of settings equal to `s` in the table of settings: one given out before
    /// if equal, else a copy of `s` (cloned only then: [`LinkPorts`]).
    fn share_ref(&mut self, s: &PortSettings) -> usize {
        match self.recent_match(s) {
            Some(r) => r,
            None => self.add_recent(s.clone()),
        }
    }

    /// The index of `s` in the table of settings: one given out before if equal, else a
    /// new one.
    fn share(&mut self, s: PortSettings) -> usize {
        match self.recent_match(&s) {
            Some(r) => r,
            None => self.add_recent(s),
        }
    }

    /// The index of the recent settings equal to `s`, if any, made the most recent.
    fn recent_match(&mut self, s: &PortSettings) -> Option<usize> {
        let cfg = &self.cfg;
        let k = self
            .recent
            .iter()
            .position(|&r| same(cfg.settings_at(r), s))?;
        self.recent[..=k].rotate_right(1);
        Some(self.recent[0])
    }

    /// Gives out `s` as new settings, the most recent.
    fn add_recent(&mut self, s: PortSettings) -> usize {
        let r = self.cfg.add_settings(s);
        self.recent.truncate(RECENT_SETTINGS - 1);
        self.recent.insert(0, r);
        r
    }

    /// Each node's neighbours, ascending (the order of the nodes in `[[node]]`).
    pub fn neighbours(&self, nodes: usize) -> Vec<Vec<usize>> {
        let mut adj = vec![Vec::new(); nodes];
        for port in self.cfg.iter() {
            adj[port.node()].push(port.toward());
        }
        for a in &mut adj {
            a.sort_unstable();
        }
        adj
    }
}

/// Equal settings, the cheap comparisons first (an allocator's configuration is 128 bytes,
/// usually the same shared one). Every field is named, so that a field added to
/// [`PortSettings`] cannot be left out of the comparison.
fn same(a: &PortSettings, b: &PortSettings) -> bool {
    let PortSettings {
        rate_bps,
        prop,
        buffer,
        policy,
        allocator,
    } = a;
    *rate_bps == b.rate_bps
        && *prop == b.prop
        && *buffer == b.buffer
        && (Arc::ptr_eq(allocator, &b.allocator) || **allocator == *b.allocator)
        && *policy == b.policy
}

fn port_defaults(f: &ScenarioFile) -> Result<PortDefaults, ConfigError> {
    let rate = f
        .defaults
        .link_rate
        .map(|r| r.bps())
        .unwrap_or(DEFAULT_LINK_RATE_BPS);
    if rate <= 0.0 {
        return err("defaults.link_rate", "must be above 0 bps");
    }
    let allocator = match &f.defaults.allocator {
        Some(a) => a.resolve("defaults.allocator", &())?,
        None => AllocatorCfg::default(),
    };
    Ok(PortDefaults {
        rate,
        buffer: f.defaults.switch_buffer.unwrap_or(BufferSize::Unlimited),
        policy: f.defaults.policy.clone().unwrap_or_default(),
        allocator: Arc::new(allocator),
        no_allocator: Arc::new(AllocatorCfg::default()),
    })
}

/// The default policy at a port with `buffer`; an error names the port (`at()`, written
/// out only then).
fn default_policy(
    d: &PortDefaults,
    buffer: Option<u32>,
    at: impl FnOnce() -> String,
) -> Result<PolicyCfg, ConfigError> {
    d.policy
        .resolve("defaults.policy", &buffer)
        .map_err(|e| ConfigError::new(e.path, format!("{} (at {})", e.message, at())))
}

fn cells(b: BufferSize) -> Option<u32> {
    match b {
        BufferSize::Cells(n) => Some(n),
        BufferSize::Unlimited => None,
    }
}

/// Link `i`: two different nodes, at most one link between them, a rate of at least one
/// cell per second, a length (5 us per km) or a delay.
fn add_link(
    ports: &mut Ports,
    i: usize,
    l: &LinkSpec,
    nodes: &Nodes,
    (d, made): (&PortDefaults, &mut LinkPorts),
) -> Result<(), ConfigError> {
    let a = nodes.find(|| format!("link[{i}].between[0]"), &l.between[0])?;
    let b = nodes.find(|| format!("link[{i}].between[1]"), &l.between[1])?;
    if a == b {
        return err(
            format!("link[{i}].between"),
            format!(
                "joins {:?} to itself; a link needs two different nodes",
                l.between[0]
            ),
        );
    }
    let rate = l.rate.map(|r| r.bps()).unwrap_or(d.rate);
    if rate < CELL_BITS as f64 {
        let (key, given) = match l.rate {
            Some(r) => (format!("link[{i}].rate"), r.to_string()),
            None => ("defaults.link_rate".to_string(), format!("{rate} bps")),
        };
        return err(
            key,
            format!("{given} is below one cell per second; allowed: at least {CELL_BITS} bps"),
        );
    }
    let prop = match (l.length, l.delay) {
        (Some(_), Some(_)) => {
            return err(
                format!("link[{i}]"),
                "sets both length and delay; give one of them (length implies 5 us per km)",
            )
        }
        (Some(len), None) => (len.0 / 1000.0 * PS_PER_KM).round() as Time,
        (None, Some(t)) => t.ps(),
        (None, None) => 0,
    };
    let mut settings = [0; 2];
    for (k, (from, to)) in [(a, b), (b, a)].into_iter().enumerate() {
        if ports.port(from, to).is_some() {
            return err(
                format!("link[{i}].between"),
                format!(
                    "{:?} and {:?} are already linked; at most one link joins two nodes",
                    l.between[0], l.between[1]
                ),
            );
        }
        let port = match nodes.is_switch(from) {
            true => &mut made.switch,
            false => &mut made.host,
        };
        (port.rate_bps, port.prop) = (rate.round() as u64, prop);
        settings[k] = ports.share_ref(port);
    }
    let ab = ports.cfg.len();
    ports.cfg.push_link(a, b, settings[0], settings[1]);
    ports.link(a, b, ab);
    Ok(())
}

/// `[[port]]` table `i`: an existing port, set once; allocators only at switches; a
/// buffer of at least one cell; the policy resolved against the port's buffer.
fn apply_port(
    ports: &mut Ports,
    set_by: &mut FxHashMap<usize, usize>,
    i: usize,
    ps: &PortSpec,
    nodes: &Nodes,
    d: &PortDefaults,
) -> Result<(), ConfigError> {
    let a = nodes.find(|| format!("port[{i}].node"), &ps.node)?;
    let b = nodes.find(|| format!("port[{i}].toward"), &ps.toward)?;
    let Some(pi) = ports.port(a, b) else {
        return err(
            format!("port[{i}].toward"),
            format!(
                "no link joins {:?} to {:?}; add a [[link]] between them first",
                ps.node, ps.toward
            ),
        );
    };
    let port = ports.cfg.at(pi);
    if let Some(prev) = set_by.get(&pi) {
        return err(
            format!("port[{i}]"),
            format!(
                "port {} is already set by port[{prev}]; set each port once",
                port.name(&nodes.cfg)
            ),
        );
    }
    set_by.insert(pi, i);
    let mut s = PortSettings::clone(port.settings);
    if let Some(al) = &ps.allocator {
        s.allocator = Arc::new(port_allocator(i, al, nodes.is_switch(a), &ps.node)?);
    }
    if let Some(b) = ps.buffer {
        if b == BufferSize::Cells(0) {
            return err(
                format!("port[{i}].buffer"),
                "0 cells would drop every cell; allowed: at least 1 cell, or \"unlimited\"",
            );
        }
        s.buffer = cells(b);
    }
    s.policy = match &ps.policy {
        Some(pol) => pol.resolve(&format!("port[{i}].policy"), &s.buffer)?,
        None if nodes.is_switch(a) => default_policy(d, s.buffer, || {
            format!("port[{i}], {}", port.name(&nodes.cfg))
        })?,
        None => PolicyCfg::default(),
    };
    let k = ports.share(s);
    ports.cfg.set_settings(pi, k);
    Ok(())
}

fn port_allocator(
    i: usize,
    al: &AllocatorSpec,
    switch: bool,
    node: &str,
) -> Result<AllocatorCfg, ConfigError> {
    let cfg = al.resolve(&format!("port[{i}].allocator"), &())?;
    if !switch && cfg != AllocatorCfg::default() {
        return err(
            format!("port[{i}].allocator"),
            format!("{node:?} is a host; rate allocators run at switch ports"),
        );
    }
    Ok(cfg)
}

#[cfg(test)]
#[path = "ports_tests.rs"]
mod tests;
