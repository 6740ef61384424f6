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
    assert_eq!(m.observe(0, t + PS_PER_S, true, 10_000.0), None, "no window after reset");
}

#[test]
fn only_forward_abr_cells_count() {
    let abr = |flags: u16| {
        let mut c = Cell::data(0, 0, false);
        c.flags = flags;
        c
    };
    let class = |k: u16| k << flag::CLASS_SHIFT;
    let (ubr, abr_class) = (class(ServiceClass::Ubr as u16), class(ServiceClass::Abr as u16));
    assert!(RateMeter::counts(&abr(abr_class)), "ABR data");
    assert!(RateMeter::counts(&abr(abr_class | flag::RM)), "forward RM");
    assert!(!RateMeter::counts(&abr(abr_class | flag::RM | flag::DIR)), "backward RM");
    assert!(!RateMeter::counts(&abr(ubr)), "UBR");
}
