//! TCP over ABR end to end: segments go through AAL5 into the connection's ABR source
//! queue and leave paced at ACR with forward RM cells; ACKs do the same on the reverse
//! direction. Conservation, rate bounds and determinism under ERICA and modified ERICA; a
//! bounded source queue (back-pressure on TCP); the periodic application of seed 002; use
//! it or lose it (source rule 5) after TCP goes idle; the modified ERICA preset.

use crate::support::{self, conn, fingerprint, run};
use atmsim::allocator::AllocatorCfg;
use atmsim::RunResult;

/// The N-source topology: s_i -> sw1 -> sw2 -> d_i, host links 1 km, the shared link
/// sw1 -> sw2 10 km, all at 155.52 Mbps. `conns[i]` is the body of connection `c{i+1}`
/// (service, traffic, abr, ...); `defaults` goes under `[defaults]`.
fn n_source(defaults: &str, conns: &[&str], duration: &str) -> String {
    n_source_mid(defaults, conns, duration, "10 km")
}

/// [`n_source`] with a shared link of length `mid`.
fn n_source_mid(defaults: &str, conns: &[&str], duration: &str, mid: &str) -> String {
    let mut s = format!(
        "name = \"tcp over abr\"\nseed = 11\n[measurement]\nduration = \"{duration}\"\nsample_interval = \"1 ms\"\n\
         [defaults]\n{defaults}\n\
         [[node]]\nname = \"sw1\"\nkind = \"switch\"\n[[node]]\nname = \"sw2\"\nkind = \"switch\"\n\
         [[link]]\nbetween = [\"sw1\", \"sw2\"]\nlength = \"{mid}\"\n"
    );
    for (i, c) in conns.iter().enumerate() {
        let i = i + 1;
        s += &format!(
            "[[node]]\nname = \"s{i}\"\nkind = \"host\"\n[[node]]\nname = \"d{i}\"\nkind = \"host\"\n\
             [[link]]\nbetween = [\"s{i}\", \"sw1\"]\nlength = \"1 km\"\n\
             [[link]]\nbetween = [\"sw2\", \"d{i}\"]\nlength = \"1 km\"\n\
             [[connection]]\nname = \"c{i}\"\nfrom = \"s{i}\"\nto = \"d{i}\"\n{c}\n"
        );
    }
    s
}

/// A bulk TCP transfer over ABR.
const TCP_ABR: &str = "service = \"abr\"\ntraffic = { kind = \"tcp\" }";

/// Cells of a 512-byte segment with LLC/SNAP: 512 + 40 + 8 + 8 = 568 B -> 12 cells.
const SEG_CELLS: u64 = 12;
const MSS: u64 = 512;
const LINK_BPS: f64 = 155.52e6;

/// A TCP-over-ABR connection with a periodic application.
fn periodic(segments: u32, burst: &str, burst_at: Option<&str>, extra: &str) -> String {
    let at = burst_at.map_or(String::new(), |a| format!(", burst_at = \"{a}\""));
    format!(
        "service = \"abr\"\n{extra}\ntraffic = {{ kind = \"tcp\", application = {{ kind = \"periodic\", \
         segment_interval = \"1 ms\", segments = {segments}, burst = \"{burst}\"{at} }} }}"
    )
}

/// True if `x` (bit/s) is within [lo, hi], allowing for ER travelling as f32.
fn within(x: f64, lo: f64, hi: f64) -> bool {
    x >= lo * (1.0 - 1e-6) - 1e-6 && x <= hi * (1.0 + 1e-6)
}

/// Conservation, port identities, and the TCP-over-ABR figures of every connection:
/// rates within [MCR, PCR] (bit/s), RM cells both ways, data delivered, the source-queue
/// bookkeeping. With `lossless` (unlimited buffers) nothing may be dropped or resent.
fn check_tcp_abr(r: &RunResult, what: &str, mcr: f64, pcr: f64, lossless: bool) {
    support::check_conservation(r, what);
    let s = &r.summary;
    if lossless {
        assert_eq!(s.cells_dropped, 0, "{what}: unlimited buffers drop nothing");
    }
    for c in &r.connections {
        let n = &c.name;
        assert_eq!(c.traffic, "tcp", "{what} {n}");
        assert_eq!(c.service, "abr", "{what} {n}");
        let acr = c.acr_final_bps.expect("TCP over ABR reports ACR");
        assert!(
            within(acr, mcr, pcr),
            "{what} {n}: final ACR {acr} outside [{mcr}, {pcr}]"
        );
        let mean = c.acr_mean_bps.expect("mean ACR");
        assert!(
            within(mean, mcr, pcr),
            "{what} {n}: mean ACR {mean} outside [{mcr}, {pcr}]"
        );
        let rev = c
            .reverse_acr_final_bps
            .expect("the ACK direction of TCP over ABR has an ABR source too");
        assert!(
            within(rev, mcr, pcr),
            "{what} {n}: reverse ACR {rev} outside [{mcr}, {pcr}]"
        );
        let rm = c.rm_cells_sent.expect("rm_cells_sent");
        let brm = c.brm_received.expect("brm_received");
        assert!(rm > 0, "{what} {n}: no forward RM cell sent");
        assert!(brm > 0, "{what} {n}: no backward RM cell came back");
        assert!(
            brm <= rm,
            "{what} {n}: {brm} BRMs received for {rm} FRMs sent (each BRM is a turned-around FRM)"
        );
        assert!(
            c.rule5_resets.is_some() && c.rule6_cuts.is_some(),
            "{what} {n}"
        );
        assert!(c.goodput_bps > 0.0, "{what} {n}: no goodput");
        assert!(c.goodput_bytes > 0, "{what} {n}: no goodput bytes");
        assert_eq!(
            c.goodput_bytes % MSS,
            0,
            "{what} {n}: goodput counts whole segments"
        );
        assert!(
            c.frames_delivered <= c.frames_sent && c.frames_sent <= c.segments_sent,
            "{what} {n}: delivered {} <= frames sent {} <= segments sent {}",
            c.frames_delivered,
            c.frames_sent,
            c.segments_sent
        );
        // Segments handed to AAL5 but not yet sent as a whole frame are in the source queue
        // (the head frame may be partly sent).
        let queued = c.source_queue_cells.expect("source_queue_cells");
        let max_q = c.source_queue_max_cells.expect("source_queue_max_cells");
        let unsent_frames = c.segments_sent - c.frames_sent;
        assert!(
            queued + SEG_CELLS > unsent_frames * SEG_CELLS,
            "{what} {n}: {unsent_frames} segments not yet framed but only {queued} cells queued"
        );
        assert!(
            max_q + SEG_CELLS > unsent_frames * SEG_CELLS,
            "{what} {n}: max source queue {max_q} below what is queued at the end"
        );
        // Data cells alone (frames x 12) plus the FRMs are part of cells_sent.
        assert!(
            c.cells_sent >= c.frames_sent * SEG_CELLS + rm,
            "{what} {n}: cells_sent {} < frames {} x 12 + FRMs {rm}",
            c.cells_sent,
            c.frames_sent
        );
        if lossless {
            assert_eq!(c.cells_dropped + c.ack_cells_dropped, 0, "{what} {n}");
            assert_eq!(c.retransmissions, 0, "{what} {n}: retransmissions");
            assert_eq!(c.timeouts, 0, "{what} {n}: timeouts");
            assert_eq!(c.frames_lost, 0, "{what} {n}");
            assert_eq!(c.frames_corrupted, 0, "{what} {n}");
        }
        // Both ABR sources of the connection are in the time series.
        let ts = &r.timeseries;
        assert!(
            ts.abr_names.iter().any(|a| a == n),
            "{what} {n}: not in abr_names {:?}",
            ts.abr_names
        );
        assert!(
            ts.abr_names.iter().any(|a| *a == format!("{n} (reverse)")),
            "{what} {n}: ACK direction not in abr_names {:?}",
            ts.abr_names
        );
    }
}

#[test]
fn erica_three_tcp_sources_conserve_and_stay_within_mcr_pcr() {
    let d = "allocator = { kind = \"erica\", target_utilization = 0.9 }\n\
             abr = { mcr = \"2 Mbps\", icr = \"10 Mbps\", pcr = \"100 Mbps\" }";
    let r = run(&n_source(d, &[TCP_ABR, TCP_ABR, TCP_ABR], "100 ms"));
    check_tcp_abr(&r, "erica, 3 TCP", 2e6, 100e6, true);
    // Three greedy TCPs share 0.9 x 155.52 Mbps: ERICA brings each ACR near a third of it.
    let want = 0.9 * LINK_BPS / 3.0;
    for c in &r.connections {
        let acr = c.acr_final_bps.unwrap();
        assert!(
            (acr / want - 1.0).abs() < 0.1,
            "{}: ACR {acr}, expected about {want}",
            c.name
        );
        // TCP's window (64 KB) keeps its ABR source backlogged: no idle, no rule 5 or 6.
        assert_eq!(c.rule5_resets, Some(0), "{}", c.name);
        assert_eq!(c.rule6_cuts, Some(0), "{}: CRM is huge by default", c.name);
        // The data rate cannot exceed the ACR the source was allowed on average.
        assert!(
            c.throughput_bps <= c.acr_mean_bps.unwrap() * 1.001,
            "{}: throughput {} above mean ACR {}",
            c.name,
            c.throughput_bps,
            c.acr_mean_bps.unwrap()
        );
    }
    assert!(r.summary.fairness > 0.99, "fairness {}", r.summary.fairness);
    // The shared link carries what ERICA targets, not more.
    let bott = r.ports.iter().find(|p| p.name == "sw1->sw2").unwrap();
    assert!(
        bott.utilization > 0.8 && bott.utilization < 0.95,
        "sw1->sw2 utilization {}",
        bott.utilization
    );
}

#[test]
fn modified_erica_two_tcp_sources_conserve() {
    let d = "allocator = { kind = \"modified_erica\", target_utilization = 0.9 }\n\
             abr = { mcr = \"1 Mbps\", icr = \"5 Mbps\" }";
    let r = run(&n_source(d, &[TCP_ABR, TCP_ABR], "100 ms"));
    check_tcp_abr(&r, "modified erica, 2 TCP", 1e6, LINK_BPS, true);
    let want = 0.9 * LINK_BPS / 2.0;
    for c in &r.connections {
        let acr = c.acr_final_bps.unwrap();
        assert!(
            (acr / want - 1.0).abs() < 0.1,
            "{}: ACR {acr}, expected about {want}",
            c.name
        );
    }
    // Three sources, one starting late, also conserve.
    let late = format!("{TCP_ABR}\nstart = \"30 ms\"");
    let r = run(&n_source(d, &[TCP_ABR, TCP_ABR, &late], "120 ms"));
    check_tcp_abr(&r, "modified erica, late start", 1e6, LINK_BPS, true);
}

#[test]
fn tcp_over_abr_runs_are_bit_identical() {
    // Random tick phases (from the seed), a bounded source queue, a periodic application
    // and ERICA: two runs of the same text give the same results, field for field.
    let d =
        "allocator = { kind = \"erica\", target_utilization = 0.9 }\nabr = { icr = \"5 Mbps\" }";
    let bounded = format!("{TCP_ABR}\nabr = {{ source_queue = \"36 cells\" }}");
    let per = periodic(40, "20480 B", Some("60 ms"), "");
    let text = n_source(d, &[TCP_ABR, &bounded, &per], "150 ms");
    let a = run(&text);
    check_tcp_abr(&a, "determinism", 0.0, LINK_BPS, true);
    let b = run(&text);
    assert_eq!(
        fingerprint(&a),
        fingerprint(&b),
        "TCP over ABR: two runs of one scenario differ"
    );
    assert_eq!(a.summary.events, b.summary.events);
    // The JSON form of the same scenario gives the same results too.
    let file: atmsim::ScenarioFile = toml::from_str(&text).expect("scenario parses");
    let json = serde_json::to_string(&file).unwrap();
    let c = atmsim::run_json(&json).unwrap_or_else(|e| panic!("{e}\n{json}"));
    assert_eq!(
        fingerprint(&a),
        fingerprint(&c),
        "TOML and JSON runs of one scenario differ"
    );
}

#[test]
fn bounded_source_queue_holds_tcp_back() {
    // ICR 1 Mbps: at first TCP's window piles up at the source. With a 24-cell queue
    // (two segments) TCP waits instead; the source still never starves.
    let play = |sq: &str| {
        let d = format!(
            "allocator = {{ kind = \"erica\", target_utilization = 0.9 }}\nabr = {{ icr = \"1 Mbps\"{sq} }}"
        );
        let r = run(&n_source(&d, &[TCP_ABR], "100 ms"));
        check_tcp_abr(&r, &format!("source queue{sq}"), 0.0, LINK_BPS, true);
        r
    };
    let bounded = play(", source_queue = \"24 cells\"");
    let unlimited = play("");
    let b = conn(&bounded, "c1");
    let u = conn(&unlimited, "c1");
    let bq = b.source_queue_max_cells.unwrap();
    let uq = u.source_queue_max_cells.unwrap();
    assert!(bq > 0, "the bounded source queue was never used");
    assert!(bq <= 24, "source queue reached {bq} cells, limit 24");
    assert!(
        uq > 24,
        "unlimited source queue only reached {uq} cells: TCP's window should pile up at the source"
    );
    assert!(
        uq > 10 * bq,
        "unlimited {uq} vs bounded {bq}: the window (128 segments) should pile up"
    );
    // Back-pressure: TCP handed down far fewer segments beyond what went out.
    assert!(
        b.segments_sent - b.frames_sent <= 2,
        "{} segments sent but only {} framed with a 2-segment queue",
        b.segments_sent,
        b.frames_sent
    );
    assert!(u.segments_sent - u.frames_sent > 2);
    // TCP still delivers, and as much: the source stays backlogged, paced at ACR.
    assert!(b.goodput_bytes > 0, "no goodput with a bounded queue");
    assert!(
        b.goodput_bytes as f64 >= 0.99 * u.goodput_bytes as f64,
        "bounded queue goodput {} vs unlimited {}",
        b.goodput_bytes,
        u.goodput_bytes
    );
    assert_eq!(b.retransmissions, 0);
    assert_eq!(
        b.rule5_resets,
        Some(0),
        "a blocked TCP must not idle the source"
    );
}

#[test]
fn bounded_source_queue_refills_as_cells_leave() {
    // A 10-segment burst into a 2-segment source queue on a 1000 km path (RTT about
    // 10 ms). By the burst at 60 ms the 20 single segments have opened cwnd to 21
    // segments, so only the source queue holds TCP back: TCP must hand the next segment
    // as soon as the source has sent enough cells to make room, not wait for an ACK. The
    // burst then arrives one one-way delay (5 ms) later, as with an unlimited queue.
    let d = "allocator = { kind = \"erica\", target_utilization = 0.9 }";
    let play = |extra: &str| {
        let c = periodic(20, "5120 B", Some("60 ms"), extra);
        let r = run(&n_source_mid(d, &[&c], "100 ms", "1000 km"));
        check_tcp_abr(&r, &format!("WAN burst {extra}"), 0.0, LINK_BPS, true);
        r
    };
    let bounded = play("abr = { source_queue = \"24 cells\" }");
    let unlimited = play("");
    for (r, what) in [(&bounded, "bounded"), (&unlimited, "unlimited")] {
        let c = conn(r, "c1");
        assert_eq!(c.segments_sent, 30, "{what}");
        assert_eq!(c.goodput_bytes, 30 * MSS, "{what}");
        let ts = &r.timeseries;
        let k = ts.connection_names.iter().position(|n| n == "c1").unwrap();
        let i = ts
            .time_s
            .iter()
            .position(|t| (t - 0.069).abs() < 1e-9)
            .unwrap();
        let by69 = ts.delivered_bytes[k][i] / MSS;
        assert_eq!(
            by69, 30,
            "{what}: only {by69} of 30 segments delivered 9 ms after the burst (one-way delay about 5 ms)"
        );
        assert!(
            c.final_cwnd_bytes.unwrap() >= 21 * MSS,
            "{what}: cwnd {:?} should have opened to 21 segments",
            c.final_cwnd_bytes
        );
    }
    assert!(conn(&bounded, "c1").source_queue_max_cells.unwrap() <= 24);
    assert!(conn(&unlimited, "c1").source_queue_max_cells.unwrap() >= 10 * SEG_CELLS);
}

#[test]
fn bounded_source_queue_survives_switch_losses() {
    // No allocator (ACR climbs to PCR = the link rate), three TCPs into a 100-cell switch
    // buffer: cells are lost, TCP times out and retransmits through a 36-cell source
    // queue. Conservation holds, the queue bound holds, everyone still delivers.
    let d = "switch_buffer = \"100 cells\"\nabr = { source_queue = \"36 cells\" }";
    let text = n_source(d, &[TCP_ABR, TCP_ABR, TCP_ABR], "1 s");
    let r = run(&text);
    check_tcp_abr(&r, "losses, bounded queue", 0.0, LINK_BPS, false);
    assert!(
        r.summary.cells_dropped > 0,
        "the 100-cell buffer should overflow"
    );
    let rexmt: u64 = r.connections.iter().map(|c| c.retransmissions).sum();
    assert!(rexmt > 0, "losses must cause retransmissions");
    for c in &r.connections {
        let q = c.source_queue_max_cells.unwrap();
        assert!(
            q <= 36,
            "{}: source queue {q} above its 36-cell limit",
            c.name
        );
    }
    assert_eq!(
        fingerprint(&r),
        fingerprint(&run(&text)),
        "losses, bounded queue: not deterministic"
    );
}

#[test]
fn periodic_application_sends_exactly_what_it_writes() {
    // 20 single-segment writes 1 ms apart, then a 5120 B burst (10 segments) at the
    // default time, start + 20 x 1 ms: exactly 30 segments, none resent, then silence.
    let d = "allocator = { kind = \"erica\", target_utilization = 0.9 }";
    let c = periodic(20, "5120 B", None, "");
    let play = |dur: &str| {
        let r = run(&n_source(d, &[&c], dur));
        check_tcp_abr(&r, &format!("periodic, {dur}"), 0.0, LINK_BPS, true);
        r
    };
    let short = play("100 ms");
    let long = play("300 ms");
    for r in [&short, &long] {
        let c = conn(r, "c1");
        assert_eq!(c.segments_sent, 30, "segments sent");
        assert_eq!(c.retransmissions, 0);
        assert_eq!(c.frames_sent, 30, "frames sent");
        assert_eq!(c.frames_delivered, 30, "frames delivered");
        assert_eq!(c.goodput_bytes, 30 * MSS, "goodput bytes");
        assert_eq!(c.source_queue_cells, Some(0), "source queues empty");
        assert_eq!(r.summary.cells_in_flight, 0, "nothing left in the network");
        // The burst lands in the source queue at once: 10 segments = 120 cells.
        let q = c.source_queue_max_cells.unwrap();
        assert!(
            (10 * SEG_CELLS..=30 * SEG_CELLS).contains(&q),
            "source queue max {q}"
        );
        // Data cells, FRMs every Nrm = 32 in-rate cells (the first cell is one), and the
        // turned-around RMs of the few ACK-direction FRMs.
        let data = 30 * SEG_CELLS;
        let rm = c.rm_cells_sent.unwrap();
        assert_eq!(
            rm,
            data.div_ceil(31),
            "one FRM then 31 data cells, over {data} data cells"
        );
        assert_eq!(c.brm_received, Some(rm), "every FRM comes back");
        // The 30 ACKs (2 cells each, no delayed ACKs) leave through the reverse ABR
        // source: its FRMs (one per 31 ACK cells, the first cell too) are turned around
        // at the data source and travel back on the data direction.
        let extra = c.cells_sent - data - rm;
        assert_eq!(
            extra,
            (30u64 * 2).div_ceil(31),
            "cells on the data direction beyond data and FRMs: the ACK direction's BRMs"
        );
    }
    // Once all is delivered nothing more goes: no data, no FRM from an idle source.
    let (s, l) = (conn(&short, "c1"), conn(&long, "c1"));
    assert_eq!(
        s.cells_sent, l.cells_sent,
        "cells sent after the data ended"
    );
    assert_eq!(s.rm_cells_sent, l.rm_cells_sent, "FRMs sent while idle");
    assert_eq!(short.summary.cells_sent, long.summary.cells_sent);

    // The same application over UBR sends the same 30 segments, 12 cells each, no RM cells.
    let ubr = "traffic = { kind = \"tcp\", application = { kind = \"periodic\", segment_interval = \"1 ms\", segments = 20, burst = \"5120 B\" } }";
    let r = run(&n_source(d, &[ubr], "100 ms"));
    let c = conn(&r, "c1");
    assert_eq!(c.segments_sent, 30);
    assert_eq!(c.cells_sent, 30 * SEG_CELLS);
    assert_eq!(c.goodput_bytes, 30 * MSS);
    assert!(c.rm_cells_sent.is_none() && c.acr_final_bps.is_none());
}

#[test]
fn periodic_application_writes_one_segment_per_interval_then_the_burst() {
    // Starts at 10 ms; writes at 10, 11, ..., 29 ms; burst (10 segments) at 30 ms.
    let d = "allocator = { kind = \"erica\", target_utilization = 0.9 }";
    let c = periodic(20, "5120 B", None, "start = \"10 ms\"");
    let r = run(&n_source(d, &[&c], "100 ms"));
    check_tcp_abr(&r, "periodic from 10 ms", 0.0, LINK_BPS, true);
    assert_eq!(conn(&r, "c1").segments_sent, 30);
    let ts = &r.timeseries;
    let k = ts.connection_names.iter().position(|n| n == "c1").unwrap();
    let at = |t: f64| {
        let i = ts
            .time_s
            .iter()
            .position(|x| (x - t).abs() < 1e-9)
            .unwrap_or_else(|| panic!("no sample at {t}"));
        ts.delivered_bytes[k][i] / MSS
    };
    assert_eq!(at(0.009), 0, "segments delivered before the start");
    let mid = at(0.015);
    assert!(
        (4..=6).contains(&mid),
        "{mid} segments by 15 ms: one per ms from 10 ms expected"
    );
    let before_burst = at(0.029);
    assert!(
        (18..=20).contains(&before_burst),
        "{before_burst} segments by 29 ms, before the burst"
    );
    assert_eq!(at(0.050), 30, "all 30 segments by 50 ms");
}

/// One periodic TCP over ABR: 5 segments 1 ms apart, then a 10-segment burst at
/// `burst_at`; ADTF 10 ms; ICR `icr`, ERICA raising ACR above it.
fn idle_then_burst(burst_at: &str, icr: &str) -> RunResult {
    let d = format!(
        "allocator = {{ kind = \"erica\", target_utilization = 0.9 }}\n\
         abr = {{ icr = \"{icr}\", adtf = \"10 ms\" }}"
    );
    let c = periodic(5, "5120 B", Some(burst_at), "");
    let r = run(&n_source(&d, &[&c], "100 ms"));
    check_tcp_abr(
        &r,
        &format!("idle until {burst_at}, icr {icr}"),
        0.0,
        LINK_BPS,
        true,
    );
    assert_eq!(conn(&r, "c1").segments_sent, 15, "burst at {burst_at}");
    r
}

#[test]
fn use_it_or_lose_it_after_tcp_idles_longer_than_adtf() {
    // Rule 5 acts only before an in-rate FRM: when the burst arrives after 45 ms of
    // silence (> ADTF = 10 ms) the first FRM of the burst finds ACR > ICR and resets it.
    let long = idle_then_burst("50 ms", "1 Mbps");
    let c = conn(&long, "c1");
    assert!(
        c.rule5_resets.unwrap() >= 1,
        "no rule 5 reset after a 45 ms pause with ADTF 10 ms: {:?}",
        c.rule5_resets
    );
    // ACR had risen above ICR before the pause, as rule 5 requires.
    let ts = &long.timeseries;
    let k = ts.abr_names.iter().position(|n| n == "c1").unwrap();
    let i = ts
        .time_s
        .iter()
        .position(|t| (t - 0.045).abs() < 1e-9)
        .unwrap();
    assert!(
        ts.acr_mbps[k][i] > 1.0,
        "ACR {} Mbps at 45 ms is not above ICR 1 Mbps",
        ts.acr_mbps[k][i]
    );
    // A pause shorter than ADTF: FRMs stay less than 10 ms apart, no reset.
    let short = idle_then_burst("8 ms", "1 Mbps");
    assert_eq!(
        conn(&short, "c1").rule5_resets,
        Some(0),
        "rule 5 fired with a 3 ms pause and ADTF 10 ms"
    );
    // ICR = PCR (the default): ACR never exceeds ICR, so even the long pause keeps ACR.
    let at_pcr = idle_then_burst("50 ms", "155.52 Mbps");
    assert_eq!(
        conn(&at_pcr, "c1").rule5_resets,
        Some(0),
        "rule 5 fired although ACR <= ICR = PCR"
    );
}

/// The allocator of every switch port of a resolved scenario (all the same here).
fn switch_allocators(text: &str) -> Vec<AllocatorCfg> {
    let sc = atmsim::scenario::load_toml(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    sc.ports
        .iter()
        .filter(|p| sc.nodes.name(p.node()).starts_with("sw"))
        .map(|p| (*p.settings.allocator).clone())
        .collect()
}

#[test]
fn modified_erica_resolves_with_its_defaults() {
    let mk = |alloc: &str| {
        n_source(
            &format!("allocator = {alloc}"),
            &[TCP_ABR, TCP_ABR],
            "50 ms",
        )
    };
    // The preset: ERICA with fair share first, one ER per interval, bidirectional
    // counting, immediate fair share and the max-min step on.
    let preset = mk("{ kind = \"modified_erica\" }");
    let allocs = switch_allocators(&preset);
    assert!(!allocs.is_empty());
    for a in &allocs {
        let (AllocatorCfg::Erica(e) | AllocatorCfg::ModifiedErica(e)) = a else {
            panic!("modified_erica should resolve to ERICA: {a:?}")
        };
        assert!(e.fair_share_first, "fair_share_first");
        assert!(e.one_er_per_interval, "one_er_per_interval");
        assert!(e.bidirectional_counting, "bidirectional_counting");
        assert!(e.immediate_fair_share, "immediate_fair_share");
        assert_eq!(e.max_min_delta, Some(0.1), "max-min enhancement, delta 0.1");
        assert!(e.plus.is_none(), "modified ERICA is not ERICA+");
        assert_eq!(e.target_utilization, 0.9);
    }
    // It is exactly ERICA with those options written out.
    let spelled = mk(
        "{ kind = \"erica\", fair_share_first = true, one_er_per_interval = true, \
         bidirectional_counting = true, immediate_fair_share = true, max_min = true }",
    );
    let inner = |v: Vec<AllocatorCfg>| -> Vec<atmsim::allocator::EricaCfg> {
        v.into_iter()
            .map(|a| match a {
                AllocatorCfg::Erica(e) | AllocatorCfg::ModifiedErica(e) => (*e).clone(),
                other => panic!("ERICA expected: {other:?}"),
            })
            .collect()
    };
    assert_eq!(inner(allocs.clone()), inner(switch_allocators(&spelled)));
    let r = run(&preset);
    check_tcp_abr(&r, "modified erica preset", 0.0, LINK_BPS, true);
    assert_eq!(
        fingerprint(&r),
        fingerprint(&run(&spelled)),
        "modified_erica and the spelled-out ERICA options give different runs"
    );

    // Its options can still be set: bidirectional counting off, the rest unchanged.
    let off = mk("{ kind = \"modified_erica\", bidirectional_counting = false }");
    for a in switch_allocators(&off) {
        let (AllocatorCfg::Erica(e) | AllocatorCfg::ModifiedErica(e)) = a else {
            panic!("ERICA expected")
        };
        assert!(
            !e.bidirectional_counting,
            "bidirectional_counting = false ignored"
        );
        assert!(e.immediate_fair_share && e.fair_share_first && e.one_er_per_interval);
    }
    let r = run(&off);
    check_tcp_abr(
        &r,
        "modified erica, no bidirectional counting",
        0.0,
        LINK_BPS,
        true,
    );

    // ... and so can target_utilization; ERICA+ keys are refused as for plain ERICA.
    let u = mk("{ kind = \"modified_erica\", target_utilization = 0.8 }");
    for a in switch_allocators(&u) {
        let (AllocatorCfg::Erica(e) | AllocatorCfg::ModifiedErica(e)) = a else {
            panic!("ERICA expected")
        };
        assert_eq!(e.target_utilization, 0.8);
    }
    let bad = mk("{ kind = \"modified_erica\", t0 = \"100 us\" }");
    let e = atmsim::scenario::load_toml(&bad).expect_err("t0 is an ERICA+ key");
    assert!(e.to_string().contains("t0"), "{e}");
}
