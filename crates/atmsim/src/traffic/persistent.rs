//! Persistent source (seed 003 section 5.6): always has cells; with a cap it hands cells
//! at no more than the cap's rate until the cap ends (an ACR-retaining source), then is
//! greedy.

use super::{Start, TrafficCfg, TrafficModel};
use crate::abr::source::cell_interval;
use crate::network::CellDir;
use atmsim_kernel::{RngStream, Time};

/// Resolved configuration of a persistent source.
#[derive(Clone, Debug, PartialEq)]
pub struct PersistentCfg {
    /// Rate cap, cells/s, and when it ends (None: never).
    pub cap: Option<(f64, Option<Time>)>,
}

/// A running persistent source.
#[derive(Clone, Debug)]
pub struct Persistent {
    cap: Option<(f64, Option<Time>)>,
}

impl TrafficCfg for PersistentCfg {
    type Model = Persistent;

    fn build(&self, _seed: u64, _conn: &str) -> Persistent {
        Persistent { cap: self.cap }
    }

    /// A cap counts only if it never ends.
    fn demand(&self) -> Option<f64> {
        match self.cap {
            Some((r, None)) => Some(r),
            _ => None,
        }
    }
}

impl TrafficModel for Persistent {
    fn start(&mut self, now: Time, fwd: &mut CellDir, _rng: &mut RngStream) -> Start {
        match self.cap {
            None => {
                fwd.set_greedy();
                Start::Kick
            }
            Some(_) => Start::GenAt(now),
        }
    }

    #[inline]
    fn on_gen(&mut self, now: Time, dir: &mut CellDir) -> Option<Time> {
        let (rate, until) = self.cap?;
        if until.is_some_and(|u| now >= u) {
            dir.set_greedy();
            return None;
        }
        dir.add_backlog(1);
        let n = now + cell_interval(rate);
        Some(until.map_or(n, |u| n.min(u)))
    }
}
