//! A run's result for Python as a small JSON head plus its time series as columns of raw
//! little-endian numbers (issue 14, item 3: "time series leave Rust as columnar arrays,
//! not JSON"). Python wraps each column with `numpy.frombuffer`, without a loop per value.
//!
//! The head (JSON text) holds what is not a series: the summary, the tables of connections
//! and ports as JSON columns ([`atmsim::result_tables`]), and the names of the series'
//! ports, connections and ABR sources. Each binary column is one series flattened entity
//! by entity (`[entity][sample]`), the long format's own row order.
//!
//! Every number is the one the JSON path gave Python, bit for bit: `f64` as it is, integers
//! widened to `i64` (what Python's `int` becomes in a DataFrame), and the `f32` series
//! (utilization, ACR) through the same shortest decimal text serde_json writes (`zmij`),
//! read back as `f64` with correct rounding, as Python's `float()` does. A non-finite `f32`
//! (JSON `null`, NaN in a DataFrame) becomes NaN.

use atmsim::metrics::TimeSeries;
use atmsim::RunResult;

/// A column: name, NumPy dtype text (`"<f8"` or `"<i8"`) and its bytes.
pub type Column = (&'static str, &'static str, Vec<u8>);

/// The head (JSON text) and the time-series columns of a run.
pub fn split(r: &RunResult) -> (String, Vec<Column>) {
    let ts = &r.timeseries;
    // Written field by field: serde_json's Value would sort the keys, and the DataFrames'
    // column order is the structs' field order.
    let series = serde_json::json!({
        "samples": ts.time_s.len(),
        "port_names": &ts.port_names,
        "connection_names": &ts.connection_names,
        "abr_names": &ts.abr_names,
    });
    let head = format!(
        "{{\"summary\":{},\"connections\":{},\"ports\":{},\"series\":{}}}",
        serde_json::to_string(&r.summary).expect("result serializes"),
        atmsim::result_tables::columns_json(&r.connections),
        atmsim::result_tables::columns_json(&r.ports),
        series
    );
    (head, columns(ts))
}

fn columns(ts: &TimeSeries) -> Vec<Column> {
    vec![
        ("time_s", "<f8", f64s(ts.time_s.iter().copied())),
        ("queue_cells", "<i8", ints(&ts.queue_cells)),
        ("max_queue_cells", "<i8", ints(&ts.max_queue_cells)),
        ("utilization", "<f8", f32s(&ts.utilization)),
        ("data_utilization", "<f8", f32s(&ts.data_utilization)),
        ("vbr_utilization", "<f8", f32s(&ts.vbr_utilization)),
        ("cwnd_bytes", "<i8", ints(&ts.cwnd_bytes)),
        ("cells_received", "<i8", ints(&ts.cells_received)),
        ("delivered_bytes", "<i8", ints(&ts.delivered_bytes)),
        ("acr_mbps", "<f8", f32s(&ts.acr_mbps)),
        ("abr_cells_received", "<i8", ints(&ts.abr_cells_received)),
    ]
}

fn f64s(values: impl Iterator<Item = f64>) -> Vec<u8> {
    values.flat_map(f64::to_le_bytes).collect()
}

/// Integer series as `i64`. A count past `i64::MAX` cannot occur in a run (2^63 cells).
fn ints<T: Copy + TryInto<i64>>(rows: &[Vec<T>]) -> Vec<u8> {
    rows.iter()
        .flatten()
        .flat_map(|&v| v.try_into().unwrap_or(i64::MAX).to_le_bytes())
        .collect()
}

/// `f32` series as the `f64` the JSON text gave Python. Series repeat values a lot (0, 1,
/// a steady rate), so the last conversion is kept.
fn f32s(rows: &[Vec<f32>]) -> Vec<u8> {
    let mut buf = zmij::Buffer::new();
    let mut last: Option<(u32, f64)> = None;
    let mut out = Vec::with_capacity(rows.iter().map(Vec::len).sum::<usize>() * 8);
    for &v in rows.iter().flatten() {
        let x = match last {
            Some((bits, x)) if bits == v.to_bits() => x,
            _ => {
                let x = as_json_f64(&mut buf, v);
                last = Some((v.to_bits(), x));
                x
            }
        };
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// What `json.loads` makes of serde_json's text for `v`.
fn as_json_f64(buf: &mut zmij::Buffer, v: f32) -> f64 {
    if !v.is_finite() {
        return f64::NAN;
    }
    buf.format_finite(v).parse().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each f32 gives exactly the f64 that its serde_json text parses to.
    #[test]
    fn f32_as_json_text() {
        let vals = [
            0.0f32,
            -0.0,
            0.95,
            1.0,
            1.0 / 3.0,
            97.3,
            1e-7,
            3.4e38,
            155.52,
            7.79,
        ];
        let mut buf = zmij::Buffer::new();
        for v in vals {
            let text = serde_json::to_string(&v).unwrap();
            let want: f64 = text.parse().unwrap();
            assert_eq!(
                as_json_f64(&mut buf, v).to_bits(),
                want.to_bits(),
                "{v} -> {text}"
            );
        }
        assert!(as_json_f64(&mut buf, f32::NAN).is_nan());
        let bytes = f32s(&[vec![0.95, 0.95, 0.5]]);
        let back: Vec<f64> = bytes
            .chunks(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(back, vec![0.95, 0.95, 0.5]);
    }
}
