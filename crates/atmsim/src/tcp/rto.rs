//! Retransmission timeout: Jacobson/Karels with Karn's rule and exponential back-off
//! (spec section 6.1; 4.4BSD-Lite `tcp_xmit_timer`).
//!
//! The estimator works in *timer units*: ticks when the timer granularity is a tick
//! (BSD integer arithmetic, srtt scaled by 8 and rttvar by 4, so RTO = srtt + 4 rttvar),
//! or picoseconds with exact timers (double precision). Samples are taken by the sender.

use super::config::TcpParams;
use atmsim_kernel::time::{self, Time};

/// Back-off multipliers of BSD's `tcp_backoff` table.
const BACKOFF: [u64; 13] = [1, 2, 4, 8, 16, 32, 64, 64, 64, 64, 64, 64, 64];
/// Retransmissions after which BSD forgets srtt (TCP_MAXRXTSHIFT / 4).
const FORGET_SHIFT: u32 = 3;

/// What the RTO estimators of the connections with the same timer settings (tick, initial,
/// minimum and maximum RTO) share: the timer unit and the bounds, in timer units (issue 14:
/// held in each sender, with the tick, they were 40 of its 264 bytes; one per network's
/// distinct timer settings since the thirty-fifth session).
#[derive(Clone, Debug, PartialEq)]
pub enum RtoBounds {
    /// Tick-based timers; bounds in ticks.
    Ticks {
        /// Tick length.
        tick: Time,
        /// Initial RTO, ticks.
        initial: u64,
        /// Minimum RTO, ticks.
        min: u64,
        /// Maximum RTO, ticks.
        max: u64,
    },
    /// Exact timers; bounds in seconds.
    Exact {
        /// Initial RTO, s.
        initial: f64,
        /// Minimum RTO, s.
        min: f64,
        /// Maximum RTO, s.
        max: f64,
    },
}

impl RtoBounds {
    /// The bounds of `p`'s timers: BSD's rounding to whole ticks (the initial and minimum
    /// RTO up, at least one tick; the maximum down, at least one tick), or seconds.
    pub fn of(p: &TcpParams) -> RtoBounds {
        match p.tick {
            Some(t) => RtoBounds::Ticks {
                tick: t,
                initial: p.rto_initial.div_ceil(t),
                min: p.rto_min.div_ceil(t).max(1),
                max: (p.rto_max / t).max(1),
            },
            None => RtoBounds::Exact {
                initial: time::to_secs_f64(p.rto_initial),
                min: time::to_secs_f64(p.rto_min),
                max: time::to_secs_f64(p.rto_max),
            },
        }
    }

    /// The tick length, or None for exact timers.
    #[inline]
    pub fn tick(&self) -> Option<Time> {
        match self {
            RtoBounds::Ticks { tick, .. } => Some(*tick),
            RtoBounds::Exact { .. } => None,
        }
    }
}

/// The RTO state of one connection; its bounds are an [`RtoBounds`] of the same kind.
#[derive(Clone, Debug)]
pub enum RtoEstimator {
    /// Tick-based BSD estimator; values in ticks.
    Ticks {
        /// Smoothed RTT, ticks x 8 (0 = no sample yet).
        srtt8: i64,
        /// RTT variance, ticks x 4.
        rttvar4: i64,
        /// Back-off shift (number of consecutive timeouts).
        shift: u32,
    },
    /// Exact estimator; values in seconds.
    Exact {
        /// Smoothed RTT, s (read only once `sampled`).
        srtt: f64,
        /// An RTT sample has been taken (a flag beside `srtt`, not an `Option`: the
        /// estimator in 24 bytes instead of 32, in every TCP sender; issue 14).
        sampled: bool,
        /// RTT variance, s.
        rttvar: f64,
        /// Back-off shift.
        shift: u32,
    },
}

impl RtoEstimator {
    /// No sample yet, no back-off: the estimator of timers bounded by `bounds`.
    pub fn new(bounds: &RtoBounds) -> RtoEstimator {
        match bounds {
            RtoBounds::Ticks { .. } => RtoEstimator::Ticks {
                srtt8: 0,
                rttvar4: 0,
                shift: 0,
            },
            RtoBounds::Exact { .. } => RtoEstimator::Exact {
                srtt: 0.0,
                sampled: false,
                rttvar: 0.0,
                shift: 0,
            },
        }
    }

    /// Records an RTT sample: `ticks` is BSD's `t_rtt` (1 + ticks elapsed) in tick mode,
    /// or seconds in exact mode. Clears the back-off.
    pub fn sample(&mut self, m: f64) {
        match self {
            RtoEstimator::Ticks {
                srtt8,
                rttvar4,
                shift,
                ..
            } => {
                let rtt = m as i64;
                if *srtt8 != 0 {
                    let mut delta = rtt - 1 - (*srtt8 >> 3);
                    *srtt8 += delta;
                    if *srtt8 <= 0 {
                        *srtt8 = 1;
                    }
                    if delta < 0 {
                        delta = -delta;
                    }
                    delta -= *rttvar4 >> 2;
                    *rttvar4 += delta;
                    if *rttvar4 <= 0 {
                        *rttvar4 = 1;
                    }
                } else {
                    *srtt8 = rtt << 3;
                    *rttvar4 = rtt << 1;
                }
                *shift = 0;
            }
            RtoEstimator::Exact {
                srtt,
                sampled,
                rttvar,
                shift,
            } => {
                if *sampled {
                    let err = m - *srtt;
                    *srtt += err / 8.0;
                    *rttvar += (err.abs() - *rttvar) / 4.0;
                } else {
                    *srtt = m;
                    *sampled = true;
                    *rttvar = m / 2.0;
                }
                *shift = 0;
            }
        }
    }

    /// The current timeout in timer units (ticks, or seconds), with back-off, clamped to
    /// `bounds` (those the estimator was made for: [`RtoEstimator::new`]).
    pub fn current(&self, bounds: &RtoBounds) -> f64 {
        match (self, bounds) {
            (
                RtoEstimator::Ticks {
                    srtt8,
                    rttvar4,
                    shift,
                },
                RtoBounds::Ticks {
                    initial, min, max, ..
                },
            ) => {
                let base = if *srtt8 == 0 && *rttvar4 == 0 {
                    *initial
                } else {
                    ((*srtt8 >> 3) + *rttvar4).max(0) as u64
                };
                let v = base.saturating_mul(BACKOFF[(*shift as usize).min(12)]);
                v.clamp(*min, *max) as f64
            }
            (
                RtoEstimator::Exact {
                    srtt,
                    sampled,
                    rttvar,
                    shift,
                },
                RtoBounds::Exact { initial, min, max },
            ) => {
                let base = match sampled {
                    true => srtt + 4.0 * rttvar,
                    false => *initial,
                };
                (base * BACKOFF[(*shift as usize).min(12)] as f64).clamp(*min, *max)
            }
            _ => unreachable!("an estimator's bounds are of its kind (RtoEstimator::new)"),
        }
    }

    /// A timeout happened: back off (and after several, forget srtt as BSD does).
    pub fn back_off(&mut self) {
        match self {
            RtoEstimator::Ticks {
                srtt8,
                rttvar4,
                shift,
                ..
            } => {
                *shift = (*shift + 1).min(12);
                if *shift > FORGET_SHIFT && *srtt8 != 0 {
                    *rttvar4 += *srtt8 >> 3;
                    *srtt8 = 0;
                }
            }
            RtoEstimator::Exact { shift, .. } => {
                *shift = (*shift + 1).min(12);
            }
        }
    }

    /// Smoothed RTT in timer units, if sampled.
    pub fn srtt(&self) -> Option<f64> {
        match self {
            RtoEstimator::Ticks { srtt8, .. } => (*srtt8 != 0).then(|| *srtt8 as f64 / 8.0),
            RtoEstimator::Exact { srtt, sampled, .. } => sampled.then_some(*srtt),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ticks of 100 ms: RTO initial 30 ticks, at least 2, at most 640.
    fn ticks() -> (RtoEstimator, RtoBounds) {
        ticks_from(2)
    }

    fn ticks_from(min: u64) -> (RtoEstimator, RtoBounds) {
        let b = RtoBounds::Ticks {
            tick: 100_000_000_000,
            initial: 30,
            min,
            max: 640,
        };
        (RtoEstimator::new(&b), b)
    }

    #[test]
    fn bounds_round_to_whole_ticks_as_bsd_does() {
        let mut p = TcpParams {
            tick: Some(100_000_000_000),
            rto_initial: 3_000_000_000_000,
            rto_min: 150_000_000_000,
            rto_max: 64_050_000_000_000,
            ..TcpParams::default()
        };
        assert_eq!(
            RtoBounds::of(&p),
            RtoBounds::Ticks {
                tick: 100_000_000_000,
                initial: 30,
                min: 2,
                max: 640
            }
        );
        p.rto_min = 0;
        p.rto_max = 0;
        let b = RtoBounds::of(&p);
        assert!(
            matches!(b, RtoBounds::Ticks { min: 1, max: 1, .. }),
            "{b:?}"
        );
        p.tick = None;
        assert_eq!(RtoBounds::of(&p).tick(), None);
        assert!(matches!(
            RtoEstimator::new(&RtoBounds::of(&p)),
            RtoEstimator::Exact { .. }
        ));
    }

    #[test]
    fn initial_rto_then_first_sample() {
        let (mut r, b) = ticks();
        assert_eq!(r.current(&b), 30.0);
        // First sample t_rtt = 1 (sub-tick RTT): srtt = 1, rttvar = 0.5 -> RTO = 1 + 2 = 3 ticks.
        r.sample(1.0);
        assert_eq!(r.current(&b), 3.0);
    }

    #[test]
    fn backoff_doubles_and_clamps() {
        let (mut r, b) = ticks();
        r.sample(1.0);
        r.back_off();
        assert_eq!(r.current(&b), 6.0);
        r.back_off();
        assert_eq!(r.current(&b), 12.0);
        for _ in 0..20 {
            r.back_off();
        }
        assert!(r.current(&b) <= 640.0);
        // A valid sample (Karn: only from a segment not retransmitted) clears the back-off.
        r.sample(1.0);
        assert!(r.current(&b) < 12.0);
    }

    #[test]
    fn sub_tick_rtts_settle_at_three_ticks_and_min_clamps() {
        // BSD integer arithmetic with t_rtt = 1 (RTT below one tick) settles at
        // srtt8 = 7, rttvar4 = 3: RTO = 0 + 3 = 3 ticks.
        let (mut r, b) = ticks();
        for _ in 0..50 {
            r.sample(1.0);
        }
        assert_eq!(r.current(&b), 3.0);
        let (mut r, b) = ticks_from(5);
        for _ in 0..50 {
            r.sample(1.0);
        }
        assert_eq!(r.current(&b), 5.0);
    }

    #[test]
    fn exact_jacobson_karels() {
        let b = RtoBounds::Exact {
            initial: 3.0,
            min: 0.2,
            max: 64.0,
        };
        let mut r = RtoEstimator::new(&b);
        assert_eq!(r.current(&b), 3.0);
        r.sample(0.1);
        assert!((r.current(&b) - 0.3).abs() < 1e-12); // 0.1 + 4*0.05
        r.sample(0.1);
        // err = 0, srtt = 0.1, rttvar = 0.05*0.75 = 0.0375 -> 0.25
        assert!((r.current(&b) - 0.25).abs() < 1e-12);
        r.back_off();
        assert!((r.current(&b) - 0.5).abs() < 1e-12);
    }
}
