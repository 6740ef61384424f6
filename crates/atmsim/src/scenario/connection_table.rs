//! The resolved connections: each connection's configuration as an index into a table of the
//! distinct ones.
//!
//! Issue 14 (memory per VC): a [`ConnectionCfg`] is 56 bytes (its class, start and stop
//! times, its TCP, ABR and application parameters, its reservation), and in a large network
//! nearly every connection has the same one: 10 000 one-pair VCs held 560 KB of equal
//! records for the whole run. Here a connection is the 4-byte index of its configuration,
//! and connections with equal configurations share one record, as ports share their
//! settings ([`super::port_table::PortTable`]).

use super::model::ConnectionCfg;
use std::sync::Arc;

/// How many distinct configurations [`ConnectionTable::push`] looks back on for one equal to
/// the connection's: a network's connections usually have one of a few (the scenarios of
/// seeds 001-005: one to four), so a short list finds nearly every match in O(1); a
/// connection it misses only holds its own record.
const RECENT: usize = 8;

/// The resolved connections, by index, in the scenario's order; connections with equal
/// configurations usually share one record.
#[derive(Clone, Debug, Default)]
pub struct ConnectionTable {
    /// Each connection's configuration: an index into `cfgs`.
    cfg_of: Vec<u32>,
    /// The configurations given out, each distinct one usually once.
    cfgs: Vec<ConnectionCfg>,
}

impl ConnectionTable {
    /// An empty table with room for `n` connections.
    pub fn with_capacity(n: usize) -> ConnectionTable {
        ConnectionTable {
            cfg_of: Vec::with_capacity(n),
            cfgs: Vec::new(),
        }
    }

    /// Appends a connection configured as `cfg`, sharing the record of an equal one among
    /// the last [`RECENT`] distinct configurations given out.
    pub fn push(&mut self, cfg: ConnectionCfg) {
        let recent = self.cfgs.len().saturating_sub(RECENT);
        let index = match (recent..self.cfgs.len())
            .rev()
            .find(|&i| same(&self.cfgs[i], &cfg))
        {
            Some(i) => i,
            None => {
                self.cfgs.push(cfg);
                self.cfgs.len() - 1
            }
        };
        let index = u32::try_from(index).expect("fewer than 2^32 connections");
        self.cfg_of.push(index);
    }

    /// Frees the spare room of the vectors (after the last [`ConnectionTable::push`]).
    pub fn shrink_to_fit(&mut self) {
        self.cfg_of.shrink_to_fit();
        self.cfgs.shrink_to_fit();
    }

    /// The number of connections.
    #[inline]
    pub fn len(&self) -> usize {
        self.cfg_of.len()
    }

    /// True if there are no connections.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.cfg_of.is_empty()
    }

    /// The configurations of the connections, in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            cfg_of: self.cfg_of.iter(),
            cfgs: &self.cfgs,
        }
    }

    /// The configuration of connection `i`, or None past the end.
    pub fn get(&self, i: usize) -> Option<&ConnectionCfg> {
        self.cfg_of.get(i).map(|&k| &self.cfgs[k as usize])
    }

    /// The number of distinct records held (at most [`ConnectionTable::len`]).
    pub fn records(&self) -> usize {
        self.cfgs.len()
    }
}

/// The configurations of a [`ConnectionTable`]'s connections, in order.
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    cfg_of: std::slice::Iter<'a, u32>,
    cfgs: &'a [ConnectionCfg],
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a ConnectionCfg;

    #[inline]
    fn next(&mut self) -> Option<&'a ConnectionCfg> {
        self.cfg_of.next().map(|&i| &self.cfgs[i as usize])
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.cfg_of.size_hint()
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a ConnectionTable {
    type Item = &'a ConnectionCfg;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl std::ops::Index<usize> for ConnectionTable {
    type Output = ConnectionCfg;

    /// The configuration of connection `c`.
    #[inline]
    fn index(&self, c: usize) -> &ConnectionCfg {
        &self.cfgs[self.cfg_of[c] as usize]
    }
}

/// True if `a` and `b` configure a connection alike, field by field: the shared parameters
/// by identity (equal ones are one shared value: [`super::connection`]), the numbers bit for
/// bit. Two equal configurations that are not shared only take two records.
fn same(a: &ConnectionCfg, b: &ConnectionCfg) -> bool {
    fn shared<T>(a: &Option<Arc<T>>, b: &Option<Arc<T>>) -> bool {
        match (a, b) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
    a.class == b.class
        && a.start == b.start
        && a.stop() == b.stop()
        && a.llc_snap == b.llc_snap
        && shared(&a.tcp, &b.tcp)
        && shared(&a.app, &b.app)
        && shared(&a.abr, &b.abr)
        && a.reserve.to_bits() == b.reserve.to_bits()
        && a.pre_established == b.pre_established
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::ServiceClass;
    use crate::traffic::{CbrCfg, CellApp};
    use atmsim_kernel::MaybeTime;

    fn cfg(start: u64) -> ConnectionCfg {
        ConnectionCfg {
            class: ServiceClass::Ubr,
            start,
            stop: MaybeTime::NONE,
            llc_snap: false,
            tcp: None,
            app: None,
            abr: None,
            reserve: 0.0,
            pre_established: false,
        }
    }

    #[test]
    fn equal_configurations_share_one_record() {
        let mut t = ConnectionTable::with_capacity(4);
        t.push(cfg(0));
        t.push(cfg(0));
        t.push(cfg(5));
        t.push(cfg(0));
        assert_eq!(t.len(), 4);
        assert_eq!(t.records(), 2);
        let starts: Vec<u64> = t.iter().map(|c| c.start).collect();
        assert_eq!(starts, [0, 0, 5, 0]);
        assert_eq!(t[2].start, 5);
    }

    #[test]
    fn a_configuration_differing_in_any_field_is_a_record_of_its_own() {
        let base = cfg(0);
        let app = || Some(Arc::new(CellApp::Cbr(CbrCfg { rate: 10.0 })));
        let shared_app = app();
        let variants = [
            ConnectionCfg {
                class: ServiceClass::Abr,
                ..base.clone()
            },
            ConnectionCfg {
                stop: MaybeTime::some(7),
                ..base.clone()
            },
            ConnectionCfg {
                llc_snap: true,
                ..base.clone()
            },
            ConnectionCfg {
                app: shared_app.clone(),
                ..base.clone()
            },
            ConnectionCfg {
                reserve: 1.0,
                ..base.clone()
            },
            ConnectionCfg {
                reserve: -0.0,
                ..base.clone()
            },
            ConnectionCfg {
                pre_established: true,
                ..base.clone()
            },
        ];
        for v in variants {
            let mut t = ConnectionTable::with_capacity(2);
            t.push(base.clone());
            t.push(v);
            assert_eq!(t.records(), 2);
        }
        // Shared parameters are compared by identity: the same shared value is one record,
        // equal values not shared are two.
        let with = |app| ConnectionCfg {
            app,
            ..base.clone()
        };
        let mut t = ConnectionTable::with_capacity(3);
        t.push(with(shared_app.clone()));
        t.push(with(shared_app.clone()));
        assert_eq!(t.records(), 1);
        t.push(with(app()));
        assert_eq!(t.records(), 2);
    }

    #[test]
    fn only_the_last_few_distinct_configurations_are_looked_back_on() {
        let mut t = ConnectionTable::with_capacity(RECENT + 2);
        for s in 0..=RECENT as u64 {
            t.push(cfg(s));
        }
        // The first is past the look-back: pushed again, it takes a record of its own, and
        // reads the same.
        t.push(cfg(0));
        assert_eq!(t.records(), RECENT + 2);
        assert_eq!(t[RECENT + 1].start, 0);
    }
}
