//! Scenario errors: each names the key path, the value and what is allowed.

use std::fmt;

/// A scenario that cannot be run, with the key path that is wrong (a [`ConfigError`]:
/// the models report their own configuration errors with it).
pub use crate::config::ConfigError as ScenarioError;
#[doc(no_inline)]
pub use crate::config::ConfigError;

/// Errors of a run: a bad scenario, or a broken invariant (a bug, reported, never hidden).
#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    /// The scenario is malformed or inconsistent.
    Scenario(ScenarioError),
    /// An invariant such as cell conservation failed at the end of the run.
    Invariant(String),
    /// Writing a per-event trace failed (the trace's sink reported this error).
    Trace(String),
    /// The run's memory ([`crate::footprint`]): the scenario needs more than the limit before
    /// any cell moves (refused before it starts), or its queues and delay lines outgrew the
    /// limit as it ran (stopped), or the limit variable is not a size.
    Memory(String),
    /// An environment variable that tunes the engine holds a value it does not take (the
    /// message names the variable, the value and what is allowed).
    Setting(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Scenario(e) => write!(f, "invalid scenario: {e}"),
            RunError::Invariant(m) => write!(f, "internal invariant violated (please report): {m}"),
            RunError::Trace(m) => write!(f, "writing the trace failed: {m}"),
            RunError::Memory(m) | RunError::Setting(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<ScenarioError> for RunError {
    fn from(e: ScenarioError) -> Self {
        RunError::Scenario(e)
    }
}
