//! `atmsim._core`: the thin PyO3 layer. Python hands plain text (a TOML file's content, or
//! JSON of a dict mirroring it); Rust validates, runs the whole simulation with the GIL
//! released, and hands back JSON, or with `columns=True` a JSON head and the time series
//! as columns of raw numbers ([`columns`]). No Python call happens per event.
//!
//! Errors map to exceptions: [`atmsim::RunError::Scenario`] -> `ScenarioError`
//! (a `ValueError`), [`atmsim::RunError::Memory`] -> `MemoryLimitError` (a `ScenarioError`),
//! [`atmsim::RunError::Setting`] -> `EngineSettingError` (a `ValueError`),
//! [`atmsim::RunError::Invariant`] -> `InvariantError` (a `RuntimeError`).
//! A panic (a bug) never reaches Python as a backtrace: [`guard`] turns it into an
//! `InternalError` carrying the panic message; the Python side saves the scenario.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

mod columns;
mod dict_json;

create_exception!(_core, ScenarioError, PyValueError, "A malformed or inconsistent scenario. The message names the key, the value and what is allowed.");
create_exception!(_core, MemoryLimitError, ScenarioError, "A scenario that does not fit the memory limit: refused before it starts (it needs more than the limit before any cell moves), or stopped as its queues and delay lines outgrew the limit. The message names the estimate or the growth, the limit, and the keys or the port that drive it.");
create_exception!(_core, EngineSettingError, PyValueError, "An environment variable that tunes the engine (ATMSIM_CACHE_HINTS) holds a value it does not take. The message names the variable, the value and what is allowed.");
create_exception!(
    _core,
    InvariantError,
    PyRuntimeError,
    "An internal invariant (such as cell conservation) failed: a bug in atmsim."
);

create_exception!(
    _core,
    InternalError,
    PyRuntimeError,
    "The engine hit a bug (a Rust panic). The message says where; please report it with the scenario."
);

std::thread_local! {
    /// The last panic's message and place on this thread, for [`guard`].
    static LAST_PANIC: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Replaces the default panic hook (which prints "thread panicked" and a backtrace hint to
/// stderr) by one that only records the message for [`guard`] (issue 18, item 3).
fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = format!("{msg}{place}"));
    }));
}

/// Runs `f`, turning a panic into an `InternalError` exception.
fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            let m = LAST_PANIC.with(|p| std::mem::take(&mut *p.borrow_mut()));
            Err(InternalError::new_err(format!(
                "internal error in the engine: {m}"
            )))
        }
    }
}

/// Panics when the environment variable `ATMSIM_DEBUG_PANIC` is set: the tests' way to
/// reach the internal-error path (a real panic, caught by [`guard`]) end to end.
fn debug_panic() {
    if std::env::var_os("ATMSIM_DEBUG_PANIC").is_some() {
        panic!("ATMSIM_DEBUG_PANIC is set (a test of the internal-error path)");
    }
}

fn to_py(e: atmsim::RunError) -> PyErr {
    match e {
        atmsim::RunError::Scenario(s) => ScenarioError::new_err(s.to_string()),
        atmsim::RunError::Invariant(m) => InvariantError::new_err(m),
        atmsim::RunError::Trace(m) => {
            PyRuntimeError::new_err(format!("writing the trace failed: {m}"))
        }
        atmsim::RunError::Memory(m) => MemoryLimitError::new_err(m),
        atmsim::RunError::Setting(m) => EngineSettingError::new_err(m),
    }
}

/// A finished run's result, encoded without the GIL: JSON text, or the head and columns.
enum Output {
    Json(String),
    Columns(String, Vec<columns::Column>),
}

impl Output {
    fn encode(r: &atmsim::RunResult, as_columns: bool) -> Output {
        if as_columns {
            let (head, cols) = columns::split(r);
            Output::Columns(head, cols)
        } else {
            Output::Json(serde_json::to_string(r).expect("result serializes"))
        }
    }

    /// JSON text, or `(head_json, [(name, dtype, bytes), ...])`.
    fn into_python(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Output::Json(text) => text.into_py_any(py),
            Output::Columns(head, cols) => {
                // Each column's bytes are freed once Python holds its copy (peak memory).
                let cols: Vec<(String, &str, Bound<'_, pyo3::types::PyBytes>)> = cols
                    .into_iter()
                    .map(|(n, t, b)| (n, t, pyo3::types::PyBytes::new(py, &b)))
                    .collect();
                (head, cols).into_py_any(py)
            }
        }
    }
}

/// A scenario dict as compact JSON text, written from its objects in one pass, or None if
/// it holds anything but plain JSON data (`json.dumps` then decides; see [`dict_json`]).
#[pyfunction]
fn scenario_json(obj: &Bound<'_, PyAny>) -> Option<String> {
    dict_json::to_json(obj)
}

/// Runs a scenario given as TOML text; returns the result as JSON text.
#[pyfunction]
fn run_toml(py: Python<'_>, text: String) -> PyResult<String> {
    py.detach(|| {
        guard(|| {
            atmsim::run_toml(&text)
                .map(|r| serde_json::to_string(&r).expect("result serializes"))
                .map_err(to_py)
        })
    })
}

/// Runs a scenario given as JSON text; returns the result as JSON text, or with `columns`
/// as `(head_json, [(name, dtype, bytes), ...])` (see [`columns`]). `max_events` and
/// `max_wall` (seconds) bound the run: past either it stops, and `summary.partial` says so.
#[pyfunction]
#[pyo3(signature = (text, max_events = None, max_wall = None, columns = false))]
fn run_json(
    py: Python<'_>,
    text: String,
    max_events: Option<u64>,
    max_wall: Option<f64>,
    columns: bool,
) -> PyResult<Py<PyAny>> {
    let budget = atmsim::RunBudget {
        max_events,
        max_wall_seconds: max_wall,
    };
    let r = py.detach(|| {
        guard(|| {
            debug_panic();
            // The parsed file is dropped before the network is built (issue 14: peak memory).
            let sc = atmsim::scenario::load_json(&text)
                .map_err(|e| to_py(atmsim::RunError::Scenario(e)))?;
            // Nor is the text kept past parsing: a 10 000-VC scenario is 3.2 MB of JSON,
            // a third of a kilobyte per VC of the run's peak (issue 14).
            drop(text);
            // The heavy-run guard; the lead moves it into the resolver (issue 18, item 1).
            atmsim::scenario::budget::check(&sc)
                .map_err(|e| to_py(atmsim::RunError::Scenario(e)))?;
            atmsim::run_with_budget(&sc, budget)
                .map(|r| Output::encode(&r, columns))
                .map_err(to_py)
        })
    });
    r?.into_python(py)
}

/// How often, in wall time, a watched run (`run_json_watched`) looks up from the
/// simulation: signals (Ctrl-C) and the progress callback. A quarter of the 0.2 s an
/// interruption may take.
const WATCH_PERIOD: std::time::Duration = std::time::Duration::from_millis(50);

/// A trace sink handing each chunk of rows to a Python object: `begin(ports, connections)`
/// once, then `write(kind, rows)` with the rows as little-endian f64 bytes, row-major
/// (`atmsim.trace.TraceWriter` turns them into Parquet row groups). The first exception
/// it raises is kept, and raised when the run ends.
struct PySink {
    obj: Py<PyAny>,
    error: std::sync::Arc<std::sync::Mutex<Option<PyErr>>>,
}

impl PySink {
    fn keep(&self, e: PyErr) -> String {
        let m = e.to_string();
        let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_insert(e);
        m
    }
}

impl atmsim::trace::TraceSink for PySink {
    fn begin(&mut self, ports: &[String], connections: &[String]) {
        let r = Python::attach(|py| {
            self.obj
                .call_method1(py, "begin", (ports.to_vec(), connections.to_vec()))
                .map(drop)
        });
        if let Err(e) = r {
            self.keep(e);
        }
    }
    fn write(&mut self, kind: atmsim::trace::Kind, rows: &[f64]) -> Result<(), String> {
        let bytes: Vec<u8> = rows.iter().flat_map(|x| x.to_le_bytes()).collect();
        let r = Python::attach(|py| {
            let b = pyo3::types::PyBytes::new(py, &bytes);
            self.obj
                .call_method1(py, "write", (kind.info().name, b))
                .map(drop)
        });
        r.map_err(|e| self.keep(e))
    }
}

/// Runs a scenario given as JSON text like `run_json`, but about every 50 ms of wall time
/// briefly takes the GIL to check for signals (Ctrl-C, a notebook's "interrupt kernel":
/// the run stops and `KeyboardInterrupt` is raised) and to call `progress(simulated_s,
/// duration_s)` if given (the time reached and the run's duration, seconds; an exception
/// it raises stops the run too). `max_events` and `max_wall`
/// bound the run as for `run_json` (issue 18: Ctrl-C stops a bounded run at once too).
/// With `trace_sink` (an object with `begin` and `write`, see `PySink`), the scenario's
/// `[trace]` table is recorded into it (not together with a budget). `columns` as for
/// `run_json`.
#[pyfunction]
#[pyo3(signature = (text, progress = None, max_events = None, max_wall = None, trace_sink = None, columns = false))]
fn run_json_watched(
    py: Python<'_>,
    text: String,
    progress: Option<Py<PyAny>>,
    max_events: Option<u64>,
    max_wall: Option<f64>,
    trace_sink: Option<Py<PyAny>>,
    columns: bool,
) -> PyResult<Py<PyAny>> {
    let budget = atmsim::RunBudget {
        max_events,
        max_wall_seconds: max_wall,
    };
    if trace_sink.is_some() && budget != atmsim::RunBudget::default() {
        return Err(PyValueError::new_err(
            "trace: a traced run takes no max_events or max_wall; drop one or the other",
        ));
    }
    guard(|| {
        debug_panic();
        let mut stopped: Option<PyErr> = None;
        let sink_error = std::sync::Arc::new(std::sync::Mutex::new(None));
        let sink = trace_sink.map(|obj| {
            Box::new(PySink {
                obj,
                error: sink_error.clone(),
            }) as Box<dyn atmsim::trace::TraceSink + Send>
        });
        let r = py.detach(|| {
            let sc = atmsim::scenario::load_json(&text)?;
            drop(text); // not needed past parsing (peak memory, issue 14)
            let duration_s = sc.duration as f64 / 1e12;
            let look = |reached: u64| {
                Python::attach(|py| {
                    let step = py.check_signals().and_then(|()| match &progress {
                        Some(cb) => cb.call1(py, (reached as f64 / 1e12, duration_s)).map(drop),
                        None => Ok(()),
                    });
                    step.map_err(|e| stopped = Some(e)).is_ok()
                })
            };
            let r = if budget == atmsim::RunBudget::default() {
                atmsim::run_observed_traced(
                    &sc,
                    WATCH_PERIOD,
                    look,
                    sink.map(|s| s as Box<dyn atmsim::trace::TraceSink>),
                )
            } else {
                atmsim::run_observed_with_budget(&sc, budget, WATCH_PERIOD, look)
            };
            r.map(|r| r.map(|r| Output::encode(&r, columns)))
        });
        if let Some(e) = stopped {
            return Err(e);
        }
        if let Some(e) = sink_error.lock().unwrap_or_else(|p| p.into_inner()).take() {
            return Err(e);
        }
        match r.map_err(to_py)? {
            Some(out) => out.into_python(py),
            None => Err(PyRuntimeError::new_err("run stopped without a reason")),
        }
    })
}

/// Checks the environment variables that tune the engine (ATMSIM_CACHE_HINTS,
/// ATMSIM_MEMORY_LIMIT) before a batch of runs: raises `EngineSettingError` or
/// `MemoryLimitError` naming the variable, the value and what is allowed.
#[pyfunction]
fn check_environment() -> PyResult<()> {
    atmsim::check_environment().map_err(to_py)
}

/// Runs a scenario given as JSON text with results and time series off (the scale
/// benchmark's memory columns); returns (cell-hops, events, cells sent, cells dropped): the
/// last two say what regime a row measures (a cell dropped at its first switch is one
/// cell-hop of work at the source's cold state). Refuses a scenario too large
/// for the memory available, like a full run. With `run` false it stops before the event
/// loop (parse, resolve, build only): the benchmark subtracts that set-up time to report
/// the event loop's cost per cell-hop apart from the whole run's.
#[pyfunction]
#[pyo3(signature = (text, run = true))]
fn run_counts(py: Python<'_>, text: String, run: bool) -> PyResult<(u64, u64, u64, u64)> {
    py.detach(|| {
        guard(|| {
            let r = (|| -> Result<(u64, u64, u64, u64), atmsim::RunError> {
                let sc = atmsim::scenario::load_json(&text)?;
                drop(text); // not needed past parsing (peak memory, issue 14)
                let mut sim = atmsim::new_sim(&sc)?;
                if run {
                    sim.run_guarded()?;
                }
                let t = &sim.totals;
                Ok((
                    t.cell_hops,
                    sim.q.events_processed(),
                    t.cells_sent,
                    t.cells_dropped,
                ))
            })();
            r.map_err(to_py)
        })
    })
}

/// Validates a scenario (TOML text if `toml` is true, else JSON); returns a JSON summary
/// of what it holds (nodes, ports, connections, those that start at or after the run's
/// end) and its memory estimate
/// (`atmsim::footprint`: the part held before any cell moves, and at most what its cells
/// may add), or raises ScenarioError.
#[pyfunction]
#[pyo3(signature = (text, toml = true))]
fn validate(text: String, toml: bool) -> PyResult<String> {
    guard(|| validate_inner(text, toml))
}

fn validate_inner(text: String, toml: bool) -> PyResult<String> {
    let file = if toml {
        atmsim::scenario::from_toml_str(&text)
    } else {
        atmsim::scenario::from_json_str(&text)
    };
    let file = file.map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let sc = atmsim::scenario::resolve::resolve(&file)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    atmsim::scenario::budget::check(&sc).map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let fp = atmsim::footprint::estimate(&sc);
    // Whether a run would start now, under this process's limit (MemAvailable or
    // ATMSIM_MEMORY_LIMIT): the scenario is valid either way.
    let refused = atmsim::footprint::check(&sc, None)
        .err()
        .map(|e| e.to_string());
    let parts: Vec<serde_json::Value> = fp
        .parts
        .iter()
        .map(|p| serde_json::json!({"what": p.what, "keys": p.keys, "bytes": p.bytes, "grows": p.grows}))
        .collect();
    let v = serde_json::json!({
        "name": sc.name,
        "memory": {
            "before_cells_bytes": fp.fixed(),
            "cells_up_to_bytes": fp.growing(),
            "parts": parts,
            "refused": refused,
        },
        "nodes": sc.nodes.len(),
        "ports": sc.ports.len(),
        "connections": sc.connections.len(),
        "duration_s": sc.duration as f64 / 1e12,
        "estimated_events": atmsim::scenario::budget::estimated_events(&sc),
        // Connections that start at or after the run's end send nothing in this run (valid:
        // a run cut short to see a transient, with later connections left in).
        "late_connections": sc.late_connections().into_iter().map(|k| sc.connection_name(k)).collect::<Vec<_>>(),
        "routes": sc.paths.iter().map(|c| c.route().iter().map(|&n| sc.nodes.name(n as usize)).collect::<Vec<_>>()).collect::<Vec<_>>(),
    });
    Ok(v.to_string())
}

/// The max-min fair share of each connection of a scenario (JSON text, as `run_json`
/// takes): a JSON list of {name, fair_share_bps (null if outside the allocation)}.
#[pyfunction]
fn max_min_json(text: String) -> PyResult<String> {
    guard(|| max_min_inner(text))
}

fn max_min_inner(text: String) -> PyResult<String> {
    let file = atmsim::scenario::from_json_str(&text)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let sc = atmsim::scenario::resolve::resolve(&file)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let shares = atmsim::maxmin::fair_shares(&sc);
    let v: Vec<serde_json::Value> = sc
        .connection_names
        .iter()
        .zip(shares)
        .map(|(name, s)| serde_json::json!({"name": name, "fair_share_bps": s.map(|r| r * 424.0)}))
        .collect();
    Ok(serde_json::Value::Array(v).to_string())
}

/// The fair shares of a scenario phase by phase (JSON text, as `run_json` takes; issue
/// 17): a JSON list of {start_s, end_s, shares: [{name, max_min_bps, gw_bps}]}, a share
/// null for connections outside the allocation or closed in that phase
/// (`atmsim::maxmin::phases`).
#[pyfunction]
fn fair_share_phases_json(text: String) -> PyResult<String> {
    guard(|| fair_share_phases_inner(text))
}

fn fair_share_phases_inner(text: String) -> PyResult<String> {
    let file = atmsim::scenario::from_json_str(&text)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let sc = atmsim::scenario::resolve::resolve(&file)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    let bps = |r: Option<f64>| r.map(|r| r * 424.0);
    let v: Vec<serde_json::Value> = atmsim::maxmin::phases(&sc)
        .into_iter()
        .map(|p| {
            let shares: Vec<serde_json::Value> = sc
                .connection_names
                .iter()
                .enumerate()
                .map(|(i, name)| serde_json::json!({"name": name, "max_min_bps": bps(p.max_min[i]), "gw_bps": bps(p.gw[i])}))
                .collect();
            serde_json::json!({"start_s": p.start as f64 / 1e12, "end_s": p.end as f64 / 1e12, "shares": shares})
        })
        .collect();
    Ok(serde_json::Value::Array(v).to_string())
}

/// The memory limit runs are held to here, `(bytes, where it came from)`, or None (no limit):
/// `ATMSIM_MEMORY_LIMIT`, else `MemAvailable` (`atmsim::footprint::limit`). A variable that is
/// not a size raises ScenarioError, or with `available_if_bad` is read as unset.
#[pyfunction]
#[pyo3(signature = (available_if_bad = false))]
fn memory_limit(available_if_bad: bool) -> PyResult<Option<(u64, String)>> {
    atmsim::footprint::limit(available_if_bad).map_err(|e| ScenarioError::new_err(e.to_string()))
}

/// Converts a TOML scenario to the equivalent JSON (the dict form).
#[pyfunction]
fn toml_to_json(text: String) -> PyResult<String> {
    guard(|| toml_to_json_inner(text))
}

fn toml_to_json_inner(text: String) -> PyResult<String> {
    let f = atmsim::scenario::from_toml_str(&text)
        .map_err(|e| ScenarioError::new_err(e.to_string()))?;
    Ok(serde_json::to_string(&f).expect("scenario serializes"))
}

/// A JSON scenario as the engine reads it, written back as JSON: every key in one order,
/// every quantity one way ("0.05 s" as "50 ms"); what a scenario's digest hashes
/// (`atmsim.scenario.scenario_sha256`). From JSON, not TOML: at 100 000 VCs reading the
/// TOML took 3.8 s and 1.4 GB, the JSON 0.56 s and 0.37 GB (issue 14).
#[pyfunction]
fn normal_json(py: Python<'_>, text: String) -> PyResult<String> {
    py.detach(|| {
        guard(|| {
            let f = atmsim::scenario::from_json_str(&text)
                .map_err(|e| ScenarioError::new_err(e.to_string()))?;
            Ok(serde_json::to_string(&f).expect("scenario serializes"))
        })
    })
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

/// One extension point: its title, its key and its `(name, doc)` implementations.
type ExtensionPoint = (String, String, Vec<(String, String)>);

/// Every extension point of the engine with its registered implementations:
/// `[(title, key, [(name, doc), ...]), ...]`, from the one registry in Rust.
#[pyfunction]
fn registry() -> Vec<ExtensionPoint> {
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

/// The per-event trace kinds (`atmsim::trace::KINDS`): `[(name, doc, [(column, type,
/// labels, doc), ...]), ...]`; type is "float", "int", "port", "connection" or "label".
#[pyfunction]
#[allow(clippy::type_complexity)]
fn trace_kinds() -> Vec<(String, String, Vec<(String, String, Vec<String>, String)>)> {
    use atmsim::trace::ColumnType;
    atmsim::trace::KINDS
        .iter()
        .map(|k| {
            let cols = k
                .columns
                .iter()
                .map(|c| {
                    let (ty, labels): (&str, &[&str]) = match c.ty {
                        ColumnType::Float => ("float", &[]),
                        ColumnType::Int => ("int", &[]),
                        ColumnType::Port => ("port", &[]),
                        ColumnType::Connection => ("connection", &[]),
                        ColumnType::Label(l) => ("label", l),
                    };
                    let labels = labels.iter().map(|s| s.to_string()).collect();
                    (
                        c.name.to_string(),
                        ty.to_string(),
                        labels,
                        c.doc.to_string(),
                    )
                })
                .collect();
            (k.name.to_string(), k.doc.to_string(), cols)
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
    quiet_panics();
    m.add_function(wrap_pyfunction!(run_toml, m)?)?;
    m.add_function(wrap_pyfunction!(check_environment, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_json_watched, m)?)?;
    m.add_function(wrap_pyfunction!(normal_json, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(memory_limit, m)?)?;
    m.add_function(wrap_pyfunction!(max_min_json, m)?)?;
    m.add_function(wrap_pyfunction!(fair_share_phases_json, m)?)?;
    m.add_function(wrap_pyfunction!(toml_to_json, m)?)?;
    m.add_function(wrap_pyfunction!(json_schema, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_function(wrap_pyfunction!(registry, m)?)?;
    m.add_function(wrap_pyfunction!(summary_fields, m)?)?;
    m.add_function(wrap_pyfunction!(trace_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(bench_kvr, m)?)?;
    m.add_function(wrap_pyfunction!(run_counts, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("MemoryLimitError", m.py().get_type::<MemoryLimitError>())?;
    m.add(
        "EngineSettingError",
        m.py().get_type::<EngineSettingError>(),
    )?;
    m.add("InvariantError", m.py().get_type::<InvariantError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    Ok(())
}
