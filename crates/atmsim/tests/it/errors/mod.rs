//! Refused scenarios: each test plants one mistake and checks that the error names the
//! key (its path), the value given and what is allowed, and that nothing panics.
//!
//! * [`scenario`]: the file format, units, topology and routes, drop policies.
//! * [`abr`]: ABR source parameters, allocators, cell-level traffic, TCP over ABR.
//! * [`kvr`]: seed 004: the UCSC source, KVR, reservations, sessions, video, faults.

mod abr;
mod kvr;
mod scenario;

use atmsim::ScenarioError;

/// The error a scenario is refused with at validation; panics if it is accepted.
fn err(text: &str) -> ScenarioError {
    match atmsim::scenario::load_toml(text) {
        Ok(_) => panic!("scenario was accepted:\n{text}"),
        Err(e) => e,
    }
}

/// The error is at `path` and its message contains every one of `words`; running the
/// scenario (`run_toml`) reports the same, prefixed.
#[track_caller]
fn assert_err(text: &str, path: &str, words: &[&str]) {
    let e = err(text);
    assert_eq!(e.path, path, "{e}");
    for w in words {
        assert!(e.message.contains(w), "{w:?} missing from: {e}");
    }
    let r = atmsim::run_toml(text).unwrap_err().to_string();
    assert!(r.contains(path) && r.contains(&e.message), "{r}");
}
