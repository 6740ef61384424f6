//! A result's tables (one row per connection, one per port) as typed columns, the form the
//! Python extension hands them over in: per field, one array of numbers (or the strings
//! joined), a validity mask where some rows are null, and a small description of the
//! fields ([`Table::spec`]).
//!
//! Python makes from them the DataFrames it made from the JSON rows before, with the same
//! values, column order and dtypes, and `RunResult.raw` the same rows. What each field's
//! JSON value was decides its column:
//!
//! | JSON values of a field (as serde_json writes them) | kind | pandas made |
//! |---|---|---|
//! | integers | `int` (`i64`) | `int64`; with some nulls `float64`, NaN for null |
//! | numbers with a fraction (`f64`; a non-finite one is `null`) | `float` (`f64`) | `float64`, NaN for null |
//! | `true` / `false` | `bool` | `bool` |
//! | strings | `str` | the strings' inferred dtype |
//! | only nulls | `null` | `object` column of None |
//! | objects (a port's `drops`) | `map`: one column per key, in order of first appearance | (expanded by Python) |
//!
//! At 10 000 one-pair VCs the tables as JSON columns (the fifteenth session's form) were
//! 8.5 MB of text: `json.loads` and pandas' inference from the lists were 0.46 s of a 1.0 s
//! `atmsim.run()` whose event loop took 0.17 s (issue 14, item 3: results become DataFrames
//! without Python loops).

use serde::ser::{self, Impossible, Serialize, SerializeMap, SerializeStruct, Serializer};
use std::fmt;

/// A table as typed columns, in its rows' field order.
#[derive(Debug, Default)]
pub struct Table {
    /// Rows.
    pub rows: usize,
    /// One per field.
    pub columns: Vec<Column>,
    /// The fields' names as the rows give them (checked against each row's).
    keys: Vec<&'static str>,
    /// The rows it will have ([`Column::rows_expected`]).
    rows_expected: usize,
}

/// One field's values, one per row.
#[derive(Debug)]
pub struct Column {
    /// The field.
    pub name: String,
    /// The values (a placeholder where a row is null).
    pub values: Values,
    /// False where a row's value is null.
    pub valid: Vec<bool>,
    /// The rows the table will have: the capacity its vectors are made with, so that
    /// none grows row by row (issue 14: at 10 000 VCs the tables' 50 000 rows).
    rows_expected: usize,
}

/// The values of a column, by kind.
#[derive(Debug)]
pub enum Values {
    /// Only nulls so far.
    Null,
    /// Integers.
    Int(Vec<i64>),
    /// Numbers with a fraction.
    Float(Vec<f64>),
    /// Booleans.
    Bool(Vec<bool>),
    /// Strings, with where each ends in `text`.
    Str {
        /// The strings one after another.
        text: String,
        /// The end of each string in `text`.
        ends: Vec<usize>,
    },
    /// An object per row: one column per key, in order of first appearance.
    Map(Vec<Column>),
}

/// A value's kind, to make a column of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Int,
    Float,
    Bool,
    Str,
    Map,
}

impl Values {
    fn is(&self, kind: Kind) -> bool {
        matches!(
            (self, kind),
            (Values::Int(_), Kind::Int)
                | (Values::Float(_), Kind::Float)
                | (Values::Bool(_), Kind::Bool)
                | (Values::Str { .. }, Kind::Str)
                | (Values::Map(_), Kind::Map)
        )
    }

    /// The kind's name in [`Table::spec`].
    pub fn kind(&self) -> &'static str {
        match self {
            Values::Null => "null",
            Values::Int(_) => "int",
            Values::Float(_) => "float",
            Values::Bool(_) => "bool",
            Values::Str { .. } => "str",
            Values::Map(_) => "map",
        }
    }
}

impl Column {
    /// A column of `name` null in the `rows` rows so far, of `expected` rows in all.
    fn new(name: String, rows: usize, expected: usize) -> Self {
        let mut valid = Vec::with_capacity(expected.max(rows));
        valid.resize(rows, false);
        Column {
            name,
            values: Values::Null,
            valid,
            rows_expected: expected,
        }
    }

    /// True if some row is null.
    pub fn has_nulls(&self) -> bool {
        self.valid.iter().any(|v| !v)
    }

    /// The string of row `i` (a `str` column).
    pub fn str_at(&self, i: usize) -> Option<&str> {
        match &self.values {
            Values::Str { text, ends } => {
                let start = if i == 0 { 0 } else { ends[i - 1] };
                Some(&text[start..ends[i]])
            }
            _ => None,
        }
    }

    /// Makes the column hold `kind`'s values (placeholders for the rows so far) if it held
    /// only nulls; an integer column takes a float by becoming a float column (the JSON
    /// list of both became `float64`). False if `kind` cannot join the column.
    #[inline(always)]
    fn become_kind(&mut self, kind: Kind) -> bool {
        self.values.is(kind)
            || (kind == Kind::Int && matches!(self.values, Values::Float(_)))
            || self.change_kind(kind)
    }

    /// [`Column::become_kind`] for a column that does not hold `kind`'s values yet: at most
    /// once per change of a column's kind (null to a kind, integers to floats), out of the
    /// per-value path.
    #[cold]
    #[inline(never)]
    fn change_kind(&mut self, kind: Kind) -> bool {
        let n = self.valid.len();
        // The rows so far as placeholders, with room for the rest.
        fn filled<T: Clone>(x: T, n: usize, expected: usize) -> Vec<T> {
            let mut v = Vec::with_capacity(expected.max(n));
            v.resize(n, x);
            v
        }
        let expected = self.rows_expected;
        self.values = match (&self.values, kind) {
            (Values::Null, Kind::Int) => Values::Int(filled(0, n, expected)),
            (Values::Null, Kind::Float) => Values::Float(filled(f64::NAN, n, expected)),
            (Values::Null, Kind::Bool) => Values::Bool(filled(false, n, expected)),
            (Values::Null, Kind::Str) => Values::Str {
                text: String::new(),
                ends: filled(0, n, expected),
            },
            (Values::Null, Kind::Map) => Values::Map(Vec::new()),
            (Values::Int(v), Kind::Float) => {
                let mut floats = Vec::with_capacity(expected.max(n));
                floats.extend(v.iter().map(|&x| x as f64));
                Values::Float(floats)
            }
            _ => return false,
        };
        true
    }

    fn push_null(&mut self) {
        self.valid.push(false);
        match &mut self.values {
            Values::Null => {}
            Values::Int(v) => v.push(0),
            Values::Float(v) => v.push(f64::NAN),
            Values::Bool(v) => v.push(false),
            Values::Str { text, ends } => ends.push(text.len()),
            Values::Map(cols) => cols.iter_mut().for_each(Column::push_null),
        }
    }
}

/// The rows of a table as typed columns. Every row must be a struct with the first row's
/// fields in its order, each a scalar, an option of one or a map of scalars (the
/// serializer refuses anything else).
pub fn columns<T: Serialize>(rows: &[T]) -> Table {
    let mut t = Table {
        rows_expected: rows.len(),
        ..Table::default()
    };
    for row in rows {
        let mut w = RowWriter {
            table: &mut t,
            field: 0,
        };
        row.serialize(&mut w)
            .expect("a result row is a struct of scalars and maps");
        t.rows += 1;
    }
    t
}

impl Table {
    /// What Python needs besides the arrays: `{"rows": n, "fields": [{"name", "kind",
    /// "nulls"} or, for a map, {"name", "kind": "map", "keys": [...the same...]}]}`.
    pub fn spec(&self) -> serde_json::Value {
        fn field(c: &Column) -> serde_json::Value {
            match &c.values {
                Values::Map(keys) => serde_json::json!({
                    "name": c.name, "kind": "map", "keys": keys.iter().map(field).collect::<Vec<_>>()
                }),
                v => serde_json::json!({"name": c.name, "kind": v.kind(), "nulls": c.has_nulls()}),
            }
        }
        serde_json::json!({"rows": self.rows, "fields": self.columns.iter().map(field).collect::<Vec<_>>()})
    }
}

struct RowWriter<'t> {
    table: &'t mut Table,
    field: usize,
}

/// Why a row could not be written as typed columns.
#[derive(Debug)]
struct NotATableRow(String);

impl fmt::Display for NotATableRow {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotATableRow {}

impl ser::Error for NotATableRow {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        NotATableRow(msg.to_string())
    }
}

fn refused<T>(what: &str) -> Result<T, NotATableRow> {
    Err(NotATableRow(format!("a table row cannot hold {what}")))
}

impl SerializeStruct for &mut RowWriter<'_> {
    type Ok = ();
    type Error = NotATableRow;

    fn serialize_field<V: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &V,
    ) -> Result<(), NotATableRow> {
        let row = self.table.rows;
        if row == 0 {
            let expected = self.table.rows_expected;
            self.table
                .columns
                .push(Column::new(key.to_string(), 0, expected));
            self.table.keys.push(key);
        }
        let Some(&expected) = self.table.keys.get(self.field) else {
            return Err(NotATableRow(format!(
                "row {row} has more fields than the first"
            )));
        };
        if !std::ptr::eq(expected, key) && expected != key {
            return Err(NotATableRow(format!(
                "row {row}: field {key}, expected {expected}"
            )));
        }
        let col = &mut self.table.columns[self.field];
        value.serialize(ValueWriter { col, map: false })?;
        self.field += 1;
        Ok(())
    }

    fn end(self) -> Result<(), NotATableRow> {
        if self.field != self.table.columns.len() {
            return Err(NotATableRow(format!(
                "row {} has fewer fields than the first",
                self.table.rows
            )));
        }
        Ok(())
    }
}

/// Only a struct is a row.
macro_rules! not_a_row {
    ($($name:ident($($arg:ty),*);)*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<(), NotATableRow> {
            refused("anything but a struct as a row")
        })*
    };
}

impl<'w, 't> Serializer for &'w mut RowWriter<'t> {
    type Ok = ();
    type Error = NotATableRow;
    type SerializeSeq = Impossible<(), NotATableRow>;
    type SerializeTuple = Impossible<(), NotATableRow>;
    type SerializeTupleStruct = Impossible<(), NotATableRow>;
    type SerializeTupleVariant = Impossible<(), NotATableRow>;
    type SerializeMap = Impossible<(), NotATableRow>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), NotATableRow>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, NotATableRow> {
        Ok(self)
    }

    not_a_row! {
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32);
        serialize_i64(i64); serialize_u8(u8); serialize_u16(u16); serialize_u32(u32);
        serialize_u64(u64); serialize_f32(f32); serialize_f64(f64); serialize_char(char);
        serialize_str(&str); serialize_bytes(&[u8]); serialize_none(); serialize_unit();
        serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }

    fn serialize_some<V: ?Sized + Serialize>(self, _: &V) -> Result<(), NotATableRow> {
        refused("anything but a struct as a row")
    }
    fn serialize_newtype_struct<V: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &V,
    ) -> Result<(), NotATableRow> {
        refused("anything but a struct as a row")
    }
    fn serialize_newtype_variant<V: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &V,
    ) -> Result<(), NotATableRow> {
        refused("anything but a struct as a row")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotATableRow> {
        refused("anything but a struct as a row")
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotATableRow> {
        refused("anything but a struct as a row")
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, NotATableRow> {
        refused("anything but a struct as a row")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotATableRow> {
        refused("anything but a struct as a row")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, NotATableRow> {
        refused("anything but a struct as a row")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotATableRow> {
        refused("anything but a struct as a row")
    }
}

/// Writes one value into its column (`map`: the value of a map's key, which is a column
/// of its own and must be a scalar).
struct ValueWriter<'c> {
    col: &'c mut Column,
    map: bool,
}

impl ValueWriter<'_> {
    #[inline(always)]
    fn push(self, kind: Kind, put: impl FnOnce(&mut Values)) -> Result<(), NotATableRow> {
        if !self.col.become_kind(kind) {
            return Err(NotATableRow(format!(
                "field {} mixes {} with other values",
                self.col.name,
                self.col.values.kind()
            )));
        }
        put(&mut self.col.values);
        self.col.valid.push(true);
        Ok(())
    }

    #[inline]
    fn int(self, x: i64) -> Result<(), NotATableRow> {
        self.push(Kind::Int, |v| match v {
            Values::Int(v) => v.push(x),
            Values::Float(v) => v.push(x as f64),
            _ => unreachable!("an integer joins an integer or float column"),
        })
    }

    #[inline]
    fn float(self, x: f64) -> Result<(), NotATableRow> {
        if !x.is_finite() {
            // serde_json writes a non-finite number as null.
            self.col.push_null();
            return Ok(());
        }
        self.push(Kind::Float, |v| match v {
            Values::Float(v) => v.push(x),
            _ => unreachable!("a float joins a float column"),
        })
    }
}

/// Refuses the serializer methods that a table's value cannot be.
macro_rules! refuse {
    ($($name:ident($($arg:ty),*) $what:literal;)*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<(), NotATableRow> {
            refused($what)
        })*
    };
}

impl<'c> Serializer for ValueWriter<'c> {
    type Ok = ();
    type Error = NotATableRow;
    type SerializeSeq = Impossible<(), NotATableRow>;
    type SerializeTuple = Impossible<(), NotATableRow>;
    type SerializeTupleStruct = Impossible<(), NotATableRow>;
    type SerializeTupleVariant = Impossible<(), NotATableRow>;
    type SerializeMap = MapWriter<'c>;
    type SerializeStruct = Impossible<(), NotATableRow>;
    type SerializeStructVariant = Impossible<(), NotATableRow>;

    fn serialize_bool(self, x: bool) -> Result<(), NotATableRow> {
        self.push(Kind::Bool, |v| match v {
            Values::Bool(v) => v.push(x),
            _ => unreachable!("a bool joins a bool column"),
        })
    }
    fn serialize_i8(self, x: i8) -> Result<(), NotATableRow> {
        self.int(x.into())
    }
    fn serialize_i16(self, x: i16) -> Result<(), NotATableRow> {
        self.int(x.into())
    }
    fn serialize_i32(self, x: i32) -> Result<(), NotATableRow> {
        self.int(x.into())
    }
    fn serialize_i64(self, x: i64) -> Result<(), NotATableRow> {
        self.int(x)
    }
    fn serialize_u8(self, x: u8) -> Result<(), NotATableRow> {
        self.int(x.into())
    }
    fn serialize_u16(self, x: u16) -> Result<(), NotATableRow> {
        self.int(x.into())
    }
    fn serialize_u32(self, x: u32) -> Result<(), NotATableRow> {
        self.int(x.into())
    }
    /// A count past `i64::MAX` cannot occur in a run (2^63 cells).
    fn serialize_u64(self, x: u64) -> Result<(), NotATableRow> {
        self.int(i64::try_from(x).unwrap_or(i64::MAX))
    }
    /// As the JSON text of the `f32` (its shortest decimal) read back as `f64`.
    fn serialize_f32(self, x: f32) -> Result<(), NotATableRow> {
        let back = if x.is_finite() {
            x.to_string().parse().unwrap_or(f64::NAN)
        } else {
            f64::NAN
        };
        self.float(back)
    }
    fn serialize_f64(self, x: f64) -> Result<(), NotATableRow> {
        self.float(x)
    }
    fn serialize_char(self, x: char) -> Result<(), NotATableRow> {
        self.serialize_str(x.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, x: &str) -> Result<(), NotATableRow> {
        self.push(Kind::Str, |v| match v {
            Values::Str { text, ends } => {
                text.push_str(x);
                ends.push(text.len());
            }
            _ => unreachable!("a string joins a string column"),
        })
    }
    fn serialize_none(self) -> Result<(), NotATableRow> {
        self.col.push_null();
        Ok(())
    }
    fn serialize_unit(self) -> Result<(), NotATableRow> {
        self.serialize_none()
    }
    fn serialize_some<V: ?Sized + Serialize>(self, v: &V) -> Result<(), NotATableRow> {
        v.serialize(self)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), NotATableRow> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<V: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &V,
    ) -> Result<(), NotATableRow> {
        v.serialize(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<MapWriter<'c>, NotATableRow> {
        if self.map {
            return refused("a map inside a map");
        }
        if !self.col.become_kind(Kind::Map) {
            return refused("a map and other values in one field");
        }
        let row = self.col.valid.len();
        self.col.valid.push(true);
        Ok(MapWriter {
            col: self.col,
            row,
            key: None,
        })
    }

    refuse! {
        serialize_bytes(&[u8]) "bytes";
        serialize_unit_struct(&'static str) "a unit struct";
    }

    fn serialize_newtype_variant<V: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &V,
    ) -> Result<(), NotATableRow> {
        refused("an enum with data")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotATableRow> {
        refused("a list")
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotATableRow> {
        refused("a tuple")
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, NotATableRow> {
        refused("a tuple")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotATableRow> {
        refused("an enum with data")
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, NotATableRow> {
        refused("a nested struct")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotATableRow> {
        refused("an enum with data")
    }
}

/// Writes a map's entries into its key columns (a key first seen now gets a column, null
/// in the rows before); keys left out of a row are null in it.
struct MapWriter<'c> {
    col: &'c mut Column,
    row: usize,
    key: Option<usize>,
}

impl MapWriter<'_> {
    fn keys(&mut self) -> &mut Vec<Column> {
        match &mut self.col.values {
            Values::Map(keys) => keys,
            _ => unreachable!("a map writer writes a map column"),
        }
    }
}

impl SerializeMap for MapWriter<'_> {
    type Ok = ();
    type Error = NotATableRow;

    fn serialize_key<K: ?Sized + Serialize>(&mut self, key: &K) -> Result<(), NotATableRow> {
        let name = match serde_json::to_value(key) {
            Ok(serde_json::Value::String(s)) => s,
            _ => return refused("a map whose keys are not strings"),
        };
        let (row, expected) = (self.row, self.col.rows_expected);
        let keys = self.keys();
        let i = match keys.iter().position(|c| c.name == name) {
            Some(i) => i,
            None => {
                keys.push(Column::new(name, row, expected));
                keys.len() - 1
            }
        };
        if keys[i].valid.len() != row {
            return refused("a map with a key twice");
        }
        self.key = Some(i);
        Ok(())
    }

    fn serialize_value<V: ?Sized + Serialize>(&mut self, value: &V) -> Result<(), NotATableRow> {
        let Some(i) = self.key.take() else {
            return refused("a map value without its key");
        };
        let col = &mut self.keys()[i];
        value.serialize(ValueWriter { col, map: true })
    }

    fn end(mut self) -> Result<(), NotATableRow> {
        let rows = self.row + 1;
        for c in self.keys() {
            if c.valid.len() < rows {
                c.push_null();
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(serde::Serialize)]
    struct Row {
        name: String,
        rate: f64,
        cap: Option<u32>,
        late: Option<f64>,
        never: Option<u64>,
        on: bool,
        drops: BTreeMap<&'static str, u64>,
        count: u64,
    }

    fn row(
        name: &str,
        rate: f64,
        cap: Option<u32>,
        late: Option<f64>,
        drops: &[(&'static str, u64)],
    ) -> Row {
        Row {
            name: name.into(),
            rate,
            cap,
            late,
            never: None,
            on: cap.is_some(),
            drops: drops.iter().copied().collect(),
            count: 7,
        }
    }

    /// Field order kept; kinds from the values; a null where serde_json writes null (None,
    /// NaN); a column whose first rows are null takes its kind from the first value; a
    /// map's keys become columns in order of first appearance, null where a row lacks one.
    #[test]
    fn rows_become_typed_columns() {
        let rows = [
            row("x", 0.1, Some(3), None, &[("b", 5)]),
            row(
                "y\"\u{0}é",
                f64::NAN,
                None,
                Some(2.5),
                &[("a", 1), ("b", 6)],
            ),
            row("", 1.0, Some(4), None, &[]),
        ];
        let t = columns(&rows);
        assert_eq!(t.rows, 3);
        let names: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["name", "rate", "cap", "late", "never", "on", "drops", "count"]
        );
        let [name, rate, cap, late, never, on, drops, count] = &t.columns[..] else {
            panic!("eight columns")
        };
        assert_eq!(
            (0..3).map(|i| name.str_at(i).unwrap()).collect::<Vec<_>>(),
            ["x", "y\"\u{0}é", ""]
        );
        assert!(matches!(&rate.values, Values::Float(v) if v[0] == 0.1 && v[2] == 1.0));
        assert_eq!(rate.valid, [true, false, true]);
        assert!(matches!(&cap.values, Values::Int(v) if v[..] == [3, 0, 4]));
        assert_eq!(cap.valid, [true, false, true]);
        assert!(matches!(&late.values, Values::Float(v) if v[1] == 2.5 && v[0].is_nan()));
        assert_eq!(late.valid, [false, true, false]);
        assert!(matches!(never.values, Values::Null));
        assert!(matches!(&on.values, Values::Bool(v) if v[..] == [true, false, true]));
        assert!(!on.has_nulls());
        let Values::Map(keys) = &drops.values else {
            panic!("drops is a map")
        };
        assert_eq!(
            keys.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["b", "a"]
        );
        assert!(matches!(&keys[0].values, Values::Int(v) if v[..2] == [5, 6]));
        assert_eq!(keys[0].valid, [true, true, false]);
        assert_eq!(keys[1].valid, [false, true, false]);
        assert!(matches!(&count.values, Values::Int(v) if v[..] == [7, 7, 7]));
        assert_eq!(
            t.spec()["fields"][6],
            serde_json::json!({"name": "drops", "kind": "map", "keys": [
                {"name": "b", "kind": "int", "nulls": true}, {"name": "a", "kind": "int", "nulls": true}]})
        );
        assert_eq!(
            t.spec()["fields"][4],
            serde_json::json!({"name": "never", "kind": "null", "nulls": true})
        );
        assert_eq!(
            columns::<Row>(&[]).spec(),
            serde_json::json!({"rows": 0, "fields": []})
        );
    }

    /// Every column's vectors are made at the table's size, whatever row a column's kind
    /// is first known at (a null first, a map key first seen late): none grows row by row.
    #[test]
    fn columns_are_made_at_the_tables_size() {
        let rows = [
            row("x", 0.1, None, None, &[]),
            row("y", 0.2, Some(1), Some(2.5), &[("b", 5)]),
            row("z", 0.3, Some(2), None, &[("a", 1)]),
        ];
        let t = columns(&rows);
        fn sized(c: &Column) {
            assert_eq!(c.valid.capacity(), 3, "{}", c.name);
            let capacity = match &c.values {
                Values::Null => 3,
                Values::Int(v) => v.capacity(),
                Values::Float(v) => v.capacity(),
                Values::Bool(v) => v.capacity(),
                Values::Str { ends, .. } => ends.capacity(),
                Values::Map(keys) => {
                    keys.iter().for_each(sized);
                    3
                }
            };
            assert_eq!(capacity, 3, "{}", c.name);
        }
        t.columns.iter().for_each(sized);
        // An integer column that takes a float becomes a float column of the same room.
        #[derive(serde::Serialize)]
        struct Mixed {
            x: serde_json::Value,
        }
        let mixed = [1.into(), 2.5.into(), 3.into()].map(|x| Mixed { x });
        let t = columns(&mixed);
        assert!(matches!(&t.columns[0].values, Values::Float(v) if v[..] == [1.0, 2.5, 3.0]));
        sized(&t.columns[0]);
    }

    /// An f32 is the f64 its JSON text reads back as.
    #[test]
    fn an_f32_reads_as_its_json_text() {
        #[derive(serde::Serialize)]
        struct R {
            u: f32,
        }
        for x in [0.95f32, 1.0 / 3.0, 1e-7, 155.52] {
            let t = columns(&[R { u: x }]);
            let want: f64 = serde_json::to_string(&x).unwrap().parse().unwrap();
            assert!(
                matches!(&t.columns[0].values, Values::Float(v) if v[0].to_bits() == want.to_bits())
            );
        }
    }

    /// Only structs of scalars, options and maps of scalars are rows.
    #[test]
    #[should_panic(expected = "a result row is a struct")]
    fn a_row_with_a_list_is_refused() {
        #[derive(serde::Serialize)]
        struct R {
            v: Vec<u32>,
        }
        columns(&[R { v: vec![1] }]);
    }
}
