//! Time series sampled at a fixed interval: per switch port the queue length (at the
//! sample instant and the maximum over the interval) and the link utilization over the
//! interval; per connection cwnd, cells received and goodput so far.

use crate::cell::{FlowId, CELL_MBITS};
use crate::network::Network;
use crate::scenario::schema::Name;
use crate::scenario::Scenario;
use atmsim_kernel::{time, Time};
use serde::Serialize;

/// Recorded time series, column by column.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TimeSeries {
    /// Sample times, seconds.
    pub time_s: Vec<f64>,
    /// Names of the recorded ports.
    pub port_names: Vec<Name>,
    /// Queue length at each sample, cells: `[port][sample]`.
    pub queue_cells: Vec<Vec<u32>>,
    /// Largest queue length over the interval ending at the sample, cells.
    pub max_queue_cells: Vec<Vec<u32>>,
    /// Fraction of the interval the port's link was transmitting.
    pub utilization: Vec<Vec<f32>>,
    /// The same, counting only cells that are not RM cells (seed 004's utilization: the
    /// RM overhead caps it at (Nrm - 1) / Nrm).
    pub data_utilization: Vec<Vec<f32>>,
    /// The same, counting only VBR cells (seed 004 figure 5.6).
    pub vbr_utilization: Vec<Vec<f32>>,
    /// Names of the connections.
    pub connection_names: Vec<Name>,
    /// Congestion window, bytes.
    pub cwnd_bytes: Vec<Vec<u64>>,
    /// Cells received at the destination so far.
    pub cells_received: Vec<Vec<u64>>,
    /// Bytes delivered in order so far.
    pub delivered_bytes: Vec<Vec<u64>>,
    /// Names of the ABR sources: the connection's name, with `" (reverse)"` for the
    /// reverse direction of a request/response connection.
    pub abr_names: Vec<Name>,
    /// Allowed cell rate of each ABR source at each sample, Mbit/s.
    pub acr_mbps: Vec<Vec<f32>>,
    /// Data cells received so far at the destination of each ABR source.
    pub abr_cells_received: Vec<Vec<u64>>,
}

/// Collects [`TimeSeries`] during a run.
///
/// A run without samples (`sample_interval` off) keeps no per-port or per-connection
/// storage during the run ([`Recorder::off`]; at 10 000 VCs the empty columns and names
/// were 450-570 B per VC, issue 14); [`Recorder::into_series`] then gives the same empty
/// series, with their names, as a recorder that never sampled.
#[derive(Debug, Default)]
pub struct Recorder {
    ports: Vec<usize>,
    cell_secs: Vec<f64>,
    /// Each recorded port's cells sent at the last sample (its sends in an interval are
    /// the difference: no per-cell counter for it).
    sent_before: Vec<u64>,
    abr: Vec<(usize, usize)>,
    last: Time,
    /// False for a recorder that was [`Recorder::off`].
    on: bool,
    /// The series so far.
    pub ts: TimeSeries,
}

impl Recorder {
    /// A recorder for the switch ports that carry traffic and all connections.
    pub fn new(sc: &Scenario, net: &Network) -> Self {
        let used = sc.used_ports();
        let ports: Vec<usize> = (0..sc.ports.len())
            .filter(|&p| used[p] && net.ports[p].is_switch)
            .collect();
        let cell_secs = ports
            .iter()
            .map(|&p| net.timing(p).unit.unit_secs())
            .collect();
        let mut abr = Vec::new();
        let mut abr_names = Vec::new();
        for (c, conn) in net.conns.iter().enumerate() {
            for d in 0..2 {
                if conn.dir(d).is_some_and(|dir| dir.abr().is_some()) {
                    abr.push((c, d));
                    let n = sc.connection_name(c);
                    abr_names.push(if d == 0 {
                        n.into()
                    } else {
                        smol_str::format_smolstr!("{n} (reverse)")
                    });
                }
            }
        }
        let ts = TimeSeries {
            acr_mbps: vec![Vec::new(); abr.len()],
            abr_cells_received: vec![Vec::new(); abr.len()],
            abr_names,
            port_names: ports.iter().map(|&p| sc.port_name(p)).collect(),
            queue_cells: vec![Vec::new(); ports.len()],
            max_queue_cells: vec![Vec::new(); ports.len()],
            utilization: vec![Vec::new(); ports.len()],
            data_utilization: vec![Vec::new(); ports.len()],
            vbr_utilization: vec![Vec::new(); ports.len()],
            connection_names: sc.connection_names.iter().map(Into::into).collect(),
            cwnd_bytes: vec![Vec::new(); sc.connections.len()],
            cells_received: vec![Vec::new(); sc.connections.len()],
            delivered_bytes: vec![Vec::new(); sc.connections.len()],
            ..Default::default()
        };
        Recorder {
            sent_before: ports.iter().map(|&p| net.ports[p].buf.sent()).collect(),
            ports,
            cell_secs,
            abr,
            last: 0,
            on: true,
            ts,
        }
    }

    /// A recorder for a run that takes no samples: it holds nothing.
    pub fn off() -> Self {
        Recorder::default()
    }

    /// The series recorded (for a recorder that was [`Recorder::off`], the empty series
    /// of `sc` and `net`, with their names).
    pub fn into_series(self, sc: &Scenario, net: &Network) -> TimeSeries {
        if self.on {
            self.ts
        } else {
            Recorder::new(sc, net).ts
        }
    }

    /// Takes a sample at `now`.
    pub fn sample(&mut self, now: Time, net: &mut Network) {
        let dt = time::to_secs_f64(now - self.last);
        self.last = now;
        self.ts.time_s.push(time::to_secs_f64(now));
        for (k, &p) in self.ports.iter().enumerate() {
            let port = &mut net.ports[p];
            self.ts.queue_cells[k].push(port.buf.queued());
            self.ts.max_queue_cells[k].push(port.buf.take_interval_max());
            let share = |cells: u64| {
                if dt > 0.0 {
                    (cells as f64 * self.cell_secs[k] / dt).min(1.0) as f32
                } else {
                    0.0
                }
            };
            let sent = port.buf.sent() - self.sent_before[k];
            self.sent_before[k] = port.buf.sent();
            self.ts.utilization[k].push(share(sent));
            let special = std::mem::take(&mut net.special_sent[p]);
            self.ts.data_utilization[k].push(share(sent - special.rm));
            self.ts.vbr_utilization[k].push(share(special.vbr));
        }
        for (c, conn) in net.conns.iter().enumerate() {
            match (conn.tcp_ref(), conn.cells()) {
                (Some(t), _) => {
                    self.ts.cwnd_bytes[c].push(t.snd.cwnd());
                    self.ts.cells_received[c].push(net.flow(FlowId::forward(c)).cells_delivered);
                    self.ts.delivered_bytes[c].push(t.delivered_bytes());
                }
                (None, Some(cc)) => {
                    self.ts.cwnd_bytes[c].push(0);
                    self.ts.cells_received[c].push(cc.fwd.data_received());
                    self.ts.delivered_bytes[c].push(cc.fwd.data_received() * 48);
                }
                (None, None) => unreachable!(),
            }
        }
        for (k, &(c, d)) in self.abr.iter().enumerate() {
            let dir = net.conns.dir(c, d).expect("ABR directions");
            let acr = dir.abr().map_or(0.0, |s| s.acr());
            self.ts.acr_mbps[k].push((acr * CELL_MBITS) as f32);
            self.ts.abr_cells_received[k].push(dir.data_received());
        }
    }
}
