//! A scenario dict as JSON text, written from its Python objects in one pass (issue 14:
//! `json.dumps` of a 10 000-VC scenario was 0.13 s of a 0.4 s `atmsim.run()`, and of a
//! 100 000-VC one 1.5-1.9 s, growing faster than the scenario).
//!
//! Only plain JSON data is written here: dicts with `str` keys, lists, tuples, `str`, `int`
//! within 64 bits, finite `float`, `bool` and `None`, each of exactly that type, nested at
//! most [`MAX_DEPTH`] deep. For anything else (a NumPy number, a subclass, a non-`str` key,
//! NaN, a huge integer, a cycle) the answer is `None` and Python calls `json.dumps`, so what
//! it accepts, refuses or writes is unchanged. The text is compact UTF-8; `json.loads` of it
//! gives a dict equal to the one given (floats through their shortest round-trip decimal,
//! serde_json's own), and the engine reads it as it read `json.dumps`'s.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use rustc_hash::FxHashMap;
use std::io::Write;

/// Deeper than this is no scenario (a cycle, most likely): `json.dumps` decides.
pub const MAX_DEPTH: usize = 64;

/// The most string values whose place in the text is remembered (keys are always): a dict
/// built in Python repeats a few value objects (`"1 ms"`, `"host"`), found among the first
/// ones, but one decoded from JSON text has a new object for every value, and remembering
/// each of a 100 000-VC scenario's 1.3 million took 58 MB more memory than the text itself
/// (a newcomer's review of large networks, fifty-fourth session).
const MAX_SEEN_VALUES: usize = 1 << 16;

/// The JSON text of `obj`, or None if it holds anything but plain JSON data (see the
/// module doc).
pub fn to_json(obj: &Bound<'_, PyAny>) -> Option<String> {
    let mut w = Writer {
        out: Vec::with_capacity(1 << 16),
        floats: zmij::Buffer::new(),
        seen: FxHashMap::default(),
        seen_values: 0,
    };
    w.value(obj, 0)?;
    String::from_utf8(w.out).ok()
}

struct Writer {
    out: Vec<u8>,
    floats: zmij::Buffer,
    /// Where in `out` a string object already written is (its address: the dict keeps it
    /// alive through the walk): a scenario repeats its keys and many values.
    seen: FxHashMap<usize, (usize, usize)>,
    /// String values remembered in `seen` so far (at most [`MAX_SEEN_VALUES`]).
    seen_values: usize,
}

impl Writer {
    fn value(&mut self, obj: &Bound<'_, PyAny>, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        if let Ok(s) = obj.cast_exact::<PyString>() {
            return self.string(s, false);
        }
        if let Ok(d) = obj.cast_exact::<PyDict>() {
            self.out.push(b'{');
            for (i, (k, v)) in d.iter().enumerate() {
                if i > 0 {
                    self.out.push(b',');
                }
                self.string(k.cast_exact::<PyString>().ok()?, true)?;
                self.out.push(b':');
                self.value(&v, depth + 1)?;
            }
            self.out.push(b'}');
            return Some(());
        }
        if let Ok(l) = obj.cast_exact::<PyList>() {
            return self.array(l.iter(), depth);
        }
        if let Ok(t) = obj.cast_exact::<PyTuple>() {
            return self.array(t.iter(), depth);
        }
        if obj.is_none() {
            self.out.extend_from_slice(b"null");
        } else if let Ok(b) = obj.cast_exact::<PyBool>() {
            let text: &[u8] = if b.is_true() { b"true" } else { b"false" };
            self.out.extend_from_slice(text);
        } else if let Ok(i) = obj.cast_exact::<PyInt>() {
            match i.extract::<i64>() {
                Ok(v) => write!(self.out, "{v}").ok()?,
                Err(_) => write!(self.out, "{}", i.extract::<u64>().ok()?).ok()?,
            }
        } else if let Ok(x) = obj.cast_exact::<PyFloat>() {
            let v = x.value();
            if !v.is_finite() {
                return None;
            }
            self.out
                .extend_from_slice(self.floats.format_finite(v).as_bytes());
        } else {
            return None;
        }
        Some(())
    }

    fn array<'py>(
        &mut self,
        items: impl Iterator<Item = Bound<'py, PyAny>>,
        depth: usize,
    ) -> Option<()> {
        self.out.push(b'[');
        for (i, v) in items.enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.value(&v, depth + 1)?;
        }
        self.out.push(b']');
        Some(())
    }

    /// A string, escaped as serde_json escapes it; None for one that is not valid UTF-8
    /// (a lone surrogate). Its UTF-8 bytes come through one Python bytes object (the
    /// extension's stable ABI, from Python 3.9, has no borrowed view of them). Its place in
    /// the text is remembered if it is a dict's `key`, or one of the first
    /// [`MAX_SEEN_VALUES`] values.
    fn string(&mut self, s: &Bound<'_, PyString>, key: bool) -> Option<()> {
        let id = s.as_ptr() as usize;
        if let Some(&(start, end)) = self.seen.get(&id) {
            self.out.extend_from_within(start..end);
            return Some(());
        }
        let bytes = s.encode_utf8().ok()?;
        let text = std::str::from_utf8(bytes.as_bytes()).ok()?;
        let start = self.out.len();
        serde_json::to_writer(&mut self.out, text).ok()?;
        if key || self.seen_values < MAX_SEEN_VALUES {
            self.seen_values += usize::from(!key);
            self.seen.insert(id, (start, self.out.len()));
        }
        Some(())
    }
}
