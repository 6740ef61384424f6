//! A result's tables (one row per connection, one per port) as JSON columns, the form the
//! Python extension hands them over in:
//! `{"field": [value, ...], ...}`, the fields in the rows' order, each value the text
//! serde_json writes for it in a row (a port's `drops` stays an object per row).
//!
//! As rows (a JSON object per row) every key is repeated once per row: at 10 000 one-pair
//! VCs the head was 20 MB of text, 0.56 s of `json.loads` and 0.3 s of building DataFrames
//! from lists of dicts, against 0.5 s for the run itself (issue 14, item 3: results become
//! DataFrames without Python loops). As columns it is 8.5 MB, and `pandas.DataFrame` takes
//! each column's list whole. Python makes the same DataFrames (same values, column order and
//! dtypes), and `RunResult.raw` the same rows, from them.

use serde::ser::{self, Impossible, Serialize, SerializeStruct, Serializer};
use std::fmt;

/// The rows of a table as JSON columns (see the module doc); `{}` for no rows. Each row's
/// fields are written straight into their columns' text ([`ColumnWriter`]): no per-row map
/// and no per-value string.
pub fn columns_json<T: Serialize>(rows: &[T]) -> String {
    let mut w = ColumnWriter::default();
    for row in rows {
        row.serialize(&mut w)
            .expect("a result row is a struct of JSON values");
        w.row += 1;
    }
    let mut out = Vec::with_capacity(w.cols.iter().map(|(_, c)| c.len() + 8).sum::<usize>() + 2);
    out.push(b'{');
    for (i, (key, col)) in w.cols.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut out, key).expect("a key serializes");
        out.push(b':');
        out.extend_from_slice(col);
        out.push(b']');
    }
    out.push(b'}');
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Takes rows (structs) one after another and appends each field's JSON text to its
/// column, the columns in the first row's field order.
#[derive(Default)]
struct ColumnWriter {
    /// `(field, "[v0,v1,...")`: the closing bracket is added at the end.
    cols: Vec<(&'static str, Vec<u8>)>,
    /// The row being written.
    row: usize,
    /// The field of the row being written.
    field: usize,
}

/// Why a row could not be written as columns (only structs can).
#[derive(Debug)]
struct NotAStruct(String);

impl fmt::Display for NotAStruct {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotAStruct {}

impl ser::Error for NotAStruct {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        NotAStruct(msg.to_string())
    }
}

impl SerializeStruct for &mut ColumnWriter {
    type Ok = ();
    type Error = NotAStruct;

    fn serialize_field<V: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &V,
    ) -> Result<(), NotAStruct> {
        if self.row == 0 {
            self.cols.push((key, vec![b'[']));
        }
        let Some((name, col)) = self.cols.get_mut(self.field) else {
            return Err(NotAStruct(format!(
                "row {} has more fields than the first",
                self.row
            )));
        };
        if *name != key {
            return Err(NotAStruct(format!(
                "row {}: field {key}, expected {name}",
                self.row
            )));
        }
        if self.row > 0 {
            col.push(b',');
        }
        serde_json::to_writer(&mut *col, value).map_err(|e| NotAStruct(e.to_string()))?;
        self.field += 1;
        Ok(())
    }

    fn end(self) -> Result<(), NotAStruct> {
        if self.field != self.cols.len() {
            return Err(NotAStruct(format!(
                "row {} has fewer fields than the first",
                self.row
            )));
        }
        self.field = 0;
        Ok(())
    }
}

/// What every serializer method but `serialize_struct` answers: only structs are rows.
fn not_a_struct<T>() -> Result<T, NotAStruct> {
    Err(NotAStruct("a table row must be a struct".into()))
}

/// Refuses the serializer methods that take plain arguments ([`not_a_struct`]).
macro_rules! refuse {
    ($($name:ident($($arg:ty),*);)*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<(), NotAStruct> {
            not_a_struct()
        })*
    };
}

impl Serializer for &mut ColumnWriter {
    type Ok = ();
    type Error = NotAStruct;
    type SerializeSeq = Impossible<(), NotAStruct>;
    type SerializeTuple = Impossible<(), NotAStruct>;
    type SerializeTupleStruct = Impossible<(), NotAStruct>;
    type SerializeTupleVariant = Impossible<(), NotAStruct>;
    type SerializeMap = Impossible<(), NotAStruct>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), NotAStruct>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, NotAStruct> {
        Ok(self)
    }

    refuse! {
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32);
        serialize_i64(i64); serialize_u8(u8); serialize_u16(u16); serialize_u32(u32);
        serialize_u64(u64); serialize_f32(f32); serialize_f64(f64); serialize_char(char);
        serialize_str(&str); serialize_bytes(&[u8]); serialize_none(); serialize_unit();
        serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }

    fn serialize_some<V: ?Sized + Serialize>(self, _: &V) -> Result<(), NotAStruct> {
        not_a_struct()
    }
    fn serialize_newtype_struct<V: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &V,
    ) -> Result<(), NotAStruct> {
        not_a_struct()
    }
    fn serialize_newtype_variant<V: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &V,
    ) -> Result<(), NotAStruct> {
        not_a_struct()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotAStruct> {
        not_a_struct()
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotAStruct> {
        not_a_struct()
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, NotAStruct> {
        not_a_struct()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotAStruct> {
        not_a_struct()
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, NotAStruct> {
        not_a_struct()
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotAStruct> {
        not_a_struct()
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
        drops: BTreeMap<String, u64>,
        count: u64,
    }

    /// Field order kept (not sorted), each value as serde_json writes it in a row (NaN
    /// as null, None as null, nested objects whole).
    #[test]
    fn rows_become_columns_in_field_order() {
        let row = |name: &str, rate, cap, n| Row {
            name: name.into(),
            rate,
            cap,
            drops: BTreeMap::from([("b".to_string(), n), ("a".to_string(), 0)]),
            count: n,
        };
        let rows = [row("x", 0.1, Some(3), 7), row("y\"", f64::NAN, None, 8)];
        assert_eq!(
            columns_json(&rows),
            r#"{"name":["x","y\""],"rate":[0.1,null],"cap":[3,null],"drops":[{"a":0,"b":7},{"a":0,"b":8}],"count":[7,8]}"#
        );
        assert_eq!(columns_json::<Row>(&[]), "{}");
    }

    /// Only structs are rows.
    #[test]
    #[should_panic(expected = "a result row is a struct")]
    fn a_row_that_is_not_a_struct_is_refused() {
        columns_json(&[1u32, 2]);
    }
}
