//! ABR source keys, defaults and checks (TM 4.0 section 5.10.2; spec ALGORITHMS.md 1.2;
//! the UCSC source of seed 004 section 2.1).
//!
//! [`AbrSpec`] is what a scenario writes in `defaults.abr` and a connection's `abr`; the
//! resolved [`AbrParams`]' `impl Default` holds the TM 4.0 defaults.

use super::{AbrParams, SourcePolicy};
use crate::cell::CELL_MBITS;
use crate::config::{err, ConfigError, KeyPath, Pick};
use crate::units::{CellCount, Duration, Rate};
use atmsim_kernel::{Time, PS_PER_MS};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A number of cells, written `"16 cells"`.
type Cells = CellCount;

/// The rate policy of an ABR source end system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SourcePolicySpec {
    /// ATM Forum TM 4.0 section 5.10.4, rules 1-13 (the default).
    #[default]
    Tm40,
    /// The UCSC source of seed 004 section 2.1 (spec 5.1): a forward RM cell after every
    /// Nrm - 1 data cells; on a backward RM cell ACR <- min(ACR + Nrm x AIR, ER)
    /// (additive increase, immediate decrease); no use-it-or-lose-it, no CRM/CDF, no Trm,
    /// CI/NI ignored. Defaults: ICR = PCR / 50, AIR = 180 cells/s.
    Ucsc,
}

/// ABR source end-system parameters (TM 4.0 section 5.10; spec ALGORITHMS.md 1.2).
/// Every field is optional; defaults are the TM 4.0 ones.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AbrSpec {
    /// Source rate policy: `"tm40"` (default) or `"ucsc"` (seed 004).
    #[serde(default)]
    pub policy: Option<SourcePolicySpec>,
    /// UCSC policy: additive increase rate per cell sent; each backward RM cell raises
    /// ACR by Nrm x AIR (default `"180 cells/s"`, seed 004 section 3).
    #[serde(default)]
    pub air: Option<Rate>,
    /// Peak cell rate (default: the rate of the source's access link).
    #[serde(default)]
    pub pcr: Option<Rate>,
    /// Minimum cell rate (default `"0 bps"`).
    #[serde(default)]
    pub mcr: Option<Rate>,
    /// Initial cell rate (default: PCR).
    #[serde(default)]
    pub icr: Option<Rate>,
    /// Rate increase factor, 0 < RIF <= 1 (default 1/16).
    #[serde(default, deserialize_with = "crate::scenario::plain::factor")]
    pub rif: Option<f64>,
    /// Rate decrease factor, 0 < RDF <= 1 (default 1/16).
    #[serde(default, deserialize_with = "crate::scenario::plain::factor")]
    pub rdf: Option<f64>,
    /// Cells per forward RM cell, 2 to 256 (default 32).
    #[serde(default, deserialize_with = "crate::scenario::plain::nrm")]
    pub nrm: Option<u32>,
    /// Minimum in-rate cells between forward RM cells, at least 1 (default 2).
    #[serde(default)]
    pub mrm: Option<u32>,
    /// Upper bound on the time between forward RM cells (default `"100 ms"`).
    #[serde(default)]
    pub trm: Option<Duration>,
    /// Transient buffer exposure, cells (default 16777215).
    #[serde(default)]
    pub tbe: Option<u32>,
    /// Forward RM cells allowed without a returning one (default ceil(TBE / Nrm)).
    #[serde(default)]
    pub crm: Option<u32>,
    /// Cutoff decrease factor, 0 (rule 6 off) to 1 (default 1/16).
    #[serde(default)]
    pub cdf: Option<f64>,
    /// ACR decrease time factor: rule 5's idle timeout (default `"500 ms"`).
    #[serde(default)]
    pub adtf: Option<Duration>,
    /// Tagged cell rate: the rate of out-of-rate forward RM cells (default `"10 cells/s"`).
    #[serde(default)]
    pub tcr: Option<Rate>,
    /// Fixed round-trip time; ICR is limited to TBE / FRTT (default `"0 s"`: no limit).
    #[serde(default)]
    pub frtt: Option<Duration>,
    /// TCP traffic only: the most cells the source's AAL5 queue holds before TCP must
    /// wait (back-pressure; the segment stays in the socket). Default: unlimited, as in
    /// seeds 000 and 002 (no loss at the source). ACKs are never held back.
    #[serde(default)]
    pub source_queue: Option<Cells>,
    /// General weighted fairness: the VC's weight w_i, above 0 (default 1). Only the `gw`
    /// allocator reads it (ATMF 98-0408 section 2: g_i = MCR_i + w_i (A - sum MCR) / sum w).
    #[serde(default)]
    pub weight: Option<f64>,
}

impl Default for AbrParams {
    /// TM 4.0 section 5.10.2 (Table 5-5): PCR = the access link rate (here 0: filled in
    /// per connection), MCR 0, ICR = PCR, RIF = RDF = CDF = 1/16, Nrm 32, Mrm 2, Trm 100 ms,
    /// TBE 16 777 215 cells, CRM = TBE / Nrm, ADTF 0.5 s, TCR 10 cells/s; unlimited source
    /// queue (TCP over ABR).
    fn default() -> Self {
        AbrParams {
            policy: SourcePolicy::Tm40,
            pcr: 0.0,
            mcr: 0.0,
            icr: 0.0,
            rif: 1.0 / 16.0,
            rdf: 1.0 / 16.0,
            nrm: 32,
            mrm: 2,
            trm: 100 * PS_PER_MS,
            crm: 16_777_215u32.div_ceil(32),
            cdf: 1.0 / 16.0,
            adtf: 500 * PS_PER_MS,
            tcr: 10.0,
            source_queue: None,
            weight: 1.0,
        }
    }
}

/// TBE's TM 4.0 default, cells.
pub const DEFAULT_TBE: u32 = 16_777_215;
/// The UCSC source's additive increase AIR, cells/s (seed 004 section 2.1).
pub const DEFAULT_AIR: f64 = 180.0;
/// The UCSC source's ICR as a fraction of PCR (seed 004: PCR / 50).
pub const UCSC_ICR_FRACTION: f64 = 1.0 / 50.0;

type AbrPick<'a> = Pick<'a, AbrSpec>;

/// Resolves ABR source parameters: the connection's own, then `defaults.abr`, then the
/// TM 4.0 defaults. `access_rate` is the source's access link rate in cells/s.
pub fn resolve_abr(
    path: &str,
    c: &AbrSpec,
    d: &AbrSpec,
    access_rate: f64,
) -> Result<AbrParams, ConfigError> {
    let pick = Pick {
        own_path: path,
        default_path: "defaults.abr",
        own: c,
        default: d,
    };
    let def = AbrParams::default();
    let ucsc = source_policy_keys(&pick)?;
    let (pcr, mcr, mut icr) = rates(&pick, access_rate, ucsc)?;
    let rif = factor(&pick, "rif", |t| &t.rif, def.rif, false)?;
    let rdf = factor(&pick, "rdf", |t| &t.rdf, def.rdf, false)?;
    let cdf = factor(&pick, "cdf", |t| &t.cdf, def.cdf, true)?;
    let (nrm, mrm, trm, tbe, crm) = rm_cells(&pick, &def)?;
    let (adtf, tcr) = timers(&pick, &def)?;
    if let (Some(frtt), _) = pick.get("frtt", |t| &t.frtt) {
        if frtt.ps() > 0 {
            icr = icr.min(tbe as f64 / frtt.secs()).max(mcr);
        }
    }
    let (v, sq_p) = pick.get("source_queue", |t| &t.source_queue);
    let source_queue = match v {
        Some(n) if n.0 == 0 => {
            return err(
                sq_p,
                "0 cells is not allowed; the source queue must hold at least one segment (omit it for unlimited)",
            )
        }
        v => v.map(|n| n.0 as u64),
    };
    let policy = if ucsc {
        ucsc_policy(&pick, nrm)?
    } else {
        SourcePolicy::Tm40
    };
    let weight = weight(&pick, def.weight)?;
    Ok(AbrParams {
        policy,
        pcr,
        mcr,
        icr,
        rif,
        rdf,
        nrm,
        mrm,
        trm,
        crm,
        cdf,
        adtf,
        tcr,
        source_queue,
        weight,
    })
}

/// The general-weighted-fairness weight (ATMF 98-0408): finite and above 0.
fn weight(pick: &AbrPick, def: f64) -> Result<f64, ConfigError> {
    match pick.get("weight", |t| &t.weight) {
        (None, _) => Ok(def),
        (Some(w), _) if w.is_finite() && w > 0.0 => Ok(w),
        (Some(w), p) => err(
            p,
            format!("{w} is not allowed; a weight must be a finite number above 0 (default 1)"),
        ),
    }
}

/// Whether the source is UCSC's; TM 4.0 keys on a UCSC source and AIR on a TM 4.0 one are
/// refused where they are set (the connection's table or defaults.abr), with their value.
fn source_policy_keys(pick: &AbrPick) -> Result<bool, ConfigError> {
    let (v, policy_p) = pick.get("policy", |t| &t.policy);
    let ucsc = v == Some(SourcePolicySpec::Ucsc);
    let (air_v, air_p) = pick.get("air", |t| &t.air);
    if ucsc {
        macro_rules! refuse {
            ($($f:ident),*) => {$(
                if let (Some(v), p) = pick.get(stringify!($f), |t| &t.$f) {
                    return err(
                        p,
                        format!(
                            "{} = {v} is set, but {} is a TM 4.0 source parameter and policy = \"ucsc\" (seed 004) does not use it; remove it, or use policy = \"tm40\"",
                            stringify!($f),
                            stringify!($f)
                        ),
                    );
                }
            )*};
        }
        refuse!(rif, rdf, mrm, trm, tbe, crm, cdf, adtf, tcr, frtt);
    } else if let Some(a) = air_v {
        return err(
            air_p,
            format!("{a} is set but the source policy is TM 4.0 ({policy_p}); AIR belongs to policy = \"ucsc\" (TM 4.0 increases by RIF x PCR)"),
        );
    }
    Ok(ucsc)
}

/// A rate key in cells/s (0 bps or more, finite), or None when unset.
fn rate(v: Option<Rate>, p: KeyPath<'_>, what: &str) -> Result<Option<f64>, ConfigError> {
    match v {
        None => Ok(None),
        Some(r) if r.bps() < 0.0 || !r.bps().is_finite() => err(
            p,
            format!("{r} is not allowed; {what} must be a rate of 0 bps or more"),
        ),
        Some(r) => Ok(Some(r.cells_per_sec())),
    }
}

/// PCR (default: the access link rate), MCR <= PCR, ICR in [MCR, PCR].
fn rates(pick: &AbrPick, access_rate: f64, ucsc: bool) -> Result<(f64, f64, f64), ConfigError> {
    let (v, pcr_p) = pick.get("pcr", |t| &t.pcr);
    let pcr = rate(v, pcr_p, "PCR")?.unwrap_or(access_rate);
    if pcr <= 0.0 {
        return err(pcr_p, "0 bps is not allowed; PCR must be above 0 bps");
    }
    let (v, mcr_p) = pick.get("mcr", |t| &t.mcr);
    let mcr = rate(v, mcr_p, "MCR")?.unwrap_or(AbrParams::default().mcr);
    if mcr > pcr {
        return err(
            mcr_p,
            format!(
                "{} Mbps is above PCR = {} Mbps; allowed: 0 <= MCR <= PCR",
                mbps_text(mcr),
                mbps_text(pcr)
            ),
        );
    }
    let (v, icr_p) = pick.get("icr", |t| &t.icr);
    let default_icr = if ucsc { pcr * UCSC_ICR_FRACTION } else { pcr };
    let icr = rate(v, icr_p, "ICR")?.unwrap_or(default_icr);
    if icr > pcr || icr < mcr {
        return err(
            icr_p,
            format!(
                "{} Mbps is outside [MCR, PCR] = [{}, {}] Mbps",
                mbps_text(icr),
                mbps_text(mcr),
                mbps_text(pcr)
            ),
        );
    }
    Ok((pcr, mcr, icr))
}

/// A rate of `cells_per_s` in Mb/s for a message: at most six decimals, without trailing
/// zeros (20 Mb/s is 47 169.8 cells/s, which multiplies back to 20.000000000000004).
fn mbps_text(cells_per_s: f64) -> String {
    let text = format!("{:.6}", cells_per_s * CELL_MBITS);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A factor in (0, 1] (or [0, 1] with `zero_ok`): RIF, RDF, CDF.
fn factor(
    pick: &AbrPick,
    name: &str,
    get: impl Fn(&AbrSpec) -> &Option<f64>,
    def: f64,
    zero_ok: bool,
) -> Result<f64, ConfigError> {
    let (v, p) = pick.get(name, get);
    let x = v.unwrap_or(def);
    let ok = x.is_finite() && x <= 1.0 && (x > 0.0 || (zero_ok && x == 0.0));
    if !ok {
        let range = if zero_ok { "0 <= x <= 1" } else { "0 < x <= 1" };
        let what = name.to_uppercase();
        return err(
            p,
            format!("{x} is not allowed; {what} must satisfy {range} (TM 4.0 uses powers of 2)"),
        );
    }
    Ok(x)
}

/// Nrm (2..256), Mrm (1..Nrm), Trm (> 0), TBE (>= 1) and CRM (>= 1; default TBE / Nrm).
fn rm_cells(pick: &AbrPick, def: &AbrParams) -> Result<(u32, u32, Time, u32, u32), ConfigError> {
    let (v, nrm_p) = pick.get("nrm", |t| &t.nrm);
    let nrm = v.unwrap_or(def.nrm);
    if !(2..=256).contains(&nrm) {
        return err(
            nrm_p,
            format!("{nrm} is not allowed; Nrm must be 2 to 256 cells"),
        );
    }
    let (v, mrm_p) = pick.get("mrm", |t| &t.mrm);
    let mrm = v.unwrap_or(def.mrm);
    if mrm == 0 || mrm > nrm {
        return err(
            mrm_p,
            format!("{mrm} is not allowed; Mrm must be 1 to Nrm ({nrm})"),
        );
    }
    let (v, trm_p) = pick.get("trm", |t| &t.trm);
    let trm = v.map(|d| d.ps()).unwrap_or(def.trm);
    if trm == 0 {
        return err(trm_p, "must be longer than 0 s");
    }
    let (v, tbe_p) = pick.get("tbe", |t| &t.tbe);
    let tbe = v.unwrap_or(DEFAULT_TBE);
    if tbe == 0 {
        return err(tbe_p, "0 is not allowed; TBE must be at least 1 cell");
    }
    let (v, crm_p) = pick.get("crm", |t| &t.crm);
    let crm = v.unwrap_or(tbe.div_ceil(nrm));
    if crm == 0 {
        return err(crm_p, "0 is not allowed; CRM must be at least 1");
    }
    Ok((nrm, mrm, trm, tbe, crm))
}

/// ADTF (> 0 s) and TCR (> 0 cells/s).
fn timers(pick: &AbrPick, def: &AbrParams) -> Result<(Time, f64), ConfigError> {
    let (v, adtf_p) = pick.get("adtf", |t| &t.adtf);
    let adtf = v.map(|d| d.ps()).unwrap_or(def.adtf);
    if adtf == 0 {
        return err(adtf_p, "must be longer than 0 s");
    }
    let (v, tcr_p) = pick.get("tcr", |t| &t.tcr);
    let tcr = rate(v, tcr_p, "TCR")?.unwrap_or(def.tcr);
    if tcr <= 0.0 {
        return err(
            tcr_p,
            "0 bps is not allowed; TCR must be above 0 (TM 4.0: 10 cells/s)",
        );
    }
    Ok((adtf, tcr))
}

/// The UCSC policy: ACR rises by Nrm x AIR per backward RM cell (seed 004 section 2.1).
fn ucsc_policy(pick: &AbrPick, nrm: u32) -> Result<SourcePolicy, ConfigError> {
    let (air_v, air_p) = pick.get("air", |t| &t.air);
    let air = rate(air_v, air_p, "AIR")?.unwrap_or(DEFAULT_AIR);
    if air <= 0.0 {
        return err(
            air_p,
            "0 bps is not allowed; AIR must be above 0 (seed 004: 180 cells/s)",
        );
    }
    Ok(SourcePolicy::Ucsc {
        increase: nrm as f64 * air,
    })
}

#[cfg(test)]
mod message_tests {
    use super::*;

    /// Rates in messages read as written: no float noise, no trailing zeros.
    #[test]
    fn rates_in_messages_are_short() {
        assert_eq!(mbps_text(20e6 / 424.0), "20");
        assert_eq!(mbps_text(10e6 / 424.0), "10");
        assert_eq!(mbps_text(0.0), "0");
        assert_eq!(mbps_text(155.52e6 / 424.0), "155.52");
    }
}
