//! The snapshot text of a run: the summary figures, one line per connection and per port
//! with every counter, and a fingerprint of each time series. Floats are written in full
//! (Rust's shortest round-trip form), so any change in any result shows as a changed line.
//!
//! Fields are listed by name rather than serialised wholesale, so a field *added* to the
//! results does not move every snapshot; only a changed value does.

use atmsim::result::{ConnectionResult, PortResult, Summary};
use atmsim::RunResult;
use std::fmt::Write as _;

/// The snapshot text of `r`.
pub fn digest(r: &RunResult) -> String {
    let mut out = String::new();
    summary(&mut out, &r.summary);
    out += "\n[connections]\n";
    for c in &r.connections {
        connection(&mut out, c);
    }
    out += "\n[ports]\n";
    for p in &r.ports {
        port(&mut out, p);
    }
    out += "\n[timeseries]\n";
    timeseries(&mut out, &r.timeseries);
    out
}

/// `Some(x)` as `x`, `None` as `-`.
fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |x| x.to_string())
}

fn summary(out: &mut String, s: &Summary) {
    let _ = writeln!(out, "[summary]");
    let rows: [(&str, String); 17] = [
        ("duration_s", s.duration_s.to_string()),
        ("warmup_s", s.warmup_s.to_string()),
        ("total_goodput_bps", s.total_goodput_bps.to_string()),
        ("efficiency_rate_bps", s.efficiency_rate_bps.to_string()),
        ("max_goodput_bps", s.max_goodput_bps.to_string()),
        ("efficiency", s.efficiency.to_string()),
        ("fairness", s.fairness.to_string()),
        ("fairness_maxmin", opt(s.fairness_maxmin)),
        (
            "max_switch_queue_cells",
            s.max_switch_queue_cells.to_string(),
        ),
        ("cells_sent", s.cells_sent.to_string()),
        ("cells_delivered", s.cells_delivered.to_string()),
        ("cells_dropped", s.cells_dropped.to_string()),
        (
            "cells_dropped_by_faults",
            s.cells_dropped_by_faults.to_string(),
        ),
        ("cells_in_flight", s.cells_in_flight.to_string()),
        ("cell_loss_ratio", s.cell_loss_ratio.to_string()),
        ("events", s.events.to_string()),
        ("cell_hops", s.cell_hops.to_string()),
    ];
    for (k, v) in rows {
        let _ = writeln!(out, "{k} {v}");
    }
}

fn connection(out: &mut String, c: &ConnectionResult) {
    let _ = writeln!(
        out,
        "{} {}->{} {}/{}: goodput_bps {} goodput_bytes {} throughput_bps {} reverse_throughput_bps {} \
         segments_sent {} retransmissions {} timeouts {} fast_retransmits {} dup_acks {} \
         cells_sent {} cells_delivered {} cells_dropped {} ack_cells_dropped {} \
         frames_sent {} frames_delivered {} frames_lost {} frames_corrupted {} \
         final_cwnd_bytes {} srtt_s {}",
        c.name,
        c.from,
        c.to,
        c.traffic,
        c.service,
        c.goodput_bps,
        c.goodput_bytes,
        c.throughput_bps,
        opt(c.reverse_throughput_bps),
        c.segments_sent,
        c.retransmissions,
        c.timeouts,
        c.fast_retransmits,
        c.dup_acks,
        c.cells_sent,
        c.cells_delivered,
        c.cells_dropped,
        c.ack_cells_dropped,
        c.frames_sent,
        c.frames_delivered,
        c.frames_lost,
        c.frames_corrupted,
        // Cell-level traffic has no window (None); written 0 as before it was an Option,
        // so that the snapshots show what moved in the simulation, not in the type.
        c.final_cwnd_bytes.unwrap_or(0),
        c.srtt_s,
    );
    if c.acr_final_bps.is_some() || c.fair_share_bps.is_some() {
        let _ = writeln!(
            out,
            "  abr: fair_share_bps {} acr_final_bps {} acr_mean_bps {} reverse_acr_final_bps {} \
             rm_cells_sent {} brm_received {} rule5_resets {} rule6_cuts {} \
             source_queue_max_cells {} source_queue_cells {}",
            opt(c.fair_share_bps),
            opt(c.acr_final_bps),
            opt(c.acr_mean_bps),
            opt(c.reverse_acr_final_bps),
            opt(c.rm_cells_sent),
            opt(c.brm_received),
            opt(c.rule5_resets),
            opt(c.rule6_cuts),
            opt(c.source_queue_max_cells),
            opt(c.source_queue_cells),
        );
    }
}

fn port(out: &mut String, p: &PortResult) {
    let drops: Vec<String> = p.drops.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let _ = writeln!(
        out,
        "{} {} buffer {} rate_bps {}: received {} enqueued {} sent {} dropped {} [{}] \
         max_queue {} final_queue {} utilization {}",
        p.name,
        p.policy,
        opt(p.buffer_cells),
        p.rate_bps,
        p.received,
        p.enqueued,
        p.sent,
        p.dropped,
        drops.join(" "),
        p.max_queue_cells,
        p.final_queue_cells,
        p.utilization,
    );
}

/// A value of a time series, as the bits that identify it and as a number for the sum.
trait Sample: Copy {
    fn bits(self) -> u64;
    fn num(self) -> f64;
}

impl Sample for u32 {
    fn bits(self) -> u64 {
        self as u64
    }
    fn num(self) -> f64 {
        self as f64
    }
}

impl Sample for u64 {
    fn bits(self) -> u64 {
        self
    }
    fn num(self) -> f64 {
        self as f64
    }
}

impl Sample for f32 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn num(self) -> f64 {
        self as f64
    }
}

impl Sample for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn num(self) -> f64 {
        self
    }
}

/// 64-bit FNV-1a over the values' bits (little-endian): stable across Rust versions,
/// unlike `std`'s `DefaultHasher`.
fn fnv1a<T: Sample>(values: &[T]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in values {
        for b in v.bits().to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// One line per series: its length, sum, largest and last value, and a hash of every
/// sample, so a change anywhere in the series shows and the sum says roughly how much.
fn series<T: Sample>(out: &mut String, kind: &str, name: &str, values: &[T]) {
    let sum: f64 = values.iter().map(|v| v.num()).sum();
    let max = values.iter().map(|v| v.num()).fold(f64::NAN, f64::max);
    let last = values.last().map_or(f64::NAN, |v| v.num());
    let _ = writeln!(
        out,
        "{kind} {name}: n {} sum {sum} max {max} last {last} fnv {:016x}",
        values.len(),
        fnv1a(values)
    );
}

fn timeseries(out: &mut String, ts: &atmsim::metrics::TimeSeries) {
    series(out, "time_s", "-", &ts.time_s);
    for (k, name) in ts.port_names.iter().enumerate() {
        series(out, "queue_cells", name, &ts.queue_cells[k]);
        series(out, "max_queue_cells", name, &ts.max_queue_cells[k]);
        series(out, "utilization", name, &ts.utilization[k]);
        series(out, "data_utilization", name, &ts.data_utilization[k]);
        series(out, "vbr_utilization", name, &ts.vbr_utilization[k]);
    }
    for (k, name) in ts.connection_names.iter().enumerate() {
        series(out, "cwnd_bytes", name, &ts.cwnd_bytes[k]);
        series(out, "cells_received", name, &ts.cells_received[k]);
        series(out, "delivered_bytes", name, &ts.delivered_bytes[k]);
    }
    for (k, name) in ts.abr_names.iter().enumerate() {
        series(out, "acr_mbps", name, &ts.acr_mbps[k]);
        series(out, "abr_cells_received", name, &ts.abr_cells_received[k]);
    }
}
