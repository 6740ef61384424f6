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
use crate::config::{err, ConfigError};

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
    check_seed(f.seed)?;
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
            connections: &connections,
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

/// Refuses a seed above [`super::schema::MAX_SEED`] in a scenario built in code (a file's
/// is refused as it is read): the scenario could not be written as TOML (`scenario.toml`
/// of a saved result) and read back.
fn check_seed(seed: u64) -> Result<(), ConfigError> {
    if seed > super::schema::MAX_SEED {
        return err(
            "seed",
            format!("{seed} is too large; {}", super::schema::SEED_RANGE),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{from_json_str, from_toml_str};

    const BASE: &str = r#"{"measurement": {"duration": "1 ms"},
        "node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
        "link": [{"between": ["a", "b"]}],
        "connection": [{"name": "c", "from": "a", "to": "b", "service": "ubr",
                        "traffic": {"kind": "tcp"}}]"#;

    /// Seeds 0 to 2^63 - 1 are read; a larger, negative or fractional one is refused as it
    /// is read, and a larger one set in code is refused when resolved.
    #[test]
    fn seeds_are_whole_numbers_that_toml_can_hold() {
        for seed in ["0", "9223372036854775807"] {
            let f = from_json_str(&format!("{BASE}, \"seed\": {seed}}}")).expect("reads");
            assert_eq!(resolve(&f).expect("resolves").seed.to_string(), seed);
        }
        for (seed, why) in [
            ("9223372036854775808", "too large"),
            ("18446744073709551616", "not a whole number"),
            ("-1", "negative"),
            ("1.5", "not a whole number"),
        ] {
            let e = from_json_str(&format!("{BASE}, \"seed\": {seed}}}")).unwrap_err();
            let msg = e.to_string();
            for part in ["seed", why, "0 to 9223372036854775807"] {
                assert!(msg.contains(part), "{part:?} not in {msg}");
            }
        }
        let e = from_toml_str("seed = -1\n[measurement]\nduration = \"1 ms\"\n").unwrap_err();
        assert!(e.to_string().contains("negative"), "{e}");
        let mut f = from_json_str(&format!("{BASE}}}")).expect("reads");
        f.seed = MAX_SEED_PLUS_ONE;
        let msg = resolve(&f).map(|_| ()).unwrap_err().to_string();
        assert!(
            msg.starts_with("seed: 9223372036854775808 is too large"),
            "{msg}"
        );
    }

    const MAX_SEED_PLUS_ONE: u64 = crate::scenario::schema::MAX_SEED + 1;
}
