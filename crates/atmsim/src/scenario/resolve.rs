//! Validation: from a parsed [`ScenarioFile`] to a resolved, consistent [`Scenario`].
//!
//! The scenario layer assembles; the models check their own keys (see
//! [`crate::registry`]). Each topic has its file: [`super::measurement`],
//! [`super::nodes`], [`super::ports`] (links and port settings), [`super::route`],
//! [`super::connection`] with [`super::service`] and [`super::traffic`], and
//! [`super::fault`]. Every check that can fail names the key path, the value given and
//! what is allowed. After this step the engine can trust its input.

use super::connection;
use super::error::ScenarioError;
use super::fault::{self, FaultCtx};
use super::measurement;
use super::model::{ArrivalOrder, Scenario};
use super::nodes::Nodes;
use super::ports;
use super::schema::{Name, ScenarioFile};
use crate::config::err;

/// Validates and resolves a parsed scenario, then refuses one whose run would be absurdly
/// heavy ([`super::budget::check`]: events per simulated second, series size).
pub fn resolve(f: &ScenarioFile) -> Result<Scenario, ScenarioError> {
    let sc = resolve_unchecked(f)?;
    super::budget::check(&sc)?;
    Ok(sc)
}

/// Validates and resolves a parsed scenario without the heavy-run guard (for the guard's
/// own tests and estimates).
pub fn resolve_unchecked(f: &ScenarioFile) -> Result<Scenario, ScenarioError> {
    let timing = measurement::resolve(&f.measurement)?;
    let arrival_order = ArrivalOrder::parse(f.defaults.arrival_order.as_deref())?;
    let nodes = Nodes::resolve(&f.node)?;
    let ports = ports::resolve(f, &nodes)?;
    let conns = connection::resolve_all(f, &nodes, &ports)?;
    let (connections, names, paths) = (conns.cfg, conns.index, conns.paths);
    let faults = fault::resolve_all(
        &f.fault,
        &FaultCtx {
            names: &names,
            paths: &paths,
            ports: &ports.cfg,
            nodes: &nodes,
            duration: timing.duration,
            duration_text: f.measurement.duration.to_string(),
        },
    )?;
    let trace = match &f.trace {
        None => None,
        Some(t) => {
            let conns: Vec<&str> = conns.names.iter().collect();
            let names: Vec<Name> = ports.cfg.iter().map(|p| p.name(&nodes.cfg)).collect();
            let port_names: Vec<&str> = names.iter().map(Name::as_str).collect();
            Some(crate::trace::resolve(
                t,
                &conns,
                &port_names,
                timing.duration,
            )?)
        }
    };
    let efficiency_rate_bps = match f.measurement.efficiency_rate {
        Some(r) if r.bps() <= 0.0 => {
            return err("measurement.efficiency_rate", "must be above 0 bps")
        }
        Some(r) => r.bps(),
        None => paths
            .iter()
            .flat_map(|c| c.fwd_ports().iter())
            .map(|&p| ports.cfg.settings(p as usize).rate_bps as f64)
            .fold(f64::INFINITY, f64::min),
    };
    Ok(Scenario {
        name: f.name.clone().unwrap_or_else(|| "unnamed".into()),
        seed: f.seed,
        duration: timing.duration,
        warmup: timing.warmup,
        sample_interval: timing.sample_interval,
        efficiency_rate_bps,
        nodes: nodes.cfg,
        ports: ports.cfg,
        connections,
        connection_names: conns.names,
        paths,
        faults,
        arrival_order,
        trace,
    })
}
