//! The network as the engine runs it: ports (buffer + transmitter + delay line), flows
//! (a connection's direction with its route), and connections (the end systems).
//!
//! Built once from a resolved [`Scenario`]; nothing here allocates per cell.

use crate::aal5::{self, Reassembly};
use crate::cell::{Cell, CELL_BITS};
use crate::drop_policy::AnyPolicy;
use crate::link::DelayLine;
use crate::port::PortBuffer;
use crate::scenario::{Scenario, ServiceClass};
use crate::tcp::{TcpReceiver, TcpSender};
use atmsim_kernel::{RngStream, SerialClock, Time};

/// An output port: buffer, transmitter and the delay line of its link direction.
#[derive(Debug)]
pub struct Port {
    /// Queues, policy and counters.
    pub buf: PortBuffer,
    /// The link's propagation part.
    pub line: DelayLine,
    /// Spaces cell transmissions at the line rate.
    pub clock: SerialClock,
    /// Propagation delay.
    pub prop: Time,
    /// The transmitter is busy until this time.
    pub busy_until: Time,
    /// A transmit-done event is pending.
    pub tx_pending: bool,
    /// Cells sent since the last sample.
    pub sent_in_interval: u64,
    /// True for switch ports (reported in results and time series).
    pub is_switch: bool,
}

/// One direction of a connection.
#[derive(Debug)]
pub struct Flow {
    /// Range of this flow's ports in [`Network::route_ports`].
    pub route_start: u32,
    /// Number of ports crossed.
    pub route_len: u16,
    /// Class bits already shifted into cell flags.
    pub class_flags: u16,
    /// Cells per frame of this flow.
    pub cells_per_frame: u32,
    /// Reassembly state at the destination.
    pub reasm: Reassembly,
    /// Next frame emission number.
    pub next_frame: u32,
    /// Cells created.
    pub cells_sent: u64,
    /// Cells that reached the destination.
    pub cells_delivered: u64,
    /// Cells dropped anywhere.
    pub cells_dropped: u64,
    /// Frames emitted.
    pub frames_sent: u64,
    /// Frames reassembled good.
    pub frames_good: u64,
    /// Frames closed by an EOM that failed reassembly.
    pub frames_corrupted: u64,
    /// Highest frame emission number seen at the destination, plus one.
    pub frames_seen: u64,
}

/// A TCP connection: the sender at `from`, the receiver at `to`.
#[derive(Debug)]
pub struct Connection {
    /// Sender.
    pub snd: TcpSender,
    /// Receiver.
    pub rcv: TcpReceiver,
    /// Segment size, bytes.
    pub mss: u32,
    /// The application is running.
    pub started: bool,
    /// Exact-timer event generation (stale events are ignored).
    pub timer_gen: u32,
    /// Time of the pending exact-timer event, if any.
    pub timer_at: Option<Time>,
    /// A delayed-ACK event is pending.
    pub delack_pending: bool,
    /// Bytes delivered in order to the application after warm-up.
    pub goodput_bytes: u64,
    /// Bytes delivered in order in all.
    pub delivered_bytes: u64,
    /// Phase of this connection's host timer ticks.
    pub tick_phase: Time,
}

/// The whole network.
#[derive(Debug)]
pub struct Network {
    /// Ports.
    pub ports: Vec<Port>,
    /// Flows: connection `c` has forward flow `2c` and backward flow `2c + 1`.
    pub flows: Vec<Flow>,
    /// The ports of every flow's route, concatenated.
    pub route_ports: Vec<u32>,
    /// Connections.
    pub conns: Vec<Connection>,
}

impl Network {
    /// Builds the network of a resolved scenario.
    pub fn build(s: &Scenario) -> Network {
        let nflows = s.connections.len() * 2;
        let ports = s
            .ports
            .iter()
            .map(|p| Port {
                buf: PortBuffer::new(p.buffer, AnyPolicy::from_cfg(&p.policy), nflows),
                line: DelayLine::default(),
                clock: SerialClock::new(p.rate_bps, CELL_BITS),
                prop: p.prop,
                busy_until: 0,
                tx_pending: false,
                sent_in_interval: 0,
                is_switch: s.nodes[p.node].kind == crate::scenario::schema::NodeKind::Switch,
            })
            .collect();
        let mut flows = Vec::with_capacity(nflows);
        let mut route_ports = Vec::new();
        let mut conns = Vec::with_capacity(s.connections.len());
        for c in &s.connections {
            let class_flags = (match c.class {
                ServiceClass::Cbr => 0u16,
                ServiceClass::Vbr => 1,
                ServiceClass::Abr => 2,
                ServiceClass::Ubr => 3,
            }) << crate::cell::flag::CLASS_SHIFT;
            for (ports_of, cells) in [
                (&c.fwd_ports, aal5::cells_for_segment(c.tcp.mss, c.llc_snap)),
                (
                    &c.bwd_ports,
                    aal5::cells_for_ip(aal5::TCPIP_HEADERS, c.llc_snap),
                ),
            ] {
                flows.push(Flow {
                    route_start: route_ports.len() as u32,
                    route_len: ports_of.len() as u16,
                    class_flags,
                    cells_per_frame: cells,
                    reasm: Reassembly::default(),
                    next_frame: 0,
                    cells_sent: 0,
                    cells_delivered: 0,
                    cells_dropped: 0,
                    frames_sent: 0,
                    frames_good: 0,
                    frames_corrupted: 0,
                    frames_seen: 0,
                });
                route_ports.extend(ports_of.iter().map(|&p| p as u32));
            }
            let wseg = (c.tcp.window / c.tcp.mss as u64) as u32;
            conns.push(Connection {
                snd: TcpSender::new(&c.tcp),
                rcv: TcpReceiver::with_options(
                    wseg + 1,
                    c.tcp.delayed_ack,
                    c.tcp.keep_out_of_order,
                ),
                mss: c.tcp.mss,
                started: false,
                timer_gen: 0,
                timer_at: None,
                delack_pending: false,
                goodput_bytes: 0,
                delivered_bytes: 0,
                tick_phase: match (c.tcp.tick_phase, c.tcp.tick) {
                    (Some(p), _) => p,
                    (None, Some(t)) => {
                        RngStream::new(s.seed, &format!("tcp/{}/tick_phase", c.name)).below(t)
                    }
                    (None, None) => RngStream::new(s.seed, &format!("tcp/{}/tick_phase", c.name))
                        .below(c.tcp.delayed_ack_timeout),
                },
            });
        }
        Network {
            ports,
            flows,
            route_ports,
            conns,
        }
    }

    /// The port at hop `hop` of `flow`.
    #[inline]
    pub fn route_port(&self, flow: usize, hop: usize) -> usize {
        self.route_ports[self.flows[flow].route_start as usize + hop] as usize
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
    pub fn new_cell(&self, flow: usize, tag: u32, frame: u32, eom: bool) -> Cell {
        let mut c = Cell::data(flow as u32, tag, eom);
        c.frame = frame;
        c.flags |= self.flows[flow].class_flags;
        c
    }
}
