//! What a run returns: a summary, per-connection and per-port tables, time series.
//! Everything is plain data (serde), handed to Python as JSON.

use crate::aal5;
use crate::cell::{FlowId, CELL_BITS_F64};
use crate::metrics::{jain_fairness, max_goodput_bps, TimeSeries};
use crate::port::DROP_REASONS;
use crate::scenario::schema::Name;
use crate::scenario::Scenario;
use crate::sim::Sim;
use atmsim_kernel::time;
use serde::ser::SerializeMap;
use serde::Serialize;

/// Whole-run figures.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Scenario name.
    pub name: String,
    /// Run seed.
    pub seed: u64,
    /// Simulated time, s.
    pub duration_s: f64,
    /// Warm-up excluded from goodput, s.
    pub warmup_s: f64,
    /// Sum of connection goodputs, bit/s.
    pub total_goodput_bps: f64,
    /// The rate efficiency refers to, bit/s.
    pub efficiency_rate_bps: f64,
    /// Largest possible goodput on that rate, bit/s (rate x MSS / (cells x 53)).
    pub max_goodput_bps: f64,
    /// total goodput / max possible goodput (seed 001 definition).
    pub efficiency: f64,
    /// Jain's index over connection goodputs (equal shares, as seed 001 computes it), of
    /// the connections that open before the run's end (NaN if none does).
    pub fairness: f64,
    /// Jain's index over throughput / max-min share (seed 003 section 3), over the
    /// connections that have a share; None if none has.
    pub fairness_maxmin: Option<f64>,
    /// Largest queue at any switch port, cells.
    pub max_switch_queue_cells: u32,
    /// Cells created at sources.
    pub cells_sent: u64,
    /// Cells that reached their destination.
    pub cells_delivered: u64,
    /// Cells dropped at ports, and by injected faults.
    pub cells_dropped: u64,
    /// Cells lost to injected faults (`[[fault]]`), part of `cells_dropped`.
    pub cells_dropped_by_faults: u64,
    /// Cells still queued or on a link at the end.
    pub cells_in_flight: u64,
    /// cells dropped / cells sent.
    pub cell_loss_ratio: f64,
    /// sent = delivered + dropped + in flight held.
    pub conservation_ok: bool,
    /// Events processed.
    pub events: u64,
    /// Cell-hops (a cell crossing one port and its link).
    pub cell_hops: u64,
    /// Wall-clock time of the event loop, s.
    pub wall_seconds: f64,
    /// cell_hops / wall_seconds.
    pub cell_hops_per_second: f64,
    /// events / wall_seconds.
    pub events_per_second: f64,
    /// atmsim version.
    pub version: String,
    /// Set when a run budget (`max_events`, `max_wall`) stopped the run before its
    /// duration: the reason. The figures then cover only the simulated time reached
    /// (`duration_s`). Absent from complete runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<String>,
}

/// Per-connection figures. Every field is always written (no `skip_serializing_if`), a
/// scalar or an option of one: the tables cross to Python as typed columns, one per field
/// ([`crate::result_tables`]).
#[derive(Clone, Debug, Serialize)]
pub struct ConnectionResult {
    /// Name.
    pub name: Name,
    /// Source host.
    pub from: Name,
    /// Destination host.
    pub to: Name,
    /// Goodput after warm-up, bit/s.
    pub goodput_bps: f64,
    /// Bytes delivered in order after warm-up.
    pub goodput_bytes: u64,
    /// Segments sent (new and retransmitted).
    pub segments_sent: u64,
    /// Retransmitted segments.
    pub retransmissions: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmits.
    pub fast_retransmits: u64,
    /// Duplicate ACKs received by the sender.
    pub dup_acks: u64,
    /// Cells of the forward (data) direction sent, its forward RM cells included (the
    /// reverse direction's are in the summary's `cells_sent` only).
    pub cells_sent: u64,
    /// Cells of the forward direction that reached the destination.
    pub cells_delivered: u64,
    /// Cells of the forward direction dropped.
    pub cells_dropped: u64,
    /// ACK cells dropped.
    pub ack_cells_dropped: u64,
    /// Data frames (segments) emitted.
    pub frames_sent: u64,
    /// Data frames reassembled good.
    pub frames_delivered: u64,
    /// Data frames lost (partly or wholly) among those the destination has seen past.
    pub frames_lost: u64,
    /// Data frames whose reassembly failed at the destination (CRC).
    pub frames_corrupted: u64,
    /// Congestion window at the end, bytes (None for cell-level traffic: no TCP).
    pub final_cwnd_bytes: Option<u64>,
    /// Smoothed RTT at the end, s (NaN if never sampled).
    pub srtt_s: f64,
    /// The traffic source's kind: a name of [`crate::traffic::TRAFFIC_KINDS`].
    pub traffic: String,
    /// The service class: a name of [`crate::scenario::schema::SERVICES`].
    pub service: String,
    /// Rate of data cells received after warm-up, counted in whole 53-byte cells, bit/s
    /// (forward direction; for TCP the goodput's wire rate).
    pub throughput_bps: f64,
    /// The same for the reverse direction of a request/response connection, bit/s.
    pub reverse_throughput_bps: Option<f64>,
    /// Max-min fair share of the forward direction, bit/s (None if outside the allocation).
    pub fair_share_bps: Option<f64>,
    /// ACR at the end, bit/s (ABR only).
    pub acr_final_bps: Option<f64>,
    /// Time-average ACR after warm-up, bit/s (ABR only).
    pub acr_mean_bps: Option<f64>,
    /// Reverse-direction ACR at the end (request/response over ABR), bit/s.
    pub reverse_acr_final_bps: Option<f64>,
    /// Forward RM cells sent, in rate and out of rate (ABR only).
    pub rm_cells_sent: Option<u64>,
    /// Backward RM cells received by the source (ABR only).
    pub brm_received: Option<u64>,
    /// Times source rule 5 (ACR back to ICR after ADTF idle) and rule 6 (CRM/CDF) fired.
    pub rule5_resets: Option<u64>,
    /// See `rule5_resets`.
    pub rule6_cuts: Option<u64>,
    /// The largest source queue of the data direction, cells: TCP over ABR's AAL5 queue,
    /// or the cells a cell-level application handed and its end system had not yet sent
    /// (a CBR source above its link's rate; None for a greedy source, whose queue is
    /// never empty, and for TCP over UBR).
    pub source_queue_max_cells: Option<u64>,
    /// Cells still in the source queues at the end (TCP over ABR: both directions; cell
    /// traffic: the data direction; not yet sent, so not part of cell conservation).
    pub source_queue_cells: Option<u64>,
}

/// Per-port figures. Every field is always written (no `skip_serializing_if`), a scalar,
/// an option of one or a map of counts: the tables cross to Python as typed columns, one
/// per field and one per key of `drops` ([`crate::result_tables`]).
#[derive(Clone, Debug, Serialize)]
pub struct PortResult {
    /// `"node->toward"`.
    pub name: Name,
    /// Owning node.
    pub node: Name,
    /// Neighbour.
    pub toward: Name,
    /// True for switch ports.
    pub is_switch: bool,
    /// Line rate, bit/s.
    pub rate_bps: f64,
    /// Buffer in cells (None = unlimited).
    pub buffer_cells: Option<u32>,
    /// Policy name (a name of the drop-policy registry).
    pub policy: &'static str,
    /// Cells arrived.
    pub received: u64,
    /// Cells queued.
    pub enqueued: u64,
    /// Cells dropped.
    pub dropped: u64,
    /// Drops per reason, written as a map from each name of [`crate::port::DROP_REASONS`]
    /// to its count ([`DropCounts`]).
    pub drops: DropCounts,
    /// Cells transmitted.
    pub sent: u64,
    /// Largest queue, cells.
    pub max_queue_cells: u32,
    /// Queue at the end, cells.
    pub final_queue_cells: u32,
    /// Cells sent / cells the link could have sent in the run.
    pub utilization: f64,
}

/// A port's drops per reason, in the order of [`DROP_REASONS`] (which is alphabetical).
/// Written as a map from each reason's name to its count, every reason present: the same
/// output as the `BTreeMap` it replaces, without a map allocated per port (at 100 000 VCs,
/// 400 000 of them; issue 14). `drops["frame_discard"]`, [`DropCounts::iter`] and
/// [`DropCounts::values`] read it as the map was read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DropCounts(pub [u64; 3]);

impl DropCounts {
    /// (reason, count) pairs, in the order of [`DROP_REASONS`].
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        DROP_REASONS.iter().copied().zip(self.0.iter().copied())
    }

    /// The counts, in the order of [`DROP_REASONS`].
    pub fn values(&self) -> impl Iterator<Item = u64> + '_ {
        self.0.iter().copied()
    }

    /// The count of `reason`, if it is one of [`DROP_REASONS`].
    pub fn get(&self, reason: &str) -> Option<u64> {
        DROP_REASONS
            .iter()
            .position(|r| *r == reason)
            .map(|i| self.0[i])
    }
}

impl std::ops::Index<&str> for DropCounts {
    type Output = u64;

    /// The count of `reason`; panics if it is not one of [`DROP_REASONS`] (as the map's
    /// index did for a missing key).
    fn index(&self, reason: &str) -> &u64 {
        match DROP_REASONS.iter().position(|r| *r == reason) {
            Some(i) => &self.0[i],
            None => panic!("no drop reason {reason:?}; the reasons are {DROP_REASONS:?}"),
        }
    }
}

impl Serialize for DropCounts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(DROP_REASONS.len()))?;
        for (reason, count) in self.iter() {
            m.serialize_entry(reason, &count)?;
        }
        m.end()
    }
}

/// Everything a run produces.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// Whole-run figures.
    pub summary: Summary,
    /// Per connection.
    pub connections: Vec<ConnectionResult>,
    /// Per port that carried traffic.
    pub ports: Vec<PortResult>,
    /// Time series.
    pub timeseries: TimeSeries,
    /// The connections that start at or after the run's end, by name
    /// ([`Scenario::late_connections`]): they send nothing in the run, have no ACR, and are
    /// left out of the fair shares and the fairness indices.
    pub late_connections: Vec<Name>,
}

fn traffic_name(c: &crate::scenario::ConnectionCfg) -> &'static str {
    c.app.as_deref().map_or("tcp", |a| a.name())
}

impl Summary {
    /// The names of the summary's fields, sorted (derived from the type itself).
    pub fn field_names() -> Vec<String> {
        match serde_json::to_value(Summary::default()) {
            Ok(serde_json::Value::Object(m)) => m.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }
}

impl RunResult {
    /// Collects results from a finished simulation.
    pub fn collect(sim: Sim<'_>, sc: &Scenario, wall_seconds: f64) -> RunResult {
        let measured = time::to_secs_f64(sc.duration - sc.warmup);
        let net = &sim.net;
        let shares = crate::maxmin::fair_shares(sc);
        let mut late = vec![false; sc.connections.len()];
        for k in sc.late_connections() {
            late[k] = true;
        }
        let connections: Vec<ConnectionResult> = sc
            .connections
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let conn = net.conns.get(i);
                let fwd = net.flow(FlowId::forward(i));
                let bwd = net.flow(FlowId::reverse(i));
                let frames = &net.frame_tallies[i];
                let share = shares[i].map(|r| r * CELL_BITS_F64);
                let mut r = ConnectionResult {
                    name: sc.connection_name(i).into(),
                    from: sc.nodes.name(sc.path(i).from()).into(),
                    to: sc.nodes.name(sc.path(i).to()).into(),
                    goodput_bps: 0.0,
                    goodput_bytes: 0,
                    segments_sent: 0,
                    retransmissions: 0,
                    timeouts: 0,
                    fast_retransmits: 0,
                    dup_acks: 0,
                    cells_sent: fwd.cells_sent,
                    cells_delivered: fwd.cells_delivered,
                    cells_dropped: fwd.cells_dropped,
                    ack_cells_dropped: bwd.cells_dropped,
                    frames_sent: fwd.frames_sent,
                    frames_delivered: frames.good,
                    frames_lost: frames.seen - frames.good,
                    frames_corrupted: frames.corrupted,
                    final_cwnd_bytes: None,
                    srtt_s: f64::NAN,
                    traffic: traffic_name(c).into(),
                    service: format!("{:?}", c.class).to_lowercase(),
                    throughput_bps: 0.0,
                    reverse_throughput_bps: None,
                    fair_share_bps: share,
                    acr_final_bps: None,
                    acr_mean_bps: None,
                    reverse_acr_final_bps: None,
                    rm_cells_sent: None,
                    brm_received: None,
                    rule5_resets: None,
                    rule6_cuts: None,
                    source_queue_max_cells: None,
                    source_queue_cells: None,
                };
                match (conn.tcp_ref(), conn.cells()) {
                    (Some(t), _) => {
                        r.goodput_bps = t.goodput_bytes() as f64 * 8.0 / measured;
                        r.goodput_bytes = t.goodput_bytes();
                        r.segments_sent = t.snd.stats.segments_sent;
                        r.retransmissions = t.snd.stats.retransmissions;
                        r.timeouts = t.snd.stats.timeouts;
                        r.fast_retransmits = t.snd.stats.fast_retransmits;
                        r.dup_acks = t.snd.stats.dup_acks;
                        r.final_cwnd_bytes = Some(t.snd.cwnd());
                        r.srtt_s = t.snd.srtt_secs().unwrap_or(f64::NAN);
                        let tp = c.tcp();
                        let cells = aal5::cells_for_segment(tp.mss, c.llc_snap);
                        r.throughput_bps = r.goodput_bps * (cells as f64 * 53.0) / tp.mss as f64;
                    }
                    (None, Some(cc)) => {
                        let d0 = &cc.fwd;
                        // Goodput is the forward direction's (the reverse direction of a
                        // request/response exchange crosses other links; it is reported
                        // in reverse_throughput_bps), so efficiency stays a share of one link.
                        // What the application handed and the end system has not sent (a
                        // source above its link's rate; a review found it in no counter).
                        if d0.backlog() != crate::network::UNBOUNDED {
                            r.source_queue_max_cells = Some(d0.max_backlog());
                            r.source_queue_cells = Some(d0.backlog());
                        }
                        let rx: u64 = d0.data_received_warm();
                        r.goodput_bytes = rx * 48;
                        r.goodput_bps = rx as f64 * 384.0 / measured;
                        r.throughput_bps =
                            d0.data_received_warm() as f64 * CELL_BITS_F64 / measured;
                        // The reverse direction of a connection whose traffic sends on it.
                        if let Some(rev) = cc.rev.as_deref() {
                            r.reverse_throughput_bps =
                                Some(rev.data_received_warm() as f64 * CELL_BITS_F64 / measured);
                            r.reverse_acr_final_bps = rev.abr().map(|s| s.acr() * CELL_BITS_F64);
                        }
                    }
                    (None, None) => unreachable!(),
                }
                if let Some(d0) = conn.dir(0).filter(|_| !late[i]) {
                    if let Some(src) = d0.abr() {
                        let area = d0.acr_area_until(sc.duration, sc.warmup);
                        r.acr_final_bps = Some(src.acr() * CELL_BITS_F64);
                        r.acr_mean_bps = Some(area / measured * CELL_BITS_F64);
                        let k = src.counters;
                        r.rm_cells_sent = Some(k.frm_sent + k.oor_frm_sent);
                        r.brm_received = Some(k.brm_received);
                        r.rule5_resets = Some(k.rule5_resets);
                        r.rule6_cuts = Some(k.rule6_cuts);
                    }
                    // TCP over ABR: both directions (data and ACKs).
                    if let (Some(_), Some(d1)) = (conn.tcp_ref(), conn.dir(1)) {
                        r.reverse_acr_final_bps = d1.abr().map(|s| s.acr() * CELL_BITS_F64);
                        r.source_queue_max_cells = Some(d0.max_backlog());
                        r.source_queue_cells = Some(d0.backlog() + d1.backlog());
                    }
                }
                r
            })
            .collect();
        let used = sc.used_ports();
        let duration_s = time::to_secs_f64(sc.duration);
        // Made at its size: collected from the filter, the vector grew by doubling, up to
        // twice the rows' memory at the heap's peak (issue 14: 12.1 MB for 7.4 MB of rows
        // at 10 000 VCs; resident memory counts only the pages written).
        let mut ports = Vec::with_capacity(used.iter().filter(|&&u| u).count());
        ports.extend(
            sc.ports
                .iter()
                .enumerate()
                .filter(|(i, _)| used[*i])
                .map(|(i, p)| {
                    let port = &net.ports[i];
                    PortResult {
                        name: p.name(&sc.nodes),
                        node: sc.nodes.name(p.node()).into(),
                        toward: sc.nodes.name(p.toward()).into(),
                        is_switch: port.is_switch,
                        rate_bps: p.settings.rate_bps as f64,
                        buffer_cells: p.settings.buffer,
                        policy: p.settings.policy.name(),
                        received: port.buf.received(),
                        enqueued: port.buf.enqueued(),
                        dropped: port.buf.dropped_total(),
                        drops: DropCounts(port.buf.dropped()),
                        sent: port.buf.sent(),
                        max_queue_cells: port.buf.max_queue(),
                        final_queue_cells: port.buf.queued(),
                        utilization: port.buf.sent() as f64 * net.timing(i).unit.unit_secs()
                            / duration_s,
                    }
                }),
        );
        let total: f64 = connections.iter().map(|c| c.goodput_bps).sum();
        // Fairness is over the connections open in the run (a late one's zero is no share).
        let goodputs: Vec<f64> = (connections.iter().zip(&late))
            .filter(|(_, &is_late)| !is_late)
            .map(|(c, _)| c.goodput_bps)
            .collect();
        // Efficiency refers to the first TCP connection's segment size, or to the 48-byte
        // payload of a cell for cell-level traffic.
        let (mss, cells) = sc
            .connections
            .iter()
            .find_map(|c| {
                c.tcp
                    .as_ref()
                    .map(|t| (t.mss, aal5::cells_for_segment(t.mss, c.llc_snap)))
            })
            .unwrap_or((48, 1));
        let max_goodput = max_goodput_bps(sc.efficiency_rate_bps, mss, cells);
        let t = &sim.totals;
        let in_flight = net.cells_in_network();
        let events = sim.q.events_processed();
        let summary = Summary {
            name: sc.name.clone(),
            seed: sc.seed,
            duration_s,
            warmup_s: time::to_secs_f64(sc.warmup),
            total_goodput_bps: total,
            efficiency_rate_bps: sc.efficiency_rate_bps,
            max_goodput_bps: max_goodput,
            efficiency: total / max_goodput,
            // No connection open in the run: no fairness to measure (NaN, "n/a").
            fairness: if goodputs.is_empty() {
                f64::NAN
            } else {
                jain_fairness(&goodputs)
            },
            fairness_maxmin: {
                let norm: Vec<f64> = connections
                    .iter()
                    .filter_map(|c| {
                        c.fair_share_bps
                            .filter(|s| *s > 0.0)
                            .map(|s| c.throughput_bps / s)
                    })
                    .collect();
                if norm.is_empty() {
                    None
                } else {
                    Some(jain_fairness(&norm))
                }
            },
            max_switch_queue_cells: ports
                .iter()
                .filter(|p| p.is_switch)
                .map(|p| p.max_queue_cells)
                .max()
                .unwrap_or(0),
            cells_sent: t.cells_sent,
            cells_delivered: t.cells_delivered,
            cells_dropped: t.cells_dropped,
            cells_dropped_by_faults: t.cells_dropped_by_faults,
            cells_in_flight: in_flight,
            cell_loss_ratio: if t.cells_sent > 0 {
                t.cells_dropped as f64 / t.cells_sent as f64
            } else {
                0.0
            },
            conservation_ok: t.cells_sent == t.cells_delivered + t.cells_dropped + in_flight,
            events,
            cell_hops: t.cell_hops,
            wall_seconds,
            cell_hops_per_second: t.cell_hops as f64 / wall_seconds.max(1e-9),
            events_per_second: events as f64 / wall_seconds.max(1e-9),
            version: crate::VERSION.into(),
            partial: None,
        };
        RunResult {
            summary,
            connections,
            ports,
            timeseries: sim.rec.into_series(sc, &sim.net),
            late_connections: (sc.late_connections().into_iter())
                .map(|k| Name::from(sc.connection_name(k)))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A port's drops are written as the `BTreeMap` of reason names they replace wrote
    /// them: every reason, in sorted order, as JSON and through the typed columns.
    #[test]
    fn drop_counts_are_written_as_the_map_of_reasons() {
        assert!(
            DROP_REASONS.windows(2).all(|w| w[0] < w[1]),
            "sorted, as a map's keys"
        );
        let d = DropCounts([3, 0, 41]);
        let map: BTreeMap<&str, u64> = DROP_REASONS.iter().copied().zip(d.0).collect();
        assert_eq!(
            serde_json::to_string(&d).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
        assert_eq!((d["buffer_full"], d["partial_discard"]), (3, 41));
        assert_eq!((d.get("frame_discard"), d.get("late")), (Some(0), None));
        assert_eq!(d.values().sum::<u64>(), 44);
        assert_eq!(
            d.iter().collect::<Vec<_>>(),
            map.into_iter().collect::<Vec<_>>()
        );
    }

    #[test]
    #[should_panic(expected = "no drop reason \"late\"")]
    fn an_unknown_reason_is_named() {
        let _ = DropCounts::default()["late"];
    }
}
