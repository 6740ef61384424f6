//! The demand test of KVR's `measured_rate` on scripted cell sequences.

use super::*;
use atmsim_kernel::PS_PER_S;

const NRM: u32 = 32;

/// A source on `slot` sending `intervals` forward-RM intervals of `own` cells of its flow
/// (the first an RM cell) at `rate` cells/s from `t` (ps), reporting `ccr`. Returns the
/// time after the last cell and what the meter said at each RM cell.
fn send(
    m: &mut RateMeter,
    slot: usize,
    t: Time,
    rate: f64,
    intervals: u32,
    own: u32,
    ccr: f64,
) -> (Time, Vec<f64>) {
    let gap = (PS_PER_S as f64 / rate).round() as Time;
    let mut now = t;
    let mut out = Vec::new();
    for _ in 0..intervals {
        for i in 0..NRM {
            if i < own {
                let r = m.observe(slot, now, i == 0, ccr);
                if i == 0 {
                    out.push(r.unwrap_or(ccr));
                }
            }
            now += gap; // a cell of the other flow (an in-rate BRM) takes the slot if i >= own
        }
    }
    (now, out)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs()
}

#[test]
fn a_greedy_vc_keeps_its_ccr() {
    let mut m = RateMeter::new(2);
    let (_, got) = send(&mut m, 1, 0, 10_000.0, 20, NRM, 10_000.0);
    assert!(got.iter().all(|&r| r == 10_000.0), "{got:?}");
}

#[test]
fn the_first_rm_cell_has_no_window_and_uses_ccr() {
    let mut m = RateMeter::new(1);
    assert_eq!(m.observe(0, 5, true, 7_000.0), None);
}

#[test]
fn a_demand_limited_vc_is_booked_at_its_measured_rate() {
    // Sends at 4 000 cells/s, reports CCR 10 000: rho = 4 000 from its second RM cell on.
    let mut m = RateMeter::new(3);
    let (_, got) = send(&mut m, 2, 0, 4_000.0, 10, NRM, 10_000.0);
    assert_eq!(got[0], 10_000.0, "no window yet");
    for r in &got[1..] {
        assert!(close(*r, 4_000.0), "{got:?}");
    }
}

#[test]
fn the_rate_is_averaged_over_the_window() {
    // Four intervals at 2 000, then one at 6 000: the window (the last 4 intervals) holds
    // 3 at 2 000 and 1 at 6 000 cells/s: 128 cells in 3 x 16 ms + 5.333 ms.
    let mut m = RateMeter::new(1);
    let (t, _) = send(&mut m, 0, 0, 2_000.0, 5, NRM, 10_000.0);
    let (t, _) = send(&mut m, 0, t, 6_000.0, 1, NRM, 10_000.0);
    // The RM cell closing the last interval.
    let r = m.observe(0, t, true, 10_000.0).unwrap();
    let secs = 3.0 * 32.0 / 2_000.0 + 32.0 / 6_000.0;
    assert!((r - 128.0 / secs).abs() < 1.0, "{r} vs {}", 128.0 / secs);
}

#[test]
fn jitter_within_the_margin_is_not_demand() {
    // Each interval stretched or squeezed by up to 4 % (upstream queues changing): the
    // greedy VC keeps its CCR; a single interval 4 % slow is not enough either.
    let mut m = RateMeter::new(1);
    let mut t = 0;
    for k in 0..40u32 {
        let stretch = if k % 2 == 0 { 1.04 } else { 0.97 };
        let (t2, got) = send(&mut m, 0, t, 10_000.0 / stretch, 1, NRM, 10_000.0);
        assert_eq!(got, vec![10_000.0], "interval {k}");
        t = t2;
    }
}

#[test]
fn a_bidirectional_greedy_source_is_not_demand_limited() {
    // One in-rate backward RM cell (the other flow's, not counted) in each interval: the
    // VC's own cells arrive at 31/32 of its ACR, inside the 5 % margin.
    let mut m = RateMeter::new(1);
    let (_, got) = send(&mut m, 0, 0, 10_000.0, 12, NRM - 1, 10_000.0);
    assert!(got.iter().all(|&r| r == 10_000.0), "{got:?}");
}

#[test]
fn a_rising_acr_is_compared_with_the_smallest_ccr_of_the_window() {
    // 4 intervals at ACR 5 000, then the ACR jumps to 20 000 and the source follows. The
    // RM cells at the new rate report CCR 20 000 while the window still holds the old
    // rate: against CCR the source would look demand-limited, against the window's floor
    // (5 000) it does not.
    let mut m = RateMeter::new(1);
    let (t, _) = send(&mut m, 0, 0, 5_000.0, 4, NRM, 5_000.0);
    let (_, got) = send(&mut m, 0, t, 20_000.0, 6, NRM, 20_000.0);
    assert!(got.iter().all(|&r| r == 20_000.0), "{got:?}");
}

#[test]
fn a_falling_acr_keeps_the_new_ccr() {
    let mut m = RateMeter::new(1);
    let (t, _) = send(&mut m, 0, 0, 20_000.0, 4, NRM, 20_000.0);
    let (_, got) = send(&mut m, 0, t, 5_000.0, 6, NRM, 5_000.0);
    assert!(got.iter().all(|&r| r == 5_000.0), "{got:?}");
}

#[test]
fn a_capped_source_that_turns_greedy_is_released_within_the_window() {
    // Capped at 2 000 under ACR 10 000, then sends at its ACR: booked below its CCR for at
    // most WINDOW_RM_INTERVALS of its RM cells, then CCR again.
    let mut m = RateMeter::new(1);
    let (t, got) = send(&mut m, 0, 0, 2_000.0, 6, NRM, 10_000.0);
    assert!(got[1..].iter().all(|&r| close(r, 2_000.0)), "{got:?}");
    let (_, got) = send(&mut m, 0, t, 10_000.0, 8, NRM, 10_000.0);
    let limited = got.iter().take_while(|&&r| r < 10_000.0).count();
    assert!(
        (1..=WINDOW_RM_INTERVALS).contains(&limited),
        "{limited} RM cells below CCR: {got:?}"
    );
    assert!(got[limited..].iter().all(|&r| r == 10_000.0), "{got:?}");
}

#[test]
fn vcs_are_metered_apart_and_reset_forgets() {
    let mut m = RateMeter::new(2);
    let (t, _) = send(&mut m, 0, 0, 1_000.0, 3, NRM, 10_000.0);
    let (_, got) = send(&mut m, 1, 0, 10_000.0, 3, NRM, 10_000.0);
    assert!(got.iter().all(|&r| r == 10_000.0), "slot 1 greedy: {got:?}");
    assert!(close(m.observe(0, t, true, 10_000.0).unwrap(), 1_000.0));
    m.reset(0);
    assert_eq!(
        m.observe(0, t + PS_PER_S, true, 10_000.0),
        None,
        "no window after reset"
    );
}

#[test]
fn only_forward_abr_cells_count() {
    let abr = |flags: u16| {
        let mut c = Cell::data(0, 0, false);
        c.flags = flags;
        c
    };
    let (ubr, abr_class) = (ServiceClass::Ubr.flag_bits(), ServiceClass::Abr.flag_bits());
    assert!(RateMeter::counts(&abr(abr_class)), "ABR data");
    assert!(RateMeter::counts(&abr(abr_class | flag::RM)), "forward RM");
    assert!(
        !RateMeter::counts(&abr(abr_class | flag::RM | flag::DIR)),
        "backward RM"
    );
    assert!(!RateMeter::counts(&abr(ubr)), "UBR");
}

/// Closed loop on one port with no feedback delay: VC `i` sends Nrm-cell groups (the first
/// an RM cell with ER = PCR and CCR = its ACR) at min(ACR, `cap[i]`), and its ACR becomes
/// the ER the port writes. `hold` = (VCs, from, to, fraction): from `from` to `to` (s) the
/// cells of those VCs are held upstream and arrive at `fraction` x their ACR. Returns the
/// ACRs at every RM cell: (t, [acr]).
fn closed_loop(
    measured: bool,
    link: f64,
    cap: &[f64],
    secs: f64,
    hold: Option<(&[usize], f64, f64, f64)>,
) -> Vec<(f64, Vec<f64>)> {
    use super::super::kvr::{Kvr, KvrCfg};
    use super::super::RateAllocator;
    let cfg = KvrCfg {
        measured_rate: measured,
        ..KvrCfg::default()
    };
    let n = cap.len();
    let mut k = Kvr::new(cfg, link, n);
    for v in 0..n {
        k.open(v);
    }
    let pcr = link;
    let mut acr = vec![link / 10.0; n];
    let mut next = vec![0.0f64; n];
    let mut count = vec![0u32; n];
    let mut out = Vec::new();
    loop {
        let v = (0..n).min_by(|&a, &b| next[a].total_cmp(&next[b])).unwrap();
        let t = next[v];
        if t > secs {
            return out;
        }
        let mut cell = Cell::data(v as u32, 0, false);
        cell.flags = ServiceClass::Abr.flag_bits();
        let rm = count[v].is_multiple_of(NRM);
        if rm {
            cell.flags |= flag::RM;
            cell.set_er(pcr as f32);
            cell.set_ccr(acr[v] as f32);
        }
        count[v] += 1;
        k.on_arrival((t * PS_PER_S as f64) as Time, &mut cell, 0);
        if rm {
            acr[v] = cell.er() as f64;
            out.push((t, acr.clone()));
        }
        let mut rate = acr[v].min(cap[v]);
        if let Some((held, from, to, fraction)) = hold {
            if held.contains(&v) && t >= from && t < to {
                rate *= fraction;
            }
        }
        next[v] = t + 1.0 / rate;
    }
}

fn mean_acr(trace: &[(f64, Vec<f64>)], from: f64, v: usize) -> f64 {
    mean_acr_in(trace, from, f64::INFINITY, v)
}

fn mean_acr_in(trace: &[(f64, Vec<f64>)], from: f64, to: f64, v: usize) -> f64 {
    let w: Vec<f64> = trace
        .iter()
        .filter(|(t, _)| (from..to).contains(t))
        .map(|(_, a)| a[v])
        .collect();
    w.iter().sum::<f64>() / w.len() as f64
}

#[test]
fn kvr_gives_a_capped_vcs_unused_share_to_the_greedy_ones() {
    // 30 000 cells/s; VC 0 sends at most 2 000, VCs 1 and 2 are greedy: max-min gives them
    // 14 000 each. With the seed's CCR they stay at 10 000 (VC 0 keeps a third booked).
    let cap = [2_000.0, f64::INFINITY, f64::INFINITY];
    let on = closed_loop(true, 30_000.0, &cap, 3.0, None);
    let off = closed_loop(false, 30_000.0, &cap, 3.0, None);
    for v in [1, 2] {
        let (a_on, a_off) = (mean_acr(&on, 2.0, v), mean_acr(&off, 2.0, v));
        assert!(
            (a_on / 14_000.0 - 1.0).abs() < 0.01,
            "measured: VC {v} ACR {a_on}"
        );
        assert!(
            (a_off / 10_000.0 - 1.0).abs() < 0.01,
            "CCR: VC {v} ACR {a_off}"
        );
    }
    // The capped VC is not raised while it does not use its ACR (ER <= CCR).
    let late: Vec<f64> = on
        .iter()
        .filter(|(t, _)| *t >= 1.0)
        .map(|(_, a)| a[0])
        .collect();
    assert!(
        late.windows(2).all(|w| w[1] <= w[0] + 1e-3),
        "capped VC raised: {late:?}"
    );
}

#[test]
fn vcs_held_upstream_are_not_raised_and_come_back() {
    // Four greedy VCs on 40 000 cells/s (10 000 each). For 0.5 s the cells of VCs 2 and 3
    // arrive at 60 % of their ACR (an upstream queue holds them): the port books them at
    // what arrives and gives the rest to VCs 0 and 1. Their A_max as satisfied VCs is
    // (40 000 - 6 000) / 3 = 11 333 > their CCR: without "ER <= CCR" the port would raise
    // the VCs it mistakes for demand-limited, and their upstream queue would grow. Once their
    // cells flow again all four return to 10 000.
    let cap = [f64::INFINITY; 4];
    let held: &[usize] = &[2, 3];
    let tr = closed_loop(true, 40_000.0, &cap, 3.0, Some((held, 1.0, 1.5, 0.6)));
    for v in [2, 3] {
        let during: Vec<f64> = tr
            .iter()
            .filter(|(t, _)| (1.0..1.5).contains(t))
            .map(|(_, a)| a[v])
            .collect();
        assert!(
            during.iter().all(|&a| a <= 10_000.0 * 1.001),
            "held VC {v} raised: {during:?}"
        );
    }
    // VCs 0 and 1 get what VCs 2 and 3 do not bring: (40 000 - 2 x 6 000) / 2.
    for v in [0, 1] {
        let a = mean_acr_in(&tr, 1.3, 1.5, v);
        assert!(
            (a / 14_000.0 - 1.0).abs() < 0.01,
            "VC {v} while the others are held: {a}"
        );
    }
    for v in 0..4 {
        let a = mean_acr(&tr, 2.5, v);
        assert!((a / 10_000.0 - 1.0).abs() < 0.01, "VC {v} after: {a}");
    }
}
