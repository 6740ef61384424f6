//! Golden snapshot of a small UBR scenario (examples/ubr_small.toml).
//!
//! If a change moves simulation results on purpose, regenerate with
//! `UPDATE_SNAPSHOTS=1 cargo test -p atmsim --release --test it golden` and say so in
//! CHANGELOG.md under "Changed behavior".

use crate::support::{self, snapshot};

fn snapshot_text() -> String {
    let r = support::run(&support::small_toml());
    let mut out = String::new();
    let s = &r.summary;
    out += &format!(
        "efficiency {:.6}\nfairness {:.6}\nmax_switch_queue_cells {}\ncells_sent {}\ncells_delivered {}\ncells_dropped {}\ncells_in_flight {}\nevents {}\ncell_hops {}\n",
        s.efficiency, s.fairness, s.max_switch_queue_cells, s.cells_sent, s.cells_delivered, s.cells_dropped, s.cells_in_flight, s.events, s.cell_hops
    );
    out += "connection goodput_bytes segments_sent retransmissions timeouts fast_retransmits cells_dropped frames_lost final_cwnd_bytes\n";
    for c in &r.connections {
        out += &format!(
            "{} {} {} {} {} {} {} {} {}\n",
            c.name,
            c.goodput_bytes,
            c.segments_sent,
            c.retransmissions,
            c.timeouts,
            c.fast_retransmits,
            c.cells_dropped,
            c.frames_lost,
            c.final_cwnd_bytes.unwrap_or(0)
        );
    }
    out +=
        "port received enqueued sent dropped buffer_full frame_discard partial_discard max_queue\n";
    for p in &r.ports {
        out += &format!(
            "{} {} {} {} {} {} {} {} {}\n",
            p.name,
            p.received,
            p.enqueued,
            p.sent,
            p.dropped,
            p.drops["buffer_full"],
            p.drops["frame_discard"],
            p.drops["partial_discard"],
            p.max_queue_cells
        );
    }
    out
}

#[test]
fn small_ubr_matches_snapshot() {
    snapshot::assert_snapshot("golden", "ubr_small.txt", &snapshot_text());
}
