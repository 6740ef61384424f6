//! Quantities with their units written out, as scenario files spell them.
//!
//! Every quantity in a scenario is a string such as `"155.52 Mbps"`, `"1000 km"`, `"5 us"`,
//! `"512 B"`, `"36000 cells"` or `"80 %"`. A bare number is refused: the unit is part of the
//! value. Parse errors say what was given and which units are allowed.
//!
//! Every quantity has a valid range, and a value outside it is an error, never clamped or
//! saturated (issue 18, items 1 and 2). The ranges are the constants below:
//! * rates: 0, or from one cell per second ([`MIN_RATE_BPS`], 424 bit/s) to [`MAX_RATE_BPS`]
//!   (1 Tbps, a cell every 424 ps);
//! * durations: 0, or from 1 ps to [`MAX_DURATION_PS`] (10^6 s, about 11.6 days), so that a
//!   time plus a delay plus an interval still fits the 2^64 ps clock (about 213 days);
//! * lengths: up to [`MAX_LENGTH_M`] (10^6 km, 5 s of propagation);
//! * sizes: up to [`MAX_BYTES`] (1 TiB); cell counts: up to 2^32 - 1 cells.
//!
//! Numbers must be finite. Echoed values are cut to [`ECHO_CHARS`] characters.

use atmsim_kernel::{time, Time, PS_PER_S};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// The smallest non-zero rate: one 424-bit cell per second.
pub const MIN_RATE_BPS: f64 = 424.0;
/// The largest rate: 1 Tbps.
pub const MAX_RATE_BPS: f64 = 1e12;
/// The longest duration: 10^6 s, in picoseconds (2^64 ps is about 1.8 * 10^7 s).
pub const MAX_DURATION_PS: Time = 1_000_000 * PS_PER_S;
/// The longest fibre: 10^6 km, in metres.
pub const MAX_LENGTH_M: f64 = 1e9;
/// The largest size: 1 TiB.
pub const MAX_BYTES: u64 = 1 << 40;
/// Values echoed in messages are cut to this many characters.
pub const ECHO_CHARS: usize = 80;

/// `s` quoted for a message, cut to [`ECHO_CHARS`] characters with an ellipsis.
pub fn echo(s: &str) -> String {
    if s.chars().count() <= ECHO_CHARS {
        format!("{s:?}")
    } else {
        let cut: String = s.chars().take(ECHO_CHARS).collect();
        format!("{:?}... ({} characters)", cut, s.chars().count())
    }
}

/// Why a written quantity was refused.
#[derive(Debug)]
enum Bad {
    /// Not a number followed by one of the units.
    Form,
    /// Well formed, but outside the valid range: says why and what is allowed.
    Range(String),
    /// A negative number: the quantity's own range says what is allowed.
    Negative,
}

/// Splits `"155.52 Mbps"` into `(155.52, "Mbps")`; refuses non-finite and negative numbers.
fn split_number(s: &str) -> Result<(f64, &str), Bad> {
    let s = s.trim();
    // The number's characters are ASCII; the first other byte (the first byte of a
    // multi-byte character included) starts the unit, at a character boundary.
    let end = s
        .bytes()
        .position(|c| !(c.is_ascii_digit() || matches!(c, b'.' | b'-' | b'+' | b'e' | b'E')))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(end);
    let v: f64 = match small_integer(num) {
        Some(v) => v,
        None => num.parse().map_err(|_| Bad::Form)?,
    };
    if !v.is_finite() {
        return Err(Bad::Range("the number is not finite".into()));
    }
    if v < 0.0 {
        return Err(Bad::Negative);
    }
    Ok((v, unit.trim()))
}

/// `num` as a number if it is a plain integer of at most 15 digits: exactly what `parse`
/// gives it (every such integer is an `f64`), without the general parser (a large
/// scenario's thousands of `"1 ms"` delays; issue 14).
fn small_integer(num: &str) -> Option<f64> {
    if num.is_empty() || num.len() > 15 || !num.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let n = num.bytes().fold(0u64, |n, c| n * 10 + u64::from(c - b'0'));
    Some(n as f64)
}

/// Converts `secs` seconds to picoseconds, refusing what does not fit [`MAX_DURATION_PS`]
/// and non-zero values that round to 0 ps.
fn checked_ps(secs: f64) -> Result<Time, Bad> {
    let ps = secs * PS_PER_S as f64;
    if ps > MAX_DURATION_PS as f64 {
        return Err(Bad::Range(format!(
            "above the maximum of {} s (times must fit the picosecond clock with room for the run)",
            MAX_DURATION_PS / PS_PER_S
        )));
    }
    if ps > 0.0 && ps < 0.5 {
        return Err(Bad::Range(
            "below the 1 ps resolution; allowed: 0, or 1 ps to 1000000 s".into(),
        ));
    }
    Ok(time::from_secs_f64(secs))
}

/// Checks a whole count of `unit` (bytes or cells) against `max`, written `max_text` in
/// messages ("1 TiB"; `"{max} {unit}"` if None).
fn whole(v: f64, max: f64, unit: &str, max_text: Option<&str>) -> Result<f64, Bad> {
    if v.fract() != 0.0 {
        return Err(Bad::Range(format!("not a whole number of {unit}")));
    }
    if v > max {
        return Err(Bad::Range(match max_text {
            Some(m) => format!("above the maximum of {m}"),
            None => format!("above the maximum of {max} {unit}"),
        }));
    }
    Ok(v)
}

macro_rules! quantity {
    ($name:ident, $what:literal, $pattern:literal, $units:literal, $range:expr, $parse:expr, $fmt:expr) => {
        impl $name {
            /// Parses the written form, e.g. as found in a scenario file.
            pub fn parse(s: &str) -> Result<Self, String> {
                let f: fn(&str) -> Result<Self, Bad> = $parse;
                f(s).map_err(|b| match b {
                    Bad::Form => format!(
                        "invalid {} {}: expected a number followed by a unit, one of {}",
                        $what,
                        echo(s),
                        $units
                    ),
                    Bad::Range(why) => {
                        format!("invalid {} {}: {}; units: {}", $what, echo(s), why, $units)
                    }
                    Bad::Negative => format!(
                        "invalid {} {}: negative; allowed: {}; units: {}",
                        $what,
                        echo(s),
                        $range,
                        $units
                    ),
                })
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let g: fn(&Self, &mut fmt::Formatter<'_>) -> fmt::Result = $fmt;
                g(self, f)
            }
        }
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> de::Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        write!(f, "a {} written with its unit ({}), e.g. {:?}", $what, $units, $pattern)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        $name::parse(s).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            "invalid {} {}: the unit is missing; write it out, one of {} (e.g. {:?})",
                            $what, v, $units, $pattern
                        )))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            "invalid {} {}: the unit is missing; write it out, one of {} (e.g. {:?})",
                            $what, v, $units, $pattern
                        )))
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            "invalid {} {}: the unit is missing; write it out, one of {} (e.g. {:?})",
                            $what, v, $units, $pattern
                        )))
                    }
                }
                d.deserialize_any(V)
            }
        }
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }
        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({
                    "type": "string",
                    "description": concat!("A ", $what, " with its unit: ", $units, ". Example: ", $pattern),
                    "examples": [$pattern]
                })
            }
        }
    };
}

/// A bit rate. Stored in bit/s. Units: bps, kbps, Mbps, Gbps, or cells/s (53-byte cells).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate(pub f64);

impl Rate {
    /// Bits per second.
    pub fn bps(self) -> f64 {
        self.0
    }
    /// Cells ([`CELL_BITS`](crate::cell::CELL_BITS) bits) per second.
    pub fn cells_per_sec(self) -> f64 {
        self.0 / crate::cell::CELL_BITS_F64
    }
}

/// What a rate may be, for messages: from one cell per second ([`MIN_RATE_BPS`]) to
/// [`MAX_RATE_BPS`] (1 Tbps, written in Gbps: Tbps is not a unit read here); a key that
/// takes 0 says so itself.
const RATE_RANGE: &str = "424 bps (one cell per second) to 1000 Gbps, or 0 where the key takes it";

quantity!(
    Rate,
    "rate",
    "155.52 Mbps",
    "bps, kbps, Mbps, Gbps, cells/s",
    RATE_RANGE,
    |s| {
        let (v, u) = split_number(s)?;
        let m = match u {
            "bps" | "bit/s" => 1.0,
            "kbps" | "Kbps" | "kbit/s" => 1e3,
            "Mbps" | "Mbit/s" => 1e6,
            "Gbps" | "Gbit/s" => 1e9,
            "cells/s" | "cell/s" => crate::cell::CELL_BITS_F64,
            _ => return Err(Bad::Form),
        };
        let bps = v * m;
        if bps > MAX_RATE_BPS {
            return Err(Bad::Range(format!(
                "above the maximum of 1000 Gbps; allowed: {RATE_RANGE}"
            )));
        }
        if bps > 0.0 && bps < MIN_RATE_BPS {
            return Err(Bad::Range(format!(
                "below one cell per second; allowed: {RATE_RANGE}"
            )));
        }
        Ok(Rate(bps))
    },
    |r, f| {
        if r.0 >= 1e6 {
            write!(f, "{} Mbps", r.0 / 1e6)
        } else if r.0 >= 1e3 {
            write!(f, "{} kbps", r.0 / 1e3)
        } else {
            write!(f, "{} bps", r.0)
        }
    }
);

/// A duration or point in time. Stored in picoseconds.
/// Units: ps, ns, us (or µs), ms, s, min.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Duration(pub Time);

impl Duration {
    /// Picoseconds.
    pub fn ps(self) -> Time {
        self.0
    }
    /// Seconds as f64.
    pub fn secs(self) -> f64 {
        time::to_secs_f64(self.0)
    }
}

quantity!(
    Duration,
    "duration",
    "20 s",
    "ps, ns, us, ms, s, min",
    "0 s to 1000000 s",
    |s| duration_of(s).map(Duration),
    |d, f| {
        let ps = d.0;
        if ps == 0 {
            write!(f, "0 s")
        } else if ps % atmsim_kernel::PS_PER_S == 0 {
            write!(f, "{} s", ps / atmsim_kernel::PS_PER_S)
        } else if ps % atmsim_kernel::PS_PER_MS == 0 {
            write!(f, "{} ms", ps / atmsim_kernel::PS_PER_MS)
        } else if ps % atmsim_kernel::PS_PER_US == 0 {
            write!(f, "{} us", ps / atmsim_kernel::PS_PER_US)
        } else if ps % 1_000 == 0 {
            write!(f, "{} ns", ps / 1_000)
        } else {
            write!(f, "{} ps", ps)
        }
    }
);

/// Parses a duration for the types built on it, keeping the range message.
fn duration_of(s: &str) -> Result<Time, Bad> {
    let (v, u) = split_number(s)?;
    let m = match u {
        "ps" => 1e-12,
        "ns" => 1e-9,
        "us" | "µs" | "μs" => 1e-6,
        "ms" => 1e-3,
        "s" | "sec" => 1.0,
        "min" => 60.0,
        _ => return Err(Bad::Form),
    };
    checked_ps(v * m)
}

/// A length of fibre. Stored in metres. Units: m, km.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Length(pub f64);

quantity!(
    Length,
    "length",
    "1000 km",
    "m, km",
    "0 m to 1000000 km",
    |s| {
        let (v, u) = split_number(s)?;
        let m = match u {
            "m" => 1.0,
            "km" => 1e3,
            _ => return Err(Bad::Form),
        };
        if v * m > MAX_LENGTH_M {
            return Err(Bad::Range("above the maximum of 1000000 km".into()));
        }
        Ok(Length(v * m))
    },
    |l, f| write!(f, "{} km", l.0 / 1e3)
);

/// A size in bytes. Units: B, kB (1000 B), KB and KiB (1024 B), MB (10^6 B), MiB (2^20 B).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bytes(pub u64);

quantity!(
    Bytes,
    "size",
    "512 B",
    "B, kB (1000 B), KB or KiB (1024 B), MB (10^6 B), MiB (2^20 B)",
    "0 B to 1 TiB",
    |s| {
        let (v, u) = split_number(s)?;
        let m = match u {
            "B" | "bytes" => 1.0,
            "kB" => 1e3,
            "KB" | "KiB" => 1024.0,
            "MB" => 1e6,
            "MiB" => 1048576.0,
            _ => return Err(Bad::Form),
        };
        let b = whole(v * m, MAX_BYTES as f64, "bytes", Some("1 TiB"))?;
        Ok(Bytes(b as u64))
    },
    |b, f| write!(f, "{} B", b.0)
);

/// A number of cells: `"16 cells"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellCount(pub u32);

quantity!(
    CellCount,
    "cell count",
    "16 cells",
    "cells",
    "0 to 4294967295 cells",
    |s| {
        let (v, u) = split_number(s)?;
        if !matches!(u, "cells" | "cell") {
            return Err(Bad::Form);
        }
        Ok(CellCount(whole(v, u32::MAX as f64, "cells", None)? as u32))
    },
    |b, f| write!(f, "{} cells", b.0)
);

/// A buffer size: `"36000 cells"` or `"unlimited"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferSize {
    /// At most this many cells.
    Cells(u32),
    /// No limit.
    Unlimited,
}

quantity!(
    BufferSize,
    "buffer size",
    "36000 cells",
    "cells, or the word unlimited",
    "a whole number of cells up to 4294967295, or the word unlimited",
    |s| {
        if s.trim() == "unlimited" {
            return Ok(BufferSize::Unlimited);
        }
        let (v, u) = split_number(s)?;
        if !matches!(u, "cells" | "cell") {
            return Err(Bad::Form);
        }
        Ok(BufferSize::Cells(
            whole(v, u32::MAX as f64, "cells", None)? as u32
        ))
    },
    |b, f| match b {
        BufferSize::Cells(n) => write!(f, "{} cells", n),
        BufferSize::Unlimited => write!(f, "unlimited"),
    }
);

/// A buffer threshold: a share of the buffer (`"80 %"`) or a cell count (`"18000 cells"`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Threshold {
    /// A percentage of the port's buffer size K.
    Percent(f64),
    /// An absolute number of cells.
    Cells(u32),
}

impl Threshold {
    /// The threshold in cells for a buffer of `k` cells.
    pub fn cells(self, k: u32) -> f64 {
        match self {
            Threshold::Percent(p) => p / 100.0 * k as f64,
            Threshold::Cells(c) => c as f64,
        }
    }
}

quantity!(
    Threshold,
    "threshold",
    "80 %",
    "% (of the port's buffer size) or cells",
    "0 % or more of the buffer, or 0 to 4294967295 cells",
    |s| {
        let (v, u) = split_number(s)?;
        match u {
            "%" => Ok(Threshold::Percent(v)),
            "cells" | "cell" => Ok(Threshold::Cells(
                whole(v, u32::MAX as f64, "cells", None)? as u32
            )),
            _ => Err(Bad::Form),
        }
    },
    |t, f| match t {
        Threshold::Percent(p) => write!(f, "{} %", p),
        Threshold::Cells(c) => write!(f, "{} cells", c),
    }
);

/// A TCP timer granularity: a duration (`"100 ms"`) or `"exact"` for exact timers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Granularity {
    /// Timers tick every this many picoseconds (BSD style).
    Tick(Time),
    /// Exact (double-precision) timers.
    Exact,
}

quantity!(
    Granularity,
    "timer granularity",
    "100 ms",
    "a duration (ps, ns, us, ms, s) or the word exact",
    "a duration above 0 s, or the word exact",
    |s| {
        if s.trim() == "exact" {
            return Ok(Granularity::Exact);
        }
        match duration_of(s)? {
            0 => Err(Bad::Range("must be above 0 s (or the word exact)".into())),
            t => Ok(Granularity::Tick(t)),
        }
    },
    |g, f| match g {
        Granularity::Tick(t) => write!(f, "{}", Duration(*t)),
        Granularity::Exact => write!(f, "exact"),
    }
);

/// The phase of a host's TCP timer ticks: `"random"` (uniform over one tick, drawn from
/// the run seed) or a fixed offset such as `"0 s"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TickPhase {
    /// Uniform in [0, tick), from the connection's own random stream.
    Random,
    /// This offset from time 0.
    Fixed(Time),
}

quantity!(
    TickPhase,
    "tick phase",
    "random",
    "the word random, or a duration (ps, ns, us, ms, s)",
    "the word random, or a duration of 0 s or more",
    |s| {
        if s.trim() == "random" {
            return Ok(TickPhase::Random);
        }
        duration_of(s).map(TickPhase::Fixed)
    },
    |p, f| match p {
        TickPhase::Random => write!(f, "random"),
        TickPhase::Fixed(t) => write!(f, "{}", Duration(*t)),
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    /// The rate range's text says the limits the code holds to.
    #[test]
    fn the_rate_range_text_is_the_limits() {
        assert!(
            RATE_RANGE.starts_with(&format!("{MIN_RATE_BPS} bps ")),
            "{RATE_RANGE}"
        );
        assert!(
            RATE_RANGE.contains(&format!("to {} Gbps", MAX_RATE_BPS / 1e9)),
            "{RATE_RANGE}"
        );
    }

    #[test]
    fn rates() {
        assert_eq!(Rate::parse("155.52 Mbps").unwrap().0, 155.52e6);
        assert_eq!(Rate::parse("10 cells/s").unwrap().0, 4240.0);
        assert!(Rate::parse("155").is_err());
        assert!(Rate::parse("155 furlongs").unwrap_err().contains("Mbps"));
        assert!(Rate::parse("-5 Mbps").is_err());
    }

    #[test]
    fn small_integers_read_as_the_general_parser_reads_them() {
        for num in [
            "0",
            "1",
            "007",
            "10",
            "999999999999999",
            "123456789012345",
            "9007199254740",
        ] {
            assert_eq!(
                small_integer(num),
                Some(num.parse::<f64>().unwrap()),
                "{num}"
            );
        }
        // Left to the general parser: empty, too long, signs, fractions, exponents.
        for num in ["", "1234567890123456", "+1", "-1", "1.5", "1e3", "1.", ".5"] {
            assert_eq!(small_integer(num), None, "{num}");
        }
        // The same values and errors either way, through the units.
        assert_eq!(split_number("15 ms").unwrap(), (15.0, "ms"));
        assert_eq!(split_number(" 1.5e1ms ").unwrap(), (15.0, "ms"));
        assert_eq!(split_number("5 µs").unwrap(), (5.0, "µs"));
        assert!(matches!(split_number("µs"), Err(Bad::Form)));
        assert!(matches!(split_number("1-2 s"), Err(Bad::Form)));
    }

    #[test]
    fn durations() {
        assert_eq!(Duration::parse("5 us").unwrap().0, 5_000_000);
        assert_eq!(
            Duration::parse("20 s").unwrap().0,
            20 * atmsim_kernel::PS_PER_S
        );
        assert_eq!(Duration::parse("0.5 ms").unwrap().to_string(), "500 us");
        assert!(Duration::parse("5").is_err());
    }

    #[test]
    fn sizes_and_buffers() {
        assert_eq!(Bytes::parse("64 KB").unwrap().0, 65536);
        assert_eq!(Bytes::parse("600000 B").unwrap().0, 600000);
        assert!(Bytes::parse("0.5 B").is_err());
        assert_eq!(
            BufferSize::parse("unlimited").unwrap(),
            BufferSize::Unlimited
        );
        assert_eq!(
            BufferSize::parse("1000 cells").unwrap(),
            BufferSize::Cells(1000)
        );
        assert!(BufferSize::parse("-1 cells").is_err());
        assert_eq!(Threshold::parse("50 %").unwrap().cells(1000), 500.0);
        assert_eq!(Granularity::parse("exact").unwrap(), Granularity::Exact);
        assert_eq!(
            Granularity::parse("100 ms").unwrap(),
            Granularity::Tick(100_000_000_000)
        );
        assert!(Granularity::parse("0 ms").is_err());
    }

    #[test]
    fn rates_outside_the_range_are_refused() {
        assert_eq!(Rate::parse("0 bps").unwrap().0, 0.0);
        assert_eq!(Rate::parse("1 cells/s").unwrap().0, 424.0);
        assert_eq!(Rate::parse("1000 Gbps").unwrap().0, 1e12);
        let e = Rate::parse("1e-12 Mbps").unwrap_err();
        assert!(
            e.contains("1e-12 Mbps") && e.contains("below one cell per second"),
            "{e}"
        );
        assert!(e.contains("424 bps") && e.contains("1000 Gbps"), "{e}");
        let e = Rate::parse("1e300 Mbps").unwrap_err();
        assert!(e.contains("above the maximum of 1000 Gbps"), "{e}");
        assert!(Rate::parse("1e400 Mbps")
            .unwrap_err()
            .contains("not finite"));
        assert!(Rate::parse("NaN Mbps").is_err());
        assert!(Rate::parse("inf Mbps").is_err());
    }

    #[test]
    fn durations_that_do_not_fit_the_clock_are_refused() {
        // 2^64 ps is about 1.8e7 s: these used to saturate silently.
        for s in ["1e12 s", "1e8 s", "1.9e7 s", "20000 min", "1e30 ps"] {
            let e = Duration::parse(s).unwrap_err();
            assert!(e.contains("above the maximum of 1000000 s"), "{s}: {e}");
            assert!(e.contains(s), "{e}");
        }
        assert_eq!(Duration::parse("1000000 s").unwrap().0, MAX_DURATION_PS);
        assert_eq!(Duration::parse("1 ps").unwrap().0, 1);
        assert_eq!(Duration::parse("0 s").unwrap().0, 0);
        assert!(Duration::parse("0.1 ps")
            .unwrap_err()
            .contains("resolution"));
        assert!(Duration::parse("-1 s").unwrap_err().contains("negative"));
        assert!(Granularity::parse("1e9 s").unwrap_err().contains("maximum"));
        assert!(TickPhase::parse("1e9 s").unwrap_err().contains("maximum"));
    }

    #[test]
    fn sizes_and_lengths_outside_the_range_are_refused() {
        assert!(Bytes::parse("1e30 B").unwrap_err().contains("maximum"));
        assert!(Bytes::parse("2 TiB").is_err());
        assert_eq!(Bytes::parse("1 MiB").unwrap().0, 1 << 20);
        assert!(Length::parse("1e300 km").unwrap_err().contains("maximum"));
        assert!(CellCount::parse("1e10 cells")
            .unwrap_err()
            .contains("maximum"));
        assert!(BufferSize::parse("1e10 cells")
            .unwrap_err()
            .contains("maximum"));
        assert!(Threshold::parse("1.5 cells").unwrap_err().contains("whole"));
    }

    #[test]
    fn long_values_are_cut_in_messages() {
        let long = format!("{} Mbps", "9".repeat(100_000));
        let e = Rate::parse(&long).unwrap_err();
        assert!(e.len() < 300, "{} chars", e.len());
        assert!(e.contains("100005 characters"), "{e}");
        let e = Rate::parse(&"x".repeat(1000)).unwrap_err();
        assert!(e.len() < 300, "{e}");
    }

    #[test]
    fn bare_numbers_are_refused_with_a_hint() {
        let e = serde_json::from_str::<Rate>("155").unwrap_err().to_string();
        assert!(e.contains("unit is missing"), "{e}");
    }
}
