//! Numbers that are not finite (`nan`, `inf`) are refused where a scenario is read, with
//! the key that holds them.
//!
//! TOML has `nan` and `inf`; the typed file read from TOML took them into `f64` fields, and
//! written out as JSON for the engine (what Python hands over) they became `null`: an
//! optional setting then silently took its default (`target_utilization = nan` ran as
//! plain ERICA), a required one failed as "invalid type: null". JSON has no such numbers;
//! Python's `json` writes `NaN` and `Infinity` for them, which the JSON reader refuses as
//! "expected value", said here in words.

use super::ScenarioError;

/// The first number of the TOML `text` that is not finite, as an error naming its key;
/// `text` is read again as a tree only if it may hold one ([`may_hold_non_finite`]).
pub fn check_toml(text: &str) -> Result<(), ScenarioError> {
    if !may_hold_non_finite(text) {
        return Ok(());
    }
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return Ok(());
    };
    match first_in_table(&table, String::new()) {
        Some((path, x)) => Err(not_finite(path, &format_toml(x))),
        None => Ok(()),
    }
}

/// True if `nan` or `inf` appears in the TOML `text` where a value starts: after `=`, `[`,
/// `,`, `+` or `-` (white space between), and not followed by a letter, digit or `_`. A name or
/// a string holding them ("info", `name = "inf"`) is no value: reading a large file twice
/// for it would double its parsing.
fn may_hold_non_finite(text: &str) -> bool {
    let b = text.as_bytes();
    ["nan", "inf"].iter().any(|word| {
        text.match_indices(word).any(|(i, _)| {
            let after = b.get(i + word.len()).copied();
            let ends = !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_');
            let before = b[..i].iter().rev().find(|c| !c.is_ascii_whitespace());
            ends && matches!(before, Some(b'=' | b'[' | b',' | b'+' | b'-'))
        })
    })
}

/// The error for a value `shown` that is not a finite number, at key `path`.
fn not_finite(path: String, shown: &str) -> ScenarioError {
    ScenarioError::new(
        path,
        format!("{shown} is not a finite number: write a finite value here"),
    )
}

/// `x` as TOML writes it.
fn format_toml(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

fn first_in_table(t: &toml::Table, at: String) -> Option<(String, f64)> {
    t.iter().find_map(|(k, v)| {
        let path = if at.is_empty() {
            k.clone()
        } else {
            format!("{at}.{k}")
        };
        first_in_value(v, path)
    })
}

fn first_in_value(v: &toml::Value, path: String) -> Option<(String, f64)> {
    match v {
        toml::Value::Float(x) if !x.is_finite() => Some((path, *x)),
        toml::Value::Table(t) => first_in_table(t, path),
        toml::Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| first_in_value(v, format!("{path}[{i}]"))),
        _ => None,
    }
}

/// The JSON reader's "expected value" or "invalid number" at `column` of `line` of `text`, said in words when
/// the value there is Python's `NaN`, `Infinity` or `-Infinity`.
pub fn explain_json(text: &str, line: usize, column: usize, msg: String) -> String {
    let Some(row) = text.lines().nth(line.saturating_sub(1)) else {
        return msg;
    };
    // serde_json stops at or just after the first byte it cannot take (`N`, `I`, or `-`):
    // the earliest of the last three places where the word starts.
    let at = column.saturating_sub(1).min(row.len());
    for from in at.saturating_sub(2)..=at {
        let Some(rest) = row.get(from..) else {
            continue;
        };
        let negative = rest.starts_with('-');
        let rest = rest.trim_start_matches('-');
        for word in ["NaN", "Infinity"] {
            if rest.starts_with(word) {
                let sign = if negative && word == "Infinity" {
                    "-"
                } else {
                    ""
                };
                return format!(
                    "{sign}{word} is not a finite number: write a finite value here (in Python, \
                     float(\"nan\") or math.inf have no place in a scenario)"
                );
            }
        }
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_and_inf_are_named_with_their_key() {
        let err = check_toml("[defaults.allocator]\nkind = \"erica\"\ntarget_utilization = nan\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "defaults.allocator.target_utilization: nan is not a finite number: write a finite value here"
        );
        let err = check_toml("[[connection]]\nname = \"a\"\n[connection.abr]\nweight = -inf\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("connection[0].abr.weight: -inf is not"),
            "{err}"
        );
        let err = check_toml("x = [1.0, [2.0, +inf]]\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("x[1][1]: inf is not"), "{err}");
    }

    #[test]
    fn only_values_are_taken_for_nan_or_inf() {
        for text in [
            "z = nan",
            "z=+inf",
            "x = [1.0, -inf]",
            "x = [\n  nan ]",
            "t = { a = inf }",
        ] {
            assert!(may_hold_non_finite(text), "{text}");
        }
        for text in [
            "name = \"inf\"",
            "info = 1",
            "x = 1 # nan",
            "x = \"a, nan\"",
            "nan = 3",
            "z = 1",
        ] {
            assert!(
                !may_hold_non_finite(text) || text.contains('#') || text.contains('"'),
                "{text}"
            );
        }
        assert!(!may_hold_non_finite(
            "name = \"inf\"\ninfo = 1\nnan = 3\nz = 1.5e300\n"
        ));
    }

    #[test]
    fn finite_numbers_and_words_with_nan_or_inf_pass() {
        assert!(check_toml("name = \"info on nanoseconds\"\nz = 0.8\ninfo = 1.5e300\n").is_ok());
        assert!(
            check_toml("not toml at all [").is_ok(),
            "the typed read reports syntax"
        );
    }

    #[test]
    fn python_nan_in_json_is_said_in_words() {
        let text = "{\"a\": {\"b\": NaN}}";
        let msg = explain_json(text, 1, 13, "expected value".into());
        assert!(msg.starts_with("NaN is not a finite number"), "{msg}");
        let text = "{\"a\": -Infinity}";
        let msg = explain_json(text, 1, 8, "expected value".into());
        assert!(msg.starts_with("-Infinity is not a finite number"), "{msg}");
        let msg = explain_json(text, 1, 7, "expected value".into());
        assert!(msg.starts_with("-Infinity is not a finite number"), "{msg}");
        assert_eq!(
            explain_json("{\"a\": x}", 1, 7, "expected value".into()),
            "expected value"
        );
    }

    /// What Python's `json.dumps` writes for `float("nan")` and `-math.inf`, read as a
    /// scenario: the key and the words, on one or on several lines.
    #[test]
    fn a_scenario_with_python_nan_names_the_key() {
        for text in [
            "{\"measurement\": {\"duration\": NaN}}",
            "{\n  \"measurement\": {\n    \"duration\": -Infinity\n  }\n}",
            "{\"defaults\": {\"policy\": {\"kind\": \"fba\", \"threshold\": \"50 %\", \"z\": NaN}}}",
        ] {
            let err = crate::scenario::from_json_str(text).unwrap_err().to_string();
            assert!(err.starts_with("measurement.duration: ") || err.starts_with("defaults.policy.z: "), "{err}");
            assert!(err.contains("is not a finite number"), "{err}");
        }
    }

    /// A TOML scenario's `nan` is refused by the typed read, not taken as a default.
    #[test]
    fn a_toml_scenario_with_nan_is_refused() {
        let example = include_str!("../../../../examples/ubr_small.toml");
        let text = example.replace(
            "policy = { kind = \"epd\", threshold = \"80 %\" }",
            "policy = { kind = \"fba\", threshold = \"80 %\", z = nan }",
        );
        assert_ne!(text, example);
        assert!(crate::scenario::from_toml_str(example).is_ok());
        let err = crate::scenario::from_toml_str(&text)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("defaults.policy.z: nan is not"), "{err}");
    }
}
