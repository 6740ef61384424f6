//! # atmsim
//!
//! A cell-level simulator of TCP/IP over ATM networks: UBR and ABR (TM 4.0 and UCSC end
//! systems; ERICA, ERICA+, EFCI and KVR switch algorithms), VBR video and faults.
//!
//! ```text
//! scenario (TOML / JSON) --parse--> ScenarioFile --resolve--> Scenario --run--> RunResult
//! ```
//!
//! Layout, by domain:
//! * [`cell`], [`aal5`]: the ATM cell and AAL5 segmentation and reassembly;
//! * [`link`], [`port`], [`drop_policy`]: delay lines, output ports with per-class queues,
//!   and the UBR buffer policies (tail drop, PPD, EPD, Selective Drop, FBA);
//! * [`tcp`]: the TCP sender, receiver and RTO estimator;
//! * [`network`], [`sim`]: the network built from a scenario, and the event loop;
//! * [`scenario`]: the file schema, units, validation; [`metrics`], [`result`]: outputs.
#![forbid(unsafe_code)]

pub mod aal5;
pub mod abr;
pub mod allocator;
pub mod cell;
pub mod drop_policy;
pub mod footprint;
pub mod link;
pub mod maxmin;
pub mod metrics;
pub mod network;
pub mod port;
pub mod result;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod units;
pub mod video;

pub use result::RunResult;
pub use scenario::{RunError, Scenario, ScenarioError, ScenarioFile};

/// The atmsim version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Runs a resolved scenario to its end and returns the results.
///
/// Refuses first a scenario whose memory estimate exceeds the memory available
/// ([`footprint::check`]), naming the estimate, the limit and the keys that drive it.
/// Checks cell conservation (sent = delivered + dropped + in flight) and every port's
/// counter identities at the end of the run; a violation is a bug and is returned as
/// [`RunError::Invariant`], never hidden.
pub fn run(sc: &Scenario) -> Result<RunResult, RunError> {
    footprint::check(sc, None).map_err(|e| ScenarioError::new("", e.to_string()))?;
    let start = std::time::Instant::now();
    let mut sim = sim::Sim::new(sc);
    sim.run();
    let wall = start.elapsed().as_secs_f64();
    let r = RunResult::collect(sim, sc, wall);
    for p in &r.ports {
        if p.received != p.enqueued + p.dropped || p.enqueued != p.sent + p.final_queue_cells as u64
        {
            return Err(RunError::Invariant(format!(
                "port {} counters: received {} != enqueued {} + dropped {}, or enqueued != sent {} + queued {}",
                p.name, p.received, p.enqueued, p.dropped, p.sent, p.final_queue_cells
            )));
        }
    }
    if !r.summary.conservation_ok {
        let s = &r.summary;
        return Err(RunError::Invariant(format!(
            "cell conservation failed: sent {} != delivered {} + dropped {} + in flight {}",
            s.cells_sent, s.cells_delivered, s.cells_dropped, s.cells_in_flight
        )));
    }
    Ok(r)
}

/// Parses, validates and runs a TOML scenario.
pub fn run_toml(text: &str) -> Result<RunResult, RunError> {
    let sc = scenario::load_toml(text)?;
    run(&sc)
}

/// Parses, validates and runs a JSON scenario.
pub fn run_json(text: &str) -> Result<RunResult, RunError> {
    let f = scenario::from_json_str(text)?;
    let sc = scenario::resolve::resolve(&f)?;
    run(&sc)
}
