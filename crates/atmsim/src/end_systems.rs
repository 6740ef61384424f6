//! The connections' end systems: TCP connections' in boxes, cell-level connections' in one
//! table.
//!
//! Issue 14 (memory per VC): each connection's ends were a box of their own. A cell-level
//! connection ([`CellConn`]) lies on cache-line bounds, so its box came from the allocator's
//! aligned path, which takes a block of the size plus the alignment and gives back the
//! pieces before and after it: at 10 000 one-pair VCs, about 105 bytes per VC more resident
//! memory than the connection's 256 (the ABR + KVR bottleneck row, 1 490 -> 1 340 bytes per
//! VC with the connection on 16-byte bounds, which cost 6-8 % of its time in lines split
//! across the connection's fields). In one table they lie on line bounds back to back, with
//! neither the pieces nor the allocator's header. A TCP connection keeps its box: its blocks
//! reuse the memory the parsed scenario freed, where one table of them took fresh pages
//! (the UBR bottleneck row at 10 000 VCs, 1 280 -> 1 301 bytes per VC resident).

use crate::network::{CellConn, CellDir, TcpConn};

/// A connection's end systems: a TCP connection's box, or where a cell-level connection's
/// are in [`EndSystems`]'s table.
#[derive(Debug)]
pub enum Ends {
    /// A TCP sender and receiver.
    Tcp(Box<TcpConn>),
    /// Cell-level applications, one per direction, with their ABR end systems
    /// ([`EndSystems::cells`]).
    Cells(u32),
}

/// A connection's end systems, read-only.
#[derive(Clone, Copy, Debug)]
pub enum EndsRef<'a> {
    /// A TCP sender and receiver.
    Tcp(&'a TcpConn),
    /// Cell-level applications with their ABR end systems.
    Cells(&'a CellConn),
}

impl<'a> EndsRef<'a> {
    /// The TCP ends, if this is a TCP connection.
    #[inline]
    pub fn tcp_ref(self) -> Option<&'a TcpConn> {
        match self {
            EndsRef::Tcp(t) => Some(t),
            EndsRef::Cells(_) => None,
        }
    }

    /// The cell-level ends, if any.
    #[inline]
    pub fn cells(self) -> Option<&'a CellConn> {
        match self {
            EndsRef::Cells(c) => Some(c),
            EndsRef::Tcp(_) => None,
        }
    }

    /// Direction `d`'s source/destination pair, if the connection has one: cell-level
    /// traffic (the reverse direction only if it sends, [`CellConn::rev`]), or TCP over
    /// ABR.
    #[inline]
    pub fn dir(self, d: usize) -> Option<&'a CellDir> {
        match self {
            EndsRef::Cells(c) => c.dir(d),
            EndsRef::Tcp(t) => t.dirs.as_deref().map(|dirs| &dirs[d]),
        }
    }
}

/// Every connection's end systems, by connection index: TCP connections' boxed, cell-level
/// connections' in a table (see the module's doc).
#[derive(Debug, Default)]
pub struct EndSystems {
    /// Each connection's ends.
    ends: Vec<Ends>,
    /// The cell-level connections' ends, in connection order, on cache-line bounds.
    cells: Vec<CellConn>,
}

impl EndSystems {
    /// Room for `n` connections, `cells` of them cell-level connections.
    pub fn with_capacity(n: usize, cells: usize) -> EndSystems {
        EndSystems {
            ends: Vec::with_capacity(n),
            cells: Vec::with_capacity(cells),
        }
    }

    /// Appends a TCP connection's ends.
    pub fn push_tcp(&mut self, t: TcpConn) {
        self.ends.push(Ends::Tcp(Box::new(t)));
    }

    /// Appends a cell-level connection's ends.
    pub fn push_cells(&mut self, c: CellConn) {
        self.ends.push(Ends::Cells(index(self.cells.len())));
        self.cells.push(c);
    }

    /// The number of connections.
    #[inline]
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True if there are no connections.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Connection `c`'s ends: a TCP connection's box, or where the table of cell-level
    /// connections holds it.
    #[inline]
    pub fn ends(&self, c: usize) -> &Ends {
        &self.ends[c]
    }

    /// Connection `c`'s ends, read-only.
    #[inline]
    pub fn get(&self, c: usize) -> EndsRef<'_> {
        match &self.ends[c] {
            Ends::Tcp(t) => EndsRef::Tcp(t),
            Ends::Cells(i) => EndsRef::Cells(&self.cells[*i as usize]),
        }
    }

    /// Connection `c`'s ends, read-only, if there is a connection `c`.
    #[inline]
    pub fn try_get(&self, c: usize) -> Option<EndsRef<'_>> {
        (c < self.len()).then(|| self.get(c))
    }

    /// Every connection's ends, read-only, in connection order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = EndsRef<'_>> + '_ {
        (0..self.len()).map(|c| self.get(c))
    }

    /// The TCP ends of connection `c` (engine invariant: only called for TCP connections).
    #[inline]
    pub fn tcp(&mut self, c: usize) -> &mut TcpConn {
        self.tcp_mut(c)
            .expect("a TCP event is for a TCP connection")
    }

    /// The TCP ends of connection `c`, read-only, if it is a TCP connection.
    #[inline]
    pub fn tcp_ref(&self, c: usize) -> Option<&TcpConn> {
        self.get(c).tcp_ref()
    }

    /// The TCP ends of connection `c`, mutable, if it is a TCP connection.
    #[inline]
    pub fn tcp_mut(&mut self, c: usize) -> Option<&mut TcpConn> {
        match &mut self.ends[c] {
            Ends::Tcp(t) => Some(t),
            Ends::Cells(_) => None,
        }
    }

    /// The cell-level ends of connection `c`, if any.
    #[inline]
    pub fn cells(&self, c: usize) -> Option<&CellConn> {
        self.get(c).cells()
    }

    /// The cell-level ends of connection `c`, mutable (engine invariant: only for
    /// cell-level connections).
    #[inline]
    pub fn cells_mut(&mut self, c: usize) -> &mut CellConn {
        match self.ends[c] {
            Ends::Cells(i) => &mut self.cells[i as usize],
            Ends::Tcp(_) => unreachable!("cell event for a TCP connection"),
        }
    }

    /// The source/destination pair of connection `c`'s direction `d` (0 forward, 1
    /// reverse): a cell-level connection's, or the ABR end systems of a TCP connection over
    /// ABR (engine invariant: only called for those, and for a cell-level connection's
    /// reverse direction only if it sends: [`CellConn::rev`]).
    #[inline]
    pub fn dir_mut(&mut self, c: usize, d: usize) -> &mut CellDir {
        match &mut self.ends[c] {
            Ends::Cells(i) => self.cells[*i as usize].dir_mut(d),
            Ends::Tcp(t) => &mut t.dirs.as_mut().expect("TCP over ABR")[d],
        }
    }

    /// Connection `c`'s direction `d`'s source/destination pair, if it has one
    /// ([`EndsRef::dir`]).
    #[inline]
    pub fn dir(&self, c: usize, d: usize) -> Option<&CellDir> {
        self.get(c).dir(d)
    }

    /// Where connection `c`'s entry is, for a cache hint ([`atmsim_kernel::prefetch`]): the
    /// entry says which table holds its ends. Out of range: a pointer past the table, never
    /// read.
    #[inline(always)]
    pub fn entry_ptr(&self, c: usize) -> *const u8 {
        self.ends.as_ptr().wrapping_add(c).cast()
    }

    /// Where the source state of connection `c`'s direction `d` is (the TCP ends for a TCP
    /// connection; the forward direction for a one-way connection's reverse), for a cache
    /// hint ([`atmsim_kernel::prefetch`]); `None` if there is no connection `c`.
    #[inline(always)]
    pub fn dir_ptr(&self, c: usize, d: usize) -> Option<*const u8> {
        Some(match self.ends.get(c)? {
            Ends::Cells(i) => {
                let cc = &self.cells[*i as usize];
                (cc.dir(d).unwrap_or(&cc.fwd) as *const CellDir).cast()
            }
            Ends::Tcp(t) => (&**t as *const TcpConn).cast(),
        })
    }
}

/// A table index in 32 bits.
fn index(i: usize) -> u32 {
    u32::try_from(i).expect("fewer than 2^32 connections")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_names_its_ends_in_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Ends>(), 16);
    }

    #[test]
    fn cell_level_ends_lie_on_cache_line_bounds_back_to_back() {
        assert_eq!(std::mem::align_of::<CellConn>(), 64);
        assert_eq!(std::mem::size_of::<CellConn>() % 64, 0);
    }
}
