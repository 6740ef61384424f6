//! Scripted tests of the TM 4.0 source end system (spec ALGORITHMS.md 1.3, pitfalls 1-3),
//! one or more per rule, on hand-played sequences of transmit opportunities and backward
//! RM cells, without the engine.
//!
//! Most tests use PCR = 1000 cells/s, so one cell interval at PCR is exactly 1 ms.

use super::*;
use crate::abr::AbrParams;
use atmsim_kernel::{PS_PER_MS, PS_PER_US};

const MS: Time = PS_PER_MS;

/// TM 4.0 defaults with PCR = 1000 cells/s (ICR = PCR, MCR = 0, Nrm = 32, Mrm = 2,
/// Trm = 100 ms, RIF = RDF = CDF = 1/16, ADTF = 500 ms, TCR = 10 cells/s).
fn p1000() -> AbrParams {
    AbrParams::tm40(1000.0)
}

/// Plays one transmit opportunity at `now` as the engine does: asks rule 3 which cell
/// goes and reports it sent.
fn step(s: &mut AbrSource, now: Time, data: bool, brm: bool) -> NextCell {
    let c = s.choose(now, data, brm);
    match c {
        NextCell::Frm => {
            s.send_frm(now);
        }
        NextCell::Brm => s.sent_brm(now),
        NextCell::Data => s.sent_data(now),
        NextCell::Idle => {}
    }
    c
}

/// A greedy source (data always waiting; a BRM waiting too if `brm`) at every rule 1
/// opportunity from `start`, for `n` cells. Returns (time, cell) pairs.
fn greedy(s: &mut AbrSource, start: Time, n: usize, brm: bool) -> Vec<(Time, NextCell)> {
    let mut out = Vec::with_capacity(n);
    let mut now = start;
    for _ in 0..n {
        now = s.next_opportunity(now).expect("ACR > 0");
        out.push((now, step(s, now, true, brm)));
    }
    out
}

fn frm_positions(seq: &[(Time, NextCell)]) -> Vec<usize> {
    seq.iter()
        .enumerate()
        .filter(|(_, (_, c))| *c == NextCell::Frm)
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn cell_interval_is_one_over_rate_in_ps() {
    assert_eq!(cell_interval(1000.0), MS);
    assert_eq!(cell_interval(10.0), 100 * MS);
    assert_eq!(cell_interval(1e6), PS_PER_US);
    assert_eq!(cell_interval(f64::INFINITY), 1, "at least 1 ps");
}

// ---------------------------------------------------------------- rule 1

#[test]
fn an_acr_near_zero_puts_the_next_cell_at_the_end_of_time() {
    // MCR 0 lets ACR decrease towards 0: 1/ACR in ps then passes what a time holds, and
    // the next opportunity saturates instead of wrapping into the past (found by fuzzing:
    // the EFCI allocator, a debug build's overflow, a release build's abort).
    let mut s = AbrSource::new(p1000());
    s.send_frm(5 * MS);
    s.set_acr(1e-12);
    assert_eq!(s.next_opportunity(6 * MS), Some(Time::MAX));
    s.set_acr(1e-7); // 1e19 ps: it fits
    assert_eq!(
        s.next_opportunity(6 * MS),
        Some(5 * MS + 10_000_000 * PS_PER_S)
    );
}

/// The pacing interval kept with ACR (issue 14: no division per cell sent) is 1/ACR
/// after every change of ACR: rules 5, 6, 8 and 9, seed 004's increase, and a reopened
/// source; below about 233 cells/s (an interval past 32 bits) it is computed instead.
#[test]
fn the_pacing_interval_kept_with_acr_is_one_over_acr() {
    fn check(s: &AbrSource, what: &str) {
        assert_eq!(
            s.pacing_interval(),
            cell_interval(s.acr()),
            "{what}: ACR {}",
            s.acr()
        );
    }
    let mut p = p1000();
    p.pcr = 353_207.547; // 155.52 Mbit/s: an interval not a whole number of ps
    p.icr = p.pcr;
    let mut s = AbrSource::new(p.clone());
    check(&s, "new");
    s.send_frm(0);
    for k in 1..200u64 {
        // CI, then increases, then an ER below 233 cells/s and back up.
        let er = if k % 50 == 25 {
            100.0
        } else {
            p.pcr / (k % 7 + 1) as f64
        };
        s.on_brm(k % 3 == 0, k % 5 == 0, false, er);
        check(&s, "rule 8/9");
        assert!(
            (s.acr() >= 233.0) == (s.pace != PACE_NOT_KEPT),
            "kept from about 233 cells/s, ACR {}",
            s.acr()
        );
    }
    // Rule 6: Crm forward RM cells without a BN = 0 backward RM cell cut ACR by CDF.
    for k in 0..40 {
        s.send_frm(k * MS);
        check(&s, "rule 6");
    }
    // Rule 5: an idle source's ACR above ICR goes back to ICR.
    let mut q = p1000();
    q.icr = 500.0;
    let mut s = AbrSource::new(q);
    s.send_frm(0);
    s.on_brm(false, false, false, 1000.0);
    assert_eq!(s.acr(), 562.5, "ICR + RIF x PCR");
    s.send_frm(600 * MS);
    assert_eq!(s.acr(), 500.0);
    check(&s, "rule 5");
    // Seed 004's additive increase, and a reopened source.
    let mut s = AbrSource::new(ucsc1000());
    s.send_frm(0);
    s.on_brm(false, false, false, 1000.0);
    check(&s, "UCSC");
    s.reopen();
    check(&s, "reopen");
    s.set_acr(0.0);
    assert_eq!((s.pace, s.next_opportunity(MS)), (PACE_NOT_KEPT, None));
}

#[test]
fn rule1_acr_bounds_and_pacing() {
    // ICR above PCR is held to PCR, ICR below MCR is raised to MCR.
    let mut p = p1000();
    p.icr = 5000.0;
    assert_eq!(AbrSource::new(p.clone()).acr(), 1000.0);
    p.icr = 10.0;
    p.mcr = 50.0;
    assert_eq!(AbrSource::new(p).acr(), 50.0);

    // Pacing at 1/ACR from the last in-rate cell.
    let mut s = AbrSource::new(p1000());
    assert_eq!(s.next_opportunity(7), Some(7), "nothing sent yet: at once");
    s.send_frm(0);
    assert_eq!(s.next_opportunity(0), Some(MS));
    assert_eq!(s.next_opportunity(MS / 2), Some(MS));
    assert_eq!(
        s.next_opportunity(5 * MS),
        Some(5 * MS),
        "slower than ACR is allowed"
    );
    // A greedy source goes exactly at ACR: 200 cells 1 ms apart.
    let seq = greedy(&mut s, MS, 200, false);
    for (k, (t, _)) in seq.iter().enumerate() {
        assert_eq!(*t, (k as Time + 1) * MS);
    }
    let last = seq.last().unwrap().0;
    // A new ACR re-times the pending opportunity from the last cell sent.
    s.on_brm(false, true, false, 500.0); // NI: no increase; ER 500 -> ACR 500
    assert_eq!(s.acr(), 500.0);
    assert_eq!(s.next_opportunity(last), Some(last + 2 * MS));
    s.on_brm(false, false, false, 1e9); // +RIF*PCR = +62.5
    assert_eq!(s.acr(), 562.5);
    assert_eq!(s.next_opportunity(last), Some(last + cell_interval(562.5)));

    // Upper bound: any number of increases stays at PCR.
    for _ in 0..100 {
        s.on_brm(false, false, false, 1e12);
        assert!(s.acr() <= s.p.pcr);
    }
    assert_eq!(s.acr(), 1000.0);

    // Lower bound: any number of decreases stays at MCR.
    let mut p = p1000();
    p.mcr = 100.0;
    let mut s = AbrSource::new(p);
    for _ in 0..200 {
        s.on_brm(true, false, false, 1e12);
        assert!(s.acr() >= 100.0);
    }
    assert_eq!(s.acr(), 100.0);

    // ACR = 0 (MCR = 0, ER = 0): no in-rate opportunity at all.
    let mut s = AbrSource::new(p1000());
    s.on_brm(false, true, false, 0.0);
    assert_eq!(s.acr(), 0.0);
    assert_eq!(s.next_opportunity(0), None);
}

#[test]
fn rule1_never_faster_than_acr_under_changing_feedback() {
    // A greedy source with BRMs of changing ER: every gap between in-rate cells is at
    // least 1/ACR of the rate in force when the later cell was timed.
    let mut p = p1000();
    p.icr = 100.0;
    p.rif = 1.0;
    let mut s = AbrSource::new(p);
    let mut now = 0;
    let mut prev: Option<Time> = None;
    for k in 0..500u32 {
        if k % 7 == 3 {
            let er = [50.0, 900.0, 300.0, 1000.0, 20.0][(k as usize / 7) % 5];
            s.on_brm(k % 2 == 0, false, false, er);
        }
        let t = s.next_opportunity(now).unwrap();
        if let Some(pv) = prev {
            assert!(t - pv >= cell_interval(s.acr()), "cell {k} too early");
        }
        assert!(s.acr() >= s.p.mcr && s.acr() <= s.p.pcr);
        step(&mut s, t, true, false);
        prev = Some(t);
        now = t;
    }
}

// ---------------------------------------------------------------- rule 2

#[test]
fn rule2_first_cell_is_frm_and_acr_is_icr() {
    let mut p = p1000();
    p.icr = 100.0;
    let mut s = AbrSource::new(p);
    assert_eq!(s.acr(), 100.0, "ACR = ICR before the first cell");
    assert!(s.frm_due(0));
    // Even with a BRM waiting, the first in-rate cell is an FRM.
    assert_eq!(s.choose(0, true, true), NextCell::Frm);
    assert_eq!(s.choose(0, false, true), NextCell::Frm);
    assert_eq!(s.choose(0, true, false), NextCell::Frm);
    let ccr = s.send_frm(0);
    assert_eq!(ccr, 100.0, "its CCR is ICR");
    assert_eq!(s.counters.frm_sent, 1);
    assert_eq!(s.choose(10 * MS, true, false), NextCell::Data);
}

// ---------------------------------------------------------------- rule 3

#[test]
fn rule3a_frm_every_nrm_minus_1_in_rate_cells() {
    // Nrm = 32: FRM, 31 data cells, FRM, ... (32 cells take 32 ms < Trm = 100 ms).
    let mut s = AbrSource::new(p1000());
    let seq = greedy(&mut s, 0, 200, false);
    assert_eq!(frm_positions(&seq), vec![0, 32, 64, 96, 128, 160, 192]);
    assert_eq!(s.counters.frm_sent, 7);
    assert_eq!(s.counters.data_sent, 193);

    // Nrm = 2: FRM and data alternate.
    let mut p = p1000();
    p.nrm = 2;
    let mut s = AbrSource::new(p);
    let seq = greedy(&mut s, 0, 10, false);
    for (k, (_, c)) in seq.iter().enumerate() {
        let want = if k % 2 == 0 {
            NextCell::Frm
        } else {
            NextCell::Data
        };
        assert_eq!(*c, want, "cell {k}");
    }

    // In-rate BRMs count toward Nrm - 1 (pitfall 1): Nrm = 8 with a BRM always waiting
    // gives FRM, BRM, 6 data, FRM, ...
    let mut p = p1000();
    p.nrm = 8;
    let mut s = AbrSource::new(p);
    let seq = greedy(&mut s, 0, 24, true);
    let kinds: Vec<NextCell> = seq.iter().map(|x| x.1).collect();
    let mut cycle = vec![NextCell::Frm, NextCell::Brm];
    cycle.extend(std::iter::repeat_n(NextCell::Data, 6));
    assert_eq!(kinds[0..8], cycle[..]);
    assert_eq!(kinds[8..16], cycle[..]);
    assert_eq!(kinds[16..24], cycle[..]);
}

#[test]
fn rule3a_frm_after_mrm_and_trm() {
    // PCR = ICR = 10 cells/s: 100 ms between cells, Trm = 100 ms, Mrm = 2.
    // FRM at 0; data at 100 ms (1 cell since FRM, < Mrm); data at 200 ms (1 < 2 still);
    // at 300 ms 2 cells have gone AND 300 ms >= Trm: FRM. Period 3.
    let mut s = AbrSource::new(AbrParams::tm40(10.0));
    let seq = greedy(&mut s, 0, 12, false);
    assert_eq!(seq[1].0, 100 * MS);
    assert_eq!(frm_positions(&seq), vec![0, 3, 6, 9]);

    // Both conditions are needed.
    let mut s = AbrSource::new(p1000());
    step(&mut s, 0, true, false); // FRM at 0
    step(&mut s, MS, true, false); // data
    assert!(!s.frm_due(500 * MS), "1 cell < Mrm, however long ago");
    step(&mut s, 2 * MS, true, false); // data: 2 cells = Mrm
    assert!(!s.frm_due(99 * MS), "Mrm cells but Trm not elapsed");
    assert!(s.frm_due(100 * MS), "Mrm cells and exactly Trm elapsed");
    assert_eq!(s.choose(100 * MS, true, false), NextCell::Frm);

    // Mrm is a parameter: Mrm = 5.
    let mut p = p1000();
    p.mrm = 5;
    let mut s = AbrSource::new(p);
    step(&mut s, 0, true, false);
    for k in 1..=4 {
        step(&mut s, k * MS, true, false);
    }
    assert!(!s.frm_due(200 * MS), "4 cells < Mrm = 5");
    step(&mut s, 5 * MS, true, false);
    assert!(s.frm_due(200 * MS));
}

#[test]
fn rule3b_brm_before_data_once_per_frm() {
    let mut s = AbrSource::new(p1000());
    assert_eq!(step(&mut s, 0, true, true), NextCell::Frm);
    // First BRM after the FRM goes ahead of waiting data.
    assert_eq!(step(&mut s, MS, true, true), NextCell::Brm);
    // A second one waits behind data until the next FRM...
    assert_eq!(step(&mut s, 2 * MS, true, true), NextCell::Data);
    assert_eq!(step(&mut s, 3 * MS, true, true), NextCell::Data);
    // ...unless no data is waiting.
    assert_eq!(step(&mut s, 4 * MS, false, true), NextCell::Brm);
    assert_eq!(step(&mut s, 5 * MS, false, true), NextCell::Brm);
    assert_eq!(step(&mut s, 6 * MS, true, true), NextCell::Data);
    assert_eq!(s.counters.brm_sent, 3);
    // A new FRM re-opens the slot.
    let mut now = 7 * MS;
    while step(&mut s, now, true, false) != NextCell::Frm {
        now += MS;
    }
    assert_eq!(step(&mut s, now + MS, true, true), NextCell::Brm);
    // No BRM waiting: data.
    assert_eq!(step(&mut s, now + 2 * MS, true, false), NextCell::Data);
}

#[test]
fn rule3c_idle_no_credit() {
    let mut p = p1000();
    p.nrm = 4;
    let mut s = AbrSource::new(p);
    step(&mut s, 0, true, false); // FRM
    step(&mut s, MS, true, false); // data
    step(&mut s, 2 * MS, true, false); // data

    // Nothing waiting: idle, even though an FRM is not due yet...
    assert_eq!(s.choose(3 * MS, false, false), NextCell::Idle);
    step(&mut s, 3 * MS, true, false); // data: count = 3 -> FRM due now
    assert!(s.frm_due(4 * MS));
    // ...or when one is due (no FRM while idle, pitfall 1).
    assert_eq!(s.choose(4 * MS, false, false), NextCell::Idle);
    assert_eq!(step(&mut s, 4 * MS, false, false), NextCell::Idle);
    assert_eq!(s.counters.frm_sent, 1);
    // Idle for 10 ms earns no credit: one cell at once, the next 1/ACR later.
    assert_eq!(s.next_opportunity(14 * MS), Some(14 * MS));
    assert_eq!(step(&mut s, 14 * MS, true, false), NextCell::Frm);
    assert_eq!(s.next_opportunity(14 * MS), Some(15 * MS));
    step(&mut s, 15 * MS, true, false);
    assert_eq!(s.next_opportunity(15 * MS), Some(16 * MS));
    assert_eq!(s.counters.data_sent, 4);
}

// ---------------------------------------------------------------- rule 5

#[test]
fn rule5_adtf_resets_to_icr() {
    // PCR 1000, ICR 100, ADTF 500 ms.
    let mut p = p1000();
    p.icr = 100.0;
    let mut s = AbrSource::new(p.clone());
    assert_eq!(s.send_frm(0), 100.0);
    s.on_brm(false, false, false, 1e9);
    assert_eq!(s.acr(), 162.5, "ICR + RIF * PCR");
    // Exactly ADTF since the last FRM: no reset (T must exceed ADTF).
    assert_eq!(s.send_frm(500 * MS), 162.5);
    assert_eq!(s.counters.rule5_resets, 0);
    // More than ADTF, ACR > ICR: ACR <- ICR, just before the FRM (its CCR is ICR).
    assert_eq!(s.send_frm(1000 * MS + 1), 100.0);
    assert_eq!(s.acr(), 100.0);
    assert_eq!(s.counters.rule5_resets, 1);

    // It fires only just before an FRM: long idle, then data cells, opportunities and
    // choices leave ACR alone; the next FRM resets it.
    let mut s = AbrSource::new(p.clone());
    s.send_frm(0);
    s.on_brm(false, false, false, 1e9);
    assert_eq!(s.next_opportunity(2000 * MS), Some(2000 * MS));
    assert_eq!(s.choose(2000 * MS, true, false), NextCell::Data);
    s.sent_data(2000 * MS);
    assert_eq!(s.acr(), 162.5, "no reset on a data cell");
    assert!(!s.frm_due(2001 * MS));
    assert_eq!(s.acr(), 162.5);
    assert_eq!(s.send_frm(3000 * MS), 100.0, "the next FRM resets it");
    assert_eq!(s.counters.rule5_resets, 1);

    // Only when ACR > ICR: ACR = ICR and ACR < ICR are left alone after any idle time.
    let mut s = AbrSource::new(p.clone());
    s.send_frm(0);
    assert_eq!(s.send_frm(10_000 * MS), 100.0);
    s.on_brm(false, true, false, 50.0);
    assert_eq!(s.acr(), 50.0);
    assert_eq!(
        s.send_frm(20_000 * MS),
        50.0,
        "below ICR: not raised to ICR"
    );
    assert_eq!(s.counters.rule5_resets, 0);

    // Not before the first FRM (there is no "last FRM").
    let mut s = AbrSource::new(p);
    s.on_brm(false, false, false, 1e9);
    assert_eq!(s.send_frm(10_000 * MS), 162.5);
    assert_eq!(s.counters.rule5_resets, 0);
}

#[test]
fn rule5_elapsed_time_is_since_the_last_in_rate_frm() {
    // Data cells in between do not restart the ADTF clock; out-of-rate FRMs do not either.
    let mut p = p1000();
    p.icr = 100.0;
    p.nrm = 256;
    let mut s = AbrSource::new(p);
    s.send_frm(0);
    s.on_brm(false, false, false, 1e9);
    for k in 1..=5 {
        s.sent_data(k * 100 * MS);
    }
    s.send_out_of_rate_frm(550 * MS);
    assert_eq!(s.send_frm(600 * MS), 100.0);
    assert_eq!(s.counters.rule5_resets, 1);
}

// ---------------------------------------------------------------- rule 6

#[test]
fn rule6_crm_cdf_cuts_repeatedly_until_bn0_brm() {
    let mut p = p1000();
    p.crm = 2;
    p.cdf = 0.5;
    let mut s = AbrSource::new(p.clone());
    assert_eq!(s.send_frm(0), 1000.0); // unack 0 -> 1
    assert_eq!(s.send_frm(MS), 1000.0); // 1 -> 2
    assert_eq!(s.send_frm(2 * MS), 500.0, "CRM FRMs unanswered: cut by CDF");
    assert_eq!(s.send_frm(3 * MS), 250.0, "and again at the next FRM");
    assert_eq!(s.unacknowledged(), 4);
    // A BN = 1 BRM (switch-generated) does not stop the cuts.
    s.on_brm(false, true, true, 1e9);
    assert_eq!(s.acr(), 250.0);
    assert_eq!(s.send_frm(4 * MS), 125.0);
    assert_eq!(s.unacknowledged(), 5);
    // A BN = 0 BRM does.
    s.on_brm(false, true, false, 1e9);
    assert_eq!(s.unacknowledged(), 0);
    assert_eq!(s.send_frm(5 * MS), 125.0);
    assert_eq!(s.send_frm(6 * MS), 125.0);
    assert_eq!(s.send_frm(7 * MS), 62.5);
    assert_eq!(s.counters.rule6_cuts, 4);

    // MCR is the floor.
    let mut q = p.clone();
    q.mcr = 300.0;
    let mut s = AbrSource::new(q);
    s.send_frm(0);
    s.send_frm(MS);
    assert_eq!(s.send_frm(2 * MS), 500.0);
    assert_eq!(s.send_frm(3 * MS), 300.0);
    assert_eq!(s.send_frm(4 * MS), 300.0);

    // CDF = 0 disables rule 6.
    let mut q = p;
    q.cdf = 0.0;
    let mut s = AbrSource::new(q);
    for k in 0..50 {
        assert_eq!(s.send_frm(k * MS), 1000.0);
    }
    assert_eq!(s.counters.rule6_cuts, 0);
}

#[test]
fn rule6_counts_only_in_rate_frms() {
    let mut p = p1000();
    p.crm = 1;
    p.cdf = 0.5;
    p.icr = 5.0; // below TCR = 10: out-of-rate FRMs allowed
    let mut s = AbrSource::new(p);
    for k in 0..5 {
        s.send_out_of_rate_frm(k * 100 * MS);
    }
    assert_eq!(s.unacknowledged(), 0);
    assert_eq!(s.send_frm(600 * MS), 5.0, "unack 0 < CRM = 1: no cut");
    assert_eq!(s.send_frm(700 * MS), 2.5, "unack 1 >= CRM: cut");
}

// ---------------------------------------------------------------- rule 7

#[test]
fn rule7_ccr_is_post_rule5_6_acr() {
    let mut p = p1000();
    p.icr = 100.0;
    p.crm = 1;
    p.cdf = 0.5;
    let mut s = AbrSource::new(p);
    assert_eq!(s.send_frm(0), 100.0); // unack 0 -> 1, no cut yet
    s.on_brm(false, false, true, 1e9); // BN = 1: +62.5, unack stays 1
    assert_eq!(s.acr(), 162.5);
    // 600 ms > ADTF with ACR > ICR: rule 5 -> 100; unack 1 >= CRM: rule 6 -> 50.
    let ccr = s.send_frm(600 * MS);
    assert_eq!(ccr, 50.0);
    assert_eq!(s.acr(), ccr);
    assert_eq!(s.counters.rule5_resets, 1);
    assert_eq!(s.counters.rule6_cuts, 1);
    // Cells after this FRM follow the new ACR.
    assert_eq!(s.next_opportunity(600 * MS), Some(620 * MS));
}

// ---------------------------------------------------------------- rules 8 and 9

#[test]
fn rule8_ci_decrease_by_rdf_acr() {
    let mut p = p1000();
    p.icr = 800.0;
    let mut s = AbrSource::new(p.clone());
    s.on_brm(true, false, false, 1e9);
    assert_eq!(s.acr(), 750.0, "800 - 800/16, not 800 - PCR/16 = 737.5");
    s.on_brm(true, true, false, 1e9);
    assert_eq!(s.acr(), 750.0 - 750.0 / 16.0, "CI wins over NI");
    // RDF is a parameter.
    let mut q = p.clone();
    q.rdf = 0.5;
    let mut s = AbrSource::new(q);
    s.on_brm(true, false, true, 1e9);
    assert_eq!(s.acr(), 400.0, "BN = 1 BRMs act too");
    // MCR floor.
    let mut q = p;
    q.mcr = 760.0;
    let mut s = AbrSource::new(q);
    s.on_brm(true, false, false, 1e9);
    assert_eq!(s.acr(), 760.0);
    assert_eq!(s.counters.brm_received, 1);
}

#[test]
fn rule8_increase_by_rif_pcr() {
    let mut p = p1000();
    p.icr = 100.0;
    let mut s = AbrSource::new(p.clone());
    s.on_brm(false, false, false, 1e9);
    assert_eq!(s.acr(), 162.5, "100 + PCR/16, not 100 + 100/16");
    s.on_brm(false, false, false, 1e9);
    assert_eq!(s.acr(), 225.0);
    // Capped at PCR.
    let mut q = p.clone();
    q.icr = 990.0;
    let mut s = AbrSource::new(q);
    s.on_brm(false, false, false, 1e9);
    assert_eq!(s.acr(), 1000.0);
    // RIF = 1 (seed 003): straight to PCR, then ER.
    let mut q = p;
    q.rif = 1.0;
    let mut s = AbrSource::new(q);
    s.on_brm(false, false, false, 640.0);
    assert_eq!(s.acr(), 640.0);
}

#[test]
fn rule8_ni_no_increase() {
    let mut p = p1000();
    p.icr = 100.0;
    let mut s = AbrSource::new(p);
    s.on_brm(false, true, false, 1e9);
    assert_eq!(s.acr(), 100.0);
    // ER still applies after NI.
    s.on_brm(false, true, false, 40.0);
    assert_eq!(s.acr(), 40.0);
    s.on_brm(false, true, false, 1e9);
    assert_eq!(s.acr(), 40.0, "NI: no increase even with a high ER");
}

#[test]
fn rule9_er_clamp_with_mcr_floor() {
    let mut p = p1000();
    p.icr = 500.0;
    p.mcr = 100.0;
    let s0 = AbrSource::new(p);
    // Increase first (562.5), then ER clamps it.
    let mut s = s0.clone();
    s.on_brm(false, false, false, 300.0);
    assert_eq!(s.acr(), 300.0);
    // ER below MCR: MCR.
    let mut s = s0.clone();
    s.on_brm(false, false, false, 50.0);
    assert_eq!(s.acr(), 100.0);
    // ER = 0 with MCR > 0: MCR.
    let mut s = s0.clone();
    s.on_brm(false, true, false, 0.0);
    assert_eq!(s.acr(), 100.0);
    // Decrease first (468.75), then ER.
    let mut s = s0.clone();
    s.on_brm(true, false, false, 200.0);
    assert_eq!(s.acr(), 200.0);
    let mut s = s0.clone();
    s.on_brm(true, false, false, 480.0);
    assert_eq!(s.acr(), 468.75, "ER above the decreased ACR leaves it");
    // ER never raises ACR.
    let mut s = s0.clone();
    s.on_brm(false, true, false, 800.0);
    assert_eq!(s.acr(), 500.0);
    let mut s = s0;
    s.on_brm(false, false, false, 800.0);
    assert_eq!(s.acr(), 562.5);
}

// ---------------------------------------------------------------- rule 11

#[test]
fn rule11_out_of_rate_frm_at_tcr_when_acr_below_tcr() {
    // ACR >= TCR: no out-of-rate cells.
    let s = AbrSource::new(p1000());
    assert_eq!(s.next_out_of_rate(0), None);
    let mut p = p1000();
    p.icr = 10.0; // = TCR
    assert_eq!(AbrSource::new(p).next_out_of_rate(0), None);

    // ACR = 0 (MCR = 0): only out-of-rate FRMs, at most one per 1/TCR = 100 ms.
    let mut p = p1000();
    p.icr = 0.0;
    let mut s = AbrSource::new(p);
    assert_eq!(s.acr(), 0.0);
    assert_eq!(s.next_opportunity(0), None);
    let first = s.next_out_of_rate(0).expect("out of rate allowed");
    assert!(first <= 100 * MS);
    let t1 = 100 * MS;
    assert_eq!(s.next_out_of_rate(t1), Some(t1));
    assert_eq!(s.send_out_of_rate_frm(t1), 0.0, "CCR = ACR");
    assert_eq!(s.next_out_of_rate(t1), Some(t1 + 100 * MS));
    assert_eq!(s.next_out_of_rate(t1 + 50 * MS), Some(t1 + 100 * MS));
    assert_eq!(s.next_out_of_rate(t1 + 300 * MS), Some(t1 + 300 * MS));
    assert_eq!(s.counters.oor_frm_sent, 1);
    assert_eq!(s.counters.frm_sent, 0);
    // Out-of-rate FRMs are not in-rate: rule 2/3 still want the first in-rate FRM, and
    // rule 6 does not count them.
    assert!(s.frm_due(t1 + MS));
    assert_eq!(s.unacknowledged(), 0);
    // Feedback raising ACR above TCR stops them.
    s.on_brm(false, false, false, 1e9);
    assert_eq!(s.acr(), 62.5);
    assert_eq!(s.next_out_of_rate(t1 + 300 * MS), None);

    // 0 < ACR = 5 < TCR: in-rate cells every 200 ms, out-of-rate FRMs 100 ms after the
    // last cell of either kind.
    let mut p = p1000();
    p.icr = 5.0;
    let mut s = AbrSource::new(p);
    s.send_frm(0);
    assert_eq!(s.next_opportunity(0), Some(200 * MS));
    assert_eq!(s.next_out_of_rate(0), Some(100 * MS));
    s.send_out_of_rate_frm(100 * MS);
    assert_eq!(s.next_out_of_rate(100 * MS), Some(200 * MS));
    assert_eq!(
        s.next_opportunity(100 * MS),
        Some(200 * MS),
        "out-of-rate cells do not move in-rate pacing"
    );
    s.sent_data(200 * MS);
    assert_eq!(s.next_out_of_rate(200 * MS), Some(300 * MS));
}

#[test]
fn rule11_first_out_of_rate_frm_is_not_timed_from_time_zero() {
    let mut p = p1000();
    p.icr = 0.0;
    let s = AbrSource::new(p);
    // Nothing has been sent, so nothing limits the first out-of-rate FRM.
    assert_eq!(s.next_out_of_rate(0), Some(0));
    assert_eq!(s.next_out_of_rate(40 * MS), Some(40 * MS));
}

// ---------------------------------------------------------------- UCSC policy (seed 004)

/// Seed 004 section 3 with PCR = 1000 cells/s: ICR = PCR / 50 = 20, Nrm = 32, AIR = 1 cell/s
/// per cell, so each backward RM cell adds Nrm x AIR = 32 cells/s. The TM 4.0 knobs keep
/// their defaults (Trm 100 ms, ADTF 500 ms, CRM, CDF 1/16, TCR 10) and must all be ignored.
fn ucsc1000() -> AbrParams {
    let mut p = p1000();
    p.icr = 20.0;
    p.policy = crate::abr::SourcePolicy::Ucsc { increase: 32.0 };
    p
}

#[test]
fn ucsc_additive_increase_immediate_decrease() {
    // Seed 004 2.1: r(t+) = min(r(t) + Nrm x AIR, ER).
    let mut s = AbrSource::new(ucsc1000());
    assert!(s.is_ucsc());
    assert_eq!(s.acr(), 20.0, "ACR starts at ICR");
    for k in 1..=10 {
        s.on_brm(false, false, false, 1000.0);
        assert_eq!(s.acr(), 20.0 + 32.0 * k as f64, "after {k} BRMs");
    }
    assert_eq!(s.acr(), 340.0);
    // An ER below ACR takes effect at once, in one step.
    s.on_brm(false, false, false, 100.0);
    assert_eq!(s.acr(), 100.0);
    // An ER just above ACR is not overshot.
    s.on_brm(false, false, false, 110.0);
    assert_eq!(s.acr(), 110.0);
    // Never above PCR, whatever ER says.
    for _ in 0..100 {
        s.on_brm(false, false, false, 1e9);
    }
    assert_eq!(s.acr(), 1000.0);
    // Never below MCR.
    let mut p = ucsc1000();
    p.mcr = 50.0;
    let mut s = AbrSource::new(p);
    assert_eq!(s.acr(), 50.0, "ICR below MCR starts at MCR");
    s.on_brm(false, false, false, 10.0);
    assert_eq!(s.acr(), 50.0);
    assert_eq!(s.counters.brm_received, 1);
}

#[test]
fn ucsc_ignores_ci_ni_and_bn() {
    // CI would cut ACR by RDF and NI would stop the increase under TM 4.0 (rule 8); the
    // UCSC source only looks at ER.
    let mut s = AbrSource::new(ucsc1000());
    s.on_brm(true, false, false, 1000.0);
    assert_eq!(s.acr(), 52.0, "CI = 1 still increases");
    s.on_brm(false, true, false, 1000.0);
    assert_eq!(s.acr(), 84.0, "NI = 1 still increases");
    s.on_brm(true, true, true, 1000.0);
    assert_eq!(s.acr(), 116.0);
    // The TM 4.0 control case: CI cuts by RDF x ACR.
    let mut t = AbrSource::new(p1000());
    t.on_brm(true, false, false, 1000.0);
    assert_eq!(t.acr(), 1000.0 - 1000.0 / 16.0);
}

#[test]
fn ucsc_frm_every_nrm_minus_1_data_cells_and_never_by_trm() {
    // PCR 1000: FRM, 31 data, FRM, ... exactly as TM 4.0 at this speed.
    let mut p = ucsc1000();
    p.icr = 1000.0;
    let mut s = AbrSource::new(p);
    let seq = greedy(&mut s, 0, 100, false);
    assert_eq!(frm_positions(&seq), vec![0, 32, 64, 96]);
    // ACR = 5 cells/s: 200 ms between cells, beyond Trm = 100 ms. TM 4.0 then sends an FRM
    // after every Mrm = 2 cells; UCSC keeps one per Nrm cells.
    let mut p = ucsc1000();
    p.icr = 5.0;
    let mut s = AbrSource::new(p);
    let seq = greedy(&mut s, 0, 70, false);
    assert_eq!(seq[1].0, 200 * MS);
    assert_eq!(frm_positions(&seq), vec![0, 32, 64]);
    let mut t = p1000();
    t.icr = 5.0;
    let mut t = AbrSource::new(t);
    let seq = greedy(&mut t, 0, 9, false);
    assert_eq!(frm_positions(&seq), vec![0, 3, 6], "TM 4.0 control case");
    // In-rate BRMs do not occur for a UCSC source (the engine's destinations turn RM cells
    // around themselves), but an idle source sends nothing, not even an FRM.
    assert_eq!(s.choose(100_000 * MS, false, false), NextCell::Idle);
}

#[test]
fn ucsc_has_no_use_it_or_lose_it_and_no_crm_cut() {
    // TM 4.0 rule 5 would reset ACR to ICR after ADTF = 500 ms without an FRM; rule 6
    // would cut by CDF after CRM FRMs without a BRM. UCSC does neither.
    let mut p = ucsc1000();
    p.crm = 2;
    p.cdf = 0.5;
    let mut s = AbrSource::new(p.clone());
    s.send_frm(0);
    for _ in 0..5 {
        s.on_brm(false, false, false, 1000.0);
    }
    assert_eq!(s.acr(), 180.0);
    // 10 s of silence, then FRMs without any BRM coming back.
    for k in 0..10 {
        let ccr = s.send_frm((10_000 + k) * MS);
        assert_eq!(ccr, 180.0, "FRM {k}: CCR is the unchanged ACR");
    }
    assert_eq!(s.acr(), 180.0);
    assert_eq!(s.counters.rule5_resets, 0);
    assert_eq!(s.counters.rule6_cuts, 0);
    assert_eq!(s.counters.frm_sent, 11);
    // The TM 4.0 control case with the same parameters resets and cuts.
    let mut t = p.clone();
    t.policy = crate::abr::SourcePolicy::Tm40;
    let mut t = AbrSource::new(t);
    t.send_frm(0);
    t.on_brm(false, false, false, 1000.0);
    for k in 0..4 {
        t.send_frm((10_000 + k) * MS);
    }
    assert!(t.counters.rule5_resets >= 1 && t.counters.rule6_cuts >= 1);
}

#[test]
fn ucsc_sends_no_out_of_rate_frm() {
    // ACR = 5 < TCR = 10: TM 4.0 rule 11 would send out-of-rate FRMs; UCSC never does.
    let mut p = ucsc1000();
    p.icr = 5.0;
    let mut s = AbrSource::new(p.clone());
    assert_eq!(s.next_out_of_rate(0), None);
    s.send_frm(0);
    assert_eq!(s.next_out_of_rate(0), None);
    assert_eq!(s.next_out_of_rate(10_000 * MS), None);
    p.policy = crate::abr::SourcePolicy::Tm40;
    assert!(AbrSource::new(p).next_out_of_rate(0).is_some());
}

#[test]
fn ucsc_reopen_starts_again_from_icr() {
    // Seed 004 section 6: each opening of a sessions connection starts from ICR, with an
    // FRM first; the counters run on.
    let mut s = AbrSource::new(ucsc1000());
    let seq = greedy(&mut s, 0, 40, false);
    assert_eq!(frm_positions(&seq), vec![0, 32]);
    for _ in 0..3 {
        s.on_brm(false, false, false, 1000.0);
    }
    assert_eq!(s.acr(), 116.0);
    s.reopen();
    assert_eq!(s.acr(), 20.0);
    assert_eq!(s.counters.frm_sent, 2);
    assert_eq!(s.counters.brm_received, 3);
    assert_eq!(
        s.next_opportunity(5000 * MS),
        Some(5000 * MS),
        "no pacing debt"
    );
    assert_eq!(s.choose(5000 * MS, true, false), NextCell::Frm);
    assert_eq!(s.send_frm(5000 * MS), 20.0, "its CCR is ICR");
    assert!(s.is_ucsc(), "the policy survives a reopen");
}
