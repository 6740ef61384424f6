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
            path: cut_long_values(path.into()),
            message: cut_long_values(message.into()),
        }
    }
}

/// Cuts every quoted value (`"..."` or `` `...` ``) longer than [`crate::units::ECHO_CHARS`]
/// characters, so that a message never echoes a 100 KB value whole (issue 18).
pub fn cut_long_values(m: String) -> String {
    let max = crate::units::ECHO_CHARS;
    if m.chars().count() <= 2 * max {
        return m;
    }
    let chars: Vec<char> = m.chars().collect();
    let mut out = String::with_capacity(4 * max);
    let mut i = 0;
    while i < chars.len() {
        let q = chars[i];
        out.push(q);
        i += 1;
        if q != '"' && q != '`' {
            continue;
        }
        let mut j = i;
        while j < chars.len() && chars[j] != q {
            j += if chars[j] == '\\' { 2 } else { 1 };
        }
        let inner = j.min(chars.len()) - i;
        if inner > max {
            out.extend(&chars[i..i + max]);
            out.push_str("...");
            if j < chars.len() {
                out.push(q);
            }
            out.push_str(&format!(" ({inner} characters)"));
            i = (j + 1).min(chars.len());
        } else {
            out.extend(&chars[i..j.min(chars.len())]);
            if j < chars.len() {
                out.push(q);
            }
            i = (j + 1).min(chars.len().max(j + 1));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_quoted_values_are_cut() {
        let long = "x".repeat(5000);
        let e = ScenarioError::new("node[0]", format!("invalid type: string \"{long}\", expected a table"));
        assert!(e.message.len() < 200, "{}", e.message);
        assert!(e.message.contains("(5000 characters)"), "{}", e.message);
        assert!(e.message.ends_with(", expected a table"), "{}", e.message);
        let e = ScenarioError::new("k", format!("unknown variant `{long}`, expected one of `a`, `b`"));
        assert!(e.message.len() < 200 && e.message.contains("`a`, `b`"), "{}", e.message);
        let short = "node \"a\" is not defined".to_string();
        assert_eq!(cut_long_values(short.clone()), short);
        let unterminated = format!("value \"{long}");
        assert!(cut_long_values(unterminated).len() < 200);
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
