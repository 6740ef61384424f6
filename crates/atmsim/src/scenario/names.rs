//! Names back to back in one string, each found by its index: the resolved scenario's node
//! and connection names.
//!
//! Issue 14 (memory per VC): a name held inline took 24 bytes whatever its length (and a
//! longer one an allocation besides); here a name is its bytes and the 4-byte end of it,
//! about 9 bytes for names like `src1234` or `vc1234`.

/// The most bytes the names of one list may take together (each name's end is kept in 32
/// bits; resolving checks it: [`super::nodes`], [`super::connection`]).
pub const MAX_NAME_BYTES: usize = u32::MAX as usize;

/// Names back to back in one string ([`PackedNames::get`] by index).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackedNames {
    /// The names, back to back.
    text: String,
    /// Where each name ends in `text`.
    ends: Vec<u32>,
}

impl PackedNames {
    /// An empty list with room for `names` names that take `bytes` bytes together.
    pub fn with_capacity(names: usize, bytes: usize) -> PackedNames {
        PackedNames {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(names),
        }
    }

    /// Adds `name`; its index is the count before.
    ///
    /// # Panics
    /// If the names would take more than [`MAX_NAME_BYTES`] (resolving refuses such a
    /// scenario first).
    pub fn push(&mut self, name: &str) {
        // Checked before anything is added, so that the list stays whole if this panics.
        let end = u32::try_from(self.text.len() + name.len())
            .expect("names take at most 4 GiB (checked when resolving)");
        self.text.push_str(name);
        self.ends.push(end);
    }

    /// How many names.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Name `i`.
    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    /// The names, in index order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The bytes the list holds on the heap (its names and ends, with their spare room).
    pub fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * std::mem::size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use super::PackedNames;

    #[test]
    fn packed_names_give_back_each_name() {
        let given = [
            "vc1",
            "h\u{e9}te 2",
            "",
            "a name longer than twenty-three bytes",
        ];
        let bytes: usize = given.iter().map(|g| g.len()).sum();
        let mut t = PackedNames::with_capacity(given.len(), bytes);
        assert!(t.is_empty());
        for name in given {
            t.push(name);
        }
        assert_eq!(t.len(), 4);
        for (i, name) in given.iter().enumerate() {
            assert_eq!(t.get(i), *name);
        }
        assert_eq!(t.iter().collect::<Vec<_>>(), given);
        // Made at its size: the names back to back and a 4-byte end each.
        assert_eq!(t.heap_bytes(), bytes + 4 * given.len());
    }
}
