//! Scripted cells through the GW allocator: hand-computed ExcessFairShare and ER
//! (98-0408 eqs 14-24).

use super::*;
use crate::allocator::erica_plus::QueueControl;
use atmsim_kernel::PS_PER_MS;

/// A forward RM cell of connection `c` (flow 2c) with CCR `ccr`.
fn frm(c: u32, ccr: f64) -> Cell {
    let mut cell = Cell::data(2 * c, 0, false);
    cell.flags = flag::RM | (2 << flag::CLASS_SHIFT);
    cell.set_ccr(ccr as f32);
    cell.set_er(1e9);
    cell
}

/// A forward RM cell of connection `c` with CCR `ccr` arrives at `now`, from a source whose
/// RM cells carry MCR `mcr` and weight `w` (the port is told them as a built network's
/// ports are: [`RmFields`]).
fn frm_arrives(g: &mut Gw, now: Time, c: u32, ccr: f64, (mcr, w): (f64, f64)) {
    g.set_source(2 * c as usize, RmFields::of_source(mcr, w));
    g.on_arrival(now, &mut frm(c, ccr), 0);
}

fn brm(c: u32) -> Cell {
    let mut cell = frm(c, 0.0);
    cell.flow = 2 * c + 1;
    cell.flags |= flag::DIR;
    cell
}

/// b = 1 so that an empty queue gives f = 1 (ABRCap = the link).
fn cfg(scheme: GwScheme) -> GwCfg {
    GwCfg {
        scheme,
        interval_cells: 1_000_000,
        queue: QueueControl {
            b: 1.0 + 1e-12,
            ..QueueControl::default()
        },
        ..GwCfg::default()
    }
}

/// One interval of `dt_ms` in which each VC (ccr, mcr, w) sends `cells` forward RM cells.
fn interval(g: &mut Gw, vcs: &[(f64, f64, f64)], cells: u32, dt_ms: u64) {
    let now = g.start;
    for _ in 0..cells {
        for (c, &(ccr, mcr, w)) in vcs.iter().enumerate() {
            frm_arrives(g, now, c as u32, ccr, (mcr, w));
        }
    }
    g.on_timer(now + dt_ms * PS_PER_MS, 0);
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

/// Closed loop: each interval every VC (mcr, w) sends at the ER of its last backward RM
/// cell, as many cells as its rate gives in 10 ms; returns the final rates.
fn closed_loop(g: &mut Gw, vcs: &[(f64, f64)], start: f64) -> Vec<f64> {
    let mut rates = vec![start; vcs.len()];
    for _ in 0..200 {
        let now = g.start;
        for (c, &(mcr, w)) in vcs.iter().enumerate() {
            for _ in 0..(rates[c] / 100.0).round() as u32 {
                frm_arrives(g, now, c as u32, rates[c], (mcr, w));
            }
        }
        g.on_timer(now + 10 * PS_PER_MS, 0);
        for (c, rate) in rates.iter_mut().enumerate() {
            let mut b = brm(c as u32);
            g.on_backward_rm(0, &mut b);
            *rate = b.er() as f64;
        }
    }
    rates
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 0.01 * b
}

#[test]
fn scheme_a_gives_mcr_plus_equal_excess() {
    // Link 100 000 cells/s; MCRs 10 000, 20 000, 30 000: 10 000 + 40 000 / 3 + MCR each.
    // (B, ExcessFairShare / z, oscillates in this delay-free loop: z alternates 1 and 2.)
    for scheme in [GwScheme::A, GwScheme::D] {
        let mut g = Gw::new(cfg(scheme), 100_000.0, 6);
        let vcs = [(10_000.0, 1.0), (20_000.0, 1.0), (30_000.0, 1.0)];
        let r = closed_loop(&mut g, &vcs, 40_000.0);
        let ex = 40_000.0 / 3.0;
        for (c, &(mcr, _)) in vcs.iter().enumerate() {
            assert!(near(r[c], mcr + ex), "{scheme:?} VC {c}: {r:?} {:?}", g.st);
        }
    }
}

#[test]
fn weights_split_the_excess_in_proportion() {
    for scheme in [GwScheme::A, GwScheme::D] {
        let mut g = Gw::new(cfg(scheme), 90_000.0, 4);
        let r = closed_loop(&mut g, &[(0.0, 1.0), (0.0, 2.0)], 10_000.0);
        assert!(
            near(r[0], 30_000.0) && near(r[1], 60_000.0),
            "{scheme:?}: {r:?}"
        );
    }
}

#[test]
fn activity_level_counts_a_slow_vc_in_part() {
    // eqs 20-21 by hand: ExcessFairShare starts at the link (1000); rates (1000, 250) give
    // AL = (1, 0.25), so ExcessFairShare = 1000 / 1.25 = 800; then rates (800, 200) give
    // AL = (1, 0.25) again: 800.
    let mut g = Gw::new(cfg(GwScheme::A), 1000.0, 4);
    interval(&mut g, &[(1000.0, 0.0, 1.0), (250.0, 0.0, 1.0)], 100, 200);
    assert!(
        close(g.excess_fair_share(0), 800.0),
        "{}",
        g.excess_fair_share(0)
    );
    interval(&mut g, &[(800.0, 0.0, 1.0), (200.0, 0.0, 1.0)], 100, 200);
    assert!(
        close(g.excess_fair_share(2), 800.0),
        "{}",
        g.excess_fair_share(2)
    );
}

#[test]
fn scheme_d_uses_the_weighted_max_allocation_near_z_one() {
    let mut g = Gw::new(cfg(GwScheme::D), 1000.0, 4);
    interval(&mut g, &[(500.0, 0.0, 1.0), (500.0, 0.0, 1.0)], 100, 200);
    let mut b = brm(0);
    g.on_backward_rm(0, &mut b);
    // z = 1: max(w x WtMaxAllocPrevious (the link before any allocation), VCShare).
    assert!(close(b.er() as f64, 1000.0), "{}", b.er());
    assert!(close(g.st.wt_max_cur, 1000.0));
}

/// One interval of 10 ms in which VC c (ccr, mcr) sends `ccr / 100` cells, ended with an
/// ABR queue of `queue` cells.
fn interval_at_rates(g: &mut Gw, vcs: &[(f64, f64)], queue: u32) {
    let now = g.start;
    for (c, &(ccr, mcr)) in vcs.iter().enumerate() {
        for _ in 0..(ccr / 100.0).round() as u32 {
            frm_arrives(g, now, c as u32, ccr, (mcr, 1.0));
        }
    }
    g.on_timer(now + 10 * PS_PER_MS, queue);
}

#[test]
fn queue_control_scales_the_excess_and_a_slow_vc_reserves_what_it_sends() {
    // 98-0408 section 3, eqs 14-15: Total ABR Capacity = Link - VBR - sum_i min(SourceRate(i),
    // MCR_i); Target = Fraction x Total; z = (ABR input - sum_i min(SourceRate(i), MCR_i)) /
    // Target. Link 100 000 cells/s; VCs (rate, MCR) = (60 000, 40 000), (35 000, 0) and
    // (5 000, 20 000): the last sends below its MCR and reserves only 5 000. mu = 45 000.
    // A queue of 10 s gives Fraction = QDLF = 0.5: Target = 0.5 (100 000 - 45 000) =
    // 27 500, z = (100 000 - 45 000) / 27 500 = 2. (Fraction x Link - sum MCR, as before
    // this fix, gave a Target of 50 000 - 60 000 < 0: z infinite, every VC held at its MCR.)
    let mut g = Gw::new(cfg(GwScheme::A), 100_000.0, 6);
    let vcs = [(60_000.0, 40_000.0), (35_000.0, 0.0), (5_000.0, 20_000.0)];
    interval_at_rates(&mut g, &vcs, 1_000_000);
    assert!(close(g.st.mu, 45_000.0), "{:?}", g.st);
    assert!(close(g.st.z, 2.0), "{:?}", g.st);
    assert!(close(g.st.abr_cap, 27_500.0 + 45_000.0), "{:?}", g.st);
    // eqs 20-21 with ExcessFairShare = the link before any allocation: AL = (0.2, 0.35, 0),
    // so ExcessFairShare = 27 500 / 0.55 = 50 000, and VC 1's ER = max(50 000, 35 000 / 2)
    // = 50 000 (below Target + mu = 72 500).
    assert!(
        close(g.excess_fair_share(1), 50_000.0),
        "{}",
        g.excess_fair_share(1)
    );
    let mut b = brm(1);
    g.on_backward_rm(0, &mut b);
    assert!(close(b.er() as f64, 50_000.0), "{}", b.er());
}

#[test]
fn alpha_averages_the_overload_and_the_number_of_vcs() {
    // 98-0408 section 4.4: z and sum_j w_j AL(j) averaged with weight alpha on the newest
    // interval. Link 100 000; one VC at 50 000 then 100 000 (empty queue, f = 1): z = 0.5
    // then 1.0, averaged 0.2 x 0.5 + 0.8 x 1.0 = 0.9.
    let mut g = Gw::new(
        GwCfg {
            alpha: 0.8,
            ..cfg(GwScheme::A)
        },
        100_000.0,
        2,
    );
    interval_at_rates(&mut g, &[(50_000.0, 0.0)], 0);
    assert!(close(g.st.z, 0.5), "{:?}", g.st);
    // AL = 50 000 / 100 000 (the initial ExcessFairShare): sum w AL = 0.5, EFS = 200 000.
    assert!(close(g.st.sum_wal, 0.5), "{:?}", g.st);
    interval_at_rates(&mut g, &[(100_000.0, 0.0)], 0);
    assert!(close(g.st.z, 0.9), "{:?}", g.st);
    // AL = 100 000 / 200 000 = 0.5 again: the average stays 0.5.
    assert!(close(g.st.sum_wal, 0.5), "{:?}", g.st);
}

#[test]
fn excess_fair_share_winds_up_while_the_link_is_underloaded() {
    // The mechanism of the WAN oscillation (docs/models/gw.md): eqs 20-21 make
    // ExcessFairShare an integrator. When every VC sends less than ExcessFairShare,
    // AL(j) = r_j / EFS and EFS' = Target / sum_j (r_j / EFS) = EFS / z: while the sources
    // have not yet answered (a WAN round trip is tens of intervals), EFS grows by 1/z per
    // interval without bound. Two VCs at 20 000 on a 100 000 link (z = 0.4): after 10
    // intervals EFS = 50 000 x 2.5^10.
    let mut g = Gw::new(cfg(GwScheme::A), 100_000.0, 4);
    let vcs = [(20_000.0, 0.0), (20_000.0, 0.0)];
    interval_at_rates(&mut g, &vcs, 0);
    let first = g.excess_fair_share(0);
    assert!(close(first, 100_000.0 / 0.4), "{first}");
    for _ in 0..9 {
        interval_at_rates(&mut g, &vcs, 0);
    }
    assert!(close(g.excess_fair_share(0), first * 2.5f64.powi(9)));
    // The ER given is the whole link: every VC is told it may send at the link rate.
    let mut b = brm(0);
    g.on_backward_rm(0, &mut b);
    assert!(close(b.er() as f64, 100_000.0), "{}", b.er());
}

#[test]
fn without_activity_levels_the_excess_fair_share_is_the_plain_weighted_split() {
    // activity_level = false: ExcessFairShare(i) = Target w_i / sum_j w_j (98-0408 section 3,
    // before eqs 20-21), whatever the VCs send: the same underloaded link as the wind-up
    // test keeps EFS at 100 000 / 2 = 50 000, and the ER is max(EFS, VCShare) = max(50 000,
    // 20 000 / 0.4) = 50 000.
    let mut g = Gw::new(
        GwCfg {
            activity_level: false,
            ..cfg(GwScheme::A)
        },
        100_000.0,
        4,
    );
    let vcs = [(20_000.0, 0.0), (20_000.0, 0.0)];
    for _ in 0..10 {
        interval_at_rates(&mut g, &vcs, 0);
        assert!(
            close(g.excess_fair_share(0), 50_000.0),
            "{}",
            g.excess_fair_share(0)
        );
    }
    let mut b = brm(0);
    g.on_backward_rm(0, &mut b);
    assert!(close(b.er() as f64, 50_000.0), "{}", b.er());
}

#[test]
fn alpha_outside_zero_one_is_refused_naming_the_key() {
    use crate::allocator::gw_config::GwSpec;
    use crate::registry::Resolve;
    for bad in [0.0, 1.5, f64::NAN] {
        let spec = GwSpec {
            alpha: Some(bad),
            ..GwSpec::default()
        };
        let e = spec
            .resolve("defaults.allocator", &())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("defaults.allocator.alpha") && e.contains("(0, 1]"),
            "{e}"
        );
    }
}

#[test]
fn a_built_port_learns_each_vcs_mcr_and_weight_at_its_first_forward_rm_cell() {
    // Flows 1 and 4 cross port 0 (slots 0 and 1), the others port 1. The network hands the
    // port every flow's RM fields; a VC counts with MCR 0 and weight 1 until its own first
    // forward RM cell, then with its source's values rounded as a 32-bit RM field is.
    use crate::allocator::PortEnv;
    use crate::port::{SlotTable, VcSlots};
    use crate::registry::Build;
    use std::sync::Arc;
    let routes: [&[u32]; 6] = [&[1], &[0], &[1], &[1], &[0], &[1]];
    let (table, flows) = SlotTable::from_routes(&routes, &[0, 1]);
    let fields: Vec<RmFields> = (0..6)
        .map(|f| RmFields::of_source(1000.0 * f as f64 + 0.1, 1.0 + f as f64 / 3.0))
        .collect();
    let env = PortEnv {
        link_rate: 100_000.0,
        flows: 6,
        vcs: flows.of(0),
        slots: VcSlots::Routes(Arc::new(table)),
        rm_fields: &fields,
    };
    assert_eq!(env.vcs, &[1, 4]);
    let mut g = Gw::build(&cfg(GwScheme::A), &env);
    let learnt = |g: &Gw| [0, 1].map(|s| (g.vcs[s].mcr, g.vcs[s].weight));
    assert_eq!(learnt(&g), [(0.0, 1.0), (0.0, 1.0)]);
    let rm = |g: &mut Gw, flow: u32| {
        let mut cell = frm(0, 10_000.0);
        cell.flow = flow;
        g.on_arrival(0, &mut cell, 0);
    };
    rm(&mut g, 4);
    let (f1, f4) = (fields[1], fields[4]);
    assert_eq!(f4.mcr, (4000.1_f32) as f64);
    assert_eq!(f4.weight, (1.0 + 4.0 / 3.0) as f32 as f64);
    assert_eq!(learnt(&g), [(0.0, 1.0), (f4.mcr, f4.weight)]);
    rm(&mut g, 1);
    assert_eq!(learnt(&g), [(f1.mcr, f1.weight), (f4.mcr, f4.weight)]);
}

#[test]
fn a_weight_whose_32_bits_are_zero_reads_as_one() {
    // As the RM cell's weight field did: 0 bits meant "no weight given".
    assert_eq!(RmFields::of_source(5.0, 0.0).weight, 1.0);
    assert_eq!(RmFields::of_source(5.0, 1e-50).weight, 1.0);
    assert_eq!(RmFields::of_source(5.0, 2.5).weight, 2.5);
    assert_eq!(RmFields::default(), RmFields::of_source(0.0, 1.0));
}
