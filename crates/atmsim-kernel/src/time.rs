//! Integer simulation time.
//!
//! Time is a `u64` count of picoseconds: exact, totally ordered, and good for 213 days.
//! Floating-point values only ever enter as durations that are rounded once, on purpose.

/// Simulation time, or a duration, in picoseconds.
pub type Time = u64;

/// Picoseconds per microsecond.
pub const PS_PER_US: Time = 1_000_000;
/// Picoseconds per millisecond.
pub const PS_PER_MS: Time = 1_000_000_000;
/// Picoseconds per second.
pub const PS_PER_S: Time = 1_000_000_000_000;

/// Converts seconds (f64) to picoseconds, rounding to the nearest picosecond.
/// Negative or non-finite inputs give 0 (callers validate their inputs first).
pub fn from_secs_f64(s: f64) -> Time {
    if !(s.is_finite()) || s <= 0.0 {
        return 0;
    }
    (s * PS_PER_S as f64).round() as Time
}

/// `x.round() as Time`, the same value for every `x` (ties away from zero; negative, NaN
/// -> 0; past `u64::MAX` -> `u64::MAX`), without the library's rounding: on baseline
/// x86-64 (no SSE4.1 `roundsd`) `f64::round` is about twenty instructions of bit
/// manipulation, and an ABR source rounds about once per cell it sends (the time to its
/// next cell). For `0 <= x < 2^63` the signed truncation `t` (one instruction each way,
/// where the unsigned conversions take several) is exact, and so is `x - t`, the
/// fractional part: the result is `t + 1` exactly when that part is at least one half.
/// Other inputs take `f64::round`. The test `round_to_time_is_round` checks it against
/// `f64::round` on edge cases and on 4 million random values.
#[inline]
pub fn round_to_time(x: f64) -> Time {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if (0.0..TWO_63).contains(&x) {
        let t = x as i64;
        (t + (x - t as f64 >= 0.5) as i64) as Time
    } else {
        x.round() as Time
    }
}

/// Converts picoseconds to seconds as f64.
pub fn to_secs_f64(t: Time) -> f64 {
    t as f64 / PS_PER_S as f64
}

/// An optional time in 8 bytes (`Option<Time>` takes 16): [`Time::MAX`], a time no event
/// ever has, stands for none. For the per-VC state of large networks (issue 14, memory per
/// VC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaybeTime(Time);

impl MaybeTime {
    /// No time.
    pub const NONE: MaybeTime = MaybeTime(Time::MAX);

    /// The time `t` (below [`Time::MAX`]).
    #[inline]
    pub fn some(t: Time) -> MaybeTime {
        debug_assert!(t != Time::MAX, "Time::MAX stands for no time");
        MaybeTime(t)
    }

    /// The time, if any.
    #[inline]
    pub fn get(self) -> Option<Time> {
        (self.0 != Time::MAX).then_some(self.0)
    }
}

impl Default for MaybeTime {
    fn default() -> Self {
        MaybeTime::NONE
    }
}

/// The constant part of a [`SerialClock`]: the whole picoseconds of one unit and the
/// remainder to spread, for one line rate. Many ports share one (issue 14: a port holds only
/// its running remainder, so that its per-cell state fits in four cache lines); each
/// running sum is kept by its owner and passed to [`UnitTime::next_duration`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnitTime {
    rate_bps: u64,
    whole: Time,
    rem: u64,
}

impl UnitTime {
    /// Units of `bits` bits on a line of `rate_bps` bit/s (`rate_bps > 0`).
    pub fn new(rate_bps: u64, bits: u64) -> Self {
        assert!(rate_bps > 0, "UnitTime needs a positive rate");
        let num = bits as u128 * PS_PER_S as u128;
        let rate = rate_bps as u128;
        UnitTime {
            rate_bps,
            whole: (num / rate) as Time,
            rem: (num % rate) as u64,
        }
    }

    /// Duration of the next unit, in picoseconds, given the running remainder `acc` of
    /// the line's units so far (0 before the first; always below the rate).
    #[inline]
    pub fn next_duration(&self, acc: &mut u64) -> Time {
        *acc += self.rem;
        if *acc >= self.rate_bps {
            *acc -= self.rate_bps;
            self.whole + 1
        } else {
            self.whole
        }
    }

    /// The longest duration [`UnitTime::next_duration`] gives: the whole picoseconds of a
    /// unit, plus one if the unit is not a whole number of them.
    pub fn longest(&self) -> Time {
        self.whole + Time::from(self.rem > 0)
    }

    /// The exact duration of one unit in seconds (for reporting).
    pub fn unit_secs(&self) -> f64 {
        (self.whole as f64 + self.rem as f64 / self.rate_bps as f64) / PS_PER_S as f64
    }

    /// The line rate in bit/s.
    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }
}

/// Spaces back-to-back transmissions of `bits`-bit units on a line of `rate_bps` bit/s.
///
/// The transmission time of one unit is rarely a whole number of picoseconds
/// (a 424-bit cell at 155.52 Mbit/s takes 2 726 337.45... ps). `SerialClock` hands out
/// whole-picosecond durations whose running sum is always `floor(k * bits * 1e12 / rate)`
/// for `k` units, so the error never exceeds one picosecond and never accumulates.
/// It is a [`UnitTime`] with its own running remainder.
#[derive(Clone, Debug)]
pub struct SerialClock {
    unit: UnitTime,
    acc: u64,
}

impl SerialClock {
    /// A clock for units of `bits` bits on a line of `rate_bps` bit/s (`rate_bps > 0`).
    pub fn new(rate_bps: u64, bits: u64) -> Self {
        assert!(rate_bps > 0, "SerialClock needs a positive rate");
        SerialClock {
            unit: UnitTime::new(rate_bps, bits),
            acc: 0,
        }
    }

    /// Duration of the next unit, in picoseconds.
    #[inline]
    pub fn next_duration(&mut self) -> Time {
        self.unit.next_duration(&mut self.acc)
    }

    /// The exact duration of one unit in seconds (for reporting).
    pub fn unit_secs(&self) -> f64 {
        self.unit.unit_secs()
    }

    /// The line rate in bit/s.
    pub fn rate_bps(&self) -> u64 {
        self.unit.rate_bps()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_clock_has_no_drift() {
        // 424-bit cells at 155.52 Mbit/s: 1e6 cells must take floor(1e6*424e12/155.52e6) ps.
        let mut c = SerialClock::new(155_520_000, 424);
        let mut sum: u128 = 0;
        for _ in 0..1_000_000 {
            sum += c.next_duration() as u128;
        }
        let exact = 1_000_000u128 * 424 * PS_PER_S as u128 / 155_520_000;
        assert_eq!(sum, exact);
    }

    #[test]
    fn a_shared_unit_time_spaces_each_line_exactly() {
        // Lines of one rate share a UnitTime and keep their own remainders: after its k-th
        // cell each line has taken exactly floor(k * 424e12 / rate) ps, however the lines'
        // cells interleave.
        for rate in [155_520_000u64, 149_760_000, 1_500_000, 622_080_000, 64_000] {
            let unit = UnitTime::new(rate, 424);
            let exact = |k: u128| k * 424 * PS_PER_S as u128 / rate as u128;
            let (mut acc, mut sum, mut cells) = ([0u64; 3], [0u128; 3], [0u128; 3]);
            for step in 0..30_000u32 {
                let line = (step % 7 % 3) as usize; // an uneven interleaving of three lines
                sum[line] += unit.next_duration(&mut acc[line]) as u128;
                cells[line] += 1;
                assert_eq!(sum[line], exact(cells[line]), "rate {rate}, line {line}");
            }
            assert_eq!(unit.rate_bps(), rate);
            let secs = 424.0 / rate as f64;
            assert!((unit.unit_secs() - secs).abs() < 1e-15, "rate {rate}");
        }
    }

    #[test]
    fn maybe_time_holds_a_time_or_none_in_eight_bytes() {
        assert_eq!(std::mem::size_of::<MaybeTime>(), 8);
        assert_eq!(MaybeTime::default().get(), None);
        assert_eq!(MaybeTime::NONE.get(), None);
        for t in [0, 1, 2_726_337, Time::MAX - 1] {
            assert_eq!(MaybeTime::some(t).get(), Some(t));
        }
    }

    #[test]
    fn serial_clock_integer_rate_is_exact() {
        let mut c = SerialClock::new(424_000_000, 424);
        for _ in 0..10 {
            assert_eq!(c.next_duration(), PS_PER_US);
        }
    }

    #[test]
    fn round_to_time_is_round() {
        let mut edge = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            0.49999999999999994,
            1.5,
            2.5,
            -1.5,
            1e-300,
            -1e-300,
            f64::MIN_POSITIVE,
            f64::EPSILON,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            4503599627370495.5,
            4503599627370496.0,
            9007199254740991.0,
            9007199254740993.0,
            2f64.powi(63).next_down(),
            2f64.powi(63),
            2f64.powi(63).next_up(),
            2f64.powi(64).next_down(),
            2f64.powi(64),
            2f64.powi(64).next_up(),
            1e12 / 3.0,
            1e12 / 366_792.452_8,
        ];
        for k in 0..2000u32 {
            let v = k as f64 / 4.0;
            edge.extend([v, v + 0.5, (v + 0.5).next_down(), (v + 0.5).next_up()]);
        }
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2_000_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = f64::from_bits(state);
            // Every bit pattern, and the magnitudes the engine sees (1 ps to 10^20 ps).
            let y = 10f64.powf((state >> 11) as f64 / (1u64 << 53) as f64 * 20.0);
            edge.extend([x, y]);
        }
        for x in edge {
            assert_eq!(
                round_to_time(x),
                x.round() as Time,
                "x = {x:e} ({:#x})",
                x.to_bits()
            );
        }
    }

    #[test]
    fn secs_round_trip() {
        assert_eq!(from_secs_f64(0.005), 5 * PS_PER_MS);
        assert_eq!(from_secs_f64(-1.0), 0);
        assert!((to_secs_f64(PS_PER_S * 3) - 3.0).abs() < 1e-12);
    }
}
