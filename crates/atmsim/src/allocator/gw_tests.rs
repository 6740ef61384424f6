//! Scripted cells through the GW allocator: hand-computed ExcessFairShare and ER
//! (98-0408 eqs 14-24).

use super::*;
use crate::allocator::erica_plus::QueueControl;
use atmsim_kernel::PS_PER_MS;

/// A forward RM cell of connection `c` (flow 2c) with CCR, MCR and weight.
fn frm(c: u32, ccr: f64, mcr: f64, w: f64) -> Cell {
    let mut cell = Cell::data(2 * c, 0, false);
    cell.flags = flag::RM | (2 << flag::CLASS_SHIFT);
    cell.ccr = ccr as f32;
    cell.er = 1e9;
    cell.set_rm_mcr(mcr);
    cell.set_rm_weight(w);
    cell
}

fn brm(c: u32, mcr: f64, w: f64) -> Cell {
    let mut cell = frm(c, 0.0, mcr, w);
    cell.flow = 2 * c + 1;
    cell.flags |= flag::DIR;
    cell
}

/// b = 1 so that an empty queue gives f = 1 (ABRCap = the link).
fn cfg(scheme: GwScheme) -> GwCfg {
    GwCfg {
        scheme,
        interval_cells: 1_000_000,
        queue: QueueControl { b: 1.0 + 1e-12, ..QueueControl::default() },
        ..GwCfg::default()
    }
}

/// One interval of `dt_ms` in which each VC (ccr, mcr, w) sends `cells` forward RM cells.
fn interval(g: &mut Gw, vcs: &[(f64, f64, f64)], cells: u32, dt_ms: u64) {
    let now = g.start;
    for _ in 0..cells {
        for (c, &(ccr, mcr, w)) in vcs.iter().enumerate() {
            g.on_arrival(now, &mut frm(c as u32, ccr, mcr, w), 0);
        }
    }
    g.on_timer(now + dt_ms * PS_PER_MS, 0);
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

#[test]
fn scheme_a_gives_mcr_plus_equal_excess_at_z_one() {
    // Link 1000 cells/s; MCRs 100, 200, 300; all weights 1; sources at their GW share
    // (100 + 133.3, ...) so input = capacity and z = 1.
    let mut g = Gw::new(cfg(GwScheme::A), 1000.0, 6);
    let ex = 400.0 / 3.0;
    let vcs = [(100.0 + ex, 100.0, 1.0), (200.0 + ex, 200.0, 1.0), (300.0 + ex, 300.0, 1.0)];
    for _ in 0..3 {
        interval(&mut g, &vcs, 100, 300); // 300 cells in 0.3 s = 1000 cells/s
    }
    assert!(close(g.st.mu, 600.0), "{:?}", g.st);
    assert!(close(g.st.z, 1.0), "{:?}", g.st);
    for (c, &(_, mcr, w)) in vcs.iter().enumerate() {
        assert!(close(g.excess_fair_share(2 * c), ex), "{}", g.excess_fair_share(2 * c));
        let mut b = brm(c as u32, mcr, w);
        g.on_backward_rm(0, &mut b);
        assert!(close(b.er as f64, mcr + ex), "VC {c}: {}", b.er);
    }
}

#[test]
fn weights_split_the_excess_in_proportion() {
    // Link 900 cells/s, no MCR, weights 1 and 2: shares 300 and 600 (B at z = 1).
    let mut g = Gw::new(cfg(GwScheme::B), 900.0, 4);
    let vcs = [(300.0, 0.0, 1.0), (600.0, 0.0, 2.0)];
    for _ in 0..3 {
        interval(&mut g, &vcs, 150, 333);
    }
    let (e0, e1) = (g.excess_fair_share(0), g.excess_fair_share(2));
    assert!(close(e1, 2.0 * e0), "{e0} {e1}");
    assert!((e0 + e1 - 900.0).abs() < 1e-6, "{e0} {e1}");
}

#[test]
fn inactive_share_goes_to_the_active_vc() {
    // A VC sending at a quarter of its excess share has AL = 1/4: the other gets the rest.
    let mut g = Gw::new(cfg(GwScheme::A), 1000.0, 4);
    interval(&mut g, &[(500.0, 0.0, 1.0), (500.0, 0.0, 1.0)], 100, 200);
    assert!(close(g.excess_fair_share(0), 500.0));
    interval(&mut g, &[(875.0, 0.0, 1.0), (125.0, 0.0, 1.0)], 100, 200);
    // AL = (1, 0.25): ExcessFairShare = 1000 / 1.25 = 800.
    assert!(close(g.excess_fair_share(0), 800.0), "{}", g.excess_fair_share(0));
}

#[test]
fn scheme_d_uses_the_weighted_max_allocation_near_z_one() {
    let mut g = Gw::new(cfg(GwScheme::D), 1000.0, 4);
    interval(&mut g, &[(500.0, 0.0, 1.0), (500.0, 0.0, 1.0)], 100, 200);
    let mut b = brm(0, 0.0, 1.0);
    g.on_backward_rm(0, &mut b);
    // z = 1: max(w x WtMaxAllocPrevious (the link before any allocation), VCShare).
    assert!(close(b.er as f64, 1000.0), "{}", b.er);
    assert!(close(g.st.wt_max_cur, 1000.0));
}
