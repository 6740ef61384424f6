//! A run's result for Python as a small JSON head plus its time series and its tables as
//! columns of raw little-endian numbers (issue 14, item 3: "time series leave Rust as
//! columnar arrays, not JSON"). Python wraps each column with `numpy.frombuffer`, without a
//! loop per value.
//!
//! The head (JSON text) holds the summary, the description of each table's columns
//! ([`atmsim::result_tables::Table::spec`]) and the names of the series' ports, connections
//! and ABR sources. Each series column is one series flattened entity by entity
//! (`[entity][sample]`), the long format's own row order. Each table column is named
//! `table/field` (`table/field/key` for a key of a map field): `<i8`, `<f8` or `|b1` values,
//! a `|u1` validity mask `.../valid` where some rows are null, and for strings their UTF-8
//! text joined by NUL (with a `<i8` column `.../ends` of where each ends only if a string
//! holds a NUL itself).
//!
//! Every number is the one the JSON path gave Python, bit for bit: `f64` as it is, integers
//! widened to `i64` (what Python's `int` becomes in a DataFrame), and the `f32` series
//! (utilization, ACR) through the same shortest decimal text serde_json writes (`zmij`),
//! read back as `f64` with correct rounding, as Python's `float()` does. A non-finite `f32`
//! (JSON `null`, NaN in a DataFrame) becomes NaN.

use atmsim::metrics::TimeSeries;
use atmsim::result_tables::{self, Column as TableColumn, Values};
use atmsim::RunResult;

/// A column: name, NumPy dtype text (`"<f8"`, `"<i8"`, `"|b1"` or `"|u1"`) and its bytes.
pub type Column = (String, &'static str, Vec<u8>);

/// The head (JSON text) and the columns of a run.
pub fn split(r: &RunResult) -> (String, Vec<Column>) {
    let ts = &r.timeseries;
    let series = series_head(ts);
    let mut cols = columns(ts);
    // One table at a time, each field's values freed once encoded (peak memory).
    let mut encode = |name: &str, table: result_tables::Table| {
        let spec = table.spec();
        for c in table.columns {
            table_column(&mut cols, name, c);
        }
        spec
    };
    let connections = encode("connections", result_tables::columns(&r.connections));
    let ports = encode("ports", result_tables::columns(&r.ports));
    let head = format!(
        "{{\"summary\":{},\"connections\":{},\"ports\":{},\"series\":{},\"late_connections\":{}}}",
        serde_json::to_string(&r.summary).expect("result serializes"),
        connections,
        ports,
        series,
        serde_json::to_string(&r.late_connections).expect("names serialize")
    );
    (head, cols)
}

/// The series' part of the head: the names of the entities whose series the columns hold,
/// and how many samples. Its keys are in the order they had when this was a
/// `serde_json::Value` (sorted), so the text is the same; written from the names
/// themselves, not from a copy of each as a `Value` (issue 14: at 10 000 VCs 30 000 names).
fn series_head(ts: &TimeSeries) -> String {
    let names =
        |v: &[atmsim::scenario::schema::Name]| serde_json::to_string(v).expect("names serialize");
    format!(
        "{{\"abr_names\":{},\"connection_names\":{},\"port_names\":{},\"samples\":{}}}",
        names(&ts.abr_names),
        names(&ts.connection_names),
        names(&ts.port_names),
        ts.time_s.len()
    )
}

/// The columns of one table field (see the module doc), named `prefix/field`.
fn table_column(out: &mut Vec<Column>, prefix: &str, c: TableColumn) {
    let name = format!("{prefix}/{}", c.name);
    let nulls = c.has_nulls();
    match c.values {
        Values::Null => return,
        Values::Int(v) => out.push((name.clone(), "<i8", le_bytes(&v, |x| x.to_le_bytes()))),
        Values::Float(v) => out.push((name.clone(), "<f8", le_bytes(&v, |x| x.to_le_bytes()))),
        Values::Bool(v) => out.push((
            name.clone(),
            "|b1",
            v.iter().map(|&b| u8::from(b)).collect(),
        )),
        Values::Str { text, ends } => {
            // Joined by NUL, which Python splits on in one call; only if a string holds a
            // NUL itself does it need where each ends (in the joined text).
            let mut joined = Vec::with_capacity(text.len() + ends.len());
            let mut at = Vec::with_capacity(ends.len());
            let mut start = 0;
            for (i, &end) in ends.iter().enumerate() {
                if i > 0 {
                    joined.push(0);
                }
                joined.extend_from_slice(&text.as_bytes()[start..end]);
                start = end;
                at.push(joined.len() as i64);
            }
            out.push((name.clone(), "|u1", joined));
            if text.contains('\0') {
                let at = le_bytes(&at, |e| e.to_le_bytes());
                out.push((format!("{name}/ends"), "<i8", at));
            }
        }
        Values::Map(keys) => {
            for k in keys {
                table_column(out, &name, k);
            }
            return;
        }
    }
    if nulls {
        out.push((
            format!("{name}/valid"),
            "|u1",
            c.valid.iter().map(|&b| u8::from(b)).collect(),
        ));
    }
}

fn columns(ts: &TimeSeries) -> Vec<Column> {
    [
        ("time_s", "<f8", le_bytes(&ts.time_s, f64::to_le_bytes)),
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
    .into_iter()
    .map(|(n, t, b)| (n.to_string(), t, b))
    .collect()
}

/// The values' bytes, each value's `bytes` one after another, in a vector made at its size
/// (collected from a flattening iterator, it grew and was copied as it went).
fn le_bytes<T: Copy>(values: &[T], bytes: impl Fn(T) -> [u8; 8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * 8);
    for &v in values {
        out.extend_from_slice(&bytes(v));
    }
    out
}

/// Integer series as `i64`. A count past `i64::MAX` cannot occur in a run (2^63 cells).
fn ints<T: Copy + TryInto<i64>>(rows: &[Vec<T>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(rows.iter().map(Vec::len).sum::<usize>() * 8);
    for &v in rows.iter().flatten() {
        out.extend_from_slice(&v.try_into().unwrap_or(i64::MAX).to_le_bytes());
    }
    out
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

    /// The series' head is the text the `serde_json::Value` it was made as gave: its keys
    /// sorted, the names escaped as serde_json escapes them.
    #[test]
    fn series_head_as_the_value_wrote_it() {
        let name = |s: &str| atmsim::scenario::schema::Name::new(s);
        let ts = TimeSeries {
            time_s: vec![0.0, 0.5],
            port_names: vec![name("sw1->sw2"), name("q\"u\\o\u{0}té")],
            connection_names: vec![name("c0")],
            abr_names: vec![],
            ..Default::default()
        };
        let value = serde_json::json!({
            "samples": ts.time_s.len(),
            "port_names": &ts.port_names,
            "connection_names": &ts.connection_names,
            "abr_names": &ts.abr_names,
        });
        assert_eq!(series_head(&ts), value.to_string());
    }

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
