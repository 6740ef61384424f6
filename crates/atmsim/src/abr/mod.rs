//! ABR end systems (ATM Forum TM 4.0 section 5.10; spec ALGORITHMS.md section 1).
//!
//! * [`source`]: the source end system, rules 1-13: ACR, pacing, the choice of forward
//!   RM / backward RM / data cell, use-it-or-lose-it (rule 5), CRM/CDF (rule 6) and the
//!   reaction to backward RM cells (rules 8-9).
//! * [`destination`]: the destination end system: EFCI state and RM turnaround.
//!
//! Rates are cells per second (f64) throughout, as in the spec; cells carry ER and CCR as
//! f32 (the 16-bit floating-point format of TM 4.0 is coarser still).

pub mod config;
pub mod destination;
pub mod source;

pub use destination::Destination;
pub use source::{AbrSource, NextCell};

use atmsim_kernel::Time;

/// The rate policy of an ABR source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SourcePolicy {
    /// TM 4.0 rules 1-13.
    Tm40,
    /// Seed 004's UCSC source (spec 5.1): ACR <- min(ACR + `increase`, ER) on each backward
    /// RM cell, where `increase` = Nrm x AIR cells/s; a forward RM cell every Nrm - 1 data
    /// cells and nothing else (no Trm, rules 5 and 6 off, CI/NI ignored).
    Ucsc {
        /// Nrm x AIR, cells/s.
        increase: f64,
    },
}

/// Resolved ABR source parameters (TM 4.0 section 5.10.2; spec 1.2). Rates in cells/s.
#[derive(Clone, Debug, PartialEq)]
pub struct AbrParams {
    /// Peak cell rate.
    pub pcr: f64,
    /// Minimum cell rate.
    pub mcr: f64,
    /// Initial cell rate (already limited to TBE / FRTT).
    pub icr: f64,
    /// Rate increase factor.
    pub rif: f64,
    /// Rate decrease factor.
    pub rdf: f64,
    /// Cells per forward RM cell: 2 to 256 (TM 4.0; the scenario checks it, and
    /// [`AbrSource`] counts the cells between forward RM cells in 16 bits).
    pub nrm: u32,
    /// Minimum in-rate cells between forward RM cells.
    pub mrm: u32,
    /// Upper bound on the time between forward RM cells.
    pub trm: Time,
    /// Forward RM cells allowed without a returning BN = 0 backward RM cell.
    pub crm: u32,
    /// Cutoff decrease factor (0 disables rule 6).
    pub cdf: f64,
    /// ACR decrease time factor (rule 5).
    pub adtf: Time,
    /// Tagged cell rate (out-of-rate forward RM cells).
    pub tcr: f64,
    /// TCP over ABR: cells the source's AAL5 queue may hold before TCP waits
    /// (None: unlimited, as in seeds 000 and 002).
    pub source_queue: Option<u64>,
    /// Rate policy.
    pub policy: SourcePolicy,
    /// General-weighted-fairness weight (ATMF 98-0408), which the `gw` allocator learns
    /// with the MCR at the VC's first forward RM cell (given to the ports when the network
    /// is built: [`crate::allocator::RmFields`]); 1 by default.
    pub weight: f64,
}

impl AbrParams {
    /// The shortest time between two cells of a source with these parameters: its ACR
    /// never exceeds the largest of PCR, ICR and MCR (rules 1, 2 and 5), and its
    /// out-of-rate forward RM cells go at most at TCR (rule 11).
    pub fn shortest_interval(&self) -> Time {
        let fastest = self.pcr.max(self.icr).max(self.mcr).max(self.tcr);
        source::cell_interval(fastest)
    }

    /// TM 4.0 defaults (see `impl Default` in [`config`]) for a source with peak rate
    /// `pcr` cells/s and ICR = PCR.
    pub fn tm40(pcr: f64) -> AbrParams {
        AbrParams {
            pcr,
            icr: pcr,
            ..AbrParams::default()
        }
    }
}
