//! The network as the engine runs it: ports (buffer + transmitter + delay line), flows
//! (a connection's direction with its route), and connections (the end systems).
//!
//! Built once from a resolved [`Scenario`]; nothing here allocates per cell.

use crate::aal5::{self, Reassembly};
use crate::abr::source::cell_interval;
use crate::abr::{AbrSource, Destination};
use crate::allocator::none::NoAllocator;
use crate::allocator::{
    AllocatorCfg, AnyAllocator, CellsTaken, PortEnv, RateAllocator, RmFields, TakeRule,
};
use crate::cell::{Cell, FlowId, CELL_BITS, CELL_BITS_F64};
use crate::drop_policy::AnyPolicy;
use crate::link::DelayLine;
use crate::port::{BufferTables, PortBuffer, PortFlows, SlotTable, VcSlots};
use crate::scenario::model::PortSettings;
use crate::scenario::{ConnectionCfg, Scenario};
use crate::tcp::rto::RtoBounds;
use crate::tcp::{TcpReceiver, TcpSender};
use crate::traffic::{AnyTraffic, CellApp};
use atmsim_kernel::{MaybeTime, RngStream, Time, UnitTime};
use std::sync::Arc;

/// An output port: buffer, transmitter and the delay line of its link direction.
///
/// 96 bytes on 32-byte bounds, so that every port spans two cache lines, no more: the
/// transmitter and the delay line, then the buffer ([`PortBuffer`]; its queues, drop counts
/// and high-water marks are boxed on first use, so a port that never queues nor drops a
/// cell is these two lines). A cell that finds the transmitter free and the buffer empty
/// touches the two (issue 14: at 10 000 VCs most cells do, and each line is a cache miss;
/// 312 bytes in the compiler's order straddled five or six, 256 bytes with the queues inline
/// were four lines of every port, and 192 bytes with the slot table, the policy and the
/// marks inline three). What ports share, the line rate's unit time and the propagation
/// delay, is in [`Network::timings`]; the slot table and the kinds of buffer (drop policy
/// and size) in [`Network::buffers`]; the allocators, which most ports of a large network
/// do not have, in [`Network::allocators`]; the RM and VBR cells sent since the last sample
/// are in [`Network::special_sent`], touched only for those cells. At 128 bytes on
/// cache-line bounds (the allocator inline, the buffer's size, counts and VC table in the
/// buffer) a port took a third more memory for the same two lines (issue 14, forty-ninth
/// session).
#[derive(Debug)]
#[repr(C, align(32))]
pub struct Port {
    /// The transmitter is busy until this time.
    pub busy_until: Time,
    /// The running remainder of the transmitter's serial clock ([`UnitTime::next_duration`]).
    pub clock_acc: u64,
    /// The port's line rate and propagation delay: [`Network::timings`]`[timing]`.
    pub timing: u32,
    /// A transmit-done event is pending.
    pub tx_pending: bool,
    /// True for switch ports (reported in results and time series).
    pub is_switch: bool,
    /// The line holds cells sent back to back of one frame, or of a run of one-cell
    /// frames, as a run (`crate::link`): at host ports, whose cells leave back to back
    /// (a TCP segment, a greedy source at the line rate), in a network whose host lines
    /// could hold [`RUNS_FROM_BYTES`] or more ([`Network::set_line_runs`]).
    pub line_runs: bool,
    /// The port carries the cells of one paced source and nothing else
    /// ([`Network::mark_lone_sources`]): a cell that source offers while the transmitter ends
    /// the one before may go onto the line at once, as of that end, without a transmit-done
    /// event (`sim::Sim::admit`; issue 14).
    pub lone_source: bool,
    /// Which arriving cells go to the allocator ([`RateAllocator::cells_taken`] of an
    /// active one; none otherwise).
    pub takes: TakeRule,
    /// The port's ABR rate allocator: [`Network::allocators`]`[alloc]` (0: none, shared by
    /// every port without one).
    pub alloc: u32,
    /// The link's propagation part.
    pub line: DelayLine,
    /// Queues, policy and counters.
    pub buf: PortBuffer,
}

/// The bytes the lines of the host ports could take, cell by cell, from which they keep
/// back-to-back cells as runs ([`Port::line_runs`], `crate::link`). A run makes ring
/// memory of a host's line scale with its frames (or the RM cells between a greedy
/// source's cells), not its cells, but costs instructions on every cell it holds.
/// Measured (docs/performance-journal.md, issue 14): on `atmsim bench` (30 host lines of 5 ms:
/// 1.3 MB) runs took 8 % more CPU for memory that fits in the caches; in the UBR row at
/// 10 000 VCs (20 000 lines of 1 ms: 176 MB) about the same CPU (paired 1.00-1.04) and
/// 12.6 % less memory.
pub const RUNS_FROM_BYTES: usize = 14 << 20;

/// Bytes port `p`'s line holds with as many cells in flight as fit on it (the memory
/// estimate's [`crate::footprint`] count: line rate x propagation delay, plus one), each in
/// a slot of its own.
fn line_bytes_at_most(s: &Scenario, p: usize) -> u64 {
    let slot = std::mem::size_of::<(Time, Cell)>() as u64;
    crate::footprint::link_cells(s.ports.settings(p)).saturating_mul(slot)
}

/// What the ports of one line rate and propagation delay share: the unit time of a cell at
/// that rate and the delay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineTiming {
    /// A cell's transmission time at the line rate (the constant part of the serial clock).
    pub unit: UnitTime,
    /// Propagation delay.
    pub prop: Time,
}

/// Whether a cell a port sent is an RM cell and whether a VBR one: what
/// [`Network::count_special_sent`] counts, named so that the two cannot be swapped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Special {
    /// An RM cell.
    pub rm: bool,
    /// A VBR cell.
    pub vbr: bool,
}

/// RM and VBR cells a port sent since the last time-series sample.
#[derive(Clone, Copy, Debug, Default)]
pub struct SpecialSent {
    /// RM cells.
    pub rm: u64,
    /// VBR cells.
    pub vbr: u64,
}

/// One direction of a connection: what the engine touches for each of its cells, in one
/// cache line (issue 14: at 10 000 VCs the 88-byte flow of a cell sent straddled two lines,
/// both missed). A forward flow's frame tally at its destination, touched once per frame,
/// is in [`Network::frame_tallies`].
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Flow {
    /// Cells created.
    pub cells_sent: u64,
    /// Frames emitted.
    pub frames_sent: u64,
    /// Cells that reached the destination.
    pub cells_delivered: u64,
    /// Cells dropped anywhere.
    pub cells_dropped: u64,
    /// Range of this flow's ports in [`Network::route_ports`].
    pub route_start: u32,
    /// Number of ports crossed.
    pub route_len: u16,
    /// Class bits already shifted into cell flags.
    pub class_flags: u16,
    /// Cells per frame of this flow.
    pub cells_per_frame: u32,
    /// Next frame emission number.
    pub next_frame: u32,
    /// Reassembly state at the destination.
    pub reasm: Reassembly,
    /// The first port of the route (the source host's), where every cell of the flow
    /// starts: [`Network::route_ports`]`[route_start]`, kept here so that a cell sent
    /// reads no other line.
    pub first_port: u32,
}

/// The frames a forward flow's destination closed: the flow's counts touched once per
/// frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameTally {
    /// Frames reassembled good.
    pub good: u64,
    /// Frames closed by an EOM that failed reassembly.
    pub corrupted: u64,
    /// Highest frame emission number seen at the destination, plus one.
    pub seen: u64,
}

pub use crate::end_systems::{EndSystems, Ends, EndsRef};

/// One direction of a cell-level connection, or of a TCP connection over ABR: the
/// sending side at its source host (backlog, transmitter, ABR source end system) and the
/// receiving side at the far host (ABR destination end system, counts).
///
/// For TCP over ABR the backlog is the AAL5 source queue: the cells of the frames TCP
/// handed down and the source has not sent yet, with the frames' tags in `frames` (seed 000:
/// TCP segments leave the host paced at ACR).
///
/// Laid out for the send path (issue 14: at 10 000 VCs a cell sent missed four or five
/// lines of the 280-byte direction, in the compiler's order): the first line holds what
/// every transmit opportunity reads and writes, the second the transmitter's state (an
/// ABR source's per-cell fields come first, [`AbrSource`]; a line-rate transmitter's
/// three fields); the destination's counts and the rarer fields follow. 208 bytes, so that
/// a cell-level connection with its application is four lines ([`CellConn`]).
#[derive(Debug)]
#[repr(C)]
pub struct CellDir {
    /// Time of the pending send event, if any.
    send_at: MaybeTime,
    /// Cells handed by the application and not yet sent ([`UNBOUNDED`]: always some).
    backlog: u64,
    /// Time of the last ACR change (or of warm-up).
    acr_since: Time,
    /// ACR x time integrated after warm-up (cells), for the mean ACR.
    acr_area: f64,
    /// Generation of the pending send event (stale ones are ignored).
    send_gen: u32,
    /// Cells per application message (1 for streams; request or response size).
    frame_cells: u32,
    /// Cells of the current message already sent.
    frame_pos: u32,
    /// Messages started (tag of the next).
    frame_no: u32,
    /// TCP over ABR: TCP has a segment waiting for room in the source queue.
    blocked: bool,
    /// The application has stopped.
    stopped: bool,
    /// Sessions traffic: the connection is open now.
    session_open: bool,
    /// TCP over ABR: frames were queued, so `frames` is in use (the send path of other
    /// traffic then need not read it).
    tagged: bool,
    /// The ABR destination end system of this direction's cells (one byte: its EFCI state).
    dest: Destination,
    /// Largest source queue seen, cells.
    max_backlog: u64,
    /// The transmitter: the ABR source end system (service ABR), or a non-ABR one at its
    /// line rate.
    tx: Transmitter,
    /// Data cells received at the destination.
    data_received: u64,
    /// Data cells received after warm-up.
    data_received_warm: u64,
    /// Messages whose last cell reached the destination.
    messages_received: u64,
    /// TCP over ABR: the frames of the source queue (None for other traffic: issue 14,
    /// 32 bytes of every cell-level connection's direction).
    frames: Option<Box<FrameQueue>>,
}

/// A direction's transmitter at its source host: the ABR source end system, or for the
/// other services one that sends its backlog at its line rate (seed 003 section 5.6: a
/// source's peak rate is its access link's), through a token-bucket shaper for video.
///
/// As large as the ABR source (112 bytes): the line-rate transmitter's fields lie beside
/// the source's first field, a pointer that is never null, which tells the two apart
/// (issue 14: the line-rate fields were 24 bytes of every ABR direction, never read there).
#[derive(Debug)]
enum Transmitter {
    /// The ABR source end system.
    Abr(AbrSource),
    /// A non-ABR transmitter at its line rate.
    Line(LineTransmitter),
}

/// A non-ABR transmitter: its cells at most one per cell time of its access link.
#[derive(Debug)]
struct LineTransmitter {
    /// The time between cells at the line rate (its PCR, the access link rate), in ps:
    /// [`cell_interval`] of the rate, kept so that a cell sent does not divide for it.
    gap: Time,
    /// Time of the last cell sent.
    last_send: MaybeTime,
    /// Token-bucket shaper (video).
    shaper: Option<Box<crate::video::TokenBucket>>,
}

/// TCP over ABR: the frames in a direction's source queue.
#[derive(Debug)]
struct FrameQueue {
    /// The most cells the source queue may hold before TCP waits (`u64::MAX`: no limit).
    limit: u64,
    /// Tags (segment or ACK numbers) of the frames queued, oldest first.
    tags: atmsim_kernel::Fifo<u32>,
}

impl FrameQueue {
    /// An empty queue of at most `limit` cells (`u64::MAX`: no limit).
    fn boxed(limit: u64) -> Box<FrameQueue> {
        Box::new(FrameQueue {
            limit,
            tags: atmsim_kernel::Fifo::new(),
        })
    }
}

/// Backlog value meaning "the application always has cells".
pub const UNBOUNDED: u64 = u64::MAX;

impl CellDir {
    /// A direction whose transmitter is the ABR source `src`, of messages of `frame_cells`
    /// cells.
    fn of_abr(src: AbrSource, frame_cells: u32) -> CellDir {
        CellDir::with(Transmitter::Abr(src), frame_cells)
    }

    /// A direction whose transmitter sends at most `line_rate` cells/s (its access link's
    /// rate), through `shaper` if any, of messages of `frame_cells` cells.
    fn at_line_rate(
        line_rate: f64,
        shaper: Option<crate::video::TokenBucket>,
        frame_cells: u32,
    ) -> CellDir {
        let line = LineTransmitter {
            gap: cell_interval(line_rate),
            last_send: MaybeTime::NONE,
            shaper: shaper.map(Box::new),
        };
        CellDir::with(Transmitter::Line(line), frame_cells)
    }

    fn with(tx: Transmitter, frame_cells: u32) -> CellDir {
        CellDir {
            backlog: 0,
            frames: None,
            blocked: false,
            tagged: false,
            max_backlog: 0,
            tx,
            dest: Destination::default(),
            send_gen: 0,
            send_at: MaybeTime::NONE,
            frame_cells,
            frame_pos: 0,
            frame_no: 0,
            data_received: 0,
            data_received_warm: 0,
            messages_received: 0,
            acr_area: 0.0,
            acr_since: 0,
            stopped: false,
            session_open: false,
        }
    }

    /// Adds `n` cells to the backlog (saturating at [`UNBOUNDED`]).
    #[inline]
    pub fn add_backlog(&mut self, n: u64) {
        if self.backlog != UNBOUNDED {
            self.backlog = self.backlog.saturating_add(n).min(UNBOUNDED - 1);
            self.max_backlog = self.max_backlog.max(self.backlog);
        }
    }

    /// TCP over ABR: queues a frame of `cells` cells with tag `tag` in the source queue.
    #[inline]
    pub fn push_frame(&mut self, tag: u32, cells: u32) {
        self.tagged = true;
        let frames = self
            .frames
            .get_or_insert_with(|| FrameQueue::boxed(u64::MAX));
        frames.tags.push_back(tag);
        self.add_backlog(cells as u64);
    }

    /// TCP over ABR: whether a frame of `cells` cells fits in the source queue now.
    #[inline]
    pub fn has_room(&self, cells: u32) -> bool {
        let limit = self.frames.as_ref().map_or(u64::MAX, |f| f.limit);
        self.backlog.saturating_add(cells as u64) <= limit
    }

    /// Integrates ACR up to `now` (from `warmup` on), before ACR changes.
    #[inline]
    pub fn integrate_acr(&mut self, now: Time, warmup: Time) {
        if let Transmitter::Abr(src) = &self.tx {
            let from = self.acr_since.max(warmup);
            if now > from {
                self.acr_area += src.acr() * atmsim_kernel::time::to_secs_f64(now - from);
            }
            self.acr_since = now;
        }
    }

    /// Cells handed by the application and not yet sent ([`UNBOUNDED`]: always some).
    #[inline]
    pub fn backlog(&self) -> u64 {
        self.backlog
    }

    /// Largest source queue seen, cells.
    #[inline]
    pub fn max_backlog(&self) -> u64 {
        self.max_backlog
    }

    /// The application has cells waiting to be sent.
    #[inline]
    pub fn has_backlog(&self) -> bool {
        self.backlog > 0
    }

    /// A greedy application: from now on it always has cells.
    #[inline]
    pub fn set_greedy(&mut self) {
        self.backlog = UNBOUNDED;
    }

    /// The application withdraws what it has not sent.
    #[inline]
    pub fn clear_backlog(&mut self) {
        self.backlog = 0;
    }

    /// TCP over ABR: TCP has a segment waiting for room in the source queue.
    #[inline]
    pub fn block(&mut self) {
        self.blocked = true;
    }

    /// TCP over ABR: if TCP was waiting for room and a frame of `cells` cells fits now,
    /// clears the wait and says so.
    #[inline]
    pub fn unblock_if_room(&mut self, cells: u32) -> bool {
        if self.blocked && self.has_room(cells) {
            self.blocked = false;
            true
        } else {
            false
        }
    }

    /// The connection starts at `now`: ACR is integrated from then (or from warm-up).
    #[inline]
    pub fn start(&mut self, now: Time, warmup: Time) {
        self.acr_since = now.max(warmup);
    }

    /// The application stops for good: nothing more is sent, a session closes.
    #[inline]
    pub fn stop(&mut self) {
        self.stopped = true;
        self.backlog = 0;
        self.session_open = false;
    }

    /// The application has stopped.
    #[inline]
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// Sessions traffic: the connection is open now.
    #[inline]
    pub fn is_session_open(&self) -> bool {
        self.session_open
    }

    /// Sessions traffic: the connection opens or closes.
    #[inline]
    pub fn set_session_open(&mut self, open: bool) {
        self.session_open = open;
    }

    /// The ABR source end system (service ABR only).
    #[inline]
    pub fn abr(&self) -> Option<&AbrSource> {
        match &self.tx {
            Transmitter::Abr(src) => Some(src),
            Transmitter::Line(_) => None,
        }
    }

    /// The ABR source end system, mutable (service ABR only).
    #[inline]
    pub fn abr_mut(&mut self) -> Option<&mut AbrSource> {
        match &mut self.tx {
            Transmitter::Abr(src) => Some(src),
            Transmitter::Line(_) => None,
        }
    }

    /// ACR x time integrated from warm-up to `end` (cells), for the mean ACR; 0 without
    /// an ABR source.
    pub fn acr_area_until(&self, end: Time, warmup: Time) -> f64 {
        let mut area = self.acr_area;
        if let Transmitter::Abr(src) = &self.tx {
            let from = self.acr_since.max(warmup);
            if end > from {
                area += src.acr() * atmsim_kernel::time::to_secs_f64(end - from);
            }
        }
        area
    }

    /// The transmitter's next send time, if it has cells and it changed: the ABR
    /// source's next opportunity (in rate or out of rate), or the next slot at the
    /// line rate (through the shaper, if any). Returns the time and the generation of
    /// the send event to schedule; an earlier pending event becomes stale.
    #[inline]
    pub fn arm_send(&mut self, now: Time) -> Option<(Time, u32)> {
        if self.backlog == 0 {
            return None;
        }
        let want = match &self.tx {
            Transmitter::Abr(src) => match (src.next_opportunity(now), src.next_out_of_rate(now)) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            Transmitter::Line(line) => {
                let t = match line.last_send.get() {
                    None => now,
                    Some(t) => now.max(t + line.gap),
                };
                Some(line.shaper.as_ref().map_or(t, |b| b.ready(t)))
            }
        }?;
        if self.send_at.get() == Some(want) {
            return None;
        }
        self.send_gen = self.send_gen.wrapping_add(1);
        self.send_at = MaybeTime::some(want);
        Some((want, self.send_gen))
    }

    /// A send event of generation `gen` fires: true if it is the pending one (which is
    /// then consumed), false if it is stale.
    #[inline]
    pub fn take_send(&mut self, gen: u32) -> bool {
        if gen != self.send_gen {
            return false;
        }
        self.send_at = MaybeTime::NONE;
        true
    }

    /// ACR changed: the pending send event becomes stale (rule 1 pacing restarts from
    /// the last cell sent).
    #[inline]
    pub fn reset_pacing(&mut self) {
        self.send_at = MaybeTime::NONE;
        self.send_gen = self.send_gen.wrapping_add(1);
    }

    /// A non-ABR transmitter sends a cell at `now` (line-rate spacing and the shaper's
    /// tokens); returns the time between two of its cells at its line rate, the shortest
    /// between them ([`CellDir::arm_send`]; the shaper only delays them). Engine invariant:
    /// only for a direction without an ABR source.
    #[inline]
    pub fn sent_at_line_rate(&mut self, now: Time) -> Time {
        let Transmitter::Line(line) = &mut self.tx else {
            unreachable!("a cell at the line rate from an ABR source")
        };
        line.last_send = MaybeTime::some(now);
        if let Some(b) = line.shaper.as_mut() {
            b.take(now);
        }
        line.gap
    }

    /// Takes the next data cell from the backlog: its tag (the queued TCP frame's segment
    /// or ACK number, or for cell-level traffic the message number), its frame number
    /// (the frames this source has sent) and whether it ends the frame.
    #[inline]
    pub fn next_data_cell(&mut self) -> (u32, u32, bool) {
        self.frame_pos += 1;
        let eom = self.frame_pos >= self.frame_cells;
        let frame = self.frame_no;
        // Only a tagged direction reads its boxed frames (`tagged` is on the send path's line).
        let tag = match self.tagged {
            true => self.frames.as_deref().and_then(|f| f.tags.front().copied()),
            false => None,
        };
        if eom {
            self.frame_pos = 0;
            self.frame_no = self.frame_no.wrapping_add(1);
            if self.tagged {
                if let Some(f) = self.frames.as_deref_mut() {
                    f.tags.pop_front();
                }
            }
        }
        if self.backlog != UNBOUNDED {
            self.backlog -= 1;
        }
        (tag.unwrap_or(frame), frame, eom)
    }

    /// A data cell reaches this direction's destination: EFCI state (destination rule 1)
    /// and counts (`warm`: after warm-up).
    #[inline]
    pub fn receive_data(&mut self, cell: &Cell, warm: bool) {
        self.dest.on_data(cell);
        self.data_received += 1;
        if warm {
            self.data_received_warm += 1;
        }
    }

    /// The last cell of a message reached the destination.
    #[inline]
    pub fn message_received(&mut self) {
        self.messages_received += 1;
    }

    /// Destination rule 2: the backward RM cell (flow `back`) answering a forward one.
    #[inline]
    pub fn turn_around(&mut self, cell: &Cell, back: u32) -> Cell {
        self.dest.turn_around(cell, back)
    }

    /// Data cells received at the destination.
    #[inline]
    pub fn data_received(&self) -> u64 {
        self.data_received
    }

    /// Data cells received at the destination after warm-up.
    #[inline]
    pub fn data_received_warm(&self) -> u64 {
        self.data_received_warm
    }

    /// Messages whose last cell reached the destination.
    #[inline]
    pub fn messages_received(&self) -> u64 {
        self.messages_received
    }
}

/// The directions of a cell-level connection and its application.
///
/// The forward direction comes first, on a cache-line bound, so that its send path's two
/// lines ([`CellDir`]) are whole lines.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct CellConn {
    /// The forward direction (0).
    pub fwd: CellDir,
    /// The reverse direction (1), only for an application that sends on it
    /// ([`crate::traffic::TrafficCfg::reverse_sends`]: request/response). A one-way
    /// connection's reverse flow carries only its forward direction's backward RM cells,
    /// which that direction's destination sends and its source takes, so it has no
    /// direction state of its own (issue 14: 280 bytes of every one-way VC, a third of its
    /// end systems, were never read).
    pub rev: Option<Box<CellDir>>,
    /// The application: the running traffic source ([`crate::traffic`]), with its random
    /// stream if it draws from one (issue 14: the stream, 32 bytes, was in every
    /// connection; two kinds of six use it).
    pub source: AnyTraffic,
}

impl CellConn {
    /// The ends of cell-level connection `ci` running `app`, whose directions' messages are
    /// `frame_cells` cells (the reverse direction only if `app` sends on it).
    fn new(s: &Scenario, ci: usize, app: &CellApp, frame_cells: [u32; 2]) -> Self {
        let (c, name) = (&s.connections[ci], s.connection_name(ci));
        let dir = |ports_of: &[u32], shaper, frame_cells: u32| match &c.abr {
            Some(p) => CellDir::of_abr(AbrSource::new(p.clone()), frame_cells),
            None => {
                // The access link's rate (an ABR source paces itself).
                let settings = s.ports.settings(ports_of[0] as usize);
                let line_rate = settings.rate_bps as f64 / CELL_BITS_F64;
                CellDir::at_line_rate(line_rate, shaper, frame_cells)
            }
        };
        let path = s.path(ci);
        let fwd = dir(path.fwd_ports(), app.shaper(), frame_cells[0]);
        let rev = (!carries_only_feedback(c))
            .then(|| Box::new(dir(path.bwd_ports(), None, frame_cells[1])));
        CellConn {
            source: app.build(s.seed, name),
            fwd,
            rev,
        }
    }

    /// Direction `d`'s state (0 forward, 1 reverse), if the connection has it.
    #[inline]
    pub fn dir(&self, d: usize) -> Option<&CellDir> {
        match d {
            0 => Some(&self.fwd),
            _ => self.rev.as_deref(),
        }
    }

    /// Direction `d`'s state (engine invariant: the reverse direction only for an
    /// application that sends on it).
    #[inline]
    pub fn dir_mut(&mut self, d: usize) -> &mut CellDir {
        self.dir_and_source(d).0
    }

    /// Direction `d`'s state and the application, to hand one to the other (engine
    /// invariant as [`CellConn::dir_mut`]).
    #[inline]
    pub fn dir_and_source(&mut self, d: usize) -> (&mut CellDir, &mut AnyTraffic) {
        let dir = match d {
            0 => &mut self.fwd,
            _ => self
                .rev
                .as_deref_mut()
                .expect("the reverse direction of a connection that sends on it"),
        };
        (dir, &mut self.source)
    }

    /// The directions the connection has, forward first.
    pub fn dirs_mut(&mut self) -> impl Iterator<Item = &mut CellDir> {
        std::iter::once(&mut self.fwd).chain(self.rev.as_deref_mut())
    }
}

/// A TCP connection: the sender at `from`, the receiver at `to`.
#[derive(Debug)]
pub struct TcpConn {
    /// Sender.
    pub snd: TcpSender,
    /// Receiver.
    pub rcv: TcpReceiver,
    /// The receiver's next expected segment when the last segment before warm-up arrived:
    /// the segments delivered in order before warm-up ([`TcpConn::goodput_bytes`]).
    pub warm_from: u32,
    /// Exact-timer event generation (stale events are ignored).
    pub timer_gen: u32,
    /// Time of the pending exact-timer event, if any.
    pub timer_at: MaybeTime,
    /// A delayed-ACK event is pending.
    pub delack_pending: bool,
    /// The application is running: its start time has come (before it, nothing is sent).
    pub started: bool,
    /// Phase of this connection's host timer ticks.
    pub tick_phase: Time,
    /// TCP over ABR: the ABR source and destination end systems of the data (0) and
    /// ACK (1) directions, with their AAL5 source queues. None under UBR.
    pub dirs: Option<Box<[CellDir; 2]>>,
    /// Application writes done (periodic application).
    pub writes: u32,
}

/// No port.
pub const NO_PORT: u32 = u32::MAX;

/// The RTO bounds of a network's TCP senders, one for each distinct timer setting (tick,
/// initial, minimum and maximum RTO: all that [`RtoBounds::of`] reads).
#[derive(Default)]
struct SharedRtoBounds(rustc_hash::FxHashMap<(Option<Time>, Time, Time, Time), Arc<RtoBounds>>);

impl SharedRtoBounds {
    /// The bounds of senders of parameters `tcp`.
    fn of(&mut self, tcp: &crate::scenario::TcpParams) -> Arc<RtoBounds> {
        let key = (tcp.tick, tcp.rto_initial, tcp.rto_min, tcp.rto_max);
        self.0
            .entry(key)
            .or_insert_with(|| Arc::new(RtoBounds::of(tcp)))
            .clone()
    }
}

impl TcpConn {
    /// Bytes delivered in order to the application in all: the receiver's segments
    /// delivered in order (its next expected segment, counted from 0) times the segment
    /// size. Read, not kept (issue 14: with the two byte counts and the segment size, a
    /// connection was 296 bytes, a heap block of 304; without them 280, a block of 288).
    pub fn delivered_bytes(&self) -> u64 {
        u64::from(self.rcv.rcv_nxt) * self.snd.win.mss
    }

    /// Bytes delivered in order to the application after warm-up.
    pub fn goodput_bytes(&self) -> u64 {
        u64::from(self.rcv.rcv_nxt - self.warm_from) * self.snd.win.mss
    }

    /// The ends of TCP connection `ci`, with parameters `tcp` and RTO bounds `bounds`.
    fn new(
        s: &Scenario,
        ci: usize,
        tcp: &crate::scenario::TcpParams,
        bounds: Arc<RtoBounds>,
    ) -> TcpConn {
        let (c, name) = (&s.connections[ci], s.connection_name(ci));
        let wseg = (tcp.window / tcp.mss as u64) as u32;
        let dirs = c.abr.as_ref().map(|p| {
            let cells = [
                aal5::cells_for_segment(tcp.mss, c.llc_snap),
                aal5::cells_for_ip(aal5::TCPIP_HEADERS, c.llc_snap),
            ];
            let mk = |k: usize| {
                let mut d = CellDir::of_abr(AbrSource::new(p.clone()), cells[k]);
                let limit = match k {
                    0 => p.source_queue.map_or(u64::MAX, u64::from),
                    _ => u64::MAX,
                };
                d.frames = Some(FrameQueue::boxed(limit));
                d
            };
            Box::new([mk(0), mk(1)])
        });
        TcpConn {
            dirs,
            writes: 0,
            snd: TcpSender::with_bounds(tcp, bounds),
            rcv: TcpReceiver::with_options(wseg + 1, tcp.delayed_ack, tcp.keep_out_of_order)
                .with_sack(tcp.congestion.sack_blocks(), wseg + 1),
            warm_from: 0,
            timer_gen: 0,
            timer_at: MaybeTime::NONE,
            delack_pending: false,
            started: false,
            tick_phase: match (tcp.tick_phase, tcp.tick) {
                (Some(p), _) => p,
                (None, Some(t)) => {
                    RngStream::named(s.seed, &["tcp/", name, "/tick_phase"]).below(t)
                }
                (None, None) => RngStream::named(s.seed, &["tcp/", name, "/tick_phase"])
                    .below(tcp.delayed_ack_timeout),
            },
        }
    }
}

/// The per-VC slots of every port (see [`VcSlots`]) and the flows crossing each port.
fn port_slots(s: &Scenario) -> (VcSlots, PortFlows) {
    let routes: Vec<&[u32]> = s
        .paths
        .iter()
        .flat_map(|c| [c.fwd_ports(), c.bwd_ports()])
        .collect();
    let port_node: Vec<usize> = s.ports.iter().map(|p| p.node()).collect();
    let (table, port_flows) = SlotTable::from_routes(&routes, &port_node);
    assert!(
        table.mirrored(),
        "the two directions of every connection cross the same nodes in opposite orders \
         (Network::peer_port reads it so)"
    );
    (VcSlots::Routes(std::sync::Arc::new(table)), port_flows)
}

/// True if connection `c`'s backward flow carries only the backward RM cells of its
/// forward direction: a one-way cell-level connection, which has no reverse direction
/// ([`CellConn::rev`]; the one place that says which connections are one-way: the ends,
/// the allocators of the ports and the memory estimate all ask it). Such a cell gets its feedback at the forward port of its VC at each
/// switch (`Network::peer_port`), never at a port of its own route.
pub(crate) fn carries_only_feedback(c: &ConnectionCfg) -> bool {
    c.tcp.is_none() && !c.app.as_deref().is_some_and(CellApp::reverse_sends)
}

/// True if no cell crossing a port whose flows are `here` (by flow index) ever asks the
/// port's allocator for feedback: there are flows, and every one carries only backward RM
/// cells ([`carries_only_feedback`]). Such a port is built with no allocator (issue 14: at
/// 10 000 one-way ABR VCs, one allocator's record per VC at the switch port toward each
/// source, and for ERICA one interval timer there, none of them ever read). The results
/// are the same: the allocator of such a port sees backward RM cells only, and its state
/// gives no cell anything (a backward RM cell's feedback is the forward port's); only its
/// averaging intervals, for the allocators that keep them, are no longer events, nor rows
/// of a trace of that port.
fn asks_no_feedback(here: &[u32], feedback_only: &[bool]) -> bool {
    !here.is_empty() && here.iter().all(|&f| feedback_only[f as usize])
}

/// Adds a port's allocator `a` to the network's `allocators` unless it is none; returns its
/// index there ([`Port::alloc`]: 0 for none) and the cells the port hands it
/// ([`Port::takes`]).
fn place_allocator(allocators: &mut Vec<AnyAllocator>, a: AnyAllocator) -> (u32, TakeRule) {
    if matches!(a, AnyAllocator::None(_)) {
        return (0, CellsTaken::None.rule());
    }
    let takes = match a.is_active() {
        true => a.cells_taken(),
        false => CellsTaken::None,
    };
    allocators.push(a);
    let index = u32::try_from(allocators.len() - 1).expect("fewer than 2^32 ports");
    (index, takes.rule())
}

/// The whole network.
#[derive(Debug)]
pub struct Network {
    /// Ports.
    pub ports: Vec<Port>,
    /// Flows, indexed by [`FlowId`]: connection `c` has forward flow `2c` and backward flow
    /// `2c + 1`.
    pub flows: Vec<Flow>,
    /// The frame tally of each connection's forward flow, by connection index (the
    /// results report the frames of the forward flow only, so the reverse flow keeps none:
    /// issue 14, memory per VC).
    pub frame_tallies: Vec<FrameTally>,
    /// The ports of every flow's route: the scenario's paths' indices
    /// ([`crate::scenario::Paths::shared_ids`]), where a flow's ports start at its
    /// [`Flow::route_start`] and the backward flow's follow the forward's (a copy of its
    /// own was 24 bytes per one-pair VC; issue 14).
    pub route_ports: Arc<[u32]>,
    /// The connections' end systems ([`EndSystems`]: by connection index).
    pub conns: EndSystems,
    /// The distinct line timings of the ports ([`Port::timing`] indexes it).
    pub timings: Vec<LineTiming>,
    /// What the ports' buffers share: the VCs' slots and the distinct kinds of buffer.
    pub buffers: BufferTables,
    /// The ports' rate allocators ([`Port::alloc`]): first the one of every port without
    /// one ([`NoAllocator`]), then each other port's own, in port order (issue 14: held in
    /// every port, 16 bytes of each, where at 10 000 one-pair VCs three ports in four have
    /// none).
    pub allocators: Vec<AnyAllocator>,
    /// Per port: the RM and VBR cells sent since the last time-series sample (empty in a
    /// run without samples).
    pub special_sent: Vec<SpecialSent>,
}

/// The distinct [`LineTiming`]s of a network being built, each given an index once.
#[derive(Default)]
struct Timings {
    list: Vec<LineTiming>,
    index: rustc_hash::FxHashMap<(u64, Time), u32>,
}

impl Timings {
    /// The index of the timing of a port at `rate_bps` with propagation delay `prop`.
    fn of(&mut self, rate_bps: u64, prop: Time) -> u32 {
        let list = &mut self.list;
        *self.index.entry((rate_bps, prop)).or_insert_with(|| {
            list.push(LineTiming {
                unit: UnitTime::new(rate_bps, CELL_BITS),
                prop,
            });
            (list.len() - 1) as u32
        })
    }
}

/// The distinct kinds of buffer (drop policy and size) of a network being built, each given
/// an index once: by the index of the port's settings first (most ports share a few), else
/// by the kind's value.
#[derive(Default)]
struct BufferKinds {
    by_settings: rustc_hash::FxHashMap<usize, u16>,
    by_value: rustc_hash::FxHashMap<(String, Option<u32>), u16>,
}

impl BufferKinds {
    /// The index in `tables` of the kind of buffer of a port with `settings`, of index `k` in
    /// the scenario's table of settings.
    fn of(&mut self, k: usize, settings: &PortSettings, tables: &mut BufferTables) -> u16 {
        let by_value = &mut self.by_value;
        *self.by_settings.entry(k).or_insert_with(|| {
            let (cfg, buffer) = (&settings.policy, settings.buffer);
            *by_value
                .entry((format!("{cfg:?}"), buffer))
                .or_insert_with(|| tables.add_kind(AnyPolicy::build(cfg, &()), buffer))
        })
    }
}

/// The RM-cell fields of each flow's ABR source that stay the same for the whole run (MCR,
/// weight; a cell does not carry them), indexed by flow, for the allocators
/// ([`PortEnv::rm_fields`]); the default for flows without an ABR source. A connection's two
/// directions share its ABR parameters.
fn rm_fields(s: &Scenario) -> Vec<RmFields> {
    s.connections
        .iter()
        .flat_map(|c| {
            let f = c
                .abr
                .as_ref()
                .map_or_else(RmFields::default, |p| RmFields::of_source(p.mcr, p.weight));
            [f, f]
        })
        .collect()
}

impl Network {
    /// Builds the network of a resolved scenario. A port whose cells never ask its
    /// allocator for feedback has none ([`asks_no_feedback`]).
    pub fn build(s: &Scenario) -> Network {
        Self::build_with(s, true)
    }

    /// [`Network::build`], but with the configured allocator at every port, also those
    /// whose cells never ask it for feedback: the same results, and for interval-based
    /// allocators more events (for tests and measurements: [`crate::sim::Sim::with_network`]).
    pub fn build_with_every_allocator(s: &Scenario) -> Network {
        Self::build_with(s, false)
    }

    /// [`Network::build`]; `spare_idle_allocators`: no allocator at the ports that
    /// [`asks_no_feedback`].
    fn build_with(s: &Scenario, spare_idle_allocators: bool) -> Network {
        s.assert_connection_lists();
        let nflows = s.connections.len() * 2;
        let (slots, port_flows) = port_slots(s);
        let rm_fields = rm_fields(s);
        let mut timings = Timings::default();
        let mut kinds = BufferKinds::default();
        let mut buffers = BufferTables {
            slots: slots.clone(),
            kinds: Vec::new(),
        };
        let feedback_only: Vec<bool> = s
            .connections
            .iter()
            .flat_map(|c| [false, carries_only_feedback(c)])
            .collect();
        let no_allocator = AllocatorCfg::None(NoAllocator);
        let mut allocators = vec![AnyAllocator::None(NoAllocator)];
        let ports: Vec<Port> = s
            .ports
            .iter()
            .enumerate()
            .map(|(pi, p)| (pi, p, port_flows.of(pi)))
            .map(|(pi, p, here)| {
                let alloc = AnyAllocator::build(
                    match spare_idle_allocators && asks_no_feedback(here, &feedback_only) {
                        true => &no_allocator,
                        false => &p.settings.allocator,
                    },
                    &PortEnv {
                        link_rate: p.settings.rate_bps as f64 / CELL_BITS_F64,
                        flows: nflows,
                        vcs: here,
                        slots: slots.clone(),
                        rm_fields: &rm_fields,
                    },
                );
                let (alloc, takes) = place_allocator(&mut allocators, alloc);
                Port {
                    buf: PortBuffer::of_kind(
                        kinds.of(s.ports.settings_index(pi), p.settings, &mut buffers),
                        here.len(),
                    ),
                    line: DelayLine::default(),
                    clock_acc: 0,
                    busy_until: 0,
                    timing: timings.of(p.settings.rate_bps, p.settings.prop),
                    tx_pending: false,
                    is_switch: s.nodes.is_switch(p.node()),
                    line_runs: false,
                    lone_source: false,
                    takes,
                    alloc,
                }
            })
            .collect();
        // Grown port by port (how many ports have an allocator is known only now): no room
        // to spare for the run (at 10 000 one-pair VCs, 10 001 of 16 384 places).
        allocators.shrink_to_fit();
        let mut flows = Vec::with_capacity(nflows);
        let cell_conns = s.connections.iter().filter(|c| c.tcp.is_none()).count();
        let mut conns = EndSystems::with_capacity(s.connections.len(), cell_conns);
        let mut rto_bounds = SharedRtoBounds::default();
        for (ci, c) in s.connections.iter().enumerate() {
            let class_flags = c.class.flag_bits();
            let frame_cells: [u32; 2] = match (&c.tcp, &c.app) {
                (Some(t), _) => [
                    aal5::cells_for_segment(t.mss, c.llc_snap),
                    aal5::cells_for_ip(aal5::TCPIP_HEADERS, c.llc_snap),
                ],
                (None, Some(app)) => app.message_cells(),
                (None, None) => [1, 1],
            };
            let (fwd_start, bwd_start) = s.paths.port_starts(ci);
            for (ports_of, start, cells) in [
                (s.path(ci).fwd_ports(), fwd_start, frame_cells[0]),
                (s.path(ci).bwd_ports(), bwd_start, frame_cells[1]),
            ] {
                flows.push(Flow {
                    route_start: u32::try_from(start).expect("paths hold fewer than 2^32 ids"),
                    route_len: ports_of.len() as u16,
                    class_flags,
                    cells_per_frame: cells,
                    reasm: Reassembly::default(),
                    first_port: ports_of.first().copied().unwrap_or(NO_PORT),
                    next_frame: 0,
                    cells_sent: 0,
                    cells_delivered: 0,
                    cells_dropped: 0,
                    frames_sent: 0,
                });
            }
            match (&c.tcp, &c.app) {
                (Some(tcp), _) => {
                    let bounds = rto_bounds.of(tcp);
                    conns.push_tcp(TcpConn::new(s, ci, tcp, bounds));
                }
                (None, Some(app)) => conns.push_cells(CellConn::new(s, ci, app, frame_cells)),
                (None, None) => unreachable!("resolve gives every connection traffic"),
            }
        }
        let mut net = Network {
            // Read only by the time series' samples: none without them.
            special_sent: match s.sample_interval {
                Some(_) => vec![SpecialSent::default(); ports.len()],
                None => Vec::new(),
            },
            ports,
            frame_tallies: vec![FrameTally::default(); conns.len()],
            flows,
            route_ports: s.paths.shared_ids(),
            conns,
            timings: timings.list,
            buffers,
            allocators,
        };
        net.hold_tcp_frames(s);
        net.keep_line_runs(s);
        net.mark_lone_sources(s);
        net
    }

    /// Marks the host ports that carry one paced source's cells and nothing else
    /// ([`Port::lone_source`]): the first port of the forward flow of a one-way cell-level
    /// connection (no reverse direction, so no turned-around RM cells either), the only VC
    /// there, with no allocator (whose interval would look at the queue), a line with a
    /// propagation delay (the cell before stays on it past the transmitter's end), and an
    /// application that never restarts its source (sessions traffic reopens it from ICR,
    /// free to send at once). Only the source's transmit opportunities offer cells there,
    /// each at least its shortest pacing interval after the one before (`sim::abr_host`).
    fn mark_lone_sources(&mut self, s: &Scenario) {
        for (c, conn) in self.conns.iter().enumerate() {
            let EndsRef::Cells(cells) = conn else {
                continue;
            };
            let restarts = s.connections[c]
                .app
                .as_ref()
                .is_some_and(|a| a.signals_per_session());
            let flow = &self.flows[FlowId::forward(c).index()];
            if cells.rev.is_some() || restarts || flow.route_len == 0 {
                continue;
            }
            let p = self.route_ports[flow.route_start as usize] as usize;
            let port = &mut self.ports[p];
            port.lone_source = !port.is_switch
                && port.buf.vcs_held() == 1
                && !self.allocators[port.alloc as usize].is_active()
                && self.timings[port.timing as usize].prop > 0;
        }
    }

    /// The host ports where a TCP sender (without ABR) starts its only flow hold its
    /// frames, not cells ([`PortBuffer::hold_frames`]), where nothing else can tell the
    /// difference: a buffer of one VC, unlimited, with tail drop and no allocator, and no
    /// fault injected there (a fault looks at each cell offered).
    fn hold_tcp_frames(&mut self, s: &Scenario) {
        for (c, conn) in self.conns.iter().enumerate() {
            if !matches!(conn, EndsRef::Tcp(t) if t.dirs.is_none()) {
                continue;
            }
            for f in [FlowId::forward(c), FlowId::reverse(c)] {
                let flow = &self.flows[f.index()];
                if flow.route_len == 0 {
                    continue;
                }
                let p = self.route_ports[flow.route_start as usize] as usize;
                let port = &mut self.ports[p];
                let faulted = s.faults.iter().any(|x| x.port == p);
                if port.buf.vcs_held() == 1
                    && port.buf.takes_every_cell(&self.buffers)
                    && !self.allocators[port.alloc as usize].is_active()
                    && !faulted
                {
                    let mut template = Cell::data(f.raw(), 0, false);
                    template.flags |= flow.class_flags;
                    port.buf.hold_frames(template, &self.buffers);
                }
            }
        }
    }

    /// In a network whose host lines could hold [`RUNS_FROM_BYTES`] or more, the lines of
    /// the host ports whose cells leave back to back from the start keep runs
    /// ([`Network::back_to_back_ports`]).
    fn keep_line_runs(&mut self, s: &Scenario) {
        let hosts = (0..self.ports.len()).filter(|&p| !self.ports[p].is_switch);
        let could_hold: u64 = hosts.map(|p| line_bytes_at_most(s, p)).sum();
        if could_hold >= RUNS_FROM_BYTES as u64 {
            for p in self.back_to_back_ports(s) {
                self.ports[p].line_runs = true;
            }
        }
    }

    /// The host ports whose cells leave back to back from the start, so that their lines
    /// would hold runs: a port that holds TCP frames, or where an ABR source starting at the
    /// port's line rate sends (ICR = PCR = line rate, TM 4.0's default). Runs elsewhere
    /// would cost their instructions for nothing: the ABR + KVR row at 10 000 VCs, whose
    /// UCSC sources start at PCR/50, took 1.03x the CPU with runs on every host line
    /// (paired).
    fn back_to_back_ports(&self, s: &Scenario) -> Vec<usize> {
        let cells_per_s = |p: usize| s.ports.settings(p).rate_bps as f64 / CELL_BITS_F64;
        let mut at_line_rate = vec![false; self.ports.len()];
        for (c, conn) in self.conns.iter().enumerate() {
            for f in [FlowId::forward(c), FlowId::reverse(c)] {
                let flow = &self.flows[f.index()];
                if flow.route_len == 0 {
                    continue;
                }
                let p = self.route_ports[flow.route_start as usize] as usize;
                let icr = conn
                    .dir(f.dir())
                    .and_then(CellDir::abr)
                    .map(|src| src.acr());
                at_line_rate[p] |= icr.is_some_and(|acr| acr >= cells_per_s(p));
            }
        }
        let ports = self.ports.iter().enumerate();
        ports
            .filter(|(p, port)| !port.is_switch && (port.buf.holds_frames() || at_line_rate[*p]))
            .map(|(p, _)| p)
            .collect()
    }

    /// Whether the lines of the host ports keep back-to-back cells as runs
    /// ([`Port::line_runs`]; on by itself from [`RUNS_FROM_BYTES`] where cells leave back
    /// to back: `Network::build`). The same results either way; set before the first cell
    /// moves. A switch port's line keeps none: its cells come from the lines before it, one
    /// by one.
    ///
    /// # Panics
    /// If a host port has a cell on its line or a transmit-done pending: its pending
    /// events would be of the other kind (`sim::Sim::start_tx`).
    pub fn set_line_runs(&mut self, on: bool) {
        for port in self.ports.iter_mut().filter(|p| !p.is_switch) {
            assert!(
                port.line.is_empty() && !port.tx_pending,
                "line runs are set before the port sends"
            );
            port.line_runs = on;
        }
    }

    /// The port of the opposite flow ([`FlowId::opposite`]) leaving the node of `flow`'s hop
    /// `hop` ([`NO_PORT`] at hop 0, the source's node, where the opposite flow ends): a
    /// backward RM cell of `flow` passing a switch there is processed by that port's
    /// allocator (spec 2.1). The two directions of a connection cross the same nodes in
    /// opposite orders and their ports follow each other in [`Network::route_ports`] (the
    /// forward's first), so it is hop `route_len - hop` of the opposite flow (a table of
    /// these ports was 24 bytes per VC at 10 000 one-pair VCs; issue 14, thirty-fifth
    /// session).
    #[inline]
    pub fn peer_port(&self, flow: FlowId, hop: usize) -> u32 {
        let f = self.flow(flow);
        let (start, len) = (f.route_start as usize, f.route_len as usize);
        debug_assert!(hop < len, "flow {} has no hop {hop}", flow.index());
        let opposite = if flow.is_reverse() {
            start - len
        } else {
            start + len
        };
        match hop {
            0 => NO_PORT,
            _ => self.route_ports[opposite + len - hop],
        }
    }

    /// The first port of `flow`'s route, where its cells start (`route_port(flow, 0)`).
    #[inline]
    pub fn source_port(&self, flow: FlowId) -> usize {
        self.flow(flow).first_port as usize
    }

    /// The port at hop `hop` of `flow`.
    #[inline]
    pub fn route_port(&self, flow: FlowId, hop: usize) -> usize {
        self.route_ports[self.flow(flow).route_start as usize + hop] as usize
    }

    /// A flow.
    #[inline]
    pub fn flow(&self, f: FlowId) -> &Flow {
        &self.flows[f.index()]
    }

    /// A flow, mutable.
    #[inline]
    pub fn flow_mut(&mut self, f: FlowId) -> &mut Flow {
        &mut self.flows[f.index()]
    }

    /// Passes a data cell of flow `f` to its destination's reassembly and, for a forward
    /// flow, counts the outcome in its connection's [`FrameTally`] (frames good, corrupted,
    /// and the highest frame seen).
    #[inline]
    pub fn reassemble(&mut self, f: FlowId, cell: &Cell) -> aal5::Reassembled {
        let flow = &mut self.flows[f.index()];
        let r = flow.reasm.push(cell, flow.cells_per_frame);
        if matches!(r, aal5::Reassembled::Partial) || f.is_reverse() {
            return r;
        }
        let tally = &mut self.frame_tallies[f.conn()];
        match r {
            aal5::Reassembled::Failed => tally.corrupted += 1,
            _ => tally.good += 1,
        }
        tally.seen = tally.seen.max(cell.frame as u64 + 1);
        r
    }

    /// The source/destination pair of flow `f` (cell-level traffic, or TCP over ABR;
    /// engine invariant: only called for those).
    #[inline]
    pub fn dir_mut(&mut self, f: FlowId) -> &mut CellDir {
        self.conns.dir_mut(f.conn(), f.dir())
    }

    /// The line timing of port `p`.
    #[inline]
    pub fn timing(&self, p: usize) -> &LineTiming {
        &self.timings[self.ports[p].timing as usize]
    }

    /// The rate allocator of port `p` ([`NoAllocator`] if it has none).
    #[inline]
    pub fn alloc(&self, p: usize) -> &AnyAllocator {
        &self.allocators[self.ports[p].alloc as usize]
    }

    /// The rate allocator of port `p`, to change.
    #[inline]
    pub fn alloc_mut(&mut self, p: usize) -> &mut AnyAllocator {
        &mut self.allocators[self.ports[p].alloc as usize]
    }

    /// Counts an RM or VBR cell port `p` sent, for the time series' data and VBR
    /// utilization (other cells are not counted here). Out of line: the per-cell path only
    /// tests the cell's flags, and hands over what they say rather than the cell (whose
    /// address, passed to a call, would keep it in memory on the per-cell path: issue 14,
    /// "Events and cells kept whole").
    #[inline(never)]
    pub fn count_special_sent(&mut self, p: usize, Special { rm, vbr }: Special) {
        if let Some(c) = self.special_sent.get_mut(p) {
            c.rm += rm as u64;
            c.vbr += vbr as u64;
        }
    }

    /// What [`Network::count_special_sent`] counts of `cell` ([`Special`]).
    #[inline(always)]
    pub fn special(cell: &Cell) -> Special {
        Special {
            rm: cell.is_rm(),
            vbr: cell.class() == crate::cell::ServiceClass::Vbr,
        }
    }

    /// Bytes of the per-port and per-connection state the event loop reads (ports with
    /// their allocators' records, flows, end systems; not the cells queued or in flight):
    /// whether it fits in a processor's caches ([`crate::sim::Sim::look_ahead`]).
    pub fn state_bytes(&self) -> usize {
        use std::mem::size_of;
        let ends: usize = self
            .conns
            .iter()
            .map(|c| match c {
                EndsRef::Cells(cc) => {
                    size_of::<CellConn>() + cc.rev.as_ref().map_or(0, |_| size_of::<CellDir>())
                }
                EndsRef::Tcp(t) => {
                    let dirs = size_of::<[CellDir; 2]>() + 2 * size_of::<FrameQueue>();
                    size_of::<TcpConn>() + t.dirs.as_ref().map_or(0, |_| dirs)
                }
            })
            .sum();
        let allocators: usize = self
            .allocators
            .iter()
            .map(|a| size_of::<AnyAllocator>() + a.record_bytes())
            .sum();
        self.ports.len() * size_of::<Port>()
            + allocators
            + self.flows.len() * size_of::<Flow>()
            + ends
    }

    /// Cells queued in ports or travelling on lines.
    pub fn cells_in_network(&self) -> u64 {
        self.ports
            .iter()
            .map(|p| p.buf.queued() as u64 + p.line.len() as u64)
            .sum()
    }

    /// A fresh data cell of `flow`.
    #[inline]
    pub fn new_cell(&self, flow: FlowId, tag: u32, frame: u32, eom: bool) -> Cell {
        let mut c = Cell::data(flow.raw(), tag, eom);
        c.frame = frame;
        c.flags |= self.flow(flow).class_flags;
        c
    }
}

#[cfg(test)]
#[path = "network_tests.rs"]
mod tests;
