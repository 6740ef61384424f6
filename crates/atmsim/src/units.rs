//! Quantities with their units written out, as scenario files spell them.
//!
//! Every quantity in a scenario is a string such as `"155.52 Mbps"`, `"1000 km"`, `"5 us"`,
//! `"512 B"`, `"36000 cells"` or `"80 %"`. A bare number is refused: the unit is part of the
//! value. Parse errors say what was given and which units are allowed.

use atmsim_kernel::{time, Time};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// Splits `"155.52 Mbps"` into `(155.52, "Mbps")`.
fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| {
            !(c.is_ascii_digit() || *c == '.' || *c == '-' || *c == '+' || *c == 'e' || *c == 'E')
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "e" may start a unit (none of ours does), so trim a trailing exponent marker.
    let (num, unit) = s.split_at(end);
    let v: f64 = num.trim().parse().ok()?;
    if !v.is_finite() {
        return None;
    }
    Some((v, unit.trim()))
}

macro_rules! quantity {
    ($name:ident, $what:literal, $pattern:literal, $units:literal, $parse:expr, $fmt:expr) => {
        impl $name {
            /// Parses the written form, e.g. as found in a scenario file.
            pub fn parse(s: &str) -> Result<Self, String> {
                let f: fn(&str) -> Option<Self> = $parse;
                f(s).ok_or_else(|| {
                    format!(
                        "invalid {} {:?}: expected a number followed by a unit, one of {}",
                        $what, s, $units
                    )
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
                        self.visit_i64(v as i64)
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

quantity!(
    Rate,
    "rate",
    "155.52 Mbps",
    "bps, kbps, Mbps, Gbps, cells/s",
    |s| {
        let (v, u) = split_number(s)?;
        let m = match u {
            "bps" | "bit/s" => 1.0,
            "kbps" | "Kbps" | "kbit/s" => 1e3,
            "Mbps" | "Mbit/s" => 1e6,
            "Gbps" | "Gbit/s" => 1e9,
            "cells/s" | "cell/s" => crate::cell::CELL_BITS_F64,
            _ => return None,
        };
        if v < 0.0 {
            return None;
        }
        Some(Rate(v * m))
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
    |s| {
        let (v, u) = split_number(s)?;
        let m = match u {
            "ps" => 1e-12,
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" | "sec" => 1.0,
            "min" => 60.0,
            _ => return None,
        };
        if v < 0.0 {
            return None;
        }
        Some(Duration(time::from_secs_f64(v * m)))
    },
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
        } else {
            write!(f, "{} ps", ps)
        }
    }
);

/// A length of fibre. Stored in metres. Units: m, km.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Length(pub f64);

quantity!(
    Length,
    "length",
    "1000 km",
    "m, km",
    |s| {
        let (v, u) = split_number(s)?;
        let m = match u {
            "m" => 1.0,
            "km" => 1e3,
            _ => return None,
        };
        if v < 0.0 {
            return None;
        }
        Some(Length(v * m))
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
    |s| {
        let (v, u) = split_number(s)?;
        let m = match u {
            "B" | "bytes" => 1.0,
            "kB" => 1e3,
            "KB" | "KiB" => 1024.0,
            "MB" => 1e6,
            "MiB" => 1048576.0,
            _ => return None,
        };
        let b = v * m;
        if b < 0.0 || b.fract() != 0.0 {
            return None;
        }
        Some(Bytes(b as u64))
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
    |s| {
        let (v, u) = split_number(s)?;
        if !matches!(u, "cells" | "cell") || v < 0.0 || v.fract() != 0.0 || v > u32::MAX as f64 {
            return None;
        }
        Some(CellCount(v as u32))
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
    |s| {
        if s.trim() == "unlimited" {
            return Some(BufferSize::Unlimited);
        }
        let (v, u) = split_number(s)?;
        if !matches!(u, "cells" | "cell") || v < 0.0 || v.fract() != 0.0 || v > u32::MAX as f64 {
            return None;
        }
        Some(BufferSize::Cells(v as u32))
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
    |s| {
        let (v, u) = split_number(s)?;
        if v < 0.0 {
            return None;
        }
        match u {
            "%" => Some(Threshold::Percent(v)),
            "cells" | "cell" if v.fract() == 0.0 && v <= u32::MAX as f64 => {
                Some(Threshold::Cells(v as u32))
            }
            _ => None,
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
    |s| {
        if s.trim() == "exact" {
            return Some(Granularity::Exact);
        }
        match Duration::parse(s) {
            Ok(d) if d.0 > 0 => Some(Granularity::Tick(d.0)),
            _ => None,
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
    |s| {
        if s.trim() == "random" {
            return Some(TickPhase::Random);
        }
        Duration::parse(s).ok().map(|d| TickPhase::Fixed(d.0))
    },
    |p, f| match p {
        TickPhase::Random => write!(f, "random"),
        TickPhase::Fixed(t) => write!(f, "{}", Duration(*t)),
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(Rate::parse("155.52 Mbps").unwrap().0, 155.52e6);
        assert_eq!(Rate::parse("10 cells/s").unwrap().0, 4240.0);
        assert!(Rate::parse("155").is_err());
        assert!(Rate::parse("155 furlongs").unwrap_err().contains("Mbps"));
        assert!(Rate::parse("-5 Mbps").is_err());
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
    fn bare_numbers_are_refused_with_a_hint() {
        let e = serde_json::from_str::<Rate>("155").unwrap_err().to_string();
        assert!(e.contains("unit is missing"), "{e}");
    }
}
