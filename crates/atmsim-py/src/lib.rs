//! `atmsim._core`: the thin PyO3 layer. Python hands plain text (a TOML file's content, or
//! JSON of a dict mirroring it); Rust validates, runs the whole simulation with the GIL
//! released, and hands back JSON. No Python call happens per event.
//!
//! Errors map to exceptions: [`atmsim::RunError::Scenario`] -> `ScenarioError`
//! (a `ValueError`), [`atmsim::RunError::Invariant`] -> `InvariantError` (a `RuntimeError`).

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(_core, ScenarioError, PyValueError, "A malformed or inconsistent scenario. The message names the key, the value and what is allowed.");
create_exception!(
    _core,
    InvariantError,
    PyRuntimeError,
    "An internal invariant (such as cell conservation) failed: a bug in atmsim."
);

fn to_py(e: atmsim::RunError) -> PyErr {
    match e {
        atmsim::RunError::Scenario(s) => ScenarioError::new_err(s.to_string()),
        atmsim::RunError::Invariant(m) => InvariantError::new_err(m),
    }
}

/// Runs a scenario given as TOML text; returns the result as JSON text.
#[pyfunction]
fn run_toml(py: Python<'_>, text: String) -> PyResult<String> {
    let r = py.detach(|| {
        atmsim::run_toml(&text).map(|r| serde_json::to_string(&r).expect("result serializes"))
    });
    r.map_err(to_py)
}

/// Runs a scenario given as JSON text; returns the result as JSON text.
#[pyfunction]
fn run_json(py: Python<'_>, text: String) -> PyResult<String> {
    let r = py.detach(|| {
        atmsim::run_json(&text).map(|r| serde_json::to_string(&r).expect("result serializes"))
    });
    r.map_err(to_py)
}

/// Validates a scenario (TOML text if `toml` is true, else JSON); returns a JSON summary
/// of what it holds (nodes, ports, connections) or raises ScenarioError.
#[pyfunction]
#[pyo3(signature = (text, toml = true))]
fn validate(text: String, toml: bool) -> PyResult<String> {
    let file = if toml {
        atmsim::scenario::from_toml_str(&text)
    } else {
        atmsim::scenario::from_json_str(&text)
    };
    let file = file.map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let sc = atmsim::scenario::resolve::resolve(&file)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let v = serde_json::json!({
        "name": sc.name,
        "nodes": sc.nodes.len(),
        "ports": sc.ports.len(),
        "connections": sc.connections.len(),
        "duration_s": sc.duration as f64 / 1e12,
        "routes": sc.connections.iter().map(|c| c.route.iter().map(|&n| sc.nodes[n].name.clone()).collect::<Vec<_>>()).collect::<Vec<_>>(),
    });
    Ok(v.to_string())
}

/// The max-min fair share of each connection of a scenario (JSON text, as `run_json`
/// takes): a JSON list of {name, fair_share_bps (null if outside the allocation)}.
#[pyfunction]
fn max_min_json(text: String) -> PyResult<String> {
    let file = atmsim::scenario::from_json_str(&text)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let sc = atmsim::scenario::resolve::resolve(&file)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let shares = atmsim::maxmin::fair_shares(&sc);
    let v: Vec<serde_json::Value> = sc
        .connections
        .iter()
        .zip(shares)
        .map(|(c, s)| serde_json::json!({"name": c.name, "fair_share_bps": s.map(|r| r * 424.0)}))
        .collect();
    Ok(serde_json::Value::Array(v).to_string())
}

/// Converts a TOML scenario to the equivalent JSON (the dict form).
#[pyfunction]
fn toml_to_json(text: String) -> PyResult<String> {
    let f = atmsim::scenario::from_toml_str(&text)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    Ok(serde_json::to_string(&f).expect("scenario serializes"))
}

/// The JSON Schema of scenario files.
#[pyfunction]
fn json_schema() -> String {
    atmsim::scenario::json_schema()
}

/// Names and one-line descriptions of the drop policies.
#[pyfunction]
fn policies() -> Vec<(String, String)> {
    atmsim::drop_policy::POLICIES
        .iter()
        .map(|r| (r.name.to_string(), r.doc.to_string()))
        .collect()
}

/// Every extension point of the engine with its registered implementations:
/// `[(title, key, [(name, doc), ...]), ...]`, from the one registry in Rust.
#[pyfunction]
fn registry() -> Vec<(String, String, Vec<(String, String)>)> {
    atmsim::registry::extension_points()
        .iter()
        .map(|p| {
            (
                p.title.to_string(),
                p.key.to_string(),
                p.entries
                    .iter()
                    .map(|r| (r.name.to_string(), r.doc.to_string()))
                    .collect(),
            )
        })
        .collect()
}

/// The fields of a run's summary, sorted (the sweep results' metric columns).
#[pyfunction]
fn summary_fields() -> Vec<String> {
    atmsim::result::Summary::field_names()
}

/// The KVR allocator's cost per forward RM cell with `vcs` open connections: runs
/// `rm_cells` forward RM cells of VCs picked pseudo-randomly and returns ns per cell.
/// O(1) means this stays flat as `vcs` grows (seed 004 section 2.2).
#[pyfunction]
fn bench_kvr(py: Python<'_>, vcs: usize, rm_cells: u64) -> f64 {
    py.detach(|| {
        use atmsim::allocator::{Kvr, KvrCfg};
        let cfg = KvrCfg {
            target_utilization: 1.0,
            update_backward_rm: false,
            measured_rate: false,
        };
        let mut k = Kvr::new(cfg, 365_566.0, vcs.max(1));
        for v in 0..vcs {
            k.open(v);
        }
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut sink = 0.0;
        let t = std::time::Instant::now();
        for i in 0..rm_cells {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let vc = (x % vcs.max(1) as u64) as usize;
            let ccr = 1000.0 + (i % 997) as f64 * 10.0;
            sink += k.on_forward_rm(vc, 365_566.0, ccr).unwrap_or(0.0);
        }
        let ns = t.elapsed().as_nanos() as f64 / rm_cells.max(1) as f64;
        std::hint::black_box(sink);
        ns
    })
}

#[pyfunction]
fn version() -> &'static str {
    atmsim::VERSION
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_toml, m)?)?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(max_min_json, m)?)?;
    m.add_function(wrap_pyfunction!(toml_to_json, m)?)?;
    m.add_function(wrap_pyfunction!(json_schema, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_function(wrap_pyfunction!(registry, m)?)?;
    m.add_function(wrap_pyfunction!(summary_fields, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(bench_kvr, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("InvariantError", m.py().get_type::<InvariantError>())?;
    Ok(())
}
