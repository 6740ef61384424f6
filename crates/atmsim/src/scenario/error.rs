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

/// `msg` on one line: a line break in a value the reader echoes (serde's ``unknown variant
/// `a\nb` ``, the fuzzer) written as `\n`, as a quoted string would show it.
pub fn one_line(msg: &str) -> String {
    msg.replace('\r', "\\r").replace('\n', "\\n")
}

/// serde's names of Rust types in a message (`invalid type: string "1/16", expected f64`)
/// in words: a number, a whole number.
pub fn plain_types(msg: &str) -> String {
    const WORDS: [(&str, &str); 8] = [
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
        ("expected u64", "expected a whole number, 0 or more"),
        ("expected u32", "expected a whole number, 0 or more"),
        ("expected u16", "expected a whole number, 0 or more"),
        ("expected u8", "expected a whole number, 0 or more"),
        ("expected usize", "expected a whole number, 0 or more"),
        ("expected i64", "expected a whole number"),
    ];
    let mut out = msg.to_string();
    for (rust, words) in WORDS {
        // Whole words only: "expected u8" is not the start of "expected u80".
        let mut from = 0;
        while let Some(k) = out[from..].find(rust).map(|k| k + from) {
            let end = k + rust.len();
            let whole = !out[end..].starts_with(|c: char| c.is_ascii_alphanumeric());
            if whole {
                out.replace_range(k..end, words);
                from = k + words.len();
            } else {
                from = end;
            }
        }
    }
    out
}

/// `s` with every name in it (a run of letters, digits and `_`, not all digits) longer than
/// [`crate::units::ECHO_CHARS`] cut to that many characters, with its length: a key the
/// reader echoes, as in `unknown field`, is cut as a value is (the scenario fuzzer's
/// mutated key of 220 characters made one word of the message longer than a line).
pub fn cut_long_names(s: &str) -> String {
    let limit = crate::units::ECHO_CHARS;
    let is_name = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(s.len().min(4 * limit));
    let mut rest = s;
    while let Some(start) = rest.find(is_name) {
        out.push_str(&rest[..start]);
        let name = &rest[start..];
        let end = name.find(|c: char| !is_name(c)).unwrap_or(name.len());
        let (name, after) = name.split_at(end);
        let n = name.chars().count();
        // A long number is left whole: `ConfigError::new` writes it as `1e300`.
        if n > limit && !name.bytes().all(|b| b.is_ascii_digit()) {
            out.extend(name.chars().take(limit));
            out.push_str(&format!("... ({n} characters)"));
        } else {
            out.push_str(name);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::{cut_long_names, one_line, plain_types};

    /// A line break in an echoed value is written as `\n`: a message is one line.
    #[test]
    fn echoed_line_breaks_keep_a_message_on_one_line() {
        assert_eq!(
            one_line("unknown variant `a\nb`, expected `bulk`"),
            "unknown variant `a\\nb`, expected `bulk`"
        );
        assert_eq!(one_line("a\r\nb"), "a\\r\\nb");
    }

    /// serde's Rust type names read as words; a longer word that starts alike is kept.
    #[test]
    fn rust_type_names_become_words() {
        assert_eq!(
            plain_types(r#"invalid type: string "1/16", expected f64 (line 5)"#),
            r#"invalid type: string "1/16", expected a number (line 5)"#
        );
        assert_eq!(
            plain_types("invalid value: integer `-1`, expected u32"),
            "invalid value: integer `-1`, expected a whole number, 0 or more"
        );
        assert_eq!(plain_types("expected u80"), "expected u80");
    }

    #[test]
    fn long_names_are_cut_and_the_rest_kept() {
        let key = format!("duratio{}n", "o".repeat(200));
        let msg = format!("measurement.{key}: unknown field `{key}`, expected `duration`");
        let cut = cut_long_names(&msg);
        let short = format!("{}... (208 characters)", &key[..80]);
        assert_eq!(
            cut,
            format!("measurement.{short}: unknown field `{short}`, expected `duration`")
        );
        assert_eq!(cut_long_names("a.b[2].c: é ok"), "a.b[2].c: é ok");
        let number = format!("invalid length 1{}", "0".repeat(300));
        assert_eq!(
            cut_long_names(&number),
            number,
            "numbers are compacted elsewhere"
        );
    }
}
