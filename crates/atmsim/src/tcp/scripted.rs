//! Scripted ACK/loss tests of the congestion-control algorithms (issue 13, item 4): a sender
//! and a receiver joined by a FIFO pipe that loses chosen transmissions; every delivered
//! segment's ACK (with its SACK blocks, through the receiver's record ring) reaches the
//! sender at once, and the sender refills the pipe (ACK clocking). When the pipe is empty,
//! time passes in timer ticks until the retransmit timer fires.

use super::congestion::CongestionConfig;
use super::newreno::NewRenoConfig;
use super::reno::RenoConfig;
use super::sack::SackConfig;
use super::tahoe::TahoeConfig;
use super::{TcpReceiver, TcpSender};
use crate::tcp::config::{TcpApp, TcpParams};
use atmsim_kernel::PS_PER_MS;
use std::collections::VecDeque;

const WINDOW_SEGMENTS: u32 = 64;

fn params(congestion: CongestionConfig) -> TcpParams {
    TcpParams {
        mss: 512,
        window: WINDOW_SEGMENTS as u64 * 512,
        congestion,
        tick: Some(100 * PS_PER_MS),
        rto_initial: 3_000 * PS_PER_MS,
        rto_min: 200 * PS_PER_MS,
        rto_max: 64_000 * PS_PER_MS,
        delayed_ack: false,
        delayed_ack_timeout: 200 * PS_PER_MS,
        initial_ssthresh: WINDOW_SEGMENTS as u64 * 512,
        keep_out_of_order: true,
        tick_phase: Some(0),
        app: TcpApp::Bulk,
    }
}

/// A sender, a receiver and the pipe between them.
struct Pipe {
    snd: TcpSender,
    rcv: TcpReceiver,
    /// Data segments in flight, in order of arrival.
    flight: VecDeque<u32>,
    /// Transmissions to lose: (segment, how many of its transmissions, from the first).
    lose: Vec<(u32, u32)>,
    /// Every transmission, in order.
    sent: Vec<u32>,
}

impl Pipe {
    fn new(cfg: CongestionConfig, cwnd_segments: u64) -> Self {
        let p = params(cfg.clone());
        let mut snd = TcpSender::new(&p);
        snd.win.cwnd = cwnd_segments * 512;
        snd.win.ssthresh = 1 << 20;
        let rcv = TcpReceiver::new(WINDOW_SEGMENTS + 1, false)
            .with_sack(cfg.sack_blocks(), WINDOW_SEGMENTS + 1);
        Pipe {
            snd,
            rcv,
            flight: VecDeque::new(),
            lose: Vec::new(),
            sent: Vec::new(),
        }
    }

    fn pump(&mut self) {
        while let Some(seg) = self.snd.next_segment(0) {
            self.sent.push(seg);
            match self.lose.iter_mut().find(|(s, n)| *s == seg && *n > 0) {
                Some((_, n)) => *n -= 1,
                None => self.flight.push_back(seg),
            }
        }
    }

    /// Delivers one segment and its ACK.
    fn deliver(&mut self, seg: u32) {
        let (action, _) = self.rcv.on_segment(seg);
        if let super::AckAction::Now(ack) = action {
            let tag = self.rcv.ack_tag(ack);
            let (ack, blocks) = self.rcv.read_ack(tag).expect("record");
            self.snd.on_ack_sack(ack, blocks, 0);
        }
        self.pump();
    }

    /// Runs until `until` segments are acknowledged (at most 200 ticks of idle time).
    fn run(&mut self, until: u32) {
        self.pump();
        let mut idle_ticks = 0;
        while self.snd.snd_una < until && idle_ticks < 200 {
            match self.flight.pop_front() {
                Some(seg) => self.deliver(seg),
                None => {
                    idle_ticks += 1;
                    self.snd.on_tick();
                    self.pump();
                }
            }
        }
        assert!(self.snd.snd_una >= until, "stalled at {}", self.snd.snd_una);
    }
}

fn newreno() -> CongestionConfig {
    CongestionConfig::NewReno(NewRenoConfig::default())
}

fn sack() -> CongestionConfig {
    CongestionConfig::Sack(SackConfig::default())
}

fn reno() -> CongestionConfig {
    CongestionConfig::Reno(RenoConfig::default())
}

/// Three losses in a window of 16: segments 3, 7 and 11 lost once.
fn three_losses(cfg: CongestionConfig) -> Pipe {
    let mut p = Pipe::new(cfg, 16);
    p.lose = vec![(3, 1), (7, 1), (11, 1)];
    p.run(60);
    p
}

#[test]
fn newreno_recovers_three_losses_in_one_window_without_timeout() {
    let p = three_losses(newreno());
    let st = &p.snd.stats;
    assert_eq!(st.timeouts, 0);
    assert_eq!(st.fast_retransmits, 1, "one recovery for the whole window");
    assert_eq!(
        st.retransmissions, 3,
        "each lost segment resent once, nothing else"
    );
    // 3 lost at the 3rd duplicate; 7 and 11 on the partial ACKs 7 and 11.
    let rexmits: Vec<u32> = p
        .sent
        .iter()
        .copied()
        .filter(|&s| s == 3 || s == 7 || s == 11)
        .collect();
    assert_eq!(rexmits, vec![3, 7, 11, 3, 7, 11]);
}

#[test]
fn sack_recovers_three_losses_in_one_window_without_timeout() {
    let p = three_losses(sack());
    let st = &p.snd.stats;
    assert_eq!(st.timeouts, 0);
    assert_eq!(st.fast_retransmits, 1, "one recovery for the whole window");
    assert_eq!(
        st.retransmissions, 3,
        "each lost segment resent once, nothing else"
    );
}

#[test]
fn sack_retransmits_all_holes_within_one_round_trip() {
    // NewReno needs one round trip per hole; SACK resends the three holes as soon as
    // the scoreboard marks them lost, before any partial ACK.
    let mut p = Pipe::new(sack(), 16);
    p.lose = vec![(3, 1), (7, 1), (11, 1)];
    p.pump();
    // Deliver the first window (13 segments) without letting the retransmissions arrive.
    for _ in 0..13 {
        let seg = p.flight.pop_front().expect("segment");
        p.deliver(seg);
    }
    let resent: Vec<u32> = p.sent[16..].iter().copied().filter(|&s| s < 16).collect();
    assert_eq!(resent, vec![3, 7, 11]);
    assert_eq!(p.snd.stats.timeouts, 0);
}

#[test]
fn reno_leaves_recovery_on_the_first_partial_ack_and_times_out() {
    // RFC 5681 Reno: the first partial ACK (of 7) deflates cwnd and ends recovery. The
    // segments sent on the inflated window bring three more duplicates of 7: a second fast
    // retransmit halves ssthresh again. The partial ACK of 11 then ends that recovery with
    // too little in flight for three duplicates, so 11 waits for the retransmit timer.
    let p = three_losses(reno());
    let st = &p.snd.stats;
    assert_eq!(st.fast_retransmits, 2);
    assert_eq!(st.timeouts, 1);
    assert_eq!(st.retransmissions, 3);
    let rexmits: Vec<u32> = p.sent[16..].iter().copied().filter(|&s| s < 16).collect();
    assert_eq!(rexmits, vec![3, 7, 11]);
}

#[test]
fn tahoe_needs_a_timeout_for_any_loss() {
    let p = three_losses(CongestionConfig::Tahoe(TahoeConfig));
    assert_eq!(p.snd.stats.fast_retransmits, 0);
    assert_eq!(p.snd.stats.timeouts, 1);
}

#[test]
fn reordering_below_dupthresh_is_not_a_loss() {
    for cfg in [newreno(), sack(), reno()] {
        let mut p = Pipe::new(cfg.clone(), 8);
        p.pump();
        // Segment 1 arrives after 2 and 3: two duplicate ACKs only.
        let order: Vec<u32> = p.flight.drain(..).collect();
        let mut reordered = order.clone();
        reordered[1..4].rotate_left(1);
        for seg in reordered {
            p.deliver(seg);
        }
        p.run(40);
        let st = &p.snd.stats;
        assert_eq!(st.dup_acks, 2, "{}", cfg.name());
        assert_eq!(st.retransmissions, 0, "{}", cfg.name());
    }
}

#[test]
fn sack_scoreboard_after_reordered_and_duplicate_acks() {
    use super::congestion::{AnyCongestion, SackBlock};
    let mut p = Pipe::new(sack(), 12);
    p.pump(); // 0..12 out
    let b = |start, end| SackBlock { start, end };
    // Segment 4 and 7..9 lost. The ACKs of 4 arrive reordered, repeated, with stale and
    // D-SACK-like blocks.
    p.snd.on_ack_sack(4, &[], 0);
    p.snd.on_ack_sack(4, &[b(9, 10)], 0); // DupAcks 1
    p.snd.on_ack_sack(4, &[b(5, 6), b(9, 10)], 0); // DupAcks 2
    p.snd.on_ack_sack(4, &[b(9, 10), b(5, 6)], 0); // nothing new: not counted
    p.snd.on_ack_sack(4, &[b(0, 3), b(5, 6)], 0); // below snd_una, nothing new
    assert_eq!(p.snd.stats.dup_acks, 4);
    let AnyCongestion::Sack(s) = &p.snd.cc else {
        panic!("sack")
    };
    assert_eq!(s.scoreboard().ranges(), &[(5, 6), (9, 10)]);
    assert!(
        !s.in_recovery(),
        "two counted duplicates, 2 segments SACKed above 4"
    );
    p.snd.on_ack_sack(4, &[b(5, 7), b(9, 10)], 0); // DupAcks 3 (and IsLost(4))
    let AnyCongestion::Sack(s) = &p.snd.cc else {
        panic!("sack")
    };
    assert_eq!(s.scoreboard().ranges(), &[(5, 7), (9, 10)]);
    assert!(s.in_recovery());
    assert_eq!(p.snd.cwnd(), 6 * 512, "cwnd 13 halved, no inflation");
    assert_eq!(p.snd.next_segment(0), Some(4), "fast retransmit of snd_una");
    // pipe: 4 (lost, retransmitted) 1 + 7, 8 (1 SACKed above: not lost) 2 + 10, 11 = 5 < 6.
    // 7 is not lost yet (rule 1 fails), so new data goes (rule 2), then the pipe is full.
    assert_eq!(p.snd.next_segment(0), Some(12));
    assert_eq!(p.snd.next_segment(0), None);
}

#[test]
fn sack_is_lost_starts_recovery_before_three_duplicates() {
    use super::congestion::SackBlock;
    let mut p = Pipe::new(sack(), 12);
    p.pump();
    let b = |start, end| SackBlock { start, end };
    p.snd.on_ack_sack(4, &[], 0);
    p.snd.on_ack_sack(4, &[b(5, 8)], 0); // one duplicate, 3 segments SACKed above 4
    assert_eq!(p.snd.stats.fast_retransmits, 0);
    assert_eq!(
        p.snd.next_segment(0),
        Some(4),
        "RFC 6675 section 5 step 2: IsLost(HighACK + 1)"
    );
    assert_eq!(p.snd.stats.fast_retransmits, 1);
}

#[test]
fn newreno_partial_ack_deflates_and_resends() {
    use super::congestion::AnyCongestion;
    let mut p = Pipe::new(newreno(), 8);
    p.pump(); // 0..8
    p.snd.on_ack_sack(2, &[], 0);
    p.pump(); // cwnd 9: 8, 9, 10
    assert_eq!(p.snd.snd_max, 11);
    for _ in 0..3 {
        p.snd.on_ack_sack(2, &[], 0);
    }
    assert_eq!(p.snd.next_segment(0), Some(2));
    // cwnd 9 at the loss: ssthresh 4, cwnd 4 + 3.
    assert_eq!(p.snd.win.ssthresh, 4 * 512);
    assert_eq!(p.snd.cwnd(), 7 * 512);
    // Partial ACK of 2 and 3 (4 was lost too): deflate by 2, add back 1, resend 4.
    p.snd.on_ack_sack(4, &[], 0);
    assert_eq!(p.snd.cwnd(), 6 * 512);
    assert_eq!(p.snd.next_segment(0), Some(4));
    let AnyCongestion::NewReno(n) = &p.snd.cc else {
        panic!("newreno")
    };
    assert!(n.in_recovery());
    // Full ACK (recover = 11): cwnd = min(ssthresh, max(flight 0, 1 MSS) + 1 MSS).
    p.snd.on_ack_sack(11, &[], 0);
    assert_eq!(p.snd.cwnd(), 2 * 512);
    assert_eq!(p.snd.stats.timeouts, 0);
}

#[test]
fn newreno_does_not_reenter_recovery_for_losses_before_a_timeout() {
    let mut p = Pipe::new(newreno(), 8);
    p.pump(); // 0..8
    for _ in 0..30 {
        p.snd.on_tick();
    }
    assert_eq!(p.snd.stats.timeouts, 1);
    // Duplicate ACKs of segment 0 sent before the timeout: recover = 8 > 0, no fast retransmit.
    for _ in 0..3 {
        p.snd.on_ack_sack(0, &[], 0);
    }
    assert_eq!(p.snd.stats.fast_retransmits, 0);
}

/// `n` greedy sources on the LAN N-source topology (5 us links), a 300-cell tail-drop buffer,
/// new data stopping at 0.4 s, 10 s in all: every loss must be repaired by the end.
fn lossy_ubr(congestion: &str, n: usize) -> String {
    let mut s = format!(
        "seed = 7\n[measurement]\nduration = \"10 s\"\n\
         [defaults]\nswitch_buffer = \"300 cells\"\npolicy = {{ kind = \"tail_drop\" }}\n\
         tcp = {{ congestion = \"{congestion}\" }}\n\
         [[node]]\nname = \"sw1\"\nkind = \"switch\"\n[[node]]\nname = \"sw2\"\nkind = \"switch\"\n\
         [[link]]\nbetween = [\"sw1\", \"sw2\"]\ndelay = \"5 us\"\n"
    );
    for i in 1..=n {
        s += &format!(
            "[[node]]\nname = \"s{i}\"\nkind = \"host\"\n[[node]]\nname = \"d{i}\"\nkind = \"host\"\n\
             [[link]]\nbetween = [\"s{i}\", \"sw1\"]\ndelay = \"5 us\"\n\
             [[link]]\nbetween = [\"sw2\", \"d{i}\"]\ndelay = \"5 us\"\n\
             [[connection]]\nname = \"c{i}\"\nfrom = \"s{i}\"\nto = \"d{i}\"\nstop = \"0.4 s\"\n\
             traffic = {{ kind = \"tcp\" }}\n"
        );
    }
    s
}

#[test]
fn newreno_and_sack_on_lossy_ubr_conserve_cells_and_complete() {
    for cc in ["newreno", "sack"] {
        let sc = crate::scenario::load_toml(&lossy_ubr(cc, 4)).expect("scenario");
        let r = crate::run(&sc).expect("run keeps conservation");
        assert!(r.summary.conservation_ok, "{cc}");
        assert!(
            r.summary.cells_dropped > 0,
            "{cc}: the buffer must overflow"
        );
        let fast: u64 = r.connections.iter().map(|c| c.fast_retransmits).sum();
        assert!(fast > 0, "{cc}: losses repaired by fast retransmit");
        let mut sim = crate::sim::Sim::new(&sc);
        sim.run();
        let sent: u32 = sim
            .net
            .conns
            .iter()
            .map(|c| c.tcp_ref().expect("tcp").snd.snd_max)
            .sum();
        assert!(sent > 1000, "{cc}: {sent} segments");
        for conn in sim.net.conns.iter() {
            let t = conn.tcp_ref().expect("tcp");
            assert!(t.snd.snd_max > 0, "{cc}: data sent");
            assert_eq!(
                t.snd.snd_una, t.snd.snd_max,
                "{cc}: every segment acknowledged"
            );
            assert_eq!(
                t.rcv.rcv_nxt, t.snd.snd_max,
                "{cc}: every segment delivered"
            );
            if let Some(ring) = &t.rcv.sack {
                assert_eq!(ring.overwritten, 0, "{cc}: no ACK record overwritten");
            }
        }
    }
}

#[test]
fn congestion_parameters_of_other_algorithms_are_refused_naming_the_key() {
    let cases = [
        (
            "congestion = \"tahoe\", dupthresh = 2",
            "tcp.dupthresh",
            "tahoe",
        ),
        (
            "congestion = \"newreno\", sack_blocks = 3",
            "tcp.sack_blocks",
            "newreno",
        ),
        (
            "congestion = \"sack\", sack_blocks = 5",
            "tcp.sack_blocks",
            "1 to 4",
        ),
        (
            "congestion = \"sack\", keep_out_of_order = false",
            "tcp.keep_out_of_order",
            "sack",
        ),
        (
            "congestion = \"reno\", dupthresh = 0",
            "tcp.dupthresh",
            "at least 1",
        ),
    ];
    for (tcp, key, word) in cases {
        let text = lossy_ubr("tahoe", 1).replace(
            "tcp = { congestion = \"tahoe\" }",
            &format!("tcp = {{ {tcp} }}"),
        );
        let e = crate::scenario::load_toml(&text)
            .expect_err(tcp)
            .to_string();
        assert!(e.contains(key) && e.contains(word), "{tcp}: {e}");
    }
    let ok = lossy_ubr("tahoe", 1).replace(
        "congestion = \"tahoe\"",
        "congestion = \"sack\", sack_blocks = 4, dupthresh = 2",
    );
    let sc = crate::scenario::load_toml(&ok).expect("sack with its parameters");
    let cfg = &sc.connections[0].tcp().congestion;
    assert_eq!(cfg.name(), "sack");
    assert_eq!(cfg.sack_blocks(), 4);
}
