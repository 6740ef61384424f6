//! The scenario's `[trace]` table: which kinds of events to record, for which connections
//! and ports, over which window of simulated time (issue 16, item 2).
//!
//! ```toml
//! [trace]
//! events = ["drop", "tcp", "acr", "allocator", "queue", "load"]
//! connections = ["c1"]          # default: all
//! ports = ["sw1->sw2"]          # default: all
//! from = "1 s"                  # default: 0
//! to = "2 s"                    # default: the end of the run
//! queue_interval = "1 ms"       # the queue trace's interval (default 1 ms)
//! ```

use super::{Kind, KINDS};
use crate::config::{err, name_list, ConfigError};
use crate::units::Duration;
use atmsim_kernel::Time;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

/// Per-event traces (`docs/traces.md`): what to record. Rows go to Parquet files, one per
/// kind, read back as DataFrames (`atmsim.run(..., trace=...)`, `res.trace("drop")`).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// The kinds of events to record (docs/traces.md describes each).
    #[schemars(schema_with = "events_schema")]
    pub events: Vec<String>,
    /// Only these connections (by name); default all.
    #[serde(default)]
    pub connections: Option<Vec<String>>,
    /// Only these ports (by name, `"sw1->sw2"`); default all.
    #[serde(default)]
    pub ports: Option<Vec<String>>,
    /// Record from this time on (default 0).
    #[serde(default)]
    pub from: Option<Duration>,
    /// Record up to this time, excluded (default: the end of the run).
    #[serde(default)]
    pub to: Option<Duration>,
    /// The queue trace's interval (default 1 ms).
    #[serde(default)]
    pub queue_interval: Option<Duration>,
}

/// A resolved `[trace]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceCfg {
    /// The kinds asked for, as a mask of [`Kind::bit`]s.
    pub mask: u8,
    /// Per connection: traced (all true by default).
    pub connections: Vec<bool>,
    /// Per port: traced (all true by default).
    pub ports: Vec<bool>,
    /// Window start (included).
    pub from: Time,
    /// Window end (excluded).
    pub to: Time,
    /// The queue trace's interval.
    pub queue_interval: Time,
}

/// The default interval of the queue trace.
pub const QUEUE_INTERVAL: Time = 1_000_000_000;

/// Checks `trace`: known kinds (at least one), known connection and port names, and a
/// window inside the run. `conns` and `ports` are the scenario's names, in index order.
pub fn resolve(
    t: &TraceSpec,
    conns: &[&str],
    ports: &[&str],
    duration: Time,
) -> Result<TraceCfg, ConfigError> {
    let allowed: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
    if t.events.is_empty() {
        return err(
            "trace.events",
            format!("[] names no event kind; allowed: {}", name_list(&allowed)),
        );
    }
    let mut mask = 0u8;
    for (i, e) in t.events.iter().enumerate() {
        match Kind::ALL.iter().find(|k| k.info().name == e) {
            Some(k) => mask |= k.bit(),
            None => {
                return err(
                    format!("trace.events[{i}]"),
                    format!(
                        "{} is not an event kind; allowed: {}",
                        crate::units::echo(e),
                        name_list(&allowed)
                    ),
                )
            }
        }
    }
    let connections = select(
        "trace.connections",
        "connection",
        t.connections.as_deref(),
        conns,
    )?;
    let ports = select("trace.ports", "port", t.ports.as_deref(), ports)?;
    let from = t.from.map_or(0, |d| d.ps());
    let to = t.to.map_or(duration.saturating_add(1), |d| d.ps());
    if from >= duration {
        return err(
            "trace.from",
            format!(
                "{} is not before the end of the run ({}); allowed: 0 s up to the duration",
                Duration(from),
                Duration(duration)
            ),
        );
    }
    if to <= from {
        return err(
            "trace.to",
            format!(
                "{} is not after trace.from = {}; allowed: a time after it",
                Duration(to),
                Duration(from)
            ),
        );
    }
    let queue_interval = match t.queue_interval {
        None => QUEUE_INTERVAL,
        Some(d) if d.ps() < 1_000_000 => {
            return err(
                "trace.queue_interval",
                format!("{d} is shorter than 1 us; allowed: 1 us or longer"),
            )
        }
        Some(d) => d.ps(),
    };
    Ok(TraceCfg {
        mask,
        connections,
        ports,
        from,
        to,
        queue_interval,
    })
}

/// Which of `names` are selected by `given` (all when None); an unknown name is an error.
fn select(
    path: &str,
    what: &str,
    given: Option<&[String]>,
    names: &[&str],
) -> Result<Vec<bool>, ConfigError> {
    let Some(given) = given else {
        return Ok(vec![true; names.len()]);
    };
    let mut on = vec![false; names.len()];
    for (i, g) in given.iter().enumerate() {
        match names.iter().position(|n| n == g) {
            Some(k) => on[k] = true,
            None => {
                return err(
                    format!("{path}[{i}]"),
                    format!(
                        "{} is not a {what}; allowed: {}",
                        crate::units::echo(g),
                        name_list(names)
                    ),
                )
            }
        }
    }
    Ok(on)
}

/// The schema of `trace.events`: an array of kind names, from [`KINDS`] (the one list).
fn events_schema(_: &mut SchemaGenerator) -> Schema {
    let names: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
    json_schema!({
        "type": "array",
        "items": { "type": "string", "enum": names },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(events: &[&str]) -> TraceSpec {
        TraceSpec {
            events: events.iter().map(|s| s.to_string()).collect(),
            ..TraceSpec::default()
        }
    }

    const S: Time = 1_000_000_000_000;

    /// The JSON Schema offers exactly the trace kinds of [`KINDS`] for `trace.events`.
    #[test]
    fn the_schema_lists_every_trace_kind() {
        let schema: serde_json::Value =
            serde_json::from_str(&crate::scenario::json_schema()).expect("json");
        let text = schema.to_string();
        let names: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
        let listed = format!("\"enum\":{}", serde_json::to_string(&names).expect("json"));
        assert!(text.contains(&listed), "{listed} not in the schema");
    }

    /// A frame refused by a policy is labelled with the policy's name: every registered
    /// policy that can refuse a frame needs a label. Tail drop is the only one that never
    /// refuses one (its drops are `buffer_full`).
    #[test]
    fn every_frame_refusing_policy_has_a_drop_label() {
        for r in crate::drop_policy::POLICIES {
            assert!(
                r.name == "tail_drop" || super::super::DROP_REASONS.contains(&r.name),
                "drop policy {:?} has no label in trace::DROP_REASONS",
                r.name
            );
        }
    }

    #[test]
    fn kinds_and_filters_resolve() {
        let mut t = spec(&["drop", "queue"]);
        t.ports = Some(vec!["b".into()]);
        let c = resolve(&t, &["c1", "c2"], &["a", "b"], S).expect("valid");
        assert_eq!(c.mask, Kind::Drop.bit() | Kind::Queue.bit());
        assert_eq!(c.ports, vec![false, true]);
        assert_eq!(c.connections, vec![true, true]);
        assert_eq!((c.from, c.to), (0, S + 1));
    }

    #[test]
    fn errors_name_key_value_and_allowed() {
        let e = resolve(&spec(&["drop", "drops"]), &[], &[], S).unwrap_err();
        assert_eq!(e.path, "trace.events[1]");
        assert!(
            e.message.contains("\"drops\"") && e.message.contains("\"allocator\""),
            "{e}"
        );
        let e = resolve(&spec(&[]), &[], &[], S).unwrap_err();
        assert_eq!(e.path, "trace.events");
        let mut t = spec(&["tcp"]);
        t.connections = Some(vec!["nope".into()]);
        let e = resolve(&t, &["c1"], &[], S).unwrap_err();
        assert_eq!(e.path, "trace.connections[0]");
        assert!(e.message.contains("\"c1\""), "{e}");
        let mut t = spec(&["tcp"]);
        t.from = Some(Duration(2 * S));
        assert_eq!(resolve(&t, &[], &[], S).unwrap_err().path, "trace.from");
        let mut t = spec(&["tcp"]);
        t.from = Some(Duration(S / 2));
        t.to = Some(Duration(S / 4));
        assert_eq!(resolve(&t, &[], &[], S).unwrap_err().path, "trace.to");
        let mut t = spec(&["queue"]);
        t.queue_interval = Some(Duration(1));
        assert_eq!(
            resolve(&t, &[], &[], S).unwrap_err().path,
            "trace.queue_interval"
        );
    }
}
