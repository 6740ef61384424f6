//! The connections' routes and the ports they cross each way, back to back in one vector.
//!
//! Issue 14 (memory per VC): a path of its own was a boxed slice, 16 bytes in its connection
//! and an allocation of 48 bytes for a one-pair VC's 10 `u32`s; here it is its 40 bytes and
//! the 4-byte end of it, and the network built from the scenario reads its flows' routes
//! from the same block.

use std::sync::Arc;

/// The most node and port indices the paths of a scenario may hold together (each path's
/// end is kept in 32 bits; resolving checks it: [`super::connection`]).
pub const MAX_PATH_IDS: usize = u32::MAX as usize;

/// Every connection's path, by connection index ([`Paths::get`]): its route's `n` nodes,
/// then the `n - 1` forward ports, then the `n - 1` backward ports, back to back. Made by a
/// [`PathsBuilder`]; its indices are shared with the network built from the scenario, whose
/// flows' routes are the paths' port lists ([`Paths::shared_ids`], [`Paths::port_starts`]:
/// a copy of them was 24 bytes per one-pair VC, issue 14).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Paths {
    /// The paths' node and port indices, back to back.
    ids: Arc<[u32]>,
    /// Where each path ends in `ids`.
    ends: Box<[u32]>,
}

/// [`Paths`] being made: paths are added one by one, then [`PathsBuilder::finish`] gives
/// the table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathsBuilder {
    ids: Vec<u32>,
    ends: Vec<u32>,
}

/// One connection's path, read from [`Paths`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Path<'a>(&'a [u32]);

/// Where path `c` starts in `ends`' table of indices.
#[inline]
fn start_of(ends: &[u32], c: usize) -> usize {
    if c == 0 {
        0
    } else {
        ends[c - 1] as usize
    }
}

/// Path `c` of the indices `ids` whose paths end at `ends`.
#[inline]
fn path_in<'a>(ids: &'a [u32], ends: &[u32], c: usize) -> Path<'a> {
    Path(&ids[start_of(ends, c)..ends[c] as usize])
}

impl PathsBuilder {
    /// No paths, with room for `paths` paths of `ids` node and port indices together.
    pub fn with_capacity(paths: usize, ids: usize) -> PathsBuilder {
        PathsBuilder {
            ids: Vec::with_capacity(ids),
            ends: Vec::with_capacity(paths),
        }
    }

    /// Adds the path of `route` (node indices, at least two) whose hops leave by `fwd`
    /// ports one way and `bwd` ports the other (each one fewer than the nodes).
    ///
    /// # Panics
    /// If the lengths do not fit, or the paths would hold more than [`MAX_PATH_IDS`]
    /// indices (resolving refuses such a scenario first).
    pub fn push(&mut self, route: &[usize], fwd: &[usize], bwd: &[usize]) {
        assert!(
            route.len() >= 2 && fwd.len() + 1 == route.len() && bwd.len() == fwd.len(),
            "a path has n >= 2 nodes and n - 1 ports each way"
        );
        let end = self.end_after(route.len());
        self.ids
            .extend(route.iter().chain(fwd).chain(bwd).map(|&i| id(i)));
        self.ends.push(end);
    }

    /// Adds the path of `route` (node indices, at least two) whose hop from node `a` to
    /// node `b` leaves by port `port(a, b)`: the same as [`PathsBuilder::push`] with the
    /// ports looked up (set-up of large scenarios, issue 14).
    ///
    /// # Panics
    /// As [`PathsBuilder::push`].
    pub fn push_through(&mut self, route: &[usize], mut port: impl FnMut(usize, usize) -> usize) {
        assert!(route.len() >= 2, "a path has n >= 2 nodes");
        let end = self.end_after(route.len());
        self.ids.extend(route.iter().map(|&n| id(n)));
        self.ids
            .extend(route.windows(2).map(|w| id(port(w[0], w[1]))));
        self.ids
            .extend(route.windows(2).rev().map(|w| id(port(w[1], w[0]))));
        self.ends.push(end);
    }

    /// Adds a copy of `path` (of this table or another).
    ///
    /// # Panics
    /// As [`PathsBuilder::push`].
    pub fn push_copy(&mut self, path: Path<'_>) {
        let end = self.end_after(path.nodes());
        self.ids.extend_from_slice(path.0);
        self.ends.push(end);
    }

    /// Where a path of `nodes` nodes added next would end (checked before anything is
    /// added, so that the table stays whole if this panics).
    fn end_after(&self, nodes: usize) -> u32 {
        u32::try_from(self.ids_after(nodes))
            .expect("the paths hold fewer than 2^32 indices (checked when resolving)")
    }

    /// The indices the paths would hold with a path of `nodes` nodes more (its nodes, and
    /// one fewer ports each way).
    fn ids_after(&self, nodes: usize) -> usize {
        self.ids.len() + (3 * nodes).saturating_sub(2)
    }

    /// Whether a path of `nodes` nodes may be added: the paths would hold at most
    /// [`MAX_PATH_IDS`] indices.
    pub fn fits(&self, nodes: usize) -> bool {
        self.ids_after(nodes) <= MAX_PATH_IDS
    }

    /// How many paths so far.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True if there are none yet.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Path `c`.
    pub fn get(&self, c: usize) -> Path<'_> {
        path_in(&self.ids, &self.ends, c)
    }

    /// The table, at its size (the indices copied once into the shared block; the end of
    /// resolving, before the network and its run take their memory).
    pub fn finish(self) -> Paths {
        Paths {
            ids: Arc::from(self.ids),
            ends: self.ends.into_boxed_slice(),
        }
    }
}

impl From<&Paths> for PathsBuilder {
    /// A builder holding a copy of `paths`, to add more (tests of scenarios changed after
    /// resolving).
    fn from(paths: &Paths) -> PathsBuilder {
        PathsBuilder {
            ids: paths.ids.to_vec(),
            ends: paths.ends.to_vec(),
        }
    }
}

impl Paths {
    /// How many paths.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Path `c`.
    #[inline]
    pub fn get(&self, c: usize) -> Path<'_> {
        path_in(&self.ids, &self.ends, c)
    }

    /// The paths, in index order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Path<'_>> + '_ {
        (0..self.len()).map(|c| self.get(c))
    }

    /// Every path's indices, back to back, shared: a network's flows read their routes
    /// from them ([`Paths::port_starts`]).
    pub fn shared_ids(&self) -> Arc<[u32]> {
        Arc::clone(&self.ids)
    }

    /// Where path `c`'s forward ports and its backward ports start in
    /// [`Paths::shared_ids`] (each list as long as the other, the backward's right after
    /// the forward's).
    pub fn port_starts(&self, c: usize) -> (usize, usize) {
        let start = start_of(&self.ends, c);
        let n = self.get(c).nodes();
        (start + n, start + 2 * n - 1)
    }

    /// The bytes the table holds on the heap (the shared block's two counts included).
    pub fn heap_bytes(&self) -> usize {
        (self.ids.len() + self.ends.len()) * std::mem::size_of::<u32>()
            + 2 * std::mem::size_of::<usize>()
    }
}

/// An index in 32 bits.
fn id(i: usize) -> u32 {
    u32::try_from(i).expect("fewer than 2^32 nodes and ports")
}

impl<'a> Path<'a> {
    /// Node indices crossed, source to destination.
    #[inline]
    pub fn route(self) -> &'a [u32] {
        &self.0[..self.nodes()]
    }

    /// Ports crossed by the forward (data) direction.
    #[inline]
    pub fn fwd_ports(self) -> &'a [u32] {
        let n = self.nodes();
        &self.0[n..2 * n - 1]
    }

    /// Ports crossed by the backward (ACK) direction.
    #[inline]
    pub fn bwd_ports(self) -> &'a [u32] {
        let n = self.nodes();
        &self.0[2 * n - 1..]
    }

    /// Source node index: the route's first node (resolving makes every route start at
    /// the connection's `from`).
    #[inline]
    pub fn from(self) -> usize {
        self.0[0] as usize
    }

    /// Destination node index: the route's last node (a path has at least two).
    #[inline]
    pub fn to(self) -> usize {
        self.0[self.nodes() - 1] as usize
    }

    /// Nodes on the route.
    #[inline]
    fn nodes(self) -> usize {
        self.0.len().div_ceil(3) // 3n - 2 ids for n nodes
    }
}

#[cfg(test)]
mod tests {
    use super::PathsBuilder;

    #[test]
    fn paths_give_back_their_routes_and_ports() {
        let mut b = PathsBuilder::with_capacity(2, 14);
        assert!(b.is_empty());
        b.push(&[4, 0, 1, 7], &[10, 2, 13], &[14, 3, 11]);
        b.push(&[5, 6], &[1], &[0]);
        assert_eq!(b.len(), 2);
        let t = b.clone().finish();
        assert_eq!(t.len(), 2);
        assert_eq!((b.get(0), b.get(1)), (t.get(0), t.get(1)));
        let p = t.get(0);
        assert_eq!(p.route(), &[4, 0, 1, 7]);
        assert_eq!(p.fwd_ports(), &[10, 2, 13]);
        assert_eq!(p.bwd_ports(), &[14, 3, 11]);
        assert_eq!((p.from(), p.to()), (4, 7));
        let direct = t.get(1);
        assert_eq!(
            (direct.route(), direct.fwd_ports(), direct.bwd_ports()),
            (&[5, 6][..], &[1][..], &[0][..])
        );
        assert_eq!((direct.from(), direct.to()), (5, 6));
        assert_eq!(t.iter().collect::<Vec<_>>(), [p, direct]);
        // Made at its size: 4 bytes an index and 4 a path's end, and the shared block's
        // two counts.
        assert_eq!(t.heap_bytes(), 4 * 14 + 4 * 2 + 16);
    }

    #[test]
    fn a_path_through_looked_up_ports_is_the_path_of_those_ports() {
        // Port of the hop a -> b: 10 a + b, so each hop and direction has its own.
        let route = [4, 0, 1, 7];
        let mut looked_up = PathsBuilder::default();
        looked_up.push_through(&route, |a, b| 10 * a + b);
        let mut given = PathsBuilder::default();
        given.push(&route, &[40, 1, 17], &[71, 10, 4]);
        assert_eq!(looked_up, given);
        let mut copied = PathsBuilder::default();
        copied.push_copy(given.get(0));
        assert_eq!(copied, given);
        let table = given.finish();
        assert_eq!(PathsBuilder::from(&table).finish(), table);
    }

    #[test]
    #[should_panic(expected = "n - 1 ports each way")]
    fn a_path_needs_one_port_per_hop_each_way() {
        PathsBuilder::default().push(&[1, 2, 3], &[0, 1], &[2]);
    }

    #[test]
    fn paths_fit_up_to_the_limit_and_keep_no_spare_room() {
        let mut b = PathsBuilder::with_capacity(8, 100);
        assert!(b.fits(2) && b.fits(super::MAX_PATH_IDS / 3));
        assert!(!b.fits(super::MAX_PATH_IDS / 3 + 2), "3n - 2 > 2^32 - 1");
        b.push(&[0, 1], &[0], &[1]);
        assert_eq!(b.finish().heap_bytes(), 4 * 4 + 4 + 16);
    }

    #[test]
    fn each_path_s_ports_start_where_the_shared_block_holds_them() {
        let mut b = PathsBuilder::default();
        b.push(&[4, 0, 1, 7], &[10, 2, 13], &[14, 3, 11]);
        b.push(&[5, 6], &[1], &[0]);
        let t = b.finish();
        let ids = t.shared_ids();
        for c in 0..t.len() {
            let (fwd, bwd) = t.port_starts(c);
            let p = t.get(c);
            let n = p.fwd_ports().len();
            assert_eq!(
                (&ids[fwd..][..n], &ids[bwd..][..n]),
                (p.fwd_ports(), p.bwd_ports())
            );
            assert_eq!(bwd, fwd + n, "the backward ports follow the forward ones");
        }
    }
}
