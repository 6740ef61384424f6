//! The max-min fair allocation of a scenario (seed 003 section 3): water-filling over the
//! routes, honouring each connection's minimum (MCR) and demand cap, on the capacity each
//! link leaves after CBR and VBR traffic.
//!
//! Generalized max-min with minimum rates: every unfrozen connection gets
//! `clamp(level, min_i, max_i)`; the common level rises until a link is full (its
//! connections freeze) or a connection reaches its cap. Rates in cells/s.

use crate::cell::{ServiceClass, CELL_BITS_F64};
use crate::scenario::Scenario;

/// One connection's claim: the ports its forward direction crosses, its minimum rate and
/// its demand cap (f64::INFINITY: none).
#[derive(Clone, Debug, PartialEq)]
pub struct Demand {
    /// Ports crossed.
    pub ports: Vec<usize>,
    /// Minimum rate (MCR), cells/s.
    pub min: f64,
    /// Demand cap, cells/s.
    pub max: f64,
}

#[inline]
fn clamp(level: f64, d: &Demand) -> f64 {
    level.min(d.max).max(d.min)
}

/// Max-min fair rates of `demands` on links of `capacity` cells/s.
pub fn water_fill(capacity: &[f64], demands: &[Demand]) -> Vec<f64> {
    let n = demands.len();
    let mut rate: Vec<f64> = demands.iter().map(|d| d.min).collect();
    let mut frozen = vec![false; n];
    let mut on_port: Vec<Vec<usize>> = vec![Vec::new(); capacity.len()];
    for (i, d) in demands.iter().enumerate() {
        for &p in &d.ports {
            on_port[p].push(i);
        }
    }
    for _round in 0..=n {
        if frozen.iter().all(|&f| f) {
            break;
        }
        // The level at which each link with unfrozen connections fills.
        let mut best = f64::INFINITY;
        let mut full = vec![false; capacity.len()];
        let mut port_level = vec![f64::INFINITY; capacity.len()];
        for (p, flows) in on_port.iter().enumerate() {
            if !flows.iter().any(|&i| !frozen[i]) {
                continue;
            }
            let load = |level: f64| -> f64 {
                flows
                    .iter()
                    .map(|&i| {
                        if frozen[i] {
                            rate[i]
                        } else {
                            clamp(level, &demands[i])
                        }
                    })
                    .sum()
            };
            let hi_level = flows
                .iter()
                .filter(|&&i| !frozen[i])
                .map(|&i| {
                    if demands[i].max.is_finite() {
                        demands[i].max
                    } else {
                        capacity[p]
                    }
                })
                .fold(capacity[p], f64::max);
            if load(hi_level) <= capacity[p] {
                continue; // never fills before every connection reaches its cap
            }
            let (mut lo, mut hi) = (0.0f64, hi_level);
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if load(mid) > capacity[p] {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            port_level[p] = lo;
            best = best.min(lo);
        }
        // Or a connection reaches its cap first.
        let cap_level = (0..n)
            .filter(|&i| !frozen[i])
            .map(|i| demands[i].max)
            .fold(f64::INFINITY, f64::min);
        let level = best.min(cap_level);
        if !level.is_finite() {
            // Nothing binds (connections with no ports and no cap): leave them at min.
            break;
        }
        for (p, &l) in port_level.iter().enumerate() {
            if l <= level * (1.0 + 1e-12) + 1e-12 {
                full[p] = true;
            }
        }
        for i in 0..n {
            if frozen[i] {
                continue;
            }
            rate[i] = clamp(level, &demands[i]);
            if demands[i].max <= level || demands[i].ports.iter().any(|&p| full[p]) {
                frozen[i] = true;
            }
        }
    }
    rate
}

/// The max-min fair rate (cells/s) of each connection's forward direction, or None for
/// connections outside the allocation: CBR and VBR connections (their mean rate is taken
/// off the capacity of the links they cross) and request/response exchanges (no steady
/// demand). ABR and UBR connections share what is left; an ABR connection's minimum is
/// its MCR and its cap the application's permanent rate cap, else its PCR; other
/// connections are capped by their access link.
pub fn fair_shares(sc: &Scenario) -> Vec<Option<f64>> {
    let mut capacity: Vec<f64> = sc
        .ports
        .iter()
        .map(|p| p.rate_bps as f64 / CELL_BITS_F64)
        .collect();
    let mut demands = Vec::new();
    let mut index = vec![None; sc.connections.len()];
    for (k, c) in sc.connections.iter().enumerate() {
        let access = sc.ports[c.fwd_ports[0]].rate_bps as f64 / CELL_BITS_F64;
        if matches!(c.class, ServiceClass::Cbr | ServiceClass::Vbr) {
            let mean = c.app.as_ref().and_then(|a| a.demand()).unwrap_or(access);
            for &p in &c.fwd_ports {
                capacity[p] = (capacity[p] - mean).max(0.0);
            }
            continue;
        }
        if c.app.as_ref().is_some_and(|a| a.reverse_sends()) {
            continue;
        }
        let (min, pcr) = match &c.abr {
            Some(a) => (a.mcr, a.pcr),
            None => (0.0, access),
        };
        let max = c
            .app
            .as_ref()
            .and_then(|a| a.demand())
            .map_or(pcr, |d| d.min(pcr));
        index[k] = Some(demands.len());
        demands.push(Demand {
            ports: c.fwd_ports.clone(),
            min,
            max,
        });
    }
    let rates = water_fill(&capacity, &demands);
    index.iter().map(|i| i.map(|i| rates[i])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(ports: &[usize]) -> Demand {
        Demand {
            ports: ports.to_vec(),
            min: 0.0,
            max: f64::INFINITY,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn equal_split_on_one_link() {
        let r = water_fill(&[90.0], &[d(&[0]), d(&[0]), d(&[0])]);
        assert!(r.iter().all(|&x| close(x, 30.0)), "{r:?}");
    }

    #[test]
    fn upstream_configuration() {
        // Link 0 carries VC1..VC15; link 1 carries VC15, VC16, VC17 (seed 003, fig. 13).
        let mut ds: Vec<Demand> = (0..14).map(|_| d(&[0])).collect();
        ds.push(d(&[0, 1]));
        ds.push(d(&[1]));
        ds.push(d(&[1]));
        let r = water_fill(&[15.0, 15.0], &ds);
        assert!(close(r[14], 1.0), "{r:?}");
        assert!(close(r[15], 7.0) && close(r[16], 7.0), "{r:?}");
    }

    #[test]
    fn parking_lot() {
        // Three VCs all cross the last link.
        let r = water_fill(&[10.0, 10.0, 9.0], &[d(&[0, 1, 2]), d(&[1, 2]), d(&[2])]);
        assert!(r.iter().all(|&x| close(x, 3.0)), "{r:?}");
    }

    #[test]
    fn caps_and_minimums() {
        let mut a = d(&[0]);
        a.max = 10.0;
        let mut b = d(&[0]);
        b.min = 50.0;
        let r = water_fill(&[100.0], &[a, b, d(&[0])]);
        assert!(close(r[0], 10.0), "{r:?}");
        assert!(close(r[1], 50.0) && close(r[2], 40.0), "{r:?}");
        // A minimum below the equal share does not matter.
        let mut b = d(&[0]);
        b.min = 5.0;
        let r = water_fill(&[100.0], &[b, d(&[0])]);
        assert!(close(r[0], 50.0) && close(r[1], 50.0), "{r:?}");
    }
}
