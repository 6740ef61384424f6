//! Scenario errors: each names the key path, the value and what is allowed.

use std::fmt;

/// A scenario that cannot be run, with the key path that is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioError {
    /// The key path, e.g. `connection[2].route` (empty for a whole-file syntax error).
    pub path: String,
    /// What is wrong: the value given and what is allowed.
    pub message: String,
}

impl ScenarioError {
    /// An error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Errors of a run: a bad scenario, or a broken invariant (a bug, reported, never hidden).
#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    /// The scenario is malformed or inconsistent.
    Scenario(ScenarioError),
    /// An invariant such as cell conservation failed at the end of the run.
    Invariant(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Scenario(e) => write!(f, "invalid scenario: {e}"),
            RunError::Invariant(m) => write!(f, "internal invariant violated (please report): {m}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<ScenarioError> for RunError {
    fn from(e: ScenarioError) -> Self {
        RunError::Scenario(e)
    }
}
