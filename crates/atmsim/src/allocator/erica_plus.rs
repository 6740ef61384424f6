//! ERICA+'s queue-control function (seed 003 section 4.4, figure 3; spec ALGORITHMS.md
//! section 3, pitfall 7). ERICA+ targets a *queueing delay* T0 instead of a fixed
//! utilization: the target ABR capacity is f(Tq) x (link rate - VBR/CBR use), where Tq is
//! the ABR queue's drain time (queue / total ABR capacity) at the end of the interval.
//!
//! f(q) = b T0 / ((b - 1) q + T0) for q <= T0 (from b at q = 0 down to 1 at T0),
//! f(q) = a T0 / ((a - 1) q + T0) for q > T0 (from 1 toward 0), then f = max(f, QDLF).

/// Parameters of the queue-control function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueueControl {
    /// Hyperbola parameter above T0 (seed 003: 1.15).
    pub a: f64,
    /// Hyperbola parameter below T0, f(0) = b (seed 003: 1.05).
    pub b: f64,
    /// Target queueing delay, seconds (seed 003: 100 us LAN, 500 us WAN).
    pub t0: f64,
    /// Queue drain limit factor, the floor of f (seed 003: 0.5).
    pub qdlf: f64,
}

impl QueueControl {
    /// f(Tq) for a queueing delay of `tq` seconds (infinite gives QDLF).
    #[inline]
    pub fn factor(&self, tq: f64) -> f64 {
        let f = if !tq.is_finite() {
            0.0
        } else if tq <= self.t0 {
            self.b * self.t0 / ((self.b - 1.0) * tq + self.t0)
        } else {
            self.a * self.t0 / ((self.a - 1.0) * tq + self.t0)
        };
        f.max(self.qdlf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: QueueControl = QueueControl {
        a: 1.15,
        b: 1.05,
        t0: 100e-6,
        qdlf: 0.5,
    };

    #[test]
    fn shape() {
        assert!((Q.factor(0.0) - 1.05).abs() < 1e-12, "f(0) = b");
        assert!((Q.factor(100e-6) - 1.0).abs() < 1e-12, "f(T0) = 1");
        assert!(Q.factor(50e-6) < 1.05 && Q.factor(50e-6) > 1.0);
        assert!(Q.factor(200e-6) < 1.0);
        // Both branches meet at T0 continuously.
        assert!((Q.factor(100e-6 * (1.0 + 1e-9)) - 1.0).abs() < 1e-6);
        // Floor.
        assert_eq!(Q.factor(1.0), 0.5);
        assert_eq!(Q.factor(f64::INFINITY), 0.5);
        // Monotone decreasing.
        let mut prev = f64::INFINITY;
        for k in 0..100 {
            let f = Q.factor(k as f64 * 20e-6);
            assert!(f <= prev);
            prev = f;
        }
    }
}
