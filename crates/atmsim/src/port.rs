//! An output port: per-class queues served by strict priority, a shared buffer limit,
//! per-VC accounting, the AAL5 frame-aware drop machinery, and counters.
//!
//! Counters: a port counts the cells that arrive and, per reason, the cells it drops; the
//! cells admitted are `received - dropped_total()` ([`PortBuffer::enqueued`]) and the cells
//! sent `enqueued - queued()` ([`PortBuffer::sent`]). The run checks the cells sent against
//! its own count of transmissions at its end, and the tests check the VCs' cells against
//! the occupancy.
//!
//! The drop policy ([`crate::drop_policy`]) decides; the port applies. Per VC the port keeps
//! whether the next cell starts a frame, and a mode: accepting the frame, discarding it whole
//! (the policy refused it on its first cell), or discarding it partially (a cell was lost to
//! overflow and the policy does PPD: drop the rest, but queue the EOM if it fits).
//! RM cells are not part of AAL5 frames and only ever meet the buffer limit.

use crate::cell::{Cell, ServiceClass};
use crate::drop_policy::{AnyPolicy, BufferView, DropPolicy};
use crate::vc_table::VcTable;
use std::sync::Arc;

mod classes;
mod frames;
mod queues;
pub use frames::FrameRuns;
use queues::{PortQueues, Waiting};

/// Where each VC crossing a port sits in that port's per-VC tables (the buffer's counts,
/// the allocator's state), so the tables hold only the VCs routed through the port
/// (issue 14: state sized by what crosses a port).
///
/// A cell names its port by `(flow, hop)`: hop `h` of flow `f` is at the port
/// `route_ports[f][h]`. The network builds one [`SlotTable`] from the routes (slots numbered
/// in flow order at each port) and every port shares it; the per-cell lookup is one
/// indexed load, no hashing.
#[derive(Clone, Debug, Default)]
pub enum VcSlots {
    /// The slot is the flow index itself (tables sized by every flow; unit tests, benches).
    #[default]
    Identity,
    /// The slots of a built network.
    Routes(Arc<SlotTable>),
}

/// The slots of every (flow, hop) of a network, shared by its ports.
///
/// The two directions of a connection cross the same nodes in opposite orders (a route
/// does not loop: `scenario::route`), so the port where a backward RM cell of flow `f`
/// passing hop `h >= 1` gets its feedback, the port of `f ^ 1` leaving the same node, is
/// hop `hops[f] - h` of `f ^ 1`: its slot is read from `at_port`, not kept in a table of
/// its own (issue 14: 24 bytes per VC at 10 000 one-pair VCs, thirty-fifth session). Only
/// routes that are not mirrored so (unit tests) keep such a table, `peers`.
#[derive(Debug)]
pub struct SlotTable {
    stride: usize,
    at_port: Vec<u32>,
    /// The hops of each flow's route.
    hops: Vec<u16>,
    /// Routes not mirrored: the slot of `f ^ 1` at the port of `f ^ 1` leaving the node of
    /// hop `h` of `f`, at `f * stride + h` ([`NO_SLOT`] if there is none).
    peers: Option<Vec<u32>>,
}

/// No slot: a backward RM cell at the source's own hop, where the opposite flow ends.
const NO_SLOT: u32 = u32::MAX;

impl SlotTable {
    /// Bytes held.
    pub fn heap_bytes(&self) -> usize {
        (self.at_port.capacity() + self.peers.as_ref().map_or(0, Vec::capacity)) * 4
            + self.hops.capacity() * 2
    }

    /// True if the two directions of every connection cross the same nodes in opposite
    /// orders (every network built from a scenario: its peers are read, not kept).
    pub fn mirrored(&self) -> bool {
        self.peers.is_none()
    }

    /// The slot of flow `flow ^ 1` at the port where a backward RM cell of `flow` at hop
    /// `hop` gets its feedback ([`SlotTable`]); [`NO_SLOT`] if there is none.
    #[inline]
    fn at_peer(&self, flow: u32, hop: u16) -> u32 {
        let f = flow as usize;
        debug_assert!(hop < self.hops[f], "flow {f} has no hop {hop}");
        if let Some(peers) = &self.peers {
            return peers[f * self.stride + hop as usize];
        }
        // No row for `f ^ 1` (an odd number of routes: unit tests) is no peer.
        match self.hops[f].checked_sub(hop) {
            Some(k) if hop > 0 => self
                .at_port
                .get((f ^ 1) * self.stride + k as usize)
                .copied()
                .unwrap_or(NO_SLOT),
            _ => NO_SLOT,
        }
    }

    /// The slots of a network whose flow `f` crosses the ports `routes[f]` (flows `2c` and
    /// `2c + 1` are the two directions of connection `c`), port `p` being at node
    /// `port_node[p]`. Slots are numbered in flow order at each port; a flow crossing a
    /// port twice keeps one slot. Also returns, per port, the flows crossing it, ascending.
    pub fn from_routes(routes: &[&[u32]], port_node: &[usize]) -> (SlotTable, PortFlows) {
        let stride = routes.iter().map(|r| r.len()).max().unwrap_or(0).max(1);
        let mut at_port = vec![u32::MAX; routes.len() * stride];
        // Flows at each port, counted as slots are given (a flow's repeat visit to a port
        // is the port's last flow again, since flows come in order).
        let mut count = vec![0u32; port_node.len()];
        let mut last = vec![u32::MAX; port_node.len()];
        for (f, route) in routes.iter().enumerate() {
            for (h, &p) in route.iter().enumerate() {
                let p = p as usize;
                if last[p] != f as u32 {
                    last[p] = f as u32;
                    count[p] += 1;
                }
                at_port[f * stride + h] = count[p] - 1;
            }
        }
        let port_flows = PortFlows::gather(routes, &count, &at_port, stride);
        let hops = routes
            .iter()
            .map(|r| u16::try_from(r.len()).expect("a route of fewer than 2^16 hops"))
            .collect();
        let back = |f: usize| routes.get(f ^ 1).copied().unwrap_or(&[]);
        let peers = (!(0..routes.len()).all(|f| mirrored(routes[f], back(f), port_node)))
            .then(|| peers_by_node(routes, port_node, &at_port, stride));
        let table = SlotTable {
            stride,
            at_port,
            hops,
            peers,
        };
        (table, port_flows)
    }
}

/// The peer slots of routes that are not mirrored ([`SlotTable::peers`]): for hop `h` of
/// flow `f`, the slot of `f ^ 1` at its first port leaving the same node.
fn peers_by_node(
    routes: &[&[u32]],
    port_node: &[usize],
    at_port: &[u32],
    stride: usize,
) -> Vec<u32> {
    let mut peers = vec![NO_SLOT; at_port.len()];
    for (f, route) in routes.iter().enumerate() {
        let back = routes.get(f ^ 1).copied().unwrap_or(&[]);
        for (h, &p) in route.iter().enumerate() {
            let node = port_node[p as usize];
            if let Some(k) = back.iter().position(|&q| port_node[q as usize] == node) {
                peers[f * stride + h] = at_port[(f ^ 1) * stride + k];
            }
        }
    }
    peers
}

/// True if, for every hop `h` of `route`, the first port of `back` leaving the same node
/// is hop `route.len() - h` of `back`, and there is none at hop 0 (the source's node,
/// where `back` ends): the peer that [`SlotTable::at_peer`] reads is the one
/// [`peers_by_node`] finds. A flow whose opposite direction crosses no port (`back` empty,
/// or no such flow) has no peers.
fn mirrored(route: &[u32], back: &[u32], port_node: &[usize]) -> bool {
    let node = |p: u32| port_node[p as usize];
    route.iter().enumerate().all(|(h, &p)| {
        let found = back.iter().position(|&q| node(q) == node(p));
        found == (h > 0 && !back.is_empty()).then(|| route.len() - h)
    })
}

/// The flows crossing each port, ascending, in one vector (port `p`'s are
/// `flows[start[p]..start[p + 1]]`): at 10 000 one-pair VCs a vector per port was 40 000
/// allocations of the set-up (issue 14).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PortFlows {
    start: Vec<u32>,
    flows: Vec<u32>,
}

impl PortFlows {
    /// The flows of `routes` at each port, given how many distinct flows cross each and
    /// each (flow, hop)'s slot there (`at_port`, rows of `stride`): a flow's slot at a port is
    /// its place among the port's flows, so a repeat visit writes the same place again.
    fn gather(routes: &[&[u32]], count: &[u32], at_port: &[u32], stride: usize) -> PortFlows {
        let mut start = Vec::with_capacity(count.len() + 1);
        start.push(0u32);
        for c in count {
            start.push(start[start.len() - 1] + c);
        }
        let mut flows = vec![0u32; start[count.len()] as usize];
        for (f, route) in routes.iter().enumerate() {
            for (h, &p) in route.iter().enumerate() {
                flows[(start[p as usize] + at_port[f * stride + h]) as usize] = f as u32;
            }
        }
        PortFlows { start, flows }
    }

    /// The flows crossing port `p`, ascending.
    pub fn of(&self, p: usize) -> &[u32] {
        &self.flows[self.start[p] as usize..self.start[p + 1] as usize]
    }

    /// Ports described.
    pub fn ports(&self) -> usize {
        self.start.len().saturating_sub(1)
    }
}

impl VcSlots {
    /// The slot, at the port it is offered to, of a cell of `flow` at hop `hop`.
    #[inline]
    pub fn at_port(&self, flow: u32, hop: u16) -> usize {
        match self {
            VcSlots::Identity => flow as usize,
            VcSlots::Routes(t) => t.at_port[flow as usize * t.stride + hop as usize] as usize,
        }
    }

    /// The slot of VC `flow ^ 1` at the port where a backward RM cell of `flow` at hop
    /// `hop` gets its feedback.
    #[inline]
    pub fn at_peer(&self, flow: u32, hop: u16) -> usize {
        match self {
            VcSlots::Identity => (flow ^ 1) as usize,
            VcSlots::Routes(t) => t.at_peer(flow, hop) as usize,
        }
    }
}

/// Number of service classes (CBR, VBR, ABR, UBR).
pub const CLASSES: usize = 4;

/// Why a cell was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// No room in the buffer.
    BufferFull = 0,
    /// The policy refused the frame on its first cell (EPD, SD, FBA).
    FrameDiscard = 1,
    /// The rest of a frame that already lost a cell (PPD).
    PartialDiscard = 2,
}

/// Names of [`DropReason`]s, in order, as reported in results.
pub const DROP_REASONS: [&str; 3] = ["buffer_full", "frame_discard", "partial_discard"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Accepting,
    DiscardWhole,
    DiscardPartial,
}

#[derive(Clone, Copy, Debug)]
struct VcState {
    cells: u32,
    at_frame_start: bool,
    mode: Mode,
}

impl Default for VcState {
    fn default() -> Self {
        VcState {
            cells: 0,
            at_frame_start: true,
            mode: Mode::Accepting,
        }
    }
}

/// What a buffer is, which many buffers of a network share: its drop policy and its size.
#[derive(Clone, Debug)]
pub struct BufferKind {
    /// The drop policy.
    pub policy: AnyPolicy,
    /// The buffer's size in cells (`u32::MAX`: unlimited).
    pub capacity: u32,
}

/// What the buffers of a network's ports share, named by each buffer rather than held by
/// it (issue 14: a port in 96 bytes): the slots of the VCs at each port, and the distinct
/// kinds of buffer (drop policy and size), which a buffer names by its index here.
#[derive(Clone, Debug, Default)]
pub struct BufferTables {
    /// Where each (flow, hop)'s VC sits in its port's per-VC table.
    pub slots: VcSlots,
    /// The distinct kinds of buffer ([`BufferTables::add_kind`]).
    pub kinds: Vec<BufferKind>,
}

/// Most distinct kinds of buffer (drop policy and size) a network's buffers can name (a
/// buffer holds the index in 16 bits; the scenario layer refuses more: `scenario::ports`).
pub const MAX_BUFFER_KINDS: usize = 1 << 16;

impl BufferTables {
    /// Tables of one kind of buffer, `capacity` cells (None: unlimited) with `policy`, for
    /// buffers whose slots are the flow indices (unit tests, benches): every buffer made by
    /// [`PortBuffer::new`] is of kind 0.
    pub fn identity(policy: AnyPolicy, capacity: Option<u32>) -> BufferTables {
        BufferTables {
            slots: VcSlots::Identity,
            kinds: vec![BufferKind {
                policy,
                capacity: capacity.unwrap_or(u32::MAX),
            }],
        }
    }

    /// The index of a kind of buffer added to the table, of `capacity` cells (None:
    /// unlimited) with `policy` (the caller gives each distinct one once).
    ///
    /// # Panics
    /// Past [`MAX_BUFFER_KINDS`], which a resolved scenario never reaches.
    pub fn add_kind(&mut self, policy: AnyPolicy, capacity: Option<u32>) -> u16 {
        let i = u16::try_from(self.kinds.len())
            .expect("at most 65 536 distinct kinds of buffer (checked when resolving)");
        self.kinds.push(BufferKind {
            policy,
            capacity: capacity.unwrap_or(u32::MAX),
        });
        i
    }

    /// The kind a buffer names.
    #[inline(always)]
    pub fn kind(&self, index: u16) -> &BufferKind {
        &self.kinds[index as usize]
    }
}

/// The outcome of a cell's arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Admitted: queued, or sent at once from an empty buffer
    /// ([`PortBuffer::arrive_to_send`]).
    Enqueued,
    /// Dropped, for this reason.
    Dropped(DropReason),
}

/// An output port's buffer and queues.
///
/// 40 bytes (of its port's 96: [`crate::network::Port`]): what the admission of every cell
/// reads and writes (occupancy, the VC's state, the count of arrived cells). What many
/// ports have alike is named, not held ([`BufferTables`]: the slot table, the drop policy
/// and the size); the cells admitted are the cells arrived less the cells dropped, and the
/// VCs with cells queued are counted beside a table of several VCs ([`VcTable::count`]) and
/// read off the one entry of a table of one. The class queues, the frame runs,
/// the drop counts and the high-water marks, which a cell reaching an idle port with an
/// empty buffer does not touch, are boxed on first use (`PortQueues`): most ports of a
/// network with one host pair per VC never need them (issue 14: at 10 000 VCs most cells
/// reach such a port, and every line of it is a cache miss). Such a cell raises the marks
/// to one at most, which the buffer derives from its counts and one bit.
#[derive(Debug)]
#[repr(C)]
pub struct PortBuffer {
    occupancy: u32,
    /// Bit `c` set when class `c`'s queue holds a cell (the next to serve is the lowest).
    nonempty: u8,
    /// A cell was sent at once since the last [`PortBuffer::take_interval_max`] (the
    /// interval's high-water mark is at least one).
    sent_at_once: bool,
    /// The drop policy and the size: [`BufferTables::kinds`]`[kind]`.
    kind: u16,
    /// Cells that arrived at the port.
    received: u64,
    /// The VCs routed through the port ([`VcTable`]: the first inline; the count beside a
    /// table of several, the VCs with cells queued).
    vcs: VcTable<VcState>,
    /// The class queues, the frame runs of a port that holds frames, the drop counts and
    /// the high-water marks, made on the first cell queued, frame held or cell dropped.
    queues: Option<Box<PortQueues>>,
}

/// The VCs with cells queued at a buffer whose VC table keeps `count` (a table of several
/// VCs: [`VcTable::count`]) or, for a table of one, whose one VC is `first`: one if its cells
/// are queued.
#[inline(always)]
fn active_vcs_of(count: Option<u32>, first: &VcState) -> u32 {
    count.unwrap_or(u32::from(first.cells > 0))
}

impl PortBuffer {
    /// A port buffer for `flows` flows, numbered by their flow index, of the kind of index 0
    /// ([`BufferTables::identity`]).
    pub fn new(flows: usize) -> Self {
        Self::of_kind(0, flows)
    }

    /// A port buffer for the `vcs` VCs routed through it, of the kind (drop policy and size)
    /// of index `kind` ([`BufferTables`]). Queues start empty and grow on demand (then keep
    /// their capacity: no allocation per cell once a port has seen its largest queue).
    pub fn of_kind(kind: u16, vcs: usize) -> Self {
        PortBuffer {
            queues: None,
            nonempty: 0,
            sent_at_once: false,
            occupancy: 0,
            kind,
            vcs: VcTable::new(vcs),
            received: 0,
        }
    }

    /// Cells that arrived at the port.
    #[inline]
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Cells admitted: put in a queue, or sent at once from an empty buffer
    /// ([`PortBuffer::arrive_to_send`]): the cells arrived less the cells dropped. The
    /// cells sent are the ones admitted and no longer queued ([`PortBuffer::sent`]).
    pub fn enqueued(&self) -> u64 {
        self.received - self.dropped_total()
    }

    /// The queues and drop counts, made on first use (out of line: once per port).
    #[inline(always)]
    fn queues_mut(&mut self) -> &mut PortQueues {
        self.queues.get_or_insert_with(PortQueues::boxed)
    }

    /// Where the buffer's queues are, if it has made them (for cache hints only:
    /// `sim::prefetch`).
    #[inline(always)]
    pub fn queues_ptr(&self) -> Option<*const u8> {
        self.queues
            .as_deref()
            .map(|q| std::ptr::from_ref(q).cast::<u8>())
    }

    /// The waiting frames of a buffer that holds frames.
    #[inline]
    fn frames(&self) -> Option<&FrameRuns> {
        self.queues.as_deref().and_then(PortQueues::frames)
    }

    /// Makes this buffer hold whole frames of one flow, whose cells look like `template`
    /// ([`FrameRuns`]): the port of a TCP sender's host that only that flow crosses. Needs
    /// what makes every cell admitted and sent in order: an unlimited buffer, tail drop and
    /// one VC, and an empty buffer. Cells then come in by [`PortBuffer::arrive_frame`] only.
    pub fn hold_frames(&mut self, template: Cell, t: &BufferTables) {
        assert!(
            self.takes_every_cell(t) && self.vcs_held() == 1 && self.occupancy == 0,
            "frames are held only in an empty, unlimited, tail-drop buffer of one VC"
        );
        self.queues_mut().waiting = Waiting::Frames(FrameRuns::new(template));
    }

    /// Holds cells again instead of frames: the cells of the frames waiting, if any, go into
    /// their class's queue in order (every count already holds them), so this may be called
    /// at any time, mid-run too (a trace attached late).
    pub fn hold_cells(&mut self) {
        if let Some(queues) = self.queues.as_deref_mut() {
            queues.hold_cells();
        }
    }

    /// VCs with a place in this buffer's tables (the VCs routed through the port).
    pub fn vcs_held(&self) -> usize {
        self.vcs.len()
    }

    /// True when the buffer admits every cell offered: unlimited, with tail drop.
    pub fn takes_every_cell(&self, t: &BufferTables) -> bool {
        let kind = t.kind(self.kind);
        kind.capacity == u32::MAX && matches!(kind.policy, AnyPolicy::TailDrop(_))
    }

    /// True when the buffer holds frames ([`PortBuffer::hold_frames`]).
    #[inline]
    pub fn holds_frames(&self) -> bool {
        self.frames().is_some()
    }

    /// Cells `from..to` of a frame (`cells` long, tagged `tag`, emission number `frame`)
    /// arrive at a buffer that holds frames: every count moves as if each cell had gone
    /// through [`PortBuffer::arrive`], which admits them all here (an unlimited buffer
    /// with tail drop: the frame starts accepted, the high-water marks rise to the last).
    #[inline]
    pub fn arrive_frame(&mut self, tag: u32, frame: u32, (from, to): (u32, u32), cells: u32) {
        let Some(queues) = self.queues.as_deref_mut() else {
            panic!("arrive_frame at a buffer that holds cells");
        };
        let Waiting::Frames(runs) = &mut queues.waiting else {
            panic!("arrive_frame at a buffer that holds cells");
        };
        runs.push(tag, frame, (from, to), cells);
        let class = runs.class();
        let m = to - from;
        let vc = self.vcs.only_mut();
        vc.cells += m;
        vc.mode = Mode::Accepting;
        vc.at_frame_start = to == cells;
        self.nonempty |= 1 << class;
        self.occupancy += m;
        queues.marks.rise_to(self.occupancy);
        self.received += u64::from(m);
    }

    /// Offers an arriving cell of service class `class` to the buffer.
    #[inline(always)]
    pub fn arrive(&mut self, cell: Cell, class: ServiceClass, t: &BufferTables) -> Admission {
        debug_assert!(
            self.frames().is_none(),
            "a cell offered to a buffer holding frames"
        );
        let kind = t.kind(self.kind);
        match self.admission(&cell, true, kind, &t.slots) {
            Ok(()) => self.enqueue(cell, class.index(), kind.capacity),
            Err(r) => self.drop(r),
        }
    }

    /// Offers a cell to an empty buffer whose transmitter is free (the caller's
    /// guarantee; emptiness is checked in debug builds), which sends an admitted cell at once: the same decision and the same counts as [`PortBuffer::arrive`] then
    /// [`PortBuffer::dequeue`], without the cell's round trip through the queue's memory
    /// (issue 14: at a port carrying one VC nearly every cell goes through this way, and
    /// the queue's ring was a cache miss per cell at 10 000 VCs).
    #[inline(always)]
    pub fn arrive_to_send(&mut self, cell: &Cell, t: &BufferTables) -> Admission {
        debug_assert_eq!(self.occupancy, 0, "the buffer is empty");
        debug_assert!(
            self.frames().is_none(),
            "a cell offered to a buffer holding frames"
        );
        match self.admission(cell, false, t.kind(self.kind), &t.slots) {
            Ok(()) => {
                // Queued and sent in the same instant: the VC's count and the occupancy
                // go up by one and back down; the high-water marks see one cell (derived:
                // [`PortBuffer::max_queue`], [`PortBuffer::take_interval_max`]).
                self.sent_at_once = true;
                Admission::Enqueued
            }
            Err(r) => self.drop(r),
        }
    }

    /// The buffer's decision on an arriving cell, with its VC's frame state updated and,
    /// if the cell is admitted and `queued`, its VC's count of queued cells. Counts the
    /// arrival.
    #[inline(always)]
    fn admission(
        &mut self,
        cell: &Cell,
        queued: bool,
        kind: &BufferKind,
        slots: &VcSlots,
    ) -> Result<(), DropReason> {
        self.received += 1;
        let room = self.occupancy < kind.capacity;
        let slot = self.slot(cell, slots);
        let occupancy = self.occupancy;
        let (vc, active) = self.vcs.entry_and_count(slot);
        // RM cells are not part of AAL5 frames: they only meet the buffer limit.
        let outcome = if !cell.is_rm() {
            let active_vcs = active_vcs_of(active.as_deref().copied(), vc);
            Self::frame_admission(
                &kind.policy,
                vc,
                cell.is_eom(),
                room,
                (occupancy, kind.capacity, active_vcs),
            )
        } else if room {
            Ok(())
        } else {
            Err(DropReason::BufferFull)
        };
        if queued && outcome.is_ok() {
            if vc.cells == 0 {
                if let Some(n) = active {
                    *n += 1;
                }
            }
            vc.cells += 1;
        }
        outcome
    }

    /// The frame-aware part of the decision on a data cell (the VC's mode and whether the
    /// next cell starts a frame updated); `(occupancy, capacity, active VCs)` of the buffer.
    #[inline(always)]
    fn frame_admission(
        policy: &AnyPolicy,
        vc: &mut VcState,
        eom: bool,
        room: bool,
        (occupancy, capacity, active_vcs): (u32, u32, u32),
    ) -> Result<(), DropReason> {
        let mut mode = vc.mode;
        if vc.at_frame_start {
            let view = BufferView {
                occupancy,
                capacity,
                active_vcs,
                vc_cells: vc.cells,
            };
            mode = if policy.admit_frame(&view) {
                Mode::Accepting
            } else {
                Mode::DiscardWhole
            };
        }
        let (outcome, next_mode) = match mode {
            Mode::DiscardWhole => (Err(DropReason::FrameDiscard), Mode::DiscardWhole),
            Mode::DiscardPartial if eom && room => (Ok(()), Mode::Accepting),
            Mode::DiscardPartial => (
                Err(if room {
                    DropReason::PartialDiscard
                } else {
                    DropReason::BufferFull
                }),
                Mode::DiscardPartial,
            ),
            Mode::Accepting if room => (Ok(()), Mode::Accepting),
            Mode::Accepting => (
                Err(DropReason::BufferFull),
                if policy.partial_discard() {
                    Mode::DiscardPartial
                } else {
                    Mode::Accepting
                },
            ),
        };
        vc.mode = next_mode;
        vc.at_frame_start = eom;
        outcome
    }

    /// The slot of `cell`'s VC in this port's tables: 0 at a port carrying one VC (most
    /// ports: a host's, a switch's toward a host) without a lookup ([`VcTable::slot`]).
    #[inline(always)]
    fn slot(&self, cell: &Cell, slots: &VcSlots) -> usize {
        self.vcs.slot(|| slots.at_port(cell.flow, cell.hop))
    }

    #[inline]
    fn drop(&mut self, r: DropReason) -> Admission {
        self.queues_mut().count_drop(r);
        Admission::Dropped(r)
    }

    /// Cells dropped, per [`DropReason`].
    pub fn dropped(&self) -> [u64; 3] {
        self.queues.as_deref().map_or([0; 3], PortQueues::dropped)
    }

    /// All drops.
    pub fn dropped_total(&self) -> u64 {
        self.dropped().iter().sum()
    }

    /// Puts an admitted cell in its class's queue (its VC's count is already up).
    #[inline(always)]
    fn enqueue(&mut self, cell: Cell, class: usize, bound: u32) -> Admission {
        let occupancy = self.occupancy + 1;
        // A class queue never holds more cells than the buffer (`bound`, its capacity): its
        // ring grows to that at most (a trunk of 36 000 cells: a ring of 36 000, not 65 536;
        // issue 14).
        let queues = self.queues_mut();
        queues
            .classes_mut()
            .queue_mut(class)
            .push_back_within(cell, bound);
        queues.marks.rise_to(occupancy);
        self.nonempty |= 1 << class;
        self.occupancy = occupancy;
        Admission::Enqueued
    }

    /// Takes the next cell to transmit: highest-priority non-empty class first.
    /// Inline always: once in each of the two kinds of `Sim::start_tx` (its lines keeping
    /// runs or not), it was otherwise called out of line (2.1 % more instructions on
    /// `atmsim bench`).
    #[inline(always)]
    pub fn dequeue(&mut self, slots: &VcSlots) -> Option<Cell> {
        if self.nonempty == 0 {
            return None;
        }
        let classes = match &mut self.queues.as_deref_mut()?.waiting {
            Waiting::Frames(runs) => {
                return Self::dequeue_frame_cell(runs, &mut self.occupancy, &mut self.nonempty)
                    .map(|c| self.count_out_of_first_vc(c));
            }
            Waiting::Cells(classes) => classes,
        };
        // Only bits 0-3 are ever set: the mask tells the compiler the index is in range.
        let class = self.nonempty.trailing_zeros() as usize & (CLASSES - 1);
        let q = classes.queue_mut(class);
        let c = q.pop_front()?;
        if q.is_empty() {
            self.nonempty &= !(1 << class);
        }
        self.occupancy -= 1;
        let (st, active) = self.vcs.entry_and_count(self.slot(&c, slots));
        st.cells -= 1;
        if st.cells == 0 {
            if let Some(n) = active {
                *n -= 1;
            }
        }
        Some(c)
    }

    /// The next cell of a buffer that holds frames; the occupancy and the class bit follow.
    #[inline]
    fn dequeue_frame_cell(
        runs: &mut FrameRuns,
        occupancy: &mut u32,
        nonempty: &mut u8,
    ) -> Option<Cell> {
        let c = runs.pop()?;
        *occupancy -= 1;
        if *occupancy == 0 {
            *nonempty = 0;
        }
        Some(c)
    }

    /// A cell of the buffer's one VC left (a buffer that holds frames): the counts follow.
    #[inline]
    fn count_out_of_first_vc(&mut self, c: Cell) -> Cell {
        self.vcs.only_mut().cells -= 1;
        c
    }

    /// Cells in the buffer (all classes).
    #[inline]
    pub fn queued(&self) -> u32 {
        self.occupancy
    }

    /// Cells in one class's queue.
    #[inline]
    pub fn class_queued(&self, class: ServiceClass) -> u32 {
        let Some(queues) = self.queues.as_deref() else {
            return 0;
        };
        match queues.frames() {
            Some(runs) if runs.class() == class.index() => self.occupancy,
            _ => queues.class_len(class.index()) as u32,
        }
    }

    /// VCs with cells in the buffer.
    pub fn active_vcs(&self) -> u32 {
        active_vcs_of(self.vcs.count(), self.vcs.get(0))
    }

    /// Cells of the VC in slot `slot` in the buffer (the flow index, for a buffer made by
    /// [`PortBuffer::new`]).
    pub fn vc_cells(&self, slot: usize) -> u32 {
        self.vcs.get(slot).cells
    }

    /// Bytes held by the buffer's queues (class rings, or the runs of a port that holds
    /// frames), not its per-VC tables: what its cells take.
    pub fn queue_bytes(&self) -> usize {
        self.queues.as_deref().map_or(0, PortQueues::cell_bytes)
    }

    /// Bytes held by the buffer's tables and queues (for the memory estimate).
    pub fn heap_bytes(&self) -> usize {
        self.queues.as_deref().map_or(0, PortQueues::heap_bytes) + self.vcs.heap_bytes()
    }

    /// Cells transmitted: admitted and no longer queued.
    #[inline]
    pub fn sent(&self) -> u64 {
        self.enqueued() - u64::from(self.occupancy)
    }

    /// Largest total queue length seen (cells): one once a cell was admitted (a cell sent at
    /// once is queued and taken out in the same instant), more only where cells waited.
    pub fn max_queue(&self) -> u32 {
        let waited = self.queues.as_deref().map_or(0, |q| q.marks.max_queue);
        waited.max(u32::from(self.enqueued() > 0))
    }

    /// Largest occupancy since the last call (the time series' interval maximum); restarts
    /// the interval at the current occupancy.
    pub fn take_interval_max(&mut self) -> u32 {
        let m = self.interval_max();
        self.sent_at_once = false;
        if let Some(q) = self.queues.as_deref_mut() {
            q.marks.interval_max = self.occupancy;
        }
        m
    }

    /// Largest occupancy since the interval's start.
    fn interval_max(&self) -> u32 {
        let waited = self.queues.as_deref().map_or(0, |q| q.marks.interval_max);
        waited.max(u32::from(self.sent_at_once))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drop_policy::{Epd, Fba, Ppd, SelectiveDrop, TailDrop};

    #[test]
    fn buffer_lines() {
        // The buffer is 40 of its port's 96 bytes: the class queues, the drop counts and
        // the high-water marks are boxed, the policy and the size named.
        use std::mem::size_of;
        assert_eq!(size_of::<PortBuffer>(), 40);
        assert_eq!(size_of::<Option<Box<PortQueues>>>(), 8);
        // The box: the class queues or the frame runs, the drop counts' own box, the marks;
        // 56 bytes, a 64-byte block of the allocator (glibc adds 8 and rounds to 16: 64
        // bytes took 80). The frame runs are 32 bytes, so that the box tells them from the
        // class queues by the queue ring's pointer, with no tag of its own.
        assert_eq!(size_of::<FrameRuns>(), 32);
        assert_eq!(size_of::<PortQueues>(), 56);
    }

    #[test]
    fn a_buffer_that_queues_and_drops_nothing_makes_no_queues() {
        // Cells sent at once from an empty buffer leave no box behind; the first cell
        // queued, or the first dropped, makes it.
        let mut p = Buf::new(Some(1), AnyPolicy::TailDrop(TailDrop), 1);
        for c in frame(0, 1, 3) {
            assert_eq!(p.arrive_to_send(&c), Admission::Enqueued);
        }
        assert!(p.queues.is_none() && p.heap_bytes() == 0 && p.dropped_total() == 0);
        assert_eq!(p.class_queued(UBR), 0);
        assert_eq!(p.arrive(Cell::data(0, 2, false), UBR), Admission::Enqueued);
        assert!(p.queues.is_some());
        assert_eq!(p.class_queued(UBR), 1);
        let mut d = Buf::new(Some(0), AnyPolicy::TailDrop(TailDrop), 1);
        let r = d.arrive_to_send(&Cell::data(0, 1, true));
        assert_eq!(r, Admission::Dropped(DropReason::BufferFull));
        assert_eq!((d.dropped(), d.queue_bytes()), ([1, 0, 0], 0));
        check_identities(&p);
        check_identities(&d);
    }

    #[test]
    fn a_peer_slot_is_read_from_the_mirrored_route_as_a_search_by_node_finds_it() {
        // Port p at node p / 2 and toward node p / 2 + 1 (p even) or p / 2 - 1 (p odd):
        // a line of nodes 0-1-2-3 where port 2n leaves node n rightward and 2n + 1 leftward.
        // Connection 0 goes 0 -> 3, connection 1 goes 2 -> 1, connection 2 goes 3 -> 1.
        let right = |n: u32| 2 * n;
        let left = |n: u32| 2 * n + 1;
        let routes: Vec<Vec<u32>> = vec![
            vec![right(0), right(1), right(2)],
            vec![left(3), left(2), left(1)],
            vec![left(2)],
            vec![right(1)],
            vec![left(3), left(2)],
            vec![right(1), right(2)],
        ];
        let routes: Vec<&[u32]> = routes.iter().map(|r| &r[..]).collect();
        let port_node: Vec<usize> = (0..8).map(|p| p / 2).collect();
        let (table, _) = SlotTable::from_routes(&routes, &port_node);
        assert!(table.mirrored() && table.heap_bytes() < 4 * 6 * 3 * 2);
        let searched = peers_by_node(&routes, &port_node, &table.at_port, table.stride);
        for (f, route) in routes.iter().enumerate() {
            for h in 0..route.len() {
                let want = searched[f * table.stride + h];
                assert_eq!(table.at_peer(f as u32, h as u16), want, "flow {f} hop {h}");
                assert_eq!(want == NO_SLOT, h == 0, "flow {f} hop {h}");
            }
        }
    }

    #[test]
    fn a_flow_without_an_opposite_flow_has_no_peer() {
        // Nodes 0-1-2 in a line, port 2n leaving node n rightward and 2n + 1 leftward: flows
        // 0 and 1 go 0 -> 2 and back, and flow 2 (0 -> 2 again) has no flow 3.
        let routes: [&[u32]; 3] = [&[0, 2], &[5, 3], &[0, 2]];
        let port_node: Vec<usize> = (0..6).map(|p| p / 2).collect();
        let (table, _) = SlotTable::from_routes(&routes, &port_node);
        assert!(table.mirrored());
        assert_eq!(
            (table.at_peer(2, 0), table.at_peer(2, 1)),
            (NO_SLOT, NO_SLOT)
        );
        let searched = peers_by_node(&routes, &port_node, &table.at_port, table.stride);
        for f in 0..2 {
            for h in 0..2 {
                assert_eq!(
                    table.at_peer(f as u32, h as u16),
                    searched[f * table.stride + h]
                );
            }
        }
        // Flow 0's hop 1 (node 1) is flow 1's hop 1: its only flow there, slot 0.
        assert_eq!(table.at_peer(0, 1), 0);
    }

    #[test]
    fn routes_that_are_not_mirrored_keep_their_peers_as_a_search_by_node_finds_them() {
        // Flow 1 leaves node 1 and then node 0, flow 0's source, where a mirrored route ends.
        let routes: [&[u32]; 2] = [&[0, 2], &[3, 1]];
        let port_node: Vec<usize> = (0..6).map(|p| p / 2).collect();
        let (table, _) = SlotTable::from_routes(&routes, &port_node);
        assert!(!table.mirrored());
        let searched = peers_by_node(&routes, &port_node, &table.at_port, table.stride);
        for (f, route) in routes.iter().enumerate() {
            for h in 0..route.len() {
                let want = searched[f * table.stride + h];
                assert_eq!(table.at_peer(f as u32, h as u16), want, "flow {f} hop {h}");
            }
        }
        // Node 0 (flow 0's hop 0) is left by flow 1's port 1 (its hop 1), node 1 (flow 0's
        // hop 1) by its port 3 (its hop 0).
        assert_eq!(table.at_peer(0, 0), table.at_port[table.stride + 1]);
        assert_eq!(table.at_peer(0, 1), table.at_port[table.stride]);
    }

    #[test]
    fn slots_and_port_flows_follow_the_routes() {
        // Port p at node p / 2. Flow 4 crosses port 1 twice (its one slot is kept), port 5
        // carries no flow, and flow 3 has an empty route.
        let routes: [&[u32]; 5] = [&[0, 2, 4], &[5 - 2, 1], &[0, 4], &[], &[1, 2, 1]];
        let port_node: Vec<usize> = (0..6).map(|p| p / 2).collect();
        let (table, flows) = SlotTable::from_routes(&routes, &port_node);
        // What each port holds, written out one vector per port.
        let mut expected: Vec<Vec<u32>> = vec![Vec::new(); 6];
        for (f, route) in routes.iter().enumerate() {
            for &p in route.iter() {
                if expected[p as usize].last() != Some(&(f as u32)) {
                    expected[p as usize].push(f as u32);
                }
            }
        }
        assert_eq!(flows.ports(), 6);
        for (p, want) in expected.iter().enumerate() {
            assert_eq!(flows.of(p), &want[..], "port {p}");
        }
        let slots = VcSlots::Routes(Arc::new(table));
        for (f, route) in routes.iter().enumerate() {
            for (h, &p) in route.iter().enumerate() {
                let slot = slots.at_port(f as u32, h as u16);
                assert_eq!(flows.of(p as usize)[slot], f as u32, "flow {f} hop {h}");
            }
        }
    }

    const UBR: ServiceClass = ServiceClass::Ubr;

    fn frame(flow: u32, tag: u32, n: u32) -> Vec<Cell> {
        (0..n).map(|i| Cell::data(flow, tag, i + 1 == n)).collect()
    }

    /// A buffer with tables of its own: its one kind (policy and size), and slots by flow
    /// index.
    struct Buf {
        b: PortBuffer,
        t: BufferTables,
    }

    impl Buf {
        fn new(capacity: Option<u32>, policy: AnyPolicy, flows: usize) -> Buf {
            Buf {
                b: PortBuffer::new(flows),
                t: BufferTables::identity(policy, capacity),
            }
        }
        fn arrive(&mut self, c: Cell, class: ServiceClass) -> Admission {
            self.b.arrive(c, class, &self.t)
        }
        fn arrive_to_send(&mut self, c: &Cell) -> Admission {
            self.b.arrive_to_send(c, &self.t)
        }
        fn dequeue(&mut self) -> Option<Cell> {
            self.b.dequeue(&self.t.slots)
        }
        fn hold_frames(&mut self, template: Cell) {
            self.b.hold_frames(template, &self.t);
        }
    }

    impl std::ops::Deref for Buf {
        type Target = PortBuffer;
        fn deref(&self) -> &PortBuffer {
            &self.b
        }
    }

    impl std::ops::DerefMut for Buf {
        fn deref_mut(&mut self) -> &mut PortBuffer {
            &mut self.b
        }
    }

    fn offer(p: &mut Buf, cells: &[Cell]) -> Vec<Admission> {
        cells.iter().map(|c| p.arrive(*c, UBR)).collect()
    }

    /// The cells queued are the VCs' cells, the VCs counted active are those with cells
    /// (kept beside a table of several VCs, read off a table of one), and the cells admitted
    /// are sent or queued.
    fn check_identities(p: &PortBuffer) {
        let cells: Vec<u32> = (0..p.vcs.len()).map(|s| p.vcs.get(s).cells).collect();
        assert_eq!(cells.iter().sum::<u32>(), p.queued());
        let active = cells.iter().filter(|&&c| c > 0).count() as u32;
        assert_eq!(p.active_vcs(), active);
        assert_eq!(p.enqueued(), p.sent() + p.queued() as u64);
    }

    /// Everything the buffer reports or decides with, for comparing two buffers.
    fn state(p: &PortBuffer, vcs: usize) -> String {
        let per_vc: Vec<_> = (0..vcs).map(|s| *p.vcs.get(s)).collect();
        format!(
            "received={} enqueued={} sent={} max={} {:?} q={} active={} imax={} {:?}",
            p.received(),
            p.enqueued(),
            p.sent(),
            p.max_queue(),
            p.dropped(),
            p.occupancy,
            p.active_vcs(),
            p.interval_max(),
            per_vc
        )
    }

    #[test]
    fn a_cell_sent_at_once_counts_as_queued_and_taken_back_out() {
        // Two buffers see the same cells (frames of two VCs, an RM cell, a VBR cell): one
        // queues each cell and takes it straight back out, the other sends it at once.
        // Every outcome, count, high-water mark and per-VC state is the same after each
        // cell; with no room (capacity 0), or an EPD threshold of 0 that refuses every new
        // frame even at an empty buffer, both drop alike, by the policy's rules.
        for (capacity, policy, drops_expected) in [
            (Some(1), AnyPolicy::Epd(Epd { r: 1.0 }), false),
            (Some(0), AnyPolicy::Epd(Epd { r: 1.0 }), true),
            (Some(0), AnyPolicy::Ppd(Ppd), true),
            (Some(4), AnyPolicy::Epd(Epd { r: 0.0 }), true),
            (None, AnyPolicy::TailDrop(TailDrop), false),
        ] {
            let mut queued = Buf::new(capacity, policy, 2);
            let mut direct = Buf::new(capacity, policy, 2);
            let mut rm = Cell::data(1, 0, false);
            rm.flags |= crate::cell::flag::RM;
            let mut cells = frame(0, 1, 3);
            cells.push(rm);
            cells.extend(frame(1, 2, 2));
            let mut drops = 0;
            for (i, c) in cells.iter().enumerate() {
                let class = if i == 4 { ServiceClass::Vbr } else { UBR };
                let a = queued.arrive(*c, class);
                let b = direct.arrive_to_send(c);
                assert_eq!(a, b, "cell {i}");
                match a {
                    Admission::Enqueued => assert_eq!(queued.dequeue(), Some(*c)),
                    Admission::Dropped(_) => drops += 1,
                }
                assert_eq!(state(&queued, 2), state(&direct, 2), "after cell {i}");
                check_identities(&direct);
            }
            assert_eq!(drops > 0, drops_expected);
        }
    }

    /// A UBR data cell of flow 0 (the VC of a one-VC buffer made by [`PortBuffer::new`]).
    fn ubr_cell(tag: u32, frame: u32, eom: bool) -> Cell {
        let mut c = Cell::data(0, tag, eom);
        c.frame = frame;
        c.flags |= UBR.flag_bits();
        c
    }

    #[test]
    fn a_class_queue_grows_to_the_buffer_at_most() {
        // Issue 14, memory per VC: a class queue's ring doubles up to the buffer's size and
        // stops there (a 40-cell buffer: 40 slots, not 64); an unlimited buffer's doubles.
        let cell = std::mem::size_of::<Cell>();
        for (capacity, slots) in [(Some(40), 40), (None, 64)] {
            let mut b = Buf::new(capacity, AnyPolicy::TailDrop(TailDrop), 1);
            for i in 0..40 {
                assert_eq!(b.arrive(ubr_cell(i, 0, false), UBR), Admission::Enqueued);
            }
            assert_eq!(b.queue_bytes(), slots * cell, "capacity {capacity:?}");
            if capacity.is_some() {
                assert_eq!(
                    b.arrive(ubr_cell(40, 0, false), UBR),
                    Admission::Dropped(DropReason::BufferFull)
                );
            }
            let tags: Vec<u32> = std::iter::from_fn(|| b.dequeue()).map(|c| c.tag).collect();
            assert_eq!(tags, (0..40).collect::<Vec<_>>());
        }
    }

    /// Two unlimited tail-drop buffers of one VC (flow 0, UBR): the first holds cells, the
    /// second frames.
    fn unlimited_pair_one_holding_frames() -> (Buf, Buf) {
        let cells = Buf::new(None, AnyPolicy::TailDrop(TailDrop), 1);
        let mut frames = Buf::new(None, AnyPolicy::TailDrop(TailDrop), 1);
        frames.hold_frames(ubr_cell(0, 0, false));
        (cells, frames)
    }

    #[test]
    fn frames_held_count_and_leave_as_cells_queued_one_by_one() {
        // An unlimited tail-drop buffer of one VC sees frames of 3, 1 and 2 cells, handed
        // whole or in parts, with cells taken out between: the buffer holding frames gives
        // the same cells, counts, high-water marks and per-VC state as one queueing each
        // cell, after every step.
        let (mut cells, mut frames) = unlimited_pair_one_holding_frames();
        assert!(frames.holds_frames() && !cells.holds_frames());
        let mut frame_no = 0;
        // (cells in the frame, the parts handed in, cells taken out after).
        type Step = (u32, &'static [(u32, u32)], usize);
        let steps: [Step; 5] = [
            (3, &[(0, 3)], 1),
            (1, &[(0, 1)], 0),
            (2, &[(0, 1), (1, 2)], 4),
            (3, &[(0, 1)], 1),
            (3, &[(1, 3)], 9),
        ];
        for (n, parts, take) in steps {
            if parts[0].0 == 0 {
                frame_no += 1;
            }
            for &(from, to) in parts {
                for i in from..to {
                    let c = ubr_cell(100 + frame_no, frame_no, i + 1 == n);
                    assert_eq!(cells.arrive(c, UBR), Admission::Enqueued);
                }
                frames.arrive_frame(100 + frame_no, frame_no, (from, to), n);
                assert_eq!(state(&cells, 1), state(&frames, 1));
                assert_eq!(cells.class_queued(UBR), frames.class_queued(UBR));
            }
            for _ in 0..take {
                assert_eq!(cells.dequeue(), frames.dequeue());
                assert_eq!(state(&cells, 1), state(&frames, 1));
                assert_eq!(frames.take_interval_max(), cells.take_interval_max());
            }
            check_identities(&frames);
        }
        assert_eq!(frames.queued(), 0);
        assert_eq!(frames.dequeue(), None);
        frames.hold_cells();
        assert!(!frames.holds_frames());
    }

    #[test]
    fn frames_waiting_become_cells_when_the_buffer_holds_cells_again() {
        // Mid-frame, the buffer goes back to holding cells (a trace attached late): the
        // cells still waiting leave in the same order, with the same counts, as from a
        // buffer that queued them one by one all along; later cells go the usual way.
        let (mut cells, mut frames) = unlimited_pair_one_holding_frames();
        for (tag, n) in [(5, 4), (6, 2)] {
            for i in 0..n {
                cells.arrive(ubr_cell(tag, tag, i + 1 == n), UBR);
            }
            frames.arrive_frame(tag, tag, (0, n), n);
        }
        assert_eq!(cells.dequeue(), frames.dequeue());
        frames.hold_cells();
        assert!(!frames.holds_frames());
        assert_eq!(state(&cells, 1), state(&frames, 1));
        let next = ubr_cell(7, 0, true);
        assert_eq!(cells.arrive(next, UBR), frames.arrive(next, UBR));
        while let Some(c) = cells.dequeue() {
            assert_eq!(Some(c), frames.dequeue());
            assert_eq!(state(&cells, 1), state(&frames, 1));
        }
        assert_eq!(frames.dequeue(), None);
        check_identities(&frames);
    }

    #[test]
    #[should_panic(expected = "frames are held only")]
    fn frames_are_not_held_where_a_cell_may_be_dropped() {
        Buf::new(Some(10), AnyPolicy::TailDrop(TailDrop), 1).hold_frames(Cell::default());
    }

    #[test]
    fn tail_drop_keeps_the_tail_of_a_damaged_frame() {
        let mut p = Buf::new(Some(5), AnyPolicy::TailDrop(TailDrop), 2);
        let out = offer(&mut p, &frame(0, 1, 8));
        assert_eq!(out.iter().filter(|a| **a == Admission::Enqueued).count(), 5);
        // Room again: the rest of the damaged frame is still queued under tail drop.
        p.dequeue();
        p.dequeue();
        let out = offer(&mut p, &frame(0, 2, 2));
        assert_eq!(out, vec![Admission::Enqueued, Admission::Enqueued]);
        check_identities(&p);
    }

    #[test]
    fn ppd_drops_rest_of_frame_but_keeps_eom() {
        let mut p = Buf::new(Some(4), AnyPolicy::Ppd(Ppd), 1);
        let f = frame(0, 1, 6);
        let mut out = offer(&mut p, &f[..5]); // 4 in, 5th dropped (full)
        assert_eq!(out[4], Admission::Dropped(DropReason::BufferFull));
        p.dequeue(); // room for one
        out = offer(&mut p, &f[5..]); // EOM fits: kept
        assert_eq!(out, vec![Admission::Enqueued]);
        // A next frame is accepted normally once there is room.
        p.dequeue();
        p.dequeue();
        let out = offer(&mut p, &frame(0, 2, 1));
        assert_eq!(out, vec![Admission::Enqueued]);
        check_identities(&p);
    }

    #[test]
    fn ppd_drops_middle_cells_even_when_room_returns() {
        let mut p = Buf::new(Some(2), AnyPolicy::Ppd(Ppd), 1);
        let f = frame(0, 1, 5);
        assert_eq!(p.arrive(f[0], UBR), Admission::Enqueued);
        assert_eq!(p.arrive(f[1], UBR), Admission::Enqueued);
        assert_eq!(
            p.arrive(f[2], UBR),
            Admission::Dropped(DropReason::BufferFull)
        );
        p.dequeue();
        assert_eq!(
            p.arrive(f[3], UBR),
            Admission::Dropped(DropReason::PartialDiscard)
        );
        assert_eq!(p.arrive(f[4], UBR), Admission::Enqueued); // EOM
        check_identities(&p);
    }

    #[test]
    fn epd_drops_whole_new_frame_including_eom() {
        let mut p = Buf::new(Some(100), AnyPolicy::Epd(Epd { r: 10.0 }), 2);
        offer(&mut p, &frame(0, 1, 10)); // X = 10 after this frame
        let out = offer(&mut p, &frame(1, 1, 3));
        assert!(out
            .iter()
            .all(|a| *a == Admission::Dropped(DropReason::FrameDiscard)));
        assert_eq!(p.queued(), 10);
        // A frame whose first cell arrived below R is completed even past R.
        let mut p = Buf::new(Some(100), AnyPolicy::Epd(Epd { r: 10.0 }), 2);
        offer(&mut p, &frame(0, 1, 9));
        let out = offer(&mut p, &frame(1, 1, 5));
        assert!(out.iter().all(|a| *a == Admission::Enqueued));
        check_identities(&p);
    }

    #[test]
    fn epd_falls_back_to_ppd_on_overflow_and_keeps_the_eom() {
        let mut p = Buf::new(Some(5), AnyPolicy::Epd(Epd { r: 4.0 }), 1);
        let f = frame(0, 1, 8);
        let out = offer(&mut p, &f[..7]);
        assert_eq!(&out[..5], &[Admission::Enqueued; 5]);
        assert_eq!(out[5], Admission::Dropped(DropReason::BufferFull));
        assert_eq!(out[6], Admission::Dropped(DropReason::BufferFull));
        p.dequeue();
        assert_eq!(p.arrive(f[7], UBR), Admission::Enqueued);
        check_identities(&p);
    }

    #[test]
    fn selective_drop_uses_per_vc_accounting() {
        // K = 100, R = 50. VC 0 hogs the buffer; VC 1 has little.
        let mut p = Buf::new(
            Some(100),
            AnyPolicy::SelectiveDrop(SelectiveDrop { r: 50.0, z: 0.8 }),
            2,
        );
        for t in 0..5 {
            offer(&mut p, &frame(0, t, 12)); // 60 cells of VC 0
        }
        offer(&mut p, &frame(1, 0, 2)); // X = 60 > R; VC 1 has 0 cells: admitted
        assert_eq!(p.vc_cells(1), 2);
        assert_eq!(p.active_vcs(), 2);
        // VC 0: ratio = 60 * 2 / 62 = 1.94 > 0.8: whole frame dropped.
        let out = offer(&mut p, &frame(0, 9, 12));
        assert!(out
            .iter()
            .all(|a| *a == Admission::Dropped(DropReason::FrameDiscard)));
        // VC 1: ratio = 2 * 2 / 62 = 0.06: admitted.
        let out = offer(&mut p, &frame(1, 1, 12));
        assert!(out.iter().all(|a| *a == Admission::Enqueued));
        check_identities(&p);
    }

    #[test]
    fn fba_limit_tightens() {
        let mut p = Buf::new(Some(100), AnyPolicy::Fba(Fba { r: 50.0, z: 0.8 }), 2);
        for t in 0..4 {
            offer(&mut p, &frame(0, t, 12)); // 48 cells
        }
        offer(&mut p, &frame(1, 0, 12)); // 60 cells, VC1 = 12
                                         // X = 60: limit = 0.8 * 50 / 10 = 4; VC 0 ratio = 48*2/60 = 1.6 <= 4: admitted.
        assert!(offer(&mut p, &frame(0, 5, 12))
            .iter()
            .all(|a| *a == Admission::Enqueued));
        // X = 72: limit = 0.8*50/22 = 1.82; VC 0 ratio = 60*2/72 = 1.67: admitted.
        assert!(offer(&mut p, &frame(0, 6, 12))
            .iter()
            .all(|a| *a == Admission::Enqueued));
        // X = 84: limit = 0.8*50/34 = 1.18; VC 0 ratio = 72*2/84 = 1.71: dropped.
        assert!(offer(&mut p, &frame(0, 7, 12))
            .iter()
            .all(|a| *a == Admission::Dropped(DropReason::FrameDiscard)));
        check_identities(&p);
    }

    #[test]
    fn strict_priority_and_rm_cells() {
        let mut p = Buf::new(Some(3), AnyPolicy::Epd(Epd { r: 1.0 }), 3);
        let mut rm = Cell::data(2, 0, false);
        rm.flags |= crate::cell::flag::RM;
        assert_eq!(
            p.arrive(Cell::data(0, 1, true), ServiceClass::Ubr),
            Admission::Enqueued
        );
        assert_eq!(
            p.arrive(Cell::data(1, 1, true), ServiceClass::Cbr),
            Admission::Dropped(DropReason::FrameDiscard)
        );
        // RM cells ignore frame policies, only the buffer limit applies.
        assert_eq!(p.arrive(rm, ServiceClass::Abr), Admission::Enqueued);
        assert_eq!(p.arrive(rm, ServiceClass::Abr), Admission::Enqueued);
        assert_eq!(
            p.arrive(rm, ServiceClass::Abr),
            Admission::Dropped(DropReason::BufferFull)
        );
        // ABR (class 2) goes before UBR (class 3).
        assert_eq!(p.dequeue().unwrap().flow, 2);
        assert_eq!(p.dequeue().unwrap().flow, 2);
        assert_eq!(p.dequeue().unwrap().flow, 0);
        assert!(p.dequeue().is_none());
        check_identities(&p);
    }
}
