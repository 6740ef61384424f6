//! The key of an error inside a table tagged by `kind` (`traffic`, `policy`, `allocator`).
//!
//! serde reads such a table by buffering it whole and then reading its kind's fields from
//! the buffer, where the key paths are lost: a wrong `connection[0].traffic.tcp.window_scaling`
//! was reported as `connection[0].traffic: invalid type: string "yes", expected a boolean`.
//! When the path of a refused scenario ends at such a table, the table is read again as its
//! kind's own table, with key paths, and the error moves to the key below it.

use crate::allocator::{AllocatorSpec, ALLOCATORS};
use crate::drop_policy::{PolicySpec, POLICIES};
use crate::registry::Registered;
use crate::traffic::{TrafficSpec, TRAFFIC_KINDS};
use serde_json::Value;

/// How a tagged table's spec locates an error in its table (the registry's `locate_error`).
type Locate = fn(Value) -> Option<(String, String)>;

/// The tagged tables' keys, how each locates an error in its table, and its kinds.
const TAGGED: [(&str, Locate, &[Registered]); 3] = [
    ("traffic", TrafficSpec::locate_error, TRAFFIC_KINDS),
    ("policy", PolicySpec::locate_error, POLICIES),
    ("allocator", AllocatorSpec::locate_error, ALLOCATORS),
];

/// serde's words for a value that is not a table where a tagged table belongs.
const NOT_A_TABLE: &str = ", expected internally tagged enum ";

/// `msg` in words for a value that is not a table where the tagged table `key` belongs
/// (`allocator = "erica"`: serde says "expected internally tagged enum AllocatorSpec"):
/// what it takes, with an example and its kinds; None for another message.
fn not_a_table(key: &str, msg: &str) -> Option<String> {
    let (_, _, kinds) = TAGGED.iter().find(|(k, _, _)| *k == key)?;
    let (given, rest) = msg.split_once(NOT_A_TABLE)?;
    let line = rest.rfind(" (line ").map_or("", |i| &rest[i..]);
    let names: Vec<&str> = kinds.iter().map(|r| r.name).collect();
    Some(format!(
        "{given}, expected a table naming its kind, e.g. {key} = {{ kind = {:?} }}; kinds: {}{line}",
        names.get(1).or(names.first()).copied().unwrap_or(""),
        crate::config::name_list(&names)
    ))
}

/// For an error at `path` of the scenario `doc` (the whole file as a tree): the path and
/// message of the error below it, if `path` ends at a table tagged by `kind` and the error
/// lies below it; else None (keep the error as it was).
pub fn locate(doc: &Value, path: &str) -> Option<(String, String)> {
    let last = path.rsplit('.').next()?;
    let (_, locate, _) = TAGGED.iter().find(|(key, _, _)| *key == last)?;
    let table = at(doc, path)?.clone();
    let (below, msg) = locate(table)?;
    if below.is_empty() || below == "." {
        return None;
    }
    let join = if below.starts_with('[') { "" } else { "." };
    Some((format!("{path}{join}{below}"), msg))
}

/// The error `(path, msg)` of a refused scenario `doc` moved to the key below `path` if
/// [`locate`] finds one there (keeping the "(line N)" the first read gave); else as it was.
pub fn relocate(doc: Option<Value>, path: String, msg: String) -> (String, String) {
    let Some((below, inner)) = doc.as_ref().and_then(|d| locate(d, &path)) else {
        let last = path.rsplit('.').next().unwrap_or("");
        let msg = not_a_table(last, &msg).unwrap_or(msg);
        return (path, msg);
    };
    let line = msg.rfind(" (line ").map_or("", |i| &msg[i..]);
    (below, format!("{inner}{line}"))
}

/// The value at `path` (`a.b[2].c`) of `doc`.
fn at<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    let mut v = doc;
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            v = v.get(key)?;
        }
        while let Some(end) = rest.find(']') {
            let i: usize = rest.get(1..end)?.parse().ok()?;
            v = v.get(i)?;
            rest = &rest[end + 1..];
        }
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_inside_a_tagged_table_names_its_key() {
        let doc: Value = serde_json::from_str(
            r#"{"connection": [{"name": "a"}, {"traffic": {"kind": "tcp",
                "tcp": {"window_scaling": "yes"}}}]}"#,
        )
        .unwrap();
        let (path, msg) = locate(&doc, "connection[1].traffic").unwrap();
        assert_eq!(path, "connection[1].traffic.tcp.window_scaling");
        assert!(msg.contains("expected a boolean"), "{msg}");
    }

    #[test]
    fn an_error_of_the_table_itself_is_left_as_it_was() {
        let doc: Value =
            serde_json::from_str(r#"{"defaults": {"policy": {"kind": "nosuch"}}}"#).unwrap();
        assert_eq!(locate(&doc, "defaults.policy"), None);
        let doc: Value = serde_json::from_str(r#"{"defaults": {"link_rate": 5}}"#).unwrap();
        assert_eq!(locate(&doc, "defaults.link_rate"), None);
        assert_eq!(locate(&doc, "defaults.policy"), None, "no such table");
    }
}
