//! Metrics: the time-series [`Recorder`], Jain's fairness index, and efficiency as the
//! seeds define it (seed 001, slide "Performance Metrics"; spec section 8).

mod recorder;

pub use recorder::{Recorder, TimeSeries};

/// Jain's fairness index (sum x)^2 / (n * sum x^2) of `x`; 1 for an empty or all-zero set.
pub fn jain_fairness(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || s2 == 0.0 {
        return 1.0;
    }
    s * s / (n * s2)
}

/// Largest TCP goodput a link of `rate_bps` can carry with segments of `mss` bytes
/// taking `cells` cells each: rate * mss / (cells * 53). 125.2 Mbps for MSS 512 (12 cells)
/// on 155.52 Mbps, as seeds 000 and 001 compute it.
pub fn max_goodput_bps(rate_bps: f64, mss: u32, cells: u32) -> f64 {
    rate_bps * mss as f64 / (cells as f64 * crate::cell::CELL_BYTES as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_bounds() {
        assert_eq!(jain_fairness(&[1.0, 1.0, 1.0]), 1.0);
        assert!((jain_fairness(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert!((jain_fairness(&[2.0, 1.0]) - 0.9).abs() < 1e-12);
    }

    #[test]
    fn seeds_max_goodput() {
        // 512/636 of 155.52 Mbps = 125.19 Mbps.
        let m = max_goodput_bps(155.52e6, 512, 12);
        assert!((m / 1e6 - 125.19).abs() < 0.01, "{m}");
    }
}
