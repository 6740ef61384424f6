//! The VBR video source of seed 004 section 5.2: Heyman et al.'s teleconference model
//! (spec ALGORITHMS.md section 7), and the token bucket that shapes it.
//!
//! * Frame sizes (cells per frame) have a **negative binomial** marginal with mean `mu` and
//!   variance `sd^2` (drawn as a gamma-mixed Poisson: lambda ~ Gamma(r, theta) with
//!   r = mu^2 / (sd^2 - mu), theta = sd^2 / mu - 1, then X ~ Poisson(lambda)), and
//!   **geometrically decaying correlation** by a DAR(1) process: X_n = X_{n-1} with
//!   probability rho, else a fresh draw, so corr(X_n, X_{n+k}) = rho^k.
//! * The engine hands each frame's cells to a [`TokenBucket`] at the frame's start
//!   (`frame_arrival = "burst"`, the default, seed 004 5.2) or spread evenly over the frame
//!   time (`"spread"`, spec 7): a cell leaves only when a token is there; tokens accrue at
//!   the token rate up to the bucket depth; cells wait, they are never dropped.
//!
//! Everything draws from the connection's own [`RngStream`], so runs are reproducible.

use atmsim_kernel::{time, RngStream, Time, PS_PER_S};

/// Frame-size generator: DAR(1) with a negative binomial marginal.
#[derive(Clone, Debug)]
pub struct FrameSizes {
    rng: RngStream,
    shape: f64,
    scale: f64,
    rho: f64,
    last: Option<u32>,
}

impl FrameSizes {
    /// Frames of mean `mean` cells, standard deviation `sd` (sd^2 > mean), lag-1
    /// correlation `rho`, drawing from `rng`.
    pub fn new(rng: RngStream, mean: f64, sd: f64, rho: f64) -> FrameSizes {
        let var = sd * sd;
        FrameSizes {
            rng,
            shape: mean * mean / (var - mean),
            scale: var / mean - 1.0,
            rho,
            last: None,
        }
    }

    /// The next frame's size, cells.
    pub fn next_frame(&mut self) -> u32 {
        if let Some(x) = self.last {
            if self.rng.uniform() < self.rho {
                return x;
            }
        }
        let lambda = gamma(&mut self.rng, self.shape) * self.scale;
        let x = poisson(&mut self.rng, lambda);
        self.last = Some(x);
        x
    }
}

/// A standard normal variate (Marsaglia's polar method: only `ln` and `sqrt`).
fn normal(rng: &mut RngStream) -> f64 {
    loop {
        let u = 2.0 * rng.uniform() - 1.0;
        let v = 2.0 * rng.uniform() - 1.0;
        let s = u * u + v * v;
        if s > 0.0 && s < 1.0 {
            return u * (-2.0 * s.ln() / s).sqrt();
        }
    }
}

/// A Gamma(shape, 1) variate (Marsaglia and Tsang 2000; shape < 1 by boosting).
pub fn gamma(rng: &mut RngStream, shape: f64) -> f64 {
    if shape < 1.0 {
        let u = rng.uniform().max(f64::MIN_POSITIVE);
        return gamma(rng, shape + 1.0) * u.powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(rng);
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = rng.uniform();
        if u < 1.0 - 0.0331 * x * x * x * x
            || u.max(f64::MIN_POSITIVE).ln() < 0.5 * x * x + d * (1.0 - v + v.ln())
        {
            return d * v;
        }
    }
}

/// A Poisson(lambda) variate by inversion (in chunks of at most 200 so that e^-lambda
/// stays representable).
pub fn poisson(rng: &mut RngStream, lambda: f64) -> u32 {
    let mut left = lambda.max(0.0);
    let mut total = 0u32;
    while left > 0.0 {
        let l = left.min(200.0);
        left -= l;
        let u = rng.uniform();
        let mut p = (-l).exp();
        let mut cdf = p;
        let mut k = 0u32;
        while u > cdf && k < 10_000 {
            k += 1;
            p *= l / k as f64;
            cdf += p;
        }
        total += k;
    }
    total
}

/// A token bucket shaper: `depth` tokens at most, `rate` tokens per second, one token per
/// cell; starts full.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    depth: f64,
    rate: f64,
    tokens: f64,
    at: Time,
}

impl TokenBucket {
    /// A full bucket.
    pub fn new(depth: f64, rate: f64) -> TokenBucket {
        TokenBucket {
            depth,
            rate,
            tokens: depth,
            at: 0,
        }
    }

    #[inline]
    fn level(&self, now: Time) -> f64 {
        let dt = time::to_secs_f64(now.saturating_sub(self.at));
        (self.tokens + dt * self.rate).min(self.depth)
    }

    /// The earliest time at or after `now` when a token is there.
    #[inline]
    pub fn ready(&self, now: Time) -> Time {
        let l = self.level(now);
        if l >= 1.0 {
            now
        } else {
            now + ((1.0 - l) / self.rate * PS_PER_S as f64).ceil() as Time
        }
    }

    /// A cell leaves at `now`, taking a token (the engine calls this at a time
    /// [`TokenBucket::ready`] gave, so the level is at least 1 up to rounding).
    #[inline]
    pub fn take(&mut self, now: Time) {
        self.tokens = self.level(now) - 1.0;
        self.at = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_binomial_moments_and_correlation() {
        let mut g = FrameSizes::new(RngStream::new(7, "video"), 130.0, 30.0, 0.98);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| g.next_frame() as f64).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!((mean - 130.0).abs() < 3.0, "mean {mean}");
        assert!((var.sqrt() - 30.0).abs() < 3.0, "sd {}", var.sqrt());
        let cov1 = xs
            .windows(2)
            .map(|w| (w[0] - mean) * (w[1] - mean))
            .sum::<f64>()
            / (n - 1) as f64;
        let rho = cov1 / var;
        assert!((rho - 0.98).abs() < 0.01, "lag-1 correlation {rho}");
    }

    #[test]
    fn uncorrelated_when_rho_is_zero() {
        let mut g = FrameSizes::new(RngStream::new(3, "video"), 50.0, 10.0, 0.0);
        let xs: Vec<f64> = (0..50_000).map(|_| g.next_frame() as f64).collect();
        let m = xs.iter().sum::<f64>() / xs.len() as f64;
        let v = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / xs.len() as f64;
        let c = xs.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum::<f64>() / (xs.len() - 1) as f64;
        assert!((c / v).abs() < 0.02);
    }

    #[test]
    fn poisson_mean() {
        let mut r = RngStream::new(1, "p");
        let n = 20_000;
        let s: u64 = (0..n).map(|_| poisson(&mut r, 450.0) as u64).sum();
        let m = s as f64 / n as f64;
        assert!((m - 450.0).abs() < 1.0, "{m}");
    }

    #[test]
    fn token_bucket_burst_then_rate() {
        // 50-cell bucket at 4500 cells/s: 50 cells at once, then one per 1/4500 s.
        let mut b = TokenBucket::new(50.0, 4500.0);
        for _ in 0..50 {
            assert_eq!(b.ready(0), 0);
            b.take(0);
        }
        let t = b.ready(0);
        let gap = PS_PER_S as f64 / 4500.0;
        assert!((t as f64 - gap).abs() <= 1.0, "{t} vs {gap}");
        b.take(t);
        let t2 = b.ready(t);
        assert!(((t2 - t) as f64 - gap).abs() <= 1.0);
        // After a long pause the bucket is full again, not fuller.
        let later = t2 + PS_PER_S;
        for _ in 0..50 {
            assert_eq!(b.ready(later), later);
            b.take(later);
        }
        assert!(b.ready(later) > later);
    }
}
