//! `[measurement]`: run length, warm-up and the time-series interval.

use super::schema::Measurement;
use crate::config::{err, ConfigError};
use atmsim_kernel::Time;

/// The resolved timing of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Simulated time to run.
    pub duration: Time,
    /// Throughput is counted from here on.
    pub warmup: Time,
    /// Time-series interval (None: no series).
    pub sample_interval: Option<Time>,
}

/// Samples per run above which a sample interval is refused.
pub const MAX_SAMPLES: u64 = 10_000_000;

/// Checks `[measurement]`: a duration above 0, a warm-up shorter than it, and a sample
/// interval (default duration / 1000; `"0 s"` for none) giving at most 10 million samples.
pub fn resolve(m: &Measurement) -> Result<Timing, ConfigError> {
    let duration = m.duration.ps();
    if duration == 0 {
        return err("measurement.duration", "must be longer than 0 s");
    }
    let warmup = match m.warmup {
        Some(w) if w.ps() >= duration => {
            return err(
                "measurement.warmup",
                format!(
                    "{w} is not shorter than measurement.duration = {}",
                    m.duration
                ),
            )
        }
        Some(w) => w.ps(),
        None => 0,
    };
    let sample_interval = match m.sample_interval {
        None => Some((duration / 1000).max(1)),
        Some(d) if d.ps() == 0 => None,
        Some(d) if d.ps() > duration => {
            return err(
                "measurement.sample_interval",
                format!("{d} is longer than measurement.duration = {}", m.duration),
            )
        }
        Some(d) if duration / d.ps() > MAX_SAMPLES => {
            return err(
                "measurement.sample_interval",
                format!("{d} gives more than 10 million samples; choose a longer interval"),
            )
        }
        Some(d) => Some(d.ps()),
    };
    Ok(Timing {
        duration,
        warmup,
        sample_interval,
    })
}
