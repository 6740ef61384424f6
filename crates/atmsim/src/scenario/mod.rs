//! Scenario files: the file schema ([`schema`]), parsing, and the assembler that turns a
//! file into a resolved [`Scenario`] ([`resolve`], cut by topic). The models own their
//! keys, defaults and checks; this layer sits above them and no model imports it.

pub mod budget;
pub mod connection;
pub mod connection_table;
pub mod error;
pub mod fault;
pub mod finite;
pub mod measurement;
pub mod model;
pub mod names;
pub mod nodes;
pub mod paths;
pub mod plain;
pub mod port_table;
pub mod ports;
pub mod resolve;
pub mod route;
pub mod schema;
pub mod service;
pub mod tagged;
pub mod traffic;
/// Quantities with units (at the crate root, so models use them without this layer).
pub use crate::units;

pub use connection_table::ConnectionTable;
pub use error::{RunError, ScenarioError};
pub use model::{
    ConnectionCfg, FaultCell, FaultCfg, NodeTable, PolicyCfg, Scenario, ServiceClass, TcpApp,
    TcpParams,
};
pub use paths::{Path, Paths, PathsBuilder};
pub use port_table::{PortRef, PortTable};
pub use schema::ScenarioFile;
pub use traffic::{CellApp, VideoParams};

/// Parses a TOML scenario. Errors name the key path and, for syntax errors, the line.
///
/// A file is read first without tracking key paths; one that this read refuses is read
/// again with them, which gives the result and message of that path-tracking read alone
/// (the same parser either way; tracking the path of every value was most of the parsing
/// time of a 10 000-VC scenario, issue 14).
pub fn from_toml_str(text: &str) -> Result<ScenarioFile, ScenarioError> {
    crate::footprint::check_toml_text(text.len()).map_err(|m| ScenarioError::new("", m))?;
    if let Ok(f) = toml::from_str(text) {
        finite::check_toml(text)?;
        return Ok(f);
    }
    let de = toml::Deserializer::new(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = clean_path(&e.path().to_string());
        let inner = e.into_inner();
        // One line: the parser's message may span several.
        let mut msg = inner
            .message()
            .split('\n')
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        if msg.is_empty() {
            msg = "syntax error".into();
        }
        if msg.contains("number too large") {
            msg.push_str("; integers must be within -2^63 .. 2^63 - 1");
        }
        if let Some(span) = inner.span() {
            let start = span.start.min(text.len());
            let start = (0..=start)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            let line = text[..start].matches('\n').count() + 1;
            // Without a key path, show the line itself (cut): it names the key (issue 18).
            let shown = text.lines().nth(line - 1).map(str::trim).unwrap_or("");
            if path.is_empty() && !shown.is_empty() {
                msg = format!("{msg} (line {line}), at {}", crate::units::echo(shown));
            } else if path.is_empty() && start >= text.trim_end().len() {
                msg = format!("{msg} (line {line}), at the end of the file: is it cut short?");
            } else {
                msg = format!("{msg} (line {line})");
            }
        }
        let (path, msg) = tagged::relocate(toml::from_str(text).ok(), path, msg);
        ScenarioError::new(
            error::cut_long_names(&path),
            error::cut_long_names(&error::one_line(&error::plain_types(&msg))),
        )
    })
}

/// Parses a JSON scenario (the form Python hands over: a dict mirroring the TOML file);
/// read again with key paths only if the first read refuses it (as [`from_toml_str`]; that
/// first read also refuses text after the JSON value, which the second accepts, as before).
pub fn from_json_str(text: &str) -> Result<ScenarioFile, ScenarioError> {
    if let Ok(f) = serde_json::from_str(text) {
        return Ok(f);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = clean_path(&e.path().to_string());
        let inner = e.into_inner();
        let msg = strip_json_position(&inner.to_string());
        let msg = if msg == "expected value" || msg == "invalid number" {
            finite::explain_json(text, inner.line(), inner.column(), msg)
        } else {
            msg
        };
        let (path, msg) = tagged::relocate(serde_json::from_str(text).ok(), path, msg);
        ScenarioError::new(
            error::cut_long_names(&path),
            error::cut_long_names(&error::one_line(&error::plain_types(&msg))),
        )
    })
}

/// Parses TOML and resolves it in one step. The parsed file is dropped before this
/// returns, so it does not add to a run's peak memory (issue 14: at 10 000 VCs the parsed
/// file is about 1.9 KB per VC).
pub fn load_toml(text: &str) -> Result<Scenario, ScenarioError> {
    resolve::resolve(&from_toml_str(text)?)
}

/// Parses JSON and resolves it in one step (as [`load_toml`]).
pub fn load_json(text: &str) -> Result<Scenario, ScenarioError> {
    resolve::resolve(&from_json_str(text)?)
}

/// The JSON Schema of scenario files, generated from the Rust types.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(ScenarioFile);
    serde_json::to_string_pretty(&schema).expect("schema serializes")
}

fn clean_path(p: &str) -> String {
    if p == "." {
        String::new()
    } else {
        p.to_string()
    }
}

fn strip_json_position(m: &str) -> String {
    match m.rfind(" at line ") {
        Some(i) => m[..i].to_string(),
        None => m.to_string(),
    }
}
