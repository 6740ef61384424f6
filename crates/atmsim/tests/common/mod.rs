//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The small example scenario shipped in examples/.
pub fn small_toml() -> String {
    std::fs::read_to_string(repo().join("examples/ubr_small.toml"))
        .expect("examples/ubr_small.toml")
}

/// A scenario of `n` TCP sources on the N-source topology (LAN lengths), with a given
/// switch buffer and policy table (TOML inline table text).
pub fn n_source(n: usize, buffer: &str, policy: &str, duration: &str, seed: u64) -> String {
    let mut s = format!(
        "seed = {seed}\n[measurement]\nduration = \"{duration}\"\nsample_interval = \"10 ms\"\n\
         [defaults]\nswitch_buffer = \"{buffer}\"\npolicy = {policy}\n\
         [[node]]\nname = \"sw1\"\nkind = \"switch\"\n[[node]]\nname = \"sw2\"\nkind = \"switch\"\n\
         [[link]]\nbetween = [\"sw1\", \"sw2\"]\ndelay = \"5 us\"\n"
    );
    for i in 1..=n {
        s += &format!(
            "[[node]]\nname = \"s{i}\"\nkind = \"host\"\n[[node]]\nname = \"d{i}\"\nkind = \"host\"\n\
             [[link]]\nbetween = [\"s{i}\", \"sw1\"]\ndelay = \"5 us\"\n[[link]]\nbetween = [\"sw2\", \"d{i}\"]\ndelay = \"5 us\"\n\
             [[connection]]\nname = \"c{i}\"\nfrom = \"s{i}\"\nto = \"d{i}\"\ntraffic = {{ kind = \"tcp\" }}\n"
        );
    }
    s
}

/// Cell conservation, the port counter identities (received = enqueued + dropped,
/// enqueued = sent + queued, drop reasons add up, utilization <= 1, max queue <= buffer)
/// and drops attributed to connections.
pub fn check_conservation(r: &atmsim::RunResult, what: &str) {
    let s = &r.summary;
    assert!(s.conservation_ok, "{what}");
    assert_eq!(
        s.cells_sent,
        s.cells_delivered + s.cells_dropped + s.cells_in_flight,
        "{what}"
    );
    for p in &r.ports {
        assert_eq!(p.received, p.enqueued + p.dropped, "{what} {}", p.name);
        assert_eq!(
            p.enqueued,
            p.sent + p.final_queue_cells as u64,
            "{what} {}",
            p.name
        );
        assert_eq!(
            p.drops.values().sum::<u64>(),
            p.dropped,
            "{what} {}",
            p.name
        );
        assert!(p.utilization <= 1.0 + 1e-9, "{what} {}", p.name);
        if let Some(b) = p.buffer_cells {
            assert!(p.max_queue_cells <= b, "{what} {}", p.name);
        }
    }
    let per_conn: u64 = r
        .connections
        .iter()
        .map(|c| c.cells_dropped + c.ack_cells_dropped)
        .sum();
    assert_eq!(per_conn, s.cells_dropped, "{what}: drops attributed");
}
