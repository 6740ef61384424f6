//! The ABR source end system: TM 4.0 section 5.10.4, rules 1-13, as spelled out in spec
//! ALGORITHMS.md section 1.3 and its pitfalls (section 10, items 1-3).
//!
//! The engine asks [`AbrSource::next_opportunity`] when the next in-rate cell may go
//! (rule 1: never faster than ACR; an idle source earns no credit), then
//! [`AbrSource::choose`] which cell it is (rule 3), and reports what it sent
//! ([`AbrSource::send_frm`], [`AbrSource::sent_brm`], [`AbrSource::sent_data`]).
//! Backward RM cells arriving at the source go to [`AbrSource::on_brm`] (rules 8-9).
//! Everything here is plain arithmetic on the source's state: it is tested on scripted
//! sequences of opportunities and RM cells, without the engine.

use super::{AbrParams, SourcePolicy};
use atmsim_kernel::time::round_to_time;
use atmsim_kernel::{MaybeTime, Time, PS_PER_S};

/// The cell to send at a transmit opportunity (rule 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextCell {
    /// An in-rate forward RM cell (rule 3a).
    Frm,
    /// A waiting turned-around backward RM cell, in rate (rule 3b).
    Brm,
    /// A data cell (rule 3c).
    Data,
    /// Nothing is waiting: the source is idle and earns no credit.
    Idle,
}

/// Counters of what the source did (data cells first: counted with every cell sent, in
/// the line of the source's per-cell state; see [`AbrSource`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct SourceCounters {
    /// Data cells sent.
    pub data_sent: u64,
    /// In-rate forward RM cells sent.
    pub frm_sent: u64,
    /// Out-of-rate forward RM cells sent (rule 11).
    pub oor_frm_sent: u64,
    /// In-rate backward RM cells sent.
    pub brm_sent: u64,
    /// Backward RM cells received.
    pub brm_received: u64,
    /// Times rule 5 reset ACR to ICR.
    pub rule5_resets: u64,
    /// Times rule 6 cut ACR by CDF.
    pub rule6_cuts: u64,
}

/// A TM 4.0 ABR source end system.
///
/// What a transmit opportunity reads and writes (the parameters' pointer, ACR, the times
/// of rules 1, 2 and 11, ACR's pacing interval, the counts of rules 3 and 6, the data cells
/// sent) is its first 64 bytes, in this order (issue 14: at 10 000 VCs each line of a
/// source is a cache miss per cell sent).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct AbrSource {
    /// Parameters (shared by the sources whose parameters are equal: issue 14, memory per VC).
    pub p: std::sync::Arc<AbrParams>,
    /// Allowed cell rate, cells/s (rule 1: MCR <= ACR <= PCR). Changed only through
    /// [`AbrSource::set_acr`], which keeps `pace` with it.
    acr: f64,
    /// Time of the last in-rate forward RM cell (None: none sent yet, rule 2).
    last_frm: MaybeTime,
    /// Time of the last in-rate cell.
    last_send: MaybeTime,
    /// Time of the last out-of-rate forward RM cell.
    last_oor: MaybeTime,
    /// Rule 1's pacing interval at ACR, [`cell_interval`]`(acr)` in ps, kept with ACR so
    /// that a transmit opportunity does not divide for it (issue 14: the division was most
    /// of `kick` at 10 000 VCs); [`PACE_NOT_KEPT`] where it does not fit in 32 bits (ACR
    /// below about 233 cells/s) or ACR is 0, and then computed where needed.
    pace: u32,
    /// Forward RM cells sent since the last BN = 0 backward RM cell (rule 6).
    unack: u32,
    /// In-rate cells (data and backward RM) since the last in-rate forward RM cell: fewer
    /// than Nrm (rule 3a sends a forward RM cell at Nrm - 1), and Nrm is at most 256 (TM
    /// 4.0; checked by the scenario), so 16 bits hold it (and leave room for `pace` in the
    /// first line); it saturates rather than wrap for parameters built by hand past that.
    count: u16,
    /// An in-rate backward RM cell went since the last in-rate forward RM cell.
    brm_since_frm: bool,
    /// [`AbrSource::shortest_interval`], kept (in what was padding) so that a cell sent
    /// does not divide for it.
    shortest_gap: u32,
    /// Counters.
    pub counters: SourceCounters,
}

/// [`AbrSource`]'s `pace` when the pacing interval is not kept: computed from ACR.
const PACE_NOT_KEPT: u32 = u32::MAX;

/// The pacing interval at `acr` as [`AbrSource`] keeps it: [`cell_interval`]`(acr)`, or
/// [`PACE_NOT_KEPT`] if ACR is 0 or the interval does not fit below it.
#[inline]
fn kept_pace(acr: f64) -> u32 {
    if acr <= 0.0 {
        return PACE_NOT_KEPT;
    }
    u32::try_from(cell_interval(acr)).unwrap_or(PACE_NOT_KEPT)
}

/// The time between cells at `rate` cells/s, in ps (at least 1 ps).
#[inline]
pub fn cell_interval(rate: f64) -> Time {
    round_to_time(PS_PER_S as f64 / rate).max(1)
}

impl AbrSource {
    /// A source before its first cell: ACR = ICR (rule 2), within [MCR, PCR] (rule 1).
    pub fn new(p: impl Into<std::sync::Arc<AbrParams>>) -> AbrSource {
        let p = p.into();
        debug_assert!(p.nrm <= 256, "Nrm = {} (TM 4.0: 2 to 256; `count`)", p.nrm);
        let acr = p.icr.min(p.pcr).max(p.mcr);
        let shortest_gap = p.shortest_interval().min(u32::MAX as Time) as u32;
        AbrSource {
            shortest_gap,
            p,
            acr,
            pace: kept_pace(acr),
            count: 0,
            last_frm: MaybeTime::NONE,
            brm_since_frm: false,
            unack: 0,
            last_send: MaybeTime::NONE,
            last_oor: MaybeTime::NONE,
            counters: SourceCounters::default(),
        }
    }

    /// The allowed cell rate, cells/s (rule 1: MCR <= ACR <= PCR).
    #[inline]
    pub fn acr(&self) -> f64 {
        self.acr
    }

    /// Sets ACR to `acr` cells/s, and the pacing interval kept with it. Rules 5, 6, 8 and
    /// 9 and seed 004's policy change ACR through here; tests set it directly.
    #[inline]
    pub fn set_acr(&mut self, acr: f64) {
        self.acr = acr;
        self.pace = kept_pace(acr);
    }

    /// Rule 1's pacing interval at ACR, in ps: [`cell_interval`]`(acr)` (ACR > 0), kept
    /// with ACR where it fits in 32 bits.
    #[inline]
    fn pacing_interval(&self) -> Time {
        if self.pace != PACE_NOT_KEPT {
            Time::from(self.pace)
        } else {
            cell_interval(self.acr)
        }
    }

    /// A lower bound of the time between two cells of this source, in or out of rate
    /// ([`AbrParams::shortest_interval`], at most `u32::MAX` ps: a smaller bound holds too).
    #[inline]
    pub fn shortest_interval(&self) -> Time {
        Time::from(self.shortest_gap)
    }

    /// Rule 1: the earliest time at or after `now` when the next in-rate cell may go:
    /// one 1/ACR after the last in-rate cell. None if ACR is 0. An ACR decreased towards 0
    /// (MCR 0) can put it past the end of time: the time saturates (found by fuzzing: the
    /// sum wrapped, and the event went into the past).
    #[inline]
    pub fn next_opportunity(&self, now: Time) -> Option<Time> {
        if self.acr <= 0.0 {
            return None;
        }
        Some(match self.last_send.get() {
            None => now,
            Some(t) => now.max(t.saturating_add(self.pacing_interval())),
        })
    }

    /// Rule 11: when an out-of-rate forward RM cell may go (only while ACR < TCR), at most
    /// one per 1/TCR and none within 1/TCR of an in-rate cell. Never for the UCSC policy.
    #[inline]
    pub fn next_out_of_rate(&self, now: Time) -> Option<Time> {
        if self.acr >= self.p.tcr || self.p.tcr <= 0.0 || self.is_ucsc() {
            return None;
        }
        let last = match (self.last_send.get(), self.last_oor.get()) {
            (Some(a), Some(b)) => a.max(b),
            (a, b) => match a.or(b) {
                Some(t) => t,
                None => return Some(now), // nothing sent yet: may go at once
            },
        };
        Some(now.max(last.saturating_add(cell_interval(self.p.tcr))))
    }

    /// True for seed 004's UCSC source policy.
    #[inline]
    pub fn is_ucsc(&self) -> bool {
        matches!(self.p.policy, SourcePolicy::Ucsc { .. })
    }

    /// True if rule 3a makes the next in-rate cell a forward RM cell (UCSC: after every
    /// Nrm - 1 data cells, no Trm).
    #[inline]
    pub fn frm_due(&self, now: Time) -> bool {
        match self.last_frm.get() {
            None => true, // rule 2: the first in-rate cell is an FRM
            Some(t) => {
                u32::from(self.count) + 1 >= self.p.nrm
                    || (!self.is_ucsc()
                        && u32::from(self.count) >= self.p.mrm
                        && now.saturating_sub(t) >= self.p.trm)
            }
        }
    }

    /// Rule 3: which cell goes at a transmit opportunity at `now`.
    #[inline]
    pub fn choose(&self, now: Time, data_waiting: bool, brm_waiting: bool) -> NextCell {
        if !data_waiting && !brm_waiting {
            return NextCell::Idle; // no FRM while idle (pitfall 1)
        }
        if self.frm_due(now) {
            NextCell::Frm
        } else if brm_waiting && (!self.brm_since_frm || !data_waiting) {
            NextCell::Brm
        } else if data_waiting {
            NextCell::Data
        } else {
            NextCell::Brm
        }
    }

    /// Rules 5, 6 and 7: an in-rate forward RM cell goes at `now`. Returns the CCR to
    /// write in it (the ACR after rules 5 and 6).
    pub fn send_frm(&mut self, now: Time) -> f64 {
        if self.is_ucsc() {
            // Seed 004 2.1: no use-it-or-lose-it, no CRM/CDF.
            self.last_frm = MaybeTime::some(now);
            self.last_send = MaybeTime::some(now);
            self.count = 0;
            self.brm_since_frm = false;
            self.counters.frm_sent += 1;
            return self.acr;
        }
        // Rule 5: use it or lose it.
        if let Some(t) = self.last_frm.get() {
            if self.acr > self.p.icr && now.saturating_sub(t) > self.p.adtf {
                self.set_acr(self.p.icr.max(self.p.mcr));
                self.counters.rule5_resets += 1;
            }
        }
        // Rule 6: too many forward RM cells without a BN = 0 backward RM cell.
        if self.p.cdf > 0.0 && self.unack >= self.p.crm {
            self.set_acr((self.acr - self.acr * self.p.cdf).max(self.p.mcr));
            self.counters.rule6_cuts += 1;
        }
        self.unack = self.unack.saturating_add(1);
        self.last_frm = MaybeTime::some(now);
        self.last_send = MaybeTime::some(now);
        self.count = 0;
        self.brm_since_frm = false;
        self.counters.frm_sent += 1;
        self.acr
    }

    /// Rule 11: an out-of-rate forward RM cell (CLP = 1) goes at `now`; returns its CCR.
    pub fn send_out_of_rate_frm(&mut self, now: Time) -> f64 {
        self.last_oor = MaybeTime::some(now);
        self.counters.oor_frm_sent += 1;
        self.acr
    }

    /// An in-rate backward RM cell went at `now` (counts toward Nrm, rule 3).
    #[inline]
    pub fn sent_brm(&mut self, now: Time) {
        self.count = self.count.saturating_add(1);
        self.brm_since_frm = true;
        self.last_send = MaybeTime::some(now);
        self.counters.brm_sent += 1;
    }

    /// A data cell went at `now` (rule 12: the engine sends it with EFCI = 0).
    #[inline]
    pub fn sent_data(&mut self, now: Time) {
        self.count = self.count.saturating_add(1);
        self.last_send = MaybeTime::some(now);
        self.counters.data_sent += 1;
    }

    /// Rules 8 and 9: a backward RM cell of this source arrives.
    pub fn on_brm(&mut self, ci: bool, ni: bool, bn: bool, er: f64) {
        self.counters.brm_received += 1;
        if let SourcePolicy::Ucsc { increase } = self.p.policy {
            // Seed 004 2.1: r(t+) = min(r(t) + Nrm x AIR, ER).
            self.set_acr(
                (self.acr + increase)
                    .min(er)
                    .max(self.p.mcr)
                    .min(self.p.pcr),
            );
            return;
        }
        if !bn {
            self.unack = 0;
        }
        let mut acr = self.acr;
        if ci {
            acr = (acr - acr * self.p.rdf).max(self.p.mcr);
        } else if !ni {
            acr = (acr + self.p.rif * self.p.pcr).min(self.p.pcr);
        }
        self.set_acr(acr.min(er).max(self.p.mcr).min(self.p.pcr));
    }

    /// A connection (re)opens: the source starts again from ICR (rule 2), as new.
    pub fn reopen(&mut self) {
        let counters = self.counters;
        *self = AbrSource::new(self.p.clone());
        self.counters = counters;
    }

    /// Forward RM cells sent since the last BN = 0 backward RM cell.
    pub fn unacknowledged(&self) -> u32 {
        self.unack
    }
}

#[cfg(test)]
#[path = "source_tests.rs"]
mod tests;
