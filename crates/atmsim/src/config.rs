//! Configuration errors and the validators every model's configuration shares.
//!
//! Models own their configuration (see [`crate::registry`]): each keeps its user-facing
//! spec (what a scenario file says), its resolved config with `impl Default` (the paper's
//! values, with the seed's section) and the check from one to the other next to its code.
//! They report problems as a [`ConfigError`] that names the key path, the value given and
//! what is allowed; the scenario layer ([`crate::scenario`]) only assembles them.

use std::fmt;

/// A configuration that cannot be run, with the key path that is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    /// The key path, e.g. `connection[2].route` (empty for a whole-file syntax error).
    pub path: String,
    /// What is wrong: the value given and what is allowed.
    pub message: String,
}

impl ConfigError {
    /// An error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError {
            path: cut_long_values(path.into()),
            message: compact_long_numbers(cut_long_values(message.into())),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

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

/// Digits in a row beyond which a number in a message is written in scientific notation.
const LONG_NUMBER: usize = 21;

/// Writes every long plain number of a message (a value such as `1e300` that a message
/// formatted with `{}`, which spells out all 301 digits) in scientific notation, `1e300`,
/// so that messages stay short (issue 18: "cut long values"). Numbers that are part of a
/// word (a name such as `n123...`) are left alone.
pub fn compact_long_numbers(m: String) -> String {
    let b = m.as_bytes();
    let is_num = |c: u8| c.is_ascii_digit() || c == b'.';
    let mut out = String::with_capacity(m.len().min(4 * crate::units::ECHO_CHARS));
    let (mut i, mut last, mut quoted) = (0, 0, false);
    while i < b.len() {
        if b[i] == b'"' && (i == 0 || b[i - 1] != b'\\') {
            quoted = !quoted; // an echo of the text as written: kept as it is
        }
        if quoted
            || !b[i].is_ascii_digit()
            || (i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            i += 1;
            continue;
        }
        let start = if i > 0 && b[i - 1] == b'-' { i - 1 } else { i };
        let mut j = i;
        while j < b.len() && is_num(b[j]) {
            j += 1;
        }
        let word = j < b.len() && (b[j].is_ascii_alphabetic() || b[j] == b'_');
        if j - i > LONG_NUMBER && !word {
            if let Ok(v) = m[start..j].parse::<f64>() {
                out.push_str(&m[last..start]);
                out.push_str(&format!("{v:e}"));
                last = j;
            }
        }
        i = j;
    }
    out.push_str(&m[last..]);
    out
}

/// `Err(ConfigError)` at `path`.
pub fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError::new(path, msg))
}

/// `path.key`, or `key` when `path` is empty.
pub fn key(path: &str, key: &str) -> String {
    KeyPath::new(path, key).to_string()
}

/// A fraction in (0, 1] (or [0, 1] with `zero_ok`), e.g. a target utilization:
/// `v` or the default `def`; the message names `key` and the range.
pub fn unit_fraction(
    path: &str,
    name: &str,
    v: Option<f64>,
    def: f64,
    zero_ok: bool,
) -> Result<f64, ConfigError> {
    let x = v.unwrap_or(def);
    if !(x.is_finite() && x <= 1.0 && (x > 0.0 || (zero_ok && x == 0.0))) {
        let range = if zero_ok { "[0, 1]" } else { "(0, 1]" };
        return err(
            key(path, name),
            format!("{x} is not allowed; {name} must be in {range}"),
        );
    }
    Ok(x)
}

/// A value that falls back from a connection's own table to a `defaults.` table; the
/// error path names where the value came from.
pub struct Pick<'a, T> {
    /// The connection's own table, e.g. `connection[3].abr`.
    pub own_path: &'a str,
    /// The defaults table, e.g. `defaults.abr`.
    pub default_path: &'a str,
    /// The connection's table.
    pub own: &'a T,
    /// The defaults table.
    pub default: &'a T,
}

impl<'a, T> Pick<'a, T> {
    /// The value of field `name` (read by `get`) and the key path it came from, written
    /// out only if a message needs it ([`KeyPath`]).
    pub fn get<'s, V: Clone>(
        &'s self,
        name: &'s str,
        get: impl Fn(&T) -> &Option<V>,
    ) -> (Option<V>, KeyPath<'s>) {
        match (get(self.own), get(self.default)) {
            (Some(v), _) => (Some(v.clone()), KeyPath::new(self.own_path, name)),
            (None, Some(v)) => (Some(v.clone()), KeyPath::new(self.default_path, name)),
            (None, None) => (None, KeyPath::new(self.own_path, name)),
        }
    }
}

/// A key path `path.key` (or `key` when `path` is empty) not yet written out: resolving a
/// scenario looks up many keys and needs their paths only for an error (issue 14, set-up
/// of large scenarios). Displays as `path.key` (or `key` alone); [`key`] is that text as a `String`.
#[derive(Clone, Copy, Debug)]
pub struct KeyPath<'a> {
    path: &'a str,
    key: &'a str,
}

impl<'a> KeyPath<'a> {
    /// The path of `key` in the table at `path`.
    pub fn new(path: &'a str, key: &'a str) -> Self {
        KeyPath { path, key }
    }
}

impl std::fmt::Display for KeyPath<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            f.write_str(self.key)
        } else {
            write!(f, "{}.{}", self.path, self.key)
        }
    }
}

impl From<KeyPath<'_>> for String {
    fn from(k: KeyPath<'_>) -> String {
        k.to_string()
    }
}

/// The names of `items` as a quoted list, cut after 12 (for "defined are ..." messages).
pub fn name_list(names: &[&str]) -> String {
    const MAX: usize = 12;
    // The list's characters, and a name's, beyond which it is cut: a message stays one
    // readable line however long the names (the fuzzer: 12 names of 5 000 characters).
    const BUDGET: usize = 240;
    const LONGEST: usize = 40;
    let mut s = String::new();
    let mut shown = 0;
    for n in names.iter().take(MAX) {
        let chars = n.chars().count();
        let q = match chars > LONGEST {
            true => format!(
                "{:?} ({chars} characters)",
                n.chars().take(LONGEST).collect::<String>() + "..."
            ),
            false => format!("{n:?}"),
        };
        if shown > 0 && s.len() + q.len() > BUDGET {
            break;
        }
        if shown > 0 {
            s.push_str(", ");
        }
        s.push_str(&q);
        shown += 1;
    }
    if shown < names.len() {
        s.push_str(&format!(", ... ({} in all)", names.len()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Up to 12 names, each cut at 40 characters, the list at about 240: a long list or
    /// long names keep the message one readable line.
    #[test]
    fn name_lists_stay_short() {
        assert_eq!(name_list(&["a", "b"]), "\"a\", \"b\"");
        let many: Vec<String> = (0..20).map(|i| format!("n{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(name_list(&many).ends_with("\"n11\", ... (20 in all)"));
        let long = "x".repeat(5000);
        let list = name_list(&[long.as_str(); 12]);
        assert!(list.len() < 300, "{list}");
        assert!(list.starts_with(&format!("\"{}...\" (5000 characters), ", "x".repeat(40))));
        assert!(list.ends_with("... (12 in all)"), "{list}");
    }

    #[test]
    fn fractions_name_key_and_range() {
        assert_eq!(unit_fraction("p", "u", None, 0.9, false), Ok(0.9));
        let e = unit_fraction("p", "u", Some(0.0), 0.9, false).unwrap_err();
        assert_eq!(e.to_string(), "p.u: 0 is not allowed; u must be in (0, 1]");
        assert_eq!(unit_fraction("p", "u", Some(0.0), 0.9, true), Ok(0.0));
        assert!(unit_fraction("p", "u", Some(f64::NAN), 0.9, true).is_err());
    }

    #[test]
    fn pick_names_where_a_value_came_from() {
        let own = (None::<u32>,);
        let def = (Some(7u32),);
        let p = Pick {
            own_path: "connection[0].abr",
            default_path: "defaults.abr",
            own: &own,
            default: &def,
        };
        let (v, path) = p.get("nrm", |t| &t.0);
        assert_eq!((v, path.to_string()), (Some(7), "defaults.abr.nrm".into()));
        let unset = Pick { default: &own, ..p };
        let (v, path) = unset.get("nrm", |t| &t.0);
        assert_eq!(
            (v, String::from(path)),
            (None, "connection[0].abr.nrm".into())
        );
        assert_eq!(KeyPath::new("", "seed").to_string(), "seed");
    }
}

#[cfg(test)]
mod cut_tests {
    use super::*;

    #[test]
    fn long_numbers_are_written_short() {
        let e = ConfigError::new(
            "defaults.abr.rif",
            format!("{} is not allowed; RIF must satisfy 0 < x <= 1", 1e300),
        );
        assert_eq!(
            e.message,
            "1e300 is not allowed; RIF must satisfy 0 < x <= 1"
        );
        let e = ConfigError::new("p", format!("{} % is above 100 %; or {}", 1.5e250, -2e40));
        assert_eq!(e.message, "1.5e250 % is above 100 %; or -2e40");
        let e = ConfigError::new("p", format!("{} is not allowed", 1e-300));
        assert_eq!(e.message, "1e-300 is not allowed");
        // Short numbers, and digits inside names, stay as written.
        let name = format!("n{}", "1".repeat(30));
        let digits = "9".repeat(40);
        let short = format!("0.95 and 155520000 and 18446744073709551615 and {name:?} and {name}x and \"{digits} B\"");
        assert_eq!(compact_long_numbers(short.clone()), short);
    }

    #[test]
    fn long_quoted_values_are_cut() {
        let long = "x".repeat(5000);
        let e = ConfigError::new(
            "node[0]",
            format!("invalid type: string \"{long}\", expected a table"),
        );
        assert!(e.message.len() < 200, "{}", e.message);
        assert!(e.message.contains("(5000 characters)"), "{}", e.message);
        assert!(e.message.ends_with(", expected a table"), "{}", e.message);
        let e = ConfigError::new(
            "k",
            format!("unknown variant `{long}`, expected one of `a`, `b`"),
        );
        assert!(
            e.message.len() < 200 && e.message.contains("`a`, `b`"),
            "{}",
            e.message
        );
        let short = "node \"a\" is not defined".to_string();
        assert_eq!(cut_long_values(short.clone()), short);
        let unterminated = format!("value \"{long}");
        assert!(cut_long_values(unterminated).len() < 200);
    }
}
