//! Readers of plain numbers (no unit) whose type errors say what the key allows: serde's
//! own said "expected u32" or "expected f64" (worded "a whole number, 0 or more" and "a
//! number" by [`super::error::plain_types`]), so `nrm = "32 cells"` was told 0 was fine
//! and `target_utilization = "90 %"` was not told its range (found by review). The range
//! itself is still checked where the key is resolved, with its own message; these only
//! name it when the value is not even a number of the right kind.
//!
//! Used as `#[serde(default, deserialize_with = "...")]` on `Option` fields: a JSON `null`
//! is read as unset, as the plain `Option` read it.

use serde::de::{Deserializer, Error, Unexpected, Visitor};
use std::fmt;

/// What a key allows, for the message.
struct Allowed<T> {
    what: &'static str,
    kind: std::marker::PhantomData<T>,
}

impl<T> Allowed<T> {
    const fn new(what: &'static str) -> Self {
        Allowed {
            what,
            kind: std::marker::PhantomData,
        }
    }
}

impl<'de> Visitor<'de> for Allowed<u32> {
    type Value = Option<u32>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.what)
    }
    fn visit_none<E: Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_u32(self)
    }
    fn visit_u64<E: Error>(self, v: u64) -> Result<Self::Value, E> {
        u32::try_from(v)
            .map(Some)
            .map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
    }
    fn visit_i64<E: Error>(self, v: i64) -> Result<Self::Value, E> {
        u32::try_from(v)
            .map(Some)
            .map_err(|_| E::invalid_value(Unexpected::Signed(v), &self))
    }
}

impl<'de> Visitor<'de> for Allowed<f64> {
    type Value = Option<f64>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.what)
    }
    fn visit_none<E: Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_f64(self)
    }
    fn visit_f64<E: Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(v))
    }
    fn visit_u64<E: Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(v as f64))
    }
    fn visit_i64<E: Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(v as f64))
    }
}

/// Nrm (seed 003, TM 4.0: 2 to 256 cells per forward RM cell), written without a unit.
pub fn nrm<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    d.deserialize_option(Allowed::<u32>::new(
        "a whole number of cells from 2 to 256, without a unit (e.g. 32)",
    ))
}

/// A share of a link: above 0 and at most 1, written as a number (target utilization).
pub fn share<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    d.deserialize_option(Allowed::<f64>::new(
        "a number above 0 and at most 1, without a unit (e.g. 0.9 for 90 %)",
    ))
}

/// A factor above 0 and at most 1 (RIF, RDF), written as a number.
pub fn factor<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    d.deserialize_option(Allowed::<f64>::new(
        "a number above 0 and at most 1 (e.g. 0.0625 for 1/16)",
    ))
}

#[cfg(test)]
mod tests {
    #[derive(serde::Deserialize, Debug)]
    struct T {
        #[serde(default, deserialize_with = "super::nrm")]
        nrm: Option<u32>,
        #[serde(default, deserialize_with = "super::share")]
        u: Option<f64>,
    }

    fn read(json: &str) -> Result<T, String> {
        serde_json::from_str::<T>(json).map_err(|e| e.to_string())
    }

    #[test]
    fn numbers_read_as_before_and_type_errors_name_the_range() {
        let t = read(r#"{"nrm": 32, "u": 1}"#).unwrap();
        assert_eq!((t.nrm, t.u), (Some(32), Some(1.0)));
        let t = read(r#"{"nrm": null}"#).unwrap();
        assert_eq!((t.nrm, t.u), (None, None));
        let e = read(r#"{"nrm": "32 cells"}"#).unwrap_err();
        assert!(e.contains("from 2 to 256, without a unit"), "{e}");
        let e = read(r#"{"nrm": -5}"#).unwrap_err();
        assert!(e.contains("-5") && e.contains("from 2 to 256"), "{e}");
        let e = read(r#"{"u": "90 %"}"#).unwrap_err();
        assert!(
            e.contains("above 0 and at most 1") && e.contains("0.9"),
            "{e}"
        );
        let toml: T = toml::from_str("nrm = 16\nu = 0.5").unwrap();
        assert_eq!((toml.nrm, toml.u), (Some(16), Some(0.5)));
    }
}
