//! Grid golden snapshots (issue 13, item 5), after smoltcp's `tests/netsim.rs`: one
//! scenario per cell of a small grid of algorithms x settings, short runs, every cell's
//! results kept as text under `tests/snapshots/<grid>/<cell>.txt`, and a table of the
//! headline figures in `tests/snapshots/<grid>/_table.txt` to read the grid at a glance.
//!
//! * [`ubr`]: drop policy x switch buffer x TCP congestion control, TCP on the N-source
//!   topology.
//! * [`abr`]: rate allocator x topology (two sources, bursty sources, parking lot, two
//!   bottlenecks, TCP over ABR).
//!
//! Every cell first passes the conservation checks, then is compared with its snapshot.
//! To add a cell, add an entry to the grid's list (a policy, a buffer, an allocator, a
//! topology...), run the grid once with `UPDATE_SNAPSHOTS=1` and commit the new files (see
//! CONTRIBUTING.md, "Tests").

pub(crate) mod abr;
mod ubr;

use crate::support;
use std::fmt::Write as _;

/// Every model of a registry, in its order, as `(name, "{ kind = \"name\"... }")`, with the
/// keys `keys` gives for some names (those the grid sets beyond the model's defaults). A
/// newly registered model joins the grid by itself: the test then fails until its
/// snapshots are written.
fn registered_tables(
    registry: &[atmsim::registry::Registered],
    keys: &[(&str, &str)],
) -> Vec<(&'static str, String)> {
    registry
        .iter()
        .map(|r| {
            let extra = keys.iter().find(|(n, _)| *n == r.name).map_or("", |k| k.1);
            (r.name, format!("{{ kind = \"{}\"{extra} }}", r.name))
        })
        .collect()
}

/// What a grid cell gave: the snapshot text of the run, or the error it was refused with.
enum Outcome {
    Ran(Box<atmsim::RunResult>),
    Refused(String),
}

/// Runs one cell's scenario: a run passes the conservation checks; a refusal is kept
/// (some cells are invalid on purpose, e.g. a threshold policy with an unlimited buffer).
///
/// One cell of slack on utilization: with no allocator an ABR source sends at PCR = the
/// line rate from t = 0, and its host port counts one cell more than the link carries in
/// the run (utilization 1.00002; see `support::check_conservation_within`).
fn play(cell: &str, text: &str) -> Outcome {
    match atmsim::run_toml(text) {
        Ok(r) => {
            support::check_conservation_within(&r, cell, 1);
            Outcome::Ran(Box::new(r))
        }
        Err(e) => Outcome::Refused(e.to_string()),
    }
}

impl Outcome {
    /// The snapshot text: the digest of the run, or the refusal.
    fn snapshot(&self, grid: &str, cell: &str) -> String {
        let body = match self {
            Outcome::Ran(r) => support::digest::digest(r),
            Outcome::Refused(e) => format!("[refused]\n{e}\n"),
        };
        format!("# grid {grid}, cell {cell}\n{body}")
    }

    /// The table entry: `a/b` with three decimals, or `refused`.
    fn entry(&self, figures: impl Fn(&atmsim::RunResult) -> (f64, Option<f64>)) -> String {
        match self {
            Outcome::Ran(r) => {
                let (a, b) = figures(r);
                let b = b.map_or("-".to_string(), |b| format!("{b:.3}"));
                format!("{a:.3}/{b}")
            }
            Outcome::Refused(_) => "refused".to_string(),
        }
    }
}

/// A table with a header row: `corner` then the column names, then one line per row.
fn table(title: &str, corner: &str, columns: &[&str], rows: &[(String, Vec<String>)]) -> String {
    let mut out = format!("{title}\n");
    let _ = write!(out, "{corner:<22}");
    for c in columns {
        let _ = write!(out, " {c:>15}");
    }
    out.push('\n');
    for (name, entries) in rows {
        let _ = write!(out, "{name:<22}");
        for e in entries {
            let _ = write!(out, " {e:>15}");
        }
        out.push('\n');
    }
    out
}
