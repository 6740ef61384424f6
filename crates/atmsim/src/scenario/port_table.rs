//! The resolved output ports: each port's node, and its settings as an index into a table of
//! the distinct ones.
//!
//! Issue 14 (memory per VC): a port of its own held its node, its neighbour and a shared
//! pointer to its settings, 16 bytes, 64 of every one-pair VC at 10 000 VCs. Link `i` gives
//! ports `2i` and `2i + 1`, each one's neighbour the other's node, so a port here is its
//! node and the index of its settings: 8 bytes.

use super::model::{node_id, NodeTable, PortSettings};
use super::schema::Name;

/// The resolved output ports, by index: link `i` gives port `2i` (its first node toward its
/// second) and port `2i + 1` (back), so a port's neighbour is its sibling's node
/// ([`PortTable::toward`]). Ports with equal settings usually share one entry of the table
/// of settings ([`PortTable::settings_index`]).
#[derive(Clone, Debug, Default)]
pub struct PortTable {
    /// Each port's node.
    nodes: Vec<u32>,
    /// Each port's settings: an index into `settings`.
    settings_of: Vec<u32>,
    /// The settings given out, each once (some may no longer be any port's).
    settings: Vec<PortSettings>,
}

/// One resolved port, read from a [`PortTable`]: where it is, and its settings.
#[derive(Clone, Copy, Debug)]
pub struct PortRef<'a> {
    node: usize,
    toward: usize,
    /// Line rate, delay, buffer, policy and allocator.
    pub settings: &'a PortSettings,
}

impl PortRef<'_> {
    /// Owning node index.
    #[inline]
    pub fn node(&self) -> usize {
        self.node
    }

    /// Neighbour node index.
    #[inline]
    pub fn toward(&self) -> usize {
        self.toward
    }

    /// The port's name, `"sw1->sw2"`: its node's name and its neighbour's. Written out when
    /// asked for (results, traces, errors), not held: at 10 000 one-pair VCs the 40 000
    /// names were 0.2 KB per VC and a sixth of resolving the links (issue 14). A name of
    /// up to 23 bytes is held inline ([`Name`]), without an allocation: one per port of
    /// the results before (issue 14, results of large networks).
    pub fn name(&self, nodes: &NodeTable) -> Name {
        let (from, to) = (nodes.name(self.node), nodes.name(self.toward));
        let mut name = smol_str::SmolStrBuilder::new();
        name.push_str(from);
        name.push_str("->");
        name.push_str(to);
        name.finish()
    }
}

impl PortTable {
    /// An empty table with room for `links` links' ports.
    pub fn with_links(links: usize) -> PortTable {
        PortTable {
            nodes: Vec::with_capacity(2 * links),
            settings_of: Vec::with_capacity(2 * links),
            settings: Vec::new(),
        }
    }

    /// Adds the two ports of a link between nodes `a` and `b`: `a` toward `b` with the
    /// settings of index `ab`, then `b` toward `a` with those of index `ba`.
    ///
    /// # Panics
    /// If a settings index is not in the table.
    pub fn push_link(&mut self, a: usize, b: usize, ab: usize, ba: usize) {
        assert!(
            ab < self.settings.len() && ba < self.settings.len(),
            "settings given out before"
        );
        self.nodes.extend([node_id(a), node_id(b)]);
        self.settings_of.extend([index_id(ab), index_id(ba)]);
    }

    /// Adds `s` to the table of settings (no port has it yet); returns its index.
    pub fn add_settings(&mut self, s: PortSettings) -> usize {
        self.settings.push(s);
        self.settings.len() - 1
    }

    /// Gives port `p` the settings of index `k`.
    ///
    /// # Panics
    /// If `k` is not in the table.
    pub fn set_settings(&mut self, p: usize, k: usize) {
        assert!(k < self.settings.len(), "settings given out before");
        self.settings_of[p] = index_id(k);
    }

    /// The settings of index `k` (see [`PortTable::settings_index`]), to change them in
    /// place: every port that has them changes.
    #[cfg(test)]
    pub fn settings_mut(&mut self, k: usize) -> &mut PortSettings {
        &mut self.settings[k]
    }

    /// Drops the settings that no port has any more (a `[[port]]` table or the default
    /// policy gave their ports others) and numbers the rest in their order, so that the
    /// table holds each port's settings and no others.
    pub fn drop_unused_settings(&mut self) {
        let mut used = vec![false; self.settings.len()];
        for &k in &self.settings_of {
            used[k as usize] = true;
        }
        let mut renumbered = vec![0u32; self.settings.len()];
        let mut next = 0u32;
        for (k, &u) in used.iter().enumerate() {
            renumbered[k] = next;
            next += u32::from(u);
        }
        let mut k = 0;
        self.settings.retain(|_| {
            k += 1;
            used[k - 1]
        });
        self.settings.shrink_to_fit();
        for k in &mut self.settings_of {
            *k = renumbered[*k as usize];
        }
    }

    /// How many distinct settings the table holds.
    #[cfg(test)]
    pub fn settings_count(&self) -> usize {
        self.settings.len()
    }

    /// The settings of index `k`.
    pub fn settings_at(&self, k: usize) -> &PortSettings {
        &self.settings[k]
    }

    /// How many ports.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Port `p`.
    #[inline]
    pub fn at(&self, p: usize) -> PortRef<'_> {
        PortRef {
            node: self.nodes[p] as usize,
            toward: self.nodes[p ^ 1] as usize,
            settings: &self.settings[self.settings_of[p] as usize],
        }
    }

    /// Port `p`, if there is one.
    pub fn get(&self, p: usize) -> Option<PortRef<'_>> {
        (p < self.len()).then(|| self.at(p))
    }

    /// Port `p`'s owning node.
    #[inline]
    pub fn node(&self, p: usize) -> usize {
        self.nodes[p] as usize
    }

    /// Port `p`'s neighbour node: its sibling's node.
    #[inline]
    pub fn toward(&self, p: usize) -> usize {
        self.nodes[p ^ 1] as usize
    }

    /// Port `p`'s settings.
    #[inline]
    pub fn settings(&self, p: usize) -> &PortSettings {
        &self.settings[self.settings_of[p] as usize]
    }

    /// The index of port `p`'s settings: ports of one index share them.
    #[inline]
    pub fn settings_index(&self, p: usize) -> usize {
        self.settings_of[p] as usize
    }

    /// The ports, in index order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = PortRef<'_>> + '_ {
        (0..self.len()).map(|p| self.at(p))
    }

    /// Appends `other`'s ports, with their settings (tests that build large networks from
    /// small ones).
    #[cfg(test)]
    pub fn extend(&mut self, other: &PortTable) {
        let base = self.settings.len();
        self.settings.extend(other.settings.iter().cloned());
        self.nodes.extend(&other.nodes);
        self.settings_of.extend(
            other
                .settings_of
                .iter()
                .map(|&k| index_id(base + k as usize)),
        );
    }

    /// The bytes the table holds on the heap, with the vectors' spare room (the settings'
    /// shared allocators not counted).
    pub fn heap_bytes(&self) -> usize {
        (self.nodes.capacity() + self.settings_of.capacity()) * std::mem::size_of::<u32>()
            + self.settings.capacity() * std::mem::size_of::<PortSettings>()
    }
}

/// A settings index in 32 bits.
fn index_id(k: usize) -> u32 {
    u32::try_from(k).expect("fewer than 2^32 distinct port settings")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drop_policy::PolicyCfg;
    use std::sync::Arc;

    fn settings(rate_bps: u64) -> PortSettings {
        PortSettings {
            rate_bps,
            prop: 5,
            buffer: Some(10),
            policy: PolicyCfg::default(),
            allocator: Arc::new(crate::allocator::AllocatorCfg::default()),
        }
    }

    #[test]
    fn a_links_ports_face_each_other_and_keep_their_settings() {
        let mut t = PortTable::with_links(2);
        let slow = t.add_settings(settings(1_000));
        let fast = t.add_settings(settings(2_000));
        t.push_link(0, 1, slow, fast);
        t.push_link(2, 1, fast, fast);
        assert_eq!(t.len(), 4);
        let mut nodes = NodeTable::default();
        for n in ["a", "b", "c"] {
            nodes.push(n, crate::scenario::schema::NodeKind::Switch);
        }
        let names: Vec<String> = t.iter().map(|p| p.name(&nodes).to_string()).collect();
        assert_eq!(names, ["a->b", "b->a", "c->b", "b->c"]);
        assert_eq!((t.node(3), t.toward(3)), (1, 2));
        assert_eq!(t.settings(0).rate_bps, 1_000);
        assert_eq!(t.at(1).settings.rate_bps, 2_000);
        assert_eq!(t.settings_index(2), t.settings_index(3));
        t.set_settings(2, slow);
        assert_eq!(t.settings(2).rate_bps, 1_000);
        assert_eq!(t.settings(3).rate_bps, 2_000);
        t.settings_mut(slow).rate_bps = 3_000;
        assert_eq!(
            (t.settings(0).rate_bps, t.settings(2).rate_bps),
            (3_000, 3_000)
        );
        assert!(t.get(4).is_none());
        // Two u32s a port, and the settings once each.
        assert_eq!(
            t.heap_bytes(),
            2 * 4 * 4 + t.settings.capacity() * std::mem::size_of::<PortSettings>()
        );
    }

    #[test]
    fn an_extended_table_keeps_each_ports_settings() {
        let mut t = PortTable::with_links(1);
        let k = t.add_settings(settings(1_000));
        t.push_link(0, 1, k, k);
        let mut big = t.clone();
        big.extend(&t);
        big.settings_mut(big.settings_index(2)).rate_bps = 7;
        assert_eq!(big.len(), 4);
        assert_eq!(
            (big.settings(0).rate_bps, big.settings(3).rate_bps),
            (1_000, 7)
        );
        assert_eq!((big.node(2), big.toward(2)), (0, 1));
    }

    #[test]
    fn settings_no_port_has_are_dropped_and_the_rest_renumbered() {
        let mut t = PortTable::with_links(2);
        let [a, _, c] = [1_000, 2_000, 3_000].map(|r| t.add_settings(settings(r)));
        t.push_link(0, 1, c, a);
        t.push_link(1, 2, c, c);
        t.set_settings(1, c); // `a` and `b` are no port's now
        t.drop_unused_settings();
        assert_eq!(t.settings_count(), 1);
        assert!((0..4).all(|p| t.settings_index(p) == 0 && t.settings(p).rate_bps == 3_000));
        let mut u = PortTable::with_links(2);
        let [a, _, c] = [1_000, 2_000, 3_000].map(|r| u.add_settings(settings(r)));
        u.push_link(0, 1, c, a);
        u.push_link(1, 2, a, c);
        u.drop_unused_settings(); // `b` goes: `a` stays 0, `c` becomes 1
        assert_eq!(u.settings_count(), 2);
        let kept: Vec<(usize, u64)> = (0..4)
            .map(|p| (u.settings_index(p), u.settings(p).rate_bps))
            .collect();
        assert_eq!(kept, [(1, 3_000), (0, 1_000), (0, 1_000), (1, 3_000)]);
    }
}
